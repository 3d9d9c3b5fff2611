//! Conversion callbacks from advertisers and their partners (`/performance-marketing/v2`):
//! Custom S2S, the manual measurement-partner route, the direct and managed token routes,
//! and the development sandbox. All of them are behind the delivery feature switch and
//! share one limit: 120 requests per minute per source address.

mod answers;
pub(crate) mod custom_s2s;
mod mmp;
mod sandbox;
mod tokens;

use app::domain::conversions::provider_params::pairs_from_json;
use app::domain::conversions::token_postbacks::TokenCallback;
use app::error::AppError;
use app::model::postbacks::{TOKEN_HEADER, partner_table_markdown};
use axum::extract::{FromRequest, Request};
use http::Method;
use utoipa_axum::router::OpenApiRouter;

use crate::extract::{parse_json, read_body};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    let mut r = OpenApiRouter::new()
        .merge(mmp::router())
        .merge(tokens::router())
        .merge(sandbox::router());
    document_partner_table(&mut r);
    r
}

/// Appends the partner parameter table (generated from the one table in code) to the
/// descriptions of the measurement-partner and sandbox operations.
fn document_partner_table(r: &mut OpenApiRouter<AppState>) {
    let table = partner_table_markdown();
    for (path, item) in r.get_openapi_mut().paths.paths.iter_mut() {
        if !(path.starts_with("/postbacks/mmp/") || path.starts_with("/sandbox/")) {
            continue;
        }
        for op in [item.get.as_mut(), item.post.as_mut()]
            .into_iter()
            .flatten()
        {
            let d = op.description.get_or_insert_with(String::new);
            d.push_str("\n\nMeasurement-partner parameter names (the canonical name is always accepted and wins; otherwise the first partner name present, in this order). The event kind stands in for `status`: the words listed map to `approved` or `rejected`; `pending`, `approved`, `rejected` and `reversed` are always accepted. Unix seconds, Unix milliseconds and `YYYY-MM-DD HH:MM:SS[.fff]` (UTC) in `occurred_at` are normalised to RFC 3339.\n\n");
            d.push_str(&table);
        }
    }
}

/// The token and parameters of a token-authenticated callback: the query string, plus for
/// POST a JSON object or form body (`application/json` or
/// `application/x-www-form-urlencoded`; an empty body adds nothing; a body value wins over
/// the same name in the query). The token comes from
/// the `X-Service-Token` header, else the `token` parameter.
pub(crate) struct CallbackInput(pub TokenCallback);

impl FromRequest<AppState> for CallbackInput {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, AppError> {
        let header_token = req
            .headers()
            .get(TOKEN_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let query: Vec<(String, String)> =
            url::form_urlencoded::parse(req.uri().query().unwrap_or_default().as_bytes())
                .into_owned()
                .collect();
        // Body parameters come first, so a body value wins over the same name in the query.
        let mut params: Vec<(String, String)> = Vec::new();
        if req.method() == Method::POST {
            let media = req
                .headers()
                .get(http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.split(';').next())
                .map(|m| m.trim().to_ascii_lowercase())
                .unwrap_or_default();
            let bytes = read_body(req, state).await?;
            if !bytes.iter().all(u8::is_ascii_whitespace) {
                if media == "application/json"
                    || (media.starts_with("application/") && media.ends_with("+json"))
                {
                    match parse_json::<serde_json::Value>(&bytes)? {
                        serde_json::Value::Object(obj) => params.extend(pairs_from_json(&obj)),
                        _ => return Err(AppError::field("body", "must be a JSON object")),
                    }
                } else if media == "application/x-www-form-urlencoded" {
                    params.extend(url::form_urlencoded::parse(&bytes).into_owned());
                } else {
                    return Err(AppError::invalid(
                        "Content-Type must be application/json or application/x-www-form-urlencoded",
                    )
                    .with_code("unsupported_media_type"));
                }
            }
        }
        params.extend(query);
        Ok(CallbackInput(TokenCallback {
            header_token,
            params,
        }))
    }
}
