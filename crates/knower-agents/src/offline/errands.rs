//! Everyday errands: what a task about ordinary life is about (the car,
//! the dentist, the bins, a birthday card), so that a task no project's
//! notes share a word of goes to the global list only when it reads as
//! one. A task in specific words no note holds ("order the clutch cable
//! and the gasket set") is as likely a project's, and is asked about.
//!
//! Written by area of a household's life rather than copied from the
//! routing sets; a single word stands for its stem (`tyre` matches `tyres`), a
//! phrase must appear as written. Words a project is as likely to use in
//! another sense (`water`, `service`, `battery`, `plants`, `shop`, which
//! is also where a project's parts come from; `meter`, which is also the
//! analyzer's American `metre`; `landlord`, as an office has one) are
//! left out, as are family members (a parent's care or party is often a
//! project).

use crate::offline::lexicon::*;
use crate::offline::phrasing::{contains_words, listed, plain_words};
use crate::offline::stems::whole_words;
use crate::offline::verbs::{is_present_s, past};
use std::collections::HashMap;
use std::sync::OnceLock;

/// `lower` without the places and times of [`PLACES`].
pub(super) fn without_places(lower: &str) -> String {
    PLACES
        .iter()
        .fold(lower.to_string(), |text, place| text.replace(place, " "))
}

/// The errand word that `stem`, a content word of `lower`, stands for.
fn errand_of(lower: &str, stem: &str) -> Option<&'static str> {
    let word = *stems().get(stem)?;
    let as_written = AS_WRITTEN.split_whitespace().any(|w| w == word);
    let said = whole_words(&outside_places(lower))
        .iter()
        .any(|w| w == stem);
    (said && (!as_written || contains_words(lower, word))).then_some(word)
}

/// `lower` without the places and times of [`PLACES`], and without where
/// it puts its object: "Try a longer retard in the freezer" is the
/// bakery's loaf, "Put up the dipole between the chimney and…" the
/// radio's aerial, not the freezer's or the chimney's errand. Where only
/// after an object of at least one word, and before a determiner, up to
/// the next preposition: "Clean behind the freezer" and "Pay the cheque
/// in at the bank" stay errands, as does "Put the milk in the freezer",
/// whose object is one, and "Book the cat into the cattery", whose place
/// is a party's ([`PARTIES`]).
fn outside_places(lower: &str) -> String {
    let text = without_places(lower);
    let words: Vec<&str> = plain_words(&text).collect();
    let mut kept = Vec::with_capacity(words.len());
    let mut put = false;
    for (i, word) in words.iter().enumerate() {
        let where_put = listed(WHERE_IT_IS_PUT, word)
            && i >= 2
            && !listed(OBJECT_STARTS, words[i - 1])
            && words
                .get(i + 1)
                .is_some_and(|next| listed(OBJECT_STARTS, next));
        if where_put {
            put = true;
        } else if listed(PREPOSITIONS, word) || listed(WHERE_IT_GOES, word) {
            put = false;
        }
        // A party's place is where the errand is done: "Book the cat
        // into the cattery", "Put the money in the bank".
        if !put || listed(PARTIES, word) {
            kept.push(*word);
        }
    }
    kept.join(" ")
}

/// Each stem of [`WORDS`] with the first word of the list that has it.
fn stems() -> &'static HashMap<String, &'static str> {
    static STEMS: OnceLock<HashMap<String, &'static str>> = OnceLock::new();
    STEMS.get_or_init(|| {
        let mut stems = HashMap::new();
        for word in WORDS.iter().flat_map(|line| line.split_whitespace()) {
            for stem in whole_words(word) {
                stems.entry(stem).or_insert(word);
            }
        }
        stems
    })
}

/// Whether a task's content `words` are all an errand's: "Pay the
/// milkman", "Pay the council tax", "Pick up the dry cleaning" say
/// nothing else, while "Print flyers for the vets…" or "Order lettuce
/// seedlings on Amazon" name the errand's word only as where something
/// goes or comes from.
pub(super) fn says_nothing_else(lower: &str, words: &[String]) -> bool {
    let phrased: Vec<String> = PHRASES
        .iter()
        .filter(|p| contains_words(lower, p))
        .flat_map(|p| whole_words(p))
        .collect();
    !words.is_empty()
        && words.iter().all(|w| {
            phrased.contains(w) || (errand_of(lower, w).is_some() && !only_as_a_verb(lower, w))
        })
}

/// Whether `about`, a task with its opening verb set aside, names an
/// errand only where its object goes, and the words a project's notes
/// hold (`held`) are its object's: "Courier the boards to the council"
/// sends the competition's boards, it does not deal with the council.
/// An object that is an errand's itself keeps it one: "Post the signed
/// tenancy renewal back to the letting agent".
pub(super) fn only_where_the_object_goes(about: &str, held: &[String]) -> bool {
    let lower = about.to_lowercase();
    let words: Vec<&str> = plain_words(&lower).collect();
    // The object is what comes before the first preposition, which must
    // follow a word of it ("for the council" alone has no object).
    let Some(split) = (1..words.len()).find(|&i| listed(WHERE_IT_GOES, words[i])) else {
        return false;
    };
    let object_text = words[..split].join(" ");
    let object = whole_words(&object_text);
    let errand_in_object = phrase_in(&object_text).is_some()
        || object.iter().any(|w| errand_of(&object_text, w).is_some());
    !held.is_empty() && held.iter().all(|w| object.contains(w)) && !errand_in_object
}

/// Whether `about`, a task, writes a word a project's notes hold
/// (`held`) as the owner of its `errand`: within three words before it
/// with "'s", or after it with "for" within three words after, unless
/// the errand is a party ([`PARTIES`]): "Pay the club's insurance", "the
/// band's public liability insurance", "Chase the insurance renewal for
/// the hall" are the club's, the band's and the hall's, not the user's
/// own round. (The compound "the house insurance" names the user's own
/// errand, and stays one.)
pub(super) fn owned_by_what_is_held(about: &str, held: &[String], errand: &str) -> bool {
    use listed;
    let lower = about.to_lowercase().replace('’', "'");
    let words: Vec<&str> = plain_words(&lower).collect();
    let errand_words = whole_words(errand);
    let is_held = |word: &str| whole_words(word).iter().any(|w| held.contains(w));
    let is_errand = |word: &str| whole_words(word).iter().any(|w| errand_words.contains(w));
    words.iter().enumerate().any(|(i, word)| {
        if let Some(owner) = word.strip_suffix("'s") {
            return is_held(owner) && words[i + 1..].iter().take(3).any(|w| is_errand(w));
        }
        // "… for the hall": the errand's word, then "for" within three
        // words, then the owner, after a determiner if one is written.
        is_errand(word)
            && !listed(PARTIES, word)
            && words[i + 1..]
                .iter()
                .take(3)
                .position(|w| *w == "for")
                .and_then(|at| {
                    words[i + 2 + at..]
                        .iter()
                        .find(|w| !listed(OBJECT_STARTS, w))
                })
                .is_some_and(|owner| is_held(owner))
    })
}

/// The first errand of [`PHRASES`] that `lower` says.
fn phrase_in(lower: &str) -> Option<&'static str> {
    PHRASES.iter().copied().find(|p| contains_words(lower, p))
}

/// Whether `text` (its stemmed content `words`) reads as an everyday
/// errand, with the word or phrase that says so. One done for someone
/// the text names only as "her", "him" or "their" is not the user's
/// own round ("put her tablets in a blister pack", "bedding for his
/// room"): it is part of looking after them, which is often a project,
/// as family members are left out of [`WORDS`].
pub(super) fn everyday_word(lower: &str, words: &[String]) -> Option<String> {
    if plain_words(lower).any(|w| listed(SOMEONE_ELSE, w)) {
        return None;
    }
    if let Some(phrase) = phrase_in(lower) {
        return Some(phrase.to_string());
    }
    words
        .iter()
        .filter_map(|w| Some((w, errand_of(lower, w)?)))
        // (Checked for the errand's words only: it reads the whole text.)
        .find(|(w, _)| !only_as_a_verb(lower, w))
        .map(|(_, word)| word.to_string())
}

/// Whether every word of `lower` that `stem` stands for is a verb after its
/// subject: "the wooden one tires my wrist" says nothing of tyres, though
/// the analyzer spells both "tire".
fn only_as_a_verb(lower: &str, stem: &str) -> bool {
    let tokens: Vec<&str> = plain_words(lower).collect();
    let mut found = false;
    for (i, token) in tokens.iter().enumerate() {
        if !whole_words(token).iter().any(|w| w == stem) {
            continue;
        }
        found = true;
        let verb = is_present_s(token) || past(token).is_some();
        let after_a_subject = i > 0 && SUBJECTS.contains(&tokens[i - 1]);
        if !(verb && after_a_subject) {
            return false;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::content::content_words;

    fn errand(text: &str) -> Option<String> {
        let lower = text.to_lowercase();
        everyday_word(&lower, &content_words(text))
    }

    #[test]
    fn everyday_errands_are_told_from_a_projects_tasks() {
        assert_eq!(errand("Renew the car insurance").as_deref(), Some("car"));
        // A place or a time named with an errand's word is where or
        // when, not what.
        assert_eq!(errand("Practise plough stops at the car park"), None);
        assert_eq!(errand("Book the swim at Linear for the bank holiday"), None);
        assert_eq!(
            errand("Pay the cheque in at the bank").as_deref(),
            Some("bank")
        );
        assert_eq!(
            errand("Wash the car in the car park").as_deref(),
            Some("car")
        );
        assert_eq!(errand("Book the tyres in").as_deref(), Some("tyre"));
        // Where a task puts its object is not what it is about, unless
        // its object is an errand's or it has none.
        assert_eq!(
            errand("Try a longer retard in the freezer for the walnut loaf"),
            None
        );
        assert_eq!(
            errand("Put up the dipole between the chimney and the apple tree"),
            None
        );
        assert_eq!(
            errand("Put the milk in the freezer").as_deref(),
            Some("milk")
        );
        assert_eq!(
            errand("Clean behind the freezer").as_deref(),
            Some("freezer")
        );
        // A fridge is as often a project's as the household's: a shop's
        // display fridge, a camper's twelve-volt one, a kitchen refit's.
        assert_eq!(errand("Get a quote for a display fridge"), None);
        assert_eq!(
            errand("Book the cat into the cattery for August").as_deref(),
            Some("cattery")
        );
        assert_eq!(
            errand("Book a table in the pub for Dad's birthday").as_deref(),
            Some("birthday")
        );
        assert_eq!(
            errand("Pick up the dry cleaning on Friday").as_deref(),
            Some("dry cleaning")
        );
        assert_eq!(
            errand("Send Aunt Rosa a birthday card").as_deref(),
            Some("birthday")
        );
        assert_eq!(errand("Order a new clutch cable and the gasket set"), None);
        // A test is an exam's, unless the optician's in either words.
        assert_eq!(
            errand("Book a sight test at the optician").as_deref(),
            Some("sight test")
        );
        assert_eq!(errand("Book the theory test"), None);
        // A bill by either of its names; water alone is a project's too.
        assert_eq!(
            errand("Pay the water rates before the end of the month").as_deref(),
            Some("water rates")
        );
        assert_eq!(errand("Test the water for nitrates"), None);
        // The shop as well as what is left there; a fine by its name on
        // the notice ("car park" alone is where, not what).
        assert_eq!(
            errand("Take my suit to the dry cleaners").as_deref(),
            Some("dry cleaners")
        );
        assert_eq!(
            errand("Appeal the penalty charge from the hospital car park").as_deref(),
            Some("penalty charge")
        );
        // A word whose stem is another word counts only as written.
        assert_eq!(errand("Pay for parking").as_deref(), Some("parking"));
        assert_eq!(errand("Walk round the retail park"), None);
        assert_eq!(
            errand("Take the recycling out").as_deref(),
            Some("recycling")
        );
        assert_eq!(errand("Cast the band in recycled platinum"), None);
        assert_eq!(
            errand("Send the accountant the receipts").as_deref(),
            Some("accountant")
        );
        assert_eq!(errand("Turn on MFA for every admin account"), None);
        assert_eq!(errand("Buy eggs and milk").as_deref(), Some("eggs"));
        assert_eq!(errand("Buy two more balls of the duck egg blue"), None);
        // The council is a party to projects as often as to the
        // household: what is reported to it tells.
        assert_eq!(
            errand("Ring the council about the broken streetlight").as_deref(),
            Some("streetlight")
        );
        assert_eq!(
            errand("Ask the council whether the meadow needs planning consent"),
            None
        );
        // A nursery's fees are the household's; its plants a garden's.
        assert_eq!(errand("Order foxgloves from the nursery"), None);
        assert_eq!(
            errand("Pay the nursery fees for March").as_deref(),
            Some("nursery fees")
        );
        // A bill named by what it pays for, the phone's as the gas's;
        // the home's energy by its bill or its supplier (not an athlete's
        // energy gels).
        assert_eq!(
            errand("Change the energy supplier before the price rise").as_deref(),
            Some("energy supplier")
        );
        assert_eq!(errand("Buy energy gels for the long runs"), None);
        assert_eq!(errand("Pay the phone bill").as_deref(), Some("phone bill"));
        // A child's school lunch account is the household's to top up.
        assert_eq!(
            errand("Top up the kids' lunch accounts").as_deref(),
            Some("lunch accounts")
        );
        // An errand that says nothing else, and one that names an
        // errand's word beside what it is about (its task's verb aside,
        // as routing sets it aside).
        let nothing_else = |text: &str| {
            use crate::offline::kind::{Kind, without_task_opening};
            let about = without_task_opening(text, Kind::Task);
            says_nothing_else(&text.to_lowercase(), &content_words(about))
        };
        assert!(nothing_else("Pay the council tax"));
        assert!(nothing_else("Pick up the dry cleaning"));
        assert!(nothing_else("Renew my library books"));
        assert!(nothing_else("Top up the electricity meter"));
        assert!(nothing_else("Renew the breakdown cover"));
        assert!(!nothing_else("Sort the books for the library sale"));
        assert!(!nothing_else("Order lettuce seedlings on Amazon"));
        assert!(!nothing_else("Print flyers for the vets and the pet shop"));
        assert_eq!(errand("Rosin the bow and change the E string"), None);
        // The analyzer reads a British `metre` as `meter`, which is no
        // electricity meter here.
        assert_eq!(errand("Order a 4 by 3 metre liner and the underlay"), None);
        // A meter told by its reading is the household's.
        assert_eq!(
            errand("Put the meter reading in before the price change").as_deref(),
            Some("meter reading")
        );
        // Glass and lenses are a project's as often as spectacles are an
        // errand.
        assert_eq!(errand("Buy a set of glass weights for the jars"), None);
        assert_eq!(errand("Order a wide-angle lens"), None);
        assert_eq!(
            errand("Collect my glasses from the optician").as_deref(),
            Some("my glasses")
        );
        assert_eq!(errand("Get the chimney swept").as_deref(), Some("chimney"));
        // A blog post is no trip to the post office.
        assert_eq!(errand("Draft the blog post about the launch"), None);
        assert_eq!(
            errand("Drop the parcel at the post office").as_deref(),
            Some("post office")
        );
        // A word inside another is not the word: "cards" in "scorecards".
        assert_eq!(errand("Print the scorecards for Saturday"), None);
        // A card is an errand for an occasion or to pay with, not bare.
        assert_eq!(errand("Print the name cards for the tables"), None);
        assert_eq!(
            errand("Send Auntie Pat a get well card").as_deref(),
            Some("get well card")
        );
        // A school is an errand's only as the household meets it.
        assert_eq!(errand("Shortlist three international schools"), None);
        assert_eq!(
            errand("Pay for the school trip to York").as_deref(),
            Some("school trip")
        );
        // So is a thank-you written as a note or a letter, not a note bare.
        assert_eq!(
            errand("Send Auntie Jo a thank-you note").as_deref(),
            Some("thank-you note")
        );
        assert_eq!(errand("Write up the notes from the site visit"), None);
        assert_eq!(
            errand("Top up the Oyster card").as_deref(),
            Some("oyster card")
        );
        // A verb is no errand's noun, though the analyzer spells "tires"
        // and "tyres" alike.
        assert_eq!(
            errand("Order a lighter paddle, the wooden one tires my wrist"),
            None
        );
        assert_eq!(errand("Get the tires checked").as_deref(), Some("tyre"));
        assert_eq!(
            errand("Get the bike's brakes fixed").as_deref(),
            Some("bike")
        );
        assert_eq!(
            errand("Order a new phone charger").as_deref(),
            Some("phone charger")
        );
        assert_eq!(errand("Pay the milkman").as_deref(), Some("milkman"));
        // Someone else's errand is part of looking after them.
        assert_eq!(
            errand("Collect my prescription from the chemist").as_deref(),
            Some("chemist")
        );
        assert_eq!(errand("Collect his prescription from the chemist"), None);
        assert_eq!(errand("Book her a haircut"), None);
        // A rented home's papers and the vote are a household's too.
        assert_eq!(
            errand("Post the signed tenancy renewal back to the letting agent").as_deref(),
            Some("letting agent")
        );
        assert_eq!(
            errand("Send off the form for a new blue badge").as_deref(),
            Some("blue badge")
        );
        assert_eq!(
            errand("Sign the tenancy renewal").as_deref(),
            Some("tenancy")
        );
        assert_eq!(
            errand("Ask the landlord if we can run cable above the ceiling"),
            None
        );
        assert_eq!(
            errand("Register to vote at the new address").as_deref(),
            Some("register to vote")
        );
        assert_eq!(
            errand("Check the tyres, one tires fast").as_deref(),
            Some("tyre")
        );
    }
}
