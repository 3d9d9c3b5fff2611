//! Records at scale and at rest: invoices summed by the database for a busy advertiser,
//! paged list routes, secrets sealed to their row under a versioned key (and re-sealed
//! after a master-key rotation), provider orders that fail without locking their key, and
//! report dates at the edge of the calendar.

use app::domain::Keys;
use reqwest::StatusCode;
use sea_orm::{ConnectionTrait, EntityTrait};
use serde_json::json;
use tests::{TestApp, both_backends};

use tests::builders::callbacks::configure;
use tests::builders::publisher;

both_backends!(
    invoices_sum_a_busy_advertisers_ledger_in_the_database,
    publisher_lists_are_paged_newest_first,
    stored_secrets_are_bound_to_their_row_and_reseal_after_rotation,
    a_failed_provider_order_frees_its_idempotency_key,
    report_dates_at_the_calendar_edge_are_refused_not_a_500,
);

const USD: i64 = 1_000_000;

/// More spend transactions than either database accepts as bind parameters in one `IN`.
const BUSY: i64 = 70_000;

async fn invoices_sum_a_busy_advertisers_ledger_in_the_database(app: TestApp) {
    let (user, t) = app.funded_advertiser(100 * USD).await;
    let db = &app.state.ctx.db;
    let at = tests::start_time().to_rfc3339();
    let exec = |sql: String| async move {
        db.execute_unprepared(&sql).await.expect("bulk insert");
    };
    exec(format!(
        "INSERT INTO ledger_accounts (id, owner_account_id, kind, reference_id, balance_micros, created_at) \
         VALUES ('lac_bulk', '{adv}', 'SPENT', 'cmp_bulk', {BUSY}, '{at}')",
        adv = user.account_id
    ))
    .await;
    exec(format!(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {BUSY}) \
         INSERT INTO ledger_transactions (id, kind, owner_account_id, reference_type, reference_id, dedupe_key, memo, created_at) \
         SELECT 'ltx_bulk_' || i, 'campaign_spend', '{adv}', 'offer_campaign', 'cmp_bulk', 'bulk:' || i, NULL, '{at}' FROM n",
        adv = user.account_id
    ))
    .await;
    exec(format!(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {BUSY}) \
         INSERT INTO ledger_entries (id, transaction_id, ledger_account_id, amount_micros, created_at) \
         SELECT 'len_bulk_' || i, 'ltx_bulk_' || i, 'lac_bulk', 1, '{at}' FROM n"
    ))
    .await;
    let (s, inv) = app
        .get("/performance-marketing/v2/billing/invoices", Some(&t))
        .await;
    assert_eq!(s, StatusCode::OK, "{inv}");
    let month = &inv["items"][0];
    assert_eq!(month["fundedMicros"], 100 * USD, "{month}");
    assert_eq!(month["spentMicros"], BUSY, "{month}");
    let lines = month["lines"].as_array().expect("lines");
    assert_eq!(
        lines.len(),
        2,
        "one funding line and one campaign line: {month}"
    );
    assert_eq!(lines[1]["reference"], "cmp_bulk");
}

async fn publisher_lists_are_paged_newest_first(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let mut created = Vec::new();
    for category in ["GAMES", "FINANCE", "SHOPPING", "TRAVEL", "HEALTH"] {
        let (s, b) = app
            .post(
                "/publisher/v2/blacklists",
                Some(&p.token),
                &json!({"kind": "CATEGORY", "value": category}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        created.push(b["blacklistId"].as_str().expect("id").to_owned());
    }
    created.reverse();
    let mut seen = Vec::new();
    let mut path = "/publisher/v2/blacklists?limit=2".to_owned();
    let mut pages = 0;
    loop {
        let (s, page) = app.get(&path, Some(&p.token)).await;
        assert_eq!(s, StatusCode::OK, "{page}");
        pages += 1;
        let items = page["items"].as_array().expect("items");
        assert!(items.len() <= 2);
        seen.extend(
            items
                .iter()
                .map(|i| i["blacklistId"].as_str().unwrap_or_default().to_owned()),
        );
        match page["nextCursor"].as_str() {
            Some(c) => path = format!("/publisher/v2/blacklists?limit=2&cursor={c}"),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(seen, created, "every entry once, newest first");
    for bad in ["limit=0", "limit=501", "cursor=nonsense", "cursor=ban_0190"] {
        let (s, e) = app
            .get(&format!("/publisher/v2/blacklists?{bad}"), Some(&p.token))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {e}");
    }
    for path in [
        "/publisher/v2/user-bans?limit=1",
        "/publisher/v2/support-cases?limit=1",
    ] {
        let (s, page) = app.get(path, Some(&p.token)).await;
        assert_eq!(s, StatusCode::OK, "{path}: {page}");
        assert!(page["nextCursor"].is_null(), "{page}");
    }
}

async fn stored_secrets_are_bound_to_their_row_and_reseal_after_rotation(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    configure(&app, &p, "https://rewards.pixelquest.example/cb").await;
    let keys = entity::callback_key::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("keys");
    let key = keys.first().expect("a callback key");
    let ctx = &app.state.ctx;
    assert!(
        key.secret_ciphertext
            .starts_with(&format!("v2:{}:", ctx.keys.key_version()))
    );
    let binding = format!("callback_keys:{}", key.id);
    let secret = ctx
        .keys
        .open(&binding, &key.secret_ciphertext)
        .expect("opens for its own row");
    assert!(
        ctx.keys
            .open("callback_keys:cbk_other", &key.secret_ciphertext)
            .is_err()
    );

    // Rotation: a new master key with the old one kept as previous re-seals every secret,
    // after which the old key is no longer needed.
    let old_master = [0x5au8; 32];
    let new_master = [0xa5u8; 32];
    let old = Keys::from_master(&old_master);
    use sea_orm::{ActiveModelTrait, IntoActiveModel, Set};
    let mut a = key.clone().into_active_model();
    a.secret_ciphertext = Set(old.seal(&binding, &secret).expect("seal"));
    a.update(&ctx.db).await.expect("store under the old key");
    // A payout profile's payment details, sealed under the old key too.
    let (s, prof) = app
        .put(
            "/publisher/v2/payouts/profile",
            Some(&p.token),
            &json!({"legalName": "Pixel Quest", "country": "DE", "method": "PAYMENT_SERVICE", "details": "pay@pixelquest.example"}),
        )
        .await;
    assert_eq!(s, reqwest::StatusCode::OK, "{prof}");
    let profile = entity::payout_profile::Entity::find_by_id(p.user.account_id.clone())
        .one(&ctx.db)
        .await
        .expect("read")
        .expect("profile");
    let profile_binding = app::domain::payouts::profile::seal_binding(&profile.account_id);
    let mut a = profile.clone().into_active_model();
    a.details_sealed = Set(old
        .seal(&profile_binding, "pay@pixelquest.example")
        .expect("seal"));
    a.update(&ctx.db).await.expect("store under the old key");
    // The placement's signed-identity secret and the one it rotated out, both old too.
    let identity = app::domain::publisher::user_identity::seal_binding(&p.placement);
    let sealed = |text: &str| Set(Some(old.seal(&identity, text).expect("seal")));
    entity::placement_user_identity::ActiveModel {
        placement_id: Set(p.placement.clone()),
        secret_sealed: sealed("identity-now"),
        required: Set(false),
        issued_at: Set(None),
        updated_at: Set(app.clock_now()),
        previous_secret_sealed: sealed("identity-before"),
        previous_issued_at: Set(None),
        previous_until: Set(None),
    }
    .insert(&ctx.db)
    .await
    .expect("identity secrets under the old key");
    // A letter of the mail outbox (its text may carry a reset link), sealed under the old key.
    let letter = app::domain::mail::outbox::enqueue(
        ctx,
        &ctx.db,
        app.clock_now(),
        None,
        "ops@pixelquest.example",
        app::domain::mail::letters::password_changed("https://m.example"),
    )
    .await
    .expect("letter");
    let letter_binding = app::domain::mail::outbox::seal_binding(&letter);
    entity::mail_outbox::ActiveModel {
        id: Set(letter.clone()),
        body_sealed: Set(old.seal(&letter_binding, "Hello").expect("seal")),
        ..Default::default()
    }
    .update(&ctx.db)
    .await
    .expect("letter under the old key");
    // A second factor's secret and an enrolment's, sealed under the old key.
    let factor = app::domain::accounts::second_factor::seal_binding(&p.user.account_id);
    entity::second_factor::ActiveModel {
        account_id: Set(p.user.account_id.clone()),
        secret_sealed: Set(Some(old.seal(&factor, "JBSWY3DPEHPK3PXP").expect("seal"))),
        pending_sealed: Set(Some(old.seal(&factor, "KRSXG5CTMVRXEZLU").expect("seal"))),
        enabled_at: Set(Some(app.clock_now())),
        last_step: Set(None),
        updated_at: Set(app.clock_now()),
    }
    .insert(&ctx.db)
    .await
    .expect("second factor under the old key");
    // The letters the set-up wrote (the placement's review was told) are under the running
    // key, which the rotation below does not know: only the one above stays.
    use sea_orm::{ColumnTrait, QueryFilter};
    entity::mail_outbox::Entity::delete_many()
        .filter(entity::mail_outbox::Column::Id.ne(letter.clone()))
        .exec(&ctx.db)
        .await
        .expect("other letters");
    // An account webhook's signing secret, under the old key.
    let (s, hook) = app
        .post(
            "/auth/v1/webhooks",
            Some(&p.token),
            &json!({"url": "https://hooks.pixelquest.example/market"}),
        )
        .await;
    assert_eq!(s, reqwest::StatusCode::CREATED, "{hook}");
    let hook_id = hook["webhook"]["webhookId"]
        .as_str()
        .expect("id")
        .to_owned();
    let hook_binding = app::domain::callback_delivery::account_webhooks::seal_binding(&hook_id);
    entity::account_webhook::ActiveModel {
        id: Set(hook_id.clone()),
        secret_sealed: Set(old.seal(&hook_binding, "mkt_whk_old").expect("seal")),
        ..Default::default()
    }
    .update(&ctx.db)
    .await
    .expect("webhook under the old key");
    let mut rotated = ctx.clone();
    rotated.keys = std::sync::Arc::new(Keys::with_previous(&new_master, &[old_master]));
    let done = app::domain::reseal::reseal_all(&rotated)
        .await
        .expect("reseal");
    assert_eq!(done.callback_keys, 1);
    assert_eq!(done.payment_details, 1);
    assert_eq!(done.mail_letters, 1);
    assert_eq!(done.second_factors, 2, "the secret and the enrolment's");
    assert_eq!(done.webhook_secrets, 1);
    assert_eq!(
        done.user_identity_secrets, 2,
        "the secret and the rotated-out one"
    );
    let again = app::domain::reseal::reseal_all(&rotated)
        .await
        .expect("reseal");
    assert_eq!(again.callback_keys, 0, "nothing left under the old key");
    assert_eq!(again.payment_details, 0);
    assert_eq!(again.mail_letters, 0);
    assert_eq!(again.second_factors, 0);
    assert_eq!(again.webhook_secrets, 0);
    assert_eq!(again.user_identity_secrets, 0);
    let stored = entity::callback_key::Entity::find_by_id(key.id.clone())
        .one(&ctx.db)
        .await
        .expect("read")
        .expect("row");
    let only_new = Keys::from_master(&new_master);
    assert_eq!(
        only_new.open(&binding, &stored.secret_ciphertext).ok(),
        Some(secret)
    );
    let ident = entity::placement_user_identity::Entity::find_by_id(p.placement.clone())
        .one(&ctx.db)
        .await
        .expect("read")
        .expect("identity");
    let open = |v: Option<String>| only_new.open(&identity, &v.expect("sealed")).ok();
    assert_eq!(open(ident.secret_sealed).as_deref(), Some("identity-now"));
    assert_eq!(
        open(ident.previous_secret_sealed).as_deref(),
        Some("identity-before")
    );
    let f = entity::second_factor::Entity::find_by_id(p.user.account_id.clone())
        .one(&ctx.db)
        .await
        .expect("read")
        .expect("factor");
    let open = |v: Option<String>| only_new.open(&factor, &v.expect("sealed")).ok();
    assert_eq!(open(f.secret_sealed).as_deref(), Some("JBSWY3DPEHPK3PXP"));
    assert_eq!(open(f.pending_sealed).as_deref(), Some("KRSXG5CTMVRXEZLU"));
}

async fn a_failed_provider_order_frees_its_idempotency_key(app: TestApp) {
    // With no payment provider (production, or a development server reachable from other
    // machines) the order is refused, and the key stays free instead of answering "still
    // being created" forever; a working provider then takes the same key.
    let (user, _) = app.funded_advertiser(0).await;
    let principal = app::domain::Principal::organisation(
        user.account_id.clone(),
        user.email.clone(),
        app::model::Role::Advertiser,
        app::model::AccountStatus::Active,
    );
    let request = || {
        serde_json::from_value::<app::model::billing::PayOrderRequest>(
            json!({"amount": 150 * USD, "currency": "USD", "idempotencyKey": "order:fail:0001"}),
        )
        .expect("request")
    };
    let mut without = app.state.ctx.clone();
    without.payments = std::sync::Arc::new(app::domain::billing::payprovider::NoProvider);
    for _ in 0..2 {
        let e = app::domain::billing::funding::open_order(&without, &principal, request())
            .await
            .expect_err("no provider");
        assert_eq!(e.code, "payment_provider_unavailable");
    }
    let rows = entity::funding::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("fundings");
    assert!(
        rows.iter()
            .all(|f| f.idempotency_key.as_deref() != Some("order:fail:0001")),
        "no placeholder keeps the key"
    );
    let order = app::domain::billing::funding::open_order(&app.state.ctx, &principal, request())
        .await
        .expect("the development provider takes the same key");
    assert!(!order.order_id.is_empty());
}

async fn report_dates_at_the_calendar_edge_are_refused_not_a_500(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (_, adv) = app.funded_advertiser(0).await;
    let id = tests::builders::create(
        &app,
        &adv,
        &tests::builders::campaign_body("CUSTOM_S2S", 100 * USD),
    )
    .await;
    for q in [
        "to=+262142-12-31",
        "to=-262143-01-01",
        "from=-262143-01-01&to=2026-03-01",
        "from=0001-01-01&to=0001-01-02",
        "to=9999-12-31",
    ] {
        let (s, e) = app
            .get(
                &format!("/performance-marketing/v2/campaigns/{id}/report?{q}"),
                Some(&adv),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "campaign report {q}: {e}");
        let (s, e) = app
            .get(&format!("/publisher/v2/reports/offers?{q}"), Some(&p.token))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "offers report {q}: {e}");
    }
    let (s, r) = app
        .get(
            &format!(
                "/performance-marketing/v2/campaigns/{id}/report?from=1970-01-01&to=1970-01-31"
            ),
            Some(&adv),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{r}");
}
