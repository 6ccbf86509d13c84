//! A folder swapped for a symbolic link while Knower writes into it: the
//! adversarial pass's reproduction, run against a bounded number of writes,
//! moves and removals. Nothing may land outside the vault, and nothing
//! outside may be moved or removed.

use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use knower_vault::{Author, Position, Vault};

fn me() -> Author {
    Author::new("test", "racing")
}

/// `mv V/race V/racereal; ln -s S V/race; rm V/race; mv -T V/racereal V/race`
/// in a loop until `stop`.
fn swap_loop(vault: &Path, outside: &Path, stop: &AtomicBool) {
    let (race, real) = (vault.join("race"), vault.join("racereal"));
    while !stop.load(Ordering::Relaxed) {
        if fs::rename(&race, &real).is_err() {
            continue;
        }
        let _ = std::os::unix::fs::symlink(outside, &race);
        let _ = fs::remove_file(&race);
        let _ = fs::rename(&real, &race);
    }
}

#[test]
fn a_folder_swapped_for_a_link_mid_write_never_lets_a_change_out() {
    let vault_dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("keep.md"), "not the vault's").unwrap();
    let (vault, _) = Vault::init(vault_dir.path(), &me()).unwrap();
    vault.write("race/x.md", "a\n", &me()).unwrap();
    vault.write("elsewhere/y.md", "y\n", &me()).unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, root, out) = (
            stop.clone(),
            vault_dir.path().to_path_buf(),
            outside.path().to_path_buf(),
        );
        std::thread::spawn(move || swap_loop(&root, &out, &stop))
    };

    let started = Instant::now();
    let (mut tried, mut done) = (0, 0);
    for i in 0..300 {
        let outcomes = [
            vault.write(&format!("race/w{i}.md"), &format!("R{i}\n"), &me()),
            vault.append("race/x.md", &format!("line {i}\n"), Position::Bottom, &me()),
            vault.rename("race/keep.md", &format!("moved{i}.md"), &me()),
            vault.rename(&format!("race/w{i}.md"), "elsewhere/in.md", &me()),
            vault.rename("elsewhere/in.md", &format!("race/back{i}.md"), &me()),
            vault.delete(&format!("race/back{i}.md"), &me()),
        ];
        tried += outcomes.len();
        done += outcomes.iter().filter(|o| o.is_ok()).count();
        if started.elapsed() > Duration::from_secs(20) {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    eprintln!("{tried} operations tried during the swaps, {done} done");

    let left: Vec<_> = fs::read_dir(outside.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(left, ["keep.md"], "{tried} operations tried, {done} done");
    assert_eq!(
        fs::read_to_string(outside.path().join("keep.md")).unwrap(),
        "not the vault's"
    );
    // Once the swapping stops (the loop may have left the folder under its
    // other name, or a link in its place), the vault works as before.
    let (race, real) = (
        vault_dir.path().join("race"),
        vault_dir.path().join("racereal"),
    );
    if fs::symlink_metadata(&race).is_ok_and(|m| m.file_type().is_symlink()) {
        fs::remove_file(&race).unwrap();
    }
    if !race.exists() && real.exists() {
        fs::rename(&real, &race).unwrap();
    }
    vault.write("race/after.md", "after\n", &me()).unwrap();
    vault.write("elsewhere/after.md", "after\n", &me()).unwrap();
    assert!(vault_dir.path().join("race/after.md").is_file());
}

/// What the watcher reports while a folder is a link and back: the
/// vault's own files are not journaled as gone and come again.
#[test]
fn a_folder_that_is_a_link_for_a_moment_is_not_journaled_as_gone_and_back() {
    use knower_vault::VaultPath;
    let vault_dir = tempfile::tempdir().unwrap();
    let aside = tempfile::tempdir().unwrap();
    let (vault, _) = Vault::init(vault_dir.path(), &me()).unwrap();
    for name in ["a", "b", "c"] {
        vault
            .write(&format!("race/{name}.md"), &format!("{name}\n"), &me())
            .unwrap();
    }
    let before = vault.log().unwrap().len();
    let (race, parked) = (vault_dir.path().join("race"), aside.path().join("race"));
    let swap = || {
        fs::rename(&race, &parked).unwrap();
        std::os::unix::fs::symlink(aside.path(), &race).unwrap();
    };
    let back = || {
        fs::remove_file(&race).unwrap();
        fs::rename(&parked, &race).unwrap();
    };
    for _ in 0..3 {
        swap();
        // The watcher reports the folder, a file in it, and the root.
        for reported in ["race", "race/a.md", ""] {
            let path = if reported.is_empty() {
                VaultPath::root()
            } else {
                VaultPath::parse(reported).unwrap()
            };
            let report = vault.sync_paths(&[path]).unwrap();
            assert!(report.change.is_none(), "{reported}: {:?}", report.change);
        }
        back();
        let report = vault
            .sync_paths(&[VaultPath::parse("race").unwrap()])
            .unwrap();
        assert!(report.change.is_none(), "{:?}", report.change);
    }
    assert_eq!(vault.log().unwrap().len(), before, "no phantom changes");
    assert!(vault.read("race/b.md").unwrap().ends_with("\nb\n"));
    // A link that stays is settled by the next whole rescan.
    swap();
    let settled = vault.rescan().unwrap().change.unwrap();
    assert_eq!(
        settled.files.len(),
        4,
        "the folder and its three notes: {settled:?}"
    );
}
