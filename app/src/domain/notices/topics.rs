//! Which topics an account webhook listens to, and which mail topic a notice's letter has.

use crate::model::{MailTopic, NoticeTopic};

/// Every topic.
pub const ALL: &str = "*";

/// Whether a webhook's stored topic list (space-separated, or `*`) includes `topic`.
pub fn listens(stored: &str, topic: NoticeTopic) -> bool {
    read(stored).contains(&topic)
}

/// The stored form of a topic list: `*` when it is empty or names every topic.
pub fn store(topics: &[NoticeTopic]) -> String {
    if topics.is_empty() || NoticeTopic::ALL.iter().all(|t| topics.contains(t)) {
        return ALL.to_owned();
    }
    let mut names: Vec<&str> = topics.iter().map(|t| t.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    names.join(" ")
}

/// The topics of a stored list (every topic for `*`; unknown names are dropped).
pub fn read(stored: &str) -> Vec<NoticeTopic> {
    if stored.split_whitespace().any(|t| t == ALL) {
        return NoticeTopic::ALL.to_vec();
    }
    stored
        .split_whitespace()
        .filter_map(NoticeTopic::parse)
        .collect()
}

/// The outbox topic of a notice's letter: the three that were letters before notices keep
/// their own, so the operators' mail page reads the same.
pub fn mail_topic(topic: NoticeTopic) -> MailTopic {
    match topic {
        NoticeTopic::AdvertiserApproved => MailTopic::AdvertiserApproved,
        NoticeTopic::FundingCredited => MailTopic::FundingCredited,
        NoticeTopic::FundingRefused => MailTopic::FundingDeclined,
        _ => MailTopic::Notice,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_listens_to_what_it_names_and_star_to_everything() {
        let some = store(&[NoticeTopic::PayoutPaid, NoticeTopic::PayoutFailed]);
        assert_eq!(some, "payout.failed payout.paid");
        assert!(listens(&some, NoticeTopic::PayoutPaid));
        assert!(!listens(&some, NoticeTopic::PlacementVerified));
        assert!(listens(&store(&[]), NoticeTopic::PlacementVerified));
        assert_eq!(store(NoticeTopic::ALL), ALL);
        assert_eq!(read(&some).len(), 2);
        assert_eq!(read(ALL).len(), NoticeTopic::ALL.len());
    }
}
