//! The words that say what a text is about ([`content_words`]): the
//! index's terms less vague words, counts, times, and the nouns of phrases
//! that say nothing ("in front of", "run out of").

use crate::offline::lexicon::*;
use crate::offline::phrasing::{contains_words, is_number, listed, plain_words};
use crate::offline::stems::whole_words;

/// The words of `text` that say what it is about: the index's terms (stop
/// words dropped, stemmed) less [`VAGUE`] ones, counts, the nouns of
/// [`PHRASE_PREPOSITIONS`], the verbs of [`RUNNING_OUT`] and
/// [`NOT_MINDING`] the text uses, and "fit" as a verb
/// ([`fits_as_a_verb`]).
pub(crate) fn content_words(text: &str) -> Vec<String> {
    static VAGUE_TERMS: std::sync::OnceLock<std::collections::HashSet<String>> =
        std::sync::OnceLock::new();
    let vague = VAGUE_TERMS.get_or_init(|| whole_words(VAGUE).into_iter().collect());
    let lower = text.to_lowercase();
    let in_phrases: Vec<String> = PHRASE_PREPOSITIONS
        .iter()
        .chain(RUNNING_OUT)
        .chain(NOT_MINDING)
        .filter(|phrase| contains_words(&lower, phrase))
        .flat_map(|phrase| whole_words(phrase))
        .collect();
    let mut times = holidays_told_as_times(&lower);
    times.extend(units_of_a_rate(&lower));
    let fits = if fits_as_a_verb(&lower) {
        whole_words("fit")
    } else {
        vec![]
    };
    let mut words = whole_words(text);
    words.retain(|t| {
        !vague.contains(t)
            && !is_count(t)
            && !in_phrases.contains(t)
            && !times.contains(t)
            && !fits.contains(t)
    });
    words
}

/// Whether `lower` tells how a thing fits, which says nothing of what
/// the thing is, as "put" does not: "fitted", "fits", and "fit" or
/// "fitting" before whom or where ("can't fit us in", "fit under the
/// desk", "the fit of the heels"). A fit that is a thing of its own
/// says what a note is about: "a bike fit", "the fit-out", "a dress
/// fitting". A past joined after a hyphen is the same verb: "dry-fitted
/// the first flight".
pub(super) fn fits_as_a_verb(lower: &str) -> bool {
    let words: Vec<&str> = plain_words(lower).collect();
    words.iter().enumerate().any(|(i, word)| {
        // (The last part of a hyphenated word is the verb: "dry-fitted".)
        word.rsplit('-')
            .next()
            .is_some_and(|last| listed("fits fitted", last))
            || (listed("fit fitting", word)
                && words
                    .get(i + 1)
                    .is_some_and(|next| listed(WHOM_OR_WHERE_IT_FITS, next)))
    })
}

/// The holidays `lower` tells as times, as stemmed terms: after a
/// preposition ("over Christmas", "before Easter") or before a day of
/// them ("Christmas Eve", "the Easter holidays"). A time ties a note to
/// no project, as "March" does not: "Swapped Christmas Eve with Priya"
/// is a rota's, whatever a choir's Christmas concert says. Before a
/// noun a holiday names what a thing is for, and stays: "the Christmas
/// collection" is the food bank's.
pub(super) fn holidays_told_as_times(lower: &str) -> Vec<String> {
    let words: Vec<&str> = plain_words(lower).collect();
    let word = |i: usize| words.get(i).copied().unwrap_or_default();
    (0..words.len())
        .filter(|&i| listed(HOLIDAYS, words[i]))
        .filter(|&i| {
            (i > 0 && listed(AROUND_A_TIME, word(i - 1)))
                || listed("eve day week weekend holiday holidays", word(i + 1))
        })
        .flat_map(|i| whole_words(words[i]))
        .collect()
}

/// The unit of each rate `lower` tells, as stemmed terms: a span after
/// "a", "an" or "per" that follows a count, a number of times or a
/// plural ("sixty kilometres a day", "three times a week", "two lessons
/// per month"). How often or how much says nothing of what a note is
/// about, as "every" does not: "Tom can manage about sixty kilometres a
/// day" is no "Volunteer days"' (but "a day out at the zoo" keeps its
/// day, and "every day" is vague already).
pub(super) fn units_of_a_rate(lower: &str) -> Vec<String> {
    let words: Vec<&str> = plain_words(lower).collect();
    (2..words.len())
        .filter(|&i| listed(RATE_UNITS, words[i]) && listed("a an per", words[i - 1]))
        .filter(|&i| {
            let before = words[i - 2];
            is_count(before) || listed("times twice once", before) || before.ends_with('s')
        })
        .flat_map(|i| whole_words(words[i]))
        .collect()
}

/// A number or an ordinal in digits ("40", "14th", "3rd"), or a number
/// in words ("forty", "twenty-two", "a thousand"): a count or a date,
/// which any project's notes may share by chance ("came 14th…" beside
/// "surgery is on the 14th", "all forty of her houseplants" beside
/// "Forty houses signed up").
pub(super) fn is_count(term: &str) -> bool {
    static SPELLED: std::sync::OnceLock<std::collections::HashSet<String>> =
        std::sync::OnceLock::new();
    let spelled = SPELLED.get_or_init(|| {
        whole_words(&format!("{NUMBER_WORDS} {LARGE_NUMBERS}"))
            .into_iter()
            .collect()
    });
    let digits = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|suffix| term.strip_suffix(suffix))
        .unwrap_or(term);
    is_number(digits) || spelled.contains(term)
}
