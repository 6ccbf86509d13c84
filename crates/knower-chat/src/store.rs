//! The artifacts in the vault: reading them, and the changes an exchange
//! makes to them, applied as one vault change.

use std::collections::HashSet;

use knower_vault::{Batch, Error, Vault};

use crate::artifact::{self, Artifact, DIR, Kind, Status};

/// Every artifact note that parses, in id order; the others are reported
/// (a person's edit may have broken one: it is left alone).
pub fn all(vault: &Vault) -> (Vec<Artifact>, Vec<String>) {
    let mut artifacts = Vec::new();
    let mut problems = Vec::new();
    let prefix = format!("{DIR}/");
    for (path, entry) in vault.entries() {
        let Some(name) = path.as_str().strip_prefix(&prefix) else {
            continue;
        };
        let Some(id) = name.strip_suffix(".md") else {
            continue;
        };
        if entry.kind != knower_vault::EntryKind::File || !artifact::valid_id(id) {
            continue;
        }
        match vault.read(path.as_str()) {
            Ok(text) => match Artifact::parse(id, &text) {
                Ok(a) => artifacts.push(a),
                Err(why) => problems.push(format!("{path}: {why}")),
            },
            Err(e) => problems.push(e.to_string()),
        }
    }
    (artifacts, problems)
}

pub fn get(vault: &Vault, id: &str) -> Option<Artifact> {
    if !artifact::valid_id(id) {
        return None;
    }
    let text = vault.read(&artifact::path_of(id)).ok()?;
    Artifact::parse(id, &text).ok()
}

/// The open efforts, most recently referenced first.
pub fn open_efforts(all: &[Artifact]) -> Vec<Artifact> {
    let mut open: Vec<Artifact> = all
        .iter()
        .filter(|a| a.kind == Kind::Effort && a.status == Status::Open)
        .cloned()
        .collect();
    open.sort_by(|a, b| {
        b.last_referenced
            .cmp(&a.last_referenced)
            .then(b.id.cmp(&a.id))
    });
    open
}

/// Reads an artifact inside a batch.
pub fn read_in(batch: &mut Batch, id: &str) -> Result<Option<Artifact>, Error> {
    if !artifact::valid_id(id) {
        return Ok(None);
    }
    let Some(text) = batch.read(&artifact::path_of(id))? else {
        return Ok(None);
    };
    Ok(Artifact::parse(id, &text).ok())
}

pub fn write_in(batch: &mut Batch, artifact: &Artifact) -> Result<(), Error> {
    batch.write(&artifact::path_of(&artifact.id), &artifact.render())
}

/// How alike two summaries are: the share of the shorter one's content
/// words the other has.
pub fn overlap(a: &str, b: &str) -> f64 {
    let (a, b) = (content_words(a), content_words(b));
    let smaller = a.len().min(b.len());
    if smaller == 0 {
        return 0.0;
    }
    a.intersection(&b).count() as f64 / smaller as f64
}

/// The words a text is about, as search reads them: function words left
/// out, the rest stemmed in the text's language ("invite", "inviting" are
/// one word); CJK text, which has no spaces, by its pairs of characters.
pub fn content_words(text: &str) -> HashSet<String> {
    use knower_index::analyzer::{CaseParts, Stemming, cjk_words, terms_stemmed, without_cjk};
    let mut words: HashSet<String> = cjk_words(text).into_iter().collect();
    let kept: Vec<String> = without_cjk(text)
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() > 2 && !STOP.contains(&w.as_str()))
        .collect();
    words.extend(
        terms_stemmed(&kept.join(" "), CaseParts::All, Stemming::Detect)
            .into_iter()
            .filter(|(_, _, compound)| !compound)
            .map(|(term, _, _)| term),
    );
    words
}

/// Function words: a question's "what did we" says nothing of its topic.
const STOP: [&str; 40] = [
    "the", "and", "for", "with", "that", "this", "you", "your", "are", "was", "were", "have",
    "has", "had", "what", "how", "should", "would", "could", "can", "about", "from", "our",
    "which", "will", "did", "does", "who", "whom", "whose", "when", "where", "why", "its", "they",
    "them", "their", "there", "been", "let",
];

#[cfg(test)]
mod tests {
    use super::overlap;

    #[test]
    fn summaries_in_cjk_overlap_by_their_pairs_of_characters() {
        assert!(overlap("東京で新しいカメラを買う", "カメラを買った？") >= 0.5);
        assert_eq!(overlap("東京で新しいカメラを買う", "大阪の天気"), 0.0);
        assert!(overlap("Host the wiki on our own server", "the wiki server") >= 0.9);
        assert_eq!(
            overlap(
                "How many guests are we inviting?",
                "Whom should we invite as guests?"
            ),
            1.0,
            "one word whatever its ending"
        );
    }
}
