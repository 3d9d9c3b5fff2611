//! The answers of the postback routes, written once per route family for the OpenAPI
//! document (`responses(TokenAnswers)` and friends). Every family answers 200 with the
//! receipt and shares the IP allowlist, the transaction conflict and the rate limit; the
//! families differ in what a 400, a 401 and a 404 mean.

use std::collections::BTreeMap;

use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::{ContentBuilder, Ref, RefOr};

/// The direct and managed token routes (GET and POST).
pub(super) struct TokenAnswers;
/// The measurement partners' route (GET and POST).
pub(super) struct MmpAnswers;
/// The Custom S2S route (GET and POST).
pub(super) struct CustomS2sAnswers;

const BODY_REFUSALS: &str = "; with a body, `unsupported_media_type` or `malformed_json`";

impl utoipa::IntoResponses for TokenAnswers {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        answers(
            &format!(
                "`invalid_input`: a field is missing or malformed (`fieldErrors`){BODY_REFUSALS}"
            ),
            "`unauthorized`: no token; `invalid_token`: not an active token of the route's kind (direct or managed)",
            "`not_found`: the campaign is still DRAFT, or delivery is switched off",
        )
    }
}

impl utoipa::IntoResponses for MmpAnswers {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        answers(
            &format!(
                "`invalid_input`: a field is missing or malformed after the partner mapping (`fieldErrors`){BODY_REFUSALS}"
            ),
            "`unauthorized`: no token; `invalid_token`: not the campaign's active token",
            "`not_found`: unknown or DRAFT campaign, another provider, the feature or delivery switched off",
        )
    }
}

impl utoipa::IntoResponses for CustomS2sAnswers {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        answers(
            "`invalid_input`: a field is missing or malformed (`fieldErrors`)",
            "`unauthorized` (signing headers missing), `invalid_signature` or `stale_timestamp`",
            "`not_found`: unknown, DRAFT or not a Custom S2S campaign, or delivery switched off",
        )
    }
}

fn answers(
    invalid: &str,
    unauthorized: &str,
    not_found: &str,
) -> BTreeMap<String, RefOr<Response>> {
    [
        (
            "200",
            "CallbackReceipt",
            "In the processing inbox (`duplicate: true` for an exact retry, same `receiptId`)",
        ),
        ("400", "ErrorBody", invalid),
        ("401", "ErrorBody", unauthorized),
        (
            "403",
            "ErrorBody",
            "`ip_not_allowed`: the source is outside the campaign's IP allowlist",
        ),
        ("404", "ErrorBody", not_found),
        (
            "409",
            "ErrorBody",
            "`transaction_conflict`: the transaction_id was reported with another click or goal",
        ),
        (
            "429",
            "ErrorBody",
            "`rate_limited`: more than 120 callbacks a minute from this address",
        ),
    ]
    .into_iter()
    .map(|(status, schema, description)| {
        let content = ContentBuilder::new()
            .schema(Some(Ref::from_schema_name(schema)))
            .build();
        let answer = ResponseBuilder::new()
            .description(description)
            .content("application/json", content)
            .build();
        (status.to_owned(), RefOr::T(answer))
    })
    .collect()
}
