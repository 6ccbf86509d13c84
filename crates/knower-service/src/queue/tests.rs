use super::*;

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

fn accept(queue: &Queue, text: &str) -> String {
    block_on(queue.accept(text.into(), None, vec![], None)).unwrap()
}

fn done(summary: &str) -> Finished {
    Finished {
        outcome: Outcome::Filed,
        summary: summary.into(),
        changed_files: vec!["a.md".into()],
        inbox_id: None,
        details: Details::default(),
    }
}

#[test]
fn updates_run_in_acceptance_order_and_survive_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let ids: Vec<String> = {
        let queue = Queue::open(dir.path()).unwrap();
        let ids = (0..5)
            .map(|i| accept(&queue, &format!("note {i}")))
            .collect();
        let job = queue.next().unwrap().unwrap();
        queue.start(&job).unwrap();
        queue.finish(&job.id, done("filed note 0")).unwrap();
        let job = queue.next().unwrap().unwrap();
        assert_eq!(job.payload.text, "note 1");
        queue.start(&job).unwrap();
        // The process "dies" here: note 1 is running.
        queue.close();
        ids
    };
    let queue = Queue::open(dir.path()).unwrap();
    assert_eq!(queue.get(&ids[0]).unwrap().state, State::Done);
    assert_eq!(queue.depth(), (3, 1));
    let job = queue.next().unwrap().unwrap();
    assert_eq!(job.id, ids[1]);
    assert!(job.interrupted, "a running update is resumed, flagged");
    assert_eq!(job.run_id, ids[1]);
    queue.finish(&job.id, done("filed note 1")).unwrap();
    let order: Vec<String> = (2..5)
        .map(|_| {
            let job = queue.next().unwrap().unwrap();
            assert!(!job.interrupted);
            queue.start(&job).unwrap();
            queue.finish(&job.id, done("ok")).unwrap();
            job.payload.text
        })
        .collect();
    assert_eq!(order, ["note 2", "note 3", "note 4"]);
    assert_eq!(queue.depth(), (0, 0));
    let recent: Vec<String> = queue.recent(2).into_iter().map(|u| u.id).collect();
    assert_eq!(recent, [ids[4].clone(), ids[3].clone()]);
}

#[test]
fn a_torn_last_line_is_cut_off_and_damage_before_it_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let id = {
        let queue = Queue::open(dir.path()).unwrap();
        let id = accept(&queue, "kept");
        queue.close();
        id
    };
    let log = dir.path().join(DIR).join(LOG);
    let mut file = OpenOptions::new().append(true).open(&log).unwrap();
    file.write_all(br#"{"op":"accepted","id":"update-torn","at":"x","te"#)
        .unwrap();
    drop(file);
    {
        let queue = Queue::open(dir.path()).unwrap();
        assert!(queue.get(&id).is_some());
        assert!(queue.get("update-torn").is_none());
        let second = accept(&queue, "after the tear");
        queue.close();
        let reopened = {
            drop(queue);
            Queue::open(dir.path()).unwrap()
        };
        assert_eq!(reopened.get(&second).unwrap().state, State::Queued);
        reopened.close();
    }
    // A bad line in the middle is not a torn write: refuse to guess.
    let text = std::fs::read_to_string(&log).unwrap();
    let damaged = text.replacen("{\"op\"", "{\"op\"garbage", 1);
    std::fs::write(&log, damaged).unwrap();
    match Queue::open(dir.path()) {
        Err(QueueError::Damaged { line: 1, .. }) => {}
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("a damaged log was accepted"),
    }
}

#[test]
fn one_owner_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path()).unwrap();
    assert!(matches!(Queue::open(dir.path()), Err(QueueError::Busy)));
    queue.close();
    drop(queue);
    Queue::open(dir.path()).unwrap();
}

#[test]
fn a_failed_update_keeps_its_payload_and_is_retried_as_a_new_attempt() {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path()).unwrap();
    let picture = Attachment::new("photo.png", vec![1, 2, 3]);
    let id = block_on(queue.accept("with a file".into(), None, vec![picture], None)).unwrap();
    let other = accept(&queue, "second");
    assert!(matches!(
        queue.retry(&id),
        Err(QueueError::NotFailed { .. })
    ));
    let job = queue.next().unwrap().unwrap();
    queue.start(&job).unwrap();
    queue.fail(&id, "the model was unreachable").unwrap();
    let failed = queue.get(&id).unwrap();
    assert_eq!(failed.state, State::Failed);
    assert_eq!(failed.error.as_deref(), Some("the model was unreachable"));
    queue.retry(&id).unwrap();
    // It goes to the back of the line.
    assert_eq!(queue.next().unwrap().unwrap().id, other);
    let job = queue.next().unwrap().unwrap();
    queue.start(&job).unwrap();
    queue.finish(&job.id, done("ok")).unwrap();
    queue.close();
    drop(queue);
    let queue = Queue::open(dir.path()).unwrap();
    let job = queue.next().unwrap().unwrap();
    assert_eq!(job.id, id);
    assert_eq!(job.run_id, format!("{id}~2"), "a retry is a new run");
    assert_eq!(job.payload.attachments[0].bytes, [1, 2, 3]);
    assert_eq!(job.payload.attachments[0].name, "photo.png");
}

#[test]
fn compaction_keeps_what_is_pending_failed_and_recent() {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path()).unwrap();
    let mut ids = Vec::new();
    for i in 0..KEEP_DONE + 20 {
        let id = accept(&queue, &format!("note {i}"));
        let job = queue.next().unwrap().unwrap();
        queue.start(&job).unwrap();
        if i == 3 {
            queue.fail(&id, "broken").unwrap();
        } else {
            queue.finish(&id, done("ok")).unwrap();
        }
        ids.push(id);
    }
    let waiting = accept(&queue, "still waiting");
    queue.compact().unwrap();
    queue.close();
    drop(queue);
    let queue = Queue::open(dir.path()).unwrap();
    assert!(queue.get(&ids[0]).is_none(), "old finished updates go");
    assert_eq!(queue.get(&ids[3]).unwrap().state, State::Failed);
    let last = queue.get(ids.last().unwrap()).unwrap();
    assert_eq!(last.state, State::Done);
    assert_eq!(last.headline, format!("note {}", KEEP_DONE + 19));
    assert_eq!(queue.recent(10_000).len(), KEEP_DONE + 2);
    let job = queue.next().unwrap().unwrap();
    assert_eq!(job.id, waiting);
    assert_eq!(job.payload.text, "still waiting");
}

#[test]
fn a_retry_with_the_same_key_is_the_first_update_even_after_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let keyed = |queue: &Queue, text: &str, key: &str| {
        block_on(queue.accept(text.into(), None, vec![], Some(key.into()))).unwrap()
    };
    let first = {
        let queue = Queue::open(dir.path()).unwrap();
        let first = keyed(&queue, "The boiler is serviced in May.", "9b2f-retry");
        assert_eq!(
            keyed(&queue, "The boiler is serviced in May.", "9b2f-retry"),
            first
        );
        assert_ne!(keyed(&queue, "Another note.", "another-key"), first);
        assert_ne!(accept(&queue, "No key."), accept(&queue, "No key."));
        // The process dies before the client saw an answer.
        queue.close();
        first
    };
    let queue = Queue::open(dir.path()).unwrap();
    assert_eq!(
        keyed(&queue, "The boiler is serviced in May.", "9b2f-retry"),
        first,
        "the key is kept with the queue"
    );
    let boilers = queue
        .recent(100)
        .iter()
        .filter(|u| u.headline.contains("boiler"))
        .count();
    assert_eq!(boilers, 1);
}
