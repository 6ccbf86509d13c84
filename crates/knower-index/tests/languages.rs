//! Issue 73: notes in Japanese, Chinese, Korean, German, French, Spanish
//! and Russian are found by questions worded with other inflections. Each
//! set (`tests/languages/*.tsv`) is indexed on its own, with English notes
//! beside, and each question asked in fast mode (BM25 alone); the figure is
//! the share whose note is in the top three.
//!
//! The table: `cargo test -p knower-index --test languages -- --nocapture`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use knower_index::{Index, Mode, SearchOptions};
use knower_testkit::search_set::SearchSet;
use knower_vault::{Author, Vault};

/// For each question of the set in `file`, whether its note is in the top
/// three, printed by language.
fn top3(file: &str) -> Vec<bool> {
    let set = SearchSet::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let author = Author::new("test", "languages");
    let (vault, _) = Vault::init(dir.path(), &author).unwrap();
    for (path, text) in &set.notes {
        vault.write(path, text, &author).unwrap();
    }
    let index = Index::open(Arc::new(vault)).unwrap();
    index.catch_up(&mut |_, _| {}).unwrap();
    let options = SearchOptions {
        mode: Mode::Fast,
        limit: 3,
        ..SearchOptions::default()
    };
    let mut by_language: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut found = Vec::new();
    for (question, answer) in &set.questions {
        let hits = index.search_notes(question, &options).unwrap().hits;
        let paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
        let hit = paths.contains(&answer.as_str());
        if !hit {
            println!("{file}: {question} → {paths:?}, not {answer}");
        }
        let counts = by_language.entry(SearchSet::language(answer)).or_default();
        counts.0 += usize::from(hit);
        counts.1 += 1;
        found.push(hit);
    }
    for (language, (hits, all)) in by_language {
        println!("| {file} | {language} | {hits} / {all} |");
    }
    found
}

fn share(found: &[bool]) -> f64 {
    found.iter().filter(|hit| **hit).count() as f64 / found.len() as f64
}

#[test]
fn questions_in_seven_languages_find_their_notes() {
    let tune = top3("tests/languages/tune.tsv");
    let held_out = top3("tests/languages/held_out.tsv");
    println!(
        "top 3: tuning set {:.3}, held-out set {:.3}",
        share(&tune),
        share(&held_out)
    );
    // Issue 73's target is 0.9; both sets give 1.0 (BENCHMARKS.md).
    assert!(share(&tune) >= 0.9, "{}", share(&tune));
    assert!(share(&held_out) >= 0.9, "{}", share(&held_out));
}

#[test]
fn a_word_of_one_character_is_found_and_a_phrase_of_pairs_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let author = Author::new("test", "languages");
    let (vault, _) = Vault::init(dir.path(), &author).unwrap();
    vault
        .write(
            "notes/book.md",
            "# 독서\n\n어제 서점에서 책을 두 권 샀다.\n",
            &author,
        )
        .unwrap();
    vault
        .write("notes/cat.md", "# 猫\n\n隣の猫が庭に来た。\n", &author)
        .unwrap();
    let index = Index::open(Arc::new(vault)).unwrap();
    index.catch_up(&mut |_, _| {}).unwrap();
    let first = |q: &str| -> Option<String> {
        let options = SearchOptions {
            mode: Mode::Fast,
            ..SearchOptions::default()
        };
        let hits = index.search(q, &options).unwrap().hits;
        hits.first().map(|h| h.path.clone())
    };
    assert_eq!(first("책").as_deref(), Some("notes/book.md"));
    assert_eq!(first("猫").as_deref(), Some("notes/cat.md"));
    assert_eq!(first("\"서점에서\"").as_deref(), Some("notes/book.md"));
    assert_eq!(first("\"猫が庭\"").as_deref(), Some("notes/cat.md"));
    assert_eq!(first("\"庭が猫\""), None);
}
