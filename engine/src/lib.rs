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

pub mod action;
pub mod conditions;
pub mod data;
pub mod dice;
pub mod effects;
pub mod encounter;
pub mod episode;
pub mod feats;
pub mod grid;
pub mod legal;
pub mod los;
pub mod maneuvers;
pub mod map;
pub mod observation;
mod policy;
pub mod reward;
mod rules;
pub mod saves;
pub mod tensor;

pub use action::{Action, ActionKind, ActionResult, Budget, CombatantId, Maneuver};
pub use data::CombatantSpec;
pub use dice::{Dice, DiceSource, ScriptedDice};
pub use encounter::{Encounter, EncounterError, RulesOptions};
pub use episode::{Controller, Decision, Episode, LegalAction, Outcome, Status};
pub use grid::Cell;
pub use map::MapSpec;
pub use observation::Observation;
