//! The survey marketplace's HTTP surfaces: the signed campaign API (`campaigns`,
//! `targeting`), its credentials for advertisers (`credentials`), and the publisher's survey
//! fetch with the hosted entry (`fetch`).

pub mod campaigns;
pub mod credentials;
pub mod fetch;
pub mod targeting;
