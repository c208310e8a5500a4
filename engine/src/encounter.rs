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
        RulesOptions { round_cap: 100, simple_monster_death: false }
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
        _map: MapSpec,
        _sides: Vec<(String, Vec<(String, CombatantSpec)>)>,
        _options: RulesOptions,
    ) -> Result<Encounter, EncounterError> {
        todo!()
    }
}
