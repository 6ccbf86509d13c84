//! The vault library on real temporary folders.

use std::fs;
use std::sync::{Arc, Mutex};

use knower_vault::{Author, Changed, Error, Position, Vault, Version};
use tempfile::TempDir;

fn me() -> Author {
    Author::new("test", "testing")
}

fn new_vault() -> (TempDir, Vault) {
    let dir = TempDir::new().unwrap();
    let (vault, _) = Vault::init(dir.path(), &me()).unwrap();
    (dir, vault)
}

fn disk(dir: &TempDir, path: &str) -> String {
    fs::read_to_string(dir.path().join(path)).unwrap()
}

fn body(text: &str) -> &str {
    knower_vault::frontmatter::split(text).unwrap().body
}

fn field(text: &str, key: &str) -> Option<String> {
    let map = knower_vault::frontmatter::parse(text).unwrap().unwrap();
    knower_vault::frontmatter::scalar(&map, key)
}

#[test]
fn init_creates_the_seed_layout_and_never_overwrites() {
    let (dir, vault) = new_vault();
    for folder in ["inbox", "bucket", "projects"] {
        assert!(dir.path().join(folder).is_dir(), "{folder}");
    }
    for file in [
        "overview.md",
        "tree.md",
        "profile.md",
        "tasks.md",
        "changelog.md",
    ] {
        let text = disk(&dir, file);
        for key in ["created", "updated", "tokens"] {
            assert!(field(&text, key).is_some(), "{file} lacks {key}");
        }
    }
    drop(vault);
    fs::write(dir.path().join("profile.md"), "my own profile\n").unwrap();
    let (_, report) = Vault::init(dir.path(), &me()).unwrap();
    assert!(report.created.is_empty());
    assert_eq!(body(&disk(&dir, "profile.md")), "my own profile\n");
}

#[test]
fn init_adopts_an_existing_folder_of_notes() {
    let dir = TempDir::new().unwrap();
    fs::create_dir_all(dir.path().join("notes")).unwrap();
    fs::write(
        dir.path().join("notes/old.md"),
        "---\ntags: [x]\n---\nold note\n",
    )
    .unwrap();
    let (_, report) = Vault::init(dir.path(), &me()).unwrap();
    assert_eq!(report.adopted, 2);
    let text = disk(&dir, "notes/old.md");
    assert!(text.starts_with("---\ntags: [x]\n"), "{text}");
    assert_eq!(field(&text, "tokens").as_deref(), Some("3"));
    assert!(disk(&dir, "tree.md").contains("old.md · 3 tokens"));
}

#[test]
fn write_read_and_frontmatter() {
    let (dir, vault) = new_vault();
    let record = vault
        .write("projects/acme/state.md", "Launch in March.\n", &me())
        .unwrap()
        .unwrap();
    let letters: Vec<(char, &str)> = record
        .files
        .iter()
        .map(|f| (f.letter(), f.path.as_str()))
        .collect();
    assert_eq!(
        letters,
        [('A', "projects/acme"), ('A', "projects/acme/state.md")]
    );
    let text = vault.read("projects/acme/state.md").unwrap();
    assert_eq!(body(&text), "Launch in March.\n");
    assert_eq!(field(&text, "tokens").as_deref(), Some("5"));
    assert!(disk(&dir, "tree.md").contains("state.md · 5 tokens"));

    // The same content again changes nothing.
    assert!(
        vault
            .write("projects/acme/state.md", &text, &me())
            .unwrap()
            .is_none()
    );
    assert!(
        vault
            .write("projects/acme/state.md", "Launch in March.\n", &me())
            .unwrap()
            .is_none()
    );
}

#[test]
fn a_rewrite_without_frontmatter_keeps_the_users_keys() {
    let (_dir, vault) = new_vault();
    vault
        .write(
            "n.md",
            "---\ntitle: Plan\ntags: [a, b]\ncreated: 2020-01-01T00:00:00\n---\nv1\n",
            &me(),
        )
        .unwrap();
    vault.write("n.md", "v2, a longer body\n", &me()).unwrap();
    let text = vault.read("n.md").unwrap();
    assert!(
        text.starts_with("---\ntitle: Plan\ntags: [a, b]\ncreated: 2020-01-01T00:00:00\n"),
        "{text}"
    );
    assert_eq!(body(&text), "v2, a longer body\n");
}

#[test]
fn edit_replaces_text_that_occurs_once_in_the_body_and_refuses_otherwise() {
    let (_dir, vault) = new_vault();
    vault.write("a.txt", "one two one", &me()).unwrap();
    let ambiguous = vault.edit("a.txt", "one", "three", &me()).unwrap_err();
    assert!(
        ambiguous.to_string().contains("occurs 2 times"),
        "{ambiguous}"
    );
    assert_eq!(vault.read("a.txt").unwrap(), "one two one");
    vault.edit("a.txt", "two", "three", &me()).unwrap();
    assert_eq!(vault.read("a.txt").unwrap(), "one three one");
    // The issue's case: `a` is in the frontmatter's `created:` and not in
    // the body; the frontmatter is not edited.
    vault.write("n.md", "# Notes\n\nbuy milk\n", &me()).unwrap();
    let before = vault.read("n.md").unwrap();
    let refused = vault.edit("n.md", "a", "B", &me()).unwrap_err();
    assert!(
        refused.to_string().contains("only in the frontmatter"),
        "{refused}"
    );
    assert_eq!(vault.read("n.md").unwrap(), before);
    assert!(matches!(
        vault.edit("a.txt", "absent", "x", &me()),
        Err(Error::TextNotFound { .. })
    ));
    assert!(matches!(
        vault.edit("missing.md", "a", "b", &me()),
        Err(Error::NotFound { .. })
    ));
}

#[test]
fn append_top_and_bottom() {
    let (_dir, vault) = new_vault();
    vault
        .append("changelog.md", "- newest", Position::Top, &me())
        .unwrap();
    let text = vault.read("changelog.md").unwrap();
    assert!(
        body(&text).starts_with("# Changelog\n\n- newest\n- "),
        "{text}"
    );
    vault
        .append("bucket/new.md", "first line", Position::Bottom, &me())
        .unwrap();
    vault
        .append("bucket/new.md", "second line", Position::Bottom, &me())
        .unwrap();
    assert_eq!(
        body(&vault.read("bucket/new.md").unwrap()),
        "first line\nsecond line\n"
    );
}

#[test]
fn delete_and_move_files_and_folders() {
    let (dir, vault) = new_vault();
    vault.write("projects/a/x.md", "x", &me()).unwrap();
    vault.write("projects/a/sub/y.md", "y", &me()).unwrap();
    vault.rename("projects/a", "projects/b", &me()).unwrap();
    assert!(!dir.path().join("projects/a").exists());
    assert_eq!(body(&vault.read("projects/b/sub/y.md").unwrap()), "y");
    vault.rename("projects/b/x.md", "bucket", &me()).unwrap();
    assert!(dir.path().join("bucket/x.md").is_file());
    assert!(matches!(
        vault.rename("bucket/x.md", "tasks.md", &me()),
        Err(Error::AlreadyExists { .. })
    ));
    assert!(matches!(
        vault.rename("projects", "projects/b/inner", &me()),
        Err(Error::Refused(_))
    ));
    vault.delete("projects/b", &me()).unwrap();
    assert!(!dir.path().join("projects/b").exists());
    let tree = disk(&dir, "tree.md");
    assert!(!tree.contains("y.md") && tree.contains("x.md"), "{tree}");
    assert!(matches!(
        vault.delete("projects/b", &me()),
        Err(Error::NotFound { .. })
    ));
}

#[test]
fn paths_stay_inside_the_vault() {
    let (dir, vault) = new_vault();
    for bad in [
        "../escape.md",
        "/etc/passwd",
        ".knower/manifest.jsonl",
        ".git/config",
        "a/../../b",
    ] {
        assert!(
            matches!(vault.write(bad, "x", &me()), Err(Error::InvalidPath { .. })),
            "{bad}"
        );
        assert!(
            matches!(vault.read(bad), Err(Error::InvalidPath { .. })),
            "{bad}"
        );
    }
    assert!(matches!(
        vault.write("tree.md", "x", &me()),
        Err(Error::Generated { .. })
    ));
    assert!(matches!(vault.delete("", &me()), Err(Error::Refused(_))));
    assert!(!dir.path().parent().unwrap().join("escape.md").exists());
}

#[test]
fn symbolic_links_cannot_lead_out() {
    let (dir, vault) = new_vault();
    let outside = TempDir::new().unwrap();
    fs::write(outside.path().join("secret.md"), "secret").unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("tasks.md"), dir.path().join("alias.md")).unwrap();

    assert!(matches!(
        vault.read("out/secret.md"),
        Err(Error::OutsideVault { .. })
    ));
    assert!(matches!(
        vault.write("out/new.md", "x", &me()),
        Err(Error::Symlink { .. })
    ));
    assert!(matches!(
        vault.delete("out", &me()),
        Err(Error::Symlink { .. })
    ));
    assert!(!outside.path().join("new.md").exists());
    assert_eq!(
        fs::read_to_string(outside.path().join("secret.md")).unwrap(),
        "secret"
    );
    // A link that stays inside may be read, never written through.
    assert!(vault.read("alias.md").unwrap().contains("# Tasks"));
    assert!(matches!(
        vault.write("alias.md", "x", &me()),
        Err(Error::Symlink { .. })
    ));
    // Nor may a link reach Knower's own folder.
    std::os::unix::fs::symlink(dir.path().join(".knower"), dir.path().join("peek")).unwrap();
    assert!(matches!(
        vault.read("peek/manifest.jsonl"),
        Err(Error::OutsideVault { .. })
    ));
    // Links are not vault content.
    vault.rescan().unwrap();
    assert!(!disk(&dir, "tree.md").contains("out/"));
}

#[test]
fn malformed_frontmatter_is_refused_on_write_and_left_alone_on_disk() {
    let (dir, vault) = new_vault();
    let bad = "---\ntitle: [unclosed\n---\nbody\n";
    let err = vault.write("bad.md", bad, &me()).unwrap_err();
    assert!(matches!(err, Error::MalformedFrontmatter { .. }), "{err}");
    assert!(!dir.path().join("bad.md").exists());

    fs::write(dir.path().join("bad.md"), bad).unwrap();
    let report = vault.rescan().unwrap();
    assert_eq!(report.problems.len(), 1, "{report:?}");
    assert_eq!(disk(&dir, "bad.md"), bad);
    let stats = vault.stats().unwrap();
    assert!(
        stats.problems[0].1.contains("malformed frontmatter"),
        "{stats:?}"
    );
    assert!(
        disk(&dir, "tree.md").contains("bad.md · 2 tokens · "),
        "{}",
        disk(&dir, "tree.md")
    );
    assert!(disk(&dir, "tree.md").contains("⚠ malformed frontmatter: line 2"));
    // Appending would keep it malformed: refused, file unchanged.
    assert!(
        vault
            .append("bad.md", "more", Position::Bottom, &me())
            .is_err()
    );
    assert_eq!(disk(&dir, "bad.md"), bad);
}

#[test]
fn invalid_utf8_is_reported_not_crashed_on() {
    let (dir, vault) = new_vault();
    let bytes = b"---\ncreated: x\n---\nok \xff\xfe bad\n";
    fs::write(dir.path().join("binary.md"), bytes).unwrap();
    let report = vault.rescan().unwrap();
    assert!(report.problems[0].1.contains("UTF-8"), "{report:?}");
    assert_eq!(fs::read(dir.path().join("binary.md")).unwrap(), bytes);
    assert!(matches!(
        vault.read("binary.md"),
        Err(Error::NotUtf8 { offset: 22, .. })
    ));
    assert!(matches!(
        vault.edit("binary.md", "ok", "no", &me()),
        Err(Error::NotUtf8 { .. })
    ));
    assert_eq!(fs::read(dir.path().join("binary.md")).unwrap(), bytes);
    // Other binary files are simply files.
    fs::write(
        dir.path().join("bucket/photo.png"),
        [0x89, b'P', b'N', b'G', 0xff],
    )
    .unwrap();
    let report = vault.rescan().unwrap();
    assert!(report.problems.is_empty());
    assert!(disk(&dir, "tree.md").contains("photo.png · 5 B"));
}

#[test]
fn an_external_edit_is_stamped_journaled_and_undoable() {
    let (dir, vault) = new_vault();
    vault.write("notes.md", "original\n", &me()).unwrap();
    let file = dir.path().join("notes.md");
    let edited =
        disk(&dir, "notes.md").replace("original", "edited in another editor, much longer");
    fs::write(&file, &edited).unwrap();

    let report = vault.rescan().unwrap();
    let change = report.change.expect("the edit is journaled");
    assert_eq!(change.actor, "external");
    let text = disk(&dir, "notes.md");
    assert_eq!(body(&text), "edited in another editor, much longer\n");
    assert_eq!(field(&text, "tokens").as_deref(), Some("10"));
    assert!(disk(&dir, "tree.md").contains("notes.md · 10 tokens"));

    // A second rescan finds nothing: the stamp did not retrigger the job.
    assert!(vault.rescan().unwrap().change.is_none());

    vault.undo(change.id, &me(), false).unwrap();
    assert_eq!(body(&disk(&dir, "notes.md")), "original\n");
}

#[test]
fn files_removed_and_added_outside_are_recorded() {
    let (dir, vault) = new_vault();
    vault.write("bucket/a.md", "a", &me()).unwrap();
    fs::remove_file(dir.path().join("bucket/a.md")).unwrap();
    fs::create_dir_all(dir.path().join("projects/new")).unwrap();
    fs::write(dir.path().join("projects/new/b.md"), "b").unwrap();
    let pending = vault.pending().unwrap();
    let whats: Vec<(&str, &str)> = pending.iter().map(|p| (p.path.as_str(), p.what)).collect();
    assert_eq!(
        whats,
        [
            ("bucket/a.md", "removed"),
            ("projects/new", "added"),
            ("projects/new/b.md", "added")
        ]
    );
    let change = vault.rescan().unwrap().change.unwrap();
    assert_eq!(change.files.len(), 3);
    assert!(vault.pending().unwrap().is_empty());
    // The removal can be undone: its content was kept.
    vault.undo(change.id, &me(), false).unwrap();
    assert_eq!(body(&disk(&dir, "bucket/a.md")), "a");
    assert!(!dir.path().join("projects/new").exists());
}

#[test]
fn undo_restores_and_is_itself_journaled() {
    let (dir, vault) = new_vault();
    let first = vault.write("p/x.md", "one", &me()).unwrap().unwrap();
    let second = vault.write("p/x.md", "two", &me()).unwrap().unwrap();

    // Undoing the first would discard the second: refused.
    let err = vault.undo(first.id, &me(), false).unwrap_err();
    assert!(
        err.to_string()
            .contains(&format!("changed again by change {}", second.id)),
        "{err}"
    );

    let undo = vault.undo(second.id, &me(), false).unwrap().unwrap();
    assert_eq!(undo.undoes, vec![second.id]);
    assert_eq!(body(&disk(&dir, "p/x.md")), "one");
    assert!(matches!(
        vault.undo(second.id, &me(), false),
        Err(Error::UndoConflict { .. })
    ));

    // Undo the undo (a redo), then undo the creation entirely.
    vault.undo(undo.id, &me(), false).unwrap();
    assert_eq!(body(&disk(&dir, "p/x.md")), "two");
    let all = vault.undo(first.id, &me(), true).unwrap().unwrap();
    assert!(!dir.path().join("p").exists());
    assert!(all.files.iter().all(|f| f.after == Version::Absent));
    assert!(matches!(
        vault.undo(999, &me(), false),
        Err(Error::UnknownChange { id: 999 })
    ));
}

#[test]
fn undo_of_a_folder_deletion_brings_everything_back() {
    let (dir, vault) = new_vault();
    vault
        .write("projects/acme/description.md", "what", &me())
        .unwrap();
    vault.write("projects/acme/notes/a.md", "a", &me()).unwrap();
    fs::create_dir_all(dir.path().join("projects/acme/empty")).unwrap();
    vault.rescan().unwrap();
    let removal = vault.delete("projects/acme", &me()).unwrap().unwrap();
    assert!(!dir.path().join("projects/acme").exists());
    vault.undo(removal.id, &me(), false).unwrap();
    assert_eq!(body(&disk(&dir, "projects/acme/notes/a.md")), "a");
    assert!(dir.path().join("projects/acme/empty").is_dir());
}

#[test]
fn folders_made_outside_knower_appear_in_tree_md() {
    let (dir, vault) = new_vault();
    // The watcher may report only the file of `mkdir -p a/b && echo > a/b/x.md`.
    fs::create_dir_all(dir.path().join("projects/new/deep")).unwrap();
    fs::write(dir.path().join("projects/new/deep/x.md"), "x").unwrap();
    let path = knower_vault::VaultPath::parse("projects/new/deep/x.md").unwrap();
    let change = vault.sync_paths(&[path]).unwrap().change.unwrap();
    let added: Vec<&str> = change.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        added,
        [
            "projects/new",
            "projects/new/deep",
            "projects/new/deep/x.md"
        ]
    );
    assert!(disk(&dir, "tree.md").contains("\n  - new/ · 1 file · 1 tokens\n    - deep/ · 1 file"));

    // A write into a folder made by hand and not processed yet.
    fs::create_dir_all(dir.path().join("bucket/by-hand")).unwrap();
    let change = vault
        .write("bucket/by-hand/y.md", "y", &me())
        .unwrap()
        .unwrap();
    assert_eq!(change.files.len(), 1, "the change did not make the folder");
    assert!(disk(&dir, "tree.md").contains("\n  - by-hand/ · 1 file"));
}

#[test]
fn adoption_by_init_is_journaled_as_such() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("old.md"), "old").unwrap();
    let (vault, _) = Vault::init(dir.path(), &me()).unwrap();
    let log = vault.log().unwrap();
    assert_eq!(
        log[0].reason,
        "already in the folder when the vault was created"
    );
    assert_eq!(log[0].actor, "external");
    assert_eq!(log[1].reason, "testing");
}

#[test]
fn a_torn_last_record_is_cut_off_and_history_continues() {
    let (dir, vault) = new_vault();
    let first = vault.write("a.md", "a", &me()).unwrap().unwrap();
    drop(vault);
    // A process killed in the middle of appending its records.
    for log in ["journal/changes.jsonl", "manifest.jsonl"] {
        let mut file = fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join(".knower").join(log))
            .unwrap();
        std::io::Write::write_all(&mut file, b"{\"id\": 99, \"at\": \"half").unwrap();
    }
    let vault = Vault::open(dir.path()).unwrap();
    let next = vault.write("b.md", "b", &me()).unwrap().unwrap();
    assert_eq!(next.id, first.id + 1);
    let ids: Vec<u64> = vault.log().unwrap().iter().map(|r| r.id).collect();
    assert_eq!(ids, [1, 2, 3]);
    for log in ["journal/changes.jsonl", "manifest.jsonl"] {
        let text = fs::read_to_string(dir.path().join(".knower").join(log)).unwrap();
        assert!(
            !text.contains("half") && text.ends_with('\n'),
            "{log}: {text}"
        );
    }
    assert!(vault.pending().unwrap().is_empty());
}

#[test]
fn a_lost_or_corrupt_manifest_is_rebuilt_from_the_files() {
    let (dir, vault) = new_vault();
    vault.write("projects/x/a.md", "a", &me()).unwrap();
    let tree_before = disk(&dir, "tree.md");
    drop(vault);
    let manifest = dir.path().join(".knower/manifest.jsonl");
    for damage in [Some(&b"not json at all\n\x00\xff"[..]), None] {
        match damage {
            Some(bytes) => fs::write(&manifest, bytes).unwrap(),
            None => fs::remove_file(&manifest).unwrap(),
        }
        let vault = Vault::open(dir.path()).unwrap();
        vault.rescan().unwrap();
        assert!(vault.pending().unwrap().is_empty());
        assert_eq!(vault.stats().unwrap().files, 5);
        // The files themselves were not rewritten, and tree.md lists the same.
        assert_eq!(body(&disk(&dir, "tree.md")), body(&tree_before));
        assert_eq!(body(&disk(&dir, "projects/x/a.md")), "a");
    }
}

#[test]
fn a_folder_holding_what_knower_cannot_restore_is_not_deleted() {
    let (dir, vault) = new_vault();
    vault
        .write("projects/code/notes.md", "notes", &me())
        .unwrap();
    fs::create_dir_all(dir.path().join("projects/code/.git/objects")).unwrap();
    fs::write(
        dir.path().join("projects/code/.git/HEAD"),
        "ref: refs/heads/main\n",
    )
    .unwrap();
    let err = vault.delete("projects/code", &me()).unwrap_err();
    assert!(err.to_string().contains("projects/code/.git"), "{err}");
    assert!(dir.path().join("projects/code/.git/HEAD").exists());
    assert!(dir.path().join("projects/code/notes.md").exists());

    // Moving it loses nothing, so it is allowed; the hidden folder goes along.
    vault
        .rename("projects/code", "projects/app", &me())
        .unwrap();
    assert!(dir.path().join("projects/app/.git/HEAD").exists());

    fs::remove_dir_all(dir.path().join("projects/app/.git")).unwrap();
    std::os::unix::fs::symlink("/etc", dir.path().join("projects/app/etc")).unwrap();
    let err = vault.delete("projects/app", &me()).unwrap_err();
    assert!(err.to_string().contains("projects/app/etc"), "{err}");
    fs::remove_file(dir.path().join("projects/app/etc")).unwrap();
    let change = vault.delete("projects/app", &me()).unwrap().unwrap();
    assert_eq!(change.files.len(), 2);
}

#[test]
fn stale_temporary_files_are_cleaned_up() {
    let (dir, vault) = new_vault();
    let temp = dir.path().join("projects/.knower-tmp-abc123");
    fs::write(&temp, "half a write").unwrap();
    vault.rescan().unwrap();
    assert!(!temp.exists());
}

#[test]
fn two_vaults_on_one_folder_see_each_others_changes() {
    let (dir, first) = new_vault();
    let second = Vault::open(dir.path()).unwrap();
    let heard: Arc<Mutex<Vec<Changed>>> = Arc::default();
    let sink = Arc::clone(&heard);
    second.subscribe(move |events| sink.lock().unwrap().extend_from_slice(events));

    let record = first
        .write("bucket/from-first.md", "hello", &me())
        .unwrap()
        .unwrap();
    let next = second
        .write("bucket/from-second.md", "hi", &me())
        .unwrap()
        .unwrap();
    assert_eq!(next.id, record.id + 1, "ids continue across processes");
    let heard = heard.lock().unwrap();
    assert!(
        heard
            .iter()
            .any(|c| c.path.as_str() == "bucket/from-first.md" && !c.removed),
        "{heard:?}"
    );
    let tree = disk(&dir, "tree.md");
    assert!(
        tree.contains("from-first.md") && tree.contains("from-second.md"),
        "{tree}"
    );
}

#[test]
fn concurrent_appends_from_two_vaults_lose_nothing() {
    let (dir, first) = new_vault();
    let second = Vault::open(dir.path()).unwrap();
    std::thread::scope(|s| {
        for (name, vault) in [("a", &first), ("b", &second)] {
            s.spawn(move || {
                for i in 0..50 {
                    vault
                        .append("log.md", &format!("{name}{i}"), Position::Bottom, &me())
                        .unwrap();
                }
            });
        }
    });
    let text = disk(&dir, "log.md");
    for name in ["a", "b"] {
        for i in 0..50 {
            assert!(
                text.lines().any(|l| l == format!("{name}{i}")),
                "{name}{i} lost"
            );
        }
    }
    assert_eq!(body(&text).lines().count(), 100);
    let ids: Vec<u64> = first.log().unwrap().iter().map(|r| r.id).collect();
    assert!(
        ids.windows(2).all(|w| w[1] == w[0] + 1),
        "ids are unique and ordered"
    );
}

#[test]
fn listeners_hear_every_committed_path() {
    let (_dir, vault) = new_vault();
    let heard: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = Arc::clone(&heard);
    vault.subscribe(move |events| {
        sink.lock()
            .unwrap()
            .extend(events.iter().map(|c| c.path.to_string()))
    });
    vault.write("bucket/n.md", "n", &me()).unwrap();
    vault.delete("bucket/n.md", &me()).unwrap();
    let heard = heard.lock().unwrap();
    assert_eq!(*heard, ["bucket/n.md", "tree.md", "bucket/n.md", "tree.md"]);
}

#[test]
fn a_listener_may_call_back_into_the_vault() {
    let (_dir, vault) = new_vault();
    let vault = Arc::new(vault);
    let seen: Arc<Mutex<Vec<u64>>> = Arc::default();
    let (inner, sink) = (Arc::downgrade(&vault), Arc::clone(&seen));
    vault.subscribe(move |events| {
        let vault = inner.upgrade().unwrap();
        if events.iter().any(|c| c.path.as_str() == "bucket/n.md") {
            sink.lock()
                .unwrap()
                .push(vault.tree("bucket", None).unwrap().files);
        }
    });
    vault.write("bucket/n.md", "n", &me()).unwrap();
    assert_eq!(*seen.lock().unwrap(), [1]);
}

/// A watcher on `vault`, and what it reports after each batch.
fn watched(
    vault: &Arc<Vault>,
) -> (
    knower_vault::Watcher,
    std::sync::mpsc::Receiver<knower_vault::WatchEvent>,
) {
    let (sender, events) = std::sync::mpsc::channel();
    let watcher = vault
        .watch(move |event| {
            let _ = sender.send(event);
        })
        .unwrap();
    (watcher, events)
}

#[test]
fn the_watcher_stamps_external_edits_without_retriggering() {
    let (dir, vault) = new_vault();
    let vault = Arc::new(vault);
    let (watcher, events) = watched(&vault);
    fs::write(dir.path().join("bucket/dropped.md"), "written by hand\n").unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !disk(&dir, "bucket/dropped.md").starts_with("---\n") {
        assert!(
            std::time::Instant::now() < deadline,
            "the watcher did not stamp the file"
        );
        let _ = events.recv_timeout(std::time::Duration::from_millis(100));
    }
    let text = disk(&dir, "bucket/dropped.md");
    assert_eq!(field(&text, "tokens").as_deref(), Some("4"));
    assert!(disk(&dir, "tree.md").contains("dropped.md · 4 tokens"));
    // Let the echo of the stamp arrive: it must not produce another change.
    std::thread::sleep(std::time::Duration::from_millis(500));
    drop(watcher);
    let external: Vec<_> = vault
        .log()
        .unwrap()
        .into_iter()
        .filter(|r| r.actor == "external")
        .collect();
    assert_eq!(external.len(), 1, "{external:?}");
}

#[test]
fn the_watcher_is_quiet_while_the_vault_is_only_read() {
    let (dir, vault) = new_vault();
    for i in 0..20 {
        vault
            .write(&format!("projects/p/n{i}.md"), "a note", &me())
            .unwrap();
    }
    let vault = Arc::new(vault);
    let (watcher, events) = watched(&vault);
    std::thread::sleep(std::time::Duration::from_millis(200));
    // What Knower itself does all the time: read notes, list folders, check
    // tree.md. None of it changes anything, so the watcher must not react
    // (reacting would read again, and so on forever).
    for i in 0..20 {
        vault.read(&format!("projects/p/n{i}.md")).unwrap();
    }
    vault.tree("", None).unwrap();
    for entry in fs::read_dir(dir.path().join("projects/p")).unwrap() {
        fs::read(entry.unwrap().path()).unwrap();
    }
    fs::read(dir.path().join("tree.md")).unwrap();
    let heard: Vec<_> = events
        .recv_timeout(std::time::Duration::from_millis(600))
        .into_iter()
        .collect();
    drop(watcher);
    assert!(heard.is_empty(), "the watcher reacted to reads: {heard:?}");
}

#[test]
fn binary_files_are_stored_as_given_journaled_and_undoable() {
    let (dir, vault) = new_vault();
    let png = b"\x89PNG\r\n\x1a\n\x00\xff".to_vec();
    let record = vault
        .write_bytes("bucket/shot.png", &png, &me())
        .unwrap()
        .unwrap();
    assert_eq!(fs::read(dir.path().join("bucket/shot.png")).unwrap(), png);
    assert_eq!(vault.read_bytes("bucket/shot.png").unwrap(), png);
    assert!(
        vault
            .write_bytes("bucket/shot.png", &png, &me())
            .unwrap()
            .is_none(),
        "same bytes: no change"
    );
    // Markdown goes through the text path (frontmatter), and must be text.
    assert!(vault.write_bytes("notes/a.md", b"\xff\xfe", &me()).is_err());
    vault.write_bytes("notes/b.md", b"# B\n", &me()).unwrap();
    assert!(disk(&dir, "notes/b.md").starts_with("---\n"));
    assert!(vault.write_bytes("../out.png", &png, &me()).is_err());
    vault.undo(record.id, &me(), false).unwrap();
    assert!(!dir.path().join("bucket/shot.png").exists());
}

#[test]
fn a_log_is_appended_in_place_never_rewritten_and_not_taken_for_an_outside_edit() {
    let dir = tempfile::tempdir().unwrap();
    let (vault, _) = Vault::init(dir.path(), &Author::new("test", "init")).unwrap();
    let before = vault.log().unwrap().len();
    vault.append_record("chat/log.jsonl", r#"{"n":1}"#).unwrap();
    let inode = |p: &std::path::Path| {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(p).unwrap().ino()
    };
    let file = dir.path().join("chat/log.jsonl");
    let first = inode(&file);
    vault.append_record("chat/log.jsonl", r#"{"n":2}"#).unwrap();
    assert_eq!(inode(&file), first, "appended in place, not replaced");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "{\"n\":1}\n{\"n\":2}\n"
    );
    assert_eq!(vault.log().unwrap().len(), before, "no journal record");
    assert!(
        vault.pending().unwrap().is_empty(),
        "the manifest knows the new content"
    );
    let reopened = Vault::open(dir.path()).unwrap();
    let report = reopened.rescan().unwrap();
    assert!(report.change.is_none(), "a rescan finds nothing to journal");
    assert!(
        vault
            .tree("chat", None)
            .unwrap()
            .children
            .iter()
            .any(|c| c.path.as_str() == "chat/log.jsonl")
    );
    for (path, line) in [
        ("chat/notes.md", "x"),
        ("chat/log.jsonl", "two\nlines"),
        ("../outside.jsonl", "x"),
        ("tree.md", "x"),
    ] {
        assert!(vault.append_record(path, line).is_err(), "{path}");
    }
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "{\"n\":1}\n{\"n\":2}\n"
    );
}

#[test]
fn undo_takes_back_only_the_changes_own_lines_like_git_revert() {
    let (dir, vault) = new_vault();
    vault.write("log.md", "# Log\n", &me()).unwrap();
    let first = vault
        .append("log.md", "- 21: first", Position::Top, &me())
        .unwrap()
        .unwrap();
    vault
        .append("log.md", "- 22: second", Position::Top, &me())
        .unwrap();
    vault
        .append("log.md", "- 23: third", Position::Bottom, &me())
        .unwrap();
    // An older change is undone although the file changed since: its own
    // line goes, the newer ones stay.
    let undo = vault.undo(first.id, &me(), false).unwrap().unwrap();
    assert_eq!(undo.undoes, vec![first.id]);
    assert_eq!(
        body(&disk(&dir, "log.md")),
        "# Log\n- 22: second\n- 23: third\n"
    );
    // And the undo can itself be undone, putting the line back in place.
    vault.undo(undo.id, &me(), false).unwrap();
    assert_eq!(
        body(&disk(&dir, "log.md")),
        "# Log\n- 22: second\n- 21: first\n- 23: third\n"
    );

    // When the change's own line was edited since, it is a conflict, and
    // nothing is touched.
    let added = vault
        .append("log.md", "- 24: fourth", Position::Bottom, &me())
        .unwrap()
        .unwrap();
    vault
        .edit("log.md", "- 24: fourth", "- 24: fourth, corrected", &me())
        .unwrap();
    let before = disk(&dir, "log.md");
    let err = vault.undo(added.id, &me(), false).unwrap_err();
    assert!(err.to_string().contains("lines this change wrote"), "{err}");
    assert_eq!(disk(&dir, "log.md"), before);
}
