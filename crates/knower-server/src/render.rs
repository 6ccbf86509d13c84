//! Markdown to HTML for the UI. Vault content may come from the web or a
//! model, so the HTML is sanitised: no script, no event handlers, no
//! `javascript:` links, no styles — only the markup markdown produces.

use pulldown_cmark::{Options, Parser, html};

/// The body of a note (its frontmatter apart) as safe HTML: GitHub-style
/// tables, task lists, strikethrough and footnotes.
pub fn markdown_to_html(body: &str) -> String {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_FOOTNOTES;
    let mut unsafe_html = String::with_capacity(body.len() * 3 / 2);
    html::push_html(&mut unsafe_html, Parser::new_ext(body, options));
    sanitiser().clean(&unsafe_html).to_string()
}

fn sanitiser() -> ammonia::Builder<'static> {
    let mut builder = ammonia::Builder::default();
    builder
        // Task lists render as disabled checkboxes.
        .add_tags(["input"])
        .add_tag_attributes("input", ["type", "checked", "disabled"])
        .add_tag_attributes("code", ["class"])
        .add_tag_attributes("th", ["style"])
        .add_tag_attributes("td", ["style"])
        .attribute_filter(|element, attribute, value| {
            match (element, attribute) {
                // Only checkboxes, and only the text-align of table cells.
                ("input", "type") if value != "checkbox" => None,
                ("th" | "td", "style") if !value.starts_with("text-align:") => None,
                ("code", "class") if !value.starts_with("language-") => None,
                _ => Some(value.into()),
            }
        })
        .link_rel(Some("noopener noreferrer nofollow"));
    builder
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_tables_task_lists_and_code() {
        let html = markdown_to_html(
            "# Title\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n```rust\nfn main() {}\n```\n",
        );
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(html.contains("<table>"), "{html}");
        assert!(html.contains(r#"style="text-align: left""#), "{html}");
        assert!(html.contains(r#"type="checkbox""#), "{html}");
        assert!(html.contains(r#"class="language-rust""#), "{html}");
    }

    #[test]
    fn strips_script_handlers_and_javascript_links() {
        let html = markdown_to_html(
            "<script>alert(1)</script>\n\n<img src=x onerror=\"alert(2)\">\n\n[click](javascript:alert(3))\n\n<a href=\"https://example.org\" onclick=\"alert(4)\">ok</a>\n\n<input type=\"text\" autofocus onfocus=\"alert(5)\">\n\n<div style=\"position:fixed\">x</div>\n",
        );
        for bad in [
            "<script",
            "onerror",
            "javascript:",
            "onclick",
            "onfocus",
            "type=\"text\"",
            "position:fixed",
        ] {
            assert!(!html.contains(bad), "{bad} survived: {html}");
        }
        assert!(html.contains("https://example.org"), "{html}");
        assert!(html.contains("noopener"), "{html}");
    }
}
