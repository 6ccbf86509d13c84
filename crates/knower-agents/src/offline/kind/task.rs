//! Whether a text opens like a task: an imperative verb and what it is
//! done to (`treat the boards`, `give Tom…`), not a subject and its verb.

use crate::offline::kind::grammar::{
    a_joined_modifier, describes_a_noun, first_clause, first_clause_len, hyphenated_verb,
    in_a_count, is_imperative_verb, is_letter_name, is_number_word, is_past, object_word,
    past_form, starts_an_object, unknown_word_as_verb, written_as_a_name,
};
use crate::offline::lexicon::*;
use crate::offline::phrasing::{contains_words, is_number, listed, plain_words};
use crate::offline::verbs;
use crate::offline::verbs::Past;

/// Whether `first` opens with `start`, one of [`TASK_STARTS`]. A start
/// that is one verb may be a noun instead, the subject of the next word
/// ("rent goes up…", not "rent a van"); a longer one or a modal cannot
/// ("I have to…", "must have…").
pub(super) fn opens_with(first: &str, start: &str) -> bool {
    let start_word = start.trim_end();
    let one_verb = start_word.chars().all(|c| c.is_ascii_alphabetic())
        && !matches!(start_word, "must" | "should");
    // A verb done again opens a task as the verb does: "reorder",
    // "resend", "retest".
    let again = one_verb
        && first
            .strip_prefix("re")
            .is_some_and(|rest| rest.starts_with(start));
    // (Done again, a verb may be a noun: "rewrite is due on Friday".)
    let never_a_noun = !again && listed(NEVER_NOUNS, start_word);
    (first.starts_with(start) || again) && !(one_verb && !never_a_noun && names_a_subject(first))
}

/// Whether the first word of `first`, a verb of [`TASK_STARTS`], is
/// rather the noun that opens a subject: a verb follows it at once
/// ("rent goes up…"), or after a preposition and a bare noun ("print on
/// demand costs £4 a copy", not "check on the dog that is limping").
pub(super) fn names_a_subject(first: &str) -> bool {
    let words: Vec<&str> = plain_words(first).collect();
    let word = |i: usize| words.get(i).copied().unwrap_or_default();
    listed(AFTER_A_SUBJECT, word(1))
        || second_word_of_a_subject(word(0), word(1), word(2))
        || (listed(AFTER_AN_IMPERATIVE, word(1))
            && object_word(&word(2))
            && !listed(DETERMINERS, word(2))
            && present_verb_after(first, &words, 3, word(0)))
}

/// Whether `noun`, second in a text after `first_word` and before `then`,
/// ends a subject of two words that `then` is the verb of: "water
/// pressure has dropped…", "Network Rail have moved…", "paint samples are
/// in the hall" (not "check Tom has paid…", see [`TAKE_A_CLAUSE`]).
pub(super) fn second_word_of_a_subject(first_word: &str, noun: &str, then: &str) -> bool {
    listed(AFTER_A_SUBJECT, then)
        && object_word(&noun)
        && !listed(OBJECTS, noun)
        && !listed(TAKE_A_CLAUSE, first_word)
}

/// Whether `first` (the text, lower-case, from its first word) opens with
/// an imperative and its object ("treat the cladding…", "send everyone
/// the questions…"). A first word before a colon labels the text instead
/// ("Garden: the new compost bin").
pub(super) fn asks_for_something(first: &str) -> bool {
    if first
        .split_whitespace()
        .next()
        .is_some_and(|w| w.ends_with(':'))
    {
        return false;
    }
    let words: Vec<&str> = plain_words(first).collect();
    let word = |i: usize| words.get(i).copied().unwrap_or_default();
    let (verb, next) = (word(0), word(1));
    // A first word that a stating verb in "-s" follows is its subject, a
    // name or a thing that is also a verb's base: "Sue wants to see the
    // Vatican", "Mark thinks…", "Lime needs weeks to cure".
    if listed(STATING_PRESENTS, next) {
        return false;
    }
    // ("Dinner the other night was lovely": a later verb makes the first
    // word its subject.)
    if unknown_word_as_verb(verb)
        && listed(DETERMINERS, next)
        && !has_a_verb(first, &words, 2, false)
    {
        return true;
    }
    // So does a preposition of going, or its particle: "walk along the
    // canal to the lock", "ride along on Dev's Thursday shift".
    if is_imperative_verb(verb)
        && (listed(AFTER_AN_IMPERATIVE, next) || listed(OF_GOING, next))
        && no_verb_after(first, &words)
    {
        return true;
    }
    if hyphenated_verb(verb) && listed(DETERMINERS, next) {
        return true;
    }
    // An owner named by the first two words, then its thing and a verb,
    // is a subject: "hive three's queen is failing" (not "check Tom's car
    // is taxed", whose verb takes a clause).
    if next.ends_with("'s") && second_word_of_a_subject(verb, word(2), word(3)) {
        return false;
    }
    // "Have" and a thing of the user's with what is to be done to it, as
    // "get" takes them: "have the boiler serviced", "have the dual
    // controls fitted before the sign-writing" (not a question, "have
    // the kids been fed?", nor "have a look").
    if verb == "have" && listed(WHOSE, next) && !first.trim_end().ends_with('?') {
        let clause = first_clause_len(first).min(words.len());
        return (3..clause.min(7)).any(|i| {
            let done = verbs::is_participle(word(i)) || is_past(word(i));
            let ends = i + 1 == clause || listed(PREPOSITIONS, word(i + 1));
            done && ends && !words[2..i].iter().any(|w| listed(NOT_A_PAST_VERB, w))
        });
    }
    // Two imperatives joined before their object: "blanch and freeze the
    // runner beans", "sand and paint the door".
    if is_imperative_verb(verb)
        && next == "and"
        && is_imperative_verb(word(2))
        && starts_an_object(word(3))
    {
        return true;
    }
    // A particle of an imperative, before its object: "break in the new
    // boots…", "hand in the keys", "go through the codes…", "talk over
    // the plan" (not "work in the garden is…").
    if is_imperative_verb(verb)
        && listed(PARTICLES_BEFORE_AN_OBJECT, next)
        && listed(DETERMINERS, word(2))
        && !has_a_verb(first, &words, 3, false)
    {
        return true;
    }
    // A particle of an imperative, then where or what for: "weigh in at
    // the pharmacy", "sign up for the course", with no verb of its own
    // after them.
    if is_imperative_verb(verb)
        && listed(PARTICLES_BEFORE_A_PREPOSITION, next)
        && listed(AFTER_AN_IMPERATIVE, word(2))
        && !has_a_verb(first, &words, 3, false)
    {
        return true;
    }
    // A stating verb with "out" or "up" before an object is a verb of its
    // own, and asks: "cost out the venison pie…", "think up a name for
    // the team" (not "cost 40 pounds").
    if listed(STATING_VERBS, verb) && listed("out up", next) && starts_an_object(word(2)) {
        return true;
    }
    // A verb that takes another verb's "-ing" as its object, with no verb
    // of its own after them: "start feeding the tomatoes once…", "avoid
    // lifting…" (not "practice shooting is on Tuesdays"). A word in
    // "-ing" of five letters or fewer is no verb's ("thing", "ring").
    if listed(TAKES_A_GERUND, verb)
        && next.len() > 5
        && next.ends_with("ing")
        && !has_a_verb(first, &words, 2, false)
    {
        return true;
    }
    is_imperative_verb(verb)
        && (starts_an_object(next)
            || describes_a_noun(next)
            || listed(OBJECTS, next)
            || is_number(next)
            || listed(QUESTION_WORDS, next)
            || bare_object(first, &words))
}

/// Whether the first clause of `first`, from its third word on, has no
/// verb of its own: "vote on April's book by Sunday" asks, while in
/// "lunch with Sam was nice" or "work on the roof stopped" the first word
/// is a noun and the subject of a later verb.
pub(super) fn no_verb_after(first: &str, words: &[&str]) -> bool {
    let clause_words = first_clause_len(first);
    clause_words >= 3 && !has_a_verb(first, words, 2, true)
}

/// Whether the first clause of `first` (its plain `words`), from word
/// `from` on, holds a finite verb: a form of "be" or "have", a modal, or
/// a past; with `or_present`, a present in "-s" too (which a plural noun
/// reads as as well).
///
/// A present right after a preposition or a determiner, or after a
/// determiner and a word, or a preposition and a word that describes a
/// noun ([`describes_a_noun`]), is a noun: "apply to the Sport England
/// fund for new gloves", "restring with lighter strings"
/// (not after "that", as often a pronoun: "gave advice that helps", nor a
/// preposition and any word: "compression with WAND gives a speedup").
pub(super) fn has_a_verb(first: &str, words: &[&str], from: usize, or_present: bool) -> bool {
    let clause = first_clause(first, words);
    let a_noun_here = |i: usize| {
        let back = |n: usize| i.checked_sub(n).map_or("", |at| clause[at]);
        listed(PREPOSITIONS, back(1))
            || listed(DETERMINERS, back(1))
            || listed(DETERMINERS, back(2))
            || (listed(PREPOSITIONS, back(2)) && describes_a_noun(back(1)))
    };
    clause.iter().enumerate().skip(from).any(|(i, w)| {
        listed(NOT_A_PAST_VERB, w)
            || is_past(w)
            || (or_present && verbs::is_present_s(w) && !a_noun_here(i))
    })
}

/// Whether the first clause of `first` (its plain `words`), from word
/// `from` up to a joining word ("…and the hole is cut" is a clause of
/// its own), holds a verb in the present: one of
/// [`PRESENT_AFTER_A_SUBJECT`] or a present in "-s" that no determiner
/// or preposition makes a plural noun ("…flows better", not "…with the
/// results", "…out of chairs") and that agrees with `subject`, the word
/// before the past.
pub(super) fn present_verb_after(first: &str, words: &[&str], from: usize, subject: &str) -> bool {
    let clause = first_clause(first, words);
    // A plural subject takes no present in "-s": in "two suppliers failed
    // on overtime records…" the "records" is a noun.
    let plural = subject.len() > 3 && subject.ends_with('s') && !subject.ends_with("ss");
    (from..clause.len())
        .take_while(|&i| !listed(JOINS, clause[i]))
        .any(|i| {
            let (before, w) = (clause[i - 1], clause[i]);
            // (A determiner one word further back makes a noun too: "the
            // new posts".)
            // (So does a preposition and a word that describes one: "for
            // daily transcripts"; and a determiner before a count, however
            // long: "knocked in the first hundred posts".)
            let counted = clause[..i]
                .iter()
                .rev()
                .take_while(|w| in_a_count(w) || listed(ORDINALS, w))
                .count();
            let determined = listed(OBJECT_STARTS, before)
                || (i >= 2 && listed(OBJECT_STARTS, clause[i - 2]))
                || (i >= 2 && listed(PREPOSITIONS, clause[i - 2]) && describes_a_noun(before))
                || (counted > 0 && i > counted && listed(OBJECT_STARTS, clause[i - counted - 1]));
            listed(PRESENT_AFTER_A_SUBJECT, w)
                || (verbs::is_present_s(w)
                    && !plural
                    && !determined
                    && !listed(PREPOSITIONS, before)
                    && before != "of")
        })
}

/// Whether the verb that opens `first`, an imperative or a past, takes a
/// bare plural or mass noun as its object ("pick tiles for the shower
/// wall", "swapped shifts with Aisha", "recorded episode 13"): a word
/// that is no verb's past, then [`AFTER_A_BARE_OBJECT`] or a number
/// ("episode 13", "chapter 4", "plots nine and ten"), and no verb after them in
/// the clause, which would make the two words a subject instead ("change
/// requests from the client are piling up"); or two such words before a
/// place as well ("sow yellow rattle in the meadow").
pub(super) fn bare_object(first: &str, words: &[&str]) -> bool {
    let clause_words = first_clause_len(first);
    // A verb joined after them is the first verb's partner, not theirs:
    // "swapped butter for olive oil and started porridge…",
    // "reintroduced garlic and had a bad flare…" (not "change requests
    // and complaints piled up", where a noun follows the join).
    let joined = (2..words.len().saturating_sub(1))
        .find(|&i| {
            listed(JOINS, words[i]) && (is_past(words[i + 1]) || verbs::is_base(words[i + 1]))
        })
        .unwrap_or(words.len());
    let own_clause = &words[..joined];
    let (Some(noun), Some(then)) = (words.get(1), words.get(2)) else {
        return false;
    };
    if clause_words >= 3
        && object_word(noun)
        && (listed(AFTER_A_BARE_OBJECT, then)
            || is_number(then)
            // (Written as a word, a number names a plural before it;
            // after a preposition it counts: "rest for two days".)
            || (is_number_word(then) && noun.ends_with('s') && !listed(PREPOSITIONS, noun))
            || is_letter_name(then))
        && !has_a_verb(first, own_clause, 3, false)
    {
        return true;
    }
    // Two words, a noun and the one it qualifies, then a place: "sow
    // yellow rattle in the meadow", "planted broad beans in the bed".
    let Some(after) = words.get(3) else {
        return false;
    };
    clause_words >= 4
        && (object_word(noun) || a_joined_modifier(noun))
        && object_word(then)
        // A verb's present after a noun makes the two a subject and its
        // verb: "paint colour changes in…", "fish stocks rise in…".
        && !verbs::is_present_s(then)
        && !(noun.ends_with('s') && verbs::is_base(then))
        // Nor is a verb's present in the noun's place: "finance wants
        // clawbacks for…" has a subject and its verb.
        && !verbs::is_present_s(noun)
        && (listed(AFTER_A_BARE_OBJECT, after) || listed(PLACES_AFTER_AN_OBJECT, after))
        // Any verb after them, a present too, makes them its subject:
        // "inverted index compression with WAND gives…".
        && !has_a_verb(first, own_clause, 4, true)
}

/// Whether `verb`, a past written as its own base ("beat", "cut", "read"),
/// reports something done: only a time that lies behind ("cut the hedge
/// yesterday" against "cut the hedge"), a past that the sentence goes
/// on in ("read the speech to Mia and she laughed…"), a score that
/// was made ("hit 18 out of 25…") or a first of the user's own ("hit my
/// first one-eighty in a match") tells it from an imperative, even one
/// of [`TASK_STARTS`].
pub(super) fn told_as_done(verb: &str, lower: &str) -> bool {
    past_form(verb) == Some(Past::AsBase)
        && (CLEARLY_PAST.iter().any(|t| contains_words(lower, t))
            || goes_on_in_the_past(lower)
            || tells_a_score(lower)
            || tells_a_first_of_the_users(lower))
}

/// Whether `lower`'s verb, with its particle if it has one, takes the
/// first (or second, or third) of the user's own as its object: "hit my
/// first one-eighty…", "put in my first invisible zip". A milestone is
/// told when it is reached; a task asks for a thing, not for a first
/// ("Book my first lesson" asks by a verb that is no past).
pub(super) fn tells_a_first_of_the_users(lower: &str) -> bool {
    let words: Vec<&str> = plain_words(lower).take(4).collect();
    let at = 1 + usize::from(words.get(1).is_some_and(|w| listed(PARTICLES, w)));
    words.get(at) == Some(&"my")
        && words
            .get(at + 1)
            .is_some_and(|w| listed("first second third", w))
}

/// Whether `lower` tells a score as a count out of another: "18 out of
/// 25", a result, where a task would set a goal in other words.
pub(super) fn tells_a_score(lower: &str) -> bool {
    let words: Vec<&str> = plain_words(lower).collect();
    words
        .windows(4)
        .any(|w| is_number(w[0]) && w[1] == "out" && w[2] == "of" && is_number(w[3]))
}

/// Whether a clause joined to the first is told in a past that is only
/// ever one ("…and she laughed", "…then cleared the leaves", "…and
/// there was only one scuffle"), or one set after a comma opens with a
/// person and such a past ("Beat the Hornets 31–24, I got player of the
/// match"): the first clause is then a report too. ("Put the bins out,
/// they had…": a "had" tells how things were.)
pub(super) fn goes_on_in_the_past(lower: &str) -> bool {
    let clear = |v: &str| past_form(v) == Some(Past::Clear);
    let words: Vec<&str> = plain_words(lower).collect();
    let joined = words.iter().enumerate().any(|(i, w)| {
        listed(JOINS, w) && {
            let there = words.get(i + 1) == Some(&"there");
            let subject = there || words.get(i + 1).is_some_and(|p| listed(PRONOUNS, p));
            let at = i + 1 + usize::from(subject);
            words
                .get(at)
                .is_some_and(|v| clear(v) || (there && matches!(*v, "was" | "were")))
        }
    });
    joined
        || lower.split(',').skip(1).any(|clause| {
            let mut words = plain_words(clause);
            words.next().is_some_and(|p| listed(PERSONS, p))
                && words.next().is_some_and(|v| v != "had" && clear(v))
        })
}

/// Whether `text` opens with an imperative verb and a name, as
/// written: "Give Tom feedback…", "Email Priya the slides". A name that a
/// verb follows is a subject instead ("Home Assistant loses the stick…",
/// "Network Rail have moved…").
pub(super) fn asks_someone(text: &str) -> bool {
    let mut words = text.split_whitespace();
    let (verb, next) = (
        words.next().unwrap_or_default(),
        words.next().unwrap_or_default(),
    );
    let verb = verb.to_lowercase();
    let then = plain_words(&words.next().unwrap_or_default().to_lowercase())
        .next()
        .map(|w| {
            is_past(w)
                || verbs::is_present_s(w)
                || second_word_of_a_subject(&verb, &next.to_lowercase(), w)
        })
        .unwrap_or(false);
    (is_imperative_verb(&verb) || hyphenated_verb(&verb)) && written_as_a_name(next) && !then
}

/// Whether `text` opens with a past in "-ed" that is only ever one and a
/// name, as written: "Walked Juno past two dogs…", "Emailed Priya the
/// minutes" report what was done, as "Email Priya…" asks it
/// ([`asks_someone`]). So does a past that is also another word, before
/// a name: "Drove Freya up to Glasgow…", "Saw Tom at the match" ("Lay
/// Jack on his back…" asks, as the task rules read it first).
pub(super) fn told_done_to_someone(text: &str) -> bool {
    let mut words = text.split_whitespace();
    let (verb, next) = (
        words.next().unwrap_or_default().to_lowercase(),
        words.next().unwrap_or_default(),
    );
    let past = match past_form(&verb) {
        Some(Past::Clear) => verb.ends_with("ed"),
        Some(Past::Ambiguous) => true,
        _ => false,
    };
    past && !listed(DESCRIBING_PASTS, &verb) && next.len() > 1 && written_as_a_name(next)
}
