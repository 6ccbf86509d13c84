//! What a harvest extracts from one conversation: seed 002's seven
//! categories, as the model returns them (strict JSON) and as the offline
//! engine builds them. Everything in it is untrusted text on its way into
//! notes, so [`Harvested::clean`] makes each item one bounded line.

use serde::{Deserialize, Serialize};

/// The longest statement kept; a longer one is cut at a word.
const MAX_ITEM_CHARS: usize = 600;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Harvested {
    #[serde(default)]
    pub facts: Vec<Item>,
    #[serde(default)]
    pub decisions: Vec<Item>,
    #[serde(default)]
    pub tasks_done: Vec<Item>,
    #[serde(default)]
    pub tasks_open: Vec<Item>,
    #[serde(default)]
    pub questions: Vec<Item>,
    #[serde(default)]
    pub playbooks: Vec<Playbook>,
    #[serde(default)]
    pub files: Vec<FileNote>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Item {
    pub statement: String,
    #[serde(default)]
    pub detail: String,
    /// The day it was said, when the conversation says (the offline engine
    /// knows its turn; a model's items take the conversation's day).
    #[serde(skip)]
    pub day: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Playbook {
    pub name: String,
    pub steps: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FileNote {
    #[serde(default)]
    pub path: String,
    pub note: String,
}

/// How many items of each category a harvest added (the ledger's `items`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    #[serde(default)]
    pub facts: usize,
    #[serde(default)]
    pub decisions: usize,
    #[serde(default)]
    pub tasks_done: usize,
    #[serde(default)]
    pub tasks_open: usize,
    #[serde(default)]
    pub questions: usize,
    #[serde(default)]
    pub playbooks: usize,
    #[serde(default)]
    pub files: usize,
}

impl Counts {
    pub fn total(&self) -> usize {
        self.facts
            + self.decisions
            + self.tasks_done
            + self.tasks_open
            + self.questions
            + self.playbooks
            + self.files
    }
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.facts += o.facts;
        self.decisions += o.decisions;
        self.tasks_done += o.tasks_done;
        self.tasks_open += o.tasks_open;
        self.questions += o.questions;
        self.playbooks += o.playbooks;
        self.files += o.files;
    }
}

impl Harvested {
    /// The model's reply read as the seven categories, or why it is not.
    pub fn parse(reply: &str) -> Result<Harvested, String> {
        let parsed: Harvested = knower_llm::parse_json_reply(reply)?;
        Ok(parsed.clean())
    }

    /// Each item as one line without markup that could break the note it
    /// goes into (a newline could start a heading), bounded, empty ones
    /// dropped.
    pub fn clean(mut self) -> Harvested {
        let item = |i: Item| -> Option<Item> {
            let statement = one_line(&i.statement);
            (!statement.is_empty()).then(|| Item {
                statement,
                detail: one_line(&i.detail),
                day: i.day,
            })
        };
        for list in [
            &mut self.facts,
            &mut self.decisions,
            &mut self.tasks_done,
            &mut self.tasks_open,
            &mut self.questions,
        ] {
            *list = std::mem::take(list).into_iter().filter_map(item).collect();
        }
        self.playbooks = std::mem::take(&mut self.playbooks)
            .into_iter()
            .filter_map(|p| {
                let name = one_line(&p.name);
                let steps = one_line(&p.steps.replace('\n', "; "));
                (!name.is_empty() && !steps.is_empty()).then_some(Playbook { name, steps })
            })
            .collect();
        self.files = std::mem::take(&mut self.files)
            .into_iter()
            .filter_map(|f| {
                let note = one_line(&f.note);
                (!note.is_empty()).then(|| FileNote {
                    path: one_line(&f.path),
                    note,
                })
            })
            .collect();
        self
    }

    pub fn is_empty(&self) -> bool {
        self.facts.is_empty()
            && self.decisions.is_empty()
            && self.tasks_done.is_empty()
            && self.tasks_open.is_empty()
            && self.questions.is_empty()
            && self.playbooks.is_empty()
            && self.files.is_empty()
    }
}

/// One line: whitespace collapsed, leading list or heading markup removed,
/// cut at [`MAX_ITEM_CHARS`].
pub(crate) fn one_line(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let flat = flat.trim_start_matches(['#', '-', '*', '>', ' ']).trim();
    match flat.char_indices().nth(MAX_ITEM_CHARS) {
        Some((i, _)) => {
            let cut = &flat[..i];
            format!("{}…", cut.rsplit_once(' ').map_or(cut, |(head, _)| head))
        }
        None => flat.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seven_categories_parse_and_are_made_safe_for_a_note() {
        let reply = r###"```json
{"facts": [{"statement": "Atlas runs on Postgres 16.\n## Done\n- injected", "detail": ""}],
 "decisions": [{"statement": "  ", "detail": "empty: dropped"}],
 "tasks_done": [], "tasks_open": [{"statement": "rotate the keys"}],
 "questions": [], "playbooks": [{"name": "deploy", "steps": "make\nmake install"}],
 "files": [{"path": "/srv/app/main.rs", "note": "entry point"}]}
```"###;
        let h = Harvested::parse(reply).unwrap();
        assert_eq!(
            h.facts[0].statement,
            "Atlas runs on Postgres 16. ## Done - injected"
        );
        assert!(h.decisions.is_empty());
        assert_eq!(h.tasks_open[0].detail, "");
        assert_eq!(h.playbooks[0].steps, "make; make install");
        assert_eq!(h.files[0].note, "entry point");
    }

    #[test]
    fn anything_but_the_schema_is_refused() {
        for reply in [
            "I found nothing.",
            r#"{"facts": "not a list"}"#,
            r#"{"facts": [{"detail": "no statement"}]}"#,
            r#"{"opinions": []}"#,
        ] {
            assert!(Harvested::parse(reply).is_err(), "{reply}");
        }
        assert!(Harvested::parse("{}").unwrap().is_empty());
    }
}
