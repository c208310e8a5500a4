//! Sneak attack (CRB — Classes: Rogue, Sneak Attack): how many d6 a combatant has, from its
//! `features` ("sneak attack +Nd6", or "sneak attack" alone: (level + 1) / 2 dice).

use crate::actions::CombatantId;
use crate::episode::Episode;

impl Episode {
    /// Sneak attack dice of `c`: from a `features` entry "sneak attack +Nd6" (N dice), or
    /// "sneak attack" alone: (level + 1) / 2 dice (rogue table — CRB — Classes: Rogue).
    pub fn sneak_attack_dice(&self, c: CombatantId) -> u32 {
        let s = self.spec(c);
        for f in &s.features {
            let l = f.to_lowercase();
            let Some(rest) = l.trim().strip_prefix("sneak attack") else {
                continue;
            };
            let rest = rest.trim().trim_start_matches(['+', '(']).trim();
            if let Some(n) = rest
                .split("d6")
                .next()
                .and_then(|n| n.trim().parse::<u32>().ok())
            {
                return n.min(20);
            }
            return (s.level.max(0) as u32).div_ceil(2);
        }
        0
    }
}
