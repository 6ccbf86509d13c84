//! The offline engine's word lists, one file each under `data/lexicon/`,
//! made into constants at compile time by `build.rs`. A list says what it
//! is for in its file's opening comment.

include!(concat!(env!("OUT_DIR"), "/lexicon.rs"));
