//! Which language a passage is written in, and the Snowball stemmer that
//! goes with it. whatlang names the language from the text's trigrams; a
//! text too short to tell, or told unreliably, is treated as English, as
//! every text was before languages were told apart.

pub use rust_stemmers::Algorithm;
use whatlang::Lang;

/// Fewer letters than this say too little to tell a language by: titles,
/// headings, tags and the words of a question are stemmed as English (a
/// question's words are then tried in each language of the vault too).
const MIN_LETTERS: usize = 24;

/// The languages told apart: those with a stemmer, and Chinese, Japanese
/// and Korean. Among all 69 whatlang knows, a short note is rarely told
/// reliably (one Russian sentence was as likely Ukrainian, Belarusian or
/// Bulgarian); among these, a Cyrillic sentence is Russian.
const TOLD: &[Lang] = &[
    Lang::Ara,
    Lang::Dan,
    Lang::Nld,
    Lang::Eng,
    Lang::Fin,
    Lang::Fra,
    Lang::Deu,
    Lang::Ell,
    Lang::Hun,
    Lang::Ita,
    Lang::Nob,
    Lang::Por,
    Lang::Ron,
    Lang::Rus,
    Lang::Spa,
    Lang::Swe,
    Lang::Tam,
    Lang::Tur,
    Lang::Cmn,
    Lang::Jpn,
    Lang::Kor,
];

/// How much of a text is read to tell its language: some forty words are
/// plenty, and whatlang's time grows with the text (it is the indexing's
/// main added cost).
const SAMPLE_BYTES: usize = 256;

/// The language of `text`, when whatlang is sure of it.
pub fn detect(text: &str) -> Option<Lang> {
    let mut end = text.len().min(SAMPLE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let sample = &text[..end];
    let letters = sample
        .chars()
        .filter(|c| c.is_alphabetic())
        .take(MIN_LETTERS)
        .count();
    if letters < MIN_LETTERS {
        return None;
    }
    // A passage's text is analysed for two fields (its words and their
    // mixed-case parts) one after the other on one thread: told once.
    thread_local! {
        static LAST: std::cell::RefCell<Option<(String, Option<Lang>)>> =
            const { std::cell::RefCell::new(None) };
    }
    if let Some(told) = LAST.with_borrow(|last| {
        last.as_ref()
            .filter(|(seen, _)| seen == sample)
            .map(|(_, lang)| *lang)
    }) {
        return told;
    }
    let told = tell(sample);
    LAST.set(Some((sample.to_string(), told)));
    told
}

fn tell(text: &str) -> Option<Lang> {
    static DETECTOR: std::sync::OnceLock<whatlang::Detector> = std::sync::OnceLock::new();
    // English function words decide first: they are 0.24–0.44 of the
    // words of English texts, at most 0.11 of the German, French and
    // Spanish ones measured, and trigrams alone took an English course
    // description for Dutch (1 of 13,304 English notes and updates of the
    // routing sets). Most notes are English, so most skip the trigrams.
    if english_share(text) >= ENGLISH_SHARE {
        return Some(Lang::Eng);
    }
    DETECTOR
        .get_or_init(|| whatlang::Detector::with_allowlist(TOLD.to_vec()))
        .detect(text)
        .filter(|info| info.is_reliable())
        .map(|info| info.lang())
}

/// The share of English function words from which a text reads as
/// English whatever its trigrams say: midway between the highest share
/// measured in other languages (0.11) and the lowest in English (0.24).
const ENGLISH_SHARE: f64 = 0.2;

/// The share of a text's words that are English function words.
fn english_share(text: &str) -> f64 {
    static FUNCTION_WORDS: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
        std::sync::OnceLock::new();
    let function_words =
        FUNCTION_WORDS.get_or_init(|| crate::analyzer::STOP_WORDS.iter().copied().collect());
    let mut words = 0;
    let mut function = 0;
    let mut lower = String::new();
    for word in text
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
    {
        words += 1;
        lower.clear();
        lower.extend(word.chars().flat_map(char::to_lowercase));
        if function_words.contains(lower.as_str()) {
            function += 1;
        }
    }
    if words == 0 {
        0.0
    } else {
        function as f64 / words as f64
    }
}

/// The stemmer of `lang`: the 18 languages Snowball covers, as tantivy
/// ships them; Chinese, Japanese and Korean need none (their text is cut
/// into overlapping pairs of characters instead), nor do the rest.
pub fn stemmer(lang: Lang) -> Option<Algorithm> {
    Some(match lang {
        Lang::Ara => Algorithm::Arabic,
        Lang::Dan => Algorithm::Danish,
        Lang::Nld => Algorithm::Dutch,
        Lang::Eng => Algorithm::English,
        Lang::Fin => Algorithm::Finnish,
        Lang::Fra => Algorithm::French,
        Lang::Deu => Algorithm::German,
        Lang::Ell => Algorithm::Greek,
        Lang::Hun => Algorithm::Hungarian,
        Lang::Ita => Algorithm::Italian,
        Lang::Nob => Algorithm::Norwegian,
        Lang::Por => Algorithm::Portuguese,
        Lang::Ron => Algorithm::Romanian,
        Lang::Rus => Algorithm::Russian,
        Lang::Spa => Algorithm::Spanish,
        Lang::Swe => Algorithm::Swedish,
        Lang::Tam => Algorithm::Tamil,
        Lang::Tur => Algorithm::Turkish,
        _ => return None,
    })
}

/// The stemmer for a text: its language's, else English's.
pub fn stemmer_for(text: &str) -> Algorithm {
    detect(text).and_then(stemmer).unwrap_or(Algorithm::English)
}

/// Han ideographs, kana and Hangul: scripts written without spaces between
/// words (Korean has spaces, but a word carries its particles), so their
/// words are found by overlapping pairs of characters.
pub fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{1100}'..='\u{11FF}'   // Hangul Jamo
        | '\u{3005}'              // 々, the ideographic iteration mark
        | '\u{3040}'..='\u{30FF}' // Hiragana, Katakana (with ー)
        | '\u{3130}'..='\u{318F}' // Hangul compatibility Jamo
        | '\u{31F0}'..='\u{31FF}' // Katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{AC00}'..='\u{D7AF}' // Hangul syllables
        | '\u{F900}'..='\u{FAFF}' // CJK compatibility ideographs
        | '\u{FF66}'..='\u{FF9F}' // halfwidth Katakana
        | '\u{20000}'..='\u{2A6DF}' // CJK extension B
    )
}

/// Whether `c` is a Han ideograph: a character that is a word or a part of
/// one with a meaning of its own (kana and Hangul spell sounds).
pub fn is_han(c: char) -> bool {
    matches!(c,
        '\u{3005}' | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}'
        | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{2A6DF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passage_is_told_by_its_language_and_a_few_words_are_not() {
        let german = "Wir ziehen im März nach Hamburg. Die Wohnungen dort sind teuer.";
        assert_eq!(detect(german), Some(Lang::Deu));
        assert_eq!(stemmer_for(german), Algorithm::German);
        assert_eq!(
            detect("Мы купили новую квартиру в Москве, недалеко от работы."),
            Some(Lang::Rus)
        );
        assert_eq!(detect("Umzug nach Hamburg"), None);
        assert_eq!(stemmer_for("Umzug nach Hamburg"), Algorithm::English);
        assert_eq!(
            stemmer_for("The geocoding API runs on Postgres 16 with PostGIS; tiles moved."),
            Algorithm::English
        );
        // Trigrams say Dutch; its function words say English.
        let course = "A ten-week evening course in bike mechanics: gears, brakes, \
                      wheel truing and building a toolkit at home.";
        assert_eq!(detect(course), Some(Lang::Eng));
    }

    #[test]
    fn cjk_and_han() {
        assert!("東京カメラ서울々".chars().all(is_cjk));
        assert!(!"aé1ж、。".chars().any(is_cjk));
        assert!(is_han('東') && !is_han('カ') && !is_han('서'));
    }
}
