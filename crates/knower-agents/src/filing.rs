//! Writing an update into a note as a block suited to its kind, with its
//! attachments stored beside the note.

use knower_vault::{Batch, Position, VaultPath};

use crate::agents::Agents;
use crate::error::Result;
use crate::offline::Kind;
use crate::payload::Payload;
use crate::text::capitalised;
use crate::text::{noted_mark, one_line, slug};

impl Agents {
    /// Writes an update into `destination` as a block suited to its kind;
    /// attachments go to an `attachments/` folder beside the note. Part of
    /// the update's one change (`batch`), so one undo takes it all back.
    pub(crate) fn file(
        &self,
        batch: &mut Batch,
        destination: &str,
        kind: Kind,
        payload: &Payload,
    ) -> Result<Vec<String>> {
        let day = self.today();
        let own_note = destination.ends_with('/');
        let destination = if own_note {
            // A folder: a new note of its own.
            let slug = slug(&payload.headline(40));
            format!(
                "{destination}{day}-{}.md",
                if slug.is_empty() { "note" } else { &slug }
            )
        } else {
            destination.to_string()
        };
        let note = VaultPath::parse(&destination)?;
        let folder = note.parent().filter(|p| !p.is_root());
        let store = match &folder {
            Some(folder) => format!("{folder}/attachments"),
            None => "bucket/attachments".to_string(),
        };
        let mut changed = vec![destination.clone()];
        let mut links = Vec::new();
        for attachment in &payload.attachments {
            let path = free_path(batch, &store, &attachment.name, &attachment.bytes)?;
            batch.write_bytes(&path, &attachment.bytes)?;
            let relative = match &folder {
                Some(folder) => path[folder.as_str().len() + 1..].to_string(),
                None => path.clone(),
            };
            links.push(attachment.link(&relative));
            changed.push(path);
        }
        let text = payload.text.trim();
        let links = links.join(" ");
        let current = batch.read(&destination).ok().flatten();
        let new_note = current.is_none();
        if kind == Kind::Preference
            && destination == crate::recovery::PROFILE
            && let Some(profile) = &current
        {
            let entry = list_item(&[&one_line(text), &links, &noted_mark(&day)]);
            // Facts about the people in the user's life have a section of
            // their own, where a question by their name finds them.
            let section = match crate::offline::kind::about_someone(text) {
                true => "## People",
                false => "## Preferences",
            };
            batch.write(&destination, &into_section(profile, section, &entry))?;
            return Ok(changed);
        }
        let (block, position) = if new_note && own_note {
            // The note is the update: its headline is the title, and the
            // text follows only when the headline did not already say it all.
            let headline = payload.headline(60);
            let rest = if headline == one_line(text) {
                String::new()
            } else {
                format!("{text}\n\n")
            };
            (format!("# {headline}\n\n{rest}{links}\n"), Position::Bottom)
        } else {
            match kind {
                Kind::Task => (task_item(text, &links), Position::Bottom),
                Kind::Event => (event_item(&day, text, &links), Position::Top),
                Kind::Preference => (
                    list_item(&[&one_line(text), &links, &noted_mark(&day)]) + "\n",
                    Position::Bottom,
                ),
                // One dated heading a day: a second note of the day goes
                // under the heading the first one opened.
                Kind::Note if current.as_deref().is_some_and(|t| last_heading_is(t, &day)) => {
                    (format!("\n{text}\n\n{links}\n"), Position::Bottom)
                }
                Kind::Note => (
                    format!("\n## {day}\n\n{text}\n\n{links}\n"),
                    Position::Bottom,
                ),
            }
        };
        // A note named by its place (a project's state.md, tasks.md…) takes
        // its title from that place, never from the first update filed in it.
        let block = if new_note && !own_note {
            format!("# {}\n\n{}", title_of(&note), block.trim_start())
        } else {
            block
        };
        batch.append(&destination, &block, position)?;
        // Pasted notes keep their lines above; their action items are
        // tasks too, in the tasks of the place they were filed.
        let actions = match kind {
            Kind::Task => Vec::new(),
            _ => action_items(text),
        };
        let tasks = match destination.strip_prefix("projects/") {
            Some(rest) if let Some((project, _)) = rest.split_once('/') => {
                format!("projects/{project}/tasks.md")
            }
            _ => "tasks.md".to_string(),
        };
        if !actions.is_empty() && tasks != destination {
            if batch.read(&tasks)?.is_none() {
                let tasks_path = VaultPath::parse(&tasks)?;
                batch.write(&tasks, &format!("# {}\n\n", title_of(&tasks_path)))?;
            }
            for action in &actions {
                batch.append(&tasks, &task_item(action, ""), Position::Bottom)?;
            }
            changed.push(tasks);
        }
        Ok(changed)
    }
}

/// An event as a changelog entry: its first line after the day, and the
/// lines of pasted notes below it, each kept as it was written.
fn event_item(day: &str, text: &str, links: &str) -> String {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or_default();
    let mut out = list_item(&[&format!("{day}:"), &one_line(first), links]) + "\n";
    for line in lines {
        let line = line.trim_start_matches(['-', '*', '•']).trim_start();
        out.push_str(&format!("  - {}\n", one_line(line)));
    }
    out
}

/// The action items of pasted notes: unticked checklist lines
/// (`- [ ] …`), lines labelled `Action:`, `TODO:` or `AI:`, and the items
/// listed under an "Action items" (or "Next steps") heading or label. A
/// line of one sentence is never its own action item: a task is filed as
/// a task.
pub(crate) fn action_items(text: &str) -> Vec<String> {
    if text.trim().lines().count() < 2 {
        return Vec::new();
    }
    let mut items = Vec::new();
    let mut listed = false;
    for line in text.lines() {
        let line = line.trim();
        let lower = line.to_lowercase();
        let bare = lower
            .trim_start_matches(['#', '*', ' '])
            .trim_end_matches(['*', ':', ' ']);
        if matches!(
            bare,
            "action items"
                | "actions"
                | "action points"
                | "next steps"
                | "to do"
                | "todo"
                | "todos"
        ) {
            listed = true;
            continue;
        }
        if line.is_empty() {
            continue;
        }
        // A heading, or a line that is not an item, ends the list.
        if line.starts_with('#') || !line.starts_with(['-', '*', '•']) {
            listed = false;
        }
        let item = [
            "- [ ]",
            "* [ ]",
            "[ ]",
            "action:",
            "action item:",
            "todo:",
            "to do:",
            "ai:",
        ]
        .iter()
        .find_map(|marker| lower.starts_with(marker).then(|| &line[marker.len()..]))
        .or_else(|| listed.then(|| line.strip_prefix(['-', '*', '•'])).flatten());
        if let Some(item) = item.map(str::trim).filter(|i| !i.is_empty()) {
            items.push(item.to_string());
        }
    }
    items
}

/// `folder/name`, or `folder/name-2.ext`… when another file already holds
/// that name: an attachment never replaces a different one.
pub(crate) fn free_path(
    batch: &mut Batch,
    folder: &str,
    name: &str,
    bytes: &[u8],
) -> knower_vault::Result<String> {
    let (stem, ext) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, format!(".{ext}")),
        _ => (name, String::new()),
    };
    let mut path = format!("{folder}/{name}");
    let mut n = 2;
    while let Some(existing) = batch.read_bytes(&path)? {
        if existing == bytes {
            break;
        }
        path = format!("{folder}/{stem}-{n}{ext}");
        n += 1;
    }
    Ok(path)
}

/// The title of a note named by its place: `tasks.md` is "Tasks" (as the
/// seed's are), `projects/trip-to-japan/state.md` is "Trip to japan — state".
fn title_of(note: &VaultPath) -> String {
    let stem = |name: &str| {
        let words = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
        capitalised(words.replace(['-', '_'], " ").trim())
    };
    match (note.name(), note.parent().filter(|p| !p.is_root())) {
        ("tasks.md", _) => "Tasks".into(),
        ("changelog.md", _) => "Changelog".into(),
        (name, Some(folder)) if matches!(name, "state.md" | "notes.md") => {
            format!("{} — {}", stem(folder.name()), stem(name).to_lowercase())
        }
        (name, _) => stem(name),
    }
}

/// True when the last `## ` heading of `text` is `## {day}`.
fn last_heading_is(text: &str, day: &str) -> bool {
    text.lines()
        .rev()
        .find(|l| l.starts_with("## "))
        .is_some_and(|l| l.trim_end() == format!("## {day}"))
}

/// `text` with `entry` at the end of the section under `heading`, in place
/// of the starter's placeholder line when that is still there; a section
/// that is missing is added at the end.
fn into_section(text: &str, heading: &str, entry: &str) -> String {
    let placeholder = knower_vault::PROFILE_PLACEHOLDERS
        .iter()
        .find(|(section, _)| *section == heading)
        .map(|(_, line)| *line);
    let mut lines: Vec<&str> = text.lines().collect();
    let Some(start) = lines.iter().position(|l| l.trim_end() == heading) else {
        let trimmed = text.trim_end();
        return format!("{trimmed}\n\n{heading}\n\n{entry}\n");
    };
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with("## ") || l.starts_with("# "))
        .map_or(lines.len(), |i| start + 1 + i);
    if let Some(at) = (start + 1..end).find(|&i| Some(lines[i].trim()) == placeholder) {
        lines[at] = entry;
    } else {
        let last = (start..end)
            .rev()
            .find(|&i| !lines[i].trim().is_empty())
            .unwrap_or(start);
        let insert = if last == start {
            vec!["", entry]
        } else {
            vec![entry]
        };
        lines.splice(last + 1..last + 1, insert);
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// A list item of `parts` joined by single spaces, empty ones left out (an
/// update with no attachment has no links).
fn list_item(parts: &[&str]) -> String {
    let parts: Vec<&str> = parts.iter().copied().filter(|p| !p.is_empty()).collect();
    format!("- {}", parts.join(" "))
}

fn task_item(text: &str, links: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default().trim();
    let lower = first.to_lowercase();
    let mut first = first.to_string();
    // What people write before a task is not part of it.
    for marker in [
        "- [ ]",
        "* [ ]",
        "[ ]",
        "todo:",
        "todo",
        "task:",
        "to do:",
        "i need to",
        "we need to",
        "need to",
        "remember to",
        "don't forget to",
        "do not forget to",
        "i have to",
        "i must",
        "must",
    ] {
        if lower.starts_with(marker)
            && lower[marker.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric())
        {
            let rest = first[marker.len()..].trim_start_matches([':', ' ']);
            // Markup is taken away as it is; words are replaced, so the task
            // starts as a sentence does.
            first =
                if marker.contains('[') || marker.starts_with("to") || marker.starts_with("task") {
                    rest.to_string()
                } else {
                    capitalised(rest)
                };
            break;
        }
    }
    let mut out = format!("- [ ] {first}");
    if !links.is_empty() {
        out.push_str(&format!(" {links}"));
    }
    out.push('\n');
    for line in lines.filter(|l| !l.trim().is_empty()) {
        out.push_str(&format!("  {}\n", line.trim()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_notes_keep_their_lines_and_their_action_items_are_found() {
        let notes = "Standup 3 Dec\n- Ana finished the importer\n- Ben is blocked on the staging DB\n\
                     - Decided to move the release to Friday\nAction: Ben to ask ops for DB access\n\
                     - [ ] Ana to write the release note\n- [x] Book the room\n\
                     See https://example.com/runbook\n\n## Next steps\n\n- Chase the vendor\n* Update the wiki\n\nThanks all";
        assert_eq!(
            action_items(notes),
            [
                "Ben to ask ops for DB access",
                "Ana to write the release note",
                "Chase the vendor",
                "Update the wiki"
            ],
            "a ticked item and a link are not to-dos"
        );
        assert!(action_items("TODO: one line is a task, filed as one").is_empty());
        let entry = event_item("2026-12-03", notes, "");
        assert!(
            entry.starts_with("- 2026-12-03: Standup 3 Dec\n  - Ana finished the importer\n"),
            "{entry}"
        );
        assert_eq!(
            entry.lines().count(),
            notes.lines().filter(|l| !l.trim().is_empty()).count()
        );
        assert_eq!(
            event_item("2026-12-03", "Met Ana", ""),
            "- 2026-12-03: Met Ana\n"
        );
    }
    use crate::text::{noted_mark, without_noted_marks};

    #[test]
    fn the_noted_mark_is_set_aside_and_the_words_kept() {
        let line = format!("- Leggy seedlings {} and more", noted_mark("2026-06-15"));
        assert_eq!(without_noted_marks(&line), "- Leggy seedlings  and more");
        assert_eq!(
            without_noted_marks("I noted it _(noted 2026-06-15"),
            "I noted it _(noted 2026-06-15"
        );
        assert_eq!(without_noted_marks("a note"), "a note");
    }

    #[test]
    fn tasks_lose_what_people_write_before_them() {
        assert_eq!(
            task_item("Need to book the ferry", ""),
            "- [ ] Book the ferry\n"
        );
        assert_eq!(task_item("remember to call Ana", ""), "- [ ] Call Ana\n");
        assert_eq!(
            task_item("TODO: renew the passport", ""),
            "- [ ] renew the passport\n"
        );
        assert_eq!(
            task_item("Mustard for the picnic", ""),
            "- [ ] Mustard for the picnic\n"
        );
    }

    #[test]
    fn an_entry_replaces_the_sections_placeholder_or_ends_the_section() {
        let profile = "# Profile\n\nIntro.\n\n## Identity\n\nName, role, where you work, the languages you use.\n\n## Preferences\n\nHow you like answers and notes: tone, formats, things to always or never do.\n";
        let once = into_section(profile, "## Preferences", "- Short answers");
        assert!(
            once.ends_with("## Preferences\n\n- Short answers\n"),
            "{once}"
        );
        assert!(once.contains("## Identity\n\nName, role"), "{once}");
        let twice = into_section(&once, "## Preferences", "- In French");
        assert!(
            twice.ends_with("## Preferences\n\n- Short answers\n- In French\n"),
            "{twice}"
        );
        let identity = into_section(&twice, "## Identity", "- Lives in Lyon");
        assert!(
            identity.contains("## Identity\n\n- Lives in Lyon\n\n## Preferences"),
            "{identity}"
        );
    }

    #[test]
    fn a_day_has_one_heading() {
        assert!(last_heading_is("# T\n\n## 2026-11-23\n\nx\n", "2026-11-23"));
        assert!(!last_heading_is(
            "# T\n\n## 2026-11-23\n\nx\n## Risks\n",
            "2026-11-23"
        ));
        assert!(!last_heading_is("# T\n", "2026-11-23"));
    }
}
