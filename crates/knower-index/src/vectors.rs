//! Chunk vectors, keyed by the chunk's content hash, in one append-only file
//! per model: `.knower/index/vectors-<model fingerprint>.bin`.
//!
//! An unchanged chunk — even one moved to another file — keeps its vector.
//! Records have a fixed size, so a record torn by a crash is recognised by
//! the file's length and cut off by the next writer. Appends are serialised
//! between processes by a lock on the file itself.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"KNVEC1\0\0";
const HEADER: u64 = 16;

pub type ChunkKey = [u8; 32];

/// The chunk hash as the index stores it (hex) → the key.
pub fn key(hex: &str) -> Option<ChunkKey> {
    if hex.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

pub struct VectorStore {
    path: PathBuf,
    dims: usize,
    rows: HashMap<ChunkKey, usize>,
    data: Vec<f32>,
    /// How much of the file has been read.
    read_to: u64,
}

impl VectorStore {
    pub fn open(dir: &Path, fingerprint: &str, dims: usize) -> Result<VectorStore> {
        std::fs::create_dir_all(dir).map_err(Error::io(format!("creating {}", dir.display())))?;
        let mut store = VectorStore {
            path: dir.join(format!("vectors-{fingerprint}.bin")),
            dims,
            rows: HashMap::new(),
            data: Vec::new(),
            read_to: HEADER,
        };
        store.refresh()?;
        Ok(store)
    }

    fn record_len(&self) -> u64 {
        32 + 4 * self.dims as u64
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn row(&self, key: &ChunkKey) -> Option<usize> {
        self.rows.get(key).copied()
    }

    pub fn vector(&self, row: usize) -> &[f32] {
        &self.data[row * self.dims..(row + 1) * self.dims]
    }

    /// Reads what other processes appended since the last look. A file of
    /// another layout (foreign header) is treated as empty and replaced on
    /// the next write.
    pub fn refresh(&mut self) -> Result<()> {
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Error::io(format!("opening {}", self.path.display()))(e)),
        };
        let len = file.metadata().map_err(self.io("reading"))?.len();
        if !self.header_ok(&mut file)? {
            return Ok(());
        }
        let rec = self.record_len();
        let complete = HEADER + (len.saturating_sub(HEADER) / rec) * rec;
        if complete <= self.read_to {
            return Ok(());
        }
        file.seek(SeekFrom::Start(self.read_to))
            .map_err(self.io("reading"))?;
        let mut bytes = vec![0u8; (complete - self.read_to) as usize];
        file.read_exact(&mut bytes).map_err(self.io("reading"))?;
        for record in bytes.chunks_exact(rec as usize) {
            self.insert(record);
        }
        self.read_to = complete;
        Ok(())
    }

    fn insert(&mut self, record: &[u8]) {
        let key: ChunkKey = record[..32].try_into().expect("32 bytes");
        if self.rows.contains_key(&key) {
            return;
        }
        self.rows.insert(key, self.rows.len());
        self.data.extend(
            record[32..]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes"))),
        );
    }

    fn header_ok(&self, file: &mut File) -> Result<bool> {
        let mut header = [0u8; HEADER as usize];
        if file.read_exact(&mut header).is_err() {
            return Ok(false);
        }
        let dims = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
        Ok(&header[..8] == MAGIC && dims as usize == self.dims)
    }

    /// Appends vectors for new keys (others' appends are read first, so
    /// nothing is stored twice).
    pub fn add(&mut self, items: &[(ChunkKey, Vec<f32>)]) -> Result<()> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&self.path)
            .map_err(self.io("opening"))?;
        file.lock().map_err(self.io("locking"))?;
        let len = file.metadata().map_err(self.io("reading"))?.len();
        if len < HEADER || !self.header_ok(&mut file)? {
            // New, or of another layout: start over.
            file.set_len(0).map_err(self.io("resetting"))?;
            let mut header = Vec::from(&MAGIC[..]);
            header.extend((self.dims as u32).to_le_bytes());
            header.extend([0u8; 4]);
            file.seek(SeekFrom::Start(0)).map_err(self.io("writing"))?;
            file.write_all(&header).map_err(self.io("writing"))?;
            self.rows.clear();
            self.data.clear();
            self.read_to = HEADER;
        }
        self.refresh()?;
        // Cut a record torn by a crash before appending after it.
        file.set_len(self.read_to).map_err(self.io("truncating"))?;
        let mut bytes = Vec::new();
        for (key, vector) in items {
            if vector.len() != self.dims || self.rows.contains_key(key) {
                continue;
            }
            let mut record = Vec::with_capacity(self.record_len() as usize);
            record.extend_from_slice(key);
            for x in vector {
                record.extend_from_slice(&x.to_le_bytes());
            }
            self.insert(&record);
            bytes.extend_from_slice(&record);
        }
        file.seek(SeekFrom::Start(self.read_to))
            .map_err(self.io("writing"))?;
        file.write_all(&bytes).map_err(self.io("writing"))?;
        self.read_to += bytes.len() as u64;
        Ok(())
    }

    fn io(&self, what: &str) -> impl FnOnce(std::io::Error) -> Error {
        Error::io(format!("{what} {}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_survive_reopen_and_torn_tails_are_cut() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = VectorStore::open(dir.path(), "m", 3).unwrap();
        store.add(&[([1; 32], vec![1.0, 0.0, 0.0])]).unwrap();
        store
            .add(&[
                ([1; 32], vec![9.0, 9.0, 9.0]),
                ([2; 32], vec![0.0, 1.0, 0.0]),
            ])
            .unwrap();
        assert_eq!(store.len(), 2);

        // A crash mid-append leaves half a record.
        let path = dir.path().join("vectors-m.bin");
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&[7; 20]).unwrap();
        drop(f);

        let mut other = VectorStore::open(dir.path(), "m", 3).unwrap();
        assert_eq!(other.len(), 2);
        assert_eq!(other.vector(other.row(&[1; 32]).unwrap()), &[1.0, 0.0, 0.0]);
        other.add(&[([3; 32], vec![0.0, 0.0, 1.0])]).unwrap();

        // The first handle sees the other's append.
        store.refresh().unwrap();
        assert_eq!(store.vector(store.row(&[3; 32]).unwrap()), &[0.0, 0.0, 1.0]);
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            HEADER + 3 * (32 + 12)
        );
    }

    #[test]
    fn a_file_of_other_dimensions_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        VectorStore::open(dir.path(), "m", 2)
            .unwrap()
            .add(&[([1; 32], vec![1.0, 0.0])])
            .unwrap();
        let mut store = VectorStore::open(dir.path(), "m", 3).unwrap();
        assert_eq!(store.len(), 0);
        store.add(&[([1; 32], vec![1.0, 0.0, 0.0])]).unwrap();
        assert_eq!(VectorStore::open(dir.path(), "m", 3).unwrap().len(), 1);
    }

    #[test]
    fn keys_are_hex() {
        assert_eq!(key(&"ab".repeat(32)), Some([0xab; 32]));
        assert_eq!(key("zz"), None);
    }
}
