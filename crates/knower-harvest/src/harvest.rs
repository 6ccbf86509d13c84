//! [`Harvester`]: scan → classify → (with `apply`) extract → merge into
//! `knowledge/` → digest → ledger → (with `reclaim`) delete what the ledger
//! proves harvested. Without `apply` nothing is written anywhere.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use knower_llm::{Llm, Usage};
use knower_vault::{Author, Vault};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::conversation::{Conversation, Format, hex};
use crate::formats;
use crate::items::{Counts, Harvested};
use crate::knowledge::{self, DIGEST};
use crate::ledger::{Entry, LEDGER, Ledger, Status};
use crate::model::{self, MAX_HARVEST_SOURCE_BYTES};
use crate::{offline, projects};

/// The actor the journal records for the harvest's changes.
pub const ACTOR: &str = "harvest";
/// How the offline engine names itself.
pub const OFFLINE: &str = "offline engine";
/// The prompt's name: `prompts/harvest-conversation.md` overrides it.
pub const PROMPT: &str = "harvest-conversation";
pub const BUILT_IN_PROMPT: &str = include_str!("../prompts/harvest-conversation.md");

#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Harvest (without it: a dry run that changes nothing).
    pub apply: bool,
    /// Delete the sources the ledger proves harvested.
    pub reclaim: bool,
    /// With `reclaim`: delete without harvesting, recording
    /// `deleted-unharvested`.
    pub no_harvest: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum HarvestError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Vault(#[from] knower_vault::Error),
}

/// What a conversation is, before anything is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    ToHarvest,
    AlreadyHarvested,
    TooLarge,
    Empty,
}

/// One conversation of the plan.
#[derive(Clone, Debug, Serialize)]
pub struct Planned {
    pub name: String,
    pub path: String,
    pub format: Format,
    pub class: Class,
    pub bytes: usize,
    pub sha256: String,
}

/// A file that could not be read as conversations.
#[derive(Clone, Debug, Serialize)]
pub struct Unreadable {
    pub path: String,
    pub error: String,
    /// Named by the user (not met in a folder walk): an error, not a note.
    pub given: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Failed {
    pub name: String,
    pub path: String,
    pub error: String,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Tally {
    pub to_harvest: usize,
    pub already_harvested: usize,
    pub too_large: usize,
    pub empty: usize,
    pub unreadable: usize,
}

/// What a harvest found, did, or (dry run) would do.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub engine: String,
    pub applied: bool,
    /// Files read.
    pub sources: usize,
    pub tally: Tally,
    /// Bytes of the conversations to harvest.
    pub bytes: usize,
    pub estimated_input_tokens: usize,
    pub estimated_model_calls: usize,
    pub conversations: Vec<Planned>,
    pub unreadable: Vec<Unreadable>,
    /// Records skipped inside files that were read.
    pub warnings: Vec<String>,
    /// Conversations harvested by this run, and the items they added.
    pub harvested: usize,
    pub items: Counts,
    pub failed: Vec<Failed>,
    pub reclaimed: Vec<String>,
    pub reclaimed_bytes: u64,
    /// The digest's size on disk after the run, if there is one.
    pub digest_bytes: Option<usize>,
    pub ledger: &'static str,
    pub usage: Option<Usage>,
}

struct Source {
    path: PathBuf,
    /// The SHA-256 and size of the file as it was read.
    sha256: String,
    size: u64,
    /// The digests of its conversations that say something.
    shas: Vec<String>,
    /// Records of it that could not be read (each named in a warning):
    /// what they said is in no ledger entry, so reclaim keeps the file.
    skipped: usize,
}

/// How many harvested conversations are written as one change, and the
/// longest they wait: one change per conversation made a harvest of 400
/// small conversations spend most of its time committing.
const WRITE_EVERY: usize = 100;
const WRITE_AFTER: std::time::Duration = std::time::Duration::from_secs(2);

/// What one `--apply` carries from conversation to conversation.
struct Run {
    template: String,
    today: String,
    at: String,
    usage: Usage,
    projects: Vec<String>,
    /// Harvested conversations waiting to be written together.
    pending: Vec<Done>,
    written: std::time::Instant,
    /// The digests done in this run.
    done: HashSet<String>,
    /// The error that stopped the run.
    failure: Option<HarvestError>,
}

/// A conversation harvested and waiting to be written.
struct Done {
    sha256: String,
    name: String,
    path: String,
    day: String,
    project: Option<String>,
    harvested: Harvested,
}

pub struct Harvester {
    vault: Arc<Vault>,
    llm: Option<Arc<Llm>>,
}

impl Harvester {
    /// A harvester for `vault`, with the model when one is configured
    /// (else the offline engine).
    pub fn new(vault: Arc<Vault>, llm: Option<Arc<Llm>>) -> Harvester {
        Harvester { vault, llm }
    }

    pub fn engine(&self) -> String {
        match &self.llm {
            Some(llm) => llm.label(),
            None => OFFLINE.to_string(),
        }
    }

    /// Harvests the conversations found at `paths` (files, or folders
    /// walked for them) as `options` say.
    pub fn run(
        &self,
        paths: &[PathBuf],
        options: Options,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Report, HarvestError> {
        if options.no_harvest && !options.reclaim {
            return Err(HarvestError::Invalid(
                "--no-harvest only makes sense with --reclaim (it deletes sources without \
                 harvesting them)"
                    .into(),
            ));
        }
        if paths.is_empty() {
            return Err(HarvestError::Invalid(
                "no source given: name conversation files or folders (Claude Code keeps its \
                 transcripts in ~/.claude/projects)"
                    .into(),
            ));
        }
        let ledger = Ledger::parse(self.vault.read(LEDGER).ok().as_deref())
            .map_err(HarvestError::Invalid)?;
        let mut report = Report {
            engine: self.engine(),
            applied: options.apply,
            sources: 0,
            tally: Tally::default(),
            bytes: 0,
            estimated_input_tokens: 0,
            estimated_model_calls: 0,
            conversations: Vec::new(),
            unreadable: Vec::new(),
            warnings: Vec::new(),
            harvested: 0,
            items: Counts::default(),
            failed: Vec::new(),
            reclaimed: Vec::new(),
            reclaimed_bytes: 0,
            digest_bytes: None,
            ledger: LEDGER,
            usage: None,
        };
        // The plan is made as the sources are read, a conversation at a
        // time; none is kept (apply reads the sources again), so memory
        // does not grow with what is read.
        let mut sources = Vec::new();
        for (path, named) in files(paths, &mut report.unreadable) {
            let mut shas = Vec::new();
            let read = formats::each(&path, &mut |conversation| {
                let planned = self.plan(&conversation, &ledger, options, &mut report);
                if planned.class != Class::Empty {
                    shas.push(planned.sha256.clone());
                }
                report.conversations.push(planned);
            });
            match read {
                Ok(read) => {
                    let skipped = read.warnings.len();
                    report.warnings.extend(read.warnings);
                    let size = std::fs::metadata(&path).map_or(0, |m| m.len());
                    sources.push(Source {
                        path,
                        sha256: read.sha256,
                        size,
                        shas,
                        skipped,
                    });
                }
                Err(e) => report.unreadable.push(Unreadable {
                    path: path.display().to_string(),
                    error: e.to_string(),
                    given: named,
                }),
            }
        }
        report.sources = sources.len();
        report.tally.unreadable = report.unreadable.len();
        if options.apply || options.no_harvest {
            self.apply(&sources, &mut report, options, progress)?;
        }
        if options.reclaim {
            self.reclaim(&sources, options.no_harvest, &mut report)?;
        }
        if options.apply || options.reclaim {
            report.digest_bytes = self.vault.read(DIGEST).ok().map(|t| t.len());
        }
        Ok(report)
    }

    /// What is to be done with one conversation, counted in the report.
    fn plan(
        &self,
        conversation: &Conversation,
        ledger: &Ledger,
        options: Options,
        report: &mut Report,
    ) -> Planned {
        let (size, sha256) = conversation.measure();
        let class = if conversation.is_empty() {
            Class::Empty
        } else if ledger
            .get(&sha256)
            .is_some_and(|e| matches!(e.status, Status::Harvested | Status::DeletedUnharvested))
        {
            Class::AlreadyHarvested
        } else if size > MAX_HARVEST_SOURCE_BYTES {
            Class::TooLarge
        } else {
            Class::ToHarvest
        };
        match class {
            Class::ToHarvest => {
                report.tally.to_harvest += 1;
                report.bytes += size;
                if self.llm.is_some() && !options.no_harvest {
                    let prompt_tokens = BUILT_IN_PROMPT.len() / 4;
                    report.estimated_input_tokens +=
                        size.min(model::SUMMARIZE_THRESHOLD_BYTES) / 4 + prompt_tokens;
                    report.estimated_model_calls += model::calls_for(size);
                    if size > model::SUMMARIZE_THRESHOLD_BYTES {
                        report.estimated_input_tokens += size / 4;
                    }
                }
            }
            Class::AlreadyHarvested => report.tally.already_harvested += 1,
            Class::TooLarge => report.tally.too_large += 1,
            Class::Empty => report.tally.empty += 1,
        }
        Planned {
            name: conversation.name.clone(),
            path: conversation.location(),
            format: conversation.format,
            class,
            bytes: size,
            sha256,
        }
    }

    /// Does the plan: reads each source with work in it again, a
    /// conversation at a time, and harvests those the plan says to.
    fn apply(
        &self,
        sources: &[Source],
        report: &mut Report,
        options: Options,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(), HarvestError> {
        let work: HashSet<String> = report
            .conversations
            .iter()
            .filter(|p| matches!(p.class, Class::ToHarvest | Class::TooLarge))
            .map(|p| p.sha256.clone())
            .collect();
        let total = work.len();
        let mut run = Run {
            template: knower_agents::prompt(&self.vault, PROMPT, BUILT_IN_PROMPT).text,
            today: jiff::Zoned::now().strftime("%Y-%m-%d").to_string(),
            at: jiff::Timestamp::now().to_string(),
            usage: Usage::default(),
            projects: projects::list(&self.vault),
            pending: Vec::new(),
            written: std::time::Instant::now(),
            done: HashSet::new(),
            failure: None,
        };
        for source in sources {
            if !source.shas.iter().any(|sha| work.contains(sha)) {
                continue;
            }
            let read = formats::each(&source.path, &mut |conversation| {
                let (size, sha256) = conversation.measure();
                // Two copies of one conversation in this run: the first
                // does it; a conversation the plan did not see (the file
                // changed since) waits for the next run.
                if run.failure.is_some()
                    || !work.contains(&sha256)
                    || !run.done.insert(sha256.clone())
                {
                    return;
                }
                if let Err(e) = self.one(&conversation, size, sha256, options, &mut run, report) {
                    run.failure = Some(e);
                }
                progress(run.done.len(), total);
            });
            if let Err(e) = read {
                report
                    .warnings
                    .push(format!("{e} (it was read a moment ago; not harvested)"));
            }
            if let Some(e) = run.failure.take() {
                return Err(e);
            }
        }
        self.write(&mut run.pending, &run.at, report)?;
        if self.llm.is_some() {
            report.usage = Some(run.usage);
        }
        Ok(())
    }

    /// Harvests one conversation of the plan into `run.pending`, writing
    /// what waits there when it is time.
    fn one(
        &self,
        conversation: &Conversation,
        size: usize,
        sha256: String,
        options: Options,
        run: &mut Run,
        report: &mut Report,
    ) -> Result<(), HarvestError> {
        let path = conversation.location();
        let entry = |status, items, error| Entry {
            path: path.clone(),
            name: conversation.name.clone(),
            status,
            at: run.at.clone(),
            items,
            deleted: false,
            error,
        };
        let author = Author::new(ACTOR, format!("harvest “{}”", conversation.name));
        if size > MAX_HARVEST_SOURCE_BYTES {
            return self.record(
                &author,
                &sha256,
                entry(Status::TooLarge, Counts::default(), None),
            );
        }
        if options.no_harvest {
            return self.record(
                &author,
                &sha256,
                entry(Status::DeletedUnharvested, Counts::default(), None),
            );
        }
        let extracted: Result<Harvested, String> = match &self.llm {
            None => Ok(offline::extract(conversation)),
            Some(llm) => model::harvest(
                llm,
                &run.template,
                &conversation.name,
                &conversation.text(),
                &mut run.usage,
            )
            .map(|harvested| {
                // A model that twice found nothing where the stated rules
                // find something is not believed: the rules' items are
                // kept, and the report says so.
                if !harvested.is_empty() {
                    return harvested;
                }
                let offline = offline::extract(conversation);
                if !offline.is_empty() {
                    report.warnings.push(format!(
                        "{}: the model found nothing twice; the {OFFLINE} harvested it",
                        conversation.name
                    ));
                }
                offline
            })
            .map_err(|e| e.to_string()),
        };
        let harvested = match extracted {
            Ok(harvested) => harvested,
            Err(error) => {
                report.failed.push(Failed {
                    name: conversation.name.clone(),
                    path: path.clone(),
                    error: error.clone(),
                });
                return self.record(
                    &author,
                    &sha256,
                    entry(Status::HarvestFailed, Counts::default(), Some(error)),
                );
            }
        };
        run.pending.push(Done {
            sha256,
            name: conversation.name.clone(),
            path: path.clone(),
            day: conversation
                .date
                .clone()
                .unwrap_or_else(|| run.today.clone()),
            project: projects::of(conversation, &run.projects).map(str::to_string),
            harvested,
        });
        if run.pending.len() >= WRITE_EVERY || run.written.elapsed() >= WRITE_AFTER {
            self.write(&mut run.pending, &run.at, report)?;
            run.written = std::time::Instant::now();
        }
        Ok(())
    }

    /// Writes the harvested conversations waiting in `pending` as one
    /// change: their items, the digest once, their ledger entries. Items
    /// first, the ledger last, in one batch: a harvest killed half-way has
    /// none of them in the ledger and does them again, and their items
    /// already there are not added twice.
    fn write(
        &self,
        pending: &mut Vec<Done>,
        at: &str,
        report: &mut Report,
    ) -> Result<(), HarvestError> {
        if pending.is_empty() {
            return Ok(());
        }
        let done = std::mem::take(pending);
        let author = Author::new(
            ACTOR,
            match done.as_slice() {
                [one] => format!("harvest “{}”", one.name),
                [first, rest @ ..] => {
                    format!(
                        "harvest “{}” and {} more conversations",
                        first.name,
                        rest.len()
                    )
                }
                [] => unreachable!(),
            },
        );
        let entry = |d: &Done, status, items, error| Entry {
            path: d.path.clone(),
            name: d.name.clone(),
            status,
            at: at.to_string(),
            items,
            deleted: false,
            error,
        };
        let merged = self.vault.batch(&author, |batch| {
            let sources: Vec<_> = done
                .iter()
                .map(|d| {
                    let source = knowledge::Source {
                        name: &d.name,
                        day: &d.day,
                        project: d.project.as_deref(),
                    };
                    (&d.harvested, source)
                })
                .collect();
            let all = knowledge::merge(batch, &sources)?;
            knowledge::regenerate(batch)?;
            let mut ledger = Ledger::load(batch)?;
            for (d, counts) in done.iter().zip(&all) {
                ledger
                    .entries
                    .insert(d.sha256.clone(), entry(d, Status::Harvested, *counts, None));
            }
            ledger.save(batch)?;
            Ok(all)
        });
        match merged {
            Ok((all, _)) => {
                report.harvested += all.len();
                for counts in all {
                    report.items += counts;
                }
                Ok(())
            }
            Err(e) => {
                // The disk refused (full, a file in the way…): stop here,
                // reclaim nothing, and say so in the ledger if it can.
                for d in &done {
                    let _ = self.record(
                        &author,
                        &d.sha256,
                        entry(
                            d,
                            Status::HarvestFailed,
                            Counts::default(),
                            Some(e.to_string()),
                        ),
                    );
                }
                Err(e.into())
            }
        }
    }

    /// Writes one ledger entry as its own change.
    fn record(&self, author: &Author, sha256: &str, entry: Entry) -> Result<(), HarvestError> {
        self.vault.batch(author, |batch| {
            let mut ledger = Ledger::load(batch)?;
            ledger.entries.insert(sha256.to_string(), entry);
            ledger.save(batch)
        })?;
        Ok(())
    }

    /// Deletes each source all of whose conversations the ledger proves
    /// harvested (or, with `--no-harvest`, deleted unharvested), if its
    /// bytes are still those that were read and (unless `--no-harvest`)
    /// none of its records was skipped.
    fn reclaim(
        &self,
        sources: &[Source],
        no_harvest: bool,
        report: &mut Report,
    ) -> Result<(), HarvestError> {
        let ledger = Ledger::parse(self.vault.read(LEDGER).ok().as_deref())
            .map_err(HarvestError::Invalid)?;
        let mut deleted: BTreeMap<String, ()> = BTreeMap::new();
        for source in sources {
            let shas = source.shas.clone();
            let proven = !shas.is_empty()
                && shas.iter().all(|sha| {
                    ledger.get(sha).is_some_and(|e| {
                        matches!(e.status, Status::Harvested | Status::DeletedUnharvested)
                    })
                });
            if !proven {
                continue;
            }
            // Deleting it would lose what its unread records said; with
            // --no-harvest the user has said the content does not matter.
            if source.skipped > 0 && !no_harvest {
                report.warnings.push(format!(
                    "{}: kept, {} of its records could not be read and would be lost \
                     (`--reclaim --no-harvest` deletes it anyway)",
                    source.path.display(),
                    source.skipped
                ));
                continue;
            }
            // The vault's own files (Knower's chat log) are sources to read,
            // never to delete: the log is permanent.
            let inside = match (source.path.canonicalize(), self.vault.root().canonicalize()) {
                (Ok(path), Ok(root)) => path.starts_with(root),
                _ => true,
            };
            if inside {
                report.warnings.push(format!(
                    "{}: kept, it is the vault's own file",
                    source.path.display()
                ));
                continue;
            }
            let unchanged = file_sha256(&source.path).is_ok_and(|now| now == source.sha256);
            if !unchanged {
                report.warnings.push(format!(
                    "{}: kept, it changed since it was read",
                    source.path.display()
                ));
                continue;
            }
            match std::fs::remove_file(&source.path) {
                Ok(()) => {
                    report.reclaimed.push(source.path.display().to_string());
                    report.reclaimed_bytes += source.size;
                    for sha in shas {
                        deleted.insert(sha, ());
                    }
                }
                Err(e) => report.warnings.push(format!(
                    "{}: could not be deleted ({e}); kept",
                    source.path.display()
                )),
            }
        }
        if !deleted.is_empty() {
            let author = Author::new(
                ACTOR,
                format!("reclaimed {} harvested sources", report.reclaimed.len()),
            );
            self.vault.batch(&author, |batch| {
                let mut ledger = Ledger::load(batch)?;
                for sha in deleted.keys() {
                    if let Some(entry) = ledger.entries.get_mut(sha) {
                        entry.deleted = true;
                    }
                }
                ledger.save(batch)
            })?;
        }
        Ok(())
    }
}

/// The files under `paths` (files given, and the sources found walking the
/// folders given), each with whether the user named it; folders that
/// cannot be walked go to `unreadable`.
fn files(paths: &[PathBuf], unreadable: &mut Vec<Unreadable>) -> Vec<(PathBuf, bool)> {
    let mut out = Vec::new();
    for given in paths {
        if !given.is_dir() {
            out.push((given.clone(), true));
            continue;
        }
        for entry in walkdir::WalkDir::new(given)
            .follow_links(false)
            .sort_by_file_name()
        {
            match entry {
                Ok(entry) => {
                    if entry.file_type().is_file() && formats::looks_like_a_source(entry.path()) {
                        out.push((entry.into_path(), false));
                    }
                }
                Err(e) => unreadable.push(Unreadable {
                    path: e
                        .path()
                        .map_or_else(|| given.display().to_string(), |p| p.display().to_string()),
                    error: e.to_string(),
                    given: false,
                }),
            }
        }
    }
    out
}

/// The SHA-256 of a file's bytes, read a buffer at a time.
fn file_sha256(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 64 * 1024];
    loop {
        match file.read(&mut buffer)? {
            0 => return Ok(hex(&hasher.finalize())),
            n => hasher.update(&buffer[..n]),
        }
    }
}

/// The SHA-256 of some bytes, in hex.
pub fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}
