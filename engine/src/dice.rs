//! Dice: notation parsing (`NdM`, `NdM+K`, `NdM-K`, `K`, sums like `1d6+1d4+2`) and dice
//! sources (seeded ChaCha8 for real runs, scripted for tests).
//!
//! Every die in the engine goes through the [`Dice`] trait so tests can script rolls.
//! `rand` 0.8.5 and `rand_chacha` 0.3.1 are pinned: see [`RNG_VERSION`].

use serde::{Deserialize, Serialize};

/// The RNG stack stamped into reports and transcripts: a different `rand` yields different rolls.
pub const RNG_VERSION: &str = "ChaCha8Rng (rand_chacha 0.3.1, rand 0.8.5)";

/// A source of die rolls.
pub trait Dice {
    /// Roll one die with `sides` faces: a value in `1..=sides`. `sides` is at least 1.
    fn roll(&mut self, sides: u32) -> u32;
}

/// Error for bad dice notation; names the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid dice notation `{text}`: {reason}")]
pub struct DiceError {
    pub text: String,
    pub reason: String,
}

/// One term of a dice expression.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Term {
    /// `count` dice of `sides` faces, added (`negative` = subtracted).
    Dice { count: u32, sides: u32, negative: bool },
    /// A constant (may be negative).
    Flat(i32),
}

/// A parsed dice expression.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiceExpr {
    pub terms: Vec<Term>,
}

/// A rolled expression: the total and each die face in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roll {
    pub total: i32,
    pub faces: Vec<u32>,
}

impl std::str::FromStr for DiceExpr {
    type Err = DiceError;
    fn from_str(_s: &str) -> Result<Self, Self::Err> {
        todo!()
    }
}

impl DiceExpr {
    /// Roll every term (dice in order of appearance) and sum.
    pub fn roll(&self, _dice: &mut dyn Dice) -> Roll {
        todo!()
    }
    /// Sum of the flat terms.
    pub fn flat(&self) -> i32 {
        todo!()
    }
    /// Minimum, maximum and mean of the expression.
    pub fn min(&self) -> i32 {
        todo!()
    }
    pub fn max(&self) -> i32 {
        todo!()
    }
    pub fn mean(&self) -> f64 {
        todo!()
    }
}

impl std::fmt::Display for DiceExpr {
    fn fmt(&self, _f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        todo!()
    }
}

/// The per-episode dice source: seeded ChaCha8, or a script for tests. `Clone` and
/// serializable so an episode snapshot includes its RNG state.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum DiceSource {
    Seeded(rand_chacha::ChaCha8Rng),
    Scripted(ScriptedDice),
}

impl DiceSource {
    /// `ChaCha8Rng::seed_from_u64(seed)`.
    pub fn seeded(_seed: u64) -> Self {
        todo!()
    }
}

impl Dice for DiceSource {
    fn roll(&mut self, _sides: u32) -> u32 {
        todo!()
    }
}

/// Scripted rolls for golden tests: returns the given faces in order.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ScriptedDice {
    pub rolls: std::collections::VecDeque<u32>,
}
