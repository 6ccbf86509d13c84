//! Live events for `GET /sse`: `file_changed`, `inbox_updated`,
//! `update_status` (and `resync`).
//!
//! Every event gets an id that grows across restarts (it starts from the
//! boot time in microseconds) and is kept in a ring of recent events, so a
//! client that reconnects with `Last-Event-ID` receives what it missed. When
//! what it missed is no longer in the ring (or happened before this server
//! started) it receives `resync` first: reload everything.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tokio::sync::broadcast;

/// Events kept for clients that reconnect.
const RING: usize = 2048;

#[derive(Clone, Debug)]
pub struct Event {
    pub id: u64,
    pub name: &'static str,
    /// JSON.
    pub data: String,
}

struct Ring {
    next: u64,
    /// The id the first event of this process got.
    first: u64,
    items: VecDeque<Arc<Event>>,
}

pub struct Events {
    ring: Mutex<Ring>,
    live: broadcast::Sender<Arc<Event>>,
}

/// What a (re)connecting client gets: the events it missed, whether some
/// are beyond recall, and the live stream from there on.
pub struct Subscription {
    pub missed: Vec<Arc<Event>>,
    pub gap: bool,
    pub live: broadcast::Receiver<Arc<Event>>,
}

impl Events {
    pub fn new() -> Arc<Events> {
        let boot = jiff::Timestamp::now().as_microsecond().max(1) as u64;
        let (live, _) = broadcast::channel(RING);
        Arc::new(Events {
            ring: Mutex::new(Ring {
                next: boot,
                first: boot,
                items: VecDeque::with_capacity(RING),
            }),
            live,
        })
    }

    pub fn emit(&self, name: &'static str, data: impl Serialize) {
        let data = serde_json::to_string(&data).expect("event data serialises");
        let mut ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        let event = Arc::new(Event {
            id: ring.next,
            name,
            data,
        });
        ring.next += 1;
        if ring.items.len() == RING {
            ring.items.pop_front();
        }
        ring.items.push_back(event.clone());
        // Sent under the lock, so a subscriber sees each event exactly
        // once: in its backlog or live, never both, never neither.
        let _ = self.live.send(event);
    }

    /// Subscribes a client that last saw event `last` (if any).
    pub fn subscribe(&self, last: Option<u64>) -> Subscription {
        let ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        let live = self.live.subscribe();
        let Some(last) = last else {
            return Subscription {
                missed: vec![],
                gap: false,
                live,
            };
        };
        let oldest = ring.items.front().map_or(ring.next, |e| e.id);
        // Events of another run, in the future, or already dropped.
        let gap = last + 1 < oldest || last >= ring.next || last + 1 < ring.first;
        let missed = ring.items.iter().filter(|e| e.id > last).cloned().collect();
        Subscription { missed, gap, live }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reconnecting_client_gets_what_it_missed_and_no_more() {
        let events = Events::new();
        events.emit("file_changed", serde_json::json!({"path": "a.md"}));
        let first = events.subscribe(None);
        assert!(first.missed.is_empty() && !first.gap);
        events.emit("file_changed", serde_json::json!({"path": "b.md"}));
        events.emit("file_changed", serde_json::json!({"path": "c.md"}));
        let all = events.subscribe(Some(0));
        assert!(all.gap, "an id of another run is a gap");
        let seen = all.missed[0].id;
        let again = events.subscribe(Some(seen));
        assert!(!again.gap);
        let paths: Vec<&str> = again.missed.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(paths, [r#"{"path":"b.md"}"#, r#"{"path":"c.md"}"#]);
        let future = events.subscribe(Some(seen + 100));
        assert!(future.gap);
    }

    #[test]
    fn old_events_fall_out_of_the_ring_and_make_a_gap() {
        let events = Events::new();
        events.emit("x", 0);
        let first = events.subscribe(Some(0)).missed[0].id;
        for i in 0..RING + 5 {
            events.emit("x", i);
        }
        let late = events.subscribe(Some(first));
        assert!(late.gap);
        assert_eq!(late.missed.len(), RING);
    }
}
