//! The offline engine's chat: the answer is the search agent's extractive
//! answer (it says so), and each exchange is interpreted by stated rules,
//! in this order, on the user's message:
//!
//! 1. A message that settles something — "decided", "let's go with",
//!    "we'll go with", "settled on", "done" — resolves the open effort whose
//!    summary it shares the most words with (the most recent one when it
//!    shares none), the message as its resolution.
//! 2. A question (it ends with `?`) opens an effort, the question as its
//!    summary — unless an open effort already asks it.
//! 3. A statement that names something (a capitalised word after its first)
//!    and holds a number or a date becomes a fact.
//!
//! Anything else concludes nothing.

use crate::artifact::{Artifact, Kind};
use crate::interpret::{Action, Interpretation};
use crate::store::overlap;

const SETTLES: [&str; 7] = [
    "decided",
    "let's go with",
    "lets go with",
    "we'll go with",
    "i'll go with",
    "settled on",
    "done",
];

pub fn interpret(user: &str, open: &[Artifact]) -> Interpretation {
    let text = user.trim();
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    let settles = SETTLES.iter().any(|s| {
        if s.contains(' ') {
            lower.contains(s)
        } else {
            words.contains(s)
        }
    });
    if settles && !open.is_empty() {
        let best = open
            .iter()
            .map(|e| (overlap(&e.summary, text), e))
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(score, e)| if score > 0.0 { e } else { &open[0] })
            .expect("open efforts");
        return Interpretation {
            actions: vec![Action::Resolve {
                effort: best.id.clone(),
                resolution: text.to_string(),
            }],
        };
    }
    if text.ends_with('?') && text.split_whitespace().count() >= 3 {
        if open.iter().any(|e| overlap(&e.summary, text) >= 0.6) {
            return Interpretation::default();
        }
        return Interpretation {
            actions: vec![Action::Create {
                kind: Kind::Effort,
                summary: text.to_string(),
                tags: vec![],
                expires: false,
            }],
        };
    }
    if is_fact(text) {
        return Interpretation {
            actions: vec![Action::Create {
                kind: Kind::Fact,
                summary: text.to_string(),
                tags: vec![],
                expires: false,
            }],
        };
    }
    Interpretation::default()
}

fn is_fact(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() < 4 || text.ends_with('?') {
        return false;
    }
    let number = text.chars().any(|c| c.is_ascii_digit());
    let named = words.iter().skip(1).any(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        w.chars().next().is_some_and(char::is_uppercase) && w != "I"
    });
    number && named
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Status;

    fn effort(id: &str, summary: &str) -> Artifact {
        Artifact {
            id: id.into(),
            kind: Kind::Effort,
            status: Status::Open,
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

    #[test]
    fn the_rules_open_resolve_and_remember() {
        let open = vec![
            effort("e00000001", "Which database should the geocoder use?"),
            effort("e00000002", "Where do we go in April?"),
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
}
