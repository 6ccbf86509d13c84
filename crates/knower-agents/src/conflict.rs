//! A sync conflict waiting for the user (issue 74). When two machines
//! changed the same lines of a note, the sync keeps both: the note holds
//! the merged text with each side's lines one after the other between
//! markers, and an inbox item (`kind: sync-conflict`) shows both sides and
//! asks which to keep. Answering it rewrites the note as one journaled,
//! undoable change and removes the item. The markers are HTML comments, so
//! a rendered note shows both texts plainly:
//!
//! ```text
//! <!-- knower:conflict k3f9 1 laptop -->
//! the lines written on laptop
//! <!-- knower:conflict k3f9 2 desktop -->
//! the lines written on desktop
//! <!-- knower:conflict k3f9 end -->
//! ```

use knower_vault::{Batch, frontmatter};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::inbox::{INBOX, InboxItem};
use crate::report::{Outcome, UpdateReport};

/// The `kind` of a conflict's review.md.
pub const KIND: &str = "sync-conflict";

/// Two machines' versions of one path that a merge could not reconcile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Conflict {
    /// The path in the vault.
    pub path: String,
    /// Names the markers of this conflict in the note.
    pub id: String,
    /// The two sides, as the user knows them: the machine that merged,
    /// then the one whose changes came through the remote.
    pub sides: [String; 2],
    pub what: What,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum What {
    /// Both edited: the differing lines (between markers in the note) and
    /// the frontmatter entries (the first side's are kept in the note).
    Edited {
        regions: Vec<[String; 2]>,
        fields: Vec<Field>,
    },
    /// One side deleted the file, the other edited it: the edit is kept.
    /// `deleted_by` is 0 or 1, an index into `sides`.
    Deleted { deleted_by: usize },
    /// A file that is not a note (or not text), which markers would break:
    /// the first side's version is at the path, the second side's at `copy`.
    Copied { copy: String },
    /// A hidden file (`.obsidian/…`, `.gitignore`), which Knower does not
    /// edit: this side's version in place and the other's at `copy` (when
    /// both sides had one), for the user to settle by hand.
    Hidden { copy: Option<String> },
}

/// A frontmatter entry both sides changed: its lines on each side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Field {
    pub key: String,
    pub sides: [String; 2],
}

/// The text of one region in the note: both sides between markers.
pub fn region(id: &str, sides: &[String; 2], lines: &[String; 2]) -> String {
    let mut out = String::new();
    for (n, (side, text)) in sides.iter().zip(lines).enumerate() {
        out.push_str(&format!("<!-- knower:conflict {id} {} {side} -->\n", n + 1));
        out.push_str(text);
        if !text.is_empty() && !text.ends_with('\n') {
            out.push('\n');
        }
    }
    out.push_str(&format!("<!-- knower:conflict {id} end -->\n"));
    out
}

/// Files the conflict as an inbox item and returns its id; `None` when the
/// item is there already (a sync that was interrupted files it again).
pub fn create(
    batch: &mut Batch,
    conflict: &Conflict,
    day: &str,
) -> knower_vault::Result<Option<String>> {
    let name = conflict.path.rsplit('/').next().unwrap_or(&conflict.path);
    let slug: String = crate::text::slug(name).chars().take(40).collect();
    let id = format!("{day}-sync-conflict-{slug}-{}", conflict.id);
    if batch.exists(&format!("{INBOX}/{id}"))? {
        return Ok(None);
    }
    let [first, second] = &conflict.sides;
    let options: Vec<String> = match &conflict.what {
        What::Deleted { .. } => vec!["keep".into(), "delete".into()],
        What::Hidden { .. } => vec!["done".into()],
        _ => vec![first.clone(), second.clone(), "both".into()],
    };
    let mut out = format!(
        "---\nkind: {KIND}\nnote: {}\nconflict: {}\nsides: {}\noptions: {}\nwhat: {}\n---\n",
        frontmatter::value(&conflict.path),
        frontmatter::value(&conflict.id),
        frontmatter::value(&conflict.sides),
        frontmatter::value(&options),
        frontmatter::value(&conflict.what),
    );
    out.push_str(&format!(
        "# Sync conflict in {}\n\n",
        conflict.path.replace('`', "'")
    ));
    let code = crate::inbox::code(&id);
    match &conflict.what {
        What::Edited { regions, fields } => {
            out.push_str(&format!(
                "`{}` was changed on {first} and on {second} in the same place. Nothing is \
                 lost: the note holds the merged text, with both versions of each differing \
                 part one after the other (between `knower:conflict {}` markers).\n\n\
                 ## What differs\n\n",
                conflict.path, conflict.id
            ));
            for (n, [a, b]) in regions.iter().enumerate() {
                out.push_str(&format!("### Part {}\n\n", n + 1));
                out.push_str(&format!("On {first}:\n\n{}\n", fenced(a)));
                out.push_str(&format!("On {second}:\n\n{}\n", fenced(b)));
            }
            for field in fields {
                out.push_str(&format!(
                    "### Frontmatter `{}` (the note keeps {first}'s)\n\n",
                    field.key
                ));
                out.push_str(&format!("On {first}:\n\n{}\n", fenced(&field.sides[0])));
                out.push_str(&format!("On {second}:\n\n{}\n", fenced(&field.sides[1])));
            }
            out.push_str(&format!(
                "## How to answer\n\n\
                 1. `{first}`: keep {first}'s version of each part.\n\
                 2. `{second}`: keep {second}'s.\n\
                 3. `both`: keep both, one after the other.\n\n\
                 e.g. `knower inbox reply {code} 2`. You may also edit the note by hand and reply \
                 `both`. The answer is one change: `knower undo` takes it back.\n"
            ));
        }
        What::Deleted { deleted_by } => {
            let (gone, kept) = (
                &conflict.sides[*deleted_by],
                &conflict.sides[1 - deleted_by],
            );
            out.push_str(&format!(
                "`{}` was deleted on {gone} and edited on {kept}. The edited version is kept.\n\n\
                 ## How to answer\n\n1. `keep`: keep it.\n2. `delete`: delete it.\n\n\
                 e.g. `knower inbox reply {code} keep`.\n",
                conflict.path
            ));
        }
        What::Hidden { copy } => {
            let other = match copy {
                Some(copy) => format!("{second}'s beside it at `{copy}`"),
                None => format!("{second} deleted it"),
            };
            out.push_str(&format!(
                "`{}` is a hidden file, which Knower does not edit, and it was changed on {first} \
                 and on {second}. {first}'s version is in place, {other}. Settle it by hand \
                 (keep what you want, delete the copy), then reply `done`, e.g. \
                 `knower inbox reply {code} done`.\n",
                conflict.path
            ));
        }
        What::Copied { copy } => {
            out.push_str(&format!(
                "`{}` is not a note and was changed on {first} and on {second}. {first}'s version \
                 is at `{}`, {second}'s beside it at `{copy}`.\n\n## How to answer\n\n\
                 1. `{first}`: keep {first}'s (the copy is deleted).\n\
                 2. `{second}`: keep {second}'s in its place.\n\
                 3. `both`: keep both files.\n\ne.g. `knower inbox reply {code} 1`.\n",
                conflict.path, conflict.path
            ));
        }
    }
    batch.write(&format!("{INBOX}/{id}/review.md"), &out)?;
    Ok(Some(id))
}

fn fenced(text: &str) -> String {
    let longest = text
        .lines()
        .map(|l| l.chars().take_while(|c| *c == '`').count())
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let body = if text.is_empty() {
        "(nothing)\n".to_string()
    } else if text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    };
    format!("{fence}\n{body}{fence}\n")
}

/// The conflict an inbox item holds, if it is one.
pub fn of(item: &InboxItem) -> Option<Conflict> {
    let meta = frontmatter::parse(&item.review).ok().flatten()?;
    if meta.get("kind").and_then(Value::as_str) != Some(KIND) {
        return None;
    }
    let sides: [String; 2] = serde_json::from_value(meta.get("sides")?.clone()).ok()?;
    Some(Conflict {
        path: meta.get("note")?.as_str()?.to_string(),
        id: meta.get("conflict")?.as_str()?.to_string(),
        sides,
        what: serde_json::from_value(meta.get("what")?.clone()).ok()?,
    })
}

/// Which side an answer keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keep {
    Side(usize),
    Both,
    Discard,
}

fn read_answer(answer: &str, conflict: &Conflict) -> Option<Keep> {
    let said = answer
        .trim()
        .trim_matches(['`', '"', '\'', '.'])
        .to_lowercase();
    if said == "discard" {
        return Some(Keep::Discard);
    }
    if let What::Hidden { .. } = conflict.what {
        return matches!(said.as_str(), "1" | "done" | "ok").then_some(Keep::Discard);
    }
    if let What::Deleted { deleted_by } = conflict.what {
        return match said.as_str() {
            "1" | "keep" => Some(Keep::Side(1 - deleted_by)),
            "2" | "delete" => Some(Keep::Side(deleted_by)),
            _ => None,
        };
    }
    match said.as_str() {
        "1" | "first" => Some(Keep::Side(0)),
        "2" | "second" => Some(Keep::Side(1)),
        "3" | "both" => Some(Keep::Both),
        _ => conflict
            .sides
            .iter()
            .position(|side| side.to_lowercase() == said)
            .map(Keep::Side),
    }
}

/// The note's text with the conflict's regions settled as `keep` says;
/// the frontmatter entries take the kept side's lines.
fn settle_text(text: &str, conflict: &Conflict, keep: Keep) -> String {
    let marker = format!("<!-- knower:conflict {} ", conflict.id);
    let mut out = String::new();
    let mut side: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        if let Some(rest) = line.trim_end().strip_prefix(&marker) {
            side = match rest.split_whitespace().next() {
                Some("1") => Some(0),
                Some("2") => Some(1),
                _ => None,
            };
            continue;
        }
        let kept = match (side, keep) {
            (None, _) | (Some(_), Keep::Both) => true,
            (Some(s), Keep::Side(k)) => s == k,
            (Some(_), Keep::Discard) => true,
        };
        if kept {
            out.push_str(line);
        }
    }
    let What::Edited { fields, .. } = &conflict.what else {
        return out;
    };
    let Keep::Side(1) = keep else {
        return out;
    };
    let Ok(split) = frontmatter::split(&out) else {
        return out;
    };
    let Some(block) = split.frontmatter else {
        return out;
    };
    let yaml: String = frontmatter::entries(block.yaml)
        .into_iter()
        .map(|(key, lines)| match fields.iter().find(|f| f.key == key) {
            Some(field) => field.sides[1].clone(),
            None => lines,
        })
        .collect();
    format!("{}{yaml}{}{}", block.open, block.close, split.body)
}

/// Applies the user's answer to a conflict item: the note rewritten and the
/// item removed, as one change by `author`.
pub(crate) fn answer(
    vault: &knower_vault::Vault,
    author: &knower_vault::Author,
    mut report: UpdateReport,
    answer: &str,
    item: InboxItem,
    conflict: Conflict,
) -> Result<UpdateReport> {
    let keep = read_answer(answer, &conflict).ok_or_else(|| {
        Error::Invalid(format!(
            "“{}” is not an answer to the sync conflict {}: reply {}; the item is unchanged",
            answer.trim(),
            item.id,
            match conflict.what {
                What::Deleted { .. } => "`keep` or `delete`".to_string(),
                What::Hidden { .. } => "`done` once you have settled it by hand".to_string(),
                _ => format!(
                    "`1` ({}), `2` ({}) or `3` (both)",
                    conflict.sides[0], conflict.sides[1]
                ),
            }
        ))
    })?;
    vault.batch(author, |batch| {
        let path = conflict.path.as_str();
        match (&conflict.what, keep) {
            (_, Keep::Discard) => {}
            (What::Edited { .. }, keep) => {
                if let Some(text) = batch.read(path)? {
                    let settled = settle_text(&text, &conflict, keep);
                    if settled != text {
                        batch.write(path, &settled)?;
                        report.changed.push(path.to_string());
                    }
                }
            }
            (What::Deleted { deleted_by }, Keep::Side(side)) if side == *deleted_by => {
                if batch.exists(path)? {
                    batch.delete(path)?;
                    report.changed.push(path.to_string());
                }
            }
            (What::Deleted { .. }, _) => {}
            (What::Copied { copy }, Keep::Side(0)) => {
                if batch.exists(copy)? {
                    batch.delete(copy)?;
                    report.changed.push(copy.clone());
                }
            }
            (What::Copied { copy }, Keep::Side(_)) => {
                if let Some(bytes) = batch.read_bytes(copy)? {
                    batch.write_bytes(path, &bytes)?;
                    batch.delete(copy)?;
                    report.changed.extend([path.to_string(), copy.clone()]);
                }
            }
            (What::Copied { .. }, Keep::Both) => {}
            (What::Hidden { .. }, _) => {}
        }
        batch.delete(&item.folder)?;
        Ok(())
    })?;
    report.changed.push(item.folder.clone());
    report.outcome = match keep {
        Keep::Discard if !matches!(conflict.what, What::Hidden { .. }) => Outcome::Discarded,
        _ => Outcome::Resolved,
    };
    report.summary = match keep {
        Keep::Discard if matches!(conflict.what, What::Hidden { .. }) => {
            format!("settled the sync conflict in {} by hand", conflict.path)
        }
        Keep::Discard => format!("dropped the sync conflict {} at your word", item.id),
        Keep::Both => format!("kept both versions in {}", conflict.path),
        Keep::Side(side) => match conflict.what {
            What::Deleted { deleted_by } if side == deleted_by => {
                format!("deleted {} as you answered", conflict.path)
            }
            What::Deleted { .. } => format!("kept {} as you answered", conflict.path),
            _ => format!(
                "kept {}'s version in {}",
                conflict.sides[side], conflict.path
            ),
        },
    };
    report.inbox_id = Some(item.id);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conflict() -> Conflict {
        Conflict {
            path: "notes/plan.md".into(),
            id: "k3f9".into(),
            sides: ["laptop".into(), "desktop".into()],
            what: What::Edited {
                regions: vec![["mine\n".into(), "theirs\n".into()]],
                fields: vec![Field {
                    key: "status".into(),
                    sides: ["status: draft\n".into(), "status: done\n".into()],
                }],
            },
        }
    }

    fn note() -> String {
        let c = conflict();
        format!(
            "---\nstatus: draft\ntokens: 3\n---\nbefore\n{}after\n",
            region(&c.id, &c.sides, &["mine\n".into(), "theirs\n".into()])
        )
    }

    #[test]
    fn each_answer_settles_the_regions_its_way() {
        let c = conflict();
        assert_eq!(
            settle_text(&note(), &c, Keep::Side(0)),
            "---\nstatus: draft\ntokens: 3\n---\nbefore\nmine\nafter\n"
        );
        assert_eq!(
            settle_text(&note(), &c, Keep::Side(1)),
            "---\nstatus: done\ntokens: 3\n---\nbefore\ntheirs\nafter\n"
        );
        assert_eq!(
            settle_text(&note(), &c, Keep::Both),
            "---\nstatus: draft\ntokens: 3\n---\nbefore\nmine\ntheirs\nafter\n"
        );
    }

    #[test]
    fn answers_are_read_by_number_word_or_side() {
        let c = conflict();
        assert_eq!(read_answer("2", &c), Some(Keep::Side(1)));
        assert_eq!(read_answer("Desktop", &c), Some(Keep::Side(1)));
        assert_eq!(read_answer("both", &c), Some(Keep::Both));
        assert_eq!(read_answer("whatever you think", &c), None);
        let deleted = Conflict {
            what: What::Deleted { deleted_by: 1 },
            ..c
        };
        assert_eq!(read_answer("delete", &deleted), Some(Keep::Side(1)));
        assert_eq!(read_answer("1", &deleted), Some(Keep::Side(0)));
    }
}
