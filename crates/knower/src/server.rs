//! The server commands: `serve`, `start`, `stop`, `vault`, `updates`, and
//! [`Remote`], through which other commands reach a running server instead
//! of racing it.

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use knower_agents::Attachment;
use knower_server::{Queue, RunInfo, Server, ServerConfig, State, Update};
use knower_vault::{INTERNAL_DIR, Vault};
use serde_json::Value;

use crate::cli::UpdatesAction;
use crate::commands::{Failure, Outcome, failure, print_json};

/// The background server's output, under `.knower/`.
const LOG_FILE: &str = "server.log";
/// How long `knower start` waits for the server to answer (a first start
/// indexes the whole vault).
const START_WAIT: Duration = Duration::from_secs(300);
const STOP_WAIT: Duration = Duration::from_secs(20);

fn token() -> Option<String> {
    std::env::var("KNOWER_TOKEN").ok().filter(|t| !t.is_empty())
}

pub fn serve(vault: Arc<Vault>, addr: SocketAddr, json: bool) -> Outcome {
    if let Some(info) = knower_server::running(vault.root()) {
        return Err(already_running(&info));
    }
    let index = crate::search::open_index(&vault)?;
    crate::search::catch_up(&index, json)?;
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
                server.app().agents.engine_label()
            );
            if config_has_token {
                // The token itself is not printed: this may go to a log.
                println!("The web UI needs the token once: open {url}/?token=<your KNOWER_TOKEN>");
            }
        }
        server
            .run(shutdown_signal())
            .await
            .map_err(|e| failure(format!("the server failed: {e}"), None))
    })
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

pub fn start(root: &Path, addr: SocketAddr, json: bool) -> Outcome {
    if let Some(info) = knower_server::running(root) {
        return Err(already_running(&info));
    }
    let internal = root.join(INTERNAL_DIR);
    let log_path = internal.join(LOG_FILE);
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
        if let Some(info) = knower_server::running(root)
            && info.pid == child.id()
            && Remote::new(info.clone()).health().is_ok()
        {
            if json {
                return print_json(&info);
            }
            println!(
                "Knower is serving {} at {} (pid {}); log: {}",
                root.display(),
                info.url,
                info.pid,
                log_path.display()
            );
            return Ok(());
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

pub fn stop(root: &Path, json: bool) -> Outcome {
    let Some(info) = knower_server::running(root) else {
        if json {
            return print_json(&serde_json::json!({"running": false}));
        }
        println!("no server is running on {}", root.display());
        return Ok(());
    };
    signal(info.pid, libc::SIGTERM)?;
    let deadline = Instant::now() + STOP_WAIT;
    while knower_server::alive(info.pid) {
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
pub fn show_vault(root: &Path, json: bool) -> Outcome {
    if json {
        return print_json(&serde_json::json!({"vault": root}));
    }
    println!("{}", root.display());
    let desktop = cfg!(target_os = "macos")
        || std::env::var_os("DISPLAY").is_some()
        || std::env::var_os("WAYLAND_DISPLAY").is_some();
    if desktop && std::io::stdout().is_terminal() {
        let opener = if cfg!(target_os = "macos") {
            "open"
        } else {
            "xdg-open"
        };
        let _ = Command::new(opener)
            .arg(root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
    }
    Ok(())
}

/// The server's line in `knower status`, and its part of the JSON.
pub fn status(root: &Path) -> Value {
    let Some(info) = knower_server::running(root) else {
        return serde_json::json!({"running": false});
    };
    match Remote::new(info.clone()).health() {
        Ok(health) => {
            serde_json::json!({"running": true, "url": info.url, "pid": info.pid, "queue": health["queue"], "engine": health["engine"]})
        }
        Err(e) => {
            serde_json::json!({"running": true, "url": info.url, "pid": info.pid, "problem": e.message})
        }
    }
}

pub fn print_status(server: &Value) {
    if server["running"] != true {
        println!("server    not running (`knower start`)");
        return;
    }
    let url = server["url"].as_str().unwrap_or("");
    match server.get("problem") {
        Some(problem) => println!(
            "server    {url} (pid {}) is not answering: {}",
            server["pid"],
            problem.as_str().unwrap_or("")
        ),
        None => println!(
            "server    {url} (pid {}) · {} queued, {} running · {}",
            server["pid"],
            server["queue"]["queued"],
            server["queue"]["running"],
            server["engine"].as_str().unwrap_or("")
        ),
    }
}

pub fn updates(root: &Path, action: Option<UpdatesAction>, limit: usize, json: bool) -> Outcome {
    let remote = knower_server::running(root).map(Remote::new);
    // Without a server the queue is read (and a retry recorded) directly;
    // the next server runs what waits.
    let local = || -> Result<Arc<Queue>, Failure> {
        Queue::open(&root.join(INTERNAL_DIR)).map_err(|e| failure(e.to_string(), None))
    };
    match action {
        None => {
            let list = match &remote {
                Some(remote) => remote.recent(limit)?,
                None => local()?.recent(limit),
            };
            if json {
                return print_json(&list);
            }
            if list.is_empty() {
                println!("no updates yet");
            }
            for update in &list {
                println!(
                    "{}  {:<7}  {}",
                    update.id,
                    update.state.name(),
                    update.summary.as_deref().unwrap_or(&update.headline)
                );
            }
            Ok(())
        }
        Some(UpdatesAction::Show { id }) => {
            let update = match &remote {
                Some(remote) => remote.update(&id)?,
                None => local()?
                    .get(&id)
                    .ok_or_else(|| failure(format!("there is no update {id}"), None))?,
            };
            if json {
                return print_json(&update);
            }
            print_update(&update);
            Ok(())
        }
        Some(UpdatesAction::Retry { id }) => {
            match &remote {
                Some(remote) => remote.retry(&id)?,
                None => local()?
                    .retry(&id)
                    .map_err(|e| failure(e.to_string(), None))?,
            }
            if json {
                return print_json(&serde_json::json!({"status": "accepted", "id": id}));
            }
            match remote {
                Some(_) => println!("{id} is queued again"),
                None => println!(
                    "{id} is queued again; it runs when the server starts (`knower start`)"
                ),
            }
            Ok(())
        }
    }
}

pub fn print_update(update: &Update) {
    println!("{}  {}", update.id, update.state.name());
    println!("  {}", update.headline);
    if let Some(summary) = &update.summary {
        println!("  {summary}");
    }
    for path in update.changed_files.iter().flatten() {
        println!("  changed {path}");
    }
    if let Some(error) = &update.error {
        println!("  error: {error}");
        println!("  retry with `knower updates retry {}`", update.id);
    }
}

/// A running server, as a client.
pub struct Remote {
    info: RunInfo,
    base: String,
    client: reqwest::Client,
}

impl Remote {
    pub fn new(info: RunInfo) -> Remote {
        let mut address = info.address;
        if address.ip().is_unspecified() {
            address.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        knower_llm::install_tls_provider();
        Remote {
            base: format!("http://{address}"),
            info,
            client: reqwest::Client::builder()
                .connect_timeout(Duration::from_secs(5))
                .build()
                .expect("an HTTP client without TLS always builds"),
        }
    }

    /// The server running on `root`, if any.
    pub fn find(root: &Path) -> Option<Remote> {
        knower_server::running(root).map(Remote::new)
    }

    fn send(&self, request: reqwest::RequestBuilder) -> Result<Value, Failure> {
        let request = match token() {
            Some(token) => request.bearer_auth(token),
            None => request,
        };
        crate::agents::block_on(async {
            let response = request.send().await.map_err(|e| {
                failure(
                    format!("the server at {} does not answer: {e}", self.info.url),
                    Some("`knower stop` and `knower start` restart it"),
                )
            })?;
            let status = response.status();
            let body: Value = response
                .json()
                .await
                .map_err(|e| failure(format!("the server's answer is unreadable: {e}"), None))?;
            if status.is_success() {
                Ok(body)
            } else {
                Err(failure(
                    body["detail"]
                        .as_str()
                        .map_or_else(|| format!("the server answered {status}"), str::to_string),
                    None,
                ))
            }
        })
    }

    pub fn health(&self) -> Result<Value, Failure> {
        self.send(
            self.client
                .get(format!("{}/health", self.base))
                .timeout(Duration::from_secs(5)),
        )
    }

    /// Queues an update and returns its id.
    pub fn submit(
        &self,
        text: String,
        inbox_ref: Option<String>,
        attachments: Vec<Attachment>,
    ) -> Result<String, Failure> {
        let url = format!("{}/update", self.base);
        let request = if attachments.is_empty() {
            self.client
                .post(url)
                .json(&serde_json::json!({"text": text, "inbox_ref": inbox_ref}))
        } else {
            let mut form = reqwest::multipart::Form::new().text("text", text);
            if let Some(reference) = inbox_ref {
                form = form.text("inbox_ref", reference);
            }
            for attachment in attachments {
                let part =
                    reqwest::multipart::Part::bytes(attachment.bytes).file_name(attachment.name);
                form = form.part("file", part);
            }
            self.client.post(url).multipart(form)
        };
        let answer = self.send(request)?;
        answer["id"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| failure("the server's answer has no update id", None))
    }

    pub fn update(&self, id: &str) -> Result<Update, Failure> {
        let value = self.send(self.client.get(format!("{}/updates/{id}", self.base)))?;
        from_json(value)
    }

    /// Waits until update `id` is done or failed.
    pub fn wait(&self, id: &str) -> Result<Update, Failure> {
        loop {
            let update = self.update(id)?;
            if matches!(update.state, State::Done | State::Failed) {
                return Ok(update);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn recent(&self, limit: usize) -> Result<Vec<Update>, Failure> {
        let value = self.send(
            self.client
                .get(format!("{}/updates?limit={limit}", self.base)),
        )?;
        from_json(value)
    }

    fn retry(&self, id: &str) -> Result<(), Failure> {
        self.send(
            self.client
                .post(format!("{}/updates/{id}/retry", self.base)),
        )
        .map(|_| ())
    }

    pub fn url(&self) -> &str {
        &self.info.url
    }
}

fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, Failure> {
    serde_json::from_value(value)
        .map_err(|e| failure(format!("the server's answer is unreadable: {e}"), None))
}
