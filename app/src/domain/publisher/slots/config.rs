//! A slot's configuration as one value: built from defaults or the stored row, merged with
//! a PATCH section by section, validated, and snapshotted into a revision. Creation and
//! updates share it, so both accept and refuse exactly the same input.

use serde_json::{Value, json};

use super::currency::currency_of;
use crate::error::FieldErrors;
use crate::model::money::Micros;
use crate::model::publisher::*;
use crate::model::validate;
use entity::ad_slot;

/// Largest accepted `design` or `exposure` object, serialised.
const MAX_SECTION_BYTES: usize = 16 * 1024;
/// Longest accepted policy list.
const MAX_POLICY_ENTRIES: usize = 500;

/// The slot configuration being built from defaults, the stored row and the input.
pub(super) struct Config {
    pub(super) name: String,
    pub(super) currency: Currency,
    pub(super) design: Value,
    pub(super) exposure: Value,
    pub(super) policy: Policy,
    pub(super) offer_delivery: OfferDelivery,
}

impl Config {
    pub(super) fn defaults(name: String) -> Self {
        Config {
            name,
            currency: Currency {
                name: "Points".to_owned(),
                decimals: 0,
                rate_numerator_minor_units: 0,
                rate_denominator_usd_micros: Micros(1_000_000),
                minimum_payout_minor_units: 0,
                rounding: Rounding::Down,
            },
            design: json!({}),
            exposure: json!({}),
            policy: Policy::default(),
            offer_delivery: OfferDelivery {
                sort: OfferSort::Payout,
                minimum_payout_micros: Micros(0),
            },
        }
    }

    pub(super) fn from_row(s: &ad_slot::Model) -> Self {
        Config {
            name: s.name.clone(),
            currency: currency_of(s),
            design: serde_json::from_str(&s.design).unwrap_or_else(|_| json!({})),
            exposure: serde_json::from_str(&s.exposure).unwrap_or_else(|_| json!({})),
            policy: serde_json::from_str(&s.policy).unwrap_or_default(),
            offer_delivery: serde_json::from_str(&s.offer_delivery).unwrap_or(OfferDelivery {
                sort: OfferSort::Payout,
                minimum_payout_micros: Micros(0),
            }),
        }
    }

    /// Merges the named sections of `input` (fields inside a section too), collecting errors.
    pub(super) fn merge(&mut self, input: &SlotInput, errs: &mut FieldErrors) {
        if let Some(n) = &input.name {
            if let Some(n) = errs.check("name", validate::display_name(n, 80)) {
                self.name = n;
            }
        }
        if let Some(c) = &input.currency {
            let cur = &mut self.currency;
            if let Some(n) = &c.name {
                if let Some(n) = errs.check("currency.name", validate::display_name(n, 32)) {
                    cur.name = n;
                }
            }
            if let Some(d) = c.decimals {
                if (0..=8).contains(&d) {
                    cur.decimals = d
                } else {
                    errs.add("currency.decimals", "must be between 0 and 8")
                }
            }
            if let Some(v) = c.rate_numerator_minor_units {
                if (0..=1_000_000_000_000).contains(&v) {
                    cur.rate_numerator_minor_units = v
                } else {
                    errs.add(
                        "currency.rateNumeratorMinorUnits",
                        "must be between 0 and 10^12",
                    )
                }
            }
            if let Some(v) = c.rate_denominator_usd_micros {
                if (1..=1_000_000_000_000).contains(&v.get()) {
                    cur.rate_denominator_usd_micros = v
                } else {
                    errs.add(
                        "currency.rateDenominatorUsdMicros",
                        "must be between 1 and 10^12",
                    )
                }
            }
            if let Some(v) = c.minimum_payout_minor_units {
                if v >= 0 {
                    cur.minimum_payout_minor_units = v
                } else {
                    errs.add("currency.minimumPayoutMinorUnits", "must not be negative")
                }
            }
            if let Some(r) = c.rounding {
                cur.rounding = r;
            }
            // At most 1,000 minor units per USD micro (10^9 per USD): any payout then
            // converts without overflow, so settlement never fails on the rate.
            if i128::from(cur.rate_numerator_minor_units)
                > i128::from(cur.rate_denominator_usd_micros) * 1_000
            {
                errs.add(
                    "currency.rateNumeratorMinorUnits",
                    "must be at most 1,000 minor units per USD micro (10^9 per USD)",
                );
            }
        }
        for (field, value, slot) in [
            ("design", &input.design, &mut self.design),
            ("exposure", &input.exposure, &mut self.exposure),
        ] {
            if let Some(v) = value {
                match v {
                    Value::Object(incoming) if v.to_string().len() <= MAX_SECTION_BYTES => {
                        if let Value::Object(current) = slot {
                            for (k, val) in incoming {
                                current.insert(k.clone(), val.clone());
                            }
                        } else {
                            *slot = v.clone();
                        }
                    }
                    Value::Object(_) => errs.add(field, "must be at most 16 KiB"),
                    _ => errs.add(field, "must be an object"),
                }
            }
        }
        // The keys the hosted offerwall reads must be usable (model::wall_design).
        if input.design.is_some() {
            for (f, why) in crate::model::wall_design::WallDesign::check(&self.design) {
                errs.add(&f, why);
            }
        }
        if input.exposure.is_some() {
            for (f, why) in crate::model::wall_design::WallExposure::check(&self.exposure) {
                errs.add(&f, why);
            }
        }
        if let Some(p) = &input.policy {
            let pol = &mut self.policy;
            for (field, list, target) in [
                (
                    "policy.allowedCountries",
                    &p.allowed_countries,
                    &mut pol.allowed_countries,
                ),
                (
                    "policy.blockedCountries",
                    &p.blocked_countries,
                    &mut pol.blocked_countries,
                ),
            ] {
                if let Some(list) = list {
                    match countries(list) {
                        Ok(v) => *target = v,
                        Err(e) => errs.add(field, e),
                    }
                }
            }
            for (field, list, target) in [
                (
                    "policy.blockedCampaignIds",
                    &p.blocked_campaign_ids,
                    &mut pol.blocked_campaign_ids,
                ),
                (
                    "policy.excludedCampaignTaskTypes",
                    &p.excluded_campaign_task_types,
                    &mut pol.excluded_campaign_task_types,
                ),
                (
                    "policy.excludedCampaignCategories",
                    &p.excluded_campaign_categories,
                    &mut pol.excluded_campaign_categories,
                ),
            ] {
                if let Some(list) = list {
                    match strings(list) {
                        Ok(v) => *target = v,
                        Err(e) => errs.add(field, e),
                    }
                }
            }
        }
        if let Some(o) = &input.offer_delivery {
            if let Some(s) = o.sort {
                self.offer_delivery.sort = s;
            }
            if let Some(m) = o.minimum_payout_micros {
                if m >= Micros(0) {
                    self.offer_delivery.minimum_payout_micros = m
                } else {
                    errs.add("offerDelivery.minimumPayoutMicros", "must not be negative")
                }
            }
        }
    }

    pub(super) fn snapshot(&self) -> Value {
        json!({
            "name": self.name, "currency": self.currency, "design": self.design, "exposure": self.exposure,
            "policy": self.policy, "offerDelivery": self.offer_delivery,
        })
    }
}

fn countries(list: &[String]) -> Result<Vec<String>, String> {
    if list.len() > MAX_POLICY_ENTRIES {
        return Err(format!("at most {MAX_POLICY_ENTRIES} entries"));
    }
    let mut out: Vec<String> = Vec::new();
    for c in list {
        let up = c.trim().to_ascii_uppercase();
        if up.len() != 2 || !up.chars().all(|ch| ch.is_ascii_uppercase()) {
            return Err(format!("`{c}` is not a two-letter country code"));
        }
        if !out.contains(&up) {
            out.push(up);
        }
    }
    Ok(out)
}

fn strings(list: &[String]) -> Result<Vec<String>, String> {
    if list.len() > MAX_POLICY_ENTRIES {
        return Err(format!("at most {MAX_POLICY_ENTRIES} entries"));
    }
    let mut out: Vec<String> = Vec::new();
    for s in list {
        let t = s.trim();
        if t.is_empty() || t.len() > 64 {
            return Err("entries must be 1 to 64 characters".to_owned());
        }
        if !out.iter().any(|o| o == t) {
            out.push(t.to_owned());
        }
    }
    Ok(out)
}
