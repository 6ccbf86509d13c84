//! YAML frontmatter: finding the block, validating it, and updating the three
//! fields the background job owns (`created`, `updated`, `tokens`).
//!
//! The YAML is never re-serialised. The managed keys are edited line by line
//! and everything else — unknown keys, their order, comments, quoting, the
//! body — is kept byte for byte. After editing, the block is parsed again and
//! compared with the original; if the edit could not be made safely (flow
//! style `{…}`, an indented mapping…) the text is reported as unsupported and
//! left alone rather than rewritten.

use serde_json::{Map, Value};

pub const CREATED: &str = "created";
pub const UPDATED: &str = "updated";
pub const TOKENS: &str = "tokens";

const BOM: &str = "\u{feff}";

/// The token estimate of seed 003: `ceil(characters / 4)`, over the body only
/// so that writing the count never changes the count.
pub fn count_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// A text cut at its frontmatter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split<'a> {
    pub frontmatter: Option<Block<'a>>,
    /// Everything after the closing delimiter line (the whole text when there
    /// is no frontmatter).
    pub body: &'a str,
}

/// The three pieces of a frontmatter block, which concatenate back to the
/// start of the text exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block<'a> {
    /// Optional byte-order mark and the opening `---` line with its newline.
    pub open: &'a str,
    /// The YAML lines between the delimiters.
    pub yaml: &'a str,
    /// The closing `---` (or `...`) line with its newline, if any.
    pub close: &'a str,
}

/// Finds the frontmatter block. A text that opens with `---` but never closes
/// it is malformed: guessing where it ends could destroy the body.
pub fn split(text: &str) -> Result<Split<'_>, String> {
    let bom = if text.starts_with(BOM) { BOM.len() } else { 0 };
    let mut lines = LinesWithEnds::new(text, bom);
    let Some((start, first)) = lines.next() else {
        return Ok(Split {
            frontmatter: None,
            body: text,
        });
    };
    if first.trim_end() != "---" {
        return Ok(Split {
            frontmatter: None,
            body: text,
        });
    }
    let open_end = start + first.len();
    for (at, line) in lines {
        let trimmed = line.trim_end();
        if trimmed == "---" || trimmed == "..." {
            let end = at + line.len();
            return Ok(Split {
                frontmatter: Some(Block {
                    open: &text[..open_end],
                    yaml: &text[open_end..at],
                    close: &text[at..end],
                }),
                body: &text[end..],
            });
        }
    }
    Err("the `---` on line 1 opens a frontmatter block that is never closed".into())
}

/// Parses the YAML of a block into its top-level mapping.
///
/// A non-finite float (`.inf`, `.nan`, or `6e826`, which overflows) is valid
/// YAML that a JSON value cannot hold; it is kept as its canonical YAML
/// spelling (`.inf`, `-.inf`, `.nan`) rather than making the whole block
/// unreadable.
pub fn parse_yaml(yaml: &str) -> Result<Map<String, Value>, String> {
    let options = serde_saphyr::options! {
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::AsString,
    };
    match serde_saphyr::from_str_with_options::<Value>(yaml, options) {
        Ok(Value::Null) => Ok(Map::new()),
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("it must be a mapping of `key: value` lines".into()),
        Err(e) => Err(describe_yaml_error(&e.to_string())),
    }
}

/// Parses a whole text's frontmatter: `Ok(None)` when it has none.
pub fn parse(text: &str) -> Result<Option<Map<String, Value>>, String> {
    match split(text)?.frontmatter {
        Some(block) => parse_yaml(block.yaml).map(Some),
        None => Ok(None),
    }
}

/// serde-saphyr's message, reduced to its first line, with the line number
/// shifted to count from the top of the file (the YAML starts on line 2) and
/// without advice aimed at programmers.
fn describe_yaml_error(message: &str) -> String {
    let first = message.lines().next().unwrap_or(message);
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let first = first
        .split(", set DuplicateKeyPolicy")
        .next()
        .unwrap_or(first);
    if let Some(rest) = first.strip_prefix("line ")
        && let Some((number, tail)) = rest.split_once(' ')
        && let Ok(n) = number.parse::<u64>()
    {
        let tail = tail.split_once(": ").map(|(_, what)| what).unwrap_or(tail);
        return format!("line {}: {}", n + 1, tail);
    }
    first.to_string()
}

/// How the `updated` field is to be set.
#[derive(Debug, Clone, Copy)]
pub enum Updated<'a> {
    /// The text changed now (or at this time): always write this value.
    Set(&'a str),
    /// Only fill the field in when it is missing (a file seen for the first time).
    IfMissing(&'a str),
}

/// The values the background job writes into a markdown text.
#[derive(Debug, Clone, Copy)]
pub struct Stamp<'a> {
    /// Written only when the text has no `created`.
    pub created: &'a str,
    pub updated: Updated<'a>,
}

/// Returns the text with `created`, `updated` and `tokens` set, everything
/// else unchanged. A text without frontmatter gets a block in front of it.
pub fn stamp(text: &str, stamp: Stamp<'_>) -> Result<String, String> {
    let split = split(text)?;
    let tokens = count_tokens(split.body).to_string();
    let Some(block) = split.frontmatter else {
        let (bom, body) = match text.strip_prefix(BOM) {
            Some(rest) => (BOM, rest),
            None => ("", text),
        };
        let nl = line_ending(body);
        let updated = match stamp.updated {
            Updated::Set(v) | Updated::IfMissing(v) => v,
        };
        return Ok(format!(
            "{bom}---{nl}{CREATED}: {}{nl}{UPDATED}: {updated}{nl}{TOKENS}: {tokens}{nl}---{nl}{body}",
            stamp.created
        ));
    };

    let original = parse_yaml(block.yaml)?;
    let nl = line_ending(block.open);
    let mut lines: Vec<String> = block
        .yaml
        .split_inclusive('\n')
        .map(str::to_string)
        .collect();
    let present = |key: &str| original.get(key).is_some_and(|v| !v.is_null());
    let mut wanted: Vec<(&str, &str)> = Vec::new();
    if !present(CREATED) {
        wanted.push((CREATED, stamp.created));
    }
    match stamp.updated {
        Updated::Set(v) => wanted.push((UPDATED, v)),
        Updated::IfMissing(v) if !present(UPDATED) => wanted.push((UPDATED, v)),
        Updated::IfMissing(_) => {}
    }
    wanted.push((TOKENS, &tokens));

    for (key, value) in &wanted {
        let line = format!("{key}: {value}{nl}");
        match key_lines(&lines, key) {
            Some(range) => {
                lines.splice(range, [line]);
            }
            None => {
                if let Some(last) = lines.last_mut()
                    && !last.ends_with('\n')
                {
                    last.push_str(nl);
                }
                lines.push(line);
            }
        }
    }
    let yaml: String = lines.concat();

    // The edit must have changed exactly the managed keys, nothing else.
    let unsupported =
        "its layout is one Knower cannot update safely (use plain `key: value` lines)";
    let edited = parse_yaml(&yaml).map_err(|_| unsupported.to_string())?;
    let is_wanted = |key: &str| wanted.iter().any(|(w, _)| *w == key);
    let others_kept = original
        .iter()
        .filter(|(k, _)| !is_wanted(k))
        .all(|(k, v)| edited.get(k) == Some(v));
    let managed_set = wanted
        .iter()
        .all(|(k, v)| scalar(&edited, k).as_deref() == Some(*v));
    let added = wanted
        .iter()
        .filter(|(k, _)| !original.contains_key(*k))
        .count();
    if !others_kept || !managed_set || edited.len() != original.len() + added {
        return Err(unsupported.into());
    }
    Ok(format!(
        "{}{}{}{}",
        block.open, yaml, block.close, split.body
    ))
}

/// The YAML's top-level entries as written: each key with all its lines
/// (the key's line and the indented lines, `- ` items, comments and blank
/// lines under it), in order; lines before the first key go under `""`.
/// Concatenating the lines gives the YAML back. Used where entries are
/// compared or merged one by one (a sync's three-way merge) without
/// re-serialising anything.
pub fn entries(yaml: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in yaml.split_inclusive('\n') {
        let starts_entry = !line.starts_with([' ', '\t', '#', '-', '\n', '\r'])
            && line.contains(':')
            && !line.trim().is_empty();
        if starts_entry {
            let key = line.split(':').next().unwrap_or("").trim();
            let key = key.trim_matches(|c| c == '"' || c == '\'');
            out.push((key.to_string(), line.to_string()));
        } else {
            match out.last_mut() {
                Some((_, lines)) => lines.push_str(line),
                None => out.push((String::new(), line.to_string())),
            }
        }
    }
    out
}

/// A value written into frontmatter: its JSON text, which YAML reads as
/// the same value (strings quoted and escaped, lists in brackets).
pub fn value<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).expect("plain values serialise")
}

/// A scalar frontmatter value as text (`updated`, `created`, a title…).
pub fn scalar(map: &Map<String, Value>, key: &str) -> Option<String> {
    match map.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The lines holding a top-level key and its value (continuation lines are
/// indented). Quoted keys are recognised so they are replaced, not duplicated.
fn key_lines(lines: &[String], key: &str) -> Option<std::ops::Range<usize>> {
    let start = lines.iter().position(|line| is_key_line(line, key))?;
    let mut end = start + 1;
    let mut last_content = start + 1;
    while end < lines.len() {
        let line = &lines[end];
        if line.trim().is_empty() {
            end += 1;
            continue;
        }
        if line.starts_with(' ') || line.starts_with('\t') {
            end += 1;
            last_content = end;
            continue;
        }
        break;
    }
    Some(start..last_content)
}

fn is_key_line(line: &str, key: &str) -> bool {
    let rest = [key.to_string(), format!("\"{key}\""), format!("'{key}'")]
        .into_iter()
        .find_map(|k| line.strip_prefix(k.as_str()).map(str::to_string));
    let Some(rest) = rest else { return false };
    let rest = rest.trim_start_matches([' ', '\t']);
    match rest.strip_prefix(':') {
        Some(after) => after.is_empty() || after.starts_with([' ', '\t', '\r', '\n']),
        None => false,
    }
}

/// `\r\n` when the text's first line ends that way, else `\n`.
fn line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// Lines with their endings, and the byte offset where each starts.
struct LinesWithEnds<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> LinesWithEnds<'a> {
    fn new(text: &'a str, at: usize) -> Self {
        LinesWithEnds { text, at }
    }
}

impl<'a> Iterator for LinesWithEnds<'a> {
    type Item = (usize, &'a str);
    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.text.len() {
            return None;
        }
        let start = self.at;
        let end = self.text[start..]
            .find('\n')
            .map(|i| start + i + 1)
            .unwrap_or(self.text.len());
        self.at = end;
        Some((start, &self.text[start..end]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Stamp = Stamp {
        created: "2026-01-01T00:00:00",
        updated: Updated::Set("2026-11-22T10:00:00"),
    };

    #[test]
    fn adds_a_block_to_text_without_one() {
        let out = stamp("# Hi\nbody\n", NOW).unwrap();
        assert_eq!(
            out,
            "---\ncreated: 2026-01-01T00:00:00\nupdated: 2026-11-22T10:00:00\ntokens: 3\n---\n# Hi\nbody\n"
        );
    }

    #[test]
    fn updates_managed_keys_in_place_and_keeps_the_rest() {
        let text = "---\ntitle: Plan  # mine\ntokens: 1\ntags:\n  - a\n  - b\nupdated: old\n---\nbody text\n";
        let out = stamp(text, NOW).unwrap();
        assert_eq!(
            out,
            "---\ntitle: Plan  # mine\ntokens: 3\ntags:\n  - a\n  - b\nupdated: 2026-11-22T10:00:00\ncreated: 2026-01-01T00:00:00\n---\nbody text\n"
        );
    }

    #[test]
    fn non_finite_floats_are_kept_as_their_yaml_spelling() {
        // `6e826` overflows to infinity: found by the stamping property test.
        let text = "---\nsize: 6e826\nlow: -.inf\nodd: .nan\nplain: 1.5\n---\nbody";
        let map = parse(text).unwrap().unwrap();
        assert_eq!(map["size"], Value::from(".inf"));
        assert_eq!(map["low"], Value::from("-.inf"));
        assert_eq!(map["odd"], Value::from(".nan"));
        assert_eq!(map["plain"], Value::from(1.5));
        let out = stamp(text, NOW).unwrap();
        assert!(
            out.starts_with("---\nsize: 6e826\nlow: -.inf\nodd: .nan\n"),
            "{out}"
        );
    }

    #[test]
    fn keeps_created_and_an_existing_updated_when_asked() {
        let text = "---\ncreated: 2020-01-01\nupdated: 2021-01-01\n---\nx";
        let stamp_if_missing = Stamp {
            updated: Updated::IfMissing("now"),
            ..NOW
        };
        let out = stamp(text, stamp_if_missing).unwrap();
        assert_eq!(
            out,
            "---\ncreated: 2020-01-01\nupdated: 2021-01-01\ntokens: 1\n---\nx"
        );
    }

    #[test]
    fn replaces_block_values_whole() {
        let text = "---\nupdated: |\n  multi\n  line\n\nnext: 1\n---\n";
        let out = stamp(text, NOW).unwrap();
        assert!(
            out.contains("updated: 2026-11-22T10:00:00\n\nnext: 1\n"),
            "{out}"
        );
    }

    #[test]
    fn keeps_crlf_and_bom() {
        let text = "\u{feff}---\r\nа: б\r\n---\r\nтело\r\n";
        let out = stamp(text, NOW).unwrap();
        assert!(out.starts_with("\u{feff}---\r\nа: б\r\ncreated: 2026-01-01T00:00:00\r\n"));
        assert!(out.ends_with("---\r\nтело\r\n"));
    }

    #[test]
    fn reports_malformed_blocks() {
        assert!(split("---\nkey: value\nno end").is_err());
        assert!(
            stamp("---\na: [1,\n---\nbody", NOW)
                .unwrap_err()
                .starts_with("line 2")
        );
        let dup = stamp("---\na: 1\na: 2\n---\n", NOW).unwrap_err();
        assert_eq!(dup, "line 3: duplicate mapping key: a");
        assert!(stamp("---\n- a\n- b\n---\n", NOW).is_err());
    }

    #[test]
    fn refuses_layouts_it_cannot_edit_safely() {
        assert!(stamp("---\n{title: x}\n---\nbody", NOW).is_err());
        assert!(stamp("---\n  title: x\n  tokens: 3\n---\nbody", NOW).is_err());
    }

    #[test]
    fn a_thematic_break_is_not_frontmatter_unless_it_opens_the_file() {
        let s = split("text\n---\nmore\n").unwrap();
        assert!(s.frontmatter.is_none());
    }

    #[test]
    fn entries_keep_every_line_under_its_key() {
        let yaml = "# top\ntitle: Plan\ntags:\n- a\n  # c\n\"x\": 1\n";
        let found = entries(yaml);
        let keys: Vec<&str> = found.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["", "title", "tags", "x"]);
        assert_eq!(found[2].1, "tags:\n- a\n  # c\n");
        let joined: String = found.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(joined, yaml);
    }

    #[test]
    fn counts_characters_not_bytes() {
        assert_eq!(count_tokens(""), 0);
        assert_eq!(count_tokens("abcd"), 1);
        assert_eq!(count_tokens("abcde"), 2);
        assert_eq!(count_tokens("éééé"), 1);
    }
}
