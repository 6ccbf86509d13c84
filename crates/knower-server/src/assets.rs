//! The web UI: plain HTML, CSS and JavaScript modules compiled into the
//! binary, so Knower needs no front-end build step and no files installed
//! beside it. The page is its own app; the server only hands out files.

pub struct Asset {
    pub name: &'static str,
    pub content_type: &'static str,
    pub body: &'static str,
}

macro_rules! asset {
    ($name:literal, $type:expr) => {
        Asset {
            name: $name,
            content_type: $type,
            body: include_str!(concat!("../assets/", $name)),
        }
    };
}

const JS: &str = "text/javascript; charset=utf-8";

pub const INDEX: &str = include_str!("../assets/index.html");

const ASSETS: &[Asset] = &[
    asset!("app.css", "text/css; charset=utf-8"),
    asset!("app.js", JS),
    asset!("api.js", JS),
    asset!("dom.js", JS),
    asset!("tree.js", JS),
    asset!("views.js", JS),
    asset!("knowledge.js", JS),
    asset!("chat.js", JS),
    asset!("garden.js", JS),
    asset!("composer.js", JS),
    asset!("icon.svg", "image/svg+xml"),
];

/// The asset named `name` (a file name, no folders).
pub fn find(name: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|asset| asset.name == name)
}

/// What the page may do: only this server's own scripts, styles, images and
/// connections. Rendered notes cannot run script or load anything from
/// elsewhere (no tracking pixels in a fetched page), and the page cannot be
/// framed.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; manifest-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";
