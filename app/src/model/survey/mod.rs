//! Wire types of the survey marketplace: the signed campaign API (campaigns, targeting,
//! credentials, snake_case as the specification shows) and the publisher's survey fetch
//! (PascalCase as the specification shows).

pub mod campaign;
pub mod credentials;
pub mod fetch;
pub mod targeting;
