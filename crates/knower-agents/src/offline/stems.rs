//! The words of a text as routing and answers compare them: the index's
//! analyzer (stop words dropped, the rest stemmed), so that they agree with
//! search, with irregular pasts and plurals brought to their base.

use crate::offline::lexicon::*;
use crate::offline::verbs;
use knower_index::analyzer::{CaseParts, Stemming};
use knower_index::language::Algorithm;

/// The words of `text` as the index sees them: stop words dropped, the
/// rest stemmed (book, booked, booking are one), sorted and unique. What
/// routing and answers compare, so they agree with search.
pub(crate) fn index_words(text: &str) -> Vec<String> {
    words_of(text, CaseParts::All, Stemming::Detect)
}

/// [`index_words`] stemmed in one language: a passage's lines and the
/// question they are compared with are read in the passage's language.
pub(crate) fn index_words_in(text: &str, stemmer: Algorithm) -> Vec<String> {
    words_of(text, CaseParts::All, Stemming::In(stemmer))
}

/// [`index_words`], with a mixed-case word kept whole: what a text is
/// about for routing, where "PostGIS" in a project's notes must not make
/// it the home of every note that says "post".
pub(crate) fn whole_words(text: &str) -> Vec<String> {
    let bases = irregular_bases();
    let mut words: Vec<String> = words_as_written(text)
        .into_iter()
        .map(|w| bases.get(&w).cloned().unwrap_or(w))
        .collect();
    words.sort();
    words.dedup();
    words
}

/// [`whole_words`] with each word's stem as written ("ran" stays "ran").
fn words_as_written(text: &str) -> Vec<String> {
    words_of(text, CaseParts::Whole, Stemming::Detect)
}

/// The stem of each irregular past or participle ([`verbs::irregular_forms`])
/// mapped to its base's stem: "ran" is "run", "wrote" is "write", as
/// "booked" is "book" already, so that "Ran the whole ridge loop" shares a
/// word with a running project's notes. So is each irregular plural
/// ([`IRREGULAR_PLURALS`]) to its singular's: "the walnut loaf" is one
/// of the bakery's "three loaves".
fn irregular_bases() -> &'static std::collections::HashMap<String, String> {
    static BASES: std::sync::OnceLock<std::collections::HashMap<String, String>> =
        std::sync::OnceLock::new();
    BASES.get_or_init(|| {
        verbs::irregular_forms()
            .chain(IRREGULAR_PLURALS.iter().copied())
            .filter_map(|(form, base)| {
                let form = words_as_written(form).pop()?;
                let base = words_as_written(base).pop()?;
                (form != base).then_some((form, base))
            })
            .collect()
    })
}

fn words_of(text: &str, case_parts: CaseParts, stemming: Stemming) -> Vec<String> {
    let mut words: Vec<String> = knower_index::analyzer::terms_stemmed(text, case_parts, stemming)
        .into_iter()
        // A compound of joined pieces (`parse_config`) is left to its
        // pieces; a mixed-case word kept whole is a word.
        .filter(|(term, _, compound)| {
            !compound
                || case_parts == CaseParts::Whole && !term.contains(['_', '.', '-', '/', ':', '@'])
        })
        .map(|(term, _, _)| term)
        .collect();
    words.sort();
    words.dedup();
    words
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routing_keeps_a_mixed_case_word_whole() {
        let words = whole_words("PostGIS and parse_config");
        assert!(words.contains(&"postgis".to_string()), "{words:?}");
        for part in ["post", "gis", "parse_config"] {
            assert!(!words.contains(&part.to_string()), "{part}: {words:?}");
        }
        assert!(words.contains(&"config".to_string()), "{words:?}");
        // Search's view splits it, so a question meets both forms.
        assert!(index_words("PostGIS").contains(&"post".to_string()));
    }

    #[test]
    fn routing_reads_an_irregular_past_as_its_verb() {
        assert_eq!(
            whole_words("Ran the ridge loop"),
            whole_words("running ridge loop")
        );
        assert_eq!(whole_words("Swam 3 km"), whole_words("swim 3 km"));
        assert_eq!(whole_words("written"), whole_words("write"));
        // Not a word that is another's as well, nor a verb of dealings
        // whose object says what it is about.
        for word in ["born", "sat", "paid", "sold", "sent"] {
            assert_eq!(whole_words(word), [word], "{word}");
        }
        // Search's view is untouched.
        assert_eq!(index_words("Ran"), ["ran"]);
    }

    #[test]
    fn routing_reads_an_irregular_plural_as_its_singular() {
        assert_eq!(whole_words("Three loaves"), whole_words("three loaf"));
        assert_eq!(whole_words("the shelves"), whole_words("a shelf"));
        assert_eq!(whole_words("the children"), whole_words("a child"));
        // Not a plural that is another word as well.
        assert_ne!(whole_words("she leaves"), whole_words("a leaf"));
    }
}
