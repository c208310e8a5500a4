//! The runtime state of an episode's combatants and of the turn in progress, the transcript
//! line and the attrition counters.

use crate::actions::ActionResult;
use crate::geometry::grid::Cell;
use serde::{Deserialize, Serialize};

/// Per-combatant attrition counters of one episode.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attrition {
    /// Attack rolls made (attacks of opportunity included).
    pub attacks: u32,
    pub hits: u32,
    /// Confirmed critical hits.
    pub crits: u32,
    /// Hit points of damage dealt (after DR and resistances).
    pub damage_dealt: i64,
    /// Hit points of damage taken (after DR and resistances; the killing blow counts fully).
    pub damage_taken: i64,
}

/// One transcript line: `round N id: message`, or a raw line (initiative, end of combat).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    pub round: Option<u32>,
    pub actor: Option<String>,
    pub message: String,
}

/// Life state derived from hit points (CRB — Combat: Injury and Death).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LifeState {
    /// `hp > 0`.
    Healthy,
    /// `hp == 0`: one move or standard action per turn; a standard action costs 1 hp.
    Disabled,
    /// `hp < 0` and above the death threshold: unconscious, loses 1 hp per turn unless stable.
    Dying,
    /// Dying but stabilized: unconscious, no more hp loss.
    Stable,
    /// Dead (or destroyed).
    Dead,
}

/// Runtime state of one combatant.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CState {
    pub pos: Cell,
    pub hp: i32,
    pub life: LifeState,
    /// Conditions (CRB — Appendix: Conditions), e.g. flat-footed until its first turn (CRB —
    /// Combat: Initiative, Flat-Footed). See [`crate::effects::conditions`].
    pub conditions: Vec<crate::effects::conditions::ActiveCondition>,
    /// Charged this turn: −2 AC until the start of its next turn.
    pub charging: bool,
    pub aoo_used: u32,
    pub initiative_total: i32,
    pub last_turn_results: Vec<ActionResult>,
    /// Ammunition left per attack (`None` = not counted).
    pub ammo: Vec<Option<u32>>,
    /// Power Attack is on (CRB — Feats: Power Attack), toggled by `activate_power_attack`.
    #[serde(default)]
    pub power_attack: bool,
    /// State of each attack's item: dropped (disarm), broken/destroyed (sunder).
    #[serde(default)]
    pub weapons: Vec<crate::rules::items::WeaponState>,
    /// The grapple this combatant is in (CRB — Combat: Grapple).
    #[serde(default)]
    pub grapple: Option<crate::rules::grapple::GrappleLink>,
    /// Ran this turn: denied Dex to AC until its next turn unless it has Run.
    #[serde(default)]
    pub running: bool,
    /// Consecutive turns spent running, Constitution checks made for this streak, and turns
    /// of rest left after failing one (CRB — Actions in Combat: Run).
    #[serde(default)]
    pub run_rounds: u32,
    #[serde(default)]
    pub run_checks: u32,
    #[serde(default)]
    pub run_rest: u32,
    /// In total defense (CRB — Actions in Combat: Total Defense) until the start of its next
    /// turn: no attacks of opportunity.
    #[serde(default)]
    pub total_defense: bool,
    /// Fights defensively (CRB — Actions in Combat: Fighting Defensively) until the start of
    /// its next turn: −4 on every attack roll.
    #[serde(default)]
    pub fight_defensively: bool,
    /// The dodge bonus to AC of total defense (+4) or of fighting defensively (+2, from its
    /// first attack), until the start of its next turn (the seed's `defensive_ac_bonus`).
    #[serde(default)]
    pub defensive_ac_bonus: i32,
    /// The aid another bonuses this combatant holds, +2 each, stacking (CRB — Combat: Aid
    /// Another): spent by the attack they apply to, gone at the start of the aider's next
    /// turn.
    #[serde(default)]
    pub aid: Vec<AidBonus>,
}

/// One successful aid another held by the aided combatant (CRB — Combat: Aid Another): +2 on
/// its next attack roll against `opponent` ([`AidMode::Attack`]) or +2 to its AC against
/// `opponent`'s next attack ([`AidMode::Ac`]), until the start of `aider`'s next turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AidBonus {
    pub aider: crate::actions::CombatantId,
    pub opponent: crate::actions::CombatantId,
    pub mode: crate::actions::AidMode,
}

/// Per-turn bookkeeping of the acting combatant.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct TurnState {
    pub standard_used: bool,
    pub move_used: bool,
    pub full_round_used: bool,
    /// Any movement this turn (5-foot step excluded from other movement and vice versa).
    pub moved: bool,
    pub stepped: bool,
    /// Disabled combatants: a single move or standard action.
    pub disabled_acted: bool,
    /// Ran this turn (the run streak goes on).
    #[serde(default)]
    pub ran: bool,
    /// A `move` action was taken this turn: at BAB +1 or higher one draw may be free with it
    /// (CRB — Actions in Combat: Draw or Sheathe a Weapon).
    #[serde(default)]
    pub regular_move: bool,
    /// The free draw of that move is spent.
    #[serde(default)]
    pub free_draw_used: bool,
    pub results: Vec<ActionResult>,
}

impl std::fmt::Display for LogLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.round, &self.actor) {
            (Some(r), Some(a)) => write!(f, "round {r} {a}: {}", self.message),
            _ => write!(f, "{}", self.message),
        }
    }
}

impl LifeState {
    /// Conscious (can act and counts for its side).
    pub fn is_conscious(self) -> bool {
        matches!(self, LifeState::Healthy | LifeState::Disabled)
    }
}
