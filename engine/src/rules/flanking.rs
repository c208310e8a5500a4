//! Flanking (CRB — Combat Modifiers: Flanking): an ally of the attacker threatens the target
//! and the line between the centres of a square of the attacker and a square of the ally
//! passes through opposite borders (corners included) of the target's space. Targets with the
//! `immune_flanking` trait are never flanked (Bestiary — Creature Types: elemental, ooze).

use crate::actions::CombatantId;
use crate::episode::Episode;
use crate::geometry::grid::{self, Cell};
use crate::rules::idx;
use crate::rules::reach::threatens;

/// Flanking (CRB — Combat Modifiers: Flanking): an ally of the attacker that threatens the
/// target, such that the line between the centres of a square of the attacker and a square of
/// the ally passes through opposite borders (corners included) of the target's space.
/// A target whose traits say `immune_flanking` is never flanked (Bestiary — Creature Types:
/// elemental and ooze traits).
pub(crate) fn flanking(ep: &Episode, a: CombatantId, from: Cell, t: CombatantId) -> bool {
    if ep.traits(t).immune_flanking {
        return false;
    }
    let tpos = ep.st[idx(t)].pos;
    let ts = ep.fp_side(t);
    // Target box in doubled coordinates (square (r,c) spans [2r, 2r+2]).
    let (top, left, bottom, right) = (
        2 * tpos.row,
        2 * tpos.col,
        2 * (tpos.row + ts),
        2 * (tpos.col + ts),
    );
    for ally in ep.ids() {
        if ally == a || ally == t || ep.enemies(a, ally) || !ep.conscious(ally) {
            continue;
        }
        if !threatens(ep, ally, t, tpos) {
            continue;
        }
        for ca in grid::footprint(from, ep.fp_side(a)) {
            for cb in grid::footprint(ep.st[idx(ally)].pos, ep.fp_side(ally)) {
                let p = (2 * ca.row + 1, 2 * ca.col + 1);
                let q = (2 * cb.row + 1, 2 * cb.col + 1);
                let hits_h = |y: i32| segment_hits_hline(p, q, y, left, right);
                let hits_v = |x: i32| segment_hits_vline(p, q, x, top, bottom);
                if (hits_h(top) && hits_h(bottom)) || (hits_v(left) && hits_v(right)) {
                    return true;
                }
            }
        }
    }
    false
}

/// Whether segment p→q (points as (row, col)) meets the horizontal segment row = y,
/// col ∈ [x0, x1] (closed).
fn segment_hits_hline(p: (i32, i32), q: (i32, i32), y: i32, x0: i32, x1: i32) -> bool {
    let (pr, pc) = (p.0 as i64, p.1 as i64);
    let (qr, qc) = (q.0 as i64, q.1 as i64);
    let y = y as i64;
    if (pr - y) * (qr - y) > 0 || pr == qr {
        return pr == qr && pr == y && pc.min(qc) <= x1 as i64 && pc.max(qc) >= x0 as i64;
    }
    // col at row y: pc + (qc-pc)*(y-pr)/(qr-pr); compare scaled to avoid division.
    let den = qr - pr;
    let num = pc * den + (qc - pc) * (y - pr);
    let (lo, hi) = (x0 as i64 * den, x1 as i64 * den);
    if den > 0 {
        num >= lo && num <= hi
    } else {
        num <= lo && num >= hi
    }
}

fn segment_hits_vline(p: (i32, i32), q: (i32, i32), x: i32, y0: i32, y1: i32) -> bool {
    segment_hits_hline((p.1, p.0), (q.1, q.0), x, y0, y1)
}
