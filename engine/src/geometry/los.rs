//! Line of effect and cover by the corner rule (CRB — Combat: Cover; Magic: Aiming a Spell —
//! Line of Effect).
//!
//! Geometry (exact integer arithmetic, no floats): square `(r, c)` is the unit square
//! `x ∈ [c, c+1], y ∈ [r, r+1]`; its corners are lattice points. Lines run from a corner of
//! one square to a corner of another. A line *passes through* a square when it meets the
//! square's open interior; running exactly along one edge of a square or touching only its
//! corner does not count.
//!
//! Seams (an addition to the bare interior rule, so that a wall is solid): a line that runs
//! along the edge shared by two squares, or passes through a lattice point between two
//! diagonally placed squares (one on each side of the line), is stopped only if *both* squares
//! stop it — for cover it takes the smaller of the two bonuses. A line may therefore graze a
//! single wall or pillar, but cannot slip between two wall squares that touch (`##` side by
//! side, or a diagonal wall). Squares off the map count as solid on such seams, so a line
//! running along the map border next to a wall is blocked too. Interior squares of a line
//! between on-map corners are always on the map.
//!
//! The attacker's and the target's own squares never block or grant cover.
use crate::geometry::grid::{footprint, footprint_distance_squares, Cell, Grid};

/// Longest line [`straight_line`] produces, in squares (no on-map pair comes near it).
pub const MAX_LINE_SQUARES: usize = 1 << 20;

/// A lattice point: `x` = column line, `y` = row line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pt {
    x: i64,
    y: i64,
}

/// Corners of every square of a footprint: the `(side+1)²` lattice points of its rectangle.
fn footprint_corners(anchor: Cell, side: i32) -> Vec<Pt> {
    let s = i64::from(side.clamp(1, crate::geometry::grid::MAX_FOOTPRINT_SIDE));
    let (r0, c0) = (i64::from(anchor.row), i64::from(anchor.col));
    let mut out = Vec::with_capacity(((s + 1) * (s + 1)) as usize);
    for y in r0..=r0 + s {
        for x in c0..=c0 + s {
            out.push(Pt { x, y });
        }
    }
    out
}

/// The four corners of one square.
fn square_corners(c: Cell) -> [Pt; 4] {
    let (x, y) = (i64::from(c.col), i64::from(c.row));
    [
        Pt { x, y },
        Pt { x: x + 1, y },
        Pt { x, y: y + 1 },
        Pt { x: x + 1, y: y + 1 },
    ]
}

fn cell_at(row: i64, col: i64) -> Option<Cell> {
    Some(Cell::new(
        i32::try_from(row).ok()?,
        i32::try_from(col).ok()?,
    ))
}

/// The largest value a line from `p0` to `p1` meets: the value of every square whose open
/// interior it crosses, and for seams (shared edges, lattice points between diagonal squares)
/// the smaller value of the two squares on either side. `value(None)` is asked for squares off
/// the representable range; callers treat off-map squares as solid.
///
/// Integer arithmetic without division (see [`diagonal_walk`]).
fn line_max<F: Fn(Option<Cell>) -> u8>(p0: Pt, p1: Pt, value: &F) -> u8 {
    let (dx, dy) = (p1.x - p0.x, p1.y - p0.y);
    let v = |row: i64, col: i64| value(cell_at(row, col));
    // Pinch at an interior lattice point (X, Y) between diagonal squares on opposite sides.
    let pinch = |x: i64, y: i64, sx: i64, sy: i64| -> u8 {
        if sx == 0 || sy == 0 {
            // Axis-aligned: both diagonal pairs straddle the line.
            let a = v(y - 1, x - 1).min(v(y, x));
            let b = v(y - 1, x).min(v(y, x - 1));
            a.max(b)
        } else {
            // Sides: quadrants (sx, -sy) and (-sx, sy).
            let col = |q: i64| if q < 0 { x - 1 } else { x };
            let row = |q: i64| if q < 0 { y - 1 } else { y };
            v(row(-sy), col(sx)).min(v(row(sy), col(-sx)))
        }
    };
    let mut best = 0u8;
    if dx == 0 && dy == 0 {
        return 0;
    }
    if dy == 0 {
        // Horizontal, along row line y = p0.y: squares above (y-1) and below (y).
        let (lo, hi) = (p0.x.min(p1.x), p0.x.max(p1.x));
        for k in lo..hi {
            best = best.max(v(p0.y - 1, k).min(v(p0.y, k)));
        }
        for x in lo + 1..hi {
            best = best.max(pinch(x, p0.y, 1, 0));
        }
        return best;
    }
    if dx == 0 {
        let (lo, hi) = (p0.y.min(p1.y), p0.y.max(p1.y));
        for k in lo..hi {
            best = best.max(v(k, p0.x - 1).min(v(k, p0.x)));
        }
        for y in lo + 1..hi {
            best = best.max(pinch(p0.x, y, 0, 1));
        }
        return best;
    }
    let (sx, sy) = (dx.signum(), dy.signum());
    diagonal_walk((p0.x, p0.y), (dx, dy), |step| {
        match step {
            Crossing::Square { row, col } => best = best.max(v(row, col)),
            Crossing::Pinch { x, y } => best = best.max(pinch(x, y, sx, sy)),
        }
        true
    });
    best
}

/// What a segment that is not axis-aligned meets next ([`diagonal_walk`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Crossing {
    /// It crosses the open interior of the square at (row, col).
    Square { row: i64, col: i64 },
    /// It passes the interior lattice point (x, y) = (column line, row line).
    Pinch { x: i64, y: i64 },
}

/// Walks the segment from lattice point `p0 = (x, y)` by `(dx, dy)` (both non-zero), calling
/// `f` for each square whose interior it crosses and each interior lattice point it passes,
/// in order from `p0`, until `f` returns false; returns whether the walk reached the end.
///
/// Exact integer arithmetic without division: with `t ∈ [0, |dx|·|dy|]` along the segment,
/// it crosses its `i`-th column line (`x0 + sx·i`) at `t = i·|dy|` and its `j`-th row line at
/// `t = j·|dx|`. Between two consecutive crossings it lies inside one square: past `i − 1`
/// column lines and `j − 1` row lines, i.e. column `x0 + sx·(i − 1)` (`x0 − i` going left)
/// and row `y0 + sy·(j − 1)` (`y0 − j` going up). `e = i·|dy| − j·|dx|` orders the next two
/// crossings (`e = 0`: both at once, a lattice point); it stays within `±max(|dx|, |dy|)`.
/// The squares and points are the same as the midpoint rule's
/// (`⌊dx·(t₁+t₂) / 2D⌋` for the crossing pair `t₁ < t₂`) it replaces, without its 128-bit
/// divisions.
pub(crate) fn diagonal_walk(
    p0: (i64, i64),
    (dx, dy): (i64, i64),
    mut f: impl FnMut(Crossing) -> bool,
) -> bool {
    debug_assert!(dx != 0 && dy != 0);
    let (ax, ay) = (dx.abs(), dy.abs());
    let (sx, sy) = (dx.signum(), dy.signum());
    // The column (row) of the square before the i-th (j-th) crossing is col0 + sx·(i − 1).
    let col0 = if sx > 0 { p0.0 } else { p0.0 - 1 };
    let row0 = if sy > 0 { p0.1 } else { p0.1 - 1 };
    let (mut i, mut j) = (1i64, 1i64);
    let mut e = ay - ax;
    loop {
        let square = Crossing::Square {
            row: row0 + sy * (j - 1),
            col: col0 + sx * (i - 1),
        };
        if !f(square) {
            return false;
        }
        if i == ax && j == ay {
            return true;
        }
        let was = e;
        if was == 0 {
            let pinch = Crossing::Pinch {
                x: p0.0 + sx * i,
                y: p0.1 + sy * j,
            };
            if !f(pinch) {
                return false;
            }
        }
        if was <= 0 {
            i += 1;
            e += ay;
        }
        if was >= 0 {
            j += 1;
            e -= ax;
        }
    }
}

/// Value function over squares: 0 in either footprint, `solid` off the map, else `f(cell)`.
fn valued<'a, F: Fn(Cell) -> u8>(
    grid: &'a Grid,
    a: Cell,
    a_side: i32,
    b: Cell,
    b_side: i32,
    solid: u8,
    f: &'a F,
) -> impl Fn(Option<Cell>) -> u8 + 'a {
    // Each footprint as half-open row and column ranges (sides clamped as everywhere).
    let range = |anchor: Cell, side: i32| {
        let side = i64::from(side.clamp(1, crate::geometry::grid::MAX_FOOTPRINT_SIDE));
        let (r0, c0) = (i64::from(anchor.row), i64::from(anchor.col));
        (r0..r0 + side, c0..c0 + side)
    };
    let (fa, fb) = (range(a, a_side), range(b, b_side));
    move |c: Option<Cell>| match c {
        None => solid,
        Some(c) => {
            let (r, col) = (i64::from(c.row), i64::from(c.col));
            let inside = |(rows, cols): &(std::ops::Range<i64>, std::ops::Range<i64>)| {
                rows.contains(&r) && cols.contains(&col)
            };
            if inside(&fa) || inside(&fb) {
                0
            } else if !grid.in_bounds(c) {
                solid
            } else {
                f(c)
            }
        }
    }
}

/// Terrain cover value of one on-map square: its cover bonus, at least 4 if it blocks LoE.
fn terrain_cover(grid: &Grid, c: Cell) -> u8 {
    let b = grid.cover_bonus_at(c);
    if b == 0 && grid.blocks_los_at(c) {
        4
    } else {
        b
    }
}

/// Whether some straight line from a corner of a square of footprint `a` to a corner of a
/// square of footprint `b` avoids every `blocks_los` square (CRB — Magic: Aiming a Spell —
/// Line of Effect: "a straight, unblocked path … canceled by a solid barrier"; CRB — Combat:
/// Cover, Total Cover). Footprints are anchored top-left with `side` squares (1 = one square).
/// Overlapping or adjacent footprints always have line of effect.
pub fn has_line_of_effect(grid: &Grid, a: Cell, a_side: i32, b: Cell, b_side: i32) -> bool {
    if footprint_distance_squares(a, a_side, b, b_side) <= 1 {
        return true;
    }
    // Single squares on the map: the per-encounter cache (terrain is static).
    if a_side == 1 && b_side == 1 && grid.in_bounds(a) && grid.in_bounds(b) {
        let cols = grid.cols as usize;
        let cells = grid.rows as usize * cols;
        let index = |c: Cell| c.row as usize * cols + c.col as usize;
        let cached = grid.loe_cache.get(index(a), index(b), cells, |t| {
            let to = Cell::new((t / cols) as i32, (t % cols) as i32);
            line_of_effect_uncached(grid, a, 1, to, 1)
        });
        if let Some(v) = cached {
            return v;
        }
    }
    line_of_effect_uncached(grid, a, a_side, b, b_side)
}

/// [`has_line_of_effect`] computed from the geometry, without the cache.
fn line_of_effect_uncached(grid: &Grid, a: Cell, a_side: i32, b: Cell, b_side: i32) -> bool {
    if footprint_distance_squares(a, a_side, b, b_side) <= 1 {
        return true;
    }
    let block = |c: Cell| u8::from(grid.blocks_los_at(c));
    let value = valued(grid, a, a_side, b, b_side, 1, &block);
    let targets = footprint_corners(b, b_side);
    footprint_corners(a, a_side)
        .into_iter()
        .any(|p| targets.iter().any(|&q| line_max(p, q, &value) == 0))
}

/// How cover is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoverMode {
    /// Ranged (and reach melee): attacker picks its best corner; target cover if any line from
    /// that corner to any corner of the target square passes through a cover square.
    Ranged,
    /// Melee against an adjacent target: cover if any line from any corner of the attacker's
    /// square to the target square passes through a wall.
    MeleeAdjacent,
}

/// Ranged corner rule with a value function: for each attacker square and each of its four
/// corners, the max over lines to every corner of every target square; min over all of those.
fn best_corner_score<F: Fn(Option<Cell>) -> u8>(
    a: Cell,
    a_side: i32,
    b: Cell,
    b_side: i32,
    value: &F,
) -> u8 {
    let targets = footprint_corners(b, b_side);
    let mut best = u8::MAX;
    for p in footprint_corners(a, a_side) {
        let worst = targets
            .iter()
            .map(|&q| line_max(p, q, value))
            .max()
            .unwrap_or(0);
        best = best.min(worst);
        if best == 0 {
            return 0;
        }
    }
    if best == u8::MAX {
        0
    } else {
        best
    }
}

/// Terrain cover bonus (0, 2, 4 or 8) the target gets against the attacker
/// (CRB — Combat: Cover; levels from the map's `cover_bonus`: partial +2, standard +4,
/// improved +8; a `blocks_los` square without `cover_bonus` counts +4).
///
/// - [`CoverMode::Ranged`]: the attacker picks its best corner ("choose a corner of your
///   square"): for each attacker square and corner, the largest cover met by the lines from
///   that corner to every corner of every target square; the result is the smallest such
///   score over the attacker's corners and squares (a multi-square target counts all its
///   squares, the seed's "maximum over the target's corners").
/// - [`CoverMode::MeleeAdjacent`]: "your target has cover if any line from any corner of your
///   square to the target's square goes through a wall": for each pair of adjacent attacker
///   and target squares, the largest cover over the 16 corner-to-corner lines; the result is
///   the smallest over such pairs (CRB — Combat: Big Creatures and Cover). If no squares are
///   adjacent (reach), falls back to the ranged rule, as the CRB directs.
///
/// Does not decide total cover: check [`has_line_of_effect`] first. Single squares on the map
/// are answered from the per-encounter cache (terrain is static).
pub fn terrain_cover_bonus(
    grid: &Grid,
    attacker: Cell,
    a_side: i32,
    target: Cell,
    t_side: i32,
    mode: CoverMode,
) -> u8 {
    if a_side == 1 && t_side == 1 && grid.in_bounds(attacker) && grid.in_bounds(target) {
        let cols = grid.cols as usize;
        let index = |c: Cell| c.row as usize * cols + c.col as usize;
        let m = usize::from(mode == CoverMode::MeleeAdjacent);
        let cached = grid.cover_cache.get(index(attacker), index(target), m, || {
            terrain_cover_bonus_uncached(grid, attacker, 1, target, 1, mode)
        });
        if let Some(v) = cached {
            return v;
        }
    }
    terrain_cover_bonus_uncached(grid, attacker, a_side, target, t_side, mode)
}

/// [`terrain_cover_bonus`] computed from the geometry, without the cache.
fn terrain_cover_bonus_uncached(
    grid: &Grid,
    attacker: Cell,
    a_side: i32,
    target: Cell,
    t_side: i32,
    mode: CoverMode,
) -> u8 {
    let tc = |c: Cell| terrain_cover(grid, c);
    let value = valued(grid, attacker, a_side, target, t_side, 8, &tc);
    if mode == CoverMode::MeleeAdjacent {
        let mut best: Option<u8> = None;
        for sa in footprint(attacker, a_side) {
            for sb in footprint(target, t_side) {
                let (dr, dc) = (
                    (i64::from(sa.row) - i64::from(sb.row)).abs(),
                    (i64::from(sa.col) - i64::from(sb.col)).abs(),
                );
                if dr.max(dc) != 1 {
                    continue;
                }
                let mut score = 0u8;
                for p in square_corners(sa) {
                    for q in square_corners(sb) {
                        score = score.max(line_max(p, q, &value));
                    }
                }
                best = Some(best.map_or(score, |b| b.min(score)));
            }
        }
        if let Some(b) = best {
            return b;
        }
    }
    best_corner_score(attacker, a_side, target, t_side, &value)
}

/// Soft cover (+4 vs ranged): whether a creature square (`occupied(cell)` true) lies on the
/// lines from the attacker's best corner to the target (CRB — Combat: Soft Cover). Same
/// corner rule as [`CoverMode::Ranged`], counting squares where `occupied` is true (outside
/// both footprints) instead of terrain: true if even the attacker's best corner has a line
/// through a creature's square.
pub fn soft_cover(
    grid: &Grid,
    attacker: Cell,
    a_side: i32,
    target: Cell,
    t_side: i32,
    occupied: &dyn Fn(Cell) -> bool,
) -> bool {
    let occ = |c: Cell| u8::from(occupied(c));
    let value = valued(grid, attacker, a_side, target, t_side, 1, &occ);
    best_corner_score(attacker, a_side, target, t_side, &value) > 0
}

/// The rectangle of squares (top-left and bottom-right, inclusive) outside of which no line
/// between a corner of footprint `a` and a corner of footprint `b` looks at a square: the
/// footprints' bounding box grown by one square on every side (a line along an edge or
/// through a lattice point looks at the squares on both sides). [`soft_cover`] and
/// [`terrain_cover_bonus`] ask their value of no square outside it.
pub fn lines_box(a: Cell, a_side: i32, b: Cell, b_side: i32) -> (Cell, Cell) {
    let max = crate::geometry::grid::MAX_FOOTPRINT_SIDE;
    let (sa, sb) = (a_side.clamp(1, max), b_side.clamp(1, max));
    (
        Cell::new(a.row.min(b.row) - 1, a.col.min(b.col) - 1),
        Cell::new((a.row + sa).max(b.row + sb), (a.col + sa).max(b.col + sb)),
    )
}

/// Whether a line between a corner of footprint `a` and a corner of footprint `b` can look at
/// square `s` at all (false: [`soft_cover`] and [`terrain_cover_bonus`] never ask its value).
/// Every such line lies in the convex hull of the two footprints, and a square it looks at
/// (crossed, or beside it on a seam) shares a point with it. Outside [`lines_box`]: false.
/// Footprints of one size `k`: the hull is the segment between the anchors swept by the
/// `k × k` square, so the closed square `s` meets it exactly when that segment meets
/// `[s.col − k, s.col + 1] × [s.row − k, s.row + 1]` (exact integer test). Other sizes: true
/// inside the box.
pub fn lines_may_touch(a: Cell, a_side: i32, b: Cell, b_side: i32, s: Cell) -> bool {
    let (lo, hi) = lines_box(a, a_side, b, b_side);
    if s.row < lo.row || s.row > hi.row || s.col < lo.col || s.col > hi.col {
        return false;
    }
    let max = crate::geometry::grid::MAX_FOOTPRINT_SIDE;
    let k = i64::from(a_side.clamp(1, max));
    if k != i64::from(b_side.clamp(1, max)) {
        return true;
    }
    let (px, py) = (i64::from(a.col), i64::from(a.row));
    let (qx, qy) = (i64::from(b.col), i64::from(b.row));
    let (x0, x1) = (i64::from(s.col) - k, i64::from(s.col) + 1);
    let (y0, y1) = (i64::from(s.row) - k, i64::from(s.row) + 1);
    if px.max(qx) < x0 || px.min(qx) > x1 || py.max(qy) < y0 || py.min(qy) > y1 {
        return false;
    }
    // The segment's line misses the box only if every corner lies strictly on one side.
    let (dx, dy) = (qx - px, qy - py);
    let side = |x: i64, y: i64| (dx * (y - py) - dy * (x - px)).signum();
    let sides = [side(x0, y0), side(x0, y1), side(x1, y0), side(x1, y1)];
    !(sides.iter().all(|&v| v > 0) || sides.iter().all(|&v| v < 0))
}

/// Squares of a straight line from `a` to `b` (Bresenham), excluding `a`, including `b`.
/// Deterministic; used for charge and run paths (CRB — Combat: Charge, Run). Lines longer than
/// [`MAX_LINE_SQUARES`] are truncated.
pub fn straight_line(a: Cell, b: Cell) -> Vec<Cell> {
    straight_line_iter(a, b).collect()
}

/// The squares of [`straight_line`] one by one, without allocating.
pub fn straight_line_iter(a: Cell, b: Cell) -> impl Iterator<Item = Cell> {
    let (x1, y1) = (i64::from(b.col), i64::from(b.row));
    let (mut x, mut y) = (i64::from(a.col), i64::from(a.row));
    let dx = (x1 - x).abs();
    let dy = -(y1 - y).abs();
    let sx = if x < x1 { 1 } else { -1 };
    let sy = if y < y1 { 1 } else { -1 };
    let mut err = dx + dy;
    let mut n = 0usize;
    std::iter::from_fn(move || {
        if (x, y) == (x1, y1) || n >= MAX_LINE_SQUARES {
            return None;
        }
        let e2 = 2 * err;
        if e2 >= dy {
            err += dy;
            x += sx;
        }
        if e2 <= dx {
            err += dx;
            y += sy;
        }
        n += 1;
        // Every step stays between a and b, so it fits in i32.
        Some(Cell::new(y as i32, x as i32))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::map::MapSpec;

    /// `.` floor, `#` wall (blocks LoE, +4), `C` pillar (+4), `W` ruin (+2), `I` (+8).
    fn grid_of(rows: &[&str]) -> Grid {
        let mut text = String::from("name: t\nterrain: |\n");
        for r in rows {
            text.push_str(&format!("  {r}\n"));
        }
        text.push_str(
            "legend:\n  \".\": { type: floor, move_cost: 1 }\n  \"#\": { type: wall, move_cost: null, blocks_los: true }\n  \"C\": { type: pillar, move_cost: null, cover: true }\n  \"W\": { type: ruin, move_cost: null, cover_bonus: 2 }\n  \"I\": { type: fortress, move_cost: null, cover_bonus: 8 }\n",
        );
        Grid::from_map(&MapSpec::from_yaml_str(&text, "test").unwrap())
    }

    fn c(r: i32, col: i32) -> Cell {
        Cell::new(r, col)
    }

    fn walls(grid: &Grid) -> impl Fn(Option<Cell>) -> u8 + '_ {
        move |c: Option<Cell>| match c {
            Some(c) if grid.in_bounds(c) => u8::from(grid.blocks_los_at(c)),
            _ => 1,
        }
    }

    fn pt(x: i64, y: i64) -> Pt {
        Pt { x, y }
    }

    // CRB — Magic: Line of Effect: a solid barrier cancels it.
    #[test]
    fn wall_between_blocks_line_of_effect() {
        let g = grid_of(&["..#..", "..#..", "..#..", "..#..", "..#.."]);
        assert!(!has_line_of_effect(&g, c(2, 0), 1, c(2, 4), 1));
        assert!(!has_line_of_effect(&g, c(0, 0), 1, c(4, 4), 1));
        assert!(has_line_of_effect(&g, c(0, 0), 1, c(4, 1), 1));
        // A wall across the map, lines along its seams or the map border don't leak.
        let g = grid_of(&["...", "...", "###", "...", "..."]);
        for col in 0..3 {
            assert!(!has_line_of_effect(&g, c(0, col), 1, c(4, col), 1));
        }
    }

    // CRB — Combat: Cover: a line touching only a corner or running along an edge of a single
    // blocking square is not blocked by it.
    #[test]
    fn line_grazing_a_wall_corner_does_not_block() {
        // Single wall at (0,1): the line (0,0)→(2,2) touches its corner (1,1) only.
        let g = grid_of(&[".#.", "...", "..."]);
        assert_eq!(line_max(pt(0, 0), pt(2, 2), &walls(&g)), 0);
        // Along its bottom edge.
        assert_eq!(line_max(pt(0, 1), pt(3, 1), &walls(&g)), 0);
        // Through its interior.
        assert_eq!(line_max(pt(0, 0), pt(3, 1), &walls(&g)), 1);
        // Walls on both sides of the corner: the line cannot slip between them.
        let g = grid_of(&[".#.", "#..", "..."]);
        assert_eq!(line_max(pt(0, 0), pt(2, 2), &walls(&g)), 1);
        // Along the seam of two walls side by side.
        let g = grid_of(&["##.", "...", "..."]);
        assert_eq!(line_max(pt(1, 0), pt(1, 3), &walls(&g)), 1);
        // LoE past a lone wall corner: (0,0) to (2,2) with the wall at (1,1).
        let g = grid_of(&["...", ".#.", "..."]);
        assert!(has_line_of_effect(&g, c(0, 0), 1, c(2, 2), 1));
    }

    #[test]
    fn adjacent_and_overlapping_always_have_line_of_effect() {
        let g = grid_of(&["#.#", ".#.", "#.#"]);
        assert!(has_line_of_effect(&g, c(0, 1), 1, c(1, 0), 1));
        assert!(has_line_of_effect(&g, c(0, 1), 1, c(0, 1), 1));
        // A single wall square between: lines along its faces still pass.
        assert!(has_line_of_effect(&g, c(0, 1), 1, c(2, 1), 1));
        let g = grid_of(&["#.#", "###", "#.#"]);
        assert!(has_line_of_effect(&g, c(0, 1), 1, c(1, 0), 1));
        assert!(!has_line_of_effect(&g, c(0, 1), 1, c(2, 1), 1));
    }

    // CRB — Combat: Big and Little Creatures: a Large creature is seen if any of its squares is.
    #[test]
    fn large_target_partially_visible_has_line_of_effect() {
        let g = grid_of(&[".....", "##...", "##...", ".....", "....."]);
        // 1×1 targets fully hidden behind the wall block.
        assert!(!has_line_of_effect(&g, c(0, 0), 1, c(3, 0), 1));
        assert!(!has_line_of_effect(&g, c(0, 0), 1, c(3, 1), 1));
        assert!(!has_line_of_effect(&g, c(0, 0), 1, c(3, 2), 1));
        // The Large target anchored at (3,2) pokes out: its square (3,3) is in sight.
        assert!(has_line_of_effect(&g, c(0, 0), 1, c(3, 3), 1));
        assert!(has_line_of_effect(&g, c(0, 0), 1, c(3, 2), 2));
    }

    // CRB — Combat: Cover: a pillar between gives +4 (standard cover).
    #[test]
    fn pillar_gives_standard_cover() {
        let g = grid_of(&[".....", ".....", "..C..", ".....", "....."]);
        assert_eq!(
            terrain_cover_bonus(&g, c(2, 0), 1, c(2, 4), 1, CoverMode::Ranged),
            4
        );
        // A wall square (blocks_los, no cover_bonus) also counts +4.
        let g = grid_of(&[".....", ".....", "..#..", ".....", "....."]);
        assert_eq!(
            terrain_cover_bonus(&g, c(2, 0), 1, c(2, 4), 1, CoverMode::Ranged),
            4
        );
        // Nothing between: no cover.
        let g = grid_of(&["....."; 5]);
        assert_eq!(
            terrain_cover_bonus(&g, c(2, 0), 1, c(2, 4), 1, CoverMode::Ranged),
            0
        );
    }

    // CRB — Combat: Cover: partial cover +2, improved cover +8 (map `cover_bonus`).
    #[test]
    fn cover_bonus_levels_2_and_8() {
        let g = grid_of(&[".....", ".....", "..W..", ".....", "....."]);
        assert_eq!(
            terrain_cover_bonus(&g, c(2, 0), 1, c(2, 4), 1, CoverMode::Ranged),
            2
        );
        let g = grid_of(&[".....", ".....", "..I..", ".....", "....."]);
        assert_eq!(
            terrain_cover_bonus(&g, c(2, 0), 1, c(2, 4), 1, CoverMode::Ranged),
            8
        );
        // Several cover squares: the largest on the line counts.
        let g = grid_of(&[".....", ".....", ".WI..", ".....", "....."]);
        assert_eq!(
            terrain_cover_bonus(&g, c(2, 0), 1, c(2, 4), 1, CoverMode::Ranged),
            8
        );
    }

    // CRB — Combat: Cover: "choose a corner of your square" — the attacker's best corner.
    #[test]
    fn attacker_picks_a_corner_that_avoids_cover() {
        let g = grid_of(&[".C...", ".....", "....."]);
        let tc = |x: Cell| terrain_cover(&g, x);
        let value = valued(&g, c(1, 0), 1, c(0, 4), 1, 8, &tc);
        let corner_score = |p: Pt| {
            square_corners(c(0, 4))
                .iter()
                .map(|&q| line_max(p, q, &value))
                .max()
                .unwrap()
        };
        // From the attacker's top-right corner some line crosses the pillar…
        assert_eq!(corner_score(pt(1, 1)), 4);
        // …but its bottom-right corner sees the whole target square.
        assert_eq!(corner_score(pt(1, 2)), 0);
        assert_eq!(
            terrain_cover_bonus(&g, c(1, 0), 1, c(0, 4), 1, CoverMode::Ranged),
            0
        );
    }

    // CRB — Combat: Cover: adjacent melee, any line through a wall gives cover.
    #[test]
    fn adjacent_melee_with_wall_corner_between_gives_cover() {
        let g = grid_of(&[".#.", "...", "..."]);
        // Attacker (1,1) hits (0,0) diagonally past the wall corner at (0,1).
        assert_eq!(
            terrain_cover_bonus(&g, c(1, 1), 1, c(0, 0), 1, CoverMode::MeleeAdjacent),
            4
        );
        // The ranged rule would let the attacker use the shared corner: no cover.
        assert_eq!(
            terrain_cover_bonus(&g, c(1, 1), 1, c(0, 0), 1, CoverMode::Ranged),
            0
        );
        // Orthogonally adjacent: no line leaves the two squares.
        assert_eq!(
            terrain_cover_bonus(&g, c(1, 0), 1, c(0, 0), 1, CoverMode::MeleeAdjacent),
            0
        );
        // Not adjacent (reach): falls back to the ranged rule.
        let g = grid_of(&["...", ".C.", "..."]);
        assert_eq!(
            terrain_cover_bonus(&g, c(0, 1), 1, c(2, 1), 1, CoverMode::MeleeAdjacent),
            terrain_cover_bonus(&g, c(0, 1), 1, c(2, 1), 1, CoverMode::Ranged)
        );
    }

    // CRB — Combat: Big Creatures and Cover: a multi-square target counts every square for
    // ranged attacks (seed: maximum over the target's corners); in adjacent melee the attacker
    // picks the best pair of adjacent squares.
    #[test]
    fn multi_square_target_cover() {
        let g = grid_of(&["......", "...C..", "......", "......", "......", "......"]);
        assert_eq!(
            terrain_cover_bonus(&g, c(0, 0), 1, c(2, 2), 2, CoverMode::Ranged),
            4
        );
        assert_eq!(
            terrain_cover_bonus(&g, c(0, 0), 1, c(2, 2), 1, CoverMode::Ranged),
            0
        );
        // Large attacker at (0,0) next to Large target at (0,2); a wall corner at (2,1)
        // would only matter for the lower pair, the upper pair is clear.
        let g = grid_of(&["......", "......", ".#....", "......"]);
        assert_eq!(
            terrain_cover_bonus(&g, c(0, 0), 2, c(0, 2), 2, CoverMode::MeleeAdjacent),
            0
        );
    }

    // CRB — Combat: Soft Cover: creatures between attacker and target give +4 vs ranged.
    #[test]
    fn soft_cover_from_a_creature_between() {
        let g = grid_of(&["....."; 5]);
        let between = |x: Cell| x == c(2, 2);
        assert!(soft_cover(&g, c(2, 0), 1, c(2, 4), 1, &between));
        let aside = |x: Cell| x == c(0, 2);
        assert!(!soft_cover(&g, c(2, 0), 1, c(2, 4), 1, &aside));
        // The attacker's and target's own squares never count.
        assert!(!soft_cover(&g, c(2, 1), 1, c(2, 2), 1, &|_| true));
        assert!(!soft_cover(&g, c(2, 0), 1, c(2, 4), 1, &|x| {
            x == c(2, 0) || x == c(2, 4)
        }));
        // Soft cover is independent of terrain cover.
        let g = grid_of(&[".....", ".....", "..C..", ".....", "....."]);
        assert!(!soft_cover(&g, c(2, 0), 1, c(2, 4), 1, &|_| false));
    }

    // CRB — Combat: Charge ("move in a straight line"): Bresenham squares, b included.
    #[test]
    fn straight_line_bresenham() {
        assert_eq!(straight_line(c(0, 0), c(0, 0)), vec![]);
        assert_eq!(
            straight_line(c(0, 0), c(0, 3)),
            vec![c(0, 1), c(0, 2), c(0, 3)]
        );
        assert_eq!(
            straight_line(c(0, 0), c(3, 3)),
            vec![c(1, 1), c(2, 2), c(3, 3)]
        );
        assert_eq!(
            straight_line(c(3, 0), c(0, 0)),
            vec![c(2, 0), c(1, 0), c(0, 0)]
        );
        let l = straight_line(c(0, 0), c(2, 5));
        assert_eq!(l.len(), 5);
        assert_eq!(*l.last().unwrap(), c(2, 5));
        assert_eq!(l, straight_line(c(0, 0), c(2, 5)));
        for w in std::iter::once(c(0, 0))
            .chain(l.iter().copied())
            .collect::<Vec<_>>()
            .windows(2)
        {
            assert!((w[0].row - w[1].row).abs() <= 1 && (w[0].col - w[1].col).abs() <= 1);
        }
        assert_eq!(
            straight_line(c(i32::MIN, 0), c(i32::MAX, 0)).len(),
            MAX_LINE_SQUARES
        );
    }

    #[test]
    fn extreme_inputs_do_not_panic() {
        let g = grid_of(&["..", ".."]);
        let _ = has_line_of_effect(&g, c(-50, -50), 3, c(70, 70), 2);
        let _ = terrain_cover_bonus(&g, c(-3, 0), 0, c(5, 5), 99, CoverMode::Ranged);
        let _ = terrain_cover_bonus(&g, c(0, 0), 1, c(0, 1), 1, CoverMode::MeleeAdjacent);
        let _ = soft_cover(&g, c(9, 9), 1, c(-9, -9), 1, &|_| true);
    }
}

#[cfg(test)]
mod cache_tests {
    use super::*;
    use crate::content::map::MapSpec;

    /// The line-of-effect cache agrees with the geometry for every pair of squares.
    #[test]
    fn cached_line_of_effect_matches_geometry() {
        let text = "name: t\nterrain: |\n  ..........\n  ..##......\n  ....#..C..\n  ......##..\n  ..........\nlegend:\n  \".\": { type: floor, move_cost: 1 }\n  \"#\": { type: wall, move_cost: null, blocks_los: true }\n  \"C\": { type: pillar, move_cost: null, cover: true }\n";
        let grid = Grid::from_map(&MapSpec::from_yaml_str(text, "t").unwrap());
        let mut blocked = 0;
        for a in 0..50 {
            for b in 0..50 {
                let (ca, cb) = (Cell::new(a / 10, a % 10), Cell::new(b / 10, b % 10));
                let cached = has_line_of_effect(&grid, ca, 1, cb, 1);
                assert_eq!(
                    cached,
                    line_of_effect_uncached(&grid, ca, 1, cb, 1),
                    "{ca} {cb}"
                );
                blocked += usize::from(!cached);
            }
        }
        assert!(blocked > 0, "the walls block some lines");
    }
}

#[cfg(test)]
mod cover_cache_tests {
    use super::*;
    use crate::content::map::MapSpec;

    /// The terrain cover cache agrees with the geometry for every pair of squares in both
    /// modes, on first use and from the cache.
    #[test]
    fn cached_terrain_cover_matches_geometry() {
        let text = "name: t\nterrain: |\n  ..........\n  ..##..W...\n  ....#..C..\n  .I....##..\n  ...W......\nlegend:\n  \".\": { type: floor, move_cost: 1 }\n  \"#\": { type: wall, move_cost: null, blocks_los: true }\n  \"C\": { type: pillar, move_cost: null, cover: true }\n  \"W\": { type: ruin, move_cost: null, cover_bonus: 2 }\n  \"I\": { type: fortress, move_cost: null, cover_bonus: 8 }\n";
        let grid = Grid::from_map(&MapSpec::from_yaml_str(text, "t").unwrap());
        let mut seen = [0usize; 9];
        for pass in 0..2 {
            for a in 0..50 {
                for b in 0..50 {
                    let (ca, cb) = (Cell::new(a / 10, a % 10), Cell::new(b / 10, b % 10));
                    for mode in [CoverMode::Ranged, CoverMode::MeleeAdjacent] {
                        let cached = terrain_cover_bonus(&grid, ca, 1, cb, 1, mode);
                        let geometry = terrain_cover_bonus_uncached(&grid, ca, 1, cb, 1, mode);
                        assert_eq!(cached, geometry, "pass {pass}: {ca} {cb} {mode:?}");
                        seen[usize::from(cached)] += 1;
                    }
                }
            }
        }
        assert!(
            seen[0] > 0 && seen[2] > 0 && seen[4] > 0 && seen[8] > 0,
            "every cover level occurs: {seen:?}"
        );
    }

    /// No line between two footprints asks about a square outside [`lines_box`], so soft cover
    /// from only the creatures inside it equals soft cover from all of them (random
    /// footprints, sizes and occupied squares).
    #[test]
    fn soft_cover_looks_only_where_lines_may_touch() {
        let grid = Grid::from_map(
            &MapSpec::from_yaml_str(
                "name: t\nterrain: |\n  ............\n  ............\n  ............\n  ............\n  ............\n  ............\n  ............\n  ............\n  ............\n  ............\nlegend:\n  \".\": { type: floor, move_cost: 1 }\n",
                "t",
            )
            .unwrap(),
        );
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(14);
        let (mut soft, mut pruned) = (0, 0);
        for _ in 0..3000 {
            let mut pick = |n: i32| rng.gen_range(0..n);
            let sa = 1 + pick(3);
            // Equal sizes half the time (the exact hull test), else any sizes (the box).
            let sb = if pick(2) == 0 { sa } else { 1 + pick(3) };
            let a = Cell::new(pick(10), pick(10));
            let b = Cell::new(pick(10), pick(10));
            let occupied: Vec<Cell> = (0..pick(6))
                .map(|_| Cell::new(pick(12), pick(12)))
                .collect();
            let (lo, hi) = lines_box(a, sa, b, sb);
            let may = |c: Cell| lines_may_touch(a, sa, b, sb, c);
            let in_box =
                |c: Cell| c.row >= lo.row && c.row <= hi.row && c.col >= lo.col && c.col <= hi.col;
            let checked = |c: Cell| {
                assert!(
                    may(c) && in_box(c),
                    "{c} asked, ruled out ({lo}..{hi}; {a}x{sa} to {b}x{sb})"
                );
            };
            // Every square any line looks at (all occupied: no early end on a clear corner).
            let _ = soft_cover(&grid, a, sa, b, sb, &|c| {
                checked(c);
                true
            });
            let all = soft_cover(&grid, a, sa, b, sb, &|c| {
                checked(c);
                occupied.contains(&c)
            });
            let kept: Vec<Cell> = occupied.iter().copied().filter(|&c| may(c)).collect();
            assert_eq!(all, soft_cover(&grid, a, sa, b, sb, &|c| kept.contains(&c)));
            pruned += occupied.len() - kept.len();
            soft += usize::from(all);
        }
        assert!(
            soft > 0 && pruned > 0,
            "soft cover {soft}, creatures ruled out {pruned}"
        );
    }
}

#[cfg(test)]
mod walk_tests {
    use super::*;

    fn floor_div(a: i128, b: i128) -> i128 {
        let q = a / b;
        if (a % b != 0) && ((a < 0) != (b < 0)) {
            q - 1
        } else {
            q
        }
    }

    /// The midpoint rule `diagonal_walk` replaced (128-bit divisions): the square holding the
    /// midpoint of each pair of consecutive crossings, and each interior lattice point.
    fn midpoint_walk(p0: (i64, i64), (dx, dy): (i64, i64), limit: usize) -> Vec<Crossing> {
        let mut out = Vec::new();
        let (ax, ay) = (i128::from(dx.abs()), i128::from(dy.abs()));
        let d = ax * ay;
        let (x0, y0) = (i128::from(p0.0), i128::from(p0.1));
        let (dx, dy) = (i128::from(dx), i128::from(dy));
        let (mut i, mut j, mut prev) = (1i128, 1i128, 0i128);
        loop {
            let tv = if i < ax { i * ay } else { d };
            let th = if j < ay { j * ax } else { d };
            let next = tv.min(th);
            let m = prev + next;
            out.push(Crossing::Square {
                row: (y0 + floor_div(dy * m, 2 * d)) as i64,
                col: (x0 + floor_div(dx * m, 2 * d)) as i64,
            });
            if next >= d || out.len() >= limit {
                return out;
            }
            if tv == th {
                out.push(Crossing::Pinch {
                    x: (x0 + dx * next / d) as i64,
                    y: (y0 + dy * next / d) as i64,
                });
            }
            if tv == next {
                i += 1;
            }
            if th == next {
                j += 1;
            }
            prev = next;
        }
    }

    /// The division-free walk meets exactly the squares and lattice points of the midpoint
    /// rule, in the same order, for every segment with |dx|, |dy| ≤ 24 from points on both
    /// sides of the origin, and for segments near the ends of the `i32` range.
    #[test]
    fn diagonal_walk_equals_the_midpoint_rule() {
        let mut n = 0;
        for p0 in [(0, 0), (-3, 5), (7, -2)] {
            for dx in -24i64..=24 {
                for dy in -24i64..=24 {
                    if dx == 0 || dy == 0 {
                        continue;
                    }
                    let mut got = Vec::new();
                    assert!(diagonal_walk(p0, (dx, dy), |c| {
                        got.push(c);
                        true
                    }));
                    assert_eq!(
                        got,
                        midpoint_walk(p0, (dx, dy), usize::MAX),
                        "{p0:?} ({dx}, {dy})"
                    );
                    n += 1;
                }
            }
        }
        let big = i64::from(i32::MAX);
        for (p0, d) in [
            ((-big, -big), (37, 2 * big)),
            ((big, 0), (-2 * big, 3)),
            ((0, big), (5, -7)),
        ] {
            let mut got = Vec::new();
            diagonal_walk(p0, d, |c| {
                got.push(c);
                got.len() < 200
            });
            let want = midpoint_walk(p0, d, 300);
            assert_eq!(got[..], want[..got.len()], "{p0:?} {d:?}");
        }
        assert!(n > 6000);
        // Stopping early: the walk reports it.
        assert!(!diagonal_walk((0, 0), (3, 2), |_| false));
    }
}
