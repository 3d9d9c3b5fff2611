//! The delivery state of one placement's callback receiver: since when every attempt has
//! failed, and whether delivery is paused (after 24 hours of failures) until resumed.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "callback_receivers")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub placement_id: String,
    /// The first failed attempt since the last success (None: the last attempt succeeded).
    pub failing_since: Option<DateTimeUtc>,
    /// Set when delivery was paused; no attempt is made while it is set.
    pub paused_at: Option<DateTimeUtc>,
    pub updated_at: DateTimeUtc,
    /// When the owner was told that this receiver fails (once per failing streak).
    pub told_failing_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::placement::Entity",
        from = "Column::PlacementId",
        to = "super::placement::Column::Id"
    )]
    Placement,
}

impl Related<super::placement::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Placement.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
