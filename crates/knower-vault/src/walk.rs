//! The one walk over a folder of the vault, used by rescans, `pending`, and
//! the removal and move of folders.

use std::ffi::OsStr;
use std::fs::Metadata;
use std::path::{Path, PathBuf};

use crate::fsutil::TEMP_PREFIX;
use crate::manifest::EntryKind;
use crate::path::VaultPath;
use crate::vault::TREE_MD;

/// What lies below a folder.
pub(crate) struct Walk {
    /// Files and folders that are vault content, parents before children,
    /// in name order.
    pub(crate) entries: Vec<(VaultPath, EntryKind, Metadata)>,
    /// Temporary files of atomic writes (debris when no write is running).
    pub(crate) temps: Vec<PathBuf>,
    /// Things that are not vault content and that Knower therefore neither
    /// journals nor keeps copies of: hidden files and folders (a project's
    /// own `.git`), symbolic links, special files, names that are not UTF-8.
    pub(crate) foreign: Vec<PathBuf>,
    /// Folders that could not be listed, and why. When there are any, the
    /// walk is incomplete: absence from `entries` proves nothing.
    pub(crate) errors: Vec<String>,
}

pub(crate) fn is_hidden(name: &OsStr) -> bool {
    name.as_encoded_bytes().first() == Some(&b'.')
}

/// Everything below `base` (not `base` itself).
pub(crate) fn walk(root: &Path, base: &VaultPath) -> Walk {
    let mut found = Walk {
        entries: Vec::new(),
        temps: Vec::new(),
        foreign: Vec::new(),
        errors: Vec::new(),
    };
    let mut items = walkdir::WalkDir::new(base.on_disk(root))
        .min_depth(1)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter();
    while let Some(item) = items.next() {
        let entry = match item {
            Ok(entry) => entry,
            Err(e) => {
                found.errors.push(e.to_string());
                continue;
            }
        };
        let file_type = entry.file_type();
        let kind = match file_type {
            t if t.is_dir() => EntryKind::Folder,
            t if t.is_file() => EntryKind::File,
            _ => {
                found.foreign.push(entry.into_path());
                continue;
            }
        };
        let path = VaultPath::from_disk(root, entry.path());
        if path.is_none() || is_hidden(entry.file_name()) {
            if kind == EntryKind::Folder {
                items.skip_current_dir();
            }
            let temp = kind == EntryKind::File
                && entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX);
            match temp {
                true => found.temps.push(entry.into_path()),
                false => found.foreign.push(entry.into_path()),
            }
            continue;
        }
        let path = path.expect("checked above");
        if path.as_str() == TREE_MD {
            continue;
        }
        match entry.metadata() {
            Ok(meta) => found.entries.push((path, kind, meta)),
            Err(e) => found.errors.push(e.to_string()),
        }
    }
    found
}
