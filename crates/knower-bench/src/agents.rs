//! Issue 4's targets for the offline engine: routing accuracy on a labelled
//! set (≥ 85% correct, ≤ 5% filed confidently in the wrong place) and the
//! latency of one offline update on a 1,000-note vault (p50 < 50 ms).
//!
//! The set is `fixtures/routing/`: a vault of six projects and
//! `notes.tsv`, each update labelled with the file a person would file it in,
//! or `inbox` when a person could not tell either.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use knower_agents::{Agents, Engine, Outcome, Payload, Settings, kind_of};
use knower_index::Index;
use knower_vault::{Author, Position, Vault};

use crate::{Rng, ms, option, quantile};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/routing");

pub fn run(args: &[String]) -> Result<(), String> {
    let notes: usize = option(args, "--notes", 1000)?;
    let updates: usize = option(args, "--updates", 60)?;
    // `--verbose` prints each miss with its reasoning; `--every`, each
    // decision (a right one as well), for studying what a rule would change.
    let every = args.iter().any(|a| a == "--every");
    let verbose = every || args.iter().any(|a| a == "--verbose");
    // `--sets notes,sequence4`: only the sets whose file names hold one of
    // these (a set still held out is then not shown by accident).
    let only: String = option(args, "--sets", String::new())?;
    let sets = [
        ("notes.tsv", "the set the rules were tuned on", Run::Alone),
        (
            "holdout.tsv",
            "held out: written after the first tuning, never tuned on",
            Run::Alone,
        ),
        (
            "sequence/sequence.tsv",
            "held out: written for issue 19 before its rule changes, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence2/sequence2.tsv",
            "held out: written for issue 19's second round before its rule changes, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence3/sequence3.tsv",
            "held out: written for issue 19's third round before its rule changes, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence4/sequence4.tsv",
            "held out: written for issue 19's fourth round before its rule changes, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence5/sequence5.tsv",
            "held out: written with sequence4, run only after the fourth round's changes, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence6/sequence6.tsv",
            "held out: written after sequence5 was read, run only after the changes it led to, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence7/sequence7.tsv",
            "held out: written after sequence6 was read, run only after the changes it led to, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence8/sequence8.tsv",
            "held out: written after sequence7 was read, run only after the changes it led to, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence9/sequence9.tsv",
            "held out: written after sequence8 was read, run only after the changes it led to, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence10/sequence10.tsv",
            "held out: written after sequence9 was read, run only after the changes it led to, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence11/sequence11.tsv",
            "held out: written after sequence10 was read, run only after the changes it led to, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence12/sequence12.tsv",
            "held out: written after sequence11 was read, run only after the changes it led to, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence13/sequence13.tsv",
            "held out: written after sequence12 was read, run only after the changes it led to, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence14/sequence14.tsv",
            "held out: written after sequence13 was read, run only after the changes it led to, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence15/sequence15.tsv",
            "held out: written after sequence14 was read, run only after the changes it led to, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence16/sequence16.tsv",
            "held out: written after sequence15 was read, run only after the changes it led to, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence17/sequence17.tsv",
            "held out: written after sequence16, before any later change, and run once on the rules as they were; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence18/sequence18.tsv",
            "held out: written after sequence17 was read, run only after the changes it led to, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence19/sequence19.tsv",
            "held out: written after sequence18 was read, run once on round sixteen's rules (the change it was written for was not kept), never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence20/sequence20.tsv",
            "held out: written after sequence19, before any later change, and run once on round sixteen's rules; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence21/sequence21.tsv",
            "held out: written after sequence20 was read, run only after the changes it led to, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence22/sequence22.tsv",
            "held out: written after sequence21 was read, run only after the changes it led to, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence23/sequence23.tsv",
            "held out: written after sequence22 was read, run only after the change it was written for, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence24/sequence24.tsv",
            "held out: written after sequence23 was read, run on the rules as they were, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence25/sequence25.tsv",
            "held out: written after sequence24 was read, run on the rules as they were (the change it was written for was not kept), never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence26/sequence26.tsv",
            "held out: written after sequence25 was read, run before and once after the change it was written for (the everyday errands), never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence27/sequence27.tsv",
            "held out: written after sequence26 was read, run on the errand rule (the two changes it was written for were not kept), never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence28/sequence28.tsv",
            "held out: written after sequence27 was read, run on the errand rule (the change it was written for was not kept), never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence29/sequence29.tsv",
            "held out: written after sequence28 was read, run before and after round twenty's kind rules, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence30/sequence30.tsv",
            "held out: written after sequence29 was read, before the rule it was written for (first-person facts that may be a project's), never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence31/sequence31.tsv",
            "held out: written after sequence30 was read, run before and after round twenty-two (a fainter meaning may file), never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence32/sequence32.tsv",
            "held out: written after sequence31 was read, before round twenty-three, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence33/sequence33.tsv",
            "held out: written after sequence32 was read, before round twenty-four, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence34/sequence34.tsv",
            "held out: written after round twenty-four, run once on its rules, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence35/sequence35.tsv",
            "held out: written after sequence34 was read and its rule committed, run once on those rules, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence36/sequence36.tsv",
            "held out: written after sequence35's first run, before the dictionary's definitions were measured, run once on them, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence37/sequence37.tsv",
            "held out: written after sequence36's first run was read, before the rules it led to, run once on them, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence38/sequence38.tsv",
            "held out: written after sequence37's first run was read, before the rules it led to, run once on them, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence39/sequence39.tsv",
            "held out: written after sequence38's first run was read, before all-mpnet-base-v2 was tried for routing, run once in each mode on the rules as they were, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence40/sequence40.tsv",
            "held out: written after sequence39's first run was read, before the rules of the round that follows, run once in each mode on the rules as they were, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence41/sequence41.tsv",
            "held out: written after sequence40's first run was read, before the rules it led to, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence42/sequence42.tsv",
            "held out: written after sequence41's first run was read, before the rules it led to, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence43/sequence43.tsv",
            "held out: written after sequence42's first run was read, with no rule changed after it, run once on round twenty-six's final rules in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence44/sequence44.tsv",
            "held out: written after sequence43's first run was read, before the rules it led to, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence45/sequence45.tsv",
            "held out: written after sequence44's first run was read, before the rules it led to, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence46/sequence46.tsv",
            "held out: work projects, written after sequence45 was read and before any rule of round twenty-seven, run once on the rules of its time in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence47/sequence47.tsv",
            "held out: a research student's work projects, written after sequence45 was read and before any rule of round twenty-seven, run once on the rules of its time in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence48/sequence48.tsv",
            "held out: a freelancer's work and a person's own projects, written after sequence45 was read and before any rule of round twenty-seven, run once on the rules of its time in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence49/sequence49.tsv",
            "held out: a small company's work and a person's own project, written after round twenty-seven's rules were committed and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence50/sequence50.tsv",
            "held out: a person's own projects and an open-source one, written after round twenty-seven's rules were committed and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence51/sequence51.tsv",
            "held out: work and a person's own projects, written after the kind rules of d987a7e and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence52/sequence52.tsv",
            "held out: work and a person's own projects, written after the kind rules of d987a7e and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence53/sequence53.tsv",
            "held out: work and a person's own projects, written after round twenty-seven's last rule (973ec83), run once on it in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence54/sequence54.tsv",
            "held out: work and a person's own projects, written after round twenty-seven's rules (8a1e79a) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence55/sequence55.tsv",
            "held out: work and a person's own projects, written after round twenty-seven's rules (8a1e79a) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence56/sequence56.tsv",
            "held out: work and a person's own projects, written after round twenty-seven's rules (8a1e79a) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence57/sequence57.tsv",
            "held out: work and a person's own projects, written after round twenty-seven's rules (8a1e79a) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence58/sequence58.tsv",
            "held out: work and a person's own projects, written after round twenty-eight's rules (46f0eca) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence59/sequence59.tsv",
            "held out: work and a person's own projects, written after round twenty-eight's rules (46f0eca) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence60/sequence60.tsv",
            "held out: work and a person's own projects, written after round twenty-eight's rules (46f0eca, af4f4cf) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence61/sequence61.tsv",
            "held out: work and a person's own projects, written after round twenty-eight's rules (46f0eca, af4f4cf) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence62/sequence62.tsv",
            "held out: work and a person's own projects, written after round twenty-eight's rules (46f0eca, af4f4cf) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence63/sequence63.tsv",
            "held out: work and a person's own projects, written after round twenty-eight's rules (46f0eca, af4f4cf) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence64/sequence64.tsv",
            "held out: work and a person's own projects, written after round twenty-nine's rules and before they were run on it, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence65/sequence65.tsv",
            "held out: work and a person's own projects, written after round twenty-nine's rules and before they were run on it, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence66/sequence66.tsv",
            "held out: work and a person's own projects, written after round thirty's rules (f271ffe) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence67/sequence67.tsv",
            "held out: work and a person's own projects, written after round thirty's rules (f271ffe) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence68/sequence68.tsv",
            "held out: work and a person's own projects, written after round thirty's rules (f271ffe) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence69/sequence69.tsv",
            "held out: work and a person's own projects, written after round thirty's rules (f271ffe) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence70/sequence70.tsv",
            "held out: work and a person's own projects, written after round thirty's rules (f271ffe) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence71/sequence71.tsv",
            "held out: work and a person's own projects, written after round thirty's rules (f271ffe) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence72/sequence72.tsv",
            "held out: work and a person's own projects, written after round thirty-one's rules (6a9a1f7) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence73/sequence73.tsv",
            "held out: work and a person's own projects, written after round thirty-one's rules (6a9a1f7) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence74/sequence74.tsv",
            "held out: work and a person's own projects, written after round thirty-two's rules (4e129d5) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence75/sequence75.tsv",
            "held out: work and a person's own projects, written after round thirty-two's rules (4e129d5) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence76/sequence76.tsv",
            "held out: work and a person's own projects, written after round thirty-two's rules (4e129d5) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence77/sequence77.tsv",
            "held out: work and a person's own projects, written after round thirty-two's rules (4e129d5) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence78/sequence78.tsv",
            "held out: work and a person's own projects, written after round thirty-two's rules (4e129d5) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence79/sequence79.tsv",
            "held out: work and a person's own projects, written after round thirty-two's rules (4e129d5) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence80/sequence80.tsv",
            "held out: work and a person's own projects, written after round thirty-three's rules (029f1ac) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence81/sequence81.tsv",
            "held out: work and a person's own projects, written after round thirty-three's rules (029f1ac) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence82/sequence82.tsv",
            "held out: work and a person's own projects, written after round thirty-three's rules (029f1ac) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence83/sequence83.tsv",
            "held out: work and a person's own projects, written after round thirty-three's rules (029f1ac) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence84/sequence84.tsv",
            "held out: work and a person's own projects, written after round thirty-three's rules (029f1ac) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence85/sequence85.tsv",
            "held out: work and a person's own projects, written after round thirty-three's rules (029f1ac) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence86/sequence86.tsv",
            "held out: work and a person's own projects, written after round thirty-four's rules (9fc3263) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence87/sequence87.tsv",
            "held out: work and a person's own projects, written after round thirty-four's rules (9fc3263) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence88/sequence88.tsv",
            "held out: work and a person's own projects, written after round thirty-five's rules (848cc4c) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence89/sequence89.tsv",
            "held out: work and a person's own projects, written after round thirty-five's rules (848cc4c) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence90/sequence90.tsv",
            "held out: work and a person's own projects, written after round thirty-six's rules (b48f024) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence91/sequence91.tsv",
            "held out: work and a person's own projects, written after round thirty-six's rules (b48f024) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence92/sequence92.tsv",
            "held out: work and a person's own projects, written after round thirty-six's rules (b48f024) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence93/sequence93.tsv",
            "held out: work and a person's own projects, written after round thirty-six's rules (b48f024) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence94/sequence94.tsv",
            "held out: work and a person's own projects, written after round thirty-seven's rules (ddb9b17) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence95/sequence95.tsv",
            "held out: work and a person's own projects, written after round thirty-seven's rules (ddb9b17) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence96/sequence96.tsv",
            "held out: work and a person's own projects, written after round thirty-seven's rules (ddb9b17) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence97/sequence97.tsv",
            "held out: work and a person's own projects, written after round thirty-seven's rules (ddb9b17) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence98/sequence98.tsv",
            "held out: work and a person's own projects, written after round thirty-eight's rules (4392271) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence99/sequence99.tsv",
            "held out: work and a person's own projects, written after round thirty-eight's rules (4392271) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence100/sequence100.tsv",
            "held out: work and a person's own projects, written after round thirty-eight's rules (4392271) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence101/sequence101.tsv",
            "held out: work and a person's own projects, written after round thirty-eight's rules (4392271) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence102/sequence102.tsv",
            "held out: work and a person's own projects, written after round thirty-nine's rules (4cc82e4) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence103/sequence103.tsv",
            "held out: work and a person's own projects, written after round thirty-nine's rules (4cc82e4) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence104/sequence104.tsv",
            "held out: work and a person's own projects, written on round thirty-nine's rules (e92648c) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence105/sequence105.tsv",
            "held out: work and a person's own projects, written on round thirty-nine's rules (e92648c) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence106/sequence106.tsv",
            "held out: work and a person's own projects, written on round thirty-nine's rules (e92648c) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence107/sequence107.tsv",
            "held out: work and a person's own projects, written on round thirty-nine's rules (e92648c) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence108/sequence108.tsv",
            "held out: work and a person's own projects, written on round forty's rules (7d57423) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence109/sequence109.tsv",
            "held out: work and a person's own projects, written on round forty's rules (7d57423) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence110/sequence110.tsv",
            "held out: work and a person's own projects, written on round forty's rules (7d57423) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence111/sequence111.tsv",
            "held out: work and a person's own projects, written on round forty's rules (7d57423) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence112/sequence112.tsv",
            "held out: work and a person's own projects, written on round forty-one's rules and the sentences' meaning (b26eeae), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence113/sequence113.tsv",
            "held out: work and a person's own projects, written on round forty-one's rules and the sentences' meaning (b26eeae), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence114/sequence114.tsv",
            "held out: work and a person's own projects, written on round forty-one's rules and the sentences' meaning (b26eeae), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence115/sequence115.tsv",
            "held out: work and a person's own projects, written on round forty-one's rules and the sentences' meaning (b26eeae), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence116/sequence116.tsv",
            "held out: work and a person's own projects, written on round forty-two's rules and the sentences' meaning (36eaaf6), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence117/sequence117.tsv",
            "held out: work and a person's own projects, written on round forty-two's rules and the sentences' meaning (36eaaf6), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence118/sequence118.tsv",
            "held out: work and a person's own projects, written on round forty-two's rules and the sentences' meaning (36eaaf6), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence119/sequence119.tsv",
            "held out: work and a person's own projects, written on round forty-two's rules and the sentences' meaning (36eaaf6), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence120/sequence120.tsv",
            "held out: work and a person's own projects, written on round forty-three's rules (b18259c), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence121/sequence121.tsv",
            "held out: work and a person's own projects, written on round forty-three's rules (b18259c), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence122/sequence122.tsv",
            "held out: work and a person's own projects, written on round forty-three's rules (b18259c), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence123/sequence123.tsv",
            "held out: work and a person's own projects, written on round forty-three's rules (b18259c), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence124/sequence124.tsv",
            "held out: work and a person's own projects, written on round forty-four's rules (b90fe66), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence125/sequence125.tsv",
            "held out: work and a person's own projects, written on round forty-four's rules (b90fe66), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence126/sequence126.tsv",
            "held out: work and a person's own projects, written on round forty-four's rules (b90fe66), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence127/sequence127.tsv",
            "held out: work and a person's own projects, written on round forty-four's rules (b90fe66), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence128/sequence128.tsv",
            "held out: work and a person's own projects, written on round forty-five's rules (bebf23b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence129/sequence129.tsv",
            "held out: work and a person's own projects, written on round forty-five's rules (bebf23b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence130/sequence130.tsv",
            "held out: work and a person's own projects, written on round forty-five's rules (bebf23b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence131/sequence131.tsv",
            "held out: work and a person's own projects, written on round forty-five's rules (bebf23b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence132/sequence132.tsv",
            "held out: work and a person's own projects, written on round forty-six's rules (940c55e), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence133/sequence133.tsv",
            "held out: work and a person's own projects, written on round forty-six's rules (940c55e), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence134/sequence134.tsv",
            "held out: work and a person's own projects, written on round forty-six's rules (940c55e), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence135/sequence135.tsv",
            "held out: work and a person's own projects, written on round forty-six's rules (940c55e), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence136/sequence136.tsv",
            "held out: work and a person's own projects, written on round forty-seven's rules (72306fe), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence137/sequence137.tsv",
            "held out: work and a person's own projects, written on round forty-seven's rules (72306fe), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence138/sequence138.tsv",
            "held out: work and a person's own projects, written on round forty-seven's rules (72306fe), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence139/sequence139.tsv",
            "held out: work and a person's own projects, written on round forty-seven's rules (72306fe), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence140/sequence140.tsv",
            "held out: work and a person's own projects, written on round forty-eight's rules (5b158dd), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence141/sequence141.tsv",
            "held out: work and a person's own projects, written on round forty-eight's rules (5b158dd), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence142/sequence142.tsv",
            "held out: work and a person's own projects, written on round forty-eight's rules (5b158dd), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence143/sequence143.tsv",
            "held out: work and a person's own projects, written on round forty-eight's rules (5b158dd), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence144/sequence144.tsv",
            "held out: work and a person's own projects, written on round forty-nine's rules (fd03e03), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence145/sequence145.tsv",
            "held out: work and a person's own projects, written on round forty-nine's rules (fd03e03), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence146/sequence146.tsv",
            "held out: work and a person's own projects, written on round forty-nine's rules (fd03e03), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence147/sequence147.tsv",
            "held out: work and a person's own projects, written on round forty-nine's rules (fd03e03), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence148/sequence148.tsv",
            "held out: work and a person's own projects, written on round fifty's rules (82571d4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence149/sequence149.tsv",
            "held out: work and a person's own projects, written on round fifty's rules (82571d4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence150/sequence150.tsv",
            "held out: work and a person's own projects, written on round fifty's rules (82571d4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence151/sequence151.tsv",
            "held out: work and a person's own projects, written on round fifty's rules (82571d4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence152/sequence152.tsv",
            "held out: work and a person's own projects, written on round fifty-one's rules (82d4589), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence153/sequence153.tsv",
            "held out: work and a person's own projects, written on round fifty-one's rules (82d4589), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence154/sequence154.tsv",
            "held out: work and a person's own projects, written on round fifty-one's rules (82d4589), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence155/sequence155.tsv",
            "held out: work and a person's own projects, written on round fifty-one's rules (82d4589), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence156/sequence156.tsv",
            "held out: work and a person's own projects, written on round fifty-two's rules (e448ab4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence157/sequence157.tsv",
            "held out: work and a person's own projects, written on round fifty-two's rules (e448ab4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence158/sequence158.tsv",
            "held out: work and a person's own projects, written on round fifty-two's rules (e448ab4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence159/sequence159.tsv",
            "held out: work and a person's own projects, written on round fifty-two's rules (e448ab4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence160/sequence160.tsv",
            "held out: work and a person's own projects, written on round fifty-two's rules (e448ab4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence161/sequence161.tsv",
            "held out: work and a person's own projects, written on round fifty-two's rules (e448ab4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence162/sequence162.tsv",
            "held out: work and a person's own projects, written on round fifty-two's rules (e448ab4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence163/sequence163.tsv",
            "held out: work and a person's own projects, written on round fifty-two's rules (e448ab4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence164/sequence164.tsv",
            "held out: work and a person's own projects, written on round fifty-three's rules (4fea15b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence165/sequence165.tsv",
            "held out: work and a person's own projects, written on round fifty-three's rules (4fea15b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence166/sequence166.tsv",
            "held out: work and a person's own projects, written on round fifty-three's rules (4fea15b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence167/sequence167.tsv",
            "held out: work and a person's own projects, written on round fifty-three's rules (4fea15b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence168/sequence168.tsv",
            "held out: work and a person's own projects, written on round fifty-three's rules (4fea15b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence169/sequence169.tsv",
            "held out: work and a person's own projects, written on round fifty-three's rules (4fea15b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence170/sequence170.tsv",
            "held out: work and a person's own projects, written on round fifty-three's rules (4fea15b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence171/sequence171.tsv",
            "held out: work and a person's own projects, written on round fifty-three's rules (4fea15b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence172/sequence172.tsv",
            "held out: work and a person's own projects, written on round fifty-four's rules (8669775), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence173/sequence173.tsv",
            "held out: work and a person's own projects, written on round fifty-four's rules (8669775), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence174/sequence174.tsv",
            "held out: work and a person's own projects, written on round fifty-four's rules (8669775), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence175/sequence175.tsv",
            "held out: work and a person's own projects, written on round fifty-four's rules (8669775), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence176/sequence176.tsv",
            "held out: work and a person's own projects, written on round fifty-five's rules (bdd569f), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence177/sequence177.tsv",
            "held out: work and a person's own projects, written on round fifty-five's rules (bdd569f), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence178/sequence178.tsv",
            "held out: work and a person's own projects, written on round fifty-five's rules (bdd569f), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence179/sequence179.tsv",
            "held out: work and a person's own projects, written on round fifty-five's rules (bdd569f), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence180/sequence180.tsv",
            "held out: work and a person's own projects, written on round fifty-six's rules (64123cc), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence181/sequence181.tsv",
            "held out: work and a person's own projects, written on round fifty-six's rules (64123cc), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence182/sequence182.tsv",
            "held out: work and a person's own projects, written on round fifty-six's rules (64123cc), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence183/sequence183.tsv",
            "held out: work and a person's own projects, written on round fifty-six's rules (64123cc), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence184/sequence184.tsv",
            "held out: work and a person's own projects, written on round fifty-six's rules (64123cc), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence185/sequence185.tsv",
            "held out: work and a person's own projects, written on round fifty-six's rules (64123cc), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence186/sequence186.tsv",
            "held out: work and a person's own projects, written on round fifty-six's rules (64123cc), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence187/sequence187.tsv",
            "held out: work and a person's own projects, written on round fifty-six's rules (64123cc), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence188/sequence188.tsv",
            "held out: work and a person's own projects, written on round fifty-seven's rules (d101127), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence189/sequence189.tsv",
            "held out: work and a person's own projects, written on round fifty-seven's rules (d101127), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence190/sequence190.tsv",
            "held out: work and a person's own projects, written on round fifty-seven's rules (d101127), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence191/sequence191.tsv",
            "held out: work and a person's own projects, written on round fifty-seven's rules (d101127), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence192/sequence192.tsv",
            "held out: work and a person's own projects, written on round fifty-eight's rules (cf95075), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence193/sequence193.tsv",
            "held out: work and a person's own projects, written on round fifty-eight's rules (cf95075), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence194/sequence194.tsv",
            "held out: work and a person's own projects, written on round fifty-eight's rules (cf95075), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence195/sequence195.tsv",
            "held out: work and a person's own projects, written on round fifty-eight's rules (cf95075), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence196/sequence196.tsv",
            "held out: work and a person's own projects, written on round fifty-nine's rules (d2ab346), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence197/sequence197.tsv",
            "held out: work and a person's own projects, written on round fifty-nine's rules (d2ab346), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence198/sequence198.tsv",
            "held out: work and a person's own projects, written on round fifty-nine's rules (d2ab346), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence199/sequence199.tsv",
            "held out: work and a person's own projects, written on round fifty-nine's rules (d2ab346), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence200/sequence200.tsv",
            "held out: work and a person's own projects, written on round sixty's rules (531b5ef), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence201/sequence201.tsv",
            "held out: work and a person's own projects, written on round sixty's rules (531b5ef), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence202/sequence202.tsv",
            "held out: work and a person's own projects, written on round sixty's rules (531b5ef), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence203/sequence203.tsv",
            "held out: work and a person's own projects, written on round sixty's rules (531b5ef), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence204/sequence204.tsv",
            "held out: work and a person's own projects, written on round sixty-one's rules (f9a1d10), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence205/sequence205.tsv",
            "held out: work and a person's own projects, written on round sixty-one's rules (f9a1d10), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence206/sequence206.tsv",
            "held out: work and a person's own projects, written on round sixty-one's rules (f9a1d10), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence207/sequence207.tsv",
            "held out: work and a person's own projects, written on round sixty-one's rules (f9a1d10), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence208/sequence208.tsv",
            "held out: work and a person's own projects, written on round sixty-two's rules (861ed9d), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence209/sequence209.tsv",
            "held out: work and a person's own projects, written on round sixty-two's rules (861ed9d), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence210/sequence210.tsv",
            "held out: work and a person's own projects, written on round sixty-two's rules (861ed9d), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence211/sequence211.tsv",
            "held out: work and a person's own projects, written on round sixty-two's rules (861ed9d), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence212/sequence212.tsv",
            "held out: work and a person's own projects, written on round sixty-three's rules (7f0a9a6), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence213/sequence213.tsv",
            "held out: work and a person's own projects, written on round sixty-three's rules (7f0a9a6), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence214/sequence214.tsv",
            "held out: work and a person's own projects, written on round sixty-three's rules (7f0a9a6), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence215/sequence215.tsv",
            "held out: work and a person's own projects, written on round sixty-three's rules (7f0a9a6), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence216/sequence216.tsv",
            "held out: work and a person's own projects, written on round sixty-four's rules (cc64cb4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence217/sequence217.tsv",
            "held out: work and a person's own projects, written on round sixty-four's rules (cc64cb4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence218/sequence218.tsv",
            "held out: work and a person's own projects, written on round sixty-four's rules (cc64cb4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence219/sequence219.tsv",
            "held out: work and a person's own projects, written on round sixty-four's rules (cc64cb4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence220/sequence220.tsv",
            "held out: work and a person's own projects, written on round sixty-five's rules (146c629), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence221/sequence221.tsv",
            "held out: work and a person's own projects, written on round sixty-five's rules (146c629), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence222/sequence222.tsv",
            "held out: work and a person's own projects, written on round sixty-five's rules (146c629), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence223/sequence223.tsv",
            "held out: work and a person's own projects, written on round sixty-five's rules (146c629), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence224/sequence224.tsv",
            "held out: work and a person's own projects, written on round sixty-six's rules (0761c77), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence225/sequence225.tsv",
            "held out: work and a person's own projects, written on round sixty-six's rules (0761c77), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence226/sequence226.tsv",
            "held out: work and a person's own projects, written on round sixty-six's rules (0761c77), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence227/sequence227.tsv",
            "held out: work and a person's own projects, written on round sixty-six's rules (0761c77), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence228/sequence228.tsv",
            "held out: work and a person's own projects, written on round sixty-seven's rules (9676ede), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence229/sequence229.tsv",
            "held out: work and a person's own projects, written on round sixty-seven's rules (9676ede), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence230/sequence230.tsv",
            "held out: work and a person's own projects, written on round sixty-seven's rules (9676ede), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence231/sequence231.tsv",
            "held out: work and a person's own projects, written on round sixty-seven's rules (9676ede), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence232/sequence232.tsv",
            "held out: work and a person's own projects, written on round sixty-eight's rules (629b1e3), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence233/sequence233.tsv",
            "held out: work and a person's own projects, written on round sixty-eight's rules (629b1e3), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence234/sequence234.tsv",
            "held out: work and a person's own projects, written on round sixty-eight's rules (629b1e3), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence235/sequence235.tsv",
            "held out: work and a person's own projects, written on round sixty-eight's rules (629b1e3), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence236/sequence236.tsv",
            "held out: work and a person's own projects, written on round sixty-nine's rules (e3d77d3), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence237/sequence237.tsv",
            "held out: work and a person's own projects, written on round sixty-nine's rules (e3d77d3), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence238/sequence238.tsv",
            "held out: work and a person's own projects, written on round sixty-nine's rules (e3d77d3), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence239/sequence239.tsv",
            "held out: work and a person's own projects, written on round sixty-nine's rules (e3d77d3), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence240/sequence240.tsv",
            "held out: work and a person's own projects, written on round seventy's rules (8024247), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence241/sequence241.tsv",
            "held out: work and a person's own projects, written on round seventy's rules (8024247), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence242/sequence242.tsv",
            "held out: work and a person's own projects, written on round seventy's rules (8024247), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence243/sequence243.tsv",
            "held out: work and a person's own projects, written on round seventy's rules (8024247), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence244/sequence244.tsv",
            "held out: work and a person's own projects, written on round seventy-one's rules (f6e6e7b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence245/sequence245.tsv",
            "held out: work and a person's own projects, written on round seventy-one's rules (f6e6e7b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence246/sequence246.tsv",
            "held out: work and a person's own projects, written on round seventy-one's rules (f6e6e7b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence247/sequence247.tsv",
            "held out: work and a person's own projects, written on round seventy-one's rules (f6e6e7b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence248/sequence248.tsv",
            "held out: work and a person's own projects, written on round seventy-two's rules (8764bf4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence249/sequence249.tsv",
            "held out: work and a person's own projects, written on round seventy-two's rules (8764bf4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence250/sequence250.tsv",
            "held out: work and a person's own projects, written on round seventy-two's rules (8764bf4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence251/sequence251.tsv",
            "held out: work and a person's own projects, written on round seventy-two's rules (8764bf4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence252/sequence252.tsv",
            "held out: work and a person's own projects, written on round seventy-three's rules (c504147), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence253/sequence253.tsv",
            "held out: work and a person's own projects, written on round seventy-three's rules (c504147), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence254/sequence254.tsv",
            "held out: work and a person's own projects, written on round seventy-three's rules (c504147), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence255/sequence255.tsv",
            "held out: work and a person's own projects, written on round seventy-three's rules (c504147), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence256/sequence256.tsv",
            "held out: work and a person's own projects, written on round seventy-four's rules (a1eb6f7), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence257/sequence257.tsv",
            "held out: work and a person's own projects, written on round seventy-four's rules (a1eb6f7), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence258/sequence258.tsv",
            "held out: work and a person's own projects, written on round seventy-four's rules (a1eb6f7), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence259/sequence259.tsv",
            "held out: work and a person's own projects, written on round seventy-four's rules (a1eb6f7), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence260/sequence260.tsv",
            "held out: work and a person's own projects, written on round seventy-five's rules (960e97a), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence261/sequence261.tsv",
            "held out: work and a person's own projects, written on round seventy-five's rules (960e97a), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence262/sequence262.tsv",
            "held out: work and a person's own projects, written on round seventy-five's rules (960e97a), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence263/sequence263.tsv",
            "held out: work and a person's own projects, written on round seventy-five's rules (960e97a), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence264/sequence264.tsv",
            "held out: work and a person's own projects, written on round seventy-six's rules (cd6a27f), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence265/sequence265.tsv",
            "held out: work and a person's own projects, written on round seventy-six's rules (cd6a27f), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence266/sequence266.tsv",
            "held out: work and a person's own projects, written on round seventy-six's rules (cd6a27f), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence267/sequence267.tsv",
            "held out: work and a person's own projects, written on round seventy-six's rules (cd6a27f), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence268/sequence268.tsv",
            "held out: work and a person's own projects, written on round seventy-seven's rules (ef47095), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence269/sequence269.tsv",
            "held out: work and a person's own projects, written on round seventy-seven's rules (ef47095), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence270/sequence270.tsv",
            "held out: work and a person's own projects, written on round seventy-seven's rules (ef47095), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence271/sequence271.tsv",
            "held out: work and a person's own projects, written on round seventy-seven's rules (ef47095), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence272/sequence272.tsv",
            "held out: work and a person's own projects, written on round seventy-eight's rules (ec2e2be), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence273/sequence273.tsv",
            "held out: work and a person's own projects, written on round seventy-eight's rules (ec2e2be), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence274/sequence274.tsv",
            "held out: work and a person's own projects, written on round seventy-eight's rules (ec2e2be), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence275/sequence275.tsv",
            "held out: work and a person's own projects, written on round seventy-eight's rules (ec2e2be), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence276/sequence276.tsv",
            "held out: work and a person's own projects, written on round seventy-nine's rules (24093bb), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence277/sequence277.tsv",
            "held out: work and a person's own projects, written on round seventy-nine's rules (24093bb), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence278/sequence278.tsv",
            "held out: work and a person's own projects, written on round seventy-nine's rules (24093bb), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence279/sequence279.tsv",
            "held out: work and a person's own projects, written on round seventy-nine's rules (24093bb), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence280/sequence280.tsv",
            "held out: work and a person's own projects, written on round eighty's rules (b469dcf), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence281/sequence281.tsv",
            "held out: work and a person's own projects, written on round eighty's rules (b469dcf), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence282/sequence282.tsv",
            "held out: work and a person's own projects, written on round eighty's rules (b469dcf), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence283/sequence283.tsv",
            "held out: work and a person's own projects, written on round eighty's rules (b469dcf), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence284/sequence284.tsv",
            "held out: work and a person's own projects, written on round eighty-one's rules (e549eb6), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence285/sequence285.tsv",
            "held out: work and a person's own projects, written on round eighty-one's rules (e549eb6), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence286/sequence286.tsv",
            "held out: work and a person's own projects, written on round eighty-one's rules (e549eb6), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence287/sequence287.tsv",
            "held out: work and a person's own projects, written on round eighty-one's rules (e549eb6), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence288/sequence288.tsv",
            "held out: work and a person's own projects, written on round eighty-two's rules (37288ef), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence289/sequence289.tsv",
            "held out: work and a person's own projects, written on round eighty-two's rules (37288ef), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence290/sequence290.tsv",
            "held out: work and a person's own projects, written on round eighty-two's rules (37288ef), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence291/sequence291.tsv",
            "held out: work and a person's own projects, written on round eighty-two's rules (37288ef), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence292/sequence292.tsv",
            "held out: work and a person's own projects, written on round eighty-three's rules (8b9b879), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence293/sequence293.tsv",
            "held out: work and a person's own projects, written on round eighty-three's rules (8b9b879), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence294/sequence294.tsv",
            "held out: work and a person's own projects, written on round eighty-three's rules (8b9b879), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence295/sequence295.tsv",
            "held out: work and a person's own projects, written on round eighty-three's rules (8b9b879), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence296/sequence296.tsv",
            "held out: work and a person's own projects, written on round eighty-four's rules (4a4d84c), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence297/sequence297.tsv",
            "held out: work and a person's own projects, written on round eighty-four's rules (4a4d84c), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence298/sequence298.tsv",
            "held out: work and a person's own projects, written on round eighty-four's rules (4a4d84c), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence299/sequence299.tsv",
            "held out: work and a person's own projects, written on round eighty-four's rules (4a4d84c), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence300/sequence300.tsv",
            "held out: work and a person's own projects, written on round eighty-five's rules (3fb2fca), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence301/sequence301.tsv",
            "held out: work and a person's own projects, written on round eighty-five's rules (3fb2fca), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence302/sequence302.tsv",
            "held out: work and a person's own projects, written on round eighty-five's rules (3fb2fca), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
        (
            "sequence303/sequence303.tsv",
            "held out: work and a person's own projects, written on round eighty-five's rules (3fb2fca), before any later rule, run once on them in each mode, never tuned on; sent one after another",
            Run::InSequence,
        ),
    ];
    let chosen = |file: &str| only.is_empty() || only.split(',').any(|part| file.contains(part));
    for (file, about, run) in sets.into_iter().filter(|(file, ..)| chosen(file)) {
        let decided = routing(file, run)?;
        report(file, about, &decided, verbose, every);
    }
    kinds(
        "kinds.tsv",
        "held out: written before the kind rules' third round",
    )?;
    kinds(
        "kinds2.tsv",
        "held out: written after sequence29, before the kind rules' fourth round",
    )?;
    kinds(
        "kinds3.tsv",
        "held out: written after sequence31, before the kind rules' fifth round",
    )?;
    latency(notes, updates)
}

/// The (label, text) lines of a labelled set, comments and blank lines
/// skipped.
fn labelled(file: &str) -> Result<Vec<(String, String)>, String> {
    let set = std::fs::read_to_string(Path::new(FIXTURE).join(file)).map_err(|e| e.to_string())?;
    set.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let (label, text) = line.split_once('\t').ok_or(format!("bad line: {line}"))?;
            Ok((label.to_string(), text.to_string()))
        })
        .collect()
}

/// How often the kind rules give an update the kind a person would
/// (`kinds.tsv`: held out, labelled task, event, preference or note),
/// with every miss.
fn kinds(file: &str, about: &str) -> Result<(), String> {
    let mut total = 0;
    let mut misses = Vec::new();
    for (label, text) in labelled(file)? {
        let text = text.as_str();
        let got = format!("{:?}", kind_of(text)).to_lowercase();
        total += 1;
        if got != label {
            misses.push(format!("MISS {label:<10} got {got:<10} {text}"));
        }
    }
    println!("\n### Kinds, `{file}` ({about}): {total} updates\n");
    println!("| measure | result |\n|---|---|");
    println!(
        "| the kind a person would give | {:.1}% ({}/{total}) |\n",
        100.0 * (total - misses.len()) as f64 / total.max(1) as f64,
        total - misses.len()
    );
    for miss in misses {
        println!("{miss}");
    }
    Ok(())
}

/// How a set's updates meet the vault.
#[derive(Clone, Copy, PartialEq)]
enum Run {
    /// Each is routed on the fixture as it is (nothing is filed).
    Alone,
    /// Each is filed by the offline agent in a fresh copy, in order, so the
    /// later ones meet a vault the earlier ones grew.
    InSequence,
}

/// One update of a set: its label, where it went, how sure the engine was.
struct Decided {
    label: String,
    got: String,
    confidence: f32,
    text: String,
    reasoning: String,
}

/// The fixture vault a set belongs to: the `vault` folder beside it.
fn fixture_of(file: &str) -> std::path::PathBuf {
    let set = Path::new(FIXTURE).join(file);
    set.parent().unwrap().join("vault")
}

fn fixture_vault(dir: &Path, root: &Path) -> Result<(Arc<Vault>, Arc<Index>), String> {
    let author = Author::new("bench", "routing fixture");
    let (vault, _) = Vault::init(dir, &author).map_err(|e| e.to_string())?;
    for entry in walk(root)? {
        let rel = entry
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&entry).map_err(|e| e.to_string())?;
        vault
            .write(&rel, &text, &author)
            .map_err(|e| e.to_string())?;
    }
    let vault = Arc::new(vault);
    let index = Index::open(vault.clone()).map_err(|e| e.to_string())?;
    index.catch_up(&mut |_, _| {}).map_err(|e| e.to_string())?;
    Ok((vault, index))
}

fn walk(dir: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            out.extend(walk(&path)?);
        } else {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

/// The moment every routing run files at. Filed lines carry their date and
/// the model embeds it with them, so without one fixed day a run with
/// meaning could differ from the same build's run on another day.
const ROUTING_CLOCK: &str = "2026-06-15T12:00:00Z";

fn routing(file: &str, run: Run) -> Result<Vec<Decided>, String> {
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let (vault, index) = fixture_vault(temp.path(), &fixture_of(file))?;
    let agents = Agents::new(
        vault.clone(),
        index.clone(),
        Engine::Offline,
        Settings::default(),
    )
    .at(ROUTING_CLOCK.parse().expect("a timestamp"));
    let mut decided = Vec::new();
    for (label, text) in labelled(file)? {
        let text = text.as_str();
        let (got, confidence, reasoning) = match run {
            Run::Alone => {
                let decision =
                    knower_agents::route(&vault, &index, text).map_err(|e| e.to_string())?;
                (
                    decision.destination.unwrap_or_else(|| "inbox".into()),
                    decision.confidence,
                    decision.reasoning,
                )
            }
            Run::InSequence => {
                let report = agents
                    .update(Payload::text(text))
                    .map_err(|e| e.to_string())?;
                let got = match report.outcome {
                    Outcome::Filed => report.changed.first().cloned().unwrap_or_default(),
                    _ => "inbox".to_string(),
                };
                (
                    got,
                    report.confidence.unwrap_or(0.0),
                    report.reasoning.unwrap_or_default(),
                )
            }
        };
        decided.push(Decided {
            label: label.to_string(),
            got,
            confidence,
            text: text.to_string(),
            reasoning,
        });
    }
    Ok(decided)
}

fn report(file: &str, about: &str, decided: &[Decided], verbose: bool, every: bool) {
    let n = decided.len();
    let count = |f: &dyn Fn(&Decided) -> bool| decided.iter().filter(|d| f(d)).count();
    let correct = count(&|d| d.got == d.label);
    let wrong = count(&|d| d.got != d.label && d.got != "inbox");
    let to_inbox = count(&|d| d.got == "inbox");
    let inbox_expected = count(&|d| d.label == "inbox");
    let folder = |p: &str| {
        p.rsplit_once('/')
            .map(|(f, _)| f.to_string())
            .unwrap_or_default()
    };
    let project_right = count(&|d| d.got != "inbox" && folder(&d.got) == folder(&d.label));
    let share = |k: usize| k as f64 / n as f64;
    let pct = |k: usize| format!("{:.1}%", 100.0 * share(k));
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    println!("\n### Offline routing, `{file}` ({about}): {n} labelled updates\n");
    println!("| measure | result | target |");
    println!("|---|---|---|");
    println!(
        "| correct destination (exact file, or the inbox) | {} ({correct}/{n}) | ≥ 90%: {} |",
        pct(correct),
        verdict(share(correct) >= 0.90)
    );
    println!(
        "| filed in the wrong place | {} ({wrong}/{n}) | ≤ 5%: {} |",
        pct(wrong),
        verdict(share(wrong) <= 0.05)
    );
    println!(
        "| sent to the inbox | {} (the set expects {}) | |",
        pct(to_inbox),
        pct(inbox_expected)
    );
    println!(
        "| filed in the right folder (any file) | {} | |",
        pct(project_right)
    );
    // Reliability: does the confidence of a filing say how often it is right?
    println!("\n| confidence of a filing | filings | right file | right folder |");
    println!("|---|---|---|---|");
    for (low, high) in [(0.0, 0.6), (0.6, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 1.01)] {
        let bucket: Vec<&Decided> = decided
            .iter()
            .filter(|d| d.got != "inbox" && d.confidence >= low && d.confidence < high)
            .collect();
        if bucket.is_empty() {
            continue;
        }
        let right = bucket.iter().filter(|d| d.got == d.label).count();
        let near = bucket
            .iter()
            .filter(|d| folder(&d.got) == folder(&d.label))
            .count();
        println!(
            "| {low:.1}–{:.1} | {} | {:.0}% | {:.0}% |",
            high.min(1.0),
            bucket.len(),
            100.0 * right as f64 / bucket.len() as f64,
            100.0 * near as f64 / bucket.len() as f64
        );
    }
    if verbose {
        println!();
        for d in decided.iter().filter(|d| every || d.got != d.label) {
            println!(
                "{} {:<32} got {:<32} {:.2} {}\n     {}",
                if d.got == d.label { "HIT " } else { "MISS" },
                d.label,
                d.got,
                d.confidence,
                d.text,
                d.reasoning
            );
        }
    }
}

const WORDS: &[&str] = &[
    "meeting", "budget", "review", "design", "schedule", "draft", "notes", "idea", "plan",
    "release", "feedback", "report", "summary", "question", "result", "change", "issue",
    "estimate", "deadline", "contract", "invoice", "supplier", "sample", "measure", "test",
    "version", "option", "decision", "risk", "status", "update", "priority", "detail",
];

fn latency(notes: usize, updates: usize) -> Result<(), String> {
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let (vault, index) = fixture_vault(temp.path(), &Path::new(FIXTURE).join("vault"))?;
    let author = Author::new("bench", "filler");
    let projects = ["atlas", "garden", "thesis", "house", "band", "japan-trip"];
    let mut rng = Rng::new(4);
    let existing = vault.entries().len();
    for i in 0..notes.saturating_sub(existing) {
        let project = projects[i % projects.len()];
        let words: Vec<&str> = (0..80).map(|_| WORDS[rng.below(WORDS.len())]).collect();
        let text = format!("# Note {i}\n\n{project} {}\n", words.join(" "));
        vault
            .write(
                &format!("projects/{project}/notes/note-{i}.md"),
                &text,
                &author,
            )
            .map_err(|e| e.to_string())?;
    }
    let files = vault.entries().len();
    let agents = Agents::new(
        vault.clone(),
        index.clone(),
        Engine::Offline,
        Settings::default(),
    );
    let texts = [
        "Remember to order more compost for the garden beds",
        "The geocoding API beta latency improved after the index change",
        "Interesting article about the history of typography",
        "I prefer meeting notes as bullet lists",
    ];
    let (mut update_times, mut write_times) = (Vec::new(), Vec::new());
    for i in 0..updates {
        let text = format!("{} ({i})", texts[i % texts.len()]);
        let started = Instant::now();
        agents
            .update(Payload::text(text.clone()))
            .map_err(|e| e.to_string())?;
        update_times.push(started.elapsed());
        // Baseline: the one append an update makes, alone.
        let started = Instant::now();
        vault
            .append(
                "bucket/baseline.md",
                &format!("- {text}\n"),
                Position::Bottom,
                &author,
            )
            .map_err(|e| e.to_string())?;
        write_times.push(started.elapsed());
    }
    let (p50, p95) = (
        quantile(&mut update_times, 0.5),
        quantile(&mut update_times, 0.95),
    );
    let base = quantile(&mut write_times, 0.5);
    println!("\n### Offline update latency: {updates} updates on a vault of {files} files\n");
    println!("| measure | result | baseline (one append through the pipeline) | ratio | target |");
    println!("|---|---|---|---|---|");
    println!(
        "| offline update (route + write + changelog), p50 | {} | {} | {:.1}× | < 50 ms: {} |",
        ms(p50),
        ms(base),
        p50.as_secs_f64() / base.as_secs_f64().max(1e-9),
        if p50 < Duration::from_millis(50) {
            "met"
        } else {
            "MISSED"
        }
    );
    println!("| offline update, p95 | {} | | | |", ms(p95));
    Ok(())
}
