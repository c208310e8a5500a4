//! Why an action is refused: [`Reject`], one variant per reason of the seed's vocabulary
//! (`ACTION_RESULT_REASONS`, plus ours where marked), each carrying what a controller needs
//! to correct itself (which condition, which slot, which weapon, what is wrong with the
//! target). [`Reject::code`] is the seed's `snake_case` reason; the server maps each variant
//! to a `ResultCode` in one exhaustive `match`.

use crate::actions::{CombatantId, Slot};
use crate::effects::conditions::Condition;
use serde::{Deserialize, Serialize};

/// What is wrong with an action's target (the detail of [`Reject::InvalidTarget`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetIssue {
    /// No combatant has this index.
    NoSuchCombatant,
    /// The actor itself.
    Itself,
    /// Not an enemy of the actor.
    Ally,
    /// Unconscious, dying or dead.
    Unconscious,
    /// Already in a grapple (one grapple per creature: multiple grapplers are not modelled).
    AlreadyGrappling,
    /// It cannot be tripped: no legs, a fly speed, or the trait `cannot_be_tripped` (CRB —
    /// Combat: Trip).
    CannotBeTripped,
    /// It holds no manufactured weapon to disarm or sunder.
    NothingHeld,
    /// Escape names another creature than the grappler.
    NotTheGrappler,
    /// A reaction names another creature than the one that provoked it.
    NotTheProvoker,
    /// A `decline` names a target: declining takes none.
    DeclineTakesNone,
    /// The `ally` of an aid another is not a friend of the aider (an enemy).
    NotAnAlly,
    /// A coup de grace names a dead combatant.
    Dead,
    /// A personal spell names another creature than the caster.
    NotTheCaster,
}

impl TargetIssue {
    fn describe(self) -> &'static str {
        match self {
            TargetIssue::NoSuchCombatant => "no such combatant",
            TargetIssue::Itself => "the actor itself",
            TargetIssue::Ally => "not an enemy",
            TargetIssue::Unconscious => "not conscious",
            TargetIssue::AlreadyGrappling => "already in a grapple",
            TargetIssue::CannotBeTripped => "cannot be tripped",
            TargetIssue::NothingHeld => "holds no weapon to disarm or sunder",
            TargetIssue::NotTheGrappler => "not the grappler",
            TargetIssue::NotTheProvoker => "not the provoker",
            TargetIssue::DeclineTakesNone => "a decline names no target",
            TargetIssue::NotAnAlly => "not an ally",
            TargetIssue::Dead => "dead",
            TargetIssue::NotTheCaster => "a personal spell targets the caster",
        }
    }
}

/// The reason an action is refused (nothing of it is applied).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "code")]
pub enum Reject {
    /// The action needs a target (or a destination).
    #[serde(rename = "missing_target")]
    MissingTarget,
    #[serde(rename = "invalid_target")]
    InvalidTarget {
        target: Option<CombatantId>,
        why: TargetIssue,
    },
    /// No such weapon, or it cannot be used this way (dropped, destroyed, not melee, does
    /// not reach).
    #[serde(rename = "weapon_unavailable")]
    WeaponUnavailable { weapon: Option<usize> },
    /// The actor has no usable weapon (of the kind needed).
    #[serde(rename = "no_weapon")]
    NoWeapon,
    #[serde(rename = "no_line_of_effect")]
    NoLineOfEffect,
    #[serde(rename = "out_of_range")]
    OutOfRange,
    /// Ours: the ranged attack's ammunition is spent.
    #[serde(rename = "out_of_ammunition")]
    OutOfAmmunition { weapon: usize },
    #[serde(rename = "no_charge_path")]
    NoChargePath,
    #[serde(rename = "unreachable_destination")]
    UnreachableDestination,
    #[serde(rename = "invalid_destination")]
    InvalidDestination,
    /// No 5-foot step, charge, withdraw or run after other movement (or no move after a
    /// 5-foot step).
    #[serde(rename = "already_moved")]
    AlreadyMoved,
    /// The action's budget slot is spent this turn.
    #[serde(rename = "downgraded:action_economy")]
    DowngradedActionEconomy { slot: Slot },
    /// A disabled combatant has one move or standard action per turn.
    #[serde(rename = "downgraded:disabled")]
    DowngradedDisabled { slot: Slot },
    /// The actor cannot act: unconscious (`condition` none) or a condition forbids acting.
    #[serde(rename = "cannot_act")]
    CannotAct { condition: Option<Condition> },
    /// Ours: this condition forbids the action (nauseated/pinned/panicked: no attack;
    /// grappled/pinned/paralyzed: no movement; fatigued/exhausted/entangled: no charge;
    /// prone: no movement but standing up, no ranged weapon but a crossbow).
    #[serde(rename = "prevented_by_condition")]
    PreventedByCondition { condition: Condition },
    /// Ours: the turn ended before this action of the submitted list.
    #[serde(rename = "turn_ended")]
    TurnEnded,
    #[serde(rename = "not_prone")]
    NotProne,
    #[serde(rename = "already_prone")]
    AlreadyProne,
    #[serde(rename = "no_power_attack")]
    NoPowerAttack,
    /// Trip, bull rush, overrun, reposition or drag against a target more than one size
    /// larger.
    #[serde(rename = "target_too_large")]
    TargetTooLarge,
    /// Escape or pin outside such a grapple.
    #[serde(rename = "not_grappled")]
    NotGrappled,
    #[serde(rename = "missing_maneuver")]
    MissingManeuver,
    /// Ours: resting after a failed run endurance check.
    #[serde(rename = "cannot_run")]
    CannotRun,
    /// Ours: the action does not answer the pending decision's kind.
    #[serde(rename = "wrong_decision_kind")]
    WrongDecisionKind,
    /// Ours: an earlier action of the list already answered the reaction decision.
    #[serde(rename = "decision_answered")]
    DecisionAnswered,
    /// Ours: the actor fights defensively this turn: a second declaration, total defense
    /// ("You can't combine total defense with fighting defensively"), a charge or a maneuver
    /// (fighting defensively goes with an attack or a full attack) is refused.
    #[serde(rename = "fighting_defensively")]
    FightingDefensively,
    /// A second delay in the same round (the seed's `already_delayed`).
    #[serde(rename = "already_delayed")]
    AlreadyDelayed,
    /// Ours: delaying is taking no action (CRB — Special Initiative Actions: Delay), so only
    /// before anything else of the turn.
    #[serde(rename = "already_acted")]
    AlreadyActed,
    /// Ours: `delay` names a combatant that does not act later this round (or nobody acts
    /// after the actor: nothing to delay past).
    #[serde(rename = "invalid_delay")]
    InvalidDelay,
    /// Ours: the `ready` action is malformed: no or an unsupported `readied` action, no
    /// `trigger`, or a trigger creature of the wrong side (`why` says which).
    #[serde(rename = "invalid_ready")]
    InvalidReady { why: ReadyIssue },
    /// In the surprise round the aware act with one standard or move action (plus free
    /// actions); a second one, a full-round or a swift action is refused (CRB — Combat:
    /// The Surprise Round; the seed's `downgraded:surprise`).
    #[serde(rename = "downgraded:surprise")]
    DowngradedSurprise { slot: Slot },
    /// A staggered combatant has one move or standard action per turn (CRB — Conditions:
    /// Staggered; the seed's `downgraded:staggered`).
    #[serde(rename = "downgraded:staggered")]
    DowngradedStaggered { slot: Slot },
    /// A nauseated combatant's single move action is spent (CRB — Conditions: Nauseated; the
    /// seed's `downgraded:nauseated`). Other actions are `prevented_by_condition`.
    #[serde(rename = "downgraded:nauseated")]
    DowngradedNauseated { slot: Slot },
    /// Ours: the action needs a feat the actor lacks (cleave: Cleave; spring_attack: Spring
    /// Attack; shot_on_the_run: Shot on the Run; activate_lunge: Lunge — CRB — Feats).
    #[serde(rename = "missing_feat")]
    MissingFeat,
    /// Ours: Spring Attack against a foe adjacent to the actor at the start of its turn
    /// (CRB — Feats: Spring Attack).
    #[serde(rename = "adjacent_at_start")]
    AdjacentAtStart,
    /// Ours: a foe's Stand Still stopped the actor's movement: it cannot move for the rest of
    /// its turn (CRB — Feats: Stand Still).
    #[serde(rename = "stood_still")]
    StoodStill,
    /// Ours: the feat does not apply now (Lunge already declared this turn; `stand_still`
    /// where the foe does not leave a square adjacent to the answerer — CRB — Feats).
    #[serde(rename = "feat_not_applicable")]
    FeatNotApplicable,
    /// Ours: `activate_deadly_aim` without the Deadly Aim feat.
    #[serde(rename = "no_deadly_aim")]
    NoDeadlyAim,
    /// Ours: `activate_combat_expertise` without the Combat Expertise feat.
    #[serde(rename = "no_combat_expertise")]
    NoCombatExpertise,
    /// Ours: aid another needs an opponent engaging the ally in melee — one of the two
    /// threatens the other (CRB — Combat: Aid Another).
    #[serde(rename = "not_engaged")]
    NotEngaged,
    /// Ours: a coup de grace needs a helpless target (unconscious — dying or stable —,
    /// paralyzed, asleep, helpless…; CRB — Combat: Helpless Defenders).
    #[serde(rename = "not_helpless")]
    NotHelpless,
    /// Ours: a coup de grace against a creature immune to critical hits (CRB — Combat:
    /// Coup de Grace).
    #[serde(rename = "immune_to_critical_hits")]
    ImmuneToCriticalHits,
    /// Ours: drawing or picking up a weapon needs free hands (see `rules::items::hands`).
    #[serde(rename = "hands_full")]
    HandsFull,
    /// Ours: a coup de grace against a target with total concealment (a blinded attacker):
    /// the SRD's two consecutive full-round actions are not modelled.
    #[serde(rename = "target_concealed")]
    TargetConcealed,
    /// Ours: a bull rush `direction` that is not straight away from the attacker, or a
    /// direction on a kind or maneuver that takes none.
    #[serde(rename = "invalid_direction")]
    InvalidDirection,
    /// Ours: a `cast_spell` without `spell`.
    #[serde(rename = "missing_spell")]
    MissingSpell,
    /// Ours: `spell` is not an index of the caster's spellbook.
    #[serde(rename = "unknown_spell")]
    UnknownSpell { spell: usize },
    /// The seed's reason: a casting time of 1 minute or more cannot be cast in combat
    /// (CRB — Magic: Casting Time).
    #[serde(rename = "downgraded:cast_time")]
    DowngradedCastTime,
    /// The seed's reason: no spell slot of the spell's level, prepared copy or use per day
    /// left (CRB — Magic: Spell Slots).
    #[serde(rename = "no_slot")]
    NoSlot { level: u8 },
    /// Ours: `cast_defensively` by a combatant without spells.
    #[serde(rename = "no_spells")]
    NoSpells,
    /// Ours: a declaration (`cast_defensively`) already made this turn.
    #[serde(rename = "already_declared")]
    AlreadyDeclared,
    /// Ours: metamagic on a prepared spell or a spell-like ability, Quicken on a spell of a
    /// full round or more, or `activate_metamagic` without exactly one feat.
    #[serde(rename = "metamagic_not_applicable")]
    MetamagicNotApplicable,
}

/// What is wrong with a `ready` action (the detail of [`Reject::InvalidReady`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadyIssue {
    /// No `readied` action.
    MissingReadied,
    /// The readied kind is not one that can be readied (attack, maneuver, move, 5-foot step;
    /// no overrun or drag: they are part of the mover's own movement).
    UnsupportedReadied,
    /// No `trigger`.
    MissingTrigger,
    /// An enemy trigger names an ally, an ally trigger an enemy, or no such combatant.
    WrongTriggerSide,
    /// `enemy_within` with a distance that is not 5–120 ft in steps of 5.
    BadDistance,
    /// The readied action's target is not an enemy (or the move has no destination).
    BadPayload,
}

impl ReadyIssue {
    fn describe(self) -> &'static str {
        match self {
            ReadyIssue::MissingReadied => "no readied action",
            ReadyIssue::UnsupportedReadied => {
                "only attack, maneuver (not overrun or drag), move or 5foot_step can be readied"
            }
            ReadyIssue::MissingTrigger => "no trigger",
            ReadyIssue::WrongTriggerSide => "the trigger's creature is of the wrong side",
            ReadyIssue::BadDistance => "enemy_within takes 5 to 120 ft in steps of 5",
            ReadyIssue::BadPayload => "the readied action's target or destination is invalid",
        }
    }
}

impl Reject {
    /// The seed's `snake_case` reason code (`prevented_by_condition`,
    /// `downgraded:action_economy`…).
    pub fn code(&self) -> &'static str {
        match self {
            Reject::MissingTarget => "missing_target",
            Reject::InvalidTarget { .. } => "invalid_target",
            Reject::WeaponUnavailable { .. } => "weapon_unavailable",
            Reject::NoWeapon => "no_weapon",
            Reject::NoLineOfEffect => "no_line_of_effect",
            Reject::OutOfRange => "out_of_range",
            Reject::OutOfAmmunition { .. } => "out_of_ammunition",
            Reject::NoChargePath => "no_charge_path",
            Reject::UnreachableDestination => "unreachable_destination",
            Reject::InvalidDestination => "invalid_destination",
            Reject::AlreadyMoved => "already_moved",
            Reject::DowngradedActionEconomy { .. } => "downgraded:action_economy",
            Reject::DowngradedDisabled { .. } => "downgraded:disabled",
            Reject::CannotAct { .. } => "cannot_act",
            Reject::PreventedByCondition { .. } => "prevented_by_condition",
            Reject::TurnEnded => "turn_ended",
            Reject::NotProne => "not_prone",
            Reject::AlreadyProne => "already_prone",
            Reject::NoPowerAttack => "no_power_attack",
            Reject::TargetTooLarge => "target_too_large",
            Reject::NotGrappled => "not_grappled",
            Reject::MissingManeuver => "missing_maneuver",
            Reject::CannotRun => "cannot_run",
            Reject::WrongDecisionKind => "wrong_decision_kind",
            Reject::DecisionAnswered => "decision_answered",
            Reject::FightingDefensively => "fighting_defensively",
            Reject::AlreadyDelayed => "already_delayed",
            Reject::AlreadyActed => "already_acted",
            Reject::InvalidDelay => "invalid_delay",
            Reject::InvalidReady { .. } => "invalid_ready",
            Reject::DowngradedSurprise { .. } => "downgraded:surprise",
            Reject::DowngradedStaggered { .. } => "downgraded:staggered",
            Reject::DowngradedNauseated { .. } => "downgraded:nauseated",
            Reject::MissingFeat => "missing_feat",
            Reject::AdjacentAtStart => "adjacent_at_start",
            Reject::StoodStill => "stood_still",
            Reject::FeatNotApplicable => "feat_not_applicable",
            Reject::NoDeadlyAim => "no_deadly_aim",
            Reject::NoCombatExpertise => "no_combat_expertise",
            Reject::NotEngaged => "not_engaged",
            Reject::NotHelpless => "not_helpless",
            Reject::ImmuneToCriticalHits => "immune_to_critical_hits",
            Reject::HandsFull => "hands_full",
            Reject::TargetConcealed => "target_concealed",
            Reject::InvalidDirection => "invalid_direction",
            Reject::MissingSpell => "missing_spell",
            Reject::UnknownSpell { .. } => "unknown_spell",
            Reject::DowngradedCastTime => "downgraded:cast_time",
            Reject::NoSlot { .. } => "no_slot",
            Reject::NoSpells => "no_spells",
            Reject::AlreadyDeclared => "already_declared",
            Reject::MetamagicNotApplicable => "metamagic_not_applicable",
        }
    }

    /// The detail of the reason in words (empty when the code says it all): the condition,
    /// the slot, the weapon index, what is wrong with the target.
    pub fn detail(&self) -> String {
        match self {
            Reject::InvalidTarget { target, why } => match target {
                Some(t) => format!("combatant {}: {}", t.0, why.describe()),
                None => why.describe().to_string(),
            },
            Reject::WeaponUnavailable { weapon: Some(w) } => format!("weapon {w}"),
            Reject::OutOfAmmunition { weapon } => format!("weapon {weapon}"),
            Reject::DowngradedActionEconomy { slot }
            | Reject::DowngradedDisabled { slot }
            | Reject::DowngradedStaggered { slot }
            | Reject::DowngradedNauseated { slot } => {
                format!("{} action spent", slot.name())
            }
            Reject::DowngradedSurprise { slot } => {
                format!("{} action in the surprise round", slot.name())
            }
            Reject::InvalidReady { why } => why.describe().to_string(),
            Reject::InvalidDelay => {
                "the combatant named does not act later this round (or nobody does)".into()
            }
            Reject::InvalidDirection => {
                "a bull rush pushes straight back from the attacker; other kinds take no direction"
                    .into()
            }
            Reject::CannotAct { condition: Some(c) }
            | Reject::PreventedByCondition { condition: c } => c.name().to_string(),
            Reject::CannotAct { condition: None } => "not conscious".into(),
            Reject::UnknownSpell { spell } => format!("spell {spell}"),
            Reject::NoSlot { level } => format!("spell level {level}"),
            Reject::DowngradedCastTime => "its casting time is 1 minute or more".into(),
            _ => String::new(),
        }
    }
}

impl std::fmt::Display for Reject {
    /// `code`, then the detail in parentheses when there is one.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let detail = self.detail();
        if detail.is_empty() {
            f.write_str(self.code())
        } else {
            write!(f, "{} ({detail})", self.code())
        }
    }
}
