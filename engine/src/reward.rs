//! Rewards of the sides an agent controls: the shaping potential of a side ([`potential`])
//! and the settlement of rewards at each status change ([`RewardTracker`]) — what the wire
//! protocol's `RewardOptions` (`proto/pf1e/env/v1/environment.proto`) promises.
//!
//! For a side S, the potential is
//!
//! ```text
//! phi(S) = damage_weight × (D_enemies / H_enemies − D_own / H_own)
//!        + kill_weight × (K_enemies − K_own)
//! ```
//!
//! where, over the enemy (every combatant not of S) and own combatants of S: D is the hit
//! points of damage taken from attacks so far ([`Attrition::damage_taken`](crate::episode::Attrition):
//! after DR, the killing blow in full; hit points lost while dying, bleeding or straining
//! while disabled are not counted), H is the sum of their `hp_max` (each counted as at least
//! 1; a group with H = 0, i.e. no combatant, has ratio 0), and K is how many of them are
//! unconscious or dead (not [`LifeState::is_conscious`](crate::episode::LifeState::is_conscious)).
//! The damage terms are fractions of a side's total hit points (0..1 each, more with a
//! killing blow's overkill); the kill terms are head counts. Without shaping phi is 0.
//!
//! # Discount per combat round
//!
//! With the round discount g = [`RewardConfig::round_discount`] in (0, 1], time is counted in
//! combat rounds, never in decisions. Let d(r) = g^(max(r, 1) − 1) for the episode's round r
//! ([`Episode::round`]: the surprise round, the engine's round 0, counts as round 1, so it and
//! the first full round are both undiscounted; [`RewardConfig::discount_at`]). The reward of S
//! reported at a status change in round r is
//!
//! ```text
//! reward = d(r) × phi(S) now − d(r') × phi(S) at S's previous report (round r')
//!        [+ d(R) × sparse, at the end: R = the round the combat ended in]
//! ```
//!
//! (the first baseline is d(round) × phi when the tracker was made: 0 for a fresh episode),
//! with the sparse reward +1 if S won, −1 if another side won, 0 for a draw (truncation
//! included). A reward is reported for S when S decides next and, for every tracked side, at
//! the end. Over an episode a side's rewards therefore add up to
//!
//! ```text
//! d(R) × (phi(S) at the end + sparse) − d(r0) × phi(S) at the start
//! ```
//!
//! whatever the number of decisions taken. This is potential-based shaping (Ng, Harada &
//! Russell 1999, which leaves the optimal policy unchanged) with the potential phi and the
//! discount g per round: a reward reported in round r after S's previous report in round r'
//! is d(r') × F, in the round-discounted units of round r', with
//!
//! ```text
//! F = g^(Δrounds) × Φ(s') − Φ(s),   Φ = phi(S), Δrounds = r − r'
//! ```
//!
//! the shaping term of a semi-Markov decision process whose discount over a step is
//! g^(Δrounds). A decision that changes neither the potential nor the round (a free toggle
//! switched on and off) therefore earns exactly 0, and padding a turn cannot pay. A learner
//! should use its own discount gamma = 1 (or close to it) and let g discount time.
//! With g = 1 (the default) d is 1 everywhere and the rewards are the undiscounted ones, bit
//! for bit: phi(S) now − phi(S) at the previous report, + sparse at the end. The
//! arithmetic is `f64` (d by exact repeated squaring, never `powf`, so it is the same on
//! every platform), cast to `f32` last.
use crate::episode::{Episode, Status};
use crate::CombatantId;
use serde::{Deserialize, Serialize};

/// How rewards are shaped (the engine side of the protocol's `RewardOptions`, with its
/// defaults already applied and its weights already checked by the caller). Serialized as
/// `{"shaped", "damage_weight", "kill_weight", "round_discount"}` (part of
/// [`RewardTracker`]'s serialization).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RewardConfig {
    /// Add the damage and kill terms to the sparse reward. `false`: phi is 0 and only the
    /// sparse ±1/0 at the end is reported.
    pub shaped: bool,
    /// Weight of the damage term, in reward per whole side's hit points of damage (the
    /// protocol's default is 1.0).
    pub damage_weight: f64,
    /// Reward per enemy combatant unconscious or dead, minus per own one (the protocol's
    /// default is 0.1).
    pub kill_weight: f64,
    /// Discount per combat round g, in (0, 1] (checked by the caller; the protocol's
    /// default is 1.0: no discount). See the module documentation.
    pub round_discount: f64,
}

impl RewardConfig {
    /// The discount of a reward reported in the episode's round `round` ([`Episode::round`]):
    /// g^(max(round, 1) − 1) — the surprise round (round 0) counts as round 1. Exactly 1.0
    /// when g = 1. Computed by repeated squaring (the same bits on every platform).
    pub fn discount_at(&self, round: u32) -> f64 {
        let (mut out, mut base, mut e) = (1.0f64, self.round_discount, round.max(1) - 1);
        while e > 0 {
            if e & 1 == 1 {
                out *= base;
            }
            base *= base;
            e >>= 1;
        }
        out
    }
}

/// The shaping potential of `side` in `ep` now (see the module documentation); 0 when
/// `config.shaped` is false.
pub fn potential(ep: &Episode, side: &str, config: &RewardConfig) -> f64 {
    if !config.shaped {
        return 0.0;
    }
    let enc = ep.encounter();
    let att = ep.attrition();
    let (mut d_own, mut h_own, mut d_en, mut h_en, mut k_own, mut k_en) =
        (0f64, 0f64, 0f64, 0f64, 0f64, 0f64);
    for (i, p) in enc.combatants.iter().enumerate() {
        let down = f64::from(u8::from(
            !ep.life_state(CombatantId(i as u16)).is_conscious(),
        ));
        let d = att.get(i).map_or(0, |a| a.damage_taken) as f64;
        let h = f64::from(p.spec.max_hp().max(1));
        if p.side == side {
            d_own += d;
            h_own += h;
            k_own += down;
        } else {
            d_en += d;
            h_en += h;
            k_en += down;
        }
    }
    let frac = |d: f64, h: f64| if h > 0.0 { d / h } else { 0.0 };
    config.damage_weight * (frac(d_en, h_en) - frac(d_own, h_own))
        + config.kill_weight * (k_en - k_own)
}

/// Error of [`RewardTracker::validate`]: `field` (`sides[1]`, `last`, `config.round_discount`)
/// is wrong for `reason`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("reward state: {field} {reason}")]
pub struct RewardStateError {
    pub field: String,
    pub reason: String,
}

/// The reward bookkeeping of one episode: for each tracked side (the sides an agent
/// controls), the round-discounted potential d(r) × phi when its reward was last reported.
///
/// Serializable (serde; as JSON `{"config": {...}, "sides": [...], "last": [...]}`, every
/// `f64` exactly: serde_json writes the shortest representation that reads back bit for
/// bit): with a snapshot of the episode it is everything a continuation needs — a tracker
/// deserialized next to [`Episode::restore`] reports exactly the rewards the original would.
/// Client data must be checked with [`RewardTracker::validate`] before use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RewardTracker {
    config: RewardConfig,
    /// The tracked sides, in the caller's order (the order of [`RewardTracker::settle`]'s
    /// output at the end).
    sides: Vec<String>,
    /// `discount_at(round) × potential` of `sides[k]` when its reward was last reported.
    last: Vec<f64>,
}

impl RewardTracker {
    /// A tracker of `sides` in `ep`, each side's baseline its discounted potential in `ep` now
    /// (0 for a fresh episode: nothing has happened yet; a restored one starts from where it
    /// is).
    pub fn new(ep: &Episode, sides: Vec<String>, config: RewardConfig) -> RewardTracker {
        let mut t = RewardTracker {
            config,
            last: vec![0.0; sides.len()],
            sides,
        };
        let d = t.config.discount_at(ep.round());
        t.last = t
            .sides
            .iter()
            .map(|side| d * potential(ep, side, &t.config))
            .collect();
        t
    }

    /// Check a deserialized tracker against the episode it continues: every tracked side a side of the encounter and named once, one baseline per side,
    /// every number finite, the weights finite and the round discount in (0, 1].
    ///
    /// # Errors
    /// [`RewardStateError`] naming the field and the reason.
    pub fn validate(&self, ep: &Episode) -> Result<(), RewardStateError> {
        let bad = |field: &str, reason: String| {
            Err(RewardStateError {
                field: field.to_string(),
                reason,
            })
        };
        let c = &self.config;
        if !c.damage_weight.is_finite() {
            return bad("config.damage_weight", "is not finite".into());
        }
        if !c.kill_weight.is_finite() {
            return bad("config.kill_weight", "is not finite".into());
        }
        if !(c.round_discount > 0.0 && c.round_discount <= 1.0) {
            return bad(
                "config.round_discount",
                format!("{} is not in (0, 1]", c.round_discount),
            );
        }
        for (k, side) in self.sides.iter().enumerate() {
            if !ep.encounter().sides.contains(side) {
                return bad(
                    &format!("sides[{k}]"),
                    format!("{side:?} is not a side of the encounter"),
                );
            }
            if self.sides[..k].contains(side) {
                return bad(&format!("sides[{k}]"), format!("{side:?} is named twice"));
            }
        }
        if self.last.len() != self.sides.len() {
            return bad(
                "last",
                format!(
                    "{} baselines for {} sides",
                    self.last.len(),
                    self.sides.len()
                ),
            );
        }
        if let Some(k) = self.last.iter().position(|x| !x.is_finite()) {
            return bad(&format!("last[{k}]"), "is not finite".into());
        }
        Ok(())
    }

    /// The shaping settings.
    pub fn config(&self) -> &RewardConfig {
        &self.config
    }

    /// The tracked sides, in the order given to [`RewardTracker::new`].
    pub fn sides(&self) -> &[String] {
        &self.sides
    }

    /// After `ep` reached `status`: the rewards to report, `(side, reward)`, and the new
    /// baselines. At a decision: the deciding combatant's side alone, if it is tracked (else
    /// nothing); at the end: every tracked side, in order, each with its sparse reward added
    /// (both discounted by [`RewardConfig::discount_at`] the episode's round).
    pub fn settle(&mut self, ep: &Episode, status: &Status) -> Vec<(String, f32)> {
        let mut out = Vec::new();
        let sides: Vec<usize> = match status {
            Status::Decision(d) => {
                let side = &ep.encounter().combatants[usize::from(d.actor.0)].side;
                self.sides
                    .iter()
                    .position(|s| s == side)
                    .into_iter()
                    .collect()
            }
            Status::Terminal(_) => (0..self.sides.len()).collect(),
        };
        let d = self.config.discount_at(ep.round());
        for k in sides {
            let side = self.sides[k].clone();
            let phi = d * potential(ep, &side, &self.config);
            let mut r = phi - self.last[k];
            self.last[k] = phi;
            if let Status::Terminal(o) = status {
                r += d * match &o.winner {
                    Some(w) if *w == side => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                };
            }
            out.push((side, r as f32));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ActionKind, Controller, Encounter};
    use std::sync::Arc;

    /// Two goblins (`players`) against an ogre (`monsters`) on the sample arena.
    fn arena() -> Arc<Encounter> {
        Arc::new(crate::content::encounter::goblins_vs_ogre())
    }

    /// Play `ep` to the end, every external decision an attack when one is legal (else a
    /// seeded random legal action), settling after every status change as a server does.
    /// Returns every reported reward, in order, and the final status.
    fn play(
        ep: &mut Episode,
        tracker: &mut RewardTracker,
        seed: u64,
    ) -> (Vec<(String, f32)>, Status) {
        let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut reported = Vec::new();
        let mut status = ep.advance();
        reported.extend(tracker.settle(ep, &status));
        while let Status::Decision(_) = status {
            let legal = ep.legal_actions();
            let attacks: Vec<_> = legal
                .iter()
                .filter(|l| {
                    matches!(
                        l.action.kind,
                        ActionKind::FullAttack | ActionKind::Attack | ActionKind::Charge
                    )
                })
                .collect();
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            // The kinds added later (defensive, menu) are never picked: the games stay those
            // the assertions below were written for.
            let others: Vec<_> = legal
                .iter()
                .filter(|l| {
                    !(matches!(
                        l.action.kind,
                        ActionKind::TotalDefense
                            | ActionKind::FightDefensively
                            | ActionKind::Delay
                            | ActionKind::Ready
                            | ActionKind::AidAnother
                            | ActionKind::CoupDeGrace
                            | ActionKind::DrawWeapon
                            | ActionKind::SheatheWeapon
                    ) || (l.action.kind == ActionKind::Run && l.action.target.is_some()))
                })
                .collect();
            let pick = if attacks.is_empty() {
                others[(rng % others.len() as u64) as usize]
            } else {
                attacks[(rng % attacks.len() as u64) as usize]
            };
            ep.submit(
                ep.decision().unwrap().decision_id,
                std::slice::from_ref(&pick.action),
            )
            .unwrap();
            status = ep.advance();
            reported.extend(tracker.settle(ep, &status));
        }
        (reported, status)
    }

    fn sparse(status: &Status, side: &str) -> f64 {
        match status {
            Status::Terminal(o) => match &o.winner {
                Some(w) if w == side => 1.0,
                Some(_) => -1.0,
                None => 0.0,
            },
            Status::Decision(_) => panic!("not over"),
        }
    }

    const SHAPED: RewardConfig = RewardConfig {
        shaped: true,
        damage_weight: 1.0,
        kill_weight: 0.5,
        round_discount: 1.0,
    };

    #[test]
    fn sparse_only_rewards_are_zero_until_the_end() {
        let enc = arena();
        let config = RewardConfig {
            shaped: false,
            ..SHAPED
        };
        let mut decided = 0;
        for seed in 0..6 {
            let controllers = [
                Controller::External,
                Controller::External,
                Controller::DefaultPolicy,
            ];
            let mut ep = Episode::new(enc.clone(), seed, &controllers);
            let mut tracker = RewardTracker::new(&ep, vec!["players".into()], config);
            assert_eq!(potential(&ep, "players", &config), 0.0);
            let (reported, status) = play(&mut ep, &mut tracker, seed);
            let (last, before) = reported.split_last().expect("a reward at the end");
            assert!(before.iter().all(|(s, r)| s == "players" && *r == 0.0));
            assert_eq!(last.0, "players");
            assert_eq!(f64::from(last.1), sparse(&status, "players"));
            decided += usize::from(last.1 != 0.0);
        }
        assert!(decided > 0, "every fight was a draw");
    }

    #[test]
    fn shaped_rewards_telescope_to_the_final_potential_plus_the_sparse_reward() {
        let enc = arena();
        let sides = vec!["players".to_string(), "monsters".to_string()];
        for seed in 0..6 {
            let mut ep = Episode::new(enc.clone(), seed, &[Controller::External; 3]);
            // Nothing has happened: every potential is 0.
            for s in &sides {
                assert_eq!(potential(&ep, s, &SHAPED), 0.0);
            }
            let mut tracker = RewardTracker::new(&ep, sides.clone(), SHAPED);
            let (reported, status) = play(&mut ep, &mut tracker, seed);
            // The end reports every side, in order.
            let n = reported.len();
            assert_eq!(reported[n - 2].0, "players");
            assert_eq!(reported[n - 1].0, "monsters");
            let mut totals = 0.0;
            for s in &sides {
                let sum: f64 = reported
                    .iter()
                    .filter(|(side, _)| side == s)
                    .map(|(_, r)| f64::from(*r))
                    .sum();
                let want = potential(&ep, s, &SHAPED) + sparse(&status, s);
                assert!(
                    (sum - want).abs() < 1e-4,
                    "seed {seed} {s}: {sum} vs {want}"
                );
                totals += sum;
            }
            // Two sides: the shaped terms are zero-sum, and so is the sparse reward of a
            // decided fight (draws give 0 to both).
            assert!(totals.abs() < 1e-4, "seed {seed}: {totals}");
            assert!(potential(&ep, "players", &SHAPED) != 0.0, "seed {seed}");
        }
    }

    #[test]
    fn a_decision_of_an_untracked_side_reports_nothing() {
        let enc = arena();
        let mut ep = Episode::new(enc, 3, &[Controller::External; 3]);
        let mut tracker = RewardTracker::new(&ep, vec!["nobody".into()], SHAPED);
        let status = ep.advance();
        assert!(matches!(status, Status::Decision(_)));
        assert!(tracker.settle(&ep, &status).is_empty());
        assert_eq!(tracker.sides(), ["nobody".to_string()]);
        assert_eq!(tracker.config(), &SHAPED);
    }

    #[test]
    fn the_potential_follows_the_formula() {
        let enc = arena();
        let mut ep = Episode::new(enc.clone(), 1, &[Controller::External; 3]);
        let mut tracker = RewardTracker::new(&ep, vec!["players".into()], SHAPED);
        play(&mut ep, &mut tracker, 1);
        let att = ep.attrition();
        let hp = |i: usize| f64::from(enc.combatants[i].spec.max_hp());
        let down = |i: usize| {
            f64::from(u8::from(
                !ep.life_state(CombatantId(i as u16)).is_conscious(),
            ))
        };
        let d = |i: usize| att[i].damage_taken as f64;
        let want = 1.0 * (d(2) / hp(2) - (d(0) + d(1)) / (hp(0) + hp(1)))
            + 0.5 * (down(2) - down(0) - down(1));
        assert_eq!(potential(&ep, "players", &SHAPED), want);
    }

    #[test]
    fn the_round_discount_is_g_to_the_rounds_elapsed_and_exactly_1_without_discount() {
        let g = RewardConfig {
            round_discount: 0.5,
            ..SHAPED
        };
        // The surprise round (0) and round 1 are undiscounted.
        assert_eq!(
            [0, 1, 2, 3, 11].map(|r| g.discount_at(r)),
            [1.0, 1.0, 0.5, 0.25, 0.5f64.powi(10)]
        );
        let irrational = RewardConfig {
            round_discount: 0.95,
            ..SHAPED
        };
        let mut want = 1.0f64;
        for r in 1..200u32 {
            assert!((irrational.discount_at(r) - want).abs() <= 1e-12 * want);
            want *= 0.95;
        }
        assert!([0, 1, 7, 1000, u32::MAX]
            .iter()
            .all(|r| SHAPED.discount_at(*r) == 1.0));
    }

    #[test]
    fn round_discounted_rewards_telescope_to_the_discounted_end_value() {
        let enc = arena();
        let sides = vec!["players".to_string(), "monsters".to_string()];
        let g = 0.9;
        let config = RewardConfig {
            round_discount: g,
            ..SHAPED
        };
        let mut discounted = 0;
        for seed in 0..6 {
            let mut ep = Episode::new(enc.clone(), seed, &[Controller::External; 3]);
            let mut tracker = RewardTracker::new(&ep, sides.clone(), config);
            let (reported, status) = play(&mut ep, &mut tracker, seed);
            let rounds = ep.round().max(1);
            let d_end = g.powi(rounds as i32 - 1);
            for s in &sides {
                let sum: f64 = reported
                    .iter()
                    .filter(|(side, _)| side == s)
                    .map(|(_, r)| f64::from(*r))
                    .sum();
                // phi at the start is 0 (nothing has happened).
                let end = potential(&ep, s, &config) + sparse(&status, s);
                let want = d_end * end;
                assert!(
                    (sum - want).abs() < 1e-4,
                    "seed {seed} {s}: {sum} vs {want} (R = {rounds})"
                );
                if rounds > 1 && end.abs() > 0.1 {
                    // The discount did something: the undiscounted sum differs.
                    assert!((sum - end).abs() > 1e-3, "seed {seed} {s}");
                    discounted += 1;
                }
            }
        }
        assert!(discounted > 0, "every fight ended in round 1");
    }

    #[test]
    fn without_discount_the_rewards_are_the_undiscounted_ones_bit_for_bit() {
        // The formula of the protocol before `round_discount`, recomputed independently.
        let enc = arena();
        for seed in 0..4 {
            let mut ep = Episode::new(enc.clone(), seed, &[Controller::External; 3]);
            let mut tracker = RewardTracker::new(&ep, vec!["players".into()], SHAPED);
            let mut last = 0.0f64;
            let mut rng = seed | 1;
            let mut status = ep.advance();
            loop {
                let got = tracker.settle(&ep, &status);
                let mine = matches!(&status, Status::Decision(d)
                    if ep.encounter().combatants[usize::from(d.actor.0)].side == "players")
                    || matches!(status, Status::Terminal(_));
                if mine {
                    let phi = potential(&ep, "players", &SHAPED);
                    let mut r = phi - last;
                    last = phi;
                    if let Status::Terminal(_) = status {
                        r += sparse(&status, "players");
                    }
                    assert_eq!(got, vec![("players".to_string(), r as f32)]);
                } else {
                    assert!(got.is_empty());
                }
                let Status::Decision(d) = &status else { break };
                let legal = ep.legal_actions();
                rng = rng
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let pick = legal
                    .iter()
                    .find(|l| matches!(l.action.kind, ActionKind::Attack | ActionKind::FullAttack))
                    .unwrap_or(&legal[(rng >> 33) as usize % legal.len()]);
                ep.submit(d.decision_id, std::slice::from_ref(&pick.action))
                    .unwrap();
                status = ep.advance();
            }
        }
    }
}
