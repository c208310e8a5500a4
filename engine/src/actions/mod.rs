//! Actions, the action budget (CRB — Combat: Actions in Combat), and action results.
use crate::geometry::grid::Cell;
use serde::{Deserialize, Serialize};

mod aid;
mod attack;
mod cast;
mod charge;
pub(crate) mod check;
mod coup_de_grace;
pub(crate) mod defense;
pub mod explain;
mod items;
pub mod legal;
mod maneuver;
mod movement;
mod movement_feats;
pub(crate) mod plan;
mod power_attack;
mod prone;
pub(crate) mod reaction;
pub(crate) mod ready;
pub mod reject;
mod run;
pub mod space;
pub mod structured;
mod toggles;

pub use reject::{ReadyIssue, Reject, TargetIssue};

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
    /// Full-round action: move up to 2× speed; leaving the first square does not provoke. A
    /// standard action up to 1× speed for a combatant limited to a single action (staggered,
    /// disabled — CRB — Combat: Withdraw, Restricted Withdraw; `Episode::slot_of`).
    Withdraw,
    /// Standard action: a combat maneuver (`maneuver` says which) against `target` (CRB —
    /// Combat: Combat Maneuvers; APG for dirty trick, steal, reposition, drag).
    Maneuver,
    /// Move action: stand up from prone; provokes (CRB — Conditions: Prone).
    StandUp,
    /// Free action: drop prone (CRB — Actions in Combat: Free Actions).
    DropProne,
    /// Move action: pick up a dropped weapon (`weapon`) lying in or next to the actor's space;
    /// provokes (CRB — Actions in Combat: Move Actions, "Pick up an item").
    RetrieveWeapon,
    /// Move action: repair a broken weapon (`weapon`) — the seed's action, no SRD equivalent
    /// in combat (see `docs/conformance.md`).
    RepairWeapon,
    /// Free action: toggle Power Attack (CRB — Feats: Power Attack).
    ActivatePowerAttack,
    /// Full-round action: run up to 4× speed (5× with Run) in a straight line to
    /// `destination` (CRB — Actions in Combat: Run).
    Run,
    /// Reaction: take the offered attack of opportunity against the provoker with `weapon`
    /// (`None` = the first weapon offered). Only at an attack-of-opportunity decision (CRB —
    /// Combat: Attacks of Opportunity).
    AttackOfOpportunity,
    /// Reaction: let the opportunity pass (the attack of opportunity is not spent).
    Decline,
    /// Standard action: total defense, +4 dodge AC until the start of the next turn and no
    /// attacks of opportunity meanwhile (CRB — Actions in Combat: Total Defense).
    TotalDefense,
    /// Free declaration before the turn's attack or full attack: fight defensively, −4 on
    /// every attack roll until the start of the next turn, +2 dodge AC from that attack until
    /// then (CRB — Actions in Combat: Fighting Defensively as a Standard / Full-Round Action).
    FightDefensively,
    /// No action now: act later this round — right after `target`'s turn, or at the end of
    /// the round without a target (CRB — Special Initiative Actions: Delay). Only before
    /// anything else of the turn; the new initiative position is kept in later rounds.
    Delay,
    /// Standard action: ready the action `readied` (an attack, a maneuver, a move or a
    /// 5-foot step) to take off-turn when `trigger` happens (CRB — Special Initiative
    /// Actions: Ready). It resolves before the triggering action, and the readier's
    /// initiative moves to just before the triggering creature; unfired, it lapses at the
    /// start of the readier's next turn.
    Ready,
    /// Reaction: take the readied action now (at a readied-trigger decision); `decline`
    /// holds it for a later occurrence.
    FireReadied,
    /// Standard action (Cleave / Great Cleave): a melee attack on `target` with `weapon`; on a
    /// hit, another on a foe adjacent to it and within reach (Great Cleave: on, each foe
    /// adjacent to the previous one); −2 AC until the start of the next turn (CRB — Feats).
    Cleave,
    /// Full-round action (Spring Attack): move up to one's speed to `destination` with one
    /// melee attack on `target` on the way, after at least 10 ft; the target makes no attack
    /// of opportunity for this movement (CRB — Feats: Spring Attack).
    SpringAttack,
    /// Full-round action (Shot on the Run): move up to one's speed to `destination` with one
    /// ranged attack on `target` at any point of the move (CRB — Feats: Shot on the Run).
    ShotOnTheRun,
    /// Free declaration before any attack of the turn (Lunge): +5 ft reach on melee attacks
    /// until the end of the turn, −2 AC until the start of the next (CRB — Feats: Lunge).
    ActivateLunge,
    /// Reaction (Stand Still): a combat maneuver check instead of the offered attack of
    /// opportunity; on success the provoker cannot move for the rest of its turn. Only where
    /// the decision offers it (CRB — Feats: Stand Still).
    StandStill,
    /// Free action: toggle Deadly Aim, −X ranged attack, +2X ranged damage (CRB — Feats:
    /// Deadly Aim).
    ActivateDeadlyAim,
    /// Free action: toggle Combat Expertise; on a turn with a melee attack action, −X melee
    /// attack and CMB, +X dodge AC until the next turn (CRB — Feats: Combat Expertise).
    ActivateCombatExpertise,
    /// Standard action: aid another — an attack roll against AC 10 that gives the `ally`
    /// +2 on its next attack roll against the opponent `target` (`aid_mode` attack, the
    /// default) or +2 AC against that opponent's next attack (`aid_mode` ac), until the start
    /// of the aider's next turn (CRB — Combat: Special Attacks, Aid Another).
    AidAnother,
    /// Full-round action: coup de grace against a helpless `target` with a melee weapon (or a
    /// bow or crossbow when adjacent): automatic critical hit, then a Fortitude save (DC 10 +
    /// damage) or die; provokes (CRB — Combat: Helpless Defenders, Coup de Grace).
    CoupDeGrace,
    /// Move action (a free action after a `move` this turn at BAB +1 or higher, always with
    /// Quick Draw): draw the sheathed `weapon` into hand (CRB — Actions in Combat: Move
    /// Actions, Draw or Sheathe a Weapon; Feats: Quick Draw).
    DrawWeapon,
    /// Move action: sheathe the manufactured `weapon` in hand; provokes (CRB — Actions in
    /// Combat: Table: Actions in Combat, Sheathe a weapon).
    SheatheWeapon,
    /// Cast spell `spell` (an index of the caster's spellbook, `CombatantSpec::spellbook`) at
    /// `target` (a creature, or the caster) or at `target_pos` (an area's grid intersection:
    /// the top-left corner of that square; a cone's or line's direction). Its budget slot is
    /// its casting time's (CRB — Magic: Casting Time): standard, full-round (and 1 round:
    /// the effect comes just before the caster's next turn), swift, immediate (the swift
    /// action), free; longer ones are refused (`downgraded:cast_time`). Provokes unless cast
    /// defensively (`defensively`, or a `cast_defensively` declaration this turn). With a
    /// held touch charge of `spell`, it delivers the charge instead (a touch attack, no slot).
    CastSpell,
    /// Free declaration before a cast this turn: cast defensively — no attack of
    /// opportunity, a concentration check DC 15 + 2 × spell level or the spell is lost (CRB —
    /// Magic: Concentration, Casting Defensively).
    CastDefensively,
    /// Free declaration before a cast this turn: apply the metamagic feat `metamagic[0]`
    /// (one the caster has) to its next cast (CRB — Feats: Metamagic Feats).
    ActivateMetamagic,
}

/// What triggers a readied action (CRB — Special Initiative Actions: Ready, "you can specify
/// the action you will take and the conditions under which you will take it"). `by` limits
/// an enemy trigger to one creature (`None`: any enemy).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub enum ReadyTrigger {
    /// An enemy moves into a square the readier threatens (any of its melee weapons), or
    /// into a square within its readied ranged weapon's first range increment.
    EnemyEntersReach {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<CombatantId>,
    },
    /// An enemy moves into a square within `ft` feet of the readier (5–120, a multiple of 5).
    EnemyWithin {
        ft: u16,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<CombatantId>,
    },
    /// An enemy makes an attack roll against the readier or one of its allies.
    EnemyAttacks {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<CombatantId>,
    },
    /// An ally takes an action of its turn (the "signal"; `by`: that ally only).
    AllyActs {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<CombatantId>,
    },
}

impl ReadyTrigger {
    /// The `snake_case` name of the event.
    pub fn name(self) -> &'static str {
        match self {
            ReadyTrigger::EnemyEntersReach { .. } => "enemy_enters_reach",
            ReadyTrigger::EnemyWithin { .. } => "enemy_within",
            ReadyTrigger::EnemyAttacks { .. } => "enemy_attacks",
            ReadyTrigger::AllyActs { .. } => "ally_acts",
        }
    }

    /// The one creature that may trigger it, if any.
    pub fn by(self) -> Option<CombatantId> {
        match self {
            ReadyTrigger::EnemyEntersReach { by }
            | ReadyTrigger::EnemyWithin { by, .. }
            | ReadyTrigger::EnemyAttacks { by }
            | ReadyTrigger::AllyActs { by } => by,
        }
    }
}

/// Which bonus an aid another gives (CRB — Combat: Aid Another): +2 on the ally's next attack
/// roll against the opponent, or +2 to its AC against the opponent's next attack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AidMode {
    /// +2 on the ally's next attack roll against the opponent (the seed's default).
    Attack,
    /// +2 to the ally's AC against the opponent's next attack.
    Ac,
}

impl AidMode {
    /// Both modes, in action-space order.
    pub const ALL: [AidMode; 2] = [AidMode::Attack, AidMode::Ac];

    /// The seed's name (`attack`, `ac`).
    pub fn name(self) -> &'static str {
        match self {
            AidMode::Attack => "attack",
            AidMode::Ac => "ac",
        }
    }
}

/// A metamagic feat applied to one cast (CRB — Feats: Metamagic Feats): the spell takes a
/// slot `level_increase` levels higher.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metamagic {
    /// Variable numeric effects ×1.5 (+2 levels).
    Empower,
    /// Duration ×2 (+1 level).
    Extend,
    /// The spell's level raised by one, its DC with it (+1 level; a higher heightening is
    /// not offered).
    Heighten,
    /// Variable numeric effects maximized (+3 levels).
    Maximize,
    /// Cast as a swift action, without provoking (+4 levels).
    Quicken,
    /// No verbal component (+1 level; components are not modelled, so no other effect).
    Silent,
    /// No somatic component (+1 level; components are not modelled, so no other effect).
    Still,
}

impl Metamagic {
    /// Every metamagic feat, in action-space order.
    pub const ALL: [Metamagic; 7] = [
        Metamagic::Empower,
        Metamagic::Extend,
        Metamagic::Heighten,
        Metamagic::Maximize,
        Metamagic::Quicken,
        Metamagic::Silent,
        Metamagic::Still,
    ];

    /// The `snake_case` name.
    pub fn name(self) -> &'static str {
        match self {
            Metamagic::Empower => "empower",
            Metamagic::Extend => "extend",
            Metamagic::Heighten => "heighten",
            Metamagic::Maximize => "maximize",
            Metamagic::Quicken => "quicken",
            Metamagic::Silent => "silent",
            Metamagic::Still => "still",
        }
    }

    /// Spell levels added to the slot (CRB — Feats: each metamagic feat).
    pub fn level_increase(self) -> u8 {
        match self {
            Metamagic::Empower => 2,
            Metamagic::Maximize => 3,
            Metamagic::Quicken => 4,
            Metamagic::Extend | Metamagic::Heighten | Metamagic::Silent | Metamagic::Still => 1,
        }
    }

    /// The feat it needs.
    pub fn feat(self) -> crate::content::feats::Feat {
        use crate::content::feats::Feat;
        match self {
            Metamagic::Empower => Feat::EmpowerSpell,
            Metamagic::Extend => Feat::ExtendSpell,
            Metamagic::Heighten => Feat::HeightenSpell,
            Metamagic::Maximize => Feat::MaximizeSpell,
            Metamagic::Quicken => Feat::QuickenSpell,
            Metamagic::Silent => Feat::SilentSpell,
            Metamagic::Still => Feat::StillSpell,
        }
    }
}

/// One of the eight grid directions (the order of
/// [`space::STEP_DIRECTIONS`]: N, NE, E, SE, S, SW, W, NW; north is row −1). The seed's
/// `direction` of a bull rush.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    N,
    Ne,
    E,
    Se,
    S,
    Sw,
    W,
    Nw,
}

impl Direction {
    /// Every direction, in [`space::STEP_DIRECTIONS`] order.
    pub const ALL: [Direction; 8] = [
        Direction::N,
        Direction::Ne,
        Direction::E,
        Direction::Se,
        Direction::S,
        Direction::Sw,
        Direction::W,
        Direction::Nw,
    ];

    /// `(drow, dcol)` of one square in this direction.
    pub fn delta(self) -> (i32, i32) {
        let i = Direction::ALL.iter().position(|d| *d == self).unwrap_or(0);
        space::STEP_DIRECTIONS[i]
    }

    /// The direction of a unit step `(drow, dcol)` (each −1, 0 or 1, not both 0).
    pub fn of_delta(d: (i32, i32)) -> Option<Direction> {
        space::STEP_DIRECTIONS
            .iter()
            .position(|x| *x == d)
            .map(|i| Direction::ALL[i])
    }

    /// The lowercase name (`n`, `ne`…).
    pub fn name(self) -> &'static str {
        match self {
            Direction::N => "n",
            Direction::Ne => "ne",
            Direction::E => "e",
            Direction::Se => "se",
            Direction::S => "s",
            Direction::Sw => "sw",
            Direction::W => "w",
            Direction::Nw => "nw",
        }
    }
}

/// The combat maneuvers (CRB — Combat: Combat Maneuvers; APG — Combat: dirty trick, drag,
/// reposition, steal). Dirty trick is one type per condition it imposes; `pin` is the grapple
/// maintain check whose option is to pin (`grapple` against the creature one already grapples
/// is the maintain check with the damage option).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Maneuver {
    Trip,
    Disarm,
    BullRush,
    Sunder,
    Grapple,
    Pin,
    Escape,
    Overrun,
    DirtyTrickBlinded,
    DirtyTrickDazzled,
    DirtyTrickDeafened,
    DirtyTrickEntangled,
    DirtyTrickShaken,
    DirtyTrickSickened,
    Steal,
    Reposition,
    Drag,
}

impl Maneuver {
    /// Every maneuver, in action-space order (never reorder: ids depend on it).
    pub const ALL: [Maneuver; 17] = [
        Maneuver::Trip,
        Maneuver::Disarm,
        Maneuver::BullRush,
        Maneuver::Sunder,
        Maneuver::Grapple,
        Maneuver::Pin,
        Maneuver::Escape,
        Maneuver::Overrun,
        Maneuver::DirtyTrickBlinded,
        Maneuver::DirtyTrickDazzled,
        Maneuver::DirtyTrickDeafened,
        Maneuver::DirtyTrickEntangled,
        Maneuver::DirtyTrickShaken,
        Maneuver::DirtyTrickSickened,
        Maneuver::Steal,
        Maneuver::Reposition,
        Maneuver::Drag,
    ];

    /// The `snake_case` name.
    pub fn name(self) -> &'static str {
        match self {
            Maneuver::Trip => "trip",
            Maneuver::Disarm => "disarm",
            Maneuver::BullRush => "bull_rush",
            Maneuver::Sunder => "sunder",
            Maneuver::Grapple => "grapple",
            Maneuver::Pin => "pin",
            Maneuver::Escape => "escape",
            Maneuver::Overrun => "overrun",
            Maneuver::DirtyTrickBlinded => "dirty_trick_blinded",
            Maneuver::DirtyTrickDazzled => "dirty_trick_dazzled",
            Maneuver::DirtyTrickDeafened => "dirty_trick_deafened",
            Maneuver::DirtyTrickEntangled => "dirty_trick_entangled",
            Maneuver::DirtyTrickShaken => "dirty_trick_shaken",
            Maneuver::DirtyTrickSickened => "dirty_trick_sickened",
            Maneuver::Steal => "steal",
            Maneuver::Reposition => "reposition",
            Maneuver::Drag => "drag",
        }
    }

    /// The maneuver of a name (`snake_case`; spaces and dashes accepted).
    pub fn from_name(name: &str) -> Option<Maneuver> {
        let n = name.trim().to_lowercase().replace([' ', '-'], "_");
        Maneuver::ALL.into_iter().find(|m| m.name() == n)
    }

    /// The feat that removes the attack of opportunity (`Improved Trip`…); `None` for escape
    /// (never provokes).
    pub fn improved_feat(self) -> Option<crate::content::feats::Feat> {
        use crate::content::feats::Feat;
        Some(match self {
            Maneuver::Trip => Feat::ImprovedTrip,
            Maneuver::Disarm => Feat::ImprovedDisarm,
            Maneuver::BullRush => Feat::ImprovedBullRush,
            Maneuver::Sunder => Feat::ImprovedSunder,
            Maneuver::Grapple | Maneuver::Pin => Feat::ImprovedGrapple,
            Maneuver::Escape => return None,
            Maneuver::Overrun => Feat::ImprovedOverrun,
            Maneuver::Steal => Feat::ImprovedSteal,
            Maneuver::Reposition => Feat::ImprovedReposition,
            Maneuver::Drag => Feat::ImprovedDrag,
            _ => Feat::ImprovedDirtyTrick,
        })
    }

    /// The family name used for per-maneuver CMB/CMD overrides (`dirty_trick` for every
    /// dirty trick, `grapple` for pin).
    pub fn family(self) -> &'static str {
        match self {
            Maneuver::Pin => "grapple",
            Maneuver::DirtyTrickBlinded
            | Maneuver::DirtyTrickDazzled
            | Maneuver::DirtyTrickDeafened
            | Maneuver::DirtyTrickEntangled
            | Maneuver::DirtyTrickShaken
            | Maneuver::DirtyTrickSickened => "dirty_trick",
            m => m.name(),
        }
    }

    /// The condition a dirty trick imposes.
    pub fn dirty_trick_condition(self) -> Option<crate::effects::conditions::Condition> {
        use crate::effects::conditions::Condition;
        Some(match self {
            Maneuver::DirtyTrickBlinded => Condition::Blinded,
            Maneuver::DirtyTrickDazzled => Condition::Dazzled,
            Maneuver::DirtyTrickDeafened => Condition::Deafened,
            Maneuver::DirtyTrickEntangled => Condition::Entangled,
            Maneuver::DirtyTrickShaken => Condition::Shaken,
            Maneuver::DirtyTrickSickened => Condition::Sickened,
            _ => return None,
        })
    }

    /// Maneuvers limited to targets at most one size category larger (CRB — Bull Rush,
    /// Overrun, Trip; APG — Drag, Reposition).
    pub fn size_limited(self) -> bool {
        matches!(
            self,
            Maneuver::Trip
                | Maneuver::BullRush
                | Maneuver::Overrun
                | Maneuver::Reposition
                | Maneuver::Drag
        )
    }
}

/// Maneuver family names accepted in `cmb_vs` / `cmd_vs` of the combatant JSON.
pub const MANEUVER_FAMILIES: [&str; 11] = [
    "trip",
    "disarm",
    "bull_rush",
    "sunder",
    "grapple",
    "escape",
    "overrun",
    "dirty_trick",
    "steal",
    "reposition",
    "drag",
];

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
    /// Which combat maneuver (`maneuver` actions only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maneuver: Option<Maneuver>,
    /// `ready` only: the action readied (`attack`, `maneuver`, `move` or `5foot_step`; an
    /// attack or maneuver without a target is aimed at the triggering creature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readied: Option<Box<Action>>,
    /// `ready` only: what triggers the readied action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<ReadyTrigger>,
    /// `aid_another` only: which bonus (`None` = attack, the seed's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aid_mode: Option<AidMode>,
    /// `aid_another` only: the friend aided (`target` is the opponent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ally: Option<CombatantId>,
    /// `maneuver` bull rush only: the direction the target is pushed (`None` = straight away
    /// from the attacker; see `rules::maneuvers::bull_rush_directions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    /// `cast_spell` only: the index of the spell in the caster's spellbook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spell: Option<usize>,
    /// `cast_spell` only: the square whose top-left corner is an area's point of origin (a
    /// burst, spread, cylinder), or toward which a cone or line is aimed (the seed's
    /// `target_pos`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_pos: Option<Cell>,
    /// `cast_spell` only: cast defensively (CRB — Magic: Concentration).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub defensively: bool,
    /// `cast_spell`: metamagic feats applied to this cast; `activate_metamagic`: the one
    /// declared (CRB — Feats: Metamagic Feats).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metamagic: Vec<Metamagic>,
}

impl Action {
    /// An action of `kind` with no parameters.
    pub fn new(kind: ActionKind) -> Self {
        Action {
            kind,
            target: None,
            destination: None,
            weapon: None,
            maneuver: None,
            readied: None,
            trigger: None,
            aid_mode: None,
            ally: None,
            direction: None,
            spell: None,
            target_pos: None,
            defensively: false,
            metamagic: Vec::new(),
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

impl Slot {
    /// The `snake_case` name (`full_round`).
    pub fn name(self) -> &'static str {
        match self {
            Slot::Standard => "standard",
            Slot::Move => "move",
            Slot::Swift => "swift",
            Slot::FullRound => "full_round",
            Slot::Free => "free",
        }
    }
}

impl ActionKind {
    /// Every kind, in declaration order (the order of the action space's blocks).
    pub const ALL: [ActionKind; 35] = [
        ActionKind::EndTurn,
        ActionKind::Attack,
        ActionKind::FullAttack,
        ActionKind::Charge,
        ActionKind::Move,
        ActionKind::FiveFootStep,
        ActionKind::Withdraw,
        ActionKind::Maneuver,
        ActionKind::StandUp,
        ActionKind::DropProne,
        ActionKind::RetrieveWeapon,
        ActionKind::RepairWeapon,
        ActionKind::ActivatePowerAttack,
        ActionKind::Run,
        ActionKind::AttackOfOpportunity,
        ActionKind::Decline,
        ActionKind::TotalDefense,
        ActionKind::FightDefensively,
        ActionKind::Delay,
        ActionKind::Ready,
        ActionKind::FireReadied,
        ActionKind::Cleave,
        ActionKind::SpringAttack,
        ActionKind::ShotOnTheRun,
        ActionKind::ActivateLunge,
        ActionKind::StandStill,
        ActionKind::ActivateDeadlyAim,
        ActionKind::ActivateCombatExpertise,
        ActionKind::AidAnother,
        ActionKind::CoupDeGrace,
        ActionKind::DrawWeapon,
        ActionKind::SheatheWeapon,
        ActionKind::CastSpell,
        ActionKind::CastDefensively,
        ActionKind::ActivateMetamagic,
    ];

    /// Whether this kind answers a reaction decision (not a turn action).
    pub fn is_reaction(self) -> bool {
        matches!(
            self,
            ActionKind::AttackOfOpportunity
                | ActionKind::Decline
                | ActionKind::FireReadied
                | ActionKind::StandStill
        )
    }
    /// The budget slot of this kind for a combatant free to act (a staggered or disabled
    /// one's withdraw is a standard action: the engine reads the actor's slot, from
    /// `Episode::slot_of`).
    pub fn slot(self) -> Slot {
        match self {
            ActionKind::Attack
            | ActionKind::Maneuver
            | ActionKind::TotalDefense
            | ActionKind::Ready
            | ActionKind::Cleave => Slot::Standard,
            ActionKind::AidAnother => Slot::Standard,
            // A draw may be free instead (`Episode::slot_of`).
            ActionKind::Move
            | ActionKind::StandUp
            | ActionKind::RetrieveWeapon
            | ActionKind::RepairWeapon
            | ActionKind::DrawWeapon
            | ActionKind::SheatheWeapon => Slot::Move,
            ActionKind::FullAttack
            | ActionKind::Charge
            | ActionKind::Withdraw
            | ActionKind::Run
            | ActionKind::SpringAttack
            | ActionKind::ShotOnTheRun => Slot::FullRound,
            ActionKind::CoupDeGrace => Slot::FullRound,
            // Its casting time's slot (`Episode::slot_of`); standard by default.
            ActionKind::CastSpell => Slot::Standard,
            ActionKind::CastDefensively | ActionKind::ActivateMetamagic => Slot::Free,
            ActionKind::FiveFootStep
            | ActionKind::EndTurn
            | ActionKind::DropProne
            | ActionKind::ActivatePowerAttack
            | ActionKind::FightDefensively
            | ActionKind::Delay
            | ActionKind::ActivateLunge => Slot::Free,
            ActionKind::ActivateDeadlyAim | ActionKind::ActivateCombatExpertise => Slot::Free,
            // Answers to a reaction decision: outside the turn budget.
            ActionKind::AttackOfOpportunity
            | ActionKind::Decline
            | ActionKind::FireReadied
            | ActionKind::StandStill => Slot::Free,
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
            ActionKind::Maneuver => "maneuver",
            ActionKind::StandUp => "stand_up",
            ActionKind::DropProne => "drop_prone",
            ActionKind::RetrieveWeapon => "retrieve_weapon",
            ActionKind::RepairWeapon => "repair_weapon",
            ActionKind::ActivatePowerAttack => "activate_power_attack",
            ActionKind::Run => "run",
            ActionKind::AttackOfOpportunity => "attack_of_opportunity",
            ActionKind::Decline => "decline",
            ActionKind::TotalDefense => "total_defense",
            ActionKind::FightDefensively => "fight_defensively",
            ActionKind::Delay => "delay",
            ActionKind::Ready => "ready",
            ActionKind::FireReadied => "fire_readied",
            ActionKind::Cleave => "cleave",
            ActionKind::SpringAttack => "spring_attack",
            ActionKind::ShotOnTheRun => "shot_on_the_run",
            ActionKind::ActivateLunge => "activate_lunge",
            ActionKind::StandStill => "stand_still",
            ActionKind::ActivateDeadlyAim => "activate_deadly_aim",
            ActionKind::ActivateCombatExpertise => "activate_combat_expertise",
            ActionKind::AidAnother => "aid_another",
            ActionKind::CoupDeGrace => "coup_de_grace",
            ActionKind::DrawWeapon => "draw_weapon",
            ActionKind::SheatheWeapon => "sheathe_weapon",
            ActionKind::CastSpell => "cast_spell",
            ActionKind::CastDefensively => "cast_defensively",
            ActionKind::ActivateMetamagic => "activate_metamagic",
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
    /// A 5-foot step is still possible: no other movement this turn, not nauseated, a current
    /// speed above 5 ft (CRB — Combat: Take 5-Foot Step). Other conditions that forbid it
    /// (prone, cannot move) are not reflected: see the action mask.
    pub five_foot_step: bool,
}

/// The outcome of one submitted action (seed: `ActionResult(kind, ok, reason)`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionResult {
    pub kind: ActionKind,
    pub ok: bool,
    /// Why it was refused (`None` when accepted): its [`Reject::code`] is the seed's reason.
    pub reason: Option<Reject>,
    /// An accepted action's reason, where the seed gives one (`delayed`, `ready`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<Note>,
}

/// The reason of an accepted action (the seed's `ok=True, reason=…`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Note {
    /// `delay` accepted: the turn resumes later this round.
    Delayed,
    /// `ready` accepted: the action waits for its trigger.
    Ready,
}

impl Note {
    /// The note of an accepted action of `kind`, if its kind has one.
    pub fn of(kind: ActionKind) -> Option<Note> {
        match kind {
            ActionKind::Delay => Some(Note::Delayed),
            ActionKind::Ready => Some(Note::Ready),
            _ => None,
        }
    }

    /// The seed's reason code.
    pub fn code(self) -> &'static str {
        match self {
            Note::Delayed => "delayed",
            Note::Ready => "ready",
        }
    }
}

impl ActionResult {
    /// An accepted action of `kind`.
    pub fn accepted(kind: ActionKind) -> ActionResult {
        ActionResult {
            kind,
            ok: true,
            reason: None,
            note: Note::of(kind),
        }
    }

    /// A refused action of `kind`.
    pub fn refused(kind: ActionKind, reason: Reject) -> ActionResult {
        ActionResult {
            kind,
            ok: false,
            reason: Some(reason),
            note: None,
        }
    }

    /// The seed's reason code: the refusal's, or an accepted action's note (`None` when
    /// plainly accepted).
    pub fn code(&self) -> Option<&'static str> {
        self.reason
            .as_ref()
            .map(Reject::code)
            .or(self.note.map(Note::code))
    }
}
