//! Running a program as a test does: input on stdin, its whole output.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `command` with `stdin` (text, or bytes that need not be) as its
/// standard input; its whole output.
pub fn run(mut command: Command, stdin: impl AsRef<[u8]>) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{command:?} did not start: {e}"));
    // A program that exits without reading its input closes the pipe: what
    // it printed is the test's answer, not the broken pipe.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_ref());
    child.wait_with_output().unwrap()
}

/// Runs `command` with `stdin`; its standard output, which must be a
/// success (else the test fails with what it printed).
pub fn succeed(command: Command, stdin: &str) -> String {
    let described = format!("{command:?}");
    let out = run(command, stdin);
    assert!(
        out.status.success(),
        "{described} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A port on 127.0.0.1 that was free a moment ago.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
