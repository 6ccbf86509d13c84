//! The vault as a tree with token counts: what the `tree` tool returns and
//! what tree.md shows. Built from the manifest alone, never by reading files,
//! so regenerating tree.md after each write stays cheap at 10,000 notes.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::iter::Peekable;

use serde::Serialize;

use crate::manifest::{Entry, EntryKind};
use crate::path::VaultPath;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TreeNode {
    pub path: VaultPath,
    pub name: String,
    pub kind: EntryKind,
    /// For a folder, the sum over every file below it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// Bytes; for a folder, the sum over every file below it.
    pub size: u64,
    /// For a folder, the number of files below it at any depth.
    #[serde(skip_serializing_if = "is_zero")]
    pub files: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Children down to the requested depth; folders come first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<TreeNode>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl TreeNode {
    fn leaf(path: &VaultPath, entry: &Entry) -> TreeNode {
        TreeNode {
            path: path.clone(),
            name: path.name().to_string(),
            kind: entry.kind,
            tokens: entry.tokens,
            size: entry.size,
            files: 0,
            updated: entry.updated.clone(),
            problem: entry.problem.clone(),
            children: Vec::new(),
        }
    }

    fn folder(path: &VaultPath) -> TreeNode {
        TreeNode {
            path: path.clone(),
            name: path.name().to_string(),
            kind: EntryKind::Folder,
            tokens: Some(0),
            size: 0,
            files: 0,
            updated: None,
            problem: None,
            children: Vec::new(),
        }
    }
}

/// The tree at `base`, with children down to `depth` levels (all when
/// `None`); folder totals always count everything below them.
pub(crate) fn build(
    entries: &BTreeMap<VaultPath, Entry>,
    base: &VaultPath,
    depth: Option<usize>,
) -> Option<TreeNode> {
    if let Some(entry) = entries.get(base)
        && entry.kind == EntryKind::File
    {
        return Some(TreeNode::leaf(base, entry));
    }
    if !base.is_root() && !entries.contains_key(base) {
        return None;
    }
    let mut below = entries
        .range(base.clone()..)
        .take_while(|(p, _)| p.starts_with(base))
        .filter(|(p, _)| *p != base)
        .peekable();
    Some(build_folder(base, &mut below, 1, depth))
}

fn build_folder<'a>(
    path: &VaultPath,
    below: &mut Peekable<impl Iterator<Item = (&'a VaultPath, &'a Entry)>>,
    level: usize,
    depth: Option<usize>,
) -> TreeNode {
    let mut node = TreeNode::folder(path);
    let show = depth.is_none_or(|d| level <= d);
    while let Some(&(next, entry)) = below.peek() {
        if !next.starts_with(path) {
            break;
        }
        // The child of `path` on the way to `next` (a folder missing from the
        // manifest is filled in rather than dropping what is inside it).
        let child = next
            .components()
            .nth(path.depth())
            .and_then(|name| path.child(name).ok())
            .expect("entries below a folder are deeper than it");
        let child_node = if child == *next && entry.kind == EntryKind::File {
            below.next();
            TreeNode::leaf(next, entry)
        } else {
            if child == *next {
                below.next();
            }
            build_folder(&child, below, level + 1, depth)
        };
        node.size += child_node.size;
        node.tokens = Some(node.tokens.unwrap_or(0) + child_node.tokens.unwrap_or(0));
        node.files += match child_node.kind {
            EntryKind::File => 1,
            EntryKind::Folder => child_node.files,
        };
        if show {
            node.children.push(child_node);
        }
    }
    // Folders first, each group in name order (the manifest order).
    node.children.sort_by_key(|c| c.kind != EntryKind::Folder);
    node
}

/// The children of `node` as a nested markdown list, one line each:
/// `- acme/ · 4 files · 900 tokens`, `- state.md · 120 tokens · 2026-11-22 10:15`.
pub fn render(node: &TreeNode) -> String {
    let mut out = String::new();
    for child in &node.children {
        render_node(child, 0, &mut out);
    }
    out
}

fn render_node(node: &TreeNode, indent: usize, out: &mut String) {
    let item = match node.kind {
        EntryKind::Folder => Item::Folder(Totals {
            files: node.files,
            tokens: node.tokens.unwrap_or(0),
        }),
        EntryKind::File => Item::File {
            tokens: node.tokens,
            size: node.size,
            updated: node.updated.as_deref(),
            problem: node.problem.as_deref(),
        },
    };
    write_line(out, indent, &node.name, item);
    for child in &node.children {
        render_node(child, indent + 1, out);
    }
}

/// What one line of a listing says about its file or folder.
enum Item<'a> {
    Folder(Totals),
    File {
        tokens: Option<u64>,
        size: u64,
        updated: Option<&'a str>,
        problem: Option<&'a str>,
    },
}

/// The one place the line format is written, for `tree` and tree.md alike.
fn write_line(out: &mut String, indent: usize, name: &str, item: Item<'_>) {
    for _ in 0..indent {
        out.push_str("  ");
    }
    out.push_str("- ");
    escape_into(out, name);
    match item {
        Item::Folder(totals) => {
            let _ = writeln!(out, "/ · {}", totals.summary());
        }
        Item::File {
            tokens,
            size,
            updated,
            problem,
        } => {
            let _ = match tokens {
                Some(t) => write!(out, " · {t} tokens"),
                None => write!(out, " · {}", human_size(size)),
            };
            if let Some(updated) = updated {
                out.push_str(" · ");
                short_time_into(out, updated);
            }
            if let Some(problem) = problem {
                let _ = write!(out, " · ⚠ {problem}");
            }
            out.push('\n');
        }
    }
}

/// Files and tokens below a folder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Totals {
    files: u64,
    tokens: u64,
}

impl Totals {
    fn of(entry: Option<&Entry>) -> Totals {
        match entry {
            Some(e) if e.kind == EntryKind::File => Totals {
                files: 1,
                tokens: e.tokens.unwrap_or(0),
            },
            _ => Totals::default(),
        }
    }

    fn summary(self) -> String {
        match self.files {
            0 => "empty".to_string(),
            1 => format!("1 file · {} tokens", self.tokens),
            n => format!("{n} files · {} tokens", self.tokens),
        }
    }
}

/// `3 files · 1204 tokens`, or `empty`.
pub fn folder_summary(node: &TreeNode) -> String {
    Totals {
        files: node.files,
        tokens: node.tokens.unwrap_or(0),
    }
    .summary()
}

/// tree.md's lines, kept up to date entry by entry. A change re-renders the
/// lines of the changed path and of its ancestor folders (whose totals
/// moved), so regenerating tree.md after a write costs a few formatted lines
/// and one concatenation, not a walk over 10,000 entries.
#[derive(Default)]
pub(crate) struct Listing {
    /// Lines in tree order (folders first, then files, by name), keyed by
    /// [`sort_key`].
    lines: BTreeMap<Vec<u8>, String>,
    /// Totals of every folder, the root included.
    totals: HashMap<VaultPath, Totals>,
}

impl Listing {
    pub(crate) fn build(entries: &BTreeMap<VaultPath, Entry>) -> Listing {
        let mut listing = Listing::default();
        listing.totals.insert(VaultPath::root(), Totals::default());
        for (path, entry) in entries {
            listing.shift_ancestors(entries, path, Totals::of(Some(entry)), Totals::default());
        }
        for (path, entry) in entries {
            listing.render(path, entry);
        }
        listing
    }

    /// Follows a change of `path` from `old` to its entry now in `entries`.
    pub(crate) fn update(
        &mut self,
        entries: &BTreeMap<VaultPath, Entry>,
        path: &VaultPath,
        old: Option<&Entry>,
    ) {
        let new = entries.get(path);
        let (added, removed) = (Totals::of(new), Totals::of(old));
        if added != removed {
            self.shift_ancestors(entries, path, added, removed);
            for folder in path.ancestors() {
                if let Some(entry) = entries.get(&folder) {
                    self.render(&folder, entry);
                }
            }
        }
        if let Some(old) = old {
            self.lines.remove(&sort_key(path, old.kind));
        }
        match new {
            Some(entry) => self.render(path, entry),
            // A removed folder's totals go once nothing is counted in them
            // (its contents may be recorded as removed after it).
            None if self.totals.get(path) == Some(&Totals::default()) => {
                self.totals.remove(path);
            }
            None => {}
        }
    }

    fn shift_ancestors(
        &mut self,
        entries: &BTreeMap<VaultPath, Entry>,
        path: &VaultPath,
        added: Totals,
        removed: Totals,
    ) {
        for folder in path.ancestors().chain(std::iter::once(VaultPath::root())) {
            let totals = self.totals.entry(folder.clone()).or_default();
            totals.files = (totals.files + added.files).saturating_sub(removed.files);
            totals.tokens = (totals.tokens + added.tokens).saturating_sub(removed.tokens);
            if *totals == Totals::default() && !folder.is_root() && !entries.contains_key(&folder) {
                self.totals.remove(&folder);
            }
        }
    }

    fn render(&mut self, path: &VaultPath, entry: &Entry) {
        let item = match entry.kind {
            EntryKind::Folder => Item::Folder(self.totals.get(path).copied().unwrap_or_default()),
            EntryKind::File => Item::File {
                tokens: entry.tokens,
                size: entry.size,
                updated: entry.updated.as_deref(),
                problem: entry.problem.as_deref(),
            },
        };
        let mut line = String::new();
        write_line(&mut line, path.depth() - 1, path.name(), item);
        self.lines.insert(sort_key(path, entry.kind), line);
    }

    /// The body of tree.md.
    pub(crate) fn tree_md(&self) -> String {
        let root = self
            .totals
            .get(&VaultPath::root())
            .copied()
            .unwrap_or_default();
        let size: usize = self.lines.values().map(String::len).sum();
        let mut out = String::with_capacity(size + 256);
        let _ = write!(
            out,
            "# Vault tree\n\n\
             Generated by Knower after every change; edits to this file are overwritten. \
             Tokens are ceil(characters / 4) of each note's body.\n\n\
             **{} files · {} tokens**\n\n",
            root.files, root.tokens
        );
        for line in self.lines.values() {
            out.push_str(line);
        }
        out
    }
}

/// Orders a listing: each component becomes `0name\0` for a folder or
/// `1name\0` for a file, so byte order puts a folder's contents right after
/// it and folders before files at every level.
fn sort_key(path: &VaultPath, kind: EntryKind) -> Vec<u8> {
    let mut key = Vec::with_capacity(path.as_str().len() + 2 * path.depth());
    let last = path.depth().saturating_sub(1);
    for (i, component) in path.components().enumerate() {
        key.push(if i == last && kind == EntryKind::File {
            b'1'
        } else {
            b'0'
        });
        key.extend_from_slice(component.as_bytes());
        key.push(0);
    }
    key
}

/// A file name with the characters that would make markdown or HTML of it
/// escaped.
fn escape_into(out: &mut String, name: &str) {
    for c in name.chars() {
        if matches!(c, '\\' | '`' | '*' | '[' | ']' | '<' | '>') {
            out.push('\\');
        }
        out.push(c);
    }
}

/// `2026-11-22T10:15:03` → `2026-11-22 10:15`; anything else as written
/// (cut at 32 characters).
fn short_time_into(out: &mut String, stamp: &str) {
    let b = stamp.as_bytes();
    if b.len() >= 16
        && b[4] == b'-'
        && b[7] == b'-'
        && (b[10] == b'T' || b[10] == b' ')
        && b[13] == b':'
    {
        out.push_str(&stamp[..10]);
        out.push(' ');
        out.push_str(&stamp[11..16]);
    } else {
        out.extend(stamp.chars().take(32));
    }
}

pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(tokens: u64, size: u64) -> Entry {
        Entry {
            kind: EntryKind::File,
            tokens: Some(tokens),
            size,
            updated: Some("2026-11-22T10:15:03".into()),
            ..Entry::folder()
        }
    }

    fn entries(list: &[(&str, Entry)]) -> BTreeMap<VaultPath, Entry> {
        list.iter()
            .map(|(p, e)| (VaultPath::parse(p).unwrap(), e.clone()))
            .collect()
    }

    #[test]
    fn renders_folders_first_with_totals() {
        let map = entries(&[
            ("a.md", file(10, 40)),
            ("inbox", Entry::folder()),
            ("projects", Entry::folder()),
            ("projects/acme", Entry::folder()),
            ("projects/acme/state.md", file(5, 20)),
            ("projects/acme/tasks.md", file(7, 28)),
            (
                "projects/z.png",
                Entry {
                    tokens: None,
                    ..file(0, 2048)
                },
            ),
        ]);
        let tree = build(&map, &VaultPath::root(), None).unwrap();
        assert_eq!(tree.files, 4);
        assert_eq!(tree.tokens, Some(22));
        assert_eq!(
            render(&tree),
            "- inbox/ · empty\n\
             - projects/ · 3 files · 12 tokens\n  \
               - acme/ · 2 files · 12 tokens\n    \
                 - state.md · 5 tokens · 2026-11-22 10:15\n    \
                 - tasks.md · 7 tokens · 2026-11-22 10:15\n  \
               - z.png · 2.0 KB · 2026-11-22 10:15\n\
             - a.md · 10 tokens · 2026-11-22 10:15\n"
        );
    }

    #[test]
    fn depth_limits_children_but_not_totals() {
        let map = entries(&[
            ("p", Entry::folder()),
            ("p/q", Entry::folder()),
            ("p/q/deep.md", file(3, 12)),
        ]);
        let tree = build(&map, &VaultPath::root(), Some(1)).unwrap();
        assert_eq!(render(&tree), "- p/ · 1 file · 3 tokens\n");
        let sub = build(&map, &VaultPath::parse("p").unwrap(), None).unwrap();
        assert_eq!(sub.children[0].children[0].name, "deep.md");
    }

    #[test]
    fn fills_in_folders_missing_from_the_manifest() {
        let map = entries(&[("x/y/z.md", file(1, 4))]);
        let tree = build(&map, &VaultPath::root(), None).unwrap();
        assert_eq!(tree.children[0].children[0].children[0].name, "z.md");
    }

    use proptest::prelude::*;

    /// An operation on the manifest: put a file (with ancestors, as the
    /// pipeline records them) or remove a subtree in either order.
    #[derive(Debug, Clone)]
    enum Op {
        File(String, u64),
        Remove(String, bool),
    }

    fn op() -> impl Strategy<Value = Op> {
        let path =
            prop::collection::vec(prop::sample::select(vec!["a", "b", "a.md", "c.txt"]), 1..4)
                .prop_map(|parts| parts.join("/"));
        prop_oneof![
            (path.clone(), 0u64..50).prop_map(|(p, t)| Op::File(p, t)),
            (path, any::<bool>()).prop_map(|(p, children_first)| Op::Remove(p, children_first)),
        ]
    }

    proptest! {
        #[test]
        fn the_incremental_listing_equals_a_fresh_one(ops in prop::collection::vec(op(), 1..40)) {
            let mut entries: BTreeMap<VaultPath, Entry> = BTreeMap::new();
            let mut listing = Listing::build(&entries);
            let set = |entries: &mut BTreeMap<VaultPath, Entry>, listing: &mut Listing, p: VaultPath, e: Option<Entry>| {
                let old = match e {
                    Some(e) => entries.insert(p.clone(), e),
                    None => entries.remove(&p),
                };
                listing.update(entries, &p, old.as_ref());
            };
            for op in ops {
                match op {
                    Op::File(path, tokens) => {
                        let p = VaultPath::parse(&path).unwrap();
                        // Skip puts the pipeline would refuse (a file in the way).
                        if p.ancestors().any(|a| entries.get(&a).is_some_and(|e| e.kind == EntryKind::File))
                            || entries.get(&p).is_some_and(|e| e.kind == EntryKind::Folder)
                        {
                            continue;
                        }
                        let mut ancestors: Vec<VaultPath> = p.ancestors().collect();
                        ancestors.reverse();
                        for a in ancestors {
                            if !entries.contains_key(&a) {
                                set(&mut entries, &mut listing, a, Some(Entry::folder()));
                            }
                        }
                        set(&mut entries, &mut listing, p, Some(file(tokens, tokens * 4)));
                    }
                    Op::Remove(path, children_first) => {
                        let p = VaultPath::parse(&path).unwrap();
                        let mut doomed: Vec<VaultPath> =
                            entries.keys().filter(|k| k.starts_with(&p)).cloned().collect();
                        if children_first {
                            doomed.reverse();
                        }
                        for d in doomed {
                            set(&mut entries, &mut listing, d, None);
                        }
                    }
                }
            }
            let fresh = Listing::build(&entries);
            prop_assert_eq!(&listing.lines, &fresh.lines);
            prop_assert_eq!(listing.tree_md(), fresh.tree_md());
            // And tree.md lists exactly what the `tree` operation renders.
            let tree = build(&entries, &VaultPath::root(), None).unwrap();
            prop_assert!(fresh.tree_md().ends_with(&render(&tree)));
        }
    }

    #[test]
    fn escapes_markup_in_names() {
        let map = entries(&[("<script>*x*.md", file(1, 4))]);
        let tree = build(&map, &VaultPath::root(), None).unwrap();
        assert!(render(&tree).starts_with("- \\<script\\>\\*x\\*.md"));
    }
}
