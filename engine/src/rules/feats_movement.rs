//! The combat feats that change movement, reach and attacks of opportunity (CRB — Feats):
//! Cleave, Great Cleave, Spring Attack, Shot on the Run, Lunge, Mobility, Stand Still. The
//! actions that use them are in `actions::movement_feats`; this module holds their rules and
//! the frames they add to the resumable core ([`crate::episode::frames`]).
//!
//! - **Cleave / Great Cleave** ([`CleaveChain`]): a standard action; one melee attack at the
//!   full bonus; if it hits, one more attack against a foe adjacent to the first target and
//!   within reach (Great Cleave: on and on, each foe adjacent to the previous one, never the
//!   same foe twice). The engine picks the next foe: the first conscious enemy in combatant
//!   list order that qualifies (documented choice; the SRD lets the attacker choose). −2 AC
//!   until the start of the attacker's next turn, whatever the attacks do.
//! - **Spring Attack / Shot on the Run** ([`move_attack_table`], [`MoveAttack`]): a
//!   full-round action; move up to one's speed to `destination` and make one attack against
//!   `target` at some point of the move. The engine picks the attack square: of the squares
//!   from which the weapon can attack the target, the one giving the cheapest total movement
//!   (ties: less movement before the attack, then row-major order). Spring Attack: melee, at
//!   least 10 ft (2 squares of movement) before the attack, not against a foe adjacent at
//!   the start of the turn, and the target makes no attack of opportunity for this movement
//!   (others may). Shot on the Run: a ranged attack anywhere along the move (which provokes
//!   as a ranged attack does). Simplification: each leg counts its diagonals from its own
//!   start (the first diagonal after the attack costs 5 ft), see `docs/conformance.md`.
//! - **Lunge** ([`attack_reach`]): a free declaration before any attack of the turn: +5 ft of
//!   reach on the actor's melee attacks until the end of its turn, −2 AC until the start of
//!   its next turn. The SRD text extends "the reach of your melee attacks": threatened
//!   squares (attacks of opportunity, flanking) are unchanged.
//! - **Mobility** ([`mobility_bonus`]): +4 dodge AC against attacks of opportunity provoked
//!   by movement (leaving a threatened square, entering an opponent's square); lost when
//!   denied Dex, like every dodge bonus.
//! - **Stand Still** ([`stand_still_applies`], `Episode::answer_stand_still`): when a foe
//!   provokes an attack of opportunity by leaving a square adjacent to the feat's owner, the
//!   owner may make a combat maneuver check instead (its CMB against the foe's CMD; natural
//!   20 succeeds, natural 1 fails); on success the foe cannot move for the rest of its turn
//!   (its walk ends in the square it was leaving; later movement is refused, `stood_still`).
//!   It spends the attack of opportunity. Offered only to an external reactor (the
//!   `stand_still` answer); the default policy never uses it.

use crate::actions::CombatantId;
use crate::content::feats::Feat;
use crate::effects::{BonusType, Modifier, Stat};
use crate::episode::frames::{AooWindow, Frame};
use crate::episode::Episode;
use crate::geometry::grid::{self, Cell, PathField};
use crate::rules::aoo::Provocation;
use crate::rules::attack_roll::AttackOpts;
use crate::rules::idx;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;

/// Lunge's extra reach, in feet (CRB — Feats: Lunge).
pub(crate) const LUNGE_REACH_FT: i32 = 5;
/// Lunge's AC penalty until the start of the next turn (CRB — Feats: Lunge).
pub(crate) const LUNGE_AC: i32 = -2;
/// Cleave's AC penalty until the start of the next turn (CRB — Feats: Cleave).
pub(crate) const CLEAVE_AC: i32 = -2;
/// Mobility's dodge bonus against movement attacks of opportunity (CRB — Feats: Mobility).
pub(crate) const MOBILITY_AC: i32 = 4;
/// Spring Attack's movement before the attack, in squares of movement (10 ft — CRB — Feats:
/// Spring Attack: "you must move at least 10 feet before the attack").
pub(crate) const SPRING_MIN_BEFORE_SQUARES: u32 = 2;

// ----- Lunge, Cleave's and Lunge's AC ---------------------------------------------------

/// Whether it is `c`'s turn now (its turn frame is in progress or about to be).
fn is_turn_of(ep: &Episode, c: CombatantId) -> bool {
    ep.order.get(ep.turn_pos) == Some(&c)
}

/// The reach of `a`'s melee attack `(dead zone, max)` in feet, Lunge applied: +5 ft to the
/// maximum while `a` lunges on its own turn (CRB — Feats: Lunge, "until the end of your
/// turn"). For attacks only: threatened squares use the weapon's reach unchanged.
pub(crate) fn attack_reach(
    ep: &Episode,
    a: CombatantId,
    reach: (Option<i32>, i32),
) -> (Option<i32>, i32) {
    if ep.st[idx(a)].lunge && is_turn_of(ep, a) {
        (reach.0, reach.1 + LUNGE_REACH_FT)
    } else {
        reach
    }
}

/// The AC penalties of Cleave and Lunge on `c` (untyped, until the start of its next turn),
/// appended to its modifiers (`Episode::modifiers_for`).
pub(crate) fn ac_mods(ep: &Episode, c: CombatantId, out: &mut Vec<Modifier>) {
    let st = &ep.st[idx(c)];
    if st.cleaving {
        out.push(Modifier::new(
            Stat::Ac,
            CLEAVE_AC,
            BonusType::Untyped,
            "cleave",
        ));
    }
    if st.lunge {
        out.push(Modifier::new(
            Stat::Ac,
            LUNGE_AC,
            BonusType::Untyped,
            "lunge",
        ));
    }
}

// ----- Mobility -------------------------------------------------------------------------

/// Whether an attack of opportunity for `why` is one "caused when you move out of or within
/// a threatened area" (CRB — Feats: Mobility): leaving a threatened square, entering an
/// opponent's square.
pub(crate) fn is_movement(why: Provocation) -> bool {
    matches!(why, Provocation::Leaving | Provocation::Entering)
}

/// Mobility's dodge bonus to `t`'s AC against an attack with `opts` (`denied`: `t` is denied
/// its Dexterity bonus to AC, so it loses dodge bonuses): +4 against a movement attack of
/// opportunity with the feat, else 0.
pub(crate) fn mobility_bonus(ep: &Episode, t: CombatantId, opts: &AttackOpts, denied: bool) -> i32 {
    if opts.movement_aoo && !denied && ep.spec(t).has_feat(Feat::Mobility) {
        MOBILITY_AC
    } else {
        0
    }
}

// ----- Stand Still ----------------------------------------------------------------------

/// Whether `x` may answer window `w` with Stand Still (CRB — Feats: Stand Still): it has the
/// feat and the provoker is leaving a square adjacent to `x` (footprints one square apart).
/// Entering `x`'s own square is not "moving through your adjacent squares".
pub(crate) fn stand_still_applies(ep: &Episode, w: &AooWindow, x: CombatantId) -> bool {
    w.why == Provocation::Leaving
        && ep.spec(x).has_feat(Feat::StandStill)
        && grid::footprint_distance_squares(
            ep.st[idx(x)].pos,
            ep.fp_side(x),
            w.pos,
            ep.fp_side(w.provoker),
        ) == 1
}

impl Episode {
    /// `x` answers window `w` with Stand Still: its attack of opportunity is spent, it rolls
    /// d20 + CMB against the provoker's CMD, and on success the provoker cannot move for the
    /// rest of its turn ([`crate::episode::state::CState::stood_still`]). The window goes on
    /// with the next threatener.
    pub(crate) fn answer_stand_still(&mut self, mut w: AooWindow, x: CombatantId) {
        w.asking = false;
        w.next = x.0 + 1;
        let p = w.provoker;
        if w.why == Provocation::Leaving {
            self.move_aoo_provoked.insert((x, p));
        }
        self.frames.push(Frame::AooWindow(w));
        self.st[idx(x)].aoo_used += 1;
        let (cmb, cmd) = (self.cmb(x), self.cmd(p));
        let d = self.roll(20) as i32;
        let total = d + cmb;
        let ok = d != 1 && (d == 20 || total >= cmd);
        let pid = self.id_of(p).to_string();
        let what = if ok {
            self.st[idx(p)].stood_still = true;
            format!("-> success: {pid} cannot move for the rest of its turn")
        } else {
            "-> failure".to_string()
        };
        self.log_turn(
            x,
            format!("stand still on {pid} (leaves a threatened square): CMB d20={d}{cmb:+}={total} vs CMD {cmd} {what}"),
        );
    }

    /// Whether `c` cannot move for the rest of its turn (Stand Still).
    pub(crate) fn stood_still(&self, c: CombatantId) -> bool {
        self.st[idx(c)].stood_still
    }

    /// The transcript's note on a walk that stops at once: why, when Stand Still stopped it
    /// (empty when the mover fell: the existing line reads the same).
    pub(crate) fn halt_note(&self, c: CombatantId) -> &'static str {
        if self.conscious(c) && self.stood_still(c) {
            " (stand still: cannot move for the rest of its turn)"
        } else {
            ""
        }
    }

    /// Open an attack-of-opportunity window (as [`Episode::open_window`]) in which `spared`
    /// makes none (Spring Attack's target).
    pub(crate) fn open_window_sparing(
        &mut self,
        provoker: CombatantId,
        why: Provocation,
        only: Option<CombatantId>,
        spared: Option<CombatantId>,
    ) {
        self.open_window(provoker, why, only);
        if let Some(Frame::AooWindow(win)) = self.frames.last_mut() {
            win.except = spared;
        }
    }

    /// Start a walk (as [`Episode::start_walk`]) during which `spared` makes no attack of
    /// opportunity. An empty path does nothing.
    pub(crate) fn start_walk_sparing(
        &mut self,
        mover: CombatantId,
        path: Vec<Cell>,
        what: &str,
        spared: Option<CombatantId>,
    ) {
        if path.is_empty() {
            return;
        }
        self.start_walk(mover, path, what, false);
        if let Some(Frame::Walk(wf)) = self.frames.last_mut() {
            wf.spared = spared;
        }
    }

    /// Whether a charge's attack follows its movement: the weapon can still attack the target
    /// from where the charger stands (Stand Still may have stopped it short; a readied move or
    /// 5-foot step may have taken the target out of reach).
    pub(crate) fn charge_attack_allowed(
        &self,
        attacker: CombatantId,
        target: CombatantId,
        weapon: usize,
    ) -> bool {
        crate::rules::weapons::can_weapon_attack(
            self,
            attacker,
            self.st[idx(attacker)].pos,
            weapon,
            target,
        )
        .is_ok()
    }
}

// ----- Cleave ---------------------------------------------------------------------------

/// A Cleave chain in progress (CRB — Feats: Cleave, Great Cleave): the foes attacked so far
/// (in order) and the attacker's hit count before the last attack (a hit raises it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CleaveChain {
    pub attacker: CombatantId,
    pub weapon: usize,
    /// Great Cleave: the chain goes on after the second attack.
    pub great: bool,
    pub attacked: Vec<CombatantId>,
    pub hits_before: u32,
}

/// Start a cleave: −2 AC until the next turn, the first attack, then the chain frame.
pub(crate) fn execute_cleave(ep: &mut Episode, a: CombatantId, target: CombatantId, weapon: usize) {
    let great = ep.spec(a).has_feat(Feat::GreatCleave);
    ep.st[idx(a)].cleaving = true;
    let name = if great { "great cleave" } else { "cleave" };
    ep.log_turn(
        a,
        format!("{name} (standard action): {CLEAVE_AC} AC until its next turn"),
    );
    let hits_before = ep.attrition[idx(a)].hits;
    ep.frames.push(Frame::Cleave(CleaveChain {
        attacker: a,
        weapon,
        great,
        attacked: vec![target],
        hits_before,
    }));
    push_swing(ep, a, target, weapon);
}

fn push_swing(ep: &mut Episode, a: CombatantId, target: CombatantId, weapon: usize) {
    ep.frames.push(Frame::Swing {
        attacker: a,
        target,
        weapon,
        opts: AttackOpts::default(),
        provoked: false,
        triggers_checked: false,
    });
}

/// The next foe of a cleave after `prev`: the first conscious enemy (list order) not yet
/// attacked, adjacent to `prev` (footprints one square apart) and within the weapon's reach.
fn next_cleave_target(ep: &Episode, c: &CleaveChain, prev: CombatantId) -> Option<CombatantId> {
    let a = c.attacker;
    let (ppos, pside) = (ep.st[idx(prev)].pos, ep.fp_side(prev));
    let apos = ep.st[idx(a)].pos;
    ep.ids().find(|&e| {
        e != a
            && ep.enemies(a, e)
            && ep.conscious(e)
            && !c.attacked.contains(&e)
            && grid::footprint_distance_squares(ppos, pside, ep.st[idx(e)].pos, ep.fp_side(e)) == 1
            && crate::rules::weapons::can_weapon_attack(ep, a, apos, c.weapon, e).is_ok()
    })
}

/// Step a cleave chain after its last attack: if it hit (and the chain may go on), the next
/// attack against the next foe ([`next_cleave_target`]).
pub(crate) fn step_cleave(ep: &mut Episode, mut c: CleaveChain) {
    let a = c.attacker;
    let hits = ep.attrition[idx(a)].hits;
    if !ep.conscious(a) || hits == c.hits_before || (!c.great && c.attacked.len() >= 2) {
        return;
    }
    let Some(&prev) = c.attacked.last() else {
        return;
    };
    let Some(next) = next_cleave_target(ep, &c, prev) else {
        ep.log_turn(a, "cleave: no other foe adjacent and within reach".into());
        return;
    };
    let (pid, nid) = (ep.id_of(prev).to_string(), ep.id_of(next).to_string());
    ep.log_turn(a, format!("cleave: hit {pid}, attacks {nid}"));
    c.attacked.push(next);
    c.hits_before = hits;
    let weapon = c.weapon;
    ep.frames.push(Frame::Cleave(c));
    push_swing(ep, a, next, weapon);
}

// ----- Spring Attack / Shot on the Run ----------------------------------------------------

/// For each destination square (row-major index), the best way to reach it with the attack:
/// `(total movement in squares, attack square)`, `None` if impossible.
pub(crate) type MoveAttackTable = Vec<Option<(u32, Cell)>>;

/// The memo of a decision's move-attack tables, per `(target, weapon, spring)`.
pub(crate) type MoveAttackMemo = RefCell<Vec<((CombatantId, usize, bool), Rc<MoveAttackTable>)>>;

/// The field of `a`'s movement from `from` (its passage map), bounded by `max` squares.
fn field_from(ep: &Episode, a: CombatantId, from: Cell, max: u32) -> PathField {
    ep.enc
        .grid
        .dijkstra_passages(from, ep.fp_side(a), Some(max), ep.passage_map(a))
}

/// The move-attack table of `a` against `t` with weapon `w` (see the module doc): every
/// attack square `s` at a cost `c0 ≤ speed` (and `≥ 2` for Spring Attack) of the actor's
/// movement field `field0` from which `w` can attack `t`; from each, every square the actor
/// can stop in within the rest of its speed.
pub(crate) fn move_attack_table(
    ep: &Episode,
    a: CombatantId,
    field0: &PathField,
    t: CombatantId,
    w: usize,
    spring: bool,
    speed_squares: u32,
) -> MoveAttackTable {
    let g = &ep.enc.grid;
    let cells = (g.rows.max(0) * g.cols.max(0)) as usize;
    let mut table: MoveAttackTable = vec![None; cells];
    let min_before = if spring { SPRING_MIN_BEFORE_SQUARES } else { 0 };
    let mut starts: Vec<(Cell, u32)> = field0
        .stoppable_iter()
        .filter(|&(_, c0)| c0 <= speed_squares && c0 >= min_before)
        .collect();
    // Less movement before the attack first (ties row-major: the iteration order).
    starts.sort_by_key(|&(c, c0)| (c0, c.row, c.col));
    for (s, c0) in starts {
        if crate::rules::weapons::can_weapon_attack(ep, a, s, w, t).is_err() {
            continue;
        }
        let rest = speed_squares - c0;
        let f2 = field_from(ep, a, s, rest);
        for (d, c2) in f2.stoppable_iter() {
            let Some(i) = g.index(d) else { continue };
            let total = c0 + c2;
            if table[i].is_none_or(|(best, _)| total < best) {
                table[i] = Some((total, s));
            }
        }
    }
    table
}

/// The two legs of a move-attack of `a`: the path to the attack square `at`, then from it
/// to `dest` (anchors, excluding each leg's start).
pub(crate) fn move_attack_legs(
    ep: &Episode,
    a: CombatantId,
    at: Cell,
    dest: Cell,
    speed_squares: u32,
) -> Option<(Vec<Cell>, Vec<Cell>)> {
    let leg1 = ep.move_field(a, None).path_to(at)?;
    let leg2 = field_from(ep, a, at, speed_squares).path_to(dest)?;
    Some((leg1, leg2))
}

/// The attack in the middle of a Spring Attack or Shot on the Run, once the first leg is
/// walked: the attack from the attack square (if the mover got there and the target is
/// still within reach or range), then the rest of the move (unless Stand Still stopped it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct MoveAttack {
    pub attacker: CombatantId,
    pub target: CombatantId,
    pub weapon: usize,
    /// The attack square.
    pub at: Cell,
    /// The second leg (from `at`).
    pub rest: Vec<Cell>,
    /// `spring_attack` or `shot_on_the_run` (the transcript's word).
    pub what: String,
    /// Spring Attack: the target makes no attack of opportunity for this movement.
    pub spared: Option<CombatantId>,
    /// The attack is done (or lost): the second leg is next.
    #[serde(default)]
    pub attacked: bool,
}

/// Step a [`MoveAttack`] frame (see its doc): first the attack (the frame goes back below
/// it, `attacked`), then the second leg.
pub(crate) fn step_move_attack(ep: &mut Episode, mut m: MoveAttack) {
    let a = m.attacker;
    if !ep.conscious(a) {
        return;
    }
    let pos = ep.st[idx(a)].pos;
    if m.attacked {
        if pos == m.at && !ep.stood_still(a) {
            let rest = std::mem::take(&mut m.rest);
            ep.start_walk_sparing(a, rest, &m.what, m.spared);
        }
        return;
    }
    let reachable =
        crate::rules::weapons::can_weapon_attack(ep, a, pos, m.weapon, m.target).is_ok();
    let (target, weapon) = (m.target, m.weapon);
    if ep.conscious(target) && !reachable {
        let tid = ep.id_of(target).to_string();
        ep.log_turn(a, format!("{}: {tid} not within reach, no attack", m.what));
    }
    let attack = ep.conscious(target) && reachable;
    m.attacked = true;
    ep.frames.push(Frame::MoveAttack(m));
    if attack {
        push_swing(ep, a, target, weapon);
    }
}

/// Execute a checked Spring Attack / Shot on the Run of `a`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn execute_move_attack(
    ep: &mut Episode,
    a: CombatantId,
    target: CombatantId,
    weapon: usize,
    at: Cell,
    dest: Cell,
    spring: bool,
    speed_squares: u32,
) {
    let what = if spring {
        "spring_attack"
    } else {
        "shot_on_the_run"
    };
    let spared = spring.then_some(target);
    let (leg1, rest) = move_attack_legs(ep, a, at, dest, speed_squares)
        .expect("a checked move-attack has its paths");
    ep.turn.moved = true;
    ep.frames.push(Frame::MoveAttack(MoveAttack {
        attacker: a,
        target,
        weapon,
        at,
        rest,
        what: what.to_string(),
        spared,
        attacked: false,
    }));
    ep.start_walk_sparing(a, leg1, what, spared);
}
