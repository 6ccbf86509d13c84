//! The inbox (seed 003): one folder per update Knower could not place,
//! `inbox/<id>/`, holding `review.md` (what arrived, the full reasoning,
//! the options considered, how to answer), `payload.md` (the text exactly
//! as it arrived) and the attached files.

use knower_vault::{Batch, EntryKind, Vault, VaultPath, frontmatter};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::payload::{Attachment, Payload};

pub const INBOX: &str = "inbox";
const REVIEW: &str = "review.md";
const PAYLOAD: &str = "payload.md";

/// A destination the agent considered, with why.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub destination: String,
    pub why: String,
}

/// An item waiting in the inbox.
#[derive(Clone, Debug, serde::Serialize)]
pub struct InboxItem {
    pub id: String,
    /// A short stable name for the item ([`code`]), accepted wherever its
    /// id is.
    pub code: String,
    pub folder: String,
    pub title: String,
    /// `inbox-review` (an update to place) or `sync-conflict` (two
    /// machines' versions to choose between).
    pub kind: String,
    pub created: Option<String>,
    /// The destinations offered, in the order of review.md's list.
    pub options: Vec<String>,
    /// review.md as written.
    #[serde(skip)]
    pub review: String,
    /// The update's text exactly as it arrived.
    #[serde(skip)]
    pub text: String,
    /// Paths of the attached files kept with the item.
    pub attachments: Vec<String>,
}

/// Files `payload` in a new inbox item and returns its id.
pub fn create(
    batch: &mut Batch,
    payload: &Payload,
    reasoning: &str,
    choices: &[Choice],
    engine: &str,
    day: &str,
) -> Result<String> {
    let id = new_id(batch, day, &payload.headline(120))?;
    let folder = format!("{INBOX}/{id}");
    // The payload first: if anything below fails, nothing that arrived is lost.
    batch.write(
        &format!("{folder}/{PAYLOAD}"),
        &format!("---\nkind: inbox-payload\n---\n{}", payload.text),
    )?;
    let mut links = Vec::new();
    for attachment in &payload.attachments {
        batch.write_bytes(&format!("{folder}/{}", attachment.name), &attachment.bytes)?;
        links.push(attachment.link(&attachment.name));
    }
    let review = render_review(&id, payload, &links, reasoning, choices, engine);
    batch.write(&format!("{folder}/{REVIEW}"), &review)?;
    Ok(id)
}

fn render_review(
    id: &str,
    payload: &Payload,
    links: &[String],
    reasoning: &str,
    choices: &[Choice],
    engine: &str,
) -> String {
    let options: Vec<String> = choices
        .iter()
        .map(|c| format!("  - {}", Value::String(c.destination.clone())))
        .collect();
    let mut out = format!(
        "---\nkind: inbox-review\nengine: {}\noptions:\n{}\n---\n# {}\n\n",
        Value::String(engine.into()),
        if options.is_empty() {
            "  []".to_string()
        } else {
            options.join("\n")
        },
        payload.headline(60)
    );
    out.push_str(&format!(
        "Knower ({engine}) could not decide where this belongs and is waiting for your answer.\n\n"
    ));
    out.push_str("## What arrived\n\n");
    for line in payload.text.lines() {
        out.push_str(&format!("> {line}\n"));
    }
    if !links.is_empty() {
        out.push_str(&format!("\nAttached: {}\n", links.join(" ")));
    }
    // The sentence a person reads first; the engine's details (the rules
    // and the scores that led to it) folded behind it.
    let (said, details) = crate::report::conclusion(reasoning);
    out.push_str(&format!("\n## Why it is here\n\n{said}\n\n"));
    if !details.is_empty() {
        out.push_str("<details><summary>How Knower got there</summary>\n\n");
        for line in details {
            out.push_str(&format!("- {line}\n"));
        }
        out.push_str("\n</details>\n\n");
    }
    out.push_str("## Options\n\n");
    for (n, c) in choices.iter().enumerate() {
        out.push_str(&format!("{}. `{}` — {}\n", n + 1, c.destination, c.why));
    }
    out.push_str(&format!(
        "{}. Somewhere else: name a project (`project NAME` starts a new one) or a path.\n\n\
         ## How to answer\n\n\
         Reply with an option number, a project name or a path, e.g.\n\
         `knower inbox reply {} 1`. Replying `discard` drops the item \
         (it stays recoverable with `knower undo`).\n",
        choices.len() + 1,
        code(id)
    ));
    out
}

/// A folder name from the date and the first words, unique in the inbox.
fn new_id(batch: &mut Batch, day: &str, headline: &str) -> Result<String> {
    // Whole words, at most 40 characters: never `…-instea`.
    let mut slug = String::new();
    for word in crate::text::slug(headline)
        .split('-')
        .filter(|w| !w.is_empty())
    {
        if !slug.is_empty() && slug.len() + 1 + word.len() > 40 {
            break;
        }
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.push_str(&word.chars().take(40).collect::<String>());
    }
    let slug = slug.as_str();
    let base = if slug.is_empty() {
        day.to_string()
    } else {
        format!("{day}-{slug}")
    };
    let mut id = base.clone();
    let mut n = 2;
    while batch.exists(&format!("{INBOX}/{id}"))? {
        id = format!("{base}-{n}");
        n += 1;
    }
    Ok(id)
}

/// The items waiting, oldest first.
pub fn list(vault: &Vault) -> Result<Vec<InboxItem>> {
    let node = match vault.tree(INBOX, Some(1)) {
        Ok(node) => node,
        Err(knower_vault::Error::NotFound { .. }) => return Ok(vec![]),
        Err(e) => return Err(e.into()),
    };
    let mut items = Vec::new();
    for child in node.children.iter().filter(|c| c.kind == EntryKind::Folder) {
        if let Ok(item) = load_id(vault, child.path.name()) {
            items.push(item);
        }
    }
    items.sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
    Ok(items)
}

/// Four letters and digits that name an item as long as it waits: derived
/// from its id, so the same in every listing and every process; without
/// the look-alikes `l`, `o`, `0` and `1`.
pub fn code(id: &str) -> String {
    const ALPHABET: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let hash = knower_vault::Hash::of(id.as_bytes()).to_string();
    let bits = u32::from_str_radix(&hash[..5], 16).unwrap_or(0);
    (0..4)
        .map(|i| ALPHABET[((bits >> (5 * i)) & 31) as usize] as char)
        .collect()
}

/// The item a reference names: its id, or its code.
pub fn load(vault: &Vault, reference: &str) -> Result<InboxItem> {
    let reference = reference.trim();
    let looks_like_code =
        reference.len() == 4 && reference.chars().all(|c| c.is_ascii_alphanumeric());
    if looks_like_code
        && vault
            .tree(&format!("{INBOX}/{reference}"), Some(0))
            .is_err()
    {
        let named: Vec<InboxItem> = list(vault)?
            .into_iter()
            .filter(|item| item.code == reference.to_ascii_lowercase())
            .collect();
        if let [item] = named.as_slice() {
            return Ok(item.clone());
        }
    }
    load_id(vault, reference)
}

fn load_id(vault: &Vault, id: &str) -> Result<InboxItem> {
    let folder = item_folder(id)?;
    let review = match vault.read(&format!("{folder}/{REVIEW}")) {
        Ok(text) => text,
        Err(knower_vault::Error::NotFound { .. }) => {
            return Err(Error::Invalid(format!(
                "there is no inbox item `{id}` (see `knower inbox`)"
            )));
        }
        Err(e) => return Err(e.into()),
    };
    let meta = frontmatter::parse(&review)
        .ok()
        .flatten()
        .unwrap_or_default();
    let options = meta
        .get("options")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let body = frontmatter::split(&review)
        .map(|s| s.body)
        .unwrap_or(&review);
    let title = body
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .unwrap_or(id)
        .trim()
        .to_string();
    let text = match vault.read(&format!("{folder}/{PAYLOAD}")) {
        Ok(raw) => frontmatter::split(&raw)
            .map(|s| s.body.to_string())
            .unwrap_or(raw),
        // An item written by hand (or by an agent) may have no payload.md.
        Err(_) => body.to_string(),
    };
    let node = vault.tree(&folder, Some(1))?;
    let attachments = node
        .children
        .iter()
        .filter(|c| c.kind == EntryKind::File && ![REVIEW, PAYLOAD].contains(&c.path.name()))
        .map(|c| c.path.to_string())
        .collect();
    Ok(InboxItem {
        code: code(id),
        id: id.to_string(),
        folder,
        title,
        kind: frontmatter::scalar(&meta, "kind").unwrap_or_else(|| "inbox-review".into()),
        created: frontmatter::scalar(&meta, "created"),
        options,
        review,
        text,
        attachments,
    })
}

impl InboxItem {
    /// The update that arrived, attachments included, as it can be filed
    /// again.
    pub fn payload(&self, vault: &Vault) -> Result<Payload> {
        let mut attachments = Vec::new();
        for path in &self.attachments {
            let p = VaultPath::parse(path)?;
            attachments.push(Attachment::new(p.name(), vault.read_bytes(path)?));
        }
        Ok(Payload {
            id: None,
            text: self.text.clone(),
            attachments,
            inbox_ref: None,
        })
    }
}

fn item_folder(id: &str) -> Result<String> {
    let folder = format!("{INBOX}/{id}");
    let valid = VaultPath::parse(&folder)
        .map(|p| p.depth() == 2 && p.as_str() == folder)
        .unwrap_or(false);
    if !valid {
        return Err(Error::Invalid(format!("`{id}` is not an inbox item id")));
    }
    Ok(folder)
}
