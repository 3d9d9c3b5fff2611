//! What `/openapi.json` promises integrators (issue 35, part 1): the error codes of each
//! error answer (`x-error-codes`), statuses and kinds as enums, and the paging parameters
//! with their maximum. scripts/check-openapi.py checks the whole document in CI; these pin
//! the rules that decide the lists on a few operations whose answers the tests know.

use reqwest::StatusCode;
use serde_json::Value;
use tests::{TestApp, both_backends};

both_backends!(the_document_lists_error_codes_enums_and_paging);

fn codes(doc: &Value, path: &str, method: &str, status: &str) -> Vec<String> {
    doc["paths"][path][method]["responses"][status]["x-error-codes"]
        .as_array()
        .unwrap_or_else(|| panic!("{method} {path} {status} lists no codes"))
        .iter()
        .filter_map(|c| c.as_str().map(str::to_owned))
        .collect()
}

fn param<'a>(doc: &'a Value, path: &str, name: &str) -> &'a Value {
    doc["paths"][path]["get"]["parameters"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == name))
        .unwrap_or_else(|| panic!("GET {path} has no {name}"))
}

async fn the_document_lists_error_codes_enums_and_paging(app: TestApp) {
    let (s, doc) = app.get("/openapi.json", None).await;
    assert_eq!(s, StatusCode::OK);

    // The static feed's key is refused with its own code, not the generic one.
    let feed = "/publisher/v2/ad-slots/{adSlotId}/static-offers";
    let c = codes(&doc, feed, "get", "401");
    assert!(c.contains(&"invalid_static_key".to_owned()), "{c:?}");
    assert!(!c.contains(&"unauthorized".to_owned()), "{c:?}");
    // A dashboard operation: no token is 401, a database outage 503, a bad page 400.
    let pending = "/admin/v1/advertisers/pending";
    assert_eq!(codes(&doc, pending, "get", "401"), vec!["unauthorized"]);
    assert_eq!(
        codes(&doc, pending, "get", "503"),
        vec!["service_unavailable"]
    );
    assert_eq!(codes(&doc, pending, "get", "400"), vec!["invalid_input"]);
    // Codes its description names and codes the tests received.
    let transition = "/performance-marketing/v2/campaigns/{campaignId}/transition";
    let c = codes(&doc, transition, "post", "409");
    assert!(c.contains(&"invalid_transition".to_owned()), "{c:?}");
    let c = codes(&doc, transition, "post", "400");
    assert_eq!(c, vec!["invalid_input", "malformed_json"], "a JSON body");

    // Statuses as enums, in answers and in queries.
    let status = &doc["components"]["schemas"]["Funding"]["properties"]["status"];
    let name = status["$ref"].as_str().expect("a named enum");
    let target = name.rsplit('/').next().expect("name");
    assert!(
        doc["components"]["schemas"][target]["enum"]
            .as_array()
            .is_some_and(|v| v.len() >= 4)
    );
    let queue = param(&doc, "/admin/v1/placements", "status");
    let values = queue["schema"]["oneOf"][0]["enum"]
        .as_array()
        .or_else(|| queue["schema"]["enum"].as_array())
        .unwrap_or_else(|| panic!("status is not an enum: {queue}"));
    assert!(values.iter().any(|v| v == "PENDING_REVIEW"), "{queue}");

    // Paging: cursor, and limit with its maximum.
    for path in [
        "/publisher/v2/offer-gallery",
        pending,
        "/performance-marketing/v2/campaigns",
    ] {
        assert!(param(&doc, path, "cursor")["schema"].is_object());
        assert_eq!(
            param(&doc, path, "limit")["schema"]["maximum"],
            500,
            "{path}"
        );
    }
}
