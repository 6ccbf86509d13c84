//! What an exchange concluded, by stated rules on the user's message, in
//! this order:
//!
//! 1. A message that settles something ("decided", "let's go with", "we'll
//!    go with", "settled on", "done") resolves the open effort it is about:
//!    the one it shares the most words with. When it shares none, or as
//!    many with two of them, it is ambiguous and resolves nothing: the
//!    reply asks which (a wrong resolution hides a question that is still
//!    open). With a single open effort, that one.
//! 2. A question opens an effort when it asks what to do — a modal of
//!    deliberation ("should we", "can I"), "do we…"/"do I…", or a choice
//!    between two things ("…or…") — unless the memory already holds it: an
//!    effort, open or resolved, or a fact that says as much. A question
//!    about what was said ("what did we decide", "who is bringing the
//!    cake?") asks the memory; it opens nothing.
//! 3. A statement (no question in it) that names something — a capital
//!    letter on a word that is not an everyday one — or holds a number
//!    becomes a fact.
//!
//! Anything else concludes nothing.

use crate::artifact::{Artifact, Kind, Status};
use crate::interpret::{Action, Interpretation};
use crate::store::{self, overlap};

const SETTLES: [&str; 7] = [
    "decided",
    "let's go with",
    "lets go with",
    "we'll go with",
    "i'll go with",
    "settled on",
    "done",
];

/// The modal verbs that ask what to do.
const DELIBERATES: [&str; 9] = [
    "should", "shall", "could", "can", "must", "ought", "might", "need", "may",
];

/// A question this alike an artifact's summary is already in the memory.
const HELD: f64 = 0.6;

/// How the rules read a message.
#[derive(Clone, Debug, PartialEq)]
pub enum Reading {
    /// It settles the open effort with this id.
    Settles(String),
    /// It settles something, but which open effort is not clear: these.
    SettlesOneOf(Vec<String>),
    /// A question for the memory; `opens` when it opens an effort too.
    Asks { opens: bool },
    /// A statement worth keeping as a fact.
    States,
    /// Nothing to conclude.
    Nothing,
}

/// How the rules read `user`, given every artifact the chat holds.
pub fn read(user: &str, artifacts: &[Artifact]) -> Reading {
    let text = user.trim();
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    let open = store::open_efforts(artifacts);
    let settles = SETTLES.iter().any(|s| match s.contains(' ') {
        true => lower.contains(s),
        false => words.contains(s),
    });
    if settles && !open.is_empty() {
        return settled(text, &open);
    }
    if is_question(text, &words) {
        let asks_what_to_do = words.iter().any(|w| DELIBERATES.contains(w))
            || words
                .windows(2)
                .any(|p| p[0] == "do" && matches!(p[1], "we" | "i"))
            || words.contains(&"or");
        let held = artifacts
            .iter()
            .filter(|a| a.status != Status::Archived)
            .any(|a| overlap(&a.summary, text) >= HELD);
        return Reading::Asks {
            opens: asks_what_to_do && !held && words.len() >= 3,
        };
    }
    if is_fact(text) {
        return Reading::States;
    }
    Reading::Nothing
}

/// What `user` concluded, as actions on the artifacts.
pub fn interpret(user: &str, artifacts: &[Artifact]) -> Interpretation {
    let text = user.trim();
    let action = match read(text, artifacts) {
        Reading::Settles(effort) => Action::Resolve {
            effort,
            resolution: text.to_string(),
        },
        Reading::Asks { opens: true } => Action::Create {
            kind: Kind::Effort,
            summary: text.to_string(),
            tags: vec![],
            expires: false,
        },
        Reading::States => Action::Create {
            kind: Kind::Fact,
            summary: text.to_string(),
            tags: vec![],
            expires: false,
        },
        Reading::Asks { opens: false } | Reading::SettlesOneOf(_) | Reading::Nothing => {
            return Interpretation::default();
        }
    };
    Interpretation {
        actions: vec![action],
    }
}

/// The open effort `text` settles, or the ones it might.
fn settled(text: &str, open: &[Artifact]) -> Reading {
    if let [only] = open {
        return Reading::Settles(only.id.clone());
    }
    let mut scored: Vec<(f64, &Artifact)> = open
        .iter()
        .map(|e| (overlap(&e.summary, text), e))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let best = scored[0].0;
    if best > 0.0 && scored[1].0 < best {
        return Reading::Settles(scored[0].1.id.clone());
    }
    // No word in common, or a tie: the ones it might settle.
    Reading::SettlesOneOf(
        scored
            .iter()
            .filter(|(score, _)| *score == best)
            .map(|(_, e)| e.id.clone())
            .collect(),
    )
}

/// A question mark, or an opening that only a question has ("what did we
/// decide about the wiki").
fn is_question(text: &str, words: &[&str]) -> bool {
    text.contains('?')
        || words.first().is_some_and(|w| {
            matches!(
                *w,
                "what" | "who" | "whom" | "whose" | "when" | "where" | "why" | "which" | "how"
            )
        }) && words
            .get(1)
            .is_some_and(|w| !matches!(*w, "a" | "an" | "the"))
}

fn is_fact(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() < 4 || text.contains('?') {
        return false;
    }
    let number = text.chars().any(|c| c.is_ascii_digit());
    number || words.iter().enumerate().any(|(i, w)| names_something(i, w))
}

/// Whether the `i`th word, as written, is a name: capitalised, not "I";
/// the first word only when it is not an everyday one ("Maria is bringing
/// the cake", not "The hall is booked").
fn names_something(i: usize, word: &str) -> bool {
    let word = word.trim_matches(|c: char| !c.is_alphanumeric());
    let capital = word.chars().next().is_some_and(char::is_uppercase);
    if !capital || word == "I" || word.starts_with("I'") {
        return false;
    }
    i > 0 || !knower_agents::is_everyday_word(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn artifact(id: &str, kind: Kind, status: Status, summary: &str) -> Artifact {
        Artifact {
            id: id.into(),
            kind,
            status,
            summary: summary.into(),
            resolution: None,
            tags: vec![],
            created: String::new(),
            last_referenced: String::new(),
            ref_count: 0,
            expires: false,
            exchange: String::new(),
            resolved_by: None,
            links: vec![],
        }
    }

    fn effort(id: &str, summary: &str) -> Artifact {
        artifact(id, Kind::Effort, Status::Open, summary)
    }

    #[test]
    fn the_rules_open_resolve_and_remember() {
        let open = vec![
            effort("e00000001", "Which database should the geocoder use?"),
            effort("e00000002", "Where should we go in April?"),
        ];
        let settled = interpret("We decided the geocoder database is Postgres 16.", &open);
        assert_eq!(
            settled.actions,
            vec![Action::Resolve {
                effort: "e00000001".into(),
                resolution: "We decided the geocoder database is Postgres 16.".into()
            }]
        );
        let asked = interpret("Should I rent a car in Kyoto?", &open);
        assert!(matches!(
            &asked.actions[0],
            Action::Create {
                kind: Kind::Effort,
                ..
            }
        ));
        let again = interpret("Which database should the geocoder use?", &open);
        assert!(again.actions.is_empty(), "never a second effort");
        let fact = interpret("My sister Ana moved to Lisbon in 2024.", &[]);
        assert!(matches!(
            &fact.actions[0],
            Action::Create {
                kind: Kind::Fact,
                ..
            }
        ));
        assert!(interpret("ok thanks", &open).actions.is_empty());
    }

    #[test]
    fn a_question_about_what_was_said_opens_nothing() {
        let memory = vec![
            artifact(
                "e00000001",
                Kind::Effort,
                Status::Resolved,
                "Should we host the wiki on Netlify or our own server?",
            ),
            effort("e00000002", "How many guests should we invite?"),
        ];
        for question in [
            "What did we decide about the wiki?",
            "Who is bringing the cake?",
            "What is still open?",
            "Whom are we inviting as guests?",
            "what did we decide about the wiki",
        ] {
            assert_eq!(
                read(question, &memory),
                Reading::Asks { opens: false },
                "{question}"
            );
        }
        assert_eq!(
            read("Do we hire a van or a removal firm?", &memory),
            Reading::Asks { opens: true }
        );
    }

    #[test]
    fn a_settling_message_that_could_be_about_either_effort_asks_which() {
        let open = vec![
            effort("e00000001", "Which hotel should we book in Kyoto?"),
            effort("e00000002", "Should we rent bikes?"),
        ];
        assert_eq!(
            read("Let's go with the second one.", &open),
            // Most recently referenced first, as the open efforts are listed.
            Reading::SettlesOneOf(vec!["e00000002".into(), "e00000001".into()])
        );
        assert_eq!(
            read("Decided: bikes, not the bus.", &open),
            Reading::Settles("e00000002".into())
        );
        assert_eq!(
            read("Done.", &open[..1]),
            Reading::Settles("e00000001".into()),
            "one open effort is the one"
        );
    }

    #[test]
    fn a_statement_with_a_question_in_it_is_not_a_fact() {
        assert_eq!(
            read("How many guests? The hall seats 40.", &[]),
            Reading::Asks { opens: false }
        );
        assert_eq!(read("Maria is bringing the cake.", &[]), Reading::States);
        assert_eq!(
            read("The village hall seats 40 people.", &[]),
            Reading::States
        );
        assert_eq!(read("The hall is nice and warm.", &[]), Reading::Nothing);
    }
}
