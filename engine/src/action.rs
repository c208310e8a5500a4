//! Actions, the action budget (CRB — Combat: Actions in Combat), and action results.
use crate::grid::Cell;
use serde::{Deserialize, Serialize};

/// Index of a combatant in its episode (stable for the whole episode: list order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CombatantId(pub u16);

/// The kinds of action the engine knows (seed names in `snake_case`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// End the turn now (always legal at a decision).
    EndTurn,
    /// Standard action: one attack.
    Attack,
    /// Full-round action: all iterative attacks / every natural attack of the weapon.
    FullAttack,
    /// Full-round action: move up to 2× speed in a straight line, then one attack at +2.
    Charge,
    /// Move action: move up to speed, to `destination` or toward `target` (stop in reach).
    Move,
    /// Free movement of one square that never provokes.
    #[serde(rename = "5foot_step")]
    FiveFootStep,
    /// Full-round action: move up to 2× speed; leaving the first square does not provoke.
    Withdraw,
}

/// An action request. Which fields matter depends on `kind`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Action {
    pub kind: ActionKind,
    /// Target combatant (attack, full_attack, charge, move toward).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<CombatantId>,
    /// Destination square (move, 5foot_step, withdraw).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<Cell>,
    /// Index of the weapon in the actor's `attacks` list; `None` = first usable weapon.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weapon: Option<usize>,
}

impl Action {
    /// An action of `kind` with no parameters.
    pub fn new(kind: ActionKind) -> Self {
        Action {
            kind,
            target: None,
            destination: None,
            weapon: None,
        }
    }
}

/// The budget slot an action consumes (the seed's classification, X4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Slot {
    Standard,
    Move,
    Swift,
    FullRound,
    /// Free / conditional: outside the budget.
    Free,
}

impl ActionKind {
    /// The budget slot of this kind.
    pub fn slot(self) -> Slot {
        match self {
            ActionKind::Attack => Slot::Standard,
            ActionKind::Move => Slot::Move,
            ActionKind::FullAttack | ActionKind::Charge | ActionKind::Withdraw => Slot::FullRound,
            ActionKind::FiveFootStep | ActionKind::EndTurn => Slot::Free,
        }
    }
    /// The seed's `snake_case` name.
    pub fn name(self) -> &'static str {
        match self {
            ActionKind::EndTurn => "end_turn",
            ActionKind::Attack => "attack",
            ActionKind::FullAttack => "full_attack",
            ActionKind::Charge => "charge",
            ActionKind::Move => "move",
            ActionKind::FiveFootStep => "5foot_step",
            ActionKind::Withdraw => "withdraw",
        }
    }
}

/// What remains of a combatant's turn budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Budget {
    pub standard: bool,
    #[serde(rename = "move")]
    pub move_action: bool,
    pub swift: bool,
    /// A full-round action is possible (standard and move both unused, nothing else done).
    pub full_round: bool,
    /// A 5-foot step is still possible (no other movement this turn).
    pub five_foot_step: bool,
}

/// The outcome of one submitted action (seed: `ActionResult(kind, ok, reason)`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionResult {
    pub kind: ActionKind,
    pub ok: bool,
    /// Reason code from the seed's vocabulary ([`reasons`]), `None` when plainly accepted.
    pub reason: Option<String>,
}

/// The reason vocabulary (seed `ACTION_RESULT_REASONS`, plus ours where marked).
pub mod reasons {
    pub const MISSING_TARGET: &str = "missing_target";
    pub const INVALID_TARGET: &str = "invalid_target";
    pub const WEAPON_UNAVAILABLE: &str = "weapon_unavailable";
    pub const NO_WEAPON: &str = "no_weapon";
    pub const NO_LINE_OF_EFFECT: &str = "no_line_of_effect";
    pub const OUT_OF_RANGE: &str = "out_of_range";
    /// Ours: the ranged attack's ammunition is spent.
    pub const OUT_OF_AMMUNITION: &str = "out_of_ammunition";
    pub const NO_CHARGE_PATH: &str = "no_charge_path";
    pub const UNREACHABLE_DESTINATION: &str = "unreachable_destination";
    pub const INVALID_DESTINATION: &str = "invalid_destination";
    pub const ALREADY_MOVED: &str = "already_moved";
    pub const DOWNGRADED_ACTION_ECONOMY: &str = "downgraded:action_economy";
    pub const DOWNGRADED_DISABLED: &str = "downgraded:disabled";
    pub const CANNOT_ACT: &str = "cannot_act";
    /// Ours: a condition forbids this action (nauseated/pinned/panicked: no attack;
    /// grappled/pinned/paralyzed: no movement; fatigued/exhausted/entangled: no charge;
    /// prone: no ranged weapon but a crossbow).
    pub const PREVENTED_BY_CONDITION: &str = "prevented_by_condition";
    /// Ours: the turn ended before this action of the submitted sequence.
    pub const TURN_ENDED: &str = "turn_ended";
}
