//! The content of a new vault (seed 003's initial state).

pub(crate) const FOLDERS: [&str; 3] = ["inbox", "bucket", "projects"];

/// The starter notes; frontmatter is added by the write pipeline.
pub(crate) fn files() -> Vec<(&'static str, String)> {
    let today = jiff::Zoned::now().strftime("%Y-%m-%d").to_string();
    vec![
        ("overview.md", OVERVIEW.to_string()),
        ("profile.md", PROFILE.to_string()),
        ("tasks.md", TASKS.to_string()),
        ("changelog.md", CHANGELOG.replace("{today}", &today)),
    ]
}

const OVERVIEW: &str = "\
# Overview

This vault is a personal memory kept by Knower. Everything in it is plain
markdown: read it and edit it in any editor, and Knower keeps up.

## Layout

- `overview.md`: this map of the vault. Agents read it first; keep it short and current.
- `tree.md`: every file with its token count and last update. Generated; do not edit.
- `profile.md`: who the owner is and how they like things done.
- `tasks.md`: tasks that belong to no project.
- `changelog.md`: events and decisions across the vault, newest first.
- `inbox/`: items Knower could not place. Each folder holds a `review.md` with
  its reasoning; answer it and the item is filed.
- `bucket/`: raw material not yet attached to a project.
- `projects/<name>/`: one folder per project, with `description.md` (what and
  why), `state.md` (where it stands), `tasks.md` and `changelog.md`.

## Conventions

- Every note starts with frontmatter; `created`, `updated` and `tokens` are
  maintained by Knower.
- Dates are written `YYYY-MM-DD`.
- Tasks are checklist items: `- [ ] do the thing`, `- [x] done`.
";

/// The starter profile's sections and the line each holds until the owner
/// (or the first fact filed there) replaces it.
pub const PROFILE_PLACEHOLDERS: [(&str, &str); 2] = [
    (
        "## Identity",
        "Name, role, where you work, the languages you use.",
    ),
    (
        "## Preferences",
        "How you like answers and notes: tone, formats, things to always or never do.",
    ),
];

const PROFILE: &str = "\
# Profile

Durable facts about the owner of this vault and how they work. Knower's
agents read this before every request.

## Identity

Name, role, where you work, the languages you use.

## Preferences

How you like answers and notes: tone, formats, things to always or never do.
";

const TASKS: &str = "\
# Tasks

Tasks that belong to no project. A project's tasks live in `projects/<name>/tasks.md`.
";

// Entries only below the title: new entries are appended at the top
// (seed 003), directly above the newest one.
const CHANGELOG: &str = "\
# Changelog

- {today}: vault created.
";

#[cfg(test)]
mod tests {
    #[test]
    fn the_placeholders_are_the_starter_profiles_own() {
        for (section, placeholder) in super::PROFILE_PLACEHOLDERS {
            assert!(
                super::PROFILE.contains(&format!("{section}\n\n{placeholder}\n")),
                "{section}"
            );
        }
    }
}
