//! The three-way merge of one file both machines changed, after git's own
//! merge left it conflicted. What each kind of file needs:
//!
//! - every note: the derived frontmatter fields (`created`, `updated`,
//!   `tokens`) are never merged but recomputed (the earliest `created`, the
//!   latest `updated`, the body's tokens), so they never conflict; the other
//!   entries merge one by one;
//! - append-style files (changelogs, task lists, the harvest's category
//!   files, JSON Lines logs) merge by union: both sides' new lines, in
//!   order; a task line ticked on one side and reworded on the other keeps
//!   both (`- [x]` with the new words);
//! - append-style JSON (the harvest ledger, the gardener's approvals and
//!   rejections) merges record by record;
//! - anything else that both sides changed in the same place is a real
//!   conflict: both versions are kept (see `knower_agents::conflict`).

use std::path::Path;

use knower_agents::conflict::{self, Field, What};
use knower_vault::frontmatter::{self, CREATED, Stamp, TOKENS, UPDATED, Updated};
use serde_json::Value;

use crate::error::Result;
use crate::git::{Git, MARKER};

/// How a file merges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// A markdown note: frontmatter by entry, body by line.
    Note { union: bool },
    /// Lines, by union (JSON Lines logs).
    Lines,
    /// JSON records, one by one.
    Records,
    /// Other text: by line.
    Text,
}

/// The merge style of a path.
pub fn style_of(path: &str) -> Style {
    let name = path.rsplit('/').next().unwrap_or(path);
    const APPEND_NOTES: [&str; 2] = ["changelog.md", "tasks.md"];
    const RECORDS: [&str; 3] = [
        "knowledge/ledger.json",
        "garden/inbox/approvals.json",
        "garden/inbox/rejections.json",
    ];
    if name.ends_with(".md") {
        // The harvest's category files only ever gain items.
        let union = APPEND_NOTES.contains(&name) || path.starts_with("knowledge/");
        Style::Note { union }
    } else if name.ends_with(".jsonl") {
        Style::Lines
    } else if RECORDS.contains(&path) {
        Style::Records
    } else {
        Style::Text
    }
}

/// The merged content, and what the user must decide, if anything.
#[derive(Debug, PartialEq)]
pub struct Merged {
    pub text: String,
    pub conflict: Option<What>,
}

/// Who is merging what: the conflict's id (for its markers), the two
/// sides' names, and a scratch folder for git's merge-file.
pub struct Merging<'a> {
    pub git: &'a Git,
    pub scratch: &'a Path,
    pub id: &'a str,
    pub sides: &'a [String; 2],
}

/// Merges three versions of a text file (`base` empty when both sides
/// added it). `None` when the file is not a note and the sides conflict:
/// markers would break its format (knower.toml, a JSON file), so the
/// caller keeps ours in place and theirs beside it.
pub fn merge(
    m: &Merging,
    path: &str,
    base: &str,
    ours: &str,
    theirs: &str,
) -> Result<Option<Merged>> {
    let whole = |(text, regions): (String, Vec<[String; 2]>)| {
        regions.is_empty().then(|| merged(text, vec![], vec![]))
    };
    match style_of(path) {
        Style::Note { union } => merge_note(m, base, ours, theirs, union).map(Some),
        Style::Lines => Ok(whole(merge_lines(m, base, ours, theirs, Join::InTime)?)),
        Style::Records => match (parse(base), parse(ours), parse(theirs)) {
            (Some(b), Some(o), Some(t)) => {
                let value = merge_json(Some(&b), Some(&o), Some(&t));
                let mut text = serde_json::to_string_pretty(&value).expect("JSON serialises");
                text.push('\n');
                Ok(Some(merged(text, vec![], vec![])))
            }
            _ => Ok(whole(merge_lines(m, base, ours, theirs, Join::Markers)?)),
        },
        Style::Text => Ok(whole(merge_lines(m, base, ours, theirs, Join::Markers)?)),
    }
}

fn merged(text: String, regions: Vec<[String; 2]>, fields: Vec<Field>) -> Merged {
    let conflict =
        (!regions.is_empty() || !fields.is_empty()).then_some(What::Edited { regions, fields });
    Merged { text, conflict }
}

fn parse(text: &str) -> Option<Value> {
    if text.trim().is_empty() {
        return Some(Value::Array(vec![]));
    }
    serde_json::from_str(text).ok()
}

const DERIVED: [&str; 3] = [CREATED, UPDATED, TOKENS];

/// A note cut into its frontmatter entries (derived ones emptied) and body,
/// with the derived values it carried.
struct Cut {
    entries: Option<Vec<(String, String)>>,
    body: String,
    created: Option<String>,
    updated: Option<String>,
}

fn cut(text: &str) -> Cut {
    let split = frontmatter::split(text).ok();
    let Some((block, body)) = split.and_then(|s| s.frontmatter.map(|b| (b, s.body))) else {
        return Cut {
            entries: None,
            body: text.to_string(),
            created: None,
            updated: None,
        };
    };
    let meta = frontmatter::parse_yaml(block.yaml).unwrap_or_default();
    let entries = frontmatter::entries(block.yaml)
        .into_iter()
        .map(|(key, lines)| {
            if DERIVED.contains(&key.as_str()) {
                let nl = if lines.ends_with("\r\n") {
                    "\r\n"
                } else {
                    "\n"
                };
                let emptied = format!("{key}: ~{nl}");
                (key, emptied)
            } else {
                (key, lines)
            }
        })
        .collect();
    Cut {
        entries: Some(entries),
        body: body.to_string(),
        created: frontmatter::scalar(&meta, CREATED),
        updated: frontmatter::scalar(&meta, UPDATED),
    }
}

fn merge_note(m: &Merging, base: &str, ours: &str, theirs: &str, union: bool) -> Result<Merged> {
    let (b, o, t) = (cut(base), cut(ours), cut(theirs));
    let join = if union { Join::Union } else { Join::Markers };
    let (body, regions) = merge_lines(m, &b.body, &o.body, &t.body, join)?;
    let (entries, fields) = merge_entries(
        b.entries.as_deref(),
        o.entries.as_deref(),
        t.entries.as_deref(),
    );
    let Some(entries) = entries else {
        return Ok(merged(body, regions, fields));
    };
    let open = if ours.starts_with('\u{feff}') {
        "\u{feff}---\n"
    } else {
        "---\n"
    };
    let mut yaml: String = entries.into_iter().map(|(_, lines)| lines).collect();
    if !yaml.is_empty() && !yaml.ends_with('\n') {
        yaml.push('\n');
    }
    let text = format!("{open}{yaml}---\n{body}");
    // Derived fields: recomputed, never merged.
    let created = [&o.created, &t.created]
        .into_iter()
        .flatten()
        .min()
        .cloned();
    let updated = [&o.updated, &t.updated]
        .into_iter()
        .flatten()
        .max()
        .cloned();
    let now = knower_vault::frontmatter_now();
    let stamp = Stamp {
        created: created.as_deref().unwrap_or(&now),
        updated: Updated::Set(updated.as_deref().unwrap_or(&now)),
    };
    let text = frontmatter::stamp(&text, stamp).unwrap_or(text);
    Ok(merged(text, regions, fields))
}

type Entries = Vec<(String, String)>;

/// The frontmatter entries merged one by one: a side's change wins over
/// the base; both sides changing one entry differently keeps ours and
/// reports it (a deletion against a change keeps the change).
fn merge_entries(
    base: Option<&[(String, String)]>,
    ours: Option<&[(String, String)]>,
    theirs: Option<&[(String, String)]>,
) -> (Option<Entries>, Vec<Field>) {
    if ours.is_none() && theirs.is_none() {
        return (None, vec![]);
    }
    let get = |side: Option<&[(String, String)]>, key: &str| -> Option<String> {
        side?.iter().find(|(k, _)| k == key).map(|(_, l)| l.clone())
    };
    let mut keys: Vec<String> = Vec::new();
    for side in [ours, theirs, base].into_iter().flatten() {
        for (key, _) in side {
            if !keys.contains(key) {
                keys.push(key.clone());
            }
        }
    }
    let mut out = Vec::new();
    let mut fields = Vec::new();
    for key in keys {
        let (b, o, t) = (get(base, &key), get(ours, &key), get(theirs, &key));
        let kept = if o == t || t == b {
            o
        } else if o == b {
            t
        } else {
            fields.push(Field {
                key: key.clone(),
                sides: [o.clone().unwrap_or_default(), t.clone().unwrap_or_default()],
            });
            o.or(t)
        };
        if let Some(lines) = kept {
            out.push((key, lines));
        }
    }
    (Some(out), fields)
}

/// One piece of merge-file's output.
#[derive(Debug, PartialEq)]
enum Piece {
    Same(Vec<String>),
    Conflict {
        base: Vec<String>,
        ours: Vec<String>,
        theirs: Vec<String>,
    },
}

/// What becomes of a hunk both sides changed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Join {
    /// Both sides kept between markers: a real conflict.
    Markers,
    /// Both sides' lines, ours first.
    Union,
    /// Both sides' lines, ordered by their records' `at` (a log's lines).
    InTime,
}

/// A line-level merge; conflicting hunks are joined as `join` says (and
/// united whatever it says when both sides only added lines there); the
/// regions kept between markers are returned.
fn merge_lines(
    m: &Merging,
    base: &str,
    ours: &str,
    theirs: &str,
    join: Join,
) -> Result<(String, Vec<[String; 2]>)> {
    if ours == theirs || theirs == base {
        return Ok((ours.to_string(), vec![]));
    }
    if ours == base {
        return Ok((theirs.to_string(), vec![]));
    }
    let ended = |s: &str| {
        if s.is_empty() || s.ends_with('\n') {
            s.to_string()
        } else {
            format!("{s}\n")
        }
    };
    let output = m
        .git
        .merge_file(m.scratch, &ended(ours), &ended(base), &ended(theirs))?;
    let mut text = String::new();
    let mut regions = Vec::new();
    for piece in pieces(&output) {
        match piece {
            Piece::Same(lines) => text.push_str(&lines.concat()),
            Piece::Conflict { base, ours, theirs } => {
                // Lines both sides added at one place, changing nothing
                // that was there, contradict nothing: both are kept.
                if join != Join::Markers || base.is_empty() {
                    let mut lines = unite(&base, &ours, &theirs);
                    if join == Join::InTime {
                        in_time_order(&mut lines);
                    }
                    text.push_str(&lines.concat());
                } else {
                    let sides = [ours.concat(), theirs.concat()];
                    text.push_str(&conflict::region(m.id, m.sides, &sides));
                    regions.push(sides);
                }
            }
        }
    }
    Ok((text, regions))
}

fn pieces(output: &str) -> Vec<Piece> {
    let open = "<".repeat(MARKER);
    let mid_base = "|".repeat(MARKER);
    let split = "=".repeat(MARKER);
    let close = ">".repeat(MARKER);
    let is = |line: &str, marker: &str| {
        line.trim_end_matches(['\n', '\r']) == marker || line.starts_with(&format!("{marker} "))
    };
    let mut out = Vec::new();
    let mut same = Vec::new();
    let mut hunk: Option<(usize, [Vec<String>; 3])> = None;
    for line in output.split_inclusive('\n') {
        match &mut hunk {
            None if is(line, &open) => {
                if !same.is_empty() {
                    out.push(Piece::Same(std::mem::take(&mut same)));
                }
                hunk = Some((0, Default::default()));
            }
            None => same.push(line.to_string()),
            Some((part, _)) if is(line, &mid_base) => *part = 1,
            Some((part, _)) if is(line, &split) => *part = 2,
            Some((_, [ours, base, theirs])) if is(line, &close) => {
                out.push(Piece::Conflict {
                    base: std::mem::take(base),
                    ours: std::mem::take(ours),
                    theirs: std::mem::take(theirs),
                });
                hunk = None;
            }
            Some((part, lines)) => {
                // merge-file's parts are ours, base, theirs.
                let index = [0, 1, 2][*part];
                lines[index].push(line.to_string());
            }
        }
    }
    if !same.is_empty() {
        out.push(Piece::Same(same));
    }
    out
}

/// Both sides' lines of a hunk: line by line where the hunk pairs up
/// (a task's box and words merge as two fields), else ours then theirs'
/// new lines; a line one side deleted stays deleted.
fn unite(base: &[String], ours: &[String], theirs: &[String]) -> Vec<String> {
    if base.len() == ours.len()
        && base.len() == theirs.len()
        && let Some(lines) = base
            .iter()
            .zip(ours)
            .zip(theirs)
            .map(|((b, o), t)| merge_line(b, o, t))
            .collect::<Option<Vec<String>>>()
    {
        return lines;
    }
    let deleted_by = |side: &[String], line: &String| base.contains(line) && !side.contains(line);
    let mut out: Vec<String> = ours
        .iter()
        .filter(|line| !deleted_by(theirs, line))
        .cloned()
        .collect();
    for line in theirs {
        if !out.contains(line) && !deleted_by(ours, line) {
            out.push(line.clone());
        }
    }
    out
}

/// A log's united lines in the order they were written, when each is a
/// JSON record with an `at` time (Knower's logs are); else as they are.
fn in_time_order(lines: &mut [String]) {
    let at = |line: &String| -> Option<String> {
        let value: Value = serde_json::from_str(line.trim_end()).ok()?;
        value.get("at")?.as_str().map(str::to_string)
    };
    if lines.iter().all(|l| at(l).is_some()) {
        lines.sort_by_cached_key(at);
    }
}

/// One line changed on both sides: merged field by field when it is a
/// task (`- [ ] words`), else nothing.
fn merge_line(base: &str, ours: &str, theirs: &str) -> Option<String> {
    if ours == theirs || theirs == base {
        return Some(ours.to_string());
    }
    if ours == base {
        return Some(theirs.to_string());
    }
    let (b, o, t) = (task(base)?, task(ours)?, task(theirs)?);
    let pick = |b: &str, o: &str, t: &str| -> Option<String> {
        if o == t || t == b {
            Some(o.to_string())
        } else if o == b {
            Some(t.to_string())
        } else {
            None
        }
    };
    let lead = pick(b.0, o.0, t.0)?;
    let mark = pick(b.1, o.1, t.1)?;
    let words = pick(b.2, o.2, t.2)?;
    Some(format!("{lead}[{mark}]{words}"))
}

/// A task line as (its lead, its box's mark, the rest): a GFM task list
/// item, in a bullet list (`- [ ]`, `* [x]`, `+ [ ]`) or a numbered one
/// (`1. [ ]`, `2) [x]`).
fn task(line: &str) -> Option<(&str, &str, &str)> {
    let indent = line.len() - line.trim_start().len();
    let rest = &line[indent..];
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let marker = if digits > 0 {
        rest[digits..]
            .chars()
            .next()
            .filter(|c| matches!(c, '.' | ')'))?;
        digits + 1
    } else {
        rest.chars()
            .next()
            .filter(|c| matches!(c, '-' | '*' | '+'))?;
        1
    };
    let after = rest[marker..].strip_prefix(' ')?;
    let inner = after.strip_prefix('[')?;
    let mark_len = inner.chars().next()?.len_utf8();
    let close = inner[mark_len..].strip_prefix(']')?;
    let lead_end = indent + marker + 1;
    Some((&line[..lead_end], &inner[..mark_len], close))
}

/// JSON merged three ways: objects key by key, lists record by record
/// (a record is known by its `id`, else by its value), a value both
/// sides changed keeps ours.
fn merge_json(base: Option<&Value>, ours: Option<&Value>, theirs: Option<&Value>) -> Value {
    match (base, ours, theirs) {
        (_, Some(o), Some(t)) if o == t => o.clone(),
        (b, Some(o), Some(t)) if b == Some(t) => o.clone(),
        (b, Some(o), Some(t)) if b == Some(o) => t.clone(),
        (b, Some(Value::Object(o)), Some(Value::Object(t))) => {
            let b = b.and_then(Value::as_object);
            let mut out = serde_json::Map::new();
            for key in o.keys().chain(t.keys()) {
                if out.contains_key(key) {
                    continue;
                }
                let bv = b.and_then(|b| b.get(key));
                let (ov, tv) = (o.get(key), t.get(key));
                let deleted = |side: Option<&Value>| bv.is_some() && side.is_none();
                if (deleted(ov) && tv == bv) || (deleted(tv) && ov == bv) {
                    continue;
                }
                out.insert(key.clone(), merge_json(bv, ov.or(tv), tv.or(ov)));
            }
            Value::Object(out)
        }
        (b, Some(Value::Array(o)), Some(Value::Array(t))) => {
            let empty = vec![];
            let b = b.and_then(Value::as_array).unwrap_or(&empty);
            Value::Array(merge_records(b, o, t))
        }
        (_, Some(o), _) => o.clone(),
        (_, None, Some(t)) => t.clone(),
        (_, None, None) => Value::Null,
    }
}

fn record_key(value: &Value) -> String {
    match value.get("id") {
        Some(Value::String(id)) => format!("id:{id}"),
        _ => value.to_string(),
    }
}

fn merge_records(base: &[Value], ours: &[Value], theirs: &[Value]) -> Vec<Value> {
    let find = |side: &[Value], key: &str| side.iter().find(|v| record_key(v) == key).cloned();
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for o in ours {
        let key = record_key(o);
        if !seen.insert(key.clone()) {
            continue;
        }
        let b = find(base, &key);
        let t = find(theirs, &key);
        if t.is_none() && b.as_ref() == Some(o) {
            continue; // deleted by theirs
        }
        out.push(merge_json(b.as_ref(), Some(o), t.as_ref().or(Some(o))));
    }
    for t in theirs {
        let key = record_key(t);
        if seen.contains(&key) {
            continue;
        }
        seen.insert(key.clone());
        if find(base, &key).is_some() {
            continue; // deleted by ours
        }
        out.push(t.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The merge of three texts by laptop (here) and desktop (there);
    /// `None` when the file keeps both sides as files.
    fn try_run(path: &str, base: &str, ours: &str, theirs: &str) -> Option<Merged> {
        let dir = tempfile::tempdir().unwrap();
        let sides = ["laptop".to_string(), "desktop".to_string()];
        let m = Merging {
            git: &Git::new(dir.path()),
            scratch: &dir.path().join("scratch"),
            id: "c1",
            sides: &sides,
        };
        merge(&m, path, base, ours, theirs).unwrap()
    }

    fn run(path: &str, base: &str, ours: &str, theirs: &str) -> Merged {
        try_run(path, base, ours, theirs).expect("merged")
    }

    #[test]
    fn derived_fields_are_recomputed_and_never_conflict() {
        let base = "---\ncreated: 2026-01-01T00:00:00\nupdated: 2026-01-01T00:00:00\ntokens: 3\ntitle: Plan\n---\na\nb\nc\nd\n";
        let ours = "---\ncreated: 2026-01-01T00:00:00\nupdated: 2026-02-01T00:00:00\ntokens: 4\ntitle: Plan\n---\nA\nb\nc\nd\n";
        let theirs = "---\ncreated: 2026-01-01T00:00:00\nupdated: 2026-03-01T00:00:00\ntokens: 4\ntitle: Plan\n---\na\nb\nc\nD\n";
        let out = run("notes/plan.md", base, ours, theirs);
        assert_eq!(out.conflict, None);
        assert_eq!(
            out.text,
            "---\ncreated: 2026-01-01T00:00:00\nupdated: 2026-03-01T00:00:00\ntokens: 2\ntitle: Plan\n---\nA\nb\nc\nD\n"
        );
    }

    #[test]
    fn a_real_conflict_keeps_both_sides_between_markers() {
        let base = "---\nupdated: 1\nstatus: draft\n---\nThe plan is X.\n";
        let ours = "---\nupdated: 2\nstatus: review\n---\nThe plan is Y.\n";
        let theirs = "---\nupdated: 3\nstatus: done\n---\nThe plan is Z.\n";
        let out = run("notes/plan.md", base, ours, theirs);
        let Some(What::Edited { regions, fields }) = out.conflict else {
            panic!("a conflict: {out:?}")
        };
        assert_eq!(
            regions,
            vec![[
                "The plan is Y.\n".to_string(),
                "The plan is Z.\n".to_string()
            ]]
        );
        assert_eq!(fields[0].key, "status");
        assert!(out.text.contains("status: review\n"), "{}", out.text);
        assert!(out.text.contains("<!-- knower:conflict c1 1 laptop -->\nThe plan is Y.\n<!-- knower:conflict c1 2 desktop -->\nThe plan is Z.\n<!-- knower:conflict c1 end -->\n"), "{}", out.text);
        assert!(out.text.contains("updated: 3\n"));
    }

    #[test]
    fn task_lists_unite_and_a_ticked_and_reworded_task_keeps_both_facts() {
        let base = "# Tasks\n\n- [ ] buy milk\n- [ ] call Ann\n";
        let ours = "# Tasks\n\n- [x] buy milk\n- [ ] call Ann\n- [ ] book flights\n";
        let theirs = "# Tasks\n\n- [ ] buy oat milk\n- [ ] call Ann\n- [ ] renew passport\n";
        let out = run("tasks.md", base, ours, theirs);
        assert_eq!(out.conflict, None);
        assert_eq!(
            out.text,
            "# Tasks\n\n- [x] buy oat milk\n- [ ] call Ann\n- [ ] book flights\n- [ ] renew passport\n"
        );
    }

    #[test]
    fn task_lines_are_read_in_bullet_and_numbered_lists() {
        assert_eq!(task("- [ ] buy milk\n"), Some(("- ", " ", " buy milk\n")));
        assert_eq!(task("  * [x] done"), Some(("  * ", "x", " done")));
        assert_eq!(task("12) [X] shipped"), Some(("12) ", "X", " shipped")));
        assert_eq!(task("- plain item"), None);
        assert_eq!(task("1.5 [x] not a list"), None);
        assert_eq!(
            merge_line(
                "1. [ ] call Ann\n",
                "1. [x] call Ann\n",
                "1. [ ] call Ann and Ben\n"
            ),
            Some("1. [x] call Ann and Ben\n".into())
        );
    }

    #[test]
    fn logs_unite_in_order() {
        let base = "{\"a\":1}\n";
        let out = run(
            "chat/log.jsonl",
            base,
            "{\"a\":1}\n{\"b\":2}\n",
            "{\"a\":1}\n{\"c\":3}\n",
        );
        assert_eq!(out.text, "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n");
        assert_eq!(out.conflict, None);
    }

    #[test]
    fn a_logs_records_unite_in_the_order_they_were_written() {
        let line = |id: &str, at: &str| format!("{{\"id\":\"{id}\",\"at\":\"{at}\"}}\n");
        let base = line("a", "2026-12-01T10:00:00");
        let ours = format!(
            "{base}{}{}",
            line("b", "2026-12-01T10:05:00"),
            line("d", "2026-12-01T10:20:00")
        );
        let theirs = format!("{base}{}", line("c", "2026-12-01T10:10:00"));
        let out = run("chat/log.jsonl", &base, &ours, &theirs);
        let ids: Vec<&str> = out.text.lines().map(|l| &l[7..8]).collect();
        assert_eq!(ids, ["a", "b", "c", "d"]);
    }

    #[test]
    fn json_records_merge_one_by_one() {
        let base = r#"[{"id": "f1"}]"#;
        let ours = r#"[{"id": "f1", "applied": "2026"}, {"id": "f2"}]"#;
        let theirs = r#"[{"id": "f1"}, {"id": "f3"}]"#;
        let out = run("garden/inbox/approvals.json", base, ours, theirs);
        let value: Value = serde_json::from_str(&out.text).unwrap();
        assert_eq!(
            value,
            serde_json::json!([{"id": "f1", "applied": "2026"}, {"id": "f2"}, {"id": "f3"}])
        );
        let ledger = run(
            "knowledge/ledger.json",
            r#"{"h1": {"s": 1}}"#,
            r#"{"h1": {"s": 1}, "h2": {"s": 2}}"#,
            r#"{"h3": {"s": 3}}"#,
        );
        let value: Value = serde_json::from_str(&ledger.text).unwrap();
        assert_eq!(value, serde_json::json!({"h2": {"s": 2}, "h3": {"s": 3}}));
    }

    #[test]
    fn lines_both_sides_added_at_one_place_are_both_kept() {
        let base = "# Notes\n\nfirst\n";
        let out = run(
            "notes/n.md",
            base,
            "# Notes\n\nfirst\nmine\n",
            "# Notes\n\nfirst\ntheirs\n",
        );
        assert_eq!(out.conflict, None);
        assert_eq!(out.text, "# Notes\n\nfirst\nmine\ntheirs\n");
    }

    #[test]
    fn other_text_is_never_given_markers() {
        let out = try_run("knower.toml", "a = 1\n", "a = 2\n", "a = 3\n");
        assert_eq!(out, None);
    }

    #[test]
    fn a_line_only_one_side_deleted_stays_deleted_in_a_union() {
        let base = vec!["a\n".to_string(), "b\n".to_string()];
        let ours = vec!["b\n".to_string(), "c\n".to_string()];
        let theirs = vec!["a\n".to_string(), "b\n".to_string(), "d\n".to_string()];
        assert_eq!(unite(&base, &ours, &theirs), ["b\n", "c\n", "d\n"]);
    }
}
