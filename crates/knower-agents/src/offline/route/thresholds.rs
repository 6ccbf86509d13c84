//! How sure routing is of each kind of filing, and the margins that make
//! the words or the meaning decide.

/// How sure a note's filing may be at most: its file (`state.md`) is where
/// whatever no kind rule recognised goes. On the held-out routing sets, run
/// clean, most filings in the wrong file at 0.8 and above were such notes
/// (BENCHMARKS.md).
pub const NOTE_CONFIDENCE: f32 = 0.75;

/// How sure a filing on a sole holder's words is: below any filing that
/// several shared words or a clear meaning support.
pub const SOLE_HOLDER_CONFIDENCE: f32 = 0.6;

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
