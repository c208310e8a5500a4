//! The in-process vector of episodes behind `pf1e_gym.native` (no Python here: the binding is
//! `lib.rs`).
//!
//! A [`Game`] is what every episode of a vector shares: the encounter, who is controlled, the
//! reward shaping. A [`Slot`] is one episode as the gRPC server's session keeps it — the
//! episode, its last status, its reward bookkeeping ([`RewardTracker`]), the last deciding
//! combatant (the tensor viewer at the end) and the first result of its last step — and it is
//! advanced exactly as the server advances a session (`Episode::advance_within` with the
//! server's default turn budget, `RewardTracker::settle` after every status change), so the
//! same seed and actions give the same observations, masks, rewards and flags bit for bit
//! (checked against the gRPC path by `clients/python/tests/test_native.py`).
//!
//! A [`Core`] holds `n` slots and a pool of pre-reset episodes (SAME_STEP autoreset) and runs
//! one [`Work`] item per slot in parallel on its own rayon pool, writing each slot's row into
//! caller-owned buffers ([`Out`]): the tensors and mask in the worker that stepped the slot,
//! the scalars after (in slot order).
use pf1e_engine::episode::WorkBudget;
use pf1e_engine::observe::tensor::{FEATURES, PLANES};
use pf1e_engine::reward::{RewardConfig, RewardTracker};
use pf1e_engine::{CombatantId, Controller, DecisionKind, Encounter, Episode, Status};
use pf1e_env_server::proto;
use pf1e_env_server::service::{result_to_proto, ServiceError, DEFAULT_MAX_TURNS_PER_CALL};
use rayon::prelude::*;
use std::collections::VecDeque;
use std::sync::Arc;

/// An error of a [`Core`] call, naming the slot (or the field) at fault.
#[derive(Debug, Clone, PartialEq)]
pub enum CoreError {
    /// A bad argument (an action id out of range, a slot index out of range, a slot stepped
    /// twice, a slot with no episode): nothing was applied.
    Invalid(String),
    /// An episode went wrong while stepping (out of turns: a runaway; an engine panic): that
    /// slot has no episode any more; the other slots of the call were applied.
    Episode(String),
}

impl std::fmt::Display for CoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CoreError::Invalid(m) | CoreError::Episode(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for CoreError {}

impl From<ServiceError> for CoreError {
    fn from(e: ServiceError) -> Self {
        CoreError::Invalid(e.to_string())
    }
}

/// What every episode of a vector shares.
#[derive(Debug, Clone)]
pub struct Game {
    enc: Arc<Encounter>,
    controllers: Vec<Controller>,
    /// Controlled combatants, list order (the tensor viewer at the end when no decision was
    /// seen).
    controlled: Vec<CombatantId>,
    /// Sides with a controlled combatant, deployment order (the reward tracker's sides).
    sides: Vec<String>,
    /// The side whose reward is reported (the only controlled side), as the server's
    /// `EpisodeState.reward`.
    reward_side: Option<String>,
    reward: RewardConfig,
    /// Turns one advance may take before the episode is a runaway (the server's default
    /// `--max-turns-per-call`).
    max_turns: u64,
}

impl Game {
    /// A game of `enc` with the controllers and reward settings of a Reset request.
    pub fn new(enc: Arc<Encounter>, controllers: Vec<Controller>, reward: RewardConfig) -> Game {
        let controlled: Vec<CombatantId> = controllers
            .iter()
            .enumerate()
            .filter(|(_, c)| **c == Controller::External)
            .map(|(i, _)| CombatantId(i as u16))
            .collect();
        let sides: Vec<String> = enc
            .sides
            .iter()
            .filter(|side| {
                controlled
                    .iter()
                    .any(|c| enc.combatants[usize::from(c.0)].side == **side)
            })
            .cloned()
            .collect();
        let reward_side = (sides.len() == 1).then(|| sides[0].clone());
        Game {
            enc,
            controllers,
            controlled,
            sides,
            reward_side,
            reward,
            max_turns: DEFAULT_MAX_TURNS_PER_CALL,
        }
    }

    /// The encounter.
    pub fn encounter(&self) -> &Arc<Encounter> {
        &self.enc
    }

    /// The same game with other reward settings.
    pub fn with_reward(&self, reward: RewardConfig) -> Game {
        Game {
            reward,
            ..self.clone()
        }
    }

    /// Values per observation row: planes `PLANES × rows × cols`, features
    /// `combatants × FEATURES`, mask `action space size`.
    pub fn row_lengths(&self) -> (usize, usize, usize) {
        let map = &self.enc.map;
        (
            PLANES * map.rows as usize * map.cols as usize,
            self.enc.combatants.len() * FEATURES,
            pf1e_engine::actions::space::ActionSpace::of(&self.enc).size() as usize,
        )
    }
}

/// One episode, kept as the server keeps a session.
#[derive(Debug, Clone)]
pub struct Slot {
    episode: Episode,
    status: Status,
    tracker: RewardTracker,
    /// The last deciding combatant.
    viewer: Option<CombatantId>,
    /// The controlled side's reward reported by the last status change (0 when none).
    reward: f32,
    /// The first result of the last step: ok and `ResultCode` number (a reset: ok, `OK`).
    result_ok: bool,
    result_code: i32,
    /// Settings of this episode (those of the Reset that started it).
    game: Arc<Game>,
}

impl Slot {
    /// A new episode of `game` with `seed`, advanced to its first controlled decision or its
    /// end (a Reset).
    ///
    /// # Errors
    /// [`CoreError::Episode`] when the advance runs out of turns.
    pub fn reset(game: &Arc<Game>, seed: u64) -> Result<Slot, CoreError> {
        let episode = Episode::new(game.enc.clone(), seed, &game.controllers);
        let tracker = RewardTracker::new(&episode, game.sides.clone(), game.reward);
        let mut s = Slot {
            episode,
            status: Status::Terminal(pf1e_engine::Outcome {
                winner: None,
                rounds: 0,
                truncated: false,
            }),
            tracker,
            viewer: None,
            reward: 0.0,
            result_ok: true,
            result_code: proto::ResultCode::Ok as i32,
            game: game.clone(),
        };
        s.status = s.advance()?;
        s.settle();
        Ok(s)
    }

    fn advance(&mut self) -> Result<Status, CoreError> {
        let stop = || false;
        let mut budget = WorkBudget::new(self.game.max_turns, &stop);
        self.episode.advance_within(&mut budget).map_err(|e| {
            CoreError::Episode(format!(
                "the episode was stopped ({e:?}): out of turns, a runaway"
            ))
        })
    }

    /// After a status change: the viewer, the reported reward, the new baselines (the
    /// server's `Session::settle`).
    fn settle(&mut self) {
        if let Status::Decision(d) = &self.status {
            self.viewer = Some(d.actor);
        }
        let rewards = self.tracker.settle(&self.episode, &self.status);
        self.reward = self
            .game
            .reward_side
            .as_ref()
            .and_then(|side| rewards.iter().find(|(s, _)| s == side).map(|(_, r)| *r))
            .unwrap_or(0.0);
    }

    /// Whether a decision is pending.
    pub fn deciding(&self) -> bool {
        matches!(self.status, Status::Decision(_))
    }

    /// The status.
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// The episode.
    pub fn episode(&self) -> &Episode {
        &self.episode
    }

    /// Check that `action_id` can be submitted now (nothing is applied).
    fn check(&self, action_id: u32) -> Result<(), String> {
        if !self.deciding() {
            return Err("the episode is over: reset it first".into());
        }
        let size = self.episode.action_space_size();
        if action_id >= size {
            return Err(format!(
                "action id {action_id} out of range (ids, 0 to {})",
                size.saturating_sub(1)
            ));
        }
        if self.episode.action_from_id(action_id).is_none() {
            return Err(format!(
                "action id {action_id} does not decode to an action"
            ));
        }
        Ok(())
    }

    /// Submit action `action_id` at the pending decision and advance (a Step by one action
    /// id). The id was checked ([`Slot::check`]).
    ///
    /// # Errors
    /// [`CoreError::Episode`] when the advance runs out of turns.
    fn step(&mut self, action_id: u32) -> Result<(), CoreError> {
        let Status::Decision(d) = &self.status else {
            return Err(CoreError::Invalid("the episode is over".into()));
        };
        let current = d.decision_id;
        let action = self
            .episode
            .action_from_id(action_id)
            .ok_or_else(|| CoreError::Invalid(format!("action id {action_id} does not decode")))?;
        let results = self
            .episode
            .submit(current, &[action])
            .map_err(|e| CoreError::Invalid(e.to_string()))?;
        match results.first() {
            Some(r) => {
                let p = result_to_proto(r, String::new());
                self.result_ok = p.ok;
                self.result_code = p.code;
            }
            None => {
                self.result_ok = true;
                self.result_code = proto::ResultCode::Ok as i32;
            }
        }
        self.status = self.advance()?;
        self.settle();
        Ok(())
    }

    /// Write this slot's tensors and mask into one row: at a decision the actor's view and the
    /// legal ids; at the end the last deciding combatant's view (else the first controlled
    /// one's) and a zero mask — as the server's `EpisodeState`.
    fn write_tensors(&self, planes: &mut [f32], features: &mut [f32], mask: &mut [i8]) {
        let viewer = match &self.status {
            Status::Decision(d) => Some(d.actor),
            Status::Terminal(_) => self
                .viewer
                .or_else(|| self.game.controlled.first().copied()),
        };
        match &self.status {
            Status::Decision(_) => {
                let m = self.episode.action_mask();
                for (dst, &src) in mask.iter_mut().zip(&m) {
                    *dst = src as i8;
                }
            }
            Status::Terminal(_) => mask.fill(0),
        }
        match viewer.filter(|v| usize::from(v.0) < self.game.enc.combatants.len()) {
            Some(v) => {
                let t = self.episode.observation_tensor(v);
                planes.copy_from_slice(&t.planes);
                features.copy_from_slice(&t.features);
            }
            None => {
                planes.fill(0.0);
                features.fill(0.0);
            }
        }
    }

    /// This slot's scalars.
    fn scalars(&self) -> Scalars {
        let mut s = Scalars {
            reward: self.reward,
            result_ok: self.result_ok,
            result_code: i64::from(self.result_code),
            ..Scalars::default()
        };
        match &self.status {
            Status::Decision(d) => {
                s.decision_id = d.decision_id as i64;
                s.actor = i64::from(d.actor.0);
                s.round = i64::from(d.round);
                s.kind = match d.kind {
                    DecisionKind::TurnAction => proto::DecisionKind::TurnAction,
                    DecisionKind::AttackOfOpportunity { .. } => {
                        proto::DecisionKind::AttackOfOpportunity
                    }
                    DecisionKind::ReadiedTrigger { .. } => proto::DecisionKind::ReadiedTrigger,
                    DecisionKind::StepUp { .. } => proto::DecisionKind::StepUp,
                } as i64;
            }
            Status::Terminal(o) => {
                s.actor = -1;
                s.round = i64::from(o.rounds);
                s.terminated = !o.truncated;
                s.truncated = o.truncated;
                s.winner = o
                    .winner
                    .as_ref()
                    .and_then(|w| self.game.enc.sides.iter().position(|x| x == w))
                    .map_or(-1, |i| i as i64);
            }
        }
        s
    }
}

/// The scalars of one row.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Scalars {
    pub reward: f32,
    pub terminated: bool,
    pub truncated: bool,
    /// The pending decision's id (0 at the end).
    pub decision_id: i64,
    /// The deciding combatant's index, -1 at the end.
    pub actor: i64,
    /// The decision's round, or the rounds played at the end.
    pub round: i64,
    /// `DecisionKind` number (0 at the end).
    pub kind: i64,
    pub result_ok: bool,
    pub result_code: i64,
    /// The winning side's index in the encounter's sides; -1 for a draw or no end.
    pub winner: i64,
}

/// Caller-owned output rows, `n` rows each: `planes` `n × planes_len`, `features`
/// `n × features_len`, `masks` `n × actions`, one scalar per row in the rest.
pub struct Out<'a> {
    pub planes: &'a mut [f32],
    pub features: &'a mut [f32],
    pub masks: &'a mut [i8],
    pub rewards: &'a mut [f32],
    pub terminated: &'a mut [bool],
    pub truncated: &'a mut [bool],
    pub decision_ids: &'a mut [i64],
    pub actor: &'a mut [i64],
    pub rounds: &'a mut [i64],
    pub kinds: &'a mut [i64],
    pub result_ok: &'a mut [bool],
    pub result_codes: &'a mut [i64],
    pub winners: &'a mut [i64],
}

impl Out<'_> {
    fn put(&mut self, i: usize, s: &Scalars) {
        self.rewards[i] = s.reward;
        self.terminated[i] = s.terminated;
        self.truncated[i] = s.truncated;
        self.decision_ids[i] = s.decision_id;
        self.actor[i] = s.actor;
        self.rounds[i] = s.round;
        self.kinds[i] = s.kind;
        self.result_ok[i] = s.result_ok;
        self.result_codes[i] = s.result_code;
        self.winners[i] = s.winner;
    }

    /// Check every buffer's length for `n` rows of `game`.
    fn check(&self, n: usize, game: &Game) -> Result<(), CoreError> {
        let (p, f, a) = game.row_lengths();
        let want = [
            ("planes", self.planes.len(), n * p),
            ("features", self.features.len(), n * f),
            ("masks", self.masks.len(), n * a),
            ("rewards", self.rewards.len(), n),
            ("terminated", self.terminated.len(), n),
            ("truncated", self.truncated.len(), n),
            ("decision_ids", self.decision_ids.len(), n),
            ("actor", self.actor.len(), n),
            ("rounds", self.rounds.len(), n),
            ("kinds", self.kinds.len(), n),
            ("result_ok", self.result_ok.len(), n),
            ("result_codes", self.result_codes.len(), n),
            ("winners", self.winners.len(), n),
        ];
        for (name, got, expected) in want {
            if got != expected {
                return Err(CoreError::Invalid(format!(
                    "{name}: {got} values, expected {expected}"
                )));
            }
        }
        Ok(())
    }
}

/// What one call does to a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// Nothing (its row is left as it is).
    Keep,
    /// Submit this action id at the pending decision and advance.
    Step(u32),
    /// A new episode with this seed.
    Reset(u64),
    /// The next episode of the pool (in pool order).
    FromPool,
}

/// `n` slots, a pool of pre-reset episodes and a thread pool.
pub struct Core {
    game: Arc<Game>,
    slots: Vec<Option<Slot>>,
    pool: VecDeque<Slot>,
    threads: rayon::ThreadPool,
}

impl Core {
    /// `n` empty slots of `game`, stepped on `threads` threads (0: one per CPU).
    ///
    /// # Errors
    /// [`CoreError::Invalid`] when the thread pool cannot be built.
    pub fn new(game: Game, n: usize, threads: usize) -> Result<Core, CoreError> {
        let threads = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("pf1e-native-{i}"))
            .build()
            .map_err(|e| CoreError::Invalid(format!("thread pool: {e}")))?;
        Ok(Core {
            game: Arc::new(game),
            slots: vec![None; n],
            pool: VecDeque::new(),
            threads,
        })
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Threads of the pool.
    pub fn threads(&self) -> usize {
        self.threads.current_num_threads()
    }

    /// The settings of episodes started from now on.
    pub fn game(&self) -> &Arc<Game> {
        &self.game
    }

    /// Reward settings for the episodes started from now on (resets and pool refills).
    pub fn set_reward(&mut self, reward: RewardConfig) {
        self.game = Arc::new(self.game.with_reward(reward));
    }

    /// Slot `i`, if it holds an episode.
    pub fn slot(&self, i: usize) -> Option<&Slot> {
        self.slots.get(i).and_then(Option::as_ref)
    }

    /// Episodes in the pool.
    pub fn pool_len(&self) -> usize {
        self.pool.len()
    }

    /// Forget every slot's episode and the pool.
    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
        self.pool.clear();
    }

    /// Run `work[i]` on slot `i` (in parallel) and, at the same time, reset one pooled
    /// episode per `pool_seeds` item (appended to the pool in that order; those already over
    /// at their start are dropped, as the vector env's pool drops them). Each slot that was
    /// worked on gets its row written in `out`; `Keep` rows are not touched. Returns the
    /// number of pooled episodes dropped.
    ///
    /// # Errors
    /// [`CoreError::Invalid`] (nothing applied) for a bad argument: `work` not one item per
    /// slot, a buffer of the wrong length, a `Step` of an empty or ended slot or with a bad
    /// id, more `FromPool` items than the pool will hold; [`CoreError::Episode`] for the
    /// first slot whose episode went wrong (that slot is emptied; the rest was applied).
    pub fn run(
        &mut self,
        work: &[Work],
        pool_seeds: &[u64],
        out: &mut Out<'_>,
    ) -> Result<usize, CoreError> {
        let n = self.slots.len();
        if work.len() != n {
            return Err(CoreError::Invalid(format!(
                "{} work items for {n} slots",
                work.len()
            )));
        }
        out.check(n, &self.game)?;
        let mut from_pool = 0usize;
        for (i, w) in work.iter().enumerate() {
            match *w {
                Work::Step(a) => match &self.slots[i] {
                    None => {
                        return Err(CoreError::Invalid(format!(
                            "env {i}: no episode: call reset() first"
                        )))
                    }
                    Some(s) => s
                        .check(a)
                        .map_err(|m| CoreError::Invalid(format!("env {i}: {m}")))?,
                },
                Work::FromPool => from_pool += 1,
                Work::Keep | Work::Reset(_) => {}
            }
        }
        if from_pool > self.pool.len() {
            return Err(CoreError::Invalid(format!(
                "{from_pool} episodes taken from a pool of {}",
                self.pool.len()
            )));
        }
        // Hand the pooled episodes to their slots (slot order) before the parallel part.
        let mut taken: Vec<Option<Slot>> = vec![None; n];
        for (i, w) in work.iter().enumerate() {
            if *w == Work::FromPool {
                taken[i] = self.pool.pop_front();
            }
        }
        let (pl, fl, al) = self.game.row_lengths();
        let game = &self.game;
        let slots = &mut self.slots;
        let planes = &mut *out.planes;
        let features = &mut *out.features;
        let masks = &mut *out.masks;
        let (results, pooled) = self.threads.install(|| {
            let rows = slots
                .par_iter_mut()
                .zip(taken.into_par_iter())
                .zip(work.par_iter())
                .zip(planes.par_chunks_mut(pl.max(1)))
                .zip(features.par_chunks_mut(fl.max(1)))
                .zip(masks.par_chunks_mut(al.max(1)))
                .map(|(((((slot, taken), w), p), f), m)| work_on(game, slot, taken, *w, p, f, m))
                .collect::<Vec<_>>();
            let pooled = pool_seeds
                .par_iter()
                .map(|&seed| guarded(|| Slot::reset(game, seed)))
                .collect::<Vec<_>>();
            (rows, pooled)
        });
        let mut first_error = None;
        for (i, r) in results.into_iter().enumerate() {
            match r {
                Ok(Some(s)) => out.put(i, &s),
                Ok(None) => {}
                Err(e) => {
                    first_error.get_or_insert(CoreError::Episode(format!("env {i}: {e}")));
                }
            }
        }
        let mut dropped = 0;
        for (k, r) in pooled.into_iter().enumerate() {
            match r {
                Ok(s) if s.deciding() => self.pool.push_back(s),
                Ok(_) => dropped += 1,
                Err(e) => {
                    first_error.get_or_insert(CoreError::Episode(format!("pool reset {k}: {e}")));
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(dropped),
        }
    }
}

/// Run `f`, turning a panic into an error (the episode is lost, the others are not).
fn guarded<T>(f: impl FnOnce() -> Result<T, CoreError>) -> Result<T, CoreError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(CoreError::Episode(format!("the engine panicked: {msg}")))
    })
}

/// One slot's work and row; `Ok(None)` for `Keep`. On an error the slot is emptied.
fn work_on(
    game: &Arc<Game>,
    slot: &mut Option<Slot>,
    taken: Option<Slot>,
    w: Work,
    planes: &mut [f32],
    features: &mut [f32],
    mask: &mut [i8],
) -> Result<Option<Scalars>, CoreError> {
    let done = guarded(|| {
        match w {
            Work::Keep => return Ok(false),
            Work::Step(a) => match slot.as_mut() {
                Some(s) => s.step(a)?,
                None => return Err(CoreError::Invalid("no episode".into())),
            },
            Work::Reset(seed) => *slot = Some(Slot::reset(game, seed)?),
            Work::FromPool => *slot = taken,
        }
        Ok(true)
    });
    match done {
        Ok(false) => Ok(None),
        Ok(true) => match slot.as_ref() {
            Some(s) => {
                s.write_tensors(planes, features, mask);
                Ok(Some(s.scalars()))
            }
            None => Err(CoreError::Invalid("no episode".into())),
        },
        Err(e) => {
            *slot = None;
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pf1e_env_server::scenarios::{ScenarioSource, ScenarioStore};

    const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data");

    fn game(scenario: &str) -> Game {
        let store = ScenarioStore::new(DATA);
        let (_, enc) = store
            .resolve(Some(&ScenarioSource::Named(scenario.into())), "scenario")
            .unwrap();
        let mut ctl = vec![Controller::DefaultPolicy; enc.combatants.len()];
        for (k, p) in enc.combatants.iter().enumerate() {
            if p.side == enc.sides[0] {
                ctl[k] = Controller::External;
            }
        }
        Game::new(
            enc,
            ctl,
            pf1e_env_server::service::reward_config(None, "reward").unwrap(),
        )
    }

    struct Bufs {
        planes: Vec<f32>,
        features: Vec<f32>,
        masks: Vec<i8>,
        f32s: Vec<f32>,
        bools: [Vec<bool>; 3],
        ints: [Vec<i64>; 6],
    }

    impl Bufs {
        fn new(g: &Game, n: usize) -> Bufs {
            let (p, f, a) = g.row_lengths();
            Bufs {
                planes: vec![0.0; n * p],
                features: vec![0.0; n * f],
                masks: vec![0; n * a],
                f32s: vec![0.0; n],
                bools: [vec![false; n], vec![false; n], vec![false; n]],
                ints: std::array::from_fn(|_| vec![0; n]),
            }
        }

        fn out(&mut self) -> Out<'_> {
            let [t, tr, ok] = &mut self.bools;
            let [d, a, r, k, c, w] = &mut self.ints;
            Out {
                planes: &mut self.planes,
                features: &mut self.features,
                masks: &mut self.masks,
                rewards: &mut self.f32s,
                terminated: t,
                truncated: tr,
                decision_ids: d,
                actor: a,
                rounds: r,
                kinds: k,
                result_ok: ok,
                result_codes: c,
                winners: w,
            }
        }
    }

    /// Episodes stepped through a `Core` (two threads, pool autoresets) equal the same
    /// episodes driven one by one on the engine's plain API, mask, tensors and end included.
    #[test]
    fn core_rows_match_the_engine_episode_by_episode() {
        let g = game("sample_arena");
        let (pl, fl, al) = g.row_lengths();
        let n = 4;
        let mut core = Core::new(g.clone(), n, 2).unwrap();
        let mut b = Bufs::new(&g, n);
        let seeds: Vec<u64> = (0..n as u64).map(|i| 100 + i).collect();
        let work: Vec<Work> = seeds.iter().map(|&s| Work::Reset(s)).collect();
        core.run(&work, &[], &mut b.out()).unwrap();
        // The reference episodes.
        let mut refs: Vec<Episode> = seeds
            .iter()
            .map(|&s| Episode::new(g.enc.clone(), s, &g.controllers))
            .collect();
        let mut status: Vec<Status> = refs.iter_mut().map(Episode::advance).collect();
        let mut rng = 7u64;
        let mut ended = 0;
        for _ in 0..400 {
            let mut work = vec![Work::Keep; n];
            for i in 0..n {
                let Status::Decision(d) = &status[i] else {
                    continue;
                };
                assert_eq!(b.ints[0][i], d.decision_id as i64);
                assert_eq!(
                    &b.masks[i * al..(i + 1) * al],
                    &refs[i]
                        .action_mask()
                        .iter()
                        .map(|&m| m as i8)
                        .collect::<Vec<_>>()[..]
                );
                let t = refs[i].observation_tensor(d.actor);
                assert_eq!(&b.planes[i * pl..(i + 1) * pl], &t.planes[..]);
                assert_eq!(&b.features[i * fl..(i + 1) * fl], &t.features[..]);
                let legal: Vec<u32> = refs[i].legal_actions().iter().map(|l| l.id).collect();
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let a = legal[(rng % legal.len() as u64) as usize];
                let action = refs[i].action_from_id(a).unwrap();
                refs[i].submit(d.decision_id, &[action]).unwrap();
                status[i] = refs[i].advance();
                work[i] = Work::Step(a);
            }
            if work.iter().all(|w| *w == Work::Keep) {
                break;
            }
            core.run(&work, &[], &mut b.out()).unwrap();
            for i in 0..n {
                if let (Work::Step(_), Status::Terminal(o)) = (work[i], &status[i]) {
                    ended += 1;
                    assert_eq!(b.ints[1][i], -1);
                    assert_eq!(b.bools[0][i], !o.truncated);
                    assert!(b.masks[i * al..(i + 1) * al].iter().all(|&m| m == 0));
                }
            }
        }
        assert_eq!(ended, n, "every episode ends within 400 steps");
    }

    /// Bad input is refused before anything runs, naming the env; a pool hands out its
    /// episodes in order and drops none of the bundled scenario's (none ends at its start).
    #[test]
    fn bad_work_is_refused_and_the_pool_serves_in_order() {
        let g = game("sample_arena");
        let (_, _, al) = g.row_lengths();
        let mut core = Core::new(g.clone(), 2, 1).unwrap();
        let mut b = Bufs::new(&g, 2);
        let e = core
            .run(&[Work::Step(0), Work::Keep], &[], &mut b.out())
            .unwrap_err();
        assert!(e.to_string().contains("env 0: no episode"), "{e}");
        core.run(&[Work::Reset(1), Work::Reset(2)], &[5, 6], &mut b.out())
            .unwrap();
        assert_eq!(core.pool_len(), 2);
        let e = core
            .run(&[Work::Step(al as u32), Work::Keep], &[], &mut b.out())
            .unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
        let e = core
            .run(&[Work::FromPool, Work::FromPool], &[], &mut b.out())
            .map(|_| ());
        assert!(e.is_ok());
        let first = Slot::reset(&core.game().clone(), 5).unwrap();
        assert_eq!(
            core.slot(0)
                .unwrap()
                .episode()
                .observation_tensor(CombatantId(0)),
            first.episode().observation_tensor(CombatantId(0))
        );
        assert_eq!(core.pool_len(), 0);
        let e = core
            .run(&[Work::FromPool, Work::Keep], &[], &mut b.out())
            .unwrap_err();
        assert!(e.to_string().contains("pool of 0"), "{e}");
    }
}
