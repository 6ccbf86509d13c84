//! Properties that must hold for any input: frontmatter round-trips and path
//! confinement.

use knower_vault::frontmatter::{self, Stamp, Updated};
use knower_vault::{Author, Vault, VaultPath};
use proptest::prelude::*;

const STAMP: Stamp = Stamp {
    created: "2026-01-01T00:00:00",
    updated: Updated::Set("2026-11-22T10:00:00"),
};

/// Unknown keys with simple values, unique, in a random order.
fn unknown_keys() -> impl Strategy<Value = Vec<(String, String)>> {
    prop::collection::vec(("[a-z][a-z0-9_]{0,8}", "[A-Za-z0-9 ]{0,12}"), 0..6).prop_map(|pairs| {
        let mut seen = std::collections::HashSet::new();
        pairs
            .into_iter()
            .filter(|(k, _)| {
                !["created", "updated", "tokens"].contains(&k.as_str()) && seen.insert(k.clone())
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn stamping_keeps_the_body_and_every_other_key(keys in unknown_keys(), body in any::<String>()) {
        let yaml: String = keys.iter().map(|(k, v)| format!("{k}: {v}\n")).collect();
        let text = format!("---\n{yaml}---\n{body}");
        let out = frontmatter::stamp(&text, STAMP).unwrap();

        // The body, byte for byte.
        prop_assert_eq!(frontmatter::split(&out).unwrap().body, body.as_str());
        // The user's lines untouched and in their order: managed keys are added after them.
        let expected_prefix = format!("---\n{yaml}");
        prop_assert!(out.starts_with(&expected_prefix));
        // Every key keeps its value; the managed ones are set.
        let before = frontmatter::parse(&text).unwrap().unwrap();
        let after = frontmatter::parse(&out).unwrap().unwrap();
        for (k, v) in &before {
            prop_assert_eq!(after.get(k), Some(v));
        }
        let tokens = (body.chars().count() as u64).div_ceil(4).to_string();
        prop_assert_eq!(frontmatter::scalar(&after, "tokens"), Some(tokens));
        // Stamping again with the same values changes nothing.
        prop_assert_eq!(frontmatter::stamp(&out, STAMP).unwrap(), out);
    }

    #[test]
    fn text_without_frontmatter_gets_a_block_in_front(body in any::<String>()) {
        let first_line = body.lines().next().unwrap_or("");
        prop_assume!(first_line.trim_end() != "---" && !body.starts_with('\u{feff}'));
        let out = frontmatter::stamp(&body, STAMP).unwrap();
        prop_assert_eq!(frontmatter::split(&out).unwrap().body, body.as_str());
        prop_assert_eq!(frontmatter::stamp(&out, STAMP).unwrap(), out);
    }

    #[test]
    fn stamping_never_panics(text in any::<String>()) {
        let _ = frontmatter::stamp(&text, STAMP);
    }

    #[test]
    fn parsed_paths_are_confined(parts in prop::collection::vec(
        prop::sample::select(vec!["a", "b.md", "..", ".", "", ".knower", ".git", "~", "C:", "x\\y", "ü é", " "]),
        0..6,
    ), absolute in any::<bool>()) {
        let input = format!("{}{}", if absolute { "/" } else { "" }, parts.join("/"));
        let unified = input.replace('\\', "/");
        let components: Vec<&str> = unified.trim().split('/').filter(|c| !c.is_empty() && *c != ".").collect();
        let escapes = unified.trim().starts_with('/')
            || unified.trim().starts_with("C:")
            || unified.trim() == "~"
            || unified.trim().starts_with("~/")
            || components.iter().any(|c| *c == ".." || c.starts_with('.'));
        match VaultPath::parse(&input) {
            Ok(path) => {
                prop_assert!(!escapes, "{input:?} was accepted");
                for c in path.components() {
                    prop_assert!(c != ".." && !c.starts_with('.') && !c.is_empty());
                }
            }
            Err(_) => prop_assert!(escapes, "{input:?} was refused"),
        }
    }
}

proptest! {
    // Every case writes to disk; fewer, but end to end.
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn writes_never_land_outside_the_vault(path in "[a./\\\\~ -]{0,3}(\\.\\.|\\.knower|x|/){0,4}[a-z.]{0,4}") {
        let parent = tempfile::TempDir::new().unwrap();
        let root = parent.path().join("vault");
        let (vault, _) = Vault::init(&root, &Author::new("test", "property")).unwrap();
        if vault.write(&path, "content", &Author::new("test", "property")).is_ok() {
            let p = VaultPath::parse(&path).unwrap();
            prop_assert!(root.join(p.as_str()).is_file());
        }
        let outside: Vec<_> = std::fs::read_dir(parent.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        prop_assert_eq!(outside, vec![std::ffi::OsString::from("vault")]);
        let internal: Vec<_> = std::fs::read_dir(root.join(".knower")).unwrap().map(|e| e.unwrap().file_name()).collect();
        prop_assert!(internal.iter().all(|n| ["journal", "lock", "intent", "manifest.jsonl", ".gitignore", "format"].contains(&n.to_str().unwrap())));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Whatever `old` and `new` are — pieces of the frontmatter's keys and
    /// values included — an edit never changes the frontmatter Knower
    /// maintains, and replaces at most one occurrence.
    #[test]
    fn no_edit_changes_the_managed_frontmatter(
        body in "[a-z :\n-]{0,40}",
        old in "[a-z :\n-]{1,8}",
        new in "[A-Z :\n-]{0,8}",
    ) {
        let dir = tempfile::tempdir().unwrap();
        let author = Author::new("test", "property");
        let (vault, _) = Vault::init(dir.path(), &author).unwrap();
        vault.write("n.md", &format!("# Created\n\n{body}"), &author).unwrap();
        let before = vault.read("n.md").unwrap();
        let managed = |text: &str| {
            let map = frontmatter::parse(text).unwrap().unwrap();
            frontmatter::scalar(&map, "created")
        };
        let occurrences = frontmatter::split(&before).unwrap().body.matches(old.as_str()).count();
        match vault.edit("n.md", &old, &new, &author) {
            Ok(_) => {
                prop_assert_eq!(occurrences, 1);
                let after = vault.read("n.md").unwrap();
                prop_assert_eq!(managed(&after), managed(&before));
                prop_assert_eq!(after.matches("\ncreated:").count(), 1);
            }
            Err(_) => {
                prop_assert_ne!(occurrences, 1);
                prop_assert_eq!(vault.read("n.md").unwrap(), before);
            }
        }
    }
}
