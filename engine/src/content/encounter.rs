//! Building an encounter: a map, sides of combatants, deployment into zones, unique ids.
use crate::content::combatant::CombatantSpec;
use crate::content::map::MapSpec;
use crate::geometry::grid::{Cell, Grid};
use serde::Serialize;
use std::sync::Arc;

/// Rules options of an encounter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RulesOptions {
    /// Rounds after which the combat is a draw (truncated). Default 100.
    pub round_cap: u32,
    /// Monsters (not player characters) die at `hp <= 0`.
    pub simple_monster_death: bool,
}

impl Default for RulesOptions {
    fn default() -> Self {
        RulesOptions {
            round_cap: 100,
            simple_monster_death: false,
        }
    }
}

/// Most sides of an encounter (and of a map's `deployment`): more is an error, not a cost.
pub const MAX_SIDES: usize = 16;
/// Most combatants of an encounter, all sides together, before the slots reserved for
/// summoned creatures (those are bounded by `u16::MAX` in all). Bundled scenarios hold at
/// most 8; inline scenarios sent by clients have a lower cap of their own (the server's
/// `scenarios::MAX_INLINE_COMBATANTS`).
pub const MAX_COMBATANTS: usize = 1024;

/// Error building an encounter (side/deployment mismatch, zone too small…).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct EncounterError {
    /// What was wrong: `side <name>`, `deployment`, `round_cap`…
    pub field: String,
    pub reason: String,
}

/// A combatant placed in an encounter.
#[derive(Debug, Clone, Serialize)]
pub struct Placed {
    /// Unique id: the file stem / lower-cased name, disambiguated `goblin`, `goblin-2`…
    pub id: String,
    pub side: String,
    pub spec: Arc<CombatantSpec>,
    /// Anchor (top-left) square at the start.
    pub start: Cell,
    /// A slot reserved for a creature that a spell summons (absent until summoned): the
    /// summoner's index and the spellbook entry. `None` for the combatants deployed.
    pub summoned_by: Option<(usize, usize)>,
}

/// A validated encounter, shared (immutable) by every episode played on it.
#[derive(Debug, Clone, Serialize)]
pub struct Encounter {
    pub map: Arc<MapSpec>,
    #[serde(skip)]
    pub grid: Arc<Grid>,
    /// Side names in deployment order.
    pub sides: Vec<String>,
    /// Combatants in list order (deployment order, then file order within a side).
    pub combatants: Vec<Placed>,
    pub options: RulesOptions,
    /// Tactics specs played by the built-in policy, by side (absent: the default policy).
    /// Serialized (so [`Encounter`]'s JSON, and every hash of it, changes with them) only
    /// when present, so an encounter without tactics hashes as before.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub tactics: std::collections::BTreeMap<String, Arc<crate::tactics::TacticsSpec>>,
}

impl Encounter {
    /// Build an encounter: every side of the map's `deployment` must be given, and no other;
    /// combatants fill their side's zone squares in (row, col) order; ids are disambiguated
    /// globally in deployment order.
    ///
    /// `sides` is `(side name, combatants)`, each combatant with a base id (file stem).
    ///
    /// # Errors
    /// [`EncounterError`] for an unknown side, a missing side, an empty side, a zone too small,
    /// a round cap of 0, more than [`MAX_SIDES`] sides or [`MAX_COMBATANTS`] combatants
    /// (field `sides`).
    pub fn build(
        map: MapSpec,
        sides: Vec<(String, Vec<(String, CombatantSpec)>)>,
        options: RulesOptions,
    ) -> Result<Encounter, EncounterError> {
        let err = |field: &str, reason: String| EncounterError {
            field: field.to_string(),
            reason,
        };
        if options.round_cap == 0 {
            return Err(err("round_cap", "must be at least 1".into()));
        }
        if map.deployment.is_empty() {
            return Err(err(
                "deployment",
                "the map has no deployment section: nowhere to place combatants".into(),
            ));
        }
        if sides.len() > MAX_SIDES {
            return Err(err(
                "sides",
                format!("{} sides given: at most {MAX_SIDES}", sides.len()),
            ));
        }
        let total: usize = sides.iter().map(|(_, m)| m.len()).sum();
        if total > MAX_COMBATANTS {
            return Err(err(
                "sides",
                format!("{total} combatants given: at most {MAX_COMBATANTS} in all"),
            ));
        }
        let known: Vec<&str> = map.deployment.iter().map(|(s, _)| s.as_str()).collect();
        let mut seen = std::collections::BTreeSet::new();
        for (name, members) in &sides {
            if !known.contains(&name.as_str()) {
                return Err(err(
                    &format!("side {name}"),
                    format!(
                        "unknown side: the map's deployment has {}",
                        known.join(", ")
                    ),
                ));
            }
            if !seen.insert(name.clone()) {
                return Err(err(&format!("side {name}"), "given twice".into()));
            }
            if members.is_empty() {
                return Err(err(&format!("side {name}"), "has no combatant".into()));
            }
        }
        for side in &known {
            if !seen.contains(*side) {
                return Err(err(
                    &format!("side {side}"),
                    "missing: every side of the map's deployment must be given".into(),
                ));
            }
        }
        for (side, members) in &sides {
            for (id, spec) in members {
                if !spec.spells_resolved() {
                    return Err(err(
                        &format!("side {side}"),
                        format!(
                            "combatant `{id}`: its spells were not resolved against a spell \
                             registry (CombatantSpec::resolve_spells)"
                        ),
                    ));
                }
            }
        }
        let grid = Grid::from_map(&map);
        let mut occupied: std::collections::BTreeSet<Cell> = Default::default();
        let mut combatants = Vec::new();
        let mut id_counts: std::collections::BTreeMap<String, u32> = Default::default();
        for (side, letter) in &map.deployment {
            let (_, members) = sides
                .iter()
                .find(|(n, _)| n == side)
                .expect("checked above");
            let zone = map.zone_cells(*letter);
            let in_zone: std::collections::BTreeSet<Cell> = zone.iter().copied().collect();
            let mut next = 0usize;
            for (base_id, spec) in members {
                let footprint_side = spec.size.footprint_side();
                let mut placed_at = None;
                while next < zone.len() {
                    let anchor = zone[next];
                    next += 1;
                    let cells = crate::geometry::grid::footprint(anchor, footprint_side);
                    // The whole footprint must lie in the zone (a Huge creature needs 3×3
                    // zone squares), on passable, unoccupied squares.
                    if cells.iter().all(|c| {
                        in_zone.contains(c)
                            && grid.in_bounds(*c)
                            && grid.passable(*c)
                            && !occupied.contains(c)
                    }) {
                        placed_at = Some((anchor, cells));
                        break;
                    }
                }
                let Some((anchor, cells)) = placed_at else {
                    return Err(err(
                        &format!("side {side}"),
                        format!(
                            "zone {letter} is too small: no free square left for {base_id} ({} combatants on this side)",
                            members.len()
                        ),
                    ));
                };
                occupied.extend(cells);
                let count = id_counts.entry(base_id.clone()).or_insert(0);
                *count += 1;
                let id = if *count == 1 {
                    base_id.clone()
                } else {
                    format!("{base_id}-{count}")
                };
                combatants.push(Placed {
                    id,
                    side: side.clone(),
                    spec: Arc::new(spec.clone()),
                    start: anchor,
                    summoned_by: None,
                });
            }
        }
        // Summoning (CRB — Spells: Summon Monster I): the creatures a caster's spells may
        // summon get combatant slots now, absent until summoned, so the action space and the
        // tensor shapes stay fixed for the whole episode.
        let deployed = combatants.len();
        for i in 0..deployed {
            let caster = combatants[i].clone();
            for (si, cs) in caster.spec.spellbook().iter().enumerate() {
                let Some((spec, count)) = &cs.summon else {
                    continue;
                };
                for k in 1..=*count {
                    combatants.push(Placed {
                        id: format!(
                            "{}-{}-{}",
                            caster.id,
                            crate::content::spells::spell_key(&spec.name),
                            si * 4 + k as usize
                        ),
                        side: caster.side.clone(),
                        spec: spec.clone(),
                        start: caster.start,
                        summoned_by: Some((i, si)),
                    });
                }
            }
        }
        if combatants.len() > u16::MAX as usize {
            return Err(err("sides", "too many combatants".into()));
        }
        // A disambiguated id may collide with a literal base id (`goblin-2` given twice).
        let mut ids = std::collections::BTreeSet::new();
        for c in &combatants {
            if !ids.insert(c.id.clone()) {
                return Err(err(
                    &format!("combatant {}", c.id),
                    "duplicate combatant id after disambiguation".into(),
                ));
            }
        }
        Ok(Encounter {
            sides: map.deployment.iter().map(|(s, _)| s.clone()).collect(),
            map: Arc::new(map),
            grid: Arc::new(grid),
            combatants,
            options,
            tactics: Default::default(),
        })
    }
}

impl Encounter {
    /// Index (in [`Encounter::combatants`] list order) of the combatant whose unique id is `id`.
    pub fn combatant_index(&self, id: &str) -> Option<usize> {
        self.combatants.iter().position(|c| c.id == id)
    }

    /// Why combatant `index` could not start with its anchor (top-left square of its
    /// footprint, `(row, col)`) at `anchor`: `off the map (8 rows × 20 columns)`,
    /// `impassable square (wall)`, or for a footprint larger than one square
    /// `2×2 footprint: square (7,5): impassable square (wall)`. The anchor is not repeated.
    /// `None` when the whole footprint is on the map and passable. Occupancy by other
    /// combatants is not checked here (see [`Encounter::with_starts`]).
    ///
    /// # Panics
    /// If `index` is not a combatant index.
    pub fn start_problem(&self, index: usize, anchor: Cell) -> Option<String> {
        let side = self.combatants[index].spec.size.footprint_side();
        let off = format!(
            "off the map ({} rows × {} columns)",
            self.grid.rows, self.grid.cols
        );
        let kind = |c: Cell| {
            let kind = &self.map.terrain_at(c).kind;
            if kind.is_empty() {
                "impassable".to_string()
            } else {
                kind.clone()
            }
        };
        for c in crate::geometry::grid::footprint(anchor, side) {
            let problem = if !self.grid.in_bounds(c) {
                off.clone()
            } else if !self.grid.passable(c) {
                format!("impassable square ({})", kind(c))
            } else {
                continue;
            };
            return Some(if c == anchor {
                problem
            } else {
                format!("{side}×{side} footprint: square {c}: {problem}")
            });
        }
        None
    }

    /// A copy of this encounter with the start anchors (top-left squares, `(row, col)`) of
    /// some combatants replaced; the others keep theirs. `starts` is `(combatant id, anchor)`.
    /// Ids, sides, specs and options are unchanged; the map and grid are shared (`Arc`).
    ///
    /// Every combatant's footprint (moved or not) must be on the map, on passable squares,
    /// and overlap no other combatant's footprint. Zones do not matter: a moved combatant may
    /// start anywhere.
    ///
    /// # Errors
    /// [`EncounterError`] with field `combatant <id>` naming the moved combatant (or, for an
    /// overlap, the first of the two in list order that was moved): an unknown id, an id given
    /// twice, an anchor off the map, a footprint square off the map or impassable, an overlap
    /// (the reason names the other combatant and its anchor).
    pub fn with_starts(&self, starts: &[(&str, Cell)]) -> Result<Encounter, EncounterError> {
        let err = |id: &str, reason: String| EncounterError {
            field: format!("combatant {id}"),
            reason,
        };
        let mut out = self.clone();
        let mut moved = vec![false; out.combatants.len()];
        for &(id, anchor) in starts {
            let Some(i) = self.combatant_index(id) else {
                return Err(err(
                    id,
                    format!(
                        "unknown combatant id (the encounter has {})",
                        self.combatants
                            .iter()
                            .map(|c| c.id.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            };
            if moved[i] {
                return Err(err(id, "start given twice".into()));
            }
            if self.combatants[i].summoned_by.is_some() {
                return Err(err(
                    id,
                    "a slot reserved for a summoned creature has no start (it appears when summoned)"
                        .into(),
                ));
            }
            if let Some(problem) = self.start_problem(i, anchor) {
                return Err(err(id, format!("start {anchor}: {problem}")));
            }
            moved[i] = true;
            out.combatants[i].start = anchor;
        }
        let mut owner: std::collections::BTreeMap<Cell, usize> = Default::default();
        for (i, c) in out.combatants.iter().enumerate() {
            if c.summoned_by.is_some() {
                continue;
            }
            for cell in crate::geometry::grid::footprint(c.start, c.spec.size.footprint_side()) {
                if let Some(&j) = owner.get(&cell) {
                    // Name a moved one: an unmoved pair cannot overlap (built by `build`).
                    let (a, b) = if moved[j] || !moved[i] {
                        (j, i)
                    } else {
                        (i, j)
                    };
                    let (a, b) = (&out.combatants[a], &out.combatants[b]);
                    return Err(err(
                        &a.id,
                        format!(
                            "start {}: overlaps {} (start {}) at square {cell}",
                            a.start, b.id, b.start
                        ),
                    ));
                }
                owner.insert(cell, i);
            }
        }
        Ok(out)
    }
}

/// Test fixture of the engine's unit tests: two goblins (`players`) against an ogre
/// (`monsters`) on the sample arena, from `data/`.
#[cfg(test)]
pub(crate) fn goblins_vs_ogre() -> Encounter {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    let map = MapSpec::load(&data.join("maps/sample_arena.yaml")).unwrap();
    let goblin = CombatantSpec::load(&data.join("monsters/goblin.json")).unwrap();
    let ogre = CombatantSpec::load(&data.join("monsters/ogre.json")).unwrap();
    let sides = vec![
        (
            "players".to_string(),
            vec![
                ("goblin".to_string(), goblin.clone()),
                ("goblin".to_string(), goblin),
            ],
        ),
        ("monsters".to_string(), vec![("ogre".to_string(), ogre)]),
    ];
    Encounter::build(map, sides, RulesOptions::default()).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Encounter {
        goblins_vs_ogre()
    }

    #[test]
    fn with_starts_moves_only_the_named() {
        let enc = sample();
        assert_eq!(enc.combatant_index("goblin-2"), Some(1));
        let moved = enc.with_starts(&[("goblin-2", Cell::new(5, 5))]).unwrap();
        assert_eq!(moved.combatants[1].start, Cell::new(5, 5));
        assert_eq!(moved.combatants[0].start, enc.combatants[0].start);
        assert_eq!(moved.combatants[2].start, enc.combatants[2].start);
        // Two combatants may swap squares in one call.
        let (a, b) = (enc.combatants[0].start, enc.combatants[1].start);
        let swapped = enc.with_starts(&[("goblin", b), ("goblin-2", a)]).unwrap();
        assert_eq!(swapped.combatants[0].start, b);
    }

    #[test]
    fn with_starts_names_the_combatant_and_the_square() {
        let enc = sample();
        let e = enc.with_starts(&[("goblin", Cell::new(0, 3))]).unwrap_err();
        assert_eq!(e.field, "combatant goblin");
        assert!(
            e.reason.contains("(0,3)") && e.reason.contains("wall"),
            "{e}"
        );
        let e = enc.with_starts(&[("goblin", Cell::new(8, 3))]).unwrap_err();
        assert!(e.reason.contains("off the map"), "{e}");
        let e = enc
            .with_starts(&[("goblin", Cell::new(-1, 3))])
            .unwrap_err();
        assert!(e.reason.contains("off the map"), "{e}");
        let e = enc.with_starts(&[("goblin", Cell::new(2, 3))]).unwrap_err();
        assert_eq!(e.reason, "start (2,3): impassable square (pillar)");
        let ogre = enc.combatants[2].start;
        let e = enc.with_starts(&[("goblin-2", ogre)]).unwrap_err();
        assert_eq!(e.field, "combatant goblin-2");
        assert!(e.reason.contains("overlaps ogre"), "{e}");
        // The ogre is Large (2×2): its footprint must fit.
        let e = enc.with_starts(&[("ogre", Cell::new(6, 5))]).unwrap_err();
        assert_eq!(e.field, "combatant ogre");
        assert!(
            e.reason
                .contains("start (6,5): 2×2 footprint: square (7,5): impassable square (wall)"),
            "{e}"
        );
        let e = enc.with_starts(&[("ogre", Cell::new(1, 6))]).unwrap_err();
        assert!(e.reason.contains("(1,7)"), "{e}");
        assert!(enc.start_problem(2, Cell::new(1, 5)).is_none());
        let e = enc.with_starts(&[("nobody", Cell::new(1, 1))]).unwrap_err();
        assert!(e.reason.contains("unknown combatant"), "{e}");
        let e = enc
            .with_starts(&[("goblin", Cell::new(5, 5)), ("goblin", Cell::new(5, 6))])
            .unwrap_err();
        assert!(e.reason.contains("twice"), "{e}");
        assert!(enc.start_problem(2, Cell::new(4, 1)).is_none());
    }
}
