//! Which of the vault's projects (`projects/<name>/`) a conversation is
//! about, so that its items link there: the project whose name is a folder
//! of the conversation's working directory (a coding agent's session in
//! `~/src/crumb` is about `projects/crumb/`), else the one its name
//! names, else the one the person names at least twice.

use knower_vault::{EntryKind, Vault};

use crate::conversation::Conversation;

/// The vault's project folders, by name.
pub fn list(vault: &Vault) -> Vec<String> {
    let Ok(node) = vault.tree("projects", Some(1)) else {
        return Vec::new();
    };
    node.children
        .iter()
        .filter(|c| c.kind == EntryKind::Folder)
        .map(|c| c.path.name().to_string())
        .filter(|name| name.chars().filter(|c| c.is_alphanumeric()).count() >= 3)
        // A name that would close the provenance's brackets is not linked.
        .filter(|name| !name.contains(['[', ']']))
        .collect()
}

/// The project `conversation` is about, if one of `projects` is.
pub fn of<'a>(conversation: &Conversation, projects: &'a [String]) -> Option<&'a str> {
    let same = |a: &str, b: &str| fold(a) == fold(b);
    if let Some(folder) = &conversation.folder {
        let parts: Vec<&str> = folder
            .split(['/', '\\'])
            .filter(|p| !p.is_empty())
            .collect();
        // The deepest folder that is a project wins (`~/src/crumb/web`).
        for part in parts.iter().rev() {
            if let Some(p) = projects.iter().find(|p| same(p, part)) {
                return Some(p);
            }
        }
    }
    if let Some(p) = projects
        .iter()
        .find(|p| mentions(&conversation.name, p) > 0)
    {
        return Some(p);
    }
    let said: String = conversation
        .turns
        .iter()
        .filter(|t| t.speaker != "Assistant")
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    projects
        .iter()
        .map(|p| (p, mentions(&said, p)))
        .filter(|(_, n)| *n >= 2)
        .max_by_key(|(_, n)| *n)
        .map(|(p, _)| p.as_str())
}

/// A name as it is compared: lower case, `-`, `_` and spaces alike.
fn fold(name: &str) -> String {
    name.to_lowercase().replace(['-', '_'], " ")
}

/// How often `text` names the project as a word of its own.
fn mentions(text: &str, project: &str) -> usize {
    let words: Vec<String> = fold(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    let name: Vec<String> = fold(project)
        .split_whitespace()
        .map(str::to_string)
        .collect();
    if name.is_empty() {
        return 0;
    }
    words
        .windows(name.len())
        .filter(|w| *w == name.as_slice())
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{Format, Turn};

    fn conversation(folder: Option<&str>, name: &str, said: &str) -> Conversation {
        Conversation {
            name: name.into(),
            date: None,
            source: "/x".into(),
            key: None,
            format: Format::ClaudeCode,
            turns: vec![Turn::said("User", said)],
            omitted: 0,
            folder: folder.map(str::to_string),
        }
    }

    #[test]
    fn a_session_is_about_the_project_of_its_folder_or_of_its_words() {
        let projects = vec!["crumb".to_string(), "trip-to-lisbon".to_string()];
        let c = conversation(
            Some("/home/ana/src/crumb/web"),
            "fix the oven timer",
            "why?",
        );
        assert_eq!(of(&c, &projects), Some("crumb"));
        let c = conversation(None, "Trip to Lisbon: hotels", "which one?");
        assert_eq!(of(&c, &projects), Some("trip-to-lisbon"));
        let c = conversation(None, "notes", "Crumb's oven timer. Crumb again.");
        assert_eq!(of(&c, &projects), Some("crumb"));
        let c = conversation(Some("/home/ana/src/crumbly"), "notes", "a crumb of bread");
        assert_eq!(of(&c, &projects), None);
    }
}
