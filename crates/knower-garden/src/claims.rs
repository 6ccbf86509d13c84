//! What a statement claims, typed, so that statements are compared like
//! with like: its subject (the versions it is about and its content
//! words) and its values — dates (however written), quantities with their
//! unit, and the other versions it gives. Two statements contradict only
//! when they are about the same subject and give a differing value of the
//! same kind: "regex 1.13.0 was released on 2026-07-09" against "… on
//! 2026-06-30", never "2,752 m" against "2,752 m", nor "2,752 m" against
//! "9,029 ft".

use std::collections::BTreeSet;

/// A date as written and as a day (`2026-07-09`) or a month (`2026-07`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Date {
    pub written: String,
    pub value: String,
}

pub(crate) const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

fn month_number(word: &str) -> Option<usize> {
    let w = word.to_lowercase();
    let w = w.trim_end_matches('.');
    MONTHS
        .iter()
        .position(|m| {
            *m == w || (w.len() == 3 && m.starts_with(w)) || (w == "sept" && *m == "september")
        })
        .map(|k| k + 1)
}

/// The words and numbers of a text with their byte ranges.
fn tokens(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices() {
        let part = c.is_alphanumeric() || (matches!(c, '.' | ',' | '-' | '_') && start.is_some());
        match (part, start) {
            (true, None) => start = Some(at),
            (false, Some(s)) => {
                out.push((s, text[s..at].trim_end_matches(['.', ',', '-', '_'])));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text[s..].trim_end_matches(['.', ',', '-', '_'])));
    }
    out.retain(|(_, t)| !t.is_empty());
    out
}

/// Dates in a text: `2026-07-09`, `July 9, 2026`, `July 9th, 2026`,
/// `9 July 2026`, `Oct 21, 2026`, `July 2026`.
pub fn dates_in(text: &str) -> Vec<Date> {
    let tokens = tokens(text);
    let mut out = Vec::new();
    let mut k = 0;
    let day_of = |t: &str| -> Option<u32> {
        let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
        let rest = &t[digits.len()..];
        let day: u32 = digits.parse().ok()?;
        ((1..=31).contains(&day)
            && ["", "st", "nd", "rd", "th"].contains(&rest.to_lowercase().as_str()))
        .then_some(day)
    };
    let year_of = |t: &str| -> Option<u32> {
        (t.len() == 4 && t.chars().all(|c| c.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
            .filter(|y| (1900..=2200).contains(y))
    };
    while k < tokens.len() {
        let (at, t) = tokens[k];
        // ISO 8601.
        if let Ok(d) = t.get(..10).unwrap_or("").parse::<jiff::civil::Date>()
            && t.len() >= 10
        {
            out.push(Date {
                written: t[..10].to_string(),
                value: d.to_string(),
            });
            k += 1;
            continue;
        }
        let written_to = |end: usize| {
            let (e_at, e) = tokens[end];
            text[at..e_at + e.len()].to_string()
        };
        if let Some(month) = month_number(t) {
            // Month day, year / Month year.
            if let (Some(day), Some(year)) = (
                tokens.get(k + 1).and_then(|(_, d)| day_of(d)),
                tokens.get(k + 2).and_then(|(_, y)| year_of(y)),
            ) {
                out.push(Date {
                    written: written_to(k + 2),
                    value: format!("{year:04}-{month:02}-{day:02}"),
                });
                k += 3;
                continue;
            }
            if let Some(year) = tokens.get(k + 1).and_then(|(_, y)| year_of(y)) {
                out.push(Date {
                    written: written_to(k + 1),
                    value: format!("{year:04}-{month:02}"),
                });
                k += 2;
                continue;
            }
        }
        // day Month year.
        if let (Some(day), Some(month), Some(year)) = (
            day_of(t),
            tokens.get(k + 1).and_then(|(_, m)| month_number(m)),
            tokens.get(k + 2).and_then(|(_, y)| year_of(y)),
        ) {
            out.push(Date {
                written: written_to(k + 2),
                value: format!("{year:04}-{month:02}-{day:02}"),
            });
            k += 3;
            continue;
        }
        k += 1;
    }
    out
}

/// A version: two or three dotted numbers, maybe after a `v` (`1.54.0`,
/// `v0.13`, `1.12.0-rc.1`).
pub fn is_version(token: &str) -> bool {
    let bare = token.strip_prefix(['v', 'V']).unwrap_or(token);
    let core = bare.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    (2..=4).contains(&parts.len())
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 5 && p.chars().all(|c| c.is_ascii_digit()))
}

/// Versions in a text, bare (`v1.54.1` → `1.54.1`), in order met.
pub fn versions_in(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, t) in tokens(text) {
        if is_version(t) {
            let bare = t.strip_prefix(['v', 'V']).unwrap_or(t).to_string();
            if !out.contains(&bare) {
                out.push(bare);
            }
        }
    }
    out
}

/// Orders versions numerically (`1.10.0` after `1.9.2`).
pub fn version_key(version: &str) -> Vec<u64> {
    version
        .split(['-', '+'])
        .next()
        .unwrap_or("")
        .split('.')
        .map(|p| p.parse().unwrap_or(0))
        .collect()
}

/// A number with what it counts: `2,752 m` → (2752, "m").
#[derive(Clone, Debug, PartialEq, PartialOrd)]
pub struct Quantity {
    pub value: f64,
    pub unit: String,
}

/// Quantities in a text that are not dates, versions or parts of names.
pub fn quantities_in(text: &str) -> Vec<Quantity> {
    let date_spans: Vec<String> = dates_in(text).into_iter().map(|d| d.written).collect();
    let mut rest = text.to_string();
    for span in &date_spans {
        rest = rest.replace(span.as_str(), " ");
    }
    let tokens = tokens(&rest);
    let mut out = Vec::new();
    for (k, (_, t)) in tokens.iter().enumerate() {
        if is_version(t) {
            continue;
        }
        let digits_end = t
            .find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.'))
            .unwrap_or(t.len());
        let number = &t[..digits_end];
        if number.is_empty() || !number.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let Ok(value) = number.replace(',', "").parse::<f64>() else {
            continue;
        };
        // The unit: glued to the number ("12ms", "5%"), else the next word.
        let glued = &t[digits_end..];
        let unit = if !glued.is_empty() {
            glued.to_lowercase()
        } else {
            tokens
                .get(k + 1)
                .map(|(_, u)| u.to_lowercase())
                .filter(|u| u.chars().all(char::is_alphabetic))
                .unwrap_or_default()
        };
        let unit = if text.contains(&format!("{number}%")) {
            "%".to_string()
        } else {
            unit
        };
        out.push(Quantity { value, unit });
    }
    out
}

/// What a statement is about and what it says, typed.
#[derive(Clone, Debug, Default)]
pub struct Claim {
    /// The versions that name its subject ("tokio 1.54.0").
    pub subject_versions: BTreeSet<String>,
    pub words: BTreeSet<String>,
    pub dates: BTreeSet<String>,
    pub quantities: Vec<Quantity>,
    pub negated: bool,
}

const NEGATIONS: [&str; 6] = ["not", "no longer", "never", "isn't", "doesn't", "wasn't"];

impl Claim {
    pub fn of(statement: &str) -> Claim {
        let lower = format!(" {} ", statement.to_lowercase());
        Claim {
            subject_versions: versions_in(statement).into_iter().collect(),
            words: crate::extract::content_words(statement)
                .into_iter()
                .collect(),
            dates: dates_in(statement).into_iter().map(|d| d.value).collect(),
            quantities: quantities_in(statement),
            negated: NEGATIONS.iter().any(|n| lower.contains(&format!(" {n} "))),
        }
    }

    /// Whether two claims are about the same thing: the same versions, and
    /// most of the smaller one's content words shared.
    pub fn same_subject(&self, other: &Claim, share: f64) -> bool {
        if self.subject_versions != other.subject_versions {
            return false;
        }
        let smaller = self.words.len().min(other.words.len());
        smaller > 0
            && self.words.intersection(&other.words).count() as f64 / smaller as f64 >= share
    }

    /// Why `self` and `other`, about the same subject, cannot both be true:
    /// a differing date, a differing quantity of the same unit, or one
    /// denying the other.
    pub fn conflict(&self, other: &Claim) -> Option<String> {
        if !self.dates.is_empty() && !other.dates.is_empty() && self.dates.is_disjoint(&other.dates)
        {
            // A month and a day in it agree.
            let agree = self.dates.iter().any(|a| {
                other
                    .dates
                    .iter()
                    .any(|b| a.starts_with(b.as_str()) || b.starts_with(a.as_str()))
            });
            if !agree {
                return Some("a different date".into());
            }
        }
        for mine in &self.quantities {
            let theirs: Vec<&Quantity> = other
                .quantities
                .iter()
                .filter(|q| q.unit == mine.unit)
                .collect();
            let mine_all: Vec<&Quantity> = self
                .quantities
                .iter()
                .filter(|q| q.unit == mine.unit)
                .collect();
            if !theirs.is_empty()
                && mine_all.len() == 1
                && theirs.len() == 1
                && (theirs[0].value - mine.value).abs() > f64::EPSILON * mine.value.abs().max(1.0)
            {
                let unit = if mine.unit.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", mine.unit)
                };
                return Some(format!("a different number{unit}"));
            }
        }
        (self.negated != other.negated).then(|| "one denies the other".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_however_written_are_days() {
        let days = |t: &str| dates_in(t).into_iter().map(|d| d.value).collect::<Vec<_>>();
        assert_eq!(days("1.54.1 (October 21st, 2026)"), vec!["2026-10-21"]);
        assert_eq!(days("released this Oct 21, 2026"), vec!["2026-10-21"]);
        assert_eq!(days("v1.11.0 (2026-07-20)"), vec!["2026-07-20"]);
        assert_eq!(
            days("on 2 September 2024 and in May 2025"),
            vec!["2024-09-02", "2025-05"]
        );
        assert_eq!(
            days("may be released soon, 12 of them"),
            Vec::<String>::new()
        );
        assert_eq!(
            dates_in("(October 21st, 2026)")[0].written,
            "October 21st, 2026"
        );
    }

    #[test]
    fn versions_and_quantities_are_told_apart() {
        assert_eq!(
            versions_in("Tokio v1.54.1 needs rustc 1.85"),
            vec!["1.54.1", "1.85"]
        );
        assert!(!is_version("2,752"));
        assert_eq!(
            quantities_in("The pass is 2,752 m high, 12ms faster, 5% smaller, since July 9, 2026"),
            vec![
                Quantity {
                    value: 2752.0,
                    unit: "m".into()
                },
                Quantity {
                    value: 12.0,
                    unit: "ms".into()
                },
                Quantity {
                    value: 5.0,
                    unit: "%".into()
                },
            ]
        );
        assert!(version_key("1.10.0") > version_key("1.9.2"));
    }

    #[test]
    fn like_is_compared_with_like() {
        let a = Claim::of("regex 1.13.0 was released on 2026-07-09");
        let b = Claim::of("regex 1.13.0 was released on June 30, 2026");
        assert!(a.same_subject(&b, 0.6));
        assert_eq!(a.conflict(&b).as_deref(), Some("a different date"));
        let c = Claim::of("regex 1.12.0 was released on June 30, 2026");
        assert!(
            !a.same_subject(&c, 0.6),
            "another version is another subject"
        );
        let high = Claim::of("Its highest pass, Forcella Lagazuoi, is at 2,752 m.");
        let same = Claim::of("The highest pass on it, Forcella Lagazuoi, is 2,752 m high.");
        assert!(high.same_subject(&same, 0.6));
        assert_eq!(
            high.conflict(&same),
            None,
            "equal values are no contradiction"
        );
        let feet = Claim::of("Its highest pass, Forcella Lagazuoi, is 9,029 ft.");
        assert_eq!(high.conflict(&feet), None, "another unit is not compared");
        let other = Claim::of("Its highest pass, Forcella Lagazuoi, is at 2,778 m.");
        assert!(high.conflict(&other).is_some());
        let month = Claim::of("Tokio 1.40 was released in September 2024.");
        let day = Claim::of("Tokio 1.40 was released on September 2, 2024.");
        assert_eq!(month.conflict(&day), None, "a day in the month agrees");
    }
}
