//! Where a running server says it is: `.knower/server/run.json` (pid,
//! address), so that other `knower` processes of the vault find it and
//! join its queue instead of racing it; and its log when it runs in the
//! background.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use knower_vault::INTERNAL_DIR;
use serde::{Deserialize, Serialize};

/// The server's folder under `.knower/`.
pub const DIR: &str = "server";
const RUN_FILE: &str = "run.json";
const LOG_FILE: &str = "log";

/// What `.knower/server/run.json` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunInfo {
    pub pid: u32,
    pub address: SocketAddr,
    pub url: String,
    pub started_at: String,
    pub version: String,
}

fn dir(root: &Path) -> PathBuf {
    root.join(INTERNAL_DIR).join(DIR)
}

/// The background server's output (`knower start`).
pub fn log_path(root: &Path) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir(root))?;
    Ok(dir(root).join(LOG_FILE))
}

/// The server running on the vault at `root`, if any: its run file names a
/// live process.
pub fn running(root: &Path) -> Option<RunInfo> {
    let text = std::fs::read_to_string(dir(root).join(RUN_FILE)).ok()?;
    let info: RunInfo = serde_json::from_str(&text).ok()?;
    alive(info.pid).then_some(info)
}

/// Whether process `pid` exists (Linux and other systems with /proc; else
/// assumed alive, and the caller's connection attempt decides).
pub fn alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.exists() || proc.join(pid.to_string()).exists()
}

/// The run file of this process's server; removed by [`RunFile::remove`].
pub struct RunFile {
    path: PathBuf,
}

impl RunFile {
    /// Announces a server of this process listening at `address`.
    pub fn create(root: &Path, address: SocketAddr) -> std::io::Result<RunFile> {
        std::fs::create_dir_all(dir(root))?;
        let info = RunInfo {
            pid: std::process::id(),
            address,
            url: format!("http://{address}"),
            started_at: jiff::Timestamp::now().to_string(),
            version: env!("CARGO_PKG_VERSION").into(),
        };
        let path = dir(root).join(RUN_FILE);
        let text = serde_json::to_string_pretty(&info).expect("run info serialises");
        std::fs::write(&path, text)?;
        Ok(RunFile { path })
    }

    pub fn remove(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
