//! Building an encounter: a map, sides of combatants, deployment into zones, unique ids.
use crate::data::CombatantSpec;
use crate::grid::{Cell, Grid};
use crate::map::MapSpec;
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
    /// a round cap of 0.
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
                    let cells = crate::grid::footprint(anchor, footprint_side);
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
                });
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
        })
    }
}
