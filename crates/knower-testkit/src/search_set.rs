//! A search set kept as one TSV file: notes, and questions with the note
//! that answers each (`tests/languages/*.tsv` in `knower-index`).
//!
//! Lines: `note<TAB>PATH<TAB>TEXT` (`\n` in TEXT is a line break) or
//! `ask<TAB>QUESTION<TAB>PATH`; `#` starts a comment line.

use std::path::Path;

pub struct SearchSet {
    /// (vault path, text).
    pub notes: Vec<(String, String)>,
    /// (question, the vault path of the note that answers it).
    pub questions: Vec<(String, String)>,
}

impl SearchSet {
    pub fn read(path: &Path) -> Result<SearchSet, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut set = SearchSet {
            notes: vec![],
            questions: vec![],
        };
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split('\t').collect();
            match fields.as_slice() {
                ["note", path, text] => set
                    .notes
                    .push((path.to_string(), text.replace("\\n", "\n") + "\n")),
                ["ask", question, path] => {
                    set.questions.push((question.to_string(), path.to_string()))
                }
                _ => {
                    return Err(format!(
                        "{}:{}: not a note or ask line",
                        path.display(),
                        n + 1
                    ));
                }
            }
        }
        for (question, answer) in &set.questions {
            if !set.notes.iter().any(|(path, _)| path == answer) {
                return Err(format!(
                    "{question:?} is answered by {answer}, which is not a note"
                ));
            }
        }
        Ok(set)
    }

    /// The language folder of a note (`notes/de/umzug.md` → `de`), by
    /// which figures are reported.
    pub fn language(path: &str) -> &str {
        path.split('/').nth(1).unwrap_or("")
    }
}
