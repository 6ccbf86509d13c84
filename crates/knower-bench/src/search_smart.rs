//! Classic test collections in the SMART format (Cranfield, CISI, CACM,
//! MED, …): abstracts found by whole natural-language requests and judged
//! by document.
//!
//! `knower-bench search --smart DIR` reads, in DIR, the documents
//! (`*.all`, or Cranfield's `cran.all.1400`), the requests (`*.qry` or
//! `query.text`) and the judgements (`*.rel`, `qrels.text` or `cranqrel`),
//! case-insensitively. Each document becomes a note `# <.T title>` with its
//! `.W` abstract as one paragraph; each request with at least one judged
//! document is searched over all of them for the ten best notes, scored by
//! nDCG@10. The requests' quotation marks are dropped (see `run`).
//!
//! Judgements are binary, except Cranfield's, which grade each document
//! on Cleverdon's scale (1, a complete answer, to 4, of minimum interest;
//! −1, of no interest): a grade g counts 5 − g, so a complete answer
//! counts four times a document of minimum interest, and −1 not at all.
//! Cranfield's judgements also number the requests by their order in
//! `cran.qry` (1–225), not by their `.I` numbers (1–365), as ir_datasets
//! reads them.
//!
//! **Held out**: requests with an even number are held out of any tuning;
//! only the odd ones may guide a change. The split was fixed before the
//! first measurement, like LoCoMo's conversations 6–10.

use knower_vault::Author;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::search_quality::{Gains, NoteQuestion, Plan, open, prepare, rank_notes, variants};

/// One record of a SMART file: its number and its fields (`.T`, `.W`, …),
/// each the text of the lines that follow the marker.
struct Record {
    id: u32,
    fields: HashMap<char, String>,
}

/// Parses `.I n` records; a field runs from its `.X` marker line to the
/// next marker. Lines are kept, joined by newlines.
fn records(text: &str) -> Vec<Record> {
    let mut out: Vec<Record> = Vec::new();
    let mut field: Option<char> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix(".I")
            && let Ok(id) = rest.trim().parse()
        {
            out.push(Record {
                id,
                fields: HashMap::new(),
            });
            field = None;
            continue;
        }
        let marker = line.trim_end();
        if marker.len() == 2 && marker.starts_with('.') {
            field = marker.chars().nth(1);
            continue;
        }
        if let (Some(record), Some(f)) = (out.last_mut(), field) {
            let text = record.fields.entry(f).or_default();
            text.push_str(line);
            text.push('\n');
        }
    }
    out
}

/// Lines joined into one paragraph, spaces collapsed (SMART files indent
/// and wrap their abstracts, which markdown would read as code blocks).
fn paragraph(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The judgements: request number → relevant document numbers and their
/// gains. Each line starts with the two numbers (CISI: `1 28 0 0.0`;
/// CACM: `01 1410 0 0`); a third number from 1 to 4 is Cranfield's grade
/// (see the module's comment), and a negative one judges the document of
/// no interest.
fn judgements(text: &str) -> HashMap<u32, HashMap<u32, f64>> {
    let mut out: HashMap<u32, HashMap<u32, f64>> = HashMap::new();
    for line in text.lines() {
        let mut parts = line.split_whitespace();
        let mut number = || parts.next().and_then(|p| p.parse::<i64>().ok());
        let (Some(q), Some(d), grade) = (number(), number(), number()) else {
            continue;
        };
        let gain = match grade {
            Some(g @ 1..=4) => (5 - g) as f64,
            Some(g) if g < 0 => continue,
            _ => 1.0,
        };
        if let (Ok(q), Ok(d)) = (u32::try_from(q), u32::try_from(d)) {
            out.entry(q).or_default().insert(d, gain);
        }
    }
    out
}

/// The one file in `dir` whose lower-cased name satisfies `matches`.
fn file(dir: &Path, what: &str, matches: impl Fn(&str) -> bool) -> Result<PathBuf, String> {
    let found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .map(|n| matches(&n.to_string_lossy().to_lowercase()))
                .unwrap_or(false)
        })
        .collect();
    match found.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(format!(
            "{}: expected one {what} file, found {}",
            dir.display(),
            found.len()
        )),
    }
}

fn read(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    // Old collections are Latin-1 here and there.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

pub(crate) fn run(dir: &Path, work: &Path, plan: &Plan) -> Result<(), String> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_else(|| "smart".into());
    let docs = records(&read(&file(dir, "documents", |n| {
        n.ends_with(".all") || n.starts_with("cran.all")
    })?)?);
    let requests = records(&read(&file(dir, "requests", |n| {
        n.ends_with(".qry") || n == "query.text"
    })?)?);
    let judged = judgements(&read(&file(dir, "judgements", |n| {
        n.ends_with(".rel") || n == "qrels.text" || n == "cranqrel"
    })?)?);
    // Judgements that number the requests 1, 2, 3… where their `.I`
    // numbers skip (Cranfield) number them by their order.
    let by_order = requests
        .iter()
        .enumerate()
        .any(|(i, r)| r.id as usize != i + 1)
        && judged
            .keys()
            .all(|&q| (1..=requests.len()).contains(&(q as usize)));

    let (vault, index) = open(&work.join(format!("smart-{name}")), plan)?;
    let author = Author::new("bench", "test collection document");
    let note = |id: u32| format!("{name}/{id:05}.md");
    for doc in &docs {
        let title = paragraph(doc.fields.get(&'T').map_or("", String::as_str));
        let body = paragraph(doc.fields.get(&'W').map_or("", String::as_str));
        vault
            .write(&note(doc.id), &format!("# {title}\n\n{body}\n"), &author)
            .map_err(|e| e.to_string())?;
    }
    let mut questions: Vec<NoteQuestion> = Vec::new();
    for (i, request) in requests.iter().enumerate() {
        let number = if by_order { i as u32 + 1 } else { request.id };
        let Some(relevant) = judged.get(&number) else {
            continue;
        };
        // Quotation marks in these requests are prose ('the "best" match'),
        // but Knower's query syntax reads a quoted phrase as required, so
        // they are dropped: this measures ranking, not the syntax.
        let text = paragraph(request.fields.get(&'W').map_or("", String::as_str)).replace('"', "");
        if text.is_empty() {
            continue;
        }
        let relevant: Gains = relevant.iter().map(|(&d, &g)| (note(d), g)).collect();
        questions.push((text, relevant, number % 2 == 0));
    }
    eprintln!(
        "{name}: {} documents, {} judged requests",
        docs.len(),
        questions.len()
    );
    prepare(&index, plan)?;
    let count = |held: bool| questions.iter().filter(|q| q.2 == held).count();
    println!(
        "\n### {name} ({} documents; nDCG@10 of notes over {} odd-numbered requests / {} even, held out)\n",
        docs.len(),
        count(false),
        count(true)
    );
    println!("| mode | odd (tuning) | even (held out) | all | query p50 |");
    println!("|---|---|---|---|---|");
    for (label, mode, fusions) in variants(plan) {
        index.set_fusions(fusions);
        let (sums, p50) = rank_notes(&index, mode, &questions)?;
        let ndcg = |(sum, n): (f64, usize)| format!("{:.3}", sum / n.max(1) as f64);
        let all = (sums[0].0 + sums[1].0, sums[0].1 + sums[1].1);
        println!(
            "| {label} | {} | {} | {} | {} |",
            ndcg(sums[0]),
            ndcg(sums[1]),
            ndcg(all),
            crate::ms(p50)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_smart_records_and_judgements() {
        let text = ".I 1\n.T\nA title\n.W\n   An abstract\nover two lines.\n.X\n1 5 1\n.I 2\n.W\nOnly text\n";
        let r = records(text);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].id, 1);
        assert_eq!(paragraph(&r[0].fields[&'T']), "A title");
        assert_eq!(paragraph(&r[0].fields[&'W']), "An abstract over two lines.");
        assert_eq!(paragraph(&r[1].fields[&'W']), "Only text");
        let j = judgements("     1     28\t0\t0.000000\n01 1410  0 0\n1 3\n");
        assert_eq!(j[&1], HashMap::from([(28, 1.0), (1410, 1.0), (3, 1.0)]));
        // Cranfield: graded on Cleverdon's scale, 1 the best; -1 no interest.
        let j = judgements("1 184 2 \n1 13 4\n1 12 1\n1 486 -1\n");
        assert_eq!(j[&1], HashMap::from([(184, 3.0), (13, 1.0), (12, 4.0)]));
    }
}
