//! TEMPORARY stand-in (replaced by the areas helper's module at merge).
use crate::geometry::grid::{Cell, Grid};
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Corner {
    pub row: i32,
    pub col: i32,
}
fn in_radius(o: Corner, c: Cell, r: u32) -> bool {
    let dr = if c.row < o.row {
        o.row - c.row - 1
    } else {
        c.row - o.row
    };
    let dc = if c.col < o.col {
        o.col - c.col - 1
    } else {
        c.col - o.col
    };
    let (a, b) = (dr.max(dc), dr.min(dc));
    (a + b / 2 + 1) * 5 <= r as i32
}
pub fn burst(grid: &Grid, origin: Corner, radius_ft: u32) -> Vec<Cell> {
    let n = (radius_ft / 5) as i32 + 1;
    let mut v = Vec::new();
    for r in origin.row - n..origin.row + n {
        for c in origin.col - n..origin.col + n {
            let cell = Cell { row: r, col: c };
            if grid.in_bounds(cell) && in_radius(origin, cell, radius_ft) {
                v.push(cell);
            }
        }
    }
    v
}
pub fn spread(grid: &Grid, origin: Corner, radius_ft: u32) -> Vec<Cell> {
    burst(grid, origin, radius_ft)
}
pub fn cone(grid: &Grid, caster: Cell, side: i32, toward: Cell, length_ft: u32) -> Vec<Cell> {
    let _ = (grid, caster, side, toward, length_ft);
    Vec::new()
}
pub fn line(grid: &Grid, caster: Cell, side: i32, toward: Cell, length_ft: u32) -> Vec<Cell> {
    let _ = (grid, caster, side, toward, length_ft);
    Vec::new()
}
pub fn origin_corner(caster: Cell, side: i32, toward: Cell) -> Corner {
    let _ = (side, toward);
    Corner {
        row: caster.row,
        col: caster.col,
    }
}
pub fn corner_of(at: Cell) -> Corner {
    Corner {
        row: at.row,
        col: at.col,
    }
}
pub fn line_of_effect_from(grid: &Grid, origin: Corner, to: Cell) -> bool {
    let _ = (grid, origin, to);
    true
}
pub fn reflex_cover_from(grid: &Grid, origin: Corner, to: Cell, side: i32) -> i32 {
    let _ = (grid, origin, to, side);
    0
}
