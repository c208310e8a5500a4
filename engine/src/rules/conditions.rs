//! Conditions on combatants at run time (CRB — Appendix: Conditions): putting them on and
//! taking them off, their flags and modifiers, the Dexterity and Strength penalties they
//! give, their durations counting down at the end of the bearer's turn. The condition rows
//! themselves are data: [`crate::effects::conditions`].

use crate::actions::CombatantId;
use crate::content::combatant::ability_modifier;
#[cfg(feature = "testing")]
use crate::effects::conditions::UnknownCondition;
use crate::effects::conditions::{modifiers_of, ActiveCondition, Condition, ConditionDef};
use crate::effects::Stat;
use crate::episode::Episode;

impl Episode {
    /// Put condition `cond` on `c` for `rounds` of its turns (`None` = until removed). If it
    /// already has it, the longer duration wins. Logged.
    pub(crate) fn add_condition(&mut self, c: CombatantId, cond: Condition, rounds: Option<u32>) {
        let list = &mut self.st[c.0 as usize].conditions;
        match list.iter_mut().find(|x| x.condition == cond) {
            Some(x) => {
                x.rounds = match (x.rounds, rounds) {
                    (None, _) | (_, None) => None,
                    (Some(a), Some(b)) => Some(a.max(b)),
                }
            }
            None => list.push(ActiveCondition {
                condition: cond,
                rounds,
            }),
        }
        let how = rounds.map_or(String::new(), |r| format!(" ({r} rounds)"));
        self.log_turn(c, format!("is {cond}{how}"));
    }

    /// Test-only: put condition `name` on `c` as [`Episode::add_condition`] does (feature
    /// `testing`; a combatant's initial conditions are data, `conditions` in its JSON).
    ///
    /// # Errors
    /// [`UnknownCondition`] when `name` is not one of [`CONDITIONS`]; nothing changes.
    #[cfg(feature = "testing")]
    pub fn apply_condition(
        &mut self,
        c: CombatantId,
        name: &str,
        rounds: Option<u32>,
    ) -> Result<(), UnknownCondition> {
        let cond = Condition::from_name(name).ok_or_else(|| UnknownCondition(name.to_string()))?;
        self.add_condition(c, cond, rounds);
        Ok(())
    }

    /// Remove condition `cond` from `c`; returns whether it had it.
    pub(crate) fn remove_condition(&mut self, c: CombatantId, cond: Condition) -> bool {
        let list = &mut self.st[c.0 as usize].conditions;
        let before = list.len();
        list.retain(|x| x.condition != cond);
        list.len() != before
    }

    /// The conditions on `c` (and rounds left).
    pub fn conditions(&self, c: CombatantId) -> &[ActiveCondition] {
        &self.st[c.0 as usize].conditions
    }

    /// Whether `c` has condition `cond`.
    pub fn has_condition(&self, c: CombatantId, cond: Condition) -> bool {
        self.st[c.0 as usize]
            .conditions
            .iter()
            .any(|x| x.condition == cond)
    }

    pub(crate) fn cond_defs(
        &self,
        c: CombatantId,
    ) -> impl Iterator<Item = &'static ConditionDef> + '_ {
        self.st[c.0 as usize]
            .conditions
            .iter()
            .map(|x| x.condition.def())
    }

    /// The first condition of `c` (in the order it got them) with the flag.
    pub(crate) fn first_condition(
        &self,
        c: CombatantId,
        f: impl Fn(&ConditionDef) -> bool,
    ) -> Option<Condition> {
        self.st[c.0 as usize]
            .conditions
            .iter()
            .map(|x| x.condition)
            .find(|x| f(x.def()))
    }

    /// Any condition of `c` has the flag.
    pub(crate) fn cond_flag(&self, c: CombatantId, f: impl Fn(&ConditionDef) -> bool) -> bool {
        self.cond_defs(c).any(f)
    }

    /// The combatant's rule traits (`immune_critical`, `immune_flanking`…) from its data.
    pub(crate) fn traits(&self, c: CombatantId) -> crate::content::combatant::Traits {
        self.spec(c).resolved().traits
    }

    /// Base and effective Dexterity modifiers (after condition penalties; Dex 0 → −5).
    pub(crate) fn dex_mods(&self, c: CombatantId) -> (i32, i32) {
        let s = &self.spec(c).abilities;
        let base = ability_modifier(s.dex_score);
        if self.cond_flag(c, |d| d.dex_zero) {
            return (base, -5);
        }
        let pen: i32 = self.cond_defs(c).map(|d| d.dex_penalty).sum();
        match s.dex_score {
            Some(sc) if pen > 0 => (base, ability_modifier(Some((sc - pen).max(0)))),
            _ => (base, base),
        }
    }

    /// Base and effective Strength modifiers (after condition penalties).
    pub(crate) fn str_mods(&self, c: CombatantId) -> (i32, i32) {
        let s = &self.spec(c).abilities;
        let base = ability_modifier(s.str_score);
        let pen: i32 = self.cond_defs(c).map(|d| d.str_penalty).sum();
        match s.str_score {
            Some(sc) if pen > 0 => (base, ability_modifier(Some((sc - pen).max(0)))),
            _ => (base, base),
        }
    }

    /// Every modifier to `c`'s own rolls: its conditions, its feats, and the effect of its
    /// ability penalties on the printed numbers (Dex: ranged attacks, Reflex, CMD; Str: melee
    /// attacks and damage, CMB, CMD). AC's Dex part is computed in the AC itself.
    pub fn modifiers_for(&self, c: CombatantId) -> Vec<crate::effects::Modifier> {
        use crate::effects::{BonusType, Modifier};
        let mut out: Vec<Modifier> = self.cond_defs(c).flat_map(modifiers_of).collect();
        out.extend(self.spec(c).resolved().feat_mods.iter().cloned());
        let (db, de) = self.dex_mods(c);
        let (sb, se) = self.str_mods(c);
        let (dd, sd) = (de - db, se - sb);
        for (stat, v, src) in [
            (Stat::RangedAttack, dd, "Dex penalty"),
            (Stat::Ref, dd, "Dex penalty"),
            (Stat::Cmd, dd, "Dex penalty"),
            (Stat::MeleeAttack, sd, "Str penalty"),
            (Stat::MeleeDamage, sd, "Str penalty"),
            (Stat::Cmb, sd, "Str penalty"),
            (Stat::Cmd, sd, "Str penalty"),
        ] {
            if v != 0 {
                out.push(Modifier::new(stat, v, BonusType::Untyped, src));
            }
        }
        // Total defense / fighting defensively (CRB — Actions in Combat): a dodge bonus to AC
        // (lost when denied Dex, like every dodge bonus) and fighting defensively's −4 on
        // every attack roll (maneuver checks included).
        let st = &self.st[c.0 as usize];
        if st.defensive_ac_bonus > 0 {
            let src = if st.total_defense {
                "total defense"
            } else {
                "fighting defensively"
            };
            out.push(Modifier::new(
                Stat::Ac,
                st.defensive_ac_bonus,
                BonusType::Dodge,
                src,
            ));
        }
        // Combat Expertise in effect (CRB — Feats: Combat Expertise): +X dodge AC, −X on
        // melee attack rolls (and so on combat maneuver checks, `rules::maneuvers::cmb_mods`).
        if st.combat_expertise_ac > 0 {
            let x = st.combat_expertise_ac;
            out.push(Modifier::new(
                Stat::Ac,
                x,
                BonusType::Dodge,
                "Combat Expertise",
            ));
            out.push(Modifier::new(
                Stat::MeleeAttack,
                -x,
                BonusType::Untyped,
                "Combat Expertise",
            ));
        }
        if st.fight_defensively {
            out.push(Modifier::new(
                Stat::Attack,
                crate::actions::defense::FIGHT_DEFENSIVELY_ATTACK,
                BonusType::Untyped,
                "fighting defensively",
            ));
        }
        crate::rules::feats_movement::ac_mods(self, c, &mut out);
        // Spell effects (buffs and debuffs — `rules::magic`).
        crate::rules::magic::effect_modifiers(self, c, &mut out);
        out
    }

    /// Whether `c` is denied its Dexterity bonus to AC by its own state (flat-footed, stunned,
    /// blinded, helpless…).
    pub(crate) fn denied_dex(&self, c: CombatantId) -> bool {
        self.cond_flag(c, |d| d.denies_dex_to_ac)
            || (self.st[c.0 as usize].running
                && !self.spec(c).has_feat(crate::content::feats::Feat::Run))
    }

    /// Whether `c` is immobilized by a condition: helpless (paralyzed, helpless, asleep —
    /// CRB — Conditions: Helpless: "paralyzed, held, bound, sleeping, unconscious") or pinned
    /// (CRB — Conditions: Pinned: "tightly bound", "cannot move").
    /// Such a creature is not engaged in melee (CRB — Combat: Shooting or Throwing into a
    /// Melee: "An unconscious or otherwise immobilized character is not considered engaged").
    pub(crate) fn immobilized(&self, c: CombatantId) -> bool {
        self.cond_flag(c, |d| d.helpless) || self.has_condition(c, Condition::Pinned)
    }

    /// Speed multiplier in halves (2 = full): half speed when any condition says so.
    pub(crate) fn speed_halves(&self, c: CombatantId) -> i32 {
        self.cond_defs(c).map(|d| d.speed_halves).min().unwrap_or(2)
    }

    /// Turn-order bookkeeping: durations count down at the end of the bearer's turn.
    pub(crate) fn tick_conditions(&mut self, c: CombatantId) {
        let mut ended = Vec::new();
        for x in &mut self.st[c.0 as usize].conditions {
            if let Some(r) = x.rounds.as_mut() {
                *r = r.saturating_sub(1);
                if *r == 0 {
                    ended.push(x.condition);
                }
            }
        }
        if !ended.is_empty() {
            self.st[c.0 as usize]
                .conditions
                .retain(|x| x.rounds != Some(0));
            // The bleeding ended: its amount goes with it.
            if ended.contains(&Condition::Bleeding) {
                self.st[c.0 as usize].bleed_damage = None;
            }
            for n in ended {
                self.log_turn(c, format!("is no longer {n}"));
            }
        }
    }
}
