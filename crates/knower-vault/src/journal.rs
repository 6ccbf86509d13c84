//! The journal: every change to the vault — who made it, why, and the
//! before/after version of each path — as one JSON line in
//! `.knower/journal/changes.jsonl`. Versions name content in the blob store,
//! so any change can be undone, and the undo is journaled like any change.

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::blobs::Hash;
use crate::fsutil;
use crate::path::VaultPath;

/// The state of a path before or after a change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Version {
    Absent,
    Folder,
    File(Hash),
}

impl Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Version::Absent => s.serialize_none(),
            Version::Folder => s.serialize_str("folder"),
            Version::File(h) => s.collect_str(h),
        }
    }
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Option::<String>::deserialize(d)? {
            None => Version::Absent,
            Some(s) if s == "folder" => Version::Folder,
            Some(s) => Version::File(s.parse().map_err(serde::de::Error::custom)?),
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    pub path: VaultPath,
    pub before: Version,
    pub after: Version,
}

impl FileChange {
    /// `A`dded, `M`odified or `D`eleted, as `git status` says it.
    pub fn letter(&self) -> char {
        match (&self.before, &self.after) {
            (Version::Absent, _) => 'A',
            (_, Version::Absent) => 'D',
            _ => 'M',
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeRecord {
    pub id: u64,
    /// RFC 3339 with offset.
    pub at: String,
    /// Who made it: `cli`, `user`, `agent`, `gardener`, `external` (an edit
    /// made outside Knower)…
    pub actor: String,
    pub reason: String,
    pub files: Vec<FileChange>,
    /// The changes this one undid, newest first: one for an undo of a
    /// change, several for an undo of a whole update.
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "one_or_many")]
    pub undoes: Vec<u64>,
}

/// `undoes` as journals have always written it, a number, when a change
/// undid one change; a list when it undid several.
pub mod one_or_many {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Ids {
        One(u64),
        Many(Vec<u64>),
    }

    pub fn serialize<S: Serializer>(ids: &[u64], s: S) -> Result<S::Ok, S::Error> {
        match ids {
            [one] => one.serialize(s),
            many => many.serialize(s),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
        Ok(match Option::<Ids>::deserialize(d)? {
            None => Vec::new(),
            Some(Ids::One(id)) => vec![id],
            Some(Ids::Many(ids)) => ids,
        })
    }
}

pub(crate) struct Journal {
    path: PathBuf,
    last_id: u64,
    /// Length of the log when `last_id` was read from it.
    seen_len: u64,
}

impl Journal {
    pub(crate) fn new(path: PathBuf) -> Journal {
        Journal {
            path,
            last_id: 0,
            seen_len: 0,
        }
    }

    /// Learns the newest id, reading only the end of the log. Called with the
    /// lock held, so a last line without its newline is the remains of a
    /// crashed writer and is cut off before anything is appended after it.
    pub(crate) fn refresh(&mut self) -> io::Result<()> {
        let len = match fs::metadata(&self.path) {
            Ok(m) => m.len(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => 0,
            Err(e) => return Err(e),
        };
        if len == self.seen_len {
            return Ok(());
        }
        let (complete, last) = last_line(&self.path, len)?;
        if complete < len {
            OpenOptions::new()
                .write(true)
                .open(&self.path)?
                .set_len(complete)?;
        }
        self.last_id = match last.and_then(|l| serde_json::from_slice::<ChangeRecord>(&l).ok()) {
            Some(record) => record.id,
            // The last line is damaged: fall back to the largest id anywhere.
            None => read_all(&self.path)?
                .iter()
                .map(|r| r.id)
                .max()
                .unwrap_or(0),
        };
        self.seen_len = complete;
        Ok(())
    }

    pub(crate) fn next_id(&self) -> u64 {
        self.last_id + 1
    }

    pub(crate) fn append(&mut self, record: &ChangeRecord) -> io::Result<()> {
        let mut line = serde_json::to_vec(record)?;
        line.push(b'\n');
        fsutil::append_durable(&self.path, &line)?;
        self.last_id = record.id;
        self.seen_len += line.len() as u64;
        Ok(())
    }
}

/// Every readable record, oldest first. Damaged lines are skipped: one bad
/// line must not hide the rest of the history.
pub(crate) fn read_all(path: &Path) -> io::Result<Vec<ChangeRecord>> {
    let bytes = fsutil::read_complete_lines(path)?;
    Ok(bytes
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice(line).ok())
        .collect())
}

/// The length up to the last newline, and the last complete line, found by
/// reading backwards in growing windows (a change touching thousands of
/// files makes a long line).
fn last_line(path: &Path, len: u64) -> io::Result<(u64, Option<Vec<u8>>)> {
    let mut file = fs::File::open(path)?;
    let mut window = 64 * 1024u64;
    loop {
        let start = len.saturating_sub(window);
        file.seek(SeekFrom::Start(start))?;
        let mut buf = Vec::with_capacity((len - start) as usize);
        file.by_ref().take(len - start).read_to_end(&mut buf)?;
        let Some(end) = buf.iter().rposition(|&b| b == b'\n') else {
            if start == 0 {
                return Ok((0, None));
            }
            window *= 4;
            continue;
        };
        let complete = start + end as u64 + 1;
        match buf[..end].iter().rposition(|&b| b == b'\n') {
            Some(begin) => return Ok((complete, Some(buf[begin + 1..end].to_vec()))),
            None if start == 0 => return Ok((complete, Some(buf[..end].to_vec()))),
            None => window *= 4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(undoes: Vec<u64>) -> ChangeRecord {
        ChangeRecord {
            id: 9,
            at: "2026-11-24T03:00:00+00:00".into(),
            actor: "user".into(),
            reason: "undo".into(),
            files: Vec::new(),
            undoes,
        }
    }

    #[test]
    fn undoes_is_a_number_for_one_change_a_list_for_several_and_absent_for_none() {
        for (undoes, json) in [
            (vec![], None),
            (vec![4], Some(serde_json::json!(4))),
            (vec![7, 5], Some(serde_json::json!([7, 5]))),
        ] {
            let value = serde_json::to_value(record(undoes.clone())).unwrap();
            assert_eq!(value.get("undoes").cloned(), json);
            let back: ChangeRecord = serde_json::from_value(value).unwrap();
            assert_eq!(back.undoes, undoes);
        }
        // A journal written before undoes could hold several.
        let old = r#"{"id":3,"at":"x","actor":"cli","reason":"r","files":[],"undoes":2}"#;
        assert_eq!(
            serde_json::from_str::<ChangeRecord>(old).unwrap().undoes,
            vec![2]
        );
    }
}
