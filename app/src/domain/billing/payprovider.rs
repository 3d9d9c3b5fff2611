//! Payment providers. The service talks to a provider through [`PaymentProvider`]; a real
//! provider is one more implementation. [`DevProvider`] is an in-process simulator whose
//! checkout page (development only) lets the payer approve or decline an order.

use std::sync::Arc;

use async_trait::async_trait;
use sea_orm::{ActiveModelTrait, DatabaseConnection, EntityTrait, Set};

use crate::domain::{Clock, clock::truncate_micros, ids::new_id};
use crate::error::AppError;
use crate::model::billing::ProviderCode;
use crate::model::money::Micros;
use entity::payprovider_order;
pub use entity::values::OrderStatus;

/// An order as the provider reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderOrder {
    pub id: String,
    pub status: OrderStatus,
    pub amount_micros: Micros,
    pub currency: String,
}

/// A payment provider: create an order for the payer to approve, then capture it.
#[async_trait]
pub trait PaymentProvider: Send + Sync {
    /// Short provider code shown in the configuration.
    fn code(&self) -> ProviderCode;
    /// Opens an order for `amount_micros` in `currency`.
    async fn create_order(
        &self,
        funding_id: &str,
        amount_micros: Micros,
        currency: &str,
    ) -> Result<ProviderOrder, AppError>;
    /// Captures an approved order; capturing a completed order again reports it unchanged.
    async fn capture(&self, order_id: &str) -> Result<ProviderOrder, AppError>;
}

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

/// The signature of an order's development checkout link (approve and decline need it).
pub fn checkout_signature(ctx: &crate::domain::Ctx, order_id: &str) -> String {
    ctx.keys.sign(&format!("dev-checkout:{order_id}"))
}

/// The provider of a production deployment that has no real provider configured: every
/// provider funding is refused at once with `payment_provider_unavailable` (wire funding
/// still works), instead of an order nobody can ever approve.
pub struct NoProvider;

#[async_trait]
impl PaymentProvider for NoProvider {
    fn code(&self) -> ProviderCode {
        ProviderCode::Disabled
    }

    async fn create_order(&self, _: &str, _: Micros, _: &str) -> Result<ProviderOrder, AppError> {
        Err(unavailable())
    }

    async fn capture(&self, _: &str) -> Result<ProviderOrder, AppError> {
        Err(unavailable())
    }
}

fn unavailable() -> AppError {
    AppError::unavailable("no payment provider is configured; fund the wallet by wire transfer")
        .with_code("payment_provider_unavailable")
}
