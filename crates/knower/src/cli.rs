//! The command line, as clap reads it.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Knower: a local-first memory of plain markdown files, for you and your AI tools.
///
/// The vault is found by --vault, then $KNOWER_VAULT, then ~/knower.
/// Exit codes: 0 success, 1 the operation failed or was refused, 2 bad usage.
#[derive(Parser, Debug)]
#[command(name = "knower", version, max_term_width = 100)]
pub struct Cli {
    /// The vault folder [default: $KNOWER_VAULT, else ~/knower].
    #[arg(long, global = true, value_name = "PATH")]
    pub vault: Option<PathBuf>,

    /// Print machine-readable JSON (errors too, on stderr).
    #[arg(long, global = true)]
    pub json: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Send information to the vault: the update agent decides where it belongs.
    ///
    /// With no LLM configured (KNOWER_LLM or [llm] in knower.toml), the
    /// offline engine files it by project names and search scores, and puts
    /// it in the inbox when unsure.
    Update {
        /// The information; read from standard input when absent or `-`.
        text: Option<String>,
        /// Attach a file (repeatable); images are shown to the model. Stored in the vault.
        #[arg(long = "file", value_name = "PATH")]
        files: Vec<PathBuf>,
        /// Answer this inbox item with TEXT (as `knower inbox reply` does).
        #[arg(long, value_name = "ID")]
        inbox_ref: Option<String>,
        /// With a server running: print the update's id once it is queued, without waiting.
        #[arg(long)]
        no_wait: bool,
    },
    /// Ask a question: the search agent answers from the vault, citing `path:line`.
    Ask {
        #[arg(required = true, num_args = 1.., value_name = "QUESTION")]
        question: Vec<String>,
        /// How the offline engine searches (an LLM chooses for itself).
        #[arg(long, value_enum, default_value_t = ModeArg::Fast)]
        mode: ModeArg,
        /// project:NAME or a folder (or file) of the vault.
        #[arg(long)]
        scope: Option<String>,
    },
    /// Search the notes; prints ranked passages as `path:line`.
    ///
    /// The query takes words, "exact phrases", prefix*, +required and
    /// -excluded words, and project:NAME or path:PREFIX to search one part of
    /// the vault. Quote the whole query for your shell when it has quotes.
    Search {
        #[arg(required = true, num_args = 1.., value_name = "QUERY")]
        query: Vec<String>,
        /// fast: keywords (BM25); deep: keywords and meaning, fused; vector: meaning only.
        #[arg(long, value_enum, default_value_t = ModeArg::Fast)]
        mode: ModeArg,
        /// project:NAME or a folder (or file) of the vault.
        #[arg(long)]
        scope: Option<String>,
        /// How many passages to show (notes, with --notes).
        #[arg(short = 'n', long = "limit", default_value_t = 10)]
        limit: usize,
        /// Count -n in notes: each note once, with its best passage.
        #[arg(long)]
        notes: bool,
        /// Show how each passage was ranked (each list's rank and the fused score).
        #[arg(long)]
        explain: bool,
    },
    /// List the items waiting for your answer, show one, or answer it.
    Inbox {
        #[command(subcommand)]
        action: Option<InboxAction>,
    },
    /// Run the server in the foreground: HTTP API, live events, the update queue and the watcher.
    ///
    /// Creates the vault first if it does not exist. Ctrl-C stops it; an
    /// update still queued runs at the next start.
    Serve {
        #[command(flatten)]
        listen: Listen,
    },
    /// Create a vault (never overwrites existing files; existing notes are adopted).
    Init {
        /// Where to create it (default: the vault location).
        path: Option<PathBuf>,
    },
    /// Keep the vault's frontmatter and tree.md up to date while you edit files elsewhere.
    ///
    /// Creates the vault first if it does not exist. Runs until interrupted.
    Watch,
    /// Serve Knower over MCP on stdin/stdout, for an AI client to start
    /// (Claude Desktop, an IDE…): the agents, the vault's tools and a
    /// knowledge-graph memory. Creates the vault if it does not exist.
    Mcp,
    /// The knowledge graph kept in graph/: import or export the reference
    /// memory server's memory.jsonl.
    Graph {
        #[command(subcommand)]
        action: GraphAction,
    },
    /// Start the server in the background (pid and log under the vault's .knower/).
    Start {
        #[command(flatten)]
        listen: Listen,
    },
    /// Stop the background server (the running update is finished or resumed at the next start).
    Stop,
    /// Open the web UI in the browser, starting the server in the background if none runs.
    Visualize {
        #[command(flatten)]
        listen: Listen,
    },
    /// Print the vault's folder, and open it in the desktop's file manager when there is one.
    Vault,
    /// List the updates sent to the vault and their states; show, retry or undo one.
    Updates {
        #[command(subcommand)]
        action: Option<UpdatesAction>,
        /// How many updates to list.
        #[arg(long, short = 'n', default_value_t = 20)]
        limit: usize,
    },
    /// Show the file tree with token counts.
    Tree {
        /// A folder or file inside the vault.
        #[arg(default_value = "")]
        path: String,
        /// Levels of folders to show (all by default).
        #[arg(long, short)]
        depth: Option<usize>,
    },
    /// Print a file, frontmatter included.
    Read { path: String },
    /// Create or replace a file with the text read from standard input.
    Write {
        path: String,
        #[command(flatten)]
        why: Why,
    },
    /// Add the text read from standard input to a file (created if missing).
    Append {
        path: String,
        /// Insert below the frontmatter and title instead of at the end.
        #[arg(long)]
        top: bool,
        #[command(flatten)]
        why: Why,
    },
    /// Replace a passage that occurs exactly once in the body (never the frontmatter).
    Edit {
        path: String,
        /// The exact text to replace.
        #[arg(long)]
        old: String,
        /// The text to put in its place.
        #[arg(long)]
        new: String,
        #[command(flatten)]
        why: Why,
    },
    /// Move or rename a file or folder (into FOLDER if TO is an existing folder).
    Mv {
        from: String,
        to: String,
        #[command(flatten)]
        why: Why,
    },
    /// Delete a file, or a folder and everything in it (undoable).
    Rm {
        path: String,
        #[command(flatten)]
        why: Why,
    },
    /// List the changes made to the vault, newest first.
    Log {
        /// How many changes to show.
        #[arg(long, short = 'n', default_value_t = 20)]
        limit: usize,
        /// Only changes touching this path (or anything below it).
        #[arg(long)]
        path: Option<String>,
    },
    /// Restore what a change modified, or everything an update did, as a new change.
    Undo {
        /// The change id, as `knower log` shows it, or an update's id, as
        /// `knower updates` shows it.
        id: String,
        /// Restore even if the files changed since (their newer content stays in the journal).
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        why: Why,
    },
    /// Show the vault, its size, the search index, and anything pending or wrong.
    Status,
    /// Sync the vault through git: commit your changes, merge the other
    /// machines', push.
    ///
    /// The remote is `remote` under [sync] in knower.toml (a git URL or the
    /// name of a remote), else the repository's only remote; the vault
    /// becomes a git repository if it is not one. Authenticated as git is
    /// (SSH keys, credential helpers). tree.md and .knower/ stay per
    /// machine; a real conflict keeps both versions and waits in the inbox.
    /// `knower serve` syncs every `every_minutes` under [sync].
    Sync,
    /// Rebuild the search index from the notes (unchanged passages keep their vectors).
    Reindex,
    /// Talk with Knower: a chat that remembers by conclusions, not token limits.
    ///
    /// Each exchange may open or resolve an effort, or record a fact or an
    /// event (notes in chat/artifacts/); the next messages get the relevant
    /// ones back, with the vault's notes, and the last exchanges. Everything
    /// said is kept in chat/log.jsonl. In the session: /efforts, /facts,
    /// /events, /forget ID, /help; Ctrl-C stops a reply, Ctrl-D leaves.
    /// "remember that …" files the rest with the update agent.
    Chat {
        /// One message, answered, then exit (else a session: a prompt on a
        /// terminal, one message a line from standard input otherwise).
        message: Vec<String>,
        /// Continue the last session.
        #[arg(long, conflicts_with = "session")]
        resume: bool,
        /// Continue this session.
        #[arg(long, value_name = "ID")]
        session: Option<String>,
    },
    /// Turn past conversations into durable knowledge in knowledge/ (a dry run unless --apply).
    ///
    /// Reads Claude Code transcripts (~/.claude/projects/**/*.jsonl), Codex
    /// CLI sessions (~/.codex/sessions), Gemini CLI sessions and checkpoints,
    /// the ChatGPT and Claude.ai exports (conversations.json), Knower's chat
    /// log and .md/.txt files; folders are walked. Each conversation's facts,
    /// decisions, questions, playbooks and tasks are appended to
    /// knowledge/*.md (never rewriting what is there), the 4 KB digest the
    /// agents load is regenerated, and knowledge/ledger.json records it.
    /// Without a model, the offline engine extracts by stated rules.
    Harvest {
        /// Conversation files or folders (default: ~/.claude/projects).
        paths: Vec<PathBuf>,
        /// Harvest: up to 100 conversations a vault change, undoable.
        #[arg(long)]
        apply: bool,
        /// Delete the source files the ledger proves harvested.
        #[arg(long)]
        reclaim: bool,
        /// With --reclaim: delete without harvesting (recorded as deleted-unharvested).
        #[arg(long, requires = "reclaim")]
        no_harvest: bool,
    },
    /// The gardener: topics you follow, kept fresh from the web as candidate
    /// facts (with confidence and sources) for you to approve.
    ///
    /// Topics, facts and sources are notes under garden/; `knower serve`
    /// runs a cycle on a schedule ([garden] in knower.toml). Searching needs
    /// BRAVE_API_KEY or a SearxNG instance ([garden] searxng_url); feeds
    /// need nothing.
    Garden {
        #[command(subcommand)]
        action: GardenAction,
    },
    /// Show the agents' prompts in effect: built in, or overridden by the vault's prompts/NAME.md.
    Prompts {
        /// Print this prompt's whole text.
        name: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
pub enum GardenAction {
    /// Follow a topic.
    Add {
        /// The topic's name.
        #[arg(required = true, num_args = 1.., value_name = "NAME")]
        name: Vec<String>,
        /// 1 (low) to 5 (high): the order topics are tended in.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=5))]
        priority: u8,
        /// Days after which the topic is stale.
        #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..))]
        freshness: u32,
        /// A web search for it (repeatable; default: its name).
        #[arg(long = "query", value_name = "QUERY")]
        queries: Vec<String>,
        /// An RSS or Atom feed about it (repeatable; needs no search key).
        #[arg(long = "feed", value_name = "URL")]
        feeds: Vec<String>,
    },
    /// The topics: priority, last tended, stale/sparse/disputed, facts by status.
    List,
    /// One cycle now (or finish an interrupted one).
    Run {
        /// Tend this topic only (its 24 hours of cooling still hold).
        #[arg(long)]
        topic: Option<String>,
        /// Show what it would search and fetch; change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Candidates and contradictions waiting for you, numbered, with sources and confidence.
    Review,
    /// Approve facts: review numbers or fact ids.
    Approve {
        #[arg(required = true, value_name = "N")]
        refs: Vec<String>,
    },
    /// Reject facts (they are archived with the reason, never deleted).
    Reject {
        #[arg(required = true, value_name = "N")]
        refs: Vec<String>,
        #[arg(long)]
        reason: String,
    },
    /// Seed 001's success metrics: coverage, freshness, accuracy, efficiency, engagement.
    Stats,
}

#[derive(Subcommand, Debug)]
pub enum InboxAction {
    /// Print an item's review.md: what arrived, why it is here, the options.
    Show { id: String },
    /// Answer an item: an option number, a project, a path, or `discard`.
    Reply {
        id: String,
        #[arg(required = true, num_args = 1.., value_name = "ANSWER")]
        answer: Vec<String>,
    },
}

#[derive(Subcommand, Debug)]
pub enum UpdatesAction {
    /// Show one update: its state, summary, changed files or error.
    Show { id: String },
    /// Queue a failed update again (its text and files were kept).
    Retry { id: String },
    /// Take back everything an update changed, as one change.
    Undo {
        id: String,
        /// Undo even if lines it wrote were changed since (their newer content stays in the journal).
        #[arg(long)]
        force: bool,
    },
}

/// Where the server listens.
#[derive(Args, Debug)]
pub struct Listen {
    /// The address to listen on; off loopback, KNOWER_TOKEN must be set.
    #[arg(long, env = "KNOWER_ADDR", default_value = knower_server::DEFAULT_ADDR)]
    pub addr: SocketAddr,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum ModeArg {
    Fast,
    Deep,
    Vector,
}

/// Why a change is made; recorded in the journal.
#[derive(Args, Debug)]
pub struct Why {
    /// The reason recorded in the journal (default: the command).
    #[arg(long, short = 'm', value_name = "REASON")]
    pub message: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum GraphAction {
    /// Merge a memory.jsonl into the graph: new entities, missing
    /// observations and relations (one change, so one `knower undo`).
    Import {
        /// The file (`-` for standard input).
        file: PathBuf,
    },
    /// Print the graph as memory.jsonl (or write it to a file).
    Export {
        /// Write here instead of standard output.
        #[arg(long, short = 'o')]
        output: Option<PathBuf>,
    },
}

/// The command line with text that starts with `-` made unmistakable.
///
/// `knower search "-dash papers"` means the words, but clap takes `-dash`
/// for a flag; letting the words' argument take hyphen values would make
/// it swallow the flags after it too (`--scope x`). So where a command
/// that takes free text (search, ask, update, inbox reply) is given a
/// `-word` that is none of its flags, its flags (with their values) are
/// kept in front and its words moved after `--`, in their order.
pub fn hyphen_text(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    use clap::CommandFactory;
    const TEXT_COMMANDS: [&[&str]; 4] = [&["search"], &["ask"], &["update"], &["inbox", "reply"]];
    let root = Cli::command();
    let text: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    // Where the command's own arguments start, and the command.
    let Some((start, command)) = (1..text.len()).find_map(|i| {
        TEXT_COMMANDS.iter().find_map(|path| {
            let names = text.get(i..i + path.len())?;
            if names.iter().zip(path.iter()).any(|(a, b)| a != b) {
                return None;
            }
            let mut command = &root;
            for name in *path {
                command = command.find_subcommand(name)?;
            }
            Some((i + path.len(), command.clone()))
        })
    }) else {
        return args;
    };
    // A flag of the command (its own or a global one): whether it takes a
    // value as the next argument, or `None` when it is not a flag at all.
    let flag = |token: &str| -> Option<bool> {
        // clap adds `--help` only when it builds the command, so it is not
        // among the arguments listed below: `knower update --help` asks for
        // help, it is not an update reading "--help".
        if token == "--help" || token == "-h" {
            return Some(false);
        }
        let known = command.get_arguments().chain(root.get_arguments());
        for arg in known {
            let takes_value = arg.get_action().takes_values();
            if let Some(long) = token.strip_prefix("--") {
                let (name, attached) = long
                    .split_once('=')
                    .map_or((long, false), |(n, _)| (n, true));
                if arg.get_long() == Some(name) {
                    return Some(takes_value && !attached);
                }
            } else if let Some(short) = token.strip_prefix('-')
                && let Some(first) = short.chars().next()
                && arg.get_short() == Some(first)
            {
                return Some(takes_value && short.len() == first.len_utf8());
            }
        }
        None
    };
    let (mut flags, mut words) = (Vec::new(), Vec::new());
    let mut hyphen_word = false;
    let mut rest = start..args.len();
    while let Some(i) = rest.next() {
        let token = &text[i];
        if token == "--" {
            words.extend(rest.by_ref().map(|j| args[j].clone()));
            break;
        }
        match (token.len() > 1 && token.starts_with('-'), flag(token)) {
            (true, Some(takes_value)) => {
                flags.push(args[i].clone());
                if takes_value && let Some(j) = rest.next() {
                    flags.push(args[j].clone());
                }
            }
            (true, None) => {
                hyphen_word = true;
                words.push(args[i].clone());
            }
            (false, _) => words.push(args[i].clone()),
        }
    }
    if !hyphen_word {
        return args;
    }
    let mut out = args[..start].to_vec();
    out.extend(flags);
    out.push("--".into());
    out.extend(words);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(args: &[&str]) -> Vec<String> {
        hyphen_text(args.iter().map(Into::into).collect())
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    #[test]
    fn text_that_starts_with_a_hyphen_is_text_and_flags_stay_flags() {
        assert_eq!(
            rewrite(&[
                "knower",
                "search",
                "-dash papers",
                "--scope",
                "bucket",
                "-n",
                "3"
            ]),
            [
                "knower",
                "search",
                "--scope",
                "bucket",
                "-n",
                "3",
                "--",
                "-dash papers"
            ]
        );
        assert_eq!(
            rewrite(&[
                "knower",
                "--vault",
                "v",
                "ask",
                "-why",
                "is",
                "it",
                "--mode=deep"
            ]),
            [
                "knower",
                "--vault",
                "v",
                "ask",
                "--mode=deep",
                "--",
                "-why",
                "is",
                "it"
            ]
        );
        assert_eq!(
            rewrite(&["knower", "inbox", "reply", "3", "-not", "this"]),
            ["knower", "inbox", "reply", "--", "3", "-not", "this"]
        );
        // Nothing to do: left exactly as given.
        let plain = ["knower", "search", "tea", "--scope", "bucket"];
        assert_eq!(rewrite(&plain), plain);
        let unknown = ["knower", "tree", "--bogus"];
        assert_eq!(rewrite(&unknown), unknown);
        // Help is a flag, not text, even though clap lists it late.
        let help = ["knower", "update", "--help"];
        assert_eq!(rewrite(&help), help);
        assert_eq!(
            rewrite(&["knower", "ask", "-h", "-x"]),
            ["knower", "ask", "-h", "--", "-x"]
        );
    }

    #[test]
    fn the_cli_definition_is_valid() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
