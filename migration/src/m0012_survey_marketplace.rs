//! The survey marketplace: reference data (locales, profiling catalog), quotas and their
//! qualifications, custom screening questions, respondents with their profiles, fetch events
//! (fraud velocity) and survey entries (the transactions a complete settles).
use crate::kit::*;
use sea_orm_migration::schema::*;

use entity::survey_reference::{ANSWERS, LOCALES, QUESTIONS};

migration!("m0012_survey_marketplace");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    reference(m).await?;
    targeting(m).await?;
    respondents(m).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    drop_tables(
        m,
        &[
            "survey_entries",
            "survey_fetches",
            "survey_respondent_answers",
            "survey_respondents",
            "survey_custom_questions",
            "survey_qualifications",
            "survey_quotas",
            "profiling_answers",
            "profiling_questions",
            "survey_locales",
        ],
    )
    .await
}

async fn reference(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("survey_locales"))
            .col(integer(t("id")).primary_key())
            .col(string_uniq(t("code")))
            .col(string(t("language")))
            .col(string(t("country_code")))
            .col(string(t("country_name")))
            .col(boolean(t("active")))
            .to_owned(),
    )
    .await?;
    m.create_table(
        Table::create()
            .table(t("profiling_questions"))
            .col(string(t("id")).primary_key())
            .col(text(t("text")))
            .col(string(t("kind")))
            .col(string(t("countries")))
            .col(integer(t("sort_order")))
            .to_owned(),
    )
    .await?;
    m.create_table(
        Table::create()
            .table(t("profiling_answers"))
            .col(string(t("question_id")))
            .col(string(t("answer_id")))
            .col(text(t("text")))
            .col(integer(t("sort_order")))
            .primary_key(Index::create().col(t("question_id")).col(t("answer_id")))
            .to_owned(),
    )
    .await?;
    let mut q = Query::insert();
    q.into_table(t("survey_locales")).columns([
        t("id"),
        t("code"),
        t("language"),
        t("country_code"),
        t("country_name"),
        t("active"),
    ]);
    for (id, code, language, country, active) in LOCALES {
        let cc = code.split('-').nth(1).unwrap_or_default();
        q.values_panic([
            (*id).into(),
            (*code).into(),
            (*language).into(),
            cc.into(),
            (*country).into(),
            (*active).into(),
        ]);
    }
    m.exec_stmt(q).await?;
    let mut q = Query::insert();
    q.into_table(t("profiling_questions")).columns([
        t("id"),
        t("text"),
        t("kind"),
        t("countries"),
        t("sort_order"),
    ]);
    for (id, text, kind, countries, order) in QUESTIONS {
        q.values_panic([
            (*id).into(),
            (*text).into(),
            (*kind).into(),
            (*countries).into(),
            (*order).into(),
        ]);
    }
    m.exec_stmt(q).await?;
    let mut q = Query::insert();
    q.into_table(t("profiling_answers")).columns([
        t("question_id"),
        t("answer_id"),
        t("text"),
        t("sort_order"),
    ]);
    for (i, (question, answer, text)) in ANSWERS.iter().enumerate() {
        q.values_panic([
            (*question).into(),
            (*answer).into(),
            (*text).into(),
            <i32 as TryFrom<usize>>::try_from(i)
                .unwrap_or_default()
                .into(),
        ]);
    }
    m.exec_stmt(q).await
}

async fn targeting(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("survey_quotas"))
            .col(string(t("id")).primary_key())
            .col(string(t("campaign_id")))
            .col(string(t("name")))
            .col(big_integer(t("num_respondents")))
            .col(big_integer(t("completes")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .foreign_key(
                ForeignKey::create()
                    .from(t("survey_quotas"), t("campaign_id"))
                    .to(t("survey_campaigns"), t("id"))
                    .on_delete(ForeignKeyAction::Cascade),
            )
            .to_owned(),
    )
    .await?;
    m.create_index(idx(
        "idx_survey_quotas_campaign",
        "survey_quotas",
        &["campaign_id"],
    ))
    .await?;
    m.create_table(
        Table::create()
            .table(t("survey_qualifications"))
            .col(string(t("id")).primary_key())
            .col(string(t("campaign_id")))
            .col(string(t("quota_id")))
            .col(string(t("question_id")))
            .col(text(t("criteria")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .foreign_key(
                ForeignKey::create()
                    .from(t("survey_qualifications"), t("quota_id"))
                    .to(t("survey_quotas"), t("id"))
                    .on_delete(ForeignKeyAction::Cascade),
            )
            .to_owned(),
    )
    .await?;
    m.create_index(idx(
        "idx_survey_qualifications_quota",
        "survey_qualifications",
        &["quota_id"],
    ))
    .await?;
    m.create_index(idx(
        "idx_survey_qualifications_campaign",
        "survey_qualifications",
        &["campaign_id"],
    ))
    .await?;
    m.create_table(
        Table::create()
            .table(t("survey_custom_questions"))
            .col(string(t("id")).primary_key())
            .col(string(t("campaign_id")))
            .col(text(t("display_text")))
            .col(integer(t("question_type_id")))
            .col(integer(t("sort_order")))
            .col(text(t("controls")))
            .col(text(t("options")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .foreign_key(
                ForeignKey::create()
                    .from(t("survey_custom_questions"), t("campaign_id"))
                    .to(t("survey_campaigns"), t("id"))
                    .on_delete(ForeignKeyAction::Cascade),
            )
            .to_owned(),
    )
    .await?;
    m.create_index(idx(
        "idx_survey_custom_questions_campaign",
        "survey_custom_questions",
        &["campaign_id"],
    ))
    .await
}

async fn respondents(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("survey_respondents"))
            .col(string(t("id")).primary_key())
            .col(string(t("placement_id")))
            .col(string(t("external_user_id")))
            .col(string(t("locale_code")))
            .col(date_null(t("date_of_birth")))
            .col(string_null(t("gender")))
            .col(string_null(t("zip_code")))
            .col(string(t("city")))
            .col(string_null(t("gps_id")))
            .col(string(t("last_ip")))
            .col(integer(t("risk_score")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .to_owned(),
    )
    .await?;
    m.create_index(
        idx(
            "idx_survey_respondents_user",
            "survey_respondents",
            &["placement_id", "external_user_id"],
        )
        .unique()
        .to_owned(),
    )
    .await?;
    m.create_index(idx(
        "idx_survey_respondents_gps",
        "survey_respondents",
        &["gps_id"],
    ))
    .await?;
    m.create_table(
        Table::create()
            .table(t("survey_respondent_answers"))
            .col(string(t("respondent_id")))
            .col(string(t("question_id")))
            .col(text(t("answer_ids")))
            .col(string(t("partner_code")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .primary_key(
                Index::create()
                    .col(t("respondent_id"))
                    .col(t("question_id")),
            )
            .to_owned(),
    )
    .await?;
    m.create_table(
        Table::create()
            .table(t("survey_fetches"))
            .col(string(t("id")).primary_key())
            .col(string(t("respondent_id")))
            .col(string(t("placement_id")))
            .col(string(t("ip")))
            .col(string_null(t("gps_id")))
            .col(integer(t("risk_score")))
            .col(string(t("outcome")))
            .col(timestamp_with_time_zone(t("created_at")))
            .to_owned(),
    )
    .await?;
    m.create_index(idx(
        "idx_survey_fetches_respondent",
        "survey_fetches",
        &["respondent_id", "created_at"],
    ))
    .await?;
    m.create_index(idx(
        "idx_survey_fetches_ip",
        "survey_fetches",
        &["ip", "created_at"],
    ))
    .await?;
    m.create_table(
        Table::create()
            .table(t("survey_entries"))
            .col(string(t("id")).primary_key())
            .col(string(t("campaign_id")))
            .col(string(t("respondent_id")))
            .col(string(t("placement_id")))
            .col(string_null(t("ad_slot_id")))
            .col(string_null(t("quota_id")))
            .col(string(t("status")))
            .col(boolean(t("test")))
            .col(string(t("verification")))
            .col(big_integer(t("cpi_micros")))
            .col(big_integer(t("reward_minor_units")))
            .col(string_null(t("conversion_id")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone_null(t("finished_at")))
            .to_owned(),
    )
    .await?;
    m.create_index(idx(
        "idx_survey_entries_respondent",
        "survey_entries",
        &["campaign_id", "respondent_id"],
    ))
    .await?;
    m.create_index(idx(
        "idx_survey_entries_status",
        "survey_entries",
        &["campaign_id", "status", "finished_at"],
    ))
    .await
}
