//! A fetched page as text to read: an article's readable part as markdown
//! (dom_smoothie, a port of Mozilla's Readability), a text file as it is, a
//! feed's entries (feed-rs: RSS, Atom, JSON Feed) with their summaries.

use crate::web::{Kind, Page};

/// What a page says.
#[derive(Clone, Debug, Default)]
pub struct Readable {
    pub title: String,
    pub text: String,
    /// A feed's entries (empty for a page).
    pub entries: Vec<Entry>,
    /// Text of the page that is not a statement about anything: hidden
    /// markup, and sentences that steer their reader ([`crate::injection`]),
    /// each with why. Kept as evidence, never read for facts.
    pub flagged: Vec<Flagged>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Flagged {
    pub why: String,
    pub text: String,
}

#[derive(Clone, Debug)]
pub struct Entry {
    pub title: String,
    pub url: String,
    pub text: String,
    /// `YYYY-MM-DD`, when the feed says.
    pub published: Option<String>,
}

pub fn read(page: &Page) -> Result<Readable, String> {
    let mut read = parse(page)?;
    read.title = clean(&read.title);
    read.text = clean(&read.text);
    for entry in &mut read.entries {
        entry.title = clean(&entry.title);
        entry.url = clean(&entry.url);
        entry.text = clean(&entry.text);
    }
    for flagged in &mut read.flagged {
        flagged.text = clean(&flagged.text);
    }
    for unit in crate::units::units(&read.text) {
        if let Some(why) = crate::injection::instruction(&unit.text) {
            read.flagged.push(Flagged {
                why: why.to_string(),
                text: unit.text,
            });
        }
    }
    Ok(read)
}

/// Elements a browser does not show, as Readability judges them, and the
/// markup's comments: their text is taken out of the page and flagged.
fn hidden_markup(html: &str) -> (String, Vec<Flagged>) {
    let document = dom_query::Document::from(html);
    let mut flagged = Vec::new();
    let mut keep = |why: &str, text: &str| {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if !text.is_empty() {
            flagged.push(Flagged {
                why: why.to_string(),
                text,
            });
        }
    };
    for node in document.root().descendants() {
        let comment = node.query(|n| match &n.data {
            dom_query::NodeData::Comment { contents } => Some(contents.to_string()),
            _ => None,
        });
        if let Some(Some(text)) = comment {
            keep("in a comment of the markup", &text);
            node.remove_from_parent();
        }
    }
    let hidden = document.select(
        "[hidden], [aria-hidden=true], [style*='display:none'], [style*='display: none'], \
         [style*='visibility:hidden'], [style*='visibility: hidden'], [style*='font-size:0'], \
         [style*='font-size: 0']",
    );
    for node in hidden.nodes() {
        keep("in hidden markup", &node.text());
    }
    hidden.remove();
    if flagged.is_empty() {
        return (html.to_string(), flagged);
    }
    (document.html().to_string(), flagged)
}

/// Web text made safe to store and to print on a terminal: escape
/// sequences (a window title, a clear screen, a hyperlink) removed whole,
/// other control characters and the bidirectional overrides that reorder
/// what a reader sees dropped; line breaks and tabs kept.
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters, then one final byte in @..~.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC, DCS, PM, APC, SOS: up to BEL or ESC \.
                Some(']' | 'P' | '^' | '_' | 'X') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' {
                            chars.next_if_eq(&'\\');
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\n' | '\t' => out.push(c),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            c if c.is_control() => {}
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {}
            c => out.push(c),
        }
    }
    out
}

fn parse(page: &Page) -> Result<Readable, String> {
    match page.kind {
        Kind::Text => Ok(Readable {
            title: page
                .text
                .lines()
                .find(|l| !l.trim().is_empty())
                .map(|l| l.trim_start_matches(['#', ' ']).trim().to_string())
                .unwrap_or_else(|| page.url.clone()),
            text: page.text.clone(),
            entries: vec![],
            flagged: vec![],
        }),
        Kind::Html => {
            let (visible, flagged) = hidden_markup(&page.text);
            let mut read = article(&visible, &page.url);
            read.flagged = flagged;
            Ok(read)
        }
        Kind::Feed => feed(&page.text),
    }
}

/// The readable part of an HTML page, as markdown; a page Readability finds
/// nothing in gives its text without markup.
fn article(html: &str, url: &str) -> Readable {
    let config = dom_smoothie::Config {
        text_mode: dom_smoothie::TextMode::Markdown,
        ..Default::default()
    };
    let parsed =
        dom_smoothie::Readability::new(html, Some(url), Some(config)).and_then(|mut r| r.parse());
    match parsed {
        Ok(article) if article.text_content.trim().len() > 40 => Readable {
            title: article.title.trim().to_string(),
            text: article.text_content.to_string(),
            entries: vec![],
            flagged: vec![],
        },
        _ => {
            let document = dom_smoothie::Readability::new(html, Some(url), None)
                .ok()
                .and_then(|mut r| r.parse().ok());
            Readable {
                title: document
                    .as_ref()
                    .map(|a| a.title.to_string())
                    .unwrap_or_default(),
                text: text_of(html),
                entries: vec![],
                flagged: vec![],
            }
        }
    }
}

fn feed(xml: &str) -> Result<Readable, String> {
    let parsed = feed_rs::parser::parse(xml.as_bytes())
        .map_err(|e| format!("not a feed Knower can read ({e})"))?;
    let entries = parsed
        .entries
        .iter()
        .map(|e| {
            let html = e
                .content
                .as_ref()
                .and_then(|c| c.body.clone())
                .or_else(|| e.summary.as_ref().map(|s| s.content.clone()))
                .unwrap_or_default();
            Entry {
                title: e
                    .title
                    .as_ref()
                    .map(|t| text_of(&t.content))
                    .unwrap_or_default(),
                url: e.links.first().map(|l| l.href.clone()).unwrap_or_default(),
                text: text_of(&html),
                published: e
                    .published
                    .or(e.updated)
                    .map(|d| d.format("%Y-%m-%d").to_string()),
            }
        })
        .collect();
    Ok(Readable {
        title: parsed
            .title
            .map(|t| text_of(&t.content))
            .unwrap_or_default(),
        text: String::new(),
        entries,
        flagged: vec![],
    })
}

/// Text without markup (scripts and styles dropped, entities decoded for
/// the common ones), paragraphs kept apart.
pub fn text_of(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let tag = &rest[at..];
        let lower = tag.get(..8).unwrap_or(tag).to_ascii_lowercase();
        let skip_to = if lower.starts_with("<script") {
            tag.to_ascii_lowercase().find("</script>").map(|i| i + 9)
        } else if lower.starts_with("<style") {
            tag.to_ascii_lowercase().find("</style>").map(|i| i + 8)
        } else {
            tag.find('>').map(|i| i + 1)
        };
        let Some(end) = skip_to else { break };
        let name = lower.trim_start_matches(['<', '/']);
        if ["p", "br", "div", "li", "h1", "h2", "h3", "h4", "tr"]
            .iter()
            .any(|b| name.starts_with(b) && name[b.len()..].starts_with([' ', '>', '/']))
        {
            out.push('\n');
        }
        rest = &tag[end..];
    }
    out.push_str(rest);
    let decoded = out
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'");
    decoded
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_scripts_and_entities_become_text() {
        let text =
            text_of("<p>Tokio 1.40 &amp; <b>more</b></p><script>alert(1)</script><li>second</li>");
        assert_eq!(text, "Tokio 1.40 & more\nsecond");
    }

    #[test]
    fn escape_sequences_and_control_characters_never_reach_a_terminal() {
        let hostile = "Tokio\u{1b}]0;pwned\u{7} 1.40\u{1b}[2J\u{1b}[H is out\u{1b}]8;;https://evil.example\u{1b}\\here\u{1b}]8;;\u{1b}\\.\u{0}\u{8}\u{9b}\r\nNext\u{202e}line\tend";
        assert_eq!(clean(hostile), "Tokio 1.40 is outhere.\nNextline\tend");
        let page = Page {
            url: "https://example.org/".into(),
            kind: Kind::Text,
            text: "Title\u{1b}[31m red\u{1b}[0m\n".into(),
        };
        let read = read(&page).unwrap();
        assert_eq!(read.title, "Title red");
        assert!(!read.text.contains('\u{1b}'));
    }

    #[test]
    fn a_feed_gives_its_entries() {
        let rss = r#"<?xml version="1.0"?><rss version="2.0"><channel><title>Tokio blog</title>
<item><title>Announcing Tokio 1.40</title><link>https://tokio.rs/blog/2024-09-tokio-1-40</link>
<pubDate>Mon, 02 Sep 2024 00:00:00 GMT</pubDate><description>&lt;p&gt;Tokio 1.40 is out.&lt;/p&gt;</description></item>
</channel></rss>"#;
        let r = feed(rss).unwrap();
        assert_eq!(r.title, "Tokio blog");
        assert_eq!(r.entries[0].title, "Announcing Tokio 1.40");
        assert_eq!(r.entries[0].url, "https://tokio.rs/blog/2024-09-tokio-1-40");
        assert_eq!(r.entries[0].text, "Tokio 1.40 is out.");
        assert_eq!(r.entries[0].published.as_deref(), Some("2024-09-02"));
    }
}
