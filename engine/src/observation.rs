//! The observation snapshot (seed "Snapshot d'observation"): owned data, never aliasing the
//! engine, serialized to JSON with the seed's key names.
use crate::action::{ActionResult, Budget};
use crate::grid::Cell;
use serde::Serialize;
use std::collections::BTreeMap;

/// One attack of a combatant, as observed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttackObs {
    /// Index in the combatant's `attacks` (the `weapon` of an action).
    pub index: usize,
    pub id: String,
    pub name: String,
    pub kind: String,
    pub attack_bonus: i32,
    /// Damage, e.g. `1d8+3 slashing`.
    pub damage: String,
    pub crit_range: i32,
    pub crit_mult: i32,
    /// Reach in feet (melee) or `None`.
    pub reach_ft: Option<i32>,
    pub range_increment_ft: Option<i32>,
    pub count: u32,
    pub natural: bool,
    pub secondary: bool,
}

/// Per-combatant state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CombatantObs {
    pub index: u16,
    pub id: String,
    pub name: String,
    pub side: String,
    pub pos: Cell,
    pub occupied_cells: Vec<Cell>,
    pub size: String,
    pub hp: i32,
    pub hp_max: i32,
    /// Conscious and able to act (`hp >= 0`, not dead).
    pub active: bool,
    pub dead: bool,
    pub disabled: bool,
    pub dying: bool,
    pub stabilized: bool,
    /// Condition names with rounds left (`None` = no duration).
    pub conditions: BTreeMap<String, Option<u32>>,
    pub ac: AcObs,
    pub saves: SavesObs,
    pub bab: i32,
    pub initiative_mod: i32,
    pub initiative_total: i32,
    pub speed_land_ft: i32,
    pub speed_effective_ft: i32,
    pub natural_reach_ft: i32,
    pub creature_type: Option<String>,
    pub dr: Option<DrObs>,
    pub resistances: BTreeMap<String, i32>,
    pub immunities: Vec<String>,
    pub spell_resistance: i32,
    pub attacks: Vec<AttackObs>,
    pub feats: Vec<String>,
    pub features: Vec<String>,
    pub aoo_remaining: u32,
    pub moved_this_turn: bool,
    pub player_character: bool,
    pub last_turn_results: Vec<ActionResult>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AcObs {
    pub total: i32,
    pub touch: i32,
    pub flat_footed: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SavesObs {
    pub fort: i32,
    #[serde(rename = "ref")]
    pub reflex: i32,
    pub will: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DrObs {
    pub amount: i32,
    pub bypass: Vec<String>,
}

/// Per actor × target pair (actor = the observation's acting combatant).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairObs {
    pub target_index: u16,
    pub target_id: String,
    pub distance_ft: i32,
    /// Index of the weapon the default policy would use, or `None`.
    pub weapon_for: Option<usize>,
    /// Why no weapon can attack (`no_weapon`, `no_line_of_effect`, `out_of_range`).
    pub weapon_reason: Option<String>,
    pub range_penalty: i32,
    pub can_charge: bool,
    pub charge_reason: Option<String>,
    pub can_step5_to_attack: bool,
    pub has_line_of_effect: bool,
    pub flanking: bool,
    /// Cheapest movement cost to a square from which to attack, in feet (`None` unreachable).
    pub movement_cost_ft: Option<i32>,
    pub target_threatens_me: bool,
    pub cover_bonus: i32,
}

/// One terrain type of the map, as observed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TerrainSemantics {
    #[serde(rename = "type")]
    pub kind: String,
    pub move_cost: Option<u32>,
    pub blocks_los: bool,
    pub cover: bool,
    pub cover_bonus: u8,
}

/// The full snapshot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observation {
    pub round: u32,
    /// Id of the combatant whose decision this is (or who acts next).
    pub acting_combatant: Option<String>,
    pub acting_index: Option<u16>,
    pub budget: Option<Budget>,
    pub combatants: Vec<CombatantObs>,
    pub pairs: Vec<PairObs>,
    /// Terrain rows as strings.
    pub terrain: Vec<String>,
    pub elevation: Vec<Vec<i32>>,
    /// Squares threatened (melee, AoO) by enemies of the acting combatant, row-major bools.
    pub threatened: Vec<Vec<bool>>,
    pub enemies_threatening_me: Vec<String>,
    pub initiative_order: Vec<String>,
    pub terrain_semantics: BTreeMap<String, TerrainSemantics>,
}
