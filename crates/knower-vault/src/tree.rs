//! The vault as a tree with token counts: what the `tree` tool returns and
//! what tree.md shows. Built from the manifest alone, never by reading files,
//! so regenerating tree.md after each write stays cheap at 10,000 notes.

use std::collections::BTreeMap;
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
    let pad = "  ".repeat(indent);
    let name = escape(&node.name);
    match node.kind {
        EntryKind::Folder => {
            let _ = writeln!(out, "{pad}- {name}/ · {}", folder_summary(node));
        }
        EntryKind::File => {
            let _ = write!(out, "{pad}- {name}");
            match node.tokens {
                Some(t) => {
                    let _ = write!(out, " · {t} tokens");
                }
                None => {
                    let _ = write!(out, " · {}", human_size(node.size));
                }
            }
            if let Some(updated) = &node.updated {
                let _ = write!(out, " · {}", short_time(updated));
            }
            if let Some(problem) = &node.problem {
                let _ = write!(out, " · ⚠ {problem}");
            }
            out.push('\n');
        }
    }
    for child in &node.children {
        render_node(child, indent + 1, out);
    }
}

/// `3 files · 1204 tokens`, or `empty`.
pub fn folder_summary(node: &TreeNode) -> String {
    match node.files {
        0 => "empty".to_string(),
        1 => format!("1 file · {} tokens", node.tokens.unwrap_or(0)),
        n => format!("{n} files · {} tokens", node.tokens.unwrap_or(0)),
    }
}

/// Characters that would turn a file name into markdown or HTML.
fn escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '\\' | '`' | '*' | '[' | ']' | '<' | '>') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `2026-11-22T10:15:03` → `2026-11-22 10:15`; anything else as written.
fn short_time(stamp: &str) -> String {
    let b = stamp.as_bytes();
    if b.len() >= 16
        && b[4] == b'-'
        && b[7] == b'-'
        && (b[10] == b'T' || b[10] == b' ')
        && b[13] == b':'
    {
        format!("{} {}", &stamp[..10], &stamp[11..16])
    } else {
        stamp.chars().take(32).collect()
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

    #[test]
    fn escapes_markup_in_names() {
        let map = entries(&[("<script>*x*.md", file(1, 4))]);
        let tree = build(&map, &VaultPath::root(), None).unwrap();
        assert!(render(&tree).starts_with("- \\<script\\>\\*x\\*.md"));
    }
}
