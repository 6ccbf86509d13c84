//! Rule 2, too little to go on: a text that points at what it does not
//! say, weighs options, or only goes along with what was said before.

use crate::offline::lexicon::*;
use crate::offline::phrasing::{contains_words, found_words, listed, plain_words};
use crate::offline::stems::whole_words;

/// Whether the text weighs options rather than says something: "either
/// the van or the website…", "whether the fair or the telescope…", "the
/// bathroom or the hotel, whichever…". ("Ask whether the battery fits" is
/// a question to someone else, not a choice.) So does "the canoe or the
/// speech this weekend, can't do both", and "either" with the options
/// unnamed ([`EITHER_UNNAMED`]).
pub(super) fn weighs_options(lower: &str) -> bool {
    let said = |w| contains_words(lower, w);
    let not_both = [
        "can't do both",
        "can’t do both",
        "cannot do both",
        "not both",
    ]
    .iter()
    .any(|p| said(p));
    (said("either") || said("whether") || not_both) && said("or")
        || said("whichever")
        || EITHER_UNNAMED.iter().any(|p| said(p))
}

/// The phrase by which `lower` points at something it does not say: one of
/// [`REFERENTIAL`], or "same … as" ("same story as last year").
pub(super) fn refers_elsewhere(lower: &str) -> Option<String> {
    let points = |phrase: &str| {
        // "The thing is, the boiler…" says what the thing is.
        found_words(lower, phrase).any(|at| {
            let after = plain_words(&lower[at + phrase.len()..]).next();
            !(phrase.ends_with("thing") && matches!(after, Some("is" | "was")))
        })
    };
    if let Some(phrase) = REFERENTIAL.iter().find(|r| points(r)) {
        return Some(phrase.to_string());
    }
    // "The same reminder email as…": up to three words between.
    let words: Vec<&str> = plain_words(lower).collect();
    (0..words.len())
        .filter(|&i| words[i] == "same")
        .find_map(|i| {
            let gap = words.get(i + 2..(i + 5).min(words.len()))?;
            let end = i + 2 + gap.iter().position(|w| *w == "as")?;
            Some(words[i..=end].join(" "))
        })
}

/// The verbs and their pronoun ("leave it") when every one of `words`,
/// the content words of `text`, is a verb whose object is a bare pronoun:
/// "Let's leave it for now" tells what is done to something the text
/// does not name, and the verb alone says nothing of what (a rota's
/// notes speak of annual leave). `None` when a word names something
/// ("leave it to soak overnight": "soak").
pub(super) fn only_done_to_a_pronoun(text: &str, words: &[String]) -> Option<String> {
    let lower = text.to_lowercase();
    let plain: Vec<&str> = plain_words(&lower).collect();
    let done: Vec<&[&str]> = plain
        .windows(2)
        .filter(|pair| listed(THING_PRONOUNS, pair[1]))
        .collect();
    let verbs: std::collections::HashSet<String> =
        done.iter().flat_map(|pair| whole_words(pair[0])).collect();
    (!words.is_empty() && words.iter().all(|w| verbs.contains(w))).then(|| {
        done.iter()
            .map(|pair| pair.join(" "))
            .collect::<Vec<_>>()
            .join(", ")
    })
}

/// The opening of `lower` when the user goes along with something it does
/// not say, alone or before a comma: "I'm easy", "I'm in, whatever day
/// suits" (not "I'm in Leeds"). A preference in form, it tells nothing
/// about who the user is.
pub(super) fn goes_along(lower: &str) -> Option<&str> {
    let words: Vec<&str> = plain_words(lower).collect();
    let (["i'm", stance] | ["i'm", stance, ..]) = words.as_slice() else {
        return None;
    };
    let opening = &lower[..lower.find(stance)? + stance.len()];
    let ends = words.len() == 2 || lower[opening.len()..].trim_start().starts_with(',');
    (listed(GOING_ALONG, stance) && ends).then_some(opening)
}

/// How a note opens when it answers something it does not say: a reply
/// word alone, before a comma, or before "by" or "enough" ("Fine by
/// me", "Fair enough"); or, as its subject, a pronoun for what was said
/// ("That's fine by me", "Whoever's free"). `None` for a pronoun that is
/// a determiner ("This week's shifts…") or a reply word that opens a
/// statement ("No rush on the tiles", "Right hand drive only").
pub(super) fn answers_what_is_unsaid(lower: &str) -> Option<&str> {
    let words: Vec<&str> = plain_words(lower).collect();
    let (first, next) = (words.first().copied()?, words.get(1).copied());
    let opening = &lower[..lower.find(first)? + first.len()];
    let after = lower[opening.len()..].trim_start();
    let a_reply = listed(REPLIES, first)
        && (next.is_none()
            || after.starts_with(',')
            || next.is_some_and(|w| listed("by enough", w)));
    // A verb of how a thing sits with the user, with no subject before
    // it: "Works for me", "Sounds good", "Suits me" (not "Works start on
    // Monday", "Looks like rain").
    let how_it_sits = listed(SITS_WITH_ME, first)
        && next.is_none_or(|w| listed("for me good fine great right ok okay", w));
    let a_pronoun = listed("that's whoever whoever's whatever whatever's", first)
        || (listed("that this", first)
            && next.is_some_and(|w| {
                listed(
                    "is was sounds works should will would could went seems looks one",
                    w,
                )
            }));
    (a_reply || a_pronoun || how_it_sits).then_some(opening)
}

/// The preposition and pronoun a fact about the user ends with, when it
/// tells how the user feels about something the text does not name: "I'm
/// in two minds about it" is neither the profile's nor a project's.
pub(super) fn feels_about_a_pronoun(lower: &str) -> Option<String> {
    let words: Vec<&str> = plain_words(lower).collect();
    match words.as_slice() {
        [.., preposition, pronoun]
            if listed(FEELING_PREPOSITIONS, preposition)
                && listed("it them that this", pronoun) =>
        {
            Some(format!("{preposition} {pronoun}"))
        }
        _ => None,
    }
}
