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
