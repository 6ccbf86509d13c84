//! Vault-relative paths, and their confinement to the vault on disk.
//!
//! Every path that reaches the vault — from the CLI, an agent's tool call, an
//! HTTP request — is first parsed into a [`VaultPath`]. Parsing is where `..`,
//! absolute paths and hidden names (`.knower`, `.git`, …) are refused, so a
//! `VaultPath` can always be joined to the vault root safely. Symbolic links
//! are the one escape parsing cannot see; [`resolve`] checks them against the
//! disk.

use std::cmp::Ordering;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Longest name a single path component may have (the common file system limit).
const MAX_COMPONENT_BYTES: usize = 255;

/// A normalised path relative to the vault root: components joined by `/`,
/// no `.` or `..`, no hidden component, no leading or trailing slash. The empty
/// path is the root itself.
///
/// Ordering is component by component, so a folder sorts directly before its
/// contents (`a` < `a/b` < `a.md`), which is what a tree listing needs.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct VaultPath(String);

impl VaultPath {
    /// The root of the vault.
    pub fn root() -> Self {
        VaultPath(String::new())
    }

    /// Parses a user- or model-supplied path. Backslashes are read as
    /// separators and `./` prefixes are dropped; anything that could name a
    /// place outside the vault, or inside its hidden folders, is refused.
    pub fn parse(input: &str) -> Result<Self> {
        let invalid = |reason: &'static str| Error::InvalidPath {
            path: input.to_string(),
            reason,
        };
        if input.chars().any(|c| c.is_control()) {
            return Err(invalid("it contains a control character"));
        }
        let unified = input.replace('\\', "/");
        let trimmed = unified.trim();
        if trimmed.starts_with('/') || looks_like_drive(trimmed) {
            return Err(invalid(
                "absolute paths are not allowed; give a path relative to the vault",
            ));
        }
        if trimmed == "~" || trimmed.starts_with("~/") {
            return Err(invalid(
                "home-relative paths are not allowed; give a path relative to the vault",
            ));
        }
        let mut parts: Vec<&str> = Vec::new();
        for part in trimmed.split('/') {
            match part {
                "" | "." => continue,
                ".." => return Err(invalid("`..` is not allowed: paths stay inside the vault")),
                ".knower" => {
                    return Err(invalid(
                        ".knower is Knower's internal folder and cannot be accessed",
                    ));
                }
                _ if part.starts_with('.') => {
                    return Err(invalid(
                        "hidden files and folders (.git, .obsidian, …) are not part of the vault",
                    ));
                }
                _ if part.len() > MAX_COMPONENT_BYTES => {
                    return Err(invalid("a name in it is longer than 255 bytes"));
                }
                _ => parts.push(part),
            }
        }
        Ok(VaultPath(parts.join("/")))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    pub fn components(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').filter(|c| !c.is_empty())
    }

    /// Number of components; the root has depth 0.
    pub fn depth(&self) -> usize {
        self.components().count()
    }

    /// The last component (empty for the root).
    pub fn name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or("")
    }

    pub fn parent(&self) -> Option<VaultPath> {
        if self.is_root() {
            return None;
        }
        Some(match self.0.rfind('/') {
            Some(i) => VaultPath(self.0[..i].to_string()),
            None => VaultPath::root(),
        })
    }

    /// Every proper ancestor, nearest first, excluding the root.
    pub fn ancestors(&self) -> impl Iterator<Item = VaultPath> + '_ {
        std::iter::successors(self.parent(), |p| p.parent()).filter(|p| !p.is_root())
    }

    /// Appends one already-validated component.
    pub fn child(&self, name: &str) -> Result<VaultPath> {
        if self.is_root() {
            VaultPath::parse(name)
        } else {
            VaultPath::parse(&format!("{}/{}", self.0, name))
        }
    }

    /// True when `self` is `prefix` or lies inside it, component-wise.
    pub fn starts_with(&self, prefix: &VaultPath) -> bool {
        prefix.is_root()
            || self.0 == prefix.0
            || (self.0.starts_with(&prefix.0)
                && self.0.as_bytes().get(prefix.0.len()) == Some(&b'/'))
    }

    /// Replaces the leading `from` of this path with `to` (used by moves).
    pub fn rebase(&self, from: &VaultPath, to: &VaultPath) -> Option<VaultPath> {
        if !self.starts_with(from) {
            return None;
        }
        let rest = self.0[from.0.len()..].trim_start_matches('/');
        Some(match (to.is_root(), rest.is_empty()) {
            (_, true) => to.clone(),
            (true, false) => VaultPath(rest.to_string()),
            (false, false) => VaultPath(format!("{}/{}", to.0, rest)),
        })
    }

    pub fn extension(&self) -> Option<&str> {
        let name = self.name();
        name.rfind('.').filter(|&i| i > 0).map(|i| &name[i + 1..])
    }

    /// Markdown files carry frontmatter maintained by the background job.
    pub fn is_markdown(&self) -> bool {
        matches!(self.extension(), Some(e) if e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
    }

    /// The location on disk, without any symlink check (see [`resolve`]).
    pub(crate) fn on_disk(&self, root: &Path) -> PathBuf {
        let mut p = root.to_path_buf();
        p.extend(self.components());
        p
    }

    /// Turns a path on disk back into a vault path, if it lies in the vault
    /// and is not hidden.
    pub(crate) fn from_disk(root: &Path, path: &Path) -> Option<VaultPath> {
        let rel = path.strip_prefix(root).ok()?;
        let text = rel.to_str()?;
        VaultPath::parse(text).ok()
    }
}

fn looks_like_drive(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

impl Ord for VaultPath {
    fn cmp(&self, other: &Self) -> Ordering {
        self.components().cmp(other.components())
    }
}

impl PartialOrd for VaultPath {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for VaultPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_root() {
            f.write_str("/")
        } else {
            f.write_str(&self.0)
        }
    }
}

impl fmt::Debug for VaultPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl serde::Serialize for VaultPath {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for VaultPath {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        VaultPath::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// How a resolved path will be used: reading may follow symbolic links that
/// stay inside the vault; writing never goes through a link at all, so a
/// change is always recorded under the one path where the file really is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Read,
    Write,
}

/// Maps a vault path to its place on disk, refusing symbolic links that lead
/// outside the vault (or into its hidden folders), and any link at all when
/// writing. `root` must be canonical.
pub(crate) fn resolve(root: &Path, path: &VaultPath, access: Access) -> Result<PathBuf> {
    let mut current = root.to_path_buf();
    for component in path.components() {
        current.push(component);
        let Ok(meta) = std::fs::symlink_metadata(&current) else {
            // Nothing exists from here on, so no link can redirect the rest.
            return Ok(path.on_disk(root));
        };
        if !meta.file_type().is_symlink() {
            continue;
        }
        if access == Access::Write {
            return Err(Error::Symlink {
                path: path.to_string(),
            });
        }
        let target = std::fs::canonicalize(&current).map_err(|_| Error::OutsideVault {
            path: path.to_string(),
        })?;
        match VaultPath::from_disk(root, &target) {
            Some(_) => current = target,
            None => {
                return Err(Error::OutsideVault {
                    path: path.to_string(),
                });
            }
        }
    }
    Ok(current)
}

/// A name for a file or folder made from a title: lower-case letters and
/// digits, runs of anything else as one `-`.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> String {
        VaultPath::parse(s).unwrap().as_str().to_string()
    }

    #[test]
    fn normalises_harmless_forms() {
        assert_eq!(ok("projects/acme/state.md"), "projects/acme/state.md");
        assert_eq!(ok("./projects//acme/"), "projects/acme");
        assert_eq!(ok("projects\\acme\\x.md"), "projects/acme/x.md");
        assert_eq!(ok(""), "");
        assert_eq!(ok("."), "");
    }

    #[test]
    fn refuses_escapes_and_hidden_names() {
        for bad in [
            "../x",
            "a/../../x",
            "a/..",
            "/etc/passwd",
            "C:\\Windows",
            "~/notes",
            ".knower/journal",
            "a/.git/hooks/pre-commit",
            ".obsidian",
            "a\0b",
            "a\nb",
        ] {
            assert!(VaultPath::parse(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn orders_folders_before_their_contents() {
        let mut v: Vec<VaultPath> = ["a.md", "a/b.md", "a", "a-b", "b"]
            .iter()
            .map(|s| VaultPath::parse(s).unwrap())
            .collect();
        v.sort();
        let names: Vec<&str> = v.iter().map(|p| p.as_str()).collect();
        assert_eq!(names, ["a", "a/b.md", "a-b", "a.md", "b"]);
    }

    #[test]
    fn prefix_and_rebase_are_component_wise() {
        let p = |s| VaultPath::parse(s).unwrap();
        assert!(p("a/b").starts_with(&p("a")));
        assert!(!p("ab/c").starts_with(&p("a")));
        assert!(p("a").starts_with(&VaultPath::root()));
        assert_eq!(p("a/b/c.md").rebase(&p("a/b"), &p("x")), Some(p("x/c.md")));
        assert_eq!(p("a/b").rebase(&p("a/b"), &p("x/y")), Some(p("x/y")));
        assert_eq!(p("ab").rebase(&p("a"), &p("x")), None);
    }

    #[test]
    fn names_parents_and_extensions() {
        let p = VaultPath::parse("projects/acme/notes.MD").unwrap();
        assert_eq!(p.name(), "notes.MD");
        assert!(p.is_markdown());
        assert_eq!(p.parent().unwrap().as_str(), "projects/acme");
        let ancestors: Vec<String> = p.ancestors().map(|a| a.as_str().to_string()).collect();
        assert_eq!(ancestors, ["projects/acme", "projects"]);
        assert_eq!(VaultPath::parse("README").unwrap().extension(), None);
    }
}
