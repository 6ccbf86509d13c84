//! What counts as evidence for an answer, whichever engine answers: the
//! passages search returns, less what only looks like knowledge. A
//! changelog's routing lines ("filed … in projects/x/tasks.md [update-…]")
//! say where an update went, not what is true, and a changelog passage
//! stays only for its other lines, and only if those still match; a garden
//! topic's facts count once the user has confirmed them, so its candidates,
//! disputed, archived and flagged sections are not evidence.
//! Chat conclusions (`chat/artifacts/`), harvested knowledge (`knowledge/`)
//! and confirmed garden facts are notes like any other: searched, ranked on
//! what they say, cited by `path:line`.

use knower_index::Hit;

use crate::offline::stems::index_words;

/// The sections of a garden topic (`garden/topics/<slug>.md`) whose facts
/// the user has not confirmed: the gardener's statuses, as its model
/// names them (`knower-garden` checks that these stay its headings).
pub const UNCONFIRMED_GARDEN_SECTIONS: [&str; 4] = [
    "Candidates",
    "Disputed",
    "Archived",
    "Flagged: not statements about the topic",
];
/// Where the garden keeps its topics.
pub const GARDEN_TOPICS: &str = "garden/topics/";

/// `hits` as evidence for `question`: changelog passages without their
/// routing lines (blanked, so line numbers stay) and only if a line left
/// still shares a word of the question; no unconfirmed garden fact.
pub fn admit(question: &str, hits: &mut Vec<Hit>) {
    let wanted = index_words(question);
    hits.retain_mut(|hit| {
        if hit.path.starts_with(GARDEN_TOPICS)
            && UNCONFIRMED_GARDEN_SECTIONS.contains(&hit.heading.as_str())
        {
            return false;
        }
        if !is_changelog(&hit.path) {
            return true;
        }
        hit.text = without_routing_lines(&hit.text);
        hit.text
            .lines()
            .any(|line| !is_heading_or_blank(line) && shares_a_word(&wanted, line))
    });
}

/// The vault's changelog or a project's.
fn is_changelog(path: &str) -> bool {
    path == crate::recovery::CHANGELOG || path.ends_with("/changelog.md")
}

fn shares_a_word(wanted: &[String], line: &str) -> bool {
    let words = index_words(line);
    wanted.iter().any(|w| words.binary_search(w).is_ok())
}

pub(crate) fn is_heading_or_blank(line: &str) -> bool {
    let line = line.trim();
    line.is_empty() || line.starts_with('#')
}

/// The line an update leaves in a changelog: `- DAY: summary [update-…]`.
fn is_routing_line(line: &str) -> bool {
    let line = line.trim_end();
    line.starts_with("- ")
        && line.ends_with(']')
        && line
            .rsplit_once('[')
            .is_some_and(|(_, id)| id.starts_with("update-"))
}

/// `text` with its routing lines blanked (not removed: line numbers stay).
fn without_routing_lines(text: &str) -> String {
    text.lines()
        .map(|l| if is_routing_line(l) { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(path: &str, heading: &str, text: &str) -> Hit {
        Hit {
            path: path.into(),
            title: String::new(),
            heading: heading.into(),
            line_start: 1,
            line_end: text.lines().count(),
            score: 1.0,
            snippet: String::new(),
            marks: Vec::new(),
            text: text.into(),
            explain: None,
        }
    }

    #[test]
    fn routing_lines_are_told_from_events() {
        assert!(is_routing_line(
            "- 2026-11-23: filed “Book the flight” in projects/trip/tasks.md [update-20261123-101500-3fa9]"
        ));
        assert!(!is_routing_line(
            "- 2026-11-23: the flight to Lisbon is booked"
        ));
        assert_eq!(
            without_routing_lines("# Changelog\n- 2026-11-23: x [update-1]\n- 2026-11-22: met Ana"),
            "# Changelog\n\n- 2026-11-22: met Ana"
        );
    }

    #[test]
    fn routing_lines_and_unconfirmed_garden_facts_are_not_evidence() {
        let mut hits = vec![
            hit(
                "projects/maps/changelog.md",
                "",
                "- 2026-11-23: filed “osrm memory” in projects/maps/notes.md [update-1]",
            ),
            hit(
                "changelog.md",
                "",
                "- 2026-11-23: filed “x” in y [update-2]\n- 2026-11-22: raised the osrm memory to 8 GB",
            ),
            hit(
                "garden/topics/osrm.md",
                "Candidates",
                "- OSRM 6 needs less memory. `g00000001`",
            ),
            hit(
                "garden/topics/osrm.md",
                "Confirmed",
                "- OSRM 5.27 was released. `g00000002`",
            ),
            hit("knowledge/facts.md", "", "- osrm runs with 16 GB of memory"),
        ];
        admit("osrm memory", &mut hits);
        let kept: Vec<(&str, &str)> = hits
            .iter()
            .map(|h| (h.path.as_str(), h.heading.as_str()))
            .collect();
        assert_eq!(
            kept,
            vec![
                ("changelog.md", ""),
                ("garden/topics/osrm.md", "Confirmed"),
                ("knowledge/facts.md", "")
            ]
        );
        assert_eq!(
            hits[0].text,
            "\n- 2026-11-22: raised the osrm memory to 8 GB"
        );
    }
}
