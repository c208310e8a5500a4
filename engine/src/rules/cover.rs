//! Cover (CRB — Combat Modifiers: Cover): terrain cover by the corner rule (melee against an
//! adjacent target uses the stricter melee mode), and soft cover (+4 against ranged attacks
//! from creatures in between). The geometry is in `geometry::los`.

use crate::actions::CombatantId;
use crate::episode::Episode;
use crate::geometry::grid::{self, Cell};
use crate::geometry::los::{self, CoverMode};
use crate::rules::idx;

/// Terrain cover bonus plus soft cover (+4 vs ranged from creatures in between).
pub(crate) fn cover_bonus(
    ep: &Episode,
    a: CombatantId,
    from: Cell,
    t: CombatantId,
    ranged: bool,
) -> i32 {
    let tpos = ep.st[idx(t)].pos;
    let adjacent = grid::footprint_distance_squares(from, ep.fp_side(a), tpos, ep.fp_side(t)) <= 1;
    let mode = if !ranged && adjacent {
        CoverMode::MeleeAdjacent
    } else {
        CoverMode::Ranged
    };
    let terrain =
        los::terrain_cover_bonus(&ep.enc.grid, from, ep.fp_side(a), tpos, ep.fp_side(t), mode)
            as i32;
    // Soft cover is +4: it matters only against ranged attacks and terrain cover below +4.
    if !ranged || terrain >= 4 {
        return terrain;
    }
    // Only creatures on squares that a line can look at matter ([`los::lines_may_touch`]).
    let (fa, ft) = (ep.fp_side(a), ep.fp_side(t));
    let inside = |c: &Cell| los::lines_may_touch(from, fa, tpos, ft, *c);
    let mut occ: Vec<Cell> = Vec::new();
    for o in ep.ids() {
        if o != a && o != t && ep.conscious(o) {
            occ.extend(ep.cells_iter(o).filter(inside));
        }
    }
    let soft = !occ.is_empty()
        && los::soft_cover(
            &ep.enc.grid,
            from,
            ep.fp_side(a),
            tpos,
            ep.fp_side(t),
            &|c| occ.contains(&c),
        );
    if soft {
        terrain.max(4)
    } else {
        terrain
    }
}
