//! Fraud signals on offer conversions (issue 51). Settlement asks a [`Screen`] about each
//! approved report before it pays: the screen gathers what the service already knows about
//! the click (its address and device from the launch, the time from click to report, the
//! neighbours of the last day, the goal's usual timing, the placement's rates against its
//! peers, hosting ranges) and scores it with `signals::assess`. A score at or above the
//! campaign's hold score holds the conversion (settlement's `hold`); the placements it
//! touched are checked by the `guard`, which pauses a placement whose held and reversed
//! share passes its limit.
//!
//! Order of the house: fraud sits below conversions (settlement calls it) and above
//! campaigns and placements (it reads their rows); it never imports conversions.
//!
//! Caches (docs/operations.md, "Caches and staleness"): `norms` and `peers` are per-process
//! statistics refreshed from the database after 10 minutes of the domain clock, announced
//! by nothing (the bound is the 10 minutes); `datacenter` is read once at start.

pub mod address;
pub mod datacenter;
pub mod evidence;
pub mod guard;
pub mod norms;
pub mod peers;
pub mod signals;

use chrono::{DateTime, Utc};
use sea_orm::ConnectionTrait;

use self::address::ClickAddress;
use self::evidence::{Click, Evidence};
use self::signals::{Assessment, Facts};
use crate::error::AppError;
use crate::model::fraud::FraudRules;
use entity::sdk_launch;

/// The fraud controls' state in a process.
pub struct Fraud {
    pub datacenters: datacenter::Ranges,
    pub norms: norms::Norms,
    pub peers: peers::Peers,
    pub watch: guard::Watch,
    pub limits: guard::PauseLimits,
}

impl Fraud {
    /// The shipped hosting ranges plus an operator's (`APP_FRAUD_DATACENTER_FILE`), and the
    /// pause limits.
    pub fn new(extra_ranges: Option<&str>, limits: guard::PauseLimits) -> Self {
        Self {
            datacenters: datacenter::Ranges::shipped_with(extra_ranges),
            norms: norms::Norms::default(),
            peers: peers::Peers::default(),
            watch: guard::Watch::default(),
            limits,
        }
    }
}

impl Default for Fraud {
    fn default() -> Self {
        Self::new(None, guard::PauseLimits::default())
    }
}

/// What a launch says about its click: where it came from (the browser that followed the
/// link, else the SDK's launch request) and the device.
pub fn click_of(launch: &sdk_launch::Model) -> Click {
    Click {
        placement_id: launch.placement_id.clone(),
        user: launch.external_user_id.clone(),
        address: launch
            .opened_ip
            .as_deref()
            .or(launch.client_ip.as_deref())
            .and_then(ClickAddress::parse),
        device: launch.device_id.clone(),
    }
}

/// One approved report to screen.
pub struct Report<'a> {
    pub campaign_id: &'a str,
    pub goal_id: &'a str,
    /// The campaign's first goal, when this report's goal is a later one.
    pub first_goal: Option<&'a str>,
    pub click: &'a Click,
    /// When the click was made and when the report arrived.
    pub click_at: DateTime<Utc>,
    pub reported_at: DateTime<Utc>,
}

/// One report's score, and whether its click is a first sighting of the user on its
/// placement today with its address and device (the conversion keeps the network and the
/// device only then: the evidence indexes hold first sightings).
pub struct Screened {
    pub assessment: Assessment,
    pub new_address: bool,
    pub new_device: bool,
}

/// The screening of one settlement batch: its evidence is read once (on the first report,
/// for every click of the batch named by [`Screen::expect`]) and grows with the batch.
#[derive(Default)]
pub struct Screen {
    clicks: Vec<Click>,
    evidence: Option<Evidence>,
}

impl Screen {
    /// Names the clicks the batch will screen, so their evidence is read in one go.
    pub fn expect(&mut self, clicks: impl IntoIterator<Item = Click>) {
        self.clicks.extend(clicks);
    }

    /// Reads, on `db`, everything scoring `r` needs: the evidence of its click (and the
    /// first goal's reach when `r` is of a later goal; both once per batch, for every click
    /// it expects), the goal's norm and the placement's rates. Settlement calls this before
    /// its transaction begins (for each report of a group), so the lock it takes is held
    /// for the money only; [`Screen::assess`] then reads nothing.
    pub async fn prefetch<C: ConnectionTrait>(
        &mut self,
        fraud: &Fraud,
        db: &C,
        now: DateTime<Utc>,
        r: &Report<'_>,
    ) -> Result<(), AppError> {
        self.evidence_for(db, now, r).await?;
        fraud.norms.get(db, now, r.campaign_id, r.goal_id).await?;
        fraud
            .peers
            .rates(db, now, r.campaign_id, &r.click.placement_id)
            .await?;
        Ok(())
    }

    /// The batch's evidence with `r`'s click in it: read once per batch, for every click
    /// it expects (and the first goal's reach once, when a report of a later goal needs it).
    async fn evidence_for<C: ConnectionTrait>(
        &mut self,
        db: &C,
        now: DateTime<Utc>,
        r: &Report<'_>,
    ) -> Result<&mut Evidence, AppError> {
        let known = |c: &Click| c.placement_id == r.click.placement_id && c.user == r.click.user;
        if !self.clicks.iter().any(known) {
            self.clicks.push(r.click.clone());
        }
        let evidence = match self.evidence.take() {
            Some(e) => e,
            None => Evidence::load(db, now, &self.clicks).await?,
        };
        let evidence = self.evidence.insert(evidence);
        if let Some(first) = r.first_goal {
            evidence
                .load_first_goal(db, r.campaign_id, &self.clicks, first)
                .await?;
        }
        Ok(evidence)
    }

    /// Scores one report (and counts it as evidence for the reports after it).
    pub async fn assess<C: ConnectionTrait>(
        &mut self,
        fraud: &Fraud,
        db: &C,
        now: DateTime<Utc>,
        rules: &FraudRules,
        r: &Report<'_>,
    ) -> Result<Screened, AppError> {
        let evidence = self.evidence_for(db, now, r).await?;
        let seconds = (r.reported_at - r.click_at).num_seconds().max(0);
        let norm = fraud.norms.get(db, now, r.campaign_id, r.goal_id).await?;
        let rates = fraud
            .peers
            .rates(db, now, r.campaign_id, &r.click.placement_id)
            .await?;
        let facts = Facts {
            seconds_to_convert: Some(seconds),
            address: r.click.address.as_ref().map(|a| a.ip.to_string()),
            nearby: evidence.nearby(now, r.click),
            datacenter: r
                .click
                .address
                .as_ref()
                .and_then(|a| fraud.datacenters.provider(a.ip))
                .map(str::to_owned),
            norm,
            out_of_order: r
                .first_goal
                .filter(|_| !evidence.reached_first_goal(r.click))
                .map(str::to_owned),
            rates: Some(rates),
        };
        let (address_seen, device_seen) = evidence.seen_before(r.click);
        evidence.record(now, r.click, r.first_goal.is_none());
        Ok(Screened {
            assessment: signals::assess(&facts, rules),
            new_address: !address_seen,
            new_device: !device_seen,
        })
    }
}
