//! The update agent with a model: it files the update with the write
//! tools and ends with a final answer (`filed` or `inbox`), which is
//! checked against what its tools did.

use std::cell::RefCell;

use base64::Engine as _;
use knower_llm::chat::{Binary, ChatMessage, ContentPart};
use knower_llm::{Llm, parse_json_reply};
use knower_vault::Position;
use serde::Deserialize;

use crate::agents::Agents;
use crate::error::Result;
use crate::filing::free_path;
use crate::inbox::{self, Choice, INBOX, InboxItem};
use crate::llm::run::{self, Bounds, Expect, Run, Stop};
use crate::payload::{Attachment, Payload};
use crate::recovery::author_of;
use crate::report::{Outcome, UpdateReport};
use crate::router::{Decision, Facts, Router};
use crate::tools::{ReadTools, WriteTools};

/// The update agent's final answer.
#[derive(Deserialize)]
struct Final {
    outcome: String,
    #[serde(default)]
    summary: String,
    #[serde(default)]
    reasoning: String,
    #[serde(default)]
    options: Vec<String>,
}

impl Agents {
    /// The bounds of an update agent's run.
    fn bounds(&self) -> Bounds {
        Bounds {
            max_steps: self.settings.max_steps,
            max_tokens: self.settings.max_tokens,
        }
    }

    pub(crate) fn llm_update(
        &self,
        llm: &Llm,
        id: &str,
        payload: &Payload,
        item: Option<InboxItem>,
    ) -> Result<UpdateReport> {
        let author = author_of("agent", id, "attachments of the update");
        // Attachments are stored before the run, so that nothing that arrived
        // depends on the model; the agent moves them where they belong.
        let mut original = payload.clone();
        if let Some(item) = &item {
            original = item.payload(&self.vault)?;
        }
        let (stored, _) = self.vault.batch(&author, |batch| {
            let mut stored = Vec::new();
            for attachment in &original.attachments {
                let name = format!("{}-{}", self.today(), attachment.name);
                let path = free_path(batch, "bucket/attachments", &name, &attachment.bytes)?;
                batch.write_bytes(&path, &attachment.bytes)?;
                stored.push((path, attachment));
            }
            Ok(stored)
        })?;
        let router = ModelRouter {
            agents: self,
            llm,
            id,
            item: item.as_ref(),
            original: &original,
            stored: &stored,
            run: RefCell::new(Run::default()),
            summary: RefCell::new(String::new()),
        };
        // The model reads the vault itself with its read tools: it is
        // given no gathered facts.
        let decision = router.route(&Facts::default(), payload)?;
        let (run, summary) = (router.run.into_inner(), router.summary.into_inner());
        let bounds = self.bounds();

        let mut report = self.report(id, Outcome::Filed);
        report.engine = llm.label();
        report.steps = run.steps;
        report.usage = Some(run.usage);
        report.stopped = run.stopped;
        report.tool_calls = run.calls.clone();
        report.changed = stored.iter().map(|(p, _)| p.clone()).collect();
        for path in &decision.written {
            if !report.changed.contains(path) {
                report.changed.push(path.clone());
            }
        }
        let tokens = format!(
            "{}, {} model calls, {} tokens",
            llm.label(),
            run.steps,
            run.usage.total()
        );
        report.decided(&decision);
        match decision.rule {
            FILED => {
                report.summary = format!("{summary} ({tokens})");
                if let Some(item) = item {
                    let author = author_of(
                        "agent",
                        id,
                        &format!("inbox item {} answered and filed", item.id),
                    );
                    self.vault.delete(&item.folder, &author)?;
                    report.changed.push(item.folder);
                    report.outcome = Outcome::Resolved;
                    report.inbox_id = Some(item.id);
                }
            }
            ASKED => {
                self.to_inbox(
                    &mut report,
                    &original,
                    &stored,
                    &decision.reasoning,
                    &decision.choices,
                    item,
                )?;
                report.summary = format!("{} ({tokens})", report.summary);
            }
            _ => {
                let why = match (&run.stopped, &run.error) {
                    (Some(Stop::Steps), _) => format!(
                        "the agent stopped at its bound of {} model calls",
                        bounds.max_steps
                    ),
                    (Some(Stop::Tokens), _) => format!(
                        "the agent stopped at its bound of {} tokens",
                        bounds.max_tokens
                    ),
                    (None, Some(e)) => format!("the agent failed: {e}"),
                    (None, None) => "the agent gave no final answer".to_string(),
                };
                report.outcome = Outcome::Failed;
                report.error = Some(why.clone());
                if run.changed.is_empty() && item.is_none() {
                    // Nothing was filed: the update waits in the inbox, not lost.
                    let reasoning = format!("Knower could not file this update: {why}.");
                    self.to_inbox(&mut report, &original, &stored, &reasoning, &[], None)?;
                    report.outcome = Outcome::Failed;
                } else {
                    report.summary = format!(
                        "update “{}” stopped: {why}; changed {} ({tokens})",
                        payload.headline(40),
                        if run.changed.is_empty() {
                            "nothing".to_string()
                        } else {
                            run.changed.join(", ")
                        }
                    );
                }
            }
        }
        let author = author_of("agent", id, &report.summary);
        let (logged, _) = self
            .vault
            .batch(&author, |batch| Ok(self.log_to_changelog(batch, &report)))?;
        logged?;
        Ok(report)
    }

    /// Puts an update the agent could not file in the inbox (or, when it
    /// answered an inbox item, adds the new reasoning to that item).
    fn to_inbox(
        &self,
        report: &mut UpdateReport,
        original: &Payload,
        stored: &[(String, &Attachment)],
        reasoning: &str,
        choices: &[Choice],
        item: Option<InboxItem>,
    ) -> Result<()> {
        let author = author_of("agent", &report.id, reasoning);
        report.outcome = Outcome::Inbox;
        let inbox_id = match item {
            Some(item) => {
                let note = format!(
                    "## Still not filed ({})\n\nYour answer did not settle it: {}\n",
                    self.today(),
                    reasoning.trim()
                );
                self.vault.append(
                    &format!("{}/review.md", item.folder),
                    &note,
                    Position::Bottom,
                    &author,
                )?;
                item.id
            }
            None => {
                let (created, _) = self.vault.batch(&author, |batch| {
                    Ok(inbox::create(
                        batch,
                        original,
                        reasoning,
                        choices,
                        &report.engine,
                        &self.today(),
                    ))
                })?;
                let id = created?;
                report.changed.push(format!("{INBOX}/{id}"));
                id
            }
        };
        // The attachments now live in the item.
        for (path, _) in stored {
            self.vault.delete(path, &author)?;
            report.changed.retain(|p| p != path);
        }
        report.summary = format!(
            "“{}” waits in {INBOX}/{inbox_id}/ for your answer",
            original.headline(60)
        );
        report.inbox_id = Some(inbox_id);
        Ok(())
    }
}

/// The rule of a decision the model filed itself.
const FILED: &str = "model";
/// The rule of a decision the model left to the user, with its options.
const ASKED: &str = "model-asks";
/// The rule of a run that ended without a valid final answer.
const FAILED: &str = "model-failed";

/// The update agent as a [`Router`]: it files with its write tools as it
/// decides, and its final answer, checked against what its tools did, is
/// its decision (`written` holds what it changed).
struct ModelRouter<'a> {
    agents: &'a Agents,
    llm: &'a Llm,
    id: &'a str,
    /// The inbox item the update answers, if it does.
    item: Option<&'a InboxItem>,
    /// The update to file: the item's original when it answers one.
    original: &'a Payload,
    /// The attachments, already stored in the vault.
    stored: &'a [(String, &'a Attachment)],
    /// The run's record, for the report.
    run: RefCell<Run>,
    /// The final answer's summary, when it filed.
    summary: RefCell<String>,
}

impl Router for ModelRouter<'_> {
    fn route(&self, _facts: &Facts, update: &Payload) -> Result<Decision> {
        let agents = self.agents;
        let mut message = format!("Update {}, received {}.\n\n", self.id, agents.now_text());
        if let Some(item) = self.item {
            message.push_str(&format!(
                "This is the user's answer to inbox item `{}`. The item's review.md:\n\n{}\n\n\
                 The original update:\n\n{}\n\nThe user's answer:\n\n{}\n\n\
                 File the original update as the answer says.",
                item.id, item.review, self.original.text, update.text
            ));
        } else {
            message.push_str(&update.text);
        }
        if !self.stored.is_empty() {
            message.push_str("\n\nAttached files, already stored in the vault:\n");
            for (path, _) in self.stored {
                message.push_str(&format!("- {path}\n"));
            }
        }
        let mut parts = vec![ContentPart::from_text(message)];
        for (_, attachment) in self.stored {
            if let Some(media) = attachment.image_type() {
                let data = base64::engine::general_purpose::STANDARD.encode(&attachment.bytes);
                parts.push(Binary::from_base64(media, data, Some(attachment.name.clone())).into());
            }
        }
        let system = agents.system_prompt("update");
        let mut tools = WriteTools::new(
            ReadTools::new(agents.vault.clone(), agents.index.clone()),
            "agent",
            self.id,
        );
        let check = |text: &str, changed: &[String]| check_final(text, changed);
        let expect = Expect {
            check: &check,
            advice: "Return only the JSON object, with no other text.",
        };
        let run = run::run(
            self.llm,
            system,
            ChatMessage::user(parts),
            &mut tools,
            agents.bounds(),
            expect,
        );
        let final_answer = run
            .final_text
            .as_deref()
            .and_then(|t| parse_json_reply::<Final>(t).ok());
        let decision = match final_answer {
            Some(f) if f.outcome == "filed" => {
                *self.summary.borrow_mut() = f.summary.trim().to_string();
                Decision {
                    destination: run.changed.first().cloned(),
                    project: run.changed.iter().find_map(|p| project_of(p)),
                    reasoning: f.reasoning,
                    written: run.changed.clone(),
                    ..Decision::by(FILED)
                }
            }
            Some(f) => Decision {
                choices: f
                    .options
                    .iter()
                    .map(|o| Choice {
                        destination: o.clone(),
                        why: "considered by the agent".into(),
                    })
                    .collect(),
                reasoning: f.reasoning,
                ..Decision::by(ASKED)
            },
            None => Decision {
                written: run.changed.clone(),
                ..Decision::by(FAILED)
            },
        };
        *self.run.borrow_mut() = run;
        Ok(decision)
    }
}

/// The project a path of the vault is in, if any.
fn project_of(path: &str) -> Option<String> {
    let mut parts = path.splitn(3, '/');
    match (parts.next(), parts.next(), parts.next()) {
        (Some("projects"), Some(project), Some(_)) => Some(project.to_string()),
        _ => None,
    }
}

fn check_final(text: &str, changed: &[String]) -> Result<(), String> {
    let problem = match parse_json_reply::<Final>(text) {
        Err(e) => e,
        Ok(f) => match f.outcome.as_str() {
            "filed" if changed.is_empty() => "the outcome is \"filed\" but no file was changed; file it with the tools, or answer \"inbox\"".into(),
            "filed" if f.summary.trim().is_empty() => "\"summary\" is empty".into(),
            "filed" => return Ok(()),
            "inbox" if !changed.is_empty() => format!("the outcome is \"inbox\" but files were changed ({}); an update goes to the inbox untouched", changed.join(", ")),
            "inbox" if f.reasoning.trim().is_empty() => "an \"inbox\" outcome needs your full \"reasoning\"".into(),
            "inbox" if f.options.is_empty() => "an \"inbox\" outcome needs the \"options\" you considered".into(),
            "inbox" => return Ok(()),
            other => format!("\"outcome\" must be \"filed\" or \"inbox\", not {other:?}"),
        },
    };
    Err(problem)
}
