//! The model loader on the real all-MiniLM-L6-v2 files, and on folders that
//! are missing or broken.

mod support;

use knower_testkit::cross_encoder;
use knower_testkit::model::{model_dir, mpnet_dir};

use std::path::Path;

use knower_index::Error;
use knower_index::embed::{self, Embedder, MODEL_FILES};

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn the_real_model_embeds_meaningfully() {
    let files = embed::locate(model_dir().to_str().unwrap()).unwrap();
    let embedder = Embedder::load(&files).unwrap();
    assert_eq!(embedder.dims, 384);
    let texts = [
        "A kitten is sleeping on the sofa.",
        "A young cat naps on the couch.",
        "The central bank raised interest rates again.",
        "x",
        &"a very long passage about gardening and tomatoes ".repeat(60),
    ];
    let batch = embedder.embed(&texts).unwrap();
    for v in &batch {
        assert_eq!(v.len(), 384);
        assert!((dot(v, v) - 1.0).abs() < 1e-4, "unit length");
    }
    assert!(dot(&batch[0], &batch[1]) > 0.6);
    assert!(dot(&batch[0], &batch[2]) < 0.2);
    // Batching (with padding to the longest text) changes nothing.
    for (text, batched) in texts.iter().zip(&batch) {
        let alone = embedder.embed(&[text]).unwrap().remove(0);
        assert!(dot(&alone, batched) > 0.9999, "{text}");
    }
    // Long texts are truncated to the model's window, not rejected.
    assert_eq!(embedder.token_counts(&[texts[4]]).unwrap(), vec![256]);
    // The same files give the same fingerprint; vectors are keyed by it.
    assert_eq!(
        embed::locate(model_dir().to_str().unwrap())
            .unwrap()
            .fingerprint,
        files.fingerprint
    );
}

/// Knower runs its own BERT encoder (fused attention and GELU, for speed).
/// Its vectors must be those of the reference forward pass: these values
/// are what candle-transformers' `BertModel`, which Knower used before,
/// gave for the same model, mean-pooled and normalised.
#[test]
fn the_encoder_gives_the_reference_vectors() {
    let files = embed::locate(model_dir().to_str().unwrap()).unwrap();
    let embedder = Embedder::load(&files).unwrap();
    let reference: [(&str, [f32; 6]); 3] = [
        (
            "The cat sits on the mat.",
            [
                0.13417715,
                -0.032900296,
                -0.024803732,
                0.041439045,
                -0.036347672,
                0.041814208,
            ],
        ),
        (
            "Booked the flights to Lisbon for the 14th; the hotel is near Alfama.",
            [
                0.03179954,
                0.05368539,
                -0.030970484,
                0.07210107,
                -0.03590477,
                0.02315662,
            ],
        ),
        (
            "A much longer passage about renovating the kitchen: the tiles arrived broken, so the contractor will return on Monday with new ones, and the plumber moves the sink two metres to the left.",
            [
                -0.0020958034,
                -0.03329147,
                0.04765686,
                -0.03237002,
                -0.0891945,
                -0.001505095,
            ],
        ),
    ];
    let texts: Vec<&str> = reference.iter().map(|(t, _)| *t).collect();
    let got = embedder.embed(&texts).unwrap();
    for ((text, want), got) in reference.iter().zip(&got) {
        for (w, g) in want.iter().zip(got) {
            assert!(
                (w - g).abs() < 1e-5,
                "{text}: {:?} against {want:?}",
                &got[..6]
            );
        }
    }
}

/// all-mpnet-base-v2 (MPNet: other weight names, positions counted from
/// after the padding id, a learned bias on attention scores by distance)
/// gives the vectors of the reference: `sentence-transformers` 6.2 with
/// `transformers` 5.24 and torch 2.15 on the CPU, `max_seq_length` 256,
/// first six dimensions of each normalised vector.
#[test]
fn an_mpnet_model_gives_the_reference_vectors() {
    let files = embed::locate(mpnet_dir().to_str().unwrap()).unwrap();
    let embedder = Embedder::load(&files).unwrap();
    assert_eq!(embedder.dims, 768);
    let long = "a very long passage about gardening and tomatoes ".repeat(60);
    let reference: [(&str, [f32; 6]); 5] = [
        (
            "The cat sits on the mat.",
            [
                -0.007165, -0.027372, -0.007667, -0.015516, 0.022858, -0.041401,
            ],
        ),
        (
            "A young cat naps on the couch.",
            [
                -0.021494, -0.009381, 0.015163, 0.000658, -0.002805, 0.005085,
            ],
        ),
        (
            "Quantum chromodynamics describes the strong interaction between \
             quarks and gluons, mediated by eight gluon fields.",
            [0.030813, -0.002831, -0.00202, 0.022285, 0.008328, -0.01184],
        ),
        (
            "x",
            [
                -0.038303, -0.039169, 0.006454, -0.002423, -0.011778, 0.032309,
            ],
        ),
        (
            &long,
            [0.019582, 0.045412, -0.02986, 0.035923, -0.007916, 0.010391],
        ),
    ];
    let texts: Vec<&str> = reference.iter().map(|(t, _)| *t).collect();
    // In one batch, padded to the longest: the bias must not reach padding.
    let vectors = embedder.embed(&texts).unwrap();
    for ((text, want), got) in reference.iter().zip(&vectors) {
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g - w).abs() < 2e-5,
                "{text}: {:?} against {want:?}",
                &got[..6]
            );
        }
    }
    // The reference's cosines: 0.5425 and −0.0243.
    assert!((dot(&vectors[0], &vectors[1]) - 0.5425).abs() < 1e-3);
    assert!((dot(&vectors[0], &vectors[2]) + 0.0243).abs() < 1e-3);
}

fn copy_model(to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for file in MODEL_FILES {
        std::fs::copy(model_dir().join(file), to.join(file)).unwrap();
    }
}

fn load_error(dir: &Path) -> String {
    let result = embed::locate(dir.to_str().unwrap()).and_then(|f| Embedder::load(&f));
    match result {
        Err(e @ Error::Model { .. }) => {
            assert!(e.hint().is_some());
            e.to_string()
        }
        Err(e) => panic!("expected a model error, got {e}"),
        Ok(_) => panic!("a broken model loaded"),
    }
}

#[test]
fn missing_or_broken_model_folders_are_clear_errors() {
    let temp = tempfile::tempdir().unwrap();
    assert!(load_error(&temp.path().join("nope")).contains("not a folder"));

    let dir = temp.path().join("model");
    copy_model(&dir);
    std::fs::remove_file(dir.join("tokenizer.json")).unwrap();
    assert!(load_error(&dir).contains("tokenizer.json is missing"));

    copy_model(&dir);
    std::fs::write(dir.join("tokenizer.json"), b"{ not a tokenizer").unwrap();
    assert!(load_error(&dir).contains("tokenizer.json"));

    copy_model(&dir);
    std::fs::write(dir.join("config.json"), b"[1, 2]").unwrap();
    assert!(load_error(&dir).contains("config.json"));

    copy_model(&dir);
    let weights = std::fs::read(dir.join("model.safetensors")).unwrap();
    std::fs::write(dir.join("model.safetensors"), &weights[..weights.len() / 2]).unwrap();
    assert!(load_error(&dir).contains("model.safetensors"));

    copy_model(&dir);
    std::fs::write(dir.join("model.safetensors"), b"").unwrap();
    assert!(load_error(&dir).contains("model.safetensors"));

    // Weights of another shape than config.json says.
    copy_model(&dir);
    let config = std::fs::read_to_string(dir.join("config.json"))
        .unwrap()
        .replace("\"hidden_size\": 384", "\"hidden_size\": 768");
    std::fs::write(dir.join("config.json"), config).unwrap();
    assert!(load_error(&dir).contains("model.safetensors"));

    // What the encoder does not implement is refused, not run wrongly.
    let with = |from: &str, to: &str| {
        copy_model(&dir);
        let config = std::fs::read_to_string(dir.join("config.json")).unwrap();
        assert!(config.contains(from), "the model's config.json has {from}");
        std::fs::write(dir.join("config.json"), config.replace(from, to)).unwrap();
        load_error(&dir)
    };
    let relative = with(
        "\"position_embedding_type\": \"absolute\"",
        "\"position_embedding_type\": \"relative_key\"",
    );
    assert!(
        relative.contains("relative_key is not supported"),
        "{relative}"
    );
    // A RoBERTa checkpoint has BERT's weight names but not its positions.
    let roberta = with("\"model_type\": \"bert\"", "\"model_type\": \"roberta\"");
    assert!(
        roberta.contains("model_type roberta is not supported"),
        "{roberta}"
    );
    // An MPNet config without its attention buckets.
    let mpnet = with("\"model_type\": \"bert\"", "\"model_type\": \"mpnet\"");
    assert!(
        mpnet.contains("an mpnet model needs relative_attention_num_buckets"),
        "{mpnet}"
    );
    let silu = with("\"hidden_act\": \"gelu\"", "\"hidden_act\": \"silu\"");
    assert!(
        silu.contains("not a BERT configuration") && silu.contains("silu"),
        "{silu}"
    );
    let heads = with("\"num_attention_heads\": 12", "\"num_attention_heads\": 7");
    assert!(
        heads.contains("config.json: hidden_size 384 is not a multiple of 7 heads"),
        "{heads}"
    );
}

/// A model folder's sentence-transformers conventions are followed: the
/// prompts it declares go before queries and passages, and a folder that
/// pools by the first token (bge, arctic-embed) is pooled so.
#[test]
fn a_folder_s_prompts_and_pooling_are_followed() {
    let plain_files = embed::locate(model_dir().to_str().unwrap()).unwrap();
    let plain = Embedder::load(&plain_files).unwrap();
    let one = |e: &Embedder, text: &str| e.embed(&[text]).unwrap().remove(0);
    let text = "A young cat naps on the couch.";
    let temp = tempfile::tempdir().unwrap();

    let dir = temp.path().join("prompted");
    copy_model(&dir);
    std::fs::write(
        dir.join("config_sentence_transformers.json"),
        r#"{"prompts": {"query": "query: ", "passage": "passage: "}}"#,
    )
    .unwrap();
    let files = embed::locate(dir.to_str().unwrap()).unwrap();
    assert_ne!(files.fingerprint, plain_files.fingerprint);
    let prompted = Embedder::load(&files).unwrap();
    let query = prompted.embed_queries(&[text]).unwrap().remove(0);
    let passage = one(&prompted, text);
    assert!(dot(&query, &one(&plain, &format!("query: {text}"))) > 0.9999);
    assert!(dot(&passage, &one(&plain, &format!("passage: {text}"))) > 0.9999);
    assert!(dot(&query, &passage) < 0.999, "the two prompts differ");

    let dir = temp.path().join("cls");
    copy_model(&dir);
    std::fs::create_dir_all(dir.join("1_Pooling")).unwrap();
    std::fs::write(
        dir.join("1_Pooling/config.json"),
        r#"{"word_embedding_dimension": 384, "pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false, "pooling_mode_max_tokens": false, "pooling_mode_mean_sqrt_len_tokens": false}"#,
    )
    .unwrap();
    let files = embed::locate(dir.to_str().unwrap()).unwrap();
    assert_ne!(files.fingerprint, plain_files.fingerprint);
    let cls = Embedder::load(&files).unwrap();
    let alone = one(&cls, text);
    assert!((dot(&alone, &alone) - 1.0).abs() < 1e-4, "unit length");
    assert!(
        dot(&alone, &one(&plain, text)) < 0.99,
        "the first token is not the mean"
    );
    // The first token is the text's own whatever the padding of its batch.
    let longer = "A much longer text about the central bank, interest rates, inflation and the housing market this winter.";
    let batch = cls.embed(&[text, longer]).unwrap();
    assert!(dot(&alone, &batch[0]) > 0.9999);
}

/// The cross-encoder (a `BertForSequenceClassification`: the query and the
/// passage read together, as token types 0 and 1, the first token through
/// the pooler and the classifier) gives the logits of `transformers` 5.24
/// (torch 2.15, CPU) for the same folder and pairs, batched and padded:
/// `crates/knower-bench/reference/cross_encoder.py`. With every token of
/// type 0 the logits move by 0.02–0.23, so the types are held too.
#[test]
fn a_cross_encoder_gives_the_reference_scores() {
    use knower_index::rerank::CrossEncoder;
    let files = embed::locate(cross_encoder::cross_encoder_dir().to_str().unwrap()).unwrap();
    let encoder = CrossEncoder::load(&files).unwrap();
    let long = "a very long passage about gardening and tomatoes ".repeat(80);
    let reference: [(&str, &str, f32); 4] = [
        (
            "where does the cat sleep",
            "A kitten is sleeping on the sofa.",
            -1.22164,
        ),
        (
            "where does the cat sleep",
            "The central bank raised interest rates again.",
            -0.943413,
        ),
        (
            "When did Caroline go to the support group?",
            "Caroline and Melanie, session 1 (8 May 2023)\n[D1:3] Caroline: I went to a LGBTQ \
             support group yesterday and it was so powerful.",
            0.70286,
        ),
        // 512 word pieces after truncation, longest first.
        ("gardening", &long, 0.916404),
    ];
    for (query, passage, want) in reference {
        let got = encoder.scores(query, &[passage]).unwrap()[0];
        assert!(
            (got - want).abs() < 2e-4,
            "{query} / {passage:.40}: {got} against {want}"
        );
    }
    // Pairs of one query batched together (padded to the longest) score
    // as they do alone.
    let cat = encoder
        .scores(
            "where does the cat sleep",
            &[reference[0].1, reference[1].1, &long],
        )
        .unwrap();
    assert!((cat[0] - reference[0].2).abs() < 2e-4 && (cat[1] - reference[1].2).abs() < 2e-4);
}

/// An embedding model named as the reranker is refused, not used: its
/// scores would mean nothing.
#[test]
fn an_embedding_model_is_no_cross_encoder() {
    use knower_index::rerank::CrossEncoder;
    let files = embed::locate(model_dir().to_str().unwrap()).unwrap();
    let e = CrossEncoder::load(&files)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("not a cross-encoder") && e.contains("BertModel"),
        "{e}"
    );
    // Nor is a classifier of several labels (sentiment, say).
    let dir = tempfile::tempdir().unwrap();
    let source = cross_encoder::cross_encoder_dir();
    for file in MODEL_FILES {
        std::fs::copy(source.join(file), dir.path().join(file)).unwrap();
    }
    let config = std::fs::read_to_string(source.join("config.json")).unwrap();
    let config = config.replace(
        r#""id2label":{"0":"LABEL_0"}"#,
        r#""id2label":{"0":"NEGATIVE","1":"POSITIVE"}"#,
    );
    assert!(config.contains("POSITIVE"));
    std::fs::write(dir.path().join("config.json"), config).unwrap();
    let files = embed::locate(dir.path().to_str().unwrap()).unwrap();
    let e = CrossEncoder::load(&files)
        .err()
        .expect("refused")
        .to_string();
    assert!(e.contains("a classifier of 2 labels"), "{e}");
}

/// The rerank stage orders the candidates it judges by the model's
/// probability, which becomes their score; beyond [`JUDGED`] they keep the
/// fused order, scored 0.
#[test]
fn a_cross_encoder_orders_the_candidates_it_judges() {
    use knower_index::rerank::{CrossEncoder, JUDGED};
    use knower_index::{Candidate, Rerank};
    let files = embed::locate(cross_encoder::cross_encoder_dir().to_str().unwrap()).unwrap();
    let encoder = CrossEncoder::load(&files).unwrap();
    let candidate = |id: usize| Candidate {
        id,
        path: format!("notes/{id}.md"),
        title: format!("Note {id}"),
        heading: String::new(),
        text: format!("Passage {id} says {} things about cats.", id * 7 % 11),
        score: 100.0 - id as f32,
    };
    let mut candidates: Vec<Candidate> = (0..JUDGED + 5).map(candidate).collect();
    let query = "what about cats";
    encoder.rerank(query, &mut candidates).unwrap();
    let judged = &candidates[..JUDGED];
    for pair in judged.windows(2) {
        assert!(pair[0].score >= pair[1].score, "best first");
    }
    for c in judged {
        let want = support::probability(&encoder, query, (&c.title, &c.heading, &c.text));
        assert!(
            (c.score - want).abs() < 1e-5,
            "{}: {} against {want}",
            c.id,
            c.score
        );
    }
    let mut ids: Vec<usize> = judged.iter().map(|c| c.id).collect();
    ids.sort();
    assert_eq!(
        ids,
        (0..JUDGED).collect::<Vec<_>>(),
        "the best fused are judged"
    );
    assert_ne!(
        judged.iter().map(|c| c.id).collect::<Vec<_>>(),
        ids,
        "the model reordered them"
    );
    let tail: Vec<(usize, f32)> = candidates[JUDGED..]
        .iter()
        .map(|c| (c.id, c.score))
        .collect();
    assert_eq!(
        tail,
        (JUDGED..JUDGED + 5).map(|i| (i, 0.0)).collect::<Vec<_>>()
    );
}
