//! The two timestamp forms of the vault.

use std::time::SystemTime;

use jiff::tz::TimeZone;
use jiff::{Timestamp, Zoned};

/// Frontmatter form, as in seed 003: local wall-clock time to the second,
/// `2026-11-22T10:15:03`, which Obsidian and people read as a date-time.
const FRONTMATTER: &str = "%Y-%m-%dT%H:%M:%S";

pub fn frontmatter_now() -> String {
    Zoned::now().strftime(FRONTMATTER).to_string()
}

/// A file's modification time in frontmatter form (what an edit made in
/// another editor is stamped with: when it was saved, not when Knower saw it).
pub fn frontmatter_at(time: SystemTime) -> String {
    match Timestamp::try_from(time) {
        Ok(ts) => ts
            .to_zoned(TimeZone::system())
            .strftime(FRONTMATTER)
            .to_string(),
        Err(_) => frontmatter_now(),
    }
}

/// Journal form: RFC 3339 with the UTC offset, unambiguous across time zones.
pub fn journal_now() -> String {
    Zoned::now().strftime("%Y-%m-%dT%H:%M:%S%:z").to_string()
}
