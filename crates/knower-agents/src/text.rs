//! Small text helpers shared by the agents and the features: cutting to a
//! length, flattening to one line, and slugs for file and folder names.

/// The first `max` characters of `text`, when it is longer.
pub fn cut(text: &str, max: usize) -> Option<&str> {
    text.char_indices().nth(max).map(|(i, _)| &text[..i])
}

/// `text` shortened to `max` characters with `…`, when it is longer.
pub fn ellipsis(text: &str, max: usize) -> String {
    match cut(text, max) {
        Some(start) => format!("{}…", start.trim_end()),
        None => text.to_string(),
    }
}

/// The words of `text` on one line.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` as one line of a note's bullet or heading: on one line, without
/// leading list, heading or quote markup, cut at `max` characters with `…`.
pub fn bounded_line(text: &str, max: usize) -> String {
    let flat = one_line(text);
    let flat = flat.trim_start_matches(['#', '-', '*', '>', ' ']);
    match cut(flat, max) {
        Some(start) => format!("{start}…"),
        None => flat.to_string(),
    }
}

pub use knower_vault::slug;

/// The mark a fact or a note filed in a list carries: "_(noted
/// 2026-06-15)_".
/// `text` with its first letter in capitals.
pub(crate) fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

pub(crate) fn noted_mark(day: &str) -> String {
    format!("{NOTED}{day})_")
}

pub(crate) const NOTED: &str = "_(noted ";

/// `text` without the marks of [`noted_mark`]: the words a person wrote,
/// not the ones filing added ("Send Auntie Jean a thank you note" shares
/// no word with a project whose state was "noted" on a day).
pub(crate) fn without_noted_marks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(NOTED) {
        out.push_str(&rest[..start]);
        let after = &rest[start..];
        match after.find(")_") {
            Some(end) => rest = &after[end + 2..],
            None => {
                rest = after;
                break;
            }
        }
    }
    out.push_str(rest);
    out
}
