//! What a settlement batch knows about its clicks' neighbours: the first sightings of the
//! last day on the same address ranges and devices (a user's first conversion there on a
//! placement that day; later ones add nothing the signals count), and which users already
//! reached the campaign's first goal. Read once per batch (two or three index-only
//! queries, whatever its size), then kept up to date in memory with the batch's own
//! conversions, so the twentieth conversion of a click farm in one batch sees the nineteen
//! before it.

use std::collections::HashSet;

use chrono::{DateTime, Duration, Utc};
use sea_orm::{ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use super::address::ClickAddress;
use super::signals::{DAY_HOURS, NEARBY_MINUTES, Nearby};
use crate::error::AppError;
use crate::model::campaign::conversions::Settlement;
use entity::conversion;

/// Rows read per batch at most (a busy address beyond this is busy enough).
const MAX_ROWS: u64 = 5_000;

/// One click a batch assesses.
#[derive(Debug, Clone)]
pub struct Click {
    pub placement_id: String,
    pub user: String,
    pub address: Option<ClickAddress>,
    pub device: Option<String>,
}

/// A conversion seen near a click.
#[derive(Debug, Clone)]
struct Seen {
    ip: Option<String>,
    network: Option<String>,
    device: Option<String>,
    placement: Option<String>,
    user: Option<String>,
    at: DateTime<Utc>,
}

/// The neighbourhood of a batch's clicks.
#[derive(Debug, Default)]
pub struct Evidence {
    seen: Vec<Seen>,
    first_goal_users: HashSet<(String, String)>,
    first_goal_loaded: bool,
}

type NetworkRow = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    DateTime<Utc>,
);
type DeviceRow = (
    Option<String>,
    Option<String>,
    Option<String>,
    DateTime<Utc>,
);

impl Evidence {
    /// Reads the first sightings of the last day that share a range or a device with
    /// `clicks` (two index-only range reads, whatever the batch's size).
    pub async fn load<C: ConnectionTrait>(
        db: &C,
        now: DateTime<Utc>,
        clicks: &[Click],
    ) -> Result<Self, AppError> {
        let since = now - Duration::hours(DAY_HOURS);
        let networks: HashSet<&str> = clicks
            .iter()
            .filter_map(|c| c.address.as_ref().map(|a| a.network.as_str()))
            .collect();
        let devices: HashSet<&str> = clicks.iter().filter_map(|c| c.device.as_deref()).collect();
        let mut ev = Evidence::default();
        if !networks.is_empty() {
            let rows: Vec<NetworkRow> = conversion::Entity::find()
                .select_only()
                .column(conversion::Column::ClickIp)
                .column(conversion::Column::ClickNetwork)
                .column(conversion::Column::PlacementId)
                .column(conversion::Column::ExternalUserId)
                .column(conversion::Column::CreatedAt)
                .filter(conversion::Column::ClickNetwork.is_in(networks))
                .filter(conversion::Column::CreatedAt.gte(since))
                .limit(MAX_ROWS)
                .into_tuple()
                .all(db)
                .await?;
            ev.seen.extend(
                rows.into_iter()
                    .map(|(ip, network, placement, user, at)| Seen {
                        ip,
                        network,
                        device: None,
                        placement,
                        user,
                        at,
                    }),
            );
        }
        if !devices.is_empty() {
            let rows: Vec<DeviceRow> = conversion::Entity::find()
                .select_only()
                .column(conversion::Column::DeviceId)
                .column(conversion::Column::PlacementId)
                .column(conversion::Column::ExternalUserId)
                .column(conversion::Column::CreatedAt)
                .filter(conversion::Column::DeviceId.is_in(devices))
                .filter(conversion::Column::CreatedAt.gte(since))
                .limit(MAX_ROWS)
                .into_tuple()
                .all(db)
                .await?;
            ev.seen
                .extend(rows.into_iter().map(|(device, placement, user, at)| Seen {
                    ip: None,
                    network: None,
                    device,
                    placement,
                    user,
                    at,
                }));
        }
        Ok(ev)
    }

    /// Reads which of `clicks`' users reached the campaign's `first_goal` before (once per
    /// batch, when a report of a later goal needs it).
    pub async fn load_first_goal<C: ConnectionTrait>(
        &mut self,
        db: &C,
        campaign_id: &str,
        clicks: &[Click],
        first_goal: &str,
    ) -> Result<(), AppError> {
        if self.first_goal_loaded {
            return Ok(());
        }
        self.first_goal_loaded = true;
        let mut users = Condition::any();
        for c in clicks {
            users = users.add(
                Condition::all()
                    .add(conversion::Column::PlacementId.eq(c.placement_id.clone()))
                    .add(conversion::Column::ExternalUserId.eq(c.user.clone())),
            );
        }
        let reached: Vec<(Option<String>, Option<String>)> = conversion::Entity::find()
            .select_only()
            .column(conversion::Column::PlacementId)
            .column(conversion::Column::ExternalUserId)
            .filter(users)
            .filter(conversion::Column::CampaignId.eq(campaign_id.to_owned()))
            .filter(conversion::Column::GoalId.eq(first_goal.to_owned()))
            .filter(conversion::Column::Settlement.is_not_in([
                Settlement::Rejected.as_str(),
                Settlement::UnmatchedClick.as_str(),
                Settlement::UnknownGoal.as_str(),
                Settlement::OutOfWindow.as_str(),
            ]))
            .into_tuple()
            .all(db)
            .await?;
        self.first_goal_users
            .extend(reached.into_iter().filter_map(|(p, u)| p.zip(u)));
        Ok(())
    }

    /// Users seen with the click's address, range and device (the click's user included).
    pub fn nearby(&self, now: DateTime<Utc>, click: &Click) -> Nearby {
        let recent = now - Duration::minutes(NEARBY_MINUTES);
        let mut placement_address = HashSet::from([click.user.as_str()]);
        let mut placement_network = placement_address.clone();
        let mut address = placement_address.clone();
        let mut device = placement_address.clone();
        let ip = click.address.as_ref().map(|a| a.ip.to_string());
        for s in &self.seen {
            let Some(user) = s.user.as_deref() else {
                continue;
            };
            let same_placement = s.placement.as_deref() == Some(click.placement_id.as_str());
            let same_ip = ip.is_some() && s.ip == ip;
            let same_network = click
                .address
                .as_ref()
                .is_some_and(|a| s.network.as_deref() == Some(a.network.as_str()));
            if same_ip {
                address.insert(user);
            }
            if same_placement && s.at >= recent {
                if same_ip {
                    placement_address.insert(user);
                }
                if same_network {
                    placement_network.insert(user);
                }
            }
            if click.device.is_some() && s.device == click.device {
                device.insert(user);
            }
        }
        Nearby {
            placement_address_users: placement_address.len(),
            placement_network_users: placement_network.len(),
            address_users: if ip.is_some() { address.len() } else { 0 },
            device_users: if click.device.is_some() {
                device.len()
            } else {
                0
            },
        }
    }

    /// Whether the click's user reached the campaign's first goal (earlier, or in this
    /// batch).
    pub fn reached_first_goal(&self, click: &Click) -> bool {
        self.first_goal_users
            .contains(&(click.placement_id.clone(), click.user.clone()))
    }

    /// Whether the click's user was already seen on its placement today with its address
    /// and with its device: a sighting seen before is not stored again (the conversion keeps
    /// no network or device), so the indexes hold first sightings only.
    pub fn seen_before(&self, click: &Click) -> (bool, bool) {
        let ip = click.address.as_ref().map(|a| a.ip.to_string());
        let mine = |s: &&Seen| {
            s.placement.as_deref() == Some(click.placement_id.as_str())
                && s.user.as_deref() == Some(click.user.as_str())
        };
        let address = ip.is_some() && self.seen.iter().filter(mine).any(|s| s.ip == ip);
        let device = click.device.is_some()
            && self
                .seen
                .iter()
                .filter(mine)
                .any(|s| s.device == click.device);
        (address, device)
    }

    /// Counts a conversion this batch attributed, for the reports after it.
    pub fn record(&mut self, now: DateTime<Utc>, click: &Click, first_goal: bool) {
        self.seen.push(Seen {
            ip: click.address.as_ref().map(|a| a.ip.to_string()),
            network: click.address.as_ref().map(|a| a.network.clone()),
            device: click.device.clone(),
            placement: Some(click.placement_id.clone()),
            user: Some(click.user.clone()),
            at: now,
        });
        if first_goal {
            self.first_goal_users
                .insert((click.placement_id.clone(), click.user.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn click(user: &str, placement: &str, ip: &str) -> Click {
        Click {
            placement_id: placement.into(),
            user: user.into(),
            address: ClickAddress::parse(ip),
            device: None,
        }
    }

    #[test]
    fn neighbours_counted_by_placement_address_and_time() {
        let now = chrono::Utc::now();
        let mut ev = Evidence::default();
        for i in 0..4 {
            ev.record(now, &click(&format!("u{i}"), "p1", "203.0.113.7"), true);
        }
        ev.record(now, &click("u9", "p2", "203.0.113.7"), true);
        ev.record(now, &click("u8", "p1", "203.0.113.99"), true);
        // A repeat conversion of one user counts that user once.
        ev.record(now, &click("u0", "p1", "203.0.113.7"), false);
        let n = ev.nearby(now, &click("u5", "p1", "203.0.113.7"));
        assert_eq!(n.placement_address_users, 5);
        assert_eq!(n.placement_network_users, 6);
        assert_eq!(n.address_users, 6);
        assert_eq!(n.device_users, 0);
        // Eleven minutes later the placement's neighbours are gone, the day's are not.
        let later = now + Duration::minutes(11);
        let n = ev.nearby(later, &click("u5", "p1", "203.0.113.7"));
        assert_eq!(n.placement_address_users, 1);
        assert_eq!(n.address_users, 6);
        // A private address counts nobody.
        let n = ev.nearby(now, &click("u5", "p1", "10.0.0.1"));
        assert_eq!(n.placement_address_users, 1);
        assert_eq!(n.address_users, 0);
        assert!(ev.reached_first_goal(&click("u0", "p1", "10.0.0.1")));
        assert!(!ev.reached_first_goal(&click("u0", "p2", "10.0.0.1")));
        // A user seen on its placement with its address is not a first sighting again.
        assert_eq!(
            ev.seen_before(&click("u0", "p1", "203.0.113.7")),
            (true, false)
        );
        assert_eq!(
            ev.seen_before(&click("u0", "p1", "203.0.113.8")),
            (false, false)
        );
        assert_eq!(
            ev.seen_before(&click("u0", "p2", "203.0.113.7")),
            (false, false)
        );
    }
}
