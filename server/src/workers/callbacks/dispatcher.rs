//! The delivery loop of `server serve`.
//!
//! It keeps a queue of claimed deliveries per placement and sends from them round-robin,
//! up to `per_receiver` requests in flight to one receiver and [`MAX_IN_FLIGHT`] in all.
//! A placement's queue is refilled by the fair claim before it runs dry, and placements
//! whose queue is still long are left out of the next claim, so a backlog of any size holds
//! at most [`PER_PLACEMENT_CLAIM`] rows here while every other placement's next delivery is
//! claimed in the next round. Outcomes go to one recorder task that writes them in batches.
//!
//! It claims when woken ([`app::domain::callback_delivery::DueSignal`]: a settlement in this
//! process, a `NOTIFY` from another), while the last claim found work, and every 100 ms
//! (a plain indexed read while nothing is due; this bounds another process's settlement on
//! SQLite, which has no `NOTIFY`); never more often than the last claim took, so claiming
//! costs at most half of one database connection. A one-second tick releases rewards left
//! waiting beside a configured receiver.
//!
//! Before each send the lease is checked: a delivery whose lease would run out before the
//! send could finish has its placement's queue renewed first, and one whose lease was lost
//! is dropped (another worker owns it). Outcomes are recorded only under a held lease.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use app::domain::callback_delivery::dispatch::claim::WALK_LIMIT;
use app::domain::callback_delivery::dispatch::{self, ClaimRequest, Claimed, Finished};
use tokio::sync::mpsc;

use super::{attempt, lease, observe, owner_id};
use crate::state::AppState;

/// Requests in flight from one process at most.
const MAX_IN_FLIGHT: usize = 512;
/// Claimed deliveries waiting here (all placements) before no more are claimed.
const MAX_WAITING: usize = 2_048;
/// Deliveries of one placement one claim takes at most.
const PER_PLACEMENT_CLAIM: usize = 256;
/// The fallback poll for work no signal announced (another process's settlement on SQLite,
/// a hold that ended, a retry that came due): a plain indexed read while nothing is due.
const POLL: Duration = Duration::from_millis(100);
/// How often rewards left waiting beside a configured receiver are released.
const TICK: Duration = Duration::from_secs(1);
/// Outcomes recorded in one transaction at most.
const RECORD_BATCH: usize = 256;
/// The shortest pause between two claims.
const MIN_CLAIM_GAP: Duration = Duration::from_millis(2);

#[derive(Default)]
struct Queue {
    waiting: VecDeque<Claimed>,
    in_flight: usize,
    /// Whether the placement is in the rotation (at most once).
    rotating: bool,
}

struct Dispatcher {
    state: AppState,
    owner: String,
    queues: HashMap<String, Queue>,
    /// Placements in round-robin order (each at most once).
    rotation: VecDeque<String>,
    waiting: usize,
    in_flight: usize,
    /// Claim again soon: woken, or the last claim found work.
    want_claim: bool,
    last_claim: Instant,
    claim_cost: Duration,
    /// Where the next claim's walk over placements starts (see `ClaimRequest::after`).
    walk_from: Option<String>,
    done_tx: mpsc::UnboundedSender<String>,
    record_tx: mpsc::Sender<Finished>,
}

/// Runs forever (supervised by `workers::spawn`).
pub async fn run(state: AppState) {
    let owner = owner_id();
    let (done_tx, mut done_rx) = mpsc::unbounded_channel();
    let (record_tx, record_rx) = mpsc::channel(4 * RECORD_BATCH);
    let recorder = tokio::spawn(record(state.clone(), owner.clone(), record_rx));
    let _recorder = AbortOnDrop(recorder);
    let mut d = Dispatcher {
        state: state.clone(),
        owner,
        queues: HashMap::new(),
        rotation: VecDeque::new(),
        waiting: 0,
        in_flight: 0,
        want_claim: true,
        last_claim: Instant::now(),
        claim_cost: Duration::ZERO,
        walk_from: None,
        done_tx,
        record_tx,
    };
    let mut next_tick = Instant::now();
    let mut next_poll = Instant::now();
    loop {
        if Instant::now() >= next_tick {
            next_tick = Instant::now() + TICK;
            if let Err(e) = dispatch::release_orphans(&d.state.ctx).await {
                tracing::warn!(error = %e, "releasing waiting reward callbacks failed");
            }
        }
        if Instant::now() >= next_poll {
            next_poll = Instant::now() + POLL;
            d.want_claim = true;
        }
        let gap = d.claim_cost.max(MIN_CLAIM_GAP);
        let claim_at = d.last_claim + gap;
        if d.want_claim && d.waiting < MAX_WAITING / 2 && Instant::now() >= claim_at {
            d.refill().await;
        }
        d.dispatch().await;
        crate::metrics::callbacks_in_flight(d.in_flight);
        let wake_at = if d.want_claim && d.waiting < MAX_WAITING / 2 {
            next_poll.min(claim_at.max(Instant::now()))
        } else {
            next_poll
        };
        tokio::select! {
            biased;
            // First: under load finished sends never stop coming, and a new delivery must
            // not wait behind them.
            () = state.ctx.deliveries.due() => d.want_claim = true,
            Some(placement) = done_rx.recv() => {
                d.finished(&placement);
                while let Ok(p) = done_rx.try_recv() {
                    d.finished(&p);
                }
            }
            () = tokio::time::sleep_until(wake_at.into()) => {}
        }
    }
}

impl Dispatcher {
    /// Claims more work fairly, leaving out placements whose queue is still long.
    async fn refill(&mut self) {
        let exclude: Vec<String> = self
            .queues
            .iter()
            .filter(|(_, q)| q.waiting.len() >= PER_PLACEMENT_CLAIM / 2)
            .map(|(p, _)| p.clone())
            .collect();
        let started = Instant::now();
        let claimed = dispatch::claim(
            &self.state.ctx,
            ClaimRequest {
                owner: &self.owner,
                limit: MAX_WAITING - self.waiting,
                per_placement: PER_PLACEMENT_CLAIM,
                exclude: &exclude,
                lease: lease(),
                after: self.walk_from.as_deref(),
            },
        )
        .await;
        self.claim_cost = started.elapsed();
        self.last_claim = Instant::now();
        match claimed {
            Ok(claimed) => {
                self.want_claim = !claimed.is_empty();
                // With very many placements at work, the next claim walks on from here.
                let placements: std::collections::BTreeSet<&str> = claimed
                    .iter()
                    .map(|c| c.delivery.placement_id.as_str())
                    .collect();
                self.walk_from = (placements.len() >= WALK_LIMIT / 2)
                    .then(|| placements.last().map(|p| (*p).to_owned()))
                    .flatten();
                for c in claimed {
                    self.enqueue(c);
                }
            }
            Err(e) => {
                self.want_claim = false;
                tracing::warn!(error = %e, "claiming reward callbacks failed");
            }
        }
    }

    fn enqueue(&mut self, c: Claimed) {
        let placement = c.delivery.placement_id.clone();
        let q = self.queues.entry(placement.clone()).or_default();
        if !q.rotating {
            q.rotating = true;
            self.rotation.push_back(placement);
        }
        q.waiting.push_back(c);
        self.waiting += 1;
    }

    /// Starts sends round-robin over placements within both limits.
    async fn dispatch(&mut self) {
        let per_receiver = self.state.callbacks.per_receiver;
        let mut idle_passes = 0;
        while self.in_flight < MAX_IN_FLIGHT && idle_passes < self.rotation.len() {
            let Some(placement) = self.rotation.pop_front() else {
                break;
            };
            let ready = self
                .queues
                .get(&placement)
                .is_some_and(|q| !q.waiting.is_empty() && q.in_flight < per_receiver);
            if ready && self.ensure_lease(&placement).await {
                idle_passes = 0;
                self.start(&placement);
            } else {
                idle_passes += 1;
            }
            match self.queues.get_mut(&placement) {
                Some(q) if !q.waiting.is_empty() || q.in_flight > 0 => {
                    self.rotation.push_back(placement)
                }
                _ => {
                    self.queues.remove(&placement);
                }
            }
        }
    }

    /// Makes sure the next delivery of `placement` is covered by its lease for a whole send:
    /// renews the placement's queue when it is not, dropping deliveries whose lease was lost.
    async fn ensure_lease(&mut self, placement: &str) -> bool {
        let ctx = &self.state.ctx;
        let budget = chrono::Duration::from_std(self.state.callbacks.timeout)
            .unwrap_or_else(|_| chrono::Duration::seconds(60))
            + chrono::Duration::seconds(5);
        let now = ctx.now();
        let Some(q) = self.queues.get_mut(placement) else {
            return false;
        };
        if q.waiting
            .front()
            .is_some_and(|c| c.lease_covers(now, budget))
        {
            return true;
        }
        let ids: Vec<String> = q.waiting.iter().map(|c| c.delivery.id.clone()).collect();
        match dispatch::renew(ctx, &self.owner, &ids, lease()).await {
            Ok((kept, until)) => {
                let before = q.waiting.len();
                q.waiting.retain(|c| kept.contains(&c.delivery.id));
                for c in &mut q.waiting {
                    c.delivery.lease_until = Some(until);
                }
                self.waiting -= before - q.waiting.len();
                !q.waiting.is_empty()
            }
            Err(e) => {
                tracing::warn!(error = %e, "renewing reward callback leases failed");
                false
            }
        }
    }

    fn start(&mut self, placement: &str) {
        let Some(q) = self.queues.get_mut(placement) else {
            return;
        };
        let Some(c) = q.waiting.pop_front() else {
            return;
        };
        q.in_flight += 1;
        self.waiting -= 1;
        self.in_flight += 1;
        if q.waiting.len() + 1 == PER_PLACEMENT_CLAIM / 2 {
            // Its queue just fell below the refill mark: the next claim includes it again.
            self.want_claim = true;
        }
        let (state, owner) = (self.state.clone(), self.owner.clone());
        let (done, record) = (self.done_tx.clone(), self.record_tx.clone());
        let placement = placement.to_owned();
        tokio::spawn(async move {
            if let Some(f) = attempt(&state, &owner, c).await {
                let _ = record.send(f).await;
            }
            let _ = done.send(placement);
        });
    }

    fn finished(&mut self, placement: &str) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if let Some(q) = self.queues.get_mut(placement) {
            q.in_flight = q.in_flight.saturating_sub(1);
        }
    }
}

/// Records outcomes as they arrive, as many per transaction as are waiting (up to
/// [`RECORD_BATCH`]): under load a batch fills while the previous one commits.
async fn record(state: AppState, owner: String, mut rx: mpsc::Receiver<Finished>) {
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while batch.len() < RECORD_BATCH {
            match rx.try_recv() {
                Ok(f) => batch.push(f),
                Err(_) => break,
            }
        }
        let n = batch.len();
        match dispatch::record_batch(&state.ctx, &owner, batch).await {
            // A reversal freed by a delivered confirmation is taken by the next claim
            // (within the one-second tick at the latest).
            Ok(recorded) => observe(&recorded, state.ctx.now()),
            // The leases run out and the deliveries are sent again (at least once).
            Err(e) => {
                tracing::warn!(error = %e, attempts = n, "recording reward callback attempts failed")
            }
        }
    }
}

/// Stops the recorder when the loop stops (a supervised restart starts a new one).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
