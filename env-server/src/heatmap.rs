//! Win-rate heatmaps over a grid map, rendered as PNG or SVG with [`plotters`].
//!
//! A [`Heatmap`] is a map of 5-ft squares (row 0 at the top, column 0 at the left, like the
//! text layers of a map YAML) with impassable squares drawn dark grey, squares that are not
//! evaluated drawn light grey, and evaluated squares ([`HeatmapCell`]) coloured on the viridis
//! scale by their value, a proportion in `[0, 1]` (a win rate), with the percentage written in
//! the square when the square is big enough. The map's terrain is drawn over it (difficult
//! terrain hatched, high ground marked with a corner triangle) and the [`HeatmapMarker`]s
//! (the enemies' start squares) as red discs. The colour scale is **fitted to the data**
//! ([`fitted_scale`]: the values' range widened to whole 5 % steps, at least 10 points wide),
//! so that 55 % and 63 % get distinct colours; the colour bar shows that scale with its
//! ticks, and a line under the legend says it. The title and the row/column indices complete
//! the picture.
//!
//! Rendering is pure Rust: text uses the bundled DejaVu Sans font
//! (`env-server/assets/fonts/DejaVuSans.ttf`, Bitstream Vera licence, see
//! `DejaVuSans-LICENSE.txt` next to it) through plotters' `ab_glyph` feature, so no system
//! font library (fontconfig, freetype) is needed. The output is deterministic: the same
//! heatmap gives the same bytes.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontDesc, FontFamily, FontStyle, FontTransform};

/// Largest accepted map side, in squares (rows and columns each).
pub const MAX_SIDE: i32 = 256;

/// Font family name under which the bundled font is registered with plotters; it is also the
/// CSS `font-family` written into SVG output (DejaVu Sans where installed, else any sans).
const FONT_FAMILY: &str = "DejaVu Sans, sans-serif";
/// DejaVu Sans Book, DejaVu fonts 2.37 (Bitstream Vera licence; DejaVu changes public domain).
static FONT_BYTES: &[u8] = include_bytes!("../assets/fonts/DejaVuSans.ttf");

/// One evaluated square of the map and its value.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HeatmapCell {
    /// Row of the square (0 = top row of the map), in 5-ft squares.
    pub row: i32,
    /// Column of the square (0 = leftmost column of the map), in 5-ft squares.
    pub col: i32,
    /// The value shown: a proportion in `[0, 1]` (e.g. a win rate), drawn as a percentage.
    pub value: f64,
    /// Number of runs (episodes) the value was estimated from; carried as data, not drawn.
    pub runs: u64,
}

/// A heatmap over a grid map: the map's size, its impassable squares and the evaluated squares.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Heatmap {
    /// Title drawn above the map, e.g.
    /// `"goblin-2: players win rate by start cell (1000 runs per placement)"`.
    pub title: String,
    /// Number of rows of the map, in 5-ft squares (1..=[`MAX_SIDE`]).
    pub rows: i32,
    /// Number of columns of the map, in 5-ft squares (1..=[`MAX_SIDE`]).
    pub cols: i32,
    /// Impassable squares as `(row, col)`, drawn dark grey. Duplicates are harmless.
    pub walls: Vec<(i32, i32)>,
    /// Evaluated squares; at most one per square, none on a wall.
    pub cells: Vec<HeatmapCell>,
    /// Label of the colour bar, e.g. `"players win rate"`.
    pub value_label: String,
    /// Difficult terrain `(row, col)` (CRB — Movement: Difficult Terrain), drawn hatched.
    pub difficult: Vec<(i32, i32)>,
    /// Squares above the map's lowest elevation `(row, col)`, marked with a corner triangle.
    pub elevated: Vec<(i32, i32)>,
    /// Marked squares, e.g. the enemies' start squares, drawn as red discs.
    pub markers: Vec<HeatmapMarker>,
}

/// A marked square of a heatmap (an enemy's start square).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HeatmapMarker {
    /// Row of the square, in 5-ft squares.
    pub row: i32,
    /// Column of the square, in 5-ft squares.
    pub col: i32,
    /// What is there (a combatant id), written in the disc when the square is big enough
    /// (its first two characters).
    pub label: String,
}

/// The colour scale of values `values` (proportions in `[0, 1]`): from the smallest value
/// rounded down to a whole 5 % to the largest rounded up, widened around its middle to at
/// least 10 points (within `[0, 1]`); `[0, 1]` without values.
pub fn fitted_scale(values: impl IntoIterator<Item = f64>) -> [f64; 2] {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() || !hi.is_finite() {
        return [0.0, 1.0];
    }
    // Whole percents first, so that 0.55 (0.5500000000000000444) stays 55 %.
    let (lo_pct, hi_pct) = ((lo * 100.0).round() as i64, (hi * 100.0).round() as i64);
    let mut lo_pct = (lo_pct.div_euclid(5) * 5).clamp(0, 100);
    let mut hi_pct = ((hi_pct + 4).div_euclid(5) * 5).clamp(0, 100);
    while hi_pct - lo_pct < 10 {
        if lo_pct > 0 {
            lo_pct -= 5;
        }
        if hi_pct - lo_pct < 10 && hi_pct < 100 {
            hi_pct += 5;
        }
    }
    [lo_pct as f64 / 100.0, hi_pct as f64 / 100.0]
}

/// Why a heatmap could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum HeatmapError {
    /// The heatmap is invalid; `field` names the offending field (e.g. `cells[3].value`).
    #[error("invalid heatmap: {field}: {reason}")]
    Invalid {
        /// The offending field, e.g. `rows`, `walls[2]`, `cells[3].value`.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Writing the output file failed.
    #[error("cannot write heatmap {}: {reason}", path.display())]
    Io {
        /// The output file.
        path: PathBuf,
        /// The underlying error.
        reason: String,
    },
    /// The drawing backend (or the bundled font) failed while rendering.
    #[error("cannot render heatmap{}: {reason}", path.as_ref().map(|p| format!(" {}", p.display())).unwrap_or_default())]
    Render {
        /// The output file, when rendering to a file.
        path: Option<PathBuf>,
        /// The underlying error.
        reason: String,
    },
}

/// Renders `h` as a PNG image (8-bit RGB) written to `path`, whatever its extension (the file
/// is created or replaced).
///
/// # Errors
///
/// [`HeatmapError::Invalid`] when the heatmap is invalid (see [`render_svg_string`]),
/// [`HeatmapError::Io`] when the file cannot be written, [`HeatmapError::Render`] when drawing
/// fails.
pub fn render_png(h: &Heatmap, path: &Path) -> Result<(), HeatmapError> {
    let bytes = render_png_bytes(h).map_err(|e| match e {
        HeatmapError::Render { path: None, reason } => HeatmapError::Render {
            path: Some(path.to_path_buf()),
            reason,
        },
        other => other,
    })?;
    std::fs::write(path, bytes).map_err(|e| HeatmapError::Io {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Renders `h` as PNG file contents (8-bit RGB), what [`render_png`] writes.
///
/// # Errors
///
/// [`HeatmapError::Invalid`] when the heatmap is invalid (see [`render_svg_string`]),
/// [`HeatmapError::Render`] (without a path) when drawing or encoding fails.
pub fn render_png_bytes(h: &Heatmap) -> Result<Vec<u8>, HeatmapError> {
    let squares = validate(h)?;
    let layout = Layout::new(h)?;
    let render_err = |e: &dyn std::fmt::Display| HeatmapError::Render {
        path: None,
        reason: e.to_string(),
    };
    let (w, ht) = (layout.width, layout.height);
    let mut pixels = vec![0u8; 3 * w as usize * ht as usize];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (w, ht)).into_drawing_area();
        draw(&root, h, &squares, &layout, BITMAP_TEXT_SHIFT).map_err(|e| render_err(&e))?;
        root.present().map_err(|e| render_err(&e))?;
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, ht);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| render_err(&e))?;
    writer
        .write_image_data(&pixels)
        .map_err(|e| render_err(&e))?;
    writer.finish().map_err(|e| render_err(&e))?;
    Ok(out)
}

/// Renders `h` as an SVG document written to `path` (the file is created or replaced).
///
/// # Errors
///
/// As [`render_png`].
pub fn render_svg(h: &Heatmap, path: &Path) -> Result<(), HeatmapError> {
    let svg = render_svg_string(h).map_err(|e| match e {
        HeatmapError::Render { path: None, reason } => HeatmapError::Render {
            path: Some(path.to_path_buf()),
            reason,
        },
        other => other,
    })?;
    std::fs::write(path, svg).map_err(|e| HeatmapError::Io {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Renders `h` as an SVG document and returns it. Text is SVG `<text>` in the font family
/// `DejaVu Sans, sans-serif`, laid out by the viewer.
///
/// # Errors
///
/// [`HeatmapError::Invalid`] when `rows` or `cols` is outside `1..=`[`MAX_SIDE`], a wall or a
/// cell lies outside the grid, a cell's value is not finite or not in `[0, 1]`, two cells
/// share a square, or a cell lies on a wall; [`HeatmapError::Render`] when drawing fails.
pub fn render_svg_string(h: &Heatmap) -> Result<String, HeatmapError> {
    let squares = validate(h)?;
    let layout = Layout::new(h)?;
    let mut out = String::new();
    {
        let root =
            SVGBackend::with_string(&mut out, (layout.width, layout.height)).into_drawing_area();
        draw(&root, h, &squares, &layout, 0.0).map_err(|e| HeatmapError::Render {
            path: None,
            reason: e.to_string(),
        })?;
        root.present().map_err(|e| HeatmapError::Render {
            path: None,
            reason: e.to_string(),
        })?;
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Validation

fn invalid(field: impl Into<String>, reason: impl Into<String>) -> HeatmapError {
    HeatmapError::Invalid {
        field: field.into(),
        reason: reason.into(),
    }
}

/// What each square of the map is.
#[derive(Clone, Copy, PartialEq)]
enum Square {
    Empty,
    Wall(usize),
    Valued(usize),
}

/// Checks `h` and returns its squares, row-major.
fn validate(h: &Heatmap) -> Result<Vec<Square>, HeatmapError> {
    for (field, n) in [("rows", h.rows), ("cols", h.cols)] {
        if n < 1 {
            return Err(invalid(field, format!("must be at least 1 (got {n})")));
        }
        if n > MAX_SIDE {
            return Err(invalid(
                field,
                format!("must be at most {MAX_SIDE} (got {n})"),
            ));
        }
    }
    let in_grid = |r: i32, c: i32| (0..h.rows).contains(&r) && (0..h.cols).contains(&c);
    let outside = |r: i32, c: i32| {
        format!(
            "(row {r}, col {c}) is outside the {}x{} grid (rows x cols)",
            h.rows, h.cols
        )
    };
    let idx = |r: i32, c: i32| (r * h.cols + c) as usize;
    let mut squares = vec![Square::Empty; (h.rows * h.cols) as usize];
    for (i, &(r, c)) in h.walls.iter().enumerate() {
        if !in_grid(r, c) {
            return Err(invalid(format!("walls[{i}]"), outside(r, c)));
        }
        if squares[idx(r, c)] == Square::Empty {
            squares[idx(r, c)] = Square::Wall(i);
        }
    }
    for (field, list) in [("difficult", &h.difficult), ("elevated", &h.elevated)] {
        for (i, &(r, c)) in list.iter().enumerate() {
            if !in_grid(r, c) {
                return Err(invalid(format!("{field}[{i}]"), outside(r, c)));
            }
        }
    }
    for (i, m) in h.markers.iter().enumerate() {
        if !in_grid(m.row, m.col) {
            return Err(invalid(format!("markers[{i}]"), outside(m.row, m.col)));
        }
    }
    for (i, cell) in h.cells.iter().enumerate() {
        let (r, c) = (cell.row, cell.col);
        if !in_grid(r, c) {
            return Err(invalid(format!("cells[{i}]"), outside(r, c)));
        }
        if !cell.value.is_finite() {
            return Err(invalid(
                format!("cells[{i}].value"),
                format!("must be a finite number (got {})", cell.value),
            ));
        }
        if !(0.0..=1.0).contains(&cell.value) {
            return Err(invalid(
                format!("cells[{i}].value"),
                format!("must be a proportion in [0, 1] (got {})", cell.value),
            ));
        }
        match squares[idx(r, c)] {
            Square::Empty => squares[idx(r, c)] = Square::Valued(i),
            Square::Wall(j) => {
                return Err(invalid(
                    format!("cells[{i}]"),
                    format!("(row {r}, col {c}) is a wall (walls[{j}])"),
                ))
            }
            Square::Valued(j) => {
                return Err(invalid(
                    format!("cells[{i}]"),
                    format!("(row {r}, col {c}) is already given by cells[{j}]"),
                ))
            }
        }
    }
    Ok(squares)
}

// ---------------------------------------------------------------------------------------------
// Colours

const BACKGROUND: RGBColor = RGBColor(255, 255, 255);
const WALL: RGBColor = RGBColor(64, 64, 64);
const EMPTY: RGBColor = RGBColor(232, 232, 232);
const GRID_LINE: RGBColor = RGBColor(255, 255, 255);
const FRAME: RGBColor = RGBColor(150, 150, 150);
const TEXT: RGBColor = RGBColor(32, 32, 32);
const HATCH: RGBColor = RGBColor(90, 60, 30);
const MARKER: RGBColor = RGBColor(214, 39, 40);

/// Viridis (matplotlib) sampled at 0.0, 0.1, …, 1.0; interpolated linearly in between.
const VIRIDIS: [(u8, u8, u8); 11] = [
    (68, 1, 84),
    (72, 36, 117),
    (65, 68, 135),
    (53, 95, 141),
    (42, 120, 142),
    (33, 145, 140),
    (34, 168, 132),
    (68, 191, 112),
    (122, 209, 81),
    (189, 223, 38),
    (253, 231, 37),
];

/// The viridis colour of a proportion `v` (clamped to `[0, 1]`).
fn viridis(v: f64) -> RGBColor {
    let x = v.clamp(0.0, 1.0) * (VIRIDIS.len() - 1) as f64;
    let i = (x.floor() as usize).min(VIRIDIS.len() - 2);
    let t = x - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    let mix = |p: u8, q: u8| (p as f64 + (q as f64 - p as f64) * t).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Black or white, whichever reads better on `bg`.
fn text_on(bg: RGBColor) -> RGBColor {
    let luma = 0.2126 * bg.0 as f64 + 0.7152 * bg.1 as f64 + 0.0722 * bg.2 as f64;
    if luma > 140.0 {
        RGBColor(0, 0, 0)
    } else {
        RGBColor(255, 255, 255)
    }
}

/// A proportion as a whole percentage, rounded half up: `0.125` → `"13%"`.
fn percent(v: f64) -> String {
    format!("{}%", (v * 100.0).round() as i64)
}

// ---------------------------------------------------------------------------------------------
// Fonts and layout

fn ensure_font() -> Result<(), HeatmapError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED
        .get_or_init(|| register_font(FONT_FAMILY, FontStyle::Normal, FONT_BYTES).is_ok());
    if ok {
        Ok(())
    } else {
        Err(HeatmapError::Render {
            path: None,
            reason: "the bundled font DejaVuSans.ttf could not be loaded".into(),
        })
    }
}

fn font(size: f64) -> FontDesc<'static> {
    FontDesc::new(FontFamily::Name(FONT_FAMILY), size, FontStyle::Normal)
}

/// Width in pixels of `text` at `size` (plotters' font size units).
fn text_width(text: &str, size: f64) -> Result<i32, HeatmapError> {
    font(size)
        .box_size(text)
        .map(|(w, _)| w as i32)
        .map_err(|e| HeatmapError::Render {
            path: None,
            reason: format!("cannot measure text: {e}"),
        })
}

/// plotters' `ab_glyph` text sits higher than its layout box says: this fraction of the font
/// size moves a vertically centred label down so that digits and capitals are centred (SVG
/// output is centred by the viewer and needs no shift).
const BITMAP_TEXT_SHIFT: f64 = 0.216;

/// Pixel positions of everything drawn, computed once per heatmap.
struct Layout {
    width: u32,
    height: u32,
    /// Side of one map square, in pixels.
    cell: i32,
    grid_x: i32,
    grid_y: i32,
    /// The title, wrapped to the picture's width.
    title_lines: Vec<String>,
    title_size: f64,
    /// Centre of the first title line, and the distance between lines.
    title_y: i32,
    title_line_h: i32,
    axis_size: f64,
    /// Label every `axis_step`-th row/column index.
    axis_step: i32,
    /// Font size of the percentage in each evaluated square, if it fits.
    value_size: Option<f64>,
    bar_x: i32,
    bar_y: i32,
    bar_w: i32,
    bar_h: i32,
    tick_x: i32,
    label_x: i32,
    legend_y: i32,
    legend_text_w: Vec<i32>,
    /// The colour scale (see [`fitted_scale`]).
    scale: [f64; 2],
    /// The line saying the scale, under the legend.
    scale_note: String,
    scale_note_y: i32,
}

const MARGIN: i32 = 16;
const LEGEND: [&str; 5] = [
    "impassable",
    "not evaluated",
    "difficult terrain",
    "high ground",
    "enemy start",
];
const MAX_IMAGE_SIDE: i32 = 2000;
const TITLE_MIN_WIDTH: i32 = 720;

/// Splits `text` into lines no wider than `max_w` pixels at `size`: at its line breaks, then
/// between words. A word wider than `max_w` gets a line of its own.
fn wrap(text: &str, size: f64, max_w: i32) -> Result<Vec<String>, HeatmapError> {
    let mut lines = Vec::new();
    for paragraph in text.lines() {
        let mut line = String::new();
        for word in paragraph.split_whitespace() {
            let candidate = if line.is_empty() {
                word.to_string()
            } else {
                format!("{line} {word}")
            };
            if line.is_empty() || text_width(&candidate, size)? <= max_w {
                line = candidate;
            } else {
                lines.push(std::mem::replace(&mut line, word.to_string()));
            }
        }
        lines.push(line);
    }
    if lines.is_empty() {
        lines.push(String::new());
    }
    Ok(lines)
}

impl Layout {
    fn new(h: &Heatmap) -> Result<Self, HeatmapError> {
        ensure_font()?;
        let cell = (1600 / h.rows.max(h.cols)).clamp(4, 40);
        let big = cell >= 24;
        let axis_size: f64 = if big { 14.0 } else { 12.0 };
        let mut title_size: f64 = if big { 21.0 } else { 17.0 };

        // Row/column indices: label every step-th one so that labels do not overlap.
        let widest_index = text_width(&(h.rows.max(h.cols) - 1).to_string(), axis_size)?;
        let axis_step = [1, 2, 5, 10, 20, 25, 50, 100]
            .into_iter()
            .find(|s| s * cell >= widest_index + 4)
            .unwrap_or(100);

        let value_size = if cell >= 28 {
            let size = (cell as f64 * 0.34).min(15.0);
            (text_width("100%", size)? <= cell - 4).then_some(size)
        } else {
            None
        };

        // Horizontally: row indices, the map, the colour bar, its ticks and its label.
        let row_labels_w = text_width(&(h.rows - 1).to_string(), axis_size)? + 8;
        let grid_x = MARGIN + row_labels_w;
        let (grid_w, grid_h) = (h.cols * cell, h.rows * cell);
        let bar_x = grid_x + grid_w + 24;
        let bar_w = 18;
        let tick_x = bar_x + bar_w + 8;
        let ticks_w = text_width("100%", axis_size)?;
        let label_x = tick_x + ticks_w + 10 + (axis_size * 0.5) as i32;
        let right = label_x + (axis_size * 0.5) as i32 + MARGIN;
        let legend_text_w = LEGEND
            .iter()
            .map(|t| text_width(t, axis_size))
            .collect::<Result<Vec<i32>, _>>()?;
        let legend_right =
            grid_x + LEGEND.len() as i32 * (14 + 6 + 20) + legend_text_w.iter().sum::<i32>();
        let scale = fitted_scale(h.cells.iter().map(|c| c.value));
        let scale_note = format!(
            "colour scale fitted to the data: {} to {}",
            percent(scale[0]),
            percent(scale[1])
        );
        let note_right = grid_x + text_width(&scale_note, axis_size)?;
        let content_w = right.max(legend_right + MARGIN).max(note_right + MARGIN);

        // The title: a short title may widen a narrow picture up to TITLE_MIN_WIDTH; a longer
        // one is wrapped at spaces (and at its own line breaks) to the picture's width.
        let title_w = text_width(&h.title, title_size)?;
        let mut width = content_w.max((title_w + 2 * MARGIN).min(TITLE_MIN_WIDTH));
        let title_lines = wrap(&h.title, title_size, width - 2 * MARGIN)?;
        let mut widest = 0;
        for line in &title_lines {
            widest = widest.max(text_width(line, title_size)?);
        }
        if widest + 2 * MARGIN > width {
            // A single word wider than the picture: widen it, and shrink the font if needed.
            width = (widest + 2 * MARGIN).min(MAX_IMAGE_SIDE.max(width));
            let fit = (width - 2 * MARGIN) as f64 / widest as f64;
            if fit < 1.0 {
                title_size = (title_size * fit).floor().max(8.0);
            }
        }
        let title_line_h = (title_size * 1.25).round() as i32;

        // Vertically: the title, column indices, the map (and colour bar), the legend.
        let title_y = MARGIN + title_line_h / 2;
        let col_labels_y = MARGIN + title_line_h * title_lines.len() as i32 + 8;
        let grid_y = col_labels_y + axis_size as i32 + 6;
        let label_w = text_width(&h.value_label, axis_size)?;
        let bar_h = grid_h.max(160).max(label_w + 8);
        let legend_y = grid_y + grid_h.max(bar_h) + 20;
        let scale_note_y = legend_y + axis_size as i32 + 10;
        let height = scale_note_y + (axis_size as i32) / 2 + MARGIN;

        Ok(Layout {
            width: width as u32,
            height: height as u32,
            cell,
            grid_x,
            grid_y,
            title_lines,
            title_size,
            title_y,
            title_line_h,
            axis_size,
            axis_step,
            value_size,
            bar_x,
            bar_y: grid_y,
            bar_w,
            bar_h,
            tick_x,
            label_x,
            legend_y,
            legend_text_w,
            scale,
            scale_note,
            scale_note_y,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Drawing

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Draws `text` vertically centred on `y` (or, rotated, horizontally centred on `x`).
#[allow(clippy::too_many_arguments)]
fn label<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    (x, y): (i32, i32),
    size: f64,
    color: RGBColor,
    h_pos: HPos,
    rotated: bool,
    shift: f64,
) -> DrawResult<DB> {
    let d = (size * shift).round() as i32;
    let (pos, transform) = if rotated {
        ((x + d, y), FontTransform::Rotate270)
    } else {
        ((x, y + d), FontTransform::None)
    };
    let style = font(size)
        .transform(transform)
        .color(&color)
        .pos(Pos::new(h_pos, VPos::Center));
    area.draw_text(text, &style, pos)
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    h: &Heatmap,
    squares: &[Square],
    l: &Layout,
    shift: f64,
) -> DrawResult<DB> {
    let c = l.cell;
    root.fill(&BACKGROUND)?;

    // Title.
    for (i, line) in l.title_lines.iter().enumerate() {
        let pos = (l.width as i32 / 2, l.title_y + i as i32 * l.title_line_h);
        label(
            root,
            line,
            pos,
            l.title_size,
            TEXT,
            HPos::Center,
            false,
            shift,
        )?;
    }

    // The map: one light rectangle under everything, then walls, then evaluated squares.
    let (gx, gy) = (l.grid_x, l.grid_y);
    let (gw, gh) = (h.cols * c, h.rows * c);
    root.draw(&Rectangle::new(
        [(gx, gy), (gx + gw, gy + gh)],
        EMPTY.filled(),
    ))?;
    let square = |r: i32, col: i32| {
        [
            (gx + col * c, gy + r * c),
            (gx + (col + 1) * c, gy + (r + 1) * c),
        ]
    };
    for (i, sq) in squares.iter().enumerate() {
        let (r, col) = (i as i32 / h.cols, i as i32 % h.cols);
        match *sq {
            Square::Wall(_) => root.draw(&Rectangle::new(square(r, col), WALL.filled()))?,
            Square::Valued(k) => {
                let colour = viridis(on_scale(h.cells[k].value, l.scale));
                root.draw(&Rectangle::new(square(r, col), colour.filled()))?;
                if let Some(size) = l.value_size {
                    label(
                        root,
                        &percent(h.cells[k].value),
                        (gx + col * c + c / 2, gy + r * c + c / 2),
                        size,
                        text_on(colour),
                        HPos::Center,
                        false,
                        shift,
                    )?;
                }
            }
            Square::Empty => {}
        }
    }
    // Terrain over the colours: difficult terrain hatched, high ground a corner triangle.
    for &(r, col) in &h.difficult {
        if matches!(squares[(r * h.cols + col) as usize], Square::Wall(_)) {
            continue;
        }
        hatch(root, square(r, col), c)?;
    }
    for &(r, col) in &h.elevated {
        if matches!(squares[(r * h.cols + col) as usize], Square::Wall(_)) {
            continue;
        }
        corner(root, square(r, col)[0], c)?;
    }
    // The markers (enemies' start squares).
    for m in &h.markers {
        let centre = (gx + m.col * c + c / 2, gy + m.row * c + c / 2);
        disc(root, centre, c)?;
        if c >= 24 {
            let text: String = m.label.chars().take(2).collect();
            label(
                root,
                &text,
                centre,
                (c as f64 * 0.3).min(13.0),
                RGBColor(255, 255, 255),
                HPos::Center,
                false,
                shift,
            )?;
        }
    }
    // Square boundaries, when squares are big enough for them to help.
    if c >= 10 {
        for col in 1..h.cols {
            let x = gx + col * c;
            root.draw(&PathElement::new(vec![(x, gy), (x, gy + gh)], GRID_LINE))?;
        }
        for r in 1..h.rows {
            let y = gy + r * c;
            root.draw(&PathElement::new(vec![(gx, y), (gx + gw, y)], GRID_LINE))?;
        }
    }
    root.draw(&Rectangle::new([(gx, gy), (gx + gw, gy + gh)], FRAME))?;

    // Column indices above the map, row indices to its left.
    for col in (0..h.cols).step_by(l.axis_step as usize) {
        let pos = (gx + col * c + c / 2, gy - 4 - (l.axis_size as i32) / 2);
        let text = col.to_string();
        label(
            root,
            &text,
            pos,
            l.axis_size,
            TEXT,
            HPos::Center,
            false,
            shift,
        )?;
    }
    for r in (0..h.rows).step_by(l.axis_step as usize) {
        let pos = (gx - 6, gy + r * c + c / 2);
        let text = r.to_string();
        label(
            root,
            &text,
            pos,
            l.axis_size,
            TEXT,
            HPos::Right,
            false,
            shift,
        )?;
    }

    // Colour bar: the top of the scale at the top, its bottom at the bottom.
    let (bx, by, bw, bh) = (l.bar_x, l.bar_y, l.bar_w, l.bar_h);
    let strips = bh.min(100);
    for s in 0..strips {
        let y0 = by + s * bh / strips;
        let y1 = by + (s + 1) * bh / strips;
        let v = 1.0 - (s as f64 + 0.5) / strips as f64;
        root.draw(&Rectangle::new(
            [(bx, y0), (bx + bw, y1)],
            viridis(v).filled(),
        ))?;
    }
    root.draw(&Rectangle::new([(bx, by), (bx + bw, by + bh)], FRAME))?;
    for q in 0..=4 {
        let y = by + bh - (bh * q) / 4;
        root.draw(&PathElement::new(
            vec![(bx + bw, y), (bx + bw + 4, y)],
            TEXT,
        ))?;
        let value = l.scale[0] + (l.scale[1] - l.scale[0]) * f64::from(q) / 4.0;
        let text = percent(value);
        label(
            root,
            &text,
            (l.tick_x, y),
            l.axis_size,
            TEXT,
            HPos::Left,
            false,
            shift,
        )?;
    }
    let label_pos = (l.label_x, by + bh / 2);
    label(
        root,
        &h.value_label,
        label_pos,
        l.axis_size,
        TEXT,
        HPos::Center,
        true,
        shift,
    )?;

    // Legend: squares without a value, terrain, markers; then the scale.
    let mut x = gx;
    for (i, text) in LEGEND.iter().enumerate() {
        let y = l.legend_y;
        let swatch = [(x, y - 7), (x + 14, y + 7)];
        match i {
            0 => root.draw(&Rectangle::new(swatch, WALL.filled()))?,
            1 => root.draw(&Rectangle::new(swatch, EMPTY.filled()))?,
            2 => {
                root.draw(&Rectangle::new(swatch, BACKGROUND.filled()))?;
                hatch(root, swatch, 14)?;
            }
            3 => {
                root.draw(&Rectangle::new(swatch, BACKGROUND.filled()))?;
                corner(root, swatch[0], 14)?;
            }
            _ => disc(root, (x + 7, y), 14)?,
        }
        if i < 4 {
            root.draw(&Rectangle::new(swatch, FRAME))?;
        }
        label(
            root,
            text,
            (x + 20, y),
            l.axis_size,
            TEXT,
            HPos::Left,
            false,
            shift,
        )?;
        x += 14 + 6 + l.legend_text_w[i] + 20;
    }
    label(
        root,
        &l.scale_note,
        (gx, l.scale_note_y),
        l.axis_size,
        TEXT,
        HPos::Left,
        false,
        shift,
    )?;
    Ok(())
}

/// `v` on the colour scale `[lo, hi]`, as a position in `[0, 1]`.
fn on_scale(v: f64, [lo, hi]: [f64; 2]) -> f64 {
    if hi > lo {
        ((v - lo) / (hi - lo)).clamp(0.0, 1.0)
    } else {
        0.5
    }
}

/// Diagonal hatching (difficult terrain) over the square `[(x0, y0), (x1, y1)]` of side `c`.
fn hatch<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    [(x0, y0), (x1, y1)]: [(i32, i32); 2],
    c: i32,
) -> DrawResult<DB> {
    let step = (c / 4).max(3);
    let style = HATCH.mix(0.8).stroke_width(1);
    let mut k = step;
    while k < 2 * c {
        // The line x + y = x0 + y0 + k, clipped to the square.
        let (a, b) = (k.min(c), (k - c).max(0));
        let from = (x0 + b, y0 + a);
        let to = (x0 + a, y0 + b);
        if from != to {
            area.draw(&PathElement::new(vec![from, to], style))?;
        }
        k += step;
    }
    let _ = (x1, y1);
    Ok(())
}

/// A white triangle with a dark edge in the top-left corner of a square (high ground).
fn corner<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (x0, y0): (i32, i32),
    c: i32,
) -> DrawResult<DB> {
    let s = (c * 2 / 5).max(4);
    let points = vec![(x0, y0), (x0 + s, y0), (x0, y0 + s)];
    area.draw(&Polygon::new(
        points.clone(),
        RGBColor(255, 255, 255).filled(),
    ))?;
    let mut edge = points;
    edge.push((x0, y0));
    area.draw(&PathElement::new(edge, TEXT))
}

/// A red disc with a white ring centred on `centre`, for a square of side `c`.
fn disc<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    centre: (i32, i32),
    c: i32,
) -> DrawResult<DB> {
    let r = (c * 7 / 20).max(3);
    area.draw(&Circle::new(centre, r, MARKER.filled()))?;
    area.draw(&Circle::new(
        centre,
        r,
        RGBColor(255, 255, 255).stroke_width(1),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sample arena (`data/maps/sample_arena.yaml`): walls on the border, a 6x2 block in
    /// the top middle and four pillars; zones A (players) and B (monsters) evaluated.
    fn sample() -> Heatmap {
        let terrain = [
            "####################",
            "#......######......#",
            "#..C...######...C..#",
            "#......~..~........#",
            "#..TT..~..~...TT...#",
            "#......~..~........#",
            "#..C............C..#",
            "####################",
        ];
        let mut walls = Vec::new();
        for (r, line) in terrain.iter().enumerate() {
            for (c, ch) in line.chars().enumerate() {
                if ch == '#' || ch == 'C' {
                    walls.push((r as i32, c as i32));
                }
            }
        }
        let mut cells = Vec::new();
        for r in 1..=2 {
            for c in (1..=4).chain(15..=18) {
                if terrain[r as usize].as_bytes()[c as usize] == b'.' {
                    let value = ((r * 7 + c * 13) % 101) as f64 / 100.0;
                    cells.push(HeatmapCell {
                        row: r,
                        col: c,
                        value,
                        runs: 1000,
                    });
                }
            }
        }
        Heatmap {
            title: "goblin-2: players win rate by start cell (1000 runs per placement)".into(),
            rows: 8,
            cols: 20,
            walls,
            cells,
            value_label: "players win rate".into(),
            difficult: (3..=5)
                .flat_map(|r| [(r, 7), (r, 10)])
                .chain([(4, 3), (4, 4), (4, 14), (4, 15)])
                .collect(),
            elevated: (1..=2).flat_map(|r| (2..=5).map(move |c| (r, c))).collect(),
            markers: vec![
                HeatmapMarker {
                    row: 1,
                    col: 16,
                    label: "orc".into(),
                },
                HeatmapMarker {
                    row: 1,
                    col: 17,
                    label: "orc-2".into(),
                },
            ],
        }
    }

    fn rect_count(svg: &str) -> usize {
        svg.matches("<rect").count()
    }

    #[test]
    fn svg_has_title_label_and_one_rect_per_valued_cell() {
        let h = sample();
        let svg = render_svg_string(&h).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("goblin-2: players win rate by start cell (1000 runs per placement)"));
        assert!(svg.contains("players win rate"));
        // The colour bar shows the scale fitted to the data, and says so.
        let [lo, hi] = fitted_scale(h.cells.iter().map(|c| c.value));
        assert!(lo > 0.0 || hi < 1.0, "{lo} {hi}");
        assert!(svg.contains(&format!(">\n{}\n</text>", percent(lo))));
        assert!(svg.contains(&format!(">\n{}\n</text>", percent(hi))));
        assert!(svg.contains(&format!(
            "colour scale fitted to the data: {} to {}",
            percent(lo),
            percent(hi)
        )));
        // The enemies' starts: one disc each, plus the legend's.
        assert_eq!(svg.matches("<circle").count(), 2 * (h.markers.len() + 1));
        assert!(svg.contains(">\nor\n</text>"), "marker label");
        assert!(svg.contains("difficult terrain") && svg.contains("high ground"));
        assert!(svg.contains("enemy start"));

        let mut bare = h.clone();
        bare.cells.clear();
        let svg_bare = render_svg_string(&bare).unwrap();
        assert_eq!(rect_count(&svg) - rect_count(&svg_bare), h.cells.len());
        // One percentage per valued cell: 13 + 1 sample values are written in the squares.
        let v = percent(h.cells[0].value);
        assert!(svg.contains(&format!(">\n{v}\n</text>")));
    }

    #[test]
    fn svg_is_deterministic() {
        let h = sample();
        assert_eq!(
            render_svg_string(&h).unwrap(),
            render_svg_string(&h).unwrap()
        );
        let dir = std::env::temp_dir().join(format!("pf1e-heatmap-svg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("h.svg");
        render_svg(&h, &p).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            render_svg_string(&h).unwrap()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn field_of(e: HeatmapError) -> String {
        match e {
            HeatmapError::Invalid { field, .. } => field,
            other => panic!("expected Invalid, got {other}"),
        }
    }

    #[test]
    fn invalid_inputs_name_the_field() {
        let mut h = sample();
        h.cells[2].col = 20;
        let e = render_svg_string(&h).unwrap_err();
        assert!(e.to_string().contains("outside the 8x20 grid"), "{e}");
        assert_eq!(field_of(e), "cells[2]");

        let mut h = sample();
        h.cells[1].value = f64::NAN;
        let e = render_svg_string(&h).unwrap_err();
        assert!(e.to_string().contains("finite"), "{e}");
        assert_eq!(field_of(e), "cells[1].value");

        let mut h = sample();
        h.cells[0].value = 1.5;
        assert_eq!(
            field_of(render_svg_string(&h).unwrap_err()),
            "cells[0].value"
        );

        let mut h = sample();
        h.cells[3].row = -1;
        assert_eq!(field_of(render_svg_string(&h).unwrap_err()), "cells[3]");

        let mut h = sample();
        h.walls.push((8, 0));
        let n = h.walls.len() - 1;
        assert_eq!(
            field_of(render_svg_string(&h).unwrap_err()),
            format!("walls[{n}]")
        );

        let mut h = sample();
        h.cells.push(h.cells[0].clone());
        let n = h.cells.len() - 1;
        let e = render_svg_string(&h).unwrap_err();
        assert!(e.to_string().contains("already given by cells[0]"), "{e}");
        assert_eq!(field_of(e), format!("cells[{n}]"));

        let mut h = sample();
        h.cells[0].row = 0;
        h.cells[0].col = 0;
        let e = render_svg_string(&h).unwrap_err();
        assert!(e.to_string().contains("is a wall"), "{e}");

        for (rows, cols, field) in [
            (0, 5, "rows"),
            (5, 0, "cols"),
            (257, 5, "rows"),
            (5, 300, "cols"),
        ] {
            let h = Heatmap {
                rows,
                cols,
                walls: vec![],
                cells: vec![],
                ..sample()
            };
            assert_eq!(field_of(render_svg_string(&h).unwrap_err()), field);
            let p = std::env::temp_dir().join("pf1e-heatmap-never-written.png");
            assert_eq!(field_of(render_png(&h, &p).unwrap_err()), field);
        }
    }

    /// Width and height from a PNG's IHDR chunk, after checking the signature.
    fn png_size(bytes: &[u8]) -> (u32, u32) {
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
        assert_eq!(&bytes[12..16], b"IHDR");
        let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        (be(&bytes[16..20]), be(&bytes[20..24]))
    }

    #[test]
    fn png_is_written_with_the_layout_size_and_colours() {
        let dir = std::env::temp_dir().join(format!("pf1e-heatmap-png-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let h = sample();
        // Any extension: the content is PNG.
        let p = dir.join("h.dat");
        render_png(&h, &p).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        let l = Layout::new(&h).unwrap();
        assert_eq!(png_size(&bytes), (l.width, l.height));
        assert_eq!(l.cell, 40, "a 20x8 map gets 40 px squares");
        assert!(
            l.width <= 1000 && l.height <= 500,
            "{}x{}",
            l.width,
            l.height
        );

        // Decode and look at squares: row 0 at the top, column 0 at the left.
        let mut reader = png::Decoder::new(std::io::Cursor::new(&bytes))
            .read_info()
            .unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut pixels).unwrap();
        assert_eq!(info.color_type, png::ColorType::Rgb);
        let at = |row: i32, col: i32| {
            // Near the bottom-right corner of the square: clear of grid lines, the percentage
            // and the high-ground triangle (top-left).
            let (x, y) = (
                l.grid_x + col * l.cell + l.cell - 5,
                l.grid_y + row * l.cell + l.cell - 5,
            );
            let i = 3 * (y as usize * l.width as usize + x as usize);
            RGBColor(pixels[i], pixels[i + 1], pixels[i + 2])
        };
        assert_eq!(at(0, 0), WALL);
        assert_eq!(at(2, 3), WALL, "the pillar at row 2, col 3");
        assert_eq!(at(3, 5), EMPTY);
        for cell in &h.cells {
            assert_eq!(
                at(cell.row, cell.col),
                viridis(on_scale(cell.value, l.scale)),
                "{cell:?}"
            );
        }
        // High ground: the corner of (1, 2) is white.
        let (x, y) = (l.grid_x + 2 * l.cell + 3, l.grid_y + l.cell + 3);
        let i = 3 * (y as usize * l.width as usize + x as usize);
        assert_eq!(
            RGBColor(pixels[i], pixels[i + 1], pixels[i + 2]),
            RGBColor(255, 255, 255)
        );
        // The marker at (1, 16): red at the centre of the square.
        let (x, y) = (
            l.grid_x + 16 * l.cell + l.cell / 2 - 6,
            l.grid_y + l.cell + l.cell / 2,
        );
        let i = 3 * (y as usize * l.width as usize + x as usize);
        assert_eq!(RGBColor(pixels[i], pixels[i + 1], pixels[i + 2]), MARKER);
        // Text was drawn in the valued squares: some pixel of (1, 1) differs from its fill.
        let fill = viridis(on_scale(h.cells[0].value, l.scale));
        let (x0, y0) = (l.grid_x + l.cell, l.grid_y + l.cell);
        let inked = (y0 + 8..y0 + l.cell - 8).any(|y| {
            (x0 + 4..x0 + l.cell - 4).any(|x| {
                let i = 3 * (y as usize * l.width as usize + x as usize);
                RGBColor(pixels[i], pixels[i + 1], pixels[i + 2]) != fill
            })
        });
        assert!(inked, "no percentage drawn in square (1, 1)");

        // Same input, same bytes.
        assert_eq!(bytes, render_png_bytes(&h).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn big_maps_stay_small_and_io_errors_carry_the_path() {
        let h = Heatmap {
            rows: 256,
            cols: 256,
            walls: vec![(0, 0)],
            cells: vec![HeatmapCell {
                row: 255,
                col: 255,
                value: 0.5,
                runs: 10,
            }],
            ..sample()
        };
        let l = Layout::new(&h).unwrap();
        assert!(
            l.width <= 2000 && l.height <= 2000,
            "{}x{}",
            l.width,
            l.height
        );
        assert!(render_svg_string(&h).is_ok());

        let p = Path::new("/nonexistent-dir-pf1e/heatmap.svg");
        match render_svg(&sample(), p).unwrap_err() {
            HeatmapError::Io { path, .. } => assert_eq!(path, p),
            other => panic!("expected Io, got {other}"),
        }
        let p = Path::new("/nonexistent-dir-pf1e/heatmap.png");
        let e = render_png(&sample(), p).unwrap_err();
        assert!(
            e.to_string().contains("/nonexistent-dir-pf1e/heatmap.png"),
            "{e}"
        );
    }

    #[test]
    fn long_titles_wrap_and_tiny_maps_render() {
        let h = Heatmap {
            title: "very long title ".repeat(20),
            ..sample()
        };
        let l = Layout::new(&h).unwrap();
        assert!(l.title_lines.len() >= 2, "{:?}", l.title_lines);
        assert!(l.width < 1000, "{}", l.width);
        assert_eq!(l.title_lines.join(" "), h.title.trim_end());
        let svg = render_svg_string(&h).unwrap();
        for line in &l.title_lines {
            assert!(svg.contains(line.as_str()));
        }

        let tiny = Heatmap {
            title: "one square".into(),
            rows: 1,
            cols: 1,
            walls: vec![],
            cells: vec![HeatmapCell {
                row: 0,
                col: 0,
                value: 0.37,
                runs: 100,
            }],
            value_label: String::new(),
            difficult: vec![],
            elevated: vec![],
            markers: vec![],
        };
        assert!(render_svg_string(&tiny)
            .unwrap()
            .contains(">\n37%\n</text>"));
    }

    /// The scale is the data's range in whole 5 % steps, at least 10 points wide.
    #[test]
    fn fitted_scale_hugs_the_data() {
        assert_eq!(fitted_scale([0.55, 0.63]), [0.55, 0.65]);
        assert_eq!(fitted_scale([0.564, 0.649]), [0.55, 0.65]);
        assert_eq!(fitted_scale([0.6, 0.61]), [0.55, 0.65]);
        assert_eq!(fitted_scale([0.0, 0.02]), [0.0, 0.1]);
        assert_eq!(fitted_scale([0.99, 1.0]), [0.9, 1.0]);
        assert_eq!(fitted_scale([0.12, 0.87]), [0.1, 0.9]);
        assert_eq!(fitted_scale(std::iter::empty()), [0.0, 1.0]);
        // 55 % and 63 % get clearly different colours on it.
        let s = fitted_scale([0.55, 0.63]);
        assert!((on_scale(0.63, s) - on_scale(0.55, s)) > 0.75);
    }

    #[test]
    fn viridis_ends_and_percentages() {
        assert_eq!(viridis(0.0), RGBColor(68, 1, 84));
        assert_eq!(viridis(1.0), RGBColor(253, 231, 37));
        assert_eq!(viridis(0.5), RGBColor(33, 145, 140));
        assert_eq!(percent(0.125), "13%");
        assert_eq!(percent(1.0), "100%");
    }

    /// Writes the sample heatmap to `$TMPDIR/heatmap-sample.{png,svg}` to look at.
    #[test]
    #[ignore = "writes a sample image for manual inspection"]
    fn write_sample() {
        let dir = std::env::temp_dir();
        render_png(&sample(), &dir.join("heatmap-sample.png")).unwrap();
        render_svg(&sample(), &dir.join("heatmap-sample.svg")).unwrap();
    }
}
