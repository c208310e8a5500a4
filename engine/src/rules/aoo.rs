//! Attacks of opportunity (CRB — Combat: Attacks of Opportunity; Feats: Combat Reflexes;
//! Combat: Flat-Footed): who may make one and how many per round. The window that asks each
//! threatener is a frame (`episode::frames`).

use crate::actions::CombatantId;
use crate::content::feats::Feat;
use crate::effects::conditions::Condition;
use crate::episode::frames::AooWindow;
use crate::episode::Episode;
use crate::rules;
use crate::rules::idx;
use serde::{Deserialize, Serialize};

impl Episode {
    /// Attacks of opportunity per round: 1, or 1 + Dex modifier with Combat Reflexes
    /// (CRB — Feats: Combat Reflexes).
    pub(crate) fn aoo_allowance(&self, c: CombatantId) -> u32 {
        let s = self.spec(c);
        if s.has_feat(Feat::CombatReflexes) {
            (1 + s.abilities.dex_mod()).max(1) as u32
        } else {
            1
        }
    }

    pub(crate) fn aoo_remaining(&self, c: CombatantId) -> u32 {
        self.aoo_allowance(c)
            .saturating_sub(self.st[idx(c)].aoo_used)
    }
}

/// A flat-footed creature makes no attacks of opportunity, unless it has Combat Reflexes
/// (CRB — Combat: Flat-Footed; Feats: Combat Reflexes); grappled, pinned and confused
/// creatures make none, nor does one that threatens nothing
/// ([`rules::reach::can_threaten`]: unconscious, unable to act, or unable to attack —
/// nauseated, panicked, pinned; CRB — Combat: Threatened Squares).
pub(crate) fn can_make_aoo(ep: &Episode, x: CombatantId) -> bool {
    // Total defense: no attacks of opportunity (CRB — Actions in Combat: Total Defense).
    if ep.st[x.0 as usize].total_defense
        || !rules::reach::can_threaten(ep, x)
        || ep
            .conditions(x)
            .iter()
            .any(|a| a.condition != Condition::FlatFooted && a.condition.def().no_aoo)
    {
        return false;
    }
    !ep.has_condition(x, Condition::FlatFooted) || ep.spec(x).has_feat(Feat::CombatReflexes)
}

impl Episode {
    /// The melee weapons (list order) with which `x` may take an attack of opportunity on
    /// `provoker` standing at `pos` now, or empty if it may not (CRB — Combat: Attacks of
    /// Opportunity): `x` is a conscious enemy able to make one (see [`rules::aoo::can_make_aoo`]),
    /// with AoOs left this round (and, for leaving squares, this mover's opportunity not yet
    /// taken nor declined this round), threatening `pos`, and `provoker` has neither cover nor total
    /// concealment against it.
    pub(crate) fn aoo_weapons(&self, w: &AooWindow, x: CombatantId) -> Vec<usize> {
        let p = w.provoker;
        if w.only.is_some_and(|o| o != x)
            || w.except == Some(x)
            || x == p
            || !self.enemies(x, p)
            || !self.conscious(x)
            || !rules::aoo::can_make_aoo(self, x)
        {
            return Vec::new();
        }
        let once_used = w.why == Provocation::Leaving && self.move_aoo_provoked.contains(&(x, p));
        if once_used || self.aoo_remaining(x) == 0 {
            return Vec::new();
        }
        let weapons = rules::reach::threatening_weapons(self, x, p, w.pos);
        if weapons.is_empty() {
            return weapons;
        }
        let xpos = self.st[idx(x)].pos;
        if rules::cover::cover_bonus(self, x, xpos, p, false) > 0 {
            return Vec::new();
        }
        // No AoO against a creature with total concealment (CRB — Combat: Concealment).
        if self.miss_chance(x, p) >= 50 {
            return Vec::new();
        }
        weapons
    }
}

/// What provokes an attack of opportunity (CRB — Combat: Attacks of Opportunity).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Provocation {
    /// Leaving a threatened square: once per enemy per round for this mover ("moving out of
    /// more than one square threatened by the same opponent in the same round doesn't count
    /// as more than one opportunity"). A declined opportunity is spent as a taken one: the
    /// same opponent is not asked again about this mover's movement that round (other
    /// provocations are new opportunities).
    Leaving,
    /// A ranged attack from a threatened square: each one provokes.
    RangedAttack,
    /// Standing up from prone (CRB — Conditions: Prone): a separate opportunity.
    StandUp,
    /// A combat maneuver: only its target may respond (CRB — Combat Maneuvers).
    Maneuver,
    /// Picking up an item (CRB — Actions in Combat: Move Actions).
    PickUp,
    /// Entering an opponent's square (CRB — Combat: Moving Through a Square).
    Entering,
    /// Sheathing a weapon (CRB — Table: Actions in Combat).
    Sheathe,
    /// Delivering a coup de grace (CRB — Combat: Coup de Grace).
    CoupDeGrace,
    /// Casting a spell (CRB — Magic: Casting Spells; Combat: Attacks of Opportunity):
    /// unless cast defensively.
    CastSpell,
}

impl Provocation {
    /// The `snake_case` name.
    pub fn name(self) -> &'static str {
        match self {
            Provocation::Leaving => "leaving",
            Provocation::RangedAttack => "ranged_attack",
            Provocation::StandUp => "stand_up",
            Provocation::Maneuver => "maneuver",
            Provocation::PickUp => "pick_up",
            Provocation::Entering => "entering",
            Provocation::Sheathe => "sheathe",
            Provocation::CoupDeGrace => "coup_de_grace",
            Provocation::CastSpell => "cast_spell",
        }
    }

    /// What the provoker does, for the transcript.
    pub fn describe(self) -> &'static str {
        match self {
            Provocation::Leaving => "leaves a threatened square",
            Provocation::RangedAttack => "makes a ranged attack while threatened",
            Provocation::StandUp => "stands up",
            Provocation::Maneuver => "attempts a combat maneuver",
            Provocation::PickUp => "picks up an item",
            Provocation::Entering => "enters its square",
            Provocation::Sheathe => "sheathes a weapon",
            Provocation::CoupDeGrace => "delivers a coup de grace",
            Provocation::CastSpell => "casts a spell",
        }
    }
}
