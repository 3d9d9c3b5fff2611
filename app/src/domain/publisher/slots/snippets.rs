//! Integration snippets for a slot (web SDK, REST for Android and iOS). Only text that
//! names the placement and slot, never a credential; kept apart because it is long and
//! changes with the public API, not with slot rules.

use crate::domain::publisher::owned_slot;
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::publisher::*;

/// Credential-free integration snippets: the web SDK for web pages; for Android and iOS,
/// which have no native SDK yet, the REST integration (server-side session, offer list,
/// impression, launch) in the platform's own language.
pub async fn snippets(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
    slot_id: &str,
) -> Result<Snippets, AppError> {
    let (p, s) = owned_slot(&ctx.db, actor, placement_id, slot_id).await?;
    let base = &ctx.config.base_url;
    let (pid, sid) = (&p.id, &s.id);
    let (version, identity) = (&p.minimum_sdk_version, &p.platform_identity);
    Ok(Snippets {
        placement_id: pid.clone(),
        ad_slot_id: sid.clone(),
        android: format!(
            "// There is no native Android SDK yet: integrate over REST ({base}/docs, tag \"sdk\").\n\
// 1. YOUR SERVER creates a session for the signed-in user (no credential ships in the app):\n\
//    POST {base}/sdk/v2/sessions  Content-Type: application/json\n\
//    {{\"placementId\": \"{pid}\", \"adSlotId\": \"{sid}\", \"externalUserId\": \"<your user id>\",\n\
//     \"platform\": \"android\", \"sdkVersion\": \"{version}\", \"packageBundleOrDomain\": \"{identity}\",\n\
//     \"environment\": \"production\", \"consent\": \"GRANTED\"}}\n\
//    -> {{\"token\", \"hostedOfferwallUrl\", \"expiresAt\"}} (15 minutes); hand the app token and URL.\n\
// 2. Simplest: open hostedOfferwallUrl in a Custom Tab or WebView. Or build a native list:\n\
fun offers(token: String): String {{\n\
    val c = java.net.URL(\"{base}/sdk/v2/ad-slots/{sid}/offers\").openConnection() as java.net.HttpURLConnection\n\
    c.setRequestProperty(\"Authorization\", \"Bearer $token\")\n\
    return c.inputStream.bufferedReader().use {{ it.readText() }} // {{\"items\": [offer, ...]}}\n\
}}\n\
// 3. When the user taps an offer (show its requirements first), with the same bearer token:\n\
//    POST {base}/sdk/v2/offers/{{offerId}}/impressions  Idempotency-Key: <uuid>  {{}} -> {{\"impressionId\"}}\n\
//    POST {base}/sdk/v2/offers/{{offerId}}/launch  Idempotency-Key: <uuid>  {{\"impressionId\"}} -> {{\"launchUrl\"}}\n\
//    and open launchUrl in the browser (it expires after five minutes)."
        ),
        ios: format!(
            "// There is no native iOS SDK yet: integrate over REST ({base}/docs, tag \"sdk\").\n\
// 1. YOUR SERVER creates a session for the signed-in user (no credential ships in the app):\n\
//    POST {base}/sdk/v2/sessions  Content-Type: application/json\n\
//    {{\"placementId\": \"{pid}\", \"adSlotId\": \"{sid}\", \"externalUserId\": \"<your user id>\",\n\
//     \"platform\": \"ios\", \"sdkVersion\": \"{version}\", \"packageBundleOrDomain\": \"{identity}\",\n\
//     \"environment\": \"production\", \"consent\": \"GRANTED\"}}\n\
//    -> {{\"token\", \"hostedOfferwallUrl\", \"expiresAt\"}} (15 minutes); hand the app token and URL.\n\
// 2. Simplest: open hostedOfferwallUrl in SFSafariViewController. Or build a native list:\n\
func offers(token: String) async throws -> Data {{\n\
    var req = URLRequest(url: URL(string: \"{base}/sdk/v2/ad-slots/{sid}/offers\")!)\n\
    req.setValue(\"Bearer \\(token)\", forHTTPHeaderField: \"Authorization\")\n\
    return try await URLSession.shared.data(for: req).0 // {{\"items\": [offer, ...]}}\n\
}}\n\
// 3. When the user taps an offer (show its requirements first), with the same bearer token:\n\
//    POST {base}/sdk/v2/offers/{{offerId}}/impressions  Idempotency-Key: <uuid>  {{}} -> {{\"impressionId\"}}\n\
//    POST {base}/sdk/v2/offers/{{offerId}}/launch  Idempotency-Key: <uuid>  {{\"impressionId\"}} -> {{\"launchUrl\"}}\n\
//    and open launchUrl with UIApplication.shared.open (it expires after five minutes)."
        ),
        web: format!(
            "<!-- Your backend creates the session for the signed-in user (POST {base}/sdk/v2/sessions,\n     platform \"web\", packageBundleOrDomain = your hostname) and gives this page its\n     hostedOfferwallUrl. Keep that URL out of logs: it carries the session token. -->\n<div id=\"offerwall\" style=\"height:640px\"></div>\n<script type=\"module\">\n  import {{ MarketplaceOffers }} from \"{base}/sdk/v2/offers.js\";\n  const session = await (await fetch(\"/your-backend/offerwall-session\")).json();\n  const wall = MarketplaceOffers.fromSession(session); // placement {pid}, slot {sid}\n  wall.on(\"reward-status\", (s) => console.log(\"earned\", s.earnedMinorUnits));\n  wall.on(\"close\", () => wall.close());\n  wall.mount(document.getElementById(\"offerwall\")); // or wall.open() for an overlay\n</script>"
        ),
        contains_credential: false,
    })
}
