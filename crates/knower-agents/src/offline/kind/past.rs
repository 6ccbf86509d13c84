//! Whether a text reports what happened: a past and its object, a
//! subject and its past, a decision told.

use crate::offline::kind::grammar::{
    after_word, continues, could_be_a_verb, ends_a_clause, first_clause_len, hyphenated_past,
    in_a_count, is_number_word, is_past, names_a_time_gone_by, names_an_object, object_word,
    one_thing, past_form, pronoun_of, starts_an_object, without_apposition,
};
use crate::offline::kind::task::{
    bare_object, goes_on_in_the_past, has_a_verb, present_verb_after, told_as_done,
};
use crate::offline::lexicon::*;
use crate::offline::phrasing::{is_number, listed, plain_words};
use crate::offline::verbs;
use crate::offline::verbs::Past;

/// Whether `first` (the text, lower-case, from its first word) reports
/// something that happened: "we" or "they" and a past tense ("we recorded
/// the vocals…"), an irregular past ("sang three carols…"), a past tense
/// in "-ed" and its object ("recorded the intro…"), or a subject and its
/// past ("the raffle prizes arrived from the shop", "Miso had her second
/// vaccination").
pub(super) fn reports_the_past(first: &str) -> bool {
    let set_apart = without_apposition(first);
    let first = set_apart.as_deref().unwrap_or(first);
    let words: Vec<&str> = plain_words(first).collect();
    let word = |i: usize| words.get(i).copied().unwrap_or_default();
    if first.trim_end().ends_with('?') {
        // A question asks; it does not report ("did the plumber come?").
        return false;
    }
    let recent = names_a_time_gone_by(first);
    let subject = word(0) == "we" || word(0) == "they";
    // A quantifier after the pronoun is the subject's too: "they both
    // went…", "we all agreed…".
    let at = usize::from(subject) + usize::from(subject && listed(QUANTIFIERS, word(1)));
    let (verb, next) = (word(at), word(at + 1));
    if hyphenated_past(verb) && starts_an_object(next) {
        return true;
    }
    match past_form(verb) {
        // "Read the contract", "cut the hedge" ask; "we cut the hedge" and
        // "cut the hedge yesterday" tell.
        Some(Past::AsBase) if subject || told_as_done(verb, first) => return true,
        Some(Past::AsBase) | None => {}
        Some(past) if verb.ends_with("ed") => {
            // A past that is only ever one, on a day named: "stalled twice
            // in today's lesson".
            if is_number(next) || (recent && past == Past::Clear) {
                return true;
            }
            if continues_doing(verb, next) {
                return true;
            }
            // A word in "-ed" before a pronoun it takes is a verb, never
            // an adjective: "filled it up…", "sent them round…".
            if !subject && listed(OBJECT_PRONOUNS, next) {
                return true;
            }
            // A past that is only ever one and a bare noun that ends its
            // clause: "Exchanged contracts; completion is…", "Planted
            // tulips."; or that is followed by where it was done:
            // "Stripped wallpaper in the hall", "Learned balayage on a live
            // model" (not "Used cars on the forecourt", whose past
            // describes as often as it reports).
            if past == Past::Clear
                && !subject
                && object_word(&next)
                && (first_clause_len(first) == 2
                    || (listed(PLACES_AFTER_AN_OBJECT, word(at + 2))
                        && !has_a_verb(first, &words, 3, false)))
            {
                return true;
            }
            // Two pasts joined, the second reporting: "priced and
            // shelved three boxes…", "washed and sorted five bags…"
            // (not "tired and hungry…", "stressed and exhausted about…").
            if !subject && next == "and" && reports_the_past(after_word(first, next)) {
                return true;
            }
            // A past and its bare object, as an imperative takes one:
            // "swapped shifts with Aisha".
            if !subject && bare_object(first, &words) {
                return true;
            }
            // Before a preposition, a past that is only ever one reports
            // ("paddled to the island…", "agreed with finance to…") unless
            // it describes, as a feeling or a place does ("stressed about…",
            // "located in…"); one the lexicon knows as an adjective too
            // ("interested in…", "based on…") only on a day named.
            let describes = past == Past::Ambiguous || listed(DESCRIBING_PASTS, verb);
            let preposition =
                (listed(PREPOSITIONS, next) || listed(OF_GOING, next)) && (recent || !describes);
            // A verb with its particle, then its object: "picked up the
            // frames", "switched off v1", "sorted out insurance". (After a
            // past that describes, "in" is a preposition: "located in the
            // old mill", "interested in the cello".)
            // Or its particle, then a preposition: "topped out on my first
            // V4", "camped out on the ridge" (not "stressed out about…").
            let particle = listed(PARTICLES, next)
                && ((!(describes && next == "in") && names_an_object(word(at + 2)))
                    || (!describes && listed(PREPOSITIONS, word(at + 2))));
            // A time's, as someone's, opens an object: "imported last
            // year's client records…".
            let a_times = listed("last this next", next) && word(at + 2).ends_with("'s");
            return subject || starts_an_object(next) || preposition || particle || a_times;
        }
        Some(Past::Clear) => return true,
        Some(Past::Ambiguous) => {
            // On a day named, with no one after it to ask about: "did
            // stage five on Sunday" (not "did you ring them today").
            let asks = listed(PRONOUNS, next) || next == "you";
            return subject
                || (recent && !asks)
                || starts_an_object(next)
                || listed(PREPOSITIONS, next)
                || listed(PARTICLES, next)
                || is_number(next);
        }
    }
    // A subject first: up to three words ("Miso had…", "Aunt Colette
    // confirmed…", "Pepper's glucose curve came back…") or a determiner
    // and up to three words ("the raffle prizes arrived…"), ended by a
    // past, a passive's participle, a verb that is not a past or the
    // start of an object ("the mirror shows a…"). The user is not a
    // subject here: "I'm left-handed" is a fact about them.
    // (Someone's, as a determiner does, opens a longer subject: "Aiko's
    // host family form came back…".)
    let last = if listed(SUBJECT_STARTS, word(0)) || word(0).ends_with("'s") {
        4
    } else {
        3
    };
    let mut verb_at = None;
    // Someone of the user's told doing something to or with them is news
    // of that day, not a fact of who they are: "my brother sponsored me
    // £50", "my sister came over and we repainted the hallway" (not "my
    // sister moved to Leeds"). So is the first of the user's things to
    // do something: "my first mug got through the glaze firing" (not "my
    // first car was a Mini"). So is one of them told doing something to
    // a thing named, a verb and its particle: "my nephew set up the
    // contact form" (not "my brother set up his own firm", a fact of his
    // life). A past written as its base is one after one person: the
    // present would be "sets".
    if word(0) == "my"
        && let Some(i) = (1..=3).find(|&i| {
            past_form(word(i)) == Some(Past::Clear)
                || (i == 2 && past_form(word(i)) == Some(Past::AsBase) && one_thing(word(1)))
        })
    {
        let a_first = listed("first second third", word(1)) && !listed("was were had", word(i));
        let a_thing_named = listed(PARTICLES, word(i + 1)) && word(i + 2) == "the";
        return listed("me us", word(i + 1))
            || goes_on_in_the_past(first)
            || a_first
            || a_thing_named;
    }
    // What one of the user's things "finally" did is news of the day it
    // did it: "my sky wash finally dried without blooms", "my second loaf
    // actually rose" (a past that is also a noun is one after them).
    if word(0) == "my"
        && (2..=4).any(|i| listed(AT_LAST, word(i)) && past_form(word(i + 1)).is_some())
    {
        return true;
    }
    // (No subject to look past when the text opens with the user.)
    let mut searched_up_to = if listed(THE_USER, word(0)) { 0 } else { last };
    let mut i = 1;
    while i <= searched_up_to {
        let (w, then) = (word(i), word(i + 1));
        if matches!(w, "was" | "were") && (verbs::is_participle(then) || is_past(then)) {
            // A passive reports what just happened ("the timber was
            // delivered this afternoon"), not a fact of long ago ("the
            // house was built in 1930"). A decision passed on is news
            // whenever it was made: "the second paper was accepted by
            // MNRAS", "the bid was turned down", "the visit was moved to
            // the twelfth". So is a thing done to
            // the subject with a particle, a piece of work gone through:
            // "the old boiler was cut out", "the units were ripped out",
            // "the garage door was bricked up" (not a participle that
            // tells how the subject is: "the carpet was worn out").
            if listed(DECIDED, then) || (listed(DONE_WITH, word(i + 2)) && !listed(HOW_IT_IS, then))
            {
                return true;
            }
            verb_at = recent.then_some(i + 1);
            break;
        }
        if w == "of" && (starts_an_object(then) || is_number(then)) {
            // A part of a group or a count: "two of the guppies died…",
            // "half of the cousins booked…", "the test load of 500 records
            // went through…" — the subject goes on after its determiner.
            searched_up_to += 2;
            i += 2;
            continue;
        }
        if w == "and" && listed(SUBJECT_STARTS, then) {
            // Two subjects joined, the second with its own determiner: "a
            // bike mechanic and a seamstress joined the fixers" — the
            // subject goes on for up to three words more.
            searched_up_to += 3;
            i += 2;
            continue;
        }
        if listed(SUBJECT_PLACES, w) {
            // The subject's place or purpose, up to two words after a
            // determiner: "the box at Low Farm blew down…", "the shed on
            // the allotment flooded…", "the offer from the sixth-form
            // college came through", "the grant for the lathe came
            // through". A count opens it as a determiner does, however
            // many words it takes: "the council's order for two thousand
            // whips came through".
            let determiner = usize::from(listed(OBJECT_STARTS, then));
            let count = (i + 1 + determiner..)
                .take_while(|&at| in_a_count(word(at)))
                .count();
            searched_up_to = (i + determiner + count + 3).min(searched_up_to + 3 + count);
            i += 1 + determiner + count;
            continue;
        }
        if w == "did" && (starts_an_object(then) || recent) {
            // "did" with an object is the past of "do" ("the installer
            // did the survey"), not its auxiliary ("did not reply").
            verb_at = Some(i);
            break;
        }
        // What someone says happened, happened: "the agent says the
        // tenants reported damp…" (not "the vet says to keep him in").
        if listed(REPORTING, w) && reports_the_past(after_word(first, w)) {
            return true;
        }
        // A subject and a participle that ends its clause, as a heading
        // puts it: "Calibration done: two of my reports…", "Chapter
        // three written."
        if verbs::is_participle(w) && !is_past(w) && word(0) != "well" && ends_a_clause(first, w) {
            return true;
        }
        // A quantifier before the past is the subject's, as after a
        // pronoun: "the barcodes all scanned on the new system", "the
        // twins both passed".
        if listed(QUANTIFIERS, w) && is_past(then) {
            verb_at = Some(i + 1);
            break;
        }
        // "get" in the present is the subject's verb, and a past after it
        // a passive in the present: "suppliers on the portal get paid
        // faster" tells how things are. So is a verb of how a thing
        // seems, and the past after it describes: "three boats look
        // abandoned", "the roof seems damaged". So is a present in "-s"
        // right after "he", "she" or "it": "she panics in timed papers"
        // tells how she is (after a noun, a word in "-s" may be its
        // plural: "the raffle prizes arrived").
        let a_pronouns_present = i == 1 && listed("he she it", word(0)) && verbs::is_present_s(w);
        // So is one in "-s" before an article or a pronoun that stands for
        // a thing, its object: "the sun fades anything left in the window"
        // tells how things are (a plural is seldom followed by one: "the
        // raffle prizes arrived", "the parents all signed").
        let a_present_and_its_object = verbs::is_present_s(w) && listed(A_THING_OPENS, then);
        if listed(NOT_A_PAST_VERB, w)
            || listed(OBJECT_STARTS, w)
            || listed(GET_OR_SEEM, w)
            || a_pronouns_present
            || a_present_and_its_object
        {
            break;
        }
        if is_past(w) {
            // Right after an article or a possessive, a past may describe
            // the subject ("a signed England shirt came in…"): a later
            // past is the verb, if there is one.
            if i == 1 && listed(DESCRIBED_AFTER, word(0)) {
                verb_at = Some(i);
                i += 1;
                continue;
            }
            verb_at = Some(i);
            break;
        }
        // A past written as its base after one thing named is a past: the
        // present would take an "s" ("the fencer put in the posts", not
        // "the kids set the table", which is as often a habit).
        if past_form(w) == Some(Past::AsBase)
            && i >= 2
            && listed(SUBJECT_STARTS, word(0))
            && one_thing(word(i - 1))
            // (Before "was" it is a noun: "the Garfield Weston bid was…".)
            && !listed(NOT_A_PAST_VERB, then)
        {
            verb_at = Some(i);
            break;
        }
        // So after one person named, before its object: "Ava read a
        // whole book to Grandma", "Mum put the kettle on", "she read…",
        // whose present would take an "s" (not "kids read…", a habit,
        // nor "you put…").
        if past_form(w) == Some(Past::AsBase)
            && i == 1
            && one_thing(word(0))
            && (!listed(PRONOUNS, word(0)) || listed("he she", word(0)))
            && word(0) != "you"
            && starts_an_object(then)
        {
            verb_at = Some(i);
            break;
        }
        // Anything else, a number too, is part of the subject's name:
        // "Episode four went out…".
        i += 1;
    }
    verb_at.is_some_and(|i| {
        let next = word(i + 1);
        // A subject's "'s" before a past is "is" or "has"; one that lasts
        // until a time is "is", and tells a state: "the lake's closed for
        // spawning until June".
        if word(i - 1).ends_with("'s") && words[i + 1..].iter().any(|w| listed("until till", w)) {
            return false;
        }
        // A past before a preposition that a present verb follows is a
        // participle inside the subject: "gouache mixed with gum arabic
        // flows better" tells how things are.
        if listed(PREPOSITIONS, next) && present_verb_after(first, &words, i + 2, word(i - 1)) {
            return false;
        }
        // A past that is only ever one, on a day named, reports whatever
        // follows it: "the vet gave Bean her first jab this morning". So
        // does what someone said or told: "the consultant said it's not
        // bad enough…" is news of a talk.
        (recent && past_form(word(i)) == Some(Past::Clear))
            // (Not after a determiner, where it describes: "the confirmed
            // dates are…".)
            || (listed(SAID, word(i)) && !listed(SUBJECT_STARTS, word(i - 1)))
            // A past the sentence goes on in reports whatever follows the
            // first: "the second launch went sideways and landed in the
            // hedge".
            || goes_on_in_the_past(first)
            || next.is_empty()
            || is_number(next)
            || listed(OBJECT_STARTS, next)
            || is_number_word(next)
            || listed(PREPOSITIONS, next)
            // A preposition of going too: "the new glass went into the
            // vinery", "Chloe got into her first choice".
            || listed(OF_GOING, next)
            || listed(AFTER_A_PAST, next)
            // (A pronoun as its contraction: "the auctioneer confirmed
            // he'll do it for free".)
            // So a thing's: "the memory clinic confirmed it's Alzheimer's".
            || pronoun_of(next).is_some_and(|pronoun| listed(PERSONS, pronoun) || pronoun == "it")
            // A bare object and where it was: "the tenants reported damp
            // in the back bedroom"; after a past that is only ever one and
            // does not tell how something seemed, anywhere: "the GP added
            // amlodipine at the review" (not "the hall looked empty").
            || (object_word(&next)
                && (listed(PLACES_AFTER_AN_OBJECT, word(i + 2))
                    || (past_form(word(i)) == Some(Past::Clear)
                        && !listed(SEEMING_PASTS, word(i))
                        // (Nor is an adverb an object: "gabbro cooled
                        // slowly underground".)
                        && !next.ends_with("ly")
                        // (A verb after the two makes them a subject,
                        // "laid hedges need staking", or tells how the
                        // object is, "gave advice that helps"; a particle
                        // is the past's own, "the dealer pushed delivery
                        // back to February".)
                        && (!could_be_a_verb(word(i + 2)) || listed(PARTICLES, word(i + 2)))
                        && !has_a_verb(first, &words, i + 2, true)))
                && !listed(SUBJECT_STARTS, word(i - 1)))
            // ("the finished painting…": after a determiner it describes.)
            || (continues_doing(word(i), next) && !listed(SUBJECT_STARTS, word(i - 1)))
            // How a thing went tells that it happened: "the operation
            // went well", "parents' evening went fine".
            || (word(i) == "went" && listed(HOW_IT_WENT, next))
            // A bare object caught doing something, which no present
            // verb follows: "the vicar found bats roosting in the porch".
            || (object_word(&next)
                && continues(word(i + 2))
                && !listed(SEEMING_PASTS, word(i))
                && !listed(SUBJECT_STARTS, word(i - 1)))
    })
}

/// Whether `first` names a time gone by and, after a comma or a colon,
/// goes on with a past not written as its base (the time says which a
/// "fell" is): a report told after a heading of its own ("Work party at
/// Napton on Saturday, laid eight metres…", "First scrimmage last night:
/// one assist, fell twice…").
pub(super) fn reports_after_a_heading(first: &str) -> bool {
    names_a_time_gone_by(first)
        && !first.trim_end().ends_with('?')
        && first.split([',', ':']).skip(1).any(|clause| {
            let verb = plain_words(clause).next().unwrap_or_default();
            matches!(past_form(verb), Some(Past::Clear | Past::Ambiguous))
        })
}

/// `verb` is one of [`ASPECT_PASTS`] and `next` the doing it governs.
pub(super) fn continues_doing(verb: &str, next: &str) -> bool {
    listed(ASPECT_PASTS, verb) && continues(next)
}

/// Whether `first` opens with a verb of two words whose second is a past
/// not written as its base, before its object: "test drove the Octavia",
/// "double checked the booking", "spring cleaned the garage" report,
/// though their first word alone would ask. ("Check finished jobs": a
/// past before a bare noun describes it.)
pub(super) fn opens_with_a_compound_past(first: &str) -> bool {
    let mut words = plain_words(first);
    let (Some(verb), Some(past), Some(then)) = (words.next(), words.next(), words.next()) else {
        return false;
    };
    !listed(BEFORE_A_PARTICIPLE, verb) && is_past(past) && starts_an_object(then)
}
