//! Geometry of the battle grid: squares, footprints, 5-10-5 distances, movement costs and
//! paths (`grid`), line of effect and terrain cover (`los`), spell area templates (`areas`).
//! Every distance here is in squares unless a name says feet.

pub mod areas;
pub mod grid;
pub mod los;
