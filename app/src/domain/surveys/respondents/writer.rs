//! The survey fetch's writes, off the answer's path (issue 31): each fetch hands its
//! respondent profile, answers and fetch record to this writer and answers at once; the
//! writer commits what waited in one transaction every [`INTERVAL`] (group commit), so the
//! answer never waits on the database's writer (on SQLite, one lock for every write).
//!
//! Nothing a fetch learned is lost while the process lives: a write that fails is retried
//! every second, in order, with what arrived meanwhile. A respondent's row is upserted with
//! only the fields the fetch gave (omitted ones keep the stored value), so batches from
//! several processes compose. A crash loses at most the last interval's fetch records and
//! profile updates; no entry is lost, since the hosted entry records entries itself and
//! reads the respondent from the database (after flushing this process's writer, and
//! waiting briefly for another process's). Without a running writer (CLI commands, a
//! process under test without workers) each fetch writes inline.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{DatabaseConnection, EntityTrait, Set};

use crate::domain::{db, ids::new_id};
use crate::error::AppError;
use entity::values::FetchOutcome;
use entity::{
    survey_fetch as fetch_row, survey_respondent as respondent, survey_respondent_answer as answer,
};

/// How long fetches gather before they are committed together.
pub const INTERVAL: Duration = Duration::from_millis(20);
/// Fetches waiting at most (a database down for minutes at full load); beyond it a fetch
/// answers 503 instead of holding memory without bound.
const MAX_WAITING: usize = 200_000;
/// Rows per statement (within both databases' limits on bound values).
const ROWS: usize = 400;

/// What one fetch writes.
#[derive(Debug, Clone)]
pub struct FetchWrite {
    pub respondent_id: String,
    pub placement_id: String,
    pub external_user_id: String,
    pub locale_code: String,
    pub date_of_birth: Option<NaiveDate>,
    pub gender: Option<String>,
    pub zip: Option<String>,
    pub gps_id: Option<String>,
    pub city: String,
    pub ip: String,
    pub risk_score: i32,
    pub outcome: FetchOutcome,
    pub at: DateTime<Utc>,
    /// `(question id, answer ids, partner code)`.
    pub answers: Vec<(String, Vec<String>, String)>,
}

/// The writer of one process.
pub struct Writer {
    waiting: Mutex<Vec<FetchWrite>>,
    wake: tokio::sync::Notify,
    background: AtomicBool,
    /// Fetches handed over so far.
    submitted: AtomicU64,
    /// Fetches committed so far (in hand-over order).
    committed: tokio::sync::watch::Sender<u64>,
}

impl Default for Writer {
    fn default() -> Self {
        Writer {
            waiting: Mutex::new(Vec::new()),
            wake: tokio::sync::Notify::new(),
            background: AtomicBool::new(false),
            submitted: AtomicU64::new(0),
            committed: tokio::sync::watch::Sender::new(0),
        }
    }
}

impl Writer {
    /// Hands a fetch's writes over (or writes them now when no writer runs).
    pub async fn submit(&self, db: &DatabaseConnection, w: FetchWrite) -> Result<(), AppError> {
        if !self.background.load(Ordering::Acquire) {
            return write(db, std::slice::from_ref(&w)).await;
        }
        let first = {
            let mut waiting = self
                .waiting
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if waiting.len() >= MAX_WAITING {
                return Err(AppError::unavailable(
                    "survey fetches cannot be recorded now; retry shortly",
                ));
            }
            waiting.push(w);
            self.submitted.fetch_add(1, Ordering::SeqCst);
            waiting.len() == 1
        };
        if first {
            self.wake.notify_one();
        }
        Ok(())
    }

    /// Waits (at most five seconds) until everything handed over before this call is
    /// committed.
    pub async fn flush(&self) {
        let target = self.submitted.load(Ordering::SeqCst);
        if !self.background.load(Ordering::Acquire) || *self.committed.borrow() >= target {
            return;
        }
        let mut committed = self.committed.subscribe();
        self.wake.notify_one();
        let _ = tokio::time::timeout(Duration::from_secs(5), committed.wait_for(|c| *c >= target))
            .await;
    }

    /// Fetches handed over and not yet committed (metrics).
    pub fn backlog(&self) -> u64 {
        self.submitted
            .load(Ordering::SeqCst)
            .saturating_sub(*self.committed.borrow())
    }

    /// Commits what waits, every [`INTERVAL`], for as long as the process runs.
    pub async fn drive(&self, db: DatabaseConnection) {
        self.background.store(true, Ordering::Release);
        let mut batch: Vec<FetchWrite> = Vec::new();
        loop {
            if batch.is_empty() {
                let _ = tokio::time::timeout(Duration::from_secs(1), self.wake.notified()).await;
                tokio::time::sleep(INTERVAL).await;
            }
            let through = {
                let mut waiting = self
                    .waiting
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                batch.append(&mut waiting);
                self.submitted.load(Ordering::SeqCst)
            };
            if batch.is_empty() {
                continue;
            }
            match write(&db, &batch).await {
                Ok(()) => {
                    batch.clear();
                    self.committed.send_replace(through);
                }
                Err(e) => {
                    tracing::warn!(error = %e, fetches = batch.len(), "writing survey fetches failed; retrying");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    }
}

/// One respondent row per respondent: a later fetch's fields win, omitted ones keep the
/// earlier fetch's.
fn respondent_rows(batch: &[FetchWrite]) -> Vec<respondent::ActiveModel> {
    let mut order: Vec<&str> = Vec::new();
    let mut merged: HashMap<&str, FetchWrite> = HashMap::new();
    for w in batch {
        match merged.get_mut(w.respondent_id.as_str()) {
            Some(m) => {
                let keep = |new: &Option<String>, old: &mut Option<String>| {
                    if new.is_some() {
                        old.clone_from(new);
                    }
                };
                keep(&w.gender, &mut m.gender);
                keep(&w.zip, &mut m.zip);
                keep(&w.gps_id, &mut m.gps_id);
                if w.date_of_birth.is_some() {
                    m.date_of_birth = w.date_of_birth;
                }
                m.locale_code.clone_from(&w.locale_code);
                m.city.clone_from(&w.city);
                m.ip.clone_from(&w.ip);
                m.risk_score = w.risk_score;
                m.at = w.at;
            }
            None => {
                order.push(&w.respondent_id);
                merged.insert(&w.respondent_id, w.clone());
            }
        }
    }
    order
        .into_iter()
        .filter_map(|id| merged.remove(id))
        .map(|w| respondent::ActiveModel {
            id: Set(w.respondent_id),
            placement_id: Set(w.placement_id),
            external_user_id: Set(w.external_user_id),
            locale_code: Set(w.locale_code),
            date_of_birth: Set(w.date_of_birth),
            gender: Set(w.gender),
            zip_code: Set(w.zip),
            city: Set(w.city),
            gps_id: Set(w.gps_id),
            last_ip: Set(w.ip),
            risk_score: Set(w.risk_score),
            created_at: Set(w.at),
            updated_at: Set(w.at),
        })
        .collect()
}

/// The latest answer per respondent and question.
fn answer_rows(batch: &[FetchWrite]) -> Vec<answer::ActiveModel> {
    let mut order = Vec::new();
    let mut latest: HashMap<(&str, &str), answer::ActiveModel> = HashMap::new();
    for w in batch {
        for (q, ids, partner) in &w.answers {
            let key = (w.respondent_id.as_str(), q.as_str());
            let row = answer::ActiveModel {
                respondent_id: Set(w.respondent_id.clone()),
                question_id: Set(q.clone()),
                answer_ids: Set(serde_json::to_string(ids).unwrap_or_else(|_| "[]".into())),
                partner_code: Set(partner.clone()),
                updated_at: Set(w.at),
            };
            if latest.insert(key, row).is_none() {
                order.push(key);
            }
        }
    }
    order
        .into_iter()
        .filter_map(|k| latest.remove(&k))
        .collect()
}

fn keep_stored(column: &str) -> Expr {
    Expr::cust(format!(
        "COALESCE(excluded.{column}, survey_respondents.{column})"
    ))
}

/// Commits a batch in one transaction.
async fn write(db: &DatabaseConnection, batch: &[FetchWrite]) -> Result<(), AppError> {
    use respondent::Column as R;
    let txn = db::begin(db).await?;
    let upsert = OnConflict::columns([R::PlacementId, R::ExternalUserId])
        .values([
            (R::DateOfBirth, keep_stored("date_of_birth")),
            (R::Gender, keep_stored("gender")),
            (R::ZipCode, keep_stored("zip_code")),
            (R::GpsId, keep_stored("gps_id")),
        ])
        .update_columns([
            R::LocaleCode,
            R::City,
            R::LastIp,
            R::RiskScore,
            R::UpdatedAt,
        ])
        .to_owned();
    for chunk in respondent_rows(batch).chunks(ROWS) {
        respondent::Entity::insert_many(chunk.to_vec())
            .on_conflict(upsert.clone())
            .exec_without_returning(&txn)
            .await?;
    }
    let replace = OnConflict::columns([answer::Column::RespondentId, answer::Column::QuestionId])
        .update_columns([
            answer::Column::AnswerIds,
            answer::Column::PartnerCode,
            answer::Column::UpdatedAt,
        ])
        .to_owned();
    for chunk in answer_rows(batch).chunks(ROWS) {
        answer::Entity::insert_many(chunk.to_vec())
            .on_conflict(replace.clone())
            .exec_without_returning(&txn)
            .await?;
    }
    for chunk in batch.chunks(ROWS) {
        fetch_row::Entity::insert_many(chunk.iter().map(|w| fetch_row::ActiveModel {
            id: Set(new_id("sfe")),
            respondent_id: Set(w.respondent_id.clone()),
            placement_id: Set(w.placement_id.clone()),
            ip: Set(w.ip.clone()),
            gps_id: Set(w.gps_id.clone()),
            risk_score: Set(w.risk_score),
            outcome: Set(w.outcome),
            created_at: Set(w.at),
        }))
        .exec_without_returning(&txn)
        .await?;
    }
    txn.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(id: &str, zip: Option<&str>, city: &str, answers: &[(&str, &str)]) -> FetchWrite {
        FetchWrite {
            respondent_id: id.into(),
            placement_id: "plc".into(),
            external_user_id: id.into(),
            locale_code: "en-US".into(),
            date_of_birth: None,
            gender: None,
            zip: zip.map(str::to_owned),
            gps_id: None,
            city: city.into(),
            ip: "8.8.8.8".into(),
            risk_score: 0,
            outcome: FetchOutcome::Success,
            at: chrono::DateTime::UNIX_EPOCH,
            answers: answers
                .iter()
                .map(|(q, a)| ((*q).to_owned(), vec![(*a).to_owned()], String::new()))
                .collect(),
        }
    }

    #[test]
    fn a_batch_keeps_one_row_per_respondent_and_per_answer() {
        let batch = [
            w("a", Some("10001"), "NYC", &[("edu", "1"), ("inc", "2")]),
            w("b", None, "LA", &[]),
            w("a", None, "Boston", &[("edu", "3")]),
        ];
        let rows = respondent_rows(&batch);
        assert_eq!(rows.len(), 2);
        let a = &rows[0];
        assert_eq!(
            a.zip_code.clone().unwrap(),
            Some("10001".to_owned()),
            "omitted later: kept"
        );
        assert_eq!(
            a.city.clone().unwrap(),
            "Boston",
            "the later fetch's city wins"
        );
        let answers = answer_rows(&batch);
        assert_eq!(answers.len(), 2);
        let edu = answers
            .iter()
            .find(|x| x.question_id.clone().unwrap() == "edu")
            .unwrap();
        assert_eq!(edu.answer_ids.clone().unwrap(), "[\"3\"]");
    }
}
