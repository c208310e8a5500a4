//! The encounter's fixed discrete action space: every action an id, in blocks only ever
//! appended (published in the spec, so RL action masks keep their meaning).
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
//! | `maneuver`     | N × M | target × M + maneuver ([`Maneuver::ALL`] order, M = 17) |
//! | `stand_up`     | 1     | —                                          |
//! | `drop_prone`   | 1     | —                                          |
//! | `retrieve_weapon` | W  | weapon                                     |
//! | `repair_weapon` | W    | weapon                                     |
//! | `activate_power_attack` | 1 | — (a toggle)                          |
//! | `run`          | C     | destination square                         |
//! | `attack_of_opportunity` | W | weapon (reaction: the provoker is the decision's) |
//! | `decline`      | 1     | — (reaction: let the opportunity pass)     |
//! | `total_defense` | 1    | —                                          |
//! | `fight_defensively` | 1 | — (a declaration before the attack)      |
//! | `aid_another`  | N × N × 2 | (opponent × N + ally) × 2 + mode (0 attack, 1 ac) |
//! | `coup_de_grace` | N × W | target × W + weapon                        |
//! | `draw_weapon`  | W     | weapon                                     |
//! | `sheathe_weapon` | W   | weapon                                     |
//! | `run_toward`   | N     | target (the straight line toward it, stopping adjacent) |
//!
//! The blocks after `withdraw` were appended later: earlier ids never move. A maneuver id
//! uses the first usable melee weapon that reaches the target (escape: the target is the
//! grappler) and, for reposition, the default square, for bull rush the default direction
//! (see `maneuvers.rs`): a maneuver with a `destination` or a `direction` has no id.
//!
//! Target indices are absolute combatant indices (list order), so an id means the same thing
//! at every decision of the episode; the 5-foot step is relative to the actor's square.

use crate::actions::{Action, ActionKind, CombatantId, Maneuver};
use crate::content::encounter::Encounter;
use crate::geometry::grid::Cell;

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

/// Number of blocks of the action space.
pub const BLOCKS: usize = 24;

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
    pub fn blocks(&self) -> [(&'static str, u32, u32); BLOCKS] {
        let m = Maneuver::ALL.len() as u32;
        let sizes = [
            ("end_turn", 1),
            ("attack", self.n * self.w),
            ("full_attack", self.n * self.w),
            ("charge", self.n),
            ("move_toward", self.n),
            ("move_to", self.cells()),
            ("5foot_step", 8),
            ("withdraw", self.cells()),
            ("maneuver", self.n * m),
            ("stand_up", 1),
            ("drop_prone", 1),
            ("retrieve_weapon", self.w),
            ("repair_weapon", self.w),
            ("activate_power_attack", 1),
            ("run", self.cells()),
            ("attack_of_opportunity", self.w),
            ("decline", 1),
            ("total_defense", 1),
            ("fight_defensively", 1),
            ("aid_another", self.n * self.n * 2),
            ("coup_de_grace", self.n * self.w),
            ("draw_weapon", self.w),
            ("sheathe_weapon", self.w),
            ("run_toward", self.n),
        ];
        let mut out = [("", 0, 0); BLOCKS];
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
        b[BLOCKS - 1].1 + b[BLOCKS - 1].2
    }

    /// The row-major index of square `c`, `None` off the map (checked arithmetic).
    fn cell_index(&self, c: Cell) -> Option<u32> {
        let (row, col) = (u32::try_from(c.row).ok()?, u32::try_from(c.col).ok()?);
        if row >= self.rows || col >= self.cols {
            return None;
        }
        row.checked_mul(self.cols)?.checked_add(col)
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
            7 => Action::new(ActionKind::Withdraw),
            8 => {
                let m = Maneuver::ALL.len() as u32;
                let mut a = Action::new(ActionKind::Maneuver);
                a.target = Some(CombatantId((k / m) as u16));
                a.maneuver = Some(Maneuver::ALL[(k % m) as usize]);
                a
            }
            9 => Action::new(ActionKind::StandUp),
            10 => Action::new(ActionKind::DropProne),
            11 | 12 => {
                let mut a = Action::new(if bi == 11 {
                    ActionKind::RetrieveWeapon
                } else {
                    ActionKind::RepairWeapon
                });
                a.weapon = Some(k as usize);
                a
            }
            13 => Action::new(ActionKind::ActivatePowerAttack),
            14 => Action::new(ActionKind::Run),
            15 => {
                let mut a = Action::new(ActionKind::AttackOfOpportunity);
                a.weapon = Some(k as usize);
                a
            }
            16 => Action::new(ActionKind::Decline),
            17 => Action::new(ActionKind::TotalDefense),
            18 => Action::new(ActionKind::FightDefensively),
            19 => {
                let mut a = Action::new(ActionKind::AidAnother);
                let pair = k / 2;
                a.target = Some(CombatantId((pair / self.n) as u16));
                a.ally = Some(CombatantId((pair % self.n) as u16));
                a.aid_mode = Some(crate::actions::AidMode::ALL[(k % 2) as usize]);
                a
            }
            20 => {
                let mut a = Action::new(ActionKind::CoupDeGrace);
                a.target = Some(CombatantId((k / self.w) as u16));
                a.weapon = Some((k % self.w) as usize);
                a
            }
            21 | 22 => {
                let mut a = Action::new(if bi == 21 {
                    ActionKind::DrawWeapon
                } else {
                    ActionKind::SheatheWeapon
                });
                a.weapon = Some(k as usize);
                a
            }
            _ => Action::new(ActionKind::Run),
        };
        match bi {
            3 | 4 | 23 => a.target = Some(CombatantId(k as u16)),
            5 | 7 | 14 => a.destination = Some(self.cell_of(k)),
            6 => {
                let (dr, dc) = STEP_DIRECTIONS[k as usize];
                a.destination = Some(Cell::new(actor_pos.row + dr, actor_pos.col + dc));
            }
            _ => {}
        }
        Some(a)
    }

    /// The id of an action for an actor at `actor_pos`, if the action has one (e.g. `move`
    /// toward a target with an explicit weapon has none). An action has an id only if that id
    /// decodes back to it ([`ActionSpace::decode`]): `end_turn` with a target, a weapon or a
    /// square has none (id 0 is the bare `end_turn`), nor has a weapon index past the space
    /// (never truncated to `u32`), nor a 5-foot step that is not one square away. Never
    /// panics: every sum, product and difference is checked.
    pub fn encode(&self, a: &Action, actor_pos: Cell) -> Option<u32> {
        self.encode_in(&self.blocks(), a, actor_pos)
    }

    /// [`ActionSpace::encode`] with the blocks already computed (`b = self.blocks()`).
    pub(crate) fn encode_in(
        &self,
        b: &[(&'static str, u32, u32); BLOCKS],
        a: &Action,
        actor_pos: Cell,
    ) -> Option<u32> {
        // Id `k` of block `blk`, if `k` lies within the block.
        let at = |blk: usize, k: u32| -> Option<u32> {
            let (_, start, size) = b[blk];
            if k < size {
                start.checked_add(k)
            } else {
                None
            }
        };
        // `t × w + weapon` (attack, full attack: target-major).
        let per_target =
            |t: u32, i: u32, per: u32| -> Option<u32> { t.checked_mul(per)?.checked_add(i) };
        let target = a.target.map(|t| u32::from(t.0));
        // A weapon index as the space numbers it: within `0..w`, never truncated.
        let weapon = || -> Option<u32> {
            let w = u32::try_from(a.weapon?).ok()?;
            (w < self.w).then_some(w)
        };
        let bare = a.target.is_none() && a.destination.is_none() && a.weapon.is_none();
        // The one id of a parameterless kind's block.
        let bare_at = |blk: usize| if bare { at(blk, 0) } else { None };
        let no_target_no_square = a.target.is_none() && a.destination.is_none();
        let no_target_no_weapon = a.target.is_none() && a.weapon.is_none();
        if (a.kind != ActionKind::Maneuver && a.maneuver.is_some()) || a.direction.is_some() {
            return None;
        }
        if a.kind != ActionKind::AidAnother && (a.ally.is_some() || a.aid_mode.is_some()) {
            return None;
        }
        match a.kind {
            ActionKind::EndTurn => bare_at(0),
            ActionKind::Attack | ActionKind::FullAttack => {
                let (t, w) = (target?, weapon()?);
                if t >= self.n || a.destination.is_some() {
                    return None;
                }
                let blk = if a.kind == ActionKind::Attack { 1 } else { 2 };
                at(blk, per_target(t, w, self.w)?)
            }
            ActionKind::Charge => {
                let t = target?;
                if a.weapon.is_some() || a.destination.is_some() {
                    return None;
                }
                at(3, t)
            }
            ActionKind::Move => match (a.destination, target, a.weapon) {
                (None, Some(t), None) => at(4, t),
                (Some(d), None, None) => at(5, self.cell_index(d)?),
                _ => None,
            },
            ActionKind::FiveFootStep => {
                let d = a.destination?;
                if !no_target_no_weapon {
                    return None;
                }
                let delta = (
                    d.row.checked_sub(actor_pos.row)?,
                    d.col.checked_sub(actor_pos.col)?,
                );
                let k = STEP_DIRECTIONS.iter().position(|x| *x == delta)?;
                at(6, u32::try_from(k).ok()?)
            }
            ActionKind::Run if a.destination.is_none() => {
                let t = target?;
                if a.weapon.is_some() || t >= self.n {
                    return None;
                }
                at(23, t)
            }
            ActionKind::Withdraw | ActionKind::Run => {
                let d = a.destination?;
                if !no_target_no_weapon {
                    return None;
                }
                let blk = if a.kind == ActionKind::Withdraw {
                    7
                } else {
                    14
                };
                at(blk, self.cell_index(d)?)
            }
            ActionKind::Maneuver => {
                let (t, m) = (target?, a.maneuver?);
                if t >= self.n || a.weapon.is_some() || a.destination.is_some() {
                    return None;
                }
                let mi = u32::try_from(Maneuver::ALL.iter().position(|x| *x == m)?).ok()?;
                let per = u32::try_from(Maneuver::ALL.len()).ok()?;
                at(8, per_target(t, mi, per)?)
            }
            ActionKind::StandUp => bare_at(9),
            ActionKind::DropProne => bare_at(10),
            ActionKind::RetrieveWeapon | ActionKind::RepairWeapon => {
                let w = weapon()?;
                if !no_target_no_square {
                    return None;
                }
                let blk = if a.kind == ActionKind::RetrieveWeapon {
                    11
                } else {
                    12
                };
                at(blk, w)
            }
            ActionKind::ActivatePowerAttack => bare_at(13),
            ActionKind::AttackOfOpportunity => {
                let w = weapon()?;
                if !no_target_no_square {
                    return None;
                }
                at(15, w)
            }
            ActionKind::Decline => bare_at(16),
            ActionKind::TotalDefense => bare_at(17),
            ActionKind::FightDefensively => bare_at(18),
            ActionKind::AidAnother => {
                let (t, f) = (target?, u32::from(a.ally?.0));
                let m = a.aid_mode?;
                if t >= self.n || f >= self.n || a.weapon.is_some() || a.destination.is_some() {
                    return None;
                }
                let mi = u32::from(m == crate::actions::AidMode::Ac);
                at(19, per_target(per_target(t, f, self.n)?, mi, 2)?)
            }
            ActionKind::CoupDeGrace => {
                let (t, w) = (target?, weapon()?);
                if t >= self.n || a.destination.is_some() {
                    return None;
                }
                at(20, per_target(t, w, self.w)?)
            }
            ActionKind::DrawWeapon | ActionKind::SheatheWeapon => {
                let w = weapon()?;
                if !no_target_no_square {
                    return None;
                }
                let blk = if a.kind == ActionKind::DrawWeapon {
                    21
                } else {
                    22
                };
                at(blk, w)
            }
        }
    }
}
