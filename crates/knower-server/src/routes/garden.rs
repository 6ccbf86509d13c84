//! The gardener over HTTP: `GET /api/garden` (topics, what waits for
//! review, the figures, the digest's path), `POST /api/garden/topics` (add
//! one), `POST /api/garden/approve` and `/reject` (by fact id or review
//! number), `POST /api/garden/run` (a cycle now, or its plan with
//! `dry_run`; progress goes out on `/sse` as it happens).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use knower_garden::{InboxReport, Listing, NewTopic, Review, RunOptions, Stats, Topic};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::app::App;
use crate::error::ApiError;

#[derive(Serialize)]
pub struct Overview {
    #[serde(flatten)]
    listing: Listing,
    review: Review,
    stats: Stats,
    /// `garden/outbox/digest.md`, when a cycle has written it.
    digest: Option<String>,
}

pub async fn overview(State(app): State<Arc<App>>) -> Result<Json<Overview>, ApiError> {
    let service = app.service.clone();
    let overview = knower_service::blocking(move || {
        // The review first: it applies decisions written in the inbox
        // files, so the topics and figures below include them.
        let review = service.garden_review()?;
        let digest = knower_garden::store::DIGEST;
        Ok(Overview {
            listing: service.garden_topics()?,
            review,
            stats: service.garden_stats()?,
            digest: service.read(digest).is_ok().then(|| digest.to_string()),
        })
    })
    .await?;
    Ok(Json(overview))
}

pub async fn add_topic(
    State(app): State<Arc<App>>,
    body: Result<Json<NewTopic>, JsonRejection>,
) -> Result<Json<Topic>, ApiError> {
    let Json(topic) = json_body(body)?;
    let service = app.service.clone();
    Ok(Json(
        knower_service::blocking(move || service.garden_add_topic(topic)).await?,
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Decision {
    /// Fact ids (`g` and 8 hex digits) or numbers of the last review.
    refs: Vec<String>,
    #[serde(default)]
    reason: Option<String>,
}

pub async fn approve(
    State(app): State<Arc<App>>,
    body: Result<Json<Decision>, JsonRejection>,
) -> Result<Json<InboxReport>, ApiError> {
    let Json(decision) = json_body(body)?;
    let refs = some_refs(decision.refs)?;
    let service = app.service.clone();
    decided(knower_service::blocking(move || service.garden_approve(&refs)).await?)
}

pub async fn reject(
    State(app): State<Arc<App>>,
    body: Result<Json<Decision>, JsonRejection>,
) -> Result<Json<InboxReport>, ApiError> {
    let Json(decision) = json_body(body)?;
    let refs = some_refs(decision.refs)?;
    let reason = decision.reason.unwrap_or_default();
    let service = app.service.clone();
    decided(knower_service::blocking(move || service.garden_reject(&refs, &reason)).await?)
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    /// Tend this topic only.
    #[serde(default)]
    topic: Option<String>,
    /// Only say what a cycle would search and fetch.
    #[serde(default)]
    dry_run: bool,
}

/// Runs a cycle and answers with its report when it ends (a client that
/// leaves does not stop it; `/sse` carries its progress).
pub async fn run(
    State(app): State<Arc<App>>,
    body: Result<Json<RunRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = json_body(body)?;
    let options = RunOptions {
        topic: request.topic.filter(|t| !t.trim().is_empty()),
        scheduled: false,
    };
    if request.dry_run {
        let service = app.service.clone();
        let plan = knower_service::blocking(move || service.garden_plan(&options)).await?;
        return Ok(Json(json!({"dry_run": true, "plan": plan})));
    }
    let service = app.service.clone();
    let cycle = tokio::spawn(async move { service.garden_run(options, |_| {}).await })
        .await
        .map_err(|e| ApiError::internal(e.to_string()))??;
    Ok(Json(json!({"dry_run": false, "cycle": cycle})))
}

fn json_body<T>(body: Result<Json<T>, JsonRejection>) -> Result<Json<T>, ApiError> {
    body.map_err(ApiError::from)
}

fn some_refs(refs: Vec<String>) -> Result<Vec<String>, ApiError> {
    if refs.is_empty() {
        return Err(ApiError::bad_request(
            "refs is empty: give the ids of the facts to decide",
        ));
    }
    Ok(refs)
}

/// A decision some of whose facts could not be decided is the client's
/// mistake (an unknown id, a fact no longer waiting): 422 with the first
/// reason, after the others have been applied.
fn decided(report: InboxReport) -> Result<Json<InboxReport>, ApiError> {
    match report.refused.first() {
        Some(first) if report.approved.is_empty() && report.rejected.is_empty() => {
            Err(ApiError::new(
                axum::http::StatusCode::UNPROCESSABLE_ENTITY,
                "refused",
                first.clone(),
            ))
        }
        _ => Ok(Json(report)),
    }
}
