//! Answers without an LLM: the passages of the vault that best match the
//! question, grouped by file, each with its `path:first-last` citation. No
//! sentence is written that the vault does not contain.

use knower_index::{Index, Mode, SearchOptions};

use crate::agents::OFFLINE;
use crate::error::Result;
use crate::report::{Answer, Source};
use crate::text::ellipsis;

/// Passages shown at most.
const PASSAGES: usize = 6;
/// Longest passage shown, in characters.
const PASSAGE_CHARS: usize = 600;

pub fn answer(index: &Index, question: &str, mode: Mode, scope: Option<&str>) -> Result<Answer> {
    answer_without(index, question, mode, scope, &[])
}

/// The same, leaving out passages of files under the `without` folders.
pub fn answer_without(
    index: &Index,
    question: &str,
    mode: Mode,
    scope: Option<&str>,
    without: &[&str],
) -> Result<Answer> {
    let options = SearchOptions {
        mode,
        scope: scope.map(str::to_string),
        limit: if without.is_empty() {
            PASSAGES
        } else {
            PASSAGES * 4
        },
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
