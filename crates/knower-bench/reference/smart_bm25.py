"""Reference rankers on a SMART test collection, scored like
`knower-bench search --smart DIR` (nDCG@10; binary relevance, or
Cranfield's grades counted 5 - g; odd-numbered requests for tuning, even
ones held out; Cranfield's requests numbered by their order).

    python3 -m venv env && env/bin/pip install bm25s PyStemmer rank_bm25
    env/bin/python smart_bm25.py [--k1 X] [--stopwords FILE] DIR [DIR ...]

bm25s with the Snowball English stemmer and its English stop words (the
issue's "bm25s + Snowball"), and rank_bm25's BM25Okapi over lower-cased
words (the issue's "rank_bm25"); each document is its title and abstract.
`--k1` and `--stopwords` (one word a line) change bm25s's, to see what
Knower's choices (tantivy's k1 1.2, its own stop list) do to a plain BM25.
"""

import math
import os
import re
import sys

import bm25s
import Stemmer
from rank_bm25 import BM25Okapi


def records(path):
    out, field = [], None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"^\.I\s+(\d+)\s*$", line)
            if m:
                out.append((int(m.group(1)), {}))
                field = None
                continue
            marker = line.rstrip()
            if len(marker) == 2 and marker.startswith("."):
                field = marker[1]
                continue
            if out and field:
                out[-1][1][field] = out[-1][1].get(field, "") + line + "\n"
    return out


def paragraph(text):
    return " ".join(text.split())


def find(d, test):
    found = [n for n in os.listdir(d) if test(n.lower())]
    assert len(found) == 1, (d, found)
    return os.path.join(d, found[0])


def judgements(path):
    """Request -> {document: gain}: 1, or 5 - g for Cranfield's grades 1-4;
    a negative grade (no interest) is left out."""
    out = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 2 and p[0].isdigit() and p[1].isdigit():
                grade = int(p[2]) if len(p) >= 3 and re.fullmatch(r"-?\d+", p[2]) else 0
                if grade < 0:
                    continue
                gain = 5 - grade if 1 <= grade <= 4 else 1
                out.setdefault(int(p[0]), {})[int(p[1])] = gain
    return out


def ndcg10(ranked, gains):
    discount = lambda i: 1.0 / math.log2(i + 2)
    dcg = sum(gains.get(d, 0) * discount(i) for i, d in enumerate(ranked[:10]))
    best = sorted((g for g in gains.values() if g > 0), reverse=True)[:10]
    ideal = sum(g * discount(i) for i, g in enumerate(best))
    return dcg / ideal if ideal else 0.0


def run(d, k1=1.5, stopwords="en"):
    docs = records(find(d, lambda n: n.endswith(".all") or n.startswith("cran.all")))
    reqs = records(find(d, lambda n: n.endswith(".qry") or n == "query.text"))
    rel = judgements(find(d, lambda n: n.endswith(".rel") or n in ("qrels.text", "cranqrel")))
    # Judgements that number the requests 1, 2, 3... where their .I numbers
    # skip (Cranfield) number them by their order.
    if any(i != n + 1 for n, (i, _) in enumerate(reqs)) and all(1 <= q <= len(reqs) for q in rel):
        reqs = [(n + 1, f) for n, (_, f) in enumerate(reqs)]
    ids = [i for i, _ in docs]
    texts = [paragraph(f.get("T", "")) + "\n" + paragraph(f.get("W", "")) for _, f in docs]
    questions = [(i, paragraph(f.get("W", ""))) for i, f in reqs if i in rel and f.get("W", "").strip()]
    stemmer = Stemmer.Stemmer("english")
    bm = bm25s.BM25(k1=k1)
    bm.index(bm25s.tokenize(texts, stopwords=stopwords, stemmer=stemmer, show_progress=False), show_progress=False)
    okapi = BM25Okapi([re.findall(r"\w+", t.lower()) for t in texts])
    print(f"\n### {os.path.basename(d.rstrip('/')).lower()}: references (bm25s k1 {k1}, stop words {'en' if stopwords == 'en' else len(stopwords)})\n")
    print("| ranker | odd (tuning) | even (held out) | all |")
    print("|---|---|---|---|")
    for name in ("rank_bm25 BM25Okapi", "bm25s + Snowball"):
        sums = {False: [], True: []}
        for qid, q in questions:
            if name.startswith("bm25s"):
                tokens = bm25s.tokenize([q], stopwords=stopwords, stemmer=stemmer, show_progress=False)
                if not tokens.vocab:
                    ranked = []
                else:
                    res, _ = bm.retrieve(tokens, k=min(10, len(ids)), show_progress=False)
                    ranked = [ids[j] for j in res[0]]
            else:
                scores = okapi.get_scores(re.findall(r"\w+", q.lower()))
                ranked = [ids[j] for j in sorted(range(len(ids)), key=lambda j: -scores[j])[:10]]
            sums[qid % 2 == 0].append(ndcg10(ranked, rel[qid]))
        mean = lambda xs: sum(xs) / max(len(xs), 1)
        print(f"| {name} | {mean(sums[False]):.3f} | {mean(sums[True]):.3f} | {mean(sums[False] + sums[True]):.3f} |")


args, k1, stopwords = sys.argv[1:], 1.5, "en"
while args and args[0].startswith("--"):
    if args[0] == "--k1":
        k1 = float(args[1])
    elif args[0] == "--stopwords":
        stopwords = [w.strip() for w in open(args[1]) if w.strip()]
    args = args[2:]
for d in args:
    run(d, k1, stopwords)
