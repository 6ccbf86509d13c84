//! How text becomes BM25 terms: English words are stemmed, and the things
//! notes are full of — code identifiers, paths, versions, dates, e-mail
//! addresses — stay findable both whole and by their parts.
//!
//! `parse_config`, `src/main.rs`, `v1.2.3`, `2024-05-01` and `parseConfig`
//! are each indexed as the whole (a compound term, `position_length` > 1)
//! and as their parts at consecutive positions, so the query `parse_config`
//! matches exactly, `config` matches too, and `"2024 05"` is a phrase.

use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, RemoveLongFilter, StopWordFilter, TextAnalyzer, Token,
    TokenFilter, TokenStream, Tokenizer,
};

/// Function words that carry no topic: questions put to a memory ("what
/// did she say about…", "when do I…") are full of them, and so are notes.
/// Longer than tantivy's list of 33 (which misses `what`, `did`, `you`…);
/// month names, `may` and `will` stay searchable.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "me",
    "more",
    "most",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "ought",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// The name under which the analyzer is registered with tantivy.
pub const NAME: &str = "knower";

pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(CodeAwareTokenizer)
        .filter(RemoveLongFilter::limit(64))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(StopWordFilter::remove(
            STOP_WORDS.iter().map(|w| w.to_string()),
        ))
        .filter(StemWords)
        .build()
}

/// English stemming of words only: a compound (`src/main.rs`) or a part
/// with digits (`v1`) is kept as written, so it matches exactly.
#[derive(Clone, Copy)]
struct StemWords;

impl TokenFilter for StemWords {
    type Tokenizer<T: Tokenizer> = StemWordsFilter<T>;
    fn transform<T: Tokenizer>(self, inner: T) -> StemWordsFilter<T> {
        StemWordsFilter(inner)
    }
}

#[derive(Clone)]
pub struct StemWordsFilter<T>(T);

impl<T: Tokenizer> Tokenizer for StemWordsFilter<T> {
    type TokenStream<'a> = StemWordsStream<T::TokenStream<'a>>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        StemWordsStream {
            inner: self.0.token_stream(text),
            stemmer: rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English),
        }
    }
}

pub struct StemWordsStream<S> {
    inner: S,
    stemmer: rust_stemmers::Stemmer,
}

impl<S: TokenStream> TokenStream for StemWordsStream<S> {
    fn advance(&mut self) -> bool {
        if !self.inner.advance() {
            return false;
        }
        let token = self.inner.token_mut();
        let word = |c: char| c.is_alphabetic() || c == '\'' || c == '’';
        if token.position_length == 1 && token.text.chars().all(word) {
            let stemmed = self
                .stemmer
                .stem(&token.text.replace('’', "'"))
                .into_owned();
            token.text = stemmed;
        }
        true
    }
    fn token(&self) -> &Token {
        self.inner.token()
    }
    fn token_mut(&mut self) -> &mut Token {
        self.inner.token_mut()
    }
}

/// The analyzer's output for `text`: (term, position, is_compound).
pub fn terms(text: &str) -> Vec<(String, usize, bool)> {
    let mut analyzer = analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        let t = stream.token();
        out.push((t.text.clone(), t.position, t.position_length > 1));
    }
    out
}

#[derive(Clone, Copy, Default)]
pub struct CodeAwareTokenizer;

pub struct Tokens {
    tokens: Vec<Token>,
    next: usize,
}

impl TokenStream for Tokens {
    fn advance(&mut self) -> bool {
        self.next += 1;
        self.next <= self.tokens.len()
    }
    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

impl Tokenizer for CodeAwareTokenizer {
    type TokenStream<'a> = Tokens;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Tokens {
        let mut tokens = Vec::new();
        let mut position = 0;
        for (start, word) in words(text) {
            let parts = parts(word);
            if parts.len() > 1 {
                tokens.push(Token {
                    offset_from: start,
                    offset_to: start + word.len(),
                    position,
                    text: word.to_string(),
                    position_length: parts.len(),
                });
            }
            for (i, (offset, part)) in parts.into_iter().enumerate() {
                tokens.push(Token {
                    offset_from: start + offset,
                    offset_to: start + offset + part.len(),
                    position: position + i,
                    text: part.to_string(),
                    position_length: 1,
                });
            }
            position = tokens.last().map_or(position, |t| t.position + 1);
        }
        Tokens { tokens, next: 0 }
    }
}

/// Characters that join the parts of one compound: `a_b`, `a.b`, `a-b`,
/// `a/b`, `a:b`, `a@b`.
fn is_joiner(c: char) -> bool {
    matches!(c, '_' | '.' | '-' | '/' | ':' | '@' | '\'' | '’')
}

/// Maximal runs of alphanumerics and joiners, with joiners trimmed from both
/// ends (`end.` → `end`, `/path/` → `path`).
fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split(|c: char| !(c.is_alphanumeric() || is_joiner(c)))
        .map(move |w| {
            let start = w.as_ptr() as usize - text.as_ptr() as usize;
            let trimmed = w.trim_start_matches(is_joiner);
            let start = start + (w.len() - trimmed.len());
            (start, trimmed.trim_end_matches(is_joiner))
        })
        .filter(|(_, w)| !w.is_empty())
}

/// The parts of a word: split at joiners and at lower→upper case changes.
/// Possessives and contractions (`Caroline's`, `don't`) stay one part.
fn parts(word: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev: Option<char> = None;
    for (i, c) in word.char_indices() {
        if matches!(c, '\'' | '’') {
            prev = Some(c);
            continue;
        }
        if is_joiner(c) {
            if i > start {
                out.push((start, &word[start..i]));
            }
            start = i + c.len_utf8();
        } else if prev.is_some_and(|p| p.is_lowercase()) && c.is_uppercase() && i > start {
            out.push((start, &word[start..i]));
            start = i;
        }
        prev = Some(c);
    }
    if start < word.len() {
        out.push((start, &word[start..]));
    }
    // An apostrophe ending a part (`James'`) is not part of the word.
    out.into_iter()
        .map(|(s, p)| (s, p.trim_end_matches(['\'', '’'])))
        .filter(|(_, p)| !p.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<String> {
        terms(text).into_iter().map(|(t, _, _)| t).collect()
    }

    #[test]
    fn english_is_stemmed_and_stop_words_dropped() {
        assert_eq!(texts("What did the runners do"), vec!["runner"]);
        assert_eq!(texts("May I go in May"), vec!["may", "go", "may"]);
    }

    #[test]
    fn identifiers_paths_versions_and_dates_are_whole_and_parts() {
        assert_eq!(
            texts("parse_config"),
            vec!["parse_config", "pars", "config"]
        );
        assert_eq!(
            texts("see src/main.rs."),
            vec!["see", "src/main.rs", "src", "main", "rs"]
        );
        assert_eq!(texts("2024-05-01"), vec!["2024-05-01", "2024", "05", "01"]);
        assert_eq!(texts("v1.2.3"), vec!["v1.2.3", "v1", "2", "3"]);
        assert_eq!(texts("parseConfig"), vec!["parseconfig", "pars", "config"]);
    }

    #[test]
    fn parts_take_consecutive_positions_after_the_compound() {
        let t = terms("x-y z");
        assert_eq!(
            t,
            vec![
                ("x-y".into(), 0, true),
                ("x".into(), 0, false),
                ("y".into(), 1, false),
                ("z".into(), 2, false)
            ]
        );
    }

    #[test]
    fn possessives_stay_one_word() {
        assert_eq!(texts("Caroline's"), vec!["carolin"]);
    }
}
