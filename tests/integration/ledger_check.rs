//! The whole-ledger check (`ledger::reconcile`) is what the money tests lean on, so it must
//! see each kind of damage it names: a cached balance that drifted from its entries, a
//! transaction whose entries do not cancel out, an account below zero that may not be, and
//! pending earnings that differ from the conversions in the hold (issue 52, item 8). Each
//! damage is made by hand on a healthy ledger, found, then undone.

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use tests::builders::reconciliation::paid_world;
use tests::{TestApp, both_backends};

use app::domain::billing::ledger::{self, Kind, Reconciliation};
use entity::{conversion, ledger_account, ledger_entry};

both_backends!(the_ledger_check_sees_every_kind_of_damage);

async fn check(db: &sea_orm::DatabaseConnection) -> Reconciliation {
    ledger::reconcile(db).await.expect("reconcile")
}

/// Adds `delta` to an account's cached balance.
async fn shift_balance(db: &sea_orm::DatabaseConnection, id: &str, delta: i64) {
    ledger_account::Entity::update_many()
        .col_expr(
            ledger_account::Column::BalanceMicros,
            Expr::col(ledger_account::Column::BalanceMicros).add(delta),
        )
        .filter(ledger_account::Column::Id.eq(id.to_owned()))
        .exec(db)
        .await
        .expect("balance");
}

/// Adds `delta` to one entry's amount.
async fn shift_entry(db: &sea_orm::DatabaseConnection, id: &str, delta: i64) {
    ledger_entry::Entity::update_many()
        .col_expr(
            ledger_entry::Column::AmountMicros,
            Expr::col(ledger_entry::Column::AmountMicros).add(delta),
        )
        .filter(ledger_entry::Column::Id.eq(id.to_owned()))
        .exec(db)
        .await
        .expect("entry");
}

async fn the_ledger_check_sees_every_kind_of_damage(app: TestApp) {
    let w = paid_world(app, 3).await;
    let db = &w.app.state.ctx.db;
    assert_eq!(
        check(db).await,
        Reconciliation::default(),
        "healthy to begin with"
    );
    let available = ledger_account::Entity::find()
        .filter(ledger_account::Column::Kind.eq(Kind::Available.as_str()))
        .filter(ledger_account::Column::BalanceMicros.gt(0))
        .one(db)
        .await
        .expect("q")
        .expect("an advertiser's wallet");

    // A cached balance that drifted from its entries.
    shift_balance(db, &available.id, 1).await;
    let r = check(db).await;
    assert_eq!(r.drifted_accounts, vec![available.id.clone()], "{r:?}");
    assert_eq!(r.total_micros, 1, "{r:?}");
    shift_balance(db, &available.id, -1).await;

    // An entry changed with its balance: no drift, but its transaction no longer balances.
    let entry = ledger_entry::Entity::find()
        .filter(ledger_entry::Column::LedgerAccountId.eq(available.id.clone()))
        .one(db)
        .await
        .expect("q")
        .expect("an entry");
    shift_entry(db, &entry.id, 5).await;
    shift_balance(db, &available.id, 5).await;
    let r = check(db).await;
    assert!(r.drifted_accounts.is_empty(), "{r:?}");
    assert_eq!(
        r.unbalanced_transactions,
        vec![entry.transaction_id.clone()],
        "{r:?}"
    );
    assert_eq!(r.total_micros, 5, "{r:?}");
    shift_entry(db, &entry.id, -5).await;
    shift_balance(db, &available.id, -5).await;

    // A wallet spent to exactly zero is healthy: only below zero is damage (a `<= 0` in the
    // check survived the mutation run until this case).
    let all = available.balance_micros;
    shift_entry(db, &entry.id, -all).await;
    shift_balance(db, &available.id, -all).await;
    let r = check(db).await;
    assert!(
        r.negative_accounts.is_empty(),
        "zero is not negative: {r:?}"
    );
    shift_entry(db, &entry.id, all).await;
    shift_balance(db, &available.id, all).await;

    // A wallet below zero (with an entry that says so, so nothing else is wrong with it).
    let whole = available.balance_micros + 1;
    shift_entry(db, &entry.id, -whole).await;
    shift_balance(db, &available.id, -whole).await;
    let r = check(db).await;
    assert_eq!(r.negative_accounts, vec![available.id.clone()], "{r:?}");
    shift_entry(db, &entry.id, whole).await;
    shift_balance(db, &available.id, whole).await;

    // Spend that its mirror no longer cancels: the campaign's SPENT moved (with an entry, so
    // the account did not drift) while SPEND_CLEARING did not.
    let spent = ledger_account::Entity::find()
        .filter(ledger_account::Column::Kind.eq(Kind::Spent.as_str()))
        .filter(ledger_account::Column::ReferenceId.eq(w.campaign.clone()))
        .one(db)
        .await
        .expect("q")
        .expect("the campaign's spend");
    let spent_entry = ledger_entry::Entity::find()
        .filter(ledger_entry::Column::LedgerAccountId.eq(spent.id.clone()))
        .one(db)
        .await
        .expect("q")
        .expect("a spend entry");
    shift_entry(db, &spent_entry.id, 3).await;
    shift_balance(db, &spent.id, 3).await;
    let r = check(db).await;
    assert_eq!(r.mirror_mismatches, vec![w.campaign.clone()], "{r:?}");
    assert!(r.drifted_accounts.is_empty(), "{r:?}");
    shift_entry(db, &spent_entry.id, -3).await;
    shift_balance(db, &spent.id, -3).await;

    // Pending earnings that differ from the conversions in the hold.
    let c = conversion::Entity::find()
        .filter(conversion::Column::CampaignId.eq(w.campaign.clone()))
        .filter(conversion::Column::EarningsState.eq("PENDING"))
        .one(db)
        .await
        .expect("q")
        .expect("a conversion in the hold");
    conversion::Entity::update_many()
        .col_expr(
            conversion::Column::PublisherEarningsMicros,
            Expr::value(c.publisher_earnings_micros + 7),
        )
        .filter(conversion::Column::Id.eq(c.id.clone()))
        .exec(db)
        .await
        .expect("earnings");
    let r = check(db).await;
    assert_eq!(r.pending_mismatches.len(), 1, "{r:?}");
    conversion::Entity::update_many()
        .col_expr(
            conversion::Column::PublisherEarningsMicros,
            Expr::value(c.publisher_earnings_micros),
        )
        .filter(conversion::Column::Id.eq(c.id.clone()))
        .exec(db)
        .await
        .expect("earnings");
    assert_eq!(check(db).await, Reconciliation::default(), "healthy again");
}
