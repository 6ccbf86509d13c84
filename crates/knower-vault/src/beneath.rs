//! File operations on vault paths by descriptor, confined beneath the root.
//!
//! Checking a path and then opening it by name leaves a window in which a
//! folder can be replaced by a symbolic link, and the write follows it out
//! of the vault. Here every operation starts from a descriptor of the vault's
//! root and opens one component at a time with `O_NOFOLLOW`: a link anywhere
//! on the way — one that was there all along or one swapped in a moment ago —
//! makes the operation fail, and a folder moved away while it is open keeps
//! its descriptor, so what is written lands inside the vault or nowhere.
//! (One `openat` per component rather than `openat2`'s `RESOLVE_BENEATH`:
//! the same guarantee, with no dependence on the kernel's version.)

use std::ffi::OsStr;
use std::fs::{File, Metadata};
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, PermissionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;

use crate::fsutil::TEMP_PREFIX;
use crate::path::VaultPath;

/// The root of a vault, held open.
pub(crate) struct Beneath {
    root: OwnedFd,
}

const FOLDER: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

impl Beneath {
    pub(crate) fn open(root: &Path) -> io::Result<Beneath> {
        let root = rustix::fs::open(root, FOLDER, Mode::empty())?;
        Ok(Beneath { root })
    }

    /// The folder `path` (the root for the empty path), opened.
    fn folder(&self, path: &VaultPath) -> io::Result<OwnedFd> {
        let mut fd = rustix::fs::openat(&self.root, ".", FOLDER, Mode::empty())?;
        for name in path.components() {
            fd = rustix::fs::openat(&fd, name, FOLDER, Mode::empty()).map_err(linked)?;
        }
        Ok(fd)
    }

    /// The folder holding `path`, opened, and `path`'s own name in it.
    fn parent<'a>(&self, path: &'a VaultPath) -> io::Result<(OwnedFd, &'a str)> {
        let parent = path.parent().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "the vault's root has no parent",
            )
        })?;
        Ok((self.folder(&parent)?, path.name()))
    }

    /// What is at `path`, without following a link there (`None` when
    /// nothing is).
    pub(crate) fn metadata(&self, path: &VaultPath) -> io::Result<Option<Metadata>> {
        if path.is_root() {
            return File::from(self.folder(path)?).metadata().map(Some);
        }
        let (dir, name) = match self.parent(path) {
            Ok(found) => found,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        match rustix::fs::openat(&dir, name, flags, Mode::empty()) {
            Ok(fd) => File::from(fd).metadata().map(Some),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// What is at `path`, which must exist.
    pub(crate) fn existing(&self, path: &VaultPath) -> io::Result<Metadata> {
        self.metadata(path)?
            .ok_or_else(|| io::ErrorKind::NotFound.into())
    }

    /// The content of the regular file at `path`.
    pub(crate) fn read(&self, path: &VaultPath) -> io::Result<Vec<u8>> {
        let (dir, name) = self.parent(path)?;
        // Non-blocking, so that a FIFO put in the vault cannot hang a reader.
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let mut file =
            File::from(rustix::fs::openat(&dir, name, flags, Mode::empty()).map_err(linked)?);
        if !file.metadata()?.is_file() {
            return Err(io::Error::other("not a regular file"));
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// Replaces the file at `path` so that a reader — or a crash — sees the
    /// old content or the new, never a mix: a temporary file in the same
    /// folder, fsync, rename over the target, fsync of the folder. The file
    /// keeps the permissions of the one it replaces; a new one gets the usual
    /// 0666 & !umask. Returns the new file's metadata.
    pub(crate) fn write_atomic(&self, path: &VaultPath, bytes: &[u8]) -> io::Result<Metadata> {
        let (staged, meta) = self.stage(path, bytes, true)?;
        let dir = staged.put_in_place()?;
        rustix::fs::fsync(&dir)?;
        Ok(meta)
    }

    /// The first half of [`write_atomic`](Self::write_atomic): the new
    /// content in a temporary file beside `path`, synced when `durable`
    /// (otherwise [`sync_all`](Self::sync_all) must run before the rename),
    /// and the metadata `path` will have once it is in place.
    pub(crate) fn stage(
        &self,
        path: &VaultPath,
        bytes: &[u8],
        durable: bool,
    ) -> io::Result<(Staged, Metadata)> {
        let (dir, name) = self.parent(path)?;
        let kept_mode = match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Some(stat.st_mode & 0o7777),
            Err(Errno::NOENT) => None,
            Err(e) => return Err(e.into()),
        };
        let (temp, mut file) = create_temp(&dir)?;
        let written = (|| {
            if let Some(mode) = kept_mode {
                file.set_permissions(std::fs::Permissions::from_mode(mode))?;
            }
            file.write_all(bytes)?;
            if durable {
                file.sync_all()?;
            }
            file.metadata()
        })();
        let staged = Staged {
            dir,
            temp,
            name: name.to_string(),
        };
        match written {
            Ok(meta) => Ok((staged, meta)),
            Err(e) => {
                staged.discard();
                Err(e)
            }
        }
    }

    /// Makes everything written so far on the vault's file system durable
    /// at once: one `syncfs` instead of an fsync per file and folder.
    pub(crate) fn sync_all(&self) -> io::Result<()> {
        rustix::fs::syncfs(&self.root)?;
        Ok(())
    }

    /// Appends `record` to the file at `path` (made if absent) with one
    /// `write`, makes it durable, and returns the whole file and its
    /// metadata.
    pub(crate) fn append(
        &self,
        path: &VaultPath,
        record: &[u8],
    ) -> io::Result<(Vec<u8>, Metadata)> {
        let (dir, name) = self.parent(path)?;
        let flags = OFlags::RDWR | OFlags::APPEND | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let (fd, created) = match rustix::fs::openat(&dir, name, flags, Mode::empty()) {
            Ok(fd) => (fd, false),
            Err(Errno::NOENT) => {
                let fd = rustix::fs::openat(
                    &dir,
                    name,
                    flags | OFlags::CREATE | OFlags::EXCL,
                    Mode::from_bits_truncate(0o666),
                )?;
                (fd, true)
            }
            Err(e) => return Err(linked(e)),
        };
        let mut file = File::from(fd);
        if !file.metadata()?.is_file() {
            return Err(io::Error::other("not a regular file"));
        }
        file.write_all(record)?;
        file.sync_data()?;
        if created {
            rustix::fs::fsync(&dir)?;
        }
        let meta = file.metadata()?;
        let mut bytes = vec![0; meta.len() as usize];
        file.read_exact_at(&mut bytes, 0)?;
        Ok((bytes, meta))
    }

    pub(crate) fn create_folder(&self, path: &VaultPath) -> io::Result<()> {
        let (dir, name) = self.parent(path)?;
        rustix::fs::mkdirat(&dir, name, Mode::from_bits_truncate(0o777))?;
        rustix::fs::fsync(&dir)?;
        Ok(())
    }

    pub(crate) fn remove_file(&self, path: &VaultPath) -> io::Result<()> {
        let (dir, name) = self.parent(path)?;
        rustix::fs::unlinkat(&dir, name, AtFlags::empty())?;
        rustix::fs::fsync(&dir)?;
        Ok(())
    }

    /// Removes the folder at `path` and everything in it. Links inside are
    /// removed, never followed.
    pub(crate) fn remove_folder(&self, path: &VaultPath) -> io::Result<()> {
        let (dir, name) = self.parent(path)?;
        remove_tree(&dir, OsStr::new(name))?;
        rustix::fs::fsync(&dir)?;
        Ok(())
    }

    pub(crate) fn rename(&self, from: &VaultPath, to: &VaultPath) -> io::Result<()> {
        let (from_dir, from_name) = self.parent(from)?;
        let (to_dir, to_name) = self.parent(to)?;
        rustix::fs::renameat(&from_dir, from_name, &to_dir, to_name)?;
        rustix::fs::fsync(&from_dir)?;
        rustix::fs::fsync(&to_dir)?;
        Ok(())
    }
}

/// New content waiting beside its file ([`Beneath::stage`]).
pub(crate) struct Staged {
    dir: OwnedFd,
    temp: String,
    name: String,
}

impl Staged {
    /// Renames the content over its file; returns the folder, for a sync.
    pub(crate) fn put_in_place(self) -> io::Result<OwnedFd> {
        match rustix::fs::renameat(&self.dir, self.temp.as_str(), &self.dir, self.name.as_str()) {
            Ok(()) => Ok(self.dir),
            Err(e) => {
                self.discard();
                Err(e.into())
            }
        }
    }

    fn discard(&self) {
        let _ = rustix::fs::unlinkat(&self.dir, self.temp.as_str(), AtFlags::empty());
    }
}

/// A new, empty temporary file in `dir`, named so that walks and the watcher
/// never take it for a note.
fn create_temp(dir: &OwnedFd) -> io::Result<(String, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    loop {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = format!("{TEMP_PREFIX}{}-{nanos:x}-{n}", std::process::id());
        match rustix::fs::openat(dir, name.as_str(), flags, Mode::from_bits_truncate(0o666)) {
            Ok(fd) => return Ok((name, File::from(fd))),
            Err(Errno::EXIST) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

fn remove_tree(parent: &impl AsFd, name: &OsStr) -> io::Result<()> {
    let folder =
        rustix::fs::openat(parent, name.as_bytes(), FOLDER, Mode::empty()).map_err(linked)?;
    let mut names = Vec::new();
    for entry in rustix::fs::Dir::read_from(&folder)? {
        let entry = entry?;
        let child = entry.file_name().to_bytes();
        if child != b"." && child != b".." {
            names.push(OsStr::from_bytes(child).to_owned());
        }
    }
    for child in names {
        let stat = rustix::fs::statat(&folder, child.as_bytes(), AtFlags::SYMLINK_NOFOLLOW)?;
        if rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::Directory {
            remove_tree(&folder, &child)?;
        } else {
            rustix::fs::unlinkat(&folder, child.as_bytes(), AtFlags::empty())?;
        }
    }
    rustix::fs::unlinkat(parent, name.as_bytes(), AtFlags::REMOVEDIR)?;
    Ok(())
}

/// `O_NOFOLLOW` met a link: say so, rather than "too many levels of
/// symbolic links".
fn linked(e: Errno) -> io::Error {
    if e == Errno::LOOP {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "a symbolic link is in the way, and Knower never goes through links there",
        )
    } else {
        e.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> VaultPath {
        VaultPath::parse(s).unwrap()
    }

    #[test]
    fn works_beneath_the_root_and_refuses_links_on_the_way() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let b = Beneath::open(root.path()).unwrap();
        b.create_folder(&p("a")).unwrap();
        b.write_atomic(&p("a/x.md"), b"one").unwrap();
        assert_eq!(b.read(&p("a/x.md")).unwrap(), b"one");
        let (all, _) = b.append(&p("a/x.md"), b" two").unwrap();
        assert_eq!(all, b"one two");
        b.rename(&p("a/x.md"), &p("y.md")).unwrap();
        assert!(b.metadata(&p("a/x.md")).unwrap().is_none());
        assert!(b.metadata(&p("y.md")).unwrap().unwrap().is_file());

        std::os::unix::fs::symlink(outside.path(), root.path().join("link")).unwrap();
        assert!(b.write_atomic(&p("link/z.md"), b"z").is_err());
        assert!(b.append(&p("link/z.md"), b"z").is_err());
        assert!(b.create_folder(&p("link/sub")).is_err());
        assert!(b.rename(&p("y.md"), &p("link/y.md")).is_err());
        std::fs::write(outside.path().join("secret.md"), "s").unwrap();
        assert!(b.read(&p("link/secret.md")).is_err());
        std::os::unix::fs::symlink(outside.path().join("secret.md"), root.path().join("s.md"))
            .unwrap();
        assert!(b.read(&p("s.md")).is_err());
        assert!(
            b.write_atomic(&p("s.md"), b"x").is_ok(),
            "replaces the link itself"
        );
        assert_eq!(
            std::fs::read(outside.path().join("secret.md")).unwrap(),
            b"s"
        );
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);

        b.create_folder(&p("a/deep")).unwrap();
        b.write_atomic(&p("a/deep/f.md"), b"f").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("a/deep/out")).unwrap();
        b.remove_folder(&p("a")).unwrap();
        assert!(!root.path().join("a").exists());
        assert!(
            outside.path().join("secret.md").exists(),
            "the link was removed, not followed"
        );
    }
}
