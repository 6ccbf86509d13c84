//! The `git` program, run as a child process. Chosen over libgit2 and
//! gitoxide (ARCHITECTURE.md, "Dependencies"): it authenticates exactly as
//! the user's git does (SSH agent and keys, credential helpers, `insteadOf`
//! rewrites, hooks), it is on every developer's machine, its merge is the
//! one the user would get by hand, and it costs no build time.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::error::{Error, Result};

#[derive(Clone, Debug)]
pub struct Git {
    root: PathBuf,
    /// `user.name`/`user.email` for commits when the user's git has none.
    identity: Option<(String, String)>,
}

impl Git {
    pub fn new(root: &Path) -> Git {
        Git {
            root: root.to_path_buf(),
            identity: None,
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Commits are made as the user's git identity, else as "Knower on
    /// HOST".
    pub fn with_identity_for(mut self, host: &str) -> Git {
        // Both keys in one call: `name value` lines for those set.
        let set = self
            .output(&["config", "--get-regexp", r"^user\.(name|email)$"])
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        let configured = |key: &str| {
            set.lines().any(|l| {
                l.split_once(' ')
                    .is_some_and(|(k, v)| k == key && !v.trim().is_empty())
            })
        };
        if !configured("user.name") || !configured("user.email") {
            self.identity = Some((format!("Knower on {host}"), format!("knower@{host}")));
        }
        self
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new("git");
        command
            .current_dir(&self.root)
            // Never wait for a password on a terminal nobody watches (a
            // server's schedule): a remote that needs one fails, and says so.
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_ASKPASS", "")
            .env("LC_ALL", "C")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .args(["-c", "core.quotepath=off", "-c", "core.autocrlf=false"])
            .stdin(Stdio::null());
        if let Some((name, email)) = &self.identity {
            command.args([
                "-c",
                &format!("user.name={name}"),
                "-c",
                &format!("user.email={email}"),
            ]);
        }
        command.args(args);
        command
    }

    /// Runs git and returns its output whatever its exit status.
    pub fn output(&self, args: &[&str]) -> Result<Output> {
        self.command(args)
            .output()
            .map_err(|e| Error::Git(format!("could not run `git` ({e}); is git installed?")))
    }

    /// Runs git; a failure is an error with git's own words.
    pub fn run(&self, args: &[&str]) -> Result<String> {
        let out = self.output(args)?;
        if !out.status.success() {
            return Err(Error::Git(failure(args, &out)));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Runs git and reports only whether it succeeded.
    pub fn ok(&self, args: &[&str]) -> Result<bool> {
        Ok(self.output(args)?.status.success())
    }

    /// A file's bytes at a revision or index stage (`:2:path`), if any.
    pub fn show(&self, spec: &str) -> Result<Option<Vec<u8>>> {
        let out = self.output(&["cat-file", "blob", spec])?;
        Ok(out.status.success().then_some(out.stdout))
    }

    /// `git -z` output split into its records.
    pub fn records(&self, args: &[&str]) -> Result<Vec<String>> {
        Ok(self
            .run(args)?
            .split('\0')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect())
    }

    /// The three-way merge of three texts at line level, as `git merge-file
    /// --diff3` does it, with markers of `MARKER` characters.
    pub fn merge_file(
        &self,
        scratch: &Path,
        ours: &str,
        base: &str,
        theirs: &str,
    ) -> Result<String> {
        std::fs::create_dir_all(scratch).map_err(|e| Error::io("making the merge folder", e))?;
        let files = [("ours", ours), ("base", base), ("theirs", theirs)];
        let mut paths = Vec::new();
        for (name, text) in files {
            let path = scratch.join(name);
            std::fs::write(&path, text).map_err(|e| Error::io("writing a merge input", e))?;
            paths.push(path.to_string_lossy().into_owned());
        }
        let marker = MARKER.to_string();
        let out = self.output(&[
            "merge-file",
            "-p",
            "--diff3",
            &format!("--marker-size={marker}"),
            "-L",
            "ours",
            "-L",
            "base",
            "-L",
            "theirs",
            &paths[0],
            &paths[1],
            &paths[2],
        ])?;
        // The exit code is the number of conflicts; a negative one (255 and
        // up) is an error.
        match out.status.code() {
            Some(code) if (0..128).contains(&code) => {
                Ok(String::from_utf8_lossy(&out.stdout).into_owned())
            }
            _ => Err(Error::Git(failure(&["merge-file"], &out))),
        }
    }
}

/// The width of merge-file's markers: long enough that no line of a note
/// is mistaken for one.
pub const MARKER: usize = 41;

fn failure(args: &[&str], out: &Output) -> String {
    let said = String::from_utf8_lossy(&out.stderr);
    let said = said.trim();
    let said = if said.is_empty() {
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    } else {
        said.to_string()
    };
    format!(
        "`git {}` failed: {}",
        args.first().copied().unwrap_or(""),
        said.lines().take(6).collect::<Vec<_>>().join(" / ")
    )
}
