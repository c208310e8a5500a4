//! Map YAML (the seed's "Carte (YAML)" format) and its validation.
//!
//! Every layer is an ASCII block of the same dimensions; one character is one square of
//! `square_size_ft` feet (always 5: CRB — Combat: Tactical Movement, "5-foot squares").
//! Only `terrain` is required. Rows and columns are 0-based, counted from the top-left;
//! `markers` positions are `[row, col]`.
//!
//! ```yaml
//! name: "Arène d'essai"
//! square_size_ft: 5
//! terrain: |
//!   #####
//!   #.T.#
//!   #####
//! legend:
//!   "#": { type: wall, move_cost: null, blocks_los: true }
//!   ".": { type: floor, move_cost: 1 }
//!   "T": { type: rubble, move_cost: 2 }
//! ```
//!
//! Errors are [`MapError::Field`]: `field` is a dotted path whose first segment is the
//! top-level YAML key (`terrain`, `legend.T.move_cost`, `markers.autel`, `deployment`…).
//!
//! Besides the seed's keys, an optional top-level `source` string (provenance of the map, as
//! every data file carries) is accepted and ignored.
use crate::geometry::grid::Cell;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Error while loading a map; Display names the file, the field and the reason.
#[derive(Debug, thiserror::Error)]
pub enum MapError {
    /// The file could not be read.
    #[error("{file}: cannot read: {source}")]
    Io {
        /// The path as given.
        file: String,
        #[source]
        source: std::io::Error,
    },
    /// A field is missing, unknown or invalid. `field` is a dotted path (`legend.T.move_cost`;
    /// a key other than letters, digits, `_` and `-` is quoted: `legend["."].move_cost`).
    #[error("{file}: field `{field}`: {reason}")]
    Field {
        /// The file (or origin) name.
        file: String,
        /// Dotted path of the field, starting with the top-level key.
        field: String,
        /// What is wrong, naming rows/columns (0-based) where relevant.
        reason: String,
    },
}

impl MapError {
    /// The offending field's dotted path (`None` for I/O errors).
    pub fn field(&self) -> Option<&str> {
        match self {
            MapError::Field { field, .. } => Some(field),
            MapError::Io { .. } => None,
        }
    }
}

/// Largest map side, in squares (256 squares = 1,280 ft): bounds the work of every path search.
pub const MAX_SIDE: usize = 256;
/// Largest `move_cost` of a legend entry, in squares of movement (the grid stores it in a
/// byte; PF1e's heaviest terrain costs 4). Larger values are errors, never clamped.
pub const MAX_MOVE_COST: u32 = 255;
/// Largest map text accepted, in bytes.
pub const MAX_TEXT_BYTES: usize = 1 << 20;
/// Deepest `[`/`{` nesting accepted before parsing (the YAML parser is slow on deep nesting).
pub const MAX_FLOW_NESTING: usize = 32;

/// Maximum nesting depth of YAML flow collections (`[`, `{`) outside quoted scalars and
/// comments: a cheap guard run before the parser.
fn flow_nesting_depth(text: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut quote: Option<char> = None;
    let mut comment = false;
    for ch in text.chars() {
        if comment {
            comment = ch != '\n';
            continue;
        }
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"') | (None, '\'') => quote = Some(ch),
            (None, '#') => comment = true,
            (None, '[') | (None, '{') => {
                depth += 1;
                max = max.max(depth);
            }
            (None, ']') | (None, '}') => depth = depth.saturating_sub(1),
            (None, '\n') => {}
            _ => {}
        }
        if ch == '\n' {
            // Quotes do not span lines in the maps we accept; recover on a new line.
            quote = None;
        }
    }
    max
}

/// One legend entry: a terrain type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TerrainType {
    /// `type` in YAML (wall, floor, rubble…).
    pub kind: String,
    /// Squares of movement to enter; `None` = impassable. 2 or more = difficult terrain
    /// (CRB — Combat: Difficult Terrain, "each square … counts as 2 squares of movement").
    pub move_cost: Option<u32>,
    /// A solid barrier: blocks line of effect (CRB — Magic: Aiming a Spell — Line of Effect).
    pub blocks_los: bool,
    /// Grants standard cover (+4 AC) unless `cover_bonus` says otherwise (CRB — Combat: Cover).
    pub cover: bool,
    /// Cover level: 2 partial, 4 standard, 8 improved (CRB — Combat: Cover).
    pub cover_bonus: Option<u8>,
}

impl TerrainType {
    /// The AC bonus this terrain grants as cover: `cover_bonus`, or 4 if `cover`/`blocks_los`,
    /// else 0 (CRB — Combat: Cover: partial +2, standard +4, improved +8).
    pub fn effective_cover_bonus(&self) -> u8 {
        match self.cover_bonus {
            Some(b) => b,
            None if self.cover || self.blocks_los => 4,
            None => 0,
        }
    }
}

/// Terrain returned by [`MapSpec::terrain_at`] for a square outside the map (or a character
/// missing from a hand-built legend): impassable and blocking.
static OUTSIDE: TerrainType = TerrainType {
    kind: String::new(),
    move_cost: None,
    blocks_los: true,
    cover: false,
    cover_bonus: None,
};

/// A validated map.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapSpec {
    /// Display name (non-empty).
    pub name: String,
    /// Feet per square; always 5.
    pub square_size_ft: u32,
    /// Height of the map in squares.
    pub rows: i32,
    /// Width of the map in squares.
    pub cols: i32,
    /// Terrain characters, row-major, `rows` rows of `cols` chars.
    pub terrain: Vec<Vec<char>>,
    /// Terrain character → terrain type; every terrain character has an entry.
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

/// `move_cost` must be present even when null: a missing key is an error.
fn required_nullable<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    Option::<i64>::deserialize(d)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLegend {
    #[serde(rename = "type")]
    kind: String,
    #[serde(deserialize_with = "required_nullable")]
    move_cost: Option<i64>,
    #[serde(default)]
    blocks_los: bool,
    #[serde(default)]
    cover: bool,
    #[serde(default)]
    cover_bonus: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMap {
    name: String,
    #[serde(default)]
    square_size_ft: Option<i64>,
    terrain: String,
    legend: serde_yaml::Mapping,
    #[serde(default)]
    elevation: Option<String>,
    #[serde(default)]
    zones: Option<String>,
    #[serde(default)]
    markers: Option<serde_yaml::Mapping>,
    #[serde(default)]
    deployment: Option<serde_yaml::Mapping>,
    #[serde(default)]
    #[allow(dead_code)]
    source: Option<String>,
}

/// Builds `MapError::Field` for one file.
struct Errs<'a> {
    file: &'a str,
}

impl Errs<'_> {
    fn err(&self, field: impl Into<String>, reason: impl Into<String>) -> MapError {
        MapError::Field {
            file: self.file.to_string(),
            field: field.into(),
            reason: reason.into(),
        }
    }
}

/// Render a YAML mapping key (string, or a number/bool written unquoted) as text.
fn key_text(k: &serde_yaml::Value) -> Option<String> {
    match k {
        serde_yaml::Value::String(s) => Some(s.clone()),
        serde_yaml::Value::Number(n) => Some(n.to_string()),
        serde_yaml::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Split a `|` block into rows of chars; trailing newlines are ignored, nothing else is.
fn layer_rows(text: &str) -> Vec<Vec<char>> {
    let body = text.trim_end_matches(['\n', '\r']);
    if body.is_empty() {
        return Vec::new();
    }
    body.split('\n')
        .map(|row| row.strip_suffix('\r').unwrap_or(row).chars().collect())
        .collect()
}

/// Check a layer has the terrain's dimensions.
fn check_dims(
    e: &Errs<'_>,
    field: &str,
    layer: &[Vec<char>],
    rows: usize,
    cols: usize,
) -> Result<(), MapError> {
    if layer.len() != rows {
        return Err(e.err(
            field,
            format!("has {} rows, expected {rows} (as terrain)", layer.len()),
        ));
    }
    for (r, row) in layer.iter().enumerate() {
        if row.len() != cols {
            return Err(e.err(
                field,
                format!(
                    "row {r} has {} columns, expected {cols} (as terrain)",
                    row.len()
                ),
            ));
        }
    }
    Ok(())
}

/// Turn a serde error into a field error; `prefix` is the path of the value deserialized.
fn serde_field_error(
    e: &Errs<'_>,
    prefix: &str,
    path: &serde_path_to_error::Path,
    inner: &serde_yaml::Error,
) -> MapError {
    let msg = inner.to_string();
    let msg = super::yaml::strip_raw_path(path, &msg)
        .replace("struct RawMap", "a mapping of map fields")
        .replace("struct RawLegend", "a legend entry mapping");
    // Missing/unknown field messages name the field: "missing field `x`", "unknown field `x`".
    // The name runs to serde's own closing text, not to the next backtick (a key may hold
    // one), and the phrase must open the message or follow serde_yaml's `path: ` prefix (a
    // string value may quote it).
    let named = [
        ("unknown field `", "`, expected"),
        ("unknown field `", "`, there are no fields"),
        ("missing field `", "`"),
    ]
    .iter()
    .find_map(|(pat, close)| {
        let i = msg.find(pat)?;
        if (i != 0 && !msg[..i].ends_with(": ")) || msg[..i].contains(['"', '\'']) {
            return None;
        }
        let rest = &msg[i + pat.len()..];
        Some(rest[..rest.rfind(close)?].to_string())
    });
    let mut field = super::yaml::serde_path(prefix, path);
    if let Some(n) = named {
        // serde_path_to_error's path may already end with the named field.
        let last = super::yaml::field_path("", &n);
        let ends_with_it = field == last
            || field.ends_with(&format!(".{last}"))
            || (last.starts_with('[') && field.ends_with(&last));
        if !ends_with_it {
            super::yaml::push_key(&mut field, &n);
        }
    }
    if field.is_empty() {
        field = "(document)".to_string();
    }
    e.err(field, msg)
}

impl MapSpec {
    /// Parse and validate map YAML (the seed's "Carte (YAML)" format). `origin` names the file
    /// in errors. Unknown keys are errors; every error names the offending field.
    pub fn from_yaml_str(text: &str, origin: &str) -> Result<MapSpec, MapError> {
        let e = Errs { file: origin };
        if text.len() > MAX_TEXT_BYTES {
            return Err(e.err(
                "<root>",
                format!(
                    "the map text is {} bytes; at most {MAX_TEXT_BYTES}",
                    text.len()
                ),
            ));
        }
        if flow_nesting_depth(text) > MAX_FLOW_NESTING {
            return Err(e.err(
                "<root>",
                format!("YAML nested deeper than {MAX_FLOW_NESTING} levels"),
            ));
        }
        if let Some(tag) = crate::content::yaml::find_explicit_tag(text) {
            return Err(e.err(
                tag.path,
                format!(
                    "explicit YAML tag `{}` is not accepted: write the plain value",
                    tag.tag
                ),
            ));
        }
        let de = serde_yaml::Deserializer::from_str(text);
        let raw: RawMap = serde_path_to_error::deserialize(de)
            .map_err(|err| serde_field_error(&e, "", err.path(), err.inner()))?;

        // name
        if raw.name.trim().is_empty() {
            return Err(e.err("name", "must not be empty"));
        }

        // square_size_ft: the engine measures everything in 5-ft squares.
        let square_size_ft = raw.square_size_ft.unwrap_or(5);
        if square_size_ft != 5 {
            return Err(e.err(
                "square_size_ft",
                format!("must be 5 (the engine uses 5-ft squares), got {square_size_ft}"),
            ));
        }

        // legend
        let mut legend = BTreeMap::new();
        for (k, v) in &raw.legend {
            let Some(key) = key_text(k) else {
                return Err(e.err("legend", "keys must be single characters"));
            };
            let mut chars = key.chars();
            let ch = match (chars.next(), chars.next()) {
                (Some(c), None) => c,
                _ => {
                    return Err(e.err(
                        super::yaml::field_path("legend", &key),
                        format!("key `{key}` must be exactly one character"),
                    ))
                }
            };
            let field = super::yaml::field_path("legend", &key);
            let entry: RawLegend = serde_path_to_error::deserialize(v.clone())
                .map_err(|err| serde_field_error(&e, &field, err.path(), err.inner()))?;
            let move_cost = match entry.move_cost {
                None => None,
                Some(m) if (1..=i64::from(MAX_MOVE_COST)).contains(&m) => Some(m as u32),
                Some(m) => {
                    return Err(e.err(
                        format!("{field}.move_cost"),
                        format!(
                        "must be null (impassable) or an integer in 1..={MAX_MOVE_COST}, got {m}"
                    ),
                    ))
                }
            };
            let cover_bonus = match entry.cover_bonus {
                None => None,
                Some(b @ (2 | 4 | 8)) => Some(b as u8),
                Some(b) => {
                    return Err(e.err(
                        format!("{field}.cover_bonus"),
                        format!("must be 2 (partial), 4 (standard) or 8 (improved), got {b}"),
                    ))
                }
            };
            if legend.contains_key(&ch) {
                return Err(e.err(field, format!("character `{ch}` is defined twice")));
            }
            legend.insert(
                ch,
                TerrainType {
                    kind: entry.kind,
                    move_cost,
                    blocks_los: entry.blocks_los,
                    cover: entry.cover,
                    cover_bonus,
                },
            );
        }

        // terrain
        let terrain = layer_rows(&raw.terrain);
        if terrain.is_empty() {
            return Err(e.err("terrain", "is empty"));
        }
        let rows = terrain.len();
        let cols = terrain[0].len();
        if cols == 0 {
            return Err(e.err("terrain", "row 0 is empty"));
        }
        for (r, row) in terrain.iter().enumerate() {
            if row.len() != cols {
                return Err(e.err(
                    "terrain",
                    format!("row {r} has {} columns, expected {cols}", row.len()),
                ));
            }
        }
        if rows > MAX_SIDE || cols > MAX_SIDE {
            return Err(e.err(
                "terrain",
                format!("is {rows} rows × {cols} columns; at most {MAX_SIDE} × {MAX_SIDE} squares"),
            ));
        }
        for (r, row) in terrain.iter().enumerate() {
            for (c, ch) in row.iter().enumerate() {
                if !legend.contains_key(ch) {
                    return Err(e.err(
                        "terrain",
                        format!("character `{ch}` at row {r}, col {c} is not in the legend"),
                    ));
                }
            }
        }

        // elevation
        let elevation = match &raw.elevation {
            None => vec![vec![0; cols]; rows],
            Some(text) => {
                let layer = layer_rows(text);
                check_dims(&e, "elevation", &layer, rows, cols)?;
                let mut out = Vec::with_capacity(rows);
                for (r, row) in layer.iter().enumerate() {
                    let mut line = Vec::with_capacity(cols);
                    for (c, &ch) in row.iter().enumerate() {
                        let h = match ch {
                            '.' => 0,
                            d if d.is_ascii_digit() => d as i32 - '0' as i32,
                            other => {
                                return Err(e.err(
                                    "elevation",
                                    format!(
                                        "character `{other}` at row {r}, col {c}: \
                                         expected a digit or `.`"
                                    ),
                                ))
                            }
                        };
                        line.push(h);
                    }
                    out.push(line);
                }
                out
            }
        };

        // zones
        let zones = match &raw.zones {
            None => vec![vec![None; cols]; rows],
            Some(text) => {
                let layer = layer_rows(text);
                check_dims(&e, "zones", &layer, rows, cols)?;
                let mut out = Vec::with_capacity(rows);
                for (r, row) in layer.iter().enumerate() {
                    let mut line = Vec::with_capacity(cols);
                    for (c, &ch) in row.iter().enumerate() {
                        let z = match ch {
                            '.' => None,
                            l if l.is_ascii_alphabetic() => Some(l),
                            other => {
                                return Err(e.err(
                                    "zones",
                                    format!(
                                        "character `{other}` at row {r}, col {c}: \
                                         expected a letter or `.`"
                                    ),
                                ))
                            }
                        };
                        line.push(z);
                    }
                    out.push(line);
                }
                out
            }
        };

        // markers
        let mut markers: Vec<(String, Cell)> = Vec::new();
        for (k, v) in raw.markers.iter().flatten() {
            let Some(name) = key_text(k) else {
                return Err(e.err("markers", "marker names must be strings"));
            };
            let field = super::yaml::field_path("markers", &name);
            if markers.iter().any(|(n, _)| *n == name) {
                return Err(e.err(field, format!("marker `{name}` is defined twice")));
            }
            let pos: [i64; 2] = serde_yaml::from_value(v.clone()).map_err(|err| {
                e.err(
                    field.clone(),
                    format!("expected [row, col] integers: {err}"),
                )
            })?;
            if !(0..rows as i64).contains(&pos[0]) || !(0..cols as i64).contains(&pos[1]) {
                return Err(e.err(
                    field,
                    format!(
                        "[{}, {}] is outside the map ({rows} rows × {cols} columns)",
                        pos[0], pos[1]
                    ),
                ));
            }
            markers.push((name, Cell::new(pos[0] as i32, pos[1] as i32)));
        }

        // deployment
        let mut deployment: Vec<(String, char)> = Vec::new();
        match (&raw.deployment, &raw.zones) {
            (Some(_), None) => {
                return Err(e.err("deployment", "requires the `zones` layer"));
            }
            (None, Some(_)) => {
                return Err(e.err(
                    "deployment",
                    "is required when `zones` is present (side name -> zone letter)",
                ));
            }
            _ => {}
        }
        let listed = raw.deployment.as_ref().map_or(0, |d| d.len());
        let max_sides = crate::content::encounter::MAX_SIDES;
        if listed > max_sides {
            return Err(e.err(
                "deployment",
                format!("{listed} sides listed: at most {max_sides}"),
            ));
        }
        for (k, v) in raw.deployment.iter().flatten() {
            let Some(side) = key_text(k) else {
                return Err(e.err("deployment", "side names must be strings"));
            };
            let field = super::yaml::field_path("deployment", &side);
            if deployment.iter().any(|(s, _)| *s == side) {
                return Err(e.err(field, format!("side `{side}` is listed twice")));
            }
            let letter = match v {
                serde_yaml::Value::String(s) => {
                    let mut cs = s.chars();
                    match (cs.next(), cs.next()) {
                        (Some(c), None) if c.is_ascii_alphabetic() => c,
                        _ => {
                            return Err(e.err(field, format!("expected one zone letter, got `{s}`")))
                        }
                    }
                }
                _ => return Err(e.err(field, "expected one zone letter")),
            };
            if !zones.iter().flatten().any(|z| *z == Some(letter)) {
                return Err(e.err(
                    field,
                    format!("zone letter `{letter}` does not occur in `zones`"),
                ));
            }
            if let Some((other, _)) = deployment.iter().find(|(_, l)| *l == letter) {
                return Err(e.err(
                    "deployment",
                    format!("sides `{other}` and `{side}` share zone letters (`{letter}`)"),
                ));
            }
            deployment.push((side, letter));
        }
        if raw.zones.is_some() && deployment.is_empty() {
            return Err(e.err("deployment", "must name at least one side"));
        }

        Ok(MapSpec {
            name: raw.name,
            square_size_ft: 5,
            rows: rows as i32,
            cols: cols as i32,
            terrain,
            legend,
            elevation,
            zones,
            markers,
            deployment,
        })
    }

    /// Read (at most [`MAX_TEXT_BYTES`], through a bounded reader), parse and validate a map
    /// file; an I/O error names the file, a longer file is a `<root>` field error.
    pub fn load(path: &Path) -> Result<MapSpec, MapError> {
        let file = path.display().to_string();
        let text =
            crate::content::read_text_bounded(path, MAX_TEXT_BYTES).map_err(|e| match e {
                crate::content::ReadError::Io(source) => MapError::Io {
                    file: file.clone(),
                    source,
                },
                other => MapError::Field {
                    file: file.clone(),
                    field: "<root>".into(),
                    reason: other.to_string(),
                },
            })?;
        MapSpec::from_yaml_str(&text, &file)
    }

    /// Whether `cell` lies on the map.
    pub fn in_bounds(&self, cell: Cell) -> bool {
        (0..self.rows).contains(&cell.row) && (0..self.cols).contains(&cell.col)
    }

    /// The terrain type at `cell` (caller guarantees in bounds). Outside the map (or for a
    /// character missing from a hand-built legend) returns an impassable, LoE-blocking
    /// terrain with an empty `kind` instead of panicking.
    pub fn terrain_at(&self, cell: Cell) -> &TerrainType {
        if cell.row < 0 || cell.col < 0 {
            return &OUTSIDE;
        }
        self.terrain
            .get(cell.row as usize)
            .and_then(|row| row.get(cell.col as usize))
            .and_then(|ch| self.legend.get(ch))
            .unwrap_or(&OUTSIDE)
    }

    /// Cells of zone `letter` in (row, col) order.
    pub fn zone_cells(&self, letter: char) -> Vec<Cell> {
        let mut out = Vec::new();
        for (r, row) in self.zones.iter().enumerate() {
            for (c, z) in row.iter().enumerate() {
                if *z == Some(letter) {
                    out.push(Cell::new(r as i32, c as i32));
                }
            }
        }
        out
    }

    /// The position of marker `name`, if defined.
    pub fn marker(&self, name: &str) -> Option<Cell> {
        self.markers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| *c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's sample arena ("Formats de données — Carte (YAML)"), verbatim layers.
    const SAMPLE_ARENA: &str = r##"name: "Arène d'essai"
square_size_ft: 5
terrain: | # couche obligatoire
  ####################
  #......######......#
  #..C...######...C..#
  #......~..~........#
  #..TT..~..~...TT...#
  #......~..~........#
  #..C............C..#
  ####################
legend: # un caractère = un type de terrain
  "#": { type: wall, move_cost: null, blocks_los: true } # bloque déplacement + LoS
  ".": { type: floor, move_cost: 1 }
  "T": { type: rubble, move_cost: 2 } # terrain difficile
  "~": { type: water, move_cost: 2 }
  "C": { type: pillar, move_cost: null, cover: true } # bloque le pas, couvert (+4)
  "W": { type: ruin, move_cost: null, cover_bonus: 2 } # couvert partiel (+2)
elevation: | # optionnel : chiffres = hauteur
  ....................
  ..1111..............
  ..1111..............
  ....................
  ....................
  ....................
  ....................
  ....................
zones: | # optionnel : lettres de zone de déploiement
  ....................
  .AAAA..........BBBB.
  .AAAA..........BBBB.
  ....................
  ....................
  ....................
  ....................
  ....................
markers: # optionnel : points nommés
  autel: [1, 16]
deployment: # obligatoire si zones : nom de camp -> lettre de zone
  players: A
  monsters: B
"##;

    fn field_of(text: &str) -> (String, String) {
        match MapSpec::from_yaml_str(text, "test.yaml") {
            Err(MapError::Field {
                field,
                reason,
                file,
            }) => {
                assert_eq!(file, "test.yaml");
                (field, reason)
            }
            other => panic!("expected a field error, got {other:?}"),
        }
    }

    fn with(old: &str, new: &str) -> String {
        assert!(SAMPLE_ARENA.contains(old), "sample lacks {old:?}");
        SAMPLE_ARENA.replacen(old, new, 1)
    }

    #[test]
    fn sample_arena_parses() {
        let m = MapSpec::from_yaml_str(SAMPLE_ARENA, "arena.yaml").unwrap();
        assert_eq!(m.name, "Arène d'essai");
        assert_eq!(m.square_size_ft, 5);
        assert_eq!((m.rows, m.cols), (8, 20));
        assert_eq!(
            m.terrain[0].iter().collect::<String>(),
            "####################"
        );
        assert_eq!(m.terrain[2][3], 'C');
        assert_eq!(m.legend.len(), 6);
        assert_eq!(m.terrain_at(Cell::new(4, 3)).kind, "rubble");
        assert_eq!(m.terrain_at(Cell::new(4, 3)).move_cost, Some(2));
        assert_eq!(m.terrain_at(Cell::new(0, 0)).move_cost, None);
        assert!(m.terrain_at(Cell::new(0, 0)).blocks_los);
        assert_eq!(m.elevation[1][2], 1);
        assert_eq!(m.elevation[1][6], 0);
        assert_eq!(m.zones[1][1], Some('A'));
        assert_eq!(m.zones[0][0], None);
        assert_eq!(m.markers, vec![("autel".to_string(), Cell::new(1, 16))]);
        assert_eq!(m.marker("autel"), Some(Cell::new(1, 16)));
        assert_eq!(
            m.deployment,
            vec![("players".to_string(), 'A'), ("monsters".to_string(), 'B')]
        );
        assert_eq!(m.zone_cells('A').len(), 8);
        assert_eq!(m.zone_cells('A')[0], Cell::new(1, 1));
        assert_eq!(m.zone_cells('B')[7], Cell::new(2, 18));
        assert!(m.zone_cells('Z').is_empty());
    }

    // CRB — Combat: Cover: partial +2, standard +4, improved +8.
    #[test]
    fn effective_cover_bonus_levels() {
        let m = MapSpec::from_yaml_str(SAMPLE_ARENA, "arena.yaml").unwrap();
        assert_eq!(m.legend[&'#'].effective_cover_bonus(), 4);
        assert_eq!(m.legend[&'C'].effective_cover_bonus(), 4);
        assert_eq!(m.legend[&'W'].effective_cover_bonus(), 2);
        assert_eq!(m.legend[&'.'].effective_cover_bonus(), 0);
        let t = TerrainType {
            kind: "x".into(),
            move_cost: None,
            blocks_los: true,
            cover: true,
            cover_bonus: Some(8),
        };
        assert_eq!(t.effective_cover_bonus(), 8);
    }

    #[test]
    fn terrain_at_outside_does_not_panic() {
        let m = MapSpec::from_yaml_str(SAMPLE_ARENA, "arena.yaml").unwrap();
        assert_eq!(m.terrain_at(Cell::new(-1, 0)).move_cost, None);
        assert_eq!(m.terrain_at(Cell::new(8, 0)).move_cost, None);
        assert_eq!(m.terrain_at(Cell::new(0, 99)).move_cost, None);
        assert!(!m.in_bounds(Cell::new(8, 0)));
        assert!(m.in_bounds(Cell::new(7, 19)));
    }

    #[test]
    fn minimal_map_and_defaults() {
        let m = MapSpec::from_yaml_str(
            "name: tiny\nterrain: |\n  ..\n  ..\nlegend:\n  \".\": { type: floor, move_cost: 1 }\n",
            "t",
        )
        .unwrap();
        assert_eq!((m.rows, m.cols, m.square_size_ft), (2, 2, 5));
        assert_eq!(m.elevation, vec![vec![0, 0], vec![0, 0]]);
        assert_eq!(m.zones, vec![vec![None, None], vec![None, None]]);
        assert!(m.markers.is_empty() && m.deployment.is_empty());
        // Provenance is accepted.
        assert!(MapSpec::from_yaml_str(
            "name: t\nsource: CRB\nterrain: \".\"\nlegend:\n  \".\": { type: floor, move_cost: 1 }\n",
            "t"
        )
        .is_ok());
    }

    #[test]
    fn file_order_of_markers_and_deployment_is_kept() {
        let text = with(
            "  autel: [1, 16]\n",
            "  zeta: [1, 1]\n  autel: [1, 16]\n  alpha: [3, 3]\n",
        );
        let text = text.replace(
            "  players: A\n  monsters: B\n",
            "  monsters: B\n  players: A\n",
        );
        let m = MapSpec::from_yaml_str(&text, "t").unwrap();
        let names: Vec<&str> = m.markers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["zeta", "autel", "alpha"]);
        assert_eq!(m.deployment[0], ("monsters".to_string(), 'B'));
    }

    #[test]
    fn malformed_terrain_not_rectangular() {
        let (f, r) = field_of(&with("  #..TT..~..~...TT...#\n", "  #..TT..~..~...TT..#\n"));
        assert_eq!(f, "terrain");
        assert_eq!(r, "row 4 has 19 columns, expected 20");
    }

    #[test]
    fn malformed_terrain_unknown_char() {
        let (f, r) = field_of(&with(
            "  #..C...######...C..#\n",
            "  #..C...######...X..#\n",
        ));
        assert_eq!(f, "terrain");
        assert!(r.contains("`X`") && r.contains("row 2, col 16"), "{r}");
    }

    #[test]
    fn malformed_terrain_missing_or_empty() {
        let (f, r) = field_of("name: x\nlegend: {}\n");
        assert_eq!(f, "terrain", "{r}");
        let (f, _) = field_of("name: x\nterrain: \"\"\nlegend: {}\n");
        assert_eq!(f, "terrain");
    }

    #[test]
    fn malformed_unknown_top_level_key() {
        let (f, r) = field_of(&with("square_size_ft: 5\n", "square_size_ft: 5\nfoo: 1\n"));
        assert_eq!(f, "foo", "{r}");
    }

    #[test]
    fn malformed_unknown_legend_key() {
        let (f, r) = field_of(&with(
            "{ type: floor, move_cost: 1 }",
            "{ type: floor, move_cost: 1, slippery: true }",
        ));
        assert_eq!(f, r#"legend["."].slippery"#, "{r}");
    }

    // CRB — Combat: Difficult Terrain: move_cost is required (null = impassable) and >= 1.
    #[test]
    fn malformed_move_cost() {
        let (f, r) = field_of(&with("{ type: floor, move_cost: 1 }", "{ type: floor }"));
        assert_eq!(f, r#"legend["."].move_cost"#, "{r}");
        let (f, _) = field_of(&with(
            "{ type: floor, move_cost: 1 }",
            "{ type: floor, move_cost: 0 }",
        ));
        assert_eq!(f, r#"legend["."].move_cost"#);
        let (f, _) = field_of(&with(
            "{ type: floor, move_cost: 1 }",
            "{ type: floor, move_cost: -2 }",
        ));
        assert_eq!(f, r#"legend["."].move_cost"#);
    }

    // CRB — Combat: Cover: only +2, +4, +8 exist.
    #[test]
    fn malformed_cover_bonus() {
        let (f, r) = field_of(&with("cover_bonus: 2 }", "cover_bonus: 3 }"));
        assert_eq!(f, "legend.W.cover_bonus");
        assert!(r.contains("got 3"));
    }

    #[test]
    fn malformed_legend_key_length() {
        let (f, r) = field_of(&with("\"W\": { type: ruin", "\"WW\": { type: ruin"));
        assert_eq!(f, "legend.WW");
        assert!(r.contains("exactly one character"));
    }

    // CRB — Combat: Tactical Movement: 5-foot squares.
    #[test]
    fn malformed_square_size() {
        let (f, r) = field_of(&with("square_size_ft: 5", "square_size_ft: 10"));
        assert_eq!(f, "square_size_ft");
        assert!(r.contains("must be 5"));
    }

    #[test]
    fn malformed_elevation() {
        let (f, r) = field_of(&with(
            "  ..1111..............\n  ..1111",
            "  ..1111..............\n  ..11x1",
        ));
        assert_eq!(f, "elevation");
        assert!(r.contains("`x`") && r.contains("row 2, col 4"), "{r}");
        // Wrong number of rows.
        let (f, r) = field_of(&with(
            "elevation: | # optionnel : chiffres = hauteur\n  ....................\n",
            "elevation: | # optionnel : chiffres = hauteur\n",
        ));
        assert_eq!(f, "elevation");
        assert!(r.contains("7 rows, expected 8"), "{r}");
    }

    #[test]
    fn malformed_zones() {
        let (f, r) = field_of(&with(
            ".AAAA..........BBBB.\n  .AAAA",
            ".AAAA..........BBBB.\n  .AA1A",
        ));
        assert_eq!(f, "zones");
        assert!(r.contains("`1`"), "{r}");
        let (f, r) = field_of(&with(
            ".AAAA..........BBBB.\n  .AAAA",
            ".AAAA..........BBBB.\n  .AAAAA",
        ));
        assert_eq!(f, "zones");
        assert!(r.contains("row 2 has 21 columns"), "{r}");
    }

    #[test]
    fn malformed_markers() {
        let (f, r) = field_of(&with("autel: [1, 16]", "autel: [8, 16]"));
        assert_eq!(f, "markers.autel");
        assert!(r.contains("outside"), "{r}");
        let (f, _) = field_of(&with("autel: [1, 16]", "autel: [1]"));
        assert_eq!(f, "markers.autel");
        let (f, _) = field_of(&with("autel: [1, 16]", "autel: [1, -1]"));
        assert_eq!(f, "markers.autel");
    }

    #[test]
    fn malformed_deployment() {
        // Missing although zones are present.
        let (f, _) = field_of(&with("deployment: # obligatoire si zones : nom de camp -> lettre de zone\n  players: A\n  monsters: B\n", ""));
        assert_eq!(f, "deployment");
        // Letter absent from zones.
        let (f, r) = field_of(&with("monsters: B", "monsters: C"));
        assert_eq!(f, "deployment.monsters");
        assert!(r.contains("`C`"));
        // Two sides on one zone.
        let (f, r) = field_of(&with("monsters: B", "monsters: A"));
        assert_eq!(f, "deployment");
        assert!(r.contains("share zone letters"), "{r}");
        // Not a single letter.
        let (f, _) = field_of(&with("monsters: B", "monsters: BB"));
        assert_eq!(f, "deployment.monsters");
        // Deployment without zones.
        let no_zones = "name: x\nterrain: \".\"\nlegend:\n  \".\": { type: floor, move_cost: 1 }\ndeployment:\n  players: A\n";
        let (f, r) = field_of(no_zones);
        assert_eq!(f, "deployment");
        assert!(r.contains("zones"));
    }

    #[test]
    fn malformed_name() {
        let (f, _) = field_of(&with("name: \"Arène d'essai\"", "name: \"  \""));
        assert_eq!(f, "name");
        let (f, _) = field_of(&with("name: \"Arène d'essai\"\n", ""));
        assert_eq!(f, "name");
    }

    #[test]
    fn malformed_yaml_and_wrong_types_do_not_panic() {
        for text in [
            "",
            "- a\n- b\n",
            "name: [unclosed",
            "name: x\nterrain: 5\nlegend: []\n",
            ":::",
        ] {
            assert!(MapSpec::from_yaml_str(text, "t").is_err(), "{text:?}");
        }
    }

    #[test]
    fn load_names_the_file() {
        let err = MapSpec::load(Path::new("/nonexistent/dir/arena.yaml")).unwrap_err();
        assert!(matches!(err, MapError::Io { .. }));
        assert!(err.to_string().contains("/nonexistent/dir/arena.yaml"));
        assert_eq!(err.field(), None);
        let dir = std::env::temp_dir().join(format!("pf1e-map-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("arena.yaml");
        std::fs::write(&path, SAMPLE_ARENA).unwrap();
        assert_eq!(MapSpec::load(&path).unwrap().cols, 20);
        std::fs::write(&path, with("square_size_ft: 5", "square_size_ft: 3")).unwrap();
        let err = MapSpec::load(&path).unwrap_err();
        assert!(err.to_string().contains("arena.yaml"), "{err}");
        assert_eq!(err.field(), Some("square_size_ft"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
