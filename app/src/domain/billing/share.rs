//! The publisher's share of what an advertiser pays: one rule for offers and surveys, for
//! the rewards a wall shows, the earnings settlement stores and the terms a publisher
//! starts with. Lower than every room that uses it (delivery, conversions, surveys,
//! earnings), so none of them imports another for it.

use crate::model::money::Micros;

/// The publisher's share of an advertiser payout, in basis points. The rest is the
/// platform's margin. Rewards shown to users are converted from this share.
pub const PUBLISHER_SHARE_BPS: i64 = 7_000;

/// The publisher's earnings for an advertiser payout (exact; rounded down to the micro).
pub fn publisher_share(payout_micros: Micros) -> Micros {
    let v = i128::from(payout_micros.get()) * i128::from(PUBLISHER_SHARE_BPS) / 10_000;
    Micros(i64::try_from(v).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publisher_share_is_seventy_percent_rounded_down() {
        assert_eq!(publisher_share(Micros(1_500_000)), Micros(1_050_000));
        assert_eq!(publisher_share(Micros(1)), Micros(0));
        assert_eq!(
            publisher_share(Micros(i64::MAX)),
            Micros(6_456_360_425_798_343_064)
        );
    }
}
