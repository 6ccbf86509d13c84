"""The reference for Knower's cross-encoder (crates/knower-index/src/rerank.rs).

No cross-encoder's weights can be had from a package registry, so the test
makes one of all-MiniLM-L6-v2's weights with a fixed classification head:
the encoder under `bert.`, its pooler, and `classifier` with weight
sin(0.37·i + 1) for i in 0..384 and bias 0.1 — the layout of
cross-encoder/ms-marco-MiniLM-L-6-v2. This script builds the same folder
and prints the logits `transformers`' BertForSequenceClassification gives
for the test's pairs (tokenized as sentence-transformers' CrossEncoder does:
the pair, truncated longest-first at 512 word pieces).

    python3 cross_encoder.py MINILM_FOLDER OUT_FOLDER

Needs torch, transformers and safetensors (pip); the test does not.
"""

import json
import math
import shutil
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file
from transformers import AutoTokenizer, BertForSequenceClassification

PAIRS = [
    ("where does the cat sleep", "A kitten is sleeping on the sofa."),
    ("where does the cat sleep", "The central bank raised interest rates again."),
    (
        "When did Caroline go to the support group?",
        "Caroline and Melanie, session 1 (8 May 2023)\n"
        "[D1:3] Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    ),
    ("gardening", "a very long passage about gardening and tomatoes " * 80),
]


def build(minilm: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    weights = load_file(str(minilm / "model.safetensors"))
    tensors = {f"bert.{k}": v.contiguous() for k, v in weights.items() if k != "embeddings.position_ids"}
    width = weights["pooler.dense.weight"].shape[0]
    tensors["classifier.weight"] = torch.tensor(
        [[math.sin(0.37 * i + 1.0) for i in range(width)]], dtype=torch.float32
    )
    tensors["classifier.bias"] = torch.tensor([0.1], dtype=torch.float32)
    save_file(tensors, str(out / "model.safetensors"))
    config = json.loads((minilm / "config.json").read_text())
    config["architectures"] = ["BertForSequenceClassification"]
    config["id2label"] = {"0": "LABEL_0"}
    config["label2id"] = {"LABEL_0": 0}
    (out / "config.json").write_text(json.dumps(config, indent=2))
    for name in ["tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"]:
        shutil.copy(minilm / name, out / name)


def main() -> None:
    minilm, out = Path(sys.argv[1]), Path(sys.argv[2])
    build(minilm, out)
    tokenizer = AutoTokenizer.from_pretrained(str(out))
    model = BertForSequenceClassification.from_pretrained(str(out)).eval()
    queries = [q for q, _ in PAIRS]
    passages = [p for _, p in PAIRS]
    batch = tokenizer(
        queries, passages, padding=True, truncation="longest_first", max_length=512, return_tensors="pt"
    )
    with torch.no_grad():
        logits = model(**batch).logits.squeeze(-1)
    for (q, p), logit, mask in zip(PAIRS, logits.tolist(), batch["attention_mask"]):
        print(f"{logit:.6f}\t{int(mask.sum())} word pieces\t{q[:30]!r} / {p[:40]!r}")


if __name__ == "__main__":
    main()
