//! The web UI end to end: `knower serve` as a process on a temporary vault
//! (the offline engine), driven in headless Chromium through chromedriver.
//!
//! Needs Debian's `chromium` and `chromium-driver` (`.ci/run` installs
//! them). Without them the tests fail and say so; set `KNOWER_SKIP_BROWSER=1`
//! to skip them on a machine that cannot have a browser. Screenshots of
//! each moment are kept in `target/tmp/browser/`.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

mod support;
use knower_testkit::process::free_port;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use support::{knower, serve, two_projects as fixture};

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

/// One browser at a time: the machines have two cores.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

const PATIENCE: Duration = Duration::from_secs(20);
const ENTER: &str = "\u{e007}";

/// A valid 1×1 PNG.
const PNG_1X1: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xb0, 0x8e, 0xbe, 0xfd,
    0x1f, 0x00, 0x04, 0xb7, 0x02, 0x71, 0x4c, 0x90, 0xfd, 0x7b, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

// ---- the browser ------------------------------------------------------------

/// chromedriver and Chromium, or `None` when told to skip without them.
fn tools() -> Option<(PathBuf, PathBuf)> {
    let find = |variable: &str, names: &[&str]| {
        std::env::var_os(variable).map(PathBuf::from).or_else(|| {
            let path = std::env::var_os("PATH").unwrap_or_default();
            std::env::split_paths(&path)
                .chain([PathBuf::from("/usr/bin")])
                .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
                .find(|candidate| candidate.is_file())
        })
    };
    let driver = find("KNOWER_CHROMEDRIVER", &["chromedriver"]);
    let chromium = find(
        "KNOWER_CHROMIUM",
        &["chromium", "chromium-browser", "google-chrome"],
    );
    match (driver, chromium) {
        (Some(driver), Some(chromium)) => Some((driver, chromium)),
        _ if std::env::var_os("KNOWER_SKIP_BROWSER").is_some() => {
            eprintln!("skipped: no chromedriver or Chromium, and KNOWER_SKIP_BROWSER is set");
            None
        }
        _ => panic!(
            "the browser tests need Chromium and chromedriver: `apt-get install chromium chromium-driver` \
             (or set KNOWER_CHROMIUM / KNOWER_CHROMEDRIVER; KNOWER_SKIP_BROWSER=1 skips these tests)"
        ),
    }
}

struct Browser {
    client: Client,
    driver: Child,
    _profile: tempfile::TempDir,
}

impl Browser {
    async fn start(driver: &Path, chromium: &Path, extra: &[&str]) -> Browser {
        let port = free_port();
        let driver = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < PATIENCE, "chromedriver did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = tempfile::tempdir().unwrap();
        let mut args: Vec<String> = [
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1280,860",
        ]
        .iter()
        .chain(extra)
        .map(|arg| arg.to_string())
        .collect();
        args.push(format!("--user-data-dir={}", profile.path().display()));
        let mut capabilities = serde_json::Map::new();
        capabilities.insert(
            "goog:chromeOptions".into(),
            json!({"binary": chromium, "args": args}),
        );
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("a Chromium session");
        Browser {
            client,
            driver,
            _profile: profile,
        }
    }

    async fn goto(&self, url: &str) {
        self.client.goto(url).await.unwrap();
    }

    /// The value of a JavaScript expression.
    async fn eval(&self, expression: &str) -> Value {
        self.client
            .execute(&format!("return ({expression});"), vec![])
            .await
            .unwrap()
    }

    /// Makes the page's requests for `path` (query aside) answer 1.5 s
    /// late, counting them in `window.__slowed`: a load still on its way
    /// when the user acts.
    async fn slow_down(&self, path: &str) {
        self.eval(&format!(
            "(() => {{ const fetch = window.fetch; window.__slowed = 0; \
             window.fetch = (url, init) => {{ \
               if (new URL(url, location.href).pathname !== {path:?}) return fetch(url, init); \
               window.__slowed += 1; \
               return new Promise((done) => setTimeout(done, 1500)).then(() => fetch(url, init)); }}; \
             return true; }})()"
        ))
        .await;
    }

    /// Waits until `expression` is truthy; on timeout keeps a screenshot
    /// and fails with what the page said.
    async fn until(&self, what: &str, expression: &str) {
        let started = Instant::now();
        loop {
            let value = self.eval(expression).await;
            if !matches!(value, Value::Null | Value::Bool(false))
                && value != json!(0)
                && value != json!("")
            {
                return;
            }
            if started.elapsed() > PATIENCE {
                let name: String = what
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                    .take(80)
                    .collect();
                self.screenshot(&format!("failed-{name}")).await;
                let page = self.eval("document.body.innerText.slice(0, 3000)").await;
                panic!("timed out waiting until {what}; the page shows:\n{page}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Clicks the element `element` (a JavaScript expression) once it is
    /// shown: found and clicked in one script, so that a live re-render
    /// between the two cannot take it away.
    async fn click_shown(&self, element: &str) {
        self.until(
            &format!("{element} can be clicked"),
            &format!(
                "(() => {{ const shown = {element}; shown?.click(); return Boolean(shown); }})()"
            ),
        )
        .await;
    }

    async fn click(&self, css: &str) {
        self.client
            .wait()
            .at_most(PATIENCE)
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no {css}: {e}"))
            .click()
            .await
            .unwrap_or_else(|e| panic!("cannot click {css}: {e}"));
    }

    /// Types into the composer and presses Enter.
    async fn send(&self, text: &str) {
        let input = self.client.find(Locator::Css("#input")).await.unwrap();
        input.send_keys(&format!("{text}{ENTER}")).await.unwrap();
    }

    async fn screenshot(&self, name: &str) {
        let png = self.client.screenshot().await.unwrap();
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
    }

    /// Marks the page, so a later `still_same_page` proves no reload.
    async fn mark_page(&self) {
        self.eval("window.__sameVisit = true").await;
    }

    async fn still_same_page(&self) {
        assert_eq!(
            self.eval("window.__sameVisit === true").await,
            json!(true),
            "the page was reloaded"
        );
    }

    async fn close(mut self) {
        let _ = self.client.close().await;
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Runs one browser scenario (serially, on its own runtime).
fn scenario<F>(body: impl FnOnce(Browser) -> F)
where
    F: std::future::Future<Output = Browser>,
{
    scenario_with(&[], body)
}

/// The same, with more Chromium flags.
fn scenario_with<F>(flags: &[&str], body: impl FnOnce(Browser) -> F)
where
    F: std::future::Future<Output = Browser>,
{
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some((driver, chromium)) = tools() else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let browser = Browser::start(&driver, &chromium, flags).await;
        body(browser).await.close().await;
    });
}

fn css_path(path: &str) -> String {
    format!(r#"[data-path="{path}"]"#)
}

// ---- the seed's three moments ----------------------------------------------

#[test]
fn a_note_sent_appears_in_the_tree_and_opens_rendered() {
    let dir = fixture();
    let vault = dir.path().to_path_buf();
    let server = serve(dir.path(), "127.0.0.1:0", None);
    scenario(|b| async move {
        b.goto(&server.url).await;
        b.until(
            "the tree is shown",
            "document.querySelector('[data-path=\"projects/atlas\"]')",
        )
        .await;
        b.mark_page().await;

        b.send("Remember to renew the Atlas TLS certificate").await;
        b.until(
            "the update is done",
            "document.querySelector('.update-card[data-state=\"done\"]')",
        )
        .await;
        let link = format!("a.tree-row{}", css_path("projects/atlas/tasks.md"));
        b.until(
            "the new file is in the tree",
            &format!("document.querySelector('{link}')"),
        )
        .await;
        b.screenshot("1-note-filed").await;

        b.click(&link).await;
        b.until(
            "the file is rendered",
            "document.querySelector('#file-body[data-path=\"projects/atlas/tasks.md\"]')?.innerText.includes('Renew the Atlas TLS certificate')",
        )
        .await;
        // Rendered, not shown raw: the frontmatter is apart, the text is markup.
        assert_eq!(
            b.eval("document.querySelector('#file-body').classList.contains('markdown') && !document.querySelector('#file-body').innerText.includes('---') && !!document.querySelector('#file-body li, #file-body p')").await,
            json!(true)
        );
        b.screenshot("1-note-opened").await;
        b.still_same_page().await;

        // A file attached to a note is stored in the vault with it.
        let photo = tempfile::tempdir().unwrap();
        let png = photo.path().join("whiteboard.png");
        std::fs::write(&png, PNG_1X1).unwrap();
        b.click(".modes [data-mode=update]").await;
        b.client
            .find(Locator::Css("#files"))
            .await
            .unwrap()
            .send_keys(png.to_str().unwrap())
            .await
            .unwrap();
        b.until(
            "the attachment is listed",
            "document.querySelector('#attachments').innerText.includes('whiteboard.png')",
        )
        .await;
        b.send("Whiteboard photo from the Atlas planning session")
            .await;
        b.until(
            "the note with its photo is filed",
            "[...document.querySelectorAll('.update-card[data-state=\"done\"] a')].some(a => a.innerText.endsWith('.png'))",
        )
        .await;
        assert_eq!(
            b.eval("document.querySelector('#attachments').children.length")
                .await,
            json!(0)
        );
        // The note shows the photo, loaded from the vault.
        b.click_shown("[...document.querySelectorAll('.update-card[data-state=\"done\"] a')].find(a => a.innerText.endsWith('state.md'))").await;
        b.until(
            "the photo is shown in the note",
            "[...document.querySelectorAll('#file-body img')].some(i => i.complete && i.naturalWidth === 1 && i.src.includes('/api/raw?path=projects%2Fatlas%2Fattachments%2Fwhiteboard.png'))",
        )
        .await;

        // The photo itself opens from the tree.
        b.click(&format!(
            "a.tree-row{}",
            css_path("projects/atlas/attachments/whiteboard.png")
        ))
        .await;
        b.until(
            "the photo opens on its own",
            "document.querySelector('#file-image')?.complete && document.querySelector('#file-image').naturalWidth === 1",
        )
        .await;

        // The update history shows it, done.
        b.click(".place[data-view=updates]").await;
        b.until(
            "the update history shows it done",
            "[...document.querySelectorAll('#updates .card[data-state=\"done\"]')].some(c => c.innerText.includes('Atlas TLS'))",
        )
        .await;

        // A note that changed, not only a new one, is shown in the tree:
        // its folder opens and it is highlighted.
        b.click(&format!("button.tree-row{}", css_path("projects/atlas")))
            .await;
        b.until(
            "the folder is closed",
            "!document.querySelector('a.tree-row[data-path=\"projects/atlas/tasks.md\"]')",
        )
        .await;
        b.send("Remember to order Atlas stickers").await;
        b.until(
            "the changed note is shown highlighted",
            "document.querySelector('a.tree-row.fresh[data-path=\"projects/atlas/tasks.md\"]')",
        )
        .await;
        assert!(
            std::fs::read_to_string(vault.join("projects/atlas/tasks.md"))
                .unwrap()
                .contains("stickers")
        );

        // The update is undone from the history, as a whole, and shown undone.
        b.click(".place[data-view=updates]").await;
        let stickers = "[...document.querySelectorAll('#updates .card')].find(c => c.innerText.includes('stickers'))";
        b.until(
            "the stickers update is done",
            &format!("{stickers}?.dataset.state === 'done' && {stickers}.querySelector('.card-actions button')"),
        )
        .await;
        b.click_shown(&format!(
            "({stickers})?.querySelector('.card-actions button')"
        ))
        .await;
        b.until(
            "the update is shown undone",
            &format!("{stickers}?.dataset.state === 'undone' && {stickers}.querySelector('.pill').innerText === 'undone' && !{stickers}.querySelector('.card-actions')"),
        )
        .await;
        let tasks = std::fs::read_to_string(vault.join("projects/atlas/tasks.md")).unwrap();
        assert!(
            !tasks.contains("stickers") && tasks.contains("TLS"),
            "{tasks}"
        );
        assert!(
            !std::fs::read_to_string(vault.join("changelog.md"))
                .unwrap()
                .contains("stickers")
        );
        b.screenshot("1-update-undone").await;
        b
    });
}

#[test]
fn knower_opens_on_what_waits_and_what_changed_with_updates_sent_from_the_command_line() {
    let dir = fixture();
    let vault = dir.path().to_path_buf();
    let server = serve(dir.path(), "127.0.0.1:0", None);
    // Sent from the command line while the server runs: one filed, one
    // that waits in the inbox.
    knower(
        &vault,
        &["update", "Remember to renew the Atlas TLS certificate"],
        "",
    );
    knower(&vault, &["update", "Lunch with Sam was nice"], "");
    scenario(|b| async move {
        b.goto(&server.url).await;
        b.until(
            "it opens on the activity, not on a note",
            "location.hash === '#/activity' && document.querySelector('#home')",
        )
        .await;
        b.until(
            "what waits for an answer is said first",
            "document.querySelector('#home a[href=\"#/inbox\"]')?.innerText.includes('1 item waits')",
        )
        .await;
        b.until(
            "what changed lately links its files",
            "document.querySelector('#recent a[href*=\"projects/atlas/tasks.md\"]')",
        )
        .await;
        b.until(
            "the updates sent from the command line are listed",
            "[...document.querySelectorAll('#activity .update-card')].filter(c => c.innerText.includes('from elsewhere')).length === 2",
        )
        .await;
        let texts = b
            .eval("document.querySelector('#activity').innerText")
            .await;
        let texts = texts.as_str().unwrap();
        assert!(
            texts.contains("Renew the Atlas TLS certificate")
                || texts.contains("renew the Atlas TLS"),
            "{texts}"
        );
        assert!(texts.contains("Lunch with Sam"), "{texts}");
        assert!(!texts.contains("Nothing sent yet"), "{texts}");
        b.screenshot("0-landing").await;
        b
    });
}

#[test]
fn a_question_is_answered_with_sources_that_open_the_file() {
    let dir = fixture();
    knower(
        dir.path(),
        &["update", "Remember to renew the Atlas TLS certificate"],
        "",
    );
    // Something waits in the inbox, for the narrow window's menu to count.
    knower(
        dir.path(),
        &["update", "Atlas or garden: which one first this weekend?"],
        "",
    );
    let server = serve(dir.path(), "127.0.0.1:0", None);
    scenario(|b| async move {
        b.goto(&server.url).await;
        b.until("the tree is shown", "document.querySelector('.tree-row')")
            .await;

        // `/` anywhere but in a text field switches to search.
        b.client
            .perform_actions(
                KeyActions::new("keyboard".into())
                    .then(KeyAction::Down { value: '/' })
                    .then(KeyAction::Up { value: '/' }),
            )
            .await
            .unwrap();
        assert_eq!(
            b.eval(
                "document.activeElement.id + ' ' + document.querySelector('#composer').dataset.mode"
            )
            .await,
            json!("input search")
        );
        b.send("When does the TLS certificate need renewing?").await;
        b.until(
            "the answer and its sources are shown",
            "document.querySelector('.answer-card .source')",
        )
        .await;
        let answer = b
            .eval("document.querySelector('.answer-card .answer').innerText")
            .await;
        assert!(
            answer.as_str().unwrap().contains("TLS"),
            "the answer: {answer}"
        );
        // A heading quoted from a note is a section, not the page's title.
        assert_eq!(
            b.eval("document.querySelectorAll('.answer-card .answer :is(h1, h2, h3)').length > 0 && [...document.querySelectorAll('.answer-card .answer :is(h1, h2, h3)')].every(h => parseFloat(getComputedStyle(h).fontSize) <= 1.1 * parseFloat(getComputedStyle(h.closest('.answer')).fontSize))").await,
            json!(true)
        );
        b.screenshot("2-answer").await;

        b.click(".answer-card .source").await;
        b.until(
            "the cited lines are highlighted in the file",
            "[...document.querySelectorAll('#file-body[data-path=\"projects/atlas/tasks.md\"] .cited')].some(e => e.innerText.includes('TLS'))",
        )
        .await;
        b.screenshot("2-source-opened").await;

        // A narrow window: the tree moves into a drawer behind a menu button.
        b.client.set_window_size(420, 860).await.unwrap();
        b.until(
            "the sidebar is out of sight",
            "document.querySelector('#sidebar').getBoundingClientRect().right <= 0",
        )
        .await;
        // The inbox's count, inside the drawer, shows on the menu button.
        b.until(
            "the menu button shows the inbox count",
            "!document.querySelector('#menu-badge').hidden && document.querySelector('#menu-badge').textContent === '1' && document.querySelector('#menu-badge').getBoundingClientRect().width > 0",
        )
        .await;
        let label = b
            .eval("document.querySelector('#menu').getAttribute('aria-label')")
            .await;
        assert!(label.as_str().unwrap().contains("1 waiting"), "{label}");
        b.click("#menu").await;
        b.until(
            "the drawer shows the tree",
            "document.querySelector('#sidebar').getBoundingClientRect().left >= 0",
        )
        .await;
        b.screenshot("2-narrow-window").await;
        // The scrim beside the drawer closes it (clicked where the drawer is not).
        b.eval("document.querySelector('#scrim').click()").await;

        // A long answer in a small window opens at its question, not its end.
        b.client.set_window_size(420, 480).await.unwrap();
        b.eval("location.hash = '#/activity'").await;
        b.until(
            "the activity is shown",
            "document.querySelector('#activity .answer-card')",
        )
        .await;
        let fits = b.eval("(() => { const v = document.querySelector('#view'), c = document.querySelector('#activity > li:last-child'); return {tall: c.offsetHeight > v.clientHeight, top: c.getBoundingClientRect().top - v.getBoundingClientRect().top}; })()").await;
        assert_eq!(
            fits["tall"],
            json!(true),
            "the answer is long in a narrow window: {fits}"
        );
        let top = fits["top"].as_f64().unwrap();
        assert!(
            (-1.0..=40.0).contains(&top),
            "the question is in sight: {fits}"
        );
        b
    });
}

#[test]
fn an_ambiguous_note_waits_in_the_inbox_and_a_reply_files_it() {
    let dir = fixture();
    let vault = dir.path().to_path_buf();
    let server = serve(&vault, "127.0.0.1:0", None);
    scenario(|b| async move {
        b.goto(&server.url).await;
        b.until("the tree is shown", "document.querySelector('.tree-row')")
            .await;
        assert_eq!(
            b.eval("document.querySelector('#inbox-badge').hidden")
                .await,
            json!(true)
        );

        // Shift+Enter is a new line, not a send.
        let input = b.client.find(Locator::Css("#input")).await.unwrap();
        input
            .send_keys("first line\u{e008}\u{e007}\u{e000}second line")
            .await
            .unwrap();
        assert_eq!(
            b.eval("document.querySelector('#input').value").await,
            json!("first line\nsecond line")
        );
        assert_eq!(
            b.eval("document.querySelectorAll('.update-card').length")
                .await,
            json!(0)
        );
        input.clear().await.unwrap();

        b.send("Atlas or garden: which one first this weekend?")
            .await;
        b.until(
            "the badge counts 1",
            "!document.querySelector('#inbox-badge').hidden && document.querySelector('#inbox-badge').textContent === '1'",
        )
        .await;

        b.click("#nav-inbox").await;
        b.click(".inbox-item").await;
        b.until(
            "the review is shown",
            "document.querySelector('#reply') && document.querySelector('.markdown').innerText.includes('which one first this weekend')",
        )
        .await;
        b.screenshot("3-inbox-item").await;

        b.click("#reply").await;
        assert_eq!(
            b.eval("document.querySelector('#composer').dataset.mode")
                .await,
            json!("answer")
        );
        // An answer Knower cannot use fails plainly; the item stays.
        b.send("no idea").await;
        b.until(
            "the failed reply is explained",
            "!document.querySelector('#banner').hidden && document.querySelector('#banner').innerText.includes('could not be filed')",
        )
        .await;
        let said = b.eval("document.querySelector('#banner').innerText").await;
        assert!(said.as_str().unwrap().contains("option number"), "{said}");
        assert_eq!(
            b.eval("document.querySelector('#inbox-badge').textContent")
                .await,
            json!("1")
        );

        b.click(".inbox-item").await;
        b.click("#reply").await;
        b.send("garden").await;
        b.until(
            "the item is gone from the inbox",
            "document.querySelector('#inbox-empty') && document.querySelector('#inbox-badge').hidden",
        )
        .await;
        b.until(
            "the file it landed in is in the tree",
            &format!(
                "document.querySelector('{}')",
                css_path("projects/garden/state.md")
            ),
        )
        .await;
        b.screenshot("3-inbox-resolved").await;
        // The reply settled the item: no card says it is still in the inbox,
        // and the answered item is named, not linked as a file.
        b.goto(&format!("{}/#/activity", server.url)).await;
        b.until(
            "the reply's card is done",
            "[...document.querySelectorAll('.update-card[data-state=\"done\"]')].some(c => c.innerText.includes('You replied'))",
        )
        .await;
        let reply_card = "[...document.querySelectorAll('.update-card[data-state=\"done\"]')].find(c => c.innerText.includes('You replied'))";
        assert_eq!(
            b.eval(&format!("{reply_card}.innerText.includes('in the inbox') || !!{reply_card}.querySelector('a[href*=\"inbox\"]')")).await,
            json!(false)
        );
        let text = b.eval(&format!("{reply_card}.innerText")).await;
        assert!(text.as_str().unwrap().contains("(answered)"), "{text}");
        b.goto(&format!("{}/#/updates", server.url)).await;
        b.until(
            "the updates are listed",
            "document.querySelector('#updates')",
        )
        .await;
        assert_eq!(
            b.eval("[...document.querySelectorAll('#updates .pill')].filter(p => p.innerText.includes('in the inbox')).length").await,
            json!(1),
            "only the first update, whose outcome was the inbox, says so"
        );
        let landed = std::fs::read_to_string(vault.join("projects/garden/state.md")).unwrap();
        assert!(landed.contains("which one first this weekend?"), "{landed}");
        assert!(
            !vault
                .join("inbox")
                .read_dir()
                .unwrap()
                .any(|e| e.unwrap().path().is_dir())
        );
        b
    });
}

// ---- live, safe, undoable -------------------------------------------------

#[test]
fn an_edit_on_disk_re_renders_scripts_never_run_and_the_journal_undoes() {
    let dir = fixture();
    let vault = dir.path().to_path_buf();
    let hostile = "# Hostile\n\n<script>window.__pwned = 1</script>\n\n<img src=x onerror=\"window.__pwned = 2\">\n\n[click me](javascript:window.__pwned=3)\n\n<a href=\"#\" onclick=\"window.__pwned = 4\">or me</a>\n";
    knower(&vault, &["write", "projects/atlas/hostile.md"], hostile);
    let server = serve(&vault, "127.0.0.1:0", None);
    scenario(|b| async move {
        b.goto(&format!("{}/#/file/projects/atlas/hostile.md", server.url))
            .await;
        b.until(
            "the note is rendered",
            "document.querySelector('#file-body h1')?.innerText === 'Hostile'",
        )
        .await;
        for link in b
            .client
            .find_all(Locator::Css("#file-body a"))
            .await
            .unwrap()
        {
            let _ = link.click().await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(b.eval("window.__pwned === undefined").await, json!(true));
        assert_eq!(
            b.eval("document.querySelectorAll('#file-body script, #file-body [onerror], #file-body [onclick]').length").await,
            json!(0)
        );
        b.mark_page().await;

        // An editor saves the file: the open view follows.
        std::fs::write(
            vault.join("projects/atlas/hostile.md"),
            "# Tamed\n\nEdited on disk.\n",
        )
        .unwrap();
        b.until(
            "the file re-renders",
            "document.querySelector('#file-body')?.innerText.includes('Edited on disk.')",
        )
        .await;
        b.still_same_page().await;

        // The journal lists that edit; undoing it brings the note back.
        b.click(".place[data-view=journal]").await;
        let entry = r#"[...document.querySelectorAll('#journal .journal-entry')].find(e => e.innerText.includes('hostile.md'))"#;
        b.until("the journal lists the edit", entry).await;
        b.screenshot("4-journal").await;
        b.click_shown(&format!("({entry})?.querySelector('button.undo')"))
            .await;
        let restored = Instant::now();
        loop {
            let text = std::fs::read_to_string(vault.join("projects/atlas/hostile.md")).unwrap();
            if text.contains("# Hostile") {
                break;
            }
            assert!(restored.elapsed() < PATIENCE, "not undone: {text}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        b.until(
            "the journal shows the undo",
            "[...document.querySelectorAll('#journal .pill')].some(p => p.innerText.startsWith('undoes'))",
        )
        .await;
        assert_eq!(b.eval("window.__pwned === undefined").await, json!(true));

        // Undoing the note's creation after an editor replaced it whole is
        // refused in the row, and done only when asked again.
        std::fs::write(
            vault.join("projects/atlas/hostile.md"),
            "# Third\n\nMine now.\n",
        )
        .unwrap();
        b.click(".place[data-view=activity]").await;
        b.click(".place[data-view=journal]").await;
        let created = r#"[...document.querySelectorAll('#journal .journal-entry')].find(e => e.innerText.includes('knower write projects/atlas/hostile.md'))"#;
        b.click_shown(&format!("({created})?.querySelector('button.undo')"))
            .await;
        let refused = format!(
            "({created})?.querySelector('.error-text') && ({created})?.querySelector('button.danger')?.innerText === 'Undo anyway'"
        );
        b.until("the refusal is shown with Undo anyway", &refused)
            .await;
        assert!(vault.join("projects/atlas/hostile.md").exists());

        // Another change reloads the journal live: the refusal stays until
        // the user acts on it.
        std::fs::write(vault.join("projects/atlas/later.md"), "# Later\n").unwrap();
        b.until(
            "the journal shows the later change",
            "[...document.querySelectorAll('#journal .journal-entry')].some(e => e.innerText.includes('later.md'))",
        )
        .await;
        assert_eq!(b.eval(&refused).await, json!(true), "the refusal was lost");
        b.click_shown(&format!("({created})?.querySelector('button.danger')"))
            .await;
        let forced = Instant::now();
        while vault.join("projects/atlas/hostile.md").exists() {
            assert!(forced.elapsed() < PATIENCE, "Undo anyway did not undo");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }

        // A list that answers late does not paint over the view the user
        // moved on to.
        b.slow_down("/api/log").await;
        b.click(".place[data-view=knowledge]").await;
        b.click(".place[data-view=journal]").await;
        b.click(".place[data-view=activity]").await;
        b.until(
            "the activity view is shown",
            "document.querySelector('#view .empty, #activity')",
        )
        .await;
        tokio::time::sleep(Duration::from_millis(2500)).await;
        assert_eq!(
            b.eval("[Boolean(document.querySelector('#journal')), document.querySelector('#crumbs').innerText]").await,
            json!([false, "Activity"]),
            "the journal's late answer replaced the activity view"
        );
        b
    });
}

#[test]
fn after_the_server_restarts_the_page_reconnects_and_catches_up() {
    let dir = fixture();
    let vault = dir.path().to_path_buf();
    let addr = format!("127.0.0.1:{}", free_port());
    let first = serve(&vault, &addr, None);
    let url = first.url.clone();
    scenario(|b| async move {
        b.goto(&url).await;
        b.until(
            "the stream is live",
            "document.querySelector('#connection').dataset.state === 'live'",
        )
        .await;
        b.mark_page().await;
        drop(first);
        b.until(
            "the page sees the server gone",
            "document.querySelector('#connection').dataset.state === 'reconnecting'",
        )
        .await;

        // Sending now fails plainly, and the text stays to be sent again.
        b.send("Garden: order more compost").await;
        b.until(
            "the failure is shown",
            "!document.querySelector('#banner').hidden && document.querySelector('#banner').innerText.includes('cannot be reached')",
        )
        .await;
        assert_eq!(
            b.eval("document.querySelector('#input').value").await,
            json!("Garden: order more compost")
        );

        // Written while no server runs: no event was ever sent for it.
        knower(
            &vault,
            &["write", "projects/garden/while-away.md"],
            "# While away\n\nWritten with the server down.\n",
        );
        let _second = serve(&vault, &addr, None);
        b.until(
            "the page is live again and has caught up",
            &format!(
                "document.querySelector('#connection').dataset.state === 'live' && document.querySelector('{}')",
                css_path("projects/garden/while-away.md")
            ),
        )
        .await;
        b.still_same_page().await;

        // The kept text goes through now.
        b.click("#send").await;
        b.until(
            "the kept note is filed",
            "document.querySelector('.update-card[data-state=\"done\"]') && document.querySelector('#input').value === ''",
        )
        .await;
        b
    });
}

#[test]
fn with_a_token_the_page_asks_for_it_once_and_keeps_it_out_of_the_address() {
    let dir = fixture();
    let server = serve(dir.path(), "127.0.0.1:0", Some("tok-3f9a"));
    scenario(|b| async move {
        // Without the token: a plain explanation, not a broken page.
        b.goto(&server.url).await;
        b.until(
            "the page says a token is needed",
            "!document.querySelector('#banner').hidden && document.querySelector('#banner').innerText.includes('token')",
        )
        .await;

        b.goto(&format!("{}/?token=tok-3f9a", server.url)).await;
        b.until(
            "the page works with the token",
            "document.querySelector('.tree-row') && document.querySelector('#connection').dataset.state === 'live'",
        )
        .await;
        assert_eq!(b.eval("location.search").await, json!(""));
        // Kept for the tab: a reload still works.
        b.client.refresh().await.unwrap();
        b.until(
            "the page still works after a reload",
            "document.querySelector('.tree-row') && document.querySelector('#connection').dataset.state === 'live'",
        )
        .await;
        b.send("Remember to renew the Atlas TLS certificate").await;
        b.until(
            "an update goes through with the token",
            "document.querySelector('.update-card[data-state=\"done\"]')",
        )
        .await;
        b
    });
}

#[test]
fn the_dark_theme_follows_the_system() {
    let dir = fixture();
    let server = serve(dir.path(), "127.0.0.1:0", None);
    scenario_with(&["--force-dark-mode"], |b| async move {
        b.goto(&format!(
            "{}/#/file/projects/atlas/description.md",
            server.url
        ))
        .await;
        b.until(
            "the note is shown",
            "document.querySelector('#file-body h1')",
        )
        .await;
        // The page's background is dark and its text light.
        let luminance = "(c => { const [r, g, b] = c.match(/\\d+/g).map(Number); return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255; })";
        let background = b
            .eval(&format!(
                "{luminance}(getComputedStyle(document.body).backgroundColor)"
            ))
            .await;
        let text = b
            .eval(&format!(
                "{luminance}(getComputedStyle(document.querySelector('#file-body')).color)"
            ))
            .await;
        assert!(
            background.as_f64().unwrap() < 0.2,
            "background {background}"
        );
        assert!(text.as_f64().unwrap() > 0.7, "text {text}");
        b.screenshot("5-dark").await;
        b
    });
}

// ---- the harvest's knowledge -------------------------------------------------

#[test]
fn the_knowledge_view_shows_the_digest_the_files_and_the_ledger_and_turns_the_digest_off() {
    let dir = fixture();
    let vault = dir.path().to_path_buf();
    let sources = tempfile::tempdir().unwrap();
    let notes = sources.path().join("standup.md");
    // A hostile line too: harvested text is shown, never run.
    std::fs::write(
        &notes,
        "Ana: We decided to keep weekly rotations <img src=x onerror=\"window.__pwned=1\">.\nBen: Remember to update the runbook before Friday.\nAna: Who owns the on-call rotation for December?\nBen: ok\n",
    )
    .unwrap();
    knower(&vault, &["harvest", "--apply", notes.to_str().unwrap()], "");
    let server = serve(&vault, "127.0.0.1:0", None);
    scenario(|b| async move {
        b.goto(&server.url).await;
        b.click(".place[data-view=knowledge]").await;
        b.until(
            "the digest is shown",
            "document.querySelector('#digest .markdown')?.innerText.includes('Remember to update the runbook')",
        )
        .await;
        assert!(
            b.eval("document.querySelector('#digest-size').innerText")
                .await
                .as_str()
                .unwrap()
                .contains("of 4.0 KB"),
            "the digest's size against its bound"
        );
        b.until(
            "the ledger lists the conversation",
            "document.querySelector('#ledger .ledger-entry[data-status=harvested]')?.innerText.includes('standup')",
        )
        .await;
        b.until(
            "the category files are listed",
            "document.querySelector('#knowledge-files a[href=\"#/file/knowledge/decisions.md\"]')",
        )
        .await;
        assert_eq!(b.eval("window.__pwned === undefined").await, json!(true));
        b.screenshot("8-knowledge").await;

        // Delete to turn off: asked once more, then gone from the vault.
        b.click("#digest-delete").await;
        b.click("#digest-delete-confirm").await;
        b.until(
            "the digest is off",
            "document.querySelector('#digest')?.dataset.state === 'off'",
        )
        .await;
        assert!(!vault.join("knowledge/digest.md").exists());
        assert!(
            vault.join("knowledge/decisions.md").exists(),
            "the category files stay"
        );
        b
    });
}

// ---- the chat ----------------------------------------------------------------

#[test]
fn the_chat_view_streams_a_reply_shows_what_it_concluded_and_corrects_it() {
    let dir = fixture();
    let server = serve(dir.path(), "127.0.0.1:0", None);
    let vault = dir.path().to_path_buf();
    scenario(|b| async move {
        b.goto(&format!("{}/#/chat", server.url)).await;
        b.until("the chat is shown", "document.querySelector('#chat-input')")
            .await;
        assert_eq!(
            b.eval("getComputedStyle(document.querySelector('#composer')).display")
                .await,
            json!("none"),
            "one input at a time"
        );
        let input = b.client.find(Locator::Css("#chat-input")).await.unwrap();
        input
            .send_keys(&format!(
                "Which database should the Atlas geocoding API use?{ENTER}"
            ))
            .await
            .unwrap();
        b.until(
            "the reply is there with the effort it opened",
            "document.querySelector('.chat-exchange .artifact[data-change=created]')",
        )
        .await;
        assert!(
            b.eval("document.querySelector('.chat-reply').innerText")
                .await
                .as_str()
                .unwrap()
                .contains("offline engine")
        );
        b.until(
            "the effort is listed as open",
            "document.querySelectorAll('#chat-efforts .artifact').length === 1",
        )
        .await;
        let input = b.client.find(Locator::Css("#chat-input")).await.unwrap();
        input
            .send_keys(&format!(
                "We decided: the geocoding API stays on Postgres.{ENTER}"
            ))
            .await
            .unwrap();
        b.until(
            "the effort is resolved",
            "document.querySelector('.chat-exchange:last-child .artifact[data-change=resolved]')",
        )
        .await;
        b.until(
            "nothing is open",
            "document.querySelectorAll('#chat-efforts .artifact').length === 0",
        )
        .await;
        b.screenshot("9-chat").await;
        // The user disagrees: reopen it.
        b.click(
            ".chat-exchange:last-child .artifact[data-change=resolved] .artifact-actions button",
        )
        .await;
        b.until(
            "the effort is open again",
            "document.querySelectorAll('#chat-efforts .artifact').length === 1",
        )
        .await;
        let id = b
            .eval("document.querySelector('#chat-efforts .artifact').dataset.id")
            .await;
        let note = std::fs::read_to_string(
            vault.join(format!("chat/artifacts/{}.md", id.as_str().unwrap())),
        )
        .unwrap();
        assert!(note.contains("status: \"open\""), "{note}");
        // A reload shows the conversation again.
        b.goto(&format!("{}/#/chat", server.url)).await;
        b.until(
            "the history is back",
            "document.querySelectorAll('.chat-exchange').length === 2",
        )
        .await;
        // Read back from the log (a real reload, not the page's memory),
        // past exchanges say when they were and what they remembered,
        // nothing undefined.
        b.eval("location.reload()").await;
        b.until(
            "the history is read back",
            "document.querySelectorAll('.chat-exchange').length === 2 \
             && !document.querySelector('.chat-context')",
        )
        .await;
        let shown = b
            .eval("[...document.querySelectorAll('.chat-exchange')].map(e => e.textContent).join('\\n')")
            .await;
        let shown = shown.as_str().unwrap();
        assert!(!shown.contains("undefined"), "{shown}");
        assert!(!shown.contains("[object"), "{shown}");
        assert!(shown.contains("in its context"), "{shown}");
        // On a phone's width and on a desktop's, the message box stays
        // below the conversation: scrolled to its end, the last exchange
        // ends above the box, never under it.
        for (width, height) in [(420, 700), (1280, 720)] {
            b.client.set_window_size(width, height).await.unwrap();
            let apart = b
                .eval(
                    "(() => { const last = [...document.querySelectorAll('.chat-exchange')].pop(); \
                     last.scrollIntoView({block: 'end'}); \
                     const box = document.querySelector('#chat-input').getBoundingClientRect(); \
                     return Math.round(box.top - last.getBoundingClientRect().bottom); })()",
                )
                .await;
            b.screenshot(&format!("9-chat-{width}")).await;
            assert!(
                apart.as_i64().unwrap() >= 0,
                "{width}px: the box covers the exchange by {apart}"
            );
        }
        b
    });
}

// ---- the gardener ---------------------------------------------------------------

/// A vault whose topic has a confirmed fact, a newer page contradicting
/// it, and candidates (one with markup in its text), made by two cycles a
/// week apart against a scripted web.
fn garden_fixture() -> (tempfile::TempDir, knower_testkit::web::ScriptedWeb) {
    use knower_garden::{Garden, NewTopic, Provider, RunOptions, Settings};
    use knower_testkit::web::{Answer, BRAVE_PATH, Listed, ScriptedWeb};
    let dir = fixture();
    let vault = std::sync::Arc::new(knower_vault::Vault::open(dir.path()).unwrap());
    let web = ScriptedWeb::start();
    let page =
        |title: &str, text: &str| Answer::html(&knower_testkit::web::article(title, &[text]));
    web.page(
        "/a",
        page(
            "Tokio 1.40",
            "Tokio 1.40 was released in September 2024 with runtime metrics.",
        ),
    );
    web.page(
        "/b",
        page(
            "Tokio 1.40 again",
            "Tokio 1.40 was released in August 2023 with runtime metrics.",
        ),
    );
    web.page(
        "/c",
        page(
            "Tokio console",
            "The Tokio console shows &lt;img src=x onerror=\"window.__pwned=1\"&gt; async task states from a running runtime.",
        ),
    );
    let listed = |path: &str| Listed {
        title: format!("Tokio {path}"),
        url: path.into(),
        snippet: "Tokio".into(),
        ..Listed::default()
    };
    web.results("tokio release", vec![listed("/a")]);
    web.results("tokio versions", vec![listed("/b"), listed("/c")]);
    let garden_at = |at: &str| {
        let settings = Settings {
            timeout_secs: 3,
            ..Settings::default()
        };
        let brave = Provider::Brave {
            url: web.url(BRAVE_PATH),
            key: "test-key".into(),
        };
        Garden::with(vault.clone(), None, None, settings, Ok(brave)).at(at.parse().unwrap())
    };
    let monday = garden_at("2026-11-23T08:00:00Z");
    monday
        .add_topic(NewTopic {
            name: "Tokio runtime".into(),
            priority: Some(4),
            queries: vec!["tokio release".into()],
            ..NewTopic::default()
        })
        .unwrap();
    monday.run(RunOptions::default(), &mut |_| {}).unwrap();
    let first = monday.review().unwrap().items[0].fact.id.clone();
    monday.approve(&[first]).unwrap();
    knower_garden::store::change_topic(
        &vault,
        "tokio-runtime",
        &knower_vault::Author::new("person", "another query"),
        |t| {
            t.queries = vec!["tokio versions".into()];
            Ok(())
        },
    )
    .unwrap();
    garden_at("2026-11-30T08:00:00Z")
        .run(RunOptions::default(), &mut |_| {})
        .unwrap();
    (dir, web)
}

#[test]
fn the_garden_view_shows_a_contradiction_side_by_side_and_decides() {
    let (dir, _web) = garden_fixture();
    let vault = dir.path().to_path_buf();
    let server = serve(&vault, "127.0.0.1:0", None);
    scenario(|b| async move {
        b.goto(&server.url).await;
        b.click(".place[data-view=garden]").await;
        b.until(
            "the contradiction shows both facts with their sources",
            "document.querySelectorAll('.garden-item.contradiction .garden-fact').length === 2 \
             && [...document.querySelectorAll('.garden-item.contradiction .garden-source a[target=_blank]')] \
                .every((a) => a.href.startsWith('http://127.0.0.1'))",
        )
        .await;
        let sides = b
            .eval("[...document.querySelectorAll('.garden-item.contradiction .statement')].map((p) => p.innerText)")
            .await;
        let sides = sides.as_array().unwrap();
        assert!(
            sides
                .iter()
                .any(|s| s.as_str().unwrap().contains("August 2023"))
                && sides
                    .iter()
                    .any(|s| s.as_str().unwrap().contains("September 2024")),
            "{sides:?}"
        );
        b.until(
            "the topic is listed with its facts",
            "document.querySelector('.garden-topic[data-slug=tokio-runtime]')?.innerText.includes('1 confirmed')",
        )
        .await;
        // Text from the web is shown as text, never run.
        b.until(
            "a candidate with markup in its text",
            "[...document.querySelectorAll('.garden-item .statement')].some((p) => p.innerText.includes('onerror'))",
        )
        .await;
        assert_eq!(b.eval("window.__pwned === undefined").await, json!(true));
        assert_eq!(
            b.eval("document.querySelectorAll('.garden-item img').length")
                .await,
            json!(0)
        );
        b.screenshot("10-garden").await;

        // Approving the newer fact replaces the one it contradicts, and
        // the button says which.
        let label = b
            .eval("document.querySelector('.garden-item.contradiction [data-action=approve]').innerText")
            .await;
        assert!(
            label
                .as_str()
                .is_some_and(|l| l.starts_with("Approve (replaces “Tokio 1.40 was released in")),
            "{label}"
        );
        b.click(".garden-item.contradiction [data-action=approve]")
            .await;
        b.until(
            "the contradiction is decided",
            "!document.querySelector('.garden-item.contradiction') \
             && document.querySelector('.garden-topic[data-slug=tokio-runtime]')?.innerText.includes('1 archived')",
        )
        .await;

        // Rejecting asks why, and keeps it. A reload that was already on
        // its way (a file of the garden changed, its answer slowed down
        // here) and answers while the reason is typed must not wipe it.
        b.slow_down("/api/garden").await;
        std::fs::write(vault.join("garden/README.md"), "Notes about my topics.\n").unwrap();
        b.until("a reload is on its way", "window.__slowed > 0")
            .await;
        b.click(".garden-item [data-action=reject]").await;
        let reason = b
            .client
            .find(Locator::Css(".garden-item input.reason"))
            .await
            .unwrap();
        reason.send_keys("a vendor's advert").await.unwrap();
        tokio::time::sleep(Duration::from_millis(2500)).await;
        assert_eq!(
            b.eval("document.querySelector('.garden-item input.reason')?.value ?? null")
                .await,
            json!("a vendor's advert"),
            "the reason being typed survived the reload"
        );
        b.click(".garden-item [data-action=reject-confirm]").await;
        b.until(
            "the rejection is applied",
            "document.querySelector('.garden-topic[data-slug=tokio-runtime]')?.innerText.includes('2 archived')",
        )
        .await;
        let rejections =
            std::fs::read_to_string(vault.join("garden/inbox/rejections.json")).unwrap();
        assert!(rejections.contains("a vendor's advert"), "{rejections}");

        // A new topic from the form. Focused first, in the page: from then
        // on no reload replaces the form under the keys being sent.
        b.eval("document.querySelector('#garden-add input[name=name]').focus() ?? true")
            .await;
        let name = b
            .client
            .find(Locator::Css("#garden-add input[name=name]"))
            .await
            .unwrap();
        name.send_keys("WebAssembly").await.unwrap();
        b.click("#garden-add button[type=submit]").await;
        b.until(
            "the new topic is listed",
            "document.querySelector('.garden-topic[data-slug=webassembly]')",
        )
        .await;
        assert!(vault.join("garden/topics/webassembly.md").exists());
        b
    });
}

// ---- sync through git --------------------------------------------------------

#[test]
fn the_header_shows_the_sync_and_a_click_brings_another_machines_note_into_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        support::git(dir.path(), args);
    };
    git(&[
        "init",
        "--quiet",
        "--bare",
        "--initial-branch=main",
        "remote.git",
    ]);
    let remote = dir.path().join("remote.git");
    let (here, there) = (dir.path().join("here"), dir.path().join("there"));
    knower(&here, &["init"], "");
    knower(
        &here,
        &["write", "knower.toml"],
        &format!("[sync]\nremote = \"{}\"\n", remote.display()),
    );
    knower(&here, &["sync"], "");
    git(&["clone", "--quiet", remote.to_str().unwrap(), "there"]);
    knower(&there, &["init"], "");
    knower(
        &there,
        &["write", "notes/from-the-desktop.md"],
        "# Written on the desktop\n",
    );
    knower(&there, &["sync"], "");
    let server = serve(&here, "127.0.0.1:0", None);
    scenario(|b| async move {
        b.goto(&format!("{}/#/activity", server.url)).await;
        b.until(
            "the header shows the last sync",
            "(() => { const s = document.querySelector('#sync'); return s && !s.hidden && s.textContent.includes('synced'); })()",
        )
        .await;
        b.screenshot("sync-1-header").await;
        b.click("#sync").await;
        // The other machine's note arrives and is lit up in the tree.
        b.until(
            "the note from the other machine is in the tree, lit up",
            &format!(
                "document.querySelector('.fresh{}')",
                css_path("notes/from-the-desktop.md")
            ),
        )
        .await;
        b.until(
            "the header says it synced just now",
            "document.querySelector('#sync').textContent.includes('just now')",
        )
        .await;
        b.screenshot("sync-2-received").await;
        b
    });
}
