//! Answers without an LLM: first the line or two of the vault that answer
//! best, each with its `path:line`, then the passages that best match the
//! question, grouped by file, each with its `path:first-last` citation. No
//! sentence is written that the vault does not contain, and the changelog's
//! routing lines (where an update was filed) are never evidence.

use crate::error::Result;
use crate::offline::stems::{index_words, index_words_in};
use crate::recovery::CHANGELOG;
use crate::report::OFFLINE;
use crate::report::{Answer, Source};
use crate::text::ellipsis;
use knower_index::{Index, Mode, SearchOptions};

/// Passages shown at most.
const PASSAGES: usize = 6;
/// Longest passage shown, in characters.
const PASSAGE_CHARS: usize = 600;

/// `profile` is the text of `profile.md`, which is not indexed: for a
/// question about the user, its matching lines come first.
pub fn answer(
    index: &Index,
    profile: Option<&str>,
    question: &str,
    mode: Mode,
    scope: Option<&str>,
) -> Result<Answer> {
    answer_without(index, profile, question, mode, scope, &[])
}

/// The same, leaving out passages of files under the `without` folders.
pub fn answer_without(
    index: &Index,
    profile: Option<&str>,
    question: &str,
    mode: Mode,
    scope: Option<&str>,
    without: &[&str],
) -> Result<Answer> {
    let options = SearchOptions {
        mode,
        scope: scope.map(str::to_string),
        // Room for the passages dropped below.
        limit: PASSAGES * 4,
    };
    let query: String = question
        .chars()
        .map(|c| {
            if matches!(c, '"' | '*' | '+' | '?') {
                ' '
            } else {
                c
            }
        })
        .collect();
    let mut results = index.search(&query, &options)?;
    results.hits.retain(|hit| {
        !without
            .iter()
            .any(|folder| hit.path.starts_with(&format!("{folder}/")))
    });
    // A changelog passage stays only for what is left of it once its
    // routing lines are gone, and only if that still matches.
    let wanted = index_words(question);
    results.hits.retain_mut(|hit| {
        if hit.path != CHANGELOG {
            return true;
        }
        hit.text = without_routing_lines(&hit.text);
        hit.text
            .lines()
            .any(|line| !is_heading_or_blank(line) && shared(&wanted, &index_words(line)) > 0)
    });
    if let Some(profile) = profile.filter(|_| about_the_user(question)) {
        let mut about = profile_lines(profile, &wanted);
        about.append(&mut results.hits);
        results.hits = about;
    }
    results.hits.truncate(PASSAGES);
    let mut markdown = format!(
        "_{OFFLINE}: no LLM is configured, so this is not a written answer but the \
         passages of your vault that best match the question._\n\n"
    );
    if let Some(notice) = &results.notice {
        markdown.push_str(&format!("_Note: {notice}_\n\n"));
    }
    if results.hits.is_empty() {
        markdown.push_str("The vault does not hold anything that matches this question.\n");
        return Ok(Answer {
            engine: OFFLINE.into(),
            markdown,
            sources: vec![],
            found: false,
            usage: None,
        });
    }
    let best = answering_lines(question, &results.hits);
    if !best.is_empty() {
        markdown.push_str("**From your notes:**\n\n");
        for (line, path, number) in &best {
            markdown.push_str(&format!("- {line} — `{path}:{number}`\n"));
        }
        markdown.push_str("\n**Passages:**\n\n");
    }
    // Files in the order of their best passage; passages in file order.
    let mut files: Vec<(String, Vec<&knower_index::Hit>)> = Vec::new();
    for hit in &results.hits {
        match files.iter_mut().find(|(path, _)| *path == hit.path) {
            Some((_, hits)) => hits.push(hit),
            None => files.push((hit.path.clone(), vec![hit])),
        }
    }
    let mut sources = Vec::new();
    for (path, mut hits) in files {
        hits.sort_by_key(|h| h.line_start);
        markdown.push_str(&format!("### {path}\n\n"));
        for hit in hits {
            let citation = format!("{}:{}-{}", hit.path, hit.line_start, hit.line_end);
            let heading = if hit.heading.is_empty() {
                String::new()
            } else {
                format!(" — {}", hit.heading)
            };
            markdown.push_str(&format!("**{citation}**{heading}\n\n"));
            for line in ellipsis(hit.text.trim(), PASSAGE_CHARS).lines() {
                markdown.push_str(&format!("> {line}\n"));
            }
            markdown.push('\n');
            sources.push(Source {
                path: hit.path.clone(),
                line_start: hit.line_start,
                line_end: hit.line_end,
            });
        }
    }
    Ok(Answer {
        engine: OFFLINE.into(),
        markdown,
        sources,
        found: true,
        usage: None,
    })
}

/// A question in the first person ("my", "I", "me") is about the user.
fn about_the_user(question: &str) -> bool {
    question.split(|c: char| !c.is_alphanumeric()).any(|w| {
        matches!(
            w.to_lowercase().as_str(),
            "my" | "i" | "me" | "mine" | "myself"
        )
    })
}

/// The lines of the profile that share a word of the question, as passages
/// of their own; a line's section heading counts as part of it, so "my
/// preferences" finds every line under `## Preferences`. The starter's
/// placeholder lines are not facts.
fn profile_lines(profile: &str, wanted: &[String]) -> Vec<knower_index::Hit> {
    let body_start = profile.len()
        - knower_vault::frontmatter::split(profile).map_or(profile.len(), |s| s.body.len());
    let first_line = profile[..body_start].lines().count() + 1;
    let placeholders: Vec<&str> = knower_vault::PROFILE_PLACEHOLDERS
        .iter()
        .map(|(_, line)| *line)
        .collect();
    let mut heading = String::new();
    let mut found = Vec::new();
    for (i, line) in profile[body_start..].lines().enumerate() {
        if let Some(h) = line.strip_prefix("## ") {
            heading = h.trim().to_string();
            continue;
        }
        if is_heading_or_blank(line) || placeholders.contains(&line.trim()) {
            continue;
        }
        if shared(wanted, &index_words(&format!("{line} {heading}"))) > 0 {
            let number = first_line + i;
            found.push(knower_index::Hit {
                path: crate::recovery::PROFILE.to_string(),
                title: "Profile".into(),
                heading: heading.clone(),
                line_start: number,
                line_end: number,
                score: 0.0,
                snippet: line.to_string(),
                marks: Vec::new(),
                text: line.to_string(),
                explain: None,
            });
        }
    }
    found
}

/// The line an update leaves in the changelog: `- DAY: summary [update-…]`.
fn is_routing_line(line: &str) -> bool {
    let line = line.trim_end();
    line.starts_with("- ")
        && line.ends_with(']')
        && line
            .rsplit_once('[')
            .is_some_and(|(_, id)| id.starts_with("update-"))
}

/// `text` with its routing lines blanked (not removed: line numbers stay).
fn without_routing_lines(text: &str) -> String {
    text.lines()
        .map(|l| if is_routing_line(l) { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_heading_or_blank(line: &str) -> bool {
    let line = line.trim();
    line.is_empty() || line.starts_with('#')
}

/// How many of `wanted` are among `words` (both from [`index_words`]).
fn shared(wanted: &[String], words: &[String]) -> usize {
    wanted
        .iter()
        .filter(|w| words.binary_search(w).is_ok())
        .count()
}

/// The line or two of the best passages that share the most of the
/// question's words, each with its file and line number: at most two, and
/// only lines that share at least half of those words (or one, for a
/// question of one or two words).
fn answering_lines(question: &str, hits: &[knower_index::Hit]) -> Vec<(String, String, usize)> {
    let mut scored: Vec<(usize, usize, String, String, usize)> = Vec::new();
    for (rank, hit) in hits.iter().take(3).enumerate() {
        // Each passage is read in its language, and the question with it
        // ("Wohnungen" and "Wohnung" are one German word).
        let stemmer = knower_index::language::stemmer_for(&hit.text);
        let wanted = index_words_in(question, stemmer);
        if wanted.is_empty() {
            continue;
        }
        let needed = wanted.len().div_ceil(2).max(1);
        for (offset, line) in hit.text.lines().enumerate() {
            if is_heading_or_blank(line) {
                continue;
            }
            let count = shared(&wanted, &index_words_in(line, stemmer));
            if count >= needed {
                let shown = line
                    .trim()
                    .trim_start_matches(['-', '*', '>', ' '])
                    .to_string();
                scored.push((
                    count,
                    rank,
                    shown,
                    hit.path.clone(),
                    hit.line_start + offset,
                ));
            }
        }
    }
    // Most shared words first, then the better passage, then the earlier line.
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.4.cmp(&b.4)));
    scored.dedup_by(|a, b| a.2 == b.2);
    scored
        .into_iter()
        .take(2)
        .map(|(_, _, line, path, number)| (ellipsis(&line, 300), path, number))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routing_lines_are_told_from_events() {
        assert!(is_routing_line(
            "- 2026-11-23: filed “Book the flight” in projects/trip/tasks.md [update-20261123-101500-3fa9]"
        ));
        assert!(!is_routing_line(
            "- 2026-11-23: the flight to Lisbon is booked"
        ));
        assert_eq!(
            without_routing_lines("# Changelog\n- 2026-11-23: x [update-1]\n- 2026-11-22: met Ana"),
            "# Changelog\n\n- 2026-11-22: met Ana"
        );
    }

    #[test]
    fn words_match_with_their_endings() {
        let same_word = |a: &str, b: &str| index_words(a) == index_words(b);
        assert!(same_word("booking", "booked"));
        assert!(same_word("flights", "flight"));
        assert!(same_word("planned", "plans"));
        assert!(!same_word("tea", "team"));
        assert!(!same_word("flight", "testflight"));
    }
}
