//! Writing an update into a note as a block suited to its kind, with its
//! attachments stored beside the note.

use knower_vault::{Author, Position, VaultPath};

use crate::agents::Agents;
use crate::changelog::today;
use crate::error::Result;
use crate::offline::Kind;
use crate::payload::Payload;
use crate::text::{one_line, slug};

impl Agents {
    /// Writes an update into `destination` as a block suited to its kind;
    /// attachments go to an `attachments/` folder beside the note.
    pub(crate) fn file(
        &self,
        destination: &str,
        kind: Kind,
        payload: &Payload,
        author: &Author,
    ) -> Result<Vec<String>> {
        let day = today();
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
            let path = self.free_path(&store, &attachment.name, &attachment.bytes);
            self.vault.write_bytes(&path, &attachment.bytes, author)?;
            let relative = match &folder {
                Some(folder) => path[folder.as_str().len() + 1..].to_string(),
                None => path.clone(),
            };
            links.push(attachment.link(&relative));
            changed.push(path);
        }
        let text = payload.text.trim();
        let links = links.join(" ");
        let new_note = self.vault.read_bytes(&destination).is_err();
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
                Kind::Event => (
                    format!("- {day}: {} {links}\n", one_line(text)),
                    Position::Top,
                ),
                Kind::Preference => (
                    format!("- {} {links} _(noted {day})_\n", one_line(text)),
                    Position::Bottom,
                ),
                Kind::Note => (format!("## {day}\n\n{text}\n\n{links}\n"), Position::Bottom),
            }
        };
        // A note named by its place (a project's state.md, tasks.md…) takes
        // its title from that place, never from the first update filed in it.
        let block = if new_note && !own_note {
            format!("# {}\n\n{block}", title_of(&note))
        } else {
            block
        };
        self.vault.append(&destination, &block, position, author)?;
        Ok(changed)
    }

    /// `folder/name`, or `folder/name-2.ext`… when another file already
    /// holds that name: an attachment never replaces a different one.
    pub(crate) fn free_path(&self, folder: &str, name: &str, bytes: &[u8]) -> String {
        let (stem, ext) = match name.rsplit_once('.') {
            Some((stem, ext)) if !stem.is_empty() => (stem, format!(".{ext}")),
            _ => (name, String::new()),
        };
        let mut path = format!("{folder}/{name}");
        let mut n = 2;
        while let Ok(existing) = self.vault.read_bytes(&path) {
            if existing == bytes {
                break;
            }
            path = format!("{folder}/{stem}-{n}{ext}");
            n += 1;
        }
        path
    }
}

/// The title of a note named by its place: `tasks.md` is "Tasks" (as the
/// seed's are), `projects/trip-to-japan/state.md` is "Trip to japan — state".
fn title_of(note: &VaultPath) -> String {
    let stem = |name: &str| -> String {
        let words = name
            .rsplit_once('.')
            .map_or(name, |(stem, _)| stem)
            .replace(['-', '_'], " ");
        let mut chars = words.trim().chars();
        chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect())
            .unwrap_or_default()
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

fn task_item(text: &str, links: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default().trim();
    let lower = first.to_lowercase();
    let mut first = first;
    for marker in ["- [ ]", "* [ ]", "[ ]", "todo:", "todo", "task:", "to do:"] {
        if lower.starts_with(marker) {
            first = first[marker.len()..].trim_start_matches([':', ' ']);
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
