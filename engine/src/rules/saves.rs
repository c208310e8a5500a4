//! Saving throws (CRB — Magic: Saving Throws; Combat: Saving Throws): d20 + the printed save +
//! the modifiers of the bearer's conditions and feats (stacked by [`crate::effects`]) + the
//! effect of Dexterity penalties on Reflex; a natural 1 always fails, a natural 20 always
//! succeeds. Descriptors (`fear`, `mind_affecting`, `poison`…) select conditional modifiers
//! (bane's −1 applies only against fear).

use crate::actions::CombatantId;
use crate::effects::{self, RollContext};
use crate::episode::Episode;
use serde::{Deserialize, Serialize};

/// Fortitude, Reflex or Will (defined with the other roll vocabulary in `effects`).
pub use crate::effects::SaveKind;

/// The result of one saving throw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaveResult {
    pub success: bool,
    /// The natural d20.
    pub roll: i32,
    /// Printed save plus modifiers.
    pub bonus: i32,
    pub total: i32,
    pub dc: i32,
}

impl Episode {
    /// The save bonus of `c` against an effect with `descriptors`: printed save + stacked
    /// modifiers. Rolls nothing.
    pub fn save_bonus(&self, c: CombatantId, kind: SaveKind, descriptors: &[String]) -> i32 {
        self.save_modifiers(c, kind, descriptors).0
    }

    fn save_modifiers(
        &self,
        c: CombatantId,
        kind: SaveKind,
        descriptors: &[String],
    ) -> (i32, String) {
        let s = &self.spec(c).saves;
        let printed = match kind {
            SaveKind::Fort => s.fort,
            SaveKind::Ref => s.reflex,
            SaveKind::Will => s.will,
        };
        let mods = self.modifiers_for(c);
        let ctx = RollContext {
            descriptors,
            ..Default::default()
        };
        let r = effects::resolve(&mods, kind.stat(), &ctx);
        (printed + r.total, r.note())
    }

    /// Test-only (feature `testing`): [`Episode::roll_save`] outside of any action.
    #[cfg(feature = "testing")]
    pub fn resolve_save(
        &mut self,
        c: CombatantId,
        kind: SaveKind,
        dc: i32,
        descriptors: &[String],
    ) -> SaveResult {
        self.roll_save(c, kind, dc, descriptors)
    }

    /// Roll a saving throw of `c` against `dc` (one d20 from the episode's dice; natural 1
    /// fails, natural 20 succeeds) and log it. Used by conditions and, later, spells.
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    pub(crate) fn roll_save(
        &mut self,
        c: CombatantId,
        kind: SaveKind,
        dc: i32,
        descriptors: &[String],
    ) -> SaveResult {
        let (bonus, note) = self.save_modifiers(c, kind, descriptors);
        let roll = self.roll(20) as i32;
        let total = roll + bonus;
        let success = roll != 1 && (roll == 20 || total >= dc);
        self.log_turn_with(c, || {
            let note = if note.is_empty() {
                String::new()
            } else {
                format!(" [{note}]")
            };
            format!(
                "{} save d20={roll}{bonus:+}={total} vs DC {dc}{note} -> {}",
                kind.name(),
                if success { "success" } else { "failure" }
            )
        });
        SaveResult {
            success,
            roll,
            bonus,
            total,
            dc,
        }
    }
}
