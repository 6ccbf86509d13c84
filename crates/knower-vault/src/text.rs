//! The text transformations behind `edit` and `append` (seed 003 semantics).

use serde::{Deserialize, Serialize};

use crate::frontmatter;

/// Where `append` puts its block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Position {
    /// Below the frontmatter and below a leading `# Title` (newest-first logs).
    Top,
    #[default]
    Bottom,
}

/// What [`replace_once`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Replaced {
    Done(String),
    /// Not in the body; `in_frontmatter` when it is in the frontmatter.
    Absent {
        in_frontmatter: bool,
    },
    /// In the body this many times: which one was meant is unknown.
    Ambiguous(usize),
}

/// Replaces `old` where it occurs exactly once in the body of a markdown
/// note (the whole text of any other file). The frontmatter is never
/// changed here: its managed keys are Knower's, its others the user's.
pub(crate) fn replace_once(text: &str, old: &str, new: &str, markdown: bool) -> Replaced {
    let head_len = match frontmatter::split(text) {
        Ok(split) if markdown => text.len() - split.body.len(),
        _ => 0,
    };
    let (head, body) = text.split_at(head_len);
    let mut found = body.match_indices(old);
    match (found.next(), found.count()) {
        (None, _) => Replaced::Absent {
            in_frontmatter: head.contains(old),
        },
        (Some((at, _)), 0) => {
            Replaced::Done([head, &body[..at], new, &body[at + old.len()..]].concat())
        }
        (Some(_), more) => Replaced::Ambiguous(more + 1),
    }
}

/// Inserts `block` as whole lines at the top or bottom of `text`.
pub(crate) fn append(text: &str, block: &str, position: Position, markdown: bool) -> String {
    let block = block.trim_end_matches(['\n', '\r']);
    if block.is_empty() {
        return text.to_string();
    }
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    match position {
        Position::Bottom => {
            let separator = if text.is_empty() || text.ends_with('\n') {
                ""
            } else {
                nl
            };
            [text, separator, block, nl].concat()
        }
        Position::Top => {
            let head_len = match frontmatter::split(text) {
                Ok(split) if markdown => text.len() - split.body.len(),
                _ => 0,
            };
            let (head, body) = text.split_at(head_len);
            let at = if markdown { below_title(body) } else { 0 };
            let (before, after) = body.split_at(at);
            let separator = if before.is_empty() || before.ends_with('\n') {
                ""
            } else {
                nl
            };
            [head, before, separator, block, nl, after].concat()
        }
    }
}

/// The offset just after a leading `# Title` line (and one blank line after
/// it), or 0 when the body does not start with a level-1 heading.
fn below_title(body: &str) -> usize {
    let mut at = 0;
    let mut lines = body.split_inclusive('\n').peekable();
    while let Some(line) = lines.peek() {
        if !line.trim().is_empty() {
            break;
        }
        at += line.len();
        lines.next();
    }
    let Some(title) = lines.next() else { return 0 };
    let t = title.trim_end();
    if !(t == "#" || t.starts_with("# ")) {
        return 0;
    }
    at += title.len();
    if let Some(blank) = lines.next().filter(|l| l.trim().is_empty()) {
        at += blank.len();
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_lands_below_frontmatter_and_title() {
        let text = "---\na: 1\n---\n# Changelog\n\n- old\n";
        assert_eq!(
            append(text, "- new", Position::Top, true),
            "---\na: 1\n---\n# Changelog\n\n- new\n- old\n"
        );
    }

    #[test]
    fn top_without_title_lands_below_frontmatter() {
        assert_eq!(
            append("---\na: 1\n---\ntext\n", "x\n", Position::Top, true),
            "---\na: 1\n---\nx\ntext\n"
        );
        assert_eq!(append("# T", "x", Position::Top, true), "# T\nx\n");
        assert_eq!(append("", "x", Position::Top, true), "x\n");
    }

    #[test]
    fn bottom_keeps_lines_whole() {
        assert_eq!(append("a", "b", Position::Bottom, true), "a\nb\n");
        assert_eq!(append("a\n", "b\n\n", Position::Bottom, true), "a\nb\n");
        assert_eq!(append("a\r\n", "b", Position::Bottom, false), "a\r\nb\r\n");
        assert_eq!(append("a\n", "", Position::Bottom, false), "a\n");
    }

    #[test]
    fn a_level_two_heading_is_not_a_title() {
        assert_eq!(
            append("## Sub\ntext\n", "x", Position::Top, true),
            "x\n## Sub\ntext\n"
        );
    }

    #[test]
    fn replaces_in_the_body_only_and_only_one_occurrence() {
        let note = "---\ncreated: 2026-01-01T00:00:00\n---\n# Created a plan\n";
        assert_eq!(
            replace_once(note, "a", "B", true),
            Replaced::Ambiguous(3),
            "`a` is in Created, a and plan"
        );
        assert_eq!(
            replace_once(note, "plan", "map", true),
            Replaced::Done("---\ncreated: 2026-01-01T00:00:00\n---\n# Created a map\n".into())
        );
        assert_eq!(
            replace_once(note, "created:", "x", true),
            Replaced::Absent {
                in_frontmatter: true
            }
        );
        assert_eq!(
            replace_once("a.txt one", "one", "two", false),
            Replaced::Done("a.txt two".into())
        );
    }
}
