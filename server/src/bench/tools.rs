//! Small tools both seeders share: a deterministic generator (two runs seed the same data),
//! the mapping of a refused domain call to an error naming the step, and JSON input.

use app::error::AppError;

/// A small deterministic generator, so two runs seed the same inventory.
pub(super) struct Lcg(pub(super) u64);

impl Lcg {
    pub(super) fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

pub(super) fn fail(what: &'static str) -> impl Fn(AppError) -> anyhow::Error {
    move |e| anyhow::anyhow!("bench seed {what}: {} {:?}", e.message, e.field_errors)
}

pub(super) fn input<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> anyhow::Result<T> {
    Ok(serde_json::from_value(v)?)
}
