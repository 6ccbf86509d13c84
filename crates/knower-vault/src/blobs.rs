//! Content-addressed copies of every version of every file Knower has seen:
//! what lets the journal undo a change, including a deletion or an edit made
//! in another editor.

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::str::FromStr;

use sha2::{Digest, Sha256};

use crate::fsutil;

/// The SHA-256 of a file's bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Hash([u8; 32]);

impl Hash {
    pub fn of(bytes: &[u8]) -> Hash {
        Hash(Sha256::digest(bytes).into())
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hash({self})")
    }
}

impl FromStr for Hash {
    type Err = String;
    fn from_str(s: &str) -> Result<Hash, String> {
        if s.len() != 64 || !s.is_ascii() {
            return Err(format!("not a sha256 hex digest: {s:?}"));
        }
        let mut out = [0u8; 32];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16)
                .map_err(|_| format!("not a sha256 hex digest: {s:?}"))?;
        }
        Ok(Hash(out))
    }
}

impl serde::Serialize for Hash {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Hash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// `.knower/journal/objects/ab/cdef…`: one file per distinct content.
pub(crate) struct BlobStore {
    dir: PathBuf,
    /// Where copies are written before being renamed into place, so that a
    /// crash leaves its debris in one folder that is easy to empty.
    temp: PathBuf,
}

impl BlobStore {
    /// Opens the store, creating its folders.
    pub(crate) fn open(dir: PathBuf) -> io::Result<Self> {
        let temp = dir.join("tmp");
        std::fs::create_dir_all(&temp)?;
        Ok(BlobStore { dir, temp })
    }

    /// Removes what interrupted writes left behind. Only called with the
    /// vault lock held, when no write can be in flight.
    pub(crate) fn remove_debris(&self) {
        if let Ok(entries) = std::fs::read_dir(&self.temp) {
            for entry in entries.flatten() {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }

    fn path(&self, hash: &Hash) -> PathBuf {
        let hex = hash.to_string();
        self.dir.join(&hex[..2]).join(&hex[2..])
    }

    /// Stores `bytes` under `hash` unless that content is already kept:
    /// durable at once, or (for a batch) at the next sync of the file
    /// system. A copy of the wrong size — a rename that outlived a crash its
    /// content did not — is written again.
    pub(crate) fn put(&self, hash: &Hash, bytes: &[u8], durable: bool) -> io::Result<()> {
        let path = self.path(hash);
        if std::fs::metadata(&path).is_ok_and(|m| m.len() == bytes.len() as u64) {
            return Ok(());
        }
        let parent = path.parent().expect("blob paths have a parent");
        std::fs::create_dir_all(parent)?;
        fsutil::write_atomic_via(&self.temp, &path, bytes, durable)
    }

    /// The stored content, checked against its hash so a damaged copy is
    /// reported instead of restored.
    pub(crate) fn get(&self, hash: &Hash) -> io::Result<Vec<u8>> {
        let bytes = std::fs::read(self.path(hash))?;
        if Hash::of(&bytes) != *hash {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("stored copy {hash} is damaged"),
            ));
        }
        Ok(bytes)
    }
}
