//! English verbs, for the kind rules: which words are a verb's base form
//! (what an imperative opens with) and which are a simple past (what a
//! report of something done opens with), from a lexicon of 6,700 verbs
//! instead of the few the rules would otherwise list by hand.
//!
//! The lexicon (`data/english-verbs.txt`) is generated from lemminflect's
//! inflection table by `data/english-verbs.py`; see that script for its
//! source and licence.

use crate::offline::lexicon::*;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

const LEXICON: &str = include_str!("../../data/english-verbs.txt");

/// What a word is as a past tense.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Past {
    /// Only ever a past: "swam", "installed", "migrated".
    Clear,
    /// Also written as another word, so only its context makes it a past:
    /// an adjective ("tired", "interested"), a noun ("saw", "felt"), or
    /// another verb's base ("found", "lay").
    Ambiguous,
    /// The same as its own verb's base ("put", "read", "cut", "set"):
    /// at the start of a text it is as likely an imperative.
    AsBase,
}

struct Lexicon {
    bases: HashSet<&'static str>,
    pasts: HashMap<&'static str, Past>,
    /// Past participles that differ from their verb's pasts ("written").
    participles: HashSet<&'static str>,
}

fn lexicon() -> &'static Lexicon {
    static LEXICON_PARSED: OnceLock<Lexicon> = OnceLock::new();
    LEXICON_PARSED.get_or_init(|| {
        let mut bases = HashSet::new();
        let mut pasts = HashMap::new();
        let mut participles = HashSet::new();
        for line in LEXICON.lines().filter(|l| !l.starts_with('#')) {
            let (line, own_participles) = line.split_once(" | ").unwrap_or((line, ""));
            participles.extend(own_participles.split(' ').filter(|w| !w.is_empty()));
            let mut words = line.split(' ');
            let Some(base) = words.next() else { continue };
            bases.insert(base);
            for past in words {
                if RARE_PASTS.contains(&(base, past.trim_start_matches('~'))) {
                    continue;
                }
                let (word, kind) = match past.strip_prefix('~') {
                    Some(word) if word == base => (word, Past::AsBase),
                    Some(word) => (word, Past::Ambiguous),
                    None => (past, Past::Clear),
                };
                // A form that is clear for one verb and ambiguous for
                // another ("found": the past of find, the base of found)
                // keeps the most careful reading.
                let entry = pasts.entry(word).or_insert(kind);
                if kind != Past::Clear {
                    *entry = kind;
                }
            }
        }
        Lexicon {
            bases,
            pasts,
            participles,
        }
    })
}

/// Whether `word` (lower-case) is the base form of a verb.
pub(super) fn is_base(word: &str) -> bool {
    lexicon().bases.contains(word)
}

/// Whether `word` (lower-case) is a verb in the present's third person
/// ("loses", "watches", "carries"); a plural noun of the same spelling
/// ("books") reads as one too.
pub(super) fn is_present_s(word: &str) -> bool {
    let Some(stem) = word.strip_suffix('s') else {
        return false;
    };
    is_base(stem)
        || stem.strip_suffix('e').is_some_and(is_base)
        || stem
            .strip_suffix("ie")
            .is_some_and(|s| is_base(&format!("{s}y")))
}

/// What `word` (lower-case) is as a simple past, if it is one.
pub(super) fn past(word: &str) -> Option<Past> {
    lexicon().pasts.get(word).copied()
}

/// Whether `word` (lower-case) is a past participle, as a passive takes
/// it ("was delivered", "were stolen", "was built").
pub(super) fn is_participle(word: &str) -> bool {
    lexicon().participles.contains(word) || past(word).is_some()
}

/// Whether `word` is known to the lexicon at all, as a base, a past or a
/// participle: a word in "-ed" that it does not know ("playtested") may
/// still be a past, one it knows as a base ("need", "shed") is not.
pub(super) fn knows(word: &str) -> bool {
    is_base(word) || is_participle(word)
}

/// The irregular forms of the lexicon's verbs, each with its base: the
/// pasts only ever pasts ("ran", "wrote", "swam") and the participles
/// that are neither ("written", "flown"), less those that are another
/// word's as well ("born", "sat", "lent") and those of the verbs of
/// dealings that any project has ("paid", "sold", "sent", "chose"), whose
/// object says what they are about. A regular past stems to its base's
/// stem already.
pub(super) fn irregular_forms() -> impl Iterator<Item = (&'static str, &'static str)> {
    const ALSO_OTHER_WORDS: [&str; 8] = [
        "born", "borne", "sat", "lent", "sawn", "sown", "laden", "shorn",
    ];
    const DEALINGS: [&str; 7] = ["pay", "sell", "buy", "send", "spend", "lend", "choose"];
    LEXICON
        .lines()
        .filter(|l| !l.starts_with('#'))
        .flat_map(|line| {
            let (pasts, participles) = line.split_once(" | ").unwrap_or((line, ""));
            let mut words = pasts.split(' ');
            let base = words.next().unwrap_or_default();
            words
                .filter(|w| !w.starts_with('~'))
                .chain(participles.split(' '))
                .filter(move |w| {
                    !w.is_empty()
                        && !w.ends_with("ed")
                        && !w.contains('-')
                        && *w != base
                        && !ALSO_OTHER_WORDS.contains(w)
                })
                .map(move |w| (w, base))
        })
        .filter(|(_, base)| !DEALINGS.contains(base))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasts_are_told_by_how_else_they_are_written() {
        assert_eq!(past("swam"), Some(Past::Clear));
        assert_eq!(past("installed"), Some(Past::Clear));
        assert_eq!(past("found"), Some(Past::Ambiguous));
        assert_eq!(past("tired"), Some(Past::Ambiguous));
        assert_eq!(past("saw"), Some(Past::Ambiguous));
        assert_eq!(past("read"), Some(Past::AsBase));
        assert_eq!(past("put"), Some(Past::AsBase));
        assert_eq!(past("need"), None);
        assert_eq!(past("feed"), None);
        assert_eq!(past("fed"), Some(Past::Clear));
        assert_eq!(past("hundred"), None);
        assert!(is_base("book") && is_base("water") && is_base("measure"));
        assert!(!is_base("chilli") && !is_base("the"));
        assert!(knows("need") && !knows("playtested"));
        assert!(is_present_s("loses") && is_present_s("watches") && is_present_s("carries"));
        assert!(!is_present_s("is") && !is_present_s("lose"));
        assert!(is_participle("stolen") && is_participle("delivered") && is_participle("built"));
        assert!(!is_participle("steal") && !is_participle("great"));
    }
}
