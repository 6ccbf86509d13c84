//! The keyword index: one tantivy document per chunk, under
//! `.knower/index/bm25/`, and one per whole note, under
//! `.knower/index/notes/`, with the same schema.
//!
//! Why two: a note is ranked by its best passage for `search`, but a reader
//! asking for the best *notes* wants each note scored on all its words at
//! once — an abstract cut into three passages holds the request's words in
//! different passages, and no passage alone ranks it (BENCHMARKS.md,
//! "Whole notes"). BM25 over whole notes needs the statistics of whole
//! notes (their count, their average length), so they are an index of their
//! own rather than documents mixed with the passages.
//!
//! Which version of each file is indexed is read back from the indexes
//! themselves (`path` and `file_hash` fast fields), so the index and its
//! bookkeeping can never disagree, and catching up after a restart is a
//! comparison with the vault's manifest rather than a rebuild. A file counts
//! as indexed only where both indexes hold the same version of it, so a
//! crash between their two commits is repaired by the next catch-up.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use knower_vault::VaultPath;
use rust_stemmers::Algorithm;
use tantivy::collector::Count;
use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::directory::MmapDirectory;
use tantivy::directory::error::LockError;
use tantivy::merge_policy::LogMergePolicy;
use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, DisjunctionMaxQuery, EmptyQuery, Occur, PhrasePrefixQuery,
    PhraseQuery, Query as TantivyQuery, TermQuery,
};
use tantivy::schema::{
    FAST, Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::snippet::SnippetGenerator;
use tantivy::{
    DocAddress, Index, IndexReader, IndexWriter, ReloadPolicy, Searcher, TantivyDocument, Term,
};

use crate::analyzer::{self, CaseParts, Stemming};
use crate::chunk::Note;
use crate::error::{Error, Result};
use crate::language::{self, is_cjk, is_han};
use crate::query::{Query, Scope};

/// Bumped when the schema or the analyzer changes: an index of another
/// version (or chunked differently) is rebuilt, not misread.
/// (5: British spellings are read as American ones; 6: their
/// possessives too; 7: each passage stemmed in its language, CJK text in
/// pairs of characters, and the passage's language kept.)
const SCHEMA_VERSION: &str = "7";

#[derive(Clone, Copy)]
pub(crate) struct Fields {
    pub path: Field,
    /// The file's path and each folder above it: scope is a term query.
    folders: Field,
    path_text: Field,
    pub title: Field,
    headings: Field,
    pub heading: Field,
    pub body: Field,
    tags: Field,
    /// The parts of the title's, headings' and body's mixed-case words
    /// (`TestFlight` → `test`, `flight`), which rank below a plain word.
    parts: Field,
    pub line_start: Field,
    pub line_end: Field,
    pub chunk_hash: Field,
    file_hash: Field,
    /// The language a passage's text is in (whatlang's ISO 639-3 code),
    /// when it could be told.
    lang: Field,
}

/// (field, weight) pairs a free word is searched in, with the title's
/// weight for the unit searched ([`Ranked`]).
fn weighted(f: &Fields, ranked: Ranked) -> [(Field, f32); 6] {
    [
        (f.body, 1.0),
        (f.title, ranked.title_weight()),
        (f.headings, 1.2),
        (f.path_text, 1.2),
        (f.tags, 1.5),
        (f.parts, PARTS_WEIGHT),
    ]
}

/// What a query ranks, which sets how much a title counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ranked {
    Passages,
    Notes,
}

impl Ranked {
    /// A passage's title weighs as much as its text: a short field already
    /// scores high, and more let one title word outrank an abstract holding
    /// the whole request (BENCHMARKS.md, "Abstracts found by whole
    /// requests"). A whole note's title weighs half: beside a whole note's
    /// text it is one line, and at 1.0 a title word outranked the notes
    /// that hold the request (BENCHMARKS.md, "A title's weight for whole
    /// notes"); passages keep 1.0, where 0.5 cost LoCoMo 0.004.
    fn title_weight(self) -> f32 {
        match self {
            Ranked::Passages => 1.0,
            Ranked::Notes => 0.5,
        }
    }
}

/// A word met only inside a mixed-case word counts for this much of a
/// plain one (measured: BENCHMARKS.md, "Mixed-case words").
const PARTS_WEIGHT: f32 = 0.3;

/// The schema of both indexes: the same fields in the same order, so one
/// [`Fields`] and one query serve both. Only the passages store their text
/// (for snippets and embedding); a note is shown by its best passage.
fn schema(store_text: bool) -> (Schema, Fields) {
    let mut b = Schema::builder();
    let analyzed = |tokenizer: &str, stored: bool| {
        let options = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(tokenizer)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        if stored {
            options.set_stored()
        } else {
            options
        }
    };
    let text = |stored: bool| analyzed(analyzer::NAME, stored && store_text);
    let fields = Fields {
        path: b.add_text_field("path", STRING | STORED | FAST),
        folders: b.add_text_field("folders", STRING),
        path_text: b.add_text_field("path_text", text(false)),
        title: b.add_text_field("title", text(true)),
        headings: b.add_text_field("headings", text(false)),
        heading: b.add_text_field("heading", STORED),
        body: b.add_text_field("body", text(true)),
        tags: b.add_text_field("tags", text(false)),
        parts: b.add_text_field("parts", analyzed(analyzer::PARTS_NAME, false)),
        line_start: b.add_u64_field("line_start", STORED),
        line_end: b.add_u64_field("line_end", STORED),
        chunk_hash: b.add_text_field("chunk_hash", STRING | STORED | FAST),
        file_hash: b.add_text_field("file_hash", STRING | FAST),
        lang: b.add_text_field("lang", STRING),
    };
    (b.build(), fields)
}

pub(crate) struct Bm25 {
    /// One document per passage.
    index: Index,
    reader: IndexReader,
    /// One document per note.
    notes: Index,
    notes_reader: IndexReader,
    pub fields: Fields,
    /// The stemmers questions are read with, for the searcher generation
    /// they were read from (the passages' languages change only with it).
    stemmers: std::sync::Mutex<Option<(u64, Vec<Algorithm>)>>,
}

/// A chunk as found by BM25.
#[derive(Clone, Debug)]
pub(crate) struct Found {
    pub doc: DocAddress,
    pub score: f32,
}

impl Bm25 {
    /// Opens both indexes under `index_dir`, creating them if missing.
    /// When either cannot be opened (corrupt, or of another schema version)
    /// both are deleted and created empty; the second value says so, and the
    /// caller refills them.
    pub fn open(index_dir: &Path, layout: &str) -> Result<(Bm25, bool)> {
        let version = format!("{SCHEMA_VERSION} {layout}");
        let (passages, notes) = (index_dir.join("bm25"), index_dir.join("notes"));
        let open_both = || -> Result<Option<Bm25>> {
            let (Some((index, reader)), Some((notes, notes_reader))) = (
                open_one(&passages, &version, true)?,
                open_one(&notes, &version, false)?,
            ) else {
                return Ok(None);
            };
            let bm25 = Bm25 {
                index,
                reader,
                notes,
                notes_reader,
                fields: schema(true).1,
                stemmers: Default::default(),
            };
            bm25.files()?;
            Ok(Some(bm25))
        };
        // tantivy may panic, not just fail, on a damaged file.
        match std::panic::catch_unwind(open_both) {
            Ok(Ok(Some(bm25))) => Ok((bm25, false)),
            _ => {
                for dir in [&passages, &notes] {
                    if dir.exists() {
                        std::fs::remove_dir_all(dir)
                            .map_err(Error::io(format!("removing {}", dir.display())))?;
                    }
                }
                let bm25 = open_both()?.ok_or_else(|| Error::Io {
                    context: format!("creating {}", passages.display()),
                    source: std::io::Error::other("the new index is unreadable"),
                })?;
                Ok((bm25, true))
            }
        }
    }

    pub fn searcher(&self) -> Searcher {
        self.reader.searcher()
    }

    /// Sees what other writers (this process's or others') committed.
    pub fn reload(&self) -> Result<()> {
        self.notes_reader.reload()?;
        Ok(self.reader.reload()?)
    }

    /// The indexed version of every file: path → content hash. A file the
    /// two indexes hold in different versions (a crash between their
    /// commits, or a notes index new beside an old passage one) maps to an
    /// empty hash, which matches no file, so catching up indexes it again.
    pub fn files(&self) -> Result<HashMap<String, String>> {
        let notes = files_of(&self.notes_reader.searcher())?;
        let mut files = files_of(&self.searcher())?;
        for (path, hash) in files.iter_mut() {
            if notes.get(path) != Some(hash) {
                hash.clear();
            }
        }
        for path in notes.into_keys() {
            files.entry(path).or_default();
        }
        Ok(files)
    }

    /// The indexes' writers, waiting for another process to finish with
    /// them. Always the passages' first, so two processes cannot each hold
    /// one and wait for the other. More than one thread means a bulk job
    /// (a rebuild, a long catch-up), which gets big arenas; a change of a
    /// few files never fills more than tantivy's smallest.
    pub fn writer(&self, threads: usize) -> Result<Writer> {
        let (passages, notes) = if threads > 1 {
            (40_000_000, 20_000_000)
        } else {
            (SMALLEST_ARENA, SMALLEST_ARENA)
        };
        Ok(Writer {
            passages: writer_of(&self.index, threads, passages)?,
            notes: writer_of(&self.notes, threads, notes)?,
            fields: self.fields,
        })
    }

    /// A tantivy query for `query` within `scope`. Free words rank
    /// (should); `+words` and phrases must match; `-words` must not; the
    /// scope is a required term, so BM25 never ranks outside it.
    pub fn query(&self, query: &Query, scope: &Scope, ranked: Ranked) -> Box<dyn TantivyQuery> {
        let f = &self.fields;
        let stemmers = self.stemmers();
        let mut clauses: Vec<(Occur, Box<dyn TantivyQuery>)> = Vec::new();
        let mut ranking: Vec<(Occur, Box<dyn TantivyQuery>)> = Vec::new();
        for word in &query.words {
            if let Some(q) = self.word_query(word, ranked, &stemmers) {
                let occur = if query.required.contains(word) {
                    Occur::Must
                } else {
                    Occur::Should
                };
                ranking.push((occur, q));
            }
        }
        for prefix in &query.prefixes {
            for (field, weight) in weighted(f, ranked) {
                if let Some((text, _, _)) = analyzer::terms(prefix).into_iter().next() {
                    // Prefixes match the unstemmed form too: `pars*` finds `parse`.
                    let unstemmed = prefix.to_lowercase();
                    let stem = if unstemmed.starts_with(&text) {
                        text
                    } else {
                        unstemmed
                    };
                    let q = PhrasePrefixQuery::new(vec![Term::from_field_text(field, &stem)]);
                    ranking.push((
                        Occur::Should,
                        Box::new(BoostQuery::new(Box::new(q), weight)),
                    ));
                }
            }
        }
        for phrase in &query.phrases {
            if let Some(q) = self.phrase_query(phrase, &stemmers) {
                clauses.push((Occur::Must, q));
            }
        }
        for excluded in &query.excluded {
            if let Some(q) = self.phrase_query(excluded, &stemmers) {
                clauses.push((Occur::MustNot, q));
            }
        }
        if let Scope::Below(prefix) = scope {
            clauses.push((
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_text(f.folders, prefix.as_str()),
                    IndexRecordOption::Basic,
                )),
            ));
        }
        if !ranking.is_empty() {
            // At least one ranking word must match (unless all are optional
            // and a phrase or +word already constrains the result).
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(ranking))));
        } else if clauses.iter().all(|(o, _)| *o == Occur::MustNot) {
            if clauses.is_empty() {
                return Box::new(EmptyQuery);
            }
            clauses.push((Occur::Must, Box::new(AllQuery)));
        }
        Box::new(BooleanQuery::new(clauses))
    }

    /// One word of the query in every weighted field, stemmed in each
    /// language of the vault (the best-scoring reading counts). A compound
    /// word (`parse_config`) matches as a whole, or as its parts in
    /// sequence; CJK text by any of its pairs of characters and its Han
    /// characters, as a sentence asked in Japanese is one "word".
    fn word_query(
        &self,
        word: &str,
        ranked: Ranked,
        stemmers: &[Algorithm],
    ) -> Option<Box<dyn TantivyQuery>> {
        let readings = readings(word, stemmers);
        let mut per_field: Vec<(Occur, Box<dyn TantivyQuery>)> = Vec::new();
        for (field, weight) in weighted(&self.fields, ranked) {
            let q = best_of(
                readings
                    .iter()
                    .filter_map(|terms| word_in(field, terms))
                    .collect(),
            )?;
            per_field.push((Occur::Should, Box::new(BoostQuery::new(q, weight))));
        }
        Some(Box::new(BooleanQuery::new(per_field)))
    }

    /// An exact phrase in the body, title or headings, in any language of
    /// the vault.
    fn phrase_query(&self, phrase: &str, stemmers: &[Algorithm]) -> Option<Box<dyn TantivyQuery>> {
        let readings = readings(phrase, stemmers);
        let f = &self.fields;
        let fields = [f.body, f.title, f.headings];
        let alternatives = fields
            .into_iter()
            .filter_map(|field| {
                let q = best_of(
                    readings
                        .iter()
                        .filter_map(|terms| phrase_in(field, terms))
                        .collect(),
                )?;
                Some((Occur::Should, q))
            })
            .collect::<Vec<_>>();
        (!alternatives.is_empty()).then(|| Box::new(BooleanQuery::new(alternatives)) as Box<_>)
    }

    /// The stemmers a question's words are tried with: English's, and
    /// those of every language the vault's passages were told to be in.
    fn stemmers(&self) -> Vec<Algorithm> {
        let searcher = self.reader.searcher();
        let generation = searcher.generation().generation_id();
        let mut known = self.stemmers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((of, stemmers)) = known.as_ref()
            && *of == generation
        {
            return stemmers.clone();
        }
        let mut stemmers = vec![Algorithm::English];
        let codes = self.language_codes(&searcher).unwrap_or_default();
        for code in codes {
            if let Some(stemmer) = whatlang::Lang::from_code(&code).and_then(language::stemmer)
                && !stemmers.contains(&stemmer)
            {
                stemmers.push(stemmer);
            }
        }
        *known = Some((generation, stemmers.clone()));
        stemmers
    }

    /// The languages of the passages (ISO 639-3 codes): the terms of the
    /// `lang` field, read from each segment's dictionary (a few words, not
    /// the passages).
    fn language_codes(&self, searcher: &Searcher) -> Result<std::collections::BTreeSet<String>> {
        let mut codes = std::collections::BTreeSet::new();
        for segment in searcher.segment_readers() {
            let inverted = segment.inverted_index(self.fields.lang)?;
            let mut terms = inverted
                .terms()
                .stream()
                .map_err(tantivy::TantivyError::from)?;
            while terms.advance() {
                codes.insert(String::from_utf8_lossy(terms.key()).into_owned());
            }
        }
        Ok(codes)
    }

    /// The languages the passages are in (ISO 639-3 codes), with how many
    /// passages each, most first.
    pub fn languages(&self, searcher: &Searcher) -> Result<Vec<(String, usize)>> {
        let codes = self.language_codes(searcher)?;
        let mut counted = Vec::new();
        for code in codes {
            let term = TermQuery::new(
                Term::from_field_text(self.fields.lang, &code),
                IndexRecordOption::Basic,
            );
            let passages = searcher.search(&term, &Count)?;
            if passages > 0 {
                counted.push((code, passages));
            }
        }
        counted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(counted)
    }

    /// The best `limit` chunks for a query.
    pub fn search(
        &self,
        searcher: &Searcher,
        query: &dyn TantivyQuery,
        limit: usize,
    ) -> Result<Vec<Found>> {
        let top = searcher.search(query, &TopDocs::with_limit(limit.max(1)))?;
        Ok(top
            .into_iter()
            .map(|(score, doc)| Found { doc, score })
            .collect())
    }

    /// The best `limit` whole notes for a query, from the notes index:
    /// (path, score), best first.
    pub fn search_notes(
        &self,
        query: &dyn TantivyQuery,
        limit: usize,
    ) -> Result<Vec<(String, f32)>> {
        let searcher = self.notes_reader.searcher();
        let top = searcher.search(query, &TopDocs::with_limit(limit.max(1)))?;
        top.into_iter()
            .map(|(score, doc)| Ok((path_of(&searcher, doc)?, score)))
            .collect()
    }

    /// The best passage of the note at `path` for a query, if one matches.
    pub fn best_passage(
        &self,
        searcher: &Searcher,
        query: &dyn TantivyQuery,
        path: &str,
    ) -> Result<Option<Found>> {
        let within: Box<dyn TantivyQuery> = Box::new(TermQuery::new(
            Term::from_field_text(self.fields.path, path),
            IndexRecordOption::Basic,
        ));
        let q = BooleanQuery::new(vec![
            (Occur::Must, query.box_clone()),
            (Occur::Must, within),
        ]);
        Ok(self.search(searcher, &q, 1)?.into_iter().next())
    }

    /// The path of a passage's note.
    pub fn path(&self, searcher: &Searcher, doc: DocAddress) -> Result<String> {
        path_of(searcher, doc)
    }

    /// Every chunk a query's constraints allow (scope, phrases, exclusions),
    /// for the vector side, which ranks them all.
    pub fn allowed(
        &self,
        searcher: &Searcher,
        query: &Query,
        scope: &Scope,
    ) -> Result<Option<std::collections::HashSet<DocAddress>>> {
        let constraints = Query {
            words: query.required.clone(),
            required: query.required.clone(),
            phrases: query.phrases.clone(),
            excluded: query.excluded.clone(),
            ..Query::default()
        };
        if constraints.is_empty() && *scope == Scope::All {
            return Ok(None);
        }
        let q = self.query(&constraints, scope, Ranked::Passages);
        let q: Box<dyn TantivyQuery> = if constraints.is_empty() {
            // Scope alone.
            Box::new(BooleanQuery::new(vec![
                (Occur::Must, Box::new(AllQuery)),
                (Occur::Must, q),
            ]))
        } else {
            q
        };
        Ok(Some(searcher.search(&q, &DocSetCollector)?))
    }

    /// The documents (one per chunk) of the file at `path`.
    pub fn docs_of(&self, searcher: &Searcher, path: &str) -> Result<Vec<DocAddress>> {
        let q = TermQuery::new(
            Term::from_field_text(self.fields.path, path),
            IndexRecordOption::Basic,
        );
        Ok(searcher.search(&q, &DocSetCollector)?.into_iter().collect())
    }

    pub fn snippets(
        &self,
        searcher: &Searcher,
        query: &dyn TantivyQuery,
    ) -> Result<SnippetGenerator> {
        let mut generator = SnippetGenerator::create(searcher, query, self.fields.body)?;
        generator.set_max_num_chars(220);
        Ok(generator)
    }
}

/// Opens (or creates) one of the two indexes; `None` when it is of another
/// schema version or damaged.
fn open_one(dir: &Path, version: &str, store_text: bool) -> Result<Option<(Index, IndexReader)>> {
    let version_file = dir.join("knower-schema");
    let fresh = !dir.join("meta.json").exists();
    std::fs::create_dir_all(dir).map_err(Error::io(format!("creating {}", dir.display())))?;
    if fresh {
        std::fs::write(&version_file, version)
            .map_err(Error::io(format!("writing {}", version_file.display())))?;
    } else if std::fs::read_to_string(&version_file).ok().as_deref() != Some(version) {
        return Ok(None);
    }
    let directory = MmapDirectory::open(dir).map_err(|e| Error::Io {
        context: format!("opening {}", dir.display()),
        source: std::io::Error::other(e.to_string()),
    })?;
    let index = Index::open_or_create(directory, schema(store_text).0)?;
    let tokenizers = index.tokenizers();
    tokenizers.register(
        analyzer::NAME,
        analyzer::analyzer_with(analyzer::CaseParts::Whole),
    );
    tokenizers.register(
        analyzer::PARTS_NAME,
        analyzer::analyzer_with(analyzer::CaseParts::Only),
    );
    let reader = index
        .reader_builder()
        .reload_policy(ReloadPolicy::Manual)
        .try_into()?;
    // Every segment file carries a checksum: a damaged index is found
    // here, at open, and rebuilt, rather than failing searches later.
    if !index.validate_checksum()?.is_empty() {
        return Ok(None);
    }
    Ok(Some((index, reader)))
}

/// Path → content hash of every file one index holds.
fn files_of(searcher: &Searcher) -> Result<HashMap<String, String>> {
    let mut files = HashMap::new();
    for segment in searcher.segment_readers() {
        let fast = segment.fast_fields();
        let (Some(paths), Some(hashes)) = (fast.str("path")?, fast.str("file_hash")?) else {
            continue;
        };
        let (paths_of, hashes_of) = (terms_of(&paths)?, terms_of(&hashes)?);
        for doc in segment.doc_ids_alive() {
            let (Some(p), Some(h)) = (paths.term_ords(doc).next(), hashes.term_ords(doc).next())
            else {
                continue;
            };
            if let (Some(path), Some(hash)) = (paths_of.get(p as usize), hashes_of.get(h as usize))
            {
                files.insert(path.clone(), hash.clone());
            }
        }
    }
    Ok(files)
}

/// One index's writer, with an arena of `bytes` per thread, waiting for
/// another process to finish with it.
fn writer_of(index: &Index, threads: usize, bytes: usize) -> Result<IndexWriter> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match index.writer_with_num_threads(threads, bytes * threads) {
            Ok(writer) => {
                writer.set_merge_policy(Box::new(merge_policy()));
                // A writer killed before its commit leaves files no commit
                // names (a `.del` file, a segment); the next one would
                // pick the same names and fail with FileAlreadyExists.
                // Holding the lock, we are the only writer: sweep them.
                writer.garbage_collect_files().wait()?;
                return Ok(writer);
            }
            Err(tantivy::TantivyError::LockFailure(LockError::LockBusy, _))
                if Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// The `path` of a document of either index, from its fast field.
fn path_of(searcher: &Searcher, doc: DocAddress) -> Result<String> {
    let segment = searcher.segment_reader(doc.segment_ord);
    let column = segment.fast_fields().str("path")?;
    let mut path = String::new();
    if let Some(column) = column
        && let Some(ord) = column.term_ords(doc.doc_id).next()
    {
        column
            .ord_to_str(ord, &mut path)
            .map_err(Error::io("reading the index"))?;
    }
    Ok(path)
}

/// Every value of a string fast field, indexed by term ordinal: one pass
/// over the dictionary, where looking up each document's ordinal would scan
/// a block per document (0.4 s at 60,000 chunks, measured).
pub(crate) fn terms_of(column: &tantivy::columnar::StrColumn) -> Result<Vec<String>> {
    let dictionary = column.dictionary();
    let mut terms = Vec::with_capacity(dictionary.num_terms());
    let mut stream = dictionary
        .stream()
        .map_err(Error::io("reading the index"))?;
    while stream.advance() {
        terms.push(String::from_utf8_lossy(stream.key()).into_owned());
    }
    Ok(terms)
}

/// The headings a chunk is indexed under, without a first heading that
/// repeats the note's title: the title field already scores those words,
/// and counting them in three fields (title, headings and the first
/// chunk's text) let one title word outweigh two of the text.
fn chunk_headings<'a>(title: &str, headings: &'a [String]) -> &'a [String] {
    match headings.split_first() {
        Some((first, rest)) if first.trim() == title.trim() => rest,
        _ => headings,
    }
}

/// A question's text analysed with each stemmer, readings that come out
/// the same kept once (so a vault in one language asks as it always did).
fn readings(text: &str, stemmers: &[Algorithm]) -> Vec<Vec<(String, usize, bool)>> {
    let mut readings: Vec<Vec<(String, usize, bool)>> = Vec::new();
    for stemmer in stemmers {
        let terms = analyzer::terms_stemmed(text, CaseParts::All, Stemming::In(*stemmer));
        if !terms.is_empty() && !readings.contains(&terms) {
            readings.push(terms);
        }
    }
    readings
}

/// The best of several readings: one alone as it is, more by their
/// highest score, so a word that reads the same in two languages does not
/// count twice.
fn best_of(mut readings: Vec<Box<dyn TantivyQuery>>) -> Option<Box<dyn TantivyQuery>> {
    match readings.len() {
        0 => None,
        1 => readings.pop(),
        _ => Some(Box::new(DisjunctionMaxQuery::new(readings))),
    }
}

fn is_cjk_term(text: &str) -> bool {
    text.starts_with(is_cjk)
}

/// One reading of a question's word in `field`.
fn word_in(field: Field, terms: &[(String, usize, bool)]) -> Option<Box<dyn TantivyQuery>> {
    let mut alternatives: Vec<(Occur, Box<dyn TantivyQuery>)> = Vec::new();
    let parts: Vec<(usize, &str)> = terms
        .iter()
        .filter(|(text, _, compound)| !compound && !is_cjk_term(text))
        .map(|(text, position, _)| (*position, text.as_str()))
        .collect();
    for (text, _, compound) in terms {
        if *compound {
            alternatives.push((Occur::Should, term_query(field, text)));
        }
    }
    match parts.as_slice() {
        [] => {}
        [(_, text)] => alternatives.push((Occur::Should, term_query(field, text))),
        _ => alternatives.push((
            Occur::Should,
            Box::new(PhraseQuery::new_with_offset(
                parts
                    .iter()
                    .map(|(p, t)| (*p, Term::from_field_text(field, t)))
                    .collect(),
            )),
        )),
    }
    // CJK text: each pair of characters, each Han character, and a
    // character standing alone (`책`); kana and Hangul within a longer run
    // spell sounds, not words.
    let pairs = pair_positions(terms);
    let mut seen = std::collections::HashSet::new();
    for (text, position, _) in terms {
        let kept = is_cjk_term(text)
            && (text.chars().count() == 2
                || text.chars().all(is_han)
                || !covered_by_a_pair(&pairs, *position));
        if kept && seen.insert(text.as_str()) {
            alternatives.push((Occur::Should, term_query(field, text)));
        }
    }
    (!alternatives.is_empty()).then(|| Box::new(BooleanQuery::new(alternatives)) as Box<_>)
}

/// The positions at which a pair of CJK characters starts.
fn pair_positions(terms: &[(String, usize, bool)]) -> std::collections::HashSet<usize> {
    terms
        .iter()
        .filter(|(text, _, _)| is_cjk_term(text) && text.chars().count() == 2)
        .map(|(_, position, _)| *position)
        .collect()
}

/// Whether the character at `position` is in a pair: one starts at it or
/// at the character before it.
fn covered_by_a_pair(pairs: &std::collections::HashSet<usize>, position: usize) -> bool {
    pairs.contains(&position)
        || position
            .checked_sub(1)
            .is_some_and(|at| pairs.contains(&at))
}

/// One reading of a phrase in `field`: its words in order. CJK text is
/// its pairs of characters in order (a character alone where no pair
/// holds it, as in a one-character word).
fn phrase_in(field: Field, terms: &[(String, usize, bool)]) -> Option<Box<dyn TantivyQuery>> {
    let pairs = pair_positions(terms);
    let kept: Vec<(usize, &str)> = terms
        .iter()
        .filter(|(text, position, compound)| {
            if *compound {
                return false;
            }
            if !is_cjk_term(text) || text.chars().count() == 2 {
                return true;
            }
            !covered_by_a_pair(&pairs, *position)
        })
        .map(|(text, position, _)| (*position, text.as_str()))
        .collect();
    match kept.as_slice() {
        [] => None,
        [(_, text)] => Some(term_query(field, text)),
        _ => Some(Box::new(PhraseQuery::new_with_offset(
            kept.iter()
                .map(|(p, t)| (*p, Term::from_field_text(field, t)))
                .collect(),
        ))),
    }
}

fn term_query(field: Field, text: &str) -> Box<dyn TantivyQuery> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, text),
        IndexRecordOption::WithFreqsAndPositions,
    ))
}

/// A batch of changes to both indexes, visible to searchers once committed.
pub(crate) struct Writer {
    passages: IndexWriter,
    notes: IndexWriter,
    fields: Fields,
}

impl Writer {
    /// Replaces whatever is indexed for `path` with `note`: its chunks in
    /// the passage index, the whole note in the notes index. A note with no
    /// text still gets a document in each — its path and hash, no text to
    /// match — because what is indexed is read back from the index: with
    /// nothing there, an empty note would be "to index" forever.
    pub fn put(&mut self, path: &VaultPath, file_hash: &str, note: &Note) -> Result<()> {
        self.remove(path);
        let f = &self.fields;
        if note.chunks.is_empty() {
            self.passages.add_document(located(f, path, file_hash))?;
            self.notes.add_document(located(f, path, file_hash))?;
            return Ok(());
        }
        // The note's language, told once for its passages (each passage's
        // words are still stemmed as its own text says).
        let lang = language::detect(&note.text).map(|lang| lang.code());
        for chunk in &note.chunks {
            let mut doc = searchable(f, path, file_hash, note, &chunk.headings, &chunk.text);
            if let Some(lang) = lang {
                doc.add_text(f.lang, lang);
            }
            doc.add_text(f.heading, chunk.heading_path());
            doc.add_u64(f.line_start, chunk.line_start as u64);
            doc.add_u64(f.line_end, chunk.line_end as u64);
            doc.add_text(f.chunk_hash, chunk.hash(&note.title));
            self.passages.add_document(doc)?;
        }
        let whole = searchable(f, path, file_hash, note, &note.headings, &note.text);
        self.notes.add_document(whole)?;
        Ok(())
    }

    pub fn remove_all(&mut self) -> Result<()> {
        self.passages.delete_all_documents()?;
        self.notes.delete_all_documents()?;
        Ok(())
    }

    pub fn remove(&mut self, path: &VaultPath) {
        let term = Term::from_field_text(self.fields.path, path.as_str());
        self.passages.delete_term(term.clone());
        self.notes.delete_term(term);
    }

    /// Everything at or below `path` (a folder that was removed or moved).
    pub fn remove_below(&mut self, path: &VaultPath) {
        let term = Term::from_field_text(self.fields.folders, path.as_str());
        self.passages.delete_term(term.clone());
        self.notes.delete_term(term);
    }

    /// Commits both indexes, side by side, since a commit waits mostly on
    /// the disk (what a write costs now: BENCHMARKS.md, "Whole notes").
    /// Either may land first; a crash between them leaves
    /// the indexes holding different versions of a file, which
    /// [`Bm25::files`] reports as not indexed, so catching up redoes it.
    /// Merges of small segments finish before the locks are released, so
    /// short-lived writers (one per change) do not pile up segments.
    pub fn commit(self) -> Result<()> {
        fn finish(mut writer: IndexWriter) -> tantivy::Result<()> {
            writer.commit()?;
            writer.wait_merging_threads()
        }
        let Writer {
            passages, notes, ..
        } = self;
        let (passages_done, notes_done) = std::thread::scope(|s| {
            let notes_done = s.spawn(move || finish(notes));
            (finish(passages), notes_done.join())
        });
        passages_done?;
        notes_done.map_err(|_| Error::Io {
            context: "committing the notes index".into(),
            source: std::io::Error::other("the commit panicked"),
        })??;
        Ok(())
    }
}

/// A document of a note's text (a passage's or the whole note's) under the
/// headings above it, with the note's title, tags and path to match too.
fn searchable(
    f: &Fields,
    path: &VaultPath,
    file_hash: &str,
    note: &Note,
    headings: &[String],
    text: &str,
) -> TantivyDocument {
    let mut doc = located(f, path, file_hash);
    doc.add_text(f.path_text, path.as_str());
    doc.add_text(f.title, &note.title);
    doc.add_text(f.parts, &note.title);
    for heading in chunk_headings(&note.title, headings) {
        doc.add_text(f.headings, heading);
        doc.add_text(f.parts, heading);
    }
    doc.add_text(f.body, text);
    doc.add_text(f.parts, text);
    for tag in &note.tags {
        doc.add_text(f.tags, tag);
    }
    doc
}

/// A document that says which version of which file it comes from, and the
/// folders it is in (a scope is a term query on them).
fn located(f: &Fields, path: &VaultPath, file_hash: &str) -> TantivyDocument {
    let mut doc = TantivyDocument::default();
    doc.add_text(f.path, path.as_str());
    for folder in std::iter::once(path.clone()).chain(path.ancestors()) {
        if !folder.is_root() {
            doc.add_text(f.folders, folder.as_str());
        }
    }
    doc.add_text(f.file_hash, file_hash);
    doc
}

/// The smallest arena tantivy accepts for one indexing thread.
const SMALLEST_ARENA: usize = 15_000_000;

/// Tantivy's log merge policy, with small segments in a level of their own.
/// Each change commits a segment of a few chunks; the default counts every
/// segment under 10,000 documents as one level, so once a vault had about
/// that many chunks, every eighth change merged the whole index with its
/// seven tiny neighbours — 330 ms of one write on a 10,000-note vault, under
/// the lock. Tiny segments now merge among themselves; the big one merges
/// when segments of its size have accumulated, as a log policy intends.
fn merge_policy() -> LogMergePolicy {
    let mut policy = LogMergePolicy::default();
    policy.set_min_layer_size(100);
    policy
}

/// Stored fields of a found chunk.
pub(crate) struct Stored {
    pub path: String,
    pub title: String,
    pub heading: String,
    pub line_start: usize,
    pub line_end: usize,
    pub doc: TantivyDocument,
}

impl Stored {
    /// All values of a stored text field, joined.
    pub fn doc_text(&self, field: Field) -> String {
        self.doc
            .get_all(field)
            .filter_map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Bm25 {
    pub fn stored(&self, searcher: &Searcher, doc: DocAddress) -> Result<Stored> {
        let d: TantivyDocument = searcher.doc(doc)?;
        let f = &self.fields;
        let text = |field: Field| {
            d.get_first(field)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        let num = |field: Field| d.get_first(field).and_then(|v| v.as_u64()).unwrap_or(0) as usize;
        Ok(Stored {
            path: text(f.path),
            title: text(f.title),
            heading: text(f.heading),
            line_start: num(f.line_start),
            line_end: num(f.line_end),
            doc: d,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::chunk_note;

    #[test]
    fn a_file_counts_as_indexed_only_where_both_indexes_agree() {
        let dir = tempfile::tempdir().unwrap();
        let (bm25, _) = Bm25::open(dir.path(), "test").unwrap();
        let budget = crate::SearchConfig::default().budget();
        let path = VaultPath::parse("a/n.md").unwrap();
        let note = chunk_note("# N\n\nSome words.", "n", budget);
        let mut writer = bm25.writer(1).unwrap();
        writer.put(&path, "v1", &note).unwrap();
        writer.commit().unwrap();
        bm25.reload().unwrap();
        assert_eq!(bm25.files().unwrap()["a/n.md"], "v1");

        // A crash after the notes committed version 2, before the passages did.
        let mut writer = bm25.writer(1).unwrap();
        writer.put(&path, "v2", &note).unwrap();
        writer.notes.commit().unwrap();
        drop(writer);
        bm25.reload().unwrap();
        assert_eq!(
            bm25.files().unwrap()["a/n.md"],
            "",
            "neither version counts"
        );

        // A note only the notes index holds is listed too, so it is removed
        // or indexed again.
        let other = VaultPath::parse("b.md").unwrap();
        let mut writer = bm25.writer(1).unwrap();
        writer.put(&other, "v1", &note).unwrap();
        writer.notes.commit().unwrap();
        drop(writer);
        bm25.reload().unwrap();
        assert_eq!(bm25.files().unwrap()["b.md"], "");
    }

    #[test]
    fn a_change_of_one_note_does_not_merge_the_whole_index_again() {
        let dir = tempfile::tempdir().unwrap();
        let (bm25, _) = Bm25::open(dir.path(), "test").unwrap();
        let budget = crate::SearchConfig::default().budget();
        let put = |writer: &mut Writer, path: String, i: usize| {
            let note = chunk_note(&format!("Note {i} about tiles."), "n", budget);
            writer
                .put(&VaultPath::parse(&path).unwrap(), "hash", &note)
                .unwrap();
        };
        let mut writer = bm25.writer(1).unwrap();
        for i in 0..1000 {
            put(&mut writer, format!("a/{i}.md"), i);
        }
        writer.commit().unwrap();
        // One short-lived writer per change, as the vault's listener does.
        for i in 0..30 {
            let mut writer = bm25.writer(1).unwrap();
            put(&mut writer, format!("b/{i}.md"), i);
            writer.commit().unwrap();
        }
        let sizes: Vec<u32> = bm25
            .index
            .searchable_segment_metas()
            .unwrap()
            .iter()
            .map(|m| m.max_doc())
            .collect();
        assert!(
            sizes.contains(&1000),
            "the big segment was merged again: {sizes:?}"
        );
        assert!(sizes.len() <= 9, "small segments pile up: {sizes:?}");
        assert_eq!(sizes.iter().sum::<u32>(), 1030);
    }
}
