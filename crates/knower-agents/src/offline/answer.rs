//! Answers without an LLM: first the line or two of the vault that answer
//! best, each with its `path:line`, then the passages that best match the
//! question, grouped by file, each with its `path:first-last` citation. No
//! sentence is written that the vault does not contain, and the changelog's
//! routing lines (where an update was filed) are never evidence.

use crate::error::Result;
use crate::evidence::{admit, is_heading_or_blank};
use crate::offline::stems::{index_words, index_words_in};
use crate::report::OFFLINE;
use crate::report::{Answer, Source};
use crate::text::ellipsis;
use knower_index::{Hit, Index, Mode, SearchOptions};

/// Passages shown at most.
pub const PASSAGES: usize = 6;
/// Longest passage shown, in characters.
const PASSAGE_CHARS: usize = 600;

/// What the vault holds for a question, before it is written as an answer.
#[derive(Clone, Debug, Default)]
pub struct Evidence {
    /// The line or two that answer best, each with its `path` and line.
    pub lines: Vec<Line>,
    /// The passages that match best, best first.
    pub hits: Vec<Hit>,
    /// What search had to say about itself (a mode it could not use).
    pub notice: Option<String>,
}

impl Evidence {
    /// The lines that answer, as a reply shows them: under "From your
    /// notes", each with its `path:line`; empty when none does.
    pub fn lines_markdown(&self) -> String {
        if self.lines.is_empty() {
            return String::new();
        }
        let mut out = String::from("**From your notes:**\n\n");
        for line in &self.lines {
            out.push_str(&format!(
                "- {} — `{}:{}`\n",
                line.text, line.path, line.number
            ));
        }
        out
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub text: String,
    pub path: String,
    pub number: usize,
}

/// Where to look for evidence, and how much of it to keep.
#[derive(Clone, Copy, Debug)]
pub struct Within<'a> {
    pub mode: Mode,
    pub scope: Option<&'a str>,
    /// Files under these folders are left out.
    pub without: &'a [&'a str],
    pub passages: usize,
}

/// `profile` is the text of `profile.md`, which is not indexed: its lines
/// that answer come first.
pub fn answer(
    index: &Index,
    profile: Option<&str>,
    question: &str,
    mode: Mode,
    scope: Option<&str>,
) -> Result<Answer> {
    answer_instead(
        index,
        profile,
        question,
        mode,
        scope,
        "no LLM is configured, so",
    )
}

/// The offline answer given in place of a model's, `because` saying why
/// (the model's answer cited nothing, say), ending in "so" or ";".
pub fn answer_instead(
    index: &Index,
    profile: Option<&str>,
    question: &str,
    mode: Mode,
    scope: Option<&str>,
    because: &str,
) -> Result<Answer> {
    let within = Within {
        mode,
        scope,
        without: &[],
        passages: PASSAGES,
    };
    let evidence = evidence(index, profile, question, within)?;
    Ok(render(
        evidence,
        &format!("{because} this is not a written answer"),
    ))
}

/// The evidence for `question`: the passages search finds ([`admit`]ted as
/// evidence), the profile's lines that answer first, and the lines of the
/// best of them that share the most of the question's words.
pub fn evidence(
    index: &Index,
    profile: Option<&str>,
    question: &str,
    within: Within,
) -> Result<Evidence> {
    let options = SearchOptions {
        mode: within.mode,
        scope: within.scope.map(str::to_string),
        // Room for the passages dropped below.
        limit: within.passages.max(1) * 4,
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
        !within
            .without
            .iter()
            .any(|folder| hit.path.starts_with(&format!("{folder}/")))
    });
    admit(question, &mut results.hits);
    if let Some(profile) = profile {
        let mut about = profile_lines(profile, question);
        about.append(&mut results.hits);
        results.hits = about;
    }
    results.hits.truncate(within.passages);
    Ok(Evidence {
        lines: answering_lines(question, &results.hits),
        hits: results.hits,
        notice: results.notice,
    })
}

/// The answer a person reads: the lines that answer, then the passages
/// grouped by file, each cited.
fn render(evidence: Evidence, why: &str) -> Answer {
    let mut markdown = format!(
        "_{OFFLINE}: {why} but the passages of your vault that best match the question._\n\n"
    );
    if let Some(notice) = &evidence.notice {
        markdown.push_str(&format!("_Note: {notice}_\n\n"));
    }
    if evidence.hits.is_empty() {
        markdown.push_str("The vault does not hold anything that matches this question.\n");
        return Answer {
            engine: OFFLINE.into(),
            markdown,
            sources: vec![],
            found: false,
            usage: None,
        };
    }
    if !evidence.lines.is_empty() {
        markdown.push_str(&evidence.lines_markdown());
        markdown.push_str("\n**Passages:**\n\n");
    }
    let (passages, sources) = passages_by_file(&evidence.hits);
    markdown.push_str(&passages);
    Answer {
        engine: OFFLINE.into(),
        markdown,
        sources,
        found: true,
        usage: None,
    }
}

/// `hits` as markdown, files in the order of their best passage and
/// passages in file order, each under its `path:first-last`; and the
/// sources they cite.
pub fn passages_by_file(hits: &[Hit]) -> (String, Vec<Source>) {
    let mut files: Vec<(String, Vec<&Hit>)> = Vec::new();
    for hit in hits {
        match files.iter_mut().find(|(path, _)| *path == hit.path) {
            Some((_, hits)) => hits.push(hit),
            None => files.push((hit.path.clone(), vec![hit])),
        }
    }
    let mut markdown = String::new();
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
    (markdown, sources)
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

/// The lines of the profile that answer `question`, as passages of their
/// own. A question in the first person takes every line that shares one of
/// its words, and a line's section heading counts as part of it, so "my
/// preferences" finds every line under `## Preferences`; any other question
/// takes the lines that share half its words, as [`answering_lines`] does,
/// so "What is Inés allergic to?" finds the line about Inés under
/// `## People`. The starter's placeholder lines are not facts.
fn profile_lines(profile: &str, question: &str) -> Vec<Hit> {
    let wanted = index_words(question);
    let needed = match about_the_user(question) {
        true => 1,
        false => wanted.len().div_ceil(2).max(1),
    };
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
        if shared(&wanted, &index_words(&format!("{line} {heading}"))) >= needed {
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
fn answering_lines(question: &str, hits: &[Hit]) -> Vec<Line> {
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
        .map(|(_, _, line, path, number)| Line {
            text: ellipsis(&line, 300),
            path,
            number,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
