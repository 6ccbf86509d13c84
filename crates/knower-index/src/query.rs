//! What a user types into search, understood: free words, `"phrases"`,
//! `prefix*`, `+required`, `-excluded`, and a scope (`project:NAME`,
//! `path:PREFIX`) that may also be given apart from the text.

use knower_vault::VaultPath;

use crate::error::{Error, Result};

/// Where to search: everything, or below one folder (or one file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    All,
    Below(VaultPath),
}

impl Scope {
    /// `project:NAME` → `projects/NAME`; anything else is a path prefix.
    pub fn parse(text: &str) -> Result<Scope> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(Scope::All);
        }
        let path = match text.strip_prefix("project:") {
            Some(name) if !name.trim().is_empty() && !name.contains('/') => {
                format!("projects/{}", name.trim())
            }
            Some(_) => {
                return Err(Error::BadQuery(format!(
                    "{text:?}: a project scope is project:NAME, with one folder name"
                )));
            }
            None => text
                .strip_prefix("path:")
                .unwrap_or(text)
                .trim_end_matches('/')
                .to_string(),
        };
        let path = VaultPath::parse(&path).map_err(|e| Error::BadQuery(e.to_string()))?;
        Ok(if path.is_root() {
            Scope::All
        } else {
            Scope::Below(path)
        })
    }

    pub fn contains(&self, path: &VaultPath) -> bool {
        match self {
            Scope::All => true,
            Scope::Below(prefix) => path.starts_with(prefix),
        }
    }
}

/// A parsed query.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    /// Free words and `+words`, in order; BM25 ranks by them.
    pub words: Vec<String>,
    /// `+word`: must match.
    pub required: Vec<String>,
    /// `"exact phrases"`: must match.
    pub phrases: Vec<String>,
    /// `prefix*`.
    pub prefixes: Vec<String>,
    /// `-word` and `-"phrase"`: must not match.
    pub excluded: Vec<String>,
    /// `project:NAME` or `path:PREFIX` written in the query.
    pub scope: Option<String>,
}

impl Query {
    pub fn parse(text: &str) -> Query {
        let mut query = Query::default();
        let mut rest = text.trim();
        while !rest.is_empty() {
            let signed = rest.len() > 1
                && matches!(rest.as_bytes()[0], b'-' | b'+')
                && !rest.as_bytes()[1].is_ascii_whitespace();
            let (sign, body) = if signed {
                (Some(rest.as_bytes()[0]), &rest[1..])
            } else {
                (None, rest)
            };
            if let Some(inner) = body.strip_prefix('"') {
                let (phrase, after) = match inner.find('"') {
                    Some(end) => (&inner[..end], &inner[end + 1..]),
                    None => (inner, ""),
                };
                let phrase = phrase.trim();
                if !phrase.is_empty() {
                    match sign {
                        Some(b'-') => query.excluded.push(phrase.to_string()),
                        _ => query.phrases.push(phrase.to_string()),
                    }
                }
                rest = after.trim_start();
                continue;
            }
            let end = body.find(char::is_whitespace).unwrap_or(body.len());
            let word = &body[..end];
            rest = body[end..].trim_start();
            // Punctuation alone (`--`, `*`, `?`) finds nothing; it is not an error.
            if !word.chars().any(char::is_alphanumeric) {
                continue;
            }
            if sign.is_none()
                && let Some((key, value)) = word.split_once(':')
                && matches!(key, "project" | "path")
                && !value.is_empty()
            {
                query.scope = Some(word.to_string());
                continue;
            }
            match sign {
                Some(b'-') => query.excluded.push(word.to_string()),
                Some(_) => {
                    query.required.push(word.to_string());
                    query.words.push(word.to_string());
                }
                None => match word.strip_suffix('*') {
                    Some(stem) if stem.chars().count() >= 2 && !stem.ends_with('*') => {
                        query.prefixes.push(stem.to_string())
                    }
                    _ => query.words.push(word.to_string()),
                },
            }
        }
        query
    }

    /// The text a model embeds: the words and phrases, without operators.
    pub fn semantic_text(&self) -> String {
        self.words
            .iter()
            .chain(&self.phrases)
            .chain(&self.prefixes)
            .cloned()
            .collect::<Vec<_>>()
            .join(" ")
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
            && self.phrases.is_empty()
            && self.prefixes.is_empty()
            && self.excluded.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators() {
        let q = Query::parse(r#"rust "error handling" -python +tokio pars* project:alpha"#);
        assert_eq!(q.words, vec!["rust", "tokio"]);
        assert_eq!(q.required, vec!["tokio"]);
        assert_eq!(q.phrases, vec!["error handling"]);
        assert_eq!(q.excluded, vec!["python"]);
        assert_eq!(q.prefixes, vec!["pars"]);
        assert_eq!(q.scope.as_deref(), Some("project:alpha"));
        assert_eq!(q.semantic_text(), "rust tokio error handling pars");
    }

    #[test]
    fn odd_input_is_text_not_an_error() {
        let q = Query::parse(r#"what's C++ -- "unclosed phrase"#);
        assert_eq!(q.words, vec!["what's", "C++"]);
        assert_eq!(q.phrases, vec!["unclosed phrase"]);
        assert!(Query::parse("   ").is_empty());
        let q = Query::parse(r#"-"bad idea" * -"#);
        assert_eq!(q.excluded, vec!["bad idea"]);
        assert!(q.words.is_empty());
    }

    #[test]
    fn scopes() {
        assert_eq!(
            Scope::parse("project:alpha").unwrap(),
            Scope::Below(VaultPath::parse("projects/alpha").unwrap())
        );
        assert_eq!(
            Scope::parse("bucket/").unwrap(),
            Scope::Below(VaultPath::parse("bucket").unwrap())
        );
        assert_eq!(Scope::parse("").unwrap(), Scope::All);
        assert!(Scope::parse("../etc").is_err());
        assert!(Scope::parse("project:a/b").is_err());
    }
}
