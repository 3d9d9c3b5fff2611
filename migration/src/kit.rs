//! What every migration step is written with: the step's declaration, table and column
//! names, foreign keys, indexes and dropping tables. A step is two free functions, `up` and
//! `down`, and one `migration!` line that names the step and hands them to sea-orm.
pub use sea_orm_migration::prelude::*;

/// Declares this file's step: `migration!("m0042_name")`, or with `no_transaction` for a
/// step that builds or drops an index `CONCURRENTLY` (PostgreSQL refuses that inside a
/// transaction). The name is the file's stem, as sea-orm records it in `seaql_migrations`;
/// it must never change for a released step.
macro_rules! migration {
    ($name:literal) => {
        $crate::kit::migration!(@step $name, None);
    };
    ($name:literal, no_transaction) => {
        $crate::kit::migration!(@step $name, Some(false));
    };
    (@step $name:literal, $transaction:expr) => {
        pub struct Migration;

        impl MigrationName for Migration {
            fn name(&self) -> &str {
                $name
            }
        }

        #[async_trait::async_trait]
        impl MigrationTrait for Migration {
            fn use_transaction(&self) -> Option<bool> {
                $transaction
            }

            async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
                up(m).await
            }

            async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
                down(m).await
            }
        }
    };
}
pub(crate) use migration;

/// A table or column name.
pub fn t(name: &str) -> Alias {
    Alias::new(name)
}

/// A foreign key from `(table, column)` to `to.id`.
pub fn fk(from: (Alias, &str), to: &str) -> ForeignKeyCreateStatement {
    ForeignKey::create()
        .from(from.0, t(from.1))
        .to(t(to), t("id"))
        .to_owned()
}

/// A plain index on `table (cols…)`.
pub fn idx(name: &str, table: &str, cols: &[&str]) -> IndexCreateStatement {
    let mut i = Index::create();
    i.name(name).table(t(table));
    for c in cols {
        i.col(t(c));
    }
    i.to_owned()
}

/// A unique index on `table (cols…)`.
pub fn unique_idx(name: &str, table: &str, cols: &[&str]) -> IndexCreateStatement {
    idx(name, table, cols).unique().to_owned()
}

/// Drops tables in the order given (dependents first).
pub async fn drop_tables(m: &SchemaManager<'_>, names: &[&str]) -> Result<(), DbErr> {
    for name in names {
        m.drop_table(Table::drop().table(t(name)).to_owned())
            .await?;
    }
    Ok(())
}

/// An index written as SQL: its name and `table (columns) [WHERE condition]`, for the
/// partial and expression indexes sea-query cannot declare.
pub type SqlIndex = (&'static str, &'static str);

/// `CREATE INDEX name ON …` for each.
pub async fn create_sql_indexes(m: &SchemaManager<'_>, list: &[SqlIndex]) -> Result<(), DbErr> {
    execute_each(m, list, |(name, on)| format!("CREATE INDEX {name} ON {on}")).await
}

/// `CREATE UNIQUE INDEX name ON …` for each.
pub async fn create_unique_sql_indexes(
    m: &SchemaManager<'_>,
    list: &[SqlIndex],
) -> Result<(), DbErr> {
    execute_each(m, list, |(name, on)| {
        format!("CREATE UNIQUE INDEX {name} ON {on}")
    })
    .await
}

/// `DROP INDEX name` for each.
pub async fn drop_sql_indexes(m: &SchemaManager<'_>, list: &[SqlIndex]) -> Result<(), DbErr> {
    execute_each(m, list, |(name, _)| format!("DROP INDEX {name}")).await
}

async fn execute_each(
    m: &SchemaManager<'_>,
    list: &[SqlIndex],
    sql: impl Fn(&SqlIndex) -> String,
) -> Result<(), DbErr> {
    let db = m.get_connection();
    for index in list {
        db.execute_unprepared(&sql(index)).await?;
    }
    Ok(())
}

/// `ALTER TABLE table ADD COLUMN …`. SQLite alters one column per statement, so each column
/// is its own ALTER.
pub async fn add_column(
    m: &SchemaManager<'_>,
    table: &str,
    column: impl IntoColumnDef,
) -> Result<(), DbErr> {
    m.alter_table(Table::alter().table(t(table)).add_column(column).to_owned())
        .await
}

/// `ALTER TABLE table DROP COLUMN column`.
pub async fn drop_column(m: &SchemaManager<'_>, table: &str, column: &str) -> Result<(), DbErr> {
    m.alter_table(
        Table::alter()
            .table(t(table))
            .drop_column(t(column))
            .to_owned(),
    )
    .await
}
