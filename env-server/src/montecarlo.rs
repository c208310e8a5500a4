//! Monte Carlo evaluation of an encounter: play it many times with the default policy and
//! aggregate outcomes, attrition and win-rate statistics.
//!
//! Run `i` of a batch uses the seed `seed + i` (wrapping), exactly like the seed's
//! `SeededRng(seed + i)`: the same seed always gives the same combats. Runs are played in
//! parallel with rayon, but per-run records are collected into a vector indexed by run and
//! reduced sequentially in run order, so a [`BatchResult`] is identical for any thread count.

use crate::difficulty::{assess, party_side, EncounterDifficulty};
use pf1e_engine::episode::{Attrition, LifeState, LogLine, WorkBudget};
use pf1e_engine::observe::observation::CombatantObs;
use pf1e_engine::{CombatantId, Encounter, Episode, Outcome, Status};
use rayon::prelude::*;
use serde::Serialize;
use std::sync::Arc;

/// The `z` of the confidence bands printed in reports: 3σ.
pub const Z_3SIGMA: f64 = 3.0;

/// Standard error of a binomial proportion: `σ = √(p(1−p)/n)`.
///
/// `p` is a proportion in `[0, 1]`, `n` the number of trials. Returns 0 when `n` is 0
/// (no information; callers never report a band for zero runs).
pub fn binomial_sigma(p: f64, n: u64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    (p * (1.0 - p) / n as f64).max(0.0).sqrt()
}

/// The normal-approximation band `[p − zσ, p + zσ]`, clamped to `[0, 1]`, with
/// `σ = √(p(1−p)/n)` (see [`binomial_sigma`]). This is the seed's "bande 3σ" for `z = 3`.
pub fn sigma_band(p: f64, n: u64, z: f64) -> [f64; 2] {
    let s = binomial_sigma(p, n);
    [(p - z * s).clamp(0.0, 1.0), (p + z * s).clamp(0.0, 1.0)]
}

/// The Wilson score interval for a proportion `p` observed over `n` trials at `z` standard
/// deviations, clamped to `[0, 1]`:
///
/// `(p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n)`.
///
/// Unlike [`sigma_band`] it does not collapse to a point at `p = 0` or `p = 1`. Returns
/// `[0, 1]` when `n` is 0.
pub fn wilson_interval(p: f64, n: u64, z: f64) -> [f64; 2] {
    if n == 0 {
        return [0.0, 1.0];
    }
    let n = n as f64;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).max(0.0).sqrt();
    [
        (center - half).clamp(0.0, 1.0),
        (center + half).clamp(0.0, 1.0),
    ]
}

/// Win-rate statistics of one side (or of draws) over a batch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WinRate {
    /// Number of combats counted (wins of the side, or draws).
    pub count: u64,
    /// Number of combats in the batch.
    pub runs: u64,
    /// Observed proportion `count / runs`, in `[0, 1]`.
    pub rate: f64,
    /// `σ = √(p(1−p)/n)`, as a proportion.
    pub sigma: f64,
    /// `[p − 3σ, p + 3σ]` clamped to `[0, 1]`, as proportions.
    pub band_3sigma: [f64; 2],
    /// Wilson score interval at `z = 3`, as proportions.
    pub wilson_3sigma: [f64; 2],
}

impl WinRate {
    /// Statistics of `count` successes over `runs` trials (`rate` is 0 when `runs` is 0).
    pub fn new(count: u64, runs: u64) -> WinRate {
        let rate = if runs == 0 {
            0.0
        } else {
            count as f64 / runs as f64
        };
        WinRate {
            count,
            runs,
            rate,
            sigma: binomial_sigma(rate, runs),
            band_3sigma: sigma_band(rate, runs, Z_3SIGMA),
            wilson_3sigma: wilson_interval(rate, runs, Z_3SIGMA),
        }
    }
}

/// The record of one combat of a batch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRecord {
    /// Index of the run in the batch; its seed is `seed + run` (wrapping).
    pub run: u32,
    /// How the combat ended (winner side or draw, rounds, truncated by the round cap).
    pub outcome: Outcome,
    /// Attrition per combatant, in the encounter's list order.
    pub attrition: Vec<Attrition>,
    /// Each combatant's state at the end of the combat, in the encounter's list order.
    pub end: Vec<EndState>,
}

/// One combatant at the end of a combat (the GM's report).
///
/// **Knocked out** (`went_down`): unconscious (dying or stable: below 0 hit points and alive)
/// or dead at some point of the combat — checked before every turn start and at the end, so
/// a combatant dropped and healed back up before the next turn began is missed (a healer acts
/// on its own turn, so this needs an immediate heal: none is modelled). Disabled (exactly 0
/// hp, conscious) is not knocked out. **Dead**: dead at the end (CRB — Combat: Injury and
/// Death).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EndState {
    /// Hit points at the end.
    pub hp: i32,
    /// Life state at the end.
    pub life: LifeState,
    /// Unconscious or dead at some turn start or at the end.
    pub went_down: bool,
    /// Spell slots left, all levels ≥ 1 together (spontaneous casters).
    pub spell_slots_left: u32,
    /// Counted uses left: prepared spells of level ≥ 1 and spell-like abilities per day.
    pub uses_left: u32,
    /// Ammunition left: shots and throws of every counted attack.
    pub ammo_left: u32,
}

/// The resources of a combatant: `(spell slots, counted uses, ammunition)` (see [`EndState`]).
fn resources(c: &CombatantObs) -> (u32, u32, u32) {
    let slots = c.spell_slots_left.values().sum();
    let uses = c
        .spells
        .iter()
        .filter(|s| s.level >= 1 || s.spell_like)
        .filter(|s| s.spell_like || !c.spell_slots_left.contains_key(&s.level.to_string()))
        .filter_map(|s| s.uses_left)
        .sum();
    let ammo = c.attacks.iter().filter_map(|a| a.ammunition_left).sum();
    (slots, uses, ammo)
}

/// Whether a life state is knocked out (unconscious or dead).
fn is_down(life: LifeState) -> bool {
    matches!(life, LifeState::Dying | LifeState::Stable | LifeState::Dead)
}
/// Aggregates of one side over a batch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideSummary {
    /// Side name (the map's deployment order).
    pub name: String,
    /// Number of combatants of the side.
    pub combatants: usize,
    /// Wins and win-rate statistics.
    pub wins: WinRate,
    /// The name of the tactics spec the side played (`None`: the default policy).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tactics: Option<String>,
    /// What its combatants (summon slots excluded) had left at the end of the combats the
    /// side won, in list order.
    pub resources_when_won: Vec<ResourcesLeft>,
}

/// The distribution of an integer quantity over a set of combats: mean and nearest-rank
/// percentiles (the value at rank ⌈q·n⌉ of the sorted values). All 0 over no combat.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Distribution {
    /// Arithmetic mean.
    pub mean: f64,
    /// Smallest value.
    pub min: i64,
    /// 10th percentile.
    pub p10: i64,
    /// Median (50th percentile).
    pub p50: i64,
    /// 90th percentile.
    pub p90: i64,
    /// Largest value.
    pub max: i64,
}

impl Distribution {
    /// The distribution of `values` (any order).
    pub fn of(mut values: Vec<i64>) -> Distribution {
        if values.is_empty() {
            return Distribution {
                mean: 0.0,
                min: 0,
                p10: 0,
                p50: 0,
                p90: 0,
                max: 0,
            };
        }
        values.sort_unstable();
        let n = values.len();
        let rank = |q: f64| values[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
        Distribution {
            mean: values.iter().sum::<i64>() as f64 / n as f64,
            min: values[0],
            p10: rank(0.1),
            p50: rank(0.5),
            p90: rank(0.9),
            max: values[n - 1],
        }
    }
}

/// What one combatant had left at the end of the combats its side won (the rest of a GM's
/// adventuring day): hit points, spell slots, counted uses (prepared spells, spell-like
/// abilities per day) and ammunition, each with its value at the start. See [`EndState`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourcesLeft {
    /// Combatant id.
    pub id: String,
    /// Combats its side won (the number of values of each distribution).
    pub runs: u64,
    /// Hit points at the start (`hp_max`).
    pub hp_max: i32,
    /// Hit points at the end.
    pub hp: Distribution,
    /// Spell slots at the start (levels ≥ 1).
    pub spell_slots_max: u32,
    /// Spell slots left at the end.
    pub spell_slots: Distribution,
    /// Counted uses at the start.
    pub uses_max: u32,
    /// Counted uses left at the end.
    pub uses: Distribution,
    /// Ammunition at the start.
    pub ammo_max: u32,
    /// Ammunition left at the end.
    pub ammo: Distribution,
}

/// The party's fate over a batch (see [`crate::difficulty::party_side`] for the party).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartySummary {
    /// The party's side.
    pub side: String,
    /// Its combatants (summon slots excluded).
    pub members: usize,
    /// Total party kill: every member unconscious or dead at the end (nobody is left
    /// standing to stabilize the others or carry them away).
    pub tpk: WinRate,
    /// Every member dead at the end.
    pub all_dead: WinRate,
}

/// Mean attrition of one combatant over a batch (means over all runs, including runs where it
/// did nothing).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CombatantSummary {
    /// Unique combatant id in the encounter (`goblin`, `goblin-2`…).
    pub id: String,
    /// The combatant's side.
    pub side: String,
    /// Mean attack rolls made per combat.
    pub mean_attacks: f64,
    /// Mean hits per combat.
    pub mean_hits: f64,
    /// Mean confirmed critical hits per combat.
    pub mean_crits: f64,
    /// Mean damage dealt per combat, in hit points.
    pub mean_damage_dealt: f64,
    /// Mean damage taken per combat, in hit points (the killing blow included in full).
    pub mean_damage_taken: f64,
    /// Combats in which it was knocked out (unconscious or dead at some point; see
    /// [`EndState`]), with Wilson intervals.
    pub knocked_out: WinRate,
    /// Combats at whose end it was dead.
    pub dead: WinRate,
    /// A slot reserved for a summoned creature (not deployed: no GM figures).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub summon_slot: bool,
}

/// The result of [`run_batch`]: per-run records and their aggregates. Identical for any thread
/// count given the same encounter, number of runs and seed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BatchResult {
    /// Name of the map.
    pub map_name: String,
    /// Number of combats played.
    pub runs: u32,
    /// Base seed; run `i` used `seed + i` (wrapping).
    pub seed: u64,
    /// Round cap of the encounter (combats reaching it are truncated draws).
    pub round_cap: u32,
    /// Whether `--simple-monster-death` was on.
    pub simple_monster_death: bool,
    /// One entry per side, in deployment order.
    pub sides: Vec<SideSummary>,
    /// Draws (no winner), with their rate statistics.
    pub draws: WinRate,
    /// Draws caused by the round cap (a subset of `draws`).
    pub truncated: u64,
    /// Mean number of rounds per combat.
    pub mean_rounds: f64,
    /// Mean attrition per combatant, in the encounter's list order.
    pub combatants: Vec<CombatantSummary>,
    /// The party's fate, when a side has a player character.
    pub party: Option<PartySummary>,
    /// The encounter's XP, CR and difficulty for the party.
    pub difficulty: EncounterDifficulty,
    /// Transcript of the first combat (run 0).
    pub first_transcript: Vec<LogLine>,
    /// Every run's record, in run order.
    pub records: Vec<RunRecord>,
}

/// Play one combat to the end with the built-in policy for everyone (the default policy, or
/// the encounter's tactics for the sides that have some); returns the finished
/// episode (transcript, attrition) and its outcome.
///
/// # Panics
/// If the episode asks for an external decision, which an all-default-policy episode never
/// does (that would be an engine bug).
pub fn play_one(encounter: Arc<Encounter>, seed: u64) -> (Episode, Outcome) {
    play_to_end(Episode::new(encounter, seed, &[]), seed)
}

/// [`play_one`] of an episode already made (its options set).
fn play_to_end(mut episode: Episode, seed: u64) -> (Episode, Outcome) {
    // `advance` runs until an external decision or the end; there is no external controller.
    match episode.advance() {
        Status::Terminal(outcome) => (episode, outcome),
        Status::Decision(d) => panic!(
            "engine bug: an all-default-policy episode (seed {seed}) asked for a decision of \
             combatant #{}",
            d.actor.0
        ),
    }
}

/// [`play_one`]'s outcome, without a transcript ([`Episode::keep_transcript`] off: no line
/// formatted or stored; the same outcome: no rule reads the transcript), stopping inside the
/// combat (at the engine's next work-budget check, within a few hundred microseconds of
/// resolution) once `stop` returns true: `None` then. For runs that read only the outcome
/// (sweeps, `Evaluate`).
///
/// # Panics
/// As [`play_one`].
pub fn play_outcome_within(
    encounter: Arc<Encounter>,
    seed: u64,
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<Outcome> {
    let mut episode = Episode::new(encounter, seed, &[]);
    episode.keep_transcript(false);
    match episode.advance_within(&mut WorkBudget::new(u64::MAX, stop)) {
        Err(_) => None,
        Ok(Status::Terminal(outcome)) => Some(outcome),
        Ok(Status::Decision(d)) => panic!(
            "engine bug: an all-default-policy episode (seed {seed}) asked for a decision of \
             combatant #{}",
            d.actor.0
        ),
    }
}

fn play_record(
    encounter: &Arc<Encounter>,
    seed: u64,
    run: u32,
    keep: bool,
) -> (RunRecord, Option<Vec<LogLine>>) {
    // Only the kept run's transcript is read: the others format and store none (the play
    // is the same either way: no rule reads the transcript).
    let (episode, outcome, went_down) = play_tracked(
        Arc::clone(encounter),
        seed.wrapping_add(u64::from(run)),
        keep,
    );
    let transcript = keep.then(|| episode.transcript().to_vec());
    let obs = episode.observation(None);
    let end = obs
        .combatants
        .iter()
        .zip(went_down)
        .map(|(c, down)| {
            let (spell_slots_left, uses_left, ammo_left) = resources(c);
            let life = episode.life_state(CombatantId(c.index));
            EndState {
                hp: c.hp,
                life,
                went_down: down || is_down(life),
                spell_slots_left,
                uses_left,
                ammo_left,
            }
        })
        .collect();
    let record = RunRecord {
        run,
        outcome,
        attrition: episode.attrition().to_vec(),
        end,
    };
    (record, transcript)
}

/// [`play_one`], one turn at a time ([`Episode::advance_within`] with a budget of one turn
/// start, which plays exactly the combat `advance` plays), noting before every turn start
/// which combatants are knocked out (unconscious or dead). Returns the episode, its outcome
/// and, per combatant in list order, whether it was seen knocked out. `keep_transcript`:
/// [`Episode::keep_transcript`] (off: no line formatted or stored; the same combat).
///
/// # Panics
/// As [`play_one`].
pub fn play_tracked(
    encounter: Arc<Encounter>,
    seed: u64,
    keep_transcript: bool,
) -> (Episode, Outcome, Vec<bool>) {
    let n = encounter.combatants.len();
    let mut episode = Episode::new(encounter, seed, &[]);
    episode.keep_transcript(keep_transcript);
    let mut down = vec![false; n];
    let never = || false;
    loop {
        let mut budget = WorkBudget::new(1, &never);
        match episode.advance_within(&mut budget) {
            Ok(Status::Terminal(outcome)) => return (episode, outcome, down),
            Ok(Status::Decision(d)) => panic!(
                "engine bug: an all-default-policy episode (seed {seed}) asked for a decision of \
                 combatant #{}",
                d.actor.0
            ),
            Err(_) => {
                for (i, d) in down.iter_mut().enumerate() {
                    *d = *d || is_down(episode.life_state(CombatantId(i as u16)));
                }
            }
        }
    }
}

/// Play `runs` combats of `encounter` with the default policy; run `i` is seeded with
/// `seed + i` (wrapping). Combats are played in parallel on the current rayon pool (use
/// `ThreadPool::install` to choose the number of threads) and aggregated in run order, so the
/// result does not depend on the thread count.
///
/// `progress`, when given, is called from worker threads with the number of combats just
/// finished (a delta, currently always 1), in no particular order.
///
/// # Panics
/// If the engine asks for an external decision (see [`play_one`]).
pub fn run_batch(
    encounter: Arc<Encounter>,
    runs: u32,
    seed: u64,
    progress: Option<&(dyn Fn(u64) + Sync)>,
) -> BatchResult {
    let played: Vec<(RunRecord, Option<Vec<LogLine>>)> = (0..runs)
        .into_par_iter()
        .map(|run| {
            let r = play_record(&encounter, seed, run, run == 0);
            if let Some(p) = progress {
                p(1);
            }
            r
        })
        .collect();
    let mut first_transcript = Vec::new();
    let mut records = Vec::with_capacity(played.len());
    for (record, transcript) in played {
        if let Some(t) = transcript {
            first_transcript = t;
        }
        records.push(record);
    }
    aggregate(&encounter, seed, records, first_transcript)
}

/// Reduce per-run records (in run order) into a [`BatchResult`]. Integer sums only; the
/// divisions happen once at the end.
fn aggregate(
    encounter: &Encounter,
    seed: u64,
    records: Vec<RunRecord>,
    first_transcript: Vec<LogLine>,
) -> BatchResult {
    let n = records.len() as u64;
    let mut wins = vec![0u64; encounter.sides.len()];
    let mut draws = 0u64;
    let mut truncated = 0u64;
    let mut rounds = 0u64;
    let k = encounter.combatants.len();
    let mut sums = vec![[0i64; 5]; k];
    for r in &records {
        match &r.outcome.winner {
            Some(w) => {
                if let Some(i) = encounter.sides.iter().position(|s| s == w) {
                    wins[i] += 1;
                }
            }
            None => draws += 1,
        }
        if r.outcome.truncated {
            truncated += 1;
        }
        rounds += u64::from(r.outcome.rounds);
        for (s, a) in sums.iter_mut().zip(&r.attrition) {
            s[0] += i64::from(a.attacks);
            s[1] += i64::from(a.hits);
            s[2] += i64::from(a.crits);
            s[3] += a.damage_dealt;
            s[4] += a.damage_taken;
        }
    }
    let mean = |x: i64| if n == 0 { 0.0 } else { x as f64 / n as f64 };
    let start = start_resources(encounter);
    let deployed = |i: usize| encounter.combatants[i].summoned_by.is_none();
    let resources_when_won = |side: &str| -> Vec<ResourcesLeft> {
        let won: Vec<&RunRecord> = records
            .iter()
            .filter(|r| r.outcome.winner.as_deref() == Some(side))
            .collect();
        encounter
            .combatants
            .iter()
            .enumerate()
            .filter(|&(i, c)| c.side == side && deployed(i))
            .map(|(i, c)| {
                let dist = |f: &dyn Fn(&EndState) -> i64| {
                    Distribution::of(won.iter().map(|r| f(&r.end[i])).collect())
                };
                let (slots, uses, ammo) = start[i];
                ResourcesLeft {
                    id: c.id.clone(),
                    runs: won.len() as u64,
                    hp_max: c.spec.hp_max,
                    hp: dist(&|e| i64::from(e.hp)),
                    spell_slots_max: slots,
                    spell_slots: dist(&|e| i64::from(e.spell_slots_left)),
                    uses_max: uses,
                    uses: dist(&|e| i64::from(e.uses_left)),
                    ammo_max: ammo,
                    ammo: dist(&|e| i64::from(e.ammo_left)),
                }
            })
            .collect()
    };
    let count = |i: usize, f: &dyn Fn(&EndState) -> bool| {
        records.iter().filter(|r| f(&r.end[i])).count() as u64
    };
    let party = party_side(encounter).map(|side| {
        let members: Vec<usize> = (0..encounter.combatants.len())
            .filter(|&i| encounter.combatants[i].side == side && deployed(i))
            .collect();
        let all = |f: &dyn Fn(&EndState) -> bool| {
            records
                .iter()
                .filter(|r| members.iter().all(|&i| f(&r.end[i])))
                .count() as u64
        };
        PartySummary {
            side: side.to_string(),
            members: members.len(),
            tpk: WinRate::new(all(&|e| is_down(e.life)), n),
            all_dead: WinRate::new(all(&|e| e.life == LifeState::Dead), n),
        }
    });
    let sides = encounter
        .sides
        .iter()
        .zip(&wins)
        .map(|(name, &w)| SideSummary {
            name: name.clone(),
            combatants: encounter
                .combatants
                .iter()
                .filter(|c| &c.side == name)
                .count(),
            wins: WinRate::new(w, n),
            tactics: encounter.tactics.get(name).map(|t| t.name.clone()),
            resources_when_won: resources_when_won(name),
        })
        .collect();
    let combatants = encounter
        .combatants
        .iter()
        .zip(&sums)
        .enumerate()
        .map(|(i, (c, s))| CombatantSummary {
            knocked_out: WinRate::new(count(i, &|e| e.went_down), n),
            dead: WinRate::new(count(i, &|e| e.life == LifeState::Dead), n),
            summon_slot: !deployed(i),
            id: c.id.clone(),
            side: c.side.clone(),
            mean_attacks: mean(s[0]),
            mean_hits: mean(s[1]),
            mean_crits: mean(s[2]),
            mean_damage_dealt: mean(s[3]),
            mean_damage_taken: mean(s[4]),
        })
        .collect();
    BatchResult {
        map_name: encounter.map.name.clone(),
        runs: records.len() as u32,
        seed,
        round_cap: encounter.options.round_cap,
        simple_monster_death: encounter.options.simple_monster_death,
        sides,
        draws: WinRate::new(draws, n),
        truncated,
        mean_rounds: if n == 0 {
            0.0
        } else {
            rounds as f64 / n as f64
        },
        combatants,
        party,
        difficulty: assess(encounter),
        first_transcript,
        records,
    }
}

/// Each combatant's resources at the start of a combat (they do not depend on the seed):
/// `(spell slots, counted uses, ammunition)`, in list order.
fn start_resources(encounter: &Encounter) -> Vec<(u32, u32, u32)> {
    let episode = Episode::new(Arc::new(encounter.clone()), 0, &[]);
    episode
        .observation(None)
        .combatants
        .iter()
        .map(resources)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn sigma_closed_form() {
        assert!(close(binomial_sigma(0.5, 100), 0.05));
        assert!(close(binomial_sigma(0.0, 100), 0.0));
        assert!(close(binomial_sigma(1.0, 100), 0.0));
        assert!(close(binomial_sigma(0.2, 400), 0.02));
        assert_eq!(binomial_sigma(0.5, 0), 0.0);
    }

    #[test]
    fn band_closed_form() {
        let [lo, hi] = sigma_band(0.5, 100, 3.0);
        assert!(close(lo, 0.35) && close(hi, 0.65), "{lo} {hi}");
        // The seed's example: 962/1000 → [94.4%, 98.0%], 36/1000 → [1.8%, 5.4%].
        let [lo, hi] = sigma_band(0.962, 1000, 3.0);
        assert_eq!(format!("{:.1} {:.1}", lo * 100.0, hi * 100.0), "94.4 98.0");
        let [lo, hi] = sigma_band(0.036, 1000, 3.0);
        assert_eq!(format!("{:.1} {:.1}", lo * 100.0, hi * 100.0), "1.8 5.4");
    }

    #[test]
    fn band_is_clamped() {
        // p = 0.02, n = 10: σ ≈ 0.0443, p − 3σ < 0.
        let [lo, hi] = sigma_band(0.02, 10, 3.0);
        assert_eq!(lo, 0.0);
        assert!(hi > 0.02 && hi < 1.0);
        let [lo, hi] = sigma_band(0.98, 10, 3.0);
        assert_eq!(hi, 1.0);
        assert!(lo < 0.98 && lo > 0.0);
        assert_eq!(sigma_band(0.0, 50, 3.0), [0.0, 0.0]);
        assert_eq!(sigma_band(1.0, 50, 3.0), [1.0, 1.0]);
    }

    #[test]
    fn wilson_closed_form() {
        // p = 0: [0, z²/(n + z²)].
        let [lo, hi] = wilson_interval(0.0, 100, 3.0);
        assert!(close(lo, 0.0));
        assert!(close(hi, 9.0 / 109.0), "{hi}");
        assert!(hi > 0.0);
        // p = 1 mirrors p = 0.
        let [lo, hi] = wilson_interval(1.0, 100, 3.0);
        assert!(close(lo, 100.0 / 109.0) && close(hi, 1.0));
        // p = 0.5 is symmetric around 0.5: half-width z·√(0.25/n + z²/4n²)/(1 + z²/n).
        let [lo, hi] = wilson_interval(0.5, 100, 3.0);
        let half = 3.0 * (0.25 / 100.0 + 9.0 / 40_000.0f64).sqrt() / 1.09;
        assert!(close(lo, 0.5 - half) && close(hi, 0.5 + half));
        // Narrower than [0,1], wider than nothing, and containing p.
        let [lo, hi] = wilson_interval(0.3, 1000, 3.0);
        assert!(lo < 0.3 && 0.3 < hi && lo > 0.0 && hi < 1.0);
        assert_eq!(wilson_interval(0.5, 0, 3.0), [0.0, 1.0]);
    }

    fn sample_encounter() -> Arc<Encounter> {
        use pf1e_engine::content::encounter::RulesOptions;
        use pf1e_engine::{CombatantSpec, MapSpec};
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
        let map = MapSpec::load(&data.join("maps/sample_arena.yaml")).unwrap();
        let goblin = CombatantSpec::load(&data.join("monsters/goblin.json")).unwrap();
        let orc = CombatantSpec::load(&data.join("monsters/orc.json")).unwrap();
        let sides = vec![
            (
                "players".to_string(),
                vec![
                    ("goblin".to_string(), goblin.clone()),
                    ("goblin".to_string(), goblin),
                ],
            ),
            ("monsters".to_string(), vec![("orc".to_string(), orc)]),
        ];
        Arc::new(Encounter::build(map, sides, RulesOptions::default()).unwrap())
    }

    fn pool(n: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    }

    #[test]
    fn batch_is_identical_for_any_thread_count() {
        let enc = sample_encounter();
        let one = pool(1).install(|| run_batch(Arc::clone(&enc), 40, 7, None));
        let three = pool(3).install(|| run_batch(Arc::clone(&enc), 40, 7, None));
        assert_eq!(one, three);
        let wins: u64 = one.sides.iter().map(|s| s.wins.count).sum();
        assert_eq!(wins + one.draws.count, 40);
        assert_eq!(one.records.len(), 40);
        assert!(!one.first_transcript.is_empty());
        assert_eq!(one.combatants[1].id, "goblin-2");
    }

    #[test]
    fn run_i_uses_seed_plus_i_wrapping() {
        let enc = sample_encounter();
        let seed = u64::MAX - 1;
        let batch = run_batch(Arc::clone(&enc), 4, seed, None);
        for (i, r) in batch.records.iter().enumerate() {
            assert_eq!(r.run as usize, i);
            let (ep, outcome) = play_one(Arc::clone(&enc), seed.wrapping_add(i as u64));
            assert_eq!(r.outcome, outcome);
            assert_eq!(r.attrition, ep.attrition());
            if i == 0 {
                assert_eq!(batch.first_transcript, ep.transcript());
            }
        }
        // Progress reports every combat exactly once.
        let count = std::sync::atomic::AtomicU64::new(0);
        let tick = |n: u64| {
            count.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        };
        let again = run_batch(enc, 4, seed, Some(&tick));
        assert_eq!(count.into_inner(), 4);
        assert_eq!(again, batch);
    }

    /// Playing one turn at a time plays exactly the combat `advance` plays.
    #[test]
    fn tracked_play_is_the_same_combat() {
        let enc = sample_encounter();
        for seed in 0..20 {
            let (a, oa) = play_one(Arc::clone(&enc), seed);
            let (b, ob, down) = play_tracked(Arc::clone(&enc), seed, true);
            assert_eq!(oa, ob);
            assert_eq!(a.transcript(), b.transcript());
            assert_eq!(a.attrition(), b.attrition());
            assert_eq!(down.len(), enc.combatants.len());
        }
    }

    fn casters() -> Arc<Encounter> {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
        crate::scenarios::ScenarioStore::new(data)
            .named("casters", "scenario")
            .unwrap()
    }

    /// The GM's figures of a party scenario: knocked out ⊇ dead, TPK only when the party
    /// lost, resources within their maximum, the encounter's difficulty.
    #[test]
    fn gm_figures_of_the_casters() {
        let enc = casters();
        let b = run_batch(Arc::clone(&enc), 40, 1, None);
        let party = b.party.as_ref().expect("the casters are player characters");
        assert_eq!((party.side.as_str(), party.members), ("players", 4));
        let monsters_won = b.sides[1].wins.count;
        assert!(party.tpk.count <= monsters_won, "{party:?}");
        assert!(party.all_dead.count <= party.tpk.count);
        for (i, c) in b.combatants.iter().enumerate() {
            assert!(c.dead.count <= c.knocked_out.count, "{c:?}");
            let dead_at_end = b
                .records
                .iter()
                .filter(|r| r.end[i].life == LifeState::Dead)
                .count() as u64;
            assert_eq!(c.dead.count, dead_at_end);
            assert!(b
                .records
                .iter()
                .all(|r| !is_down(r.end[i].life) || r.end[i].went_down));
        }
        // The monsters die in most fights: knocked out nearly always.
        assert!(
            b.combatants[5].knocked_out.rate > 0.5,
            "{:?}",
            b.combatants[5]
        );
        let won = &b.sides[0].resources_when_won;
        assert_eq!(won.len(), 4);
        assert_eq!(won[1].id, "wizard_5");
        assert!(won[1].spell_slots_max + won[1].uses_max > 0, "{:?}", won[1]);
        for r in won {
            assert_eq!(r.runs, b.sides[0].wins.count);
            assert!(r.hp.max <= i64::from(r.hp_max) && r.hp.p10 <= r.hp.p50);
            assert!(r.spell_slots.max <= i64::from(r.spell_slots_max));
            assert!(r.uses.max <= i64::from(r.uses_max));
            assert!(r.ammo.max <= i64::from(r.ammo_max));
        }
        // Some spell was cast by the winners on average.
        let spent: f64 = won
            .iter()
            .map(|r| f64::from(r.spell_slots_max + r.uses_max) - r.spell_slots.mean - r.uses.mean)
            .sum();
        assert!(spent > 0.0, "{won:?}");
        assert_eq!(b.difficulty.cr.as_deref(), Some("7"));
        // Deterministic for any thread count.
        let one = pool(1).install(|| run_batch(Arc::clone(&enc), 40, 1, None));
        assert_eq!(one, b);
    }

    #[test]
    fn win_rate_from_counts() {
        let w = WinRate::new(50, 100);
        assert!(close(w.rate, 0.5) && close(w.sigma, 0.05));
        assert!(close(w.band_3sigma[0], 0.35) && close(w.band_3sigma[1], 0.65));
        let z = WinRate::new(0, 0);
        assert_eq!(z.rate, 0.0);
        assert_eq!(z.sigma, 0.0);
    }
}
