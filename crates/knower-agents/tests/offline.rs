//! The offline engine end to end on a fixture vault.

mod support;

use knower_testkit::model;

use knower_agents::{Attachment, Kind, Outcome, Payload};
use knower_index::Mode;
use knower_vault::Author;
use support::Fixture;

#[test]
fn a_note_naming_a_project_lands_in_that_project() {
    let fx = Fixture::new();
    let agents = fx.offline();
    let before = fx.changelog_entries().len();
    let report = agents
        .update(Payload::text("TODO: rotate the Atlas geocoding API keys"))
        .unwrap();
    assert_eq!(report.outcome, Outcome::Filed);
    assert_eq!(report.engine, "offline engine");
    assert!(report.confidence.unwrap() >= 0.85);
    assert_eq!(report.changed, ["projects/atlas/tasks.md"]);
    let tasks = fx.read("projects/atlas/tasks.md");
    assert!(
        tasks.contains("# Tasks\n\n- [ ] rotate the Atlas geocoding API keys"),
        "{tasks}"
    );
    let entries = fx.changelog_entries();
    assert_eq!(
        entries.len(),
        before + 1,
        "exactly one global changelog entry"
    );
    assert!(
        entries[0].contains("offline engine") && entries[0].contains("projects/atlas/tasks.md")
    );
    // The journal says why in a person's sentence; the rules behind it are
    // in the update's report.
    let reason = last_offline_reason(&fx);
    assert!(
        reason.contains("Filed in atlas, the project it names"),
        "{reason}"
    );
}

/// The answers an inbox decision offers, best first.
fn offered(decision: &knower_agents::Decision) -> Vec<&str> {
    decision
        .choices
        .iter()
        .map(|c| c.destination.as_str())
        .collect()
}

/// The reasoning the offline engine journaled with its last change.
fn last_offline_reason(fx: &Fixture) -> String {
    fx.vault
        .log()
        .unwrap()
        .into_iter()
        .rev()
        .find(|r| r.actor == "agent:offline")
        .unwrap()
        .reason
}

#[test]
fn content_routes_when_no_project_is_named_and_events_go_to_the_changelog() {
    let fx = Fixture::new();
    let agents = fx.offline();
    let report = agents
        .update(Payload::text(
            "We decided to move the PostGIS tiles database to Postgres 17 next month",
        ))
        .unwrap();
    assert_eq!(report.outcome, Outcome::Filed, "{report:?}");
    assert_eq!(report.changed, ["projects/atlas/changelog.md"]);
    let changelog = fx.read("projects/atlas/changelog.md");
    assert!(changelog.contains(": We decided to move the PostGIS"));
    // No trailing space where an attachment's link would go.
    assert!(
        changelog.contains("Postgres 17 next month\n"),
        "{changelog}"
    );
}

#[test]
fn agents_at_a_fixed_clock_date_everything_they_write_with_it() {
    let fx = Fixture::new();
    // Noon UTC stays the same day in every time zone the machine may be in.
    let leap_day: jiff::Timestamp = "2020-02-29T12:00:00Z".parse().unwrap();
    let agents = fx.offline().at(leap_day);
    let report = agents
        .update(Payload::text(
            "We decided to move the PostGIS tiles database to Postgres 17 next month",
        ))
        .unwrap();
    assert_eq!(report.changed, ["projects/atlas/changelog.md"]);
    let changelog = fx.read("projects/atlas/changelog.md");
    assert!(
        changelog.contains("- 2020-02-29: We decided to move the PostGIS"),
        "{changelog}"
    );
    let entries = fx.changelog_entries();
    assert!(entries[0].starts_with("- 2020-02-29: "), "{entries:?}");
}

#[test]
fn preferences_go_to_the_profile_and_stray_tasks_to_the_global_list() {
    let fx = Fixture::new();
    let agents = fx.offline();
    let r = agents
        .update(Payload::text("I prefer short answers with examples"))
        .unwrap();
    assert_eq!(r.changed, ["profile.md"]);
    assert!(
        fx.read("profile.md")
            .contains("- I prefer short answers with examples")
    );
    // What the user has is about them too, with no preference word.
    let r = agents
        .update(Payload::text("I have coeliac disease"))
        .unwrap();
    assert_eq!(r.changed, ["profile.md"], "{r:?}");
    assert!(fx.read("profile.md").contains("- I have coeliac disease"));
    let r = agents
        .update(Payload::text("Buy a birthday present for Sam"))
        .unwrap();
    assert_eq!(r.changed, ["tasks.md"]);
    assert!(
        fx.read("tasks.md")
            .contains("- [ ] Buy a birthday present for Sam")
    );
}

#[test]
fn pasted_meeting_notes_keep_their_lines_and_their_action_item_is_a_task() {
    let fx = Fixture::new();
    let agents = fx.offline();
    let notes = "Atlas sync with Ana and Ben\n\
                 - the geocoder import finished overnight\n\
                 - staging is still on the old Postgres\n\
                 - the release moves to Friday\n\
                 - runbook: https://example.com/atlas/runbook\n\
                 Action: Ben to upgrade staging to Postgres 16";
    let r = agents.update(Payload::text(notes)).unwrap();
    assert_eq!(r.outcome, Outcome::Filed, "{r:?}");
    assert!(
        r.changed.contains(&"projects/atlas/tasks.md".to_string()),
        "{r:?}"
    );
    let filed = fx.read(&r.changed[0]);
    for line in notes.lines() {
        let line = line.trim_start_matches("- ");
        assert!(
            filed.contains(line),
            "{line:?} kept in {}: {filed}",
            r.changed[0]
        );
    }
    let tasks = fx.read("projects/atlas/tasks.md");
    assert!(
        tasks.contains("- [ ] Ben to upgrade staging to Postgres 16"),
        "{tasks}"
    );
    assert!(!tasks.contains("runbook"), "a link is a reference: {tasks}");
}

#[test]
fn facts_about_the_users_people_are_found_by_their_names() {
    let fx = Fixture::new();
    let agents = fx.offline();
    let r = agents
        .update(Payload::text("My sister Inés is allergic to penicillin"))
        .unwrap();
    assert_eq!(r.changed, ["profile.md"], "{r:?}");
    let profile = fx.read("profile.md");
    let people = profile.find("## People").expect("a section of their own");
    assert!(
        profile[people..].contains("- My sister Inés is allergic to penicillin"),
        "{profile}"
    );
    assert!(
        !profile[..people].contains("penicillin"),
        "not under ## Preferences: {profile}"
    );
    let answer = agents.ask("What is Inés allergic to?", Mode::Fast).unwrap();
    let first = answer
        .markdown
        .lines()
        .find(|l| l.starts_with("- "))
        .unwrap_or_default();
    assert!(
        first.contains("penicillin") && first.contains("`profile.md:"),
        "{}",
        answer.markdown
    );
}

#[test]
fn a_fact_about_the_user_is_less_sure_when_a_project_holds_its_words() {
    let fx = Fixture::new();
    let agents = fx.offline();
    let apart = agents
        .update(Payload::text("My sister lives in Hamburg"))
        .unwrap();
    assert_eq!(apart.changed, ["profile.md"]);
    assert_eq!(apart.confidence, Some(knower_agents::PROFILE_CONFIDENCE));
    // The garden's notes hold "tomatoes": the fact may be the garden's.
    let shared = agents
        .update(Payload::text("I'm allergic to raw tomatoes"))
        .unwrap();
    assert_eq!(shared.changed, ["profile.md"]);
    assert_eq!(
        shared.confidence,
        Some(knower_agents::PROFILE_SHARED_CONFIDENCE)
    );
    assert!(
        shared.confidence < apart.confidence,
        "a held word lowers it"
    );
    let reason = last_offline_reason(&fx);
    assert!(
        reason.contains("It may be about a project instead: garden's notes hold tomato"),
        "{reason}"
    );
}

/// A first-person fact that holds only at times tells of a practice more
/// than of who the user is: filed in the one project whose notes share its
/// words, asked about when none do; tastes and facts that always hold stay
/// the profile's.
#[test]
fn a_fact_that_holds_only_at_times_may_be_a_projects() {
    let fx = Fixture::new();
    let route = |text: &str| routed(&fx.vault, &fx.index, text);

    let practice = route("My back still aches after a day of weeding the beans");
    assert_eq!(
        practice.destination.as_deref(),
        Some("projects/garden/state.md"),
        "{}",
        practice.reasoning
    );
    assert_eq!(
        practice.confidence.unwrap(),
        knower_agents::SOLE_HOLDER_CONFIDENCE
    );
    assert!(
        practice.reasoning.contains("(“still”)"),
        "{}",
        practice.reasoning
    );

    let asked = route("My knees hurt if I kneel for too long");
    assert_eq!(asked.destination, None, "{}", asked.reasoning);
    assert!(
        asked
            .reasoning
            .contains("whether it is about you or one of your projects"),
        "{}",
        asked.reasoning
    );
    let offered = offered(&asked);
    assert_eq!(offered[0], "profile.md", "{offered:?}");
    assert!(offered.contains(&"projects/garden/state.md"), "{offered:?}");

    for always in [
        "I'm left-handed",
        "I prefer tea when it's cold",
        "My sister lives in Hamburg",
        // The people in the user's life are the profile's, at any time.
        "My mum still waters the tomatoes when she visits",
    ] {
        let d = route(always);
        assert_eq!(
            d.destination.as_deref(),
            Some("profile.md"),
            "{always}: {}",
            d.reasoning
        );
    }
}

/// A first-person fact of one of the user's things, not of who they are,
/// is the project's whose notes hold its words ("my tyres are too
/// narrow…" beside a cyclocross project's "tyres"), and asked about when
/// none do; the people in the user's life, their tastes and their
/// particulars stay the profile's.
#[test]
fn a_fact_of_the_users_things_is_the_projects_that_holds_its_words() {
    let fx = Fixture::new();
    let route = |text: &str| routed(&fx.vault, &fx.index, text);

    let thing = route("My tomato seedlings are leggy and pale");
    assert_eq!(
        thing.destination.as_deref(),
        Some("projects/garden/state.md"),
        "{}",
        thing.reasoning
    );
    assert!(
        thing.reasoning.contains("one of your things"),
        "{}",
        thing.reasoning
    );

    // One that no project's notes have a word of is still more likely a
    // project's than the profile's: asked about, the profile first.
    let unplaced = route("My loaves spread flat in the oven");
    assert_eq!(unplaced.destination, None, "{}", unplaced.reasoning);
    assert!(
        unplaced.reasoning.contains("one of your things"),
        "{}",
        unplaced.reasoning
    );
    let offered = offered(&unplaced);
    assert_eq!(offered[0], "profile.md", "{offered:?}");

    for who in [
        "My sister grows tomatoes",
        "My favourite tomato is Sungold",
        "My name is on the tomato rota",
        "My dentist is Dr Haddad on Elm Road",
    ] {
        let d = route(who);
        assert_eq!(
            d.destination.as_deref(),
            Some("profile.md"),
            "{who}: {}",
            d.reasoning
        );
    }
}

/// The mark filing leaves on a fact, "_(noted 2026-06-15)_", is no word
/// of the project's: a thank-you note is not the garden's.
#[test]
fn the_mark_of_a_filed_fact_ties_no_note_to_its_project() {
    let fx = Fixture::new();
    let agents = fx.offline();
    let r = agents
        .update(Payload::text("My tomato seedlings are leggy and pale"))
        .unwrap();
    assert_eq!(r.changed, ["projects/garden/state.md"], "{r:?}");
    assert!(fx.read("projects/garden/state.md").contains("_(noted "));
    let d = routed(
        &fx.vault,
        &fx.index,
        "Send Auntie Jean a thank you note for the cheque",
    );
    assert_ne!(
        d.destination.as_deref(),
        Some("projects/garden/tasks.md"),
        "{}",
        d.reasoning
    );
    assert!(!d.reasoning.contains("garden's hold"), "{}", d.reasoning);
}

/// An irregular past shares its verb with a project's notes: "Swam…" is
/// news of the swimming project, as "Booked…" would be of one that says
/// "booking".
#[test]
fn an_irregular_past_ties_a_note_to_the_project_that_uses_its_verb() {
    let fx = Fixture::new();
    fx.add_notes(&[
        (
            "projects/channel-swim/description.md",
            "# Channel swim\n\nTraining to swim the Channel: pool sessions, cold water and the relay team.\n",
        ),
        (
            "projects/channel-swim/state.md",
            "# State\n\nSwimming four times a week.\n",
        ),
    ]);
    let decision = routed(
        &fx.vault,
        &fx.index,
        "Swam 3 km in the lake without stopping",
    );
    assert_eq!(
        decision.destination.as_deref(),
        Some("projects/channel-swim/changelog.md"),
        "{}",
        decision.reasoning
    );
}

#[test]
fn an_ambiguous_note_waits_in_the_inbox_with_reasoning_and_a_reply_files_it() {
    let fx = Fixture::new();
    let agents = fx.offline();
    let payload = Payload {
        text: "Atlas or garden? Both need a weekend of work".into(),
        attachments: vec![Attachment::new("plan.png", b"PNG".to_vec())],
        ..Payload::default()
    };
    let report = agents.update(payload).unwrap();
    assert_eq!(report.outcome, Outcome::Inbox, "{report:?}");
    let id = report.inbox_id.unwrap();
    let item = agents.inbox_item(&id).unwrap();
    assert_eq!(item.text, "Atlas or garden? Both need a weekend of work");
    // The two named projects, then the bucket.
    assert_eq!(
        item.options
            .iter()
            .map(|o| o.split('/').take(2).collect::<Vec<_>>().join("/"))
            .collect::<Vec<_>>(),
        ["projects/atlas", "projects/garden", "bucket/"],
        "{:?}",
        item.options
    );
    assert!(
        item.review.contains("It names several projects"),
        "{}",
        item.review
    );
    assert!(item.review.contains("> Atlas or garden?"));
    assert_eq!(item.attachments, [format!("inbox/{id}/plan.png")]);

    // An answer the engine cannot read changes nothing.
    let unclear = Payload {
        text: "hmm, not sure".into(),
        inbox_ref: Some(id.clone()),
        ..Payload::default()
    };
    let e = agents.update(unclear).unwrap_err();
    assert!(e.to_string().contains("option number"), "{e}");
    assert!(agents.inbox_item(&id).is_ok());

    let garden = item
        .options
        .iter()
        .position(|o| o.contains("garden"))
        .unwrap()
        + 1;
    let reply = Payload {
        text: garden.to_string(),
        inbox_ref: Some(id.clone()),
        ..Payload::default()
    };
    let report = agents.update(reply).unwrap();
    assert_eq!(report.outcome, Outcome::Resolved);
    assert!(agents.inbox().unwrap().is_empty(), "the item is gone");
    let state = fx.read("projects/garden/state.md");
    assert!(
        state.contains("Both need a weekend of work")
            && state.contains("![plan.png](attachments/plan.png)"),
        "{state}"
    );
    assert_eq!(
        fx.vault
            .read_bytes("projects/garden/attachments/plan.png")
            .unwrap(),
        b"PNG"
    );
    assert!(fx.changelog_entries()[0].contains(&format!("inbox item {id}")));
}

#[test]
fn an_unmatched_note_goes_to_the_inbox_and_can_be_answered_by_name_or_discarded() {
    let fx = Fixture::new();
    let agents = fx.offline();
    let cases = [
        (
            "Quarterly numbers look fine",
            "the thesis",
            Some("projects/thesis/state.md"),
        ),
        ("Lunch with Sam was nice", "discard", None),
        // A new user has no projects yet: an answer starts one.
        (
            "A week in Lisbon in May with Ana",
            "new project Lisbon Trip",
            Some("projects/lisbon-trip/state.md"),
        ),
    ];
    for (text, answer, expected) in cases {
        let report = agents.update(Payload::text(text)).unwrap();
        assert_eq!(report.outcome, Outcome::Inbox, "{text}: {report:?}");
        assert!(report.reasoning.unwrap().contains("No project"));
        let id = report.inbox_id.unwrap();
        let reply = Payload {
            text: answer.into(),
            inbox_ref: Some(id),
            ..Payload::default()
        };
        let report = agents.update(reply).unwrap();
        match expected {
            Some(path) => {
                assert_eq!(report.outcome, Outcome::Resolved);
                // A new state.md: its title comes from the project, and the
                // update's text appears once.
                let note = fx.read(path);
                let body = knower_vault::frontmatter::split(&note).unwrap().body;
                let title = if path.contains("thesis") {
                    "Thesis"
                } else {
                    "Lisbon trip"
                };
                assert!(
                    body.starts_with(&format!("# {title} — state\n\n## ")),
                    "{body}"
                );
                assert_eq!(body.matches(text).count(), 1, "{body}");
                // A project the answer started has its description, from
                // the answer and the first note; one that was there keeps
                // its own.
                let project = path.trim_end_matches("/state.md");
                let description = fx.read(&format!("{project}/description.md"));
                if path.contains("lisbon") {
                    assert!(
                        report
                            .changed
                            .contains(&format!("{project}/description.md")),
                        "{report:?}"
                    );
                    assert!(description.contains("# Lisbon trip\n"), "{description}");
                    assert!(description.contains(text), "{description}");
                } else {
                    assert!(!description.contains("Started from the inbox"));
                }
            }
            None => assert_eq!(report.outcome, Outcome::Discarded),
        }
        assert!(agents.inbox().unwrap().is_empty());
    }
}

#[test]
fn inbox_references_and_payloads_are_checked() {
    let fx = Fixture::new();
    let agents = fx.offline();
    for bad in ["../projects", "nope", "a/b", ""] {
        let p = Payload {
            text: "1".into(),
            inbox_ref: Some(bad.into()),
            ..Payload::default()
        };
        assert!(agents.update(p).is_err(), "{bad}");
    }
    assert!(agents.update(Payload::text(" \n")).is_err());
    let huge = Payload::text("x".repeat(2 << 20));
    assert!(
        agents
            .update(huge)
            .unwrap_err()
            .to_string()
            .contains("at most")
    );
}

#[test]
fn answers_are_extractive_cite_the_right_file_and_say_when_nothing_matches() {
    let fx = Fixture::new();
    let agents = fx.offline();
    let answer = agents
        .ask("Which database does the geocoding API use?", Mode::Fast)
        .unwrap();
    assert!(answer.found);
    assert!(answer.markdown.starts_with("_offline engine"));
    assert!(
        answer
            .sources
            .iter()
            .all(|s| s.path.starts_with("projects/atlas/")),
        "{:?}",
        answer.sources
    );
    assert!(
        answer
            .sources
            .iter()
            .any(|s| s.path == "projects/atlas/state.md")
    );
    assert!(answer.markdown.contains("**projects/atlas/state.md:"));
    assert!(
        answer
            .markdown
            .contains("> The geocoding API runs on Postgres 16 with PostGIS.")
    );
    // The answer comes first: the lines that answer, each with its
    // path:line, and each line really is there.
    let composed: Vec<&str> = answer
        .markdown
        .lines()
        .filter(|l| l.starts_with("- ") && l.contains(" — `"))
        .collect();
    assert!(
        !composed.is_empty(),
        "no composed answer: {}",
        answer.markdown
    );
    for line in &composed {
        let (text, cite) = line[2..].rsplit_once(" — `").unwrap();
        let (path, number) = cite.trim_end_matches('`').rsplit_once(':').unwrap();
        let file = fx.read(path);
        let at = file
            .lines()
            .nth(number.parse::<usize>().unwrap() - 1)
            .unwrap();
        assert!(at.contains(text), "{line} is not {path}:{number} ({at})");
    }
    assert!(
        composed.iter().any(|l| l.starts_with(
            "- The geocoding API runs on Postgres 16 with PostGIS. — `projects/atlas/state.md:"
        )),
        "{composed:?}"
    );
    assert!(
        answer.markdown.find("From your notes").unwrap()
            < answer.markdown.find("**projects/atlas/state.md:").unwrap()
    );
    let none = agents.ask("xylophone quartet", Mode::Fast).unwrap();
    assert!(!none.found);
    assert!(none.markdown.contains("does not hold anything"));
}

#[test]
fn the_changelogs_routing_lines_are_never_evidence() {
    let fx = Fixture::new();
    let agents = fx.offline();
    let report = agents
        .update(Payload::text(
            "Atlas: the zebra crossing tiles render blurry",
        ))
        .unwrap();
    assert_eq!(report.outcome, Outcome::Filed);
    assert!(
        fx.read("changelog.md").contains("zebra"),
        "the routing line names it"
    );
    let answer = agents.ask("zebra crossing tiles", Mode::Fast).unwrap();
    assert!(answer.found);
    assert!(
        answer.sources.iter().all(|s| s.path != "changelog.md"),
        "{:?}",
        answer.sources
    );
    assert!(
        answer
            .sources
            .iter()
            .any(|s| s.path == "projects/atlas/state.md")
    );
    // An event in the changelog (written there by hand) is evidence.
    fx.vault
        .append(
            "changelog.md",
            "- 2026-11-20: met the quokka delegation",
            knower_vault::Position::Top,
            &knower_vault::Author::new("test", "an event"),
        )
        .unwrap();
    fx.index.catch_up(&mut |_, _| {}).unwrap();
    let answer = agents.ask("quokka delegation", Mode::Fast).unwrap();
    assert!(
        answer.sources.iter().any(|s| s.path == "changelog.md"),
        "{}",
        answer.markdown
    );
}

#[test]
fn prompts_ship_built_in_and_the_vault_can_override_them() {
    let fx = Fixture::new();
    let prompts = knower_agents::prompts(&fx.vault);
    assert!(
        prompts
            .iter()
            .all(|p| p.source == knower_agents::PromptSource::BuiltIn)
    );
    fx.vault
        .write(
            "prompts/search.md",
            "Answer in French.",
            &Author::new("test", "override"),
        )
        .unwrap();
    let prompts = knower_agents::prompts(&fx.vault);
    let search = prompts.iter().find(|p| p.name == "search").unwrap();
    assert_eq!(
        search.source,
        knower_agents::PromptSource::Vault("prompts/search.md".into())
    );
    assert_eq!(search.text, "Answer in French.");
    assert_eq!(knower_agents::kind_of("Answer in French."), Kind::Note);
}

#[test]
fn an_attachment_never_replaces_another_of_the_same_name() {
    let fx = Fixture::new();
    let agents = fx.offline();
    for bytes in [b"first".to_vec(), b"second".to_vec()] {
        let payload = Payload {
            text: "Garden: photo of the raised beds".into(),
            attachments: vec![Attachment::new("beds.jpg", bytes)],
            ..Payload::default()
        };
        agents.update(payload).unwrap();
    }
    assert_eq!(
        fx.vault
            .read_bytes("projects/garden/attachments/beds.jpg")
            .unwrap(),
        b"first"
    );
    assert_eq!(
        fx.vault
            .read_bytes("projects/garden/attachments/beds-2.jpg")
            .unwrap(),
        b"second"
    );
    assert!(
        fx.read("projects/garden/state.md")
            .contains("![beds.jpg](attachments/beds-2.jpg)")
    );
}

#[test]
fn resume_undoes_a_half_done_update_and_recognises_a_finished_one() {
    let dir = tempfile::tempdir().unwrap();
    let (vault, _) =
        knower_vault::Vault::init(dir.path(), &knower_vault::Author::new("test", "init")).unwrap();
    let agent = |reason: &str| knower_vault::Author::new("agent", reason);
    vault
        .write(
            "notes/kept.md",
            "# Kept\n",
            &agent("update-other: not ours"),
        )
        .unwrap();
    // Two changes of update-a, then the process died before its changelog entry.
    vault
        .write("notes/half.md", "# Half\n", &agent("update-a: first step"))
        .unwrap();
    vault
        .append(
            "notes/kept.md",
            "more\n",
            knower_vault::Position::Bottom,
            &agent("update-a: second step"),
        )
        .unwrap();
    let resumed = knower_agents::resume(&vault, "update-a").unwrap();
    assert_eq!(resumed, knower_agents::Resume::RolledBack { undone: 2 });
    assert!(vault.read("notes/half.md").is_err());
    assert_eq!(
        vault.read("notes/kept.md").unwrap().lines().last(),
        Some("# Kept")
    );
    // Undone once is undone: a second interruption undoes nothing again.
    assert_eq!(
        knower_agents::resume(&vault, "update-a").unwrap(),
        knower_agents::Resume::RolledBack { undone: 0 }
    );
    // The re-run finishes: its changelog entry says so.
    vault
        .write("notes/half.md", "# Half\n", &agent("update-a: first step"))
        .unwrap();
    vault
        .append(
            "changelog.md",
            "- filed\n",
            knower_vault::Position::Top,
            &agent("update-a: filed the note"),
        )
        .unwrap();
    match knower_agents::resume(&vault, "update-a").unwrap() {
        knower_agents::Resume::Finished { summary, changed } => {
            assert_eq!(summary, "filed the note");
            assert!(
                changed.contains(&"notes/half.md".to_string()),
                "{changed:?}"
            );
            assert!(!changed.contains(&"changelog.md".to_string()));
        }
        other => panic!("{other:?}"),
    }
    // An update id is a prefix only up to its colon.
    assert_eq!(
        knower_agents::resume(&vault, "update-").unwrap(),
        knower_agents::Resume::RolledBack { undone: 0 }
    );
}

#[test]
fn notes_read_like_notes_one_heading_a_day_tasks_as_tasks_preferences_in_their_section() {
    let fx = Fixture::new();
    let agents = fx.offline();
    for text in [
        "Atlas: the tile cache hit rate dropped to 60% after the upgrade",
        "Atlas: the geocoding API latency is back to normal",
    ] {
        let report = agents.update(Payload::text(text)).unwrap();
        assert_eq!(report.changed, ["projects/atlas/state.md"], "{report:?}");
    }
    let state = fx.read("projects/atlas/state.md");
    assert_eq!(state.matches("\n## 20").count(), 1, "{state}");
    assert!(
        state.contains("\n\n## 20"),
        "a blank line before the heading: {state}"
    );

    let report = agents
        .update(Payload::text("Need to renew the Atlas TLS certificate"))
        .unwrap();
    assert_eq!(report.changed, ["projects/atlas/tasks.md"], "{report:?}");
    assert!(
        fx.read("projects/atlas/tasks.md")
            .contains("- [ ] Renew the Atlas TLS certificate"),
        "{}",
        fx.read("projects/atlas/tasks.md")
    );

    for text in [
        "I prefer answers in French",
        "I prefer short answers with sources",
    ] {
        let report = agents.update(Payload::text(text)).unwrap();
        assert_eq!(report.changed, ["profile.md"], "{report:?}");
    }
    let profile = fx.read("profile.md");
    let preferences = profile.split("## Preferences").nth(1).unwrap();
    assert!(
        preferences
            .trim_start()
            .starts_with("- I prefer answers in French")
            && preferences.contains("\n- I prefer short answers with sources"),
        "{profile}"
    );
    assert!(
        !profile.contains("How you like answers and notes"),
        "{profile}"
    );
    assert!(profile.contains("Name, role, where you work"), "{profile}");

    // The profile is not indexed, but a question about the user reads it.
    let answer = agents
        .ask("What are my preferences for answers?", Mode::Fast)
        .unwrap();
    assert!(answer.found, "{}", answer.markdown);
    let cited: Vec<_> = answer
        .sources
        .iter()
        .filter(|s| s.path == "profile.md")
        .collect();
    assert_eq!(cited.len(), 2, "{}", answer.markdown);
    for source in cited {
        let line = profile.lines().nth(source.line_start - 1).unwrap();
        assert!(line.starts_with("- I prefer"), "{line}");
    }
    assert!(
        answer.markdown.contains("- I prefer answers in French"),
        "{}",
        answer.markdown
    );
    // A question about something else does not bring the profile in.
    let other = agents
        .ask("Which database does the geocoding API use?", Mode::Fast)
        .unwrap();
    assert!(other.sources.iter().all(|s| s.path != "profile.md"));
}

#[test]
fn inbox_items_have_short_codes_accepted_wherever_ids_are() {
    let fx = Fixture::new();
    let agents = fx.offline();
    let report = agents
        .update(Payload::text(
            "Lunch with Sam was nice, we should do it again instead of the usual video call",
        ))
        .unwrap();
    assert_eq!(report.outcome, Outcome::Inbox);
    let id = report.inbox_id.unwrap();
    // The id is cut at a word, never inside one.
    let slug_words: Vec<&str> = id.splitn(4, '-').nth(3).unwrap().split('-').collect();
    let text = "lunch with sam was nice we should do it again instead of the usual video call";
    for word in &slug_words {
        assert!(text.split(' ').any(|w| w == *word), "{word} is cut in {id}");
    }
    let item = agents.inbox_item(&id).unwrap();
    assert_eq!(item.code.len(), 4);
    assert_eq!(item.code, knower_agents::inbox_code(&id), "stable");
    assert_eq!(agents.inbox_item(&item.code).unwrap().id, id);
    assert_eq!(agents.inbox_item(&item.code.to_uppercase()).unwrap().id, id);
    let reply = Payload {
        text: "discard".into(),
        inbox_ref: Some(item.code.clone()),
        ..Payload::default()
    };
    assert_eq!(agents.update(reply).unwrap().outcome, Outcome::Discarded);
    assert!(agents.inbox().unwrap().is_empty());
}

#[test]
fn one_update_is_one_change_and_an_older_one_can_be_undone_alone() {
    let fx = Fixture::new();
    let agents = fx.offline();
    let author = knower_vault::Author::new("test", "undo");
    let first = agents
        .update(Payload::text("Atlas: the tile cache was flushed"))
        .unwrap();
    let first_change = fx.vault.log().unwrap().pop().unwrap();
    let paths: Vec<&str> = first_change.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths.len(), 2, "the note and the changelog line: {paths:?}");
    assert!(paths.contains(&"changelog.md") && paths.contains(&first.changed[0].as_str()));
    // A later update touches the same two files.
    agents
        .update(Payload::text("Atlas: the geocoder was restarted"))
        .unwrap();
    // Undoing the first takes back its own lines only.
    fx.vault.undo(first_change.id, &author, false).unwrap();
    let state = fx.read("projects/atlas/state.md");
    let changelog = fx.read("changelog.md");
    assert!(!state.contains("tile cache was flushed"), "{state}");
    assert!(state.contains("geocoder was restarted"), "{state}");
    assert!(!changelog.contains(&first.id), "{changelog}");
    assert!(changelog.contains("geocoder was restarted"), "{changelog}");
}

#[test]
fn an_update_made_in_several_changes_is_undone_as_one_and_known_undone() {
    let dir = tempfile::tempdir().unwrap();
    let (vault, _) =
        knower_vault::Vault::init(dir.path(), &knower_vault::Author::new("test", "init")).unwrap();
    let agent = |reason: &str| knower_vault::Author::new("agent", reason);
    let bottom = knower_vault::Position::Bottom;
    vault
        .write("notes/shared.md", "# Shared\n", &agent("the user"))
        .unwrap();
    // A model's run: a new note, a line added to a shared note, the changelog.
    vault
        .write(
            "notes/trip.md",
            "# Trip\n",
            &agent("update-1-b: wrote the note"),
        )
        .unwrap();
    vault
        .append(
            "notes/shared.md",
            "from b\n",
            bottom,
            &agent("update-1-b: added a line"),
        )
        .unwrap();
    vault
        .append(
            "changelog.md",
            "- b\n",
            bottom,
            &agent("update-1-b: filed b"),
        )
        .unwrap();
    // A later update writes to the same files.
    vault
        .append(
            "notes/shared.md",
            "from c\n",
            bottom,
            &agent("update-1-c: added a line"),
        )
        .unwrap();
    vault
        .append(
            "changelog.md",
            "- c\n",
            bottom,
            &agent("update-1-c: filed c"),
        )
        .unwrap();
    let before = vault.log().unwrap().len();

    let undo = knower_agents::undo_update(&vault, "update-1-b", "user", false).unwrap();
    assert_eq!(vault.log().unwrap().len(), before + 1, "one change");
    assert_eq!(undo.undoes.len(), 3);
    assert!(vault.read("notes/trip.md").is_err());
    let shared = vault.read("notes/shared.md").unwrap();
    assert!(!shared.contains("from b") && shared.contains("from c"));
    let changelog = vault.read("changelog.md").unwrap();
    assert!(!changelog.contains("- b") && changelog.contains("- c"));

    let journal = vault.log().unwrap();
    let undone = knower_agents::undone_updates(&journal);
    assert_eq!(undone.get("update-1-b"), Some(&undo.id));
    assert!(!undone.contains_key("update-1-c"));
    let again = knower_agents::undo_update(&vault, "update-1-b", "user", false).unwrap_err();
    assert!(again.to_string().contains("already undone"), "{again}");
    assert!(knower_agents::undo_update(&vault, "update-none", "user", false).is_err());

    // Undoing the undo brings the update back, and it no longer counts as undone.
    vault
        .undo(undo.id, &knower_vault::Author::new("user", ""), false)
        .unwrap();
    assert!(vault.read("notes/trip.md").is_ok());
    let journal = vault.log().unwrap();
    assert!(!knower_agents::undone_updates(&journal).contains_key("update-1-b"));
}

#[test]
fn vague_referential_and_personal_notes_are_asked_about_or_go_to_the_profile() {
    let fx = Fixture::new();
    let agents = fx.offline();
    for text in [
        "check on it again next week",
        "call someone about the thing",
        "Same review as last time for the garden",
        "Do the same as for the other one",
        // "The end of the week" is a time, not a subject.
        "Deal with that before the end of the week",
        "Ask whether it is still on",
        // What was said elsewhere is not said here.
        "As mentioned",
        "Like I said, next week",
    ] {
        let report = agents.update(Payload::text(text)).unwrap();
        assert_eq!(report.outcome, Outcome::Inbox, "{text}: {report:?}");
        let why = report.reasoning.unwrap();
        assert!(
            why.contains("says too little") || why.contains("refers to something it does not say"),
            "{text}: {why}"
        );
    }
    for text in [
        "My sister Lena lives in Hamburg",
        "My partner's name is Sam",
    ] {
        let report = agents.update(Payload::text(text)).unwrap();
        assert_eq!(report.changed, ["profile.md"], "{text}: {report:?}");
    }
    assert!(
        fx.read("profile.md")
            .contains("My sister Lena lives in Hamburg")
    );
}

#[test]
fn a_reply_to_something_unsaid_is_asked_about_whatever_word_it_shares() {
    let fx = Fixture::new();
    let pottery =
        "# Pottery\n\nThrowing on the wheel on my free evenings: fine clay, long firings.\n";
    fx.add_notes(&[("projects/pottery/description.md", pottery)]);
    for text in [
        "Fine, as long as it's soon",
        "That's fine by me",
        "Whoever's free",
        // A preference in form, going along with what was asked.
        "I'm easy",
    ] {
        let decided = routed(&fx.vault, &fx.index, text);
        assert_eq!(decided.destination, None, "{text}: {}", decided.reasoning);
        assert!(
            decided
                .reasoning
                .contains("answers something it does not say"),
            "{text}: {}",
            decided.reasoning
        );
    }
    // The same words, telling something of their own, still place it.
    let told = routed(&fx.vault, &fx.index, "Fine clay cracks in a long firing");
    assert_eq!(
        told.destination.as_deref(),
        Some("projects/pottery/state.md"),
        "{}",
        told.reasoning
    );
    let fact = routed(&fx.vault, &fx.index, "I'm easy to please");
    assert_eq!(
        fact.destination.as_deref(),
        Some("profile.md"),
        "{}",
        fact.reasoning
    );
}

#[test]
fn confidence_is_a_share_that_does_not_drift_as_the_vault_grows() {
    let fx = Fixture::new();
    let text = "Map tiles render slowly on the geocoding pages";
    let before = routed(&fx.vault, &fx.index, text);
    assert_eq!(
        before.destination.as_deref(),
        Some("projects/atlas/state.md"),
        "{before:?}"
    );
    assert!(!before.reasoning.contains("inf"), "{}", before.reasoning);
    // Twenty notes elsewhere, as a vault grows.
    let author = knower_vault::Author::new("test", "growth");
    for i in 0..20 {
        fx.vault
            .write(
                &format!("projects/thesis/notes/n{i}.md"),
                &format!("# Reading {i}\n\nSparse retrieval paper {i}: pages of experiments.\n"),
                &author,
            )
            .unwrap();
    }
    fx.index.catch_up(&mut |_, _| {}).unwrap();
    let after = routed(&fx.vault, &fx.index, text);
    assert_eq!(after.destination, before.destination);
    assert_eq!(after.confidence, before.confidence, "{}", after.reasoning);
    // A note sharing one word with a project is not evidence for it.
    let one_word = routed(
        &fx.vault,
        &fx.index,
        "Lunch with Sam near the pages of the old bookshop",
    );
    assert_eq!(one_word.destination, None, "{}", one_word.reasoning);
}

/// A word only one project's notes hold places a note there, at the
/// lowest confidence of a filing; the same kind of word held by two
/// projects places it nowhere, and a task whose words two projects share
/// is asked about rather than put on the global list.
#[test]
fn a_word_only_one_project_holds_files_the_note_there() {
    let fx = Fixture::new();
    let sole = routed(
        &fx.vault,
        &fx.index,
        "Upgraded the Postgres replicas overnight",
    );
    assert_eq!(
        sole.destination.as_deref(),
        Some("projects/atlas/changelog.md"),
        "{}",
        sole.reasoning
    );
    assert!(
        sole.reasoning
            .contains("no other project's notes share any of its words, and atlas's hold postgr"),
        "{}",
        sole.reasoning
    );
    assert!(
        (0.6..0.7).contains(&sole.confidence.unwrap()),
        "{}",
        sole.confidence.unwrap()
    );

    // "compost" is the garden's, "Postgres" atlas's: one word each.
    let spread = "Order compost and a Postgres book before the weekend";
    let task = routed(&fx.vault, &fx.index, spread);
    assert_eq!(task.destination, None, "{}", task.reasoning);
    assert!(
        task.reasoning.contains("spread over several projects"),
        "{}",
        task.reasoning
    );
    // A task no project has a word of still goes to the global list.
    let errand = routed(&fx.vault, &fx.index, "Order a birthday cake for Sam");
    assert_eq!(
        errand.destination.as_deref(),
        Some("tasks.md"),
        "{}",
        errand.reasoning
    );
}

/// An everyday word the text calls a project by ties the text to it as a
/// word of its own would: "the tour" is the Mahler tour, and a task about
/// it is no errand, though a passport is one.
#[test]
fn an_everyday_word_that_names_a_project_outweighs_an_errand() {
    let fx = Fixture::new();
    fx.add_notes(&[(
        "projects/mahler-tour/description.md",
        "# Mahler tour\n\nThe orchestra's Mahler tour of Germany in May.\n",
    )]);
    let route = |text: &str| routed(&fx.vault, &fx.index, text);
    let tour = route("Check my passport is valid until after the tour");
    assert_eq!(
        tour.destination.as_deref(),
        Some("projects/mahler-tour/tasks.md"),
        "{}",
        tour.reasoning
    );
    // Without the name, the passport is an errand.
    let errand = route("Check my passport is valid until after Easter");
    assert_eq!(
        errand.destination.as_deref(),
        Some("tasks.md"),
        "{}",
        errand.reasoning
    );
}

/// A task no project's notes share a word of goes to the global list when
/// it is an everyday errand, and is asked about when it is not: in a vault
/// with projects, "the gasket set" is as likely one of theirs.
#[test]
fn a_task_in_words_no_note_holds_is_asked_about_unless_it_is_an_errand() {
    let fx = Fixture::new();
    let errand = routed(&fx.vault, &fx.index, "Renew the car insurance");
    assert_eq!(
        errand.destination.as_deref(),
        Some("tasks.md"),
        "{}",
        errand.reasoning
    );
    assert!(
        errand
            .reasoning
            .contains("“car” makes it an everyday errand"),
        "{}",
        errand.reasoning
    );
    let specific = "Order a new clutch cable and the gasket set";
    let asked = routed(&fx.vault, &fx.index, specific);
    assert_eq!(asked.destination, None, "{}", asked.reasoning);
    assert!(
        asked
            .reasoning
            .contains("does not read as an everyday errand"),
        "{}",
        asked.reasoning
    );
    // The choices offered are the global list and each project's tasks.
    let offered = offered(&asked);
    assert_eq!(offered[0], "tasks.md", "{offered:?}");
    assert!(offered.contains(&"projects/atlas/tasks.md"), "{offered:?}");
    assert_eq!(offered.last(), Some(&"bucket/"), "{offered:?}");

    // With no projects, every task without a home is the global list's.
    let dir = tempfile::tempdir().unwrap();
    let (vault, _) = knower_vault::Vault::init(dir.path(), &Author::new("test", "empty")).unwrap();
    let vault = std::sync::Arc::new(vault);
    let index = knower_index::Index::open(vault.clone()).unwrap();
    let alone = routed(&vault, &index, specific);
    assert_eq!(
        alone.destination.as_deref(),
        Some("tasks.md"),
        "{}",
        alone.reasoning
    );
}

/// With an embedding model at hand, a note that shares no word with any
/// project but clearly means one is filed there, and says why; without a
/// model the same note is asked about.
#[test]
fn with_a_model_a_note_is_filed_by_its_meaning() {
    let text = "The courgettes and lettuce seedlings need fertiliser and more sunlight";
    let plain = Fixture::new();
    let report = plain.offline().update(Payload::text(text)).unwrap();
    assert_eq!(report.outcome, Outcome::Inbox, "{report:?}");

    let model = model::model_dir();
    let fx = Fixture::with_search_model(model.to_str().unwrap());
    let report = fx.offline().update(Payload::text(text)).unwrap();
    assert_eq!(report.outcome, Outcome::Filed, "{report:?}");
    assert_eq!(report.changed, ["projects/garden/state.md"]);
    let why = report.reasoning.unwrap();
    assert!(
        why.contains("Closest in meaning (cosine to its notes): garden")
            && why.contains("its meaning does"),
        "{why}"
    );
    let confidence = report.confidence.unwrap();
    assert!((0.6..=0.85).contains(&confidence), "{confidence}");
}

/// Words and meaning disagreeing clearly is a reason to ask: the words of
/// this note lean to atlas (tiles, cluster, runs, API), its meaning to the garden.
#[test]
fn with_a_model_words_and_meaning_that_disagree_go_to_the_inbox() {
    let text = "Tiles of beans and tomatoes: the compost cluster runs an API";
    let (words_only, decision) = routed_without_and_with_a_model(text);
    assert_eq!(
        words_only.destination.as_deref(),
        Some("projects/atlas/state.md"),
        "{}",
        words_only.reasoning
    );
    assert_eq!(decision.destination, None, "{}", decision.reasoning);
    assert!(
        decision
            .reasoning
            .contains("Its words point to atlas (its notes hold 57% of these words")
            && decision
                .reasoning
                .contains("but its meaning is closer to garden's notes"),
        "{}",
        decision.reasoning
    );
    // Both are offered as answers.
    let offered = offered(&decision);
    assert!(
        offered.contains(&"projects/atlas/state.md")
            && offered.contains(&"projects/garden/state.md"),
        "{offered:?}"
    );
}

/// A word only one project holds does not file a note whose meaning is
/// clearly another project's: "cluster" is atlas's word, the seedlings
/// are the garden's, and MiniLM says so clearly enough to file it there.
#[test]
fn with_a_model_a_clear_meaning_outweighs_a_sole_word() {
    let text = "A cluster of lettuce seedlings wilted in the heat and needs shade";
    let (words_only, decision) = routed_without_and_with_a_model(text);
    assert_eq!(
        words_only.destination.as_deref(),
        Some("projects/atlas/state.md"),
        "{}",
        words_only.reasoning
    );
    assert_eq!(
        decision.destination.as_deref(),
        Some("projects/garden/state.md"),
        "{}",
        decision.reasoning
    );
    assert!(
        decision
            .reasoning
            .contains("Its words do not decide, but its meaning does"),
        "{}",
        decision.reasoning
    );
}

/// An everyday errand told in two words goes to the global list however
/// its meaning leans when a project's notes hold only the errand's own
/// words: a budget's "software licences" make "Renew the TV licence"
/// close in meaning, but not the budget's task.
#[test]
fn with_a_model_an_errand_in_two_words_stays_global_beside_its_own_word() {
    let model = model::model_dir();
    let fx = Fixture::with_search_model(model.to_str().unwrap());
    let budget = "# 2027 budget\n\nBuilding the department's budget: headcount, software licences and travel.\n";
    let state = "# State\n\nSoftware costs are up 20% because of the new licences.\n";
    fx.add_notes(&[
        ("projects/budget/description.md", budget),
        ("projects/budget/state.md", state),
    ]);
    let decision = routed(&fx.vault, &fx.index, "Renew the TV licence");
    assert!(
        decision
            .reasoning
            .contains("Closest in meaning (cosine to its notes): budget"),
        "{}",
        decision.reasoning
    );
    assert_eq!(
        decision.destination.as_deref(),
        Some("tasks.md"),
        "{}",
        decision.reasoning
    );
}

/// When the meaning leads the sole holder by the margin but is too faint
/// to file on (ahead of the runner-up by less than `MEANING_MARGIN`:
/// garden 0.29, thesis 0.15, atlas 0.09), the note is asked about.
#[test]
fn with_a_model_a_sole_word_against_a_faint_meaning_goes_to_the_inbox() {
    let text = "A weedy cluster at the back";
    let (words_only, decision) = routed_without_and_with_a_model(text);
    assert_eq!(
        words_only.destination.as_deref(),
        Some("projects/atlas/state.md"),
        "{}",
        words_only.reasoning
    );
    assert_eq!(decision.destination, None, "{}", decision.reasoning);
    assert!(
        decision.reasoning.contains(
            "Only atlas's notes share words of it (cluster), but its meaning is closer to garden's notes"
        ),
        "{}",
        decision.reasoning
    );
}

/// A fact of one of the user's things whose words no project's notes hold
/// is asked about by words alone (the profile the first answer), and goes
/// to the project it clearly means with a model; a fact about someone in
/// the user's life stays the profile's either way.
#[test]
fn with_a_model_a_fact_of_the_users_things_goes_where_it_clearly_means() {
    let text = "My lettuce seedlings need fertiliser and more sunlight";
    let (words_only, decision) = routed_without_and_with_a_model(text);
    assert_eq!(words_only.destination, None, "{}", words_only.reasoning);
    assert_eq!(offered(&words_only)[0], "profile.md");
    assert_eq!(
        decision.destination.as_deref(),
        Some("projects/garden/state.md"),
        "{}",
        decision.reasoning
    );
    assert!(
        decision
            .reasoning
            .contains("one of your things more than who you are: it is placed as a note")
            && decision
                .reasoning
                .contains("Its words do not decide, but its meaning does: cosine"),
        "{}",
        decision.reasoning
    );
    // A short one sits far from every project's notes: its lead places
    // it, from a cosine below a note's (0.22 here, and 0.00 next).
    let (words_only, leggy) =
        routed_without_and_with_a_model("My seedlings go leggy on the windowsill");
    assert_eq!(words_only.destination, None, "{}", words_only.reasoning);
    assert_eq!(
        leggy.destination.as_deref(),
        Some("projects/garden/state.md"),
        "{}",
        leggy.reasoning
    );
    let (_, sister) = routed_without_and_with_a_model("My sister keeps chickens near Hamburg");
    assert_eq!(
        sister.destination.as_deref(),
        Some("profile.md"),
        "{}",
        sister.reasoning
    );
}

/// A fact that holds only at times is placed as a note is, and with a
/// model from the same smaller cosine as a fact of the user's things: a
/// short first-person text sits far from every project's notes (0.23
/// here, below a note's floor, and 0.06 next).
#[test]
fn with_a_model_a_fact_that_holds_at_times_goes_where_it_clearly_means() {
    filed_only_with_a_model(
        "My chillies drop their flowers when it is cold",
        "projects/garden/state.md",
        "Its words do not decide, but its meaning does: cosine 0.23",
    );
}

/// The meaning weighs each sentence of a project's description and state
/// as well as the passages: "the watering schedule" is one part of the
/// garden's description, which, blended with tomatoes, beans and compost,
/// sits too far from a note about a sprinkler's timer to place it
/// (cosine 0.14 against 0.17 for the part).
#[test]
fn with_a_model_a_note_about_one_part_of_a_project_is_placed_by_it() {
    filed_only_with_a_model(
        "The sprinkler timer resets every time the power goes",
        "projects/garden/state.md",
        "its meaning is closest to garden's notes (cosine 0.17",
    );
}

/// Checks that `text` is asked about without an embedding model and
/// filed in `destination` with the real one, for `reason`; that decision.
fn filed_only_with_a_model(text: &str, destination: &str, reason: &str) -> knower_agents::Decision {
    let (words_only, decision) = routed_without_and_with_a_model(text);
    assert_eq!(words_only.destination, None, "{}", words_only.reasoning);
    assert_eq!(
        decision.destination.as_deref(),
        Some(destination),
        "{}",
        decision.reasoning
    );
    assert!(
        decision.reasoning.contains(reason),
        "{}",
        decision.reasoning
    );
    decision
}

/// How `text` is routed on the fixture without an embedding model, then
/// with the real one.
fn routed_without_and_with_a_model(
    text: &str,
) -> (knower_agents::Decision, knower_agents::Decision) {
    let plain = Fixture::new();
    let words_only = routed(&plain.vault, &plain.index, text);
    let model = model::model_dir();
    let fx = Fixture::with_search_model(model.to_str().unwrap());
    let decision = routed(&fx.vault, &fx.index, text);
    (words_only, decision)
}

/// Of several projects whose notes share words of a note, the one that
/// holds a word that is not an everyday one is the note's when the others
/// hold only everyday words: "house" is the garden's too, "Postgres" is
/// atlas's alone. Two projects with words of their own stay a question.
#[test]
fn a_rare_word_outweighs_everyday_words_other_projects_hold() {
    let fx = Fixture::new();
    let text = "The Postgres dump has the wrong house numbers";
    let decision = routed(&fx.vault, &fx.index, text);
    assert_eq!(
        decision.destination.as_deref(),
        Some("projects/atlas/state.md"),
        "{}",
        decision.reasoning
    );
    assert!(
        decision.reasoning.contains(
            "Filed in atlas: other projects' notes share only everyday words of it, and atlas's hold postgr"
        ),
        "{}",
        decision.reasoning
    );
    assert!(
        (0.6..0.7).contains(&decision.confidence.unwrap()),
        "{:?}",
        decision.confidence
    );
    let both = "The Postgres dump has the compost numbers";
    let asked = routed(&fx.vault, &fx.index, both);
    assert_eq!(asked.destination, None, "{}", asked.reasoning);
}

/// An everyday word is a weak tie: the garden's notes say "house", which
/// makes neither "Renew the house insurance" its task (an errand, for the
/// global list) nor a note on the thesis its news when the meaning leans
/// to the thesis, even by less than it takes to overrule a project's own
/// word.
#[test]
fn a_common_word_one_project_holds_is_a_weak_tie() {
    let fx = Fixture::new();
    let errand = routed(&fx.vault, &fx.index, "Renew the house insurance");
    assert_eq!(
        errand.destination.as_deref(),
        Some("tasks.md"),
        "{}",
        errand.reasoning
    );
    assert!(
        errand.reasoning.contains(
            "Only garden's notes share a word of it, and an everyday one (hous); “insurance” makes it an everyday errand"
        ),
        "{}",
        errand.reasoning
    );
    // A project's own word still files its task ("compost" is no
    // everyday word), errand or not.
    let own = routed(&fx.vault, &fx.index, "Pay for the compost delivery");
    assert_eq!(
        own.destination.as_deref(),
        Some("projects/garden/tasks.md"),
        "{}",
        own.reasoning
    );

    // Nor does a word of an errand told in two: a golf project's notes
    // say "driving", which is no tie to a driving licence.
    let golf = "# Golf\n\nLessons with the club pro and an hour at the driving range each week.\n";
    fx.add_notes(&[("projects/golf/description.md", golf)]);
    let licence = routed(&fx.vault, &fx.index, "Renew my driving licence");
    assert_eq!(
        licence.destination.as_deref(),
        Some("tasks.md"),
        "{}",
        licence.reasoning
    );
    assert!(
        licence.reasoning.contains(
            "and the errand's own (drive); “driving licence” makes it an everyday errand"
        ),
        "{}",
        licence.reasoning
    );
    let range = routed(&fx.vault, &fx.index, "Book a bay at the driving range");
    assert_eq!(
        range.destination.as_deref(),
        Some("projects/golf/tasks.md"),
        "{}",
        range.reasoning
    );
    // A sign language course's "test" is no tie to the optician's.
    let bsl = "# BSL Level 2\n\nLearning British Sign Language at night class.\n";
    let passed = "# Changelog\n\n- Passed the receptive skills test\n";
    fx.add_notes(&[
        ("projects/bsl/description.md", bsl),
        ("projects/bsl/changelog.md", passed),
    ]);
    let sight = routed(&fx.vault, &fx.index, "Book a sight test at the optician");
    assert_eq!(
        sight.destination.as_deref(),
        Some("tasks.md"),
        "{}",
        sight.reasoning
    );

    // Nor is an errand's word where a task sends the project's own
    // things: the competition's boards go to the council, which does not
    // make it the council's errand, nor the global list's. But one
    // everyday word in common ("boards") is too little to file it in the
    // competition either (issue 71): it is asked about, with the
    // competition first.
    let entry = "# Library competition\n\nOur entry for the new town library: the concept and the four presentation boards.\n";
    fx.add_notes(&[("projects/competition/description.md", entry)]);
    let boards = "Courier the boards to the council by Friday noon";
    let sent = routed(&fx.vault, &fx.index, boards);
    assert_eq!(sent.destination, None, "{}", sent.reasoning);
    assert_eq!(sent.rule, "one-everyday-word", "{}", sent.reasoning);
    assert_eq!(
        offered(&sent).first(),
        Some(&"projects/competition/tasks.md"),
        "{}",
        sent.reasoning
    );
    // Nor is an errand the project's word owns: the band's insurance is
    // the covers band's, though "band" is an everyday word.
    let band =
        "# Covers band\n\nPlaying bass in a covers band at weddings: the gigs and the setlist.\n";
    fx.add_notes(&[("projects/covers-band/description.md", band)]);
    for owned in [
        "Pay the band's insurance",
        "Pay the band’s public liability insurance",
        "Chase the insurance renewal for the band",
        "Renew the insurance for our band",
    ] {
        let decided = routed(&fx.vault, &fx.index, owned);
        assert_eq!(
            decided.destination.as_deref(),
            Some("projects/covers-band/tasks.md"),
            "{owned}: {}",
            decided.reasoning
        );
    }
    let own = routed(
        &fx.vault,
        &fx.index,
        "Pay my insurance before band practice",
    );
    assert_eq!(
        own.destination.as_deref(),
        Some("tasks.md"),
        "{}",
        own.reasoning
    );

    // An object that is an errand's, before the preposition or after
    // the project's word, keeps the task an errand.
    for errand in [
        "Pay the courier for the boards",
        "Courier the boards and the spare keys to the council",
    ] {
        let decided = routed(&fx.vault, &fx.index, errand);
        assert_eq!(
            decided.destination.as_deref(),
            Some("tasks.md"),
            "{errand}: {}",
            decided.reasoning
        );
    }

    // By words alone, one everyday word ("full") is all the garden's
    // notes share with the thesis's write-up: asked about, not filed
    // there (issue 71); the meaning places it closer to the thesis.
    let text = "Writing up the results section took a full night";
    let (words_only, decision) = routed_without_and_with_a_model(text);
    assert_eq!(words_only.destination, None, "{}", words_only.reasoning);
    assert_eq!(
        words_only.rule, "one-everyday-word",
        "{}",
        words_only.reasoning
    );
    assert_eq!(decision.destination, None, "{}", decision.reasoning);
    assert!(
        decision.reasoning.contains(
            "Only garden's notes share words of it (full), but its meaning is closer to thesis's notes"
        ),
        "{}",
        decision.reasoning
    );
}

/// Words each of two projects holds one of narrow the field without
/// deciding it ("tile" is atlas's, "advisor" the thesis's); with a model,
/// the meaning chooses between them by a lead smaller than it needs to
/// file a note among every project. Without one, or with no lead, it is
/// asked about.
#[test]
fn with_a_model_the_meaning_chooses_among_projects_that_share_its_words() {
    let text = "Discuss the tile cache with my advisor";
    let (words_only, decision) = routed_without_and_with_a_model(text);
    assert_eq!(words_only.destination, None, "{}", words_only.reasoning);
    assert_eq!(
        decision.destination.as_deref(),
        Some("projects/atlas/tasks.md"),
        "{}",
        decision.reasoning
    );
    assert!(
        decision
            .reasoning
            .contains("Its words are shared by 2 projects (atlas's notes hold tile), and of these its meaning is closest to atlas's"),
        "{}",
        decision.reasoning
    );
    assert_eq!(
        decision.confidence.unwrap(),
        knower_agents::SOLE_HOLDER_CONFIDENCE
    );
    // Atlas's cluster and the thesis's experiments, and no lead either way.
    let tied = "The cluster nodes for the experiments are down";
    let (_, asked) = routed_without_and_with_a_model(tied);
    assert_eq!(asked.destination, None, "{}", asked.reasoning);
    // An everyday errand is no project's task for the words it shares,
    // even where the meaning leans to one of them (atlas 0.18, the thesis
    // 0.09).
    let errand = "Book the dentist after the tile review with my advisor";
    let (_, asked) = routed_without_and_with_a_model(errand);
    assert_eq!(asked.destination, None, "{}", asked.reasoning);
    assert!(
        asked
            .reasoning
            .contains("Closest in meaning (cosine to its notes): atlas"),
        "{}",
        asked.reasoning
    );
}

/// A task no project's words tie to, and no everyday errand, is some
/// project's in words its notes do not use yet: with a model, the closest
/// in meaning takes it by a small lead ("brassicas" and "pigeons" are the
/// garden's, though no note says so), at the lowest confidence of a
/// filing. A task the meaning cannot place either is asked about, as
/// without a model.
#[test]
fn with_a_model_a_task_in_new_words_goes_to_the_closest_project() {
    let decision = filed_only_with_a_model(
        "Net the brassicas against the pigeons",
        "projects/garden/tasks.md",
        "so it is likely a project's task in words its notes do not use yet: its meaning is closest to garden's notes",
    );
    assert_eq!(
        decision.confidence.unwrap(),
        knower_agents::SOLE_HOLDER_CONFIDENCE
    );
    // One word is too little to place a task by: MiniLM puts
    // "raspberries" alone closer to the thesis (0.23) than to the garden
    // (0.17).
    let (_, thin) = routed_without_and_with_a_model("Prune the raspberries");
    assert_eq!(thin.destination, None, "{}", thin.reasoning);
    // A clutch cable is no closer to one project than to another.
    let (_, asked) = routed_without_and_with_a_model("Order a new clutch cable and the gasket set");
    assert_eq!(asked.destination, None, "{}", asked.reasoning);
    // An everyday errand stays the global list's, whatever it means.
    let (_, errand) = routed_without_and_with_a_model("Renew the car insurance");
    assert_eq!(
        errand.destination.as_deref(),
        Some("tasks.md"),
        "{}",
        errand.reasoning
    );
}

/// A rare word one project's notes hold outweighs everyday words another's
/// hold, unless the meaning leans to that other one: then by the smaller
/// lead that counts where words tie weakly, it is a question. ("house" is
/// the garden's, "Postgres" atlas's; slug pellets are the garden's.)
#[test]
fn with_a_model_a_rare_word_is_asked_about_when_the_meaning_leans_to_an_everyday_holder() {
    let text = "Pick up slug pellets for the house and a Postgres mug";
    let (words_only, decision) = routed_without_and_with_a_model(text);
    assert_eq!(
        words_only.destination.as_deref(),
        Some("projects/atlas/tasks.md"),
        "{}",
        words_only.reasoning
    );
    assert_eq!(decision.destination, None, "{}", decision.reasoning);
    assert!(
        decision
            .reasoning
            .contains("Only atlas's notes share words of it (postgr), but its meaning is closer to garden's notes"),
        "{}",
        decision.reasoning
    );
}

/// An everyday errand that says nothing else is the global list's, even
/// where the meaning clearly leans to a project whose notes hold none of
/// its words ("Pay the council tax" beside a first flat's purchase); a
/// task that names an errand's word beside what it is about still goes
/// where its meaning clearly points.
#[test]
fn with_a_model_an_errand_that_says_nothing_else_is_the_global_lists() {
    let model = model::model_dir();
    let fx = Fixture::with_search_model(model.to_str().unwrap());
    fx.vault
        .write(
            "projects/flat/description.md",
            "# First flat\n\nBuying our first flat: the mortgage offer, viewings, the solicitor, the survey, stamp duty and moving in.\n",
            &Author::new("test", "a household project"),
        )
        .unwrap();
    fx.index.catch_up(&mut |_, _| {}).unwrap();
    let errand = routed(&fx.vault, &fx.index, "Pay the council tax");
    assert_eq!(
        errand.destination.as_deref(),
        Some("tasks.md"),
        "{}",
        errand.reasoning
    );
    assert!(
        errand
            .reasoning
            .contains("Closest in meaning (cosine to its notes): flat")
            && errand
                .reasoning
                .contains("“council tax” makes it an everyday errand"),
        "{}",
        errand.reasoning
    );
    let garden = routed(&fx.vault, &fx.index, "Order lettuce seedlings on Amazon");
    assert_eq!(
        garden.destination.as_deref(),
        Some("projects/garden/tasks.md"),
        "{}",
        garden.reasoning
    );
}

/// A note no project's notes share a word of, that says enough, is
/// placed by a smaller lead in meaning than one that overrules words;
/// a smaller lead still is a question.
#[test]
fn with_a_model_a_note_in_new_words_goes_to_the_project_it_leans_to() {
    let _ = filed_only_with_a_model(
        "The external examiner prefers shorter introductions",
        "projects/thesis/state.md",
        "No project's notes share its words, but its meaning is closest to thesis's notes",
    );
    // garden 0.18, thesis 0.09: too small a lead.
    let (_, sprawl) = routed_without_and_with_a_model("Courgettes need a lot of room to sprawl");
    assert_eq!(sprawl.destination, None, "{}", sprawl.reasoning);
}

/// A task's opening verb names no project: "Book …" is no book club's,
/// though the club's name is "book"; the club named as a thing still is.
#[test]
fn a_tasks_opening_verb_names_no_project() {
    let fx = Fixture::new();
    let club = "# Book\n\nThe monthly book club at my house: choosing the novels and hosting.\n";
    fx.add_notes(&[("projects/book/description.md", club)]);
    let task = "Book the advisor meetings";
    let booked = routed(&fx.vault, &fx.index, task);
    assert_eq!(
        booked.destination.as_deref(),
        Some("projects/thesis/tasks.md"),
        "{}",
        booked.reasoning
    );
    assert!(
        booked
            .reasoning
            .contains("No project is named in the text."),
        "{}",
        booked.reasoning
    );
    let named = routed(&fx.vault, &fx.index, "Choose the next book");
    assert_eq!(
        named.destination.as_deref(),
        Some("projects/book/tasks.md"),
        "{}",
        named.reasoning
    );
}

/// Where the offline rules send `text` in `vault`, as an update would go.
fn routed(
    vault: &knower_vault::Vault,
    index: &std::sync::Arc<knower_index::Index>,
    text: &str,
) -> knower_agents::Decision {
    use knower_agents::Router;
    let facts = knower_agents::Facts::gather(vault, index, text).unwrap();
    knower_agents::Rules
        .route(&facts, &knower_agents::Payload::text(text))
        .unwrap()
}
