//! [`Agents`]: the update agent and the search agent of a vault, run by an
//! LLM when one is configured and by the offline engine otherwise.

use std::sync::Arc;

use base64::Engine as _;
use knower_index::{Index, Mode};
use knower_llm::chat::{Binary, ChatMessage, ContentPart};
use knower_llm::{Llm, LlmConfig, Usage, parse_json_reply};
use knower_vault::{Author, Position, Vault, VaultPath};
use serde::{Deserialize, Serialize};

use crate::context;
use crate::error::{Error, Result};
use crate::inbox::{self, Choice, INBOX, InboxItem};
use crate::llm_run::{self, Bounds, CallRecord, Stop};
use crate::offline::{self, Answered, Kind};
use crate::payload::{Attachment, Payload};
use crate::prompts::{self, Prompt};
use crate::recovery::{CHANGELOG, author_of};
use crate::settings::Settings;
use crate::text::{one_line, slug};
use crate::tools::{ReadTools, WriteTools};

/// How the offline engine names itself in every output.
pub const OFFLINE: &str = "offline engine";
const CONFIG_FILE: &str = "knower.toml";

pub enum Engine {
    Offline,
    Llm(Arc<Llm>),
}

pub struct Agents {
    vault: Arc<Vault>,
    index: Arc<Index>,
    engine: Engine,
    settings: Settings,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Filed in the vault.
    Filed,
    /// Waiting in the inbox for the user.
    Inbox,
    /// An inbox item was answered and filed.
    Resolved,
    /// An inbox item was dropped at the user's word.
    Discarded,
    /// The run stopped (a bound, the model unreachable, invalid output).
    /// What it wrote is kept and listed; an update that wrote nothing is
    /// kept in the inbox.
    Failed,
}

/// What an update did.
#[derive(Clone, Debug, Serialize)]
pub struct UpdateReport {
    pub id: String,
    pub engine: String,
    pub outcome: Outcome,
    pub summary: String,
    /// Paths written, moved or deleted (the global changelog not included).
    pub changed: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inbox_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Model calls (0 for the offline engine).
    pub steps: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stop>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<CallRecord>,
}

/// A cited passage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Source {
    pub path: String,
    pub line_start: usize,
    pub line_end: usize,
}

/// The search agent's answer.
#[derive(Clone, Debug, Serialize)]
pub struct Answer {
    pub engine: String,
    pub markdown: String,
    pub sources: Vec<Source>,
    /// False when the vault holds nothing that answers.
    pub found: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

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
    /// The agents of a vault, with the engine `knower.toml` and the
    /// environment configure.
    pub fn open(vault: Arc<Vault>, index: Arc<Index>) -> Result<Agents> {
        let toml = match vault.read(CONFIG_FILE) {
            Ok(text) => text,
            Err(knower_vault::Error::NotFound { .. }) => String::new(),
            Err(e) => return Err(e.into()),
        };
        let settings = Settings::parse(&toml)?;
        let engine = match LlmConfig::load(&toml)? {
            Some(config) => Engine::Llm(Arc::new(Llm::new(config)?)),
            None => Engine::Offline,
        };
        Ok(Agents::new(vault, index, engine, settings))
    }

    pub fn new(vault: Arc<Vault>, index: Arc<Index>, engine: Engine, settings: Settings) -> Agents {
        Agents {
            vault,
            index,
            engine,
            settings,
        }
    }

    /// `offline engine`, or the model as `provider:model`.
    pub fn engine_label(&self) -> String {
        match &self.engine {
            Engine::Offline => OFFLINE.into(),
            Engine::Llm(llm) => llm.label(),
        }
    }

    pub fn prompts(&self) -> Vec<Prompt> {
        prompts::all(&self.vault)
    }

    pub fn inbox(&self) -> Result<Vec<InboxItem>> {
        inbox::list(&self.vault)
    }

    pub fn inbox_item(&self, id: &str) -> Result<InboxItem> {
        inbox::load(&self.vault, id)
    }

    /// Files an update (or, with `inbox_ref`, applies the user's answer to
    /// an inbox item).
    pub async fn update(&self, payload: Payload) -> Result<UpdateReport> {
        payload.check()?;
        let id = payload.id.clone().unwrap_or_else(new_update_id);
        let item = match &payload.inbox_ref {
            Some(reference) => Some(inbox::load(&self.vault, reference)?),
            None => None,
        };
        match &self.engine {
            Engine::Offline => match item {
                Some(item) => self.offline_answer(&id, &payload, item),
                None => self.offline_update(&id, &payload),
            },
            Engine::Llm(llm) => self.llm_update(llm, &id, &payload, item).await,
        }
    }

    /// Answers a question from the vault.
    pub async fn ask(&self, question: &str, mode: Mode) -> Result<Answer> {
        self.ask_within(question, mode, None).await
    }

    /// Answers a question from one part of the vault: `project:NAME` or a
    /// folder (or file).
    pub async fn ask_within(
        &self,
        question: &str,
        mode: Mode,
        scope: Option<&str>,
    ) -> Result<Answer> {
        if question.trim().is_empty() {
            return Err(Error::Invalid("the question is empty".into()));
        }
        match &self.engine {
            Engine::Offline => offline::answer(&self.index, question, mode, scope),
            Engine::Llm(llm) => {
                let question = match scope {
                    Some(scope) => format!(
                        "{question}\n\n(Answer from `{scope}` only: pass it as the search tool's `scope`.)"
                    ),
                    None => question.to_string(),
                };
                self.llm_ask(llm, &question).await
            }
        }
    }

    // ---- the offline engine ---------------------------------------------

    fn offline_update(&self, id: &str, payload: &Payload) -> Result<UpdateReport> {
        let decision = offline::route(&self.vault, &self.index, &payload.text)?;
        let mut report = self.report(id, Outcome::Filed);
        report.confidence = Some(decision.confidence);
        report.reasoning = Some(decision.reasoning.clone());
        let author = author_of("agent:offline", id, &decision.reasoning);
        match &decision.destination {
            Some(destination) => {
                report.changed = self.file(destination, decision.kind, payload, &author)?;
                report.summary = format!(
                    "filed “{}” in {} ({OFFLINE}, confidence {:.2})",
                    payload.headline(60),
                    report
                        .changed
                        .first()
                        .map(String::as_str)
                        .unwrap_or(destination),
                    decision.confidence
                );
            }
            None => {
                let inbox_id = inbox::create(
                    &self.vault,
                    &author,
                    payload,
                    &decision.reasoning,
                    &decision.choices,
                    OFFLINE,
                    &today(),
                )?;
                report.outcome = Outcome::Inbox;
                report.summary = format!(
                    "“{}” waits in {INBOX}/{inbox_id}/ for your answer ({OFFLINE})",
                    payload.headline(60)
                );
                report.changed = vec![format!("{INBOX}/{inbox_id}")];
                report.inbox_id = Some(inbox_id);
            }
        }
        self.log_to_changelog(&report, &author)?;
        Ok(report)
    }

    fn offline_answer(&self, id: &str, payload: &Payload, item: InboxItem) -> Result<UpdateReport> {
        let kind = offline::kind_of(&item.text);
        let answered = offline::read_answer(&self.vault, &payload.text, &item.options, kind)?
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "the {OFFLINE} could not read “{}” as an answer to {}: reply with an option \
                     number (1–{}), a project name, a path, `bucket`, `profile`, `tasks` or \
                     `discard`; the item is unchanged",
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
        let mut report = self.report(id, Outcome::Resolved);
        match answered {
            Answered::Discard => {
                report.outcome = Outcome::Discarded;
                report.summary = format!("dropped inbox item {} at your word", item.id);
            }
            Answered::File(destination) => {
                let original = item.payload(&self.vault)?;
                report.changed = self.file(&destination, kind, &original, &author)?;
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
        self.vault.delete(&item.folder, &author)?;
        report.changed.push(item.folder.clone());
        report.inbox_id = Some(item.id);
        self.log_to_changelog(&report, &author)?;
        Ok(report)
    }

    /// Writes an update into `destination` as a block suited to its kind;
    /// attachments go to an `attachments/` folder beside the note.
    fn file(
        &self,
        destination: &str,
        kind: Kind,
        payload: &Payload,
        author: &Author,
    ) -> Result<Vec<String>> {
        let day = today();
        let destination = if destination.ends_with('/') {
            // A folder: a new note of its own.
            let slug = slug(&payload.headline(40));
            format!(
                "{destination}{day}-{}.md",
                if slug.is_empty() { "note" } else { &slug }
            )
        } else {
            destination.to_string()
        };
        let note = VaultPath::parse(&destination)?;
        let folder = note.parent().filter(|p| !p.is_root());
        let store = match &folder {
            Some(folder) => format!("{folder}/attachments"),
            None => "bucket/attachments".to_string(),
        };
        let mut changed = vec![destination.clone()];
        let mut links = Vec::new();
        for attachment in &payload.attachments {
            let path = self.free_path(&store, &attachment.name, &attachment.bytes);
            self.vault.write_bytes(&path, &attachment.bytes, author)?;
            let relative = match &folder {
                Some(folder) => path[folder.as_str().len() + 1..].to_string(),
                None => path.clone(),
            };
            links.push(attachment.link(&relative));
            changed.push(path);
        }
        let text = payload.text.trim();
        let links = links.join(" ");
        let new_note = self.vault.read_bytes(&destination).is_err();
        let (block, position) =
            if new_note && !destination.ends_with("tasks.md") && kind != Kind::Event {
                (
                    format!("# {}\n\n{text}\n\n{links}\n", payload.headline(60)),
                    Position::Bottom,
                )
            } else {
                match kind {
                    Kind::Task => (task_item(text, &links), Position::Bottom),
                    Kind::Event => (
                        format!("- {day}: {} {links}\n", one_line(text)),
                        Position::Top,
                    ),
                    Kind::Preference => (
                        format!("- {} {links} _(noted {day})_\n", one_line(text)),
                        Position::Bottom,
                    ),
                    Kind::Note => (format!("## {day}\n\n{text}\n\n{links}\n"), Position::Bottom),
                }
            };
        let block = match (new_note, note.name()) {
            (true, "tasks.md") => format!("# Tasks\n\n{block}"),
            (true, "changelog.md") => format!("# Changelog\n\n{block}"),
            _ => block,
        };
        self.vault.append(&destination, &block, position, author)?;
        Ok(changed)
    }

    // ---- with an LLM ----------------------------------------------------

    async fn llm_update(
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
        let mut stored = Vec::new();
        for attachment in &original.attachments {
            let name = format!("{}-{}", today(), attachment.name);
            let path = self.free_path("bucket/attachments", &name, &attachment.bytes);
            self.vault.write_bytes(&path, &attachment.bytes, &author)?;
            stored.push((path, attachment));
        }
        let mut message = format!("Update {id}, received {}.\n\n", now());
        if let Some(item) = &item {
            message.push_str(&format!(
                "This is the user's answer to inbox item `{}`. The item's review.md:\n\n{}\n\n\
                 The original update:\n\n{}\n\nThe user's answer:\n\n{}\n\n\
                 File the original update as the answer says.",
                item.id, item.review, original.text, payload.text
            ));
        } else {
            message.push_str(&payload.text);
        }
        if !stored.is_empty() {
            message.push_str("\n\nAttached files, already stored in the vault:\n");
            for (path, _) in &stored {
                message.push_str(&format!("- {path}\n"));
            }
        }
        let mut parts = vec![ContentPart::from_text(message)];
        for (_, attachment) in &stored {
            if let Some(media) = attachment.image_type() {
                let data = base64::engine::general_purpose::STANDARD.encode(&attachment.bytes);
                parts.push(Binary::from_base64(media, data, Some(attachment.name.clone())).into());
            }
        }
        let system = self.system_prompt("update");
        let mut tools = WriteTools::new(
            ReadTools::new(self.vault.clone(), self.index.clone()),
            "agent",
            id,
        );
        let bounds = Bounds {
            max_steps: self.settings.max_steps,
            max_tokens: self.settings.max_tokens,
        };
        let check = |text: &str, changed: &[String]| check_final(text, changed);
        let run = llm_run::run(
            llm,
            system,
            ChatMessage::user(parts),
            &mut tools,
            bounds,
            &check,
        )
        .await;

        let mut report = self.report(id, Outcome::Filed);
        report.engine = llm.label();
        report.steps = run.steps;
        report.usage = Some(run.usage);
        report.stopped = run.stopped;
        report.tool_calls = run.calls.clone();
        report.changed = stored.iter().map(|(p, _)| p.clone()).collect();
        for path in &run.changed {
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
        let final_answer = run
            .final_text
            .as_deref()
            .and_then(|t| parse_json_reply::<Final>(t).ok());
        match final_answer {
            Some(f) if f.outcome == "filed" => {
                report.summary = format!("{} ({tokens})", f.summary.trim());
                report.reasoning = Some(f.reasoning).filter(|r| !r.is_empty());
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
            Some(f) => {
                let choices: Vec<Choice> = f
                    .options
                    .iter()
                    .map(|o| Choice {
                        destination: o.clone(),
                        why: "considered by the agent".into(),
                    })
                    .collect();
                self.to_inbox(
                    &mut report,
                    &original,
                    &stored,
                    &f.reasoning,
                    &choices,
                    item,
                )?;
                report.summary = format!("{} ({tokens})", report.summary);
                report.reasoning = Some(f.reasoning);
            }
            None => {
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
        self.log_to_changelog(&report, &author)?;
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
                    today(),
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
                let id = inbox::create(
                    &self.vault,
                    &author,
                    original,
                    reasoning,
                    choices,
                    &report.engine,
                    &today(),
                )?;
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

    async fn llm_ask(&self, llm: &Llm, question: &str) -> Result<Answer> {
        let system = self.system_prompt("search");
        let mut tools = ReadTools::new(self.vault.clone(), self.index.clone());
        let bounds = Bounds {
            max_steps: self.settings.max_search_steps,
            max_tokens: self.settings.max_tokens,
        };
        let vault = self.vault.clone();
        let check = move |text: &str, _: &[String]| check_citations(&vault, text).map(|_| ());
        let run = llm_run::run(
            llm,
            system,
            ChatMessage::user(question),
            &mut tools,
            bounds,
            &check,
        )
        .await;
        let markdown = match (run.final_text, run.error, run.stopped) {
            (Some(text), _, _) => text,
            (None, Some(e), _) => return Err(e.into()),
            (None, None, stop) => {
                return Err(Error::Invalid(format!(
                    "the search agent stopped at its {} bound before answering",
                    if stop == Some(Stop::Tokens) {
                        "token"
                    } else {
                        "step"
                    }
                )));
            }
        };
        let sources = check_citations(&self.vault, &markdown).unwrap_or_default();
        Ok(Answer {
            engine: llm.label(),
            found: !sources.is_empty(),
            markdown,
            sources,
            usage: Some(run.usage),
        })
    }

    fn system_prompt(&self, name: &str) -> String {
        let prompt = prompts::get(&self.vault, name);
        format!(
            "{}\n\n# The vault\n\nToday is {}.\n\n{}",
            prompt.text,
            today(),
            context::startup(&self.vault)
        )
    }

    // ---- shared ---------------------------------------------------------

    /// `folder/name`, or `folder/name-2.ext`… when another file already
    /// holds that name: an attachment never replaces a different one.
    fn free_path(&self, folder: &str, name: &str, bytes: &[u8]) -> String {
        let (stem, ext) = match name.rsplit_once('.') {
            Some((stem, ext)) if !stem.is_empty() => (stem, format!(".{ext}")),
            _ => (name, String::new()),
        };
        let mut path = format!("{folder}/{name}");
        let mut n = 2;
        while let Ok(existing) = self.vault.read_bytes(&path) {
            if existing == bytes {
                break;
            }
            path = format!("{folder}/{stem}-{n}{ext}");
            n += 1;
        }
        path
    }

    fn report(&self, id: &str, outcome: Outcome) -> UpdateReport {
        UpdateReport {
            id: id.to_string(),
            engine: self.engine_label(),
            outcome,
            summary: String::new(),
            changed: vec![],
            inbox_id: None,
            confidence: None,
            reasoning: None,
            steps: 0,
            usage: None,
            stopped: None,
            error: None,
            tool_calls: vec![],
        }
    }

    /// The one global changelog entry of an update.
    fn log_to_changelog(&self, report: &UpdateReport, author: &Author) -> Result<()> {
        let entry = format!(
            "- {}: {} [{}]\n",
            today(),
            one_line(&report.summary),
            report.id
        );
        self.vault
            .append(CHANGELOG, &entry, Position::Top, author)?;
        Ok(())
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
    Err(knower_llm::corrective_message(&problem))
}

/// The `path:line` and `path:first-last` citations of an answer, each
/// checked against the vault; an error names those that do not exist.
fn check_citations(vault: &Vault, text: &str) -> Result<Vec<Source>, String> {
    let mut sources = Vec::new();
    let mut bad = Vec::new();
    for (at, _) in text.match_indices(".md:") {
        let start = text[..at]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_alphanumeric() || matches!(c, '/' | '.' | '-' | '_'))
            .last()
            .map(|(i, _)| i)
            .unwrap_or(at);
        let path = &text[start..at + 3];
        if path == ".md" {
            continue;
        }
        let rest = &text[at + 4..];
        let digits = |s: &str| {
            s.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
        };
        let first = digits(rest);
        let Ok(line_start) = first.parse::<usize>() else {
            continue;
        };
        let after = &rest[first.len()..];
        let line_end = after
            .strip_prefix('-')
            .or_else(|| after.strip_prefix('–'))
            .and_then(|s| digits(s).parse::<usize>().ok())
            .unwrap_or(line_start);
        let lines = vault.read(path).map(|t| t.lines().count());
        match lines {
            Ok(n) if line_start >= 1 && line_start <= n.max(1) && line_end >= line_start => {
                let source = Source {
                    path: path.to_string(),
                    line_start,
                    line_end: line_end.min(n.max(1)),
                };
                if !sources.contains(&source) {
                    sources.push(source);
                }
            }
            _ => bad.push(format!("{path}:{first}")),
        }
    }
    if bad.is_empty() {
        Ok(sources)
    } else {
        Err(format!(
            "Your answer cites {}, which the vault does not have (no such file, or no such line). \
             Cite only files and lines you found with the tools, then answer again.",
            bad.join(", ")
        ))
    }
}

fn task_item(text: &str, links: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default().trim();
    let lower = first.to_lowercase();
    let mut first = first;
    for marker in ["- [ ]", "* [ ]", "[ ]", "todo:", "todo", "task:", "to do:"] {
        if lower.starts_with(marker) {
            first = first[marker.len()..].trim_start_matches([':', ' ']);
            break;
        }
    }
    let mut out = format!("- [ ] {first}");
    if !links.is_empty() {
        out.push_str(&format!(" {links}"));
    }
    out.push('\n');
    for line in lines.filter(|l| !l.trim().is_empty()) {
        out.push_str(&format!("  {}\n", line.trim()));
    }
    out
}

fn today() -> String {
    jiff::Zoned::now().strftime("%Y-%m-%d").to_string()
}

fn now() -> String {
    jiff::Zoned::now().strftime("%Y-%m-%d %H:%M").to_string()
}

/// `update-20261122-140312-3fa9`: sortable, and unique enough for one person.
fn new_update_id() -> String {
    let now = jiff::Zoned::now();
    let nanos = now.timestamp().subsec_nanosecond() as u32;
    let mix = nanos ^ std::process::id().rotate_left(16);
    format!(
        "update-{}-{:04x}",
        now.strftime("%Y%m%d-%H%M%S"),
        mix & 0xffff
    )
}
