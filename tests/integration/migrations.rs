//! The schema's history runs both ways: every step's `down` undoes its `up` (down to an
//! empty database), and the steps apply again to the same schema. The steps are written
//! with `migration/src/kit.rs`; this is what proves a step's `down` still matches its `up`.

use migration::{Migrator, MigratorTrait};
use sea_orm::{ConnectionTrait, Database, DatabaseConnection, Statement};
use tests::{Backend, each_backend, empty_database};

each_backend!(every_step_goes_down_and_up_again);

async fn every_step_goes_down_and_up_again(backend: Backend) {
    let empty = empty_database(backend).await;
    let db = Database::connect(&empty.url).await.expect("connect");
    Migrator::up(&db, None).await.expect("every step up");
    let schema = tables(&db, backend).await;
    assert!(schema.len() > 40, "{schema:?}");

    Migrator::down(&db, None).await.expect("every step down");
    let left = tables(&db, backend).await;
    assert_eq!(
        left,
        ["seaql_migrations"],
        "down leaves only the history table"
    );

    Migrator::up(&db, None).await.expect("every step up again");
    assert_eq!(tables(&db, backend).await, schema);
    let _ = db.close().await;
}

/// The tables and their columns, as `table(column, …)`, sorted.
async fn tables(db: &DatabaseConnection, backend: Backend) -> Vec<String> {
    let sql = match backend {
        Backend::Sqlite => {
            "SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p \
             WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, p.cid"
        }
        Backend::Postgres => {
            "SELECT table_name::text, column_name::text FROM information_schema.columns \
             WHERE table_schema = 'public' ORDER BY table_name, ordinal_position"
        }
    };
    let rows = db
        .query_all_raw(Statement::from_string(db.get_database_backend(), sql))
        .await
        .expect("schema");
    let mut tables: Vec<(String, Vec<String>)> = Vec::new();
    for row in rows {
        let table: String = row.try_get_by_index(0).expect("table");
        let column: String = row.try_get_by_index(1).expect("column");
        match tables.last_mut() {
            Some((t, columns)) if *t == table => columns.push(column),
            _ => tables.push((table, vec![column])),
        }
    }
    let mut out: Vec<String> = tables
        .into_iter()
        .map(|(t, c)| {
            if t == "seaql_migrations" {
                t
            } else {
                format!("{t}({})", c.join(", "))
            }
        })
        .collect();
    out.sort();
    out
}
