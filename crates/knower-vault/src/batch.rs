//! Several reads and writes as one change: one lock held throughout, one
//! journal record (so one `knower undo`). For features that keep a
//! structure across several notes (the knowledge graph), whose
//! read-modify-write must not interleave with another writer's.

use crate::ChangeRecord;
use crate::change::{Current, Tx};
use crate::error::{Error, Result};
use crate::manifest::EntryKind;
use crate::path::VaultPath;
use crate::text::Position;
use crate::vault::{Author, Vault, append_in, writable, write_bytes_in, write_in};

pub struct Batch<'t, 'v> {
    tx: &'t mut Tx<'v>,
}

impl Vault {
    /// Runs `body` as one change. What it reads is current (the vault is
    /// locked and caught up with other processes first); what it writes is
    /// journaled as one record, also when `body` fails half-way, so the
    /// journal always matches the disk. Returns `body`'s result and the
    /// record, or `None` when nothing changed.
    pub fn batch<T>(
        &self,
        author: &Author,
        body: impl FnOnce(&mut Batch) -> Result<T>,
    ) -> Result<(T, Option<ChangeRecord>)> {
        self.change(author, Vec::new(), |tx| body(&mut Batch { tx }))
    }
}

impl Batch<'_, '_> {
    /// The text of the file at `path`, or `None` when there is none.
    pub fn read(&mut self, path: &str) -> Result<Option<String>> {
        let p = VaultPath::parse(path)?;
        match self.tx.read(&p)? {
            Current::Absent => Ok(None),
            Current::Folder => Err(Error::IsAFolder {
                path: p.to_string(),
            }),
            Current::File(bytes) => {
                String::from_utf8(bytes)
                    .map(Some)
                    .map_err(|e| Error::NotUtf8 {
                        path: p.to_string(),
                        offset: e.utf8_error().valid_up_to(),
                    })
            }
        }
    }

    /// The files at any depth below `folder`, in tree order.
    pub fn files_under(&self, folder: &str) -> Result<Vec<VaultPath>> {
        let folder = VaultPath::parse(folder)?;
        Ok(self
            .tx
            .state
            .manifest
            .entries()
            .iter()
            .filter(|(path, entry)| entry.kind == EntryKind::File && path.starts_with(&folder))
            .map(|(path, _)| path.clone())
            .collect())
    }

    /// Creates or replaces a note, keeping its frontmatter stamped as
    /// [`Vault::write`] does.
    pub fn write(&mut self, path: &str, content: &str) -> Result<()> {
        write_in(self.tx, &writable(path)?, content)
    }

    /// Creates or replaces a file with raw bytes, as [`Vault::write_bytes`].
    pub fn write_bytes(&mut self, path: &str, bytes: &[u8]) -> Result<()> {
        write_bytes_in(self.tx, &writable(path)?, bytes)
    }

    /// Adds a block at the top or bottom of a file, as [`Vault::append`].
    pub fn append(&mut self, path: &str, content: &str, position: Position) -> Result<()> {
        append_in(self.tx, &writable(path)?, content, position)
    }

    /// The bytes of the file at `path`, or `None` when there is none.
    pub fn read_bytes(&mut self, path: &str) -> Result<Option<Vec<u8>>> {
        let p = VaultPath::parse(path)?;
        match self.tx.read(&p)? {
            Current::Absent => Ok(None),
            Current::Folder => Err(Error::IsAFolder {
                path: p.to_string(),
            }),
            Current::File(bytes) => Ok(Some(bytes)),
        }
    }

    /// Whether anything (a file or a folder) is at `path`.
    pub fn exists(&mut self, path: &str) -> Result<bool> {
        let p = VaultPath::parse(path)?;
        Ok(!matches!(self.tx.read(&p)?, Current::Absent))
    }

    /// Deletes a file (or a folder and everything in it).
    pub fn delete(&mut self, path: &str) -> Result<()> {
        let p = writable(path)?;
        self.tx.remove(&p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_one_journal_record_and_reads_current_state() {
        let dir = tempfile::tempdir().unwrap();
        let (vault, _) = Vault::init(dir.path(), &Author::new("test", "init")).unwrap();
        let author = Author::new("test", "two notes at once");
        let (seen, record) = vault
            .batch(&author, |batch| {
                batch.write("graph/a.md", "# A\n")?;
                batch.write("graph/b.md", "# B\n")?;
                let a = batch.read("graph/a.md")?;
                Ok((a, batch.read("graph/missing.md")?))
            })
            .unwrap();
        assert!(seen.0.unwrap().ends_with("# A\n"));
        assert_eq!(seen.1, None);
        let record = record.unwrap();
        let paths: Vec<_> = record.files.iter().map(|f| f.path.as_str()).collect();
        assert!(
            paths.contains(&"graph/a.md") && paths.contains(&"graph/b.md"),
            "{paths:?}"
        );

        let (listed, nothing) = vault
            .batch(&author, |batch| batch.files_under("graph"))
            .unwrap();
        let listed: Vec<_> = listed.iter().map(|p| p.as_str().to_string()).collect();
        assert_eq!(listed, ["graph/a.md", "graph/b.md"]);
        assert!(nothing.is_none(), "reading changes nothing");

        // A failure half-way: what was written is journaled, and undoable.
        let failed = vault.batch(&author, |batch| {
            batch.delete("graph/a.md")?;
            batch.write("tree.md", "not allowed")
        });
        assert!(failed.is_err());
        assert!(!dir.path().join("graph/a.md").exists());
        let last = vault.log().unwrap().pop().unwrap();
        assert!(last.files.iter().any(|f| f.path.as_str() == "graph/a.md"));
        vault.undo(last.id, &author, false).unwrap();
        assert!(dir.path().join("graph/a.md").exists());
    }
}
