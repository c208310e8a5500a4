//! Line of effect and cover by the corner rule (CRB — Combat: Cover; Magic: Line of Effect).
use crate::grid::{Cell, Grid};

/// Whether some straight line from a corner of a square of footprint `a` to a corner of a
/// square of footprint `b` avoids every `blocks_los` square.
pub fn has_line_of_effect(_grid: &Grid, _a: Cell, _a_side: i32, _b: Cell, _b_side: i32) -> bool {
    todo!()
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

/// Terrain cover bonus (0, 2, 4 or 8) the target gets against the attacker.
pub fn terrain_cover_bonus(
    _grid: &Grid,
    _attacker: Cell,
    _a_side: i32,
    _target: Cell,
    _t_side: i32,
    _mode: CoverMode,
) -> u8 {
    todo!()
}

/// Soft cover (+4 vs ranged): whether a creature square (`occupied(cell)` true) lies on the
/// lines from the attacker's best corner to the target (CRB — Combat: Soft Cover).
pub fn soft_cover(
    _grid: &Grid,
    _attacker: Cell,
    _a_side: i32,
    _target: Cell,
    _t_side: i32,
    _occupied: &dyn Fn(Cell) -> bool,
) -> bool {
    todo!()
}

/// Squares of a straight line from `a` to `b` (Bresenham), excluding `a`, including `b`.
pub fn straight_line(_a: Cell, _b: Cell) -> Vec<Cell> {
    todo!()
}
