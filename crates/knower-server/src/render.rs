//! Markdown to HTML for the UI. Vault content may come from the web or a
//! model, so the HTML is sanitised: no script, no event handlers, no
//! `javascript:` links, no styles — only the markup markdown produces.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd, html};

/// The body of a note (its frontmatter apart) as safe HTML: GitHub-style
/// tables, task lists, strikethrough, footnotes and `[[wiki links]]`.
///
/// Each top-level block, and each item of a top-level list, is wrapped in
/// `<div data-lines="first-last">` (lines of `body`, 1-based), so the UI can
/// highlight the lines a search answer cites in the rendered note.
pub fn markdown_to_html(body: &str) -> String {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_WIKILINKS;
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(body.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |offset: usize| line_starts.partition_point(|&start| start <= offset);
    let mut events = Vec::new();
    // Depth of open tags, and whether the enclosing top-level block is a list.
    let mut depth = 0usize;
    let mut in_list = false;
    // For each open image: whether it became a link.
    let mut images = Vec::new();
    for (event, range) in Parser::new_ext(body, options).into_offset_iter() {
        let event = remote_image_as_link(event, &mut images);
        let open = || {
            let text = body[range.clone()].trim_end();
            let last = range.start + text.len().saturating_sub(1);
            let lines = format!("{}-{}", line_of(range.start), line_of(last));
            Event::Html(CowStr::from(format!("<div data-lines=\"{lines}\">")))
        };
        let close = || Event::Html("</div>".into());
        match &event {
            Event::Start(tag) => {
                if depth == 0 {
                    in_list = matches!(tag, Tag::List(_));
                    if !in_list {
                        events.push(open());
                    }
                    events.push(event);
                } else if in_list && depth == 1 {
                    // Inside the item, so the list stays a list of items.
                    events.push(event);
                    events.push(open());
                } else {
                    events.push(event);
                }
                depth += 1;
            }
            Event::End(_) => {
                depth -= 1;
                if in_list && depth == 1 {
                    events.push(close());
                    events.push(event);
                } else {
                    events.push(event);
                    if depth == 0 && !in_list {
                        events.push(close());
                    }
                }
            }
            // A thematic break is a block without a start and an end.
            Event::Rule if depth == 0 => {
                events.push(open());
                events.push(event);
                events.push(close());
            }
            _ => events.push(event),
        }
    }
    let mut unsafe_html = String::with_capacity(body.len() * 3 / 2);
    html::push_html(&mut unsafe_html, events.into_iter());
    sanitiser().clean(&unsafe_html).to_string()
}

fn sanitiser() -> ammonia::Builder<'static> {
    let mut builder = ammonia::Builder::default();
    builder
        // Task lists render as disabled checkboxes.
        .add_tags(["input"])
        .add_tag_attributes("input", ["type", "checked", "disabled"])
        .add_tag_attributes("code", ["class"])
        .add_tag_attributes("div", ["data-lines"])
        .add_tag_attributes("th", ["style"])
        .add_tag_attributes("td", ["style"])
        .attribute_filter(|element, attribute, value| {
            match (element, attribute) {
                // Only checkboxes, and only the text-align of table cells.
                ("input", "type") if value != "checkbox" => None,
                ("th" | "td", "style") if !CELL_STYLES.contains(&value) => None,
                ("img", "src") if is_remote(value) => None,
                ("code", "class") if !value.starts_with("language-") => None,
                ("div", "data-lines") if !is_line_range(value) => None,
                _ => Some(value.into()),
            }
        })
        .link_rel(Some("noopener noreferrer nofollow"));
    builder
}

/// An image from another site becomes a link to it, its alt text the
/// link's text: the page never loads anything from elsewhere.
fn remote_image_as_link<'a>(event: Event<'a>, images: &mut Vec<bool>) -> Event<'a> {
    match event {
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => {
            let remote = is_remote(&dest_url);
            images.push(remote);
            let tag = if remote {
                Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                }
            } else {
                Tag::Image {
                    link_type,
                    dest_url,
                    title,
                    id,
                }
            };
            Event::Start(tag)
        }
        Event::End(TagEnd::Image) if images.pop() == Some(true) => Event::End(TagEnd::Link),
        other => other,
    }
}

/// The only styles markdown gives a table cell, exactly as pulldown-cmark
/// writes them: safe by themselves, not because the page's CSP says so.
const CELL_STYLES: [&str; 3] = [
    "text-align: left",
    "text-align: center",
    "text-align: right",
];

/// An address on another site (or any scheme): nothing is loaded from there.
fn is_remote(src: &str) -> bool {
    let scheme = src.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    scheme || src.starts_with("//")
}

fn is_line_range(value: &str) -> bool {
    value
        .split_once('-')
        .is_some_and(|(a, b)| a.parse::<usize>().is_ok() && b.parse::<usize>().is_ok())
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

    #[test]
    fn cell_styles_are_exact_and_remote_images_become_links() {
        let html = markdown_to_html(
            "<table><tr><td style=\"text-align:left;background:url(https://evil.example/x);position:fixed\">x</td></tr></table>\n\n![a cat](https://evil.example/cat.png)\n\n![local](images/dog.png)\n\n<img src=\"//evil.example/y.png\">\n",
        );
        for bad in [
            "background",
            "position:fixed",
            "<img src=\"https",
            "<img src=\"//",
        ] {
            assert!(!html.contains(bad), "{bad} survived: {html}");
        }
        assert!(
            html.contains(r#"<a href="https://evil.example/cat.png" rel="noopener noreferrer nofollow">a cat</a>"#),
            "{html}"
        );
        assert!(
            html.contains(r#"<img src="images/dog.png" alt="local">"#),
            "{html}"
        );
    }

    #[test]
    fn blocks_carry_their_source_lines() {
        let body = "# Title\n\nFirst paragraph\nstill first.\n\n- one\n- two\n\n---\n";
        let html = markdown_to_html(body).replace('\n', "");
        assert!(
            html.contains(r#"<div data-lines="1-1"><h1>Title</h1>"#),
            "{html}"
        );
        assert!(html.contains(r#"<div data-lines="3-4"><p>First"#), "{html}");
        assert!(html.contains(r#"<li><div data-lines="6-6">one"#), "{html}");
        assert!(html.contains(r#"<li><div data-lines="7-7">two"#), "{html}");
        assert!(html.contains(r#"<div data-lines="9-9"><hr"#), "{html}");
        // Wiki links become links to the named note.
        assert!(markdown_to_html("See [[Ada Lovelace]].").contains(r#"href="Ada%20Lovelace""#));
    }

    #[test]
    fn forged_line_ranges_are_dropped() {
        let html = markdown_to_html("<div data-lines=\"javascript:1\">x</div>\n");
        assert!(!html.contains("javascript"), "{html}");
    }
}
