//! The fraud signals of one conversion and its score: a pure function of what settlement
//! already knows about the click (gathered by `evidence`, `norms` and `peers`), so every
//! rule is tested here without a database. Each reason adds its points; the score is their
//! sum, capped at 100. The points and thresholds are the documented ones
//! (`docs/fraud.md`): a single strong signal (a conversion far faster than its goal's norm
//! or the advertiser's floor, a later goal before the first, a device claiming several
//! users) reaches the default hold score of 50 alone; weaker ones (a shared address, a
//! data-centre address, a placement's rates) hold only together.

use crate::model::fraud::{FraudReason, FraudRules, FraudSignal};

/// Minutes within which users of one placement on one address (or range) are counted.
pub const NEARBY_MINUTES: i64 = 10;
/// Hours within which users of one address or device are counted across placements.
pub const DAY_HOURS: i64 = 24;

const FAST_FLOOR_POINTS: i32 = 50;
const FAST_NORM_POINTS: i32 = 50;
const QUICK_NORM_POINTS: i32 = 25;
/// A goal's norm needs this many paid conversions with their timing.
pub const NORM_MIN_SAMPLES: usize = 20;
/// Below this median (seconds) a goal has no meaningful "too fast".
const NORM_MIN_MEDIAN: i64 = 60;
const SHARED_ADDRESS_USERS: usize = 3;
const SHARED_RANGE_USERS: usize = 6;
const SHARED_DEVICE_USERS: usize = 2;
const BUSY_ADDRESS_USERS: usize = 10;
const DATACENTER_POINTS: i32 = 35;
const FUNNEL_POINTS: i32 = 50;
const RATE_POINTS: i32 = 20;
/// A placement's rate counts when it is this many times its peers'.
const RATE_FACTOR: i64 = 3;
const MIN_PLACEMENT_LAUNCHES: i64 = 50;
const MIN_PLACEMENT_CONVERSIONS: i64 = 20;

/// A goal's usual time from click to conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Norm {
    pub median_seconds: i64,
    pub samples: usize,
}

/// Users seen with the click's address, range or device (the user itself included).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Nearby {
    /// Users of the same placement on the same address within [`NEARBY_MINUTES`].
    pub placement_address_users: usize,
    /// The same on the same network (/24, /48).
    pub placement_network_users: usize,
    /// Users of any placement on the same address within [`DAY_HOURS`].
    pub address_users: usize,
    /// Users of any placement on the same device within [`DAY_HOURS`].
    pub device_users: usize,
}

/// A placement's counts on the campaign against the campaign's other placements (the last
/// seven days).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rates {
    pub launches: i64,
    pub conversions: i64,
    pub reversed: i64,
    pub peer_launches: i64,
    pub peer_conversions: i64,
    pub peer_reversed: i64,
}

/// What is known about one conversion's click.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub seconds_to_convert: Option<i64>,
    pub address: Option<String>,
    pub nearby: Nearby,
    pub datacenter: Option<String>,
    pub norm: Option<Norm>,
    /// The goal is not the campaign's first and the user never reached the first.
    pub out_of_order: Option<String>,
    pub rates: Option<Rates>,
}

/// A conversion's score and the reasons behind it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Assessment {
    pub score: i32,
    pub reasons: Vec<FraudReason>,
}

impl Assessment {
    fn add(&mut self, signal: FraudSignal, points: i32, detail: String) {
        self.reasons.push(FraudReason {
            signal,
            points,
            detail,
        });
        self.score = (self.score + points).min(100);
    }

    /// Whether the rules hold a conversion with this score.
    pub fn holds(&self, rules: &FraudRules) -> bool {
        self.score >= rules.hold_score
    }

    /// Adds the web pixel's review window (it holds whatever the score).
    pub fn pixel_review(&mut self, hours: i64) {
        self.reasons.push(FraudReason {
            signal: FraudSignal::PixelReview,
            points: 0,
            detail: format!("reported by a web pixel: held {hours} h for the advertiser's review"),
        });
    }

    /// The reasons as stored on the conversion (none when there are none).
    pub fn stored_reasons(&self) -> Option<String> {
        (!self.reasons.is_empty())
            .then(|| serde_json::to_string(&self.reasons).ok())
            .flatten()
    }
}

/// Scores a conversion.
pub fn assess(f: &Facts, rules: &FraudRules) -> Assessment {
    let mut a = Assessment::default();
    fast(&mut a, f, rules);
    shared(&mut a, f);
    if let Some(provider) = &f.datacenter {
        a.add(
            FraudSignal::Datacenter,
            DATACENTER_POINTS,
            format!("the click came from a hosting address range ({provider})"),
        );
    }
    if let Some(first) = &f.out_of_order {
        a.add(
            FraudSignal::FunnelOrder,
            FUNNEL_POINTS,
            format!("reached before the campaign's first goal ({first})"),
        );
    }
    if let Some(r) = &f.rates {
        rates(&mut a, r);
    }
    a
}

fn fast(a: &mut Assessment, f: &Facts, rules: &FraudRules) {
    let Some(seconds) = f.seconds_to_convert else {
        return;
    };
    if let Some(floor) = rules.min_seconds_to_convert
        && seconds < floor
    {
        a.add(
            FraudSignal::FastConversion,
            FAST_FLOOR_POINTS,
            format!("converted {seconds} s after the click; the campaign's floor is {floor} s"),
        );
        return;
    }
    let Some(n) = f
        .norm
        .filter(|n| n.samples >= NORM_MIN_SAMPLES && n.median_seconds >= NORM_MIN_MEDIAN)
    else {
        return;
    };
    let (points, share) = if seconds * 10 < n.median_seconds {
        (FAST_NORM_POINTS, "a tenth")
    } else if seconds * 4 < n.median_seconds {
        (QUICK_NORM_POINTS, "a quarter")
    } else {
        return;
    };
    a.add(
        FraudSignal::FastConversion,
        points,
        format!(
            "converted {seconds} s after the click, under {share} of this goal's usual {} s",
            n.median_seconds
        ),
    );
}

fn shared(a: &mut Assessment, f: &Facts) {
    let n = f.nearby;
    let at = f.address.as_deref().unwrap_or("one address");
    if n.placement_address_users >= SHARED_ADDRESS_USERS {
        let extra = n.placement_address_users - SHARED_ADDRESS_USERS;
        let points = (20 + 5 * i32::try_from(extra).unwrap_or(4)).min(40);
        a.add(
            FraudSignal::SharedAddress,
            points,
            format!(
                "{} users of this placement converted from {at} within {NEARBY_MINUTES} minutes",
                n.placement_address_users
            ),
        );
    } else if n.placement_network_users >= SHARED_RANGE_USERS {
        a.add(
            FraudSignal::SharedRange,
            15,
            format!(
                "{} users of this placement converted from the address range of {at} within {NEARBY_MINUTES} minutes",
                n.placement_network_users
            ),
        );
    }
    if n.device_users > SHARED_DEVICE_USERS {
        let extra = n.device_users - SHARED_DEVICE_USERS - 1;
        let points = (50 + 10 * i32::try_from(extra).unwrap_or(1)).min(60);
        a.add(
            FraudSignal::SharedDevice,
            points,
            format!(
                "one device claimed {} users within {DAY_HOURS} hours",
                n.device_users
            ),
        );
    }
    if n.address_users >= BUSY_ADDRESS_USERS {
        a.add(
            FraudSignal::BusyAddress,
            25,
            format!(
                "{at} claimed {} users within {DAY_HOURS} hours",
                n.address_users
            ),
        );
    }
}

fn rates(a: &mut Assessment, r: &Rates) {
    // Conversions per launch, compared as cross products (no division, no floats).
    if r.launches >= MIN_PLACEMENT_LAUNCHES
        && r.peer_launches >= MIN_PLACEMENT_LAUNCHES
        && r.peer_conversions > 0
        && r.conversions * r.peer_launches > RATE_FACTOR * r.peer_conversions * r.launches
    {
        a.add(
            FraudSignal::ConversionRate,
            RATE_POINTS,
            format!(
                "this placement converted {} of {} clicks this week; the campaign's others {} of {}",
                r.conversions, r.launches, r.peer_conversions, r.peer_launches
            ),
        );
    }
    if r.conversions >= MIN_PLACEMENT_CONVERSIONS
        && r.peer_conversions >= MIN_PLACEMENT_CONVERSIONS
        && r.reversed * 5 >= r.conversions
        && r.reversed * r.peer_conversions > RATE_FACTOR * r.peer_reversed * r.conversions
    {
        a.add(
            FraudSignal::ReversalRate,
            RATE_POINTS,
            format!(
                "{} of this placement's {} conversions this week were reversed; {} of the campaign's other {}",
                r.reversed, r.conversions, r.peer_reversed, r.peer_conversions
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(floor: Option<i64>) -> FraudRules {
        FraudRules {
            campaign_id: "cmp".into(),
            hold_score: 50,
            min_seconds_to_convert: floor,
        }
    }

    fn norm(median: i64) -> Option<Norm> {
        Some(Norm {
            median_seconds: median,
            samples: 40,
        })
    }

    #[test]
    fn an_ordinary_conversion_scores_nothing() {
        let f = Facts {
            seconds_to_convert: Some(600),
            norm: norm(900),
            nearby: Nearby {
                placement_address_users: 2,
                placement_network_users: 5,
                address_users: 9,
                device_users: 2,
            },
            ..Facts::default()
        };
        let a = assess(&f, &rules(Some(30)));
        assert_eq!(a.score, 0, "{a:?}");
        assert!(!a.holds(&rules(None)));
    }

    #[test]
    fn far_faster_than_the_goal_holds_alone() {
        let f = Facts {
            seconds_to_convert: Some(5),
            norm: norm(600),
            ..Facts::default()
        };
        let a = assess(&f, &rules(None));
        assert_eq!(a.score, 50);
        assert!(a.holds(&rules(None)));
        assert_eq!(a.reasons[0].signal, FraudSignal::FastConversion);
        // A quarter of the norm is suspicious, not enough alone.
        let f = Facts {
            seconds_to_convert: Some(100),
            norm: norm(600),
            ..Facts::default()
        };
        assert_eq!(assess(&f, &rules(None)).score, 25);
        // Too few samples or a goal that is fast anyway: no norm.
        let few = Facts {
            seconds_to_convert: Some(1),
            norm: Some(Norm {
                median_seconds: 600,
                samples: 19,
            }),
            ..Facts::default()
        };
        assert_eq!(assess(&few, &rules(None)).score, 0);
        let quick_goal = Facts {
            seconds_to_convert: Some(1),
            norm: norm(59),
            ..Facts::default()
        };
        assert_eq!(assess(&quick_goal, &rules(None)).score, 0);
    }

    #[test]
    fn the_advertisers_floor_counts_without_history() {
        let f = Facts {
            seconds_to_convert: Some(29),
            ..Facts::default()
        };
        assert_eq!(assess(&f, &rules(Some(30))).score, 50);
        let f = Facts {
            seconds_to_convert: Some(30),
            ..Facts::default()
        };
        assert_eq!(assess(&f, &rules(Some(30))).score, 0);
    }

    #[test]
    fn shared_addresses_and_devices_add_up() {
        let nearby = |a, n, d, b| Nearby {
            placement_address_users: a,
            placement_network_users: n,
            device_users: d,
            address_users: b,
        };
        let score = |n| {
            assess(
                &Facts {
                    nearby: n,
                    ..Facts::default()
                },
                &rules(None),
            )
            .score
        };
        assert_eq!(score(nearby(3, 3, 0, 3)), 20);
        assert_eq!(score(nearby(7, 7, 0, 7)), 40);
        assert_eq!(score(nearby(2, 6, 0, 2)), 15);
        assert_eq!(score(nearby(1, 1, 3, 1)), 50);
        assert_eq!(score(nearby(1, 1, 5, 1)), 60);
        assert_eq!(score(nearby(1, 1, 0, 10)), 25);
        // Capped at 100.
        assert_eq!(score(nearby(20, 20, 20, 20)), 100);
    }

    #[test]
    fn funnel_datacenter_and_rates() {
        let f = Facts {
            out_of_order: Some("install".into()),
            datacenter: Some("aws".into()),
            ..Facts::default()
        };
        let a = assess(&f, &rules(None));
        assert_eq!(a.score, 85);
        assert_eq!(a.reasons.len(), 2);
        let r = Rates {
            launches: 100,
            conversions: 40,
            reversed: 10,
            peer_launches: 1000,
            peer_conversions: 100,
            peer_reversed: 2,
        };
        let a = assess(
            &Facts {
                rates: Some(r),
                ..Facts::default()
            },
            &rules(None),
        );
        assert_eq!(a.score, 40, "{a:?}");
        // At three times the peers' rate exactly: no signal.
        let even = Rates {
            conversions: 30,
            reversed: 0,
            ..r
        };
        let a = assess(
            &Facts {
                rates: Some(even),
                ..Facts::default()
            },
            &rules(None),
        );
        assert_eq!(a.score, 0, "{a:?}");
    }
}
