//! An advertiser's wallet as tests need it: the billing routes and an advertiser whose
//! billing profile is complete, ready to fund.

use app::model::Role;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::TestApp;

pub const PROFILE: &str = "/performance-marketing/v2/billing/profile";
pub const WIRE: &str = "/performance-marketing/v2/billing/funding/wire";
pub const BALANCE: &str = "/performance-marketing/v2/billing/balance";
pub const ORDER: &str = "/performance-marketing/v2/billing/funding/payprovider/order";

/// A signed-in advertiser whose billing profile is complete: (account id, bearer token).
pub async fn funded_ready(app: &TestApp) -> (String, String) {
    let (user, t) = app.signed_in(Role::Advertiser).await;
    let (s, p) = app.put(PROFILE, Some(&t), &json!({"accountType": "BUSINESS", "legalName": "Northwind Apps GmbH", "country": "de", "billingEmails": ["ap@northwind.example"]})).await;
    assert_eq!(s, StatusCode::OK, "{p}");
    (user.account_id, t)
}

/// The checkout action path (`approve` or `decline`) of an order, from its signed link.
pub fn signed_action(order: &Value, action: &str) -> String {
    let url = order["approveUrl"].as_str().unwrap_or_default();
    let path = &url[url.find("/dev/").unwrap_or(0)..];
    path.replacen("?sig=", &format!("/{action}?sig="), 1)
}
