//! Builders for the set-up the integration tests share: a publisher with a live placement
//! and sessions (`publisher`), an advertiser's offer campaigns and postbacks (`offers`), survey markets (`surveys`), reward-callback worlds (`callbacks`), earnings and payouts (`earnings`), bulk reconciliations (`reconciliation`), a wallet ready to fund (`billing`), one of everything an account owns (`ownership`).
//! Test files use these instead of importing each other.

pub mod billing;
pub mod callbacks;
pub mod earnings;
pub mod fraud;
pub mod offers;
pub mod ownership;
pub mod publisher;
pub mod reconciliation;
pub mod surveys;

pub use offers::*;
pub use publisher::*;
