//! Where an update belongs, without an LLM.
//!
//! The rules, in order:
//!
//! 1. **Kind.** A task, an event, a preference or a fact about the user,
//!    or a note, from the text's words alone ([`super::kind`]). A note is
//!    filed at most [`NOTE_CONFIDENCE`] sure: a task or event in words the
//!    kind rules do not know lands in `state.md` too.
//! 2. **Too little to go on.** Text that points at what it does not say
//!    (`same as last time`, `as we discussed`, `in there`), tells how the
//!    user feels about a bare pronoun (`I'm in two minds about it`),
//!    weighs options (`either…
//!    or…`, `whichever`), or has no content word once vague words, times,
//!    any-task verbs, everyday words (`plan`, `idea`, `new`) and a task's
//!    opening verb are set aside ([`content_words`]) goes to the inbox,
//!    whatever its words match.
//! 3. **Project named.** A project whose folder name (or title, or an
//!    `aliases` entry of its description.md) appears in the text is the
//!    project, unless the text's words clearly belong to another one. A
//!    text that names several projects is about them together and goes to
//!    the inbox.
//! 4. **Project by content.** Otherwise the text is searched (BM25) for
//!    candidates, and each candidate's *coverage* is the share of the
//!    text's content words its notes hold (a single shared word counts as
//!    none). The best wins with at least [`MIN_COVERAGE`]
//!    and [`MIN_MARGIN`] over the runner-up. Shares, not scores: confidence
//!    does not drift as the vault grows, and a runner-up with nothing is 0.
//!    **By meaning**, when an embedding model is on the machine: the text's
//!    cosine to each project's description, state and best search hits,
//!    and to each sentence of its description and state that shares no
//!    word with the text ([`meaning`]). A project at least [`MEANING_MIN`] close and
//!    [`MEANING_MARGIN`] ahead files a text the words cannot place, and
//!    sends to the inbox a text whose words point to another project.
//!    **Sole holder**: when the words and the meaning do not decide, a
//!    project whose notes alone hold any of the text's words gets it at
//!    [`SOLE_HOLDER_CONFIDENCE`] ("NAS" in a note, only the home server's
//!    notes say NAS) — unless the meaning points elsewhere (by
//!    [`COMMON_WORDS_MARGIN`] when the tie is an everyday word, or when the
//!    project it points to holds everyday words of the text too). **Among
//!    holders**: when several projects' notes each hold some of its words
//!    and none decides, the one closest in meaning gets it at the same
//!    confidence if it leads every other project by
//!    [`COMMON_WORDS_MARGIN`], an everyday errand excepted ("skates" is
//!    the hockey's, "session" the falconry's: the meaning chooses).
//! 5. **No project.** A preference goes to `profile.md`
//!    ([`PROFILE_CONFIDENCE`] sure, [`PROFILE_SHARED_CONFIDENCE`] when a
//!    project's notes hold some of its words) — unless it holds only at
//!    times ("my ears won't equalise *if* I go down fast", "I keep
//!    lifting my head…", "I don't know who the killer is *yet*"), which
//!    tells of a practice or where a piece of work stands, or is of one of
//!    the user's things rather than the people in their life ("my tyres
//!    are too narrow…" beside a cyclocross project's "tyres", "my loaves
//!    spread flat…"): then it is placed as a note is — its meaning clear
//!    from a lead of [`MEANING_MARGIN`] at a cosine of
//!    [`UNTIED_MEANING_MIN`], as so short a text sits far from every
//!    project's notes — and asked about with the profile as the first
//!    answer when nothing decides; a task no
//!    project's notes have a word of goes to the global `tasks.md` when
//!    it reads as an everyday errand ([`super::errands`]: the car, the
//!    post, an appointment) or there are no projects — before a clear
//!    meaning when it says nothing but the errand (`pay the council
//!    tax`) — and otherwise to the project its meaning leans to
//!    ([`task_by_meaning`]), or is asked about (`order the gasket set` is
//!    as likely a project's); a note no project's notes have a word of
//!    goes where its meaning leans by [`UNTIED_NOTE_MARGIN`] when it says
//!    enough ([`note_by_meaning`]);
//!    anything else — words spread over several projects, two projects
//!    too close to call — goes to the inbox with the shares and scores as
//!    the reasoning.
//!
//! Inside a project, tasks go to `tasks.md`, events to `changelog.md`,
//! notes and preferences to `state.md`.

use crate::error::Result;
use crate::inbox::Choice;
use crate::offline::common::is_common;
use crate::offline::content::content_words;
use crate::offline::errands::{
    everyday_word, only_where_the_object_goes, owned_by_what_is_held, says_nothing_else,
};
use crate::offline::kind::{
    Kind, doubtful_kind, kind_name, kind_of, kind_rule, project_file, without_task_opening,
};
use crate::offline::phrasing::contains_words;
use crate::offline::route::first_person::{how_i_do_something, of_my_things, tells_an_age};
use crate::offline::route::projects::{
    Closest, held_words, meaning, names_used, note_by_meaning, sole_holder, task_by_meaning,
    what_the_verb_says, with_names_used,
};
use crate::offline::route::thresholds::{
    COMMON_WORDS_MARGIN, MEANING_MARGIN, MIN_COVERAGE, MIN_MARGIN,
};
use crate::offline::route::unsaid::{
    answers_what_is_unsaid, feels_about_a_pronoun, goes_along, only_done_to_a_pronoun,
    refers_elsewhere, weighs_options,
};
use crate::offline::stems::whole_words;
use crate::payload::Payload;
use crate::router::{Decision, Facts, Project, Router};
mod answer;
mod first_person;
mod projects;
#[cfg(test)]
mod tests;
pub(crate) mod thresholds;
mod unsaid;

pub use thresholds::{
    NOTE_CONFIDENCE, PROFILE_CONFIDENCE, PROFILE_SHARED_CONFIDENCE, SOLE_HOLDER_CONFIDENCE,
};

pub use answer::{Answered, read_answer};
use projects::coverage;
use std::collections::BTreeMap;

/// The offline engine as a [`Router`]: the rules above.
pub struct Rules;

impl Router for Rules {
    fn route(&self, facts: &Facts, update: &Payload) -> Result<Decision> {
        Ok(route(facts, &update.text))
    }
}

/// Where `text` belongs by the rules, from `facts` alone: the stages of
/// the rules above, in order, the first to decide ending it.
pub fn route(facts: &Facts, text: &str) -> Decision {
    let mut r = Reading::new(facts, text);
    if let Some(decision) = r.too_little_to_go_on() {
        return decision;
    }
    r.weigh_holdings(facts);
    if let Some(decision) = r.by_name() {
        return decision;
    }
    if let Some(decision) = r.about_the_user() {
        return decision;
    }
    // The meaning is weighed only from here on: a named project or a fact
    // about who the user is never needs the model loaded or the note
    // embedded.
    r.meant = meaning(facts, text, &r.words, &mut r.why);
    if let Some(decision) = r.by_words() {
        return decision;
    }
    if let Some(decision) = r.by_meaning_or_a_holder() {
        return decision;
    }
    r.by_no_project()
}

/// What the rules know of a text as they go: its kind and words, the
/// projects it names, the search's scores, what each project's notes hold
/// of it, its meaning, and the reasoning so far.
struct Reading<'f> {
    projects: &'f [Project],
    kind: Kind,
    lower: String,
    /// The text without a task's opening verb.
    about: &'f str,
    /// The words the text calls a project by, with the project.
    used_names: Vec<(String, String)>,
    /// Its content words ([`content_words`]).
    words: Vec<String>,
    named: Vec<&'f Project>,
    /// (project, score, best passage), best first.
    scored: Vec<(String, f32, String)>,
    /// Why the kind is in doubt, if it is.
    doubt: Option<String>,
    why: Vec<String>,
    /// The inbox's answers, best first.
    options: Vec<Choice>,
    /// What each project's notes hold of the words.
    holdings: Vec<(String, Vec<String>)>,
    /// Each project's share of the words, best first.
    covered: Vec<(String, f32)>,
    /// "P's notes hold w, v" for each project holding any.
    holders: Vec<String>,
    /// Why a fact in the first person is placed as a note, if it is.
    as_a_note: Option<String>,
    /// It holds only at times, or is of the user's things.
    first_person_note: bool,
    /// How close in meaning it is to each project, best first.
    meant: Option<Vec<(String, f32)>>,
}

impl<'f> Reading<'f> {
    fn new(facts: &'f Facts, text: &'f str) -> Reading<'f> {
        let kind = kind_of(text);
        let projects = &facts.projects;
        let about = without_task_opening(text, kind);
        let used_names = names_used(about, projects);
        let mut words = with_names_used(content_words(about), &used_names);
        // Nothing left once a task's opening verb was set aside: the verb
        // may be what it is about.
        if words.is_empty() && about.len() < text.len() {
            words = what_the_verb_says(text);
        }
        // A task's opening verb names nothing, as in `with_names_used`:
        // "Book the pub for the Christmas party" is no book club's.
        let naming = about.to_lowercase();
        let named: Vec<&Project> = projects
            .iter()
            .filter(|p| p.names.iter().any(|n| contains_words(&naming, n)))
            .collect();
        let scored = scores(facts);
        let doubt = doubtful_kind(text, kind);
        let mut why = vec![format!(
            "Kind: {} (rule: {}).",
            kind_name(kind),
            kind_rule(kind)
        )];
        why.extend(doubt.clone());
        why.push(if named.is_empty() {
            "No project is named in the text.".to_string()
        } else {
            format!(
                "Named in the text: {}.",
                named
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        });
        why.push(if scored.is_empty() {
            "No project's notes match the text's words.".to_string()
        } else {
            format!(
                "Search scores (best passage + half the second): {}.",
                scored
                    .iter()
                    .take(4)
                    .map(|(p, s, best)| format!("{p} {s:.1} ({best})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        });
        let mut r = Reading {
            projects,
            kind,
            lower: text.to_lowercase(),
            about,
            used_names,
            words,
            named,
            scored,
            doubt,
            why,
            options: vec![],
            holdings: vec![],
            covered: vec![],
            holders: vec![],
            as_a_note: None,
            first_person_note: false,
            meant: None,
        };
        let mut options: Vec<Choice> = r
            .named
            .iter()
            .map(|p| r.choice(&p.name, "named in the text".into()))
            .collect();
        for (p, s, best) in r.scored.iter().take(3) {
            if !options.iter().any(|c| c.destination == r.file_in(p)) {
                options.push(r.choice(
                    p,
                    format!("its notes are the closest match ({best}, score {s:.1})"),
                ));
            }
        }
        options.push(bucket());
        r.options = options;
        r
    }

    /// Rule 2: text that leans on what it does not say, says too little,
    /// or weighs options is asked about, wherever its words point ("the
    /// same as last time" is not the user's last note).
    fn too_little_to_go_on(&mut self) -> Option<Decision> {
        let (kind, lower) = (self.kind, self.lower.clone());
        if let Some(phrase) = refers_elsewhere(&lower) {
            self.why.push(format!(
                "It refers to something it does not say (“{phrase}”), so I cannot tell where it belongs."
            ));
            return Some(self.inbox("refers-elsewhere"));
        }
        if kind == Kind::Preference && tells_an_age(&lower) {
            self.why
                .push("It tells your age: a fact about who you are, for the profile.".into());
            return Some(self.global("tells-an-age", "profile.md", PROFILE_CONFIDENCE));
        }
        if self.words.is_empty() {
            self.why.push(
                "It says too little to place: none of its words tells what it is about.".into(),
            );
            return Some(self.inbox("says-too-little"));
        }
        if kind == Kind::Preference
            && let Some(object) = feels_about_a_pronoun(&lower)
        {
            self.why.push(format!(
                "It tells how you feel about something it does not name (“{object}”), so I cannot tell where it belongs."
            ));
            return Some(self.inbox("feels-about-the-unnamed"));
        }
        if let Some(done) = only_done_to_a_pronoun(self.about, &self.words) {
            self.why.push(format!(
                "It tells only what is done to something it does not name (“{done}”), so I cannot tell where it belongs."
            ));
            return Some(self.inbox("done-to-the-unnamed"));
        }
        // A reply to something unsaid that names nothing of its own: the
        // everyday words left ("fine", "free", "long") tie it to no
        // project, however close a project's notes come in meaning. So is
        // the user going along with it, whose one word is how they stand:
        // "I'm easy" is no fact about them.
        let a_note_of_common_words =
            || kind == Kind::Note && self.words.iter().all(|w| is_common(w));
        if self.named.is_empty()
            && let Some(opening) = goes_along(&lower).or_else(|| {
                a_note_of_common_words()
                    .then(|| answers_what_is_unsaid(&lower))
                    .flatten()
            })
        {
            self.why.push(format!(
                "It answers something it does not say (“{opening}”) and names nothing of its own, so I cannot tell where it belongs."
            ));
            return Some(self.inbox("answers-the-unsaid"));
        }
        // Options weighed are a question for the user, whichever they name.
        if weighs_options(&lower) {
            self.why.push(
                "It weighs options (“either… or…”, “whether…”, “… can't do both”): which one is for you to say.".into(),
            );
            return Some(self.inbox("weighs-options"));
        }
        None
    }

    /// What every project's notes hold of the words: the shares need the
    /// named and searched ones, and the sole-holder rule needs to know
    /// that no other project holds a word (the search's hits may all be
    /// one project's).
    fn weigh_holdings(&mut self, facts: &Facts) {
        self.why
            .push(format!("Its content words: {}.", self.words.join(", ")));
        self.holdings = self
            .projects
            .iter()
            .map(|p| (p.name.clone(), held_words(facts, &p.name, &self.words)))
            .collect();
        let mut covered: Vec<(String, f32)> = self
            .holdings
            .iter()
            .map(|(p, held)| (p.clone(), coverage(held, &self.words)))
            .collect();
        covered.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then(self.score_of(&b.0).total_cmp(&self.score_of(&a.0)))
        });
        self.covered = covered;
        self.holders = self
            .holdings
            .iter()
            .filter(|(_, held)| !held.is_empty())
            .map(|(p, held)| format!("{p}'s notes hold {}", held.join(", ")))
            .collect();
    }

    /// Rule 3: a project named in the text, unless its words are clearly
    /// another's; several named are for the user to choose among.
    fn by_name(&mut self) -> Option<Decision> {
        if self.named.len() == 1 {
            let p = self.named[0].name.clone();
            let share = self.share_of(&p);
            if let Some((other, other_share)) = self.covered.first().filter(|(q, s)| {
                // Named wins unless the words clearly belong elsewhere.
                *q != p && *s >= 2.0 * MIN_COVERAGE && *s >= share + 2.0 * MIN_MARGIN
            }) {
                let reason = format!(
                    "It names {p}, but its words are {other}'s ({} of them in {other}'s notes, {} in {p}'s), so I cannot tell which it is about.",
                    percent(*other_share),
                    percent(share)
                );
                self.why.push(reason);
                return Some(self.inbox("named-but-another-holds-its-words"));
            }
            self.why
                .push(format!("Filed in {p}, the project it names."));
            let confidence = if share >= MIN_COVERAGE { 0.95 } else { 0.85 };
            return Some(self.decided("named", &p, confidence));
        }
        // A text that names several projects is about them together ("the
        // novel or the choir first?"): which one it belongs to is the
        // user's call, whichever holds more of its other words.
        if self.named.len() > 1 {
            self.why.push(
                "It names several projects, so it is about them together; which one it belongs to is for you to say."
                    .into(),
            );
            return Some(self.inbox("names-several"));
        }
        None
    }

    /// Rule 5's first part: a fact about the user that names no project
    /// belongs to the user — less surely when a project's notes hold its
    /// words ("I'm allergic to tomatoes" beside a garden's). One that holds
    /// only at times tells of a practice ("my fingers still hurt after
    /// practice" beside a violin project's), and one of the user's things
    /// is a project's more often than not ("my tyres are too narrow…"
    /// beside a cyclocross project's "tyres"): either is placed as a note
    /// is, by words and meaning, and asked about with the profile as the
    /// first answer when neither decides.
    fn about_the_user(&mut self) -> Option<Decision> {
        let of_the_user = self.kind == Kind::Preference && !self.projects.is_empty();
        let at_times = of_the_user
            .then(|| how_i_do_something(&self.lower))
            .flatten();
        let of_mine = of_the_user && at_times.is_none() && of_my_things(&self.lower);
        self.first_person_note = of_mine || at_times.is_some();
        self.as_a_note = if let Some(condition) = at_times {
            Some(format!(
                "It holds only at times (“{condition}”), as a project's notes tell of its practice, more than of who you are"
            ))
        } else if of_mine && !self.holders.is_empty() {
            Some(format!(
                "It is about one of your things more than who you are, and {}",
                self.holders.join("; ")
            ))
        } else if of_mine {
            // Facts of the user's things are a project's notes far more
            // often than the profile's ("my loaves spread flat in the
            // oven" beside a sourdough project's): with no word shared,
            // the meaning places it or the user is asked.
            Some("It is about one of your things more than who you are".into())
        } else {
            None
        };
        if let Some(reason) = &self.as_a_note {
            self.why.push(format!(
                "{reason}: it is placed as a note about a project would be."
            ));
            self.options.insert(0, about_you());
            return None;
        }
        if self.kind != Kind::Preference {
            return None;
        }
        self.why.push(
            "A preference or a fact about the user that names no project belongs in the profile."
                .into(),
        );
        if self.holders.is_empty() {
            return Some(self.global("about-the-user", "profile.md", PROFILE_CONFIDENCE));
        }
        self.why.push(format!(
            "It may be about a project instead: {}.",
            self.holders.join("; ")
        ));
        Some(self.global(
            "about-the-user-or-a-project",
            "profile.md",
            PROFILE_SHARED_CONFIDENCE,
        ))
    }

    /// Rule 4, by words: the project whose notes hold a clear share of the
    /// words, unless the meaning points to another. Confidence is the
    /// share and its lead over the runner-up: shares, so it does not drift
    /// as the vault grows, and a runner-up with nothing is just 0.
    fn by_words(&mut self) -> Option<Decision> {
        let (c1, c2) = self.top_shares();
        if !(c1 >= MIN_COVERAGE && c1 - c2 >= MIN_MARGIN) {
            return None;
        }
        let best = self.covered[0].0.clone();
        let mut confidence = 0.5 + 0.45 * c1 * ((c1 - c2) / 0.5).min(1.0);
        let held = format!(
            "{} of these words{}",
            percent(c1),
            match self.covered.get(1) {
                Some((other, c2)) => format!(", {other}'s {}", percent(*c2)),
                None => ", and no other project's notes hold any".into(),
            }
        );
        match self.clear_meaning().map(|c| (c.top.to_string(), c.cosine)) {
            Some((top, m1)) if top != best => {
                let reason = format!(
                    "Its words point to {best} (its notes hold {held}), but its meaning is closer to {top}'s notes (cosine {m1:.2} against {:.2}), so I cannot tell which it is about.",
                    self.meaning_of(&best)
                );
                self.why.push(reason);
                return Some(self.inbox("words-but-meaning-elsewhere"));
            }
            Some(_) => {
                confidence = (confidence + 0.1).min(0.97);
                self.why.push(format!(
                    "Filed in {best}: its notes hold {held}, and they are the closest in meaning."
                ));
            }
            None => self
                .why
                .push(format!("Filed in {best}: its notes hold {held}.")),
        }
        Some(self.decided("words", &best, confidence))
    }

    /// Rule 4, when the words do not decide: a clear meaning, the sole
    /// holder of a word, or the holder closest in meaning — or, for an
    /// everyday errand, the global task list.
    fn by_meaning_or_a_holder(&mut self) -> Option<Decision> {
        let kind = self.kind;
        // A clear meaning decides — except for an everyday errand that
        // says nothing else and that no project's notes have a word of, or
        // only the words of the errand's own two ("Renew the TV licence"
        // beside a budget's licences): it is the global list's however its
        // meaning leans ("Pay the council tax" beside a first flat's
        // mortgage and survey; not "Order lettuce seedlings on Amazon"
        // beside a garden).
        let errand = self.errand();
        let errand_alone = kind == Kind::Task
            && self
                .holdings
                .iter()
                .all(|(_, held)| held.is_empty() || only_the_errands_own(errand.as_deref(), held))
            && says_nothing_else(&self.lower, &self.words);
        if let Some(c) = self.clear_meaning().filter(|_| !errand_alone) {
            let Closest {
                top,
                cosine: m1,
                next,
                next_cosine: m2,
            } = c;
            let confidence = (0.6 + 0.5 * c.lead()).min(0.85);
            let (top, reason) = (
                top.to_string(),
                format!(
                    "Its words do not decide, but its meaning does: cosine {m1:.2} to {top}'s notes, {m2:.2} to the next ({next}). Filed in {top}."
                ),
            );
            self.why.push(reason);
            return Some(self.decided("meaning", &top, confidence));
        }
        // One project alone holds words of the note (a distinctive word
        // such as "NAS", "tiler" or "restic" that no other project's notes
        // use), and the meaning, when known, does not point elsewhere.
        let sole = sole_holder(&self.holdings, |project, word| self.everyday(project, word))
            .map(|(best, held, others_common)| (best.to_string(), held.to_vec(), others_common));
        if let Some((best, held, others_common)) = sole {
            return Some(self.by_the_sole_holder(&best, &held, others_common, errand));
        }
        // Several projects' notes hold words of it and none decides: the
        // words have narrowed the field, and within it the meaning may
        // choose by the smaller lead that outweighs everyday words, when
        // the project it points to among them all is one of the holders
        // ("Get my skates sharpened before Thursday's session": the
        // hockey's notes say "skate", the falconry's "session"). Not for
        // an everyday errand: "Pay the water bill" is no project's task
        // because two projects' notes say "water".
        let held_by = self
            .holdings
            .iter()
            .filter(|(_, held)| !held.is_empty())
            .count();
        let c = self.closest()?;
        let Closest {
            top,
            cosine: m1,
            next,
            next_cosine: m2,
        } = c;
        let (_, held) = self
            .holdings
            .iter()
            .find(|(q, held)| q == top && !held.is_empty())
            .filter(|_| held_by >= 2 && c.lead() >= COMMON_WORDS_MARGIN)
            .filter(|_| errand.is_none())?;
        let (top, reason) = (
            top.to_string(),
            format!(
                "Its words are shared by {held_by} projects ({top}'s notes hold {}), and of these its meaning is closest to {top}'s (cosine {m1:.2}, {m2:.2} to the next, {next}). Filed in {top}.",
                held.join(", ")
            ),
        );
        self.why.push(reason);
        Some(self.decided("closest-holder", &top, SOLE_HOLDER_CONFIDENCE))
    }

    /// The sole holder's decision: the global list for an everyday errand
    /// it is tied to by an everyday word, the inbox when the meaning points
    /// elsewhere, else the holder.
    fn by_the_sole_holder(
        &mut self,
        best: &str,
        held: &[String],
        others_common: bool,
        errand: Option<String>,
    ) -> Decision {
        let listed_held = held.join(", ");
        // Everyday words are weak ties: a project's notes that say "home"
        // or "water" do not make "Renew the home insurance" or "Pay the
        // water bill" its task, when the task reads as an errand. Nor do
        // the words of an errand told in two ("driving licence"): a golf
        // project's "driving" is not "Renew my driving licence". An
        // errand's word that only says where the task sends the project's
        // things is no errand: "Courier the boards to the council". Nor
        // is one the project's word owns: "Pay the club's insurance".
        let only_common = held.iter().all(|w| self.everyday(best, w));
        let tie_to_an_errand = errand.as_deref().filter(|word| {
            (only_common || only_the_errands_own(errand.as_deref(), held))
                && !only_where_the_object_goes(self.about, held)
                && !owned_by_what_is_held(self.about, held, word)
        });
        if let Some(word) = tie_to_an_errand {
            let tie = if only_common {
                "an everyday one"
            } else {
                "the errand's own"
            };
            self.why.push(format!(
                "Only {best}'s notes share a word of it, and {tie} ({listed_held}); “{word}” makes it an everyday errand, which goes to the global task list."
            ));
            return self.global("an-errand-despite-a-holder", "tasks.md", 0.7);
        }
        // Doubt needs less than a filing: a lead of the margin, with no
        // floor, is reason to ask rather than file on one word, and a
        // smaller lead is when the words are everyday ones, or when the
        // project the meaning points to holds everyday words of the note
        // too ("Place the first order for 10,000 mailer boxes": the
        // camping trip's "roof box" against the supplier's "first order").
        let closest = self.closest();
        let top_holds_some = closest.is_some_and(|c| {
            self.holdings
                .iter()
                .any(|(p, held)| p == c.top && !held.is_empty())
        });
        let margin = if only_common || (others_common && top_holds_some) {
            COMMON_WORDS_MARGIN
        } else {
            MEANING_MARGIN
        };
        let elsewhere = closest
            .filter(|c| c.top != best && c.cosine - self.meaning_of(best) >= margin)
            .map(|c| (c.top.to_string(), c.cosine));
        if let Some((top, m1)) = elsewhere {
            let reason = format!(
                "Only {best}'s notes share words of it ({listed_held}), but its meaning is closer to {top}'s notes (cosine {m1:.2} against {:.2}), so I cannot tell which it is about.",
                self.meaning_of(best)
            );
            self.why.push(reason);
            return self.inbox("sole-holder-but-meaning-elsewhere");
        }
        // One everyday word in common is not evidence: knee exercises are
        // not a work project's because its notes say "run", nor a book
        // club's evening the trip's because it "booked" a hotel. Unless the
        // meaning, when known, clearly says it is that project's, ask.
        let meaning_agrees = closest.is_some_and(|c| c.top == best && c.lead() >= MEANING_MARGIN);
        if let [word] = held
            && only_common
            && !meaning_agrees
        {
            self.why.push(format!(
                "Only {best}'s notes share a word of it, and that is one everyday word (“{word}”): too little to file it there, so I ask."
            ));
            return self.inbox("one-everyday-word");
        }
        let confidence = SOLE_HOLDER_CONFIDENCE + if held.len() >= 2 { 0.05 } else { 0.0 };
        self.why.push(format!(
            "Filed in {best}: {}, and {best}'s hold {listed_held}.",
            if others_common {
                "other projects' notes share only everyday words of it"
            } else {
                "no other project's notes share any of its words"
            }
        ));
        self.decided("sole-holder", best, confidence)
    }

    /// Rule 5: no project decides. A task no project's notes have a word
    /// of goes to the global list (or where its meaning leans), a note
    /// where its meaning leans when it says enough; anything else is asked
    /// about with the shares and scores as the reasoning.
    fn by_no_project(mut self) -> Decision {
        let kind = self.kind;
        let (c1, c2) = self.top_shares();
        let named_by = |c: Closest<'_>| {
            (
                c.top.to_string(),
                c.cosine,
                c.next.to_string(),
                c.next_cosine,
            )
        };
        let task_meaning = task_by_meaning(self.closest(), &self.words).map(named_by);
        let note_meaning = note_by_meaning(self.closest(), &self.words).map(named_by);
        let undecided = if self.holders.is_empty() {
            if kind == Kind::Task {
                match self.errand() {
                    Some(word) => self.why.push(format!(
                        "No project's notes share its words, and “{word}” makes it an everyday errand, which goes to the global task list."
                    )),
                    None if let Some((top, m1, next, m2)) = task_meaning =>
                    {
                        self.why.push(format!(
                            "No project's notes share its words, and it does not read as an everyday errand (the car, the post, an appointment…), so it is likely a project's task in words its notes do not use yet: its meaning is closest to {top}'s notes (cosine {m1:.2}, {m2:.2} to the next, {next}). Filed in {top}."
                        ));
                        return self.decided("task-by-meaning", &top, SOLE_HOLDER_CONFIDENCE);
                    }
                    None if !self.projects.is_empty() => {
                        self.why.push(
                            "No project's notes share its words, and it does not read as an everyday errand (the car, the post, an appointment…): it may be a project's task in words its notes do not use yet, so I ask which."
                                .into(),
                        );
                        let global = Choice {
                            destination: "tasks.md".into(),
                            why: "a task of its own, in the global list".into(),
                        };
                        self.options = self.every_project(global, "one of its tasks");
                        return self.inbox("task-of-no-clear-project");
                    }
                    None => self.why.push(
                        "There are no projects, so a task goes to the global task list.".into(),
                    ),
                }
                return self.global("an-errand", "tasks.md", 0.7);
            }
            if self.as_a_note.is_some() {
                self.why.push(
                    "No project's notes share its words, so I ask whether it is about you or one of your projects."
                        .into(),
                );
                self.options = self.every_project(about_you(), "its state");
                return self.inbox("about-the-user-or-unplaced");
            }
            if let Some((top, m1, next, m2)) = note_meaning {
                self.why.push(format!(
                    "No project's notes share its words, but its meaning is closest to {top}'s notes (cosine {m1:.2}, {m2:.2} to the next, {next}). Filed in {top}."
                ));
                return self.decided("note-by-meaning", &top, SOLE_HOLDER_CONFIDENCE);
            }
            self.why.push(
                "No project's notes share its words, and it is not a task or about you, so I do not know where it belongs."
                    .into(),
            );
            "no-project-holds-its-words"
        } else if c1 >= MIN_COVERAGE {
            let reason = format!(
                "{} and {} explain it about equally ({} and {} of its words), so I cannot choose.",
                self.covered[0].0,
                self.covered[1].0,
                percent(c1),
                percent(c2)
            );
            self.why.push(reason);
            "two-projects-tie"
        } else {
            let reason = format!(
                "Its words are spread over several projects ({}), none holding {} of them, so I cannot tell which it belongs to.",
                self.holders.join("; "),
                percent(MIN_COVERAGE)
            );
            self.why.push(reason);
            "words-spread-over-projects"
        };
        self.inbox(undecided)
    }

    /// The everyday errand a task reads as, if any ("the car", "TV
    /// licence").
    fn errand(&self) -> Option<String> {
        (self.kind == Kind::Task)
            .then(|| everyday_word(&self.lower, &self.words))
            .flatten()
    }

    /// The two best shares of the words a project's notes hold.
    fn top_shares(&self) -> (f32, f32) {
        (
            self.covered.first().map_or(0.0, |c| c.1),
            self.covered.get(1).map_or(0.0, |c| c.1),
        )
    }

    /// An everyday word the text calls a project by is that project's as
    /// much as a word of its own: "Check my passport is valid until after
    /// the tour" is the Mahler tour's ("tour"), no errand.
    fn everyday(&self, project: &str, word: &str) -> bool {
        is_common(word)
            && !self
                .used_names
                .iter()
                .any(|(p, w)| p == project && w == word)
    }

    fn score_of(&self, project: &str) -> f32 {
        self.scored
            .iter()
            .find(|s| s.0 == project)
            .map_or(0.0, |s| s.1)
    }

    fn share_of(&self, project: &str) -> f32 {
        self.covered
            .iter()
            .find(|c| c.0 == project)
            .map_or(0.0, |c| c.1)
    }

    fn meaning_of(&self, project: &str) -> f32 {
        self.meant
            .as_ref()
            .and_then(|m| m.iter().find(|c| c.0 == project))
            .map_or(0.0, |c| c.1)
    }

    fn closest(&self) -> Option<Closest<'_>> {
        self.meant.as_deref().and_then(Closest::of)
    }

    /// The project the meaning clearly points to: from a smaller cosine
    /// for a first-person fact placed as a note, so short a text sitting
    /// far from every project's notes ("I always come in too fast when the
    /// tide is behind me" beside a powerboat course's).
    fn clear_meaning(&self) -> Option<Closest<'_>> {
        self.closest()
            .filter(|c| c.is_clear_for(self.first_person_note))
    }

    /// The answers to a question no project's words can settle: `first`,
    /// then every project (the closest in meaning first when the model is
    /// at hand), then the bucket.
    fn every_project(&self, first: Choice, why: &str) -> Vec<Choice> {
        let mut by_meaning: Vec<&str> = self.projects.iter().map(|p| p.name.as_str()).collect();
        if let Some(m) = &self.meant {
            let rank = |p: &str| m.iter().position(|c| c.0 == p).unwrap_or(m.len());
            by_meaning.sort_by_key(|p| rank(p));
        }
        let mut choices = vec![first];
        choices.extend(by_meaning.into_iter().map(|p| self.choice(p, why.into())));
        choices.push(bucket());
        choices
    }

    fn file_in(&self, project: &str) -> String {
        project_file(project, self.kind)
    }

    fn choice(&self, project: &str, why: String) -> Choice {
        Choice {
            destination: self.file_in(project),
            why,
        }
    }

    /// Filed in `project`'s file for the kind.
    fn decided(&mut self, rule: &'static str, project: &str, confidence: f32) -> Decision {
        // A note is what no kind rule recognised: a task or an event told
        // in words the rules do not know lands in state.md too, so the
        // file is less sure than the project. So is a kind in doubt.
        let capped = self.kind == Kind::Note || self.doubt.is_some();
        Decision {
            destination: Some(self.file_in(project)),
            kind: Some(self.kind),
            project: Some(project.to_string()),
            confidence: Some(if capped {
                confidence.min(NOTE_CONFIDENCE)
            } else {
                confidence
            }),
            reasoning: std::mem::take(&mut self.why).join("\n"),
            rule,
            choices: vec![self.choice(project, "chosen".into())],
            written: vec![],
        }
    }

    /// Filed in a file of the vault's own (`profile.md`, `tasks.md`).
    fn global(&mut self, rule: &'static str, path: &str, confidence: f32) -> Decision {
        Decision {
            destination: Some(path.to_string()),
            kind: Some(self.kind),
            project: None,
            confidence: Some(if self.doubt.is_some() {
                confidence.min(NOTE_CONFIDENCE)
            } else {
                confidence
            }),
            reasoning: std::mem::take(&mut self.why).join("\n"),
            rule,
            choices: vec![Choice {
                destination: path.to_string(),
                why: "chosen".into(),
            }],
            written: vec![],
        }
    }

    /// Asked about, with the options so far.
    fn inbox(&mut self, rule: &'static str) -> Decision {
        Decision {
            destination: None,
            kind: Some(self.kind),
            project: None,
            confidence: Some(0.0),
            reasoning: std::mem::take(&mut self.why).join("\n"),
            rule,
            choices: std::mem::take(&mut self.options),
            written: vec![],
        }
    }
}

/// Each project's search score (its best passage plus half its second),
/// best first, with its best passage.
fn scores(facts: &Facts) -> Vec<(String, f32, String)> {
    let mut per_project: BTreeMap<String, (Vec<f32>, String)> = BTreeMap::new();
    for hit in &facts.hits {
        let mut parts = hit.path.splitn(3, '/');
        if let (Some("projects"), Some(project), Some(_)) =
            (parts.next(), parts.next(), parts.next())
        {
            let entry = per_project.entry(project.to_string()).or_insert_with(|| {
                (
                    vec![],
                    format!("{}:{}-{}", hit.path, hit.line_start, hit.line_end),
                )
            });
            entry.0.push(hit.score);
        }
    }
    let mut scored: Vec<(String, f32, String)> = per_project
        .into_iter()
        .map(|(p, (scores, best))| {
            let score = scores[0] + 0.5 * scores.get(1).copied().unwrap_or(0.0);
            (p, score, best)
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored
}

fn percent(x: f32) -> String {
    format!("{:.0}%", 100.0 * x)
}

/// Whether `held`, the words of a note a project's notes hold, are only
/// those of `errand`, the everyday errand the note is, when it is told
/// in two words ("Renew the TV licence" beside a budget's "software
/// licences").
fn only_the_errands_own(errand: Option<&str>, held: &[String]) -> bool {
    errand.is_some_and(|errand| {
        let phrase = whole_words(errand);
        errand.contains(' ') && held.iter().all(|w| phrase.contains(w))
    })
}

/// The answer that files a fact in the profile.
fn about_you() -> Choice {
    Choice {
        destination: "profile.md".into(),
        why: "a fact about you".into(),
    }
}

/// The answer that keeps a text unfiled, in `bucket/`.
fn bucket() -> Choice {
    Choice {
        destination: "bucket/".into(),
        why: "keep it as raw material, attached to no project".into(),
    }
}
