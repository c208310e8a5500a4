//! Spell area templates on the battle grid: bursts, emanations, spreads, cylinders, cones and
//! lines, their line of effect from the point of origin, and the cover bonus on Reflex saves
//! (CRB — Magic: Aiming a Spell — Area, Burst/Emanation/Spread, Cone/Cylinder/Line/Sphere,
//! Line of Effect; Effect — Spread; CRB — Combat: Cover — Cover and Reflex Saves).
//!
//! Units: spell sizes come in **feet** (`radius_ft`, `length_ft`, as the spell data write
//! them) and are converted to whole squares (`ft / 5`, rounded down); every other distance
//! here is in **squares**.
//!
//! Geometry (exact integer arithmetic, the same conventions as [`crate::geometry::los`]):
//! square `(r, c)` is the unit square `x ∈ [c, c+1], y ∈ [r, r+1]`; a [`Corner`] `(r, c)` is
//! the lattice point `(x = c, y = r)`, the top-left corner of square `(r, c)`.
//!
//! Rules followed:
//! - **Measuring an area** (CRB — Magic: Aiming a Spell — Area): the point of origin is a grid
//!   intersection; distance is counted from intersection to intersection with the 5-10-5
//!   diagonal rule; "if the far edge of a square is within the spell's area, anything within
//!   that square is within the spell's area; if the area only touches the near edge, the
//!   square is unaffected". Here: a square is in a radius of `R` squares when the 5-10-5
//!   distance from the origin to the square's *farthest corner* is at most `R`. A 10-ft burst
//!   is the 4×4 block around the intersection less its four corner squares (12 squares), a
//!   20-ft burst the 8×8 block with rows 2-6-6-8-8-6-6-2 (44 squares).
//! - **Line of effect** (Line of Effect; Burst): a burst, cone, cylinder or emanation affects
//!   only what it has line of effect to from its origin; a burst "can't affect creatures with
//!   total cover from its point of origin (its effects don't extend around corners)". A square
//!   has line of effect from an intersection when some straight line from the intersection to
//!   a corner of the square avoids every `blocks_los` square other than itself, with the
//!   seam rule of `los.rs` (a line may run along or touch the corner of a single solid square,
//!   not slip between two solid squares that touch, nor along the map border beside one).
//! - **Spread** (Burst/Emanation/Spread; Effect — Spread): "extends out like a burst but can
//!   turn corners … figure distance by actual distance traveled … count around walls, not
//!   through them … do not trace diagonals across corners". Here: the burst's squares (what
//!   the spread reaches in a straight line, at the far-corner count), then a shortest-path
//!   flood over squares from them, 5-10-5 steps continuing each square's count, never into a
//!   `blocks_los` square, no diagonal step past a `blocks_los` square (the conservative
//!   corner reading of `grid.rs`).
//! - **Cone** (Cone/Cylinder/Line/Sphere): "a quarter-circle in the direction you designate;
//!   it starts from any corner of your square". Here: the 90° wedge from the footprint corner
//!   nearest the aimed square, snapped to one of the 8 grid directions, cut by the same
//!   far-corner radius; a square is in the wedge when its centre is (boundary included).
//! - **Line** (same section): "starts from any corner of your square and extends to the limit
//!   of its range or until it strikes a barrier that blocks line of effect; affects all
//!   creatures in squares through which the line passes". Here: the ray from the footprint
//!   corner nearest the aimed square through that square's centre; every square whose
//!   interior it crosses, in order, while the square's far corner is within the length; the
//!   first `blocks_los` square (or a pinch between two of them) ends it and is not included.
//! - **Cylinder** (same section): "ignores any obstructions within its area": the circle of
//!   the burst without the line-of-effect test.
//!
//! Common to every template: squares off the map and `blocks_los` squares themselves (solid
//! walls, where nothing stands) are never in it; results are sorted by `(row, col)`.
//! Templates cost O(area) (a scan of the area's bounding box, line tests only when a
//! `blocks_los` square lies in that box) and allocate only their result (the spread also
//! allocates its flood arrays, sized to the bounding box).
use crate::geometry::grid::{Cell, Grid, MAX_FOOTPRINT_SIDE, SQUARE_FT};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A grid intersection: `(row, col)` is the top-left corner of square `(row, col)`; the
/// intersections of a map run over `0..=rows × 0..=cols` (in squares). The point of origin
/// of every area spell (CRB — Magic: Aiming a Spell — Area: "the point of origin of a spell
/// is always a grid intersection").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Corner {
    /// Row line, 0 at the top edge of the map (in squares).
    pub row: i32,
    /// Column line, 0 at the left edge of the map (in squares).
    pub col: i32,
}

impl Corner {
    /// The intersection on row line `row` and column line `col` (in squares).
    pub const fn new(row: i32, col: i32) -> Self {
        Corner { row, col }
    }
}

impl std::fmt::Display for Corner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<{},{}>", self.row, self.col)
    }
}

/// Feet to whole squares, rounded down (CRB — Combat: Measuring Distance: 5 ft a square).
fn squares_of(ft: u32) -> i64 {
    i64::from(ft) / i64::from(SQUARE_FT)
}

fn clamp_side(side: i32) -> i32 {
    side.clamp(1, MAX_FOOTPRINT_SIDE)
}

fn cell_at(row: i64, col: i64) -> Option<Cell> {
    Some(Cell::new(
        i32::try_from(row).ok()?,
        i32::try_from(col).ok()?,
    ))
}

fn in_footprint(c: Cell, anchor: Cell, side: i32) -> bool {
    let side = i64::from(clamp_side(side));
    let (r, col) = (i64::from(c.row), i64::from(c.col));
    let (r0, c0) = (i64::from(anchor.row), i64::from(anchor.col));
    (r0..r0 + side).contains(&r) && (c0..c0 + side).contains(&col)
}

/// The 5-10-5 distance in squares from intersection `origin` to the farthest corner of square
/// `c` (CRB — Magic: Aiming a Spell — Area: count from intersection to intersection; a square
/// is inside a radius when its far edge is). A square touching the origin is at 1.
pub fn area_distance_squares(origin: Corner, c: Cell) -> i64 {
    let (dr, dc) = far_deltas(origin, c);
    dr.max(dc) + dr.min(dc) / 2
}

/// Rows and columns from intersection `origin` to the far corner of square `c` (each ≥ 1).
fn far_deltas(origin: Corner, c: Cell) -> (i64, i64) {
    let far = |o: i32, v: i32| {
        let (o, v) = (i64::from(o), i64::from(v));
        if v >= o {
            v + 1 - o
        } else {
            o - v
        }
    };
    (far(origin.row, c.row), far(origin.col, c.col))
}

/// The on-map squares that can lie within `r` squares of `origin`: rows and columns
/// `origin - r .. origin + r`, clipped to the map (half-open ranges).
fn bounding_box(grid: &Grid, origin: Corner, r: i64) -> (i64, i64, i64, i64) {
    let (or, oc) = (i64::from(origin.row), i64::from(origin.col));
    let r0 = (or - r).max(0);
    let r1 = (or + r).min(i64::from(grid.rows));
    let c0 = (oc - r).max(0);
    let c1 = (oc + r).min(i64::from(grid.cols));
    (r0, r1.max(r0), c0, c1.max(c0))
}

/// Whether any `blocks_los` square lies in the box (then line tests are needed).
fn box_has_barrier(grid: &Grid, (r0, r1, c0, c1): (i64, i64, i64, i64)) -> bool {
    (r0..r1).any(|r| (c0..c1).any(|c| grid.blocks_los_at(Cell::new(r as i32, c as i32))))
}

/// What a straight segment between two lattice points meets.
#[derive(Debug, Clone, Copy)]
enum Meet {
    /// It crosses the open interior of this square (`None`: beyond the `i32` range).
    Square(Option<Cell>),
    /// It runs along the edge between these two squares, or passes the lattice point between
    /// them (diagonal neighbours on either side of it): stopped only if both stop it.
    Pair(Option<Cell>, Option<Cell>),
}

/// Walks the segment from lattice point `p0` to `p1` (`(x, y)` = (column line, row line)),
/// calling `f` for each thing it meets until `f` returns false; returns whether the walk
/// reached the end. For a segment that is not axis-aligned the calls come in order from
/// `p0`. Same geometry as `los::line_max`.
fn walk(p0: (i64, i64), p1: (i64, i64), mut f: impl FnMut(Meet) -> bool) -> bool {
    let (dx, dy) = (p1.0 - p0.0, p1.1 - p0.1);
    let sq = |row: i64, col: i64| cell_at(row, col);
    if dx == 0 && dy == 0 {
        return true;
    }
    // Axis-aligned: along a grid line, seams on each unit and pinches at interior points.
    if dx == 0 || dy == 0 {
        let horizontal = dy == 0;
        let (lo, hi, fixed) = if horizontal {
            (p0.0.min(p1.0), p0.0.max(p1.0), p0.1)
        } else {
            (p0.1.min(p1.1), p0.1.max(p1.1), p0.0)
        };
        for k in lo..hi {
            let pair = if horizontal {
                Meet::Pair(sq(fixed - 1, k), sq(fixed, k))
            } else {
                Meet::Pair(sq(k, fixed - 1), sq(k, fixed))
            };
            if !f(pair) {
                return false;
            }
        }
        for k in lo + 1..hi {
            let (x, y) = if horizontal { (k, fixed) } else { (fixed, k) };
            let a = Meet::Pair(sq(y - 1, x - 1), sq(y, x));
            let b = Meet::Pair(sq(y - 1, x), sq(y, x - 1));
            if !f(a) || !f(b) {
                return false;
            }
        }
        return true;
    }
    // General case: the squares crossed and the interior lattice points passed, in order
    // (exact integer walk, shared with `los::line_max`).
    let (sx, sy) = (dx.signum(), dy.signum());
    crate::geometry::los::diagonal_walk(p0, (dx, dy), |step| match step {
        crate::geometry::los::Crossing::Square { row, col } => f(Meet::Square(sq(row, col))),
        crate::geometry::los::Crossing::Pinch { x, y } => {
            // An interior lattice point: the squares on either side of the line there.
            let col = |q: i64| if q < 0 { x - 1 } else { x };
            let row = |q: i64| if q < 0 { y - 1 } else { y };
            f(Meet::Pair(sq(row(-sy), col(sx)), sq(row(sy), col(-sx))))
        }
    })
}

/// Whether the segment `p0 → p1` is clear: no square it crosses, and no seam or pinch of two
/// squares it passes, `solid` (off the map and beyond `i32` count as solid).
fn segment_clear(
    grid: &Grid,
    p0: (i64, i64),
    p1: (i64, i64),
    solid: &dyn Fn(Cell) -> bool,
) -> bool {
    let stop = |c: Option<Cell>| c.is_none_or(|c| !grid.in_bounds(c) || solid(c));
    walk(p0, p1, |m| match m {
        Meet::Square(c) => !stop(c),
        Meet::Pair(a, b) => !(stop(a) && stop(b)),
    })
}

/// The largest value `value` gives a square the segment crosses, or the smaller of the two
/// at a seam or pinch; off the map counts `off_map`.
fn segment_max(
    p0: (i64, i64),
    p1: (i64, i64),
    off_map: u8,
    value: &dyn Fn(Cell) -> Option<u8>,
) -> u8 {
    let v = |c: Option<Cell>| c.and_then(value).unwrap_or(off_map);
    let mut best = 0u8;
    walk(p0, p1, |m| {
        best = best.max(match m {
            Meet::Square(c) => v(c),
            Meet::Pair(a, b) => v(a).min(v(b)),
        });
        // Nothing is worth more than improved cover (or off the map): stop there.
        best < off_map.max(8)
    });
    best
}

fn point(c: Corner) -> (i64, i64) {
    (i64::from(c.col), i64::from(c.row))
}

/// The four corners of square `c` as lattice points.
fn corners_of(c: Cell) -> [(i64, i64); 4] {
    let (x, y) = (i64::from(c.col), i64::from(c.row));
    [(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)]
}

/// Whether square `c` touches intersection `o` (one of the four squares around it).
fn touches(o: Corner, c: Cell) -> bool {
    let dr = i64::from(c.row) - i64::from(o.row);
    let dc = i64::from(c.col) - i64::from(o.col);
    (-1..=0).contains(&dr) && (-1..=0).contains(&dc)
}

/// Line of effect from intersection `origin` to square `to` (CRB — Magic: Aiming a Spell —
/// Line of Effect: "a straight, unblocked path … canceled by a solid barrier"): some straight
/// line from the intersection to a corner of `to` crosses no `blocks_los` square other than
/// `to` itself (seams and pinches as in `los.rs`: a line may graze one solid square, not slip
/// between two that touch). The four squares around the intersection always have it; a square
/// off the map never does.
pub fn line_of_effect_from(grid: &Grid, origin: Corner, to: Cell) -> bool {
    if !grid.in_bounds(to) {
        return false;
    }
    if touches(origin, to) {
        return true;
    }
    let solid = |c: Cell| c != to && grid.blocks_los_at(c);
    corners_of(to)
        .into_iter()
        .any(|q| segment_clear(grid, point(origin), q, &solid))
}

/// Line of effect from a creature (footprint anchored at `from`, `side` squares) to the
/// intersection `origin` (CRB — Magic: Aiming a Spell — Line of Effect: "you must have a clear
/// line of effect to the point of origin of any spell you cast"): some straight line from a
/// corner of the footprint to the intersection crosses no `blocks_los` square outside the
/// footprint. An intersection on the footprint's boundary or inside it always has it.
pub fn line_of_effect_to_corner(grid: &Grid, from: Cell, side: i32, origin: Corner) -> bool {
    let s = i64::from(clamp_side(side));
    let (r0, c0) = (i64::from(from.row), i64::from(from.col));
    let (or, oc) = (i64::from(origin.row), i64::from(origin.col));
    if (r0..=r0 + s).contains(&or) && (c0..=c0 + s).contains(&oc) {
        return true;
    }
    let solid = |c: Cell| !in_footprint(c, from, side) && grid.blocks_los_at(c);
    (r0..=r0 + s).any(|y| (c0..=c0 + s).any(|x| segment_clear(grid, (x, y), point(origin), &solid)))
}

/// The squares within `r` squares of `origin` (far-corner measure) that are on the map, not
/// `blocks_los`, and pass `keep`, row-major.
fn disc(grid: &Grid, origin: Corner, r: i64, mut keep: impl FnMut(Cell) -> bool) -> Vec<Cell> {
    let bb = bounding_box(grid, origin, r);
    let (r0, r1, c0, c1) = bb;
    let mut out = Vec::with_capacity(((r1 - r0) * (c1 - c0)).clamp(0, 4096) as usize);
    for row in r0..r1 {
        for col in c0..c1 {
            let c = Cell::new(row as i32, col as i32);
            if area_distance_squares(origin, c) <= r && !grid.blocks_los_at(c) && keep(c) {
                out.push(c);
            }
        }
    }
    out
}

/// Squares of a burst of `radius_ft` **feet** centred on intersection `origin` (CRB — Magic:
/// Aiming a Spell — Area; Burst, Emanation, or Spread — Burst: "can't affect creatures with
/// total cover from its point of origin … its effects don't extend around corners"): on the
/// map, not `blocks_los`, within the radius by the far-corner 5-10-5 count (see the module
/// doc), with [`line_of_effect_from`] the origin. Sorted by `(row, col)`; empty for a radius
/// under 5 ft.
pub fn burst(grid: &Grid, origin: Corner, radius_ft: u32) -> Vec<Cell> {
    let r = squares_of(radius_ft);
    if r == 0 {
        return Vec::new();
    }
    let barrier = box_has_barrier(grid, bounding_box(grid, origin, r));
    disc(grid, origin, r, |c| {
        !barrier || line_of_effect_from(grid, origin, c)
    })
}

/// Squares of an emanation of `radius_ft` **feet** from intersection `origin`: the same
/// squares as a [`burst`] (CRB — Magic: Aiming a Spell — Burst, Emanation, or Spread: "an
/// emanation spell functions like a burst spell, except that the effect continues to radiate
/// … for the duration").
pub fn emanation(grid: &Grid, origin: Corner, radius_ft: u32) -> Vec<Cell> {
    burst(grid, origin, radius_ft)
}

/// Squares of a cylinder of `radius_ft` **feet** around intersection `origin` (CRB — Magic:
/// Aiming a Spell — Cone, Cylinder, Line, or Sphere: "a cylinder-shaped spell ignores any
/// obstructions within its area"): the burst's circle without the line-of-effect test (the
/// height is not modelled: the grid is flat). `blocks_los` squares themselves stay out.
/// Sorted by `(row, col)`.
pub fn cylinder(grid: &Grid, origin: Corner, radius_ft: u32) -> Vec<Cell> {
    let r = squares_of(radius_ft);
    if r == 0 {
        return Vec::new();
    }
    disc(grid, origin, r, |_| true)
}

/// Squares of a spread of `radius_ft` **feet** from intersection `origin` (CRB — Magic:
/// Aiming a Spell — Burst, Emanation, or Spread: "a spread spell extends out like a burst but
/// can turn corners"; Effect — Spread: "figure distance by actual distance traveled … count
/// around walls, not through them … do not trace diagonals across corners"). Every square of
/// the [`burst`] (what the spread reaches in a straight line, at its far-corner count), then a
/// shortest-path flood in squares from them: each step costs 1, a diagonal alternately 1 and 2
/// (5-10-5, continuing the straight line's count), never into a `blocks_los` square nor
/// diagonally past one; a square is in when its cost is at most the radius. In the open it
/// equals the burst. Sorted by `(row, col)`.
pub fn spread(grid: &Grid, origin: Corner, radius_ft: u32) -> Vec<Cell> {
    let r = squares_of(radius_ft);
    if r == 0 {
        return Vec::new();
    }
    let (r0, r1, c0, c1) = bounding_box(grid, origin, r);
    let (h, w) = ((r1 - r0) as usize, (c1 - c0) as usize);
    if h == 0 || w == 0 {
        return Vec::new();
    }
    let local = |c: Cell| -> Option<usize> {
        let (row, col) = (i64::from(c.row), i64::from(c.col));
        ((r0..r1).contains(&row) && (c0..c1).contains(&col))
            .then(|| (row - r0) as usize * w + (col - c0) as usize)
    };
    let open = |c: Cell| grid.in_bounds(c) && !grid.blocks_los_at(c);
    let r = r as u32;
    // Best cost per (square, parity of diagonals so far); parity 1: the next diagonal costs 2.
    let mut cost = vec![u32::MAX; h * w * 2];
    let mut heap = BinaryHeap::new();
    // The burst's squares at their straight-line count (min(dr, dc) diagonals so far), then
    // the flood around corners from them.
    for c in burst(grid, origin, radius_ft) {
        let Some(i) = local(c) else { continue };
        let (dr, dc) = far_deltas(origin, c);
        let (k, parity) = ((dr.max(dc) + dr.min(dc) / 2) as u32, (dr.min(dc) % 2) as u8);
        cost[i * 2 + usize::from(parity)] = k;
        heap.push(Reverse((k, c.row, c.col, parity)));
    }
    while let Some(Reverse((k, row, col, parity))) = heap.pop() {
        let at = Cell::new(row, col);
        let Some(i) = local(at) else { continue };
        if cost[i * 2 + usize::from(parity)] < k {
            continue;
        }
        for (dr, dc) in [
            (-1, -1),
            (-1, 0),
            (-1, 1),
            (0, -1),
            (0, 1),
            (1, -1),
            (1, 0),
            (1, 1),
        ] {
            let to = Cell::new(row + dr, col + dc);
            let Some(j) = local(to) else { continue };
            if !open(to) {
                continue;
            }
            let diagonal = dr != 0 && dc != 0;
            if diagonal && !(open(Cell::new(row + dr, col)) && open(Cell::new(row, col + dc))) {
                continue;
            }
            let (step, np) = match (diagonal, parity) {
                (false, p) => (1, p),
                (true, 0) => (1, 1),
                (true, _) => (2, 0),
            };
            let nk = k + step;
            let slot = j * 2 + usize::from(np);
            if nk <= r && nk < cost[slot] {
                cost[slot] = nk;
                heap.push(Reverse((nk, to.row, to.col, np)));
            }
        }
    }
    let mut out = Vec::new();
    for (i, pair) in cost.chunks_exact(2).enumerate() {
        if pair[0].min(pair[1]) <= r {
            out.push(Cell::new(
                (r0 + (i / w) as i64) as i32,
                (c0 + (i % w) as i64) as i32,
            ));
        }
    }
    out
}

/// The intersection a burst aimed at square `at` uses: its top-left corner (the action
/// space's convention: a target square names the intersection at its top-left corner; CRB —
/// Magic: Aiming a Spell — Area: "the point of origin of a spell is always a grid
/// intersection").
pub fn corner_of(at: Cell) -> Corner {
    Corner::new(at.row, at.col)
}

/// The corner of the footprint (anchored top-left at `caster`, `side` squares) nearest the
/// centre of square `toward` — the origin of cones and lines (CRB — Magic: Aiming a Spell —
/// Cone, Cylinder, Line, or Sphere: "it starts from any corner of your square"). Only the
/// footprint's four outer corners are candidates; ties go to the smallest `(row, col)`.
pub fn origin_corner(caster: Cell, side: i32, toward: Cell) -> Corner {
    let s = clamp_side(side);
    // Doubled coordinates: the centre of `toward` is at (2·row + 1, 2·col + 1).
    let (ty, tx) = (2 * i64::from(toward.row) + 1, 2 * i64::from(toward.col) + 1);
    let mut best: Option<(i128, Corner)> = None;
    for dr in [0, s] {
        for dc in [0, s] {
            let c = Corner::new(caster.row.saturating_add(dr), caster.col.saturating_add(dc));
            let (ey, ex) = (
                i128::from(2 * i64::from(c.row) - ty),
                i128::from(2 * i64::from(c.col) - tx),
            );
            let d2 = ey * ey + ex * ex;
            if best.is_none_or(|(b, bc)| d2 < b || (d2 == b && c < bc)) {
                best = Some((d2, c));
            }
        }
    }
    best.map_or(Corner::new(caster.row, caster.col), |(_, c)| c)
}

/// Snaps the vector `(vx, vy)` (x = columns, y = rows, any scale) to the nearest of the 8
/// grid directions by angle (22.5° either side of each); `(0, 0)` for a zero vector.
fn snap8(vx: i64, vy: i64) -> (i64, i64) {
    let (ax, ay) = (i128::from(vx.abs()), i128::from(vy.abs()));
    let sum2 = (ax + ay) * (ax + ay);
    // |vy| < (√2 − 1)·|vx|  ⟺  (|vx| + |vy|)² < 2·vx²  (exact; √2 is irrational, no ties
    // except the zero vector).
    if sum2 < 2 * ax * ax {
        (vx.signum(), 0)
    } else if sum2 < 2 * ay * ay {
        (0, vy.signum())
    } else {
        (vx.signum(), vy.signum())
    }
}

/// The direction a cone is aimed in: from the footprint's centre to `toward`'s centre,
/// snapped to one of the 8 grid directions, as `(d_col, d_row)` in `-1..=1`.
fn cone_direction(caster: Cell, side: i32, toward: Cell) -> (i64, i64) {
    let s = i64::from(clamp_side(side));
    // Doubled coordinates: footprint centre (2·anchor + side), square centre (2·cell + 1).
    let vx = 2 * i64::from(toward.col) + 1 - (2 * i64::from(caster.col) + s);
    let vy = 2 * i64::from(toward.row) + 1 - (2 * i64::from(caster.row) + s);
    snap8(vx, vy)
}

/// Squares of a cone of `length_ft` **feet** (CRB — Magic: Aiming a Spell — Cone, Cylinder,
/// Line, or Sphere: "a cone-shaped spell shoots away from you in a quarter-circle in the
/// direction you designate; it starts from any corner of your square and widens out as it
/// goes; most cones are bursts or emanations and won't go around corners"; Line of Effect:
/// a cone affects only what it has line of effect to from its starting point).
///
/// - Origin: [`origin_corner`] of the caster's footprint (anchor `caster`, `side` squares).
/// - Direction: from the footprint's centre to `toward`'s centre, snapped to the nearest of
///   the 8 grid directions (orthogonal cones are symmetric about a grid line, diagonal cones
///   fill a quadrant).
/// - A square is in the cone when its far corner is within the length (the far-corner 5-10-5
///   count of [`burst`]), its centre lies in the 90° wedge (45° either side of the direction,
///   boundary included), it is on the map, not `blocks_los`, not one of the caster's squares,
///   and has [`line_of_effect_from`] the origin.
///
/// Empty when `toward` is one of the caster's squares or the length is under 5 ft. Sorted by
/// `(row, col)`.
pub fn cone(grid: &Grid, caster: Cell, side: i32, toward: Cell, length_ft: u32) -> Vec<Cell> {
    let r = squares_of(length_ft);
    if r == 0 || in_footprint(toward, caster, side) {
        return Vec::new();
    }
    let o = origin_corner(caster, side, toward);
    let (dx, dy) = cone_direction(caster, side, toward);
    let barrier = box_has_barrier(grid, bounding_box(grid, o, r));
    let in_wedge = |c: Cell| {
        // Centre relative to the origin, doubled: both components odd, never zero.
        let vx = 2 * (i64::from(c.col) - i64::from(o.col)) + 1;
        let vy = 2 * (i64::from(c.row) - i64::from(o.row)) + 1;
        if dx != 0 && dy != 0 {
            vx * dx > 0 && vy * dy > 0
        } else {
            let along = vx * dx + vy * dy;
            let across = (vx * dy - vy * dx).abs();
            along > 0 && across <= along
        }
    };
    disc(grid, o, r, |c| {
        in_wedge(c)
            && !in_footprint(c, caster, side)
            && (!barrier || line_of_effect_from(grid, o, c))
    })
}

/// Squares of a line of `length_ft` **feet** (CRB — Magic: Aiming a Spell — Cone, Cylinder,
/// Line, or Sphere: "a line-shaped spell shoots away from you in a line in the direction you
/// designate; it starts from any corner of your square and extends to the limit of its range
/// or until it strikes a barrier that blocks line of effect; it affects all creatures in
/// squares through which the line passes").
///
/// The ray from [`origin_corner`] through the centre of `toward`, extended: every square whose
/// interior it crosses, in order from the caster, except the caster's own, while the square's
/// far corner is within the length (the far-corner 5-10-5 count of [`burst`]: a 30-ft line
/// covers 6 squares orthogonally, 4 diagonally). It stops at the map's edge and at the first
/// barrier: a `blocks_los` square (**not included** — a solid wall holds no creature; the
/// seed includes it) or a lattice point between two diagonally touching `blocks_los`
/// squares. Empty when `toward` is one of the caster's squares or the length is under 5 ft.
/// Sorted by `(row, col)`.
pub fn line(grid: &Grid, caster: Cell, side: i32, toward: Cell, length_ft: u32) -> Vec<Cell> {
    let r = squares_of(length_ft);
    if r == 0 || in_footprint(toward, caster, side) {
        return Vec::new();
    }
    let o = origin_corner(caster, side, toward);
    // Doubled direction to the centre: both components odd, so the ray is never along a grid
    // line, and the origin plus any multiple of it is a lattice point.
    let ax = 2 * (i64::from(toward.col) - i64::from(o.col)) + 1;
    let ay = 2 * (i64::from(toward.row) - i64::from(o.row)) + 1;
    // Far enough that the last square is beyond the length or off the map.
    let reach = r.min(i64::from(grid.rows.max(grid.cols))) + 2;
    let m = reach / ax.abs().max(ay.abs()) + 1;
    let p0 = point(o);
    let p1 = (p0.0 + m * ax, p0.1 + m * ay);
    let stops = |c: Option<Cell>| c.is_none_or(|c| !grid.in_bounds(c) || grid.blocks_los_at(c));
    let mut out = Vec::with_capacity(usize::try_from(2 * reach).unwrap_or(0).min(4096));
    walk(p0, p1, |m| match m {
        Meet::Pair(a, b) => !(stops(a) && stops(b)),
        Meet::Square(c) => {
            let Some(c) = c.filter(|_| !stops(c)) else {
                return false;
            };
            if in_footprint(c, caster, side) {
                return true;
            }
            if area_distance_squares(o, c) > r {
                return false;
            }
            out.push(c);
            true
        }
    });
    out.sort_unstable();
    out
}

/// Terrain cover value (AC bonus 0, 2, 4, 8) of one on-map square: its cover bonus, at least 4
/// if it blocks line of effect (as `los.rs` counts it).
fn terrain_cover(grid: &Grid, c: Cell) -> u8 {
    let b = grid.cover_bonus_at(c);
    if b == 0 && grid.blocks_los_at(c) {
        4
    } else {
        b
    }
}

/// The cover bonus on Reflex saves of a creature whose footprint is anchored at `to` (`side`
/// squares) against an area whose point of origin is the intersection `origin` (CRB — Combat:
/// Cover — Cover and Reflex Saves: "cover grants a +2 bonus on Reflex saves against attacks
/// that originate or burst out from a point on the other side of the cover"; Partial Cover:
/// +1; Improved Cover: the bonuses doubled, +4; Soft Cover: no Reflex bonus). Half the terrain
/// cover AC bonus by the corner rule of `los.rs` with the origin as the single corner: the
/// largest cover (map `cover_bonus`; a `blocks_los` square counts +4; off the map +8 on a
/// seam) met by the lines from the origin to every corner of the footprint — partial (+2 AC)
/// gives +1, standard (+4) +2, improved (+8) +4. Creatures (soft cover) give nothing. The
/// creature's own squares never count. Whether a spread's turning corners negates it ("spread
/// effects can extend around corners and thus negate this cover bonus") is the caller's
/// call; total cover is not decided here (the creature is then out of the area).
pub fn reflex_cover_from(grid: &Grid, origin: Corner, to: Cell, side: i32) -> i32 {
    let s = i64::from(clamp_side(side));
    let value = |c: Cell| -> Option<u8> {
        if in_footprint(c, to, side) {
            Some(0)
        } else if grid.in_bounds(c) {
            Some(terrain_cover(grid, c))
        } else {
            None
        }
    };
    let (r0, c0) = (i64::from(to.row), i64::from(to.col));
    let mut best = 0u8;
    for y in r0..=r0 + s {
        for x in c0..=c0 + s {
            best = best.max(segment_max(point(origin), (x, y), 8, &value));
        }
    }
    i32::from(best) / 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::map::MapSpec;

    fn grid_of(rows: &[&str]) -> Grid {
        let mut text = String::from("name: t\nterrain: |\n");
        for r in rows {
            text.push_str(&format!("  {r}\n"));
        }
        text.push_str(
            "legend:\n  \".\": { type: floor, move_cost: 1 }\n  \"#\": { type: wall, move_cost: null, blocks_los: true }\n",
        );
        Grid::from_map(&MapSpec::from_yaml_str(&text, "test").unwrap())
    }

    // CRB — Magic: Aiming a Spell — Area: the far edge of a square counts.
    #[test]
    fn far_corner_distance() {
        let o = Corner::new(2, 2);
        assert_eq!(area_distance_squares(o, Cell::new(2, 2)), 1);
        assert_eq!(area_distance_squares(o, Cell::new(1, 1)), 1);
        assert_eq!(area_distance_squares(o, Cell::new(2, 3)), 2);
        assert_eq!(area_distance_squares(o, Cell::new(3, 3)), 3);
        assert_eq!(area_distance_squares(o, Cell::new(0, 2)), 2);
    }

    #[test]
    fn snapping_to_eight_directions() {
        assert_eq!(snap8(5, 1), (1, 0));
        assert_eq!(snap8(5, 2), (1, 0));
        assert_eq!(snap8(5, 3), (1, 1));
        assert_eq!(snap8(-1, -1), (-1, -1));
        assert_eq!(snap8(1, -7), (0, -1));
        assert_eq!(snap8(0, 0), (0, 0));
    }

    #[test]
    fn walk_orders_squares_from_the_start() {
        let mut seen = Vec::new();
        walk((0, 0), (3, 1), |m| {
            if let Meet::Square(Some(c)) = m {
                seen.push(c);
            }
            true
        });
        assert_eq!(
            seen,
            vec![Cell::new(0, 0), Cell::new(0, 1), Cell::new(0, 2)]
        );
    }

    #[test]
    fn extreme_inputs_do_not_panic() {
        let g = grid_of(&["...", "..#", "..."]);
        for o in [
            Corner::new(-9, -9),
            Corner::new(i32::MAX, i32::MIN),
            Corner::new(3, 3),
        ] {
            let _ = burst(&g, o, u32::MAX);
            let _ = spread(&g, o, u32::MAX);
            let _ = cylinder(&g, o, 40);
            let _ = reflex_cover_from(&g, o, Cell::new(0, 0), 99);
            let _ = line_of_effect_from(&g, o, Cell::new(2, 2));
        }
        let far = Cell::new(i32::MAX - 1, i32::MIN + 1);
        let _ = cone(&g, Cell::new(1, 1), 1, far, u32::MAX);
        let _ = line(&g, Cell::new(1, 1), 1, far, u32::MAX);
        let _ = cone(&g, far, 40, Cell::new(0, 0), 60);
        let _ = line(&g, far, -3, Cell::new(0, 0), 60);
        let _ = line_of_effect_to_corner(&g, far, 3, Corner::new(0, 0));
    }
}
