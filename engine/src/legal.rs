//! The encounter's fixed discrete action space and the enumeration of legal actions.
//!
//! Layout (ids are contiguous blocks; N = combatants, W = most attacks of any combatant,
//! C = rows × cols squares of the map, row-major):
//!
//! | block          | size  | index within block                         |
//! |----------------|-------|--------------------------------------------|
//! | `end_turn`     | 1     | —                                          |
//! | `attack`       | N × W | target × W + weapon                        |
//! | `full_attack`  | N × W | target × W + weapon                        |
//! | `charge`       | N     | target (first melee weapon)                |
//! | `move` toward  | N     | target (stop where any weapon can attack)  |
//! | `move` to      | C     | destination square                         |
//! | `5foot_step`   | 8     | direction N, NE, E, SE, S, SW, W, NW       |
//! | `withdraw`     | C     | destination square                         |
//!
//! Target indices are absolute combatant indices (list order), so an id means the same thing
//! at every decision of the episode; the 5-foot step is relative to the actor's square.

use crate::action::{Action, ActionKind, CombatantId};
use crate::encounter::Encounter;
use crate::episode::{Episode, LegalAction};
use crate::grid::Cell;
use crate::rules;

/// The eight 5-foot step directions `(drow, dcol)`: N, NE, E, SE, S, SW, W, NW.
pub const STEP_DIRECTIONS: [(i32, i32); 8] = [
    (-1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
];

/// Sizes of the action space blocks of an encounter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionSpace {
    /// Combatants.
    pub n: u32,
    /// Most attacks of any combatant.
    pub w: u32,
    /// Map rows.
    pub rows: u32,
    /// Map columns.
    pub cols: u32,
}

impl ActionSpace {
    /// The action space of an encounter.
    pub fn of(enc: &Encounter) -> ActionSpace {
        ActionSpace {
            n: enc.combatants.len() as u32,
            w: enc
                .combatants
                .iter()
                .map(|c| c.spec.attacks.len() as u32)
                .max()
                .unwrap_or(0)
                .max(1),
            rows: enc.map.rows as u32,
            cols: enc.map.cols as u32,
        }
    }

    fn cells(&self) -> u32 {
        self.rows * self.cols
    }

    /// `(name, first id, size)` of each block, in id order.
    pub fn blocks(&self) -> [(&'static str, u32, u32); 8] {
        let sizes = [
            ("end_turn", 1),
            ("attack", self.n * self.w),
            ("full_attack", self.n * self.w),
            ("charge", self.n),
            ("move_toward", self.n),
            ("move_to", self.cells()),
            ("5foot_step", 8),
            ("withdraw", self.cells()),
        ];
        let mut out = [("", 0, 0); 8];
        let mut start = 0;
        for (i, (name, size)) in sizes.into_iter().enumerate() {
            out[i] = (name, start, size);
            start += size;
        }
        out
    }

    /// Total number of action ids.
    pub fn size(&self) -> u32 {
        let b = self.blocks();
        b[7].1 + b[7].2
    }

    fn cell_index(&self, c: Cell) -> Option<u32> {
        if c.row < 0 || c.col < 0 || c.row as u32 >= self.rows || c.col as u32 >= self.cols {
            return None;
        }
        Some(c.row as u32 * self.cols + c.col as u32)
    }

    fn cell_of(&self, i: u32) -> Cell {
        Cell::new((i / self.cols) as i32, (i % self.cols) as i32)
    }

    /// Decode an id for an actor standing at `actor_pos`. `None` if out of range.
    pub fn decode(&self, id: u32, actor_pos: Cell) -> Option<Action> {
        let b = self.blocks();
        let (bi, &(_, start, _)) = b
            .iter()
            .enumerate()
            .find(|(_, (_, s, size))| id >= *s && id < s + size)?;
        let k = id - start;
        let mut a = match bi {
            0 => Action::new(ActionKind::EndTurn),
            1 | 2 => {
                let mut a = Action::new(if bi == 1 {
                    ActionKind::Attack
                } else {
                    ActionKind::FullAttack
                });
                a.target = Some(CombatantId((k / self.w) as u16));
                a.weapon = Some((k % self.w) as usize);
                a
            }
            3 => Action::new(ActionKind::Charge),
            4 => Action::new(ActionKind::Move),
            5 => Action::new(ActionKind::Move),
            6 => Action::new(ActionKind::FiveFootStep),
            _ => Action::new(ActionKind::Withdraw),
        };
        match bi {
            3 | 4 => a.target = Some(CombatantId(k as u16)),
            5 | 7 => a.destination = Some(self.cell_of(k)),
            6 => {
                let (dr, dc) = STEP_DIRECTIONS[k as usize];
                a.destination = Some(Cell::new(actor_pos.row + dr, actor_pos.col + dc));
            }
            _ => {}
        }
        Some(a)
    }

    /// The id of an action for an actor at `actor_pos`, if the action has one (e.g. `move`
    /// toward a target with an explicit weapon has none).
    pub fn encode(&self, a: &Action, actor_pos: Cell) -> Option<u32> {
        let b = self.blocks();
        let target = a.target.map(|t| t.0 as u32);
        match a.kind {
            ActionKind::EndTurn => Some(0),
            ActionKind::Attack | ActionKind::FullAttack => {
                let (t, w) = (target?, a.weapon? as u32);
                if t >= self.n || w >= self.w || a.destination.is_some() {
                    return None;
                }
                let blk = if a.kind == ActionKind::Attack { 1 } else { 2 };
                Some(b[blk].1 + t * self.w + w)
            }
            ActionKind::Charge => {
                let t = target?;
                (t < self.n && a.weapon.is_none() && a.destination.is_none()).then_some(b[3].1 + t)
            }
            ActionKind::Move => match (a.destination, target, a.weapon) {
                (None, Some(t), None) if t < self.n => Some(b[4].1 + t),
                (Some(d), None, None) => Some(b[5].1 + self.cell_index(d)?),
                _ => None,
            },
            ActionKind::FiveFootStep => {
                let d = a.destination?;
                let delta = (d.row - actor_pos.row, d.col - actor_pos.col);
                let k = STEP_DIRECTIONS.iter().position(|x| *x == delta)? as u32;
                (target.is_none() && a.weapon.is_none()).then_some(b[6].1 + k)
            }
            ActionKind::Withdraw => {
                let d = a.destination?;
                (target.is_none() && a.weapon.is_none()).then_some(b[7].1 + self.cell_index(d)?)
            }
        }
    }
}

/// Readable label of an action ("full_attack orc-2 with falchion").
pub fn label(ep: &Episode, actor: CombatantId, a: &Action) -> String {
    let mut s = a.kind.name().to_string();
    if let Some(t) = a.target {
        if (t.0 as usize) < ep.n() {
            if a.kind == ActionKind::Move {
                s.push_str(" toward");
            }
            s.push(' ');
            s.push_str(ep.id_of(t));
        }
    }
    if let Some(d) = a.destination {
        s.push_str(&format!(" to {d}"));
    }
    if let Some(w) = a.weapon {
        if let Some(x) = ep.spec(actor).attacks.get(w) {
            s.push_str(&format!(" with {}", x.name));
        }
    }
    s
}

/// Candidate actions of `actor` now (besides `end_turn`), cheapest checks first; with
/// `first_only`, stops at the first one found.
fn candidate_actions(ep: &Episode, actor: CombatantId, first_only: bool) -> Vec<Action> {
    let mut out: Vec<Action> = Vec::new();
    if !ep.conscious(actor) {
        return out;
    }
    macro_rules! push {
        ($a:expr) => {{
            out.push($a);
            if first_only {
                return out;
            }
        }};
    }
    let pos = ep.st[actor.0 as usize].pos;
    let budget = ep.budget(actor);
    let speed_squares = (ep.speed_ft(actor) / crate::grid::SQUARE_FT).max(0) as u32;
    let move_ok = budget.move_action && !ep.turn.stepped;
    let withdraw_ok = budget.full_round && !ep.turn.moved;
    let step_ok = budget.five_foot_step && speed_squares > 0;
    // One unbounded field serves every movement kind: bounding Dijkstra only prunes squares
    // beyond the bound, so costs and paths within it are the same. When only the first action
    // is wanted, a 1-square field is enough to find a 5-foot step or a move.
    let field = if first_only {
        ep.move_field(actor, Some(1))
    } else {
        ep.move_field(actor, None)
    };
    if step_ok {
        for (dr, dc) in STEP_DIRECTIONS {
            let c = Cell::new(pos.row + dr, pos.col + dc);
            if field.can_stop(c) && field.cost(c) == Some(1) {
                let mut a = Action::new(ActionKind::FiveFootStep);
                a.destination = Some(c);
                push!(a);
            }
        }
    }
    let stoppable = field.stoppable();
    if move_ok && (speed_squares > 0 || !first_only) {
        for &(cell, cost) in &stoppable {
            if cell != pos && cost <= speed_squares {
                let mut a = Action::new(ActionKind::Move);
                a.destination = Some(cell);
                push!(a);
            }
        }
    }
    let targets: Vec<CombatantId> = ep
        .ids()
        .filter(|&t| t != actor && ep.enemies(actor, t) && ep.conscious(t))
        .collect();
    let n_w = ep.spec(actor).attacks.len();
    if budget.standard || budget.full_round {
        for &t in &targets {
            for w in 0..n_w {
                if rules::can_weapon_attack(ep, actor, pos, w, t).is_err() {
                    continue;
                }
                for (kind, ok) in [
                    (ActionKind::Attack, budget.standard),
                    (ActionKind::FullAttack, budget.full_round),
                ] {
                    if ok {
                        push!(Action {
                            kind,
                            target: Some(t),
                            destination: None,
                            weapon: Some(w),
                        });
                    }
                }
            }
        }
    }
    if budget.full_round && !ep.turn.moved {
        for &t in &targets {
            if rules::charge_path(ep, actor, t, None).is_ok() {
                let mut a = Action::new(ActionKind::Charge);
                a.target = Some(t);
                push!(a);
            }
        }
    }
    let unbounded = if first_only {
        ep.move_field(actor, None)
    } else {
        field
    };
    if move_ok && !targets.is_empty() {
        for &t in &targets {
            if rules::path_toward_in(ep, &unbounded, actor, t, None, speed_squares).is_some() {
                let mut a = Action::new(ActionKind::Move);
                a.target = Some(t);
                push!(a);
            }
        }
    }
    if withdraw_ok {
        for (cell, cost) in unbounded.stoppable() {
            if cell != pos && cost <= 2 * speed_squares {
                let mut a = Action::new(ActionKind::Withdraw);
                a.destination = Some(cell);
                push!(a);
            }
        }
    }
    out
}

/// Whether `actor` has any legal action besides `end_turn` now (cheap: stops at the first).
pub(crate) fn any_besides_end_turn(ep: &Episode, actor: CombatantId) -> bool {
    let space = ActionSpace::of(&ep.enc);
    let pos = ep.st[actor.0 as usize].pos;
    candidate_actions(ep, actor, true)
        .iter()
        .any(|a| space.encode(a, pos).is_some())
}

/// The ids of every legal action of `actor` now, sorted (`end_turn`, id 0, always included).
pub(crate) fn legal_ids(ep: &Episode, actor: CombatantId) -> Vec<u32> {
    let space = ActionSpace::of(&ep.enc);
    let pos = ep.st[actor.0 as usize].pos;
    let mut ids: Vec<u32> = std::iter::once(0)
        .chain(
            candidate_actions(ep, actor, false)
                .iter()
                .filter_map(|a| space.encode(a, pos)),
        )
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Every legal action of `actor` now, sorted by id; `end_turn` always first.
pub(crate) fn legal_actions(ep: &Episode, actor: CombatantId) -> Vec<LegalAction> {
    let space = ActionSpace::of(&ep.enc);
    let pos = ep.st[actor.0 as usize].pos;
    let mut legal: Vec<LegalAction> = std::iter::once(Action::new(ActionKind::EndTurn))
        .chain(candidate_actions(ep, actor, false))
        .filter_map(|a| {
            let id = space.encode(&a, pos)?;
            Some(LegalAction {
                id,
                label: label(ep, actor, &a),
                action: a,
            })
        })
        .collect();
    legal.sort_by_key(|l| l.id);
    legal.dedup_by_key(|l| l.id);
    legal
}
