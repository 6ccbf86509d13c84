//! Words and phrases found in a text as written: the plain words, a word
//! of a list, a phrase at word boundaries. What every rule of the offline
//! engine reads a text with.

/// The words of `text`: letters, digits and apostrophes, and a hyphenated
/// word whole ("turned-down" is one adjective, not a past and a particle).
pub(super) fn plain_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
        .filter(|w| !w.is_empty())
}

/// Whether `word` is one of the space-separated words of `list`.
pub(super) fn listed(list: &str, word: &str) -> bool {
    list.split_whitespace().any(|l| l == word)
}

/// A word of digits: a count, an object as "two" is ("pressed 40 litres"),
/// or digits joined by hyphens, a score or a range ("lost 6-4…",
/// "ran 5-10 km").
pub(super) fn is_number(word: &str) -> bool {
    word.split('-')
        .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()))
}

/// `needle` in `hay` at word boundaries.
pub(super) fn contains_words(hay: &str, needle: &str) -> bool {
    found_words(hay, needle).next().is_some()
}

/// Where `needle` starts in `hay` at word boundaries.
pub(super) fn found_words<'a>(hay: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let needle = needle.trim();
    hay.match_indices(needle)
        .map(|(at, _)| at)
        .filter(move |&at| {
            let before = hay[..at].chars().next_back();
            let after = hay[at + needle.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
}
