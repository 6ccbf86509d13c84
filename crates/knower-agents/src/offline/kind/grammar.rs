//! The pieces of English the kind rules share: numbers and counts, what
//! starts an object, a past and its forms, a clause's end.

use crate::offline::content::content_words;
use crate::offline::lexicon::*;
use crate::offline::phrasing::{contains_words, is_number, listed, plain_words};
use crate::offline::verbs;
use crate::offline::verbs::Past;

/// The two words of `word` when a hyphen joins a word of two letters or
/// more to another: "double-check", "shadow-ran" (not "4-x" or "-ing").
pub(super) fn hyphen_parts(word: &str) -> Option<(&str, &str)> {
    word.split_once('-')
        .filter(|(before, _)| before.len() >= 2 && before.chars().all(|c| c.is_ascii_alphabetic()))
}

/// A verb of two words joined by a hyphen whose last is an imperative
/// and no particle: "double-check", "re-run", "pre-drill", "black-lead"
/// (not "start-up", a noun). Only before a determiner does it ask
/// ("black-lead the grate"): "half-price" or "long-term" take none.
pub(super) fn hyphenated_verb(word: &str) -> bool {
    hyphen_parts(word).is_some_and(|(_, verb)| !listed(PARTICLES, verb) && is_imperative_verb(verb))
}

/// A past joined by a hyphen to the word that says how it was done:
/// "shadow-ran", "test-drove", "spray-painted". Only before its object
/// does it report ("shadow-ran the new ledger…"): before a bare noun it
/// describes ("home-made jam", "hand-painted tiles").
pub(super) fn hyphenated_past(word: &str) -> bool {
    hyphen_parts(word).is_some_and(|(_, past)| is_past(past))
}

/// A verb the lexicon does not list, made of "re" and a verb it does:
/// "restring", "rehang", "reseal" (whose "-ing" or "-s" endings would
/// otherwise read as a gerund's or a plural's).
pub(super) fn done_again(word: &str) -> bool {
    word.strip_prefix("re").is_some_and(|verb| {
        verb.len() >= 3
            && verbs::is_base(verb)
            && !listed(STATING_VERBS, verb)
            && !verbs::knows(word)
    })
}

/// Whether `word` describes the noun after it as [`ANOTHER_OF_ITS_KIND`],
/// by a comparative or by how often: a present in "-s" after it is that
/// noun ("lighter strings", "daily transcripts"), not a verb.
pub(super) fn describes_a_noun(word: &str) -> bool {
    listed(ANOTHER_OF_ITS_KIND, word) || listed(COMPARATIVES, word) || listed(HOW_OFTEN, word)
}

/// A first word the verb lexicon does not know, in a text that goes on
/// with a determiner, is used as a verb: a new one ("repot the
/// chillies"), or a noun made one ("blackout the window").
pub(super) fn unknown_word_as_verb(word: &str) -> bool {
    word.len() >= 4
        && word.chars().all(|c| c.is_ascii_alphabetic())
        && !verbs::knows(word)
        && !word.ends_with("ly")
        && !word.ends_with("ing")
        // ("grouted the walls": an unknown word in "-ed" is a past,
        // [`past_form`].)
        && past_form(word).is_none()
        && !listed(NOT_VERBS_BEFORE_AN_OBJECT, word)
        && !content_words(word).is_empty()
}

/// The words of the first clause of `first`, of its plain `words`.
pub(super) fn first_clause<'a, 'w>(first: &str, words: &'a [&'w str]) -> &'a [&'w str] {
    &words[..first_clause_len(first).min(words.len())]
}

/// How many words the first clause of `first` has.
pub(super) fn first_clause_len(first: &str) -> usize {
    let clause = first
        .split([',', ';', '.', '!', '?'])
        .next()
        .unwrap_or_default();
    plain_words(clause).count()
}

/// Whether `word` is a modifier of words joined by hyphens: "non-slip",
/// "bare-root", "hand-made" before the noun they describe ("fit non-slip
/// flooring in the back"). Joined, even a past is the noun's, not a verb.
pub(super) fn a_joined_modifier(word: &str) -> bool {
    let mut parts = word.split('-');
    word.contains('-')
        && parts.all(|part| !part.is_empty() && part.chars().all(char::is_alphabetic))
}

/// Whether `word`, the last of a subject, names one thing: a noun that
/// is no plural in "s" ("fencer", "ticket"; not "kids", "glass").
pub(super) fn one_thing(word: &str) -> bool {
    object_word(&word) && !word.ends_with('s') && !is_number_word(word)
}

/// A single letter that names the noun before it, as a number does
/// ("aisle C", "plan B", "gate D"); not "a" or "I".
pub(super) fn is_letter_name(word: &str) -> bool {
    word.len() == 1 && word.chars().all(|c| c.is_ascii_alphabetic()) && !matches!(word, "a" | "i")
}

/// A word that may be a bare object: no verb's past, no form of "be" or
/// "have", no number.
pub(super) fn object_word(word: &&str) -> bool {
    word.len() > 2
        && word.chars().all(char::is_alphabetic)
        && past_form(word).is_none()
        && !listed(NOT_A_PAST_VERB, word)
}

/// Whether `word`, as written, is a name: a capital, then lower case
/// ("Priya", "Tom's").
pub(super) fn written_as_a_name(word: &str) -> bool {
    word.starts_with(char::is_uppercase)
        && word.chars().skip(1).all(|c| c.is_lowercase() || c == '\'')
}

/// Whether `word` is a number written as a word ([`NUMBER_WORDS`]), or
/// two of them joined by a hyphen ("twenty-two", "forty-one").
pub(super) fn is_number_word(word: &str) -> bool {
    let listed_number = |w| listed(NUMBER_WORDS, w);
    listed_number(word)
        || word
            .split_once('-')
            .is_some_and(|(tens, units)| listed_number(tens) && listed_number(units))
}

/// Whether `word` is a count or a word that multiplies one: "two",
/// "thousand" in "two thousand whips".
pub(super) fn in_a_count(word: &str) -> bool {
    is_a_count(word) || listed(LARGE_NUMBERS, word)
}

/// Whether `word` is a count, in digits or in words: "16", "sixteen",
/// "twenty-eight".
pub(super) fn is_a_count(word: &str) -> bool {
    is_number(word) || is_number_word(word)
}

/// Whether `word` opens a verb's object: a determiner or a title before a
/// name of [`OBJECT_STARTS`] ("interviewed Mrs Hartley"), a number of
/// [`NUMBER_WORDS`], or someone's ("found Zofia's record", "tested
/// Granny's recipe").
pub(super) fn starts_an_object(word: &str) -> bool {
    listed(OBJECT_STARTS, word) || is_number_word(word) || (word.len() > 2 && word.ends_with("'s"))
}

/// Whether `word` opens or is a verb's object after its particle: a
/// start of [`starts_an_object`], a number, a name with a digit ("v1",
/// "B2") or a noun no verb is written as ("insurance"), where a
/// preposition, an adverb or a doing would leave the past an adjective
/// ("stressed out about…", "burnt out again", "interested in learning…").
pub(super) fn names_an_object(word: &str) -> bool {
    starts_an_object(word)
        || word.chars().any(|c| c.is_ascii_digit())
        || (object_word(&word)
            && !verbs::knows(word)
            && !word.ends_with("ing")
            && ![PREPOSITIONS, AFTER_AN_IMPERATIVE, AFTER_A_PAST]
                .iter()
                .any(|list| listed(list, word)))
}

/// Whether `text` names one of the [`PAST_TIMES`].
pub(super) fn names_a_time_gone_by(text: &str) -> bool {
    PAST_TIMES.iter().any(|t| contains_words(text, t))
}

/// The word a contraction opens with ("he'll", "they're": "he",
/// "they"), when `word` is one.
pub(super) fn pronoun_of(word: &str) -> Option<&str> {
    word.split_once('\'')
        .filter(|(_, rest)| listed("ll s re ve d m", rest))
        .map(|(pronoun, _)| pronoun)
}

/// Whether `word` may be a verb in the present: its base, its "-s" form,
/// or a form of "be", "have" or a modal.
pub(super) fn could_be_a_verb(word: &str) -> bool {
    verbs::is_base(word) || verbs::is_present_s(word) || listed(NOT_A_PAST_VERB, word)
}

/// The text of `first` after `word`, one of its [`plain_words`], and a
/// "that" opening it.
pub(super) fn after_word<'a>(first: &'a str, word: &str) -> &'a str {
    // `word` is a slice of `first`: where it ends is where the rest begins.
    let start = (word.as_ptr() as usize).wrapping_sub(first.as_ptr() as usize);
    debug_assert!(
        start + word.len() <= first.len(),
        "{word:?} is not of {first:?}"
    );
    let end = (start + word.len()).min(first.len());
    let rest = first[end..].trim_start();
    rest.strip_prefix("that ").unwrap_or(rest)
}

/// Whether `word`, one of the [`plain_words`] of `first`, ends a clause:
/// the text ends after it, or a stop, a comma, a colon or a dash does.
pub(super) fn ends_a_clause(first: &str, word: &str) -> bool {
    let rest = after_word(first, word);
    rest.chars()
        .next()
        .is_none_or(|c| matches!(c, ':' | ';' | ',' | '.' | '!' | '—' | '–' | '-'))
}

/// `first` with the name set between commas after a short subject taken
/// out, when a past follows it: "a parent volunteer, Mr Osei, joined…" is
/// "a parent volunteer joined…". `None` when it has none.
pub(super) fn without_apposition(first: &str) -> Option<String> {
    let mut parts = first.splitn(3, ',');
    let (subject, named, rest) = (parts.next()?, parts.next()?, parts.next()?);
    let short = |part: &str| (1..=4).contains(&plain_words(part).count());
    let verb = plain_words(rest).next()?;
    (short(subject)
        && short(named)
        && !plain_words(subject).any(|w| listed(NOT_A_PAST_VERB, w) || is_past(w))
        && is_past(verb))
    .then(|| format!("{subject}{rest}"))
}

/// Whether `word` is a verb's form in "-ing" ("roosting", "baking"),
/// not a short word that only ends so ("ring", "sing").
pub(super) fn continues(word: &str) -> bool {
    word.len() >= 5 && word.ends_with("ing")
}

/// A past tense after a subject: any but one written as its own base
/// ("the kids set the table" is as often a habit).
pub(super) fn is_past(word: &str) -> bool {
    past_form(word).is_some_and(|p| p != Past::AsBase)
}

/// What `word` is as a past tense: the lexicon's reading ([`verbs`]), the
/// pasts listed as ambiguous here, and a word in "-ed" the lexicon does
/// not know ("playtested", "rewired") taken as a past.
pub(super) fn past_form(word: &str) -> Option<Past> {
    if listed(AMBIGUOUS_PAST, word) {
        return Some(Past::Ambiguous);
    }
    if let Some((prefix, past)) = word.split_once('-')
        && listed(AGAIN_OR_BEFORE, prefix)
    {
        // "re-dressed the flashing", "pre-drilled the holes".
        return past_form(past);
    }
    // So without the hyphen, for a past done again that the lexicon does
    // not list whole: "rehung the cords", "resent the invoice" (not
    // "reread the chapter", whose past is its base and may ask).
    if let Some(past) = word.strip_prefix("re")
        && past.len() >= 3
        && !verbs::knows(word)
        && let Some(form) = verbs::past(past)
        && form != Past::AsBase
    {
        return Some(form);
    }
    verbs::past(word).or_else(|| {
        let unknown_in_ed = word.len() >= 5
            && word.ends_with("ed")
            && !word.contains('-')
            && !listed(NOT_PAST, word)
            && !verbs::knows(word);
        unknown_in_ed.then_some(Past::Clear)
    })
}

/// Whether `word` is a number an hour of the clock is told in: one of
/// the first twelve of [`NUMBER_WORDS`].
pub(super) fn is_an_hour(word: &str) -> bool {
    NUMBER_WORDS.split_whitespace().take(12).any(|w| w == word)
}

/// Whether `word` names a decade: "the eighties", "the 1980s".
pub(super) fn is_a_decade(word: &str) -> bool {
    listed(DECADES, word)
        || word
            .strip_suffix('s')
            .is_some_and(|year| year.len() == 4 && is_number(year) && year.ends_with('0'))
}

/// `first` after the first of `openings` it opens with.
pub(super) fn after_opening<'a>(first: &'a str, openings: &[&str]) -> Option<&'a str> {
    openings
        .iter()
        .find_map(|opening| first.strip_prefix(opening))
}

/// Whether `word` (lower-case) can open an imperative: a verb's base, but
/// not one that states, and not one far more often another verb's past
/// ("saw a documentary", "found the receipt").
pub(super) fn is_imperative_verb(word: &str) -> bool {
    let base = verbs::is_base(word)
        && !listed(STATING_VERBS, word)
        && verbs::past(word) != Some(Past::Ambiguous);
    base || listed(MORE_IMPERATIVES, word) || done_again(word)
}
