//! Opaque, time-ordered identifiers with a type prefix (`acc_…`, `plc_…`), so an id says
//! what it names in logs and support requests and sorts by creation.

/// A new identifier: the prefix, an underscore and a UUIDv7 in simple hex.
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::now_v7().simple())
}
