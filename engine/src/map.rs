//! Map YAML (the seed's "Carte (YAML)" format) and its validation.
use crate::grid::Cell;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Error while loading a map; Display names the file, the field and the reason.
#[derive(Debug, thiserror::Error)]
pub enum MapError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: field `{field}`: {reason}")]
    Field {
        file: String,
        field: String,
        reason: String,
    },
}

/// One legend entry: a terrain type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TerrainType {
    /// `type` in YAML (wall, floor, rubble…).
    pub kind: String,
    /// Squares of movement to enter; `None` = impassable.
    pub move_cost: Option<u32>,
    pub blocks_los: bool,
    pub cover: bool,
    /// Cover level: 2 partial, 4 standard, 8 improved (CRB — Combat: Cover).
    pub cover_bonus: Option<u8>,
}

impl TerrainType {
    /// The AC bonus this terrain grants as cover: `cover_bonus`, or 4 if `cover`/`blocks_los`.
    pub fn effective_cover_bonus(&self) -> u8 {
        todo!()
    }
}

/// A validated map.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapSpec {
    pub name: String,
    pub square_size_ft: u32,
    pub rows: i32,
    pub cols: i32,
    /// Terrain characters, row-major, `rows` rows of `cols` chars.
    pub terrain: Vec<Vec<char>>,
    pub legend: BTreeMap<char, TerrainType>,
    /// Elevation levels (0 when the layer is absent; digits 0-9, `.` = 0).
    pub elevation: Vec<Vec<i32>>,
    /// Zone letters (`None` = no zone).
    pub zones: Vec<Vec<Option<char>>>,
    /// Named points, in file order.
    pub markers: Vec<(String, Cell)>,
    /// Side name → zone letter, in file order.
    pub deployment: Vec<(String, char)>,
}

impl MapSpec {
    /// Parse and validate map YAML. `origin` names the file in errors.
    pub fn from_yaml_str(_text: &str, _origin: &str) -> Result<MapSpec, MapError> {
        todo!()
    }
    /// Read, parse and validate a map file.
    pub fn load(_path: &Path) -> Result<MapSpec, MapError> {
        todo!()
    }
    /// The terrain type at `cell` (caller guarantees in bounds).
    pub fn terrain_at(&self, _cell: Cell) -> &TerrainType {
        todo!()
    }
    /// Cells of zone `letter` in (row, col) order.
    pub fn zone_cells(&self, _letter: char) -> Vec<Cell> {
        todo!()
    }
}
