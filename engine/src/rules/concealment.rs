//! Concealment (CRB — Combat: Concealment): the miss chance of a target against an attacker
//! (the best of its conditions — concealments do not stack — and 50 % total concealment
//! against a blinded attacker), rolled as d100 after a hit.

use crate::actions::CombatantId;
use crate::effects::conditions::Condition;
use crate::episode::Episode;

impl Episode {
    /// Concealment miss chance of `t` against attacker `a`: the best of `t`'s conditions
    /// (concealments do not stack — CRB — Combat: Concealment), and 50 when `a` is blinded.
    pub(crate) fn miss_chance(&self, a: CombatantId, t: CombatantId) -> u32 {
        let own = self.cond_defs(t).map(|d| d.miss_chance).max().unwrap_or(0);
        if self.has_condition(a, Condition::Blinded) {
            own.max(50)
        } else {
            own
        }
    }
}
