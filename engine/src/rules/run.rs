//! Run (CRB — Actions in Combat: Run; Feats: Run): up to 4× speed (5× with Run) in a
//! straight line, no difficult terrain, allies passed but never ended on, enemies blocking;
//! beyond Constitution-score rounds a Constitution check (DC 10 + 1 per previous check)
//! each round, failure ending the run and forcing rest; the runner is denied its Dex bonus
//! to AC until its next turn unless it has Run.

use crate::actions::reject::Reject;
use crate::actions::CombatantId;
use crate::episode::Episode;
use crate::geometry::grid::{self, Cell};
use crate::rules::{self, idx};

/// Run speed multiplier: ×4, ×5 with the Run feat (CRB — Actions in Combat: Run; Feats: Run).
pub(crate) fn run_multiplier(ep: &Episode, a: CombatantId) -> i32 {
    if ep.spec(a).has_feat(crate::content::feats::Feat::Run) {
        5
    } else {
        4
    }
}

/// [`run_destination_ok`] for many destinations of one decision: the run budget and the
/// passage of every square are computed once (the legal-action enumeration asks about every
/// square within run distance).
pub(crate) fn run_destination_checker(
    ep: &Episode,
    a: CombatantId,
) -> impl Fn(Cell) -> Result<(), Reject> + '_ {
    let start = ep.st[idx(a)].pos;
    let max_sq = rules::movement::budget_squares(ep, a, run_multiplier(ep, a));
    let grid = &ep.enc.grid;
    let map = ep.passage_map(a);
    // A 1×1 runner on a small map: the terrain part of every line is in the grid's table;
    // only the creatures on it are left to check.
    let lines = if ep.fp_side(a) == 1 {
        grid.index(start).and_then(|i| grid.run_lines_from(i))
    } else {
        None
    };
    move |dest: Cell| {
        if dest == start || !grid.in_bounds(dest) {
            return Err(Reject::UnreachableDestination);
        }
        if grid::distance_squares(start, dest) > max_sq as i32 {
            return Err(Reject::UnreachableDestination);
        }
        let pass = |c: Cell| {
            grid.index(c)
                .and_then(|i| map.get(i))
                .copied()
                .unwrap_or(grid::Passage::Free)
        };
        let Some(lines) = lines else {
            return run_line_ok(ep, a, start, dest, max_sq, &pass);
        };
        let blocked = |i: u32| map.get(i as usize) == Some(&grid::Passage::Blocked);
        let line = grid
            .index(dest)
            .and_then(|d| lines.to(d))
            .ok_or(Reject::UnreachableDestination)?;
        if line.cost > max_sq
            || lines.cells_of(line).iter().any(|&i| blocked(i))
            || pass(dest) != grid::Passage::Free
        {
            return Err(Reject::UnreachableDestination);
        }
        Ok(())
    }
}

/// The checks of [`run_path_with`] along the straight line from `start` to `dest` (no
/// allocation): every footprint square on the map, passable, not difficult, not blocked; the
/// 5-10-5 cost within `max_sq` squares; the destination free to stop on.
fn run_line_ok<P: Fn(Cell) -> grid::Passage + ?Sized>(
    ep: &Episode,
    a: CombatantId,
    start: Cell,
    dest: Cell,
    max_sq: u32,
    pass: &P,
) -> Result<(), Reject> {
    let side = ep.fp_side(a);
    let grid = &ep.enc.grid;
    let cost = grid
        .straight_line_cost(start, dest, |c| {
            grid::footprint_iter(c, side).all(|x| {
                grid.in_bounds(x)
                    && grid.passable(x)
                    && !grid.is_difficult(x)
                    && pass(x) != grid::Passage::Blocked
            })
        })
        .ok_or(Reject::UnreachableDestination)?;
    if cost > max_sq
        || (0..side).any(|dr| {
            (0..side).any(|dc| pass(Cell::new(dest.row + dr, dest.col + dc)) != grid::Passage::Free)
        })
    {
        return Err(Reject::UnreachableDestination);
    }
    Ok(())
}

/// The destination of a run of `a` toward `t` (the seed's U5e; CRB — Actions in Combat: Run,
/// "in a straight line"): along the straight line from `a`'s square toward `t`'s, the first
/// square adjacent to `t` (footprints one square apart); where the line is blocked, or longer
/// than the run distance, or ends on a square `a` cannot stop in, the farthest square of the
/// line before that which `dest_ok` (the run-destination check) accepts.
///
/// # Errors
/// `invalid_target` (no such combatant, `a` itself); `unreachable_destination`: already
/// adjacent, or no square of the line can be run to.
pub(crate) fn toward_target(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    dest_ok: &dyn Fn(Cell) -> Result<(), Reject>,
) -> Result<Cell, Reject> {
    use crate::actions::reject::TargetIssue;
    let why = if t.0 as usize >= ep.n() {
        Some(TargetIssue::NoSuchCombatant)
    } else if t == a {
        Some(TargetIssue::Itself)
    } else {
        None
    };
    if let Some(why) = why {
        return Err(Reject::InvalidTarget {
            target: Some(t),
            why,
        });
    }
    let (start, side) = (ep.st[idx(a)].pos, ep.fp_side(a));
    let (tpos, tside) = (ep.st[idx(t)].pos, ep.fp_side(t));
    let adjacent = |c: Cell| grid::footprint_distance_squares(c, side, tpos, tside) <= 1;
    if adjacent(start) {
        return Err(Reject::UnreachableDestination);
    }
    let max_sq = rules::movement::budget_squares(ep, a, run_multiplier(ep, a)) as i32;
    let mut best = None;
    for c in crate::geometry::los::straight_line_iter(start, tpos) {
        if grid::distance_squares(start, c) > max_sq {
            break;
        }
        match dest_ok(c) {
            Ok(()) => best = Some(c),
            // A square the runner may pass but not stop in (an ally's): go on.
            Err(_) if ep.enc.grid.in_bounds(c) && ep.enc.grid.passable(c) => {
                if !passable_line(ep, a, start, c) {
                    break;
                }
            }
            Err(_) => break,
        }
        if adjacent(c) {
            break;
        }
    }
    best.ok_or(Reject::UnreachableDestination)
}

/// Whether the straight line from `start` to `c` is one a run may pass (terrain and
/// creatures), whether or not `a` can stop at `c`.
fn passable_line(ep: &Episode, a: CombatantId, start: Cell, c: Cell) -> bool {
    let side = ep.fp_side(a);
    let grid = &ep.enc.grid;
    let map = ep.passage_map(a);
    crate::geometry::los::straight_line_iter(start, c).all(|x| {
        grid::footprint_iter(x, side).all(|y| {
            grid.in_bounds(y)
                && grid.passable(y)
                && !grid.is_difficult(y)
                && grid
                    .index(y)
                    .and_then(|i| map.get(i))
                    .is_none_or(|p| *p != grid::Passage::Blocked)
        })
    })
}

/// Execute a run: endurance check beyond Con rounds (DC 10 + checks made, Constitution check,
/// no automatic 20/1; failure: stops, then 10 turns of rest); then the walk, provoking as a
/// move; the runner is denied its Dex bonus to AC until its next turn unless it has Run.
pub(crate) fn run(ep: &mut Episode, a: CombatantId, path: Vec<Cell>) {
    ep.turn.moved = true;
    let i = idx(a);
    let con = ep.spec(a).abilities.con_score;
    ep.st[i].run_rounds += 1;
    if let Some(con) = con {
        if ep.st[i].run_rounds as i32 > con {
            let dc = 10 + ep.st[i].run_checks as i32;
            ep.st[i].run_checks += 1;
            let m = ep.spec(a).abilities.con_mod();
            let d = ep.roll(20) as i32;
            let total = d + m;
            if total < dc {
                ep.log_turn(
                    a,
                    format!("run stopped: Con check d20={d}{m:+}={total} vs DC {dc} fails"),
                );
                ep.st[i].run_rest = 10;
                return;
            }
            ep.log_turn(
                a,
                format!("keeps running: Con check d20={d}{m:+}={total} vs DC {dc}"),
            );
        }
    }
    ep.turn.ran = true;
    ep.st[i].running = true;
    ep.start_walk(a, path, "run", false);
}
