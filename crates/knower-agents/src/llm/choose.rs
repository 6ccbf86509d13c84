//! A grounded model files an update (see `Settings::grounded`): Knower
//! gathers the places it may go (each project's file for the text's kind,
//! the offline rules' candidates, the profile, the tasks, the bucket) and
//! the model chooses one, or the inbox, in one structured reply whose
//! schema admits only those places. Knower then files it as the offline
//! engine files its own decisions: the model writes nothing itself.

use std::cell::Cell;

use knower_llm::chat::{ChatMessage, ChatRequest};
use knower_llm::{Llm, LlmError, Usage};
use serde::Deserialize;
use serde_json::json;

use crate::agents::Agents;
use crate::error::{Error, Result};
use crate::inbox::InboxItem;
use crate::offline::{self, Answered, Rules, kind::project_file};
use crate::payload::Payload;
use crate::prompts;
use crate::recovery::author_of;
use crate::report::{Outcome, UpdateReport};
use crate::router::{Decision, Facts, Router};

/// The place that leaves the update to the user.
const INBOX_PLACE: &str = "inbox";
/// The place that drops an inbox item (only when the user's answer says so).
const DISCARD_PLACE: &str = "discard";
/// The output cap of a choice: a place and a sentence need far fewer.
const PLACE_MAX_TOKENS: u32 = 200;
/// The rule of a grounded model's decision.
const CHOSEN: &str = "model";

/// The model's reply.
#[derive(Deserialize)]
struct Chosen {
    #[serde(default)]
    reasoning: String,
    place: String,
}

/// A grounded model as a [`Router`]: it chooses among the places the
/// facts and the offline rules offer.
pub(crate) struct ChoiceRouter<'a> {
    pub agents: &'a Agents,
    pub llm: &'a Llm,
    /// The inbox item the update answers, if it does: its options are
    /// places too, and the user's answer is what the model reads.
    pub item: Option<(&'a InboxItem, &'a Payload)>,
    pub usage: Cell<Usage>,
}

impl Router for ChoiceRouter<'_> {
    fn route(&self, facts: &Facts, update: &Payload) -> Result<Decision> {
        let original = self.item.map(|(_, original)| original).unwrap_or(update);
        let rules = Rules.route(facts, original)?;
        let kind = rules
            .kind
            .unwrap_or_else(|| offline::kind_of(&original.text));
        let places = places(facts, &rules, self.item.map(|(item, _)| item), kind);
        let listed: String = places
            .iter()
            .map(|(place, what)| format!("- `{place}`: {what}\n"))
            .collect();
        let message = match self.item {
            None => format!("The note:\n\n{}\n\nThe places:\n\n{listed}", update.text),
            Some((item, original)) => format!(
                "A note waited in inbox item {}, and the user answered where it goes.\n\n\
                 The note:\n\n{}\n\nThe user's answer:\n\n{}\n\nThe places:\n\n{listed}\n\
                 Choose the place the answer means (`{DISCARD_PLACE}` if it says to drop the \
                 note, `{INBOX_PLACE}` if it does not say).",
                item.id, original.text, update.text
            ),
        };
        let system = format!(
            "{}\n\nToday is {}.",
            prompts::get(&self.agents.vault, "place").text,
            self.agents.today()
        );
        let names: Vec<&str> = places.iter().map(|(p, _)| p.as_str()).collect();
        let schema = json!({
            "type": "object",
            // The place first: a small model that loops inside its
            // reasoning is stopped by the cap with its choice made.
            "properties": {
                "place": {"type": "string", "enum": names},
                "reasoning": {"type": "string", "description": "Why, in one sentence."}
            },
            "required": ["place", "reasoning"],
            "additionalProperties": false
        });
        let request = ChatRequest::from_system(system).append_message(ChatMessage::user(message));
        let validate = |c: &Chosen| {
            if names.contains(&c.place.as_str()) {
                Ok(())
            } else {
                Err(format!("{:?} is not one of the places listed", c.place))
            }
        };
        let (chosen, usage) = knower_llm::structured_as::<Chosen>(
            self.llm,
            request,
            "place",
            schema,
            Some(PLACE_MAX_TOKENS),
            validate,
        )?;
        self.usage.set(usage);
        let reasoning = match chosen.reasoning.trim() {
            "" => "The model gave no reason.".to_string(),
            why => why.to_string(),
        };
        let destination = match chosen.place.as_str() {
            INBOX_PLACE => None,
            place => Some(place.to_string()),
        };
        Ok(Decision {
            project: destination.as_deref().and_then(project_of),
            destination,
            kind: Some(kind),
            confidence: None,
            reasoning,
            choices: rules.choices,
            ..Decision::by(CHOSEN)
        })
    }
}

/// The places an update may go, each with what it is, the likeliest
/// first; the inbox last.
fn places(
    facts: &Facts,
    rules: &Decision,
    item: Option<&InboxItem>,
    kind: offline::Kind,
) -> Vec<(String, String)> {
    let mut places: Vec<(String, String)> = Vec::new();
    let mut add = |place: String, what: String| {
        if !places.iter().any(|(p, _)| *p == place) {
            places.push((place, what));
        }
    };
    if let Some(item) = item {
        for option in &item.options {
            add(option.clone(), "an option the inbox offered".into());
        }
    }
    if let Some(destination) = &rules.destination {
        add(
            destination.clone(),
            "where the offline rules would file it".into(),
        );
    }
    for choice in &rules.choices {
        add(
            choice.destination.clone(),
            crate::text::bounded_line(&choice.why, 120),
        );
    }
    for project in &facts.projects {
        let about = facts
            .note(&format!("projects/{}/description.md", project.name))
            .map(first_words)
            .unwrap_or_default();
        add(
            project_file(&project.name, kind),
            format!("project {}: {about}", project.name),
        );
    }
    add(
        "profile.md".into(),
        "facts about the user themselves".into(),
    );
    add(
        "tasks.md".into(),
        "the user's own tasks outside projects".into(),
    );
    add(
        "bucket/".into(),
        "a note of its own, for anything else".into(),
    );
    if item.is_some() {
        add(DISCARD_PLACE.into(), "drop the note".into());
    }
    add(INBOX_PLACE.into(), "ask the user".into());
    places
}

/// The first lines of a description's body, as one short line.
fn first_words(text: &str) -> String {
    let body = knower_vault::frontmatter::split(text)
        .map(|s| s.body)
        .unwrap_or(text);
    let lines: Vec<&str> = body
        .lines()
        .map(|l| l.trim_start_matches('#').trim())
        .filter(|l| !l.is_empty())
        .take(3)
        .collect();
    crate::text::bounded_line(&lines.join(" — "), 160)
}

/// The project a path of the vault is in, if any.
pub(crate) fn project_of(path: &str) -> Option<String> {
    let mut parts = path.splitn(3, '/');
    match (parts.next(), parts.next(), parts.next()) {
        (Some("projects"), Some(project), Some(_)) => Some(project.to_string()),
        _ => None,
    }
}

impl Agents {
    /// Files an update with a grounded model's choice of place. A model
    /// that cannot be reached or whose reply stays invalid leaves the
    /// update in the inbox, `failed`, with the offline rules' options.
    pub(crate) fn grounded_update(
        &self,
        llm: &Llm,
        id: &str,
        payload: &Payload,
    ) -> Result<UpdateReport> {
        let facts = Facts::gather(&self.vault, &self.index, &payload.text)?;
        let router = ChoiceRouter {
            agents: self,
            llm,
            item: None,
            usage: Cell::new(Usage::default()),
        };
        let mut report = self.report(id, Outcome::Filed);
        let decision = match router.route(&facts, payload) {
            Ok(decision) => decision,
            Err(Error::Llm(e)) => {
                let why = failure(&e);
                report.outcome = Outcome::Failed;
                report.error = Some(why.clone());
                let rules = Rules.route(&facts, payload)?;
                Decision {
                    reasoning: format!("Knower could not file this update: {why}."),
                    choices: rules.choices,
                    kind: rules.kind,
                    ..Decision::by("model-failed")
                }
            }
            Err(e) => return Err(e),
        };
        report.usage = Some(router.usage.get());
        report.steps = router.usage.get().calls as usize;
        self.file_decided("agent", id, report, &decision, payload)
    }

    /// Applies the user's answer to an inbox item as a grounded model
    /// reads it. An answer the model cannot place adds its reasoning to
    /// the item, which stays.
    pub(crate) fn grounded_answer(
        &self,
        llm: &Llm,
        id: &str,
        payload: &Payload,
        item: InboxItem,
    ) -> Result<UpdateReport> {
        let original = item.payload(&self.vault)?;
        let facts = Facts::gather(&self.vault, &self.index, &original.text)?;
        let router = ChoiceRouter {
            agents: self,
            llm,
            item: Some((&item, &original)),
            usage: Cell::new(Usage::default()),
        };
        let decision = match router.route(&facts, payload) {
            Ok(decision) => decision,
            Err(Error::Llm(e)) => {
                return Err(Error::Invalid(format!(
                    "{}; inbox item {} is unchanged",
                    failure(&e),
                    item.id
                )));
            }
            Err(e) => return Err(e),
        };
        let kind = decision
            .kind
            .unwrap_or_else(|| offline::kind_of(&original.text));
        let answered = match decision.destination.as_deref() {
            None => {
                let note = format!(
                    "## Still not filed ({})\n\nYour answer “{}” did not settle it: {}\n",
                    self.today(),
                    payload.headline(60),
                    decision.reasoning.trim()
                );
                let author = author_of("agent", id, &decision.reasoning);
                self.vault.append(
                    &format!("{}/review.md", item.folder),
                    &note,
                    knower_vault::Position::Bottom,
                    &author,
                )?;
                let mut report = self.report(id, Outcome::Inbox);
                report.decided(&decision);
                report.usage = Some(router.usage.get());
                report.summary = format!(
                    "your answer did not settle inbox item {}; it waits with the model's reasoning",
                    item.id
                );
                report.inbox_id = Some(item.id);
                return Ok(report);
            }
            Some(DISCARD_PLACE) => Answered::Discard,
            Some(place) => Answered::File(place.to_string()),
        };
        let mut report = self.report(id, Outcome::Resolved);
        report.decided(&decision);
        report.usage = Some(router.usage.get());
        let author = author_of(
            "agent",
            id,
            &format!(
                "answer to inbox item {}: “{}”",
                item.id,
                payload.headline(60)
            ),
        );
        let original = matches!(answered, Answered::File(_)).then_some(original);
        let (resolved, _) = self.vault.batch(&author, |batch| {
            Ok(self.settle(batch, report, item, answered, original, kind))
        })?;
        resolved
    }
}

/// A model's failure in the user's words.
fn failure(error: &LlmError) -> String {
    match error {
        LlmError::InvalidOutput { detail, .. } => {
            format!("the model's reply stayed invalid after a retry ({detail})")
        }
        other => format!("the model failed: {other}"),
    }
}
