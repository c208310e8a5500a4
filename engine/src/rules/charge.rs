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
        return Err(Reject::NoChargePath);
    }
    cands.sort();
    let Some(&(closest, _, _)) = cands.first() else {
        return Err(Reject::NoChargePath);
    };
    if closest < 2 {
        return Err(Reject::NoChargePath); // less than 10 ft
    }
    let max_sq = budget_squares(ep, a, 2);
    let mut out_of_range = false;
    for &(_, _, dest) in cands.iter().take_while(|(d, _, _)| *d == closest) {
        if !free_anchor(dest) {
            continue;
        }
        let Some(cost) = grid.straight_line_cost(start, dest, |c| {
            passable_anchor(c) && !grid::footprint_iter(c, side).any(|x| grid.is_difficult(x))
        }) else {
            continue;
        };
        if cost > max_sq {
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
