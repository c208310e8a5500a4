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
            let hp_ok = c.hp <= spec.max_hp() + 1000 && c.hp >= -100_000;
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
                || !hp_ok
                || !grapple_ok
            {
                return bad("combatant state does not fit the encounter");
            }
            // Two combatants may share squares: a mover passing through an ally's square
            // stops there while an attack of opportunity is decided. Whether the positions
            // are reachable is what the replay below checks.
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
        let ep = Episode {
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
        };
        ep.check_replays()?;
        Ok(ep)
    }

    /// A restored state must be what its start and its history give: the history replayed on
    /// the start dice (a scripted script leniently: it may be tampered) reproduces the whole
    /// state, frames, transcript and RNG included — so a snapshot can only describe a state
    /// that legal play reaches.
    fn check_replays(&self) -> Result<(), SnapshotError> {
        let bad = |what: String| Err(SnapshotError::Malformed(what));
        let mut replayed = Episode::with_dice(
            Arc::clone(&self.enc),
            self.start_dice.source().lenient(),
            &self.controllers,
        );
        if let Err(e) = replayed.replay_history(&self.history) {
            return bad(format!("its history does not replay: {e}"));
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
        replayed.advance();
        if same(&replayed) {
            return Ok(());
        }
        bad("the state is not the one its history gives".into())
    }
}
