//! The square grid: 5-10-5 distance, movement costs, the corner rule, Dijkstra fields.
//!
//! Units: every distance and cost here is in **squares** (one square = [`SQUARE_FT`] = 5 ft);
//! multiply by [`SQUARE_FT`] for feet.
//!
//! Rules (CRB — Combat: Measuring Distance, Moving Through a Square, Difficult Terrain):
//! - diagonals alternate 1 and 2 squares (5-10-5), the parity carried along a move;
//! - difficult terrain costs its `move_cost` orthogonally; a diagonal into difficult terrain
//!   costs `move_cost + 1` (3 squares for ordinary difficult terrain);
//! - you can't move diagonally past a corner; the engine's conservative reading requires both
//!   orthogonal squares cut past to be passable (documented simplification: isolated obstacles
//!   such as pits, which RAW lets you pass diagonally, are treated like corners too);
//! - allies' squares can be passed through but not ended in; opponents' squares block;
//! - climbing costs +1 square per elevation level gained (descending is free) — the seed's
//!   elevation rule, no SRD counterpart.
use crate::content::map::MapSpec;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Feet per square.
pub const SQUARE_FT: i32 = 5;

/// Largest footprint side handled (Colossal creatures are 6×6); larger values are clamped so
/// no input can allocate without bound. Sides below 1 are treated as 1.
pub const MAX_FOOTPRINT_SIDE: i32 = 16;

/// A square of the map, `(row, col)`, 0-based from the top-left. Serialized as `[row, col]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(from = "[i32; 2]", into = "[i32; 2]")]
pub struct Cell {
    /// Row, 0 at the top; one row = one 5-ft square.
    pub row: i32,
    /// Column, 0 at the left; one column = one 5-ft square.
    pub col: i32,
}
impl From<[i32; 2]> for Cell {
    fn from(v: [i32; 2]) -> Self {
        Cell {
            row: v[0],
            col: v[1],
        }
    }
}
impl From<Cell> for [i32; 2] {
    fn from(c: Cell) -> Self {
        [c.row, c.col]
    }
}
impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({},{})", self.row, self.col)
    }
}
impl Cell {
    /// The square at `row`, `col` (0-based, in squares).
    pub const fn new(row: i32, col: i32) -> Self {
        Cell { row, col }
    }
}

fn clamp_side(side: i32) -> i32 {
    side.clamp(1, MAX_FOOTPRINT_SIDE)
}

fn clamp_i32(v: i64) -> i32 {
    v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// 5-10-5 distance from row/column deltas (any sign), in squares.
fn distance_from_deltas(dr: i64, dc: i64) -> i32 {
    let (dr, dc) = (dr.abs(), dc.abs());
    clamp_i32(dr.max(dc) + dr.min(dc) / 2)
}

/// 5-10-5 distance in squares: `max + min/2` of the row/column deltas
/// (CRB — Combat: Measuring Distance: "the first diagonal counts as 1 square, the second
/// counts as 2 squares, the third counts as 1, the fourth as 2, and so on"). Feet = squares × 5.
pub fn distance_squares(a: Cell, b: Cell) -> i32 {
    distance_from_deltas(
        i64::from(a.row) - i64::from(b.row),
        i64::from(a.col) - i64::from(b.col),
    )
}

/// Cells of a square footprint of `side` squares anchored (top-left) at `anchor`, row-major
/// (CRB — Combat: Big and Little Creatures in Combat: Large 2×2, Huge 3×3, Gargantuan 4×4,
/// Colossal 6×6). `side` is clamped to `1..=`[`MAX_FOOTPRINT_SIDE`].
pub fn footprint(anchor: Cell, side: i32) -> Vec<Cell> {
    footprint_iter(anchor, side).collect()
}

/// The squares of [`footprint`] without allocating, in the same order.
pub fn footprint_iter(anchor: Cell, side: i32) -> impl Iterator<Item = Cell> {
    let side = clamp_side(side);
    (0..side).flat_map(move |dr| {
        (0..side)
            .map(move |dc| Cell::new(anchor.row.saturating_add(dr), anchor.col.saturating_add(dc)))
    })
}

/// Minimum 5-10-5 distance in squares between two footprints (minimum over every pair of
/// cells; CRB — Combat: Measuring Distance, Big and Little Creatures in Combat). 0 when they
/// overlap; 1 when adjacent.
pub fn footprint_distance_squares(a: Cell, a_side: i32, b: Cell, b_side: i32) -> i32 {
    // The distance is monotone in each axis gap, so the minimum is reached at the axis gaps.
    fn gap(a0: i32, a_side: i32, b0: i32, b_side: i32) -> i64 {
        let (a0, b0) = (i64::from(a0), i64::from(b0));
        let a1 = a0 + i64::from(clamp_side(a_side)) - 1;
        let b1 = b0 + i64::from(clamp_side(b_side)) - 1;
        (b0 - a1).max(a0 - b1).max(0)
    }
    distance_from_deltas(
        gap(a.row, a_side, b.row, b_side),
        gap(a.col, a_side, b.col, b_side),
    )
}

/// What a moving creature may do with a square (CRB — Combat: Moving Through a Square).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Passage {
    /// Free: may pass and stop.
    Free,
    /// Occupied by an ally: may pass through, may not stop.
    PassThrough,
    /// Occupied by an opponent: may not enter.
    Blocked,
}

/// Terrain arrays for fast look-ups, built once per map. Vectors are row-major,
/// index `row * cols + col`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Grid {
    /// Height in squares.
    pub rows: i32,
    /// Width in squares.
    pub cols: i32,
    /// Per cell: squares to enter (0 = impassable; map costs above 255 are clamped to 255).
    pub move_cost: Vec<u8>,
    /// Per cell: elevation level (0-9).
    pub elevation: Vec<i32>,
    /// Per cell: a solid barrier blocking line of effect.
    pub blocks_los: Vec<bool>,
    /// Cover bonus the cell grants (0 none, 2, 4, 8).
    pub cover_bonus: Vec<u8>,
    /// Line-of-effect cache between single squares: one lazily computed bit row per source
    /// square (terrain never changes during an encounter). Shared by every episode of the
    /// encounter; not serialized.
    #[serde(skip)]
    pub(crate) loe_cache: LoeCache,
    /// Terrain cover cache between single squares (both cover modes), filled pair by pair on
    /// first use; maps of at most [`COVER_CACHE_MAX_CELLS`] squares. Not serialized.
    #[serde(skip)]
    pub(crate) cover_cache: CoverCache,
    /// Movement steps of a mover of each footprint side (index `side − 1`), per anchor
    /// square, each built once from the arrays above on first use (terrain never changes
    /// during an encounter). Not serialized.
    #[serde(skip)]
    steps: [std::sync::OnceLock<StepTable>; MAX_FOOTPRINT_SIDE as usize],
    /// The terrain planes of the tensor observation (`tensor::build`), built once on first
    /// use. Not serialized.
    #[serde(skip)]
    pub(crate) terrain_planes: std::sync::OnceLock<Vec<f32>>,
    /// Straight run lines of a 1×1 mover, per start square, built on first use (maps of at
    /// most [`RUN_LINE_MAX_CELLS`] squares; none otherwise). Not serialized.
    #[serde(skip)]
    run_lines: Vec<std::sync::OnceLock<RunLines>>,
}

/// Maps with more squares keep no run-line table ([`Grid::run_lines_from`]): it holds one
/// line per pair of squares (about 10 KiB per start square at this size).
pub const RUN_LINE_MAX_CELLS: usize = 256;

/// The terrain part of every straight run line from one square (see
/// [`Grid::run_lines_from`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct RunLines {
    /// One per destination whose line is terrain-clear, in row-major destination order
    /// (found through `by_dest`).
    pub(crate) lines: Vec<RunLine>,
    /// The squares of every line (row-major indices), `cells[first..first + len]` per line.
    pub(crate) cells: Vec<u32>,
    /// Per destination square: its index in `lines`, `u32::MAX` when it has no clear line.
    pub(crate) by_dest: Vec<u32>,
}

impl RunLines {
    /// The clear line to `dest` (row-major index), if any.
    pub(crate) fn to(&self, dest: usize) -> Option<&RunLine> {
        let i = *self.by_dest.get(dest)?;
        self.lines.get(i as usize)
    }

    /// The squares of `line`, row-major indices, start excluded, destination last.
    pub(crate) fn cells_of(&self, line: &RunLine) -> &[u32] {
        &self.cells[line.first as usize..(line.first + line.len) as usize]
    }
}

/// A terrain-clear straight line from a start square.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunLine {
    /// 5-10-5 cost of the line in squares.
    pub(crate) cost: u32,
    pub(crate) first: u32,
    pub(crate) len: u32,
}

/// One legal terrain step of a mover (see [`StepTable`]).
#[derive(Debug, Clone, Copy)]
struct Step {
    /// Row-major index of the anchor square entered.
    to: u32,
    /// Cost in squares (terrain and climb) when the mover's 5-10-5 count is even / odd.
    cost: [u32; 2],
    /// A diagonal step (flips the 5-10-5 parity).
    diagonal: bool,
}

/// The terrain steps out of every anchor square for a mover of one footprint side, in
/// [`NEIGHBOURS`] order: the new footprint on the map and passable, the corner rule met,
/// costs precomputed (the most expensive newly entered square, [`Grid::step_cost`] rules).
/// Creatures are not in it: the search checks their squares separately.
#[derive(Debug, Clone, Default)]
struct StepTable {
    /// `steps[first[i]..first[i + 1]]` leave square `i`.
    first: Vec<u32>,
    steps: Vec<Step>,
    /// The largest cost of any step (squares; 0 when there is none).
    max_cost: u32,
}

/// Lazily filled line-of-effect bit rows (see [`Grid`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct LoeCache {
    rows: Vec<std::sync::OnceLock<Box<[u64]>>>,
}

impl LoeCache {
    fn new(cells: usize) -> Self {
        LoeCache {
            rows: (0..cells).map(|_| std::sync::OnceLock::new()).collect(),
        }
    }

    /// The cached bit for `from → to` (indices), computing `from`'s row with `compute` once.
    pub(crate) fn get(
        &self,
        from: usize,
        to: usize,
        cells: usize,
        compute: impl Fn(usize) -> bool,
    ) -> Option<bool> {
        let row = self.rows.get(from)?.get_or_init(|| {
            let mut bits = vec![0u64; cells.div_ceil(64)].into_boxed_slice();
            for t in 0..cells {
                if compute(t) {
                    bits[t / 64] |= 1 << (t % 64);
                }
            }
            bits
        });
        Some(row.get(to / 64)? & (1 << (to % 64)) != 0)
    }
}

/// Maps with more squares keep no terrain cover cache ([`CoverCache`]): a source square's row
/// takes two bytes per square of the map.
pub const COVER_CACHE_MAX_CELLS: usize = 4096;

/// Lazily filled terrain cover bonuses between single squares (see [`Grid`]): per source
/// square, a row allocated on first use with one byte per (target square, cover mode), each
/// computed on first use ([`CoverCache::EMPTY`] until then). The values are pure functions of
/// the terrain, so whichever thread fills an entry stores the same byte.
#[derive(Debug, Default)]
pub(crate) struct CoverCache {
    cells: usize,
    rows: Vec<std::sync::OnceLock<Box<[std::sync::atomic::AtomicU8]>>>,
}

impl Clone for CoverCache {
    /// A fresh, empty cache of the same size (the entries are derived data).
    fn clone(&self) -> Self {
        CoverCache::new(self.cells)
    }
}

impl CoverCache {
    /// Marks an entry not computed yet (cover bonuses are 0, 2, 4 or 8).
    const EMPTY: u8 = u8::MAX;

    fn new(cells: usize) -> Self {
        if cells > COVER_CACHE_MAX_CELLS {
            return CoverCache::default();
        }
        CoverCache {
            cells,
            rows: (0..cells).map(|_| std::sync::OnceLock::new()).collect(),
        }
    }

    /// The cached value for `from → to` (square indices) in cover mode `mode` (0 or 1),
    /// computing it with `compute` on first use; `None` when the cache does not cover the
    /// pair (a map too large, or an index off the map).
    pub(crate) fn get(
        &self,
        from: usize,
        to: usize,
        mode: usize,
        compute: impl FnOnce() -> u8,
    ) -> Option<u8> {
        use std::sync::atomic::{AtomicU8, Ordering};
        if to >= self.cells || mode > 1 {
            return None;
        }
        let row = self.rows.get(from)?.get_or_init(|| {
            (0..2 * self.cells)
                .map(|_| AtomicU8::new(Self::EMPTY))
                .collect()
        });
        let slot = &row[2 * to + mode];
        let v = slot.load(Ordering::Relaxed);
        if v != Self::EMPTY {
            return Some(v);
        }
        let v = compute();
        debug_assert_ne!(v, Self::EMPTY);
        slot.store(v, Ordering::Relaxed);
        Some(v)
    }
}

/// The eight neighbour offsets, in the fixed order used for deterministic tie-breaking.
const NEIGHBOURS: [(i32, i32); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

impl Grid {
    /// Terrain arrays from a validated map: per cell move cost (0 = impassable), elevation,
    /// `blocks_los` and the effective cover bonus ([`crate::content::map::TerrainType::effective_cover_bonus`]).
    /// Cells missing from a hand-built map are impassable and block line of effect.
    pub fn from_map(map: &MapSpec) -> Grid {
        let rows = map.rows.max(0);
        let cols = map.cols.max(0);
        let n = (rows as usize) * (cols as usize);
        let mut g = Grid {
            rows,
            cols,
            move_cost: Vec::with_capacity(n),
            elevation: Vec::with_capacity(n),
            blocks_los: Vec::with_capacity(n),
            cover_bonus: Vec::with_capacity(n),
            loe_cache: LoeCache::new(n),
            cover_cache: CoverCache::new(n),
            steps: Default::default(),
            terrain_planes: std::sync::OnceLock::new(),
            run_lines: Vec::new(),
        };
        for r in 0..rows {
            for c in 0..cols {
                let t = map.terrain_at(Cell::new(r, c));
                g.move_cost
                    .push(t.move_cost.map_or(0, |m| m.clamp(1, 255) as u8));
                g.elevation.push(
                    map.elevation
                        .get(r as usize)
                        .and_then(|row| row.get(c as usize))
                        .copied()
                        .unwrap_or(0),
                );
                g.blocks_los.push(t.blocks_los);
                g.cover_bonus.push(t.effective_cover_bonus());
            }
        }
        if n <= RUN_LINE_MAX_CELLS {
            g.run_lines = (0..n).map(|_| std::sync::OnceLock::new()).collect();
        }
        g
    }

    /// Drop the run-line table (kept empty from now on): for an encounter that serves a
    /// single episode, where a table built per start square would cost more memory (up to
    /// ~10 KiB per square) than the searches it saves.
    pub fn without_run_line_table(&mut self) {
        self.run_lines = Vec::new();
    }

    /// Every straight line a 1×1 mover could run from `start` (row-major index) that the
    /// terrain allows — each square on the map, passable, not difficult, each step allowed
    /// ([`Grid::step_cost`], corners included) — with its 5-10-5 cost; built once per start
    /// square and shared by every episode of the map (creatures are checked by the caller).
    /// `None` on maps of more than [`RUN_LINE_MAX_CELLS`] squares.
    pub(crate) fn run_lines_from(&self, start: usize) -> Option<&RunLines> {
        let slot = self.run_lines.get(start)?;
        Some(slot.get_or_init(|| {
            let cols = self.cols.max(1) as usize;
            let from = Cell::new((start / cols) as i32, (start % cols) as i32);
            let mut out = RunLines {
                by_dest: vec![u32::MAX; self.run_lines.len()],
                ..RunLines::default()
            };
            for dest in 0..self.run_lines.len() {
                if dest == start {
                    continue;
                }
                let to = Cell::new((dest / cols) as i32, (dest % cols) as i32);
                let first = out.cells.len();
                let cost = self.straight_line_cost(from, to, |c| {
                    out.cells.push(self.index(c).unwrap_or(0) as u32);
                    self.in_bounds(c) && self.passable(c) && !self.is_difficult(c)
                });
                if let Some(cost) = cost {
                    out.by_dest[dest] = out.lines.len() as u32;
                    out.lines.push(RunLine {
                        cost,
                        first: first as u32,
                        len: (out.cells.len() - first) as u32,
                    });
                } else {
                    out.cells.truncate(first);
                }
            }
            out
        }))
    }

    /// The 5-10-5 cost in squares of the straight line from `from` to `to`
    /// ([`crate::geometry::los::straight_line_iter`]: the start excluded, `to` last), stepping square
    /// by square under [`Grid::step_cost`]; `None` when a step is not allowed or `clear`
    /// (called once per square, in order, before its step is costed) refuses a square.
    pub fn straight_line_cost(
        &self,
        from: Cell,
        to: Cell,
        mut clear: impl FnMut(Cell) -> bool,
    ) -> Option<u32> {
        let (mut prev, mut cost, mut odd) = (from, 0u32, false);
        for c in crate::geometry::los::straight_line_iter(from, to) {
            if !clear(c) {
                return None;
            }
            let (k, o) = self.step_cost(prev, c, odd)?;
            cost += k;
            odd = o;
            prev = c;
        }
        Some(cost)
    }

    /// The step table of a mover of footprint `side` (clamped), built on first use: exactly
    /// the terrain tests and costs of the generic search ([`Grid::dijkstra_passages`] with a
    /// binary heap, kept for tests): the new footprint on the map and passable; for a
    /// diagonal, both orthogonal intermediate footprints too (the corner rule); the cost of
    /// the most expensive newly entered square ([`Grid::enter_cost`], climb from the square
    /// it comes from).
    fn step_table(&self, side: i32) -> &StepTable {
        let side = clamp_side(side);
        self.steps[(side - 1) as usize].get_or_init(|| {
            let cols = self.cols;
            let n = self.search_cells();
            let mut t = StepTable {
                first: Vec::with_capacity(n + 1),
                steps: Vec::new(),
                max_cost: 0,
            };
            for ai in 0..n {
                t.first.push(t.steps.len() as u32);
                let (r, c) = ((ai as i32) / cols, (ai as i32) % cols);
                for (dr, dc) in NEIGHBOURS {
                    let b = Cell::new(r + dr, c + dc);
                    let Some(bi) = self.index(b) else { continue };
                    if bi >= n || !self.footprint_on_terrain(b, side) {
                        continue;
                    }
                    let diagonal = dr != 0 && dc != 0;
                    if diagonal
                        && !(self.footprint_on_terrain(Cell::new(r + dr, c), side)
                            && self.footprint_on_terrain(Cell::new(r, c + dc), side))
                    {
                        continue;
                    }
                    // Most expensive newly entered square, for each 5-10-5 parity.
                    let cost = |odd: bool| {
                        let mut step = 0u32;
                        for fr in 0..side {
                            for fc in 0..side {
                                let x = Cell::new(b.row + fr, b.col + fc);
                                let old = (r..r + side).contains(&x.row)
                                    && (c..c + side).contains(&x.col);
                                if old {
                                    continue;
                                }
                                let src = Cell::new(x.row - dr, x.col - dc);
                                let k = self
                                    .enter_cost(src, x, diagonal, odd)
                                    .expect("the new footprint is passable terrain");
                                step = step.max(k);
                            }
                        }
                        step
                    };
                    t.steps.push(Step {
                        to: bi as u32,
                        cost: [cost(false), cost(true)],
                        diagonal,
                    });
                }
            }
            t.first.push(t.steps.len() as u32);
            t.max_cost = t
                .steps
                .iter()
                .map(|s| s.cost[0].max(s.cost[1]))
                .max()
                .unwrap_or(0);
            t
        })
    }

    /// Row-major index of an in-bounds cell.
    pub fn index(&self, c: Cell) -> Option<usize> {
        if self.in_bounds(c) {
            Some(c.row as usize * self.cols as usize + c.col as usize)
        } else {
            None
        }
    }

    /// Whether `c` lies on the map.
    pub fn in_bounds(&self, c: Cell) -> bool {
        (0..self.rows).contains(&c.row) && (0..self.cols).contains(&c.col)
    }

    /// Squares of movement to enter `c` (0 = impassable or off the map).
    pub fn move_cost_at(&self, c: Cell) -> u32 {
        self.index(c)
            .and_then(|i| self.move_cost.get(i))
            .map_or(0, |&m| u32::from(m))
    }

    /// In bounds and not impassable terrain.
    pub fn passable(&self, c: Cell) -> bool {
        self.move_cost_at(c) > 0
    }

    /// Move cost > 1 (difficult terrain; CRB — Combat: Difficult Terrain).
    pub fn is_difficult(&self, c: Cell) -> bool {
        self.move_cost_at(c) > 1
    }

    /// Elevation level of `c` (0 off the map).
    pub fn elevation(&self, c: Cell) -> i32 {
        self.index(c)
            .and_then(|i| self.elevation.get(i))
            .copied()
            .unwrap_or(0)
    }

    /// Whether `c` is a solid barrier for line of effect (off the map: false).
    pub fn blocks_los_at(&self, c: Cell) -> bool {
        self.index(c)
            .and_then(|i| self.blocks_los.get(i))
            .copied()
            .unwrap_or(false)
    }

    /// Cover bonus (0, 2, 4, 8) granted by the terrain of `c` (off the map: 0).
    pub fn cover_bonus_at(&self, c: Cell) -> u8 {
        self.index(c)
            .and_then(|i| self.cover_bonus.get(i))
            .copied()
            .unwrap_or(0)
    }

    /// Corner rule: a diagonal step `from → to` (adjacent diagonally) is allowed only when both
    /// orthogonal squares it cuts past are passable (CRB — Combat: Measuring Distance: "you
    /// can't move diagonally past a corner"). Conservative: isolated obstacles count as corners.
    /// A pair that is not a diagonal step has no corner to cut: `true`.
    pub fn diagonal_allowed(&self, from: Cell, to: Cell) -> bool {
        let dr = i64::from(to.row) - i64::from(from.row);
        let dc = i64::from(to.col) - i64::from(from.col);
        if dr.abs() != 1 || dc.abs() != 1 {
            return true;
        }
        self.passable(Cell::new(to.row, from.col)) && self.passable(Cell::new(from.row, to.col))
    }

    /// Cost in squares of moving one square from `from_sq` into `to_sq` (terrain + climb), or
    /// `None` if `to_sq` is impassable/off the map.
    fn enter_cost(&self, from_sq: Cell, to_sq: Cell, diagonal: bool, odd: bool) -> Option<u32> {
        let m = self.move_cost_at(to_sq);
        if m == 0 {
            return None;
        }
        let terrain = match (diagonal, m) {
            (false, m) => m,
            (true, 1) => {
                if odd {
                    2
                } else {
                    1
                }
            }
            (true, m) => m + 1,
        };
        let climb = (self.elevation(to_sq) - self.elevation(from_sq)).max(0) as u32;
        Some(terrain + climb)
    }

    /// Squares of movement to step from `from` to the adjacent `to`, given whether the next
    /// diagonal is the costly one (`odd_diagonal`: 5-10-5 parity). Returns the cost and the new
    /// parity, or `None` if not allowed (impassable, out of bounds, corner rule).
    ///
    /// Orthogonal: `move_cost(to)`, parity kept. Diagonal: 1 (or 2 when `odd_diagonal`) on
    /// normal terrain, `move_cost + 1` into difficult terrain (CRB — Combat: Difficult Terrain:
    /// "each diagonal move into a difficult terrain square counts as 3 squares"); a diagonal
    /// always flips the parity (CRB — Combat: Measuring Distance). Plus 1 square per elevation
    /// level climbed (descending is free).
    pub fn step_cost(&self, from: Cell, to: Cell, odd_diagonal: bool) -> Option<(u32, bool)> {
        let dr = i64::from(to.row) - i64::from(from.row);
        let dc = i64::from(to.col) - i64::from(from.col);
        if dr.abs() > 1 || dc.abs() > 1 || (dr == 0 && dc == 0) || !self.in_bounds(from) {
            return None;
        }
        let diagonal = dr != 0 && dc != 0;
        if diagonal && !self.diagonal_allowed(from, to) {
            return None;
        }
        let cost = self.enter_cost(from, to, diagonal, odd_diagonal)?;
        Some((cost, odd_diagonal ^ diagonal))
    }

    /// Whether every square of the footprint is on the map and passable terrain.
    fn footprint_on_terrain(&self, anchor: Cell, side: i32) -> bool {
        (0..side).all(|dr| {
            (0..side).all(|dc| self.passable(Cell::new(anchor.row + dr, anchor.col + dc)))
        })
    }

    /// Dijkstra from `start` for a mover with footprint `side`, up to `max_cost` squares.
    /// `passage(cell)` classifies each square the footprint would cover; it is called once per
    /// map square. The mover's own start squares count as [`Passage::Free`].
    ///
    /// States are (anchor, 5-10-5 parity). Every square of a new footprint must be on the map,
    /// passable and not [`Passage::Blocked`]. A step costs the most expensive newly entered
    /// square ([`Grid::step_cost`] rules, climb measured from the square it comes from). A
    /// diagonal step needs both orthogonal intermediate anchors to be terrain-valid footprints
    /// (the corner rule; for `side` 1 this is [`Grid::diagonal_allowed`]). Ties are broken by
    /// (cost, row, col, parity) and a fixed neighbour order, so paths are reproducible.
    pub fn dijkstra(
        &self,
        start: Cell,
        side: i32,
        max_cost: Option<u32>,
        passage: &dyn Fn(Cell) -> Passage,
    ) -> PathField {
        let n = self.search_cells();
        let pass: Vec<Passage> = (0..n)
            .map(|i| {
                passage(Cell::new(
                    (i / self.cols as usize) as i32,
                    (i % self.cols as usize) as i32,
                ))
            })
            .collect();
        self.dijkstra_passages(start, side, max_cost, pass)
    }

    /// Squares a search covers: the map's, bounded by the terrain arrays.
    pub(crate) fn search_cells(&self) -> usize {
        self.move_cost
            .len()
            .min((self.rows as usize) * (self.cols as usize))
    }

    /// [`Grid::dijkstra`] with the passage of every square given as a row-major vector of
    /// [`Grid::search_cells`] entries (the mover's own start squares are made `Free` here).
    /// Missing entries count as `Free`.
    pub(crate) fn dijkstra_passages(
        &self,
        start: Cell,
        side: i32,
        max_cost: Option<u32>,
        mut pass: Vec<Passage>,
    ) -> PathField {
        let side = clamp_side(side);
        let n = self.search_cells();
        pass.resize(n, Passage::Free);
        let mut field = FieldStates {
            dist: vec![UNREACHED; 2 * n],
            pred: vec![NO_PRED; 2 * n],
            stop: vec![false; n],
            ..FieldStates::default()
        };
        let finish = |states: FieldStates| PathField {
            rows: self.rows,
            cols: self.cols,
            side,
            start,
            bound: max_cost.unwrap_or(UNREACHED),
            states: std::sync::Arc::new(states),
        };
        let Some(start_idx) = self.index(start) else {
            return finish(field);
        };
        if start_idx >= n {
            return finish(field);
        }
        // The mover's own start squares are Free.
        for r in start.row..start.row + side {
            for c in start.col..start.col + side {
                if let Some(i) = self.index(Cell::new(r, c)).filter(|&i| i < n) {
                    pass[i] = Passage::Free;
                }
            }
        }
        if side == 1 && !FORCE_GENERIC_DIJKSTRA.with(|f| f.get()) {
            self.dijkstra_buckets(
                &mut field,
                start_idx,
                max_cost,
                self.step_table(1),
                |bi| pass[bi] != Passage::Blocked,
                |bi| pass[bi] == Passage::Free,
            );
            return finish(field);
        }
        if !FORCE_GENERIC_DIJKSTRA.with(|f| f.get()) {
            // Per anchor: no square of its footprint Blocked (it may be entered, the terrain
            // being the step table's part), every square Free (it may be stopped on).
            let (enter, free) = self.footprint_passages(side, &pass);
            self.dijkstra_buckets(
                &mut field,
                start_idx,
                max_cost,
                self.step_table(side),
                |bi| enter[bi],
                |bi| free[bi],
            );
            return finish(field);
        }
        let pass_at = |c: Cell| self.index(c).map_or(Passage::Blocked, |i| pass[i]);
        let can_enter = |a: Cell| {
            (0..side).all(|dr| {
                (0..side).all(|dc| {
                    let c = Cell::new(a.row + dr, a.col + dc);
                    self.passable(c) && pass_at(c) != Passage::Blocked
                })
            })
        };
        let all_free = |a: Cell| {
            (0..side).all(|dr| {
                (0..side).all(|dc| pass_at(Cell::new(a.row + dr, a.col + dc)) == Passage::Free)
            })
        };

        field.dist[2 * start_idx] = 0;
        field.stop[start_idx] = true;
        let mut heap = BinaryHeap::new();
        heap.push(Reverse((0u32, start.row, start.col, false)));
        while let Some(Reverse((d, r, c, odd))) = heap.pop() {
            let a = Cell::new(r, c);
            let Some(ai) = self.index(a) else { continue };
            let s = 2 * ai + usize::from(odd);
            if d > field.dist[s] {
                continue;
            }
            for (dr, dc) in NEIGHBOURS {
                let b = Cell::new(r + dr, c + dc);
                let Some(bi) = self.index(b) else { continue };
                if !can_enter(b) {
                    continue;
                }
                let diagonal = dr != 0 && dc != 0;
                if diagonal
                    && !(self.footprint_on_terrain(Cell::new(r + dr, c), side)
                        && self.footprint_on_terrain(Cell::new(r, c + dc), side))
                {
                    continue;
                }
                // Most expensive newly entered square.
                let mut step = 0u32;
                let mut ok = true;
                for fr in 0..side {
                    for fc in 0..side {
                        let x = Cell::new(b.row + fr, b.col + fc);
                        let old = (r..r + side).contains(&x.row) && (c..c + side).contains(&x.col);
                        if old {
                            continue;
                        }
                        let src = Cell::new(x.row - dr, x.col - dc);
                        match self.enter_cost(src, x, diagonal, odd) {
                            Some(k) => step = step.max(k),
                            None => ok = false,
                        }
                    }
                }
                if !ok {
                    continue;
                }
                let nd = d.saturating_add(step);
                if max_cost.is_some_and(|m| nd > m) {
                    continue;
                }
                let nodd = odd ^ diagonal;
                let t = 2 * bi + usize::from(nodd);
                if nd < field.dist[t] {
                    field.dist[t] = nd;
                    field.pred[t] = s as u32;
                    field.stop[bi] = all_free(b);
                    heap.push(Reverse((nd, b.row, b.col, nodd)));
                }
            }
        }
        finish(field)
    }

    /// For each anchor of a footprint of `side` squares (row-major, `pass.len()` entries):
    /// whether no square of its footprint is [`Passage::Blocked`], and whether every one is
    /// [`Passage::Free`] (squares off the map or beyond `pass` count as Blocked, as in the
    /// generic search; the terrain is the step table's part).
    fn footprint_passages(&self, side: i32, pass: &[Passage]) -> (Vec<bool>, Vec<bool>) {
        let n = pass.len();
        let cols = self.cols as usize;
        let side = side as usize;
        let at = |r: usize, c: usize| {
            if r < self.rows as usize && c < cols && r * cols + c < n {
                pass[r * cols + c]
            } else {
                Passage::Blocked
            }
        };
        let mut enter = Vec::with_capacity(n);
        let mut free = Vec::with_capacity(n);
        for i in 0..n {
            let (r, c) = (i / cols, i % cols);
            let (mut e, mut f) = (true, true);
            for fr in 0..side {
                for fc in 0..side {
                    let p = at(r + fr, c + fc);
                    e &= p != Passage::Blocked;
                    f &= p == Passage::Free;
                }
            }
            enter.push(e);
            free.push(f);
        }
        (enter, free)
    }

    /// [`Grid::dijkstra`] on flat indices with a per-grid step table (the hot path of legal
    /// actions and the default policy): the same states, costs, corner rule and tie-breaks as
    /// the generic search. `enter(anchor)`: no creature square of the footprint blocks it;
    /// `free(anchor)`: the mover may stop there.
    fn dijkstra_buckets(
        &self,
        field: &mut FieldStates,
        start_idx: usize,
        max_cost: Option<u32>,
        table: &StepTable,
        enter: impl Fn(usize) -> bool,
        free: impl Fn(usize) -> bool,
    ) {
        let max_cost = max_cost.unwrap_or(u32::MAX);
        field.dist[2 * start_idx] = 0;
        field.stop[start_idx] = true;
        // A bucket queue (Dial's algorithm): every step costs at least 1, so states of cost
        // `d` are all known when bucket `d` is reached, and nothing is added to it while it is
        // processed. Each bucket is a bitset of states, so it is visited in increasing state
        // index — (row, col, parity) order — which reproduces exactly the order in which a
        // binary heap of `(cost, row, col, parity)` pops them: predecessors (and hence paths)
        // are identical to the generic search. A step costs at most `table.max_cost`, so a
        // ring of more buckets than that never wraps onto a pending one.
        let words = (2 * field.stop.len()).div_ceil(64);
        let ring = (table.max_cost as usize + 1).next_power_of_two();
        let mut buckets = vec![0u64; ring * words];
        let mut pending = 1usize;
        let s0 = 2 * start_idx;
        buckets[s0 / 64] |= 1 << (s0 % 64);
        let mut d = 0usize;
        while pending > 0 {
            let base = (d % ring) * words;
            let dd = d as u32;
            for w in 0..words {
                // Nothing joins this bucket while it is processed (steps cost ≥ 1).
                let mut bits = std::mem::take(&mut buckets[base + w]);
                while bits != 0 {
                    let s = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    pending -= 1;
                    if dd > field.dist[s] {
                        continue;
                    }
                    let ai = s / 2;
                    let odd = s % 2;
                    let steps =
                        &table.steps[table.first[ai] as usize..table.first[ai + 1] as usize];
                    for step in steps {
                        let bi = step.to as usize;
                        if !enter(bi) {
                            continue;
                        }
                        let nd = dd.saturating_add(step.cost[odd]);
                        if nd > max_cost {
                            continue;
                        }
                        let t = 2 * bi + (odd ^ usize::from(step.diagonal));
                        if nd < field.dist[t] {
                            field.dist[t] = nd;
                            field.pred[t] = s as u32;
                            field.stop[bi] = free(bi);
                            let k = (nd as usize % ring) * words + t / 64;
                            let bit = 1u64 << (t % 64);
                            if buckets[k] & bit == 0 {
                                buckets[k] |= bit;
                                pending += 1;
                            }
                        }
                    }
                }
            }
            d += 1;
        }
    }
}

thread_local! {
    /// Tests only: route 1×1 movers through the generic Dijkstra to compare both.
    static FORCE_GENERIC_DIJKSTRA: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

const UNREACHED: u32 = u32::MAX;
const NO_PRED: u32 = u32::MAX;

/// Result of [`Grid::dijkstra`]: the cheapest cost (in squares) to reach each anchor cell and
/// the paths.
#[derive(Debug, Clone)]
pub struct PathField {
    rows: i32,
    cols: i32,
    side: i32,
    start: Cell,
    /// States of cost above this bound (squares) count as unreached: see
    /// [`PathField::bounded`]. `UNREACHED` when unbounded.
    bound: u32,
    /// The search result, shared by every bounded view of it.
    states: std::sync::Arc<FieldStates>,
}

/// The raw result of a search, per state `(cell index × 2 + parity)`.
#[derive(Debug, Clone, Default)]
struct FieldStates {
    /// Cheapest cost in squares, `UNREACHED` if none.
    dist: Vec<u32>,
    /// Predecessor state, `NO_PRED` for the start/unreached.
    pred: Vec<u32>,
    /// Per cell: every footprint square is `Free` (meaningful only when reached).
    stop: Vec<bool>,
    /// The stoppable squares of the unbounded search with their costs, in (row, col) order
    /// (start included), computed on first use.
    stoppable: std::sync::OnceLock<Vec<(Cell, u32)>>,
    /// The same squares cheapest first, ties by (row, col), computed on first use.
    by_cost: std::sync::OnceLock<Vec<(Cell, u32)>>,
}

/// Equal searches: the caches derived from them do not count.
impl PartialEq for FieldStates {
    fn eq(&self, other: &Self) -> bool {
        self.dist == other.dist && self.pred == other.pred && self.stop == other.stop
    }
}
impl Eq for FieldStates {}

impl PathField {
    fn index(&self, c: Cell) -> Option<usize> {
        if (0..self.rows).contains(&c.row) && (0..self.cols).contains(&c.col) {
            let i = c.row as usize * self.cols as usize + c.col as usize;
            (i < self.states.stop.len()).then_some(i)
        } else {
            None
        }
    }

    /// Cost of state `s` within the bound, `UNREACHED` beyond it.
    fn dist(&self, s: usize) -> u32 {
        let d = self.states.dist[s];
        if d > self.bound {
            UNREACHED
        } else {
            d
        }
    }

    /// The best state (cost, state index) for anchor `c`: lower cost, then even parity.
    #[inline]
    fn best(&self, c: Cell) -> Option<(u32, usize)> {
        let i = self.index(c)?;
        let (e, o) = (self.dist(2 * i), self.dist(2 * i + 1));
        let (d, s) = if o < e { (o, 2 * i + 1) } else { (e, 2 * i) };
        (d != UNREACHED).then_some((d, s))
    }

    /// The same field seen with a tighter bound of `max_cost` squares (`None`: this field's
    /// own bound): states costing more count as unreached. Cheap (the search is shared).
    ///
    /// Equal to a search bounded by `max_cost` from the start, paths included: every step
    /// costs at least one square, so the states within the bound are settled, with the same
    /// predecessors, before any state beyond it is expanded — the bound only prunes.
    pub fn bounded(&self, max_cost: Option<u32>) -> PathField {
        let mut view = self.clone();
        if let Some(m) = max_cost {
            view.bound = view.bound.min(m);
        }
        view
    }

    /// The start anchor of the search.
    pub fn start(&self) -> Cell {
        self.start
    }

    /// The mover's footprint side used for the search (squares).
    pub fn side(&self) -> i32 {
        self.side
    }

    /// Cheapest cost in squares to reach `c` (as anchor), if reachable (minimum over the
    /// 5-10-5 parity). The start costs 0.
    #[inline]
    pub fn cost(&self, c: Cell) -> Option<u32> {
        if c == self.start {
            return Some(0);
        }
        self.best(c).map(|(d, _)| d)
    }

    /// Whether the mover may stop at `c` (reachable and every footprint square `Free`;
    /// CRB — Combat: Moving Through a Square: you can't end your move in an ally's square).
    /// The start always counts as stoppable.
    #[inline]
    pub fn can_stop(&self, c: Cell) -> bool {
        if c == self.start {
            return true;
        }
        match (self.best(c), self.index(c)) {
            (Some(_), Some(i)) => self.states.stop[i],
            _ => false,
        }
    }

    /// The cost of `c` if the mover may stop there ([`PathField::can_stop`] and
    /// [`PathField::cost`] in one look-up), else `None`.
    #[inline]
    pub fn stop_cost(&self, c: Cell) -> Option<u32> {
        if c == self.start {
            return Some(0);
        }
        let (d, _) = self.best(c)?;
        let i = self.index(c)?;
        self.states.stop[i].then_some(d)
    }

    /// The cheapest path from start to `c`, excluding the start, including `c` (anchors, one
    /// step each). `Some(vec![])` for the start itself; `None` if unreachable.
    pub fn path_to(&self, c: Cell) -> Option<Vec<Cell>> {
        if c == self.start {
            return Some(Vec::new());
        }
        let (_, mut s) = self.best(c)?;
        let mut out = Vec::new();
        // A path never has more steps than there are states.
        for _ in 0..=self.states.dist.len() {
            let i = s / 2;
            let cell = Cell::new(
                (i / self.cols as usize) as i32,
                (i % self.cols as usize) as i32,
            );
            if cell == self.start && self.states.dist[s] == 0 {
                out.reverse();
                return Some(out);
            }
            out.push(cell);
            let p = self.states.pred[s];
            if p == NO_PRED {
                return None;
            }
            s = p as usize;
        }
        None
    }

    /// All reachable anchor cells where the mover may stop, in (row, col) order, with costs in
    /// squares (all within the search's `max_cost`). Includes the start with cost 0.
    pub fn stoppable(&self) -> Vec<(Cell, u32)> {
        self.stoppable_iter().collect()
    }

    /// [`PathField::stoppable`] without collecting: the squares come from a list shared by
    /// every view of the search, computed once.
    pub fn stoppable_iter(&self) -> impl Iterator<Item = (Cell, u32)> + '_ {
        let bound = self.bound;
        self.states
            .stoppable
            .get_or_init(|| self.unbounded_stoppable())
            .iter()
            .copied()
            .filter(move |&(_, d)| d <= bound)
    }

    /// The stoppable squares cheapest first, ties by (row, col) (start included, cost 0), all
    /// within the bound: a prefix of a list shared by every view of the search, sorted once.
    pub fn by_cost(&self) -> &[(Cell, u32)] {
        let all = self.states.by_cost.get_or_init(|| {
            let by_cell = self
                .states
                .stoppable
                .get_or_init(|| self.unbounded_stoppable());
            // A counting sort by cost: stable, and the input is in (row, col) order, so the
            // result is in (cost, row, col) order.
            let top = by_cell.iter().map(|&(_, k)| k as usize).max().unwrap_or(0);
            let mut first = vec![0usize; top + 2];
            for &(_, k) in by_cell {
                first[k as usize + 1] += 1;
            }
            for k in 1..first.len() {
                first[k] += first[k - 1];
            }
            let mut v = vec![(Cell::new(0, 0), 0u32); by_cell.len()];
            for &(c, k) in by_cell {
                v[first[k as usize]] = (c, k);
                first[k as usize] += 1;
            }
            v
        });
        &all[..all.partition_point(|&(_, d)| d <= self.bound)]
    }

    /// The stoppable squares ignoring this view's bound (see [`PathField::stoppable`]).
    fn unbounded_stoppable(&self) -> Vec<(Cell, u32)> {
        let mut out: Vec<(Cell, u32)> = Vec::new();
        if self.index(self.start).is_none() {
            out.push((self.start, 0));
        }
        let st = &self.states;
        let cols = self.cols.max(1) as usize;
        let start = self.index(self.start);
        for (i, &stop) in st.stop.iter().enumerate() {
            let d = st.dist[2 * i].min(st.dist[2 * i + 1]);
            // The start always; any other square reached where the mover may stop.
            if Some(i) == start || (stop && d != UNREACHED) {
                let cell = Cell::new((i / cols) as i32, (i % cols) as i32);
                out.push((cell, if Some(i) == start { 0 } else { d }));
            }
        }
        // Already in (row, col) order but for an off-map start pushed first.
        if out.first().is_some_and(|(c, _)| self.index(*c).is_none()) {
            out.sort_by_key(|(c, _)| *c);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Grid from rows of chars: `.` floor, `#` wall, `T` difficult (cost 2), `C` pillar,
    /// `W` partial-cover ruin; optional elevation rows.
    pub(crate) fn grid_of(rows: &[&str], elevation: Option<&[&str]>) -> Grid {
        let mut text = String::from("name: t\nterrain: |\n");
        for r in rows {
            text.push_str(&format!("  {r}\n"));
        }
        text.push_str(
            "legend:\n  \".\": { type: floor, move_cost: 1 }\n  \"#\": { type: wall, move_cost: null, blocks_los: true }\n  \"T\": { type: rubble, move_cost: 2 }\n  \"C\": { type: pillar, move_cost: null, cover: true }\n  \"W\": { type: ruin, move_cost: null, cover_bonus: 2 }\n  \"I\": { type: fortress, move_cost: null, cover_bonus: 8 }\n",
        );
        if let Some(el) = elevation {
            text.push_str("elevation: |\n");
            for r in el {
                text.push_str(&format!("  {r}\n"));
            }
        }
        Grid::from_map(&MapSpec::from_yaml_str(&text, "test").unwrap())
    }

    fn free(_: Cell) -> Passage {
        Passage::Free
    }

    fn c(r: i32, col: i32) -> Cell {
        Cell::new(r, col)
    }

    // CRB — Combat: Measuring Distance: diagonals count 1, 2, 1, 2…
    #[test]
    fn distance_5_10_5() {
        assert_eq!(distance_squares(c(0, 0), c(0, 0)), 0);
        assert_eq!(distance_squares(c(0, 0), c(0, 3)), 3);
        assert_eq!(distance_squares(c(0, 0), c(1, 1)), 1);
        assert_eq!(distance_squares(c(0, 0), c(2, 2)), 3); // 15 ft
        assert_eq!(distance_squares(c(0, 0), c(3, 3)), 4); // 20 ft
        assert_eq!(distance_squares(c(0, 0), c(4, 4)), 6); // 30 ft
        assert_eq!(distance_squares(c(5, 2), c(0, 0)), 6);
        assert_eq!(distance_squares(c(-3, 0), c(0, 1)), 3);
        // No overflow on extreme input.
        assert_eq!(distance_squares(c(i32::MIN, 0), c(i32::MAX, 0)), i32::MAX);
    }

    // CRB — Combat: Big and Little Creatures in Combat: footprints and distance between them.
    #[test]
    fn footprints_and_their_distance() {
        assert_eq!(footprint(c(1, 1), 1), vec![c(1, 1)]);
        assert_eq!(
            footprint(c(1, 1), 2),
            vec![c(1, 1), c(1, 2), c(2, 1), c(2, 2)]
        );
        assert_eq!(footprint(c(0, 0), 0).len(), 1);
        assert_eq!(footprint(c(0, 0), 1_000_000).len(), 256);
        assert_eq!(footprint_distance_squares(c(0, 0), 2, c(0, 2), 1), 1);
        assert_eq!(footprint_distance_squares(c(0, 0), 2, c(1, 1), 1), 0);
        assert_eq!(footprint_distance_squares(c(0, 0), 2, c(3, 3), 1), 3);
        assert_eq!(footprint_distance_squares(c(3, 3), 1, c(0, 0), 2), 3);
        assert_eq!(footprint_distance_squares(c(0, 0), 3, c(0, 6), 3), 4);
        assert_eq!(
            footprint_distance_squares(c(0, 0), 1, c(4, 4), 1),
            distance_squares(c(0, 0), c(4, 4))
        );
    }

    #[test]
    fn grid_from_map_arrays() {
        let g = grid_of(&["#.T", "CWI"], Some(&["..3", "..."]));
        assert_eq!((g.rows, g.cols), (2, 3));
        assert_eq!(g.move_cost, vec![0, 1, 2, 0, 0, 0]);
        assert_eq!(g.blocks_los, vec![true, false, false, false, false, false]);
        assert_eq!(g.cover_bonus, vec![4, 0, 0, 4, 2, 8]);
        assert_eq!(g.elevation(c(0, 2)), 3);
        assert!(g.is_difficult(c(0, 2)) && !g.is_difficult(c(0, 1)));
        assert!(!g.passable(c(0, 0)) && !g.passable(c(-1, 0)) && !g.passable(c(0, 3)));
        assert_eq!(g.elevation(c(9, 9)), 0);
    }

    // CRB — Combat: Measuring Distance: a diagonal flips the 5-10-5 parity.
    #[test]
    fn step_cost_diagonal_parity() {
        let g = grid_of(&["....", "....", "...."], None);
        assert_eq!(g.step_cost(c(0, 0), c(0, 1), false), Some((1, false)));
        assert_eq!(g.step_cost(c(0, 0), c(0, 1), true), Some((1, true)));
        assert_eq!(g.step_cost(c(0, 0), c(1, 1), false), Some((1, true)));
        assert_eq!(g.step_cost(c(1, 1), c(2, 2), true), Some((2, false)));
        assert_eq!(g.step_cost(c(0, 0), c(0, 0), false), None);
        assert_eq!(g.step_cost(c(0, 0), c(0, 2), false), None);
        assert_eq!(g.step_cost(c(0, 0), c(-1, 0), false), None);
        assert_eq!(g.step_cost(c(-1, 0), c(0, 0), false), None);
        assert_eq!(g.step_cost(c(i32::MAX, 0), c(i32::MIN, 0), false), None);
    }

    // CRB — Combat: Measuring Distance: two diagonals cost 3 squares = 15 ft.
    #[test]
    fn dijkstra_two_diagonals_cost_three_squares() {
        let g = grid_of(&["....", "....", "....", "...."], None);
        let f = g.dijkstra(c(0, 0), 1, None, &free);
        assert_eq!(f.cost(c(1, 1)), Some(1));
        assert_eq!(f.cost(c(2, 2)), Some(3));
        assert_eq!(f.cost(c(2, 2)).map(|s| s as i32 * SQUARE_FT), Some(15));
        assert_eq!(f.cost(c(3, 3)), Some(4));
        assert_eq!(f.cost(c(3, 1)), Some(3));
        for r in 0..4 {
            for col in 0..4 {
                assert_eq!(
                    f.cost(c(r, col)),
                    Some(distance_squares(c(0, 0), c(r, col)) as u32)
                );
            }
        }
    }

    // CRB — Combat: Difficult Terrain: 2 squares orthogonally, 3 squares diagonally.
    #[test]
    fn difficult_terrain_costs() {
        let g = grid_of(&["...", ".T.", "..."], None);
        assert_eq!(g.step_cost(c(0, 1), c(1, 1), false), Some((2, false)));
        assert_eq!(g.step_cost(c(0, 0), c(1, 1), false), Some((3, true)));
        assert_eq!(g.step_cost(c(0, 0), c(1, 1), true), Some((3, false)));
        let f = g.dijkstra(c(0, 0), 1, None, &free);
        assert_eq!(f.cost(c(1, 1)), Some(3));
        // Leaving difficult terrain is normal cost.
        assert_eq!(g.step_cost(c(1, 1), c(1, 2), false), Some((1, false)));
    }

    // Seed rule (Élévation): +1 square per level climbed; descending is free.
    #[test]
    fn elevation_climb_costs_extra() {
        let g = grid_of(&["....", "...."], Some(&[".12.", "...."]));
        assert_eq!(g.step_cost(c(0, 0), c(0, 1), false), Some((2, false)));
        assert_eq!(g.step_cost(c(0, 1), c(0, 2), false), Some((2, false)));
        assert_eq!(g.step_cost(c(0, 2), c(0, 3), false), Some((1, false)));
        assert_eq!(g.step_cost(c(1, 1), c(0, 2), false), Some((3, true)));
        assert_eq!(g.step_cost(c(0, 2), c(1, 2), false), Some((1, false)));
    }

    // CRB — Combat: Measuring Distance: "you can't move diagonally past a corner".
    #[test]
    fn corner_rule() {
        let g = grid_of(&[".#.", "...", "..."], None);
        assert!(!g.diagonal_allowed(c(0, 0), c(1, 1)));
        assert!(!g.diagonal_allowed(c(1, 1), c(0, 0)));
        assert!(g.diagonal_allowed(c(1, 1), c(2, 2)));
        assert_eq!(g.step_cost(c(0, 0), c(1, 1), false), None);
        let f = g.dijkstra(c(0, 0), 1, None, &free);
        assert_eq!(f.cost(c(1, 1)), Some(2));
        assert_eq!(f.path_to(c(1, 1)), Some(vec![c(1, 0), c(1, 1)]));
        // Documented simplification: an isolated obstacle (one side blocked) also forbids it.
        let g = grid_of(&["...", ".#.", "..."], None);
        assert!(!g.diagonal_allowed(c(0, 1), c(1, 2)));
        assert_eq!(g.step_cost(c(0, 1), c(1, 2), false), None);
    }

    // CRB — Combat: Moving Through a Square: pass through an ally, never end there.
    #[test]
    fn pass_through_ally_but_not_stop() {
        let g = grid_of(&["#####", ".....", "#####"], None);
        let ally = |x: Cell| {
            if x == c(1, 2) {
                Passage::PassThrough
            } else {
                Passage::Free
            }
        };
        let f = g.dijkstra(c(1, 0), 1, None, &ally);
        assert_eq!(f.cost(c(1, 2)), Some(2));
        assert!(!f.can_stop(c(1, 2)));
        assert_eq!(f.cost(c(1, 4)), Some(4));
        assert!(f.can_stop(c(1, 3)));
        assert_eq!(
            f.stoppable(),
            vec![(c(1, 0), 0), (c(1, 1), 1), (c(1, 3), 3), (c(1, 4), 4)]
        );
        assert_eq!(f.path_to(c(1, 3)), Some(vec![c(1, 1), c(1, 2), c(1, 3)]));
    }

    // CRB — Combat: Moving Through a Square: an opponent's square blocks.
    #[test]
    fn enemy_blocks() {
        let g = grid_of(&["#####", ".....", "#####"], None);
        let enemy = |x: Cell| {
            if x == c(1, 2) {
                Passage::Blocked
            } else {
                Passage::Free
            }
        };
        let f = g.dijkstra(c(1, 0), 1, None, &enemy);
        assert_eq!(f.cost(c(1, 2)), None);
        assert_eq!(f.cost(c(1, 3)), None);
        assert_eq!(f.path_to(c(1, 3)), None);
        assert!(!f.can_stop(c(1, 3)));
        assert_eq!(f.stoppable(), vec![(c(1, 0), 0), (c(1, 1), 1)]);
    }

    // The mover's own start square is Free even if passage() says otherwise.
    #[test]
    fn start_square_is_free_and_stoppable() {
        let g = grid_of(&["...", "..."], None);
        let f = g.dijkstra(c(0, 0), 1, Some(0), &|_| Passage::Blocked);
        assert_eq!(f.stoppable(), vec![(c(0, 0), 0)]);
        assert_eq!(f.cost(c(0, 0)), Some(0));
        assert_eq!(f.path_to(c(0, 0)), Some(vec![]));
    }

    #[test]
    fn max_cost_limits_the_field() {
        let g = grid_of(&["......"], None);
        let f = g.dijkstra(c(0, 0), 1, Some(3), &free);
        assert_eq!(f.cost(c(0, 3)), Some(3));
        assert_eq!(f.cost(c(0, 4)), None);
        assert_eq!(f.stoppable().len(), 4);
    }

    // CRB — Combat: Big and Little Creatures: a 2×2 (Large) mover can't squeeze through a
    // 1-square corridor (squeezing is not modelled).
    #[test]
    fn large_mover_cannot_pass_one_wide_corridor() {
        let g = grid_of(&["..#..", "..#..", ".....", "..#..", "..#.."], None);
        let f = g.dijkstra(c(0, 0), 2, None, &free);
        assert_eq!(f.cost(c(0, 3)), None);
        assert_eq!(f.cost(c(3, 0)), Some(3));
        // A 1×1 mover goes through.
        let f1 = g.dijkstra(c(0, 0), 1, None, &free);
        assert!(f1.cost(c(0, 3)).is_some());
        // Two-wide corridor: the Large mover passes.
        let g2 = grid_of(&["..#..", ".....", ".....", "..#.."], None);
        let f2 = g2.dijkstra(c(0, 0), 2, None, &free);
        assert_eq!(f2.cost(c(1, 3)), Some(4));
        // Footprints must stay on the map: no anchor at the last row/col.
        assert_eq!(f2.cost(c(3, 0)), None);
        // Every footprint square of a stop must be free.
        let ally = |x: Cell| {
            if x == c(2, 4) {
                Passage::PassThrough
            } else {
                Passage::Free
            }
        };
        let f3 = g2.dijkstra(c(0, 0), 2, None, &ally);
        assert!(f3.cost(c(1, 3)).is_some());
        assert!(!f3.can_stop(c(1, 3)));
        assert!(f3.can_stop(c(0, 3)));
    }

    // Large mover: a step costs its most expensive newly entered square.
    #[test]
    fn large_mover_pays_most_expensive_new_square() {
        let g = grid_of(&["....", "...T", "...."], None);
        let f = g.dijkstra(c(0, 0), 2, None, &free);
        assert_eq!(f.cost(c(0, 1)), Some(1));
        assert_eq!(f.cost(c(0, 2)), Some(3));
        assert_eq!(f.cost(c(1, 0)), Some(1));
    }

    // Determinism: same inputs → same path; paths are contiguous and sum to the cost.
    #[test]
    fn path_to_is_deterministic_and_consistent() {
        let g = grid_of(
            &["........", ".T..#...", "..T.#...", "....#...", "........"],
            Some(&["........", "........", ".....1..", "........", "........"]),
        );
        let a = g.dijkstra(c(0, 0), 1, None, &free);
        let b = g.dijkstra(c(0, 0), 1, None, &free);
        for r in 0..5 {
            for col in 0..8 {
                let t = c(r, col);
                assert_eq!(a.path_to(t), b.path_to(t));
                assert_eq!(a.cost(t), b.cost(t));
                let Some(path) = a.path_to(t) else { continue };
                let mut cur = c(0, 0);
                let mut odd = false;
                let mut total = 0;
                for step in path {
                    let (k, np) = g.step_cost(cur, step, odd).expect("legal step");
                    total += k;
                    odd = np;
                    cur = step;
                }
                assert_eq!(cur, t);
                assert_eq!(Some(total), a.cost(t));
            }
        }
        assert_eq!(a.path_to(c(4, 7)), b.path_to(c(4, 7)),);
        let stops = a.stoppable();
        let mut sorted = stops.clone();
        sorted.sort();
        assert_eq!(stops, sorted);
    }

    #[test]
    fn out_of_map_inputs_do_not_panic() {
        let g = grid_of(&["..", ".."], None);
        let f = g.dijkstra(c(-5, 9), 1, None, &free);
        assert_eq!(f.cost(c(0, 0)), None);
        assert_eq!(f.stoppable(), vec![(c(-5, 9), 0)]);
        assert_eq!(f.path_to(c(1, 1)), None);
        assert_eq!(f.cost(c(100, 100)), None);
        assert!(!f.can_stop(c(0, 0)));
        let f = g.dijkstra(c(0, 0), 99, None, &free);
        assert_eq!(f.stoppable(), vec![(c(0, 0), 0)]);
        let f = g.dijkstra(c(0, 0), -3, None, &free);
        assert_eq!(f.cost(c(1, 1)), Some(1));
    }

    /// The 1×1 fast path gives exactly the generic Dijkstra's field (costs, predecessors,
    /// stop flags) on a map with walls, difficult terrain, elevation, allies and enemies.
    #[test]
    fn single_square_dijkstra_matches_generic() {
        let g = grid_of(
            &[
                "..........",
                ".##..T....",
                "..#.TT.C..",
                "....#.....",
                ".W....T...",
            ],
            Some(&[
                "..........",
                "..........",
                "...11.....",
                "...12.....",
                "..........",
            ]),
        );
        let occupant = |c: Cell| match (c.row, c.col) {
            (0, 5) | (3, 2) => Passage::Blocked,
            (2, 1) | (4, 4) => Passage::PassThrough,
            _ => Passage::Free,
        };
        for start in [c(0, 0), c(2, 3), c(4, 9), c(3, 5)] {
            for max in [None, Some(1), Some(4), Some(9)] {
                let fast = g.dijkstra(start, 1, max, &occupant);
                FORCE_GENERIC_DIJKSTRA.with(|f| f.set(true));
                let slow = g.dijkstra(start, 1, max, &occupant);
                FORCE_GENERIC_DIJKSTRA.with(|f| f.set(false));
                assert_eq!(fast.states, slow.states, "{start} {max:?}");
            }
        }
    }

    /// The same on larger pseudo-random maps, for footprints of 1, 2 and 3 squares (the
    /// bucket search with the step table of each side): several bitset words per bucket, steps
    /// costing up to 3 + 9 squares (difficult diagonal, climbing nine levels), so the bucket
    /// ring wraps many times.
    #[test]
    fn single_square_dijkstra_matches_generic_on_random_maps() {
        let mut reached = 0usize;
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for round in 0..6 {
            let (rows, cols) = (9 + round, 23 + 3 * round);
            let mut terrain = Vec::new();
            let mut elevation = Vec::new();
            for _ in 0..rows {
                let t: String = (0..cols)
                    .map(|_| match next(10) {
                        0 => '#',
                        1 | 2 => 'T',
                        _ => '.',
                    })
                    .collect();
                let e: String = (0..cols)
                    .map(|_| match next(6) {
                        0 => char::from(b'0' + next(10) as u8),
                        _ => '.',
                    })
                    .collect();
                terrain.push(t);
                elevation.push(e);
            }
            let t: Vec<&str> = terrain.iter().map(String::as_str).collect();
            let e: Vec<&str> = elevation.iter().map(String::as_str).collect();
            let g = grid_of(&t, Some(&e));
            let occupied: Vec<(Cell, Passage)> = (0..12)
                .map(|k| {
                    let cell = c(next(rows as u64) as i32, next(cols as u64) as i32);
                    let p = if k % 2 == 0 {
                        Passage::Blocked
                    } else {
                        Passage::PassThrough
                    };
                    (cell, p)
                })
                .collect();
            let occupant = |cell: Cell| {
                occupied
                    .iter()
                    .find(|(o, _)| *o == cell)
                    .map_or(Passage::Free, |(_, p)| *p)
            };
            for _ in 0..4 {
                let start = c(next(rows as u64) as i32, next(cols as u64) as i32);
                for side in 1..=3 {
                    for max in [None, Some(3), Some(17)] {
                        let fast = g.dijkstra(start, side, max, &occupant);
                        FORCE_GENERIC_DIJKSTRA.with(|f| f.set(true));
                        let slow = g.dijkstra(start, side, max, &occupant);
                        FORCE_GENERIC_DIJKSTRA.with(|f| f.set(false));
                        assert_eq!(
                            fast.states, slow.states,
                            "round {round} {start} side {side} {max:?}"
                        );
                        reached += fast.states.dist.iter().filter(|&&d| d != UNREACHED).count();
                    }
                }
            }
        }
        // The searches go somewhere: the maps are not all walls.
        assert!(reached > 5_000, "{reached}");
    }
}
