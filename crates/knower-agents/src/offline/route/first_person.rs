//! How a fact in the first person holds: only at times (a practice, where
//! a piece of work stands), of the user's things, or of who the user is.

use crate::offline::kind::tells_who_someone_is;
use crate::offline::lexicon::*;
use crate::offline::phrasing::{contains_words, is_number, listed, plain_words};

/// What a first-person fact (`lower`) opening with "my" is of: the word
/// after it and any of [`WHICH_ONE`], less an "'s" ("my daughter's…")
/// and any "great-" before it: "my great-grandfather" is of the user's
/// family as "my grandfather" is.
pub(super) fn my_what(lower: &str) -> Option<&str> {
    let mut words = plain_words(lower);
    (words.next() == Some("my"))
        .then(|| words.find(|w| !listed(WHICH_ONE, w)))
        .flatten()
        .map(|w| w.trim_end_matches("'s").trim_start_matches("great-"))
}

/// Whether a first-person fact (`lower`) is about who the user is: the
/// people in their life ("my mum still lives in Cork", "Maya is my niece"),
/// a taste ("I prefer tea when it's cold") or where they come from, which
/// hold whatever the condition.
pub(super) fn of_who_i_am(lower: &str) -> bool {
    my_what(lower).is_some_and(|w| listed(PEOPLE, w))
        || tells_who_someone_is(lower)
        || TASTES.iter().any(|t| lower.contains(t))
        || ORIGINS.iter().any(|o| lower.starts_with(o))
}

/// The condition under which a first-person fact (`lower`) holds, when it
/// is told as holding only at times rather than of who the user is.
pub(super) fn how_i_do_something(lower: &str) -> Option<&'static str> {
    if of_who_i_am(lower) {
        return None;
    }
    AT_TIMES
        .iter()
        .copied()
        .find(|w| contains_words(lower, w))
        .or_else(|| after_so_much(lower).then_some("after"))
}

/// Whether `lower` tells a condition of so much of something done: "I
/// can't eat gels after four hours…", "I get motion sick after about an
/// hour in the rig", "…after anything over forty miles". (Not a time of
/// day: "I don't drink coffee after 2 pm" holds always.)
pub(super) fn after_so_much(lower: &str) -> bool {
    let words: Vec<&str> = plain_words(lower).collect();
    words.iter().enumerate().any(|(i, &w)| {
        w == "after"
            && words[i + 1..]
                .iter()
                .take(4)
                .any(|&unit| listed(MEASURES, unit))
    })
}

/// Whether `lower` is the user's age and nothing else: "I'm 38", "I am
/// 52 years old" (a number is no content word, so it would otherwise say
/// too little to place).
pub(super) fn tells_an_age(lower: &str) -> bool {
    let words: Vec<&str> = plain_words(lower).collect();
    let rest = match words.as_slice() {
        ["i'm", rest @ ..] | ["i", "am", rest @ ..] => rest,
        _ => return false,
    };
    matches!(rest, [n] | [n, "years", "old"] | [n, "now"] if is_number(n))
}

/// Whether a first-person fact (`lower`) is of one of the user's things
/// rather than of who they are: "my tyres are too narrow…", "my tension
/// is uneven…" belong to the project whose notes hold their words.
pub(super) fn of_my_things(lower: &str) -> bool {
    !of_who_i_am(lower) && my_what(lower).is_some_and(|w| !listed(PARTICULARS, w))
}
