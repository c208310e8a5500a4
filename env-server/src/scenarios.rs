//! Scenarios: which map and which combatants an episode is played on.
//!
//! - **Named** scenarios are the server's bundled files `<data>/scenarios/<name>.yaml`:
//!   ```yaml
//!   description: 3 goblins vs 2 orcs   # optional
//!   map: sample_arena                  # <data>/maps/sample_arena.yaml
//!   sides:                             # side name → combatant file stems, in order
//!     players: [goblin, goblin, goblin]   # <data>/monsters/goblin.json (else <data>/pcs/…)
//!     monsters: [orc, orc]
//!   round_cap: 100                     # optional, default 100
//!   simple_monster_death: false        # optional
//!   ```
//!   Every name (scenario, map, combatant) must match `^[a-z0-9_]+$`, so a client can never make
//!   the server read an arbitrary path. Built encounters are cached by scenario name.
//! - **Inline** scenarios come in the request ([`InlineScenario`]): map YAML text and,
//!   per side, combatant JSON texts. Errors name the request field
//!   (`scenario.inline.sides[1].combatants[0]: field `hp_max`: must be > 0`).
use pf1e_engine::content::yaml::field_path;
use pf1e_engine::{CombatantSpec, Encounter, MapSpec, RulesOptions};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

/// The pattern every scenario, map and combatant name must match.
pub const NAME_PATTERN: &str = "^[a-z0-9_]+$";
/// Longest accepted name, in bytes.
pub const MAX_NAME_LEN: usize = 64;
/// Largest accepted inline map YAML, in bytes.
pub const MAX_INLINE_MAP_BYTES: usize = 1 << 20;
/// Largest accepted inline combatant JSON, in bytes.
pub const MAX_INLINE_COMBATANT_BYTES: usize = 256 << 10;
/// Most sides in an inline scenario (the engine's limit for every encounter).
pub const MAX_INLINE_SIDES: usize = pf1e_engine::content::encounter::MAX_SIDES;
/// Most combatants in an inline scenario, all sides together, as sent (before the slots the
/// encounter reserves for summoned creatures).
///
/// The three caps on inline scenarios bound the CPU time of a round a client can ask for: a
/// default-policy round costs up to about 1.4 µs per (square × combatant) when the sides are
/// far apart (every combatant searches paths over the whole map), so at
/// [`MAX_INLINE_AREA_X_COMBATANTS`] a round costs at most about 0.2 s (figures:
/// `cargo run -p pf1e-env-server --example inline_caps`). Bundled scenarios and the CLI's
/// own files are trusted and only bounded by the engine's limits (256 × 256 squares,
/// `MAX_COMBATANTS` = 1024 combatants).
pub const MAX_INLINE_COMBATANTS: usize = 64;
/// Largest map of an inline scenario, in squares (rows × columns): 128 × 128.
pub const MAX_INLINE_MAP_AREA: usize = 16_384;
/// Largest (map area in squares × combatants, summon slots included) of an inline
/// scenario: 128 × 128 squares with 8 combatants, 64 × 64 with 32, 32 × 32 with 64.
pub const MAX_INLINE_AREA_X_COMBATANTS: usize = 131_072;
/// Largest scenario file accepted, in bytes (read through a bounded reader).
pub const MAX_SCENARIO_BYTES: usize = 1 << 20;
/// Highest accepted round cap (rounds).
pub const MAX_ROUND_CAP: u32 = 100_000;
/// Round cap used when a scenario gives none (rounds).
pub const DEFAULT_ROUND_CAP: u32 = 100;

/// Whether `name` is a valid scenario/map/combatant name: `^[a-z0-9_]+$`, at most
/// [`MAX_NAME_LEN`] bytes.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// Error resolving a scenario. Display starts with the request field or the bundled file at
/// fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    /// A required request field is absent or empty (the client's fault).
    #[error("{field}: is required")]
    Missing {
        /// The request field, e.g. `scenario`.
        field: String,
    },
    /// A name that does not match [`NAME_PATTERN`] (the client's fault).
    #[error(
        "{field}: invalid name {name:?}: must match {NAME_PATTERN} (at most {MAX_NAME_LEN} bytes)"
    )]
    InvalidName {
        /// The request field, e.g. `scenario.named`.
        field: String,
        /// The name as given.
        name: String,
    },
    /// No bundled scenario of that name.
    #[error("{field}: unknown scenario `{name}` (see ListScenarios)")]
    UnknownScenario {
        /// The request field, e.g. `scenario.named`.
        field: String,
        /// The valid but unknown name.
        name: String,
    },
    /// Inline content rejected: malformed map or combatant, sides not matching the map,
    /// limits exceeded (the client's fault). `message` starts with the field.
    #[error("{message}")]
    InvalidInline {
        /// The request field at fault, e.g. `scenario.inline.map_yaml`.
        field: String,
        /// The full message, field first.
        message: String,
    },
    /// A bundled scenario, map or combatant file is broken or missing (the server's fault).
    #[error("bundled scenario `{scenario}`: {message}")]
    BrokenData {
        /// The scenario name.
        scenario: String,
        /// What is wrong, naming the file.
        message: String,
    },
}

/// A named scenario file, as written (not yet built into an encounter).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Free text shown by ListScenarios.
    #[serde(default)]
    pub description: String,
    /// Map name: `<data>/maps/<map>.yaml`.
    pub map: String,
    /// Side name → combatant file stems, in file order.
    #[serde(deserialize_with = "ordered_sides")]
    pub sides: Vec<(String, Vec<String>)>,
    /// Rounds after which the combat is a draw.
    #[serde(default = "default_round_cap")]
    pub round_cap: u32,
    /// Monsters (not player characters) die at 0 hit points or fewer.
    #[serde(default)]
    pub simple_monster_death: bool,
}

fn default_round_cap() -> u32 {
    DEFAULT_ROUND_CAP
}

/// Deserializes a YAML mapping `side: [names]` keeping file order and refusing duplicates.
fn ordered_sides<'de, D>(de: D) -> Result<Vec<(String, Vec<String>)>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = Vec<(String, Vec<String>)>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a mapping of side name to a list of combatant names")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out: Vec<(String, Vec<String>)> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            let max = pf1e_engine::content::encounter::MAX_SIDES;
            let max_names = pf1e_engine::content::encounter::MAX_COMBATANTS;
            let mut names = 0usize;
            while let Some(k) = map.next_key::<String>()? {
                if !seen.insert(k.clone()) {
                    return Err(serde::de::Error::custom(format!("duplicate side `{k}`")));
                }
                if out.len() == max {
                    return Err(serde::de::Error::custom(format!(
                        "more than {max} sides (at most {max})"
                    )));
                }
                let v: Vec<String> = map.next_value()?;
                names += v.len();
                if names > max_names {
                    return Err(serde::de::Error::custom(format!(
                        "more than {max_names} combatants in all (at most {max_names})"
                    )));
                }
                out.push((k, v));
            }
            Ok(out)
        }
    }
    de.deserialize_map(V)
}

impl ScenarioFile {
    /// Parse scenario YAML. `origin` names the file in errors.
    ///
    /// # Errors
    /// A message naming `origin` for malformed YAML, unknown fields, invalid names.
    pub fn from_yaml_str(text: &str, origin: &str) -> Result<ScenarioFile, String> {
        if text.len() > MAX_SCENARIO_BYTES {
            return Err(format!(
                "{origin}: the file is {} bytes: at most {MAX_SCENARIO_BYTES}",
                text.len()
            ));
        }
        if let Some(tag) = pf1e_engine::content::yaml::find_explicit_tag(text) {
            return Err(format!(
                "{origin}: field `{}`: explicit YAML tag `{}` is not accepted: write the plain value",
                tag.path, tag.tag
            ));
        }
        // The field of a type error spelled as the other checks spell it (`sides["the
        // party"][1]`), not as serde_yaml's raw dotted path.
        let file: ScenarioFile = serde_path_to_error::deserialize(
            serde_yaml::Deserializer::from_str(text),
        )
        .map_err(|e| {
            let path = pf1e_engine::content::yaml::serde_path("", e.path());
            let inner = e.inner().to_string();
            let reason = pf1e_engine::content::yaml::strip_raw_path(e.path(), &inner);
            if path.is_empty() {
                format!("{origin}: {reason}")
            } else {
                format!("{origin}: field `{path}`: {reason}")
            }
        })?;
        if !is_valid_name(&file.map) {
            return Err(format!(
                "{origin}: field `map`: invalid name {:?}: must match {NAME_PATTERN}",
                file.map
            ));
        }
        if file.sides.is_empty() {
            return Err(format!(
                "{origin}: field `sides`: must name at least one side"
            ));
        }
        for (side, names) in &file.sides {
            if names.is_empty() {
                return Err(format!(
                    "{origin}: field `{}`: must list at least one combatant",
                    field_path("sides", side)
                ));
            }
            for (i, n) in names.iter().enumerate() {
                if !is_valid_name(n) {
                    return Err(format!(
                        "{origin}: field `{}[{i}]`: invalid name {n:?}: must match {NAME_PATTERN}",
                        field_path("sides", side)
                    ));
                }
            }
        }
        if file.round_cap == 0 || file.round_cap > MAX_ROUND_CAP {
            return Err(format!(
                "{origin}: field `round_cap`: must be in 1..={MAX_ROUND_CAP}"
            ));
        }
        Ok(file)
    }

    /// The rules options of this scenario.
    pub fn options(&self) -> RulesOptions {
        RulesOptions {
            round_cap: self.round_cap,
            simple_monster_death: self.simple_monster_death,
        }
    }
}

/// Loads scenarios from a data directory (`maps/`, `monsters/`, `pcs/`, `scenarios/`) and
/// caches the encounters of named ones. Cheap to share behind an `Arc`; thread-safe.
#[derive(Debug)]
pub struct ScenarioStore {
    data_dir: PathBuf,
    cache: RwLock<HashMap<String, Arc<Encounter>>>,
}

impl ScenarioStore {
    /// A store reading `data_dir` (nothing is read until a scenario is asked for).
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        ScenarioStore {
            data_dir: data_dir.into(),
            cache: RwLock::new(HashMap::new()),
        }
    }

    /// The data directory.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// Resolve the scenario of a request. `field` is the request field holding it
    /// (`scenario`). Returns the scenario name (`inline` for inline ones) and its encounter.
    ///
    /// # Errors
    /// [`ScenarioError`]: missing scenario, invalid or unknown name, invalid inline content,
    /// broken bundled data.
    pub fn resolve(
        &self,
        scenario: Option<&ScenarioSource>,
        field: &str,
    ) -> Result<(String, Arc<Encounter>), ScenarioError> {
        match scenario {
            None => Err(ScenarioError::Missing {
                field: format!("{field} (named or inline)"),
            }),
            Some(ScenarioSource::Named(name)) => {
                let enc = self.named(name, &format!("{field}.named"))?;
                Ok((name.clone(), enc))
            }
            Some(ScenarioSource::Inline(inline)) => {
                let mut enc = build_inline(inline, &format!("{field}.inline"))?;
                // One encounter per inline episode: no per-map run-line table (memory).
                Arc::make_mut(&mut enc.grid).without_run_line_table();
                Ok(("inline".to_string(), Arc::new(enc)))
            }
        }
    }

    /// The encounter of the bundled scenario `name` (cached after the first build).
    ///
    /// # Errors
    /// [`ScenarioError::InvalidName`], [`ScenarioError::UnknownScenario`] (no such file),
    /// [`ScenarioError::BrokenData`] (the file, its map or a combatant is broken).
    pub fn named(&self, name: &str, field: &str) -> Result<Arc<Encounter>, ScenarioError> {
        if name.is_empty() {
            return Err(ScenarioError::Missing {
                field: field.to_string(),
            });
        }
        if !is_valid_name(name) {
            return Err(ScenarioError::InvalidName {
                field: field.to_string(),
                name: name.to_string(),
            });
        }
        if let Some(enc) = self
            .cache
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(name)
        {
            return Ok(enc.clone());
        }
        let path = self.scenario_path(name);
        if !path.is_file() {
            return Err(ScenarioError::UnknownScenario {
                field: field.to_string(),
                name: name.to_string(),
            });
        }
        let broken = |message: String| ScenarioError::BrokenData {
            scenario: name.to_string(),
            message,
        };
        let file = self.read_scenario_file(name).map_err(broken)?;
        let enc = Arc::new(self.build_file(&file).map_err(broken)?);
        self.cache
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(name.to_string(), enc.clone());
        Ok(enc)
    }

    /// Read and parse `<data>/scenarios/<name>.yaml` (`name` already validated).
    ///
    /// # Errors
    /// A message naming the file: unreadable, malformed.
    pub fn read_scenario_file(&self, name: &str) -> Result<ScenarioFile, String> {
        let path = self.scenario_path(name);
        let origin = path.display().to_string();
        let text = pf1e_engine::content::read_text_bounded(&path, MAX_SCENARIO_BYTES)
            .map_err(|e| format!("{origin}: {e}"))?;
        ScenarioFile::from_yaml_str(&text, &origin)
    }

    /// Build the encounter of a parsed scenario file, reading its map and combatants.
    ///
    /// # Errors
    /// A message naming the file at fault, or the encounter error.
    pub fn build_file(&self, file: &ScenarioFile) -> Result<Encounter, String> {
        let map_path = self
            .data_dir
            .join("maps")
            .join(format!("{}.yaml", file.map));
        let map = MapSpec::load(&map_path).map_err(|e| e.to_string())?;
        let mut loaded: HashMap<&str, CombatantSpec> = HashMap::new();
        let mut sides = Vec::with_capacity(file.sides.len());
        for (side, names) in &file.sides {
            let mut combatants = Vec::with_capacity(names.len());
            for n in names {
                let spec = match loaded.get(n.as_str()) {
                    Some(s) => s.clone(),
                    None => {
                        let s = self.load_combatant(n)?;
                        loaded.insert(n, s.clone());
                        s
                    }
                };
                combatants.push((n.clone(), spec));
            }
            sides.push((side.clone(), combatants));
        }
        Encounter::build(map, sides, file.options()).map_err(|e| format!("encounter: {e}"))
    }

    /// Load combatant `name` from `<data>/monsters/<name>.json`, else `<data>/pcs/<name>.json`.
    fn load_combatant(&self, name: &str) -> Result<CombatantSpec, String> {
        for dir in ["monsters", "pcs"] {
            let path = self.data_dir.join(dir).join(format!("{name}.json"));
            if path.is_file() {
                return CombatantSpec::load(&path).map_err(|e| e.to_string());
            }
        }
        Err(format!(
            "unknown combatant `{name}`: neither {0}/monsters/{name}.json nor {0}/pcs/{name}.json exists",
            self.data_dir.display()
        ))
    }

    fn scenario_path(&self, name: &str) -> PathBuf {
        self.data_dir.join("scenarios").join(format!("{name}.yaml"))
    }

    /// The bundled scenarios (files `<data>/scenarios/*.yaml` with a valid name), sorted by name.
    /// A file that cannot be parsed is listed with its `error`. An absent directory lists none.
    pub fn list(&self) -> Vec<ScenarioInfo> {
        let dir = self.data_dir.join("scenarios");
        let mut names: Vec<String> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .filter_map(|e| {
                    let file_name = e.file_name().into_string().ok()?;
                    let stem = file_name.strip_suffix(".yaml")?;
                    is_valid_name(stem).then(|| stem.to_string())
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        names.sort();
        names
            .into_iter()
            .map(|name| match self.read_scenario_file(&name) {
                Ok(f) => ScenarioInfo {
                    name,
                    description: f.description,
                    map: f.map,
                    sides: f.sides,
                    round_cap: f.round_cap,
                    simple_monster_death: f.simple_monster_death,
                    error: String::new(),
                },
                // Listed to clients: the data directory is named `<data>`, never by its path
                // on the server.
                Err(error) => ScenarioInfo {
                    name,
                    error: error.replace(&self.data_dir.display().to_string(), "<data>"),
                    ..Default::default()
                },
            })
            .collect()
    }
}

/// Which encounter to play (the request's `Scenario`; `proto` conversions are the service's).
/// Serialized as `{"named": "sample_arena"}` or `{"inline": {...}}` (transcript documents).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum ScenarioSource {
    /// A bundled scenario, `<data>/scenarios/<name>.yaml` (never a path).
    Named(String),
    /// A scenario given in full by the client.
    Inline(InlineScenario),
}

/// A scenario given in full: map YAML text and the combatants of each side (see
/// `InlineScenario` in the proto for each field).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InlineScenario {
    pub map_yaml: String,
    pub sides: Vec<InlineSide>,
    /// Rounds after which the combat is a draw; 0 = the default (100).
    #[serde(default)]
    pub round_cap: u32,
    #[serde(default)]
    pub simple_monster_death: bool,
}

/// The combatants of one side of an inline scenario.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InlineSide {
    pub name: String,
    pub combatants: Vec<InlineCombatant>,
}

/// One combatant of an inline scenario: its JSON text and the base of its id (empty: from
/// its name).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InlineCombatant {
    pub json: String,
    #[serde(default)]
    pub base_id: String,
}

/// A bundled scenario as listed ([`ScenarioStore::list`]): its file's fields, or the `error`
/// that keeps it from loading.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScenarioInfo {
    pub name: String,
    pub description: String,
    pub map: String,
    /// Side name and its combatant names, in deployment order.
    pub sides: Vec<(String, Vec<String>)>,
    pub round_cap: u32,
    pub simple_monster_death: bool,
    /// Why the file does not load (empty when it does).
    pub error: String,
}

/// The default base id of an inline combatant: its name lower-cased, every character other
/// than `a-z0-9` as `_`, at most 64 characters (`combatant` if empty).
pub fn default_base_id(name: &str) -> String {
    let id: String = name
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(64)
        .collect();
    if id.is_empty() {
        "combatant".to_string()
    } else {
        id
    }
}

/// Build an inline scenario. `field` is the request field holding it (`scenario.inline`).
///
/// # Errors
/// [`ScenarioError::Missing`] for an empty map or no sides, [`ScenarioError::InvalidName`] for a
/// bad `base_id`, [`ScenarioError::InvalidInline`] for everything else (limits, map and combatant
/// errors naming their field, sides not matching the map's deployment). The size caps:
/// [`MAX_INLINE_MAP_AREA`] (field `<field>.map_yaml.terrain`), [`MAX_INLINE_COMBATANTS`]
/// (`<field>.sides`), [`MAX_INLINE_AREA_X_COMBATANTS`] (`<field>`). No message quotes a
/// server path: every origin is a request field.
pub fn build_inline(inline: &InlineScenario, field: &str) -> Result<Encounter, ScenarioError> {
    let invalid = |f: String, reason: String| ScenarioError::InvalidInline {
        message: format!("{f}: {reason}"),
        field: f,
    };
    let map_field = format!("{field}.map_yaml");
    if inline.map_yaml.trim().is_empty() {
        return Err(ScenarioError::Missing { field: map_field });
    }
    if inline.map_yaml.len() > MAX_INLINE_MAP_BYTES {
        return Err(invalid(
            map_field,
            format!("longer than {MAX_INLINE_MAP_BYTES} bytes"),
        ));
    }
    if inline.sides.is_empty() {
        return Err(ScenarioError::Missing {
            field: format!("{field}.sides"),
        });
    }
    if inline.sides.len() > MAX_INLINE_SIDES {
        return Err(invalid(
            format!("{field}.sides"),
            format!("more than {MAX_INLINE_SIDES} sides"),
        ));
    }
    let total: usize = inline.sides.iter().map(|s| s.combatants.len()).sum();
    if total > MAX_INLINE_COMBATANTS {
        return Err(invalid(
            format!("{field}.sides"),
            format!(
                "{total} combatants in all: at most {MAX_INLINE_COMBATANTS} in an inline \
                 scenario (MAX_INLINE_COMBATANTS)"
            ),
        ));
    }
    if inline.round_cap > MAX_ROUND_CAP {
        return Err(invalid(
            format!("{field}.round_cap"),
            format!("must be at most {MAX_ROUND_CAP}"),
        ));
    }
    let map = MapSpec::from_yaml_str(&inline.map_yaml, &map_field).map_err(|e| {
        ScenarioError::InvalidInline {
            field: map_field.clone(),
            message: e.to_string(),
        }
    })?;
    let area = (map.rows as usize) * (map.cols as usize);
    if area > MAX_INLINE_MAP_AREA {
        return Err(invalid(
            format!("{map_field}.terrain"),
            format!(
                "the map is {} rows × {} columns = {area} squares: at most {MAX_INLINE_MAP_AREA} \
                 squares in an inline scenario (MAX_INLINE_MAP_AREA)",
                map.rows, map.cols
            ),
        ));
    }
    let mut sides = Vec::with_capacity(inline.sides.len());
    for (i, side) in inline.sides.iter().enumerate() {
        let side_field = format!("{field}.sides[{i}]");
        if side.name.trim().is_empty() {
            return Err(ScenarioError::Missing {
                field: format!("{side_field}.name"),
            });
        }
        if inline.sides[..i].iter().any(|s| s.name == side.name) {
            return Err(invalid(
                format!("{side_field}.name"),
                format!("duplicate side `{}`", side.name),
            ));
        }
        if side.combatants.is_empty() {
            return Err(ScenarioError::Missing {
                field: format!("{side_field}.combatants"),
            });
        }
        let mut combatants = Vec::with_capacity(side.combatants.len());
        for (j, c) in side.combatants.iter().enumerate() {
            let cf = format!("{side_field}.combatants[{j}]");
            if c.json.len() > MAX_INLINE_COMBATANT_BYTES {
                return Err(invalid(
                    format!("{cf}.json"),
                    format!("longer than {MAX_INLINE_COMBATANT_BYTES} bytes"),
                ));
            }
            if c.json.trim().is_empty() {
                return Err(ScenarioError::Missing {
                    field: format!("{cf}.json"),
                });
            }
            let spec = CombatantSpec::from_json_str(&c.json, &cf).map_err(|e| {
                ScenarioError::InvalidInline {
                    field: cf.clone(),
                    message: e.to_string(),
                }
            })?;
            let base_id = if c.base_id.is_empty() {
                default_base_id(&spec.name)
            } else if is_valid_name(&c.base_id) {
                c.base_id.clone()
            } else {
                return Err(ScenarioError::InvalidName {
                    field: format!("{cf}.base_id"),
                    name: c.base_id.clone(),
                });
            };
            combatants.push((base_id, spec));
        }
        sides.push((side.name.clone(), combatants));
    }
    let options = RulesOptions {
        round_cap: if inline.round_cap == 0 {
            DEFAULT_ROUND_CAP
        } else {
            inline.round_cap
        },
        simple_monster_death: inline.simple_monster_death,
    };
    let enc = Encounter::build(map, sides, options).map_err(|e| ScenarioError::InvalidInline {
        field: field.to_string(),
        message: format!("{field}: {e}"),
    })?;
    let n = enc.combatants.len();
    if area.saturating_mul(n) > MAX_INLINE_AREA_X_COMBATANTS {
        return Err(invalid(
            field.to_string(),
            format!(
                "map area × combatants (summon slots included) is {area} × {n} = {}: at most \
                 {MAX_INLINE_AREA_X_COMBATANTS} in an inline scenario \
                 (MAX_INLINE_AREA_X_COMBATANTS)",
                area * n
            ),
        ));
    }
    Ok(enc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_restricted() {
        assert!(is_valid_name("sample_arena"));
        assert!(is_valid_name("orc2"));
        for bad in [
            "",
            "../etc",
            "a/b",
            "Orc",
            "a.b",
            "a-b",
            " a",
            &"x".repeat(65),
        ] {
            assert!(!is_valid_name(bad), "{bad:?}");
        }
    }

    /// Review of the second P10 stop: a side name that is not plain is quoted alike by the
    /// tag scan and the name check (`sides["the party"][1]`, was `sides.the party[1]`).
    #[test]
    fn a_side_name_has_one_spelling_in_every_error() {
        let err = |text: &str| ScenarioFile::from_yaml_str(text, "s.yaml").unwrap_err();
        let tagged = err("map: m\nsides:\n  the party: [goblin, !!str goblin]\n");
        let named = err("map: m\nsides:\n  the party: [goblin, \"../x\"]\n");
        for e in [&tagged, &named] {
            assert!(e.contains(r#"field `sides["the party"][1]`"#), "{e}");
        }
        let typed = err("map: m\nsides:\n  the party: [goblin, [x]]\n");
        assert!(
            typed.contains(r#"field `sides["the party"][1]`: invalid type"#),
            "{typed}"
        );
        let empty = err("map: m\nsides:\n  the party: []\n");
        assert!(empty.contains(r#"field `sides["the party"]`"#), "{empty}");
    }

    #[test]
    fn scenario_file_keeps_side_order_and_rejects_typos() {
        let f = ScenarioFile::from_yaml_str(
            "map: m\nsides: {west: [orc], east: [orc, goblin]}\n",
            "x.yaml",
        )
        .unwrap();
        assert_eq!(f.sides[0].0, "west");
        assert_eq!(f.sides[1].1, vec!["orc", "goblin"]);
        assert_eq!(f.round_cap, DEFAULT_ROUND_CAP);
        let e = ScenarioFile::from_yaml_str("map: m\nsides: {a: [orc]}\nround_cp: 3\n", "x.yaml")
            .unwrap_err();
        assert!(e.contains("round_cp"), "{e}");
        let e =
            ScenarioFile::from_yaml_str("map: ../m\nsides: {a: [orc]}\n", "x.yaml").unwrap_err();
        assert!(e.contains("map"), "{e}");
        let e =
            ScenarioFile::from_yaml_str("map: m\nsides: {a: [../orc]}\n", "x.yaml").unwrap_err();
        assert!(e.contains("sides.a[0]"), "{e}");
        let e = ScenarioFile::from_yaml_str("map: m\nsides: {a: [orc], a: [orc]}\n", "x.yaml")
            .unwrap_err();
        assert!(e.contains("duplicate"), "{e}");
    }

    #[test]
    fn bad_names_never_touch_the_disk() {
        let store = ScenarioStore::new("/nonexistent");
        let e = store.named("../secret", "scenario.named").unwrap_err();
        assert!(matches!(e, ScenarioError::InvalidName { .. }), "{e}");
        let e = store.named("nope", "scenario.named").unwrap_err();
        assert!(matches!(e, ScenarioError::UnknownScenario { .. }), "{e}");
        let e = store.resolve(None, "scenario").unwrap_err();
        assert!(matches!(e, ScenarioError::Missing { .. }), "{e}");
    }

    #[test]
    fn bundled_scenarios_parse() {
        let store = ScenarioStore::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../data"));
        let list = store.list();
        for name in ["casters", "mirror_duel", "sample_arena"] {
            let info = list
                .iter()
                .find(|s| s.name == name)
                .unwrap_or_else(|| panic!("{name} listed"));
            assert!(info.error.is_empty(), "{name}: {}", info.error);
        }
    }
}
