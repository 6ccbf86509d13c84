//! What tools write into a conversation that nobody said. Coding agents
//! wrap their own messages in markup whose tag names join words with `-`
//! or `_` (`<task-notification>`, `<local-command-stdout>`,
//! `<command-name>`, `<system-reminder>`, `<environment_context>`,
//! `<user_instructions>`…), where people's tags in prose are single words
//! if any. So the rule is the markup's shape, not a list of tags: a
//! message that opens with such a block was written by the tool and is
//! left out whole; such blocks inside a message are cut from it; a message
//! that is only a bracketed status (`[Request interrupted by user]`) is
//! left out; so is a compaction summary the agent wrote to continue.

/// What a person said in `text`, without the tool's wrapping; empty when
/// the whole message is the tool's.
pub fn said(text: &str) -> String {
    let trimmed = text.trim();
    if trimmed.is_empty()
        || machine_tag(trimmed).is_some()
        || (trimmed.starts_with('[') && trimmed.ends_with(']') && !trimmed.contains('\n'))
        || is_compaction(trimmed)
    {
        return String::new();
    }
    let mut out = String::with_capacity(trimmed.len());
    let mut rest = trimmed;
    while let Some(at) = rest.find('<') {
        let Some(tag) = machine_tag(&rest[at..]) else {
            out.push_str(&rest[..=at]);
            rest = &rest[at + 1..];
            continue;
        };
        out.push_str(&rest[..at]);
        let close = format!("</{tag}>");
        rest = match rest[at..].find(&close) {
            Some(end) => &rest[at + end + close.len()..],
            // An unclosed wrapper runs to the end of the message.
            None => "",
        };
    }
    out.push_str(rest);
    out.trim().to_string()
}

/// The tag name if `text` opens with `<a-b …>` or `<a_b …>`.
fn machine_tag(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('<')?;
    let end = inner.find(|c: char| c == '>' || c.is_whitespace())?;
    let name = &inner[..end];
    let shaped = name.contains(['-', '_'])
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    shaped.then_some(name)
}

/// The summary an agent writes for itself when its context is compacted.
fn is_compaction(text: &str) -> bool {
    text.starts_with("This session is being continued from a previous conversation")
}

#[cfg(test)]
mod tests {
    use super::said;

    #[test]
    fn the_tools_wrapping_is_not_what_anyone_said() {
        assert_eq!(
            said(
                "<task-notification>\n<task-id>b7b23b2</task-id>\n</task-notification>\nRead the output file"
            ),
            ""
        );
        assert_eq!(
            said("<local-command-stdout>Reconnected</local-command-stdout>"),
            ""
        );
        assert_eq!(said("[Request interrupted by user for tool use]"), "");
        assert_eq!(
            said(
                "Fix the parser.<system-reminder>\nTodo list is empty\n</system-reminder> Then test it."
            ),
            "Fix the parser. Then test it."
        );
        // A person's markup stays.
        assert_eq!(
            said("Use <div> and <b>bold</b> here."),
            "Use <div> and <b>bold</b> here."
        );
    }
}
