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

/// The names under which the analyzers are registered with tantivy: the
/// notes' words, and the parts of their mixed-case words.
pub const NAME: &str = "knower";
pub const PARTS_NAME: &str = "knower-parts";

/// What the tokenizer makes of a word with a case change (`TestFlight`,
/// `parseConfig`). Its parts are real words, but a note that merely names
/// TestFlight is not about flights: the notes' own fields keep such a word
/// whole, and its parts go to a field of their own that ranks below a
/// plain match. A question is split fully, so it meets both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CaseParts {
    /// The whole word and all its parts (questions).
    #[default]
    All,
    /// The whole word, split at joiners (`_`, `.`, `/`…) only.
    Whole,
    /// Only the parts split off at case changes.
    Only,
}

/// The analyzer of questions.
pub fn analyzer() -> TextAnalyzer {
    analyzer_with(CaseParts::All)
}

pub fn analyzer_with(case_parts: CaseParts) -> TextAnalyzer {
    TextAnalyzer::builder(CodeAwareTokenizer { case_parts })
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
    terms_with(text, CaseParts::All)
}

/// [`terms`], with mixed-case words treated as `case_parts` says.
pub fn terms_with(text: &str, case_parts: CaseParts) -> Vec<(String, usize, bool)> {
    let mut analyzer = analyzer_with(case_parts);
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        let t = stream.token();
        out.push((t.text.clone(), t.position, t.position_length > 1));
    }
    out
}

/// A piece of a word between joiners: its offset in the word, its text, and
/// its parts split at case changes (offsets in the piece).
type Piece<'a> = (usize, &'a str, Vec<(usize, &'a str)>);

#[derive(Clone, Copy, Default)]
pub struct CodeAwareTokenizer {
    case_parts: CaseParts,
}

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

    /// Every mode gives a word's finest parts the same positions, so a
    /// question's phrase lines up with the notes whichever field it meets.
    fn token_stream<'a>(&'a mut self, text: &'a str) -> Tokens {
        let mut tokens = Vec::new();
        let mut position = 0;
        let token = |from: usize, text: &str, position: usize, length: usize| Token {
            offset_from: from,
            offset_to: from + text.len(),
            position,
            text: text.to_string(),
            position_length: length,
        };
        for (start, word) in words(text) {
            let pieces: Vec<Piece> = joined_parts(word)
                .into_iter()
                .map(|(offset, piece)| (offset, piece, case_parts(piece)))
                .collect();
            let finest: usize = pieces.iter().map(|(_, _, parts)| parts.len()).sum();
            let mut at = position;
            match self.case_parts {
                CaseParts::All => {
                    if finest > 1 {
                        tokens.push(token(start, word, position, finest));
                    }
                    for (offset, _, parts) in &pieces {
                        for (o, part) in parts {
                            tokens.push(token(start + offset + o, part, at, 1));
                            at += 1;
                        }
                    }
                }
                CaseParts::Whole => {
                    if pieces.len() > 1 {
                        tokens.push(token(start, word, position, finest));
                    }
                    for (offset, piece, parts) in &pieces {
                        tokens.push(token(start + offset, piece, at, parts.len()));
                        at += parts.len();
                    }
                }
                CaseParts::Only => {
                    for (offset, _, parts) in &pieces {
                        if parts.len() > 1 {
                            for (i, (o, part)) in parts.iter().enumerate() {
                                tokens.push(token(start + offset + o, part, at + i, 1));
                            }
                        }
                        at += parts.len();
                    }
                }
            }
            position += finest.max(1);
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

/// The pieces of a word between joiners. Possessives and contractions
/// (`Caroline's`, `don't`) stay one piece; an apostrophe ending a piece
/// (`James'`) is not part of the word.
fn joined_parts(word: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in word.char_indices() {
        if is_joiner(c) && !matches!(c, '\'' | '’') {
            if i > start {
                out.push((start, &word[start..i]));
            }
            start = i + c.len_utf8();
        }
    }
    if start < word.len() {
        out.push((start, &word[start..]));
    }
    out.into_iter()
        .map(|(s, p)| (s, p.trim_end_matches(['\'', '’'])))
        .filter(|(_, p)| !p.is_empty())
        .collect()
}

/// A piece split at its lower→upper case changes (`TestFlight` → `Test`,
/// `Flight`), offsets relative to the piece.
fn case_parts(piece: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev: Option<char> = None;
    for (i, c) in piece.char_indices() {
        if prev.is_some_and(|p| p.is_lowercase()) && c.is_uppercase() && i > start {
            out.push((start, &piece[start..i]));
            start = i;
        }
        prev = Some(c);
    }
    out.push((start, &piece[start..]));
    out
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

    fn terms_in(mode: CaseParts, text: &str) -> Vec<(String, usize)> {
        let mut analyzer = analyzer_with(mode);
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push((stream.token().text.clone(), stream.token().position));
        }
        out
    }

    #[test]
    fn a_mixed_case_word_is_whole_in_the_notes_fields_and_split_in_its_own() {
        let t = |mode, text| -> Vec<(String, usize)> { terms_in(mode, text) };
        let owned = |v: &[(&str, usize)]| -> Vec<(String, usize)> {
            v.iter().map(|(s, p)| (s.to_string(), *p)).collect()
        };
        assert_eq!(
            t(CaseParts::Whole, "to TestFlight today"),
            owned(&[("testflight", 1), ("today", 3)])
        );
        assert_eq!(
            t(CaseParts::Only, "to TestFlight today"),
            owned(&[("test", 1), ("flight", 2)])
        );
        // A question meets both: the whole, and its parts at the same positions.
        assert_eq!(
            t(CaseParts::All, "TestFlight today"),
            owned(&[("testflight", 0), ("test", 0), ("flight", 1), ("today", 2)])
        );
        // Joiners still split in the notes' fields; only case changes move out.
        assert_eq!(
            t(CaseParts::Whole, "parseConfig_v2"),
            owned(&[("parseconfig_v2", 0), ("parseconfig", 0), ("v2", 2)])
        );
        assert_eq!(
            t(CaseParts::Only, "parseConfig_v2"),
            owned(&[("pars", 0), ("config", 1)])
        );
        assert_eq!(
            t(CaseParts::Whole, "parse_config"),
            owned(&[("parse_config", 0), ("pars", 0), ("config", 1)])
        );
        assert_eq!(t(CaseParts::Only, "d'Artagnan O'Brien"), owned(&[]));
    }

    #[test]
    fn possessives_stay_one_word() {
        assert_eq!(texts("Caroline's"), vec!["carolin"]);
    }
}
