//! Charge (CRB — Combat: Charge): the closest square from which the charger can attack the
//! target in melee, reached by a straight, clear line of at least 10 ft and at most twice its
//! speed; no difficult terrain, no creature in the way (helpless ones do not stop a charge), no
//! corner cutting. The attack itself (+2, −2 AC until the next turn) is in `attack_roll` and
//! the charge action.

use crate::actions::reject::Reject;
use crate::actions::CombatantId;
use crate::episode::{Episode, LifeState};
use crate::geometry::grid::{self, Cell, SQUARE_FT};
use crate::geometry::los::{self};
use crate::rules::idx;
use crate::rules::movement::budget_squares;
use crate::rules::reach::footprints_in_reach;
use crate::rules::reach::melee_reach;

/// Charge (CRB — Combat: Charge): the closest square from which the charger can attack the
/// target in melee, reached by a straight, clear line of at least 10 ft and at most twice its
/// speed; no difficult terrain, no creature, no corner cutting.
pub(crate) fn charge_path(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    weapon: Option<usize>,
) -> Result<(usize, Vec<Cell>), Reject> {
    charge_search(ep, a, t, weapon, &mut None)
}

/// What stops a charge ([`charge_obstacle`]), for the reason of a `no_charge_path` or an
/// `out_of_range` charge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChargeBlock {
    /// The charger can already attack the target from where it stands.
    AlreadyInReach,
    /// No square from which to attack the target in melee with line of effect.
    NoAttackSquare,
    /// The closest attack square is less than 10 ft away (`squares`: its distance).
    TooClose { squares: i32 },
    /// The closest attack square is occupied (by a living creature, if known).
    Occupied {
        square: Cell,
        by: Option<CombatantId>,
    },
    /// A conscious creature stands on the line.
    Creature { by: CombatantId, square: Cell },
    /// A wall, impassable terrain or the map's edge on the line.
    Impassable { square: Cell },
    /// Difficult terrain on the line.
    Difficult { square: Cell },
    /// The line cuts a corner or climbs a step it cannot (no straight step there).
    Corner { square: Cell },
    /// The line is longer than twice the charger's speed (in squares of movement).
    TooFar { cost: u32, max: u32 },
}

/// Why `a` cannot charge `t` with `weapon`: [`charge_path`]'s own search, recording the
/// first obstacle of the closest attack square's line (the straightest line first). `None`
/// when the charge is possible or the weapon is at fault.
pub(crate) fn charge_obstacle(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    weapon: Option<usize>,
) -> Option<ChargeBlock> {
    let mut why = Some(None);
    let _ = charge_search(ep, a, t, weapon, &mut why);
    why.flatten()
}

/// [`charge_path`], recording in `why` (when `Some`) the first obstacle met.
fn charge_search(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    weapon: Option<usize>,
    why: &mut Option<Option<ChargeBlock>>,
) -> Result<(usize, Vec<Cell>), Reject> {
    let diagnose = why.is_some();
    let mut note = |b: ChargeBlock| {
        if let Some(w) = why.as_mut() {
            w.get_or_insert(b);
        }
    };
    let spec = ep.spec(a);
    let w = match weapon {
        Some(w) => {
            if spec.attacks.get(w).is_none_or(|x| x.is_ranged()) || !ep.weapon_usable(a, w) {
                return Err(Reject::WeaponUnavailable { weapon: Some(w) });
            }
            w
        }
        None => spec
            .attacks
            .iter()
            .enumerate()
            .position(|(i, x)| !x.is_ranged() && ep.weapon_usable(a, i))
            .ok_or(Reject::NoWeapon)?,
    };
    let start = ep.st[idx(a)].pos;
    let side = ep.fp_side(a);
    let grid = &ep.enc.grid;
    let reach = melee_reach(ep, a, &spec.attacks[w]);
    let tpos = ep.st[idx(t)].pos;
    let ts = ep.fp_side(t);
    // Conscious creatures block the line of a charge ("helpless creatures don't stop a
    // charge" — CRB — Combat: Charge); the destination must be free of any living creature.
    let mut occupied: Vec<Cell> = Vec::new();
    let mut blocking: Vec<Cell> = Vec::new();
    for o in ep.ids() {
        if o != a && ep.st[idx(o)].life != LifeState::Dead {
            occupied.extend(ep.cells_iter(o));
            if ep.conscious(o) {
                blocking.extend(ep.cells_iter(o));
            }
        }
    }
    let cells_ok = |c: Cell, taken: &[Cell]| {
        grid::footprint_iter(c, side)
            .all(|x| grid.in_bounds(x) && grid.passable(x) && !taken.contains(&x))
    };
    let free_anchor = |c: Cell| cells_ok(c, &occupied);
    let passable_anchor = |c: Cell| cells_ok(c, &blocking);
    // Candidate attack squares, by distance then (row, col).
    let mut cands: Vec<(i32, i32, Cell)> = Vec::new();
    let max_r = reach.1 / SQUARE_FT + side + ts + 1;
    for r in (tpos.row - max_r)..=(tpos.row + max_r) {
        for c in (tpos.col - max_r)..=(tpos.col + max_r) {
            let cell = Cell::new(r, c);
            if !footprints_in_reach(cell, side, tpos, ts, reach) {
                continue;
            }
            if !los::has_line_of_effect(grid, cell, side, tpos, ts) {
                continue;
            }
            // Closest first; among equally close squares, the straightest line.
            let diag = (cell.row - start.row)
                .abs()
                .min((cell.col - start.col).abs());
            cands.push((grid::distance_squares(start, cell), diag, cell));
        }
    }
    if cands.iter().any(|(_, _, c)| *c == start) {
        // Already able to attack from here: a charge needs movement.
        note(ChargeBlock::AlreadyInReach);
        return Err(Reject::NoChargePath);
    }
    cands.sort();
    let Some(&(closest, _, _)) = cands.first() else {
        note(ChargeBlock::NoAttackSquare);
        return Err(Reject::NoChargePath);
    };
    if closest < 2 {
        note(ChargeBlock::TooClose { squares: closest });
        return Err(Reject::NoChargePath); // less than 10 ft
    }
    let max_sq = budget_squares(ep, a, 2);
    let mut out_of_range = false;
    for &(_, _, dest) in cands.iter().take_while(|(d, _, _)| *d == closest) {
        if !free_anchor(dest) {
            if diagnose {
                let square = grid::footprint_iter(dest, side)
                    .find(|x| occupied.contains(x) || !grid.in_bounds(*x) || !grid.passable(*x))
                    .unwrap_or(dest);
                let by = ep.ids().find(|&o| {
                    o != a
                        && ep.st[idx(o)].life != LifeState::Dead
                        && ep.cells_iter(o).any(|x| x == square)
                });
                note(match by {
                    Some(_) => ChargeBlock::Occupied { square, by },
                    None => ChargeBlock::Impassable { square },
                });
            }
            continue;
        }
        let Some(cost) = grid.straight_line_cost(start, dest, |c| {
            passable_anchor(c) && !grid::footprint_iter(c, side).any(|x| grid.is_difficult(x))
        }) else {
            if diagnose {
                note(line_obstacle(ep, a, start, dest, side, &blocking));
            }
            continue;
        };
        if cost > max_sq {
            note(ChargeBlock::TooFar { cost, max: max_sq });
            out_of_range = true;
            continue;
        }
        return Ok((w, los::straight_line(start, dest)));
    }
    Err(if out_of_range {
        Reject::OutOfRange
    } else {
        Reject::NoChargePath
    })
}

/// The first obstacle of the straight line `start` → `dest` of a charger of footprint side
/// `side` (the checks of [`charge_path`]'s line, square by square).
fn line_obstacle(
    ep: &Episode,
    a: CombatantId,
    start: Cell,
    dest: Cell,
    side: i32,
    blocking: &[Cell],
) -> ChargeBlock {
    let grid = &ep.enc.grid;
    let (mut prev, mut odd) = (start, false);
    for c in los::straight_line_iter(start, dest) {
        for x in grid::footprint_iter(c, side) {
            if !grid.in_bounds(x) || !grid.passable(x) {
                return ChargeBlock::Impassable { square: x };
            }
            if blocking.contains(&x) {
                let by = ep
                    .ids()
                    .find(|&o| o != a && ep.conscious(o) && ep.cells_iter(o).any(|y| y == x));
                if let Some(by) = by {
                    return ChargeBlock::Creature { by, square: x };
                }
                return ChargeBlock::Impassable { square: x };
            }
            if grid.is_difficult(x) {
                return ChargeBlock::Difficult { square: x };
            }
        }
        match grid.step_cost(prev, c, odd) {
            Some((_, o)) => odd = o,
            None => return ChargeBlock::Corner { square: c },
        }
        prev = c;
    }
    ChargeBlock::Corner { square: dest }
}
