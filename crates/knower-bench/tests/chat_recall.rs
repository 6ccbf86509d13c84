//! The offline chat recalls its own conclusions (issue 71): on the set it
//! was tuned on and on the half it never was, the reply to at least 80% of
//! the recall questions leads with the right conclusion. The sets are
//! `crates/knower-chat/tests/recall/`; the measure is `knower-bench chat
//! --recall`, run here as a person would run it.

use std::process::Command;

#[test]
fn the_offline_chat_leads_with_the_right_conclusion() {
    let sets = concat!(env!("CARGO_MANIFEST_DIR"), "/../knower-chat/tests/recall");
    let output = Command::new(env!("CARGO_BIN_EXE_knower-bench"))
        .args(["chat", "--recall", &format!("{sets}/tune.txt")])
        .args(["--recall", &format!("{sets}/held_out.txt")])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{table}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for set in ["tune.txt", "held_out.txt"] {
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("| {set} |")))
            .unwrap_or_else(|| panic!("no row for {set}: {table}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (asked, right): (usize, usize) = (cells[2].parse().unwrap(), cells[3].parse().unwrap());
        assert!(asked >= 15, "{row}");
        assert!(right * 10 >= asked * 8, "{set}: {row}");
    }
}
