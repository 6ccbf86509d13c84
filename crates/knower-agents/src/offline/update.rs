//! The offline engine's update: route by the documented rules, file the
//! text, or put it in the inbox with the scores as reasoning; and read the
//! user's answer to an inbox item.

use crate::agents::Agents;
use crate::error::{Error, Result};
use crate::inbox::{self, INBOX, InboxItem};
use crate::offline::{self, Answered, Rules};
use crate::payload::Payload;
use crate::recovery::author_of;
use crate::report::OFFLINE;
use crate::report::{Outcome, UpdateReport};
use crate::router::{Decision, Facts, Router};
use knower_vault::Batch;

impl Agents {
    pub(crate) fn offline_update(&self, id: &str, payload: &Payload) -> Result<UpdateReport> {
        let facts = Facts::gather(&self.vault, &self.index, &payload.text)?;
        let decision = Rules.route(&facts, payload)?;
        let report = self.report(id, Outcome::Filed);
        self.file_decided("agent:offline", id, report, &decision, payload)
    }

    /// Records `decision` in `report` and files the update by it, as
    /// `actor`: the offline rules' decisions and a grounded model's.
    pub(crate) fn file_decided(
        &self,
        actor: &str,
        id: &str,
        mut report: UpdateReport,
        decision: &Decision,
        payload: &Payload,
    ) -> Result<UpdateReport> {
        report.decided(decision);
        // The journal says why in a sentence; the rules and scores behind
        // it stay in the update's report.
        let why = crate::report::conclusion(&decision.reasoning).0;
        let author = author_of(actor, id, why);
        // One change for the whole update (the note or the inbox item, the
        // attachments, the changelog line), so one undo takes it back.
        let (filed, _) = self.vault.batch(&author, |batch| {
            Ok(self.offline_file(batch, report, decision, payload))
        })?;
        filed
    }

    /// Files `payload` where `decision` says (or puts it in the inbox),
    /// with its attachments and its changelog line: the offline rules'
    /// filing, and a grounded model's once it has chosen the place.
    pub(crate) fn offline_file(
        &self,
        batch: &mut Batch,
        mut report: UpdateReport,
        decision: &Decision,
        payload: &Payload,
    ) -> Result<UpdateReport> {
        match &decision.destination {
            Some(destination) => {
                let kind = decision
                    .kind
                    .unwrap_or_else(|| offline::kind_of(&payload.text));
                report.changed = self.file(batch, destination, kind, payload)?;
                let how = match decision.confidence {
                    Some(confidence) => format!("{}, confidence {confidence:.2}", report.engine),
                    None => report.engine.clone(),
                };
                report.summary = format!(
                    "filed “{}” in {} ({how})",
                    payload.headline(60),
                    report
                        .changed
                        .first()
                        .map(String::as_str)
                        .unwrap_or(destination),
                );
            }
            None => {
                let inbox_id = inbox::create(
                    batch,
                    payload,
                    &decision.reasoning,
                    &decision.choices,
                    &report.engine,
                    &self.today(),
                )?;
                if report.outcome != Outcome::Failed {
                    report.outcome = Outcome::Inbox;
                }
                report.summary = format!(
                    "“{}” waits in {INBOX}/{inbox_id}/ for your answer ({})",
                    payload.headline(60),
                    report.engine
                );
                report.changed = vec![format!("{INBOX}/{inbox_id}")];
                report.inbox_id = Some(inbox_id);
            }
        }
        self.log_to_changelog(batch, &report)?;
        Ok(report)
    }

    pub(crate) fn offline_answer(
        &self,
        id: &str,
        payload: &Payload,
        item: InboxItem,
    ) -> Result<UpdateReport> {
        let kind = offline::kind_of(&item.text);
        let answered = offline::read_answer(&self.vault, &payload.text, &item.options, kind)?
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "the {OFFLINE} could not read “{}” as an answer to {}: reply with an option \
                     number (1–{}), a project name (`project NAME` starts a new one), a path, \
                     `bucket`, `profile`, `tasks` or `discard`; the item is unchanged",
                    payload.headline(40),
                    item.id,
                    item.options.len() + 1
                ))
            })?;
        let author = author_of(
            "agent:offline",
            id,
            &format!(
                "answer to inbox item {}: “{}”",
                item.id,
                payload.headline(60)
            ),
        );
        let original = match &answered {
            Answered::File(_) => Some(item.payload(&self.vault)?),
            Answered::Discard => None,
        };
        let report = self.report(id, Outcome::Resolved);
        let (resolved, _) = self.vault.batch(&author, |batch| {
            Ok(self.settle(batch, report, item, answered, original, kind))
        })?;
        resolved
    }

    /// Files (or drops) an answered inbox item and removes it, as one change.
    pub(crate) fn settle(
        &self,
        batch: &mut Batch,
        mut report: UpdateReport,
        item: InboxItem,
        answered: Answered,
        original: Option<Payload>,
        kind: offline::Kind,
    ) -> Result<UpdateReport> {
        match answered {
            Answered::Discard => {
                report.outcome = Outcome::Discarded;
                report.summary = format!("dropped inbox item {} at your word", item.id);
            }
            Answered::File(destination) => {
                let original = original.expect("read for a destination");
                let started = start_project(batch, &destination, &original, &self.today())?;
                report.changed = self.file(batch, &destination, kind, &original)?;
                report.changed.extend(started);
                report.summary = format!(
                    "filed inbox item {} in {} as you answered",
                    item.id,
                    report
                        .changed
                        .first()
                        .map(String::as_str)
                        .unwrap_or(&destination)
                );
            }
        }
        batch.delete(&item.folder)?;
        report.changed.push(item.folder.clone());
        report.inbox_id = Some(item.id);
        self.log_to_changelog(batch, &report)?;
        Ok(report)
    }
}

/// When an answer files into a project that does not exist yet, the
/// project starts with its `description.md`, written from the answer (its
/// name) and the note that started it, for the person to complete: routing
/// and the agents read a project's description first.
fn start_project(
    batch: &mut Batch,
    destination: &str,
    first: &Payload,
    day: &str,
) -> Result<Option<String>> {
    let Some(name) = destination
        .strip_prefix("projects/")
        .and_then(|rest| rest.split_once('/'))
        .map(|(name, _)| name)
    else {
        return Ok(None);
    };
    let description = format!("projects/{name}/description.md");
    if batch.exists(&format!("projects/{name}"))? {
        return Ok(None);
    }
    let title = crate::text::capitalised(&name.replace(['-', '_'], " "));
    batch.write(
        &description,
        &format!(
            "# {title}\n\nStarted from the inbox on {day}, with this note:\n\n> {}\n\nSay here what the project is about: its goal, its people, its words.\n",
            crate::text::bounded_line(&first.text, 300)
        ),
    )?;
    Ok(Some(description))
}
