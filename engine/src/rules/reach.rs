//! Reach and threatened squares (CRB — Combat: Big and Little Creatures, Reach Weapons;
//! Attacks of Opportunity, Threatened Squares).
//!
//! A melee attack reaches a square within its reach by 5-10-5 counting; 10-ft reach also covers
//! the second diagonal ("reach of 10 feet … threatens the second diagonal"); a reach weapon
//! does not reach squares at or within its wielder's natural reach (a ring). A creature
//! threatens the squares its usable melee weapons reach, with line of effect, while conscious
//! and able to act and to attack ([`can_threaten`]; flat-footed creatures still threaten).

use crate::actions::CombatantId;
use crate::content::combatant::AttackSpec;
use crate::episode::Episode;
use crate::geometry::grid::{self, Cell, SQUARE_FT};
use crate::geometry::los::{self};
use crate::rules::idx;

/// Whether a melee attack with `reach` covers a square at offset `(dr, dc)` (absolute deltas).
/// Reach is a disc of `max_ft` by 5-10-5 counting, except that 10-ft reach also covers the
/// second diagonal (CRB — Combat: Big and Little Creatures, "reach of 10 feet … threatens the
/// second diagonal"); a reach weapon excludes squares at or within the natural reach (ring).
#[inline]
fn reach_covers(dr: i32, dc: i32, min_excl_ft: Option<i32>, max_ft: i32) -> bool {
    let d_ft = grid::distance_squares(Cell::new(0, 0), Cell::new(dr, dc)) * SQUARE_FT;
    let within = d_ft <= max_ft || (max_ft == 10 && dr == 2 && dc == 2);
    let beyond_dead = match min_excl_ft {
        Some(m) => d_ft > m && !(m == 10 && dr == 2 && dc == 2),
        None => true,
    };
    within && beyond_dead
}

/// Melee reach of an attack: `(dead zone, max)` in feet.
#[inline]
pub(crate) fn melee_reach(ep: &Episode, c: CombatantId, w: &AttackSpec) -> (Option<i32>, i32) {
    let nat = ep.natural_reach_ft(c);
    if w.reach_weapon {
        (Some(nat), w.reach_ft.unwrap_or(2 * nat).max(nat))
    } else {
        (None, w.reach_ft.unwrap_or(nat))
    }
}

#[inline]
pub(crate) fn footprints_in_reach(
    a: Cell,
    a_side: i32,
    t: Cell,
    t_side: i32,
    reach: (Option<i32>, i32),
) -> bool {
    for ar in a.row..a.row + a_side {
        for ac in a.col..a.col + a_side {
            for tr in t.row..t.row + t_side {
                for tc in t.col..t.col + t_side {
                    if reach_covers((ar - tr).abs(), (ac - tc).abs(), reach.0, reach.1) {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// The first melee weapon of `x` that reaches `target` standing at `tpos` (with line of
/// effect), from `x`'s current position.
pub(crate) fn threatening_weapon(
    ep: &Episode,
    x: CombatantId,
    target: CombatantId,
    tpos: Cell,
) -> Option<usize> {
    each_threatening_weapon(ep, x, target, tpos).next()
}

/// Every melee weapon of `x` (list order) that reaches `target` standing at `tpos` (with line
/// of effect), from `x`'s current position: the weapons an attack of opportunity may use.
pub(crate) fn threatening_weapons(
    ep: &Episode,
    x: CombatantId,
    target: CombatantId,
    tpos: Cell,
) -> Vec<usize> {
    each_threatening_weapon(ep, x, target, tpos).collect()
}

fn each_threatening_weapon(
    ep: &Episode,
    x: CombatantId,
    target: CombatantId,
    tpos: Cell,
) -> impl Iterator<Item = usize> + '_ {
    let xpos = ep.st[idx(x)].pos;
    let spec = ep.spec(x);
    spec.attacks
        .iter()
        .enumerate()
        .filter(move |&(w, weapon)| {
            if weapon.is_ranged() || !ep.weapon_usable(x, w) {
                return false;
            }
            let reach = melee_reach(ep, x, weapon);
            footprints_in_reach(xpos, ep.fp_side(x), tpos, ep.fp_side(target), reach)
                && los::has_line_of_effect(
                    &ep.enc.grid,
                    xpos,
                    ep.fp_side(x),
                    tpos,
                    ep.fp_side(target),
                )
        })
        .map(|(w, _)| w)
}

/// Whether `x` can threaten any square at all: it is conscious and no condition of its forbids
/// acting (stunned, dazed, paralyzed, helpless…) or attacking — nauseated ("unable to
/// attack"), panicked (flees, "can't take any other actions"), pinned (can only try to free
/// itself) — CRB — Appendix: Conditions. A creature threatens only the squares "into which
/// you can make a melee attack" (CRB — Combat: Threatened Squares), so one that cannot attack
/// threatens nothing: it makes no attack of opportunity and helps no ally flank. The one test
/// read by [`threatens`] (flanking, shooting into a melee, the observation, the default
/// policy), [`threatened_squares`] (the observation's threatened plane, the policy's flight)
/// and [`crate::rules::aoo::can_make_aoo`]. Cheap on the hot path: one pass over the
/// bearer's few active conditions, each a table row read by index (no name compared).
#[inline]
pub(crate) fn can_threaten(ep: &Episode, x: CombatantId) -> bool {
    ep.conscious(x) && !ep.cond_flag(x, |d| d.cant_act || d.cant_attack)
}

/// Whether `x` threatens `target` as if it stood at `tpos` (melee weapon in reach — CRB —
/// Combat: Threatened Squares) and can threaten at all ([`can_threaten`]). Flat-footed
/// creatures still threaten; a creature that cannot act (stunned, paralyzed, helpless…) or
/// cannot attack (nauseated, panicked, pinned) does not.
pub(crate) fn threatens(ep: &Episode, x: CombatantId, target: CombatantId, tpos: Cell) -> bool {
    can_threaten(ep, x) && threatening_weapon(ep, x, target, tpos).is_some()
}

/// The squares (row-major, `rows × cols`) threatened by any of `threateners` for a 1×1
/// creature standing there (CRB — Combat: Threatened Squares): able to threaten
/// ([`can_threaten`]: conscious, able to act and to attack), a melee weapon whose reach
/// covers the square, with line of effect. Only the squares around each threatener are
/// examined.
pub(crate) fn threatened_squares(ep: &Episode, threateners: &[CombatantId]) -> Vec<bool> {
    let grid = &ep.enc.grid;
    let (rows, cols) = (grid.rows, grid.cols);
    let mut out = vec![false; (rows.max(0) * cols.max(0)) as usize];
    for &x in threateners {
        if !can_threaten(ep, x) {
            continue;
        }
        let (xpos, side) = (ep.st[idx(x)].pos, ep.fp_side(x));
        for (_, w) in ep
            .spec(x)
            .attacks
            .iter()
            .enumerate()
            .filter(|(i, w)| !w.is_ranged() && ep.weapon_usable(x, *i))
        {
            let reach = melee_reach(ep, x, w);
            let k = reach.1 / SQUARE_FT + 1;
            for r in (xpos.row - k).max(0)..(xpos.row + side + k).min(rows) {
                for c in (xpos.col - k).max(0)..(xpos.col + side + k).min(cols) {
                    let i = (r * cols + c) as usize;
                    let cell = Cell::new(r, c);
                    if !out[i]
                        && footprints_in_reach(xpos, side, cell, 1, reach)
                        && los::has_line_of_effect(grid, xpos, side, cell, 1)
                    {
                        out[i] = true;
                    }
                }
            }
        }
    }
    out
}
