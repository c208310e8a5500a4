//! Sneak attack (CRB — Classes: Rogue, Sneak Attack): how many d6 a combatant has, from its
//! `features` ("sneak attack +Nd6", or "sneak attack" alone: (level + 1) / 2 dice).

use crate::actions::CombatantId;
use crate::episode::Episode;

impl Episode {
    /// Sneak attack dice of `c`: from a `features` entry "sneak attack +Nd6" (N dice), or
    /// "sneak attack" alone: (level + 1) / 2 dice (rogue table — CRB — Classes: Rogue).
    pub fn sneak_attack_dice(&self, c: CombatantId) -> u32 {
        self.spec(c).resolved().sneak_dice
    }
}
