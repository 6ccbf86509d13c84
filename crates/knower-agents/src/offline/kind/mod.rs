//! What kind of update a text is — a task, an event, a preference or a
//! fact about the user, or a note — from its words alone (routing's rule
//! 1, [`mod@route`]).
//!
//! A *task* starts like one (`todo`, `- [ ]`, `remember to`, `need to`,
//! an imperative such as `buy`, `call`, `fix`…, or any verb of the
//! lexicon in [`super::verbs`] before its object, a name or a
//! preposition: `treat the boards`, `give Tom…`, `pick tiles for…`, `vote
//! on April's book`, `sow yellow rattle in…`; a word the lexicon does not
//! know before a determiner is a new verb: `repot the chillies`, and so is
//! "re" and a verb: `restring the…`), but not when the next word makes
//! the first a noun (`rent goes up…`); a verb whose past is its base
//! (`cut`, `read`, `beat`) opens one unless a time behind or a past clause
//! follows (`cut the hedge yesterday`), and such a task is filed no surer
//! than a note ([`doubtful_kind`]).
//!
//! An *event* reports something that happened or was decided (`decided`,
//! `shipped`, `met with`…, not denied: `haven't decided` is none), opens
//! with a past tense and its object (`recorded the…`, `we sang…`, `picked
//! up the…`, `swapped shifts with…`, `started hurting`, `paddled to…`,
//! `test drove the…`), or has a subject and its past (`the prizes arrived
//! from…`, `the hens stopped laying`, `Miso had her…`, `two of the guppies
//! died…`, `the fencer put in…`, recently `the timber was delivered…`).
//!
//! A *preference* is about the user (`I prefer`, `always use`, `please
//! don't`, `call me`…, and first-person facts: `my sister…`, `I work…`).
//!
//! Anything else is a *note*: a task or event in words the rules do not
//! know is one too, which is why a note is filed less surely
//! ([`NOTE_CONFIDENCE`]).

mod grammar;
mod past;
mod task;
mod user;

use crate::offline::kind::grammar::past_form;
use crate::offline::kind::past::{
    opens_with_a_compound_past, reports_after_a_heading, reports_the_past,
};
use crate::offline::kind::task::{
    asks_for_something, asks_someone, opens_with, told_as_done, told_done_to_someone,
};
use crate::offline::kind::user::{
    tells_a_habit, tells_a_turn_in_the_users_life, tells_an_age_in_the_users_life,
    tells_how_long_the_user_has, tells_how_the_user_trained, tells_how_the_users_body_reacts,
    tells_what_the_user_has, tells_what_the_user_took_over, tells_who_the_family_are,
    tells_who_the_user_was_before, without_a_quantifier_before_my,
};
use crate::offline::phrasing::{found_words, listed, plain_words};
use crate::offline::verbs;
use crate::offline::verbs::Past;

use crate::offline::lexicon::*;
pub(crate) use user::{about_someone, tells_who_someone_is};
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Task,
    Event,
    Preference,
    Note,
}

/// Why the kind of `text` is in doubt though a rule gave it: a task opened
/// by a past written as its own base ("Beat a 1600 in the club league on
/// Tuesday", "Put the bins out") may as well report what was done, so it
/// is filed no surer than a note ([`NOTE_CONFIDENCE`]). An open checkbox
/// says it is a task whatever its first word is.
pub(super) fn doubtful_kind(text: &str, kind: Kind) -> Option<String> {
    let lower = text.trim().to_lowercase();
    let verb = plain_words(after_bullets(&lower))
        .next()
        .unwrap_or_default();
    let doubtful =
        kind == Kind::Task && !is_checkbox(&lower) && past_form(verb) == Some(Past::AsBase);
    doubtful.then(|| {
        format!(
            "Its first word, \"{verb}\", is also its own past, so it may tell what was done rather than ask for it."
        )
    })
}

/// A text from its first word: the marks of a list item set aside.
fn after_bullets(text: &str) -> &str {
    text.trim_start_matches(['-', '*', '•', ' '])
}

/// Whether lower-cased `text` opens with an open checkbox (`- [ ] …`).
fn is_checkbox(lower: &str) -> bool {
    lower.starts_with("- [ ]") || lower.starts_with("* [ ]")
}

/// The kind of an update's text (rule 1).
pub fn kind_of(text: &str) -> Kind {
    let lower = text.trim().to_lowercase();
    let first = if is_checkbox(&lower) {
        lower.as_str()
    } else {
        without_a_quantifier_before_my(after_bullets(&lower))
    };
    // Who is in the household, who someone is to the user, at what age
    // the user did something or what they took over from their family, is
    // told before any event rule reads "got", "left" or "took" as a past
    // ("we've got a baby girl", "I left school at sixteen").
    if ABOUT_ME.iter().any(|s| first.starts_with(s))
        || tells_who_the_family_are(first)
        || tells_who_someone_is(first)
        || tells_an_age_in_the_users_life(first)
        || tells_who_the_user_was_before(first)
        || tells_what_the_user_took_over(first)
        || tells_a_turn_in_the_users_life(first)
        || tells_how_the_users_body_reacts(first)
    {
        Kind::Preference
    } else if !told_as_done(plain_words(first).next().unwrap_or_default(), first)
        && !opens_with_a_compound_past(first)
        && (TASK_STARTS.iter().any(|s| opens_with(first, s))
            || ((asks_for_something(first) || asks_someone(after_bullets(text)))
                && !warns_what_happens_otherwise(first)))
    {
        Kind::Task
    } else if EVENT_WORDS.iter().any(|w| said_unnegated(&lower, w))
        // Each clause a semicolon or a sentence's end sets apart may report
        // on its own: "Mrs Okafor says my scales are even; we moved on to
        // the exam pieces", "It works! First fuzz came out of the amp".
        || clauses(first).any(|clause| reports_the_past(clause.trim_start()))
        || reports_after_a_heading(first)
        || told_done_to_someone(after_bullets(text))
    {
        Kind::Event
    } else if PREFERENCE_WORDS.iter().any(|w| lower.contains(w))
        || FIRST_PERSON.iter().any(|s| first.starts_with(s))
        || tells_what_the_user_has(first)
        || tells_a_habit(first)
        || tells_how_long_the_user_has(first)
        || tells_how_the_user_trained(first)
    {
        Kind::Preference
    } else {
        Kind::Note
    }
}

/// The clauses of `text` that a semicolon or a sentence's end sets apart,
/// each with the mark that ends a sentence (a question is told by its
/// "?"), not the semicolon. A full stop inside a number ("3.5 kg") ends
/// nothing.
fn clauses(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut chars = rest.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let followed_by_space = chars.peek().is_some_and(|(_, n)| n.is_whitespace());
            let (clause, after) = match c {
                ';' => (&rest[..i], &rest[i + 1..]),
                '.' | '!' | '?' if followed_by_space => (&rest[..=i], &rest[i + 1..]),
                _ => continue,
            };
            rest = after;
            return Some(clause);
        }
        Some(std::mem::take(&mut rest))
    })
}

/// Whether `first`, an imperative, goes on with what happens otherwise,
/// in the present: "Flip the levers during the rest bar, or it buzzes",
/// "Stay-stitch the neckline first or it stretches out of shape". That
/// is how a thing works, a note to keep, not a task for a day ("…or
/// it'll die", in the future, still asks).
fn warns_what_happens_otherwise(first: &str) -> bool {
    let words: Vec<&str> = plain_words(first).collect();
    let word = |i: usize| words.get(i).copied().unwrap_or_default();
    (2..words.len()).filter(|&i| words[i] == "or").any(|i| {
        match word(i + 1) {
            "it" | "he" | "she" => verbs::is_present_s(word(i + 2)),
            // "…or the top tier sinks": a noun or two, then its verb.
            "the" | "your" | "its" | "their" => (i + 3..=i + 4)
                .any(|v| verbs::is_present_s(word(v)) && !listed(DETERMINERS, word(v - 1))),
            _ => false,
        }
    })
}

/// The text after the verb that opens a task ("book the movers", "pick
/// up…", "treat the boards…"): that verb says what to do, not what about,
/// and would otherwise tie "Book the movers" to whichever project's notes
/// mention a book. (The past that opens an event stays: "playtested…",
/// "harvested…" are as often the project's own words.)
pub(super) fn without_task_opening(text: &str, kind: Kind) -> &str {
    let trimmed = text.trim_start();
    let lower = trimmed.to_lowercase();
    if kind != Kind::Task || lower.len() != trimmed.len() {
        // Lower-casing changed a length: offsets would not carry over.
        return text;
    }
    let listed = TASK_STARTS
        .iter()
        .map(|s| s.trim_end())
        .filter(|s| s.chars().all(|c| c.is_ascii_lowercase() || c == ' '))
        .find(|s| lower.starts_with(s) && lower[s.len()..].starts_with(char::is_whitespace))
        .map(str::len);
    let imperative = || {
        asks_for_something(&lower).then(|| {
            trimmed
                .find(|c: char| !c.is_alphanumeric())
                .unwrap_or(trimmed.len())
        })
    };
    match listed.or_else(imperative) {
        Some(end) => trimmed[end..].trim_start(),
        None => text,
    }
}

/// `word` in `text` at word boundaries, and not denied just before
/// ("haven't decided", "not approved", "never shipped"). A participle
/// after a determiner describes, it does not report: "the approved list",
/// "a signed copy"; nor does one in a present or future passive, one
/// wanted, or one that must happen first ([`NOT_YET`], [`WANTING`],
/// [`FIRST_MUST`]).
fn said_unnegated(text: &str, word: &str) -> bool {
    found_words(text, word).any(|at| {
        let before = text[..at].split_whitespace().next_back();
        let denied = before.is_some_and(|w| w == "not" || w == "never" || w.ends_with("n't"));
        let describes = word.ends_with("ed") && before.is_some_and(|w| listed(OBJECT_STARTS, w));
        let clause = text[..at]
            .rsplit([',', ';', ':', '.'])
            .next()
            .unwrap_or_default();
        let not_yet = before.is_some_and(|w| listed(NOT_YET, w))
            || plain_words(clause).any(|w| listed(WANTING, w) || listed(FIRST_MUST, w));
        !denied && !describes && !not_yet
    })
}

pub(super) fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Task => "task",
        Kind::Event => "event",
        Kind::Preference => "preference",
        Kind::Note => "note",
    }
}

pub(super) fn kind_rule(kind: Kind) -> &'static str {
    match kind {
        Kind::Task => "it starts like a task",
        Kind::Event => "it reports something that happened or was decided",
        Kind::Preference => "it states a preference or a fact about the user",
        Kind::Note => "none of the task, event or preference rules apply",
    }
}

/// The note of `project` an update of `kind` goes to.
pub fn project_file(project: &str, kind: Kind) -> String {
    let file = match kind {
        Kind::Task => "tasks.md",
        Kind::Event => "changelog.md",
        Kind::Note | Kind::Preference => "state.md",
    };
    format!("projects/{project}/{file}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::phrasing::contains_words;

    /// The examples of `tests/data/kinds.tsv`, each with the kind the
    /// rules must give it.
    #[test]
    fn kinds_follow_the_documented_rules() {
        let examples = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/kinds.tsv"));
        let mut wrong = Vec::new();
        for line in examples
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let (kind, text) = line.split_once('\t').expect("a kind, a tab, a text");
            let got = kind_name(kind_of(text));
            if got != kind {
                wrong.push(format!("{text}: {got}, not {kind}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn what_something_does_to_the_users_body_is_a_fact_of_them() {
        for fact in [
            "Prawns and mussels give me hives",
            "Cheese gives me a migraine",
            "Dairy makes me bloated",
            "Cats make me wheezy",
            "I get seasick on anything bigger than a dinghy",
            "I get a rash from cheap earrings",
            "I get vertigo on ladders but not in the cab",
        ] {
            assert_eq!(kind_of(fact), Kind::Preference, "{fact}");
        }
        for other in [
            // An errand, one day's news, what something gives the user.
            "Make me a list of the glazes",
            "The fumes gave me a headache on Tuesday",
            "The new wheel gives me more control",
            "I get the results on Friday",
            "I got a headache from the fumes",
        ] {
            assert!(
                !tells_how_the_users_body_reacts(&other.to_lowercase()),
                "{other}"
            );
        }
    }

    #[test]
    fn an_age_in_the_users_life_is_a_fact_of_it() {
        for fact in [
            "I went to sea at seventeen as an engine cadet with P&O",
            "I left school at sixteen",
            "I left school at sixteen to work with my dad",
            "I took up the cello aged 50",
            "I started in care as a sixteen year old volunteer",
            "I went to Lourdes as a ten-year-old",
            "I moved to Leeds when I was eight",
            "I've never eaten meat, not even as a child",
            "I lived in Lagos as a boy",
            "I was a cathedral chorister as a boy",
            "I was in the sea scouts as a teenager",
            // Or by the stage of life a sport or a school calls it.
            "I raced on the track as a junior",
            "I worked behind a bar as a student",
            // Or by a decade of the user's own life.
            "I played minor counties cricket in my twenties",
            "I lived in Paris in my thirties",
            // What someone of the user's did at an age of the user's.
            "My grandad taught me to thatch when I was fourteen",
            "My parents moved to Spain when I was ten",
        ] {
            assert_eq!(kind_of(fact), Kind::Preference, "{fact}");
        }
        // An hour of the clock is a time, not an age.
        for time in [
            "I left at seven",
            "I got the train at twenty past",
            "I got in at twenty to",
            "I went to the party at nineteen minutes to nine",
            // Nor is anyone else's age, nor the user's time "when".
            "I taught a sixteen year old to reverse",
            "I ran it as a five-a-side",
            "I rang when I was ready",
            "I've never seen the hall this full",
            "I taught her as a favour",
            "I was there at seven",
            "I was late as a result",
            // Nor a century's decade, nor the user's own things.
            "I collected records in the twenties style",
            "I kept my thirties dresses in the loft",
            // Nor anyone else's age, nor what they do.
            "My dad retired at sixty",
            "My sister rings when I was about to leave",
        ] {
            assert!(
                !tells_an_age_in_the_users_life(&time.to_lowercase()),
                "{time}"
            );
        }
    }

    #[test]
    fn a_training_is_a_course_not_anything_done() {
        assert!(tells_how_the_user_trained(
            "i did my apprenticeship with my dad's firm"
        ));
        assert!(!tells_how_the_user_trained(
            "i did my first 10k in under an hour"
        ));
        assert!(!tells_how_the_user_trained("i did my tax return"));
        assert!(tells_how_the_user_trained("i served my time in the navy"));
        assert!(!tells_how_the_user_trained("i served my time and moved on"));
        assert!(tells_how_the_user_trained(
            "i did my archives diploma at aberystwyth"
        ));
        assert!(!tells_how_the_user_trained(
            "i did my first training run in the snow"
        ));
        assert!(tells_how_the_user_trained("i was apprenticed to a cooper"));
        assert!(!tells_how_the_user_trained(
            "i apprenticed myself to nobody"
        ));
        assert!(tells_how_the_user_trained(
            "i did an apprenticeship in joinery"
        ));
        assert!(!tells_how_the_user_trained(
            "i did a training run with the club"
        ));
        assert!(!tells_how_the_user_trained("i did a risk assessment"));
        assert!(tells_how_the_user_trained(
            "i wrote my doctorate on the ten hours movement"
        ));
        assert!(!tells_how_the_user_trained("i wrote my speech"));
        assert!(tells_how_the_user_trained("i studied maths at bristol"));
        assert!(tells_how_the_user_trained(
            "i studied civil engineering in leeds"
        ));
        assert!(!tells_how_the_user_trained("i studied the plans at lunch"));
        assert!(!tells_how_the_user_trained(
            "i studied for the exam in the library"
        ));
        // Read at a university, as the British say it.
        assert!(tells_how_the_user_trained("i read history at durham"));
        assert!(!tells_how_the_user_trained(
            "i read the minutes at the meeting"
        ));
        assert!(!tells_how_the_user_trained("i read it at lunch"));
        assert!(!tells_how_the_user_trained("i read history in bed"));
    }

    #[test]
    fn clauses_end_at_a_semicolon_or_a_sentences_end() {
        let split = |t| clauses(t).collect::<Vec<_>>();
        assert_eq!(split("it works! first fuzz"), ["it works!", " first fuzz"]);
        assert_eq!(split("done; next"), ["done", " next"]);
        assert_eq!(split("did it come? yes."), ["did it come?", " yes."]);
        assert_eq!(split("weighs 3.5 kg. e.g.x"), ["weighs 3.5 kg.", " e.g.x"]);
        assert!(split("").is_empty());
    }

    #[test]
    fn the_verb_that_opens_a_task_is_not_what_it_is_about() {
        let task = |text| without_task_opening(text, Kind::Task);
        assert_eq!(task("Book the movers"), "the movers");
        assert_eq!(task("pick up the kids"), "the kids");
        assert_eq!(task("Treat the boards"), "the boards");
        assert_eq!(task("Books to read"), "Books to read");
        assert_eq!(task("Éclair recipe"), "Éclair recipe");
        assert_eq!(
            task("İstanbul: book the flight"),
            "İstanbul: book the flight"
        );
        let event = without_task_opening("Booked the ferry", Kind::Event);
        assert_eq!(event, "Booked the ferry");
    }

    #[test]
    fn the_verb_lexicon_tells_imperatives_pasts_and_passives() {
        for (text, kind) in [
            // Any verb before its object asks, not only listed ones…
            ("Learn the difference between the two calls", Kind::Task),
            ("Measure the dropout width before ordering", Kind::Task),
            // …but not one that states, or another verb's past.
            ("Love the new layout", Kind::Note),
            ("Garden: the new compost bin", Kind::Note),
            ("Will the plumber come on Monday?", Kind::Note),
            ("Can the old tiles stay under the new floor?", Kind::Note),
            ("Saw a great documentary last night", Kind::Event),
            (
                "Found Zofia's baptism record in the parish books",
                Kind::Event,
            ),
            // A name followed by a verb is a subject, not whom to ask.
            (
                "Home Assistant loses the stick after every reboot",
                Kind::Note,
            ),
            ("Email Priya the slides", Kind::Task),
            ("Drove Freya up to Glasgow and moved her in", Kind::Event),
            ("Lay Jack on his back to sleep", Kind::Task),
            // A noun and a verb after a verb's form make the two words a
            // subject, unless the verb takes a clause.
            (
                "Network Rail have moved the Christmas possession to the 27th",
                Kind::Note,
            ),
            ("Water pressure has dropped again", Kind::Note),
            ("Paint samples are in the hall", Kind::Note),
            ("Check Tom has paid the deposit", Kind::Task),
            ("Ensure Jo has the keys", Kind::Task),
            // Irregular pasts the rules never listed, and someone's object.
            ("Bought a second-hand wetsuit for the relay", Kind::Event),
            ("Tested Granny's soda bread recipe", Kind::Event),
            // A past written as its base asks, unless a subject says it.
            ("Cut the hedge back", Kind::Task),
            ("We cut the hedge back", Kind::Event),
            // A passive reports when it is recent; a state after "was" does not.
            ("The timber was delivered this afternoon", Kind::Event),
            (
                "The stolen bike was found by the canal this morning",
                Kind::Event,
            ),
            ("The stolen bike was found by the canal in 2019", Kind::Note),
            ("The tenors were great last night", Kind::Note),
            // A past that is only ever one, on a day named, reports.
            (
                "Stalled twice on the hill start in today's lesson",
                Kind::Event,
            ),
            ("Interested twice in today's talk", Kind::Note),
            // "One of…" is an object like "two of…".
            ("Lost one of the hens to a fox last night", Kind::Event),
            // A past may end its clause.
            (
                "The dial cord snapped while I was re-tensioning it",
                Kind::Event,
            ),
            // A title opens an object; a number in a subject is its name.
            ("Interviewed Mrs Hartley about the mill", Kind::Event),
            ("Episode four went out last week", Kind::Event),
            ("Buy two bags of pellets", Kind::Task),
            ("Need four more chairs for the hall", Kind::Note),
            // A bare object ends at a preposition or "and"; with a verb
            // after it, the two words were a subject.
            ("Pick tiles for the shower wall, something matt", Kind::Task),
            ("Sort photos from the trip and print the best", Kind::Task),
            ("Change requests from the client are piling up", Kind::Note),
            ("Train times for Sunday are on the website", Kind::Note),
            ("Garden party on Saturday", Kind::Note),
            // A past written as its base tells, with a time behind it.
            ("Cut the hedge back yesterday", Kind::Event),
            ("Read the whole contract last night", Kind::Event),
            ("Put the bins out on Tuesday", Kind::Task),
            // …or a clause joined to it in a past that is only ever one.
            (
                "Read the speech to Mia and she laughed at every joke",
                Kind::Event,
            ),
            ("Cut the hedge then cleared the leaves", Kind::Event),
            ("Read the contract and sign it", Kind::Task),
            // A part of a group is a subject too, and a past may be
            // followed by what it was about or when.
            ("Two of the guppies died overnight", Kind::Event),
            ("Most of the seedlings survived the frost", Kind::Event),
            (
                "A recruiter from Hays called about a contract role",
                Kind::Event,
            ),
            ("One of the hens is broody", Kind::Note),
        ] {
            assert_eq!(kind_of(text), kind, "{text}");
        }
    }

    #[test]
    fn a_task_opened_by_a_past_written_as_its_base_is_in_doubt() {
        let doubt = |text: &str| doubtful_kind(text, kind_of(text));
        assert_eq!(
            kind_of("Beat a 1600 in the club league on Tuesday"),
            Kind::Task
        );
        assert!(
            doubt("Beat a 1600 in the club league on Tuesday")
                .is_some_and(|why| why.contains("\"beat\""))
        );
        assert!(doubt("Cut the hedge back on Saturday").is_some());
        assert!(doubt("Put the bins out on Tuesday").is_some());
        // An open checkbox already says it is a task.
        assert_eq!(kind_of("- [ ] Put the bins out"), Kind::Task);
        assert_eq!(doubt("- [ ] Put the bins out"), None);
        // Another verb, a task opened otherwise, or another kind: no doubt.
        assert_eq!(doubt("Treat the boards before winter"), None);
        assert_eq!(doubt("Remember to cut the hedge"), None);
        assert_eq!(doubt("We cut the hedge back"), None);
    }

    #[test]
    fn a_denied_event_word_is_no_event() {
        assert_eq!(kind_of("We haven't decided on the venue"), Kind::Note);
        assert_eq!(kind_of("The budget was not approved"), Kind::Note);
        assert_eq!(kind_of("We decided on the venue"), Kind::Event);
    }

    #[test]
    fn names_match_at_word_boundaries() {
        assert!(contains_words("notes on atlas today", "atlas"));
        assert!(!contains_words("the atlases", "atlas"));
        assert!(contains_words("home renovation: tiles", "home renovation"));
    }
}
