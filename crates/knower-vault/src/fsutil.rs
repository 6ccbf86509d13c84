//! Durable file primitives: every byte Knower writes goes through here.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Prefix of the temporary files atomic writes create beside their target.
/// They are hidden, so walks and the watcher never take them for notes, and
/// any left behind by a crash are removed by the next rescan (under the lock,
/// where no write can be in progress).
pub(crate) const TEMP_PREFIX: &str = ".knower-tmp-";

/// Writes `bytes` to `path` so that a reader — or a crash — sees either the
/// old content or the new, never a mix: temporary file in the same folder,
/// fsync, rename over the target, fsync of the folder. The file keeps the
/// permissions of the one it replaces; a new file gets the usual 0666 & !umask.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::other("no parent folder"))?;
    write_atomic_via(dir, path, bytes, true)
}

/// [`write_atomic`] with the temporary file made in `temp_dir`, which must
/// be on the same file system as `path`. Without `durable`, nothing is
/// synced: the caller syncs the whole file system later, in one go.
pub(crate) fn write_atomic_via(
    temp_dir: &Path,
    path: &Path,
    bytes: &[u8],
    durable: bool,
) -> io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::other("no parent folder"))?;
    let mode = match fs::metadata(path) {
        Ok(meta) => meta.permissions().mode() & 0o7777,
        Err(_) => 0o666,
    };
    let mut temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .permissions(fs::Permissions::from_mode(mode))
        .tempfile_in(temp_dir)?;
    temp.write_all(bytes)?;
    if durable {
        temp.as_file().sync_all()?;
    }
    temp.persist(path).map_err(|e| e.error)?;
    if durable {
        sync_dir(dir)?;
    }
    Ok(())
}

/// Makes a rename, creation or removal in `dir` durable.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Appends one record to a log file and makes it durable. The record is
/// written with a single `write` so that concurrent appenders (all holding the
/// vault lock anyway) and readers never see it interleaved.
pub(crate) fn append_durable(path: &Path, record: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    file.write_all(record)?;
    file.sync_data()
}

/// Reads a log file whole, dropping a last line that has no newline: it was
/// cut short by a crash and is not a record.
pub(crate) fn read_complete_lines(path: &Path) -> io::Result<Vec<u8>> {
    let mut bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    bytes.truncate(complete);
    Ok(bytes)
}
