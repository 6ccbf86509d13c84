//! `knower chat`: a session with the chat, through the service. On a
//! terminal a real REPL (rustyline: line editing, history); otherwise one
//! message a line from standard input. Each reply is printed as it
//! arrives; Ctrl-C stops the reply, not the session.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use knower_chat::{Artifact, Change, Kind, Status};
use knower_service::{ChatOutcome, Service};
use rustyline::error::ReadlineError;

use crate::context::{Context, block_on};
use crate::output::{Failure, Outcome, failure};

pub fn chat(ctx: &Context, message: String, resume: bool, session: Option<String>) -> Outcome {
    let service = Arc::new(ctx.service()?);
    let session = match (session, resume) {
        (Some(id), _) => id,
        (None, true) => service.chat_last_session().ok_or_else(|| {
            failure(
                "there is no session to resume",
                Some("start one with `knower chat`"),
            )
        })?,
        (None, false) => knower_chat::log::new_session(),
    };
    let interrupted = Arc::new(AtomicBool::new(false));
    let mut session = Session {
        ctx,
        service,
        id: session,
        interrupted,
    };
    if !message.trim().is_empty() {
        session.catch_ctrl_c()?;
        return session.say(&message);
    }
    if std::io::stdin().is_terminal() && !ctx.json {
        session.repl()
    } else {
        session.catch_ctrl_c()?;
        session.piped(std::io::stdin().lock())
    }
}

struct Session<'a> {
    ctx: &'a Context,
    service: Arc<Service>,
    id: String,
    interrupted: Arc<AtomicBool>,
}

impl Session<'_> {
    /// Ctrl-C while a reply streams sets the flag instead of ending Knower.
    /// (Registered after the line editor is made, which installs a handler
    /// of its own; at the prompt the editor has the terminal and reads
    /// Ctrl-C as a key.)
    fn catch_ctrl_c(&self) -> Result<(), Failure> {
        signal_hook::flag::register(signal_hook::consts::SIGINT, self.interrupted.clone())
            .map(|_| ())
            .map_err(|e| failure(format!("cannot handle Ctrl-C: {e}"), None))
    }

    fn repl(&mut self) -> Outcome {
        let mut editor = rustyline::DefaultEditor::new()
            .map_err(|e| failure(format!("cannot start the line editor: {e}"), None))?;
        self.catch_ctrl_c()?;
        let history = history_file(self.service.root());
        let _ = editor.load_history(&history);
        let history_len = self.service.chat_history(&self.id, 5).len();
        println!(
            "Knower chat ({}) · session {}{} · /help for commands, Ctrl-D to leave",
            self.service.engine_label(),
            self.id,
            if history_len > 0 {
                format!(" ({history_len} exchanges so far)")
            } else {
                String::new()
            }
        );
        loop {
            match editor.readline("you> ") {
                Ok(line) => {
                    let line = line.trim();
                    if line.is_empty() {
                        continue;
                    }
                    let _ = editor.add_history_entry(line);
                    let outcome = if line.starts_with('/') {
                        match self.command(line) {
                            Ok(true) => Ok(()),
                            Ok(false) => break,
                            Err(e) => Err(e),
                        }
                    } else {
                        self.say(line)
                    };
                    if let Err(e) = outcome {
                        crate::output::report(&e, false);
                    }
                }
                Err(ReadlineError::Interrupted) => {
                    println!("(Ctrl-D or /quit leaves)");
                }
                Err(ReadlineError::Eof) => break,
                Err(e) => return Err(failure(format!("reading the terminal: {e}"), None)),
            }
        }
        if let Some(parent) = history.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let _ = editor.save_history(&history);
        println!(
            "session {} saved; `knower chat --resume` continues it",
            self.id
        );
        Ok(())
    }

    /// One message a line from a pipe or a file, until its end or `/quit`.
    /// A line that is not UTF-8, or that fails, costs that line, not the
    /// ones after it: it is named on stderr, the rest are said, and the run
    /// fails at the end so a script sees that something it sent was not.
    fn piped(&mut self, mut input: impl BufRead) -> Outcome {
        let mut skipped = 0;
        let mut failed = 0;
        let mut n = 0;
        while let Some(read) = bounded_line(&mut input, knower_agents::MAX_TEXT_BYTES)
            .map_err(|e| failure(format!("reading standard input: {e}"), None))?
        {
            n += 1;
            let bytes = match read {
                Some(bytes) => bytes,
                None => {
                    eprintln!(
                        "warning: standard input line {n}: skipped, longer than a message may be ({} MiB at most)",
                        knower_agents::MAX_TEXT_BYTES >> 20
                    );
                    skipped += 1;
                    continue;
                }
            };
            let line = match std::str::from_utf8(bytes.strip_suffix(b"\r").unwrap_or(&bytes)) {
                Ok(line) => line.trim(),
                Err(e) => {
                    eprintln!(
                        "warning: standard input line {n}: skipped, not UTF-8 text (first invalid byte at column {})",
                        e.valid_up_to() + 1
                    );
                    skipped += 1;
                    continue;
                }
            };
            if line.is_empty() {
                continue;
            }
            // A line that fails (`/forget` of an unknown id, a message the
            // model could not answer) is reported and costs that line, as
            // an unreadable one does.
            let leave = if line.starts_with('/') {
                self.command(line).map(|go_on| !go_on)
            } else {
                self.say(line).map(|()| false)
            };
            match leave {
                Ok(true) => break,
                Ok(false) => {}
                Err(e) => {
                    eprint!("standard input line {n}: ");
                    crate::output::report(&e, self.ctx.json);
                    failed += 1;
                }
            }
        }
        let mut problems = Vec::new();
        let lines = |n: usize| match n {
            1 => "1 line".to_string(),
            n => format!("{n} lines"),
        };
        if skipped > 0 {
            problems.push(format!(
                "{} of standard input {} not said: not UTF-8 text, or too long",
                lines(skipped),
                if skipped == 1 { "was" } else { "were" }
            ));
        }
        if failed > 0 {
            problems.push(format!("{} failed", lines(failed)));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(failure(
                problems.join("; "),
                Some("the warnings and errors above name them"),
            ))
        }
    }

    /// One exchange: the reply printed as it streams, then what it did.
    fn say(&mut self, message: &str) -> Outcome {
        self.interrupted.store(false, Ordering::Relaxed);
        let json = self.ctx.json;
        let terminal = std::io::stdout().is_terminal();
        if !json && terminal {
            print!("knower> ");
            let _ = std::io::stdout().flush();
        }
        let outcome = block_on(self.service.chat_exchange(
            self.id.clone(),
            message.to_string(),
            self.interrupted.clone(),
            move |piece| {
                if !json {
                    print!("{piece}");
                    let _ = std::io::stdout().flush();
                }
            },
        ));
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(e) => {
                if !json {
                    println!();
                }
                return Err(Failure::from(e));
            }
        };
        if json {
            println!(
                "{}",
                serde_json::to_string(&outcome).map_err(|e| failure(e.to_string(), None))?
            );
            return Ok(());
        }
        println!();
        show(&outcome);
        Ok(())
    }

    /// A `/command`; false to leave.
    fn command(&mut self, line: &str) -> Result<bool, Failure> {
        let mut words = line.split_whitespace();
        let name = words.next().unwrap_or("");
        let rest: Vec<&str> = words.collect();
        let service = &self.service;
        let list = |kinds: &[Kind], statuses: &[Status]| {
            let (all, problems) = service.chat_artifacts();
            let mut shown: Vec<&Artifact> = all
                .iter()
                .filter(|a| kinds.contains(&a.kind) && statuses.contains(&a.status))
                .collect();
            shown.sort_by(|a, b| b.last_referenced.cmp(&a.last_referenced));
            if shown.is_empty() {
                println!("  (none)");
            }
            for a in shown {
                println!("  {}", a.line());
            }
            for p in problems {
                eprintln!("warning: {p}");
            }
        };
        match name {
            "/quit" | "/exit" => return Ok(false),
            "/help" => println!(
                "  /efforts          open efforts (/efforts all: resolved ones too)\n  \
                 /facts · /events  what the chat remembers\n  \
                 /forget ID        forget an artifact (undo with `knower undo`)\n  \
                 /resolve ID TEXT  mark an effort resolved · /reopen ID\n  \
                 /session          this session's id\n  \
                 /quit             leave (Ctrl-D too)\n  \
                 remember that …   files the rest with the update agent"
            ),
            "/efforts" if rest.first() == Some(&"all") => {
                list(&[Kind::Effort], &[Status::Open, Status::Resolved])
            }
            "/efforts" => list(&[Kind::Effort], &[Status::Open]),
            "/facts" => list(&[Kind::Fact], &[Status::Active]),
            "/events" => list(&[Kind::Event], &[Status::Active]),
            "/session" => println!("  {}", self.id),
            "/forget" => {
                let id = rest.first().ok_or_else(|| {
                    failure(
                        "/forget needs an artifact's id",
                        Some("/efforts, /facts and /events show them"),
                    )
                })?;
                let gone = service.chat_forget(id)?;
                println!("  forgot {} “{}”", gone.id, gone.summary);
            }
            "/resolve" | "/reopen" => {
                let id = rest
                    .first()
                    .ok_or_else(|| failure(format!("{name} needs an effort's id"), None))?;
                let correction = if name == "/resolve" {
                    knower_chat::Correction {
                        status: Some(Status::Resolved),
                        resolution: Some(rest[1..].join(" ")).filter(|r| !r.is_empty()),
                        ..Default::default()
                    }
                } else {
                    knower_chat::Correction {
                        status: Some(Status::Open),
                        ..Default::default()
                    }
                };
                let a = service.chat_correct(id, correction)?;
                println!("  {}", a.line());
            }
            other => {
                return Err(failure(
                    format!("there is no command {other}"),
                    Some("/help lists them"),
                ));
            }
        }
        Ok(true)
    }
}

/// What an exchange did, under the reply.
fn show(outcome: &ChatOutcome) {
    let e = &outcome.exchange;
    if e.cancelled {
        println!("  (stopped)");
    }
    for change in &e.changes {
        match change {
            Change::Created { artifact } => println!(
                "  + {} {}: {}",
                artifact.kind.name(),
                artifact.id,
                artifact.summary
            ),
            Change::Resolved { artifact } => println!(
                "  ✓ resolved {}: {} — {}",
                artifact.id,
                artifact.summary,
                artifact.resolution.as_deref().unwrap_or("")
            ),
            Change::Archived { artifact } => {
                println!("  archived {}: {}", artifact.id, artifact.summary)
            }
        }
    }
    if let Some(update) = &outcome.update {
        println!(
            "  remembered: {} ({})",
            update.summary.as_deref().unwrap_or(&update.headline),
            update.status()
        );
    }
    if let Some(error) = &e.interpretation_error {
        eprintln!("  warning: {error}");
    }
    let c = &e.context;
    if c.message_cut_tokens > 0 {
        eprintln!(
            "  warning: the message was too long for the context: about {} tokens of it were left out (at most {} are kept)",
            c.message_cut_tokens,
            knower_chat::context::MAX_MESSAGE_TOKENS
        );
    }
    println!(
        "  (context {} tokens: {} open efforts, {} memories, {} passages, {} past exchanges{})",
        c.tokens,
        c.efforts,
        c.artifacts,
        c.passages,
        c.history,
        e.usage
            .map(|u| format!(" · {}", u.describe()))
            .unwrap_or_default()
    );
}

/// The REPL's line history, the CLI's own file under `.knower/`.
fn history_file(root: &std::path::Path) -> PathBuf {
    root.join(knower_vault::INTERNAL_DIR)
        .join("cli")
        .join("chat-history")
}

/// The next line of `input` (without its newline): `Some(None)` for a line
/// longer than `limit`, whose rest is read past without being kept, so
/// that an endless line cannot fill memory; `None` at the end.
fn bounded_line(
    input: &mut impl BufRead,
    limit: usize,
) -> std::io::Result<Option<Option<Vec<u8>>>> {
    let mut line = Vec::new();
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(any.then(|| (!too_long).then_some(line)));
        }
        any = true;
        let (part, end) = match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => (&chunk[..at], Some(at + 1)),
            None => (chunk, None),
        };
        if !too_long && line.len() + part.len() <= limit {
            line.extend_from_slice(part);
        } else {
            too_long = true;
            line = Vec::new();
        }
        let used = end.unwrap_or(chunk.len());
        input.consume(used);
        if end.is_some() {
            return Ok(Some((!too_long).then_some(line)));
        }
    }
}
