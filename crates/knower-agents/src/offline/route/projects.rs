//! What the vault tells of each project: the names a text may call it by,
//! the words its notes hold, and how close in meaning a text is to it.

use crate::offline::common::is_common;
use crate::offline::content::{content_words, units_of_a_rate};
use crate::offline::errands::without_places;
use crate::offline::kind::{Kind, without_task_opening};
use crate::offline::lexicon::*;
use crate::offline::phrasing::{listed, plain_words};
use crate::offline::route::thresholds::{
    COMMON_WORDS_MARGIN, MEANING_MARGIN, MEANING_MIN, UNTIED_MEANING_MIN, UNTIED_NOTE_MARGIN,
};
use crate::offline::stems::whole_words;
use crate::router::{Facts, OWN_NOTES, Project};

/// The content words of a task whose opening verb is all it says, when
/// the verb is no everyday word: "Worm them all in the spring" is about
/// worming, as "Check on it again" is about nothing. (A task's opening
/// verb is set aside as saying what to do, not what about; here it says
/// both.)
pub(super) fn what_the_verb_says(task: &str) -> Vec<String> {
    let mut words = content_words(task);
    words.retain(|w| !is_common(w));
    words
}

/// `words` (the text's [`content_words`]) with the vague words the text
/// uses as a project's name: "Gave a dry run of the talk" is about the
/// conference talk, "the move" about Mum's move, though "talk" and "move"
/// are everyday verbs that alone tie a note to nothing. Only after a
/// determiner, where the word is a thing named ("talk to Sam about it"
/// is no talk of the project's), or after a determiner and one word that
/// tells which ("the afternoon talk clashes…", "did the first talk…"),
/// and only the name's last word, the one it is called by: "the new
/// address" is no "new X-ray"'s.
pub(super) fn with_names_used(mut words: Vec<String>, used: &[(String, String)]) -> Vec<String> {
    for (_, stem) in used {
        if !words.contains(stem) {
            words.push(stem.clone());
        }
    }
    words.sort();
    words
}

/// The words `text` calls a project by, as [`with_names_used`] takes
/// them, each with the project it names: "the tour" names the Mahler
/// tour. (A place named with such a word names nothing: "the Tesco car
/// park" is no "Electric car"'s.)
pub(super) fn names_used(text: &str, projects: &[Project]) -> Vec<(String, String)> {
    let called: Vec<(&str, Vec<String>)> = projects
        .iter()
        .map(|p| {
            (
                p.name.as_str(),
                p.names.iter().filter_map(|n| called_by(n)).collect(),
            )
        })
        .collect();
    let lower = without_places(&text.to_lowercase());
    let plain: Vec<&str> = plain_words(&lower).collect();
    // The unit of a rate names nothing: "sixty kilometres a day" is no
    // "Volunteer days"'.
    let rates = units_of_a_rate(&lower);
    let mut used = Vec::new();
    for (i, word) in plain.iter().enumerate() {
        if !listed(DETERMINERS, word) {
            continue;
        }
        let after = &plain[i + 1..(i + 3).min(plain.len())];
        for candidate in after {
            if let [stem] = &whole_words(candidate)[..]
                && !rates.contains(stem)
            {
                for (project, words) in &called {
                    let pair = (project.to_string(), stem.clone());
                    if words.contains(stem) && !used.contains(&pair) {
                        used.push(pair);
                    }
                }
            }
        }
    }
    used
}

/// The word a project's name is called by, as routing compares words:
/// its last, in the order it is written ("branch" of "New branch", not
/// "new").
pub(super) fn called_by(name: &str) -> Option<String> {
    name.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .rfind(|part| !part.is_empty())
        .and_then(|last| whole_words(last).pop())
}

/// What project `name`'s notes hold of `words`: its name, its
/// description, state, tasks and changelog, and the notes the search hit
/// (`hit_files`).
pub(super) fn held_words(facts: &Facts, name: &str, words: &[String]) -> Vec<String> {
    if words.is_empty() {
        return vec![];
    }
    let mut known: std::collections::HashSet<String> = whole_words(&name.replace(['-', '_'], " "))
        .into_iter()
        .collect();
    let own = OWN_NOTES.map(|f| format!("projects/{name}/{f}"));
    let hit_files = facts.hit_files(name);
    let others = hit_files
        .into_iter()
        .filter(|f| !own.iter().any(|o| o == f))
        .map(str::to_string);
    for path in own.iter().cloned().chain(others) {
        if let Some(text) = facts.note(&path) {
            let body = frontmatter::split(text).map(|s| s.body).unwrap_or(text);
            // One pass of the analyzer over the file, its task items'
            // everyday verbs left out, not one per line.
            let body = crate::text::without_noted_marks(body);
            let body: Vec<&str> = body.lines().map(without_an_everyday_task_verb).collect();
            known.extend(whole_words(&body.join("\n")));
        }
    }
    words
        .iter()
        .filter(|w| known.contains(*w))
        .cloned()
        .collect()
}

/// A task item of a project's notes without its opening verb when that
/// verb is an everyday word, as a new task's opening verb is set aside
/// (`without_task_opening`): "- [ ] Line the beds with weed membrane"
/// tells what the raised beds need, not that "the phone line" is theirs.
/// A verb of the project's own stays ("- [ ] Rehearse the second
/// movement"): a later "the rehearsal went well" is the project's by it.
pub(super) fn without_an_everyday_task_verb(line: &str) -> &str {
    let Some(task) = ["- [ ] ", "- [x] ", "- [X] "]
        .iter()
        .find_map(|item| line.strip_prefix(item))
    else {
        return line;
    };
    let rest = without_task_opening(task, Kind::Task);
    let verb = &task[..task.len() - rest.len()];
    if whole_words(verb).iter().all(|w| is_common(w)) {
        rest
    } else {
        line
    }
}

/// The share of the note's `words` a project's notes explain, from the
/// words they hold. A share, not a score: it does not grow with the vault.
/// One shared word is no share, however short the note: among several
/// projects it is a coincidence ("same plan as before" is not about the
/// project that mentions a plan). A word that only one project holds is
/// weighed apart ([`sole_holder`]).
pub(super) fn coverage(held: &[String], words: &[String]) -> f32 {
    if held.len() < 2 {
        return 0.0;
    }
    held.len() as f32 / words.len() as f32
}

/// The one project whose notes hold words of the note, with the words it
/// holds: the only one that holds any, or else the only one that holds
/// a word that is not an everyday one, the others holding only everyday
/// words (`true` then). "Weigh her every week during hibernation" is the
/// tortoise's, whatever project also says "every". Which words are
/// everyday for which project is `everyday`'s to say.
pub(super) fn sole_holder(
    holdings: &[(String, Vec<String>)],
    everyday: impl Fn(&str, &str) -> bool,
) -> Option<(&str, &[String], bool)> {
    let holders: Vec<_> = holdings
        .iter()
        .filter(|(_, held)| !held.is_empty())
        .collect();
    if let [(project, held)] = holders[..] {
        return Some((project, held, false));
    }
    let uncommon: Vec<_> = holders
        .into_iter()
        .filter(|(project, held)| held.iter().any(|w| !everyday(project, w)))
        .collect();
    match uncommon[..] {
        [(project, held)] => Some((project, held, true)),
        _ => None,
    }
}

/// How many of a project's notes hit by the search stand for it in
/// [`meaning`], beside its description and state.
pub(super) const MEANING_HITS: usize = 3;

/// How close in meaning the note is to each project, best first (the
/// three closest told in `why`): the best cosine between the note and a
/// passage of the project's description, its state, or one of its notes
/// the search hit first, or one sentence of its description and state
/// ([`own_sentences`]) that holds none of the note's `words`. `None` when no
/// embedding model is on this machine (routing then goes by words alone);
/// a model that fails is reported, and routing goes on by words.
pub(super) fn meaning(
    facts: &Facts,
    text: &str,
    words: &[String],
    why: &mut Vec<String>,
) -> Option<Vec<(String, f32)>> {
    if !facts.has_meaning() {
        return None;
    }
    let projects = &facts.projects;
    let mut owner = Vec::new();
    let mut paths = Vec::new();
    for (i, p) in projects.iter().enumerate() {
        let own = ["description.md", "state.md"].map(|f| format!("projects/{}/{f}", p.name));
        // A few of the notes the search hit, best first: each may need its
        // vectors computed here when no server has done it yet.
        let hits = facts
            .hit_files(&p.name)
            .into_iter()
            .take(MEANING_HITS)
            .map(str::to_string);
        for path in own.into_iter().chain(hits) {
            if !paths.contains(&path) {
                owner.push(i);
                paths.push(path);
            }
        }
    }
    // Each of its own sentences too: a project's notes hold many topics,
    // and a passage's vector is their blend ("the long rides, the hills,
    // nutrition and the bike"), which a note about one of them ("I run out
    // of energy after 50 miles if I don't eat") sits far from. Not a
    // sentence that holds words of the note: alone beside it, a shared
    // word makes the sentence close, and the meaning would echo the words
    // it is to be weighed against ("a cluster of weeds…" beside "the new
    // cluster" of a mapping service).
    let sentences: Vec<(usize, String)> = projects
        .iter()
        .enumerate()
        .flat_map(|(i, p)| own_sentences(facts, &p.name).map(move |s| (i, s)))
        .filter(|(_, s)| !whole_words(s).iter().any(|w| words.contains(w)))
        .collect();
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    let texts: Vec<&str> = sentences.iter().map(|(_, s)| s.as_str()).collect();
    let (to_paths, to_sentences) = match facts.similarity(text, &refs, &texts) {
        Ok(Some(c)) => c,
        Ok(None) => return None,
        Err(e) => {
            why.push(format!("Meaning was not used: {e}."));
            return None;
        }
    };
    let owners = owner.into_iter().chain(sentences.iter().map(|(i, _)| *i));
    let mut best = vec![None::<f32>; projects.len()];
    for (i, cosine) in owners.zip(to_paths.into_iter().chain(to_sentences)) {
        if let Some(c) = cosine {
            best[i] = Some(best[i].map_or(c, |b: f32| b.max(c)));
        }
    }
    let mut out: Vec<(String, f32)> = projects
        .iter()
        .zip(best)
        .filter_map(|(p, b)| Some((p.name.clone(), b?)))
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    if !out.is_empty() {
        why.push(format!(
            "Closest in meaning (cosine to its notes): {}.",
            out.iter()
                .take(3)
                .map(|(p, c)| format!("{p} {c:.2}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Some(out)
}

/// The sentences of project `name`'s description and state, each of
/// two words or more, and the description's parts before and after a
/// colon ("Training for the sportive in June", "the long rides, the
/// hills, nutrition and the bike"), each after the project's name, which
/// tells what it is a part of ("cycling sportive: the hills").
pub(super) fn own_sentences<'a>(
    facts: &'a Facts,
    name: &'a str,
) -> impl Iterator<Item = String> + 'a {
    let label = name.replace(['-', '_'], " ");
    ["description.md", "state.md"]
        .into_iter()
        .filter_map(move |file| {
            let text = facts.note(&format!("projects/{name}/{file}"))?;
            let body = frontmatter::split(text).map_or(text, |s| s.body);
            let mut parts = Vec::new();
            for line in body
                .lines()
                .map(|l| l.trim().trim_start_matches("- ").trim())
            {
                if line.is_empty() || line.starts_with('#') || line.starts_with("<!--") {
                    continue;
                }
                for sentence in line.split(". ") {
                    if file == "description.md" {
                        parts.extend(sentence.split(": "));
                    } else {
                        parts.push(sentence);
                    }
                }
            }
            Some(
                parts
                    .into_iter()
                    .map(str::trim)
                    .filter(|p| p.split_whitespace().count() >= 2)
                    .map(|p| format!("{label}: {p}"))
                    .collect::<Vec<_>>(),
            )
        })
        .flatten()
}

/// The project a note or a news item that no project's notes share a word
/// of is most likely about: the closest in meaning, at
/// [`UNTIED_MEANING_MIN`] or more and by [`UNTIED_NOTE_MARGIN`], when it
/// says enough to place (three content words or more: "Held a full plank
/// for a minute for the first time" beside a pilates project's notes,
/// not "Did he ever reply?").
pub(super) fn note_by_meaning<'a>(
    closest: Option<Closest<'a>>,
    words: &[String],
) -> Option<Closest<'a>> {
    if words.len() < 3 {
        return None;
    }
    closest.filter(|c| c.cosine >= UNTIED_MEANING_MIN && c.lead() >= UNTIED_NOTE_MARGIN)
}

/// The project a task that no project's words tie to, and that is no
/// everyday errand, is most likely for: the closest in meaning, at
/// [`UNTIED_MEANING_MIN`] or more, by the lead that counts where words tie
/// only weakly ([`COMMON_WORDS_MARGIN`]), with its cosine, the
/// runner-up's and the runner-up, when the task has two content words
/// (`words`) or more. Such a task is some project's in words
/// its notes do not use yet ("Plan a route for the week 5 session…" for
/// a beginners' running group): on the read sets it filed twelve tasks
/// that were asked about before, eleven in the right project, where the
/// same lead for a note that is no task would file nearly as many that
/// belong in the inbox or elsewhere as rightly (round twenty-seven,
/// BENCHMARKS.md).
pub(super) fn task_by_meaning<'a>(
    closest: Option<Closest<'a>>,
    words: &[String],
) -> Option<Closest<'a>> {
    // One word is too little for the meaning to place ("Ask them what
    // they meant"), as one shared word is no share (`coverage`).
    if words.len() < 2 {
        return None;
    }
    closest.filter(|c| c.cosine >= UNTIED_MEANING_MIN && c.lead() >= COMMON_WORDS_MARGIN)
}

/// The project closest in meaning to a note, with its cosine, and the
/// runner-up with its own ("none" at 0 when there is no other project).
use knower_vault::frontmatter;
#[derive(Debug, Clone, Copy)]
pub(super) struct Closest<'a> {
    pub(super) top: &'a str,
    pub(super) cosine: f32,
    pub(super) next: &'a str,
    pub(super) next_cosine: f32,
}

impl<'a> Closest<'a> {
    /// From [`meaning`]'s projects, best first.
    pub(super) fn of(meant: &'a [(String, f32)]) -> Option<Closest<'a>> {
        let [(top, cosine), rest @ ..] = meant else {
            return None;
        };
        let (next, next_cosine) = rest
            .first()
            .map_or(("none", 0.0), |(p, c)| (p.as_str(), *c));
        Some(Closest {
            top,
            cosine: *cosine,
            next,
            next_cosine,
        })
    }

    /// How much closer the top project is than the runner-up.
    pub(super) fn lead(&self) -> f32 {
        self.cosine - self.next_cosine
    }

    /// Whether the meaning clearly points to the top project: close
    /// enough ([`MEANING_MIN`]) and far enough ahead ([`MEANING_MARGIN`]).
    pub(super) fn is_clear(&self) -> bool {
        self.cosine >= MEANING_MIN && self.lead() >= MEANING_MARGIN
    }

    /// [`Self::is_clear`], or for a first-person fact placed as a note
    /// (`first_person`: of one of the user's things, or holding only at
    /// times) the same lead from a smaller cosine: so short a text sits
    /// far from every project's notes ("my left side is much weaker than
    /// my right on the leg circles" beside a pilates project's: 0.20, and
    /// -0.01 for the next), and facts of who the user is never led by as
    /// much on the read sets (BENCHMARKS.md, rounds thirty-seven and
    /// forty-one).
    pub(super) fn is_clear_for(&self, first_person: bool) -> bool {
        self.is_clear()
            || (first_person && self.cosine >= UNTIED_MEANING_MIN && self.lead() >= MEANING_MARGIN)
    }
}
