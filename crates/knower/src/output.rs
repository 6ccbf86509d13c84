//! How commands report: one-line failures with a hint, JSON, progress bars,
//! and reading standard input. Every command module uses these; they use
//! no command.

use std::io::{self, Read};

use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

/// A failed command: one line of explanation and possibly what to do.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub hint: Option<String>,
}

pub type Outcome = Result<(), Failure>;

pub fn failure(message: impl Into<String>, hint: Option<&str>) -> Failure {
    Failure {
        message: message.into(),
        hint: hint.map(str::to_string),
    }
}

impl From<knower_vault::Error> for Failure {
    fn from(e: knower_vault::Error) -> Failure {
        failure(e.to_string(), e.hint())
    }
}

impl From<knower_index::Error> for Failure {
    fn from(e: knower_index::Error) -> Failure {
        failure(e.to_string(), e.hint())
    }
}

impl From<knower_agents::Error> for Failure {
    fn from(e: knower_agents::Error) -> Failure {
        knower_service::Error::from(e).into()
    }
}

impl From<knower_garden::GardenError> for Failure {
    fn from(e: knower_garden::GardenError) -> Failure {
        knower_service::Error::from(e).into()
    }
}

impl From<knower_service::Error> for Failure {
    fn from(e: knower_service::Error) -> Failure {
        Failure {
            hint: e.hint(),
            message: e.to_string(),
        }
    }
}

/// One line on stderr: what went wrong and, when there is something to do
/// about it, what (`{"error", "hint"}` with `--json`).
pub fn report(error: &Failure, json: bool) {
    if json {
        let value = serde_json::json!({"error": error.message, "hint": error.hint});
        eprintln!("{value}");
        return;
    }
    match &error.hint {
        Some(hint) => eprintln!("error: {} ({hint})", error.message),
        None => eprintln!("error: {}", error.message),
    }
}

/// A command line clap could not read: its usual message (and exit code
/// 2), or under `--json` the same as any error, `{"error", "hint"}`, where
/// the hint is clap's tip and usage. `--help` and `--version` print as usual.
pub fn usage_error(error: clap::Error) -> std::process::ExitCode {
    use clap::error::ErrorKind;
    let wants_json = std::env::args_os()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json");
    let informational = matches!(
        error.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
    if !wants_json || informational {
        error.exit();
    }
    let rendered = error.render().to_string();
    let mut lines = rendered.lines().map(str::trim).filter(|l| !l.is_empty());
    let message = lines
        .next()
        .map(|l| l.strip_prefix("error: ").unwrap_or(l).to_string())
        .unwrap_or_default();
    let hint: Vec<&str> = lines.collect();
    report(
        &Failure {
            message,
            hint: (!hint.is_empty()).then(|| hint.join(" ")),
        },
        true,
    );
    std::process::ExitCode::from(2)
}

/// A warning on stderr, the hint in parentheses.
pub fn warn(what: &str, e: &Failure) {
    match &e.hint {
        Some(hint) => eprintln!("warning: {what}: {} ({hint})", e.message),
        None => eprintln!("warning: {what}: {}", e.message),
    }
}

pub fn print_json(value: &impl Serialize) -> Outcome {
    let text = serde_json::to_string_pretty(value).map_err(|e| failure(e.to_string(), None))?;
    println!("{text}");
    Ok(())
}

/// The most a note written from standard input may hold.
pub const MAX_STDIN_NOTE_BYTES: usize = 64 << 20;

/// Standard input as text, at most `limit` bytes (`what` names it in the
/// refusal): more is refused once the limit is passed, without reading
/// the rest, so that `knower update < /dev/zero` cannot fill memory.
pub fn stdin_text(limit: usize, what: &str) -> Result<String, Failure> {
    let mut bytes = Vec::new();
    io::stdin()
        .lock()
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| failure(format!("reading standard input: {e}"), None))?;
    if bytes.len() > limit {
        return Err(failure(
            format!(
                "standard input is more than {what} may hold ({} MiB at most)",
                limit >> 20
            ),
            None,
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        failure(
            format!(
                "standard input is not valid UTF-8 text (first invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
            Some("Knower writes text files only"),
        )
    })
}

/// A spinner with the time spent, on stderr on a terminal without
/// `--json`, while a model works: a local one on a CPU can take a minute.
/// Cleared when dropped; `None` for the offline engine, which is quick.
pub fn waiting_on(engine: &str, json: bool) -> Option<ProgressBar> {
    if json || engine == knower_agents::OFFLINE {
        return None;
    }
    let style = ProgressStyle::with_template("{spinner} waiting for {msg} ({elapsed})")
        .expect("a valid template");
    let spinner = ProgressBar::new_spinner()
        .with_style(style)
        .with_message(engine.to_string());
    spinner.enable_steady_tick(std::time::Duration::from_millis(200));
    Some(spinner)
}

/// A progress callback for long passes over the vault: a bar on stderr,
/// drawn only on a terminal, without `--json`, and for enough files that the
/// wait is noticeable.
pub fn progress_bar(message: &'static str, json: bool) -> impl FnMut(usize, usize) {
    const WORTH_A_BAR: usize = 200;
    let mut bar: Option<ProgressBar> = None;
    move |done, total| {
        if json || total < WORTH_A_BAR {
            return;
        }
        let bar = bar.get_or_insert_with(|| {
            let style = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({eta} left)")
                .expect("a valid template")
                .progress_chars("=> ");
            ProgressBar::new(total as u64)
                .with_style(style)
                .with_message(message)
        });
        bar.set_position(done as u64);
        if done == total {
            bar.finish_and_clear();
        }
    }
}
