//! The index on real vaults in temporary folders: ranking on a small
//! fixture, query syntax, scope, freshness through the write pipeline,
//! recovery from a corrupt index, and semantic search with the real model.

mod support;

use knower_testkit::cross_encoder;
use knower_testkit::model::model_dir;

use std::sync::Arc;

use knower_index::{Error, Index, Mode, SearchOptions};
use knower_vault::{Author, Vault};

fn author() -> Author {
    Author::new("test", "fixture")
}

const FIXTURE: &[(&str, &str)] = &[
    (
        "projects/alpha/state.md",
        "# Alpha\n\n## Status\n\nThe database migration to Postgres is halfway done.\n\n## Risks\n\nThe parse_config function fails on v1.2.3 since 2024-05-01.\n\n```rust\nfn parse_config() -> Config { todo!() }\n```\n",
    ),
    (
        "projects/beta/state.md",
        "# Beta\n\nMarketing launch planned for spring. Budget approved by finance.\n",
    ),
    (
        "bucket/cooking.md",
        "---\ntags: [recipes]\n---\n# Sourdough\n\nFeed the starter twice a day; bake at 250 degrees.\n",
    ),
    (
        "bucket/pets.md",
        "# Our animals\n\nThe kitten sleeps on the sofa all afternoon and chases the dog.\n",
    ),
    (
        "overview.md",
        "# Overview\n\nPostgres Postgres Postgres (loaded into context, never indexed).\n",
    ),
    (
        "inbox/1/review.md",
        "# Review\n\nPostgres question pending.\n",
    ),
];

/// A vault with the fixture, and its index caught up. `model` is written to
/// knower.toml (a folder; empty for none).
fn fixture(model: &str) -> (tempfile::TempDir, Arc<Vault>, Arc<Index>) {
    let dir = tempfile::tempdir().unwrap();
    let (vault, _) = Vault::init(&dir.path().join("v"), &author()).unwrap();
    let vault = Arc::new(vault);
    vault
        .write(
            "knower.toml",
            &format!("[search]\nmodel = {:?}\n", model),
            &author(),
        )
        .unwrap();
    for (path, text) in FIXTURE {
        vault.write(path, text, &author()).unwrap();
    }
    let index = Index::open(vault.clone()).unwrap();
    index.catch_up(&mut |_, _| {}).unwrap();
    (dir, vault, index)
}

fn no_model() -> String {
    "/nonexistent/model".to_string()
}

fn paths(index: &Index, query: &str) -> Vec<String> {
    search(index, query, Mode::Fast, None)
}

fn notes_found(index: &Index, query: &str) -> Vec<String> {
    let results = index
        .search_notes(query, &SearchOptions::default())
        .unwrap();
    results.hits.into_iter().map(|h| h.path).collect()
}

fn search(index: &Index, query: &str, mode: Mode, scope: Option<&str>) -> Vec<String> {
    let results = index
        .search(
            query,
            &SearchOptions {
                mode,
                scope: scope.map(str::to_string),
                limit: 10,
            },
        )
        .unwrap();
    let mut paths: Vec<String> = Vec::new();
    for hit in results.hits {
        if !paths.contains(&hit.path) {
            paths.push(hit.path);
        }
    }
    paths
}

#[test]
fn keywords_rank_and_point_at_lines() {
    let (_d, vault, index) = fixture(&no_model());
    let results = index
        .search("postgres migration", &SearchOptions::default())
        .unwrap();
    let top = &results.hits[0];
    assert_eq!(top.path, "projects/alpha/state.md");
    assert_eq!(top.heading, "Alpha › Status");
    // Line numbers are the file's, frontmatter included.
    let stored = vault.read("projects/alpha/state.md").unwrap();
    let lines: Vec<&str> = stored.lines().collect();
    assert_eq!(lines[top.line_start - 1], "## Status");
    assert!(lines[top.line_end - 1].contains("migration to Postgres"));
    assert!(top.snippet.contains("Postgres"));
    assert!(!top.marks.is_empty());
    // overview.md and inbox/ are never indexed (seed 003).
    assert_eq!(paths(&index, "postgres"), vec!["projects/alpha/state.md"]);
    // Stemming: "bakes" finds "bake", "feeding" finds "Feed".
    assert_eq!(paths(&index, "bakes feeding"), vec!["bucket/cooking.md"]);
    // Tags and titles are searchable.
    assert_eq!(paths(&index, "recipes"), vec!["bucket/cooking.md"]);
    assert_eq!(paths(&index, "sourdough"), vec!["bucket/cooking.md"]);
}

#[test]
fn identifiers_versions_dates_and_paths_are_findable() {
    let (_d, _v, index) = fixture(&no_model());
    for query in [
        "parse_config",
        "config",
        "v1.2.3",
        "2024-05-01",
        "alpha/state.md",
    ] {
        assert_eq!(
            paths(&index, query).first().map(String::as_str),
            Some("projects/alpha/state.md"),
            "{query}"
        );
    }
    // The whole identifier does not match a different one.
    assert!(paths(&index, "parse_settings").is_empty());
}

#[test]
fn a_british_spelling_finds_an_american_one_and_back() {
    let (_d, vault, index) = fixture(&no_model());
    vault
        .write(
            "bucket/paint.md",
            "# Paint

The colour for the hall is a warm grey; we organised the samples.
",
            &author(),
        )
        .unwrap();
    index.catch_up(&mut |_, _| {}).unwrap();
    for query in [
        "color",
        "gray hall",
        "organized samples",
        "colour",
        "organise",
    ] {
        assert_eq!(
            paths(&index, query).first().map(String::as_str),
            Some("bucket/paint.md"),
            "{query}"
        );
    }
}

/// A note whose title names one word of a request does not outrank one
/// whose text holds the request: the title's words count as the title and
/// as the first line's text, not a third time as a heading.
#[test]
fn a_title_word_is_not_counted_again_as_a_heading() {
    let (_d, vault, index) = fixture(&no_model());
    for (path, text) in [
        (
            "papers/0001.md",
            "# Wings\n\nA survey of aircraft design in the early jet age, from drawings to models.\n",
        ),
        (
            "papers/0002.md",
            "# Tests in a tunnel\n\nThe wings of the model showed flutter at high speed; the flutter began near the tips and grew until the tests were stopped.\n",
        ),
    ] {
        vault.write(path, text, &author()).unwrap();
    }
    index.catch_up(&mut |_, _| {}).unwrap();
    let found = paths(&index, "flutter of wings");
    assert_eq!(
        found.first().map(String::as_str),
        Some("papers/0002.md"),
        "{found:?}"
    );
}

#[test]
fn a_word_inside_a_mixed_case_name_ranks_below_the_word_itself() {
    let (_d, vault, index) = fixture(&no_model());
    for (path, text) in [
        (
            "projects/trip/state.md",
            "# Trip\n\nBooked the flights to Lisbon: TAP TP1353 on 12 May, seat 14C. The airline sent the booking by email, with the confirmation number.\n\nHotel near Alfama for four nights; breakfast included, late checkout asked for.\n",
        ),
        (
            "projects/app/state.md",
            "# App\n\nUploaded build 42 to TestFlight for the beta testers.\n",
        ),
        (
            "projects/app/notes.md",
            "# Email\n\nTestFlight confirmation arrived for build 42.\n",
        ),
        (
            "projects/app/code.md",
            "# Code\n\nThe parseConfig helper reads knower.toml.\n",
        ),
    ] {
        vault.write(path, text, &author()).unwrap();
    }
    index.catch_up(&mut |_, _| {}).unwrap();
    for query in ["flights", "flight", "flight confirmation"] {
        assert_eq!(
            paths(&index, query).first().map(String::as_str),
            Some("projects/trip/state.md"),
            "{query}"
        );
    }
    // The name itself, and its parts when asked for, still find it.
    for query in ["TestFlight", "testflight"] {
        let found = paths(&index, query);
        assert!(
            found
                .first()
                .is_some_and(|p| p.starts_with("projects/app/")),
            "{query}: {found:?}"
        );
    }
    // An identifier finds its own spelling and the same words joined otherwise.
    let found = paths(&index, "parseConfig");
    assert!(
        found.contains(&"projects/app/code.md".to_string())
            && found.contains(&"projects/alpha/state.md".to_string()),
        "{found:?}"
    );
    assert!(paths(&index, "helper config").contains(&"projects/app/code.md".to_string()));
}

#[test]
fn notes_can_be_asked_for_each_once_with_its_best_passage() {
    let (_d, vault, index) = fixture(&no_model());
    // One long note whose every section mentions the kiln, and three short ones.
    let long: String = (0..40)
        .map(|i| {
            format!("## Firing {i}\n\nThe kiln reached cone {i} and the kiln log says so.\n\n")
        })
        .collect();
    vault
        .write(
            "bucket/kiln-log.md",
            &format!("# Kiln log\n\n{long}"),
            &author(),
        )
        .unwrap();
    for name in ["glazes", "clay", "studio"] {
        vault
            .write(
                &format!("bucket/{name}.md"),
                &format!("# {name}\n\nNotes on {name}; the kiln is shared.\n"),
                &author(),
            )
            .unwrap();
    }
    index.catch_up(&mut |_, _| {}).unwrap();
    let options = SearchOptions {
        limit: 4,
        ..SearchOptions::default()
    };
    let passages = index.search("kiln", &options).unwrap();
    let mut distinct: Vec<&str> = passages.hits.iter().map(|h| h.path.as_str()).collect();
    distinct.dedup();
    assert!(
        distinct.len() < 4,
        "the long note fills the passages: {distinct:?}"
    );
    let notes = index.search_notes("kiln", &options).unwrap();
    let paths: Vec<&str> = notes.hits.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths.len(), 4, "{paths:?}");
    let mut unique = paths.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 4, "each note once: {paths:?}");
    // Fewer matching notes than asked for: all of them, no error.
    let all = index
        .search_notes(
            "kiln",
            &SearchOptions {
                limit: 50,
                ..SearchOptions::default()
            },
        )
        .unwrap();
    assert_eq!(all.hits.len(), 4);
}

/// Words of a paragraph that match nothing else in the vault.
fn filler(seed: usize, words: usize) -> String {
    (0..words)
        .map(|i| format!("w{}x{}", seed, i % 53))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn notes_are_ranked_on_all_their_words_not_their_best_passage() {
    let (_d, vault, index) = fixture(&no_model());
    // A long note holding the whole request, spread over two passages, and
    // a short one holding half of it.
    let long = format!(
        "# Flow notes\n\n{} turbulent boundary.\n\n{} layer separation.\n",
        filler(1, 90),
        filler(2, 90)
    );
    vault.write("bucket/flow.md", &long, &author()).unwrap();
    // Notes as long as it, so that its length is ordinary.
    for seed in 3..9 {
        let text = format!("# Other {seed}\n\n{}\n", filler(seed, 180));
        vault
            .write(&format!("bucket/other-{seed}.md"), &text, &author())
            .unwrap();
    }
    vault
        .write(
            "bucket/wind.md",
            "# Wind\n\nTurbulent boundary air.\n",
            &author(),
        )
        .unwrap();
    index.catch_up(&mut |_, _| {}).unwrap();
    let request = "turbulent boundary layer separation";
    let options = SearchOptions {
        limit: 2,
        ..SearchOptions::default()
    };
    let passages = index.search(request, &options).unwrap();
    assert_eq!(
        passages.hits[0].path, "bucket/wind.md",
        "no passage of flow.md holds the request"
    );
    let notes = index.search_notes(request, &options).unwrap();
    let paths: Vec<&str> = notes.hits.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, vec!["bucket/flow.md", "bucket/wind.md"]);
    // The note is shown by its best passage (its words are the rarer), with
    // the lines it holds.
    let shown = &notes.hits[0];
    assert!(shown.text.contains("layer separation"), "{}", shown.text);
    let stored = vault.read("bucket/flow.md").unwrap();
    let line = stored.lines().nth(shown.line_start - 1).unwrap();
    assert!(line.ends_with("layer separation."), "{shown:?}");
    // Constraints hold over the whole note: both words are in flow.md, in
    // different passages.
    let required = index
        .search_notes("+turbulent +separation", &options)
        .unwrap();
    let paths: Vec<&str> = required.hits.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, vec!["bucket/flow.md"]);
    let excluded = index
        .search_notes("turbulent -separation", &options)
        .unwrap();
    let paths: Vec<&str> = excluded.hits.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, vec!["bucket/wind.md"]);
    let scoped = index
        .search_notes(
            "turbulent",
            &SearchOptions {
                scope: Some("projects/".into()),
                ..options.clone()
            },
        )
        .unwrap();
    assert!(scoped.hits.is_empty());
}

/// Ranking whole notes, a title word counts half as much as one of the
/// text: a note whose title names the word but whose text is about other
/// things ranks below one whose text uses it (abstracts: BENCHMARKS.md, "A
/// title's weight for whole notes"). Passages keep the title at full
/// weight.
#[test]
fn a_whole_note_s_title_weighs_less_than_its_text() {
    let (_d, vault, index) = fixture(&no_model());
    vault
        .write(
            "bucket/a.md",
            &format!("---\ntitle: Glacier\n---\n\n{}\n", filler(1, 40)),
            &author(),
        )
        .unwrap();
    vault
        .write(
            "bucket/b.md",
            &format!("---\ntitle: Trip\n---\n\n{} glacier\n", filler(2, 39)),
            &author(),
        )
        .unwrap();
    for seed in 3..9 {
        let text = format!("---\ntitle: Other {seed}\n---\n\n{}\n", filler(seed, 40));
        vault
            .write(&format!("bucket/other-{seed}.md"), &text, &author())
            .unwrap();
    }
    index.catch_up(&mut |_, _| {}).unwrap();
    assert_eq!(
        notes_found(&index, "glacier"),
        ["bucket/b.md", "bucket/a.md"]
    );
    assert_eq!(paths(&index, "glacier"), ["bucket/a.md", "bucket/b.md"]);
}

#[test]
fn phrases_prefixes_required_and_excluded_words() {
    let (_d, _v, index) = fixture(&no_model());
    assert_eq!(
        paths(&index, "\"marketing launch\""),
        vec!["projects/beta/state.md"]
    );
    assert!(paths(&index, "\"launch marketing\"").is_empty());
    assert_eq!(paths(&index, "sourd*"), vec!["bucket/cooking.md"]);
    assert_eq!(paths(&index, "kitt*"), vec!["bucket/pets.md"]);
    let both = paths(&index, "budget kitten");
    assert_eq!(both.len(), 2);
    assert_eq!(
        paths(&index, "budget kitten -sofa"),
        vec!["projects/beta/state.md"]
    );
    assert_eq!(paths(&index, "budget +kitten"), vec!["bucket/pets.md"]);
    assert_eq!(
        paths(&index, "-\"marketing launch\" budget kitten"),
        vec!["bucket/pets.md"]
    );
    let empty = index.search("  -- ", &SearchOptions::default());
    assert!(matches!(empty, Err(Error::BadQuery(_))));
}

#[test]
fn scope_is_part_of_the_query() {
    let (_d, vault, index) = fixture(&no_model());
    vault
        .write(
            "projects/beta/notes.md",
            "# Notes\n\nPostgres is not used here; budget only.\n",
            &author(),
        )
        .unwrap();
    assert_eq!(
        search(&index, "postgres", Mode::Fast, Some("project:beta")),
        vec!["projects/beta/notes.md"]
    );
    assert_eq!(
        search(&index, "postgres project:alpha", Mode::Fast, None),
        vec!["projects/alpha/state.md"]
    );
    assert_eq!(
        search(&index, "budget", Mode::Fast, Some("projects/beta/state.md")),
        vec!["projects/beta/state.md"]
    );
    assert!(search(&index, "postgres", Mode::Fast, Some("bucket/")).is_empty());
    // A prefix is whole folder names: `proj` is not `projects`.
    assert!(search(&index, "postgres", Mode::Fast, Some("proj")).is_empty());
    for bad in ["../etc", "/etc", "project:a/b"] {
        let r = index.search(
            "postgres",
            &SearchOptions {
                scope: Some(bad.into()),
                ..SearchOptions::default()
            },
        );
        assert!(matches!(r, Err(Error::BadQuery(_))), "{bad}");
    }
}

#[test]
fn every_change_is_searchable_at_once() {
    let (_d, vault, index) = fixture(&no_model());
    // Write.
    vault
        .write("bucket/new.md", "# New\n\nzanzibar expedition\n", &author())
        .unwrap();
    assert_eq!(paths(&index, "zanzibar"), vec!["bucket/new.md"]);
    // Edit in place.
    vault
        .edit("bucket/new.md", "zanzibar", "madagascar", &author())
        .unwrap();
    assert!(paths(&index, "zanzibar").is_empty());
    assert_eq!(paths(&index, "madagascar"), vec!["bucket/new.md"]);
    // Move a folder.
    vault.rename("bucket", "archive", &author()).unwrap();
    assert_eq!(paths(&index, "madagascar"), vec!["archive/new.md"]);
    // Delete.
    vault.delete("archive/new.md", &author()).unwrap();
    assert!(paths(&index, "madagascar").is_empty());
    // Undo the delete.
    let last = vault.log().unwrap().last().unwrap().id;
    vault.undo(last, &author(), false).unwrap();
    assert_eq!(paths(&index, "madagascar"), vec!["archive/new.md"]);
    // An edit made in another editor, seen by the background job.
    std::fs::write(
        vault.root().join("archive/new.md"),
        "# New\n\nreykjavik instead\n",
    )
    .unwrap();
    vault.rescan().unwrap();
    assert_eq!(paths(&index, "reykjavik"), vec!["archive/new.md"]);
    assert!(paths(&index, "madagascar").is_empty());
    assert!(index.take_problems().is_empty());
}

#[test]
fn a_restart_catches_up_without_rebuilding() {
    let (_d, vault, index) = fixture(&no_model());
    let root = vault.root().to_path_buf();
    drop(index);
    drop(vault);
    // Changes while no index is listening.
    std::fs::write(root.join("bucket/pets.md"), "# Pets\n\nA parrot now.\n").unwrap();
    std::fs::remove_file(root.join("bucket/cooking.md")).unwrap();
    let vault = Arc::new(Vault::open(&root).unwrap());
    vault.rescan().unwrap();
    let index = Index::open(vault.clone()).unwrap();
    let report = index.catch_up(&mut |_, _| {}).unwrap();
    assert!(!report.rebuilt);
    assert_eq!((report.indexed, report.removed), (1, 1));
    assert_eq!(paths(&index, "parrot"), vec!["bucket/pets.md"]);
    assert!(paths(&index, "sourdough").is_empty());
    assert!(index.status().unwrap().files_pending.is_empty());
}

#[test]
fn a_corrupt_or_missing_index_is_rebuilt() {
    let (_d, vault, index) = fixture(&no_model());
    drop(index);
    let bm25 = vault.root().join(".knower/index/bm25");
    for entry in std::fs::read_dir(&bm25).unwrap().flatten() {
        if entry.file_name() == "meta.json" {
            std::fs::write(entry.path(), b"{ not json").unwrap();
        }
    }
    let index = Index::open(vault.clone()).unwrap();
    let report = index.catch_up(&mut |_, _| {}).unwrap();
    assert!(report.rebuilt);
    assert_eq!(paths(&index, "kitten"), vec!["bucket/pets.md"]);
    drop(index);

    // Segment files overwritten with garbage.
    for entry in std::fs::read_dir(&bm25).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".idx") || name.ends_with(".fast") || name.ends_with(".store") {
            std::fs::write(entry.path(), b"garbage").unwrap();
        }
    }
    let index = Index::open(vault.clone()).unwrap();
    assert!(index.catch_up(&mut |_, _| {}).unwrap().rebuilt);
    assert_eq!(paths(&index, "kitten"), vec!["bucket/pets.md"]);
    drop(index);

    // The notes index lost or damaged on its own: a missing one is filled
    // again (the passages are kept); a damaged one rebuilds both.
    let notes = vault.root().join(".knower/index/notes");
    std::fs::remove_dir_all(&notes).unwrap();
    let index = Index::open(vault.clone()).unwrap();
    let report = index.catch_up(&mut |_, _| {}).unwrap();
    assert!(report.indexed >= 4, "{report:?}");
    assert_eq!(notes_found(&index, "kitten"), vec!["bucket/pets.md"]);
    drop(index);
    for entry in std::fs::read_dir(&notes).unwrap().flatten() {
        if entry.file_name().to_string_lossy().ends_with(".idx") {
            std::fs::write(entry.path(), b"garbage").unwrap();
        }
    }
    let index = Index::open(vault.clone()).unwrap();
    assert!(index.catch_up(&mut |_, _| {}).unwrap().rebuilt);
    assert_eq!(notes_found(&index, "kitten"), vec!["bucket/pets.md"]);
    drop(index);

    std::fs::remove_dir_all(vault.root().join(".knower/index")).unwrap();
    let index = Index::open(vault.clone()).unwrap();
    assert!(index.catch_up(&mut |_, _| {}).unwrap().indexed >= 4);
    assert_eq!(paths(&index, "kitten"), vec!["bucket/pets.md"]);
}

#[test]
fn excluded_paths_are_configurable() {
    let (_d, vault, index) = fixture(&no_model());
    drop(index);
    vault
        .write(
            "knower.toml",
            "[search]\nexclude = [\"bucket/\"]\nmodel = \"/nonexistent\"\n",
            &author(),
        )
        .unwrap();
    let index = Index::open(vault.clone()).unwrap();
    index.catch_up(&mut |_, _| {}).unwrap();
    assert!(paths(&index, "kitten").is_empty());
    assert_eq!(
        paths(&index, "postgres").len(),
        3,
        "overview and inbox now indexed"
    );
}

#[test]
fn without_a_model_deep_search_uses_keywords_and_says_so_once() {
    let (_d, _v, index) = fixture(&no_model());
    let deep = SearchOptions {
        mode: Mode::Deep,
        ..SearchOptions::default()
    };
    let first = index.search("kitten", &deep).unwrap();
    assert_eq!(first.mode, Mode::Fast);
    assert!(first.notice.unwrap().contains("/nonexistent/model"));
    assert_eq!(first.hits[0].path, "bucket/pets.md");
    let second = index.search("kitten", &deep).unwrap();
    assert!(second.notice.is_none());
    // Vector-only search cannot fall back: it is an error.
    let vector = index.search(
        "kitten",
        &SearchOptions {
            mode: Mode::Vector,
            ..SearchOptions::default()
        },
    );
    assert!(matches!(vector, Err(Error::NoModel(_))));
}

#[test]
fn deep_search_finds_meaning_and_explains_itself() {
    let model = model_dir();
    let (_d, vault, index) = fixture(model.to_str().unwrap());
    let embedded = index.embed_pending(&mut |_, _| {}).unwrap();
    assert!(embedded >= 5);
    // Nothing is embedded twice.
    assert_eq!(index.embed_pending(&mut |_, _| {}).unwrap(), 0);

    // No keyword in common with the note: only meaning can find it.
    assert_eq!(
        search(&index, "young cat napping on the couch", Mode::Vector, None)[0],
        "bucket/pets.md"
    );
    let results = index
        .search(
            "young cat napping on the couch",
            &SearchOptions {
                mode: Mode::Deep,
                ..SearchOptions::default()
            },
        )
        .unwrap();
    assert_eq!(results.mode, Mode::Deep);
    assert_eq!(results.hits[0].path, "bucket/pets.md");
    let trace = results.hits[0].explain.as_ref().unwrap();
    assert_eq!(trace.vector_rank, Some(1));
    assert!(trace.cosine.unwrap() > 0.3);
    assert!(trace.fused > 0.0);
    // Notes in deep mode: the same meaning, each note once, and the same
    // constraints on the vector side.
    let deep = SearchOptions {
        mode: Mode::Deep,
        ..SearchOptions::default()
    };
    let notes = index
        .search_notes("young cat napping on the couch", &deep)
        .unwrap();
    assert_eq!(notes.hits[0].path, "bucket/pets.md");
    let trace = notes.hits[0].explain.as_ref().unwrap();
    assert_eq!(trace.vector_rank, Some(1));
    let mut paths: Vec<&str> = notes.hits.iter().map(|h| h.path.as_str()).collect();
    paths.sort();
    paths.dedup();
    assert_eq!(paths.len(), notes.hits.len(), "each note once");
    let scoped = index
        .search_notes(
            "young cat napping",
            &SearchOptions {
                scope: Some("projects/".into()),
                ..deep.clone()
            },
        )
        .unwrap();
    assert!(scoped.hits.iter().all(|h| h.path.starts_with("projects/")));
    let excluded = index
        .search_notes("young cat napping -kitten", &deep)
        .unwrap();
    assert!(excluded.hits.iter().all(|h| h.path != "bucket/pets.md"));

    // Deep respects scope and exclusions on the vector side too.
    assert!(
        !search(&index, "young cat napping", Mode::Deep, Some("projects/"))
            .contains(&"bucket/pets.md".to_string())
    );
    assert!(
        !search(&index, "young cat napping -kitten", Mode::Deep, None)
            .contains(&"bucket/pets.md".to_string())
    );

    // An edit re-embeds only the passage that changed.
    vault
        .append(
            "bucket/cooking.md",
            "\n## Storage\n\nKeep the loaf in a linen bag.\n",
            knower_vault::Position::Bottom,
            &author(),
        )
        .unwrap();
    assert_eq!(index.embed_pending(&mut |_, _| {}).unwrap(), 1);
    assert_eq!(
        search(&index, "how to store bread", Mode::Deep, None)[0],
        "bucket/cooking.md"
    );
    let status = index.status().unwrap();
    assert_eq!(status.vectors_pending, Some(0));
}

#[test]
fn the_background_embedder_follows_changes() {
    let model = model_dir();
    let (_d, vault, index) = fixture(model.to_str().unwrap());
    let _embedder = index.spawn_embedder();
    vault
        .write(
            "bucket/sea.md",
            "# Sea\n\nWhales migrate along the coast.\n",
            &author(),
        )
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while index.status().unwrap().vectors_pending != Some(0) {
        assert!(
            std::time::Instant::now() < deadline,
            "vectors never caught up"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(
        search(&index, "large marine mammals", Mode::Vector, None)[0],
        "bucket/sea.md"
    );
}

/// A reranker that prefers the passage mentioning "sofa", whatever fusion said.
struct SofaFirst;

impl knower_index::Rerank for SofaFirst {
    fn name(&self) -> &str {
        "sofa first"
    }
    fn rerank(
        &self,
        _query: &str,
        candidates: &mut Vec<knower_index::Candidate>,
    ) -> knower_index::Result<()> {
        candidates.sort_by_key(|c| !c.text.contains("sofa"));
        for (i, c) in candidates.iter_mut().enumerate() {
            c.score = 1.0 / (i + 1) as f32;
        }
        Ok(())
    }
}

#[test]
fn a_reranker_has_the_last_word_in_deep_mode() {
    let model = model_dir();
    let (_d, _v, index) = fixture(model.to_str().unwrap());
    index.embed_pending(&mut |_, _| {}).unwrap();
    let deep = SearchOptions {
        mode: Mode::Deep,
        ..SearchOptions::default()
    };
    let before = index.search("database migration postgres", &deep).unwrap();
    assert_eq!(before.hits[0].path, "projects/alpha/state.md");
    // Its note is about the query, by its words and meaning, and lifts it.
    let lifted = before.hits[0].explain.as_ref().unwrap();
    assert!(lifted.note.is_some_and(|n| n > 0.0), "{lifted:?}");
    index.set_rerank(Arc::new(SofaFirst));
    let after = index.search("database migration postgres", &deep).unwrap();
    assert_eq!(after.hits[0].path, "bucket/pets.md");
    assert_eq!(after.hits[0].score, 1.0);
    // Its trace still tells where fusion had put it.
    assert!(after.hits[0].explain.as_ref().unwrap().fused < before.hits[0].score);
}

/// Routing asks how close a note is to a few files: only their passages
/// are embedded, not the vault, and without a model it is an error, never
/// a download.
#[test]
fn similarity_embeds_only_the_files_it_is_asked_about() {
    let (_dir, _vault, index) = fixture(no_model().as_str());
    assert!(!index.model_at_hand());
    assert!(matches!(
        index.similarity("a kitten", &["bucket/pets.md"]),
        Err(Error::NoModel(_))
    ));

    let model = model_dir();
    let (_dir, _vault, index) = fixture(model.to_str().unwrap());
    assert!(index.model_at_hand());
    let all = index.status().unwrap().vectors_pending.unwrap();
    let got = index
        .similarity(
            "A young cat naps on the couch.",
            &["bucket/pets.md", "bucket/cooking.md", "no/such/file.md"],
        )
        .unwrap();
    let (pets, cooking) = (got[0].unwrap(), got[1].unwrap());
    assert!(pets > 0.35 && pets > cooking + 0.25, "{got:?}");
    assert_eq!(got[2], None, "a file that is not indexed has no similarity");
    // Two files of one passage each were embedded, nothing else.
    assert_eq!(index.status().unwrap().vectors_pending.unwrap(), all - 2);
    // Asked again, nothing more is embedded and the answer is the same.
    let again = index
        .similarity("A young cat naps on the couch.", &["bucket/pets.md"])
        .unwrap();
    assert!((again[0].unwrap() - pets).abs() < 1e-6);
    assert_eq!(index.status().unwrap().vectors_pending.unwrap(), all - 2);
}

/// Routing also weighs short texts that are no notes (a project's
/// sentences): a text is as close to itself as can be, no passage of the
/// vault is embedded for it, the answer does not change when asked again
/// (from the kept vector) or in another process, and without a model it
/// is an error.
#[test]
fn similarity_to_texts_compares_short_texts_outside_the_index() {
    let (_dir, _vault, index) = fixture(no_model().as_str());
    assert!(matches!(
        index.similarity_to_texts("a kitten", &["a cat"]),
        Err(Error::NoModel(_))
    ));

    let model = model_dir();
    let (_dir, vault, index) = fixture(model.to_str().unwrap());
    let all = index.status().unwrap().vectors_pending.unwrap();
    let texts = [
        "garden: a young cat naps on the couch",
        "kitchen: bread rises in a warm oven",
    ];
    let got: Vec<f32> = index
        .similarity_to_texts("garden: a young cat naps on the couch", &texts)
        .unwrap()
        .into_iter()
        .map(Option::unwrap)
        .collect();
    assert!(got[0] > 0.999, "{got:?}");
    assert!(got[1] < got[0] - 0.3, "{got:?}");
    assert_eq!(index.status().unwrap().vectors_pending.unwrap(), all);
    let again = index
        .similarity_to_texts("a kitten sleeps on the sofa", &texts[..1])
        .unwrap()[0]
        .unwrap();
    let first = index
        .similarity_to_texts("a kitten sleeps on the sofa", &texts)
        .unwrap()[0]
        .unwrap();
    assert!((again - first).abs() < 1e-6, "{again} {first}");
    // Another process reads the kept vector: the same answer.
    let reopened = Index::open(vault.clone()).unwrap();
    let other = reopened
        .similarity_to_texts("a kitten sleeps on the sofa", &texts[..1])
        .unwrap()[0]
        .unwrap();
    assert!((other - first).abs() < 1e-6, "{other} {first}");
}

/// `rerank_model` in knower.toml puts a cross-encoder after deep search's
/// fusion: each hit's score is the model's probability for its passage,
/// best first. One that cannot be loaded is said once, and deep search
/// keeps the fused order.
#[test]
fn a_configured_cross_encoder_reranks_deep_search() {
    use knower_index::rerank::CrossEncoder;
    let model = model_dir();
    let reranker = cross_encoder::cross_encoder_dir();
    let (_d, vault, index) = fixture(model.to_str().unwrap());
    index.embed_pending(&mut |_, _| {}).unwrap();
    let deep = SearchOptions {
        mode: Mode::Deep,
        ..SearchOptions::default()
    };
    let query = "kitten on the sofa";
    let fused = index.search(query, &deep).unwrap();
    assert!(fused.hits.len() >= 3);
    drop(index);

    let reopen = |rerank_model: &str| {
        vault
            .write(
                "knower.toml",
                &format!("[search]\nmodel = {model:?}\nrerank_model = {rerank_model:?}\n"),
                &author(),
            )
            .unwrap();
        let index = Index::open(vault.clone()).unwrap();
        index.catch_up(&mut |_, _| {}).unwrap();
        index
    };
    let index = reopen(reranker.to_str().unwrap());
    let reranked = index.search(query, &deep).unwrap();
    assert_eq!(reranked.notice, None);
    assert_eq!(reranked.hits.len(), fused.hits.len());
    let encoder =
        CrossEncoder::load(&knower_index::embed::locate(reranker.to_str().unwrap()).unwrap())
            .unwrap();
    for hit in &reranked.hits {
        let passage = (hit.title.as_str(), hit.heading.as_str(), hit.text.as_str());
        let want = support::probability(&encoder, query, passage);
        assert!(
            (hit.score - want).abs() < 1e-5,
            "{}: {} against {want}",
            hit.path,
            hit.score
        );
    }
    for pair in reranked.hits.windows(2) {
        assert!(pair[0].score >= pair[1].score);
    }
    // Its trace still tells what fusion said.
    assert!(
        reranked
            .hits
            .iter()
            .all(|h| h.explain.as_ref().is_some_and(|t| t.fused > 0.0))
    );
    drop(index);

    let index = reopen("/no/such/cross-encoder");
    let kept = index.search(query, &deep).unwrap();
    let notice = kept.notice.clone().expect("told");
    assert!(
        notice.starts_with("deep search is not reranked"),
        "{notice}"
    );
    let paths =
        |r: &knower_index::Results| r.hits.iter().map(|h| h.path.clone()).collect::<Vec<_>>();
    assert_eq!(paths(&kept), paths(&fused));
    assert_eq!(
        index.search(query, &deep).unwrap().notice,
        None,
        "said once"
    );
}
