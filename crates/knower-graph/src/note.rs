//! One entity as one note, `graph/<slug of its name>.md`:
//!
//! ```markdown
//! ---
//! type: person
//! name: "Alice"
//! ---
//! # Alice
//!
//! ## Observations
//!
//! - works at Acme Corp
//! - likes programming
//!
//! ## Relations
//!
//! - works_at [[Acme Corp]]
//! ```
//!
//! A note in `graph/` is an entity when its frontmatter has `type`; its
//! name is `name`, else its title. Observations are the list items of the
//! `## Observations` section (a line break inside one continues on a line
//! indented by two spaces); relations are the items `- <type> [[<target>]]`
//! of `## Relations`, going from this entity to the target. Knower rewrites
//! only those two lists: any other text a person adds to the note, in those
//! sections or elsewhere, is kept.

use knower_vault::frontmatter;

pub const OBSERVATIONS: &str = "## Observations";
pub const RELATIONS: &str = "## Relations";

/// An entity as read from its note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub name: String,
    pub entity_type: String,
    pub observations: Vec<String>,
    /// (relation type, target entity name), in the note's order.
    pub relations: Vec<(String, String)>,
}

/// Reads a note; `None` when it is not an entity (no `type`, or
/// frontmatter that cannot be read).
pub fn parse(text: &str) -> Option<Note> {
    let front = frontmatter::parse(text).ok()??;
    let entity_type = scalar(front.get("type")?)?;
    let body = frontmatter::split(text).ok()?.body;
    let name = front.get("name").and_then(scalar).or_else(|| {
        body.lines()
            .find_map(|line| line.strip_prefix("# ").map(|t| t.trim().to_string()))
    })?;
    let mut observations = Vec::new();
    let mut relations = Vec::new();
    for (heading, lines) in sections(body) {
        match heading {
            Some(OBSERVATIONS) => observations = items(&lines),
            Some(RELATIONS) => {
                relations = items(&lines)
                    .iter()
                    .filter_map(|item| relation(item))
                    .collect()
            }
            _ => {}
        }
    }
    Some(Note {
        name,
        entity_type,
        observations,
        relations,
    })
}

/// A new entity's note.
pub fn render(name: &str, entity_type: &str, observations: &[String]) -> String {
    let quoted = |s: &str| serde_json::to_string(s).expect("a string serialises");
    let mut text = format!(
        "---\ntype: {}\nname: {}\n---\n# {}\n",
        quoted(entity_type),
        quoted(name),
        name
    );
    text = rewrite(&text, observations, &[]);
    text
}

/// The note `text` with its observations and relations replaced; every
/// other line is kept. A missing section is added at the end; an empty one
/// is left out of a new note but kept (empty) in one that has it.
pub fn rewrite(text: &str, observations: &[String], relations: &[(String, String)]) -> String {
    let (head, body) = match frontmatter::split(text) {
        Ok(split) => (&text[..text.len() - split.body.len()], split.body),
        Err(_) => ("", text),
    };
    let mut out = String::from(head);
    let mut wrote_observations = false;
    let mut wrote_relations = false;
    for (heading, lines) in sections(body) {
        match heading {
            Some(OBSERVATIONS) => {
                section(&mut out, OBSERVATIONS, &lines, observations, |o| o.clone());
                wrote_observations = true;
            }
            Some(RELATIONS) => {
                section(&mut out, RELATIONS, &lines, relations, |(kind, to)| {
                    format!("{kind} [[{to}]]")
                });
                wrote_relations = true;
            }
            Some(other) => {
                out.push_str(other);
                out.push('\n');
                push_lines(&mut out, &lines);
            }
            None => push_lines(&mut out, &lines),
        }
    }
    if !wrote_observations && !observations.is_empty() {
        section(&mut out, OBSERVATIONS, &[], observations, |o| o.clone());
    }
    if !wrote_relations && !relations.is_empty() {
        section(&mut out, RELATIONS, &[], relations, |(kind, to)| {
            format!("{kind} [[{to}]]")
        });
    }
    out
}

fn section<T>(
    out: &mut String,
    heading: &str,
    lines: &[&str],
    values: &[T],
    show: impl Fn(&T) -> String,
) {
    if !out.is_empty() && !out.ends_with("\n\n") {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(heading);
    out.push_str("\n\n");
    // A person's own lines in the section (not list items) stay, first.
    let prose = prose(lines);
    if !prose.is_empty() {
        push_lines(out, &prose);
        out.push('\n');
    }
    for value in values {
        let text = show(value);
        let mut lines = text.split('\n');
        out.push_str("- ");
        out.push_str(lines.next().unwrap_or(""));
        out.push('\n');
        for more in lines {
            out.push_str("  ");
            out.push_str(more);
            out.push('\n');
        }
    }
    out.push('\n');
}

fn push_lines(out: &mut String, lines: &[&str]) {
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
}

/// The body split at `## ` headings: (heading, the lines under it); the
/// first piece, before any heading, has `None`.
fn sections(body: &str) -> Vec<(Option<&str>, Vec<&str>)> {
    let mut out: Vec<(Option<&str>, Vec<&str>)> = vec![(None, Vec::new())];
    let mut fence = false;
    for line in body.lines() {
        if line.starts_with("```") {
            fence = !fence;
        }
        if !fence && line.starts_with("## ") {
            out.push((Some(line.trim_end()), Vec::new()));
        } else {
            out.last_mut().expect("never empty").1.push(line);
        }
    }
    out
}

/// What each line of a section is: the start of a list item, more of the
/// item above (indented by two spaces, or blank inside it), or a person's
/// own text (also anything inside a code block).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Line {
    Item,
    More,
    Prose,
}

fn classify(lines: &[&str]) -> Vec<Line> {
    let mut out = Vec::with_capacity(lines.len());
    let mut open = false;
    let mut fence = false;
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("```") {
            fence = !fence;
            open = false;
            out.push(Line::Prose);
        } else if fence {
            out.push(Line::Prose);
        } else if line.starts_with("- ") || *line == "-" {
            open = true;
            out.push(Line::Item);
        } else if open
            && (line.starts_with("  ") || (line.trim().is_empty() && continues(&lines[i + 1..])))
        {
            out.push(Line::More);
        } else {
            open = false;
            out.push(Line::Prose);
        }
    }
    out
}

/// The list items of a section, continuation lines joined with `\n`.
fn items(lines: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (line, kind) in lines.iter().zip(classify(lines)) {
        match kind {
            Line::Item => out.push(line.strip_prefix("- ").unwrap_or("").to_string()),
            Line::More => {
                let last = out.last_mut().expect("more follows an item");
                last.push('\n');
                last.push_str(line.strip_prefix("  ").unwrap_or(""));
            }
            Line::Prose => {}
        }
    }
    out
}

fn continues(rest: &[&str]) -> bool {
    rest.iter()
        .find(|line| !line.trim().is_empty())
        .is_some_and(|line| line.starts_with("  "))
}

/// The lines of a section that are not part of its list.
fn prose<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    let mut out: Vec<&str> = lines
        .iter()
        .zip(classify(lines))
        .filter(|(_, kind)| *kind == Line::Prose)
        .map(|(line, _)| *line)
        .collect();
    // Blank lines around the prose are the section's own spacing.
    while out.first().is_some_and(|l| l.trim().is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    out
}

/// `works_at [[Acme Corp]]` → (`works_at`, `Acme Corp`).
fn relation(item: &str) -> Option<(String, String)> {
    let item = item.trim_end();
    let inner = item.strip_suffix("]]")?;
    let open = inner.rfind("[[")?;
    let kind = inner[..open].trim_end();
    let target = &inner[open + 2..];
    (!kind.is_empty() && !target.is_empty()).then(|| (kind.to_string(), target.to_string()))
}

fn scalar(value: &serde_json::Value) -> Option<String> {
    match value {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        serde_json::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_note_reads_back() {
        let observations = vec![
            "works at Acme Corp".to_string(),
            "two\nlines".to_string(),
            "- looks like a list".to_string(),
            "```".to_string(),
            "a fence\n```\ninside".to_string(),
            String::new(),
        ];
        let text = render("Alice \"Al\" Smith", "person: engineer", &observations);
        let text = rewrite(
            &text,
            &observations,
            &[("works_at".into(), "Acme Corp".into())],
        );
        let note = parse(&text).unwrap();
        assert_eq!(note.name, "Alice \"Al\" Smith");
        assert_eq!(note.entity_type, "person: engineer");
        assert_eq!(note.observations, observations, "{text}");
        assert_eq!(note.relations, [("works_at".into(), "Acme Corp".into())]);
        assert!(
            text.contains("\n## Relations\n\n- works_at [[Acme Corp]]\n"),
            "{text}"
        );
    }

    #[test]
    fn a_persons_own_text_survives_a_rewrite() {
        let text = "---\ntype: company\n---\n# Acme\n\nFounded long ago.\n\n## Observations\n\nWhat we know:\n\n- tech company\n\n## History\n\n- 1999: founded\n";
        let note = parse(text).unwrap();
        assert_eq!(note.name, "Acme");
        assert_eq!(note.observations, ["tech company"]);
        let rewritten = rewrite(
            text,
            &["tech company".into(), "hiring".into()],
            &[("competes_with".into(), "Globex".into())],
        );
        for kept in [
            "Founded long ago.",
            "What we know:",
            "## History",
            "- 1999: founded",
        ] {
            assert!(rewritten.contains(kept), "{kept} lost: {rewritten}");
        }
        let again = parse(&rewritten).unwrap();
        assert_eq!(again.observations, ["tech company", "hiring"]);
        assert_eq!(again.relations, [("competes_with".into(), "Globex".into())]);
        // Rewriting with the same data changes nothing.
        assert_eq!(
            rewrite(&rewritten, &again.observations, &again.relations),
            rewritten
        );
    }

    #[test]
    fn notes_that_are_not_entities_are_ignored() {
        assert_eq!(parse("# Just a note\n"), None);
        assert_eq!(parse("---\ntitle: x\n---\n# No type\n"), None);
        assert_eq!(parse("---\ntype: [unclosed\n---\n# Broken\n"), None);
        // A heading inside a code block is not a section.
        let text = "---\ntype: t\n---\n# T\n\n## Observations\n\n- a\n\n```\n## Relations\n- x [[Y]]\n```\n";
        let note = parse(text).unwrap();
        assert!(note.relations.is_empty());
        assert_eq!(note.observations, ["a"]);
        let rewritten = rewrite(text, &["a".into(), "b".into()], &[]);
        assert!(
            rewritten.contains("```\n## Relations\n- x [[Y]]\n```\n"),
            "{rewritten}"
        );
        assert_eq!(parse(&rewritten).unwrap().observations, ["a", "b"]);
    }
}
