//! What an update brings: text, attached files, and, when it answers an
//! inbox item, that item's id.

use crate::error::{Error, Result};

/// The largest text an update may carry.
pub const MAX_TEXT_BYTES: usize = 1 << 20;
/// The largest attached file.
pub const MAX_ATTACHMENT_BYTES: usize = 20 << 20;
pub const MAX_ATTACHMENTS: usize = 16;

#[derive(Clone, Debug, Default)]
pub struct Payload {
    /// The update's id, when the caller assigned one (the server's queue).
    pub id: Option<String>,
    pub text: String,
    pub attachments: Vec<Attachment>,
    /// The inbox item this update answers (seed 003's `inbox_ref`).
    pub inbox_ref: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Attachment {
    /// A plain file name (no folders), made safe by [`Attachment::new`].
    pub name: String,
    pub bytes: Vec<u8>,
}

impl Attachment {
    /// An attachment named after `name`'s last component, with characters
    /// a file name should not have replaced.
    pub fn new(name: &str, bytes: Vec<u8>) -> Attachment {
        let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
        let mut safe: String = base
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        safe = safe.trim_start_matches(['.', '-']).to_string();
        if safe.is_empty() {
            safe = "attachment".into();
        }
        Attachment { name: safe, bytes }
    }

    /// The image media type, for files models can look at.
    pub fn image_type(&self) -> Option<&'static str> {
        image_type(&self.name)
    }

    /// The markdown that shows it from a note in the same folder as `folder`.
    pub fn link(&self, relative: &str) -> String {
        if self.image_type().is_some() {
            format!("![{}]({relative})", self.name)
        } else {
            format!("[{}]({relative})", self.name)
        }
    }
}

/// The media type of an image file named `name` (by its extension).
pub fn image_type(name: &str) -> Option<&'static str> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => return None,
    })
}

impl Payload {
    pub fn text(text: impl Into<String>) -> Payload {
        Payload {
            text: text.into(),
            ..Payload::default()
        }
    }

    /// Refuses what cannot be filed, before anything is written.
    pub fn check(&self) -> Result<()> {
        if self.text.trim().is_empty() && self.attachments.is_empty() {
            return Err(Error::Invalid("the update is empty".into()));
        }
        if self.text.len() > MAX_TEXT_BYTES {
            return Err(Error::Invalid(format!(
                "the text is {} bytes; an update holds at most {MAX_TEXT_BYTES}",
                self.text.len()
            )));
        }
        if self.attachments.len() > MAX_ATTACHMENTS {
            return Err(Error::Invalid(format!(
                "{} files attached; at most {MAX_ATTACHMENTS}",
                self.attachments.len()
            )));
        }
        for a in &self.attachments {
            if a.bytes.len() > MAX_ATTACHMENT_BYTES {
                return Err(Error::Invalid(format!(
                    "{} is {} bytes; an attached file may be at most {MAX_ATTACHMENT_BYTES}",
                    a.name,
                    a.bytes.len()
                )));
            }
        }
        Ok(())
    }

    /// The first words, for changelog entries and titles.
    pub fn headline(&self, max_chars: usize) -> String {
        let flat = crate::text::one_line(&self.text);
        let flat = if flat.is_empty() {
            self.attachments
                .iter()
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            flat
        };
        crate::text::ellipsis(&flat, max_chars)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attachment_names_cannot_reach_other_folders() {
        assert_eq!(Attachment::new("../../etc/passwd", vec![]).name, "passwd");
        assert_eq!(Attachment::new("..", vec![]).name, "attachment");
        assert_eq!(Attachment::new(".hidden.png", vec![]).name, "hidden.png");
        assert_eq!(
            Attachment::new("my photo (1).JPG", vec![]).name,
            "my-photo--1-.JPG"
        );
        assert_eq!(
            Attachment::new("a.JPG", vec![]).image_type(),
            Some("image/jpeg")
        );
    }

    #[test]
    fn empty_and_oversized_updates_are_refused() {
        assert!(Payload::text("  ").check().is_err());
        assert!(
            Payload::text("x".repeat(MAX_TEXT_BYTES + 1))
                .check()
                .is_err()
        );
        assert!(Payload::text("fine").check().is_ok());
        assert_eq!(Payload::text("one two three").headline(7), "one two…");
    }
}
