//! `.json` files: the ChatGPT and Claude.ai exports' `conversations.json`
//! (a list of conversations), a Gemini CLI checkpoint (a list of turns)
//! and a Gemini CLI session (an object with its `messages`). A list is
//! read an element at a time, so an export of any size costs the memory of
//! its largest conversation, not of the file.

use std::fmt;
use std::io::BufReader;
use std::path::Path;

use serde::Deserializer as _;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{FormatError, Read, chatgpt, claude_ai, gemini};
use crate::conversation::{Conversation, Kept};

pub fn read(
    path: &Path,
    file: std::fs::File,
    each: &mut dyn FnMut(Conversation),
) -> Result<Read, FormatError> {
    let mut input = Hashing {
        inner: BufReader::with_capacity(64 * 1024, file),
        hasher: Sha256::new(),
    };
    let mut read = Read::default();
    let mut unknown = None;
    let outcome = {
        let mut json = serde_json::Deserializer::from_reader(&mut input);
        let visited = json.deserialize_any(Export {
            path,
            read: &mut read,
            unknown: &mut unknown,
            each,
        });
        visited.and_then(|()| json.end())
    };
    if let Some(detail) = unknown {
        return Err(FormatError::Unknown {
            path: path.display().to_string(),
            detail,
        });
    }
    if let Err(e) = outcome {
        return Err(FormatError::Unknown {
            path: path.display().to_string(),
            detail: format!("not JSON ({e})"),
        });
    }
    // What follows the JSON (nothing, or whitespace) counts too.
    std::io::copy(&mut input, &mut std::io::sink()).map_err(|e| FormatError::Unreadable {
        path: path.display().to_string(),
        detail: e.to_string(),
    })?;
    read.sha256 = crate::conversation::hex(&input.hasher.finalize());
    Ok(read)
}

/// A reader that hashes what passes through it.
struct Hashing<R> {
    inner: R,
    hasher: Sha256,
}

impl<R: std::io::Read> std::io::Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

const NOT_CONVERSATIONS: &str = "JSON, but not conversations Knower reads (the ChatGPT and \
     Claude.ai exports' conversations.json, a Gemini CLI session or checkpoint)";

struct Export<'a> {
    path: &'a Path,
    read: &'a mut Read,
    unknown: &'a mut Option<String>,
    /// Where each conversation goes as soon as it is read.
    each: &'a mut dyn FnMut(Conversation),
}

enum List {
    ChatGpt,
    ClaudeAi,
    Checkpoint(Kept),
}

impl<'de> Visitor<'de> for Export<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of conversations")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut list = None;
        let mut i = 0;
        while let Some(element) = seq.next_element::<Value>()? {
            let kind = list.get_or_insert_with(|| {
                if element.get("mapping").is_some() {
                    Some(List::ChatGpt)
                } else if element.get("chat_messages").is_some() {
                    Some(List::ClaudeAi)
                } else if element.get("parts").is_some() && element.get("role").is_some() {
                    Some(List::Checkpoint(Kept::default()))
                } else {
                    None
                }
            });
            match kind {
                Some(List::ChatGpt) => {
                    chatgpt::read_one(self.path, i, &element, self.read);
                    self.read.conversations.drain(..).for_each(&mut *self.each);
                }
                Some(List::ClaudeAi) => {
                    claude_ai::read_one(self.path, i, &element, self.read);
                    self.read.conversations.drain(..).for_each(&mut *self.each);
                }
                Some(List::Checkpoint(kept)) => gemini::checkpoint_turn(&element, kept),
                None => {
                    *self.unknown = Some(format!(
                        "{NOT_CONVERSATIONS}: a list whose first element is none of them"
                    ));
                    return Err(de::Error::custom("unknown"));
                }
            }
            i += 1;
        }
        if let Some(Some(List::Checkpoint(kept))) = list {
            gemini::push_checkpoint(self.path, kept, self.read);
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut object = serde_json::Map::new();
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            object.insert(key, value);
        }
        let object = Value::Object(object);
        if gemini::is_session(&object) {
            gemini::read_session(self.path, &object, self.read);
            return Ok(());
        }
        *self.unknown = Some(format!("{NOT_CONVERSATIONS}: an object without `messages`"));
        Err(de::Error::custom("unknown"))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.scalar()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.scalar()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.scalar()
    }
}

impl Export<'_> {
    fn scalar<E: de::Error>(self) -> Result<(), E> {
        *self.unknown = Some(format!("{NOT_CONVERSATIONS}: a single value"));
        Err(E::custom("unknown"))
    }
}
