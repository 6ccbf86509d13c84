//! Whether a text tells a fact of the user: a habit, an age, a training,
//! the family, what their body does.

use crate::offline::kind::grammar::{
    after_opening, first_clause, first_clause_len, is_a_count, is_a_decade, is_an_hour,
    is_number_word, is_past, object_word, past_form,
};
use crate::offline::lexicon::*;
use crate::offline::phrasing::{contains_words, is_number, listed, plain_words};
use crate::offline::verbs;

/// Whether `first` tells what the user does as a habit, "I" and a verb
/// in the present: "I wear glasses for driving", "I cycle to work". Not a
/// stating verb ("I think…", "I need…") or a linking one
/// ([`LINKING_VERBS`]), nor a past written as its base ("I read the
/// report…", "I put…"), which may tell of one time.
pub(super) fn tells_a_habit(first: &str) -> bool {
    let mut words = plain_words(first);
    let (Some("i"), Some(verb)) = (words.next(), words.next()) else {
        return false;
    };
    verbs::is_base(verb)
        && !listed(STATING_VERBS, verb)
        && !listed(LINKING_VERBS, verb)
        && !listed(NOT_A_PAST_VERB, verb)
        && past_form(verb).is_none()
}

/// Whether `first` says what the user has: "I have a…", "I have type 1
/// diabetes", "I have two stepdaughters", "I've got a burn scar across my
/// wrist" — a fact about them. A past or a participle after it reports
/// instead ("I have finished the draft").
pub(super) fn tells_what_the_user_has(first: &str) -> bool {
    let Some(rest) = after_opening(first, &["i have ", "i've got ", "i have got "]) else {
        return false;
    };
    let next = plain_words(rest).next().unwrap_or_default();
    !next.is_empty() && !listed(NOT_HAD, next) && !is_past(next) && !verbs::is_participle(next)
}

/// `first` without a quantifier that opens it before "my": "both my
/// parents are deaf", "all of my sisters live abroad" tell of them as
/// "my parents are deaf" does.
pub(super) fn without_a_quantifier_before_my(first: &str) -> &str {
    let Some((quantifier, rest)) = first.split_once(' ') else {
        return first;
    };
    let rest = rest.strip_prefix("of ").unwrap_or(rest);
    if listed(QUANTIFIERS, quantifier) && rest.starts_with("my ") {
        rest
    } else {
        first
    }
}

/// Whether `first` tells how the user trained for their working life, as
/// "I qualified as a vet" does: "I did my PhD on kelp forests…", "I did
/// my apprenticeship with my dad's firm", "I served my apprenticeship at
/// a harness maker in Walsall", "I apprenticed with an upholsterer in
/// Bath", "I wrote my doctorate on…",
/// "I did a fine art degree", "I trained in Cardiff…", "I learnt to sail
/// at Plymouth". (Not "I did my first 10k", which is news.)
pub(super) fn tells_how_the_user_trained(first: &str) -> bool {
    // A trade learnt as time served under a master: "I served my time at a
    // clockmaker's in York", "I served my time as a fitter" (or in the
    // forces: "I served my time in the navy"), a part of the user's life.
    if let Some(rest) = after_opening(first, &["i served my time "]) {
        return plain_words(rest)
            .next()
            .is_some_and(|w| listed("at with as in under", w));
    }
    // (Its subject may come first: "I did my archives diploma at
    // Aberystwyth"; but a training after a word is any day's, "I did my
    // first training run".)
    if let Some(rest) = after_opening(first, &["i did my ", "i wrote my ", "i served my "]) {
        let words: Vec<&str> = plain_words(rest).take(3).collect();
        return words.first().is_some_and(|w| listed(STUDIES, w))
            || words.iter().any(|w| listed(STUDIES, w) && *w != "training");
    }
    // Bound to a master of the trade: "I apprenticed with an upholsterer
    // in Bath", "I was apprenticed to a cooper".
    if let Some(rest) = after_opening(first, &["i apprenticed ", "i was apprenticed "]) {
        return plain_words(rest)
            .next()
            .is_some_and(|w| listed("with to at under", w));
    }
    // One of them told with "a" and what it was in: "I did a fine art
    // degree before…", "I did an apprenticeship in joinery" (a training
    // is any day's: "I did a training run").
    if let Some(rest) = after_opening(first, &["i did a ", "i did an "]) {
        return plain_words(rest)
            .take(4)
            .any(|w| listed(STUDIES, w) && w != "training");
    }
    // A subject studied where: "I studied maths at Bristol" (not "I
    // studied the plans at lunch" nor "I studied for the exam"), or read
    // at a university, as the British say it: "I read history at Durham"
    // (not "I read the minutes at the meeting", nor "I read it at
    // lunch").
    let studied = first.strip_prefix("i studied ").map(|rest| (rest, "at in"));
    let read = first.strip_prefix("i read ").map(|rest| (rest, "at"));
    if let Some((rest, where_)) = studied.or(read) {
        let words: Vec<&str> = plain_words(rest).take(4).collect();
        return words.first().is_some_and(|w| {
            !listed(OBJECT_STARTS, w) && !listed(PREPOSITIONS, w) && !listed(OBJECT_PRONOUNS, w)
        }) && words[1..].iter().any(|w| listed(where_, w));
    }
    // A craft learnt where or from whom: "I learned to bind at the London
    // College of Communication", "I learnt to weld from my uncle" (not "I
    // learnt to swim at last", news, nor "I learned to tie a bowline at
    // the club", whose verb takes an object).
    if let Some(rest) = after_opening(first, &["i learned to ", "i learnt to "]) {
        let words: Vec<&str> = plain_words(rest).take(3).collect();
        return matches!(words.as_slice(), [_, "at" | "in" | "from" | "with", then, ..] if *then != "last");
    }
    after_opening(first, &["i trained in ", "i trained at "]).is_some()
}

/// Whether `first` tells when in their life the user did something, by
/// their age: "I went to sea at seventeen as an engine cadet", "I left
/// school at sixteen", "I took up the cello aged fifty", "I started in
/// care as a sixteen year old volunteer", "I moved here when I was
/// eight", "I played minor counties cricket in my twenties", "I've
/// never eaten meat, not even as a child", or who they
/// were at that age: "I was a cathedral chorister as a boy", or what
/// someone of theirs did then: "my grandad taught me to thatch when I was
/// fourteen" — a fact of their life, as a span of it is. A number that may
/// be an hour of the clock (up to twelve, or in digits) after "at" is a
/// time: "I left at seven", "I got in at 23:10"; so is one told as such:
/// "at twenty past".
pub(super) fn tells_an_age_in_the_users_life(first: &str) -> bool {
    let words: Vec<&str> = plain_words(first).collect();
    // When I was that old: "when I was eight".
    let when_i_was = |rest: &[&str], i: usize| {
        rest[i..].starts_with(&["when", "i", "was"])
            && rest.get(i + 3).is_some_and(|n| is_a_count(n))
    };
    // What someone of the user's did, with them or not, at an age of the
    // user's: "my grandad taught me to thatch when I was fourteen", "my
    // parents moved to Spain when I was ten". (Only "when I was…" tells
    // whose age it is: in "my dad retired at sixty" it is his.)
    if words.first() == Some(&"my") {
        return (1..=3).any(|i| words.get(i).is_some_and(|w| is_past(w)))
            && (0..words.len()).any(|i| when_i_was(&words, i));
    }
    // A past, or what the user has never or always done: "I've never
    // eaten meat, not even as a child".
    let (verb, rest) = match words.as_slice() {
        ["i" | "i've", "never" | "always", verb, rest @ ..] => (*verb, rest),
        ["i", "have", "never" | "always", verb, rest @ ..] => (*verb, rest),
        ["i", verb, rest @ ..] => (*verb, rest),
        _ => return false,
    };
    let word = |i: usize| rest.get(i).copied().unwrap_or_default();
    let an_age = |i: usize| match rest[i] {
        "at" => {
            is_number_word(word(i + 1))
                && !is_an_hour(word(i + 1))
                && !tells_the_clock(word(i + 1), word(i + 2))
        }
        "aged" => is_a_count(word(i + 1)),
        // Who the user was then: "as a sixteen year old", "as a
        // sixteen-year-old" (an age whatever the number), "as a child".
        "as" => {
            listed("a an", word(i + 1))
                && (word(i + 2)
                    .strip_suffix("-year-old")
                    .is_some_and(is_a_count)
                    || (is_a_count(word(i + 2)) && word(i + 3) == "year" && word(i + 4) == "old")
                    || listed(AGES_OF_LIFE, word(i + 2)))
        }
        "when" => when_i_was(rest, i),
        // A decade of the user's own life: "I played minor counties
        // cricket in my twenties" (not "in the twenties", a century's).
        "in" => word(i + 1) == "my" && listed(DECADES_OF_A_LIFE, word(i + 2)),
        _ => false,
    };
    (is_past(verb) || verbs::is_participle(verb) || verb == "was") && (0..rest.len()).any(an_age)
}

/// Whether `first` tells what something does to the user's body, a fact
/// of their health as "I'm allergic to…" is: "Prawns and mussels give me
/// hives", "Cheese gives me a migraine", "Dairy makes me bloated", or
/// what the user gets: "I get seasick on anything bigger than a dinghy".
/// Told in the present, of something named before it or of the user:
/// "Make me a list" asks, and "it gave me a headache" tells of one day.
pub(super) fn tells_how_the_users_body_reacts(first: &str) -> bool {
    let words: Vec<&str> = plain_words(first).collect();
    let word = |i: usize| words.get(i).copied().unwrap_or_default();
    let a_reaction = |i: usize| {
        listed(REACTIONS, word(i)) || (listed("a an", word(i)) && listed(REACTIONS, word(i + 1)))
    };
    (word(0) == "i" && word(1) == "get" && a_reaction(2))
        || (1..words.len()).any(|i| {
            listed("give gives make makes", words[i]) && word(i + 1) == "me" && a_reaction(i + 2)
        })
}

/// Whether `number`, then `next`, tell a time of day: "at twenty past",
/// "at nineteen minutes to nine", "at sixteen hundred". "Past" and "to"
/// follow only the numbers minutes are told in round the clock: in "I
/// left school at sixteen to work with my dad" the number is an age.
pub(super) fn tells_the_clock(number: &str, next: &str) -> bool {
    match next {
        "past" | "to" => listed(MINUTES_ROUND_THE_CLOCK, number),
        _ => listed(OF_THE_CLOCK, next),
    }
}

/// Whether `first` tells how long the user has done something, a fact of
/// their life as "I've been vegan for six years" is: "I've taught for
/// eleven years", "I have lived in Leeds since 2004", "I've played the
/// cello since I was eight", "I've farmed this hill since my father
/// retired", "I played hooker for Neath until I was twenty-eight", or
/// who they were for a span of it: "I was a civil engineer for forty
/// years", "I was head of St Mary's for fourteen years", or what they
/// did for a span of it: "I worked in kitchens in Lyon for six years", or
/// all of it: "I've lived in the Peak District all my life", or where
/// they were for a span of it: "I was in the Royal Navy for twelve
/// years". (A
/// span in days or nights is a booking's: "I've booked the hall for two
/// nights".)
pub(super) fn tells_how_long_the_user_has(first: &str) -> bool {
    // "i was" before the bare "i", which would take it as a past.
    let (rest, was) = if let Some(rest) = after_opening(first, &["i've ", "i have "]) {
        (rest, false)
    } else if let Some(rest) = first.strip_prefix("i was ") {
        (rest, true)
    } else if let Some(rest) = first.strip_prefix("i ") {
        (rest, false)
    } else {
        return false;
    };
    let words: Vec<&str> = plain_words(rest).collect();
    let word = |i: usize| words.get(i).copied().unwrap_or_default();
    let opens = if was {
        // "a civil engineer", or a role of something: "head of St Mary's",
        // or a service or a place they were in: "in the Royal Navy".
        listed("a an", word(0)) || word(1) == "of" || word(0) == "in"
    } else {
        verbs::is_participle(word(0)) || is_past(word(0))
    };
    if !opens {
        return false;
    }
    // A span right after the past: "I served seven years in the Royal
    // Engineers", "I spent ten years in Dubai" (in years: "I spent two
    // hours on the flue" is a day's).
    if !was && is_a_count(word(1)) && listed("years decades", word(2)) {
        return true;
    }
    // A whole life is a span too: "I've lived in the Peak District all my
    // life".
    if contains_words(rest, "all my life") || contains_words(rest, "my whole life") {
        return true;
    }
    // (A span in years may come after a longer role or place: "I was a
    // marine engineer in the merchant navy for twelve years".)
    (1..=8).any(|i| match word(i) {
        "for" => {
            let count = word(i + 1);
            (is_a_count(count) || listed("a many several", count))
                && listed(SPANS, word(i + 2))
                && (i <= 5 || listed("years decades", word(i + 2)))
        }
        // Up to an age: "I played hooker for Neath until I was twenty-eight".
        "until" => i <= 5 && word(i + 1) == "i" && word(i + 2) == "was" && is_a_count(word(i + 3)),
        "since" if i <= 5 => {
            (word(i + 1).len() == 4 && is_number(word(i + 1)))
                // A decade, as a year: "I've lettered signs by hand since
                // the eighties", "…since the 1980s".
                || (word(i + 1) == "the" && is_a_decade(word(i + 2)))
                || word(i + 1) == "i"
                // A time of the family's life: "since my son was born".
                || (word(i + 1) == "my"
                    && listed(PEOPLE, word(i + 2))
                    && (is_past(word(i + 3)) || listed("was were", word(i + 3))))
                // The start or end of a place's life, as a year is: "I've
                // driven trams since the network opened", "I've been
                // freelance since the paper closed".
                || (word(i + 1) == "the"
                    && (i + 3..=i + 4).any(|at| listed(OPENED_OR_CLOSED, word(at))))
        }
        _ => false,
    })
}

/// Whether `first` tells a turn in the user's life and the year of it:
/// "I left the police to teach driving in 2012", "I joined the police in
/// 1998", "I retired in 2019", "I moved to Leeds in 2015", "I came to
/// Leeds from Kraków in 2006" (not "I left the keys at home", nor "I
/// moved the shed in 2019").
pub(super) fn tells_a_turn_in_the_users_life(first: &str) -> bool {
    let Some(rest) = first.strip_prefix("i ") else {
        return false;
    };
    let words: Vec<&str> = plain_words(rest).collect();
    let clause = first_clause(rest, &words);
    let (Some(verb), next) = (clause.first(), clause.get(1).copied().unwrap_or_default()) else {
        return false;
    };
    let a_year =
        |w: &str| w.len() == 4 && is_number(w) && (w.starts_with("19") || w.starts_with("20"));
    listed(TURNS_OF_LIFE, verb)
        && (!listed("moved came", verb) || listed(MOVED_TO, next))
        && clause
            .windows(2)
            .any(|pair| pair[0] == "in" && a_year(pair[1]))
}

/// Whether `first` tells what the user took over from their elders, a
/// fact of their life as a trade learnt is: "I took the nursery over
/// from my father in 2004", "I took over the shop from my mum", "I
/// inherited the farm from my grandad". (From anyone else it is news of
/// a job: "I took over the account from my manager".)
pub(super) fn tells_what_the_user_took_over(first: &str) -> bool {
    let Some(rest) = after_opening(first, &["i took ", "i inherited "]) else {
        return false;
    };
    let words: Vec<&str> = plain_words(rest).collect();
    let clause = first_clause(rest, &words);
    let over = first.starts_with("i inherited ") || clause.contains(&"over");
    over && clause
        .windows(3)
        .any(|w| w[0] == "from" && w[1] == "my" && listed(ELDERS, w[2]))
}

/// Whether `first` tells who is in the user's household, as "I have…"
/// tells what the user has: "we have two boys, aged 8 and 11", "we've got
/// a baby girl". ("We have three suppliers on the shortlist" is a project's.)
/// So does the user's marriage: "we've been married for forty-one years",
/// "we got engaged in Rome".
pub(super) fn tells_who_the_family_are(first: &str) -> bool {
    if let Some(rest) = after_opening(
        first,
        &["we've been ", "we have been ", "we got ", "we were "],
    ) {
        return plain_words(rest)
            .next()
            .is_some_and(|w| listed("married engaged", w));
    }
    let Some(rest) = after_opening(first, &["we have ", "we've got "]) else {
        return false;
    };
    plain_words(rest).take(3).any(|w| listed(PEOPLE, w))
}

/// Whether `first` tells what the user was before a later part of their
/// life, as a span of it is told ("I was a civil engineer for forty
/// years"): "I was a chemistry teacher before I started brewing", "I was
/// a bank manager before I moved into schools", "I was an aircraft
/// fitter in the RAF before turbines". What comes after "before" is a
/// part of their life: "I" and a past, or a bare plural; not a day's
/// time ("I was a wreck before the exam", "…before lunch"). "A bit" or
/// "a little" tells how, not who ("I was a bit late before I…").
pub(super) fn tells_who_the_user_was_before(first: &str) -> bool {
    let Some(rest) = first.strip_prefix("i was ") else {
        return false;
    };
    let words: Vec<&str> = plain_words(rest).collect();
    let word = |i: usize| words.get(i).copied().unwrap_or_default();
    if !listed("a an", word(0)) || listed("bit little lot few", word(1)) {
        return false;
    }
    let clause = first_clause_len(rest).min(words.len());
    (2..clause).any(|i| {
        let after = word(i + 1);
        word(i) == "before"
            && ((after == "i" && is_past(word(i + 2)))
                || (after.len() > 3
                    && after.ends_with('s')
                    && !after.ends_with("ss")
                    && object_word(&after)
                    && !listed(DETERMINERS, after)))
    })
}

/// Whether `first` tells who someone is to the user: "Maya is my deaf
/// niece", "Sam's my brother" — a fact about the people in their life, as
/// "my niece Maya…" is. ("The sight-reading is my weakest part" is not.)
pub(crate) fn tells_who_someone_is(first: &str) -> bool {
    let words: Vec<&str> = plain_words(first).collect();
    let after = match words.as_slice() {
        [_, "is" | "was", "my", rest @ ..] => rest,
        [someone, "my", rest @ ..] if someone.ends_with("'s") => rest,
        _ => return false,
    };
    after.iter().take(3).any(|w| listed(PEOPLE, w))
}

/// Whether a fact of the user's is about someone in their life: it names
/// one of their people ("my sister Inés is allergic to penicillin", "my
/// mum's birthday is 3 May") or tells who someone is to them ("Sam is my
/// brother"). Such facts go under the profile's `## People`.
pub(crate) fn about_someone(text: &str) -> bool {
    let lower = text.to_lowercase();
    let words: Vec<&str> = plain_words(&lower).collect();
    tells_who_someone_is(&lower)
        || words.iter().enumerate().any(|(i, w)| {
            (*w == "my" || *w == "our")
                && words[i + 1..]
                    .iter()
                    .take(2)
                    .any(|next| listed(PEOPLE, next.trim_end_matches("'s")))
        })
}
