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

use super::lexicon::*;
use std::collections::BTreeMap;

use knower_index::{Index, Mode, SearchOptions};
use knower_vault::{EntryKind, Vault, frontmatter};
use serde_json::Value;

use super::kind::{
    Kind, contains_words, doubtful_kind, found_words, is_number, kind_name, kind_of, kind_rule,
    listed, plain_words, tells_who_someone_is, without_task_opening,
};
use super::whole_words;
use crate::error::Result;
use crate::inbox::Choice;

/// Where the offline engine files an update, and why.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Decision {
    /// The file to write; `None` for the inbox.
    pub destination: Option<String>,
    pub kind: Kind,
    pub project: Option<String>,
    /// 0 to 1: how sure the rules are.
    pub confidence: f32,
    pub reasoning: String,
    /// The destinations considered, best first (the inbox's options).
    #[serde(skip)]
    pub choices: Vec<Choice>,
}

/// What a first-person fact (`lower`) opening with "my" is of: the word
/// after it and any of [`WHICH_ONE`], less an "'s" ("my daughter's…")
/// and any "great-" before it: "my great-grandfather" is of the user's
/// family as "my grandfather" is.
fn my_what(lower: &str) -> Option<&str> {
    let mut words = plain_words(lower);
    (words.next() == Some("my"))
        .then(|| words.find(|w| !listed(WHICH_ONE, w)))
        .flatten()
        .map(|w| w.trim_end_matches("'s").trim_start_matches("great-"))
}

/// Whether a first-person fact (`lower`) is about who the user is: the
/// people in their life ("my mum still lives in Cork", "Maya is my niece"),
/// a taste ("I prefer tea when it's cold") or where they come from, which
/// hold whatever the condition.
fn of_who_i_am(lower: &str) -> bool {
    my_what(lower).is_some_and(|w| listed(PEOPLE, w))
        || tells_who_someone_is(lower)
        || TASTES.iter().any(|t| lower.contains(t))
        || ORIGINS.iter().any(|o| lower.starts_with(o))
}

/// The condition under which a first-person fact (`lower`) holds, when it
/// is told as holding only at times rather than of who the user is.
fn how_i_do_something(lower: &str) -> Option<&'static str> {
    if of_who_i_am(lower) {
        return None;
    }
    AT_TIMES
        .iter()
        .copied()
        .find(|w| contains_words(lower, w))
        .or_else(|| after_so_much(lower).then_some("after"))
}

/// Whether `lower` tells a condition of so much of something done: "I
/// can't eat gels after four hours…", "I get motion sick after about an
/// hour in the rig", "…after anything over forty miles". (Not a time of
/// day: "I don't drink coffee after 2 pm" holds always.)
fn after_so_much(lower: &str) -> bool {
    let words: Vec<&str> = plain_words(lower).collect();
    words.iter().enumerate().any(|(i, &w)| {
        w == "after"
            && words[i + 1..]
                .iter()
                .take(4)
                .any(|&unit| listed(MEASURES, unit))
    })
}

/// Whether `lower` is the user's age and nothing else: "I'm 38", "I am
/// 52 years old" (a number is no content word, so it would otherwise say
/// too little to place).
fn tells_an_age(lower: &str) -> bool {
    let words: Vec<&str> = plain_words(lower).collect();
    let rest = match words.as_slice() {
        ["i'm", rest @ ..] | ["i", "am", rest @ ..] => rest,
        _ => return false,
    };
    matches!(rest, [n] | [n, "years", "old"] | [n, "now"] if is_number(n))
}

/// Whether a first-person fact (`lower`) is of one of the user's things
/// rather than of who they are: "my tyres are too narrow…", "my tension
/// is uneven…" belong to the project whose notes hold their words.
fn of_my_things(lower: &str) -> bool {
    !of_who_i_am(lower) && my_what(lower).is_some_and(|w| !listed(PARTICULARS, w))
}

/// Whether the text weighs options rather than says something: "either
/// the van or the website…", "whether the fair or the telescope…", "the
/// bathroom or the hotel, whichever…". ("Ask whether the battery fits" is
/// a question to someone else, not a choice.) So does "the canoe or the
/// speech this weekend, can't do both", and "either" with the options
/// unnamed ([`EITHER_UNNAMED`]).
fn weighs_options(lower: &str) -> bool {
    let said = |w| contains_words(lower, w);
    let not_both = [
        "can't do both",
        "can’t do both",
        "cannot do both",
        "not both",
    ]
    .iter()
    .any(|p| said(p));
    (said("either") || said("whether") || not_both) && said("or")
        || said("whichever")
        || EITHER_UNNAMED.iter().any(|p| said(p))
}

/// The phrase by which `lower` points at something it does not say: one of
/// [`REFERENTIAL`], or "same … as" ("same story as last year").
fn refers_elsewhere(lower: &str) -> Option<String> {
    let points = |phrase: &str| {
        // "The thing is, the boiler…" says what the thing is.
        found_words(lower, phrase).any(|at| {
            let after = plain_words(&lower[at + phrase.len()..]).next();
            !(phrase.ends_with("thing") && matches!(after, Some("is" | "was")))
        })
    };
    if let Some(phrase) = REFERENTIAL.iter().find(|r| points(r)) {
        return Some(phrase.to_string());
    }
    // "The same reminder email as…": up to three words between.
    let words: Vec<&str> = plain_words(lower).collect();
    (0..words.len())
        .filter(|&i| words[i] == "same")
        .find_map(|i| {
            let gap = words.get(i + 2..(i + 5).min(words.len()))?;
            let end = i + 2 + gap.iter().position(|w| *w == "as")?;
            Some(words[i..=end].join(" "))
        })
}

/// The verbs and their pronoun ("leave it") when every one of `words`,
/// the content words of `text`, is a verb whose object is a bare pronoun:
/// "Let's leave it for now" tells what is done to something the text
/// does not name, and the verb alone says nothing of what (a rota's
/// notes speak of annual leave). `None` when a word names something
/// ("leave it to soak overnight": "soak").
fn only_done_to_a_pronoun(text: &str, words: &[String]) -> Option<String> {
    let lower = text.to_lowercase();
    let plain: Vec<&str> = plain_words(&lower).collect();
    let done: Vec<&[&str]> = plain
        .windows(2)
        .filter(|pair| listed(THING_PRONOUNS, pair[1]))
        .collect();
    let verbs: std::collections::HashSet<String> =
        done.iter().flat_map(|pair| whole_words(pair[0])).collect();
    (!words.is_empty() && words.iter().all(|w| verbs.contains(w))).then(|| {
        done.iter()
            .map(|pair| pair.join(" "))
            .collect::<Vec<_>>()
            .join(", ")
    })
}

/// The opening of `lower` when the user goes along with something it does
/// not say, alone or before a comma: "I'm easy", "I'm in, whatever day
/// suits" (not "I'm in Leeds"). A preference in form, it tells nothing
/// about who the user is.
fn goes_along(lower: &str) -> Option<&str> {
    let words: Vec<&str> = plain_words(lower).collect();
    let (["i'm", stance] | ["i'm", stance, ..]) = words.as_slice() else {
        return None;
    };
    let opening = &lower[..lower.find(stance)? + stance.len()];
    let ends = words.len() == 2 || lower[opening.len()..].trim_start().starts_with(',');
    (listed(GOING_ALONG, stance) && ends).then_some(opening)
}

/// How a note opens when it answers something it does not say: a reply
/// word alone, before a comma, or before "by" or "enough" ("Fine by
/// me", "Fair enough"); or, as its subject, a pronoun for what was said
/// ("That's fine by me", "Whoever's free"). `None` for a pronoun that is
/// a determiner ("This week's shifts…") or a reply word that opens a
/// statement ("No rush on the tiles", "Right hand drive only").
fn answers_what_is_unsaid(lower: &str) -> Option<&str> {
    let words: Vec<&str> = plain_words(lower).collect();
    let (first, next) = (words.first().copied()?, words.get(1).copied());
    let opening = &lower[..lower.find(first)? + first.len()];
    let after = lower[opening.len()..].trim_start();
    let a_reply = listed(REPLIES, first)
        && (next.is_none()
            || after.starts_with(',')
            || next.is_some_and(|w| listed("by enough", w)));
    // A verb of how a thing sits with the user, with no subject before
    // it: "Works for me", "Sounds good", "Suits me" (not "Works start on
    // Monday", "Looks like rain").
    let how_it_sits = listed(SITS_WITH_ME, first)
        && next.is_none_or(|w| listed("for me good fine great right ok okay", w));
    let a_pronoun = listed("that's whoever whoever's whatever whatever's", first)
        || (listed("that this", first)
            && next.is_some_and(|w| {
                listed(
                    "is was sounds works should will would could went seems looks one",
                    w,
                )
            }));
    (a_reply || a_pronoun || how_it_sits).then_some(opening)
}

/// The preposition and pronoun a fact about the user ends with, when it
/// tells how the user feels about something the text does not name: "I'm
/// in two minds about it" is neither the profile's nor a project's.
fn feels_about_a_pronoun(lower: &str) -> Option<String> {
    let words: Vec<&str> = plain_words(lower).collect();
    match words.as_slice() {
        [.., preposition, pronoun]
            if listed(FEELING_PREPOSITIONS, preposition)
                && listed("it them that this", pronoun) =>
        {
            Some(format!("{preposition} {pronoun}"))
        }
        _ => None,
    }
}

/// The words of `text` that say what it is about: the index's terms (stop
/// words dropped, stemmed) less [`VAGUE`] ones, counts, the nouns of
/// [`PHRASE_PREPOSITIONS`], the verbs of [`RUNNING_OUT`] and
/// [`NOT_MINDING`] the text uses, and "fit" as a verb
/// ([`fits_as_a_verb`]).
pub(crate) fn content_words(text: &str) -> Vec<String> {
    static VAGUE_TERMS: std::sync::OnceLock<std::collections::HashSet<String>> =
        std::sync::OnceLock::new();
    let vague = VAGUE_TERMS.get_or_init(|| whole_words(VAGUE).into_iter().collect());
    let lower = text.to_lowercase();
    let in_phrases: Vec<String> = PHRASE_PREPOSITIONS
        .iter()
        .chain(RUNNING_OUT)
        .chain(NOT_MINDING)
        .filter(|phrase| contains_words(&lower, phrase))
        .flat_map(|phrase| whole_words(phrase))
        .collect();
    let mut times = holidays_told_as_times(&lower);
    times.extend(units_of_a_rate(&lower));
    let fits = if fits_as_a_verb(&lower) {
        whole_words("fit")
    } else {
        vec![]
    };
    let mut words = whole_words(text);
    words.retain(|t| {
        !vague.contains(t)
            && !is_count(t)
            && !in_phrases.contains(t)
            && !times.contains(t)
            && !fits.contains(t)
    });
    words
}

/// Whether `lower` tells how a thing fits, which says nothing of what
/// the thing is, as "put" does not: "fitted", "fits", and "fit" or
/// "fitting" before whom or where ("can't fit us in", "fit under the
/// desk", "the fit of the heels"). A fit that is a thing of its own
/// says what a note is about: "a bike fit", "the fit-out", "a dress
/// fitting". A past joined after a hyphen is the same verb: "dry-fitted
/// the first flight".
fn fits_as_a_verb(lower: &str) -> bool {
    let words: Vec<&str> = plain_words(lower).collect();
    words.iter().enumerate().any(|(i, word)| {
        // (The last part of a hyphenated word is the verb: "dry-fitted".)
        word.rsplit('-')
            .next()
            .is_some_and(|last| listed("fits fitted", last))
            || (listed("fit fitting", word)
                && words
                    .get(i + 1)
                    .is_some_and(|next| listed(WHOM_OR_WHERE_IT_FITS, next)))
    })
}

/// The holidays `lower` tells as times, as stemmed terms: after a
/// preposition ("over Christmas", "before Easter") or before a day of
/// them ("Christmas Eve", "the Easter holidays"). A time ties a note to
/// no project, as "March" does not: "Swapped Christmas Eve with Priya"
/// is a rota's, whatever a choir's Christmas concert says. Before a
/// noun a holiday names what a thing is for, and stays: "the Christmas
/// collection" is the food bank's.
fn holidays_told_as_times(lower: &str) -> Vec<String> {
    use super::kind::listed;
    let words: Vec<&str> = super::kind::plain_words(lower).collect();
    let word = |i: usize| words.get(i).copied().unwrap_or_default();
    (0..words.len())
        .filter(|&i| listed(HOLIDAYS, words[i]))
        .filter(|&i| {
            (i > 0 && listed(AROUND_A_TIME, word(i - 1)))
                || listed("eve day week weekend holiday holidays", word(i + 1))
        })
        .flat_map(|i| whole_words(words[i]))
        .collect()
}

/// The unit of each rate `lower` tells, as stemmed terms: a span after
/// "a", "an" or "per" that follows a count, a number of times or a
/// plural ("sixty kilometres a day", "three times a week", "two lessons
/// per month"). How often or how much says nothing of what a note is
/// about, as "every" does not: "Tom can manage about sixty kilometres a
/// day" is no "Volunteer days"' (but "a day out at the zoo" keeps its
/// day, and "every day" is vague already).
fn units_of_a_rate(lower: &str) -> Vec<String> {
    let words: Vec<&str> = plain_words(lower).collect();
    (2..words.len())
        .filter(|&i| listed(RATE_UNITS, words[i]) && listed("a an per", words[i - 1]))
        .filter(|&i| {
            let before = words[i - 2];
            is_count(before) || listed("times twice once", before) || before.ends_with('s')
        })
        .flat_map(|i| whole_words(words[i]))
        .collect()
}

/// The content words of a task whose opening verb is all it says, when
/// the verb is no everyday word: "Worm them all in the spring" is about
/// worming, as "Check on it again" is about nothing. (A task's opening
/// verb is set aside as saying what to do, not what about; here it says
/// both.)
fn what_the_verb_says(task: &str) -> Vec<String> {
    let mut words = content_words(task);
    words.retain(|w| !super::common::is_common(w));
    words
}

/// A number or an ordinal in digits ("40", "14th", "3rd"), or a number
/// in words ("forty", "twenty-two", "a thousand"): a count or a date,
/// which any project's notes may share by chance ("came 14th…" beside
/// "surgery is on the 14th", "all forty of her houseplants" beside
/// "Forty houses signed up").
fn is_count(term: &str) -> bool {
    static SPELLED: std::sync::OnceLock<std::collections::HashSet<String>> =
        std::sync::OnceLock::new();
    let spelled = SPELLED.get_or_init(|| {
        whole_words(&format!("{NUMBER_WORDS} {LARGE_NUMBERS}"))
            .into_iter()
            .collect()
    });
    let digits = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|suffix| term.strip_suffix(suffix))
        .unwrap_or(term);
    is_number(digits) || spelled.contains(term)
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
fn with_names_used(mut words: Vec<String>, used: &[(String, String)]) -> Vec<String> {
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
fn names_used(text: &str, projects: &[Project]) -> Vec<(String, String)> {
    let called: Vec<(&str, Vec<String>)> = projects
        .iter()
        .map(|p| {
            (
                p.name.as_str(),
                p.names.iter().filter_map(|n| called_by(n)).collect(),
            )
        })
        .collect();
    let lower = super::errands::without_places(&text.to_lowercase());
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
fn called_by(name: &str) -> Option<String> {
    name.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .rfind(|part| !part.is_empty())
        .and_then(|last| whole_words(last).pop())
}

struct Project {
    name: String,
    /// Lower-case forms the text may name it by.
    names: Vec<String>,
}

fn projects(vault: &Vault) -> Result<Vec<Project>> {
    let node = match vault.tree("projects", Some(1)) {
        Ok(node) => node,
        Err(knower_vault::Error::NotFound { .. }) => return Ok(vec![]),
        Err(e) => return Err(e.into()),
    };
    let mut out = Vec::new();
    for child in node.children.iter().filter(|c| c.kind == EntryKind::Folder) {
        let name = child.path.name().to_string();
        let mut names = vec![
            name.to_lowercase(),
            name.to_lowercase().replace(['-', '_'], " "),
        ];
        if let Ok(text) = vault.read(&format!("projects/{name}/description.md")) {
            if let Ok(Some(meta)) = frontmatter::parse(&text)
                && let Some(Value::Array(aliases)) = meta.get("aliases")
            {
                names.extend(
                    aliases
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_lowercase),
                );
            }
            let body = frontmatter::split(&text).map(|s| s.body).unwrap_or(&text);
            if let Some(title) = body.lines().find_map(|l| l.strip_prefix("# ")) {
                names.push(title.trim().to_lowercase());
            }
        }
        names.retain(|n| n.chars().filter(|c| c.is_alphanumeric()).count() >= 3);
        names.sort();
        names.dedup();
        out.push(Project { name, names });
    }
    Ok(out)
}

/// The text as a plain keyword query (no operators, bounded length).
fn keywords(text: &str) -> String {
    text.split_whitespace()
        .map(|w| {
            w.trim_start_matches(['-', '+'])
                .replace(['"', '*', ':', '(', ')'], " ")
        })
        .take(120)
        .collect::<Vec<_>>()
        .join(" ")
}

/// What project `name`'s notes hold of `words`: its name, its
/// description, state, tasks and changelog, and the notes the search hit
/// (`hit_files`).
fn held_words(vault: &Vault, name: &str, hit_files: &[String], words: &[String]) -> Vec<String> {
    if words.is_empty() {
        return vec![];
    }
    let mut known: std::collections::HashSet<String> = whole_words(&name.replace(['-', '_'], " "))
        .into_iter()
        .collect();
    let own = ["description.md", "state.md", "tasks.md", "changelog.md"]
        .map(|f| format!("projects/{name}/{f}"));
    let others = hit_files.iter().filter(|f| !own.contains(*f));
    for path in own.iter().chain(others) {
        if let Ok(text) = vault.read(path) {
            let body = frontmatter::split(&text).map(|s| s.body).unwrap_or(&text);
            // One pass of the analyzer over the file, its task items'
            // everyday verbs left out, not one per line.
            let body = crate::filing::without_noted_marks(body);
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
fn without_an_everyday_task_verb(line: &str) -> &str {
    let Some(task) = ["- [ ] ", "- [x] ", "- [X] "]
        .iter()
        .find_map(|item| line.strip_prefix(item))
    else {
        return line;
    };
    let rest = without_task_opening(task, Kind::Task);
    let verb = &task[..task.len() - rest.len()];
    if whole_words(verb)
        .iter()
        .all(|w| super::common::is_common(w))
    {
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
fn coverage(held: &[String], words: &[String]) -> f32 {
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
fn sole_holder(
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

/// How sure a note's filing may be at most: its file (`state.md`) is where
/// whatever no kind rule recognised goes. On the held-out routing sets, run
/// clean, most filings in the wrong file at 0.8 and above were such notes
/// (BENCHMARKS.md).
pub const NOTE_CONFIDENCE: f32 = 0.75;

/// How sure a filing on a sole holder's words is: below any filing that
/// several shared words or a clear meaning support.
pub const SOLE_HOLDER_CONFIDENCE: f32 = 0.6;

/// How many of a project's notes hit by the search stand for it in
/// [`meaning`], beside its description and state.
const MEANING_HITS: usize = 3;

/// How close in meaning the note is to each project, best first (the
/// three closest told in `why`): the best cosine between the note and a
/// passage of the project's description, its state, or one of its notes
/// the search hit first, or one sentence of its description and state
/// ([`own_sentences`]) that holds none of the note's `words`. `None` when no
/// embedding model is on this machine (routing then goes by words alone);
/// a model that fails is reported, and routing goes on by words.
fn meaning(
    vault: &Vault,
    index: &Index,
    text: &str,
    words: &[String],
    projects: &[Project],
    hit_files: &BTreeMap<String, Vec<String>>,
    why: &mut Vec<String>,
) -> Option<Vec<(String, f32)>> {
    if !index.model_at_hand() {
        return None;
    }
    let mut owner = Vec::new();
    let mut paths = Vec::new();
    for (i, p) in projects.iter().enumerate() {
        let own = ["description.md", "state.md"].map(|f| format!("projects/{}/{f}", p.name));
        // A few of the notes the search hit, best first: each may need its
        // vectors computed here when no server has done it yet.
        let hits = hit_files
            .get(&p.name)
            .into_iter()
            .flatten()
            .take(MEANING_HITS)
            .cloned();
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
        .flat_map(|(i, p)| own_sentences(vault, &p.name).map(move |s| (i, s)))
        .filter(|(_, s)| !whole_words(s).iter().any(|w| words.contains(w)))
        .collect();
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    let texts: Vec<&str> = sentences.iter().map(|(_, s)| s.as_str()).collect();
    let (to_paths, to_sentences) = match index.similarity_to(text, &refs, &texts) {
        Ok(c) => c,
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
fn own_sentences<'a>(vault: &'a Vault, name: &'a str) -> impl Iterator<Item = String> + 'a {
    let label = name.replace(['-', '_'], " ");
    ["description.md", "state.md"]
        .into_iter()
        .filter_map(move |file| {
            let text = vault.read(&format!("projects/{name}/{file}")).ok()?;
            let body = frontmatter::split(&text).map_or(text.as_str(), |s| s.body);
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

/// How sure a fact about the user is filed in the profile when no
/// project's notes hold its words…
pub const PROFILE_CONFIDENCE: f32 = 0.9;
/// …and when some do: the words explained by a project make it as likely
/// a fact about that project ("my easy pace is 6:10 per km" beside a half
/// marathon), and the confidence says so. Set from the share of such
/// filings that were right on the read sets (BENCHMARKS.md).
pub const PROFILE_SHARED_CONFIDENCE: f32 = 0.75;

/// A note's content words must be this well explained by a project's notes
/// for it to be filed there unnamed (a new note brings new words: a quarter
/// of them already in the project is a good sign)…
pub const MIN_COVERAGE: f32 = 0.25;
/// …and this much better than by the runner-up's. Both were chosen on
/// `notes.tsv` (BENCHMARKS.md), never on the held-out sets.
pub const MIN_MARGIN: f32 = 0.1;

/// With an embedding model, a note may be filed by meaning alone when its
/// closest project's notes are at least this close (cosine)… It was 0.35;
/// on the read sets every value from 0.15 to 0.25 filed the same eleven
/// more notes rightly and one vague note wrongly, whose only content word
/// was a time's ("the end of the week", now a vague word; round
/// twenty-two, BENCHMARKS.md): the margin below is what keeps MiniLM's
/// noise out, so this is the highest value of that plateau.
pub const MEANING_MIN: f32 = 0.25;
/// …and this much closer than the runner-up's. The same lead overrules
/// the words: a note whose words point to one project and whose meaning
/// clearly to another is asked about. Chosen on `notes.tsv` only, where
/// no note outside a project came closer than 0.28 to one (BENCHMARKS.md).
pub const MEANING_MARGIN: f32 = 0.15;
/// The lead in meaning that counts where the words tie a note only
/// weakly: it outweighs a project whose notes alone hold words of the
/// note when those words are everyday ones ("left", "run") — closest in
/// meaning by this much, another project makes the filing a question —
/// and it chooses among several projects whose notes each hold some of
/// its words.
pub const COMMON_WORDS_MARGIN: f32 = 0.05;

/// How close in meaning a text that no words tie must be to a project's
/// notes for its lead to place it there: a task ([`task_by_meaning`]), a
/// note ([`note_by_meaning`]), a fact of one of the user's things.
pub const UNTIED_MEANING_MIN: f32 = 0.15;

/// The lead in meaning that places a note no project's words tie
/// ([`note_by_meaning`]): less than the lead that overrules words
/// ([`MEANING_MARGIN`]), as nothing speaks against it, more than a
/// task's ([`COMMON_WORDS_MARGIN`]), as a note that is no task is as
/// often one for the inbox.
pub const UNTIED_NOTE_MARGIN: f32 = 0.1;

/// The project a note or a news item that no project's notes share a word
/// of is most likely about: the closest in meaning, at
/// [`UNTIED_MEANING_MIN`] or more and by [`UNTIED_NOTE_MARGIN`], when it
/// says enough to place (three content words or more: "Held a full plank
/// for a minute for the first time" beside a pilates project's notes,
/// not "Did he ever reply?").
fn note_by_meaning<'a>(closest: Option<Closest<'a>>, words: &[String]) -> Option<Closest<'a>> {
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
fn task_by_meaning<'a>(closest: Option<Closest<'a>>, words: &[String]) -> Option<Closest<'a>> {
    // One word is too little for the meaning to place ("Ask them what
    // they meant"), as one shared word is no share (`coverage`).
    if words.len() < 2 {
        return None;
    }
    closest.filter(|c| c.cosine >= UNTIED_MEANING_MIN && c.lead() >= COMMON_WORDS_MARGIN)
}

/// The project closest in meaning to a note, with its cosine, and the
/// runner-up with its own ("none" at 0 when there is no other project).
#[derive(Debug, Clone, Copy)]
struct Closest<'a> {
    top: &'a str,
    cosine: f32,
    next: &'a str,
    next_cosine: f32,
}

impl<'a> Closest<'a> {
    /// From [`meaning`]'s projects, best first.
    fn of(meant: &'a [(String, f32)]) -> Option<Closest<'a>> {
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
    fn lead(&self) -> f32 {
        self.cosine - self.next_cosine
    }

    /// Whether the meaning clearly points to the top project: close
    /// enough ([`MEANING_MIN`]) and far enough ahead ([`MEANING_MARGIN`]).
    fn is_clear(&self) -> bool {
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
    fn is_clear_for(&self, first_person: bool) -> bool {
        self.is_clear()
            || (first_person && self.cosine >= UNTIED_MEANING_MIN && self.lead() >= MEANING_MARGIN)
    }
}

pub fn route(vault: &Vault, index: &Index, text: &str) -> Result<Decision> {
    let kind = kind_of(text);
    let lower = text.to_lowercase();
    let projects = projects(vault)?;
    let about = without_task_opening(text, kind);
    let used_names = names_used(about, &projects);
    let mut words = with_names_used(content_words(about), &used_names);
    // An everyday word the text calls a project by is that project's as
    // much as a word of its own: "Check my passport is valid until after
    // the tour" is the Mahler tour's ("tour"), no errand.
    let everyday = |project: &str, word: &str| {
        super::common::is_common(word) && !used_names.iter().any(|(p, w)| p == project && w == word)
    };
    // Nothing left once a task's opening verb was set aside: the verb
    // may be what it is about.
    if words.is_empty() && about.len() < text.len() {
        words = what_the_verb_says(text);
    }
    // A task's opening verb names nothing, as in `with_names_used`: "Book
    // the pub for the Christmas party" is no book club's.
    let naming = about.to_lowercase();
    let named: Vec<&Project> = projects
        .iter()
        .filter(|p| p.names.iter().any(|n| contains_words(&naming, n)))
        .collect();

    // Content scores per project (rule 3).
    let mut per_project: BTreeMap<String, (Vec<f32>, String)> = BTreeMap::new();
    let mut hit_files: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let query = keywords(text);
    if !query.trim().is_empty() {
        let options = SearchOptions {
            mode: Mode::Fast,
            scope: None,
            limit: 40,
        };
        for hit in index.search(&query, &options)?.hits {
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
                let files = hit_files.entry(project.to_string()).or_default();
                if files.len() < 8 && !files.contains(&hit.path) {
                    files.push(hit.path.clone());
                }
            }
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
    let score_of = |p: &str| scored.iter().find(|s| s.0 == p).map(|s| s.1).unwrap_or(0.0);

    let mut why = vec![format!(
        "Kind: {} (rule: {}).",
        kind_name(kind),
        kind_rule(kind)
    )];
    let doubt = doubtful_kind(text, kind);
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

    let file_in = |project: &str| project_file(project, kind);
    let choice = |project: &str, why: String| Choice {
        destination: file_in(project),
        why,
    };
    let decided = |project: &str, confidence: f32, why: Vec<String>| Decision {
        destination: Some(file_in(project)),
        kind,
        project: Some(project.to_string()),
        // A note is what no kind rule recognised: a task or an event told
        // in words the rules do not know lands in state.md too, so the
        // file is less sure than the project. So is a kind in doubt.
        confidence: if kind == Kind::Note || doubt.is_some() {
            confidence.min(NOTE_CONFIDENCE)
        } else {
            confidence
        },
        reasoning: why.join(" "),
        choices: vec![choice(project, "chosen".into())],
    };
    let global = |path: &str, confidence: f32, why: Vec<String>| Decision {
        destination: Some(path.to_string()),
        kind,
        project: None,
        confidence: if doubt.is_some() {
            confidence.min(NOTE_CONFIDENCE)
        } else {
            confidence
        },
        reasoning: why.join(" "),
        choices: vec![Choice {
            destination: path.to_string(),
            why: "chosen".into(),
        }],
    };

    let mut options: Vec<Choice> = named
        .iter()
        .map(|p| choice(&p.name, "named in the text".into()))
        .collect();
    for (p, s, best) in scored.iter().take(3) {
        if !options.iter().any(|c| c.destination == file_in(p)) {
            options.push(choice(p, format!("score {s:.1}, best passage {best}")));
        }
    }
    options.push(bucket());

    // Text that leans on what it does not say is asked about, wherever its
    // words point: "the same as last time" is not the user's last note.
    if let Some(phrase) = refers_elsewhere(&lower) {
        why.push(format!(
            "It refers to something it does not say (“{phrase}”), so I cannot tell where it belongs."
        ));
        return Ok(inbox(kind, why, options));
    }
    if kind == Kind::Preference && tells_an_age(&lower) {
        why.push("It tells your age: a fact about who you are, for the profile.".into());
        return Ok(global("profile.md", PROFILE_CONFIDENCE, why));
    }
    if words.is_empty() {
        why.push("It says too little to place: none of its words tells what it is about.".into());
        return Ok(inbox(kind, why, options));
    }
    if kind == Kind::Preference
        && let Some(object) = feels_about_a_pronoun(&lower)
    {
        why.push(format!(
            "It tells how you feel about something it does not name (“{object}”), so I cannot tell where it belongs."
        ));
        return Ok(inbox(kind, why, options));
    }
    if let Some(done) = only_done_to_a_pronoun(about, &words) {
        why.push(format!(
            "It tells only what is done to something it does not name (“{done}”), so I cannot tell where it belongs."
        ));
        return Ok(inbox(kind, why, options));
    }
    // A reply to something unsaid that names nothing of its own: the
    // everyday words left ("fine", "free", "long") tie it to no project,
    // however close a project's notes come in meaning.
    // So is the user going along with it, whose one word is how they
    // stand: "I'm easy" is no fact about them.
    let a_note_of_common_words =
        || kind == Kind::Note && words.iter().all(|w| super::common::is_common(w));
    if named.is_empty()
        && let Some(opening) = goes_along(&lower).or_else(|| {
            a_note_of_common_words()
                .then(|| answers_what_is_unsaid(&lower))
                .flatten()
        })
    {
        why.push(format!(
            "It answers something it does not say (“{opening}”) and names nothing of its own, so I cannot tell where it belongs."
        ));
        return Ok(inbox(kind, why, options));
    }
    // Options weighed are a question for the user, whichever they name.
    if weighs_options(&lower) {
        why.push(
            "It weighs options (“either… or…”, “whether…”, “… can't do both”): which one is for you to say.".into(),
        );
        return Ok(inbox(kind, why, options));
    }
    let listed = |w: &[String]| w.join(", ");
    why.push(format!("Its content words: {}.", listed(&words)));
    // What every project's notes hold of the note: the shares need the
    // named and searched ones, and the sole-holder rule needs to know that
    // no other project holds a word (the search's hits may all be one
    // project's).
    let candidates = projects.iter().map(|p| p.name.clone());
    let holdings: Vec<(String, Vec<String>)> = candidates
        .map(|p| {
            let files = hit_files.get(&p).map(Vec::as_slice).unwrap_or_default();
            let held = held_words(vault, &p, files, &words);
            (p, held)
        })
        .collect();
    let mut covered: Vec<(String, f32)> = holdings
        .iter()
        .map(|(p, held)| (p.clone(), coverage(held, &words)))
        .collect();
    covered.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then(score_of(&b.0).total_cmp(&score_of(&a.0)))
    });
    let share_of = |p: &str| covered.iter().find(|c| c.0 == p).map_or(0.0, |c| c.1);
    let percent = |x: f32| format!("{:.0}%", 100.0 * x);

    // Rule 2: named projects.
    if named.len() == 1 {
        let p = &named[0].name;
        if let Some((other, share)) = covered.first().filter(|(q, share)| {
            // Named wins unless the words clearly belong elsewhere.
            q != p && *share >= 2.0 * MIN_COVERAGE && *share >= share_of(p) + 2.0 * MIN_MARGIN
        }) {
            why.push(format!(
                "It names {p}, but its words are {other}'s ({} of them in {other}'s notes, {} in {p}'s), so I cannot tell which it is about.",
                percent(*share),
                percent(share_of(p))
            ));
            return Ok(inbox(kind, why, options));
        }
        why.push(format!("Filed in {p}, the project it names."));
        let confidence = if share_of(p) >= MIN_COVERAGE {
            0.95
        } else {
            0.85
        };
        return Ok(decided(p, confidence, why));
    }
    // A text that names several projects is about them together ("the
    // novel or the choir first?"): which one it belongs to is the user's
    // call, whichever holds more of its other words.
    if named.len() > 1 {
        why.push(
            "It names several projects, so it is about them together; which one it belongs to is for you to say."
                .into(),
        );
        return Ok(inbox(kind, why, options));
    }

    // A fact about the user that names no project belongs to the user —
    // less surely when a project's notes hold its words ("I'm allergic to
    // tomatoes" beside a garden's). One that holds only at times tells of
    // a practice ("my fingers still hurt after practice" beside a violin
    // project's), and one of the user's things is a project's more often
    // than not ("my tyres are too narrow…" beside a cyclocross project's
    // "tyres"): either is placed as a note is, by words and meaning, and
    // asked about with the profile as the first answer when neither
    // decides.
    let holders: Vec<String> = holdings
        .iter()
        .filter(|(_, held)| !held.is_empty())
        .map(|(p, held)| format!("{p}'s notes hold {}", listed(held)))
        .collect();
    let of_the_user = kind == Kind::Preference && !projects.is_empty();
    let at_times = of_the_user.then(|| how_i_do_something(&lower)).flatten();
    let of_mine = of_the_user && at_times.is_none() && of_my_things(&lower);
    let as_a_note = if let Some(condition) = at_times {
        Some(format!(
            "It holds only at times (“{condition}”), as a project's notes tell of its practice, more than of who you are"
        ))
    } else if of_mine && !holders.is_empty() {
        Some(format!(
            "It is about one of your things more than who you are, and {}",
            holders.join("; ")
        ))
    } else if of_mine {
        // Facts of the user's things are a project's notes far more
        // often than the profile's ("my loaves spread flat in the oven"
        // beside a sourdough project's): with no word shared, the
        // meaning places it or the user is asked.
        Some("It is about one of your things more than who you are".into())
    } else {
        None
    };
    if let Some(reason) = &as_a_note {
        why.push(format!(
            "{reason}: it is placed as a note about a project would be."
        ));
        options.insert(0, about_you());
    } else if kind == Kind::Preference {
        why.push(
            "A preference or a fact about the user that names no project belongs in the profile."
                .into(),
        );
        if holders.is_empty() {
            return Ok(global("profile.md", PROFILE_CONFIDENCE, why));
        }
        why.push(format!(
            "It may be about a project instead: {}.",
            holders.join("; ")
        ));
        return Ok(global("profile.md", PROFILE_SHARED_CONFIDENCE, why));
    }

    // The meaning is weighed only from here on: a named project or a fact
    // about who the user is never needs the model loaded or the note
    // embedded.
    let meant = meaning(vault, index, text, &words, &projects, &hit_files, &mut why);
    let meaning_of = |p: &str| {
        meant
            .as_ref()
            .and_then(|m| m.iter().find(|c| c.0 == p))
            .map_or(0.0, |c| c.1)
    };
    let closest = meant.as_deref().and_then(Closest::of);
    // The project the meaning clearly points to: from a smaller cosine
    // for a first-person fact placed as a note, so short a text sitting
    // far from every project's notes ("I always come in too fast when
    // the tide is behind me" beside a powerboat course's).
    let clear_meaning = closest.filter(|c| c.is_clear_for(of_mine || at_times.is_some()));
    // Rule 3: content. Confidence is the share of the note's words the
    // project explains and its lead over the runner-up: shares, so it does
    // not drift as the vault grows, and a runner-up with nothing is just 0.
    let (c1, c2) = (
        covered.first().map_or(0.0, |c| c.1),
        covered.get(1).map_or(0.0, |c| c.1),
    );
    if c1 >= MIN_COVERAGE && c1 - c2 >= MIN_MARGIN {
        let best = covered[0].0.clone();
        let mut confidence = 0.5 + 0.45 * c1 * ((c1 - c2) / 0.5).min(1.0);
        let held = format!(
            "{} of these words{}",
            percent(c1),
            match covered.get(1) {
                Some((other, c2)) => format!(", {other}'s {}", percent(*c2)),
                None => ", and no other project's notes hold any".into(),
            }
        );
        match clear_meaning {
            Some(Closest {
                top, cosine: m1, ..
            }) if top != best => {
                why.push(format!(
                    "Its words point to {best} (its notes hold {held}), but its meaning is closer to {top}'s notes (cosine {m1:.2} against {:.2}), so I cannot tell which it is about.",
                    meaning_of(&best)
                ));
                return Ok(inbox(kind, why, options));
            }
            Some(_) => {
                confidence = (confidence + 0.1).min(0.97);
                why.push(format!(
                    "Filed in {best}: its notes hold {held}, and they are the closest in meaning."
                ));
            }
            None => why.push(format!("Filed in {best}: its notes hold {held}.")),
        }
        return Ok(decided(&best, confidence, why));
    }
    // The words do not decide; a clear meaning does — except for an
    // everyday errand that says nothing else and that no project's notes
    // have a word of, or only the words of the errand's own two ("Renew
    // the TV licence" beside a budget's licences): it is the global list's
    // however its meaning leans ("Pay the council tax" beside a first
    // flat's mortgage and survey; not "Order lettuce seedlings on Amazon"
    // beside a garden).
    // The everyday errand a task reads as, if any ("the car", "TV
    // licence"), found once for the rules below.
    let errand = (kind == Kind::Task)
        .then(|| super::errands::everyday_word(&lower, &words))
        .flatten();
    let errand_alone = kind == Kind::Task
        && holdings
            .iter()
            .all(|(_, held)| held.is_empty() || only_the_errands_own(errand.as_deref(), held))
        && super::errands::says_nothing_else(&lower, &words);
    if let Some(c) = clear_meaning.filter(|_| !errand_alone) {
        let Closest {
            top,
            cosine: m1,
            next,
            next_cosine: m2,
        } = c;
        let confidence = (0.6 + 0.5 * c.lead()).min(0.85);
        why.push(format!(
            "Its words do not decide, but its meaning does: cosine {m1:.2} to {top}'s notes, {m2:.2} to the next ({next}). Filed in {top}."
        ));
        return Ok(decided(top, confidence, why));
    }
    // One project alone holds words of the note (a distinctive word such
    // as "NAS", "tiler" or "restic" that no other project's notes use),
    // and the meaning, when known, does not point elsewhere.
    if let Some((best, held, others_common)) = sole_holder(&holdings, everyday) {
        let listed_held = held.join(", ");
        // Everyday words are weak ties: a project's notes that say "home"
        // or "water" do not make "Renew the home insurance" or "Pay the
        // water bill" its task, when the task reads as an errand. Nor do
        // the words of an errand told in two ("driving licence"): a golf
        // project's "driving" is not "Renew my driving licence". An
        // errand's word that only says where the task sends the project's
        // things is no errand: "Courier the boards to the council". Nor
        // is one the project's word owns: "Pay the club's insurance".
        let only_common = held.iter().all(|w| everyday(best, w));
        let tie_to_an_errand = errand.as_deref().filter(|word| {
            (only_common || only_the_errands_own(errand.as_deref(), held))
                && !super::errands::only_where_the_object_goes(about, held)
                && !super::errands::owned_by_what_is_held(about, held, word)
        });
        if let Some(word) = tie_to_an_errand {
            let tie = if only_common {
                "an everyday one"
            } else {
                "the errand's own"
            };
            why.push(format!(
                "Only {best}'s notes share a word of it, and {tie} ({listed_held}); “{word}” makes it an everyday errand, which goes to the global task list."
            ));
            return Ok(global("tasks.md", 0.7, why));
        }
        // Doubt needs less than a filing: a lead of the margin, with no
        // floor, is reason to ask rather than file on one word, and a
        // smaller lead is when the words are everyday ones, or when the
        // project the meaning points to holds everyday words of the note
        // too ("Place the first order for 10,000 mailer boxes": the
        // camping trip's "roof box" against the supplier's "first order").
        let top_holds_some = closest.is_some_and(|c| {
            holdings
                .iter()
                .any(|(p, held)| p == c.top && !held.is_empty())
        });
        let margin = if only_common || (others_common && top_holds_some) {
            COMMON_WORDS_MARGIN
        } else {
            MEANING_MARGIN
        };
        let elsewhere = closest.filter(|c| c.top != best && c.cosine - meaning_of(best) >= margin);
        if let Some(Closest {
            top, cosine: m1, ..
        }) = elsewhere
        {
            why.push(format!(
                "Only {best}'s notes share words of it ({listed_held}), but its meaning is closer to {top}'s notes (cosine {m1:.2} against {:.2}), so I cannot tell which it is about.",
                meaning_of(best)
            ));
            return Ok(inbox(kind, why, options));
        }
        let confidence = SOLE_HOLDER_CONFIDENCE + if held.len() >= 2 { 0.05 } else { 0.0 };
        why.push(format!(
            "Filed in {best}: {}, and {best}'s hold {listed_held}.",
            if others_common {
                "other projects' notes share only everyday words of it"
            } else {
                "no other project's notes share any of its words"
            }
        ));
        return Ok(decided(best, confidence, why));
    }
    // Several projects' notes hold words of it and none decides: the
    // words have narrowed the field, and within it the meaning may choose
    // by the smaller lead that outweighs everyday words, when the project
    // it points to among them all is one of the holders ("Get my skates
    // sharpened before Thursday's session": the hockey's notes say
    // "skate", the falconry's "session"). Not for an everyday errand:
    // "Pay the water bill" is no project's task because two projects'
    // notes say "water".
    let held_by = holdings.iter().filter(|(_, held)| !held.is_empty()).count();
    if let Some(c) = closest {
        let Closest {
            top,
            cosine: m1,
            next,
            next_cosine: m2,
        } = c;
        let top_holds = holdings
            .iter()
            .find(|(q, held)| q == top && !held.is_empty())
            .filter(|_| held_by >= 2 && c.lead() >= COMMON_WORDS_MARGIN)
            .filter(|_| errand.is_none());
        if let Some((_, held)) = top_holds {
            why.push(format!(
                "Its words are shared by {held_by} projects ({top}'s notes hold {}), and of these its meaning is closest to {top}'s (cosine {m1:.2}, {m2:.2} to the next, {next}). Filed in {top}.",
                held.join(", ")
            ));
            return Ok(decided(top, SOLE_HOLDER_CONFIDENCE, why));
        }
    }
    // The answers to a question no project's words can settle: `first`,
    // then every project (the closest in meaning first when the model is
    // at hand), then the bucket.
    let every_project = |first: Choice, why: &str| {
        let mut by_meaning: Vec<&str> = projects.iter().map(|p| p.name.as_str()).collect();
        if let Some(m) = &meant {
            let rank = |p: &str| m.iter().position(|c| c.0 == p).unwrap_or(m.len());
            by_meaning.sort_by_key(|p| rank(p));
        }
        let mut choices = vec![first];
        choices.extend(by_meaning.into_iter().map(|p| choice(p, why.into())));
        choices.push(bucket());
        choices
    };
    // Rule 4: no project. A task no project's notes have a word of goes
    // to the global list; one whose words several projects share is asked
    // about, as is anything else.
    if holders.is_empty() {
        if kind == Kind::Task {
            match &errand {
                Some(word) => why.push(format!(
                    "No project's notes share its words, and “{word}” makes it an everyday errand, which goes to the global task list."
                )),
                None if let Some(Closest {
                    top,
                    cosine: m1,
                    next,
                    next_cosine: m2,
                }) = task_by_meaning(closest, &words) =>
                {
                    why.push(format!(
                        "No project's notes share its words, and it does not read as an everyday errand (the car, the post, an appointment…), so it is likely a project's task in words its notes do not use yet: its meaning is closest to {top}'s notes (cosine {m1:.2}, {m2:.2} to the next, {next}). Filed in {top}."
                    ));
                    return Ok(decided(top, SOLE_HOLDER_CONFIDENCE, why));
                }
                None if !projects.is_empty() => {
                    why.push(
                        "No project's notes share its words, and it does not read as an everyday errand (the car, the post, an appointment…): it may be a project's task in words its notes do not use yet, so I ask which."
                            .into(),
                    );
                    let global = Choice {
                        destination: "tasks.md".into(),
                        why: "a task of its own, in the global list".into(),
                    };
                    return Ok(inbox(kind, why, every_project(global, "one of its tasks")));
                }
                None => why.push(
                    "There are no projects, so a task goes to the global task list.".into(),
                ),
            }
            return Ok(global("tasks.md", 0.7, why));
        }
        if as_a_note.is_some() {
            why.push(
                "No project's notes share its words, so I ask whether it is about you or one of your projects."
                    .into(),
            );
            return Ok(inbox(kind, why, every_project(about_you(), "its state")));
        }
        if let Some(Closest {
            top,
            cosine: m1,
            next,
            next_cosine: m2,
        }) = note_by_meaning(closest, &words)
        {
            why.push(format!(
                "No project's notes share its words, but its meaning is closest to {top}'s notes (cosine {m1:.2}, {m2:.2} to the next, {next}). Filed in {top}."
            ));
            return Ok(decided(top, SOLE_HOLDER_CONFIDENCE, why));
        }
        why.push(
            "No project's notes share its words, and it is not a task or about you, so I do not know where it belongs."
                .into(),
        );
    } else if c1 >= MIN_COVERAGE {
        why.push(format!(
            "{} and {} explain it about equally ({} and {} of its words), so I cannot choose.",
            covered[0].0,
            covered[1].0,
            percent(c1),
            percent(c2)
        ));
    } else {
        why.push(format!(
            "Its words are spread over several projects ({}), none holding {} of them, so I cannot tell which it belongs to.",
            holders.join("; "),
            percent(MIN_COVERAGE)
        ));
    }
    Ok(inbox(kind, why, options))
}

/// Whether `held`, the words of a note a project's notes hold, are only
/// those of `errand`, the everyday errand the note is, when it is told
/// in two words ("Renew the TV licence" beside a budget's "software
/// licences").
fn only_the_errands_own(errand: Option<&str>, held: &[String]) -> bool {
    errand.is_some_and(|errand| {
        let phrase = super::whole_words(errand);
        errand.contains(' ') && held.iter().all(|w| phrase.contains(w))
    })
}

/// The note of `project` an update of `kind` goes to.
pub fn project_file(project: &str, kind: Kind) -> String {
    let file = match kind {
        Kind::Task => "tasks.md",
        Kind::Event => "changelog.md",
        Kind::Note | Kind::Preference => "state.md",
    };
    format!("projects/{project}/{file}")
}

/// What the user's answer to an inbox item asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answered {
    /// File the item's update in this file, or in a new note of this folder
    /// when it ends with `/`.
    File(String),
    Discard,
}

/// Reads an answer to an inbox item: an option number, `discard`,
/// `bucket`, `profile`, `tasks`, a path, or a project's name.
pub fn read_answer(
    vault: &Vault,
    answer: &str,
    options: &[String],
    kind: Kind,
) -> Result<Option<Answered>> {
    let answer = answer.trim().trim_matches(['"', '\'', '`', '.']);
    let lower = answer.to_lowercase();
    if [
        "discard",
        "drop",
        "delete",
        "ignore",
        "delete it",
        "drop it",
    ]
    .contains(&lower.as_str())
    {
        return Ok(Some(Answered::Discard));
    }
    if let Ok(n) = lower
        .trim_start_matches(['#', '('])
        .trim_end_matches(')')
        .parse::<usize>()
    {
        return Ok(options.get(n.wrapping_sub(1)).cloned().map(Answered::File));
    }
    for (word, path) in [
        ("bucket", "bucket/"),
        ("profile", "profile.md"),
        ("tasks", "tasks.md"),
    ] {
        if contains_words(&lower, word) && !lower.contains('/') {
            return Ok(Some(Answered::File(path.into())));
        }
    }
    if answer.contains('/') || answer.ends_with(".md") {
        let path = knower_vault::VaultPath::parse(answer)?;
        if path.starts_with(&knower_vault::VaultPath::parse(crate::inbox::INBOX).expect("valid")) {
            return Ok(None);
        }
        let s = path.as_str();
        if let Some(project) = s.strip_prefix("projects/").filter(|p| !p.contains('/')) {
            return Ok(Some(Answered::File(project_file(project, kind))));
        }
        return Ok(Some(Answered::File(if s.ends_with(".md") {
            s.to_string()
        } else {
            format!("{s}/")
        })));
    }
    // `project trip`, `new project trip`: that project, started if new.
    if let Some(name) = lower
        .strip_prefix("new project ")
        .or_else(|| lower.strip_prefix("project "))
    {
        let name = knower_vault::slug(name);
        if !name.is_empty() {
            return Ok(Some(Answered::File(project_file(&name, kind))));
        }
    }
    let named: Vec<Project> = projects(vault)?
        .into_iter()
        .filter(|p| p.names.iter().any(|n| contains_words(&lower, n)))
        .collect();
    Ok(match named.as_slice() {
        [one] => Some(Answered::File(project_file(&one.name, kind))),
        _ => None,
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

fn inbox(kind: Kind, why: Vec<String>, choices: Vec<Choice>) -> Decision {
    Decision {
        destination: None,
        kind,
        project: None,
        confidence: 0.0,
        reasoning: why.join(" "),
        choices,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_age_is_told_by_a_number_alone() {
        for age in ["I'm 38", "I am 52 years old", "i'm 40 now"] {
            assert!(tells_an_age(&age.to_lowercase()), "{age}");
        }
        for other in ["I'm 38 minutes late", "I'm fine", "My son is 9"] {
            assert!(!tells_an_age(&other.to_lowercase()), "{other}");
        }
    }

    #[test]
    fn a_fault_that_keeps_happening_holds_only_at_times() {
        assert_eq!(
            how_i_do_something("i keep lifting my head off the stock"),
            Some("i keep")
        );
        assert_eq!(how_i_do_something("i'm colour blind"), None);
        // So does a symptom at a time of day, not a day's routine.
        assert_eq!(
            how_i_do_something("i wake up with a headache most mornings"),
            Some("most mornings")
        );
        assert_eq!(how_i_do_something("i leave by half four every day"), None);
        assert_eq!(
            how_i_do_something("i drop my right hand every time i jab"),
            Some("every time")
        );
        // Where a piece of work stands holds for now.
        assert_eq!(
            how_i_do_something("i don't know who the killer is yet"),
            Some("yet")
        );
        // A taste stays the user's whatever the condition.
        assert_eq!(how_i_do_something("i keep saying i prefer tea"), None);
        // So much of something done is a condition; a time of day is not.
        for text in [
            "i can't eat gels after four hours without feeling sick",
            "i get motion sick after about an hour in the rig",
            "i cramp after anything over forty lengths",
        ] {
            assert_eq!(how_i_do_something(text), Some("after"), "{text}");
        }
        assert_eq!(how_i_do_something("i don't drink coffee after 2 pm"), None);
        assert_eq!(how_i_do_something("i moved here after my divorce"), None);
    }

    #[test]
    fn the_people_in_the_users_life_include_in_laws() {
        assert!(of_who_i_am("my mother-in-law lives with us"));
        assert!(of_who_i_am("my twins are seven"));
        assert!(of_who_i_am("my sister lives in leeds"));
        assert!(of_who_i_am("my best friend is called hannah"));
        assert!(of_who_i_am("my younger brother's a nurse"));
        assert!(of_who_i_am("my grandson is called leo"));
        assert!(of_who_i_am(
            "my great-grandfather was a keeper on the wolf rock"
        ));
        assert!(of_who_i_am("my great-great-aunt ran the post office"));
        assert!(of_who_i_am("my dentist is dr haddad on elm road"));
        // Who someone is to the user still holds when it says "still".
        assert!(of_who_i_am("maya is my niece and she still signs slowly"));
        // So does where the user comes from.
        let origin = "i grew up in swansea and my parents still live there";
        assert!(of_who_i_am(origin));
        assert_eq!(how_i_do_something(origin), None);
        assert!(!of_who_i_am("my tyres are too narrow"));
    }

    #[test]
    fn what_someone_meant_says_nothing_of_what_it_is_about() {
        assert!(content_words("Ask them what they meant").is_empty());
        // "Reckon" is "think"; "rather" says how much, not what.
        assert_eq!(content_words("Go with whatever the lads reckon"), ["lad"]);
        assert_eq!(content_words("I'd rather not fly"), ["fli"]);
        // Nor does "far" in "so far" or "as far as I know".
        assert_eq!(
            content_words("There's no deadline on it as far as I know"),
            ["deadlin"]
        );
        // Nor does how much, "half" a thing or at "half seven".
        assert_eq!(
            content_words("Ask the caretaker to open up at half seven"),
            ["caretak", "open"]
        );
        assert_eq!(
            content_words("The gullet needs to be half a size wider"),
            ["gullet", "size", "wider"]
        );
        // Nor do a pronoun's or a verb's contractions, nor "us".
        assert_eq!(
            content_words("Ask the club if they've got room for us"),
            ["club", "room"]
        );
        assert_eq!(
            content_words("The auctioneer confirmed he'll do it"),
            ["auction", "confirm"]
        );
        assert_eq!(content_words("They haven't paid"), ["paid"]);
        assert!(content_words("It means the same").is_empty());
        // Nor does running out: the supply is what it is about.
        assert_eq!(
            content_words("We run out of tinned fish every week"),
            ["fish", "tin"]
        );
        assert_eq!(content_words("Run the hill reps"), ["hill", "rep", "run"]);
        // Nor does how little the user minds: the care is no care plan's.
        assert_eq!(
            content_words("Toss a coin for all I care"),
            ["coin", "toss"]
        );
        assert_eq!(content_words("Review the care plan"), ["care", "review"]);
        // What is left, and on which side, says nothing of what either is.
        assert_eq!(
            content_words("The buyers want the shed left"),
            ["buyer", "shed"]
        );
        assert_eq!(
            content_words("My left hand is weaker on the fills"),
            ["fill", "hand", "weaker"]
        );
        // How a thing fits says nothing of what it is, as "put" does not;
        // a fit that is a thing does.
        assert_eq!(content_words("Fitted the roof vent"), ["roof", "vent"]);
        assert_eq!(
            content_words("The signwriter can't fit us in"),
            ["signwrit"]
        );
        assert_eq!(
            content_words("Choose a desk that fits under the window"),
            ["choos", "desk", "window"]
        );
        assert_eq!(
            content_words("The judges mark the fit of the heels"),
            ["heel", "judg", "mark"]
        );
        assert_eq!(content_words("Get a bike fit done"), ["bike", "fit"]);
        assert_eq!(
            content_words("Dry-fitted the first flight on site"),
            ["dri", "flight", "site"]
        );
        assert_eq!(
            content_words("The fit-out contractor"),
            ["contractor", "fit"]
        );
        // Nor how often or by when, "every" and "yet" as "soon" and "now".
        assert!(content_words("I'd rather not say yet").is_empty());
        assert_eq!(
            content_words("Weigh her every morning before flying"),
            ["fli", "weigh"]
        );
        // A thought is as vague as an idea.
        assert!(content_words("that thought").is_empty());
        // Prepositions say nothing of what a note is about.
        assert_eq!(
            content_words("Pick the blackberries along the canal"),
            ["blackberri", "canal", "pick"]
        );
        // So do the nouns of prepositions in several words, not the same
        // nouns elsewhere ("froze" is read as its verb, "freeze").
        assert_eq!(
            content_words("Froze in front of the group instead of improvising"),
            ["freez", "group", "improvis"]
        );
        assert_eq!(
            content_words("Sand the front door"),
            ["door", "front", "sand"]
        );
        // Counts and dates tie nothing to a project, nor does a holiday
        // told as a time, as "March" and "summer" are, but one that says
        // what a thing is for does.
        assert!(content_words("Came 14th out of 40, the 3rd time").is_empty());
        // Nor do counts in words, the teens and tens included.
        assert_eq!(
            content_words("She wants to take all forty of her houseplants"),
            ["housepl"]
        );
        assert!(content_words("twenty-two, fifteen or seventy thousand").is_empty());
        assert_eq!(
            content_words("Swapped Christmas Eve with Priya"),
            ["priya", "swap"]
        );
        assert_eq!(
            content_words("Find cover for the night shifts over Christmas"),
            ["cover", "shift"]
        );
        assert_eq!(
            content_words("Put up posters for the Christmas collection"),
            ["christma", "collect", "poster"]
        );
        assert_eq!(content_words("Service the 4x4"), ["4x4", "servic"]);
        // No one, nowhere and no thing are as vague as someone,
        // somewhere and something.
        assert_eq!(
            content_words("Nobody else has commit rights"),
            ["commit", "right"]
        );
        assert_eq!(content_words("Nothing to put the bikes in"), ["bike"]);
    }

    #[test]
    fn a_verb_done_to_a_pronoun_says_nothing_of_what() {
        let done = |text: &str| only_done_to_a_pronoun(text, &content_words(text));
        assert_eq!(done("Let's leave it for now").as_deref(), Some("leave it"));
        assert_eq!(
            done("We'll repaint them after the holidays").as_deref(),
            Some("repaint them")
        );
        // A word that names something places the text.
        assert_eq!(done("Leave it to soak overnight"), None);
        assert_eq!(done("Paint them white"), None);
        assert_eq!(done("Let's leave the hedge for now"), None);
    }

    #[test]
    fn the_unit_of_a_rate_is_no_content_word() {
        for (text, unit) in [
            ("tom can manage about sixty kilometres a day", "day"),
            ("swimming three times a week", "week"),
            ("two lessons per month", "month"),
            ("she feeds him twice a night", "night"),
        ] {
            assert_eq!(units_of_a_rate(text), whole_words(unit), "{text}");
            assert!(
                !content_words(text).contains(&whole_words(unit)[0]),
                "{text}"
            );
        }
        for text in [
            "a day out at the zoo",
            "book a week in cornwall",
            "spend a day on it",
        ] {
            assert!(units_of_a_rate(text).is_empty(), "{text}");
        }
        // Nor does the unit name a project it is the last word of.
        let projects = [Project {
            name: "volunteer-days".into(),
            names: vec!["volunteer days".into(), "volunteer-days".into()],
        }];
        let rate = "Tom can manage about sixty kilometres a day";
        assert!(names_used(rate, &projects).is_empty());
        assert!(!names_used("Plan a day of digging", &projects).is_empty());
    }

    #[test]
    fn a_task_items_everyday_opening_verb_is_not_held() {
        assert_eq!(
            without_an_everyday_task_verb("- [ ] Line the beds with weed membrane"),
            "the beds with weed membrane"
        );
        assert_eq!(
            without_an_everyday_task_verb("- [ ] Work out where we can moor"),
            "out where we can moor"
        );
        // A verb of the project's own, a line that is no task item.
        for line in [
            "- [ ] Rehearse the second movement",
            "Line dancing on Fridays",
            "- 2026-06-15: Lined the beds",
        ] {
            assert_eq!(without_an_everyday_task_verb(line), line);
        }
    }

    #[test]
    fn a_reply_opens_with_its_word_or_a_pronoun_for_what_was_said() {
        for (text, opening) in [
            ("fine, as long as it's soon", "fine"),
            ("fine by me", "fine"),
            ("fair enough", "fair"),
            ("sure", "sure"),
            ("that's fine by me", "that's"),
            ("whoever's free", "whoever's"),
            ("that sounds right to me", "that"),
            ("works for me, go ahead", "works"),
            ("sounds good", "sounds"),
            ("suits me", "suits"),
        ] {
            assert_eq!(answers_what_is_unsaid(text), Some(opening), "{text}");
        }
        for text in [
            "fine sand on the top layer",
            "no rush on the tiles",
            "right hand drive only",
            "this week's shifts are long",
            "that van is free on sundays",
            "works start on monday",
            "looks like rain for the show",
        ] {
            assert_eq!(answers_what_is_unsaid(text), None, "{text}");
        }
        // The user going along with what was asked, which tells nothing
        // of who they are.
        assert_eq!(goes_along("i'm easy"), Some("i'm easy"));
        assert_eq!(goes_along("i'm in, whatever day suits"), Some("i'm in"));
        for text in ["i'm in leeds", "i'm easy to please", "i'm vegetarian"] {
            assert_eq!(goes_along(text), None, "{text}");
        }
    }

    #[test]
    fn a_vague_word_that_names_a_project_counts_after_a_determiner() {
        let projects = [Project {
            name: "conference-talk".into(),
            names: vec!["conference talk".into(), "conference-talk".into()],
        }];
        let words = |text: &str| with_names_used(content_words(text), &names_used(text, &projects));
        let named = words("Gave a dry run of the talk to the team");
        assert!(named.contains(&"talk".to_string()), "{named:?}");
        // So after one word that tells which.
        let which = words("The afternoon talk clashes with the sea lion feed");
        assert!(which.contains(&"talk".to_string()), "{which:?}");
        let aside = words("Ask the team to talk it through");
        assert!(!aside.contains(&"talk".to_string()), "{aside:?}");
        // As a verb it names nothing.
        let verb = words("Talk to Sam about the budget");
        assert!(!verb.contains(&"talk".to_string()), "{verb:?}");
        // Nor does a vague word no project is named by.
        let other = words("Gave a dry run of the plan");
        assert!(!other.contains(&"plan".to_string()), "{other:?}");
        // Nor a word of the name that is not the one it is called by.
        let projects = [Project {
            name: "new-xray".into(),
            names: vec!["new xray".into(), "new-xray".into()],
        }];
        let words = |text: &str| with_names_used(content_words(text), &names_used(text, &projects));
        let modifier = words("Register to vote at the new address");
        assert!(!modifier.contains(&"new".to_string()), "{modifier:?}");
        // The last word as written, whatever its place in the alphabet.
        let projects = [Project {
            name: "new-branch".into(),
            names: vec!["new branch".into(), "new-branch".into()],
        }];
        let words = |text: &str| with_names_used(content_words(text), &names_used(text, &projects));
        let modifier = words("We need a new wicketkeeper for next season");
        assert!(!modifier.contains(&"new".to_string()), "{modifier:?}");
        let called = words("The branch opens in June");
        assert!(called.contains(&"branch".to_string()), "{called:?}");
        // A place named with the word is no name of the project's.
        let projects = [Project {
            name: "ev-switch".into(),
            names: vec!["electric car".into(), "ev switch".into()],
        }];
        let used = names_used("Practise reverse parking in the Tesco car park", &projects);
        assert!(used.is_empty(), "{used:?}");
        assert!(!names_used("Charge the car overnight", &projects).is_empty());
    }

    #[test]
    fn a_task_that_is_its_verb_alone_is_about_what_the_verb_says() {
        assert_eq!(what_the_verb_says("Worm them all in the spring"), ["worm"]);
        assert!(what_the_verb_says("Check on it again next week").is_empty());
        assert!(what_the_verb_says("Leave it with them").is_empty());
        assert!(what_the_verb_says("Sort it out when you can").is_empty());
    }

    #[test]
    fn a_feeling_about_a_pronoun_names_nothing() {
        assert_eq!(
            feels_about_a_pronoun("i'm in two minds about it").as_deref(),
            Some("about it")
        );
        assert_eq!(
            feels_about_a_pronoun("i'm fed up with them").as_deref(),
            Some("with them")
        );
        assert_eq!(feels_about_a_pronoun("i'm allergic to peanuts"), None);
        assert_eq!(
            feels_about_a_pronoun("i'm in two minds about the van"),
            None
        );
    }

    #[test]
    fn options_weighed_are_told_from_questions_asked() {
        assert!(weighs_options(
            "either the van or the website gets my saturday"
        ));
        assert!(weighs_options(
            "not sure whether the fair or the telescope comes first"
        ));
        assert!(weighs_options(
            "the bathroom or the hotel, whichever is cheaper"
        ));
        assert!(!weighs_options(
            "ask the installer whether the battery fits"
        ));
        assert!(weighs_options(
            "the canoe or the speech this weekend, can’t do both"
        ));
        assert!(!weighs_options("the van or the bike needs a service"));
        assert!(!weighs_options("can't do both coats before it rains"));
        // Options left unnamed are weighed too.
        assert!(weighs_options("either's fine, you pick"));
        assert!(weighs_options("works for me either way"));
        assert!(!weighs_options(
            "pacers finish within a minute either side of the time"
        ));
    }

    #[test]
    fn text_that_points_elsewhere_is_recognised() {
        assert_eq!(
            refers_elsewhere("i'd rather wait and see what they say").as_deref(),
            Some("what they say")
        );
        assert_eq!(
            refers_elsewhere("same story as last year").as_deref(),
            Some("same story as")
        );
        assert_eq!(
            refers_elsewhere("do the same for the garage").as_deref(),
            Some("do the same")
        );
        assert_eq!(
            refers_elsewhere("send them the same reminder email as the v1 one").as_deref(),
            Some("same reminder email as")
        );
        assert_eq!(refers_elsewhere("red and green look the same to me"), None);
        // "Per my last email" points at the email; "per my physio" says
        // whose word it is.
        assert_eq!(
            refers_elsewhere("per my last message, the hall is fine").as_deref(),
            Some("per my last")
        );
        assert_eq!(
            refers_elsewhere("per my physio, no running for a fortnight"),
            None
        );
        assert_eq!(
            refers_elsewhere("the same three people came again as well"),
            None
        );
    }

    #[test]
    fn a_thing_left_unsaid_is_referential() {
        assert_eq!(
            refers_elsewhere("remind me about the thing with peter").as_deref(),
            Some("the thing")
        );
        assert_eq!(
            refers_elsewhere("the thing is, the boiler is too small"),
            None
        );
        assert_eq!(
            refers_elsewhere("remind me what we agreed").as_deref(),
            Some("what we agreed")
        );
        assert_eq!(
            refers_elsewhere("sort out the usual before the weekend").as_deref(),
            Some("the usual")
        );
        assert_eq!(refers_elsewhere("training as usual on wednesday"), None);
        // A place only the writer can see.
        assert_eq!(
            refers_elsewhere("it's too cold to train in there before eight").as_deref(),
            Some("in there")
        );
        assert_eq!(refers_elsewhere("put the mats in the garage"), None);
    }
}
