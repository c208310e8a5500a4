//! Position sweeps: evaluate an encounter over many start placements of some combatants and
//! rank the placements by a side's win rate.
//!
//! A **sweep spec** (YAML or JSON, [`SweepSpec`]) names a base encounter — a bundled scenario
//! (`scenario: NAME`) or a map and sides in the scenario-file format of
//! [`crate::scenarios`] — then, per combatant id, where it may start:
//!
//! ```yaml
//! scenario: sample_arena          # or: map: sample_arena + sides: {players: [goblin], ...}
//! placements:
//!   goblin: { zone: A }           # every usable square of zone A (swept)
//!   goblin-2: { cells: [[3, 1], [5, 1]] }            # a list of squares (swept)
//!   goblin-3: { rect: { from: [4, 1], to: [6, 2] } } # a rectangle, corners included (swept)
//!   orc: { cell: [3, 17] }        # one square (fixed, not swept)
//! sample: { size: 50, seed: 7 }   # optional: a seeded random sample of the combinations
//! runs: 1000                      # combats per placement (default 1000)
//! seed: 1                         # base seed (default 1)
//! round_cap: 100                  # optional, overrides the scenario's
//! rank_side: players              # optional: the side whose win rate ranks placements
//! tactics:                        # optional: side -> tactics (docs/tactics.md), every placement
//!   players: focus_fire_weakest   # a file of <data>/tactics/, or an inline spec object
//! ```
//!
//! Without `placements` there is one placement, the base encounter: a plain Monte Carlo of
//! the scenario (with its tactics) under the report's 3σ band — how Evaluate compares
//! strategies.
//!
//! Cells are `[row, col]` squares, 0-based from the top-left of the map; for a creature
//! larger than Medium the cell is the anchor (top-left square) of its footprint. `exclude:
//! [[r, c], ...]` removes squares from a `zone`, `rect` or `cells` set.
//!
//! ## Rules
//!
//! - **Explicit squares must be valid.** A `cell`, `cells` or `rect` square that is off the
//!   map, impassable, whose footprint does not fit, or that overlaps a fixed combatant is an
//!   error naming the combatant, the square and why ([`SweepError::Invalid`]). A `zone` set is
//!   the squares where the default deployment could put the combatant (footprint inside the
//!   zone, passable, not on a fixed combatant); the zone squares left out are listed in the
//!   report ([`SweepPlan::unused_zone_squares`]), never dropped silently.
//! - **Combinations.** The swept combatants, in the encounter's list order, form a product in
//!   odometer order: the last swept combatant's candidate changes fastest; each combatant's
//!   candidates are in their set's order (`zone` and `rect`: row-major; `cells`: as listed).
//!   Its position is the *product index* `p`. A combination where two swept combatants
//!   overlap cannot be played; it is **excluded**, counted per reason in the report
//!   ([`ExcludedCombination`]), not an error.
//! - **Combatants not mentioned** keep their default deployment square. One whose default
//!   footprint is taken by a placed combatant *makes room*: it moves to the first free
//!   square of its side's zone in (row, col) order (the default deployment rule); each such
//!   move is listed with the placement ([`Displaced`]). A combination where no free square is
//!   left is excluded.
//! - **Placements** are the remaining combinations in product order, or, with `sample`, a
//!   seeded random sample of `size` of them (a partial Fisher–Yates shuffle driven by a
//!   SplitMix64 stream seeded with `sample.seed ^ SAMPLE_STREAM`, `sample.seed` defaulting to
//!   the sweep seed), kept in product order. Placement `k` is the `k`-th of them.
//! - **Seeds.** Run `i` of the placement with product index `p` uses the episode seed
//!   [`run_seed`]`(seed, p, i) = splitmix64(splitmix64(splitmix64(seed) ^ p) ^ i)`. Every
//!   (placement, run) pair gets a decorrelated seed (not `seed + p + i`, which would replay
//!   the same dice shifted by one between neighbouring placements), and a placement's combats
//!   do not depend on which other placements are evaluated (sampling, exclusions).
//! - **Determinism.** Per-placement results are integer counts ([`PlacementResult`]), summed
//!   exactly, so the report is the same for any thread count and for any split of the
//!   placements across calls or machines ([`run_placements`] on parts, then one
//!   [`assemble_report`]).
//! - **Ranking and significance.** Placements are ranked by the win rate of the rank side
//!   (default: the side of the first swept combatant, else the first side; ties: lower
//!   placement index first). Each placement's rank-side win rate has its Wilson score
//!   interval at 3σ; each is compared with the best by a one-sided Fisher exact test
//!   ([`fisher_one_sided`], exact near 0 and 1 where a z-test is wrong), with a Bonferroni
//!   correction over the `k − 1` comparisons ([`BEST_SET_ALPHA`]` / (k − 1)`); the placements
//!   it does not reject, with the best, are the **best set**: not distinguishable from the
//!   best. It contains the truly best placement with probability ≥ 1 − [`BEST_SET_ALPHA`]:
//!   the truly best is left out only if a one-sided test of some other placement against it
//!   rejects at level α/(k − 1), and there are k − 1 of those (union bound). Holm's
//!   step-down, which would reject more, has no such guarantee here: the reference (the
//!   observed best) is chosen from the data, so its hypotheses are not fixed in advance. The z statistic ([`z_two_proportions`]) is kept
//!   as information.

use crate::heatmap::{Heatmap, HeatmapCell, HeatmapMarker};
use crate::montecarlo::{play_outcome_within, WinRate};
use crate::report::{
    escape_controls as esc, render_table, Align, Lang, TableLine, Typo, ENGINE_VERSION, NBSP, NNBSP,
};
use crate::scenarios::{
    is_valid_name, ScenarioFile, ScenarioStore, DEFAULT_ROUND_CAP, MAX_ROUND_CAP, NAME_PATTERN,
};
use pf1e_engine::content::yaml::field_path;
use pf1e_engine::geometry::grid::footprint;
use pf1e_engine::{Cell, Encounter};
use rayon::prelude::*;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Largest accepted sweep spec, in bytes.
pub const MAX_SPEC_BYTES: usize = 1 << 20;
/// Most combats per placement.
pub const MAX_RUNS: u64 = 1_000_000;
/// Most placements evaluated by one sweep (after exclusions and sampling).
pub const MAX_PLACEMENTS: usize = 100_000;
/// Most combats of one sweep: placements × runs.
pub const MAX_COMBATS: u64 = 100_000_000;
/// Most combinations in the product of the swept combatants' candidates (all are enumerated
/// to find the excluded ones, also when sampling).
pub const MAX_PRODUCT: u64 = 1_000_000;
/// Most squares in one `cells` list or `exclude` list.
pub const MAX_LISTED_CELLS: usize = 65_536;
/// Combats per placement when the spec gives none.
pub const DEFAULT_RUNS: u64 = 1000;
/// Base seed when the spec gives none.
pub const DEFAULT_SEED: u64 = 1;
/// XORed into the sample seed to start the sampling stream, so that the sampling stream and
/// the run seeds never share SplitMix64 states by construction (`"sweepsam"` in ASCII).
pub const SAMPLE_STREAM: u64 = 0x7377_6565_7073_616d;
/// Rows of the ranked table printed by [`SweepReport::render_text`]; the CSV and JSON have all.
pub const TEXT_MAX_ROWS: usize = 40;

/// The SplitMix64 increment (golden ratio): `0x9E3779B97F4A7C15`.
const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
/// Combats played in a row by one rayon task (and reported to `progress` at once).
const CHUNK: u64 = 32;

/// One SplitMix64 step from state `x`: `z = x + 0x9E3779B97F4A7C15`, then Stafford's
/// "variant 13" finalizer `z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27;
/// z *= 0x94D049BB133111EB; z ^= z >> 31` (wrapping). A bijection on `u64`;
/// `splitmix64(0) = 0xE220A8397B1DCDAF`, the first output of a SplitMix64 generator seeded 0.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(GOLDEN_GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The episode seed of run `run` (0-based) of the placement whose product index is
/// `product_index`, for the sweep seed `seed`:
/// `splitmix64(splitmix64(splitmix64(seed) ^ product_index) ^ run)`.
pub fn run_seed(seed: u64, product_index: u64, run: u64) -> u64 {
    splitmix64(splitmix64(splitmix64(seed) ^ product_index) ^ run)
}

/// A SplitMix64 generator (used to draw the sample).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        let out = splitmix64(self.0);
        self.0 = self.0.wrapping_add(GOLDEN_GAMMA);
        out
    }
    /// Uniform in `0..n` (`n ≥ 1`), by rejection: no modulo bias.
    fn below(&mut self, n: u64) -> u64 {
        let bound = (u64::MAX / n) * n;
        loop {
            let x = self.next();
            if x < bound {
                return x % n;
            }
        }
    }
}

/// The two-proportion z statistic of `x1` successes out of `n1` against `x2` out of `n2`,
/// with the pooled standard error: `p = (x1 + x2) / (n1 + n2)`,
/// `se = √(p(1−p)(1/n1 + 1/n2))`, `z = (x1/n1 − x2/n2) / se`. Returns 0 when `se` is 0 (both
/// proportions 0 or both 1) or when `n1` or `n2` is 0.
pub fn z_two_proportions(x1: u64, n1: u64, x2: u64, n2: u64) -> f64 {
    if n1 == 0 || n2 == 0 {
        return 0.0;
    }
    let (n1f, n2f) = (n1 as f64, n2 as f64);
    let pooled = (x1 + x2) as f64 / (n1f + n2f);
    let se = (pooled * (1.0 - pooled) * (1.0 / n1f + 1.0 / n2f))
        .max(0.0)
        .sqrt();
    if se == 0.0 {
        return 0.0;
    }
    (x1 as f64 / n1f - x2 as f64 / n2f) / se
}

/// One-sided Fisher exact test that `x1` successes out of `n1` come from a higher proportion
/// than `x2` out of `n2`: the probability, given the `x1 + x2` successes of the
/// `n1 + n2` trials, that the first group gets `x1` of them or more (hypergeometric upper
/// tail). Exact at any proportion, 0 and 1 included, unlike a normal z-test. Returns 1 when
/// either group is empty.
///
/// Computed with the pmf's ratio recurrence from its mode, relative to the mode's term (no
/// factorials), stopping where terms fall below 1e-18 of the running sum: the relative error
/// is below 1e-12.
pub fn fisher_one_sided(x1: u64, n1: u64, x2: u64, n2: u64) -> f64 {
    if n1 == 0 || n2 == 0 {
        return 1.0;
    }
    // X ~ Hypergeometric(N = n1 + n2, K = x1 + x2, n = n1); P(X ≥ x1).
    let (n, k, draw) = ((n1 + n2) as f64, (x1 + x2) as f64, n1 as f64);
    let lo = (x1 + x2).saturating_sub(n2);
    let hi = (x1 + x2).min(n1);
    // P(x+1)/P(x) = (K − x)(n − x) / ((x + 1)(N − K − n + x + 1)).
    let up = |x: f64| (k - x) * (draw - x) / ((x + 1.0) * (n - k - draw + x + 1.0));
    let mode = (((draw + 1.0) * (k + 1.0) / (n + 2.0)).floor() as u64).clamp(lo, hi);
    // Sum the terms above and below the mode (relative to the mode's term = 1).
    let mut above = 0.0; // terms x > mode
    let mut above_from_x1 = 0.0; // terms x > mode with x ≥ x1
    let mut t = 1.0;
    let mut x = mode;
    while x < hi {
        t *= up(x as f64);
        x += 1;
        above += t;
        if x >= x1 {
            above_from_x1 += t;
        }
        if t < 1e-18 * (1.0 + above) {
            break;
        }
    }
    let mut below = 0.0; // terms x < mode
    let mut below_from_x1 = 0.0; // terms x < mode with x ≥ x1
    let mut t = 1.0;
    let mut x = mode;
    while x > lo {
        t /= up((x - 1) as f64);
        x -= 1;
        below += t;
        if x >= x1 {
            below_from_x1 += t;
        }
        if t < 1e-18 * (1.0 + below) {
            break;
        }
    }
    let total = 1.0 + above + below;
    let tail = above_from_x1 + below_from_x1 + if mode >= x1 { 1.0 } else { 0.0 };
    (tail / total).clamp(0.0, 1.0)
}

/// The error rate of the best set: it misses the truly best placement with probability at most
/// this (Bonferroni over the comparisons with the observed best; see the module documentation).
pub const BEST_SET_ALPHA: f64 = 0.05;

// ---------------------------------------------------------------------------------------------
// Errors

/// Error of a sweep: bad spec, bad data, limits, mismatching partial results, or
/// cancellation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SweepError {
    /// The input is wrong. Display: `{field}: {reason}`.
    #[error("{field}: {reason}")]
    Invalid {
        /// Where: the spec's origin and field path (`sweep.yaml: placements.goblin.cells[2]`),
        /// a command-line flag (`--runs`), or `results[3]` for [`assemble_report`].
        field: String,
        /// What is wrong; for a square, it names the combatant, the square and why.
        reason: String,
    },
    /// The `cancel` flag was raised before the evaluation finished.
    #[error("cancelled")]
    Cancelled,
}

impl SweepError {
    /// An [`SweepError::Invalid`].
    pub fn invalid(field: impl Into<String>, reason: impl Into<String>) -> SweepError {
        SweepError::Invalid {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// The field of an [`SweepError::Invalid`] (`None` for [`SweepError::Cancelled`]).
    pub fn field(&self) -> Option<&str> {
        match self {
            SweepError::Invalid { field, .. } => Some(field),
            SweepError::Cancelled => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Spec

/// A sweep spec as written (YAML or JSON; see the module documentation). Unknown fields are
/// errors. Parse with [`SweepSpec::from_str`], then build a [`SweepPlan`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// Where the spec came from (a file name, a request field); prefixes error fields. Not
    /// read from the text: set by [`SweepSpec::from_str`].
    #[serde(skip)]
    pub origin: String,
    /// Free text shown in the report.
    #[serde(default)]
    pub description: String,
    /// A bundled scenario `<data>/scenarios/<name>.yaml` as the base encounter. Exclusive
    /// with `map` + `sides`.
    #[serde(default)]
    pub scenario: Option<String>,
    /// Map name (`<data>/maps/<map>.yaml`) of an ad-hoc base encounter, with `sides`.
    #[serde(default)]
    pub map: Option<String>,
    /// Side name → combatant names (`<data>/monsters/<name>.json`, else `<data>/pcs/…`), in
    /// order, as in a scenario file; with `map`.
    #[serde(default, deserialize_with = "ordered_sides_opt")]
    pub sides: Option<Vec<(String, Vec<String>)>>,
    /// Rounds after which a combat is a draw; overrides the scenario's (default 100).
    #[serde(default)]
    pub round_cap: Option<u32>,
    /// Monsters die at hp ≤ 0; overrides the scenario's (default false).
    #[serde(default)]
    pub simple_monster_death: Option<bool>,
    /// Combatant id (`goblin`, `goblin-2`… as disambiguated by the encounter) → where it may
    /// start, in file order. Combatants not listed keep their default deployment.
    #[serde(default, deserialize_with = "ordered_placements")]
    pub placements: Vec<(String, PlacementSpec)>,
    /// Evaluate a seeded random sample of the combinations instead of all of them.
    #[serde(default)]
    pub sample: Option<SampleSpec>,
    /// Combats per placement (1..=[`MAX_RUNS`]; default [`DEFAULT_RUNS`]).
    #[serde(default)]
    pub runs: Option<u64>,
    /// Base seed of the run seeds ([`run_seed`]; default [`DEFAULT_SEED`]).
    #[serde(default)]
    pub seed: Option<u64>,
    /// The side whose win rate ranks the placements (default: the side of the first swept
    /// combatant in list order, else the first side).
    #[serde(default)]
    pub rank_side: Option<String>,
    /// Side → the tactics it plays in every placement (`docs/tactics.md`): a file name under
    /// `<data>/tactics/` (`focus_fire_weakest` or `focus_fire_weakest.yaml`), or the spec
    /// itself inline (an object). Sides not listed play the default policy.
    #[serde(default)]
    pub tactics: BTreeMap<String, TacticsSource>,
}

/// Where a sweep's tactics spec comes from (see [`SweepSpec::tactics`]).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum TacticsSource {
    /// A file of `<data>/tactics/`: a plain name (letters, digits, `_`, `-`, `.`), with or
    /// without its `.yaml` / `.yml` / `.json` extension.
    File(String),
    /// The spec inline.
    Inline(serde_json::Value),
}

/// The tactics of a sweep spec attached to its base encounter (`field` prefix: `<origin>:`).
fn attach_sweep_tactics(
    mut base: Encounter,
    tactics: &BTreeMap<String, TacticsSource>,
    store: &ScenarioStore,
    origin: &str,
) -> Result<Encounter, SweepError> {
    for (side, source) in tactics {
        let field = format!("{origin}: {}", field_path("tactics", side));
        let text = match source {
            TacticsSource::File(name) => {
                let plain = !name.is_empty()
                    && !name.starts_with('.')
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
                if !plain {
                    return Err(SweepError::invalid(
                        field,
                        format!("{name:?}: a file name of the data directory's tactics/ (letters, digits, `_`, `-`, `.`)"),
                    ));
                }
                let dir = store.data_dir().join("tactics");
                let candidates = if [".yaml", ".yml", ".json"].iter().any(|e| name.ends_with(e)) {
                    vec![dir.join(name)]
                } else {
                    vec![
                        dir.join(format!("{name}.yaml")),
                        dir.join(format!("{name}.json")),
                    ]
                };
                let Some(path) = candidates.iter().find(|p| p.is_file()) else {
                    return Err(SweepError::invalid(
                        field,
                        format!("no tactics file {}", candidates[0].display()),
                    ));
                };
                pf1e_engine::content::read_text_bounded(
                    path,
                    pf1e_engine::tactics::MAX_TACTICS_BYTES,
                )
                .map_err(|e| {
                    SweepError::invalid(field.clone(), format!("{}: {e}", path.display()))
                })?
            }
            TacticsSource::Inline(v) => v.to_string(),
        };
        let spec = pf1e_engine::TacticsSpec::from_yaml_or_json(&text)
            .map_err(|e| SweepError::invalid(field.clone(), e.to_string()))?;
        base = base
            .with_tactics(side, Arc::new(spec))
            .map_err(|e| SweepError::invalid(field.clone(), e.reason))?;
    }
    Ok(base)
}

/// Deserialize a sweep spec, naming the field of a type error as every other check spells it
/// (`sw.yaml: placements["a b"].cell[1]`; `content::yaml::serde_path`), not as serde_yaml's
/// raw dotted path; the origin alone for an error of the whole document.
fn typed<'de, D>(de: D, origin: &str) -> Result<SweepSpec, SweepError>
where
    D: serde::Deserializer<'de>,
    D::Error: std::fmt::Display,
{
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = pf1e_engine::content::yaml::serde_path("", e.path());
        let inner = e.inner().to_string();
        let reason = pf1e_engine::content::yaml::strip_raw_path(e.path(), &inner);
        if path.is_empty() {
            SweepError::invalid(origin, reason)
        } else {
            SweepError::invalid(format!("{origin}: {path}"), reason)
        }
    })
}

/// Where one combatant may start: exactly one of `cell`, `cells`, `rect`, `zone`, and
/// optionally `exclude`. Squares are `[row, col]`, 0-based, anchors of the footprint.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacementSpec {
    /// One square: the combatant is moved there in every placement (fixed, not swept).
    #[serde(default)]
    pub cell: Option<Cell>,
    /// A list of candidate squares, in this order (swept).
    #[serde(default)]
    pub cells: Option<Vec<Cell>>,
    /// A rectangle of candidate squares, corners included, row-major (swept).
    #[serde(default)]
    pub rect: Option<RectSpec>,
    /// A zone letter of the map: the squares of that zone where the default deployment could
    /// put this combatant, row-major (swept). Any side's zone may be used.
    #[serde(default)]
    pub zone: Option<String>,
    /// Squares removed from the `cells`, `rect` or `zone` set (each must belong to it).
    #[serde(default)]
    pub exclude: Vec<Cell>,
}

/// A rectangle of squares `from`..=`to` (rows `from.row..=to.row`, columns
/// `from.col..=to.col`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RectSpec {
    /// Top-left corner `[row, col]`.
    pub from: Cell,
    /// Bottom-right corner `[row, col]` (included).
    pub to: Cell,
}

/// A seeded random sample of the (non-excluded) combinations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampleSpec {
    /// Placements to draw (≥ 1); when at least the number of combinations, all are taken.
    /// At most [`MAX_PLACEMENTS`] unless the combinations are fewer (error field
    /// `sample.size`).
    pub size: u64,
    /// Seed of the draw (default: the sweep's `seed`, after command-line overrides).
    #[serde(default)]
    pub seed: Option<u64>,
}

/// A mapping deserialized in document order, refusing duplicate keys.
struct OrderedMap<V>(Vec<(String, V)>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct Vis<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for Vis<V> {
            type Value = OrderedMap<V>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a mapping")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out: Vec<(String, V)> = Vec::new();
                let mut seen = std::collections::HashSet::new();
                while let Some(key) = map.next_key::<String>()? {
                    if !seen.insert(key.clone()) {
                        return Err(serde::de::Error::custom(format!("duplicate key `{key}`")));
                    }
                    let value = map.next_value::<V>()?;
                    out.push((key, value));
                }
                Ok(OrderedMap(out))
            }
        }
        de.deserialize_map(Vis(PhantomData))
    }
}

#[allow(clippy::type_complexity)]
fn ordered_sides_opt<'de, D: Deserializer<'de>>(
    de: D,
) -> Result<Option<Vec<(String, Vec<String>)>>, D::Error> {
    OrderedMap::deserialize(de).map(|m| Some(m.0))
}

fn ordered_placements<'de, D: Deserializer<'de>>(
    de: D,
) -> Result<Vec<(String, PlacementSpec)>, D::Error> {
    OrderedMap::deserialize(de).map(|m| m.0)
}

impl SweepSpec {
    /// Parse a spec. JSON when the text starts with `{` (after whitespace), YAML otherwise.
    /// `origin` (a file name, a request field) prefixes every error field. Checks what needs
    /// no data files: base encounter given once, names, runs, round cap, sample size.
    ///
    /// # Errors
    /// [`SweepError::Invalid`]: too long, malformed, unknown field, bad value.
    pub fn from_str(text: &str, origin: &str) -> Result<SweepSpec, SweepError> {
        if text.len() > MAX_SPEC_BYTES {
            return Err(SweepError::invalid(
                origin,
                format!("longer than {MAX_SPEC_BYTES} bytes"),
            ));
        }
        let parsed = if text.trim_start().starts_with('{') {
            let mut de = serde_json::Deserializer::from_str(text);
            let spec = typed(&mut de, origin)?;
            de.end()
                .map_err(|e| SweepError::invalid(origin, e.to_string()))?;
            Ok(spec)
        } else if let Some(tag) = pf1e_engine::content::yaml::find_explicit_tag(text) {
            return Err(SweepError::invalid(
                format!("{origin}: {}", tag.path),
                format!(
                    "explicit YAML tag `{}` is not accepted: write the plain value",
                    tag.tag
                ),
            ));
        } else {
            // Inline tactics are read through a JSON value, where YAML's `.nan` / `.inf` would
            // become `null` (a condition silently dropped): refused, naming the field, as
            // TacticsSpec refuses them in a tactics file.
            if let Ok(v) = serde_yaml::from_str::<serde_yaml::Value>(text) {
                if let Some(field) = v
                    .get("tactics")
                    .and_then(|t| pf1e_engine::tactics::non_finite_number(t, "tactics"))
                {
                    return Err(SweepError::invalid(
                        format!("{origin}: {field}"),
                        "not a finite number (.nan and .inf are not accepted)",
                    ));
                }
            }
            typed(serde_yaml::Deserializer::from_str(text), origin)
        };
        let mut spec: SweepSpec = parsed?;
        spec.origin = origin.to_string();
        spec.validate()?;
        Ok(spec)
    }

    /// The checks that need no data files (done by [`SweepSpec::from_str`] and again by
    /// [`SweepPlan::build`], for specs built in code): the base encounter given once, names
    /// matching [`NAME_PATTERN`], runs, round cap, sample size. Error fields start with
    /// [`SweepSpec::origin`].
    ///
    /// # Errors
    /// [`SweepError::Invalid`] naming the field.
    pub fn validate(&self) -> Result<(), SweepError> {
        let spec = self;
        let origin = self.origin.as_str();
        let at = |path: &str| format!("{origin}: {path}");
        match (&spec.scenario, &spec.map, &spec.sides) {
            (Some(name), None, None) => {
                if !is_valid_name(name) {
                    return Err(SweepError::invalid(
                        at("scenario"),
                        format!("invalid name {name:?}: must match {NAME_PATTERN}"),
                    ));
                }
            }
            (None, Some(map), Some(sides)) => {
                if !is_valid_name(map) {
                    return Err(SweepError::invalid(
                        at("map"),
                        format!("invalid name {map:?}: must match {NAME_PATTERN}"),
                    ));
                }
                if sides.is_empty() {
                    return Err(SweepError::invalid(
                        at("sides"),
                        "must name at least one side",
                    ));
                }
                for (side, names) in sides {
                    if names.is_empty() {
                        return Err(SweepError::invalid(
                            at(&field_path("sides", side)),
                            "must list at least one combatant",
                        ));
                    }
                    for (i, n) in names.iter().enumerate() {
                        if !is_valid_name(n) {
                            return Err(SweepError::invalid(
                                at(&format!("{}[{i}]", field_path("sides", side))),
                                format!("invalid name {n:?}: must match {NAME_PATTERN}"),
                            ));
                        }
                    }
                }
            }
            (Some(_), _, _) => {
                return Err(SweepError::invalid(
                    at("scenario"),
                    "give either `scenario` or `map` + `sides`, not both",
                ))
            }
            (None, Some(_), None) => {
                return Err(SweepError::invalid(
                    at("sides"),
                    "required with `map` (side name -> combatant names)",
                ))
            }
            (None, None, Some(_)) => {
                return Err(SweepError::invalid(at("map"), "required with `sides`"))
            }
            (None, None, None) => {
                return Err(SweepError::invalid(
                    origin,
                    "no base encounter: give `scenario: NAME` or `map: NAME` + `sides`",
                ))
            }
        }
        if let Some(cap) = spec.round_cap {
            if !(1..=MAX_ROUND_CAP).contains(&cap) {
                return Err(SweepError::invalid(
                    at("round_cap"),
                    format!("must be in 1..={MAX_ROUND_CAP} (got {cap})"),
                ));
            }
        }
        if let Some(runs) = spec.runs {
            check_runs(runs).map_err(|r| SweepError::invalid(at("runs"), r))?;
        }
        if let Some(s) = &spec.sample {
            if s.size == 0 {
                return Err(SweepError::invalid(at("sample.size"), "must be at least 1"));
            }
        }
        Ok(())
    }
}

/// Checks a number of runs per placement: `1..=MAX_RUNS`.
///
/// # Errors
/// The reason, for the caller to attach to its field.
pub fn check_runs(runs: u64) -> Result<(), String> {
    if (1..=MAX_RUNS).contains(&runs) {
        Ok(())
    } else {
        Err(format!("must be in 1..={MAX_RUNS} (got {runs})"))
    }
}

// ---------------------------------------------------------------------------------------------
// Plan

/// A combatant placed at one square in every placement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FixedCombatant {
    /// Combatant id.
    pub id: String,
    /// Index in the encounter's combatant list.
    pub index: usize,
    /// Its start anchor `(row, col)`.
    pub cell: Cell,
}

/// A swept combatant and its candidate start squares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SweptCombatant {
    /// Combatant id.
    pub id: String,
    /// Index in the encounter's combatant list.
    pub index: usize,
    /// Its side.
    pub side: String,
    /// How the set was given: `zone A`, `rect (1,1)-(2,4)`, `cells (3 listed)`; with
    /// `minus N excluded` when `exclude` removed some.
    pub source: String,
    /// Candidate start anchors `(row, col)`, in enumeration order.
    pub candidates: Vec<Cell>,
}

/// A square of a `zone` set that is not a candidate, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnusedSquare {
    /// Combatant id.
    pub combatant: String,
    /// The zone square `(row, col)`.
    pub cell: Cell,
    /// Why: impassable, footprint off the zone, on a fixed combatant, excluded.
    pub reason: String,
}

/// A swept combatant at one square.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CombatantCell {
    /// Combatant id.
    pub id: String,
    /// Start anchor `(row, col)`.
    pub cell: Cell,
}

/// Combinations of the product that could not be played, grouped by reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExcludedCombination {
    /// Why: `goblin and goblin-2 overlap`, `no free square of zone A left for goblin-3`.
    pub reason: String,
    /// How many combinations of the product this reason excluded.
    pub count: u64,
    /// The first of them (lowest product index): the swept combatants' squares.
    pub example: Vec<CombatantCell>,
}

/// A combatant not mentioned in the spec that moved off its default square to make room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Displaced {
    /// Combatant id.
    pub id: String,
    /// Its default deployment anchor.
    pub from: Cell,
    /// The first free square of its zone, where it starts instead.
    pub to: Cell,
}

/// One placement: where every combatant starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// Placement index `k` (position in [`SweepPlan::placements`]).
    pub index: usize,
    /// Position `p` in the full product (before exclusions and sampling); seeds derive from it.
    pub product_index: u64,
    /// Start anchor of each swept combatant, in [`SweepPlan::swept`] order.
    pub cells: Vec<Cell>,
    /// Start anchor `(row, col)` of every combatant, in the encounter's list order.
    pub starts: Vec<Cell>,
    /// Combatants moved off their default square to make room.
    pub displaced: Vec<Displaced>,
}

/// The sample drawn, when the spec asked for one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SampleInfo {
    /// Size asked for.
    pub size: u64,
    /// Seed of the draw.
    pub seed: u64,
    /// Non-excluded combinations it was drawn from.
    pub population: u64,
}

/// A built sweep: the base encounter and every placement, ready to run. Deterministic
/// function of the spec and the data files.
#[derive(Debug, Clone)]
pub struct SweepPlan {
    /// The spec's origin (file name or request field).
    pub origin: String,
    /// The spec's description.
    pub description: String,
    /// The bundled scenario used as base, if any.
    pub scenario: Option<String>,
    /// The base encounter (default deployment, round cap and options applied).
    pub base: Arc<Encounter>,
    /// Combats per placement.
    pub runs: u64,
    /// Base seed of [`run_seed`].
    pub seed: u64,
    /// Swept combatants, in the encounter's list order.
    pub swept: Vec<SweptCombatant>,
    /// Fixed combatants, in the encounter's list order.
    pub fixed: Vec<FixedCombatant>,
    /// Zone squares that are not candidates, and why.
    pub unused_zone_squares: Vec<UnusedSquare>,
    /// Side ranking the placements.
    pub rank_side: String,
    /// Number of combinations of the product.
    pub product_size: u64,
    /// Excluded combinations, grouped by reason (sorted by reason).
    pub excluded: Vec<ExcludedCombination>,
    /// The sample, when one was asked for.
    pub sample: Option<SampleInfo>,
    /// The placements, by placement index.
    pub placements: Vec<Placement>,
}

/// Everything a combination needs to be checked and completed (see [`SweepPlan::build`]).
struct Arranger<'a> {
    enc: &'a Encounter,
    sides: Vec<i32>,
    fixed: &'a [FixedCombatant],
    swept: &'a [SweptCombatant],
    /// Combatants neither fixed nor swept, in list order.
    others: Vec<usize>,
    /// Owner (combatant index + 1) of each square for the current combination, valid when
    /// `stamp[i] == generation`.
    owner: Vec<u32>,
    stamp: Vec<u32>,
    generation: u32,
}

impl<'a> Arranger<'a> {
    fn new(enc: &'a Encounter, fixed: &'a [FixedCombatant], swept: &'a [SweptCombatant]) -> Self {
        let mentioned: Vec<usize> = fixed
            .iter()
            .map(|f| f.index)
            .chain(swept.iter().map(|s| s.index))
            .collect();
        let n = (enc.grid.rows.max(0) as usize) * (enc.grid.cols.max(0) as usize);
        Arranger {
            enc,
            sides: enc
                .combatants
                .iter()
                .map(|c| c.spec.size.footprint_side())
                .collect(),
            fixed,
            swept,
            others: (0..enc.combatants.len())
                .filter(|i| !mentioned.contains(i))
                .collect(),
            owner: vec![0; n],
            stamp: vec![0; n],
            generation: 0,
        }
    }

    fn owner_of(&self, c: Cell) -> Option<usize> {
        let i = self.enc.grid.index(c)?;
        (self.stamp[i] == self.generation).then(|| self.owner[i] as usize - 1)
    }

    fn free(&self, anchor: Cell, side: i32) -> bool {
        footprint(anchor, side)
            .into_iter()
            .all(|c| self.enc.grid.index(c).is_some() && self.owner_of(c).is_none())
    }

    fn take(&mut self, who: usize, anchor: Cell) {
        for c in footprint(anchor, self.sides[who]) {
            if let Some(i) = self.enc.grid.index(c) {
                self.stamp[i] = self.generation;
                self.owner[i] = who as u32 + 1;
            }
        }
    }

    /// Starts of every combatant for the swept combatants at `cells`, or the reason the
    /// combination is excluded.
    fn arrange(&mut self, cells: &[Cell]) -> Result<(Vec<Cell>, Vec<Displaced>), String> {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.generation = 1;
        }
        let mut starts: Vec<Cell> = self.enc.combatants.iter().map(|c| c.start).collect();
        for f in self.fixed {
            self.take(f.index, f.cell);
            starts[f.index] = f.cell;
        }
        for (s, &cell) in self.swept.iter().zip(cells) {
            for c in footprint(cell, self.sides[s.index]) {
                if let Some(o) = self.owner_of(c) {
                    let (a, b) = if o < s.index {
                        (o, s.index)
                    } else {
                        (s.index, o)
                    };
                    return Err(format!(
                        "{} and {} overlap",
                        self.enc.combatants[a].id, self.enc.combatants[b].id
                    ));
                }
            }
            self.take(s.index, cell);
            starts[s.index] = cell;
        }
        let mut pending = Vec::new();
        for j in 0..self.others.len() {
            let o = self.others[j];
            let default = self.enc.combatants[o].start;
            if self.free(default, self.sides[o]) {
                self.take(o, default);
            } else {
                pending.push(o);
            }
        }
        let mut displaced = Vec::new();
        for o in pending {
            let c = &self.enc.combatants[o];
            let letter = self
                .enc
                .map
                .deployment
                .iter()
                .find(|(s, _)| *s == c.side)
                .map(|(_, l)| *l)
                .expect("every side has a deployment letter");
            let zone = self.enc.map.zone_cells(letter);
            let in_zone = |x: Cell| zone.binary_search(&x).is_ok();
            let side = self.sides[o];
            let spot = zone.iter().copied().find(|&a| {
                footprint(a, side)
                    .into_iter()
                    .all(|x| in_zone(x) && self.enc.grid.passable(x))
                    && self.free(a, side)
            });
            let Some(to) = spot else {
                return Err(format!(
                    "no free square of zone {letter} left for {} (moved off its default square)",
                    c.id
                ));
            };
            self.take(o, to);
            starts[o] = to;
            displaced.push(Displaced {
                id: c.id.clone(),
                from: c.start,
                to,
            });
        }
        Ok((starts, displaced))
    }
}

/// Candidate cells of the product index `p` (mixed radix, the last swept combatant fastest).
fn decode(swept: &[SweptCombatant], mut p: u64) -> Vec<Cell> {
    let mut cells = vec![Cell::new(0, 0); swept.len()];
    for (j, s) in swept.iter().enumerate().rev() {
        let n = s.candidates.len() as u64;
        cells[j] = s.candidates[(p % n) as usize];
        p /= n;
    }
    cells
}

impl SweepPlan {
    /// Build the plan of `spec`, reading the base encounter's files from `store`'s data
    /// directory. See the module documentation for the rules.
    ///
    /// # Errors
    /// [`SweepError::Invalid`] naming the field: unknown scenario/map/combatant, an
    /// encounter error, an unknown combatant id, a placement giving not exactly one of
    /// `cell`/`cells`/`rect`/`zone`, an invalid square (combatant + square + why), fixed
    /// combatants overlapping, an unknown rank side, no playable combination, limits
    /// ([`MAX_PRODUCT`], [`MAX_PLACEMENTS`], [`MAX_COMBATS`]). A data file is named by its
    /// path under the data directory written `<data>` (`<data>/maps/x.yaml`), never by the
    /// server's path.
    pub fn build(spec: &SweepSpec, store: &ScenarioStore) -> Result<SweepPlan, SweepError> {
        // Messages about data files name them under `<data>`, never by the server's path
        // (the Evaluate RPC sends them to clients).
        Self::build_on(spec, store).map_err(|e| match e {
            SweepError::Invalid { field, reason } => {
                let dir = store.data_dir().display().to_string();
                let reason = if dir.is_empty() {
                    reason
                } else {
                    reason.replace(&dir, "<data>")
                };
                SweepError::Invalid { field, reason }
            }
            other => other,
        })
    }

    fn build_on(spec: &SweepSpec, store: &ScenarioStore) -> Result<SweepPlan, SweepError> {
        spec.validate()?;
        let origin = spec.origin.as_str();
        let at = |path: &str| format!("{origin}: {path}");
        let runs = spec.runs.unwrap_or(DEFAULT_RUNS);
        check_runs(runs).map_err(|r| SweepError::invalid(at("runs"), r))?;
        let seed = spec.seed.unwrap_or(DEFAULT_SEED);

        // The base encounter.
        let (file, base_field) = match (&spec.scenario, &spec.map, &spec.sides) {
            (Some(name), _, _) => {
                if !is_valid_name(name) {
                    return Err(SweepError::invalid(
                        at("scenario"),
                        format!("invalid name {name:?}: must match {NAME_PATTERN}"),
                    ));
                }
                let path = store
                    .data_dir()
                    .join("scenarios")
                    .join(format!("{name}.yaml"));
                if !path.is_file() {
                    return Err(SweepError::invalid(
                        at("scenario"),
                        format!("unknown scenario `{name}`: no file {}", path.display()),
                    ));
                }
                let file = store
                    .read_scenario_file(name)
                    .map_err(|r| SweepError::invalid(at("scenario"), r))?;
                (file, "scenario")
            }
            (None, Some(map), Some(sides)) => (
                ScenarioFile {
                    description: spec.description.clone(),
                    map: map.clone(),
                    sides: sides.clone(),
                    round_cap: DEFAULT_ROUND_CAP,
                    simple_monster_death: false,
                },
                "map",
            ),
            _ => {
                return Err(SweepError::invalid(
                    origin,
                    "no base encounter: give `scenario: NAME` or `map: NAME` + `sides`",
                ))
            }
        };
        let mut file = file;
        if let Some(cap) = spec.round_cap {
            file.round_cap = cap;
        }
        if let Some(s) = spec.simple_monster_death {
            file.simple_monster_death = s;
        }
        if !(1..=MAX_ROUND_CAP).contains(&file.round_cap) {
            return Err(SweepError::invalid(
                at("round_cap"),
                format!("must be in 1..={MAX_ROUND_CAP} (got {})", file.round_cap),
            ));
        }
        let base = store
            .build_file(&file)
            .map_err(|r| SweepError::invalid(at(base_field), r))?;
        let base = attach_sweep_tactics(base, &spec.tactics, store, origin)?;

        // Placements per combatant.
        let mut fixed: Vec<FixedCombatant> = Vec::new();
        // (combatant, candidates with the field naming each, is a zone, field of the combatant)
        #[allow(clippy::type_complexity)]
        let mut swept_raw: Vec<(SweptCombatant, Vec<(Cell, String)>, bool, String)> = Vec::new();
        let mut unused = Vec::new();
        for (id, p) in &spec.placements {
            let field = at(&field_path("placements", id));
            let Some(index) = base.combatant_index(id) else {
                let ids: Vec<&str> = base.combatants.iter().map(|c| c.id.as_str()).collect();
                return Err(SweepError::invalid(
                    field,
                    format!(
                        "unknown combatant id `{id}` (the encounter has {})",
                        ids.join(", ")
                    ),
                ));
            };
            let side = base.combatants[index].side.clone();
            let given = [
                p.cell.is_some(),
                p.cells.is_some(),
                p.rect.is_some(),
                p.zone.is_some(),
            ]
            .iter()
            .filter(|b| **b)
            .count();
            if given != 1 {
                return Err(SweepError::invalid(
                    field,
                    "give exactly one of `cell`, `cells`, `rect`, `zone`",
                ));
            }
            if p.exclude.len() > MAX_LISTED_CELLS {
                return Err(SweepError::invalid(
                    format!("{field}.exclude"),
                    format!("more than {MAX_LISTED_CELLS} squares"),
                ));
            }
            if let Some(cell) = p.cell {
                if !p.exclude.is_empty() {
                    return Err(SweepError::invalid(
                        format!("{field}.exclude"),
                        "only with `cells`, `rect` or `zone`",
                    ));
                }
                if let Some(problem) = base.start_problem(index, cell) {
                    return Err(SweepError::invalid(
                        format!("{field}.cell"),
                        format!("{id} start {cell}: {problem}"),
                    ));
                }
                fixed.push(FixedCombatant {
                    id: id.clone(),
                    index,
                    cell,
                });
                continue;
            }
            // (candidate, field naming it) before `exclude`.
            let (set, source, is_zone): (Vec<(Cell, String)>, String, bool) =
                if let Some(cells) = &p.cells {
                    if cells.is_empty() {
                        return Err(SweepError::invalid(
                            format!("{field}.cells"),
                            "must list at least one square",
                        ));
                    }
                    if cells.len() > MAX_LISTED_CELLS {
                        return Err(SweepError::invalid(
                            format!("{field}.cells"),
                            format!("more than {MAX_LISTED_CELLS} squares"),
                        ));
                    }
                    let mut seen = std::collections::BTreeSet::new();
                    let mut set = Vec::with_capacity(cells.len());
                    for (i, &c) in cells.iter().enumerate() {
                        if !seen.insert(c) {
                            return Err(SweepError::invalid(
                                format!("{field}.cells[{i}]"),
                                format!("{id} square {c} listed twice"),
                            ));
                        }
                        set.push((c, format!("{field}.cells[{i}]")));
                    }
                    (set, format!("cells ({} listed)", cells.len()), false)
                } else if let Some(r) = p.rect {
                    let rf = format!("{field}.rect");
                    for (name, c) in [("from", r.from), ("to", r.to)] {
                        if !base.grid.in_bounds(c) {
                            return Err(SweepError::invalid(
                                format!("{rf}.{name}"),
                                format!(
                                    "{id} square {c}: off the map ({} rows × {} columns)",
                                    base.grid.rows, base.grid.cols
                                ),
                            ));
                        }
                    }
                    if r.from.row > r.to.row || r.from.col > r.to.col {
                        return Err(SweepError::invalid(
                            rf,
                            format!(
                                "`from` {} must be above and left of `to` {} (or equal)",
                                r.from, r.to
                            ),
                        ));
                    }
                    let mut set = Vec::new();
                    for row in r.from.row..=r.to.row {
                        for col in r.from.col..=r.to.col {
                            set.push((Cell::new(row, col), rf.clone()));
                        }
                    }
                    (set, format!("rect {}-{}", r.from, r.to), false)
                } else {
                    let z = p.zone.as_deref().unwrap_or_default();
                    let zf = format!("{field}.zone");
                    let mut chars = z.chars();
                    let (Some(letter), None) = (chars.next(), chars.next()) else {
                        return Err(SweepError::invalid(
                            zf,
                            format!("expected one zone letter, got {z:?}"),
                        ));
                    };
                    let zone = base.map.zone_cells(letter);
                    if zone.is_empty() {
                        return Err(SweepError::invalid(
                            zf,
                            format!("zone letter `{letter}` does not occur in the map's `zones`"),
                        ));
                    }
                    let set = zone.iter().map(|&c| (c, zf.clone())).collect();
                    (set, format!("zone {letter}"), true)
                };
            let mut excluded_here = 0usize;
            let mut set = set;
            for (i, x) in p.exclude.iter().enumerate() {
                let Some(pos) = set.iter().position(|(c, _)| c == x) else {
                    return Err(SweepError::invalid(
                        format!("{field}.exclude[{i}]"),
                        format!("{id} square {x} is not in the set (or excluded twice)"),
                    ));
                };
                let (c, _) = set.remove(pos);
                excluded_here += 1;
                if is_zone {
                    unused.push(UnusedSquare {
                        combatant: id.clone(),
                        cell: c,
                        reason: "excluded by `exclude`".into(),
                    });
                }
            }
            let source = if excluded_here > 0 {
                format!("{source} minus {excluded_here} excluded")
            } else {
                source
            };
            let zone_cells: Vec<Cell> = if is_zone {
                let letter = p.zone.as_deref().and_then(|z| z.chars().next());
                letter.map(|l| base.map.zone_cells(l)).unwrap_or_default()
            } else {
                Vec::new()
            };
            let fp_side = base.combatants[index].spec.size.footprint_side();
            let mut candidates = Vec::with_capacity(set.len());
            for (c, cf) in set {
                let mut problem = base.start_problem(index, c);
                if problem.is_none() && is_zone {
                    if let Some(out) = footprint(c, fp_side)
                        .into_iter()
                        .find(|x| zone_cells.binary_search(x).is_err())
                    {
                        problem = Some(format!("footprint square {out} is outside the zone"));
                    }
                }
                match problem {
                    None => candidates.push((c, cf)),
                    Some(reason) if is_zone => unused.push(UnusedSquare {
                        combatant: id.clone(),
                        cell: c,
                        reason,
                    }),
                    Some(reason) => {
                        let hint = if cf.ends_with(".rect") {
                            " (leave it out with `exclude`)"
                        } else {
                            ""
                        };
                        return Err(SweepError::invalid(
                            cf,
                            format!("{id} start {c}: {reason}{hint}"),
                        ));
                    }
                }
            }
            swept_raw.push((
                SweptCombatant {
                    id: id.clone(),
                    index,
                    side,
                    source,
                    candidates: Vec::new(),
                },
                candidates,
                is_zone,
                field,
            ));
        }
        // Fixed combatants must not overlap each other; then swept candidates on a fixed
        // combatant are errors (explicit sets) or unused squares (zones).
        for (i, a) in fixed.iter().enumerate() {
            let afp = footprint(a.cell, base.combatants[a.index].spec.size.footprint_side());
            for b in &fixed[..i] {
                let bfp = footprint(b.cell, base.combatants[b.index].spec.size.footprint_side());
                if afp.iter().any(|x| bfp.contains(x)) {
                    return Err(SweepError::invalid(
                        at(&format!("{}.cell", field_path("placements", &a.id))),
                        format!(
                            "{} start {}: overlaps {} (fixed at {})",
                            a.id, a.cell, b.id, b.cell
                        ),
                    ));
                }
            }
        }
        let mut swept = Vec::with_capacity(swept_raw.len());
        for (mut s, candidates, is_zone, field) in swept_raw {
            let side = base.combatants[s.index].spec.size.footprint_side();
            for (c, cf) in candidates {
                let fp = footprint(c, side);
                let clash = fixed.iter().find(|f| {
                    footprint(f.cell, base.combatants[f.index].spec.size.footprint_side())
                        .iter()
                        .any(|x| fp.contains(x))
                });
                match clash {
                    None => s.candidates.push(c),
                    Some(f) if is_zone => unused.push(UnusedSquare {
                        combatant: s.id.clone(),
                        cell: c,
                        reason: format!("overlaps {} (fixed at {})", f.id, f.cell),
                    }),
                    Some(f) => {
                        return Err(SweepError::invalid(
                            cf,
                            format!(
                                "{} start {c}: overlaps {} (fixed at {})",
                                s.id, f.id, f.cell
                            ),
                        ))
                    }
                }
            }
            if s.candidates.is_empty() {
                return Err(SweepError::invalid(
                    field,
                    format!("{} has no usable start square in {}", s.id, s.source),
                ));
            }
            swept.push(s);
        }
        swept.sort_by_key(|s| s.index);
        fixed.sort_by_key(|f| f.index);
        unused.sort_by(|a, b| {
            let ia = base.combatant_index(&a.combatant);
            let ib = base.combatant_index(&b.combatant);
            (ia, a.cell).cmp(&(ib, b.cell))
        });

        // Rank side.
        let rank_side = match &spec.rank_side {
            Some(s) => {
                if !base.sides.contains(s) {
                    return Err(SweepError::invalid(
                        at("rank_side"),
                        format!(
                            "unknown side `{s}` (the encounter has {})",
                            base.sides.join(", ")
                        ),
                    ));
                }
                s.clone()
            }
            None => swept
                .first()
                .map(|s| s.side.clone())
                .unwrap_or_else(|| base.sides[0].clone()),
        };

        // The product.
        let mut product: u64 = 1;
        for s in &swept {
            product = product
                .checked_mul(s.candidates.len() as u64)
                .filter(|p| *p <= MAX_PRODUCT)
                .ok_or_else(|| {
                    SweepError::invalid(
                        at("placements"),
                        format!(
                            "the product of the candidates ({}) has more than {MAX_PRODUCT} combinations",
                            swept
                                .iter()
                                .map(|s| format!("{}: {}", s.id, s.candidates.len()))
                                .collect::<Vec<_>>()
                                .join(" × ")
                        ),
                    )
                })?;
        }
        let mut arranger = Arranger::new(&base, &fixed, &swept);
        let mut valid: Vec<u64> = Vec::new();
        let mut groups: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for p in 0..product {
            let cells = decode(&swept, p);
            match arranger.arrange(&cells) {
                Ok(_) => valid.push(p),
                Err(reason) => groups.entry(reason).or_insert((0, p)).0 += 1,
            }
        }
        let excluded: Vec<ExcludedCombination> = groups
            .into_iter()
            .map(|(reason, (count, first))| ExcludedCombination {
                reason,
                count,
                example: swept
                    .iter()
                    .zip(decode(&swept, first))
                    .map(|(s, cell)| CombatantCell {
                        id: s.id.clone(),
                        cell,
                    })
                    .collect(),
            })
            .collect();
        if valid.is_empty() {
            return Err(SweepError::invalid(
                at("placements"),
                format!(
                    "every one of the {product} combinations is excluded: {}",
                    excluded
                        .iter()
                        .map(|e| e.reason.as_str())
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            ));
        }

        // Sample.
        let population = valid.len() as u64;
        let sample = spec.sample.map(|s| SampleInfo {
            size: s.size,
            seed: s.seed.unwrap_or(seed),
            population,
        });
        if let Some(s) = sample {
            if s.size.min(population) > MAX_PLACEMENTS as u64 {
                return Err(SweepError::invalid(
                    at("sample.size"),
                    format!(
                        "must be at most {MAX_PLACEMENTS}, the most placements of one sweep \
                         (got {}; {population} playable combinations)",
                        s.size
                    ),
                ));
            }
            if s.size < population {
                let mut rng = SplitMix64(s.seed ^ SAMPLE_STREAM);
                let n = s.size as usize;
                for j in 0..n {
                    let r = j + rng.below((valid.len() - j) as u64) as usize;
                    valid.swap(j, r);
                }
                valid.truncate(n);
                valid.sort_unstable();
            }
        }
        if valid.len() > MAX_PLACEMENTS {
            return Err(SweepError::invalid(
                at("placements"),
                format!(
                    "{} placements, more than {MAX_PLACEMENTS}: give `sample: {{size: N}}` or fewer candidates",
                    valid.len()
                ),
            ));
        }
        let combats = (valid.len() as u64).saturating_mul(runs);
        if combats > MAX_COMBATS {
            return Err(SweepError::invalid(
                at("runs"),
                format!(
                    "{} placements × {runs} runs = {combats} combats, more than {MAX_COMBATS}",
                    valid.len()
                ),
            ));
        }

        let mut placements = Vec::with_capacity(valid.len());
        for (k, &p) in valid.iter().enumerate() {
            let cells = decode(&swept, p);
            let (starts, displaced) = arranger
                .arrange(&cells)
                .expect("a valid combination stays valid");
            placements.push(Placement {
                index: k,
                product_index: p,
                cells,
                starts,
                displaced,
            });
        }
        let plan = SweepPlan {
            origin: origin.to_string(),
            description: spec.description.clone(),
            scenario: spec.scenario.clone(),
            base: Arc::new(base),
            runs,
            seed,
            swept,
            fixed,
            unused_zone_squares: unused,
            rank_side,
            product_size: product,
            excluded,
            sample,
            placements,
        };
        // Every placement must be a valid encounter (the engine's own check).
        for k in 0..plan.placements.len() {
            plan.try_encounter(k).map_err(|e| {
                SweepError::invalid(at(&format!("placements (placement {k})")), e.to_string())
            })?;
        }
        Ok(plan)
    }

    /// Combats of the whole sweep: placements × runs.
    pub fn total_combats(&self) -> u64 {
        self.placements.len() as u64 * self.runs
    }

    fn try_encounter(&self, k: usize) -> Result<Encounter, pf1e_engine::EncounterError> {
        let starts: Vec<(&str, Cell)> = self
            .base
            .combatants
            .iter()
            .zip(&self.placements[k].starts)
            .map(|(c, &s)| (c.id.as_str(), s))
            .collect();
        self.base.with_starts(&starts)
    }

    /// The encounter of placement `k`: the base encounter with every combatant at its start
    /// for that placement.
    ///
    /// # Panics
    /// If `k` is not a placement index (`k >= placements.len()`). Validity of the starts was
    /// checked by [`SweepPlan::build`].
    pub fn encounter(&self, k: usize) -> Encounter {
        self.try_encounter(k)
            .expect("placements were validated by SweepPlan::build")
    }
}

// ---------------------------------------------------------------------------------------------
// Runner

/// The outcome counts of one placement: integers only, so partial results can be sent over
/// the wire and merged exactly. Produced by [`run_placement`] / [`run_placements`], checked
/// and combined by [`assemble_report`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlacementResult {
    /// Placement index `k` in the plan.
    pub index: u64,
    /// The placement's product index `p` (its seeds derive from it).
    pub product_index: u64,
    /// Start anchor `(row, col)` of every combatant, in the encounter's list order.
    pub starts: Vec<Cell>,
    /// Wins per side, in the encounter's side order.
    pub wins: Vec<u64>,
    /// Combats without a winner.
    pub draws: u64,
    /// Draws caused by the round cap (a subset of `draws`).
    pub truncated: u64,
    /// Sum over combats of the rounds played.
    pub rounds_sum: u64,
    /// Combats played.
    pub runs: u64,
}

/// Integer tallies of a set of combats.
#[derive(Debug, Clone)]
struct Tally {
    wins: Vec<u64>,
    draws: u64,
    truncated: u64,
    rounds: u64,
    runs: u64,
}

impl Tally {
    fn new(sides: usize) -> Tally {
        Tally {
            wins: vec![0; sides],
            draws: 0,
            truncated: 0,
            rounds: 0,
            runs: 0,
        }
    }
    fn merge(mut self, other: Tally) -> Tally {
        for (a, b) in self.wins.iter_mut().zip(other.wins) {
            *a += b;
        }
        self.draws += other.draws;
        self.truncated += other.truncated;
        self.rounds += other.rounds;
        self.runs += other.runs;
        self
    }
}

fn play_placement(
    plan: &SweepPlan,
    k: usize,
    progress: Option<&(dyn Fn(u64) + Sync)>,
    cancel: &AtomicBool,
) -> Option<PlacementResult> {
    if cancel.load(Ordering::Relaxed) {
        return None;
    }
    let placement = &plan.placements[k];
    let enc = Arc::new(plan.encounter(k));
    let nsides = enc.sides.len();
    let runs = plan.runs;
    let tally = (0..runs.div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let mut t = Tally::new(nsides);
            let end = ((chunk + 1) * CHUNK).min(runs);
            for i in chunk * CHUNK..end {
                if cancel.load(Ordering::Relaxed) {
                    return None;
                }
                let seed = run_seed(plan.seed, placement.product_index, i);
                // `cancel` also stops a combat in progress (a round cap of 100,000 rounds).
                let stop = || cancel.load(Ordering::Relaxed);
                let outcome = play_outcome_within(Arc::clone(&enc), seed, &stop)?;
                match &outcome.winner {
                    Some(w) => {
                        if let Some(s) = enc.sides.iter().position(|s| s == w) {
                            t.wins[s] += 1;
                        }
                    }
                    None => t.draws += 1,
                }
                if outcome.truncated {
                    t.truncated += 1;
                }
                t.rounds += u64::from(outcome.rounds);
                t.runs += 1;
            }
            if let Some(p) = progress {
                p(end - chunk * CHUNK);
            }
            Some(t)
        })
        .try_reduce(|| Tally::new(nsides), |a, b| Some(a.merge(b)))?;
    Some(PlacementResult {
        index: k as u64,
        product_index: placement.product_index,
        starts: placement.starts.clone(),
        wins: tally.wins,
        draws: tally.draws,
        truncated: tally.truncated,
        rounds_sum: tally.rounds,
        runs: tally.runs,
    })
}

/// Play the `plan.runs` combats of placement `k` with the default policy on every side, in
/// parallel on the current rayon pool (chunks of 32 runs), run `i` seeded with
/// [`run_seed`]`(plan.seed, p, i)`. `cancel` is checked before every combat. Returns `None`
/// when cancelled. The result does not depend on the thread count.
///
/// # Panics
/// If `k >= plan.placements.len()`, or if the engine asks a default-policy combatant for an
/// external decision (an engine bug, see [`crate::montecarlo::play_one`]).
pub fn run_placement(plan: &SweepPlan, k: usize, cancel: &AtomicBool) -> Option<PlacementResult> {
    play_placement(plan, k, None, cancel)
}

/// Play the placements `indices` (placement indices `k`, any order, no duplicates needed but
/// allowed) in parallel on the current rayon pool; results in the order of `indices`.
/// `progress`, when given, is called from worker threads with the number of combats just
/// finished (a delta). `cancel` is checked before every combat.
///
/// # Errors
/// [`SweepError::Invalid`] (field `indices[j]`) for an index that is not a placement of the
/// plan; [`SweepError::Cancelled`] when `cancel` was raised before the end.
pub fn run_placements(
    plan: &SweepPlan,
    indices: &[usize],
    progress: Option<&(dyn Fn(u64) + Sync)>,
    cancel: &AtomicBool,
) -> Result<Vec<PlacementResult>, SweepError> {
    for (j, &k) in indices.iter().enumerate() {
        if k >= plan.placements.len() {
            return Err(SweepError::invalid(
                format!("indices[{j}]"),
                format!(
                    "placement {k} is not in the plan ({} placements)",
                    plan.placements.len()
                ),
            ));
        }
    }
    let out: Option<Vec<PlacementResult>> = indices
        .par_iter()
        .map(|&k| play_placement(plan, k, progress, cancel))
        .collect();
    out.ok_or(SweepError::Cancelled)
}

// ---------------------------------------------------------------------------------------------
// Report

/// A side of the encounter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SideInfo {
    /// Side name.
    pub name: String,
    /// Number of combatants.
    pub combatants: usize,
    /// The name of the tactics spec it plays (absent: the default policy).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tactics: Option<String>,
}

/// One placement's statistics in the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlacementRow {
    /// Placement index `k`.
    pub index: u64,
    /// Product index `p`.
    pub product_index: u64,
    /// Rank by the rank side's win rate, 1 = best.
    pub rank: u64,
    /// Start anchor of each swept combatant, in [`SweepReport::swept`] order.
    pub cells: Vec<Cell>,
    /// Start anchor of every combatant, in [`SweepReport::combatants`] order.
    pub starts: Vec<Cell>,
    /// Combatants moved off their default square to make room.
    pub displaced: Vec<Displaced>,
    /// Combats played.
    pub runs: u64,
    /// Win statistics per side (count, rate, σ, 3σ band, Wilson interval), side order.
    pub wins: Vec<WinRate>,
    /// Draw statistics.
    pub draws: WinRate,
    /// Draws caused by the round cap.
    pub truncated: u64,
    /// Mean rounds per combat.
    pub mean_rounds: f64,
    /// Two-proportion z statistic (pooled standard error) of the best placement's win count
    /// of the rank side against this one's; 0 for the best itself. See
    /// [`z_two_proportions`]. Informative only: the verdict is [`PlacementRow::in_best_set`].
    pub z_vs_best: f64,
    /// Shown worse than the best ([`SIGNIFICANCE`]): the negation of
    /// [`PlacementRow::in_best_set`]. (Before the correction this flag was `z ≥ 3`.)
    pub significantly_worse: bool,
    /// One-sided Fisher exact p-value of "the best placement's rank-side win rate is higher
    /// than this one's" ([`fisher_one_sided`]); 1 for the best itself.
    pub p_vs_best: f64,
    /// Not distinguishable from the best: the best itself, and every placement whose
    /// one-sided exact p-value against the best is above [`BEST_SET_ALPHA`]` / (k − 1)`
    /// (Bonferroni over the `k − 1` comparisons).
    pub in_best_set: bool,
}

/// Pooled results of one start square of a swept combatant.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellStat {
    /// Start anchor `(row, col)`.
    pub cell: Cell,
    /// Placements where the combatant started there.
    pub placements: u64,
    /// Wins of the combatant's side, summed over those placements.
    pub wins: u64,
    /// Combats, summed over those placements.
    pub runs: u64,
    /// `wins / runs`.
    pub rate: f64,
}

/// Per swept combatant: its side's win rate by start square (the heatmap's data).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CombatantCells {
    /// Combatant id.
    pub combatant: String,
    /// Its side (whose win rate is pooled).
    pub side: String,
    /// One entry per candidate square evaluated at least once, row-major.
    pub cells: Vec<CellStat>,
}

/// The report of a sweep, assembled by [`assemble_report`]. Serialized as the JSON document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepReport {
    /// The spec's origin.
    pub origin: String,
    /// The spec's description.
    pub description: String,
    /// The bundled scenario used as base, if any.
    pub scenario: Option<String>,
    /// Map name.
    pub map_name: String,
    /// Map height in squares.
    pub rows: i32,
    /// Map width in squares.
    pub cols: i32,
    /// Impassable squares `(row, col)`, row-major.
    pub walls: Vec<Cell>,
    /// Difficult terrain squares (move cost > 1), row-major.
    pub difficult: Vec<Cell>,
    /// Squares above the map's lowest elevation, row-major.
    pub elevated: Vec<Cell>,
    /// Sides in deployment order.
    pub sides: Vec<SideInfo>,
    /// Combatant ids in list order.
    pub combatants: Vec<String>,
    /// The side of each combatant, in list order.
    pub combatant_sides: Vec<String>,
    /// Swept combatants and their candidates.
    pub swept: Vec<SweptCombatant>,
    /// Fixed combatants.
    pub fixed: Vec<FixedCombatant>,
    /// Zone squares that are not candidates, and why.
    pub unused_zone_squares: Vec<UnusedSquare>,
    /// Combats per placement.
    pub runs: u64,
    /// Base seed.
    pub seed: u64,
    /// Round cap (rounds).
    pub round_cap: u32,
    /// Whether monsters die at hp ≤ 0.
    pub simple_monster_death: bool,
    /// How run seeds are derived, in words.
    pub seed_derivation: String,
    /// Combinations of the product.
    pub product_size: u64,
    /// Excluded combinations by reason.
    pub excluded: Vec<ExcludedCombination>,
    /// Total excluded combinations.
    pub excluded_count: u64,
    /// The sample, if any.
    pub sample: Option<SampleInfo>,
    /// The side ranking the placements.
    pub rank_side: String,
    /// The significance test, in words.
    pub significance: String,
    /// Placement index of the best placement.
    pub best: u64,
    /// The best set: placement indices not distinguishable from the best (the best first,
    /// then in ranking order; see [`PlacementRow::in_best_set`]).
    pub best_set: Vec<u64>,
    /// The best set's error rate ([`BEST_SET_ALPHA`]): it misses the truly best placement with
    /// at most this probability.
    pub best_set_alpha: f64,
    /// Placements by placement index.
    pub placements: Vec<PlacementRow>,
    /// Placement indices, best first.
    pub ranking: Vec<u64>,
    /// Per swept combatant, its side's win rate by start square.
    pub cell_stats: Vec<CombatantCells>,
    /// RNG stack.
    pub rng: String,
    /// Engine version.
    pub engine_version: String,
}

/// The seed derivation, in words (stamped into reports).
pub const SEED_DERIVATION: &str = "run i of the placement with product index p uses the episode \
seed splitmix64(splitmix64(splitmix64(seed) ^ p) ^ i); splitmix64(x) is one SplitMix64 step \
(x + 0x9E3779B97F4A7C15, then the variant-13 finalizer); p is the placement's position in the \
full product, before exclusions and sampling";

/// The significance test, in words (stamped into reports).
pub const SIGNIFICANCE: &str = "one-sided Fisher exact test of each placement against the best \
one (rank side's wins: is the best's win rate higher?), Bonferroni correction over the k-1 \
comparisons (a placement is out when p <= 0.05/(k-1)); the best set is the best placement and \
every placement not out: not distinguishable from the best; it contains the truly best \
placement with probability >= 95% (union bound over the comparisons with it). The best is the \
highest of noisy estimates, so its own rate is biased upwards: read its Wilson interval";

/// Check `results` against `plan` and build the report: every placement of the plan exactly
/// once (any order), each matching the plan (product index, starts, runs, side count, counts
/// adding up). Rates, 3σ bands, ranking, z-tests and per-square pooled rates are computed
/// here, from the integer counts only, so the report depends only on the plan and the set of
/// results.
///
/// # Errors
/// [`SweepError::Invalid`] with field `results[j]` (position in `results`) for a placement
/// index out of the plan, a duplicate, a mismatch or inconsistent counts, or field `results`
/// naming the missing placements.
pub fn assemble_report(
    plan: &SweepPlan,
    results: Vec<PlacementResult>,
) -> Result<SweepReport, SweepError> {
    let n = plan.placements.len();
    let nsides = plan.base.sides.len();
    let mut slots: Vec<Option<PlacementResult>> = vec![None; n];
    for (j, r) in results.into_iter().enumerate() {
        let field = format!("results[{j}]");
        let Some(p) = usize::try_from(r.index)
            .ok()
            .and_then(|k| plan.placements.get(k))
        else {
            return Err(SweepError::invalid(
                field,
                format!("placement {} is not in the plan ({n} placements)", r.index),
            ));
        };
        let k = p.index;
        if slots[k].is_some() {
            return Err(SweepError::invalid(
                field,
                format!("placement {k} appears twice"),
            ));
        }
        if r.product_index != p.product_index || r.starts != p.starts {
            return Err(SweepError::invalid(
                field,
                format!("placement {k} does not match the plan (product index or starts differ)"),
            ));
        }
        if r.runs != plan.runs {
            return Err(SweepError::invalid(
                field,
                format!("placement {k} has {} runs, the plan {}", r.runs, plan.runs),
            ));
        }
        let won: u64 = r.wins.iter().sum();
        if r.wins.len() != nsides
            || won.checked_add(r.draws) != Some(r.runs)
            || r.truncated > r.draws
            || r.rounds_sum
                > r.runs
                    .saturating_mul(u64::from(plan.base.options.round_cap))
        {
            return Err(SweepError::invalid(
                field,
                format!("placement {k}: inconsistent counts"),
            ));
        }
        slots[k] = Some(r);
    }
    let missing: Vec<String> = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(k, _)| k.to_string())
        .collect();
    if !missing.is_empty() {
        let shown: Vec<&str> = missing.iter().take(10).map(String::as_str).collect();
        return Err(SweepError::invalid(
            "results",
            format!(
                "{} placement(s) missing: {}{}",
                missing.len(),
                shown.join(", "),
                if missing.len() > 10 { ", …" } else { "" }
            ),
        ));
    }
    let results: Vec<PlacementResult> = slots.into_iter().flatten().collect();
    let enc = &plan.base;
    let rs = enc
        .sides
        .iter()
        .position(|s| *s == plan.rank_side)
        .expect("rank side checked by build");

    let mut ranking: Vec<usize> = (0..n).collect();
    ranking.sort_by(|&a, &b| {
        results[b].wins[rs]
            .cmp(&results[a].wins[rs])
            .then(a.cmp(&b))
    });
    let best = ranking[0];
    let mut rank = vec![0u64; n];
    for (r, &k) in ranking.iter().enumerate() {
        rank[k] = r as u64 + 1;
    }
    // One-sided exact p-values against the best, Bonferroni over the other placements.
    let p_vs_best: Vec<f64> = results
        .iter()
        .map(|r| {
            if r.index as usize == best {
                1.0
            } else {
                fisher_one_sided(
                    results[best].wins[rs],
                    results[best].runs,
                    r.wins[rs],
                    r.runs,
                )
            }
        })
        .collect();
    let threshold = BEST_SET_ALPHA / n.saturating_sub(1).max(1) as f64;
    let worse: Vec<bool> = (0..n)
        .map(|k| k != best && p_vs_best[k] <= threshold)
        .collect();
    let placements: Vec<PlacementRow> = results
        .iter()
        .zip(&plan.placements)
        .map(|(r, p)| {
            let z = if p.index == best {
                0.0
            } else {
                z_two_proportions(
                    results[best].wins[rs],
                    results[best].runs,
                    r.wins[rs],
                    r.runs,
                )
            };
            PlacementRow {
                index: r.index,
                product_index: r.product_index,
                rank: rank[p.index],
                cells: p.cells.clone(),
                starts: r.starts.clone(),
                displaced: p.displaced.clone(),
                runs: r.runs,
                wins: r.wins.iter().map(|&w| WinRate::new(w, r.runs)).collect(),
                draws: WinRate::new(r.draws, r.runs),
                truncated: r.truncated,
                mean_rounds: if r.runs == 0 {
                    0.0
                } else {
                    r.rounds_sum as f64 / r.runs as f64
                },
                z_vs_best: z,
                significantly_worse: worse[p.index],
                p_vs_best: p_vs_best[p.index],
                in_best_set: !worse[p.index],
            }
        })
        .collect();

    let cell_stats = plan
        .swept
        .iter()
        .enumerate()
        .map(|(j, s)| {
            let side = enc
                .sides
                .iter()
                .position(|x| *x == s.side)
                .expect("a combatant's side is a side");
            let mut by_cell: BTreeMap<Cell, (u64, u64, u64)> = BTreeMap::new();
            for (r, p) in results.iter().zip(&plan.placements) {
                let e = by_cell.entry(p.cells[j]).or_default();
                e.0 += 1;
                e.1 += r.wins[side];
                e.2 += r.runs;
            }
            CombatantCells {
                combatant: s.id.clone(),
                side: s.side.clone(),
                cells: by_cell
                    .into_iter()
                    .map(|(cell, (placements, wins, runs))| CellStat {
                        cell,
                        placements,
                        wins,
                        runs,
                        rate: if runs == 0 {
                            0.0
                        } else {
                            wins as f64 / runs as f64
                        },
                    })
                    .collect(),
            }
        })
        .collect();

    let mut walls = Vec::new();
    let mut difficult = Vec::new();
    let mut elevated = Vec::new();
    let mut lowest = i32::MAX;
    for row in 0..enc.grid.rows {
        for col in 0..enc.grid.cols {
            lowest = lowest.min(enc.grid.elevation(Cell::new(row, col)));
        }
    }
    for row in 0..enc.grid.rows {
        for col in 0..enc.grid.cols {
            let c = Cell::new(row, col);
            if !enc.grid.passable(c) {
                walls.push(c);
            } else {
                if enc.grid.is_difficult(c) {
                    difficult.push(c);
                }
                if enc.grid.elevation(c) > lowest {
                    elevated.push(c);
                }
            }
        }
    }
    Ok(SweepReport {
        origin: plan.origin.clone(),
        description: plan.description.clone(),
        scenario: plan.scenario.clone(),
        map_name: enc.map.name.clone(),
        rows: enc.grid.rows,
        cols: enc.grid.cols,
        walls,
        difficult,
        elevated,
        sides: enc
            .sides
            .iter()
            .map(|name| SideInfo {
                name: name.clone(),
                combatants: enc.combatants.iter().filter(|c| &c.side == name).count(),
                tactics: enc.tactics.get(name).map(|t| t.name.clone()),
            })
            .collect(),
        combatants: enc.combatants.iter().map(|c| c.id.clone()).collect(),
        combatant_sides: enc.combatants.iter().map(|c| c.side.clone()).collect(),
        swept: plan.swept.clone(),
        fixed: plan.fixed.clone(),
        unused_zone_squares: plan.unused_zone_squares.clone(),
        runs: plan.runs,
        seed: plan.seed,
        round_cap: enc.options.round_cap,
        simple_monster_death: enc.options.simple_monster_death,
        seed_derivation: SEED_DERIVATION.to_string(),
        product_size: plan.product_size,
        excluded_count: plan.excluded.iter().map(|e| e.count).sum(),
        excluded: plan.excluded.clone(),
        sample: plan.sample,
        rank_side: plan.rank_side.clone(),
        significance: SIGNIFICANCE.to_string(),
        best: best as u64,
        best_set: ranking
            .iter()
            .filter(|&&k| !worse[k])
            .map(|&k| k as u64)
            .collect(),
        best_set_alpha: BEST_SET_ALPHA,
        placements,
        ranking: ranking.iter().map(|&k| k as u64).collect(),
        cell_stats,
        rng: pf1e_engine::dice::RNG_VERSION.to_string(),
        engine_version: ENGINE_VERSION.to_string(),
    })
}

/// Quote a CSV field (RFC 4180): in double quotes, inner quotes doubled, when it contains a
/// comma, a quote, a line break or leading/trailing spaces.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The `moved` cell of the text table: `goblin-2→(1,1) orc→(3,17)`.
fn moved_text(displaced: &[Displaced]) -> String {
    displaced
        .iter()
        .map(|d| format!("{}→{}", esc(&d.id), d.to))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A p-value for the text table: three significant decimals, `< 0.001` below.
fn p_value_text(p: f64, t: Typo) -> String {
    if p < 0.001 {
        format!("< {}", t.num(0.001, 3))
    } else {
        t.num(p, 3)
    }
}

/// `n` and a noun, singular when `n` is 1: `1 square`, `7 squares`.
fn count_of(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl SweepReport {
    /// The CSV file: a header, then one line per placement in placement-index order
    /// (RFC 4180 quoting, `\n` line ends). Columns: `index`, `product_index`, `rank`, per
    /// swept combatant `<id>_row` and `<id>_col`, `runs`, per side `<side>_wins`,
    /// `<side>_rate`, `<side>_band3_lo`, `<side>_band3_hi`, `<side>_wilson3_lo`,
    /// `<side>_wilson3_hi`, then `draws`, `draw_rate`, `truncated`, `mean_rounds`,
    /// `z_vs_best`, `significantly_worse`, `p_vs_best`, `in_best_set`, `displaced`
    /// (`id:(r,c)->(r,c)` joined by `;`). Rates are proportions in `[0, 1]`.
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        self.csv_lines(|l| {
            out.push_str(l);
            out.push('\n');
        });
        out
    }

    /// Length in bytes of [`SweepReport::to_csv`], without building it.
    fn csv_len(&self) -> usize {
        let mut n = 0;
        self.csv_lines(|l| n += l.len() + 1);
        n
    }

    /// Each line of the CSV file, without its line end.
    fn csv_lines(&self, mut emit: impl FnMut(&str)) {
        let mut header: Vec<String> = vec!["index".into(), "product_index".into(), "rank".into()];
        for s in &self.swept {
            header.push(format!("{}_row", s.id));
            header.push(format!("{}_col", s.id));
        }
        header.push("runs".into());
        for s in &self.sides {
            for suffix in [
                "wins",
                "rate",
                "band3_lo",
                "band3_hi",
                "wilson3_lo",
                "wilson3_hi",
            ] {
                header.push(format!("{}_{suffix}", s.name));
            }
        }
        for h in [
            "draws",
            "draw_rate",
            "truncated",
            "mean_rounds",
            "z_vs_best",
            "significantly_worse",
            "p_vs_best",
            "in_best_set",
            "displaced",
        ] {
            header.push(h.into());
        }
        let mut line = |fields: Vec<String>| {
            let quoted: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
            emit(&quoted.join(","));
        };
        line(header);
        for p in &self.placements {
            let mut f = vec![
                p.index.to_string(),
                p.product_index.to_string(),
                p.rank.to_string(),
            ];
            for c in &p.cells {
                f.push(c.row.to_string());
                f.push(c.col.to_string());
            }
            f.push(p.runs.to_string());
            for w in &p.wins {
                f.push(w.count.to_string());
                f.push(w.rate.to_string());
                f.push(w.band_3sigma[0].to_string());
                f.push(w.band_3sigma[1].to_string());
                f.push(w.wilson_3sigma[0].to_string());
                f.push(w.wilson_3sigma[1].to_string());
            }
            f.push(p.draws.count.to_string());
            f.push(p.draws.rate.to_string());
            f.push(p.truncated.to_string());
            f.push(p.mean_rounds.to_string());
            f.push(p.z_vs_best.to_string());
            f.push(p.significantly_worse.to_string());
            f.push(p.p_vs_best.to_string());
            f.push(p.in_best_set.to_string());
            f.push(
                p.displaced
                    .iter()
                    .map(|d| format!("{}:{}->{}", d.id, d.from, d.to))
                    .collect::<Vec<_>>()
                    .join(";"),
            );
            line(f);
        }
    }

    /// The JSON document (pretty-printed, ending with a newline): every field of the report.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a report always serializes");
        s.push('\n');
        s
    }

    /// The English text report: [`SweepReport::render_text_lang`] in English.
    pub fn render_text(&self) -> String {
        self.render_text_lang(Lang::En)
    }

    /// The text report, in English or in French (French words and typography, see
    /// [`Typo`]): the setup, the exclusions, the statistics used, then the placements ranked
    /// best first (at most [`TEXT_MAX_ROWS`] rows; the CSV and JSON have all) with the rank
    /// side's win rate and its Wilson 3σ interval, the other sides' win rates, draws, mean
    /// rounds, the one-sided Fisher exact p-value against the best and whether the placement
    /// is in the best set; then the best set (placements not distinguishable from the best,
    /// Bonferroni-corrected).
    ///
    /// Strings that come from the spec, the request, the data files or the command line
    /// (origin, description, map, side and combatant names, reasons) are written with their
    /// control characters escaped ([`crate::report::escape_controls`]: `\u{1b}`, `\u{7}`), so
    /// the report cannot carry terminal escape sequences; a description's line breaks start
    /// new indented lines. The JSON and CSV keep the strings as they are (JSON escapes them).
    pub fn render_text_lang(&self, lang: Lang) -> String {
        let t = Typo(lang);
        let fr = t.fr();
        let count = |n: u64, en: (&str, &str), fr_: (&str, &str)| {
            let (one, many) = if fr { fr_ } else { en };
            format!("{} {}", t.int(n), if n == 1 { one } else { many })
        };
        let mut s = String::new();
        s.push_str(t.pick(
            "=== Position sweep ===\n",
            "=== Balayage des positions ===\n",
        ));
        let mut spec = esc(&self.origin).into_owned();
        if let Some(sc) = &self.scenario {
            spec.push_str(&format!(
                " ({} {})",
                t.pick("scenario", "scénario"),
                esc(sc)
            ));
        }
        s.push_str(&t.field(t.pick("Spec", "Spécification"), spec));
        s.push('\n');
        for line in self.description.trim().lines().map(str::trim_end) {
            if line.is_empty() {
                s.push('\n');
            } else {
                s.push_str(&format!("  {}\n", esc(line)));
            }
        }
        let sides = self
            .sides
            .iter()
            .map(|x| match &x.tactics {
                Some(tac) => format!(
                    "{} ({}, {} {})",
                    esc(&x.name),
                    x.combatants,
                    t.pick("tactics", "tactique"),
                    esc(tac)
                ),
                None => format!("{} ({})", esc(&x.name), x.combatants),
            })
            .collect::<Vec<_>>()
            .join(", ");
        s.push_str(&t.field(
            t.pick("Map", "Carte"),
            format!(
                "{} ({} × {} {}){} {}",
                esc(&self.map_name),
                self.cols,
                self.rows,
                t.pick("squares", "cases"),
                if fr { "\u{202f};" } else { ";" },
                t.field(t.pick("sides", "camps"), sides)
            ),
        ));
        s.push('\n');
        for sw in &self.swept {
            s.push_str(&format!(
                "{} {} ({}) {} {}\n",
                t.pick("Swept:", "Balayé\u{a0}:"),
                esc(&sw.id),
                esc(self.side_of(&sw.id)),
                t.pick("over", "sur"),
                t.field(
                    &esc(&sw.source),
                    count(
                        sw.candidates.len() as u64,
                        ("square", "squares"),
                        ("case", "cases"),
                    )
                ),
            ));
        }
        for f in &self.fixed {
            s.push_str(&format!(
                "{} {} {} {}\n",
                t.pick("Fixed:", "Fixe\u{a0}:"),
                esc(&f.id),
                t.pick("at", "en"),
                f.cell
            ));
        }
        for u in &self.unused_zone_squares {
            s.push_str(&format!(
                "  {} {} {}\n",
                t.pick("not used:", "non utilisée\u{a0}:"),
                esc(&u.combatant),
                t.field(&u.cell.to_string(), esc(&u.reason))
            ));
        }
        let others: Vec<String> = self
            .combatants
            .iter()
            .filter(|id| {
                !self.swept.iter().any(|x| &x.id == *id) && !self.fixed.iter().any(|x| &x.id == *id)
            })
            .map(|id| esc(id).into_owned())
            .collect();
        if !others.is_empty() {
            s.push_str(&t.field(
                t.pick(
                    "Default deployment (making room when a placed combatant takes their square)",
                    "Déploiement par défaut (en laissant la place quand un combattant placé prend leur case)",
                ),
                others.join(", "),
            ));
            s.push('\n');
        }
        let how = match (&self.sample, fr) {
            (Some(x), false) if x.size < x.population => format!(
                "a random sample (seed {}) of the {} playable of ",
                x.seed,
                t.int(x.population)
            ),
            (Some(x), true) if x.size < x.population => format!(
                "un échantillon aléatoire (graine {}) des {} jouables parmi ",
                x.seed,
                t.int(x.population)
            ),
            (Some(x), false) => format!(
                "all {} playable (sample size {} ≥ them) of ",
                t.int(x.population),
                t.int(x.size)
            ),
            (Some(x), true) => format!(
                "les {} jouables (taille d'échantillon {} ≥ leur nombre) parmi ",
                t.int(x.population),
                t.int(x.size)
            ),
            (None, _) => String::new(),
        };
        s.push_str(&t.field(
            t.pick("Placements", "Placements"),
            format!(
                "{} — {how}{} ({} {})",
                t.int(self.placements.len() as u64),
                count(
                    self.product_size,
                    ("combination", "combinations"),
                    ("combinaison", "combinaisons")
                ),
                t.int(self.excluded_count),
                t.pick("excluded", "exclues"),
            ),
        ));
        s.push('\n');
        for e in &self.excluded {
            s.push_str(&format!(
                "  {} × {} ({})\n",
                t.field(t.pick("excluded", "exclues"), t.int(e.count)),
                esc(&e.reason),
                t.field(
                    t.pick("first", "première"),
                    e.example
                        .iter()
                        .map(|c| format!("{} {}", esc(&c.id), c.cell))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            ));
        }
        s.push_str(&if fr {
            format!(
                "Parties{NBSP}: {} par placement = {}{NNBSP}; graine {}{NNBSP}; plafond de {} rounds\n",
                t.int(self.runs),
                count(
                    self.placements.len() as u64 * self.runs,
                    ("combat", "combats"),
                    ("combat", "combats")
                ),
                self.seed,
                t.int(self.round_cap)
            )
        } else {
            format!(
                "Runs: {} per placement = {}; seed {}; round cap {}\n",
                t.int(self.runs),
                count(
                    self.placements.len() as u64 * self.runs,
                    ("combat", "combats"),
                    ("combat", "combats")
                ),
                self.seed,
                t.int(self.round_cap)
            )
        });
        s.push_str(&t.field(
            t.pick("Seeds", "Graines"),
            t.pick(
                "run i of the placement with product index p uses splitmix64(splitmix64(splitmix64(seed) ^ p) ^ i)\n",
                "la partie i du placement d'indice p dans le produit utilise splitmix64(splitmix64(splitmix64(graine) ^ p) ^ i)\n",
            ),
        ));
        let others_count = self.placements.len().saturating_sub(1) as u64;
        let pct0 = |x: f64| {
            format!(
                "{}{}%",
                t.num(x * 100.0, 0),
                if fr { "\u{202f}" } else { "" }
            )
        };
        let alpha = pct0(self.best_set_alpha);
        let confidence = pct0(1.0 - self.best_set_alpha);
        if fr {
            s.push_str(&format!(
                "Classement{NBSP}: par le taux de victoire de {}, le meilleur d'abord.\n\
                 Statistiques{NBSP}: intervalle de Wilson à 3σ par placement{NNBSP}; chaque placement \
                 comparé au meilleur par un test exact de Fisher unilatéral,\n  correction de \
                 Bonferroni sur les {} comparaisons (exclu si p ≤ {alpha}/{}){NNBSP}; «{NBSP}meilleur \
                 ensemble{NBSP}» = le meilleur et les placements\n  qui ne s'en distinguent pas{NNBSP}; il \
                 contient le vrai meilleur avec une probabilité d'au moins {confidence}. Le meilleur \
                 est le plus haut\n  de taux bruités{NNBSP}: son taux est surestimé, lire son intervalle.\n\n",
                esc(&self.rank_side),
                t.int(others_count),
                t.int(others_count.max(1))
            ));
        } else {
            s.push_str(&format!(
                "Ranking: by the win rate of {}, best first.\n\
                 Statistics: Wilson score interval at 3σ per placement; each placement compared \
                 with the best by a one-sided Fisher exact test,\n  Bonferroni correction over \
                 the {} comparisons (out when p ≤ {alpha}/{}); \"best set\" = the best and the \
                 placements not distinguishable from it;\n  it contains the truly best placement \
                 with probability ≥ {confidence}. The best is the highest of noisy rates: its rate \
                 is biased upwards,\n  read its interval.\n\n",
                esc(&self.rank_side),
                t.int(others_count),
                t.int(others_count.max(1))
            ));
        }

        let rs = self
            .sides
            .iter()
            .position(|x| x.name == self.rank_side)
            .unwrap_or(0);
        let mut headers: Vec<String> = vec![t.pick("Rank", "Rang").into(), "#".into()];
        headers.extend(self.swept.iter().map(|x| esc(&x.id).into_owned()));
        headers.push(esc(&self.rank_side).into_owned());
        headers.push("Wilson 3σ".into());
        headers.extend(
            self.sides
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != rs)
                .map(|(_, x)| esc(&x.name).into_owned()),
        );
        for h in [
            t.pick("draws", "nuls"),
            "rounds",
            t.pick("p vs best", "p contre le meilleur"),
            t.pick("best set", "meilleur ensemble"),
            t.pick("moved", "déplacés"),
        ] {
            headers.push(h.into());
        }
        let mut aligns = vec![Align::Right, Align::Right];
        aligns.extend(self.swept.iter().map(|_| Align::Left));
        aligns.push(Align::Right);
        aligns.push(Align::Left);
        aligns.extend((1..self.sides.len()).map(|_| Align::Right));
        aligns.extend([
            Align::Right,
            Align::Right,
            Align::Right,
            Align::Left,
            Align::Left,
        ]);
        let mut lines = Vec::new();
        for &k in self.ranking.iter().take(TEXT_MAX_ROWS) {
            let p = &self.placements[k as usize];
            let mut row = vec![p.rank.to_string(), p.index.to_string()];
            row.extend(p.cells.iter().map(|c| c.to_string()));
            let w = &p.wins[rs];
            row.push(t.pct(w.rate));
            row.push(t.interval(w.wilson_3sigma));
            row.extend(
                p.wins
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != rs)
                    .map(|(_, w)| t.pct(w.rate)),
            );
            row.push(t.pct(p.draws.rate));
            row.push(t.num(p.mean_rounds, 1));
            row.push(if p.index == self.best {
                "—".into()
            } else {
                p_value_text(p.p_vs_best, t)
            });
            row.push(
                match (p.in_best_set, fr) {
                    (true, false) => "yes",
                    (false, false) => "no",
                    (true, true) => "oui",
                    (false, true) => "non",
                }
                .into(),
            );
            row.push(moved_text(&p.displaced));
            lines.push(TableLine::Row(row));
        }
        let header_refs: Vec<&str> = headers.iter().map(String::as_str).collect();
        s.push_str(&render_table(&header_refs, &aligns, &lines));
        if self.ranking.len() > TEXT_MAX_ROWS {
            let more = (self.ranking.len() - TEXT_MAX_ROWS) as u64;
            s.push_str(&format!(
                "… {} {}\n",
                count(
                    more,
                    ("placement", "placements"),
                    ("placement", "placements")
                ),
                t.pick("more in the CSV / JSON", "de plus dans le CSV / JSON")
            ));
        }
        let shown: Vec<String> = self
            .best_set
            .iter()
            .take(TEXT_MAX_ROWS)
            .map(|k| format!("#{k}"))
            .collect();
        let rest = self.best_set.len().saturating_sub(TEXT_MAX_ROWS);
        let list = if rest > 0 {
            format!("{}, … (+{})", shown.join(", "), t.int(rest as u64))
        } else {
            shown.join(", ")
        };
        let total = count(
            self.placements.len() as u64,
            ("placement", "placements"),
            ("placement", "placements"),
        );
        s.push('\n');
        s.push_str(&if fr {
            format!(
                "Meilleur ensemble (ne se distinguent pas du meilleur, #{}, correction de Bonferroni, {confidence} de confiance){NBSP}: {} sur {total}{NBSP}: {list}\n",
                self.best,
                t.int(self.best_set.len() as u64),
            )
        } else {
            format!(
                "Best set (not distinguishable from the best, #{}, Bonferroni correction, {confidence} confidence): {} of {total}: {list}\n",
                self.best,
                t.int(self.best_set.len() as u64),
            )
        });
        s.push_str(&t.field(
            t.pick("RNG", "Générateur aléatoire"),
            format!(
                "{} — {} pf1e-engine {}\n",
                self.rng,
                t.pick("engine", "moteur"),
                self.engine_version
            ),
        ));
        s
    }

    fn side_of(&self, id: &str) -> &str {
        self.swept
            .iter()
            .find(|s| s.id == id)
            .map(|s| s.side.as_str())
            .unwrap_or("")
    }

    /// One heatmap per swept combatant (in [`SweepReport::swept`] order): every candidate
    /// square evaluated at least once, valued with the combatant's side's win rate pooled over
    /// the placements where it started there (pooled wins / pooled runs), over the map's
    /// impassable squares, difficult terrain and high ground, with the start squares of the
    /// combatant's enemies (every other side) in the best placement as markers. The colour
    /// scale is fitted to the values ([`crate::heatmap::fitted_scale`]).
    pub fn heatmaps(&self) -> Vec<Heatmap> {
        let best = self.placements.get(self.best as usize);
        self.cell_stats
            .iter()
            .map(|cs| Heatmap {
                title: format!(
                    "{}: {} win rate by start square ({} per placement); red: enemies' starts \
                     (best placement)",
                    cs.combatant,
                    cs.side,
                    count_of(self.runs, "run", "runs")
                ),
                rows: self.rows,
                cols: self.cols,
                walls: self.walls.iter().map(|c| (c.row, c.col)).collect(),
                cells: cs
                    .cells
                    .iter()
                    .map(|c| HeatmapCell {
                        row: c.cell.row,
                        col: c.cell.col,
                        value: c.rate,
                        runs: c.runs,
                    })
                    .collect(),
                value_label: format!("{} win rate", cs.side),
                difficult: self.difficult.iter().map(|c| (c.row, c.col)).collect(),
                elevated: self.elevated.iter().map(|c| (c.row, c.col)).collect(),
                markers: best
                    .map(|p| {
                        self.combatant_sides
                            .iter()
                            .zip(&self.combatants)
                            .zip(&p.starts)
                            .filter(|((side, _), _)| **side != cs.side)
                            .map(|((_, id), c)| HeatmapMarker {
                                row: c.row,
                                col: c.col,
                                label: id.clone(),
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Size bounds

/// Which rendering a [`SweepPlan::widest_report`] is the widest for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Widest {
    /// [`SweepReport::to_json`].
    Json,
    /// [`SweepReport::to_csv`].
    Csv,
    /// [`SweepReport::render_text`].
    Text,
    /// A binary encoding (protobuf): every float non-zero, every integer and flag at its
    /// largest.
    Binary,
}

/// A float with the longest text `serde_json` writes for any `f64`: 24 characters,
/// `-2.2250738585072014e-308`.
pub const JSON_WIDEST_FLOAT: f64 = -f64::MIN_POSITIVE;

/// A float whose `Display` text (the CSV's: no exponent) is 41 characters, `0.`, 22 zeros and
/// 17 digits: longer than that of any win rate or 3σ band bound of a report (at most 40, see
/// [`SweepPlan::widest_report`]).
pub const CSV_WIDEST_FLOAT: f64 = 1.234_567_890_123_456_7e-23;

/// A float whose `Display` text is 24 characters (`0.0000012345678901234567`): at least that
/// of any mean round count or z statistic of a report.
pub const CSV_WIDE_FLOAT: f64 = 1.234_567_890_123_456_7e-6;

/// Up to this many runs per placement, [`SweepPlan::widest_report`] finds the widest rendering
/// of each win-rate field by trying every count `0..=runs` (the reports that can be large have
/// many placements, hence few runs: placements × runs ≤ [`MAX_COMBATS`]); above, it uses
/// [`JSON_WIDEST_FLOAT`] / [`CSV_WIDEST_FLOAT`].
pub const ENUMERATED_RUNS: u64 = 20_000;

/// A [`WinRate`] whose every float field is, separately, the one with the longest `len` among
/// the win rates of `0..=runs` counts out of `runs` (`generic` in every field above
/// [`ENUMERATED_RUNS`]); its count is `runs`.
fn widest_win_rate(runs: u64, len: impl Fn(f64) -> usize, generic: f64) -> WinRate {
    let mut widest = WinRate {
        count: runs,
        runs,
        rate: generic,
        sigma: generic,
        band_3sigma: [generic; 2],
        wilson_3sigma: [generic; 2],
    };
    if runs > ENUMERATED_RUNS {
        return widest;
    }
    let mut lens = [0usize; 6];
    let mut best = [0f64; 6];
    for k in 0..=runs {
        let w = WinRate::new(k, runs);
        let values = [
            w.rate,
            w.sigma,
            w.band_3sigma[0],
            w.band_3sigma[1],
            w.wilson_3sigma[0],
            w.wilson_3sigma[1],
        ];
        for ((l, b), v) in lens.iter_mut().zip(&mut best).zip(values) {
            let n = len(v);
            if n > *l {
                *l = n;
                *b = v;
            }
        }
    }
    widest.rate = best[0];
    widest.sigma = best[1];
    widest.band_3sigma = [best[2], best[3]];
    widest.wilson_3sigma = [best[4], best[5]];
    widest
}

fn json_len(x: f64) -> usize {
    serde_json::to_string(&x).map_or(0, |s| s.len())
}

fn display_len(x: f64) -> usize {
    x.to_string().len()
}

/// Upper bounds, in bytes, of the renderings of a plan's report, known before any combat is
/// played ([`SweepPlan::report_size_bound`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportSizeBound {
    /// [`SweepReport::to_json`].
    pub json: usize,
    /// [`SweepReport::to_csv`].
    pub csv: usize,
    /// [`SweepReport::render_text`] (0 when not asked for).
    pub text: usize,
}

/// An `io::Write` that only counts bytes.
struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl SweepPlan {
    /// A report of this plan whose `widest` rendering is at least as long as that of any
    /// report the plan's results can give: the structure is the plan's (placements, squares,
    /// moves, exclusions, cells: exact), and every number is at its widest for `widest`.
    ///
    /// - Integers at their largest: counts and `truncated` = runs, per-square wins = runs,
    ///   `rank` = placements, `best` and every `ranking` entry = placements − 1 (binary).
    /// - Win-rate fields (rate, σ, band and Wilson bounds: functions of the count out of
    ///   `runs`), for JSON and CSV: each the longest over every possible count (up to
    ///   [`ENUMERATED_RUNS`] runs), else [`JSON_WIDEST_FLOAT`] / [`CSV_WIDEST_FLOAT`].
    /// - [`Widest::Json`]: the other floats [`JSON_WIDEST_FLOAT`] (no `f64` is longer in
    ///   JSON), `significantly_worse` false (`false` is longer than `true`).
    /// - [`Widest::Csv`]: mean rounds and z [`CSV_WIDE_FLOAT`]. A report's floats are 0 or at
    ///   least 2⁻⁷³ and at most 100,000 (the largest round cap), so their `Display` is at most
    ///   40 characters: rates and mean rounds are multiples of 1/runs ≥ 10⁻⁶ (at most 24
    ///   characters), a z statistic is 0 or in [√(2/runs), √(2·runs)] (at most 21); a band
    ///   bound p − 3σ is 0, at least p/2, or (Sterbenz) an exact difference of floats within
    ///   a factor 2 of p ≥ 10⁻⁶, a multiple of 2⁻⁷³.
    /// - [`Widest::Text`]: rates 100 %, mean rounds = the round cap, z = 9999.99 (a pooled
    ///   two-proportion z of equal sizes is at most √(2·runs) ≤ 1415), every placement
    ///   significantly worse, shown rows the highest placement indices, and every row with
    ///   the widest square of each swept combatant and the longest `moved` list of the plan.
    /// - [`Widest::Binary`]: every float non-zero, every flag true.
    pub fn widest_report(&self, widest: Widest) -> SweepReport {
        let n = self.placements.len();
        let runs = self.runs;
        let nsides = self.base.sides.len();
        let results = self
            .placements
            .iter()
            .map(|p| {
                let mut wins = vec![0; nsides];
                wins[0] = runs;
                PlacementResult {
                    index: p.index as u64,
                    product_index: p.product_index,
                    starts: p.starts.clone(),
                    wins,
                    draws: 0,
                    truncated: 0,
                    rounds_sum: runs,
                    runs,
                }
            })
            .collect();
        let mut r = assemble_report(self, results).expect("results made from the plan fit it");
        let cap = f64::from(self.base.options.round_cap);
        let uniform = |x: f64| WinRate {
            count: runs,
            runs,
            rate: x,
            sigma: x,
            band_3sigma: [x, x],
            wilson_3sigma: [x, x],
        };
        // (win rates, mean rounds, z, per-square rates, significantly worse)
        let (rate, mean, z, x, worse) = match widest {
            Widest::Json => (
                widest_win_rate(runs, json_len, JSON_WIDEST_FLOAT),
                JSON_WIDEST_FLOAT,
                JSON_WIDEST_FLOAT,
                JSON_WIDEST_FLOAT,
                false,
            ),
            Widest::Csv => (
                widest_win_rate(runs, display_len, CSV_WIDEST_FLOAT),
                CSV_WIDE_FLOAT,
                CSV_WIDE_FLOAT,
                CSV_WIDE_FLOAT,
                false,
            ),
            Widest::Text => (uniform(1.0), cap, 9999.99, 1.0, true),
            Widest::Binary => (uniform(0.5), 1.0, 1.0, 0.5, true),
        };
        let last = n.saturating_sub(1) as u64;
        // The widest square of each swept combatant and the longest list of moves.
        let (cells, displaced) = if widest == Widest::Text {
            let cells: Vec<Cell> = (0..self.swept.len())
                .map(|j| {
                    self.placements
                        .iter()
                        .map(|p| p.cells[j])
                        .max_by_key(|c| c.to_string().len())
                        .unwrap_or(Cell::new(0, 0))
                })
                .collect();
            let displaced = self
                .placements
                .iter()
                .map(|p| &p.displaced)
                .max_by_key(|d| moved_text(d).len())
                .cloned()
                .unwrap_or_default();
            (Some(cells), Some(displaced))
        } else {
            (None, None)
        };
        for row in &mut r.placements {
            row.rank = n as u64;
            row.wins = vec![rate.clone(); nsides];
            row.draws = rate.clone();
            row.truncated = runs;
            row.mean_rounds = mean;
            row.z_vs_best = z;
            row.significantly_worse = worse;
            row.p_vs_best = z;
            row.in_best_set = !worse;
            if let (Some(c), Some(d)) = (&cells, &displaced) {
                row.cells.clone_from(c);
                row.displaced.clone_from(d);
            }
        }
        for cs in &mut r.cell_stats {
            for c in &mut cs.cells {
                c.wins = c.runs;
                c.rate = x;
            }
        }
        r.best = last;
        r.best_set = vec![last; n];
        r.ranking = if widest == Widest::Text {
            (0..n as u64).rev().collect()
        } else {
            vec![last; n]
        };
        r
    }

    /// Upper bounds of the sizes of this plan's JSON document, CSV file and (when `text`) text
    /// report, whatever the results: the sizes of the [`SweepPlan::widest_report`]s, measured
    /// without keeping them. Costs about as much as rendering the report once.
    pub fn report_size_bound(&self, text: bool) -> ReportSizeBound {
        let mut json = ByteCount(0);
        serde_json::to_writer_pretty(&mut json, &self.widest_report(Widest::Json))
            .expect("a report always serializes");
        ReportSizeBound {
            // `to_json` ends with a newline.
            json: json.0 + 1,
            csv: self.widest_report(Widest::Csv).csv_len(),
            text: if text {
                self.widest_report(Widest::Text).render_text().len()
            } else {
                0
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Review of the second P10 stop: a type error named its field by serde_yaml's raw path
    /// (`placements.a b.cell[1]`), a JSON spec named none; now as every other check does.
    #[test]
    fn type_errors_name_the_field_as_the_other_checks_do() {
        let err = |text: &str| match SweepSpec::from_str(text, "sw") {
            Err(SweepError::Invalid { field, reason }) => (field, reason),
            other => panic!("expected an error, got {other:?}"),
        };
        for text in [
            "scenario: sample_arena\nplacements: {\"a b\": {cell: [0, x]}}\n",
            r#"{"scenario": "sample_arena", "placements": {"a b": {"cell": [0, "x"]}}}"#,
        ] {
            let (field, reason) = err(text);
            assert_eq!(field, r#"sw: placements["a b"].cell[1]"#, "{reason}");
            assert!(!reason.contains("a b"), "{reason}");
            assert!(reason.contains("invalid type"), "{reason}");
        }
        let (field, reason) = err("scenario: sample_arena\nplacements: {\"a b\": {cel: [0, 0]}}\n");
        assert_eq!(field, r#"sw: placements["a b"].cel"#, "{reason}");
        assert!(!reason.contains("a b"), "{reason}");
        assert!(reason.contains("unknown field `cel`"), "{reason}");
        let (field, reason) = err("{\"scenario\": \"sample_arena\"} x");
        assert_eq!(field, "sw", "{reason}");
    }

    /// Review of the second P10 stop: a sweep's inline tactics went through a JSON value,
    /// where `.inf` became `null` and the condition vanished (the rule held always, exit 0).
    #[test]
    fn non_finite_numbers_in_inline_tactics_are_refused_naming_the_field() {
        for (v, key) in [
            (".inf", "hp_below_fraction"),
            ("-.inf", "hp_below_fraction"),
            (".nan", "round_at_least"),
        ] {
            let text = format!(
                "scenario: sample_arena\ntactics:\n  the party:\n    name: t\n    description: d\n    default:\n      rules:\n        - when: {{{key}: {v}}}\n          do: withdraw\n"
            );
            match SweepSpec::from_str(&text, "sw.yaml") {
                Err(SweepError::Invalid { field, reason }) => {
                    let at = format!("sw.yaml: tactics[\"the party\"].default.rules[0].when.{key}");
                    assert_eq!(field, at, "{reason}");
                    assert!(reason.contains("finite"), "{reason}");
                }
                other => panic!("{v}: expected an error, got {other:?}"),
            }
        }
    }

    fn store() -> ScenarioStore {
        ScenarioStore::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../data"))
    }

    fn plan(yaml: &str) -> Result<SweepPlan, SweepError> {
        SweepPlan::build(&SweepSpec::from_str(yaml, "t.yaml")?, &store())
    }

    fn pool(n: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    }

    fn all(plan: &SweepPlan) -> Vec<PlacementResult> {
        let idx: Vec<usize> = (0..plan.placements.len()).collect();
        run_placements(plan, &idx, None, &AtomicBool::new(false)).unwrap()
    }

    #[test]
    fn splitmix64_reference_values() {
        // First two outputs of the reference SplitMix64 generator (Vigna) seeded with 0.
        assert_eq!(splitmix64(0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix64(GOLDEN_GAMMA), 0x6E78_9E6A_A1B9_65F4);
        let mut g = SplitMix64(0);
        assert_eq!(g.next(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(g.next(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn run_seeds_follow_the_documented_formula_and_are_distinct() {
        let s = 1u64;
        assert_eq!(
            run_seed(s, 3, 7),
            splitmix64(splitmix64(splitmix64(s) ^ 3) ^ 7)
        );
        // Not an additive scheme: (p, i) and (p + 1, i − 1) differ, and nothing repeats over
        // a small grid.
        assert_ne!(run_seed(s, 1, 0), run_seed(s, 0, 1));
        let mut seen = std::collections::BTreeSet::new();
        for p in 0..50 {
            for i in 0..200 {
                assert!(seen.insert(run_seed(s, p, i)), "collision at p={p} i={i}");
            }
        }
        assert_ne!(run_seed(1, 0, 0), run_seed(2, 0, 0));
    }

    /// Reference values: exact sums of hypergeometric terms (Python `math.comb`).
    #[test]
    fn fisher_exact_reference_values() {
        for (x1, n1, x2, n2, p) in [
            (649, 1000, 564, 1000, 5.967_406_723_708_834e-5),
            (990, 1000, 975, 1000, 0.007_874_852_761_073_211),
            (5, 10, 5, 10, 0.671_859_100_651_670_3),
            (10, 10, 0, 10, 5.412_544_112_234_515e-6),
            (0, 10, 0, 10, 1.0),
            (3, 7, 9, 12, 0.970_806_541_239_977_8),
            (1000, 1000, 999, 1000, 0.5),
        ] {
            let got = fisher_one_sided(x1, n1, x2, n2);
            assert!(
                (got - p).abs() <= 1e-9 * p.max(1e-300) + 1e-15,
                "{x1}/{n1} vs {x2}/{n2}: {got} != {p}"
            );
        }
        assert_eq!(fisher_one_sided(1, 0, 1, 2), 1.0);
    }

    #[test]
    fn z_test_hand_computed() {
        // 600/1000 vs 520/1000: p = 0.56, se = √(0.56·0.44·0.002) = 0.0221991, z = 3.6037.
        let z = z_two_proportions(600, 1000, 520, 1000);
        assert!((z - 3.603_750).abs() < 1e-5, "{z}");
        // 560 vs 520: p = 0.54, se = √(0.54·0.46·0.002) = 0.0222890, z = 1.79461.
        let z = z_two_proportions(560, 1000, 520, 1000);
        assert!((z - 1.794_608).abs() < 1e-5, "{z}");
        // Unequal sizes: 30/50 vs 20/80: p = 50/130, se = √(p(1-p)(1/50+1/80)), z ≈ 3.8816.
        let p: f64 = 50.0 / 130.0;
        let se = (p * (1.0 - p) * (1.0 / 50.0 + 1.0 / 80.0)).sqrt();
        let z = z_two_proportions(30, 50, 20, 80);
        assert!((z - (0.6 - 0.25) / se).abs() < 1e-12);
        assert_eq!(z_two_proportions(0, 10, 0, 10), 0.0);
        assert_eq!(z_two_proportions(10, 10, 10, 10), 0.0);
        assert_eq!(z_two_proportions(1, 0, 0, 10), 0.0);
    }

    const ZONE_SWEEP: &str =
        "scenario: sample_arena\nplacements:\n  goblin: { zone: A }\nruns: 4\n";

    #[test]
    fn zone_sweep_lists_unused_squares_and_makes_room() {
        let p = plan(ZONE_SWEEP).unwrap();
        assert_eq!(p.swept.len(), 1);
        let g = &p.swept[0];
        assert_eq!(g.id, "goblin");
        // Zone A: rows 1-2, columns 1-4; (2,3) is a pillar.
        assert_eq!(g.candidates.len(), 7);
        assert_eq!(g.candidates[0], Cell::new(1, 1));
        assert_eq!(g.candidates[6], Cell::new(2, 4));
        assert_eq!(p.unused_zone_squares.len(), 1);
        assert_eq!(p.unused_zone_squares[0].cell, Cell::new(2, 3));
        assert!(p.unused_zone_squares[0].reason.contains("pillar"));
        assert_eq!(p.product_size, 7);
        assert!(p.excluded.is_empty());
        assert_eq!(p.placements.len(), 7);
        assert_eq!(p.rank_side, "players");
        // The goblin on goblin-2's default square (1,2): goblin-2 takes the first free zone
        // square, (1,1), vacated by the goblin.
        let at12 = &p.placements[1];
        assert_eq!(at12.cells, vec![Cell::new(1, 2)]);
        assert_eq!(
            at12.displaced,
            vec![Displaced {
                id: "goblin-2".into(),
                from: Cell::new(1, 2),
                to: Cell::new(1, 1)
            }]
        );
        assert_eq!(at12.starts[1], Cell::new(1, 1));
        assert!(p.placements[0].displaced.is_empty());
    }

    #[test]
    fn enumeration_order_is_odometer_in_list_order() {
        // Spec order is goblin-2 then goblin; the product follows the list order (goblin
        // first), the last swept combatant (goblin-2) fastest.
        let p = plan(
            "scenario: sample_arena\nplacements:\n  goblin-2: { cells: [[4, 1], [5, 1], [6, 1]] }\n  goblin: { rect: { from: [3, 1], to: [3, 2] } }\nruns: 2\n",
        )
        .unwrap();
        assert_eq!(p.swept[0].id, "goblin");
        assert_eq!(p.swept[1].id, "goblin-2");
        assert_eq!(p.product_size, 6);
        let cells: Vec<Vec<Cell>> = p.placements.iter().map(|x| x.cells.clone()).collect();
        let c = Cell::new;
        assert_eq!(
            cells,
            vec![
                vec![c(3, 1), c(4, 1)],
                vec![c(3, 1), c(5, 1)],
                vec![c(3, 1), c(6, 1)],
                vec![c(3, 2), c(4, 1)],
                vec![c(3, 2), c(5, 1)],
                vec![c(3, 2), c(6, 1)],
            ]
        );
        for (k, x) in p.placements.iter().enumerate() {
            assert_eq!(x.index, k);
            assert_eq!(x.product_index, k as u64);
        }
    }

    #[test]
    fn overlapping_combinations_are_excluded_and_counted() {
        let p = plan(
            "scenario: sample_arena\nplacements:\n  goblin: { cells: [[3, 1], [3, 2]] }\n  goblin-2: { cells: [[3, 2], [3, 3]] }\nruns: 2\n",
        )
        .unwrap();
        assert_eq!(p.product_size, 4);
        assert_eq!(p.placements.len(), 3);
        assert_eq!(p.excluded.len(), 1);
        assert_eq!(p.excluded[0].count, 1);
        assert_eq!(p.excluded[0].reason, "goblin and goblin-2 overlap");
        assert_eq!(p.excluded[0].example[0].cell, Cell::new(3, 2));
        // Placement indices skip the excluded product index 2.
        let pis: Vec<u64> = p.placements.iter().map(|x| x.product_index).collect();
        assert_eq!(pis, vec![0, 1, 3]);
    }

    #[test]
    fn invalid_squares_are_errors_naming_combatant_square_and_reason() {
        let cases = [
            (
                "goblin: { cells: [[3, 1], [0, 5]] }",
                "placements.goblin.cells[1]",
                "goblin start (0,5)",
                "wall",
            ),
            (
                "goblin: { cell: [9, 1] }",
                "placements.goblin.cell",
                "goblin start (9,1)",
                "off the map",
            ),
            (
                "goblin: { rect: { from: [1, 1], to: [2, 4] } }",
                "placements.goblin.rect",
                "goblin start (2,3)",
                "pillar",
            ),
            (
                "goblin: { cells: [[3, 2], [3, 1]] }\n  orc: { cell: [3, 1] }",
                "placements.goblin.cells[1]",
                "goblin start (3,1)",
                "overlaps orc (fixed at (3,1))",
            ),
            (
                "orc: { cell: [3, 1] }\n  orc-2: { cell: [3, 1] }",
                "placements.orc-2.cell",
                "orc-2 start (3,1)",
                "overlaps orc",
            ),
            (
                "nobody: { cell: [3, 1] }",
                "placements.nobody",
                "unknown combatant id",
                "goblin-3",
            ),
            (
                "goblin: { cell: [3, 1], zone: A }",
                "placements.goblin",
                "exactly one",
                "",
            ),
            ("goblin: { zone: Q }", "placements.goblin.zone", "`Q`", ""),
            (
                "goblin: { zone: A, exclude: [[5, 5]] }",
                "placements.goblin.exclude[0]",
                "(5,5)",
                "",
            ),
        ];
        for (placements, field, needle1, needle2) in cases {
            let y = format!("scenario: sample_arena\nplacements:\n  {placements}\n");
            let e = plan(&y).unwrap_err();
            let SweepError::Invalid { field: f, reason } = &e else {
                panic!("{e}")
            };
            assert_eq!(f, &format!("t.yaml: {field}"), "{y}: {e}");
            assert!(
                reason.contains(needle1) && reason.contains(needle2),
                "{y}: {e}"
            );
        }
        // A rect with the pillar excluded is fine.
        let p = plan("scenario: sample_arena\nplacements:\n  goblin: { rect: { from: [1, 1], to: [2, 4] }, exclude: [[2, 3]] }\n").unwrap();
        assert_eq!(p.swept[0].candidates.len(), 7);
        assert!(p.swept[0].source.contains("minus 1 excluded"));
    }

    #[test]
    fn spec_errors_name_the_field() {
        let bad = [
            (
                "scenario: sample_arena\nplacement: {}\n",
                "t.yaml: placement",
                "unknown field `placement`",
            ),
            ("scenario: sample_arena\nruns: 0\n", "t.yaml: runs", "1..="),
            (
                "scenario: sample_arena\nmap: x\nsides: {a: [orc]}\n",
                "t.yaml: scenario",
                "not both",
            ),
            ("runs: 3\n", "t.yaml", "no base encounter"),
            (
                "map: sample_arena\n",
                "t.yaml: sides",
                "required with `map`",
            ),
            ("scenario: ../x\n", "t.yaml: scenario", "invalid name"),
            (
                "scenario: sample_arena\nsample: {size: 0}\n",
                "t.yaml: sample.size",
                "at least 1",
            ),
            (
                "scenario: sample_arena\nplacements: {goblin: {cel: [1, 1]}}\n",
                "t.yaml: placements.goblin.cel",
                "unknown field `cel`",
            ),
            (
                "{\"scenario\": \"sample_arena\", \"runz\": 3}",
                "t.yaml: runz",
                "unknown field `runz`",
            ),
        ];
        for (text, field, needle) in bad {
            let e = SweepSpec::from_str(text, "t.yaml").unwrap_err();
            assert_eq!(e.field(), Some(field), "{text}: {e}");
            assert!(e.to_string().contains(needle), "{text}: {e}");
        }
        let e = plan("scenario: nope\n").unwrap_err();
        assert!(e.to_string().contains("unknown scenario"), "{e}");
        let e = plan("scenario: sample_arena\nrank_side: dragons\n").unwrap_err();
        assert!(e.to_string().contains("unknown side"), "{e}");
        // JSON works too.
        let s = SweepSpec::from_str(
            r#"{"map": "sample_arena", "sides": {"players": ["goblin"], "monsters": ["orc"]},
                "placements": {"goblin": {"cell": [3, 3]}}, "runs": 5}"#,
            "t.json",
        )
        .unwrap();
        let p = SweepPlan::build(&s, &store()).unwrap();
        assert_eq!(p.placements.len(), 1);
        assert_eq!(p.fixed[0].cell, Cell::new(3, 3));
        assert_eq!(p.runs, 5);
    }

    #[test]
    fn sample_is_seeded_sized_sorted_and_a_subset() {
        let y = "scenario: sample_arena\nplacements:\n  goblin: { rect: { from: [3, 1], to: [6, 6] }, exclude: [[6, 3]] }\n  orc: { rect: { from: [3, 12], to: [6, 18] }, exclude: [[6, 16]] }\nsample: { size: 25 }\nruns: 1\n";
        let a = plan(y).unwrap();
        let b = plan(y).unwrap();
        assert_eq!(a.placements, b.placements);
        assert_eq!(a.placements.len(), 25);
        let full = plan(&y.replace("sample: { size: 25 }\n", "")).unwrap();
        assert_eq!(a.sample.unwrap().population, full.placements.len() as u64);
        let pis: Vec<u64> = a.placements.iter().map(|p| p.product_index).collect();
        assert!(pis.windows(2).all(|w| w[0] < w[1]), "sorted, distinct");
        for p in &a.placements {
            let f = &full.placements[p.product_index as usize];
            assert_eq!(
                (f.cells.clone(), f.starts.clone()),
                (p.cells.clone(), p.starts.clone())
            );
        }
        // Another seed draws another sample.
        let c = plan(&y.replace("size: 25 }", "size: 25, seed: 99 }")).unwrap();
        assert_ne!(a.placements, c.placements);
        // A sample at least as large as the population takes everything.
        let d = plan(&y.replace("size: 25", "size: 100000")).unwrap();
        assert_eq!(d.placements, full.placements);
    }

    #[test]
    fn thread_count_does_not_change_results_and_halves_merge_exactly() {
        let p = plan(ZONE_SWEEP).unwrap();
        let one = pool(1).install(|| all(&p));
        let two = pool(2).install(|| all(&p));
        assert_eq!(one, two);
        let whole = assemble_report(&p, one.clone()).unwrap();
        // Two halves run separately, merged in reverse order.
        let (a, b): (Vec<usize>, Vec<usize>) = (0..p.placements.len()).partition(|k| k % 2 == 0);
        let cancel = AtomicBool::new(false);
        let mut parts = run_placements(&p, &b, None, &cancel).unwrap();
        parts.extend(run_placements(&p, &a, None, &cancel).unwrap());
        let merged = assemble_report(&p, parts).unwrap();
        assert_eq!(whole, merged);
        assert_eq!(whole.to_json(), merged.to_json());
        assert_eq!(whole.to_csv(), merged.to_csv());
        // run_placement agrees with run_placements, and seeds follow run_seed.
        let r3 = run_placement(&p, 3, &cancel).unwrap();
        assert_eq!(r3, one[3]);
        let total: u64 = one.iter().map(|r| r.runs).sum();
        assert_eq!(total, p.total_combats());
    }

    #[test]
    fn placement_seeds_are_the_documented_ones() {
        let p = plan(ZONE_SWEEP).unwrap();
        let k = 2;
        let r = run_placement(&p, k, &AtomicBool::new(false)).unwrap();
        let enc = Arc::new(p.encounter(k));
        let mut wins = vec![0u64; enc.sides.len()];
        let mut rounds = 0u64;
        for i in 0..p.runs {
            let (_, o) = crate::montecarlo::play_one(
                Arc::clone(&enc),
                run_seed(p.seed, p.placements[k].product_index, i),
            );
            if let Some(w) = o.winner {
                wins[enc.sides.iter().position(|s| *s == w).unwrap()] += 1;
            }
            rounds += u64::from(o.rounds);
        }
        assert_eq!(r.wins, wins);
        assert_eq!(r.rounds_sum, rounds);
    }

    #[test]
    fn progress_counts_every_combat_and_cancel_stops() {
        let p = plan(ZONE_SWEEP).unwrap();
        let count = std::sync::atomic::AtomicU64::new(0);
        let tick = |n: u64| {
            count.fetch_add(n, Ordering::Relaxed);
        };
        let idx: Vec<usize> = (0..p.placements.len()).collect();
        run_placements(&p, &idx, Some(&tick), &AtomicBool::new(false)).unwrap();
        assert_eq!(count.into_inner(), p.total_combats());
        let cancelled = AtomicBool::new(true);
        assert_eq!(
            run_placements(&p, &idx, None, &cancelled),
            Err(SweepError::Cancelled)
        );
        assert!(run_placement(&p, 0, &cancelled).is_none());
        let e = run_placements(&p, &[99], None, &AtomicBool::new(false)).unwrap_err();
        assert_eq!(e.field(), Some("indices[0]"));
    }

    #[test]
    fn assemble_rejects_duplicates_missing_and_mismatches() {
        let p = plan(ZONE_SWEEP).unwrap();
        let res = all(&p);
        let mut dup = res.clone();
        dup.push(res[2].clone());
        let e = assemble_report(&p, dup).unwrap_err();
        assert!(e.to_string().contains("placement 2 appears twice"), "{e}");
        let mut missing = res.clone();
        missing.remove(4);
        missing.remove(1);
        let e = assemble_report(&p, missing).unwrap_err();
        assert_eq!(e.field(), Some("results"));
        assert!(
            e.to_string().contains("2 placement(s) missing: 1, 4"),
            "{e}"
        );
        let mut out = res.clone();
        out[0].index = 7;
        assert!(assemble_report(&p, out)
            .unwrap_err()
            .to_string()
            .contains("not in the plan"));
        let mut moved = res.clone();
        moved[0].starts[0] = Cell::new(5, 5);
        assert!(assemble_report(&p, moved)
            .unwrap_err()
            .to_string()
            .contains("does not match"));
        let mut bad = res.clone();
        bad[0].draws += 1;
        assert!(assemble_report(&p, bad)
            .unwrap_err()
            .to_string()
            .contains("inconsistent"));
        let mut runs = res;
        runs[0].runs = 3;
        assert!(assemble_report(&p, runs)
            .unwrap_err()
            .to_string()
            .contains("runs"));
    }

    fn fake(p: &SweepPlan, wins: &[u64]) -> Vec<PlacementResult> {
        p.placements
            .iter()
            .zip(wins)
            .map(|(pl, &w)| PlacementResult {
                index: pl.index as u64,
                product_index: pl.product_index,
                starts: pl.starts.clone(),
                wins: vec![w, p.runs - w],
                draws: 0,
                truncated: 0,
                rounds_sum: 5 * p.runs,
                runs: p.runs,
            })
            .collect()
    }

    #[test]
    fn ranking_significance_and_heatmap_cells() {
        let p = plan(&ZONE_SWEEP.replace("runs: 4", "runs: 1000")).unwrap();
        let wins = [520, 600, 560, 600, 100, 0, 599];
        let r = assemble_report(&p, fake(&p, &wins)).unwrap();
        // Ties broken by the lower placement index.
        assert_eq!(r.ranking, vec![1, 3, 6, 2, 0, 4, 5]);
        assert_eq!(r.best, 1);
        assert_eq!(r.placements[1].rank, 1);
        assert_eq!(r.placements[1].z_vs_best, 0.0);
        assert!((r.placements[0].z_vs_best - 3.603_750).abs() < 1e-5);
        assert!(r.placements[0].significantly_worse);
        assert!(!r.placements[2].significantly_worse);
        assert!(!r.placements[3].significantly_worse);
        assert!(r.placements[5].significantly_worse);
        assert_eq!(
            r.placements[2].wins[0].band_3sigma,
            WinRate::new(560, 1000).band_3sigma
        );
        assert_eq!(r.placements[2].mean_rounds, 5.0);
        // One heatmap square per candidate, the goblin's side's pooled rate.
        let h = r.heatmaps();
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].cells.len(), 7);
        assert_eq!((h[0].cells[1].row, h[0].cells[1].col), (1, 2));
        assert_eq!(h[0].cells[1].value, 0.6);
        assert_eq!(h[0].cells[1].runs, 1000);
        assert!(h[0].walls.contains(&(2, 3)) && h[0].walls.contains(&(0, 0)));
        assert!(!h[0].walls.contains(&(1, 1)));
        let text = r.render_text();
        assert!(
            text.contains("Ranking: by the win rate of players"),
            "{text}"
        );
        assert!(text.contains("one-sided Fisher exact test"), "{text}");
        assert!(
            text.contains("Bonferroni correction over the 6 comparisons (out when p ≤ 5%/6)"),
            "{text}"
        );
        // Bonferroni over the 6 comparisons: #5, #4, #0 have p ≤ 0.05/6; #2 (560 vs 600 of
        // 1000, p = 0.039) does not.
        assert_eq!(r.best_set, vec![1, 3, 6, 2]);
        assert!(r.placements[2].in_best_set && !r.placements[0].in_best_set);
        assert!((r.placements[2].p_vs_best - 0.039).abs() < 0.001);
        assert_eq!(r.placements[1].p_vs_best, 1.0);
        assert!(text.contains(
            "Best set (not distinguishable from the best, #1, Bonferroni correction, 95% confidence): 4 of 7 \
             placements: #1, #3, #6, #2\n"
        ));
        // The best square has the Wilson interval, not the normal band.
        assert!(
            text.contains("   1  1  (1,2)     60.0%  [55.3%, 64.5%]"),
            "{text}"
        );
        // French: French words and typography.
        let fr = r.render_text_lang(Lang::Fr);
        assert!(fr.contains("Meilleur ensemble (ne se distinguent pas du meilleur, #1, correction de Bonferroni, 95\u{202f}% de confiance)\u{a0}: 4 sur 7 placements\u{a0}: #1, #3, #6, #2\n"), "{fr}");
        assert!(
            fr.contains("60,0\u{202f}%  [55,3\u{202f}%\u{202f}; 64,5\u{202f}%]"),
            "{fr}"
        );
        assert!(
            !fr.contains(" :") && !fr.contains("Best") && !fr.contains("Ranking"),
            "{fr}"
        );
        let csv = r.to_csv();
        assert_eq!(csv.lines().count(), 8);
        assert!(
            csv.starts_with("index,product_index,rank,goblin_row,goblin_col,runs,players_wins,")
        );
        let json: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
        assert_eq!(json["placements"][1]["rank"], 1);
        assert_eq!(json["rank_side"], "players");
    }

    #[test]
    fn pooled_heatmap_rates_over_several_placements() {
        let p = plan(
            "scenario: sample_arena\nplacements:\n  goblin: { cells: [[3, 1], [3, 2]] }\n  goblin-2: { cells: [[5, 1], [5, 2]] }\nruns: 10\n",
        )
        .unwrap();
        let r = assemble_report(&p, fake(&p, &[1, 3, 10, 6])).unwrap();
        let h = r.heatmaps();
        // goblin at (3,1): placements 0 and 1 → (1 + 3) / 20.
        assert_eq!(h[0].cells[0].value, 0.2);
        assert_eq!(h[0].cells[0].runs, 20);
        // goblin-2 at (5,2): placements 1 and 3 → (3 + 6) / 20.
        assert_eq!(h[1].cells[1].value, 0.45);
    }

    #[test]
    fn bundled_sweep_specs_build() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/sweeps");
        let read = |name: &str| {
            let path = format!("{dir}/{name}");
            let text = std::fs::read_to_string(&path).unwrap();
            SweepPlan::build(&SweepSpec::from_str(&text, &path).unwrap(), &store()).unwrap()
        };
        let archer = read("sample_arena_archer.yaml");
        assert_eq!(archer.placements.len(), 7);
        assert_eq!((archer.runs, archer.seed), (1000, 1));
        let rect = read("sample_arena_rect.yaml");
        assert_eq!(rect.product_size, 92);
        assert_eq!(rect.excluded[0].count, 2);
        assert_eq!(rect.placements.len(), 30);
        assert_eq!(rect.sample.unwrap().population, 90);
        assert_eq!(rect.fixed[0].cell, Cell::new(3, 15));
    }

    #[test]
    fn csv_quotes_when_needed() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("two\nlines"), "\"two\nlines\"");
    }

    fn cells_yaml(cells: impl IntoIterator<Item = (i32, i32)>) -> String {
        let v: Vec<String> = cells
            .into_iter()
            .map(|(r, c)| format!("[{r}, {c}]"))
            .collect();
        format!("{{ cells: [{}] }}", v.join(", "))
    }

    #[test]
    fn limits_are_enforced() {
        let row = |r: i32| (1..=18).map(move |c| (r, c));
        // 36^4 combinations: more than MAX_PRODUCT.
        let two_rows = || cells_yaml(row(3).chain(row(5)));
        let y = format!(
            "scenario: sample_arena\nplacements:\n  goblin: {0}\n  goblin-2: {0}\n  goblin-3: {0}\n  orc: {0}\n",
            two_rows()
        );
        let e = plan(&y).unwrap_err();
        assert_eq!(e.field(), Some("t.yaml: placements"));
        assert!(
            e.to_string().contains("more than 1000000 combinations"),
            "{e}"
        );
        // 36 × 18 × 16 × 11 = 114,048 disjoint combinations: more than MAX_PLACEMENTS…
        let row6 = cells_yaml(row(6).filter(|&(_, c)| c != 3 && c != 16));
        let orc = cells_yaml(
            (13..=18)
                .map(|c| (1, c))
                .chain([13, 14, 15, 17, 18].map(|c| (2, c))),
        );
        let y = format!(
            "scenario: sample_arena\nplacements:\n  goblin: {}\n  goblin-2: {}\n  goblin-3: {row6}\n  orc: {orc}\nruns: 1\n",
            cells_yaml(row(3).chain(row(4))),
            cells_yaml(row(5)),
        );
        let e = plan(&y).unwrap_err();
        assert!(
            e.to_string()
                .contains("114048 placements, more than 100000"),
            "{e}"
        );
        // …unless sampled.
        let p = plan(&format!("{y}sample: {{size: 1000}}\n")).unwrap();
        assert_eq!(p.placements.len(), 1000);
        assert_eq!(p.sample.unwrap().population, 114_048);
        // Placements × runs above MAX_COMBATS.
        let y = format!(
            "scenario: sample_arena\nplacements:\n  goblin: {}\n  goblin-2: {row6}\nruns: 1000000\n",
            cells_yaml(row(3).chain(row(4)).chain(row(5))),
        );
        let e = plan(&y).unwrap_err();
        assert_eq!(e.field(), Some("t.yaml: runs"));
        assert!(e.to_string().contains("more than 100000000"), "{e}");
    }

    #[test]
    fn a_sample_above_the_placement_limit_names_sample_size() {
        let row = |r: i32| (1..=18).map(move |c| (r, c));
        let row6 = cells_yaml(row(6).filter(|&(_, c)| c != 3 && c != 16));
        let orc = cells_yaml(
            (13..=18)
                .map(|c| (1, c))
                .chain([13, 14, 15, 17, 18].map(|c| (2, c))),
        );
        // 114,048 playable combinations.
        let y = format!(
            "scenario: sample_arena\nplacements:\n  goblin: {}\n  goblin-2: {}\n  goblin-3: {row6}\n  orc: {orc}\nruns: 1\n",
            cells_yaml(row(3).chain(row(4))),
            cells_yaml(row(5)),
        );
        let e = plan(&format!("{y}sample: {{size: 100001}}\n")).unwrap_err();
        assert_eq!(e.field(), Some("t.yaml: sample.size"), "{e}");
        let msg = e.to_string();
        assert!(msg.contains("at most 100000"), "{msg}");
        assert!(msg.contains("got 100001"), "{msg}");
        assert!(!msg.contains("give `sample"), "{msg}");
        assert_eq!(
            plan(&format!("{y}sample: {{size: 100000}}\n"))
                .unwrap()
                .placements
                .len(),
            100_000
        );
        // A size above the limit is fine when the combinations are fewer: all are taken.
        let p = plan(&format!("{ZONE_SWEEP}sample: {{size: 5000000}}\n")).unwrap();
        assert_eq!(p.placements.len(), 7);
    }

    #[test]
    fn widest_floats_are_the_widest() {
        assert_eq!(serde_json::to_string(&JSON_WIDEST_FLOAT).unwrap().len(), 24);
        assert_eq!(CSV_WIDEST_FLOAT.to_string().len(), 41);
        // The tightest band bound: p = 8/72, 3σ = 1/9 in exact arithmetic.
        let w = WinRate::new(8, 72);
        assert!(w.band_3sigma[0].to_string().len() <= 40, "{:?}", w);
    }

    /// Random and extreme counts for every placement of `p`, drawn from `seed`.
    fn random_results(p: &SweepPlan, seed: u64) -> Vec<PlacementResult> {
        let mut g = SplitMix64(seed);
        let nsides = p.base.sides.len();
        let cap = u64::from(p.base.options.round_cap);
        p.placements
            .iter()
            .map(|pl| {
                let runs = p.runs;
                let mut left = runs;
                let mut wins = vec![0; nsides];
                for w in wins.iter_mut() {
                    *w = match g.below(4) {
                        0 => 0,
                        1 => left,
                        _ => g.below(left + 1),
                    };
                    left -= *w;
                }
                let truncated = g.below(left + 1);
                PlacementResult {
                    index: pl.index as u64,
                    product_index: pl.product_index,
                    starts: pl.starts.clone(),
                    wins,
                    draws: left,
                    truncated,
                    rounds_sum: g.below(runs * cap + 1),
                    runs,
                }
            })
            .collect()
    }

    #[test]
    fn report_size_bounds_hold_for_any_results() {
        let rect = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../data/sweeps/sample_arena_rect.yaml"
        ))
        .unwrap();
        // 30 sampled placements, and all 90 (more rows than the text shows); 72 runs gives the
        // tightest band bounds (8/72 − 3σ is 0 in exact arithmetic).
        for (text, runs) in [
            (rect.clone(), 72),
            (rect.replace("sample: { size: 30, seed: 7 }", ""), 72),
            (rect.replace("sample: { size: 30, seed: 7 }", ""), 1),
            (ZONE_SWEEP.to_string(), 1_000_000),
        ] {
            let mut spec = SweepSpec::from_str(&text, "t.yaml").unwrap();
            spec.runs = Some(runs);
            let p = SweepPlan::build(&spec, &store()).unwrap();
            let b = p.report_size_bound(true);
            assert_eq!(b.json, p.widest_report(Widest::Json).to_json().len());
            assert_eq!(b.csv, p.widest_report(Widest::Csv).to_csv().len());
            let mut most = (0, 0, 0);
            for seed in 0..40 {
                let mut results = random_results(&p, seed);
                if seed == 0 {
                    // The band bound that cancels: 8 of 72.
                    for r in &mut results {
                        r.wins.iter_mut().for_each(|w| *w = 0);
                        r.wins[0] = 8.min(runs);
                        r.draws = runs - r.wins[0];
                        r.truncated = 0;
                    }
                }
                let r = assemble_report(&p, results).unwrap();
                let (j, c, t) = (r.to_json().len(), r.to_csv().len(), r.render_text().len());
                assert!(j <= b.json, "json {j} > {}", b.json);
                assert!(c <= b.csv, "csv {c} > {}", b.csv);
                assert!(t <= b.text, "text {t} > {}", b.text);
                most = (most.0.max(j), most.1.max(c), most.2.max(t));
            }
            // Bounds, not wild guesses: the JSON (most of a report) within 25 %.
            assert!(4 * b.json < 5 * most.0, "{b:?} {most:?}");
            assert!(b.csv < 3 * most.1, "{b:?} {most:?}");
            assert!(4 * b.text < 5 * most.2, "{b:?} {most:?}");
            eprintln!(
                "{} placements × {runs} runs: bound {b:?}, largest seen {most:?}",
                p.placements.len()
            );
        }
    }

    #[test]
    fn text_escapes_control_characters_and_says_one_in_the_singular() {
        let y = "scenario: sample_arena\ndescription: \"line1\\nline2 \\e[31mRED\\e[0m \\u0007bell \\u009b2J\"\nplacements:\n  goblin: { cells: [[3, 1]] }\nruns: 1\n";
        let p = SweepPlan::build(
            &SweepSpec::from_str(y, "t\u{1b}]0;x\u{7}.yaml").unwrap(),
            &store(),
        )
        .unwrap();
        assert_eq!(
            p.description,
            "line1\nline2 \u{1b}[31mRED\u{1b}[0m \u{7}bell \u{9b}2J"
        );
        let r = assemble_report(&p, all(&p)).unwrap();
        let text = r.render_text();
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
        assert!(
            text.contains("  line1\n  line2 \\u{1b}[31mRED\\u{1b}[0m \\u{7}bell \\u{9b}2J\n"),
            "{text}"
        );
        assert!(text.contains("Spec: t\\u{1b}]0;x\\u{7}.yaml"), "{text}");
        // The JSON keeps the strings (escaped by JSON itself).
        let json: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
        assert_eq!(json["description"], p.description.as_str());
        // One square, one combination, one combat, one placement, one run.
        assert!(text.contains("over cells (1 listed): 1 square\n"), "{text}");
        assert!(
            text.contains("Placements: 1 — 1 combination (0 excluded)"),
            "{text}"
        );
        assert!(text.contains("Runs: 1 per placement = 1 combat;"), "{text}");
        assert!(text.contains("1 of 1 placement: #0\n"), "{text}");
        assert!(r.heatmaps()[0].title.contains("(1 run per placement)"));
    }
}
