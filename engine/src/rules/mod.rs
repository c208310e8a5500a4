//! The rules, one module per SRD area. Each module's header gives its rule, its SRD source
//! and any deviation. What an action kind checks and does is in `crate::actions`; what can
//! wait on a decision is sequenced by `crate::episode::frames`.
//!
//! | module | rule |
//! |---|---|
//! | `attack_feats` | Deadly Aim, Combat Expertise |
//! | `attack_list` | the attacks of a full attack (iteratives, natural, two-weapon, Rapid Shot, Manyshot) |
//! | `attack_roll` | the attack roll, its modifiers, AC, criticals |
//! | `damage` | damage, DR, energy resistance and immunity |
//! | `weapons` | which weapon can attack from where |
//! | `reach` | reach and threatened squares |
//! | `ranged` | range increments, shooting into melee |
//! | `cover` | terrain and soft cover |
//! | `flanking` | flanking |
//! | `aoo` | who may make attacks of opportunity |
//! | `movement` | passing and stopping, movement fields, paths |
//! | `charge` | the charge line |
//! | `concealment` | concealment miss chances |
//! | `conditions` | conditions on combatants at run time |
//! | `confusion` | the confused d% |
//! | `maneuvers` | combat maneuvers: CMB/CMD, the checks and their effects |
//! | `grapple` | the grapple link |
//! | `items` | dropped, broken, destroyed items; retrieve, repair |
//! | `power_attack` | Power Attack |
//! | `run` | run |
//! | `life` | injury and death |
//! | `saves` | saving throws |
//! | `sneak_attack` | sneak attack dice |
//! | `aid` | aid another |
//! | `coup_de_grace` | coup de grace, helpless defenders |

use crate::actions::CombatantId;
use crate::episode::{Episode, LifeState};
use crate::geometry::grid::{self, Cell, SQUARE_FT};

pub(crate) mod aid;
pub(crate) mod aoo;
pub(crate) mod attack_feats;
pub(crate) mod attack_list;
pub(crate) mod attack_roll;
pub(crate) mod charge;
pub(crate) mod concealment;
pub(crate) mod conditions;
pub(crate) mod confusion;
pub(crate) mod coup_de_grace;
pub(crate) mod cover;
pub(crate) mod damage;
pub(crate) mod feats_movement;
pub(crate) mod flanking;
pub(crate) mod grapple;
pub(crate) mod items;
pub(crate) mod life;
pub mod magic;
pub(crate) mod maneuvers;
pub(crate) mod movement;
pub(crate) mod power_attack;
pub(crate) mod ranged;
pub(crate) mod reach;
pub(crate) mod ready;
pub(crate) mod run;
pub mod saves;
pub(crate) mod sneak_attack;
pub(crate) mod weapons;

// ----- basic look-ups ------------------------------------------------------------------------

#[inline]
pub(crate) fn idx(c: CombatantId) -> usize {
    c.0 as usize
}

impl Episode {
    #[inline]
    pub(crate) fn n(&self) -> usize {
        self.st.len()
    }
    #[inline]
    pub(crate) fn ids(&self) -> impl Iterator<Item = CombatantId> {
        (0..self.st.len() as u16).map(CombatantId)
    }
    #[inline]
    pub(crate) fn spec(&self, c: CombatantId) -> &crate::content::combatant::CombatantSpec {
        &self.enc.combatants[idx(c)].spec
    }
    /// The combatant's spec, shared (cheap to clone, unlike the spec itself).
    pub(crate) fn spec_arc(
        &self,
        c: CombatantId,
    ) -> std::sync::Arc<crate::content::combatant::CombatantSpec> {
        std::sync::Arc::clone(&self.enc.combatants[idx(c)].spec)
    }
    #[inline]
    pub(crate) fn side_of(&self, c: CombatantId) -> &str {
        &self.enc.combatants[idx(c)].side
    }
    #[inline]
    pub(crate) fn enemies(&self, a: CombatantId, b: CombatantId) -> bool {
        self.side_of(a) != self.side_of(b)
    }
    #[inline]
    pub(crate) fn conscious(&self, c: CombatantId) -> bool {
        self.st[idx(c)].life.is_conscious()
    }
    #[inline]
    pub(crate) fn fp_side(&self, c: CombatantId) -> i32 {
        self.spec(c).size.footprint_side()
    }
    #[inline]
    pub(crate) fn natural_reach_ft(&self, c: CombatantId) -> i32 {
        self.spec(c).size.natural_reach_ft()
    }
    pub(crate) fn cells_of(&self, c: CombatantId) -> Vec<Cell> {
        grid::footprint(self.st[idx(c)].pos, self.fp_side(c))
    }
    /// [`Self::cells_of`] without allocating.
    #[inline]
    pub(crate) fn cells_iter(&self, c: CombatantId) -> impl Iterator<Item = Cell> {
        grid::footprint_iter(self.st[idx(c)].pos, self.fp_side(c))
    }
    /// Movement budget in feet (best of land and fly speed; half when disabled). Haste adds
    /// its enhancement bonus to each mode first ([`haste_speed_ft`]).
    pub(crate) fn speed_ft(&self, c: CombatantId) -> i32 {
        let s = self.spec(c);
        let hasted = crate::rules::magic::hasted(self, c);
        let mode = |ft: i32| if hasted { haste_speed_ft(ft) } else { ft };
        let best = mode(s.speed_land_ft).max(mode(s.speed_fly_ft.unwrap_or(0)));
        // Half speed from conditions (entangled, exhausted, blinded), in whole squares.
        let best = if self.speed_halves(c) < 2 {
            (best / 2) / SQUARE_FT * SQUARE_FT
        } else {
            best
        };
        let best = if self.st[idx(c)].life == LifeState::Disabled {
            (best / 2) / SQUARE_FT * SQUARE_FT
        } else {
            best
        };
        // Step Up since its last turn: "subtract 5 feet from your total movement" (CRB —
        // Feats: Step Up).
        if self.turn.stepped_up && self.is_turn_of(c) {
            (best - SQUARE_FT).max(0)
        } else {
            best
        }
    }
}

/// A movement mode's speed in feet under haste (CRB — Spells: Haste: every mode of movement
/// "increase[s] by 30 feet, to a maximum of twice the subject's normal speed using that
/// form of movement"; an enhancement bonus, so two hastes do not stack — one spell effect
/// per spell here). A mode the creature lacks (0 ft) stays 0.
pub(crate) fn haste_speed_ft(normal_ft: i32) -> i32 {
    normal_ft + 30.min(normal_ft.max(0))
}
