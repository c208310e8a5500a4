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
//! | `delay`        | 1 + N | 0: to the end of the round; 1 + t: to just after combatant t |
//! | `ready_attack_on_entry` | W | weapon: ready an attack on an enemy entering reach |
//! | `ready_attack_on_enemy_attack` | W | weapon: ready an attack on an enemy attacking the actor or an ally |
//! | `ready_attack_on_signal` | N | target: ready an attack on it when an ally acts |
//! | `fire_readied` | 1     | — (reaction: fire the readied action)      |
//! | `cleave`       | N × W | target × W + weapon                        |
//! | `spring_attack` | N    | target: attack it and move back to the starting square (first usable melee weapon) |
//! | `shot_on_the_run` | N  | target: shoot it and move back to the starting square (first usable ranged weapon) |
//! | `activate_lunge` | 1   | — (a declaration before the attack)        |
//! | `stand_still`  | 1     | — (reaction: a maneuver check instead of the AoO) |
//! | `activate_deadly_aim` | 1 | — (a toggle)                            |
//! | `activate_combat_expertise` | 1 | — (a toggle)                      |
//! | `aid_another`  | N × N × 2 | (opponent × N + ally) × 2 + mode (0 attack, 1 ac) |
//! | `coup_de_grace` | N × W | target × W + weapon                        |
//! | `draw_weapon`  | W     | weapon                                     |
//! | `sheathe_weapon` | W   | weapon                                     |
//! | `run_toward`   | N     | target (the straight line toward it, stopping adjacent) |
//! | `cast_spell`   | S × N | spell × N + target (S = most spells of any spellbook; a personal spell or an area centred on the caster: the caster's own index; a cone or line: aimed at the target's square) |
//! | `cast_spell_at` | S × C | spell × C + square (an area's point of origin: the square's top-left corner; a cone's or line's direction) |
//! | `cast_defensively` | 1 | — (a declaration before the cast)          |
//! | `activate_metamagic` | 7 | metamagic feat ([`crate::actions::Metamagic::ALL`] order), declared for the next cast |
//!
//! The blocks after `withdraw` were appended later: earlier ids never move. A maneuver id
//! uses the first usable melee weapon that reaches the target (escape: the target is the
//! grappler) and, for reposition, the default square, for bull rush the default direction
//! (see `maneuvers.rs`): a maneuver with a `destination` or a `direction` has no id.
//!
//! Target indices are absolute combatant indices (list order), so an id means the same thing
//! at every decision of the episode; the 5-foot step is relative to the actor's square.

use crate::actions::ready::ready_attack;
use crate::actions::{Action, ActionKind, CombatantId, Maneuver, ReadyTrigger};
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

/// The names of [`STEP_DIRECTIONS`], in order (the `direction` axis' values).
pub const STEP_DIRECTION_NAMES: [&str; 8] = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];

/// The axes of one block of the action space ([`ActionSpace::block_axes`]): the index
/// within the block is row-major over `axes` (the last varying fastest) and the product of
/// `sizes` is the block's size. Axis names: `target`, `opponent`, `ally` (a combatant index,
/// list order), `weapon` (an attack index of the actor's), `square` (row × cols + col),
/// `direction` (a 5-foot step, [`STEP_DIRECTIONS`] order), `maneuver` ([`Maneuver::ALL`]
/// order), `mode` (aid another: [`crate::actions::AidMode::ALL`] order), `metamagic`
/// ([`crate::actions::Metamagic::ALL`] order), `delay` (0: to the end of the round; 1 + t:
/// to just after combatant t), `spell` (a spellbook index). A parameterless block (always of
/// size 1: `end_turn`, `stand_up`, the toggles…) has no axes; a parameterised block keeps
/// its axes even where its size happens to be 1 (one weapon).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockAxes {
    /// The axis names, outermost first.
    pub axes: Vec<&'static str>,
    /// The size of each axis.
    pub sizes: Vec<u32>,
    /// The value names of the last axis where it is an enumeration (`direction`, `maneuver`,
    /// `mode`, `metamagic`, as the engine names them), else empty.
    pub last_axis_values: Vec<&'static str>,
}

/// Number of blocks of the action space.
pub const BLOCKS: usize = 40;

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
    /// Most spells (spellbook entries: spells and spell-like abilities) of any combatant.
    pub s: u32,
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
            s: enc
                .combatants
                .iter()
                .map(|c| c.spec.spellbook().len() as u32)
                .max()
                .unwrap_or(0),
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
            ("delay", 1 + self.n),
            ("ready_attack_on_entry", self.w),
            ("ready_attack_on_enemy_attack", self.w),
            ("ready_attack_on_signal", self.n),
            ("fire_readied", 1),
            ("cleave", self.n * self.w),
            ("spring_attack", self.n),
            ("shot_on_the_run", self.n),
            ("activate_lunge", 1),
            ("stand_still", 1),
            ("activate_deadly_aim", 1),
            ("activate_combat_expertise", 1),
            ("aid_another", self.n * self.n * 2),
            ("coup_de_grace", self.n * self.w),
            ("draw_weapon", self.w),
            ("sheathe_weapon", self.w),
            ("run_toward", self.n),
            ("cast_spell", self.s * self.n),
            ("cast_spell_at", self.s * self.cells()),
            ("cast_defensively", 1),
            (
                "activate_metamagic",
                crate::actions::Metamagic::ALL.len() as u32,
            ),
        ];
        let mut out = [("", 0, 0); BLOCKS];
        let mut start = 0;
        for (i, (name, size)) in sizes.into_iter().enumerate() {
            out[i] = (name, start, size);
            start += size;
        }
        out
    }

    /// How the index within block `block` (its position in [`ActionSpace::blocks`]) decodes:
    /// row-major over the returned axes, the last varying fastest (the table of the module
    /// documentation). `None` past the last block.
    pub fn block_axes(&self, block: usize) -> Option<BlockAxes> {
        let (n, w, c, s) = (self.n, self.w, self.cells(), self.s);
        let m = Maneuver::ALL.len() as u32;
        let (axes, sizes, last_axis_values): (&'static [&'static str], Vec<u32>, Vec<&str>) =
            match block {
                1 | 2 | 24 | 32 => (&["target", "weapon"], vec![n, w], vec![]),
                3 | 4 | 22 | 25 | 26 | 35 => (&["target"], vec![n], vec![]),
                5 | 7 | 14 => (&["square"], vec![c], vec![]),
                6 => (&["direction"], vec![8], STEP_DIRECTION_NAMES.to_vec()),
                8 => (
                    &["target", "maneuver"],
                    vec![n, m],
                    Maneuver::ALL.iter().map(|x| x.name()).collect(),
                ),
                11 | 12 | 15 | 20 | 21 | 33 | 34 => (&["weapon"], vec![w], vec![]),
                19 => (&["delay"], vec![1 + n], vec![]),
                31 => (
                    &["opponent", "ally", "mode"],
                    vec![n, n, 2],
                    crate::actions::AidMode::ALL
                        .iter()
                        .map(|x| x.name())
                        .collect(),
                ),
                36 => (&["spell", "target"], vec![s, n], vec![]),
                37 => (&["spell", "square"], vec![s, c], vec![]),
                39 => (
                    &["metamagic"],
                    vec![crate::actions::Metamagic::ALL.len() as u32],
                    crate::actions::Metamagic::ALL
                        .iter()
                        .map(|x| x.name())
                        .collect(),
                ),
                b if b < BLOCKS => (&[], vec![], vec![]),
                _ => return None,
            };
        Some(BlockAxes {
            axes: axes.to_vec(),
            sizes,
            last_axis_values,
        })
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
            19 => Action {
                target: k.checked_sub(1).map(|t| CombatantId(t as u16)),
                ..Action::new(ActionKind::Delay)
            },
            20 => ready_attack(
                ReadyTrigger::EnemyEntersReach { by: None },
                Some(k as usize),
                None,
            ),
            21 => ready_attack(
                ReadyTrigger::EnemyAttacks { by: None },
                Some(k as usize),
                None,
            ),
            22 => ready_attack(
                ReadyTrigger::AllyActs { by: None },
                None,
                Some(CombatantId(k as u16)),
            ),
            23 => Action::new(ActionKind::FireReadied),
            24 => {
                let mut a = Action::new(ActionKind::Cleave);
                a.target = Some(CombatantId((k / self.w) as u16));
                a.weapon = Some((k % self.w) as usize);
                a
            }
            25 | 26 => {
                let mut a = Action::new(if bi == 25 {
                    ActionKind::SpringAttack
                } else {
                    ActionKind::ShotOnTheRun
                });
                // Hit and run back: the move ends where the actor stands.
                a.target = Some(CombatantId(k as u16));
                a.destination = Some(actor_pos);
                a
            }
            27 => Action::new(ActionKind::ActivateLunge),
            28 => Action::new(ActionKind::StandStill),
            29 => Action::new(ActionKind::ActivateDeadlyAim),
            30 => Action::new(ActionKind::ActivateCombatExpertise),
            31 => {
                let mut a = Action::new(ActionKind::AidAnother);
                let pair = k / 2;
                a.target = Some(CombatantId((pair / self.n) as u16));
                a.ally = Some(CombatantId((pair % self.n) as u16));
                a.aid_mode = Some(crate::actions::AidMode::ALL[(k % 2) as usize]);
                a
            }
            32 => {
                let mut a = Action::new(ActionKind::CoupDeGrace);
                a.target = Some(CombatantId((k / self.w) as u16));
                a.weapon = Some((k % self.w) as usize);
                a
            }
            33 | 34 => {
                let mut a = Action::new(if bi == 33 {
                    ActionKind::DrawWeapon
                } else {
                    ActionKind::SheatheWeapon
                });
                a.weapon = Some(k as usize);
                a
            }
            36 => Action {
                spell: Some((k / self.n) as usize),
                target: Some(CombatantId((k % self.n) as u16)),
                ..Action::new(ActionKind::CastSpell)
            },
            37 => Action {
                spell: Some((k / self.cells()) as usize),
                target_pos: Some(self.cell_of(k % self.cells())),
                ..Action::new(ActionKind::CastSpell)
            },
            38 => Action::new(ActionKind::CastDefensively),
            39 => Action {
                metamagic: vec![crate::actions::Metamagic::ALL[k as usize]],
                ..Action::new(ActionKind::ActivateMetamagic)
            },
            _ => Action::new(ActionKind::Run),
        };
        match bi {
            3 | 4 | 35 => a.target = Some(CombatantId(k as u16)),
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
        // Only `cast_spell` carries a spell and a target square; a defensive cast has no id
        // (declare `cast_defensively` first).
        if a.kind != ActionKind::CastSpell && (a.spell.is_some() || a.target_pos.is_some()) {
            return None;
        }
        if a.defensively || (a.kind != ActionKind::ActivateMetamagic && !a.metamagic.is_empty()) {
            return None;
        }
        // Only `ready` carries a readied action and a trigger.
        if a.kind != ActionKind::Ready && (a.readied.is_some() || a.trigger.is_some()) {
            return None;
        }
        let plain = |x: &Action| x.maneuver.is_none() && x.readied.is_none() && x.trigger.is_none();
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
                at(35, t)
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
            ActionKind::Delay => {
                if a.destination.is_some() || a.weapon.is_some() || !plain(a) {
                    return None;
                }
                match target {
                    None => at(19, 0),
                    Some(t) if t < self.n => at(19, t.checked_add(1)?),
                    Some(_) => None,
                }
            }
            ActionKind::Ready => {
                if !no_target_no_square || a.weapon.is_some() {
                    return None;
                }
                let p = a.readied.as_deref()?;
                if p.kind != ActionKind::Attack || p.destination.is_some() || !plain(p) {
                    return None;
                }
                let pw = || -> Option<u32> {
                    let w = u32::try_from(p.weapon?).ok()?;
                    (w < self.w).then_some(w)
                };
                match (a.trigger?, p.target) {
                    (ReadyTrigger::EnemyEntersReach { by: None }, None) => at(20, pw()?),
                    (ReadyTrigger::EnemyAttacks { by: None }, None) => at(21, pw()?),
                    (ReadyTrigger::AllyActs { by: None }, Some(t))
                        if p.weapon.is_none() && u32::from(t.0) < self.n =>
                    {
                        at(22, u32::from(t.0))
                    }
                    _ => None,
                }
            }
            ActionKind::FireReadied => bare_at(23),
            ActionKind::Cleave => {
                let (t, w) = (target?, weapon()?);
                if t >= self.n || a.destination.is_some() {
                    return None;
                }
                at(24, per_target(t, w, self.w)?)
            }
            ActionKind::SpringAttack | ActionKind::ShotOnTheRun => {
                let (t, d) = (target?, a.destination?);
                if t >= self.n || a.weapon.is_some() {
                    return None;
                }
                let blk = if a.kind == ActionKind::SpringAttack {
                    25
                } else {
                    26
                };
                // Only the hit-and-run-back form has an id (other destinations: structured
                // actions).
                if d != actor_pos {
                    return None;
                }
                at(blk, t)
            }
            ActionKind::ActivateLunge => bare_at(27),
            ActionKind::StandStill => bare_at(28),
            ActionKind::ActivateDeadlyAim => bare_at(29),
            ActionKind::ActivateCombatExpertise => bare_at(30),
            ActionKind::AidAnother => {
                let (t, f) = (target?, u32::from(a.ally?.0));
                let m = a.aid_mode?;
                if t >= self.n || f >= self.n || a.weapon.is_some() || a.destination.is_some() {
                    return None;
                }
                let mi = u32::from(m == crate::actions::AidMode::Ac);
                at(31, per_target(per_target(t, f, self.n)?, mi, 2)?)
            }
            ActionKind::CoupDeGrace => {
                let (t, w) = (target?, weapon()?);
                if t >= self.n || a.destination.is_some() {
                    return None;
                }
                at(32, per_target(t, w, self.w)?)
            }
            ActionKind::DrawWeapon | ActionKind::SheatheWeapon => {
                let w = weapon()?;
                if !no_target_no_square {
                    return None;
                }
                let blk = if a.kind == ActionKind::DrawWeapon {
                    33
                } else {
                    34
                };
                at(blk, w)
            }
            ActionKind::CastSpell => {
                let s = u32::try_from(a.spell?).ok()?;
                if s >= self.s || a.weapon.is_some() || a.destination.is_some() || !plain(a) {
                    return None;
                }
                match (target, a.target_pos) {
                    (Some(t), None) if t < self.n => at(36, per_target(s, t, self.n)?),
                    (None, Some(c)) => at(37, per_target(s, self.cell_index(c)?, self.cells())?),
                    _ => None,
                }
            }
            ActionKind::CastDefensively => bare_at(38),
            ActionKind::ActivateMetamagic => {
                let [m] = a.metamagic.as_slice() else {
                    return None;
                };
                if !bare || !plain(a) {
                    return None;
                }
                let mi = crate::actions::Metamagic::ALL.iter().position(|x| x == m)?;
                at(39, u32::try_from(mi).ok()?)
            }
        }
    }
}
