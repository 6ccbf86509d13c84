//! The write-ahead intent: which change is writing to the vault right now.
//!
//! A change writes the user's files first and journals them when it commits.
//! A process killed in between would leave files on disk that no record
//! explains; the next rescan would credit them to `external`, and an
//! interrupted update could neither see nor undo them before running again —
//! its effect would land twice. So before its first write a change durably
//! notes who makes it and the journal id its record will get, and clears the
//! note once committed. The note lives in `.knower/intent`, empty when no
//! change is in progress.
//!
//! Only the lock holder writes the note, and the lock is released when its
//! holder dies, so the next lock holder that finds a note knows its writer
//! died mid-change ([`Vault::recover`](crate::Vault)).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// What a change in progress noted before its first write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Note {
    pub(crate) actor: String,
    pub(crate) reason: String,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        with = "crate::journal::one_or_many"
    )]
    pub(crate) undoes: Vec<u64>,
    /// The id the change's journal record gets when it commits: with it in
    /// the journal, only the manifest missed the change.
    pub(crate) record: u64,
}

pub(crate) struct Intent {
    file: File,
}

impl Intent {
    pub(crate) fn open(path: &Path) -> io::Result<Intent> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(path)?;
        Ok(Intent { file })
    }

    /// Makes `note` durable; the caller writes nothing to the vault before
    /// this returns. The file is rewritten in place (one `fdatasync`, not
    /// the two of an atomic rename): a note torn by a crash can only be one
    /// whose change had not written anything yet, and reads as no note.
    pub(crate) fn set(&self, note: &Note) -> io::Result<()> {
        let bytes = serde_json::to_vec(note)?;
        self.file.set_len(0)?;
        self.file.write_all_at(&bytes, 0)?;
        self.file.sync_data()
    }

    /// Clears the note of a committed change. Not synced: if a crash brings
    /// the note back, its record is already in the journal and recovery has
    /// nothing to do.
    pub(crate) fn clear(&self) -> io::Result<()> {
        self.file.set_len(0)
    }

    /// The note left by a change that did not finish; `None` when there is
    /// none, or only a torn one.
    pub(crate) fn left_over(&self) -> io::Result<Option<Note>> {
        let len = self.file.metadata()?.len();
        if len == 0 {
            return Ok(None);
        }
        let mut bytes = vec![0; len as usize];
        self.file.read_exact_at(&mut bytes, 0)?;
        Ok(serde_json::from_slice(&bytes).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_is_read_back_until_cleared_and_a_torn_one_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("intent");
        let intent = Intent::open(&path).unwrap();
        assert_eq!(intent.left_over().unwrap(), None);
        let note = Note {
            actor: "agent".into(),
            reason: "u1: filing a note".into(),
            undoes: Vec::new(),
            record: 7,
        };
        intent.set(&note).unwrap();
        // Another process sees it through its own handle.
        assert_eq!(
            Intent::open(&path).unwrap().left_over().unwrap(),
            Some(note)
        );
        let shorter = Note {
            actor: "cli".into(),
            reason: "x".into(),
            undoes: vec![3],
            record: 8,
        };
        intent.set(&shorter).unwrap();
        assert_eq!(intent.left_over().unwrap(), Some(shorter));
        intent.clear().unwrap();
        assert_eq!(intent.left_over().unwrap(), None);
        std::fs::write(&path, b"{\"actor\":\"ag").unwrap();
        assert_eq!(intent.left_over().unwrap(), None);
    }
}
