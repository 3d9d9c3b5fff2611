//! The development payment provider: orders in the `payprovider_orders` table, approved or
//! declined on a checkout page this service serves (development only).

use std::sync::Arc;

use async_trait::async_trait;
use sea_orm::{ActiveModelTrait, DatabaseConnection, EntityTrait, Set};

use super::{OrderStatus, PaymentProvider, ProviderOrder};
use crate::domain::{Clock, clock::truncate_micros, ids::new_id};
use crate::error::AppError;
use crate::model::billing::ProviderCode;
use crate::model::money::Micros;
use entity::payprovider_order;

/// The built-in development provider, backed by the `payprovider_orders` table.
pub struct DevProvider {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
}

impl DevProvider {
    pub fn new(db: DatabaseConnection, clock: Arc<dyn Clock>) -> Self {
        Self { db, clock }
    }

    async fn load(&self, order_id: &str) -> Result<payprovider_order::Model, AppError> {
        payprovider_order::Entity::find_by_id(order_id.to_owned())
            .one(&self.db)
            .await?
            .ok_or_else(|| AppError::not_found("order"))
    }

    /// The payer's decision on the checkout page: only a CREATED order can be decided.
    pub async fn decide(&self, order_id: &str, approve: bool) -> Result<ProviderOrder, AppError> {
        let o = self.load(order_id).await?;
        if o.status != OrderStatus::Created {
            return Err(AppError::conflict(format!(
                "the order is already {}",
                o.status
            )));
        }
        let mut am: payprovider_order::ActiveModel = o.into();
        am.status = Set(if approve {
            OrderStatus::Approved
        } else {
            OrderStatus::Declined
        });
        am.updated_at = Set(truncate_micros(self.clock.now()));
        Ok(order(&am.update(&self.db).await?))
    }

    /// Reads an order (for the checkout page).
    pub async fn get(&self, order_id: &str) -> Result<ProviderOrder, AppError> {
        Ok(order(&self.load(order_id).await?))
    }
}

fn order(o: &payprovider_order::Model) -> ProviderOrder {
    ProviderOrder {
        id: o.id.clone(),
        // The simulator's capture is the order itself.
        capture_id: (o.status == OrderStatus::Completed).then(|| format!("DEVCAP-{}", o.id)),
        status: o.status,
        amount_micros: Micros(o.amount_micros),
        currency: o.currency.clone(),
    }
}

#[async_trait]
impl PaymentProvider for DevProvider {
    fn code(&self) -> ProviderCode {
        ProviderCode::Development
    }

    async fn create_order(
        &self,
        funding_id: &str,
        amount_micros: Micros,
        currency: &str,
    ) -> Result<ProviderOrder, AppError> {
        let now = truncate_micros(self.clock.now());
        let row = payprovider_order::ActiveModel {
            id: Set(new_id("ord")),
            funding_id: Set(funding_id.to_owned()),
            amount_micros: Set(amount_micros.get()),
            currency: Set(currency.to_owned()),
            status: Set(OrderStatus::Created),
            created_at: Set(now),
            updated_at: Set(now),
        }
        .insert(&self.db)
        .await?;
        Ok(order(&row))
    }

    async fn capture(&self, order_id: &str) -> Result<ProviderOrder, AppError> {
        let o = self.load(order_id).await?;
        if o.status != OrderStatus::Approved {
            return Ok(order(&o));
        }
        let mut am: payprovider_order::ActiveModel = o.into();
        am.status = Set(OrderStatus::Completed);
        am.updated_at = Set(truncate_micros(self.clock.now()));
        Ok(order(&am.update(&self.db).await?))
    }
}
