//! The server commands: `serve`, `start`, `stop` and `vault`.

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use knower_server::{Server, ServerConfig};
use knower_service::{Client, RunInfo, token};

use crate::context::{Context, IndexUse, block_on};
use crate::output::{Failure, Outcome, failure, print_json};

/// How long `knower start` waits for the server to answer (a first start
/// indexes the whole vault).
const START_WAIT: Duration = Duration::from_secs(300);
const STOP_WAIT: Duration = Duration::from_secs(20);

pub fn serve(ctx: &Context, addr: SocketAddr) -> Outcome {
    let json = ctx.json;
    // Before anything is made: a refused token leaves no vault behind.
    knower_server::check_access(addr, token().as_deref())
        .map_err(|e| failure(e.to_string(), None))?;
    let vault = ctx.vault_or_new("knower serve")?;
    if let Some(info) = knower_service::running(vault.root()) {
        return Err(already_running(&info));
    }
    let (vault, index) = ctx.prepare(vault, IndexUse::Required)?;
    let index = index.expect("a required index is open");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| failure(format!("cannot start the server's runtime: {e}"), None))?;
    runtime.block_on(async {
        let config = ServerConfig {
            addr,
            token: token(),
        };
        let config_has_token = config.token.is_some();
        let server = Server::start(vault.clone(), index, config)
            .await
            .map_err(|e| failure(e.to_string(), None))?;
        let url = format!("http://{}", server.address());
        if json {
            // One line, so that a supervisor can read it as soon as it comes.
            println!(
                "{}",
                serde_json::json!({"url": url, "vault": vault.root(), "pid": std::process::id()})
            );
        } else {
            println!(
                "Knower is serving {} at {url} ({}); press Ctrl-C to stop",
                vault.root().display(),
                server.app().service.engine_label()
            );
            if config_has_token {
                // The token itself is not printed: this may go to a log.
                println!("The web UI needs the token once: open {url}/?token=<your KNOWER_TOKEN>");
            }
        }
        if !json {
            tokio::spawn(log_updates(server.app().service.events().subscribe(None)));
        }
        server
            .run(shutdown_signal())
            .await
            .map_err(|e| failure(format!("the server failed: {e}"), None))
    })
}

/// One line per finished update, as a web server logs its requests:
/// time, id, outcome, and what became of it.
async fn log_updates(mut events: knower_service::events::Subscription) {
    loop {
        let event = match events.live.recv().await {
            Ok(event) => event,
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        };
        if event.name != "update_status" {
            continue;
        }
        let Ok(update) = serde_json::from_str::<serde_json::Value>(&event.data) else {
            continue;
        };
        let text = |key: &str| update[key].as_str().unwrap_or("").to_string();
        let state = text("state");
        if state != "done" && state != "failed" {
            continue;
        }
        let outcome = match text("outcome") {
            o if o.is_empty() => state.clone(),
            o => o,
        };
        let what = match text("summary") {
            s if s.is_empty() => text("error"),
            s => s,
        };
        let time = jiff::Zoned::now().strftime("%Y-%m-%d %H:%M:%S");
        println!("{time} {} {outcome}: {what}", text("id"));
    }
}

/// Ctrl-C, or SIGTERM from `knower stop`.
async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .expect("SIGTERM can be handled");
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}

fn already_running(info: &RunInfo) -> Failure {
    failure(
        format!(
            "a server is already running on this vault at {} (pid {})",
            info.url, info.pid
        ),
        Some("stop it with `knower stop`"),
    )
}

pub fn start(ctx: &Context, addr: SocketAddr) -> Outcome {
    let (info, root, log_path) = start_quietly(ctx, addr)?;
    if ctx.json {
        return print_json(&info);
    }
    println!(
        "Knower is serving {} at {} (pid {}); log: {}",
        root.display(),
        info.url,
        info.pid,
        log_path.display()
    );
    Ok(())
}

/// Starts the server in the background and waits until it answers.
fn start_quietly(
    ctx: &Context,
    addr: SocketAddr,
) -> Result<(RunInfo, std::path::PathBuf, std::path::PathBuf), Failure> {
    knower_server::check_access(addr, token().as_deref())
        .map_err(|e| failure(e.to_string(), None))?;
    let vault = ctx.vault_or_new("knower start")?;
    let root = vault.root();
    if let Some(info) = knower_service::running(root) {
        return Err(already_running(&info));
    }
    let log_path = knower_service::log_path(root)
        .map_err(|e| failure(format!("cannot make the server's folder: {e}"), None))?;
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .map_err(|e| failure(format!("cannot open {}: {e}", log_path.display()), None))?;
    let exe = std::env::current_exe()
        .map_err(|e| failure(format!("cannot find the knower program: {e}"), None))?;
    let mut command = Command::new(exe);
    command
        .arg("--vault")
        .arg(root)
        .args(["serve", "--addr", &addr.to_string()])
        .stdin(Stdio::null())
        .stdout(log.try_clone().map_err(|e| failure(e.to_string(), None))?)
        .stderr(log);
    #[cfg(unix)]
    {
        // Its own process group: Ctrl-C in this terminal does not reach it.
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = command
        .spawn()
        .map_err(|e| failure(format!("cannot start the server: {e}"), None))?;
    let deadline = Instant::now() + START_WAIT;
    loop {
        if let Some(info) = knower_service::running(root)
            && info.pid == child.id()
            && block_on(Client::new(info.clone()).health()).is_ok()
        {
            return Ok((info, root.to_path_buf(), log_path));
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(failure(
                format!(
                    "the server stopped at once ({status}): {}",
                    log_tail(&log_path)
                ),
                None,
            ));
        }
        if Instant::now() > deadline {
            return Err(failure(
                "the server did not answer in time",
                Some(&format!("see {}", log_path.display())),
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn log_tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().rev().take(3).collect();
    lines.into_iter().rev().collect::<Vec<_>>().join(" / ")
}

pub fn stop(ctx: &Context) -> Outcome {
    let json = ctx.json;
    let vault = ctx.vault()?;
    let root = vault.root();
    let Some(info) = knower_service::running(root) else {
        if json {
            return print_json(&serde_json::json!({"running": false}));
        }
        println!("no server is running on {}", root.display());
        return Ok(());
    };
    signal(info.pid, libc::SIGTERM)?;
    let deadline = Instant::now() + STOP_WAIT;
    while knower_service::alive(info.pid) {
        if Instant::now() > deadline {
            // Safe: the queue resumes whatever was running at the next start.
            signal(info.pid, libc::SIGKILL)?;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if json {
        return print_json(&serde_json::json!({"running": false, "stopped": info.pid}));
    }
    println!("stopped the server at {} (pid {})", info.url, info.pid);
    Ok(())
}

fn signal(pid: u32, signal: libc::c_int) -> Outcome {
    let pid = libc::pid_t::try_from(pid).map_err(|_| failure("invalid pid", None))?;
    // SAFETY: kill(2) takes plain integers and has no memory effects here.
    if unsafe { libc::kill(pid, signal) } != 0 {
        let error = std::io::Error::last_os_error();
        if error.raw_os_error() != Some(libc::ESRCH) {
            return Err(failure(format!("cannot stop process {pid}: {error}"), None));
        }
    }
    Ok(())
}

/// `knower vault`: the folder, opened in a file manager when a desktop is
/// there to show it.
pub fn show_vault(ctx: &Context) -> Outcome {
    let vault = ctx.vault()?;
    let root = vault.root();
    if ctx.json {
        return print_json(&serde_json::json!({"vault": root}));
    }
    println!("{}", root.display());
    if std::io::stdout().is_terminal() {
        open_on_desktop(root.as_os_str(), false);
    }
    Ok(())
}

/// Opens a folder or an address with the desktop's opener (`open` on
/// macOS, `xdg-open` elsewhere) when a desktop is there; an address goes to
/// `$BROWSER` when that is set, as other command-line tools do. Returns
/// whether something was asked to open it.
fn open_on_desktop(target: &std::ffi::OsStr, address: bool) -> bool {
    let browser = std::env::var_os("BROWSER").filter(|b| address && !b.is_empty());
    let desktop = cfg!(target_os = "macos")
        || std::env::var_os("DISPLAY").is_some()
        || std::env::var_os("WAYLAND_DISPLAY").is_some();
    let opener = match browser {
        Some(browser) => browser,
        None if !desktop => return false,
        None if cfg!(target_os = "macos") => "open".into(),
        None => "xdg-open".into(),
    };
    Command::new(opener)
        .arg(target)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .is_ok()
}

/// `knower visualize` (seed 003): the web UI in the browser, with the
/// server started in the background first when none runs on the vault.
pub fn visualize(ctx: &Context, addr: SocketAddr) -> Outcome {
    let vault = ctx.vault_or_new("knower visualize")?;
    let root = vault.root().to_path_buf();
    drop(vault);
    let started = match knower_service::running(&root) {
        Some(_) => false,
        None => {
            let quiet = Context::new(Some(root.clone()), true);
            start_quietly(&quiet, addr)?;
            true
        }
    };
    let info = knower_service::running(&root)
        .ok_or_else(|| failure("the server is not running", Some("see `knower status`")))?;
    let url = match knower_service::token() {
        Some(_) => format!("{}/?token=<your KNOWER_TOKEN>", info.url),
        None => format!("{}/", info.url),
    };
    let opened = knower_service::token().is_none() && open_on_desktop(url.as_ref(), true);
    if ctx.json {
        return print_json(
            &serde_json::json!({"url": info.url, "started": started, "opened": opened}),
        );
    }
    if started {
        println!(
            "started the server at {} (pid {}); `knower stop` stops it",
            info.url, info.pid
        );
    }
    if opened {
        println!("opened {url}");
    } else {
        println!("open {url} in your browser");
    }
    Ok(())
}
