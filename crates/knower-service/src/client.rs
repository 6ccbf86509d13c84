//! [`Client`]: a running server of the vault, as other `knower` processes
//! reach it (the CLI, `knower mcp`), speaking the routes of
//! `knower-server` with the types of [`crate::api`].

use std::time::Duration;

use knower_agents::Payload;
use reqwest::{RequestBuilder, StatusCode};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::api::{Accepted, ErrorBody, State, Update, UpdateRequest};
use crate::error::{Error, Kind, Result};
use crate::run::RunInfo;

/// How often [`Client::wait`] asks after an update.
const POLL: Duration = Duration::from_millis(100);

pub struct Client {
    info: RunInfo,
    base: String,
    http: reqwest::Client,
}

/// `KNOWER_TOKEN`, which a server off loopback requires.
pub fn token() -> Option<String> {
    std::env::var("KNOWER_TOKEN").ok().filter(|t| !t.is_empty())
}

impl Client {
    pub fn new(info: RunInfo) -> Client {
        let mut address = info.address;
        if address.ip().is_unspecified() {
            address.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        knower_llm::install_tls_provider();
        Client {
            base: format!("http://{address}"),
            info,
            http: reqwest::Client::builder()
                .connect_timeout(Duration::from_secs(5))
                .build()
                .expect("an HTTP client without TLS always builds"),
        }
    }

    /// The server running on the vault at `root`, if any.
    pub fn find(root: &std::path::Path) -> Option<Client> {
        crate::run::running(root).map(Client::new)
    }

    pub fn url(&self) -> &str {
        &self.info.url
    }

    pub fn info(&self) -> &RunInfo {
        &self.info
    }

    async fn send<T: DeserializeOwned>(&self, request: RequestBuilder) -> Result<T> {
        let request = match token() {
            Some(token) => request.bearer_auth(token),
            None => request,
        };
        let response = request.send().await.map_err(|e| Error::Remote {
            message: format!("the server at {} does not answer: {e}", self.info.url),
            hint: Some("`knower stop` and `knower start` restart it".into()),
            kind: Kind::Unavailable,
        })?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(|e| Error::Remote {
            message: format!("the server's answer was cut off: {e}"),
            hint: None,
            kind: Kind::Upstream,
        })?;
        if !status.is_success() {
            let detail = serde_json::from_slice::<ErrorBody>(&bytes)
                .map(|body| body.detail)
                .unwrap_or_else(|_| format!("the server answered {status}"));
            return Err(Error::Remote {
                message: detail,
                hint: None,
                kind: kind_of(status),
            });
        }
        serde_json::from_slice(&bytes).map_err(|e| Error::Remote {
            message: format!("the server's answer is unreadable: {e}"),
            hint: None,
            kind: Kind::Upstream,
        })
    }

    /// `GET /health`.
    pub async fn health(&self) -> Result<Value> {
        self.send(
            self.http
                .get(format!("{}/health", self.base))
                .timeout(Duration::from_secs(5)),
        )
        .await
    }

    /// Queues an update (`POST /update`) and returns its id.
    pub async fn submit(&self, payload: Payload) -> Result<String> {
        let url = format!("{}/update", self.base);
        let request = if payload.attachments.is_empty() {
            self.http.post(url).json(&UpdateRequest {
                text: payload.text,
                inbox_ref: payload.inbox_ref,
            })
        } else {
            let mut form = reqwest::multipart::Form::new().text("text", payload.text);
            if let Some(reference) = payload.inbox_ref {
                form = form.text("inbox_ref", reference);
            }
            for attachment in payload.attachments {
                let part =
                    reqwest::multipart::Part::bytes(attachment.bytes).file_name(attachment.name);
                form = form.part("file", part);
            }
            self.http.post(url).multipart(form)
        };
        let accepted: Accepted = self.send(request).await?;
        Ok(accepted.id)
    }

    /// `GET /updates/{id}`.
    pub async fn update(&self, id: &str) -> Result<Update> {
        self.send(self.http.get(format!("{}/updates/{id}", self.base)))
            .await
    }

    /// Waits until update `id` is done or failed.
    pub async fn wait(&self, id: &str) -> Result<Update> {
        loop {
            let update = self.update(id).await?;
            if matches!(update.state, State::Done | State::Failed) {
                return Ok(update);
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// `GET /updates?limit=`.
    pub async fn recent(&self, limit: usize) -> Result<Vec<Update>> {
        self.send(
            self.http
                .get(format!("{}/updates?limit={limit}", self.base)),
        )
        .await
    }

    /// `POST /updates/{id}/retry`.
    pub async fn retry(&self, id: &str) -> Result<()> {
        let _: Accepted = self
            .send(self.http.post(format!("{}/updates/{id}/retry", self.base)))
            .await?;
        Ok(())
    }
}

fn kind_of(status: StatusCode) -> Kind {
    match status.as_u16() {
        404 => Kind::NotFound,
        409 => Kind::Conflict,
        503 => Kind::Unavailable,
        400..=499 => Kind::Invalid,
        502 => Kind::Upstream,
        _ => Kind::Internal,
    }
}
