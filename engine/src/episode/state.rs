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
    /// The readied action waiting for its trigger (CRB — Special Initiative Actions: Ready;
    /// the seed's `readied`), until it fires or the readier's next turn starts. Boxed: most
    /// combatants have none most of the time, and an action is large (the same JSON as
    /// unboxed: serde serializes a box as its value).
    #[serde(default)]
    pub readied: Option<Box<Readied>>,
    /// The round of its last delay (a second delay in that round is `already_delayed`).
    #[serde(default)]
    pub delayed_round: Option<u32>,
    /// Its turn was delayed and comes back later this round: no start-of-turn effects then
    /// (they happened when it delayed).
    #[serde(default)]
    pub resume_delayed: bool,
    /// A readied action fired in this round put it ahead of the trigger, past its own place:
    /// it does not act again this round.
    #[serde(default)]
    pub acted_round: Option<u32>,
    /// An immediate action was used off-turn: it counts as the swift action of its next turn
    /// (CRB — Actions in Combat: Immediate Actions; the seed's `immediate_used`).
    #[serde(default)]
    pub immediate_used: bool,
    /// It took a Step Up step: no 5-foot step and 5 ft less movement on its next turn (CRB —
    /// Feats: Step Up).
    #[serde(default)]
    pub stepped_up: bool,
    /// Used Cleave or Great Cleave this turn: −2 AC until the start of its next turn (CRB —
    /// Feats: Cleave; the observation's `cleave_ac_penalty`).
    #[serde(default)]
    pub cleaving: bool,
    /// Declared Lunge: +5 ft reach on its melee attacks until the end of its turn, −2 AC until
    /// the start of its next turn (CRB — Feats: Lunge; the observation's `lunge`).
    #[serde(default)]
    pub lunge: bool,
    /// Stopped by a foe's Stand Still: it cannot move for the rest of its turn (CRB — Feats:
    /// Stand Still; the observation's `stood_still`).
    #[serde(default)]
    pub stood_still: bool,
    /// Deadly Aim is on (CRB — Feats: Deadly Aim), toggled by `activate_deadly_aim`.
    #[serde(default)]
    pub deadly_aim: bool,
    /// Combat Expertise is on (CRB — Feats: Combat Expertise), toggled by
    /// `activate_combat_expertise`; it takes effect with a melee attack action.
    #[serde(default)]
    pub combat_expertise: bool,
    /// Combat Expertise in effect: X of its −X melee attack / CMB and +X dodge AC, from a
    /// melee attack action until the start of its next turn (0: not in effect).
    #[serde(default)]
    pub combat_expertise_ac: i32,
    /// The aid another bonuses this combatant holds, +2 each, stacking (CRB — Combat: Aid
    /// Another): spent by the attack they apply to, gone at the start of the aider's next
    /// turn.
    #[serde(default)]
    pub aid: Vec<AidBonus>,
    /// Spell slots left by spell level (index 0 unused: cantrips are unlimited — CRB —
    /// Magic: Spell Slots; the seed's `spell_slots_left`); empty for a combatant without
    /// slots.
    #[serde(default)]
    pub slots_left: Vec<u32>,
    /// Uses left per spellbook entry with counted uses (prepared copies, a spell-like
    /// ability's uses per day); `None` for the others.
    #[serde(default)]
    pub spell_uses: Vec<Option<u32>>,
    /// Declared `cast_defensively` this turn: its next cast is defensive.
    #[serde(default)]
    pub cast_defensively: bool,
    /// Metamagic declared (`activate_metamagic`) this turn for its next cast.
    #[serde(default)]
    pub metamagic_next: crate::rules::magic::MetamagicSet,
    /// A 1-round casting in progress (CRB — Magic: Casting Time), resolved just before its
    /// next turn.
    #[serde(default)]
    pub pending_cast: Option<crate::rules::magic::PendingCast>,
    /// A touch spell's charge held after a miss (CRB — Magic: Holding the Charge).
    #[serde(default)]
    pub held_charge: Option<crate::rules::magic::HeldCharge>,
    /// Spell effects with a duration on this combatant: buffs and debuffs.
    #[serde(default)]
    pub spell_effects: Vec<crate::rules::magic::ActiveSpell>,
    /// While it bleeds (the `bleeding` condition): the hit points it loses at the start of
    /// each of its turns, dice notation rolled each turn; `None` = 1 (the seed's
    /// `bleed_damage`; CRB — Appendix: Conditions, Bleed). Cleared when the bleeding stops.
    #[serde(default)]
    pub bleed_damage: Option<String>,
    /// Recurring spell damage (acid arrow), dealt at the start of its turns.
    #[serde(default)]
    pub recurring: Vec<crate::rules::magic::RecurringDamage>,
    /// Mirror images left (CRB — Spells: Mirror Image).
    #[serde(default)]
    pub mirror_images: u32,
    /// A reserved summon slot not summoned (or gone again): not on the map, no turn; its
    /// life state reads `dead` (Placed::summoned_by).
    #[serde(default)]
    pub absent: bool,
    /// A summoned creature's turns left before it vanishes (CRB — Spells: Summon Monster:
    /// 1 round per level).
    #[serde(default)]
    pub summon_rounds: u32,
    /// The persistent areas of its spells on the map (web, fog cloud…).
    #[serde(default)]
    pub zones: Vec<crate::rules::magic::Zone>,
}

/// A readied action (see [`crate::actions::ActionKind::Ready`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Readied {
    /// What it does when it fires (`attack`, `maneuver`, `move`, `5foot_step`).
    pub action: crate::actions::Action,
    pub trigger: crate::actions::ReadyTrigger,
    /// The round it was readied in.
    pub round: u32,
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
    /// The swift action of this turn is spent (by a swift action, an immediate action on its
    /// own turn, or an immediate action since its last turn — CRB — Immediate Actions).
    #[serde(default)]
    pub swift_used: bool,
    /// Step Up was taken since its last turn: no 5-foot step, 5 ft less speed this turn.
    #[serde(default)]
    pub stepped_up: bool,
    /// The actor delayed: the turn ends now and comes back later this round.
    #[serde(default)]
    pub delayed: bool,
    /// Where the delayed turn comes back: after this combatant (`None`: the round's end).
    #[serde(default)]
    pub delay_after: Option<crate::actions::CombatantId>,
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
