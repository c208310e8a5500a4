//! Injury and death (CRB — Combat: Injury and Death; Bestiary — Creature Types): the life
//! state from hit points (disabled at 0, dying below, dead at −Con; undead, constructs and
//! creatures without Con destroyed at 0), stabilizing, and losing hit points.

use crate::actions::CombatantId;
use crate::episode::*;

impl Episode {
    /// Dying at the start of its turn: DC 10 Constitution check with a penalty equal to the
    /// negative hit point total; a natural 20 succeeds; failure loses 1 hp (CRB — Combat:
    /// Injury and Death, Dying / Stable Characters and Recovery). `continuous`: it is taking
    /// continuous damage (bleed, acid arrow), so it "automatically fails all Constitution
    /// checks made to stabilize" — no die is rolled — and loses the 1 hp.
    pub(crate) fn stabilization_check(&mut self, actor: CombatantId, continuous: bool) {
        let i = actor.0 as usize;
        if continuous {
            self.log_turn(
                actor,
                "stabilize: automatically fails (taking continuous damage) -> loses 1 hp".into(),
            );
            self.lose_hp(actor, 1);
            return;
        }
        let con_mod = self.enc.combatants[i].spec.abilities.con_mod();
        let hp = self.st[i].hp;
        let d = self.roll(20) as i32;
        let total = d + con_mod + hp; // hp is negative: the penalty
        if d == 20 || total >= 10 {
            self.st[i].life = LifeState::Stable;
            self.log_turn(
                actor,
                format!("stabilize d20={d}{con_mod:+}{hp:+}={total} vs DC 10 -> stable"),
            );
        } else {
            self.log_turn(
                actor,
                format!("stabilize d20={d}{con_mod:+}{hp:+}={total} vs DC 10 -> loses 1 hp"),
            );
            self.lose_hp(actor, 1);
        }
    }

    /// Test-only (feature `testing`): set `c`'s hit points and its life state from them.
    #[cfg(feature = "testing")]
    pub fn set_hp_for_tests(&mut self, c: CombatantId, hp: i32) {
        self.st[c.0 as usize].hp = hp;
        self.update_life(c);
    }

    /// Test-only (feature `testing`): set `c`'s life state as is (e.g. `Stable` at negative
    /// hit points, which only a successful stabilization check reaches in play).
    #[cfg(feature = "testing")]
    pub fn set_life_for_tests(&mut self, c: CombatantId, life: LifeState) {
        self.st[c.0 as usize].life = life;
    }

    /// Lose hit points (no attacker) and update the life state.
    pub(crate) fn lose_hp(&mut self, c: CombatantId, amount: i32) {
        crate::rules::damage::take_damage(self, None, c, amount, None);
    }

    /// Recompute the life state after hit point loss (CRB — Combat: Injury and Death; Bestiary
    /// — Creature Types: undead and constructs are destroyed at 0 hp).
    pub(crate) fn update_life(&mut self, c: CombatantId) {
        let i = c.0 as usize;
        let spec = &self.enc.combatants[i].spec;
        let hp = self.st[i].hp;
        let before = self.st[i].life;
        let no_con = spec.abilities.con_score.is_none()
            || matches!(
                spec.creature_type.as_deref(),
                Some("undead") | Some("construct")
            );
        let simple = self.enc.options.simple_monster_death && !spec.player_character;
        let new = if before == LifeState::Dead {
            LifeState::Dead
        } else if no_con || simple {
            if hp <= 0 {
                LifeState::Dead
            } else {
                LifeState::Healthy
            }
        } else {
            let con = spec.abilities.con_score.unwrap_or(0);
            if hp <= -con {
                LifeState::Dead
            } else if hp < 0 {
                // Only called after hit point loss: new damage while stable resumes dying.
                LifeState::Dying
            } else if hp == 0 {
                LifeState::Disabled
            } else {
                LifeState::Healthy
            }
        };
        self.st[i].life = new;
        // A summoned creature brought to 0 hit points or fewer disappears (CRB — Magic:
        // Conjuration, Summoning): its slot is free for the next summoning.
        if self.enc.combatants[i].summoned_by.is_some() && hp <= 0 && !self.st[i].absent {
            crate::rules::magic::vanish(self, c);
            return;
        }
        if !new.is_conscious() && self.st[i].grapple.is_some() {
            // A grapple ends when either creature falls (CRB — Grapple: nothing holds it).
            crate::rules::grapple::end_grapple(self, c);
        }
        if new != before {
            let id = self.id_of(c).to_string();
            let what = match new {
                LifeState::Healthy => None,
                LifeState::Disabled => Some("is disabled"),
                LifeState::Dying => Some("is dying"),
                LifeState::Stable => None,
                LifeState::Dead if no_con => Some("is destroyed"),
                LifeState::Dead => Some("dies"),
            };
            if let Some(w) = what {
                self.push_log(LogLine {
                    round: Some(self.round),
                    actor: Some(id),
                    message: format!("{w} (hp {hp})"),
                });
            }
        }
    }
}

/// Bleed at the start of `c`'s turn (CRB — Appendix: Conditions, Bleed: "takes the listed
/// amount of damage at the beginning of its turn"): its amount
/// ([`crate::episode::state::CState::bleed_damage`], rolled each turn; 1 hp when none was
/// given) as hit point loss, unconscious or not.
pub(crate) fn bleed_tick(ep: &mut Episode, c: CombatantId) {
    let i = c.0 as usize;
    let amount = match ep.st[i].bleed_damage.as_deref() {
        None => 1,
        Some(text) => match text.parse::<crate::dice::DiceExpr>() {
            Ok(d) => d.roll(&mut ep.dice).total.max(0),
            // Checked where it was set (combatant data, a restored snapshot).
            Err(_) => 1,
        },
    };
    ep.log_turn(c, format!("bleeds: loses {amount} hp"));
    ep.lose_hp(c, amount);
}

/// Stop `c`'s bleeding (CRB — Appendix: Conditions, Bleed: "Bleeding can be stopped by a DC
/// 15 Heal check or through the application of any spell that cures hit point damage"):
/// the `bleeding` condition ends and its amount is cleared. Logged; nothing if it does not
/// bleed.
pub(crate) fn stop_bleeding(ep: &mut Episode, c: CombatantId) {
    let i = c.0 as usize;
    if !ep.has_condition(c, crate::effects::conditions::Condition::Bleeding) {
        return;
    }
    ep.st[i]
        .conditions
        .retain(|x| x.condition != crate::effects::conditions::Condition::Bleeding);
    ep.st[i].bleed_damage = None;
    ep.log_turn(c, "stops bleeding".into());
}
