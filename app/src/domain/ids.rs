//! Opaque, time-ordered identifiers with a type prefix (`acc_…`, `plc_…`), so an id says
//! what it names in logs and support requests and sorts by creation.

/// A new identifier: the prefix, an underscore and a UUIDv7 in simple hex.
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::now_v7().simple())
}

/// `(id, group)` pairs as each group's ids, groups in order and ids as they came: the
/// batches that lock one campaign (or account) at a time.
pub fn grouped(pairs: &[(String, String)]) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut groups = std::collections::BTreeMap::<String, Vec<String>>::new();
    for (id, group) in pairs {
        groups.entry(group.clone()).or_default().push(id.clone());
    }
    groups
}
