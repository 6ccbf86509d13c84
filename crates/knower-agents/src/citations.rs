//! The `path:line` citations of an answer, checked against the vault.

use knower_vault::Vault;

use crate::report::Source;

/// The `path:line` and `path:first-last` citations of an answer, each
/// checked against the vault; an error names those that do not exist.
pub(crate) fn check_citations(vault: &Vault, text: &str) -> Result<Vec<Source>, String> {
    let mut sources = Vec::new();
    let mut bad = Vec::new();
    for (at, _) in text.match_indices(".md:") {
        let start = text[..at]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_alphanumeric() || matches!(c, '/' | '.' | '-' | '_'))
            .last()
            .map(|(i, _)| i)
            .unwrap_or(at);
        let path = &text[start..at + 3];
        if path == ".md" {
            continue;
        }
        let rest = &text[at + 4..];
        let digits = |s: &str| {
            s.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
        };
        let first = digits(rest);
        let Ok(line_start) = first.parse::<usize>() else {
            continue;
        };
        let after = &rest[first.len()..];
        let line_end = after
            .strip_prefix('-')
            .or_else(|| after.strip_prefix('–'))
            .and_then(|s| digits(s).parse::<usize>().ok())
            .unwrap_or(line_start);
        let lines = vault.read(path).map(|t| t.lines().count());
        match lines {
            Ok(n) if line_start >= 1 && line_start <= n.max(1) && line_end >= line_start => {
                let source = Source {
                    path: path.to_string(),
                    line_start,
                    line_end: line_end.min(n.max(1)),
                };
                if !sources.contains(&source) {
                    sources.push(source);
                }
            }
            _ => bad.push(format!("{path}:{first}")),
        }
    }
    if bad.is_empty() {
        Ok(sources)
    } else {
        Err(format!(
            "it cites {}, which the vault does not have (no such file, or no such line)",
            bad.join(", ")
        ))
    }
}
