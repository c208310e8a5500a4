//! Concealment (CRB — Combat: Concealment): the miss chance of a target against an attacker
//! (the best of its conditions — concealments do not stack — and 50 % total concealment
//! against a blinded attacker), rolled as d100 after a hit.

use crate::actions::CombatantId;
use crate::effects::conditions::Condition;
use crate::episode::Episode;

impl Episode {
    /// Concealment miss chance of `t` against attacker `a`: the best of `t`'s conditions
    /// (concealments do not stack — CRB — Combat: Concealment), and 50 when `a` is blinded.
    /// Test-only (feature `testing`): [`Episode::miss_chance`].
    #[cfg(feature = "testing")]
    pub fn miss_chance_for_tests(&self, a: CombatantId, t: CombatantId) -> u32 {
        self.miss_chance(a, t)
    }

    pub(crate) fn miss_chance(&self, a: CombatantId, t: CombatantId) -> u32 {
        let own = self.cond_defs(t).map(|d| d.miss_chance).max().unwrap_or(0);
        // Fog and darkness areas (`rules::magic::Zone`).
        let own = own.max(crate::rules::magic::zone_miss_chance(self, a, t));
        if self.has_condition(a, Condition::Blinded) {
            own.max(50)
        } else {
            own
        }
    }
}

/// A concealment roll: the d100 and the miss chance it was rolled against, in percent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ConcealmentRoll {
    pub roll: u32,
    pub chance: u32,
    /// The roll is within the miss chance: the attack misses.
    pub missed: bool,
}

impl std::fmt::Display for ConcealmentRoll {
    /// `concealment d100=37 <= 50%` (missed) or `concealment d100=73 > 20%`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cmp = if self.missed { "<=" } else { ">" };
        write!(f, "concealment d100={} {cmp} {}%", self.roll, self.chance)
    }
}

/// The concealment roll of an attack (or combat maneuver) of `a` against `t` that would hit,
/// the one place it is rolled (CRB — Combat: Concealment: rolled after the hit; a d100 within
/// the miss chance misses); `None` without concealment (no die rolled).
pub(crate) fn roll_concealment(
    ep: &mut Episode,
    a: CombatantId,
    t: CombatantId,
) -> Option<ConcealmentRoll> {
    let chance = ep.miss_chance(a, t);
    if chance == 0 {
        return None;
    }
    let roll = ep.roll(100);
    Some(ConcealmentRoll {
        roll,
        chance,
        missed: roll <= chance,
    })
}
