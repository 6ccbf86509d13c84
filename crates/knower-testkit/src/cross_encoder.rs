//! A cross-encoder for tests, made from the test embedding model's weights.

use std::path::PathBuf;

/// A cross-encoder for tests: no registry carries one's weights, so it is
/// made of all-MiniLM-L6-v2's, laid out as cross-encoder/ms-marco-MiniLM-
/// L-6-v2 is (the encoder under `bert.`, its pooler, and a classifier of
/// weight sin(0.37·i + 1) and bias 0.1). Its scores mean nothing; they are
/// held to what `transformers` gives for the same folder
/// (`crates/knower-bench/reference/cross_encoder.py` builds it alike).
pub fn cross_encoder_dir() -> PathBuf {
    let minilm = crate::model::model_dir();
    crate::model::fetched("minilm-cross-encoder", |target| {
        use candle_core::{Device, Tensor};
        let device = Device::Cpu;
        let weights =
            candle_core::safetensors::load(minilm.join("model.safetensors"), &device).unwrap();
        let mut tensors: std::collections::HashMap<String, Tensor> = weights
            .into_iter()
            .filter(|(name, _)| name != "embeddings.position_ids")
            .map(|(name, t)| (format!("bert.{name}"), t))
            .collect();
        let width = tensors["bert.pooler.dense.bias"].dims1().unwrap();
        let classifier: Vec<f32> = (0..width)
            .map(|i| (0.37 * i as f64 + 1.0).sin() as f32)
            .collect();
        tensors.insert(
            "classifier.weight".into(),
            Tensor::from_vec(classifier, (1, width), &device).unwrap(),
        );
        tensors.insert(
            "classifier.bias".into(),
            Tensor::from_vec(vec![0.1f32], 1, &device).unwrap(),
        );
        // Made beside, then moved in whole, as the models are.
        let making = target.join("minilm-cross-encoder.making");
        let _ = std::fs::remove_dir_all(&making);
        std::fs::create_dir_all(&making).unwrap();
        candle_core::safetensors::save(&tensors, making.join("model.safetensors")).unwrap();
        let mut config: serde_json::Value =
            serde_json::from_slice(&std::fs::read(minilm.join("config.json")).unwrap()).unwrap();
        config["architectures"] = serde_json::json!(["BertForSequenceClassification"]);
        config["id2label"] = serde_json::json!({"0": "LABEL_0"});
        config["label2id"] = serde_json::json!({"LABEL_0": 0});
        std::fs::write(making.join("config.json"), config.to_string()).unwrap();
        std::fs::copy(minilm.join("tokenizer.json"), making.join("tokenizer.json")).unwrap();
        std::fs::rename(&making, target.join("minilm-cross-encoder")).unwrap();
    })
}
