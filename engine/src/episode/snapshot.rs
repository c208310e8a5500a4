//! Snapshots: the whole episode state (RNG, pending frames and history included) as JSON
//! bytes with a format version, the engine version and a fingerprint of the encounter;
//! restoring checks every invariant the engine relies on (a snapshot is client data).

use crate::actions::CombatantId;
use crate::content::encounter::Encounter;
use crate::dice::DiceSource;
use crate::episode::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Version of the snapshot byte format.
const SNAPSHOT_FORMAT: u32 = 8;

/// Error of [`Episode::restore`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    #[error("not a valid episode snapshot: {0}")]
    Malformed(String),
    #[error("snapshot from another engine version ({found})")]
    Version { found: String },
    #[error("snapshot taken on a different encounter")]
    OtherEncounter,
    /// [`Episode::restore_within`]: the work budget stopped the replay of its history.
    #[error("the replay of its history was stopped: {0}")]
    Interrupted(crate::episode::Interrupted),
}

/// The most damage a restored attrition counter may hold (far above any combat's).
const MAX_DAMAGE: i64 = 1 << 40;

/// The longest duration in rounds a restored condition, spell effect, area or summons may
/// have left, unless the combatant's own initial conditions last longer: 24 hours of rounds
/// (a 24-hour spell's 14,400 rounds, with room).
const MAX_DURATION_ROUNDS: u32 = 100_000;

/// The counters of combatant `i`'s restored state that only decrease from their start, or
/// are bounded by its statistics (a snapshot is client data): hit points at most its
/// maximum (nothing in the engine raises them above: healing stops at the maximum, there
/// are no temporary hit points) and consistent with its life state (CRB — Combat: Injury
/// and Death: positive healthy, 0 disabled, negative dying or stable), ammunition, spell
/// slots and counted uses at most what it started with, attacks of opportunity this round
/// at most its allowance (CRB — Feats: Combat Reflexes), durations bounded. `Err` says which.
fn check_counters(enc: &Encounter, i: usize, c: &CState) -> Result<(), String> {
    let spec = &enc.combatants[i].spec;
    let max = spec.max_hp();
    if c.hp > max {
        return Err(format!("hp {} is above its max hp {max}", c.hp));
    }
    if c.hp < -100_000 {
        return Err(format!("hp {} is out of range", c.hp));
    }
    let life_ok = match c.life {
        LifeState::Healthy => c.hp > 0,
        LifeState::Disabled => c.hp == 0,
        LifeState::Dying | LifeState::Stable => c.hp < 0,
        LifeState::Dead => true,
    };
    if !life_ok {
        return Err(format!("life state {:?} does not fit hp {}", c.life, c.hp));
    }
    if c.absent && c.life != LifeState::Dead {
        return Err("an absent summons slot must read dead".into());
    }
    if let Some(b) = &c.bleed_damage {
        crate::content::combatant::check_bleed_amount(b)
            .map_err(|e| format!("bleed_damage: {e}"))?;
    }
    for (k, (left, a)) in c.ammo.iter().zip(&spec.attacks).enumerate() {
        let ok = match (left, a.ammunition) {
            (None, None) => true,
            (Some(l), Some(start)) => *l <= start,
            _ => false,
        };
        if !ok {
            return Err(format!(
                "ammo[{k}] {left:?} does not fit the attack's ammunition {:?}",
                a.ammunition
            ));
        }
    }
    for (l, left) in c.slots_left.iter().enumerate() {
        let start = spec.slots_of(l as u8).unwrap_or(0);
        if *left > start {
            return Err(format!(
                "slots_left[{l}] {left} is above its {start} spell slots of level {l}"
            ));
        }
    }
    for (k, (left, s)) in c.spell_uses.iter().zip(spec.spellbook()).enumerate() {
        let ok = match (left, &s.uses) {
            (None, crate::content::combatant::SpellUses::Counted(_)) => false,
            (None, _) => true,
            (Some(l), crate::content::combatant::SpellUses::Counted(start)) => l <= start,
            (Some(_), _) => false,
        };
        if !ok {
            return Err(format!(
                "spell_uses[{k}] {left:?} does not fit the spell's uses {:?}",
                s.uses
            ));
        }
    }
    let allowance = if spec.has_feat(crate::content::feats::Feat::CombatReflexes) {
        (1 + spec.abilities.dex_mod()).max(1) as u32
    } else {
        1
    };
    if c.aoo_used > allowance {
        return Err(format!(
            "aoo_used {} is above its {allowance} attacks of opportunity per round",
            c.aoo_used
        ));
    }
    let longest = spec
        .conditions
        .iter()
        .filter_map(|x| x.rounds)
        .max()
        .unwrap_or(0)
        .max(MAX_DURATION_ROUNDS);
    let durations = c
        .conditions
        .iter()
        .filter_map(|x| x.rounds)
        .chain(c.spell_effects.iter().map(|e| e.rounds))
        .chain(c.recurring.iter().map(|r| r.rounds))
        .chain(c.zones.iter().map(|z| z.rounds))
        .chain(std::iter::once(c.summon_rounds));
    if let Some(r) = durations.into_iter().find(|r| *r > longest) {
        return Err(format!("a duration of {r} rounds is above {longest}"));
    }
    let mut seen = Vec::new();
    for x in &c.conditions {
        if seen.contains(&x.condition) {
            return Err(format!("condition {:?} is listed twice", x.condition));
        }
        seen.push(x.condition);
    }
    Ok(())
}

/// FNV-1a 64 of the encounter's JSON serialization: identifies the encounter a snapshot
/// belongs to.
fn encounter_fingerprint(enc: &Encounter) -> u64 {
    let bytes = serde_json::to_vec(enc).expect("encounter serializes");
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[derive(Serialize)]
struct SnapshotRef<'a> {
    format: u32,
    engine: &'a str,
    encounter: u64,
    dice: &'a DiceSource,
    start_dice: DiceSource,
    controllers: &'a [Controller],
    st: &'a [CState],
    round: u32,
    order: &'a [CombatantId],
    turn_pos: usize,
    phase: &'a Phase,
    frames: &'a [crate::episode::frames::Frame],
    history: &'a [HistoryEntry],
    turn: &'a TurnState,
    next_decision_id: u64,
    log: &'a [LogLine],
    attrition: &'a [Attrition],
    move_aoo_provoked: &'a BTreeSet<(CombatantId, CombatantId)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SnapshotOwned {
    format: u32,
    engine: String,
    encounter: u64,
    dice: DiceSource,
    start_dice: DiceSource,
    controllers: Vec<Controller>,
    st: Vec<CState>,
    round: u32,
    order: Vec<CombatantId>,
    turn_pos: usize,
    phase: Phase,
    frames: Vec<crate::episode::frames::Frame>,
    history: Vec<HistoryEntry>,
    turn: TurnState,
    next_decision_id: u64,
    log: Vec<LogLine>,
    attrition: Vec<Attrition>,
    move_aoo_provoked: BTreeSet<(CombatantId, CombatantId)>,
}

impl Episode {
    /// A snapshot of the whole episode state (RNG included) as bytes (JSON), to restore later
    /// with [`Episode::restore`] on the same encounter. Restoring and submitting the same
    /// actions gives the same transcript.
    pub fn snapshot(&self) -> Vec<u8> {
        let snap = SnapshotRef {
            format: SNAPSHOT_FORMAT,
            engine: crate::VERSION,
            encounter: encounter_fingerprint(&self.enc),
            dice: &self.dice,
            start_dice: self.start_dice.source(),
            controllers: &self.controllers,
            st: &self.st,
            round: self.round,
            order: &self.order,
            turn_pos: self.turn_pos,
            phase: &self.phase,
            frames: &self.frames,
            history: &self.history,
            turn: &self.turn,
            next_decision_id: self.next_decision_id,
            log: &self.log,
            attrition: &self.attrition,
            move_aoo_provoked: &self.move_aoo_provoked,
        };
        serde_json::to_vec(&snap).expect("episode state serializes")
    }

    /// Rebuild an episode from [`Episode::snapshot`] bytes.
    ///
    /// # Errors
    /// [`SnapshotError`] if the bytes are not a snapshot of this format, or were taken on a
    /// different encounter or engine version.
    pub fn restore(encounter: Arc<Encounter>, bytes: &[u8]) -> Result<Episode, SnapshotError> {
        Episode::restore_within(encounter, bytes, &|_| u64::MAX, None)
    }

    /// [`Episode::restore`] with the replay of its history (the check that the state is one
    /// legal play reaches) within a work budget: `max_turns(entries)` turn starts for a
    /// history of `entries` decisions, and the stop function `stop` (see [`WorkBudget`]).
    ///
    /// # Errors
    /// As [`Episode::restore`]; [`SnapshotError::Interrupted`] when the budget stopped the
    /// replay.
    pub fn restore_within(
        encounter: Arc<Encounter>,
        bytes: &[u8],
        max_turns: &dyn Fn(usize) -> u64,
        stop: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<Episode, SnapshotError> {
        let s: SnapshotOwned =
            serde_json::from_slice(bytes).map_err(|e| SnapshotError::Malformed(e.to_string()))?;
        if s.format != SNAPSHOT_FORMAT || s.engine != crate::VERSION {
            return Err(SnapshotError::Version {
                found: format!("format {} engine {}", s.format, s.engine),
            });
        }
        if s.encounter != encounter_fingerprint(&encounter) {
            return Err(SnapshotError::OtherEncounter);
        }
        let n = encounter.combatants.len();
        let bad = |what: &str| Err(SnapshotError::Malformed(what.to_string()));
        if s.st.len() != n || s.controllers.len() != n || s.attrition.len() != n {
            return bad("combatant count mismatch");
        }
        let mut seen = vec![false; n];
        for c in &s.order {
            match seen.get_mut(c.0 as usize) {
                Some(x) if !*x => *x = true,
                _ => return bad("initiative order is not a permutation of the combatants"),
            }
        }
        if !(s.order.is_empty() || s.order.len() == n) || s.turn_pos >= n.max(1) {
            return bad("turn position out of range");
        }
        // A snapshot is client data: check every invariant the engine relies on, so a tampered
        // one is refused instead of producing an impossible state.
        const MAX_ID: u64 = 1 << 53;
        if s.next_decision_id > MAX_ID {
            return bad("decision counter out of range");
        }
        let cap = encounter.options.round_cap;
        let started = !s.order.is_empty();
        if s.round > cap || (started && s.round == 0) || (!started && s.round != 0) {
            return bad("round out of range");
        }
        match &s.phase {
            Phase::Awaiting(d) => {
                let i = d.actor.0 as usize;
                if i >= n || !started {
                    return bad("the awaited actor is not a combatant");
                }
                if !d.kind.is_reaction() && s.order[s.turn_pos] != d.actor {
                    return bad("the awaited actor is not the one whose turn it is");
                }
                if s.controllers[i] != Controller::External {
                    return bad("the awaited actor is not externally controlled");
                }
                if !s.st[i].life.is_conscious() || d.round != s.round {
                    return bad(
                        "the awaited decision is impossible (actor unconscious or wrong round)",
                    );
                }
                if d.decision_id >= s.next_decision_id {
                    return bad("decision id ahead of the decision counter");
                }
            }
            Phase::Over(o) => {
                if o.rounds > cap
                    || o.winner
                        .as_ref()
                        .is_some_and(|w| !encounter.sides.contains(w))
                {
                    return bad("outcome out of range");
                }
            }
            Phase::NotStarted | Phase::TurnStart => {}
            Phase::Resolving => return bad("a snapshot is taken at rest, never mid-resolution"),
        }
        for (i, c) in s.st.iter().enumerate() {
            let spec = &encounter.combatants[i].spec;
            let cells = crate::geometry::grid::footprint(c.pos, spec.size.footprint_side());
            let in_map = cells.iter().all(|x| encounter.grid.in_bounds(*x));
            let grapple_ok = c.grapple.is_none_or(|g| (g.with.0 as usize) < n)
                && c.aid.len() <= 1024
                && c.aid
                    .iter()
                    .all(|b| (b.aider.0 as usize) < n && (b.opponent.0 as usize) < n);
            let book = spec.spellbook().len();
            let who = |x: CombatantId| (x.0 as usize) < n;
            let magic_ok = (c.slots_left.len() == 10
                || (c.slots_left.is_empty() && spec.spell_slots.is_empty()))
                && c.spell_uses.len() == book
                && c.pending_cast.is_none_or(|p| {
                    p.spell < book
                        && p.target.is_none_or(who)
                        && p.at.is_none_or(|x| encounter.grid.in_bounds(x))
                })
                && c.held_charge.is_none_or(|h| h.spell < book)
                && c.spell_effects.len() <= 256
                && c.spell_effects.iter().all(|e| who(e.caster))
                && c.recurring.len() <= 256
                && c.recurring
                    .iter()
                    .all(|r| who(r.caster) && r.dice.parse::<crate::dice::DiceExpr>().is_ok())
                && c.mirror_images <= 20
                && c.zones.len() <= 64
                && c.zones.iter().all(|z| {
                    z.cells.len() <= 100_000 && z.cells.iter().all(|x| encounter.grid.in_bounds(*x))
                });
            if !in_map
                || !magic_ok
                || c.ammo.len() != spec.attacks.len()
                || c.weapons.len() != spec.attacks.len()
                || !grapple_ok
            {
                return bad("combatant state does not fit the encounter");
            }
            check_counters(&encounter, i, c).map_err(|what| {
                SnapshotError::Malformed(format!(
                    "st[{i}] ({}): {what}",
                    encounter.combatants[i].id
                ))
            })?;
            // Two combatants may share squares: a mover passing through an ally's square
            // stops there while an attack of opportunity is decided. Whether the positions
            // are reachable is what the replay below checks.
        }
        for (i, a) in s.attrition.iter().enumerate() {
            if a.hits > a.attacks
                || a.crits > a.hits
                || a.damage_dealt < 0
                || a.damage_taken < 0
                || a.damage_dealt > MAX_DAMAGE
                || a.damage_taken > MAX_DAMAGE
            {
                return Err(SnapshotError::Malformed(format!(
                    "attrition[{i}]: impossible counters (crits <= hits <= attacks, 0 <= damage <= {MAX_DAMAGE}): {a:?}"
                )));
            }
        }
        for (k, l) in s.log.iter().enumerate() {
            if l.round.is_some_and(|r| r > cap)
                || l.actor
                    .as_ref()
                    .is_some_and(|a| !encounter.combatants.iter().any(|p| p.id == *a))
            {
                return Err(SnapshotError::Malformed(format!(
                    "log[{k}]: its round is above the round cap or its actor is not a combatant"
                )));
            }
        }
        if s.history
            .windows(2)
            .any(|w| w[0].decision_id >= w[1].decision_id)
        {
            return bad("history: decision ids are not increasing");
        }
        if let Err(what) = crate::episode::frames::check_frames(
            &encounter,
            &s.phase,
            &s.frames,
            s.order.get(s.turn_pos).copied(),
            s.history.len(),
        ) {
            return bad(what);
        }
        if s.history.len() as u64 >= s.next_decision_id.max(1)
            || s.history.iter().any(|e| {
                e.actor.0 as usize >= n
                    || e.decision_id >= s.next_decision_id
                    || e.actions.len() > 1 << 16
                    || e.results.len() > e.actions.len()
            })
        {
            return bad("history does not fit the decision counter or the encounter");
        }
        if s.move_aoo_provoked
            .iter()
            .any(|(a, b)| a.0 as usize >= n || b.0 as usize >= n)
        {
            return bad("attack-of-opportunity bookkeeping names unknown combatants");
        }
        let mut ep = Episode {
            enc: encounter,
            start_dice: crate::dice::StartDice::of(&s.start_dice),
            dice: s.dice,
            controllers: s.controllers,
            st: s.st,
            round: s.round,
            order: s.order,
            turn_pos: s.turn_pos,
            phase: s.phase,
            frames: s.frames,
            history: s.history,
            turn: s.turn,
            next_decision_id: s.next_decision_id,
            log: s.log,
            attrition: s.attrition,
            move_aoo_provoked: s.move_aoo_provoked,
            field_slot: Default::default(),
            steps: None,
            log_bytes: 0,
            history_bytes: 0,
            transcript: true,
        };
        ep.recount_log_and_history();
        let turns = max_turns(ep.history.len());
        let mut budget = match stop {
            Some(stop) => WorkBudget::new(turns, stop),
            None => WorkBudget::unlimited(),
        };
        ep.check_replays(&mut budget)?;
        Ok(ep)
    }

    /// A restored state must be what its start and its history give: the history replayed on
    /// the start dice (a scripted script leniently: it may be tampered) reproduces the whole
    /// state, frames, transcript and RNG included — so a snapshot can only describe a state
    /// that legal play reaches.
    fn check_replays(&self, budget: &mut WorkBudget) -> Result<(), SnapshotError> {
        let bad = |what: String| Err(SnapshotError::Malformed(what));
        let mut replayed = Episode::with_dice(
            Arc::clone(&self.enc),
            self.start_dice.source().lenient(),
            &self.controllers,
        );
        match replayed.replay_history_within(&self.history, budget) {
            Ok(()) => {}
            Err(super::history::ReplayStop::Mismatch(e)) => {
                return bad(format!("its history does not replay: {e}"))
            }
            Err(super::history::ReplayStop::Interrupted(i)) => {
                return Err(SnapshotError::Interrupted(i))
            }
        }
        let Ok(want) = serde_json::from_slice::<serde_json::Value>(&self.snapshot()) else {
            return bad("the state does not serialise".into());
        };
        let same = |ep: &Episode| {
            !ep.dice.overrun()
                && serde_json::from_slice::<serde_json::Value>(&ep.snapshot())
                    .is_ok_and(|v| v == want)
        };
        // A snapshot is taken after `submit` (the next turn not started) or after `advance`.
        if same(&replayed) {
            return Ok(());
        }
        replayed
            .advance_within(budget)
            .map_err(SnapshotError::Interrupted)?;
        if same(&replayed) {
            return Ok(());
        }
        bad("the state is not the one its history gives".into())
    }
}
