//! The files of a fixture folder.

use std::path::{Path, PathBuf};

/// Every file below `dir`, sorted. A folder that cannot be read is a
/// panic naming it: a fixture is the test's own.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    files(dir, true)
}

/// Every file below `dir`, sorted, without those whose name or folder's
/// name below `dir` starts with `.` (a vault's `.knower/`).
pub fn walk_visible(dir: &Path) -> Vec<PathBuf> {
    files(dir, false)
}

fn files(dir: &Path, hidden: bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if !hidden
            && path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        {
            continue;
        }
        if path.is_dir() {
            out.extend(files(&path, hidden));
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Every visible file below `root` as (path relative to `root` with `/`,
/// text), for writing a fixture into a vault.
pub fn texts(root: &Path) -> Vec<(String, String)> {
    walk_visible(root)
        .into_iter()
        .map(|path| {
            let relative = path.strip_prefix(root).unwrap();
            let name = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (name, text)
        })
        .collect()
}
