//! The legs of each kind of posting. Keeping them here, in pairs (a movement and its exact
//! opposite), is what lets [`super::reconcile`] hold: every builder's legs sum to zero.

use super::{Kind, Leg};
use crate::model::money::Micros;

/// Credits external money to an advertiser's available balance.
pub fn funding_legs(advertiser_id: &str, micros: i64) -> Vec<Leg> {
    funding_paying_owed_legs(advertiser_id, micros, 0)
}

/// Credits external money of which `owed` first pays what the advertiser owes after a
/// refund or chargeback ([`Kind::Owed`]); the rest reaches the available balance.
pub fn funding_paying_owed_legs(advertiser_id: &str, micros: i64, owed: i64) -> Vec<Leg> {
    let owed = owed.clamp(0, micros);
    let mut legs = vec![Leg::new("", Kind::FundingClearing, "", -micros)];
    if owed > 0 {
        legs.push(Leg::new(advertiser_id, Kind::Owed, "", owed));
    }
    if micros > owed {
        legs.push(Leg::new(advertiser_id, Kind::Available, "", micros - owed));
    }
    legs
}

/// Money of a credited funding goes back to the payer (a refund, a chargeback): what the
/// available balance holds (`from_wallet`, guarded) and the rest as owed, which may go
/// negative and is paid by the next funding.
pub fn funding_return_legs(advertiser_id: &str, micros: i64, from_wallet: i64) -> Vec<Leg> {
    let from_wallet = from_wallet.clamp(0, micros);
    let mut legs = vec![Leg::new("", Kind::FundingClearing, "", micros)];
    if from_wallet > 0 {
        legs.push(Leg::new(advertiser_id, Kind::Available, "", -from_wallet));
    }
    if micros > from_wallet {
        legs.push(Leg::new(
            advertiser_id,
            Kind::Owed,
            "",
            -(micros - from_wallet),
        ));
    }
    legs
}

/// Pays what an advertiser owes from its available balance (never below zero).
pub fn debt_payment_legs(advertiser_id: &str, micros: i64) -> Vec<Leg> {
    transfer(
        advertiser_id,
        (Kind::Available, ""),
        (Kind::Owed, ""),
        micros,
    )
}

/// Moves `micros` between two accounts of one owner, `(kind, reference)` each.
fn transfer(owner: &str, from: (Kind, &str), to: (Kind, &str), micros: i64) -> Vec<Leg> {
    vec![
        Leg::new(owner, from.0, from.1, -micros),
        Leg::new(owner, to.0, to.1, micros),
    ]
}

/// Moves available money into a campaign's reserve.
pub fn reserve_legs(advertiser_id: &str, campaign_id: &str, micros: i64) -> Vec<Leg> {
    transfer(
        advertiser_id,
        (Kind::Available, ""),
        (Kind::Reserved, campaign_id),
        micros,
    )
}

/// Returns a campaign's unused reserve to available.
pub fn release_legs(advertiser_id: &str, campaign_id: &str, micros: i64) -> Vec<Leg> {
    transfer(
        advertiser_id,
        (Kind::Reserved, campaign_id),
        (Kind::Available, ""),
        micros,
    )
}

/// Spends from a campaign's reserve (spend is kept per campaign too, for reports).
pub fn spend_legs(advertiser_id: &str, campaign_id: &str, micros: i64) -> Vec<Leg> {
    transfer(
        advertiser_id,
        (Kind::Reserved, campaign_id),
        (Kind::Spent, campaign_id),
        micros,
    )
}

/// Pays a late conversion of a paused or ended campaign (its reserve was released) straight
/// from the available balance.
pub fn late_spend_legs(advertiser_id: &str, campaign_id: &str, micros: i64) -> Vec<Leg> {
    transfer(
        advertiser_id,
        (Kind::Available, ""),
        (Kind::Spent, campaign_id),
        micros,
    )
}

/// Gives back a reversed conversion's spend to the advertiser's available balance.
pub fn reversal_legs(advertiser_id: &str, campaign_id: &str, micros: i64) -> Vec<Leg> {
    transfer(
        advertiser_id,
        (Kind::Spent, campaign_id),
        (Kind::Available, ""),
        micros,
    )
}

/// Where a paid conversion's money came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaidFrom {
    /// The campaign's reserve (a live offer campaign; a wallet-paid survey campaign).
    Reserve,
    /// The advertiser's available balance (a late conversion of a paused or ended campaign).
    Wallet,
    /// Outside the wallet (a survey campaign marked "paid externally"): owed, not moved.
    External,
}

/// The publisher's side of a paid conversion.
#[derive(Debug, Clone, Copy)]
pub struct Earning<'a> {
    pub publisher: &'a str,
    /// The publisher's share; the rest of the payout is the platform's revenue.
    pub publisher_micros: Micros,
    /// Whether the earnings have left the hold: a reversal then takes them out of the
    /// available balance, which may go negative (payments always earn pending).
    pub released: bool,
}

/// Pays a conversion: the advertiser's spend and, mirrored, the publisher's pending
/// earnings and the platform's revenue. Without `earning` (never for `External`) only the
/// advertiser legs move.
pub fn conversion_legs(
    from: PaidFrom,
    advertiser_id: &str,
    campaign_id: &str,
    payout: i64,
    earning: Option<&Earning<'_>>,
) -> Vec<Leg> {
    let mut legs = match from {
        PaidFrom::Reserve => spend_legs(advertiser_id, campaign_id, payout),
        PaidFrom::Wallet => late_spend_legs(advertiser_id, campaign_id, payout),
        PaidFrom::External => vec![Leg::new("", Kind::ExternalReceivable, campaign_id, -payout)],
    };
    if let Some(e) = earning {
        if from != PaidFrom::External {
            legs.push(Leg::new("", Kind::SpendClearing, campaign_id, -payout));
        }
        let share = e.publisher_micros.get();
        legs.push(if e.released {
            Leg::new(e.publisher, Kind::PublisherAvailable, "", share)
        } else {
            Leg::new(e.publisher, Kind::PublisherPending, campaign_id, share)
        });
        legs.push(Leg::new(
            "",
            Kind::PlatformRevenue,
            campaign_id,
            payout - share,
        ));
    }
    legs
}

/// The exact opposite of [`conversion_legs`], from the amounts stored when it was paid: the
/// publisher's share comes out of whichever balance holds it now, and the advertiser's money
/// goes back to its available balance whichever way it was paid (the reserve it came from
/// may have been released since).
pub fn conversion_reversal_legs(
    from: PaidFrom,
    advertiser_id: &str,
    campaign_id: &str,
    payout: i64,
    earning: Option<&Earning<'_>>,
) -> Vec<Leg> {
    let from = if from == PaidFrom::Reserve {
        PaidFrom::Wallet
    } else {
        from
    };
    conversion_legs(from, advertiser_id, campaign_id, payout, earning)
        .into_iter()
        .map(|l| Leg::new(&l.owner, l.kind, &l.reference, -l.amount_micros.get()))
        .collect()
}

/// Releases a publisher's earnings of some campaigns from the hold to its available
/// balance: `(campaign id, amount)` per campaign.
pub fn release_earnings_legs(
    publisher_id: &str,
    per_campaign: &[(String, i64)],
    reserve: Option<(&str, i64)>,
) -> Vec<Leg> {
    let mut legs: Vec<Leg> = per_campaign
        .iter()
        .map(|(c, amount)| Leg::new(publisher_id, Kind::PublisherPending, c, -amount))
        .collect();
    let total: i64 = per_campaign.iter().map(|(_, a)| a).sum();
    // A new publisher's reserve share waits in its due day's account.
    let held = match reserve {
        Some((due, amount)) if amount > 0 => {
            legs.push(Leg::new(publisher_id, Kind::PublisherReserve, due, amount));
            amount
        }
        _ => 0,
    };
    legs.push(Leg::new(
        publisher_id,
        Kind::PublisherAvailable,
        "",
        total - held,
    ));
    legs
}

/// A reserve whose day came is made available.
pub fn reserve_release_legs(publisher_id: &str, due: &str, micros: i64) -> Vec<Leg> {
    vec![
        Leg::new(publisher_id, Kind::PublisherReserve, due, -micros),
        Leg::new(publisher_id, Kind::PublisherAvailable, "", micros),
    ]
}

/// Sets a payout's amount aside: never more than the publisher has available.
pub fn payout_hold_legs(publisher_id: &str, payout_id: &str, micros: i64) -> Vec<Leg> {
    vec![
        Leg::new(publisher_id, Kind::PublisherAvailable, "", -micros).floored(),
        Leg::new(publisher_id, Kind::PayoutHeld, payout_id, micros),
    ]
}

/// A held payout is sent.
pub fn payout_paid_legs(publisher_id: &str, payout_id: &str, micros: i64) -> Vec<Leg> {
    vec![
        Leg::new(publisher_id, Kind::PayoutHeld, payout_id, -micros),
        Leg::new("", Kind::PayoutClearing, "", micros),
    ]
}

/// A payout cancelled, rejected or failed returns to the available balance: from the hold,
/// or, when it had been sent and came back (`was_paid`), from the money paid out.
pub fn payout_return_legs(
    publisher_id: &str,
    payout_id: &str,
    micros: i64,
    was_paid: bool,
) -> Vec<Leg> {
    let from = if was_paid {
        Leg::new("", Kind::PayoutClearing, "", -micros)
    } else {
        Leg::new(publisher_id, Kind::PayoutHeld, payout_id, -micros)
    };
    vec![
        from,
        Leg::new(publisher_id, Kind::PublisherAvailable, "", micros),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(legs: &[Leg]) -> i64 {
        legs.iter().map(|l| l.amount_micros.get()).sum()
    }

    #[test]
    fn a_conversion_and_its_reversal_cancel_out_account_by_account() {
        for from in [PaidFrom::Reserve, PaidFrom::Wallet, PaidFrom::External] {
            for payout in [1, 7, 1_000_001, 123_456_789] {
                let share = payout * 7 / 10;
                let paid = Earning {
                    publisher: "pub",
                    publisher_micros: Micros(share),
                    released: false,
                };
                let legs = conversion_legs(from, "adv", "c", payout, Some(&paid));
                let back = conversion_reversal_legs(from, "adv", "c", payout, Some(&paid));
                assert_eq!(sum(&legs), 0);
                assert_eq!(sum(&back), 0);
                let mut per_account = std::collections::HashMap::new();
                for l in legs.iter().chain(&back) {
                    *per_account
                        .entry((l.owner.clone(), l.kind, l.reference.clone()))
                        .or_insert(0) += l.amount_micros.get();
                }
                // The advertiser's money returns to AVAILABLE (not to the released
                // reserve), so only the wallet path nets to zero on every account.
                for ((owner, kind, _), v) in per_account {
                    if from == PaidFrom::Reserve && owner == "adv" {
                        continue;
                    }
                    assert_eq!(v, 0, "{kind:?} nets to zero for {from:?}");
                }
            }
        }
    }

    #[test]
    fn money_returned_beyond_the_wallet_is_owed_and_paid_first_by_the_next_funding() {
        let back = funding_return_legs("adv", 300, 50);
        assert_eq!(sum(&back), 0);
        let owed = |legs: &[Leg]| {
            legs.iter()
                .filter(|l| l.kind == Kind::Owed)
                .map(|l| l.amount_micros.get())
                .sum::<i64>()
        };
        assert_eq!(owed(&back), -250);
        assert!(
            back.iter()
                .any(|l| l.kind == Kind::Available && l.amount_micros.get() == -50 && l.guarded)
        );
        // The whole return from the wallet owes nothing.
        assert_eq!(owed(&funding_return_legs("adv", 300, 900)), 0);
        let next = funding_paying_owed_legs("adv", 400, 250);
        assert_eq!(sum(&next), 0);
        assert_eq!(owed(&next), 250);
        assert!(
            next.iter()
                .any(|l| l.kind == Kind::Available && l.amount_micros.get() == 150)
        );
        // A funding smaller than the debt goes wholly to it.
        let small = funding_paying_owed_legs("adv", 100, 250);
        assert_eq!(owed(&small), 100);
        assert!(!small.iter().any(|l| l.kind == Kind::Available));
    }

    #[test]
    fn a_reversal_after_release_debits_the_available_balance() {
        let e = Earning {
            publisher: "pub",
            publisher_micros: Micros(70),
            released: true,
        };
        let back = conversion_reversal_legs(PaidFrom::Reserve, "adv", "c", 100, Some(&e));
        assert!(back.iter().any(|l| l.kind == Kind::PublisherAvailable
            && l.amount_micros.get() == -70
            && !l.guarded));
        assert_eq!(sum(&back), 0);
        assert_eq!(
            sum(&release_earnings_legs(
                "pub",
                &[("a".into(), 5), ("b".into(), 7)],
                None
            )),
            0
        );
        let reserved = release_earnings_legs("pub", &[("a".into(), 50)], Some(("2027-01-01", 5)));
        assert_eq!(sum(&reserved), 0);
        assert!(
            reserved
                .iter()
                .any(|l| l.kind == Kind::PublisherAvailable && l.amount_micros.get() == 45)
        );
        assert_eq!(sum(&reserve_release_legs("pub", "2027-01-01", 5)), 0);
    }
}
