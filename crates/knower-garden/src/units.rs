//! A page's readable markdown as units of statement, each with what makes
//! it true: the headings it sat under. A changelog bullet ("upgrade to mio
//! v1") says nothing alone; under "1.39.0 (July 23rd, 2024)" of Tokio's
//! release notes it is "tokio 1.39.0: upgrade to mio v1". Each list item is
//! its own unit (several bullets glued together are not a fact); a
//! paragraph is cut into sentences; code blocks and tables are not
//! statements.

use crate::claims;

/// One statement of a page, in its place.
#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    /// The statement as the page wrote it (markdown links and emphasis
    /// undone, issue references dropped), with the label of the list item
    /// it sits in ("http1: …").
    pub text: String,
    pub kind: UnitKind,
    /// The headings above it, outermost first.
    pub headings: Vec<String>,
    /// Its place among the units of its section (0: the first).
    pub rank_in_section: usize,
    /// Which release block of the page it belongs to (0: the first one met).
    pub block: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitKind {
    /// A list item.
    Item,
    /// A sentence of a paragraph right under a release's heading: what the
    /// release says of itself.
    Lead,
    /// A sentence of any other paragraph.
    Sentence,
}

/// What a release heading (or the page's title) says: which version of
/// what, and when.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Release {
    pub product: Option<String>,
    pub version: Option<String>,
    /// As written ("October 21st, 2026", "2026-07-20").
    pub date: Option<String>,
}

impl Release {
    pub fn of(text: &str) -> Release {
        let version = claims::versions_in(text).into_iter().next();
        let product = version.as_ref().and_then(|v| product_before(text, v));
        Release {
            product,
            version,
            date: claims::dates_in(text).into_iter().next().map(|d| d.written),
        }
    }

    pub fn is_some(&self) -> bool {
        self.version.is_some() || self.date.is_some()
    }
}

/// The word naming the product right before a version: "Tokio" in "Tokio
/// v1.54.1", "rayon" in "Release rayon 1.12.0 / rayon-core 1.13.0".
fn product_before(text: &str, version: &str) -> Option<String> {
    let at = text.find(version)?;
    let before = text[..at].trim_end().trim_end_matches(['v', 'V']);
    let word = before
        .split(|c: char| c.is_whitespace() || matches!(c, '[' | '(' | '#' | '*' | '·' | '|'))
        .rfind(|w| !w.is_empty())?
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '_');
    const GENERIC: [&str; 6] = ["release", "version", "v", "changes", "changelog", "notes"];
    (!word.is_empty()
        && word.chars().any(char::is_alphabetic)
        && !GENERIC.contains(&word.to_lowercase().as_str()))
    .then(|| word.to_string())
}

/// The units of a page's markdown, in order.
pub fn units(markdown: &str) -> Vec<Unit> {
    let mut out: Vec<Unit> = Vec::new();
    let mut headings: Vec<(usize, String)> = Vec::new();
    // The labels of the open list items, by indentation ("http1:").
    let mut labels: Vec<(usize, String)> = Vec::new();
    let mut paragraph: Vec<String> = Vec::new();
    let mut item: Option<(usize, String)> = None;
    let mut in_code = false;
    let mut in_section = 0;
    let mut block = 0;
    let mut seen_release = false;
    // Whether the current paragraph directly follows a release heading.
    let mut after_release_heading = false;

    let chain = |headings: &[(usize, String)]| headings.iter().map(|(_, h)| h.clone()).collect();
    macro_rules! flush {
        () => {
            if let Some((indent, text)) = item.take() {
                push_item(
                    &mut out,
                    &mut labels,
                    indent,
                    &text,
                    chain(&headings),
                    &mut in_section,
                    block,
                );
            }
            if !paragraph.is_empty() && mostly_links(&paragraph.join(" ")) {
                // Navigation, a row of links, says nothing.
                paragraph.clear();
            }
            if !paragraph.is_empty() {
                let text = paragraph.join(" ");
                paragraph.clear();
                let kind = if after_release_heading {
                    UnitKind::Lead
                } else {
                    UnitKind::Sentence
                };
                for sentence in crate::extract::sentences(&inline(&text)) {
                    out.push(Unit {
                        text: sentence,
                        kind,
                        headings: chain(&headings),
                        rank_in_section: in_section,
                        block,
                    });
                    in_section += 1;
                }
            }
        };
    }

    for raw in markdown.lines() {
        let line = raw.trim_end();
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            flush!();
            in_code = !in_code;
            continue;
        }
        // Code, and tables (cells are no statements); an indented code block.
        if in_code
            || trimmed.starts_with('|')
            || (line.starts_with("    ")
                && item.is_none()
                && paragraph.is_empty()
                && list_item(line).is_none())
        {
            continue;
        }
        if trimmed.is_empty() {
            flush!();
            continue;
        }
        if let Some((level, text)) = heading(trimmed) {
            flush!();
            labels.clear();
            headings.retain(|(l, _)| *l < level);
            let text = inline(&text);
            let release = Release::of(&text).version.is_some();
            if release {
                if seen_release {
                    block += 1;
                }
                seen_release = true;
            }
            after_release_heading = release;
            headings.push((level, text));
            in_section = 0;
            continue;
        }
        if let Some((indent, text)) = list_item(line) {
            flush!();
            after_release_heading = false;
            item = Some((indent, text.to_string()));
            continue;
        }
        match &mut item {
            // A continuation line of the item.
            Some((_, text)) => {
                text.push(' ');
                text.push_str(trimmed);
            }
            None => paragraph.push(trimmed.to_string()),
        }
    }
    flush!();
    out
}

/// Whether most of a markdown text is the labels of its links.
fn mostly_links(text: &str) -> bool {
    let total = inline(text).chars().filter(|c| c.is_alphanumeric()).count();
    let mut linked = 0;
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](") else {
            break;
        };
        linked += rest[open + 1..open + close]
            .chars()
            .filter(|c| c.is_alphanumeric())
            .count();
        rest = &rest[open + close + 2..];
    }
    total > 0 && linked * 10 >= total * 8
}

fn push_item(
    out: &mut Vec<Unit>,
    labels: &mut Vec<(usize, String)>,
    indent: usize,
    text: &str,
    headings: Vec<String>,
    in_section: &mut usize,
    block: usize,
) {
    labels.retain(|(i, _)| *i < indent);
    if mostly_links(text) {
        return;
    }
    let text = inline(text);
    let text = text.trim();
    // "**http1:**" alone labels the items under it.
    if text.ends_with(':') && text.len() <= 40 {
        labels.push((indent, text.trim_end_matches(':').trim().to_string()));
        return;
    }
    let label: Vec<&str> = labels.iter().map(|(_, l)| l.as_str()).collect();
    let text = if label.is_empty() {
        text.to_string()
    } else {
        format!("{}: {text}", label.join(": "))
    };
    out.push(Unit {
        text,
        kind: UnitKind::Item,
        headings,
        rank_in_section: *in_section,
        block,
    });
    *in_section += 1;
}

/// `## Title` → (2, "Title").
fn heading(line: &str) -> Option<(usize, String)> {
    let level = line.chars().take_while(|&c| c == '#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &line[level..];
    if !rest.starts_with(' ') {
        return None;
    }
    let text = rest.trim().trim_end_matches('#').trim();
    (!text.is_empty()).then(|| (level, text.to_string()))
}

/// `  - text`, `* text`, `1. text` → (indentation, text).
fn list_item(line: &str) -> Option<(usize, &str)> {
    let indent = line.len() - line.trim_start().len();
    let rest = line.trim_start();
    for marker in ["- ", "* ", "+ "] {
        if let Some(text) = rest.strip_prefix(marker) {
            return Some((indent, text));
        }
    }
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if (1..=3).contains(&digits) {
        let after = &rest[digits..];
        if let Some(text) = after
            .strip_prefix(". ")
            .or_else(|| after.strip_prefix(") "))
        {
            return Some((indent, text));
        }
    }
    None
}

/// Markdown's inline syntax undone: `[text](url)` → text, images dropped,
/// `**bold**`/`*em*`/`_em_` → text, backslash escapes undone; issue and
/// commit references ("(#4124)", "([#8692])", "(540fff91, closes #4123)",
/// a leading "[#1354]:" or "BUG #1305:") dropped.
pub fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        if c == '\\' && chars.get(k + 1).is_some_and(|n| n.is_ascii_punctuation()) {
            out.push(chars[k + 1]);
            k += 2;
            continue;
        }
        let image = c == '!' && chars.get(k + 1) == Some(&'[');
        if c == '[' || image {
            let open = if image { k + 1 } else { k };
            if let Some(close) = matching(&chars, open, '[', ']')
                && chars.get(close + 1) == Some(&'(')
                && let Some(end) = matching(&chars, close + 1, '(', ')')
            {
                if !image {
                    let label: String = chars[open + 1..close].iter().collect();
                    out.push_str(&inline(&label));
                }
                k = end + 1;
                continue;
            }
        }
        if c == '*' || (c == '_' && (k == 0 || !chars[k - 1].is_alphanumeric())) {
            // Emphasis markers: dropped when they open or close a run.
            let run = chars[k..].iter().take_while(|&&x| x == c).count();
            k += run;
            continue;
        }
        out.push(c);
        k += 1;
    }
    drop_references(&out)
}

fn matching(chars: &[char], open: usize, left: char, right: char) -> Option<usize> {
    let mut depth = 0;
    for (k, &c) in chars.iter().enumerate().skip(open) {
        if c == left {
            depth += 1;
        } else if c == right {
            depth -= 1;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

/// Issue and commit references, which say where a change was discussed,
/// not what it is.
fn drop_references(text: &str) -> String {
    let mut text = text.trim().to_string();
    // A leading reference: "#1354: Fixes…", "BUG #1305: …", "FEATURE #1146: …".
    if let Some((head, rest)) = text.split_once(':')
        && head.contains('#')
        && head
            .split_whitespace()
            .all(|w| is_reference(w) || w.chars().all(char::is_uppercase))
    {
        text = rest.trim().to_string();
    }
    // Trailing parenthesised groups made only of references.
    loop {
        let trimmed = text.trim_end();
        let Some(stripped) = trimmed.strip_suffix(')') else {
            break;
        };
        let Some(open) = stripped.rfind('(') else {
            break;
        };
        let inside = &stripped[open + 1..];
        let only_references = !inside.trim().is_empty()
            && inside
                .split([',', ' ', ';'])
                .filter(|w| !w.is_empty())
                .all(|w| {
                    is_reference(w)
                        || matches!(
                            w.to_lowercase().as_str(),
                            "closes" | "fixes" | "see" | "and"
                        )
                });
        if !only_references {
            break;
        }
        text = stripped[..open].trim_end().to_string();
    }
    text
}

/// `#4124`, `[#8692]`, `540fff91` (a commit), `GH-12`.
fn is_reference(word: &str) -> bool {
    let w = word.trim_matches(|c: char| matches!(c, '[' | ']' | '(' | ')' | ',' | '.'));
    if let Some(number) = w.strip_prefix('#') {
        return !number.is_empty() && number.chars().all(|c| c.is_ascii_digit());
    }
    // A commit's short or full hash (hex, eight digits can be all numbers).
    (7..=40).contains(&w.len()) && w.chars().all(|c| c.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_keep_their_headings_labels_and_lose_their_references() {
        let text = "# Tokio v1.54.1\n\n## 1.54.0 (October 19th, 2026)\n\nThe MSRV is increased to 1.85. ([#8514])\n\n### Added\n\n- fs: add `File::set_times` ([#8504])\n- sync: add `SemaphorePermit::semaphore()` ([#8482])\n\n### Fixed\n\n* **http1:**\n  * discard content-length header when received before transfer-encoding (#4124) ([540fff91](https://github.com/hyperium/hyper/commit/540fff9180ce), closes [#4123](https://github.com/hyperium/hyper/issues/4123))\n\n```rust\nlet x = 1;\n```\n";
        let units = units(text);
        let texts: Vec<&str> = units.iter().map(|u| u.text.as_str()).collect();
        assert_eq!(
            texts,
            vec![
                "The MSRV is increased to 1.85.",
                "fs: add `File::set_times`",
                "sync: add `SemaphorePermit::semaphore()`",
                "http1: discard content-length header when received before transfer-encoding",
            ]
        );
        assert_eq!(units[0].kind, UnitKind::Lead);
        assert_eq!(units[1].kind, UnitKind::Item);
        assert_eq!(
            units[1].headings,
            vec!["Tokio v1.54.1", "1.54.0 (October 19th, 2026)", "Added"]
        );
        assert_eq!(units[2].rank_in_section, 1);
    }

    #[test]
    fn a_leading_reference_and_links_are_undone() {
        assert_eq!(
            inline(
                "[#1354](https://github.com/rust-lang/regex/issues/1354): Fixes previously unsound reverse suffix optimizations."
            ),
            "Fixes previously unsound reverse suffix optimizations."
        );
        assert_eq!(
            inline("[BUG #1305](https://x/1305): Switches `doc_auto_cfg` to `doc_cfg`."),
            "Switches `doc_auto_cfg` to `doc_cfg`."
        );
        assert_eq!(
            inline("*(help)* Say `alias` when there is only one"),
            "(help) Say `alias` when there is only one"
        );
        assert_eq!(
            inline("Keep the (optional) part"),
            "Keep the (optional) part"
        );
    }

    #[test]
    fn a_release_names_its_product_version_and_date() {
        assert_eq!(
            Release::of("Release Tokio v1.54.1 · tokio-rs/tokio"),
            Release {
                product: Some("Tokio".into()),
                version: Some("1.54.1".into()),
                date: None
            }
        );
        let r = Release::of("Release rayon 1.11.0 / rayon-core 1.13.0 (2025-08-12)");
        assert_eq!(
            (
                r.product.as_deref(),
                r.version.as_deref(),
                r.date.as_deref()
            ),
            (Some("rayon"), Some("1.11.0"), Some("2025-08-12"))
        );
        let r = Release::of("v1.11.0 (2026-07-20)");
        assert_eq!((r.product, r.version.as_deref()), (None, Some("1.11.0")));
        let r = Release::of("[4.6.6] - 2026-08-06");
        assert_eq!(r.version.as_deref(), Some("4.6.6"));
    }

    #[test]
    fn a_row_of_links_is_no_statement() {
        let text = "[CodeHub](http://x/) [Explore](http://x/explore) [Sign in](http://x/login)\n\n- [Home](/) · [Blog](/blog)\n\nSee [the notes](http://x/n) for the 1.2 release of the runtime.\n";
        let texts: Vec<String> = units(text).into_iter().map(|u| u.text).collect();
        assert_eq!(
            texts,
            vec!["See the notes for the 1.2 release of the runtime."]
        );
    }

    #[test]
    fn several_releases_on_one_page_are_blocks_newest_first() {
        let text = "# Changelog\n\n## 1.2.0 (2026-02-01)\n\n- new thing\n\n## 1.1.0 (2026-01-01)\n\n- old thing\n";
        let units = units(text);
        assert_eq!(
            units.iter().map(|u| u.block).collect::<Vec<_>>(),
            vec![0, 1]
        );
    }
}
