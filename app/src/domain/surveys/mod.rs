//! The survey side for advertisers: the signed survey campaign API's authentication and
//! survey campaigns.

pub mod campaigns;
pub mod signature;
