#!/usr/bin/env python3
"""Issues the integration credentials of the demo data for the API fuzzer (scripts/fuzz-api.sh).

    fuzz_setup.py URL OUT.json ADMIN_TOKEN PUBLISHER_TOKEN ADVERTISER_TOKEN [SESSIONS]

With the dashboard tokens of the demo accounts, through the public API only:
- a pool of SDK sessions (POST /sdk/v2/sessions) on the demo web placement's offerwall slot;
- a survey API key and secret (SHA256) of the demo advertiser, and one of a second advertiser
  registered and approved here: the survey API allows 600 calls a minute per key and an
  advertiser has one active key, so two keys halve the time the paced survey API run takes;
- a static feed key of the placement's STATIC_API slot;
- the placement's app key for survey fetch;
- a Custom S2S signing key of the advertiser's live Custom S2S campaign (created, or rotated
  when the campaign already has one), and eight real clicks on it (an impression and a launch
  each), so postbacks reach settlement and the ledger.
Writes them to OUT.json for scripts/fuzz_hooks.py (the file holds secrets: it lives in the
run's temp dir and goes with it). Prints a one-line description; exits non-zero when
something could not be issued, so the fuzzer never runs with half its credentials.
"""

import datetime
import json
import secrets
import sys
import urllib.error
import urllib.request

DEMO_DOMAIN = "play.pixelquest.example"


def main():
    url, out, admin, publisher, advertiser = sys.argv[1:6]
    sessions = int(sys.argv[6]) if len(sys.argv) > 6 else 16

    def call(method, path, token=None, body=None, headers=None, ok=(200, 201)):
        h = dict(headers or {})
        if token:
            h["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
        req = urllib.request.Request(url + path, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read()
        if status not in ok:
            raise SystemExit(f"fuzz_setup: {method} {path} answered {status}: {raw[:300]!r}")
        return status, (json.loads(raw) if raw else None)

    # The demo's verified, released web placement and its two slots.
    _, placements = call("GET", "/publisher/v2/placements", publisher)
    placement = next((p for p in placements["items"] if p.get("platformIdentity") == DEMO_DOMAIN
                      and p.get("released")), None)
    if placement is None:
        raise SystemExit(f"fuzz_setup: no released placement for {DEMO_DOMAIN} in the demo data")
    pid = placement["placementId"]
    _, slots = call("GET", f"/publisher/v2/placements/{pid}/ad-slots", publisher)
    by_type = {}
    for s in slots["items"]:
        by_type.setdefault(s["type"], s["adSlotId"])
    if "OFFERWALL" not in by_type or "STATIC_API" not in by_type:
        raise SystemExit(f"fuzz_setup: the demo placement lacks an OFFERWALL or STATIC_API slot: {sorted(by_type)}")

    # SDK sessions, each created from its own documentation address (session creation is
    # limited per placement and source address).
    pool = []
    for i in range(sessions):
        _, s = call("POST", "/sdk/v2/sessions", body={
            "placementId": pid, "adSlotId": by_type["OFFERWALL"], "externalUserId": f"fuzz-user-{i}",
            "platform": "web", "sdkVersion": "2.1.0", "packageBundleOrDomain": DEMO_DOMAIN,
            "environment": "production", "consent": "GRANTED",
        }, headers={"X-Forwarded-For": f"203.0.113.{200 + i % 50}"})
        pool.append({"sessionId": s["sessionId"], "token": s["token"]})

    expires = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=30))
    _, static = call("POST", f"/publisher/v2/placements/{pid}/ad-slots/{by_type['STATIC_API']}/static-key",
                     publisher, {"expiresAt": expires.strftime("%Y-%m-%dT%H:%M:%SZ"), "reason": "API fuzzing"})
    _, app = call("POST", f"/publisher/v2/placements/{pid}/app-key", publisher)
    survey_keys = []
    second = f"fuzz-advertiser-{secrets.token_hex(4)}@demo.test"
    password = secrets.token_urlsafe(18)
    _, account = call("POST", "/auth/v1/accounts", body={
        "email": second, "password": password, "role": "ADVERTISER", "companyName": "Fuzz Second Advertiser"})
    call("POST", f"/admin/v1/advertisers/{account['accountId']}/approve", admin)
    _, signed_in = call("POST", "/auth/v1/tokens", body={"email": second, "password": password})
    for token in (advertiser, signed_in["token"]):
        _, key = call("POST", "/performance-marketing/v2/survey-api/credentials", token, {"encryptionType": "SHA256"})
        survey_keys.append({"apiKey": key["apiKey"], "secret": key["secret"]})

    _, campaigns = call("GET", "/performance-marketing/v2/campaigns", advertiser)
    s2s_campaign = next((c["campaignId"] for c in campaigns["items"]
                         if c.get("trackingProvider") == "CUSTOM_S2S" and c.get("status") == "LIVE"), None)
    if s2s_campaign is None:
        raise SystemExit("fuzz_setup: the demo advertiser has no live Custom S2S campaign")
    base = f"/performance-marketing/v2/campaigns/{s2s_campaign}/tracking/custom-s2s"
    status, s2s = call("POST", f"{base}/credentials", advertiser, ok=(201, 409))
    if status == 409:
        _, s2s = call("POST", f"{base}/rotate", advertiser)

    # Real clicks on the Custom S2S campaign (an impression and a launch by SDK sessions of
    # the pool), so the fuzzer's postbacks also reach settlement, the ledger and the reward
    # callbacks' outbox, not only the inbox's refusals.
    clicks = []
    for i, session in enumerate(pool[:8]):
        auth = {"Authorization": f"Bearer {session['token']}"}
        _, imp = call("POST", f"/sdk/v2/offers/{s2s_campaign}/impressions", body={},
                      headers={**auth, "Idempotency-Key": f"fuzz-imp-{i}-{secrets.token_hex(4)}"})
        _, launch = call("POST", f"/sdk/v2/offers/{s2s_campaign}/launch", body={"impressionId": imp["impressionId"]},
                         headers={**auth, "Idempotency-Key": f"fuzz-launch-{i}-{secrets.token_hex(4)}"})
        clicks.append(launch["clickId"])

    creds = {
        "clickIds": clicks,
        "placementId": pid,
        "offerwallSlotId": by_type["OFFERWALL"],
        "staticSlotId": by_type["STATIC_API"],
        "sessions": pool,
        "staticKey": static["token"],
        "appKey": app["appKey"],
        "surveyKeys": survey_keys,
        "s2sCampaignId": s2s_campaign,
        "s2sKeyId": s2s["keyId"],
        "s2sSecret": s2s["secret"],
        "sdkSessionTemplate": {
            "placementId": pid, "adSlotId": by_type["OFFERWALL"], "platform": "web", "sdkVersion": "2.1.0",
            "packageBundleOrDomain": DEMO_DOMAIN, "environment": "production", "consent": "GRANTED",
        },
    }
    with open(out, "w") as f:
        json.dump(creds, f, indent=1)
    print(f"placement {pid}, {len(pool)} SDK sessions, static key, app key, {len(survey_keys)} survey API keys, "
          f"Custom S2S key and {len(clicks)} clicks of {s2s_campaign}")


if __name__ == "__main__":
    main()
