//! # pf1e-engine
//!
//! A deterministic Pathfinder 1st edition tactical-combat engine on a grid of 5-ft squares.
//! The engine is an [`episode::Episode`] value that advances until it needs a decision from an
//! external controller, then returns; the built-in default policy plays everyone else.
//!
//! Architecture invariants: no I/O except loading data files; no threads, clocks or hash-map
//! iteration order in anything that affects the outcome; one seeded `ChaCha8Rng` per episode.
#![forbid(unsafe_code)]

/// Version of the rules engine (stamped into reports, specs and transcripts).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod actions;
pub mod content;
pub mod dice;
pub mod effects;
pub mod episode;
pub mod geometry;
pub mod observe;
mod policy;
pub mod reward;
pub mod rules;
pub mod tactics;

pub use actions::{
    Action, ActionKind, ActionResult, AidMode, Budget, CombatantId, Direction, Maneuver, Metamagic,
};
pub use content::combatant::CombatantSpec;
pub use content::encounter::{Encounter, EncounterError, RulesOptions};
pub use content::map::MapSpec;
pub use dice::{Dice, DiceSource, ScriptedDice};
pub use episode::{
    Controller, Decision, DecisionKind, Episode, HistoryEntry, Interrupted, LegalAction, Outcome,
    ReplayStop, Status, WorkBudget,
};
pub use geometry::grid::Cell;
pub use observe::observation::Observation;
pub use rules::aoo::Provocation;
pub use tactics::{tactics_json_schema, TacticsError, TacticsSpec};
