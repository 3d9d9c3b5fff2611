//! Accounts, bearer tokens, browser sessions, the audit trail and survey API credentials.
use crate::kit::*;
use sea_orm_migration::schema::*;

migration!("m0001_foundation");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(Accounts::Table)
            .col(string(Accounts::Id).primary_key())
            .col(string_uniq(Accounts::Email))
            .col(string(Accounts::PasswordHash))
            .col(string(Accounts::Role))
            .col(string(Accounts::Status))
            .col(string(Accounts::CompanyName))
            .col(timestamp_with_time_zone(Accounts::CreatedAt))
            .col(timestamp_with_time_zone(Accounts::UpdatedAt))
            .col(timestamp_with_time_zone_null(Accounts::ApprovedAt))
            .col(string_null(Accounts::ApprovedBy))
            .to_owned(),
    )
    .await?;

    m.create_table(
        Table::create()
            .table(ApiTokens::Table)
            .col(string(ApiTokens::Id).primary_key())
            .col(string(ApiTokens::AccountId))
            .col(string_uniq(ApiTokens::TokenHash))
            .col(timestamp_with_time_zone(ApiTokens::CreatedAt))
            .col(timestamp_with_time_zone(ApiTokens::ExpiresAt))
            .col(timestamp_with_time_zone_null(ApiTokens::RevokedAt))
            .foreign_key(
                ForeignKey::create()
                    .from(ApiTokens::Table, ApiTokens::AccountId)
                    .to(Accounts::Table, Accounts::Id),
            )
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_api_tokens_account")
            .table(ApiTokens::Table)
            .col(ApiTokens::AccountId)
            .to_owned(),
    )
    .await?;

    m.create_table(
        Table::create()
            .table(WebSessions::Table)
            .col(string(WebSessions::Id).primary_key())
            .col(text(WebSessions::Data))
            .col(timestamp_with_time_zone(WebSessions::ExpiresAt))
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_web_sessions_expires")
            .table(WebSessions::Table)
            .col(WebSessions::ExpiresAt)
            .to_owned(),
    )
    .await?;

    m.create_table(
        Table::create()
            .table(AuditEvents::Table)
            .col(string(AuditEvents::Id).primary_key())
            .col(string_null(AuditEvents::ActorAccountId))
            .col(string(AuditEvents::Action))
            .col(string(AuditEvents::SubjectType))
            .col(string(AuditEvents::SubjectId))
            .col(text(AuditEvents::Detail))
            .col(timestamp_with_time_zone(AuditEvents::CreatedAt))
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_audit_events_subject")
            .table(AuditEvents::Table)
            .col(AuditEvents::SubjectType)
            .col(AuditEvents::SubjectId)
            .to_owned(),
    )
    .await?;

    m.create_table(
        Table::create()
            .table(SurveyApiCredentials::Table)
            .col(string(SurveyApiCredentials::Id).primary_key())
            .col(string(SurveyApiCredentials::AccountId))
            .col(string_uniq(SurveyApiCredentials::ApiKeyHash))
            .col(string(SurveyApiCredentials::ApiKeyPrefix))
            .col(text(SurveyApiCredentials::SecretCiphertext))
            .col(string(SurveyApiCredentials::EncryptionType))
            .col(timestamp_with_time_zone(SurveyApiCredentials::CreatedAt))
            .col(timestamp_with_time_zone_null(
                SurveyApiCredentials::RevokedAt,
            ))
            .foreign_key(
                ForeignKey::create()
                    .from(SurveyApiCredentials::Table, SurveyApiCredentials::AccountId)
                    .to(Accounts::Table, Accounts::Id),
            )
            .to_owned(),
    )
    .await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    for t in [
        SurveyApiCredentials::Table.into_iden(),
        AuditEvents::Table.into_iden(),
        WebSessions::Table.into_iden(),
        ApiTokens::Table.into_iden(),
        Accounts::Table.into_iden(),
    ] {
        m.drop_table(Table::drop().table(t).to_owned()).await?;
    }
    Ok(())
}

#[derive(DeriveIden)]
enum Accounts {
    Table,
    Id,
    Email,
    PasswordHash,
    Role,
    Status,
    CompanyName,
    CreatedAt,
    UpdatedAt,
    ApprovedAt,
    ApprovedBy,
}

#[derive(DeriveIden)]
enum ApiTokens {
    Table,
    Id,
    AccountId,
    TokenHash,
    CreatedAt,
    ExpiresAt,
    RevokedAt,
}

#[derive(DeriveIden)]
enum WebSessions {
    Table,
    Id,
    Data,
    ExpiresAt,
}

#[derive(DeriveIden)]
enum AuditEvents {
    Table,
    Id,
    ActorAccountId,
    Action,
    SubjectType,
    SubjectId,
    Detail,
    CreatedAt,
}

#[derive(DeriveIden)]
enum SurveyApiCredentials {
    Table,
    Id,
    AccountId,
    ApiKeyHash,
    ApiKeyPrefix,
    SecretCiphertext,
    EncryptionType,
    CreatedAt,
    RevokedAt,
}
