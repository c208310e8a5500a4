//! The square grid: 5-10-5 distance, movement costs, the corner rule, Dijkstra fields.
use crate::map::MapSpec;
use serde::{Deserialize, Serialize};

/// Feet per square.
pub const SQUARE_FT: i32 = 5;

/// A square of the map, `(row, col)`, 0-based from the top-left. Serialized as `[row, col]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(from = "[i32; 2]", into = "[i32; 2]")]
pub struct Cell {
    pub row: i32,
    pub col: i32,
}
impl From<[i32; 2]> for Cell {
    fn from(v: [i32; 2]) -> Self {
        Cell { row: v[0], col: v[1] }
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
    pub const fn new(row: i32, col: i32) -> Self {
        Cell { row, col }
    }
}

/// 5-10-5 distance in squares: `max + min/2` of the row/column deltas.
pub fn distance_squares(_a: Cell, _b: Cell) -> i32 {
    todo!()
}

/// Cells of a square footprint of `side` squares anchored (top-left) at `anchor`, row-major.
pub fn footprint(_anchor: Cell, _side: i32) -> Vec<Cell> {
    todo!()
}

/// Minimum 5-10-5 distance in squares between two footprints.
pub fn footprint_distance_squares(_a: Cell, _a_side: i32, _b: Cell, _b_side: i32) -> i32 {
    todo!()
}

/// What a moving creature may do with a square.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Passage {
    /// Free: may pass and stop.
    Free,
    /// Occupied by an ally: may pass through, may not stop.
    PassThrough,
    /// Occupied by an opponent: may not enter.
    Blocked,
}

/// Terrain arrays for fast look-ups, built once per map.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Grid {
    pub rows: i32,
    pub cols: i32,
    /// Per cell: squares to enter (0 = impassable).
    pub move_cost: Vec<u8>,
    pub elevation: Vec<i32>,
    pub blocks_los: Vec<bool>,
    /// Cover bonus the cell grants (0 none, 2, 4, 8).
    pub cover_bonus: Vec<u8>,
}

impl Grid {
    pub fn from_map(_map: &MapSpec) -> Grid {
        todo!()
    }
    pub fn in_bounds(&self, _c: Cell) -> bool {
        todo!()
    }
    pub fn passable(&self, _c: Cell) -> bool {
        todo!()
    }
    /// Move cost > 1 (difficult terrain).
    pub fn is_difficult(&self, _c: Cell) -> bool {
        todo!()
    }
    pub fn elevation(&self, _c: Cell) -> i32 {
        todo!()
    }
    /// Corner rule: a diagonal step `from → to` (adjacent diagonally) is allowed only when both
    /// orthogonal squares it cuts past are passable (CRB — Combat: Measuring Distance).
    pub fn diagonal_allowed(&self, _from: Cell, _to: Cell) -> bool {
        todo!()
    }
    /// Squares of movement to step from `from` to the adjacent `to`, given whether the next
    /// diagonal is the costly one (`odd_diagonal`: 5-10-5 parity). Returns the cost and the new
    /// parity, or `None` if not allowed (impassable, out of bounds, corner rule).
    pub fn step_cost(&self, _from: Cell, _to: Cell, _odd_diagonal: bool) -> Option<(u32, bool)> {
        todo!()
    }
    /// Dijkstra from `start` for a mover with footprint `side`, up to `max_cost` squares.
    /// `passage(cell)` classifies each square the footprint would cover.
    pub fn dijkstra(
        &self,
        _start: Cell,
        _side: i32,
        _max_cost: Option<u32>,
        _passage: &dyn Fn(Cell) -> Passage,
    ) -> PathField {
        todo!()
    }
}

/// Result of [`Grid::dijkstra`]: the cheapest cost (in squares) to reach each anchor cell and
/// the paths.
#[derive(Debug, Clone)]
pub struct PathField {}

impl PathField {
    /// Cheapest cost in squares to reach `c` (as anchor), if reachable.
    pub fn cost(&self, _c: Cell) -> Option<u32> {
        todo!()
    }
    /// Whether the mover may stop at `c` (reachable and every footprint square `Free`).
    pub fn can_stop(&self, _c: Cell) -> bool {
        todo!()
    }
    /// The cheapest path from start to `c`, excluding the start, including `c`.
    pub fn path_to(&self, _c: Cell) -> Option<Vec<Cell>> {
        todo!()
    }
    /// All reachable anchor cells where the mover may stop, in (row, col) order, with costs.
    pub fn stoppable(&self) -> Vec<(Cell, u32)> {
        todo!()
    }
}
