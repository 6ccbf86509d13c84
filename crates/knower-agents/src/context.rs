//! The start-up context both agents load before anything else (seed 003):
//! overview.md, profile.md, the harvest's digest when there is one, and
//! tree.md. Built the same way every time, the parts that change least
//! first, so that providers can cache the prompt up to the tree as a
//! stable prefix (seed 002: the digest sits in the stable position).

use knower_vault::{Vault, frontmatter, render_tree};

/// tree.md grows with the vault (~600 KB at 10,000 notes): agents get the
/// deepest listing that fits this many characters, and the `tree` tool.
const TREE_BUDGET: usize = 12_000;
/// Any one context file is cut at this many characters.
const FILE_BUDGET: usize = 16_000;
/// The harvest's digest: present means on ("delete to turn off").
pub const DIGEST: &str = "knowledge/digest.md";

pub fn startup(vault: &Vault) -> String {
    let mut out = String::new();
    for (path, what) in [
        ("overview.md", "the map of the vault"),
        (
            "profile.md",
            "who the user is and how they like things done",
        ),
    ] {
        out.push_str(&section(path, what, &body(vault, path)));
    }
    // The digest belongs to the stable part (it changes only with a
    // harvest); delete the file and no knowledge block is sent.
    let digest = body(vault, DIGEST);
    if !digest.is_empty() {
        out.push_str(&section(
            DIGEST,
            "durable knowledge harvested from past conversations",
            &digest,
        ));
    }
    // The tree changes with every write: after everything that does not.
    out.push_str(&section(
        "tree.md",
        "the vault's files, with token counts",
        &tree(vault),
    ));
    out
}

fn section(path: &str, what: &str, content: &str) -> String {
    let content = if content.trim().is_empty() {
        "(empty)"
    } else {
        content.trim()
    };
    format!("<file path=\"{path}\" about=\"{what}\">\n{content}\n</file>\n\n")
}

/// A file's text below its frontmatter, cut to the budget.
fn body(vault: &Vault, path: &str) -> String {
    let Ok(text) = vault.read(path) else {
        return String::new();
    };
    let body = frontmatter::split(&text).map(|s| s.body).unwrap_or(&text);
    cut(body, FILE_BUDGET)
}

fn tree(vault: &Vault) -> String {
    for depth in (1..=6).rev() {
        if let Ok(node) = vault.tree("", Some(depth)) {
            let listing = render_tree(&node);
            if listing.len() <= TREE_BUDGET || depth == 1 {
                let note = format!(
                    "(down to {depth} level{} of folders; the `tree` tool shows more)\n",
                    if depth == 1 { "" } else { "s" }
                );
                return format!("{note}{}", cut(&listing, TREE_BUDGET));
            }
        }
    }
    String::new()
}

fn cut(text: &str, max: usize) -> String {
    match crate::text::cut(text, max) {
        Some(start) => format!("{start}\n[… cut; read the file for the rest]"),
        None => text.to_string(),
    }
}
