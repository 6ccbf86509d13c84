//! Markdown → chunks: the unit of search and of embedding.
//!
//! A note is cut into blocks (a heading line, a fenced code block, a run of
//! non-blank lines), and blocks are packed into chunks that never cross a
//! heading and never exceed the budget — except a code fence, which is never
//! split: a too-long fence is a chunk of its own. A block longer than the
//! budget is cut between lines, and a line longer than the budget between
//! words. Consecutive chunks of one section overlap by one short block, so a
//! passage that straddles the cut is whole in at least one of them.

use sha2::{Digest, Sha256};

/// One searchable piece of a note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// The headings above the chunk, outermost first.
    pub headings: Vec<String>,
    /// 1-based, inclusive, in the file as stored (frontmatter counted).
    pub line_start: usize,
    pub line_end: usize,
    pub text: String,
}

impl Chunk {
    /// `Title › Heading › Sub-heading`: what a reader needs to place it.
    pub fn heading_path(&self) -> String {
        self.headings.join(" › ")
    }

    /// What the embedding model sees (see [`embedding_text`]).
    pub fn embedding_text(&self, title: &str) -> String {
        embedding_text(title, &self.heading_path(), &self.text)
    }

    /// The key of its vector: an unchanged passage is never embedded twice.
    pub fn hash(&self, title: &str) -> String {
        hex(&Sha256::digest(self.embedding_text(title).as_bytes()))
    }
}

/// The title and headings give a short passage the context a reader has.
/// Rebuilt from the stored fields of the index, so it is one function.
pub fn embedding_text(title: &str, heading: &str, text: &str) -> String {
    let context = if heading.is_empty() || heading == title {
        title.to_string()
    } else if heading.starts_with(title) && heading[title.len()..].starts_with(" › ") {
        heading.to_string()
    } else {
        format!("{title} › {heading}")
    };
    format!("{context}\n{text}")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// How big chunks are, in characters (≈ 4 per token); see
/// [`crate::SearchConfig::budget`].
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// A chunk is closed before it would exceed this many characters.
    pub max_chars: usize,
    /// A trailing block at most this long is repeated at the start of the
    /// next chunk of the same section.
    pub overlap_chars: usize,
}

/// The title, headings and chunks of one note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub title: String,
    pub tags: Vec<String>,
    /// Every heading of the note, in order: the whole note's headings, where
    /// a chunk has only those above it.
    pub headings: Vec<String>,
    /// The note's text after its frontmatter, each line once (chunks
    /// overlap): what the whole note is ranked on.
    pub text: String,
    pub chunks: Vec<Chunk>,
}

#[derive(Clone, Debug)]
struct Block {
    /// 0-based line index of the first line.
    start: usize,
    lines: Vec<String>,
    fence: bool,
}

impl Block {
    fn chars(&self) -> usize {
        self.lines.iter().map(|l| l.chars().count() + 1).sum()
    }
}

/// Chunks a note. `stem` is the file name without `.md`, the title of last
/// resort.
pub fn chunk_note(content: &str, stem: &str, budget: Budget) -> Note {
    let lines: Vec<&str> = content.lines().collect();
    let (front_end, mut title, mut tags) = frontmatter(&lines);

    let mut chunks = Vec::new();
    let mut all_headings = Vec::new();
    let mut headings: Vec<(usize, String)> = Vec::new();
    let mut section: Vec<Block> = Vec::new();
    let flush =
        |section: &mut Vec<Block>, headings: &[(usize, String)], chunks: &mut Vec<Chunk>| {
            let names: Vec<String> = headings.iter().map(|(_, h)| h.clone()).collect();
            pack(std::mem::take(section), &names, budget, chunks);
        };

    let mut i = front_end;
    while i < lines.len() {
        let line = lines[i];
        if line.trim().is_empty() {
            i += 1;
            continue;
        }
        if let Some(fence) = fence_marker(line) {
            let start = i;
            i += 1;
            while i < lines.len() && !closes_fence(lines[i], fence) {
                i += 1;
            }
            let end = (i + 1).min(lines.len());
            section.push(Block {
                start,
                lines: lines[start..end].iter().map(|s| s.to_string()).collect(),
                fence: true,
            });
            i = end;
            continue;
        }
        if let Some((level, text)) = heading(line) {
            flush(&mut section, &headings, &mut chunks);
            headings.retain(|(l, _)| *l < level);
            headings.push((level, text.clone()));
            all_headings.push(text.clone());
            if level == 1 && title.is_none() {
                title = Some(text);
            }
            // The heading line itself belongs to its section's first chunk,
            // so a match on the heading points at it.
            section.push(Block {
                start: i,
                lines: vec![line.to_string()],
                fence: false,
            });
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len()
            && !lines[i].trim().is_empty()
            && fence_marker(lines[i]).is_none()
            && heading(lines[i]).is_none()
        {
            i += 1;
        }
        section.push(Block {
            start,
            lines: lines[start..i].iter().map(|s| s.to_string()).collect(),
            fence: false,
        });
    }
    flush(&mut section, &headings, &mut chunks);

    for chunk in &chunks {
        for word in chunk.text.split_whitespace() {
            if let Some(tag) = inline_tag(word)
                && !tags.contains(&tag)
            {
                tags.push(tag);
            }
        }
    }
    Note {
        title: title.unwrap_or_else(|| stem.to_string()),
        tags,
        headings: all_headings,
        text: lines.get(front_end..).unwrap_or_default().join("\n"),
        chunks,
    }
}

/// Packs one section's blocks into chunks.
fn pack(blocks: Vec<Block>, headings: &[String], budget: Budget, out: &mut Vec<Chunk>) {
    let mut pieces = Vec::new();
    for block in blocks {
        if block.fence || block.chars() <= budget.max_chars {
            pieces.push(block);
        } else {
            split_block(&block, budget, &mut pieces);
        }
    }
    let mut current: Vec<Block> = Vec::new();
    let mut size = 0;
    for piece in pieces {
        let chars = piece.chars();
        if !current.is_empty() && size + chars > budget.max_chars {
            let last = current.last().cloned().expect("not empty");
            emit(&current, headings, out);
            current.clear();
            size = 0;
            // Overlap: repeat the previous block when it is short and this
            // one leaves room for it — never a heading alone.
            if last.chars() <= budget.overlap_chars
                && last.chars() + chars <= budget.max_chars
                && heading(&last.lines[0]).is_none()
            {
                size = last.chars();
                current.push(last);
            }
        }
        size += chars;
        current.push(piece);
    }
    if !current.is_empty() {
        emit(&current, headings, out);
    }
}

/// Cuts a long paragraph or list between lines, and a long line between
/// words, into pieces of at most `max` characters. A piece starts with the
/// previous piece's last line when that line is at most `overlap` long.
fn split_block(block: &Block, budget: Budget, out: &mut Vec<Block>) {
    let max = budget.max_chars;
    let mut current = Block {
        start: block.start,
        lines: Vec::new(),
        fence: false,
    };
    for (offset, line) in block.lines.iter().enumerate() {
        let at = block.start + offset;
        let parts = if line.chars().count() + 1 > max {
            split_line(line, max)
        } else {
            vec![line.clone()]
        };
        for part in parts {
            let size = part.chars().count() + 1;
            if !current.lines.is_empty() && current.chars() + size > max {
                let last = current.lines.last().cloned().expect("not empty");
                let last_at = current.start + current.lines.len() - 1;
                out.push(std::mem::replace(
                    &mut current,
                    Block {
                        start: at,
                        lines: Vec::new(),
                        fence: false,
                    },
                ));
                let last_size = last.chars().count() + 1;
                if last_size <= budget.overlap_chars && last_size + size <= max && last_at < at {
                    current.start = last_at;
                    current.lines.push(last);
                }
            }
            if current.lines.is_empty() {
                current.start = at;
            }
            current.lines.push(part);
        }
    }
    if !current.lines.is_empty() {
        out.push(current);
    }
}

fn split_line(line: &str, max: usize) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    for word in line.split_inclusive(' ') {
        if !current.is_empty() && current.chars().count() + word.chars().count() > max {
            parts.push(std::mem::take(&mut current));
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        parts.push(current);
    }
    parts
}

fn emit(blocks: &[Block], headings: &[String], out: &mut Vec<Chunk>) {
    let first = &blocks[0];
    let last = &blocks[blocks.len() - 1];
    // A piece of one long line repeats that line's number.
    let line_end = (last.start + last.lines.len()).max(first.start + 1);
    let text = blocks
        .iter()
        .map(|b| b.lines.join("\n"))
        .collect::<Vec<_>>()
        .join("\n\n");
    if out.last().is_some_and(|c: &Chunk| c.text == text) {
        return;
    }
    out.push(Chunk {
        headings: headings.to_vec(),
        line_start: first.start + 1,
        line_end,
        text,
    });
}

/// The frontmatter's extent (lines to skip), its title and tags. A malformed
/// block is skipped as text would be, without its fields.
fn frontmatter(lines: &[&str]) -> (usize, Option<String>, Vec<String>) {
    if lines.first().map(|l| l.trim_end()) != Some("---") {
        return (0, None, Vec::new());
    }
    let Some(close) = lines[1..]
        .iter()
        .position(|l| matches!(l.trim_end(), "---" | "..."))
    else {
        return (0, None, Vec::new());
    };
    let yaml = lines[1..=close].join("\n");
    let value = knower_vault::frontmatter::parse_yaml(&yaml).ok();
    let field = |key: &str| value.as_ref().and_then(|v| v.get(key));
    let title = field("title")
        .and_then(|t| t.as_str())
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string);
    let tags = match field("tags") {
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .filter_map(|t| t.as_str())
            .map(|t| t.trim_start_matches('#').to_lowercase())
            .collect(),
        Some(serde_json::Value::String(s)) => s
            .split([',', ' '])
            .map(|t| t.trim().trim_start_matches('#').to_lowercase())
            .filter(|t| !t.is_empty())
            .collect(),
        _ => Vec::new(),
    };
    (close + 2, title, tags)
}

/// `## Heading` → (2, "Heading").
fn heading(line: &str) -> Option<(usize, String)> {
    let trimmed = line.trim_start();
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let level = trimmed.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &trimmed[level..];
    if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
        return None;
    }
    let text = rest.trim().trim_end_matches('#').trim();
    Some((level, text.to_string()))
}

/// The fence a line opens: its character and length (``` or ~~~, 3 or more).
fn fence_marker(line: &str) -> Option<(u8, usize)> {
    let trimmed = line.trim_start();
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let first = *trimmed.as_bytes().first()?;
    if first != b'`' && first != b'~' {
        return None;
    }
    let count = trimmed.bytes().take_while(|&b| b == first).count();
    (count >= 3).then_some((first, count))
}

fn closes_fence(line: &str, (ch, count): (u8, usize)) -> bool {
    let trimmed = line.trim();
    trimmed.len() >= count && trimmed.bytes().all(|b| b == ch)
}

/// `#tag` in running text (not a heading, not `#123` alone).
fn inline_tag(word: &str) -> Option<String> {
    let tag = word.strip_prefix('#')?;
    let tag = tag.trim_end_matches(|c: char| !c.is_alphanumeric());
    let valid = !tag.is_empty()
        && tag.chars().any(|c| c.is_alphabetic())
        && tag
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '/'));
    valid.then(|| tag.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Budget {
        Budget {
            max_chars: 60,
            overlap_chars: 20,
        }
    }

    #[test]
    fn sections_follow_headings_and_know_their_lines() {
        let text = "---\ntitle: Alpha plan\ntags: [work, Rust]\n---\n# Alpha\n\nintro line\n\n## Risks\n\nrisk one\nrisk two\n";
        let note = chunk_note(text, "alpha", crate::SearchConfig::default().budget());
        assert_eq!(note.title, "Alpha plan");
        assert_eq!(note.tags, vec!["work", "rust"]);
        assert_eq!(note.chunks.len(), 2);
        assert_eq!(note.chunks[0].headings, vec!["Alpha"]);
        assert_eq!((note.chunks[0].line_start, note.chunks[0].line_end), (5, 7));
        assert_eq!(note.chunks[1].headings, vec!["Alpha", "Risks"]);
        assert_eq!(
            (note.chunks[1].line_start, note.chunks[1].line_end),
            (9, 12)
        );
        assert_eq!(note.chunks[1].text, "## Risks\n\nrisk one\nrisk two");
        // The whole note, for the notes index: its text once, every heading.
        assert_eq!(note.headings, vec!["Alpha", "Risks"]);
        assert_eq!(
            note.text,
            "# Alpha\n\nintro line\n\n## Risks\n\nrisk one\nrisk two"
        );
    }

    #[test]
    fn title_falls_back_to_first_h1_then_file_name() {
        assert_eq!(chunk_note("# Hello\nx", "f", small()).title, "Hello");
        assert_eq!(
            chunk_note("## Sub\nx", "file-name", small()).title,
            "file-name"
        );
    }

    #[test]
    fn a_code_fence_is_never_split_nor_read_as_headings() {
        let code = (0..20)
            .map(|i| format!("# not a heading {i}"))
            .collect::<Vec<_>>()
            .join("\n");
        let text = format!("# T\n\nbefore\n\n```sh\n{code}\n```\n\nafter\n");
        let note = chunk_note(&text, "t", small());
        let fence: Vec<_> = note
            .chunks
            .iter()
            .filter(|c| c.text.contains("```"))
            .collect();
        assert_eq!(fence.len(), 1, "{:#?}", note.chunks);
        assert!(fence[0].text.starts_with("```sh") && fence[0].text.ends_with("```"));
        assert!(note.chunks.iter().all(|c| c.headings == vec!["T"]));
    }

    #[test]
    fn an_unclosed_fence_runs_to_the_end() {
        let note = chunk_note("a\n\n```\ncode\n# x", "t", small());
        assert!(note.chunks.last().unwrap().text.ends_with("```\ncode\n# x"));
        assert!(note.chunks.iter().all(|c| c.headings.is_empty()));
    }

    #[test]
    fn long_paragraphs_are_cut_between_lines_with_overlap() {
        let lines: Vec<String> = (1..=12).map(|i| format!("line number {i:02}")).collect();
        let note = chunk_note(&lines.join("\n"), "t", small());
        assert!(note.chunks.len() > 2);
        for c in &note.chunks {
            assert!(c.text.chars().count() <= 60 + 20, "{c:?}");
        }
        // Every line is in some chunk, and line numbers match the text.
        for (i, line) in lines.iter().enumerate() {
            let c = note.chunks.iter().find(|c| c.text.contains(line)).unwrap();
            assert!((c.line_start..=c.line_end).contains(&(i + 1)));
        }
        // Consecutive pieces share a line.
        for pair in note.chunks.windows(2) {
            let last = pair[0].text.lines().last().unwrap();
            assert!(pair[1].text.starts_with(last), "{pair:?}");
            assert_eq!(pair[1].line_start, pair[0].line_end);
        }
    }

    #[test]
    fn a_huge_line_is_cut_between_words() {
        let line: String = (0..100).map(|i| format!("word{i} ")).collect();
        let note = chunk_note(&line, "t", small());
        assert!(note.chunks.len() >= 8);
        assert!(
            note.chunks
                .iter()
                .all(|c| c.line_start == 1 && c.line_end == 1)
        );
    }

    #[test]
    fn malformed_frontmatter_is_skipped_not_fatal() {
        let note = chunk_note("---\n: [oops\n---\nbody text\n", "t", small());
        assert_eq!(note.title, "t");
        assert_eq!(note.chunks.len(), 1);
        assert_eq!(note.chunks[0].line_start, 4);
    }

    #[test]
    fn inline_tags_are_collected() {
        let note = chunk_note(
            "# T\nabout #rust and #Search-engines, not #42",
            "t",
            small(),
        );
        assert_eq!(note.tags, vec!["rust", "search-engines"]);
    }

    #[test]
    fn hash_changes_with_text_and_title() {
        let note = chunk_note("# T\nsome text", "t", small());
        let c = &note.chunks[0];
        assert_eq!(c.hash("T"), c.hash("T"));
        assert_ne!(c.hash("T"), c.hash("U"));
    }
}
