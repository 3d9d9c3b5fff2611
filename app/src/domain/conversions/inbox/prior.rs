//! What a settlement group reads of its reports before its transaction: the receipts of
//! exact retries and which transaction ids have a conversion already. Read in the reading
//! turn (one query each per campaign of the group), they leave the writing turn, which
//! limits how fast SQLite settles, two statements fewer per report.
//!
//! Both can change between this read and the transaction (another process settles a retry
//! meanwhile). What changed then meets a unique index: a receipt on (campaign, event hash),
//! a conversion on (campaign, transaction id). The group's transaction fails, nothing of it
//! is written, and its reports are settled again one by one, which reads under the lock.
//! A conversion that exists is always read again under the lock: its state may have moved.

use std::collections::{HashMap, HashSet};

use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use crate::error::AppError;
use crate::model::delivery::CallbackReceipt;
use entity::{conversion, postback_event};

/// One campaign's part of a group: its earlier receipts and conversions, then what the
/// group itself wrote.
#[derive(Debug, Default)]
pub(super) struct Prior {
    /// Receipt id by event hash.
    receipts: HashMap<String, String>,
    /// Transaction ids that have a conversion.
    conversions: HashSet<String>,
}

impl Prior {
    /// Reads, on `db`, the receipts of `hashes` and the conversions of `transactions` of
    /// campaign `campaign_id` (a group holds at most `MAX_GROUP` reports: the lists are
    /// bounded).
    pub(super) async fn read<C: ConnectionTrait>(
        db: &C,
        campaign_id: &str,
        hashes: &[String],
        transactions: &[&str],
    ) -> Result<Self, AppError> {
        let receipts: Vec<(String, String)> = postback_event::Entity::find()
            .select_only()
            .column(postback_event::Column::EventHash)
            .column(postback_event::Column::Id)
            .filter(postback_event::Column::CampaignId.eq(campaign_id.to_owned()))
            .filter(postback_event::Column::EventHash.is_in(hashes.iter().cloned()))
            .into_tuple()
            .all(db)
            .await?;
        let conversions: Vec<String> = conversion::Entity::find()
            .select_only()
            .column(conversion::Column::TransactionId)
            .filter(conversion::Column::CampaignId.eq(campaign_id.to_owned()))
            .filter(
                conversion::Column::TransactionId
                    .is_in(transactions.iter().map(|t| (*t).to_owned())),
            )
            .into_tuple()
            .all(db)
            .await?;
        Ok(Self {
            receipts: receipts.into_iter().collect(),
            conversions: conversions.into_iter().collect(),
        })
    }

    /// The first receipt of an exact retry (of a report before the group or in it).
    pub(super) fn receipt(&self, hash: &str) -> Option<CallbackReceipt> {
        self.receipts.get(hash).map(|id| CallbackReceipt {
            accepted: true,
            duplicate: true,
            receipt_id: id.clone(),
        })
    }

    /// Whether `transaction_id` may have a conversion: one that does is read under the lock.
    pub(super) fn has_conversion(&self, transaction_id: &str) -> bool {
        self.conversions.contains(transaction_id)
    }

    /// Records what the group wrote for a report: its receipt and its conversion.
    pub(super) fn wrote(&mut self, hash: &str, receipt_id: &str, transaction_id: &str) {
        self.receipts.insert(hash.to_owned(), receipt_id.to_owned());
        self.conversions.insert(transaction_id.to_owned());
    }
}
