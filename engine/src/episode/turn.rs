//! The turn structure (CRB — Combat: How Combat Works; Initiative; Actions in Combat): rolling
//! initiative, the start and end of a turn, the turn budget (X4), the generic checks every turn
//! action passes before its own rules (conscious, conditions, the budget slot), decisions and
//! the end of the combat.

use crate::actions::{Action, ActionKind, Budget, CombatantId, Slot};
use crate::effects::conditions::Condition;
use crate::episode::*;

impl Episode {
    /// Initiative: d20 + modifier for each combatant in list order; sorted by total, then
    /// modifier, then list order (CRB — Combat: Initiative; no re-roll of ties).
    pub(crate) fn roll_initiative(&mut self) {
        let n = self.st.len();
        for i in 0..n {
            let unknown = crate::content::feats::unknown_feats(&self.enc.combatants[i].spec);
            if !unknown.is_empty() {
                let id = self.enc.combatants[i].id.clone();
                self.log_raw(format!(
                    "warning: {id}: unknown feats ignored: {}",
                    unknown.join(", ")
                ));
            }
        }
        let mut keys = Vec::with_capacity(n);
        for i in 0..n {
            let m = self.enc.combatants[i].spec.initiative_mod
                + crate::effects::resolve(
                    &self.modifiers_for(CombatantId(i as u16)),
                    crate::effects::Stat::Initiative,
                    &Default::default(),
                )
                .total;
            let d = self.roll(20) as i32;
            self.st[i].initiative_total = d + m;
            let id = self.enc.combatants[i].id.clone();
            self.log_raw(format!("initiative: {id} d20={d}{m:+}={}", d + m));
            keys.push((d + m, m, i));
        }
        keys.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        self.order = keys.iter().map(|k| CombatantId(k.2 as u16)).collect();
    }

    /// Start of a turn; returns whether the turn is lost (a condition forbids acting, or a
    /// confused creature's d% roll says so).
    pub(crate) fn begin_turn(&mut self, actor: CombatantId) -> bool {
        self.turn = TurnState::default();
        let i = actor.0 as usize;
        if self.st[i].resume_delayed {
            // The delayed turn comes back: its start-of-turn effects already happened (the
            // seed: none is replayed).
            self.st[i].resume_delayed = false;
            self.log_turn(actor, "acts after delaying".into());
            return false;
        }
        // A 1-round casting takes effect just before its turn (CRB — Magic: Casting Time).
        crate::rules::magic::before_turn(self, actor);
        self.st[i].cast_defensively = false;
        self.st[i].metamagic_next = Default::default();
        // An unfired readied action lapses (CRB — Ready: "If you come to your next action
        // and have not yet performed your readied action, you don't get to take the readied
        // action").
        if self.st[i].readied.take().is_some() {
            self.log_turn(actor, "ready expired (trigger never occurred)".into());
        }
        // An immediate action since its last turn was this turn's swift action (CRB —
        // Immediate Actions); Step Up's step costs this turn's 5-foot step and 5 ft.
        self.turn.swift_used = std::mem::take(&mut self.st[i].immediate_used);
        self.turn.stepped_up = std::mem::take(&mut self.st[i].stepped_up);
        // Flat-footed until it acts (an explicit duration keeps its own count).
        self.st[i]
            .conditions
            .retain(|c| !(c.condition == Condition::FlatFooted && c.rounds.is_none()));
        self.st[i].charging = false;
        self.st[i].running = false;
        // Total defense and fighting defensively last until the start of its next turn.
        self.st[i].total_defense = false;
        self.st[i].fight_defensively = false;
        self.st[i].defensive_ac_bonus = 0;
        // Cleave's and Lunge's −2 AC last until the start of its next turn; Stand Still's
        // stop lasts for the rest of the turn it happened in.
        self.st[i].cleaving = false;
        self.st[i].lunge = false;
        self.st[i].stood_still = false;
        // Combat Expertise's effect lasts until the start of its next turn.
        self.st[i].combat_expertise_ac = 0;
        // Aid another lasts until the start of the aider's next turn (CRB — Combat: Aid
        // Another: "as long as that attack comes before the beginning of your next turn").
        for s in &mut self.st {
            s.aid.retain(|b| b.aider != actor);
        }
        // Continuous damage comes at the start of its turn whether it is conscious or not
        // (CRB — Conditions: Bleed; Spells: Acid Arrow); a creature taking it automatically
        // fails its checks to stabilize and loses 1 hp more (CRB — Combat: Injury and Death,
        // Stable Characters and Recovery).
        let below_zero = matches!(self.st[i].life, LifeState::Dying | LifeState::Stable);
        let continuous =
            self.has_condition(actor, Condition::Bleeding) || !self.st[i].recurring.is_empty();
        // Bleed (CRB — Conditions: Bleed): its amount at the start of its turn.
        if self.has_condition(actor, Condition::Bleeding) && self.st[i].life != LifeState::Dead {
            crate::rules::life::bleed_tick(self, actor);
        }
        // Recurring spell damage (acid arrow).
        if !self.st[i].recurring.is_empty() && self.st[i].life != LifeState::Dead {
            crate::rules::magic::start_of_turn(self, actor);
        }
        // Dying (or stable and dying again from that damage) since before this turn: the
        // check to stabilize (CRB — Injury and Death, Dying: "on the character's next turn,
        // after being reduced to negative hit points").
        if below_zero && self.st[i].life == LifeState::Dying {
            self.stabilization_check(actor, continuous);
        }
        if !self.st[i].life.is_conscious() {
            return true;
        }
        // Persistent spell areas it stands in (web, entangle…).
        if self.st.iter().any(|s| !s.zones.is_empty()) {
            crate::rules::magic::zones_at_start_of_turn(self, actor);
        }
        let blocking: Vec<&str> = self
            .cond_defs(actor)
            .filter(|d| d.cant_act)
            .map(|d| d.name)
            .collect();
        if !blocking.is_empty() {
            let why = blocking.join(", ");
            self.log_turn(actor, format!("cannot act ({why})"));
            return true;
        }
        if self.has_condition(actor, Condition::Confused)
            && crate::rules::confusion::confused_turn(self, actor)
        {
            return true;
        }
        false
    }

    /// The outcome if the combat is decided now: at most one side with conscious combatants.
    pub(crate) fn outcome_now(&self) -> Option<Outcome> {
        let mut alive: Vec<&str> = Vec::new();
        for (i, p) in self.enc.combatants.iter().enumerate() {
            if self.st[i].life.is_conscious() && !alive.contains(&p.side.as_str()) {
                alive.push(&p.side);
            }
        }
        if alive.len() <= 1 {
            Some(Outcome {
                winner: alive.first().map(|s| s.to_string()),
                rounds: self.round,
                truncated: false,
            })
        } else {
            None
        }
    }

    /// Move to `Over` if decided; returns whether the episode is over.
    pub(crate) fn check_end(&mut self) -> bool {
        if let Phase::Over(_) = self.phase {
            return true;
        }
        if let Some(o) = self.outcome_now() {
            self.finish(o);
            return true;
        }
        false
    }

    pub(crate) fn finish(&mut self, o: Outcome) {
        // The combat is decided: no pending work goes on.
        self.frames.clear();
        if !self.turn.results.is_empty() && !self.order.is_empty() {
            let actor = self.order[self.turn_pos];
            self.st[actor.0 as usize].last_turn_results = std::mem::take(&mut self.turn.results);
        }
        let msg = match (&o.winner, o.truncated) {
            (_, true) => format!("battle over: draw (round cap {} reached)", o.rounds),
            (Some(w), false) => format!("battle over: {w} win in {} rounds", o.rounds),
            (None, false) => format!("battle over: no side standing after {} rounds", o.rounds),
        };
        self.log_raw(msg);
        self.phase = Phase::Over(o);
    }

    pub(crate) fn new_decision(&mut self, actor: CombatantId, kind: DecisionKind) {
        let budget = if kind.is_reaction() {
            Budget::default()
        } else {
            self.budget(actor)
        };
        let d = Decision {
            decision_id: self.next_decision_id,
            actor,
            round: self.round,
            budget,
            kind,
        };
        self.next_decision_id += 1;
        self.phase = Phase::Awaiting(d);
    }

    /// End the current turn; advance to the next combatant / round; apply the round cap. A
    /// delayed turn ends without its end-of-turn effects: it moves in the order and comes
    /// back later this round ([`crate::rules::ready::move_delayed_turn`]).
    pub(crate) fn end_turn(&mut self) {
        debug_assert!(self.frames.is_empty(), "a turn ends with no pending work");
        let actor = self.order[self.turn_pos];
        self.st[actor.0 as usize].last_turn_results = std::mem::take(&mut self.turn.results);
        if self.turn.delayed {
            let after = self.turn.delay_after;
            crate::rules::ready::move_delayed_turn(self, after);
            self.turn = TurnState::default();
            self.phase = Phase::TurnStart;
            return;
        }
        {
            // Run endurance (CRB — Run): the streak breaks on a turn without running; the
            // rest after a failed check counts down one per turn.
            let s = &mut self.st[actor.0 as usize];
            if !self.turn.ran {
                s.run_rounds = 0;
                s.run_checks = 0;
            }
            s.run_rest = s.run_rest.saturating_sub(1);
            // A declaration to fight defensively that no attack followed lapses (CRB —
            // Actions in Combat: one fights defensively when attacking).
            if s.fight_defensively && s.defensive_ac_bonus == 0 {
                s.fight_defensively = false;
            }
            // Stand Still stops the movement for the rest of the turn only.
            s.stood_still = false;
        }
        self.tick_conditions(actor);
        crate::rules::magic::end_of_turn(self, actor);
        crate::rules::magic::summon_end_of_turn(self, actor);
        self.next_turn();
    }

    /// Go on to the next combatant of the order (a new round after the last one; the round
    /// cap applies), with no end-of-turn effect.
    pub(crate) fn next_turn(&mut self) {
        self.turn = TurnState::default();
        self.turn_pos += 1;
        self.phase = Phase::TurnStart;
        if self.turn_pos >= self.order.len() {
            self.turn_pos = 0;
            if self.round >= self.enc.options.round_cap {
                let o = Outcome {
                    winner: None,
                    rounds: self.round,
                    truncated: true,
                };
                self.finish(o);
                return;
            }
            self.round += 1;
            for s in &mut self.st {
                s.aoo_used = 0;
            }
            self.move_aoo_provoked.clear();
        }
    }

    /// Whether some conscious combatants are aware of their opponents at the start and some
    /// are not: then a surprise round comes first (CRB — Combat: The Surprise Round: "If no
    /// one or everyone is surprised, no surprise round occurs").
    pub(crate) fn surprise_round_applies(&self) -> bool {
        let conscious = || {
            self.ids()
                .filter(|&c| self.conscious(c))
                .map(|c| self.spec(c).aware)
        };
        conscious().any(|a| a) && conscious().any(|a| !a)
    }

    /// In the surprise round (round 0, after initiative).
    pub(crate) fn in_surprise_round(&self) -> bool {
        self.round == 0 && self.phase != Phase::NotStarted
    }

    /// Why `actor` gets no turn at all now, if so: unaware in the surprise round ("Combatants
    /// who are unaware at the start of battle don't get to act in the surprise round"; they
    /// stay flat-footed), or its readied action was already its action this round
    /// ([`crate::rules::ready`]).
    pub(crate) fn passes_turn(&self, actor: CombatantId) -> Option<&'static str> {
        let s = &self.st[actor.0 as usize];
        if self.in_surprise_round() && !self.spec(actor).aware {
            Some("unaware: no action in the surprise round")
        } else if s.acted_round == Some(self.round) {
            Some("already acted this round (readied action)")
        } else {
            None
        }
    }

    /// True when nothing but `end_turn` is legal for the actor now.
    pub(crate) fn only_end_turn_left(&self, actor: CombatantId) -> bool {
        !crate::actions::legal::any_besides_end_turn(self, actor)
    }

    /// The remaining budget of the acting combatant (CRB — Combat: Actions in Combat; Injury
    /// and Death, Disabled). `five_foot_step`: no movement yet this turn, not nauseated, and
    /// a current speed above 5 ft (CRB — Combat: Take 5-Foot Step;
    /// [`crate::rules::movement::speed_allows_five_foot_step`], the test the step's legality
    /// reads).
    pub(crate) fn budget(&self, actor: CombatantId) -> Budget {
        let t = &self.turn;
        let disabled = self.single_action(actor);
        let nauseated = self.cond_flag(actor, |d| d.single_move);
        let spent_disabled = disabled && t.disabled_acted;
        let standard = !(t.standard_used || t.full_round_used || spent_disabled || nauseated);
        let move_slot = !(t.full_round_used
            || (t.move_used && !standard)
            || spent_disabled
            || (nauseated && t.move_used));
        let full_round =
            !disabled && !nauseated && !t.standard_used && !t.move_used && !t.full_round_used;
        Budget {
            standard,
            move_action: move_slot,
            swift: !t.swift_used && !self.in_surprise_round(),
            full_round,
            five_foot_step: !t.moved
                && !t.stepped_up
                && !nauseated
                && crate::rules::movement::speed_allows_five_foot_step(self.speed_ft(actor)),
        }
    }

    /// A single move or standard action per turn: disabled (CRB — Injury and Death),
    /// staggered (CRB — Conditions: Staggered), or in the surprise round (CRB — Combat: The
    /// Surprise Round: "each take a standard or move action").
    pub(crate) fn single_action(&self, actor: CombatantId) -> bool {
        self.st[actor.0 as usize].life == LifeState::Disabled
            || self.cond_flag(actor, |d| d.staggered)
            || self.in_surprise_round()
    }

    /// The budget slot an action of `kind` takes for `actor` now: the kind's own
    /// ([`ActionKind::slot`]), but a withdraw is a standard action for a combatant limited to
    /// a single action ([`Episode::single_action`]: staggered, disabled) — CRB — Combat:
    /// Withdraw, Restricted Withdraw: "If you are limited to taking only a standard action
    /// each round you can withdraw as a standard action." The one function that both the
    /// preconditions (and so validate, submit and the action mask) and the turn frames that
    /// consume the budget read, so the two cannot diverge.
    pub(crate) fn slot_of(&self, actor: CombatantId, a: &crate::actions::Action) -> Slot {
        match a.kind {
            // Its casting time's slot (CRB — Magic: Casting Time); delivering a held charge
            // is a standard action (CRB — Magic: Holding the Charge).
            ActionKind::CastSpell => {
                let book = self.spec(actor).spellbook();
                match a.spell.and_then(|s| book.get(s)) {
                    Some(_)
                        if self.st[actor.0 as usize]
                            .held_charge
                            .is_some_and(|h| Some(h.spell) == a.spell) =>
                    {
                        Slot::Standard
                    }
                    Some(cs) => crate::rules::magic::cast_slot(
                        cs,
                        crate::rules::magic::MetamagicSet::of(&a.metamagic)
                            .with(self.st[actor.0 as usize].metamagic_next),
                    ),
                    None => Slot::Standard,
                }
            }
            ActionKind::Withdraw if self.single_action(actor) => Slot::Standard,
            // Quick Draw: a free action (CRB — Feats: Quick Draw); at BAB +1 or higher, a
            // free action combined with a regular move (CRB — Actions in Combat: Draw or
            // Sheathe a Weapon).
            ActionKind::DrawWeapon
                if self
                    .spec(actor)
                    .has_feat(crate::content::feats::Feat::QuickDraw)
                    || self.draw_free_with_move(actor) =>
            {
                Slot::Free
            }
            k => k.slot(),
        }
    }

    /// Whether a draw of `actor` now is the free draw of a regular move (CRB — Actions in
    /// Combat: Draw or Sheathe a Weapon: at BAB +1 or higher, "a free action combined with a
    /// regular move"): it took a `move` action this turn, the draw comes after it, and that
    /// move's draw is not spent yet (one draw per move; a charge's draw is not modelled).
    pub(crate) fn draw_free_with_move(&self, actor: CombatantId) -> bool {
        self.spec(actor).bab >= 1 && self.turn.regular_move && !self.turn.free_draw_used
    }

    /// How many times its speed a withdraw of `actor` moves, from its slot
    /// ([`Episode::slot_of`]): 2 as a full-round action (CRB — Combat: Withdraw: "you can
    /// move up to double your speed"), 1 as a standard action (Restricted Withdraw: "In this
    /// case, you may move up to your speed").
    pub(crate) fn withdraw_speed_multiple(&self, actor: CombatantId) -> i32 {
        if self.slot_of(actor, &crate::actions::Action::new(ActionKind::Withdraw)) == Slot::Standard
        {
            1
        } else {
            2
        }
    }

    /// Consume a slot: a move action uses the move slot, or the standard one when the move
    /// slot is spent (CRB: a move action may be taken in place of a standard action).
    pub(crate) fn consume_slot(&mut self, actor: CombatantId, slot: Slot) {
        let disabled = self.single_action(actor);
        match slot {
            Slot::Standard => self.turn.standard_used = true,
            Slot::Move => {
                if !self.turn.move_used {
                    self.turn.move_used = true;
                } else {
                    self.turn.standard_used = true;
                }
            }
            Slot::FullRound => self.turn.full_round_used = true,
            // One swift action a turn (CRB — Actions in Combat: Swift Actions).
            Slot::Swift => self.turn.swift_used = true,
            Slot::Free => {}
        }
        if disabled && matches!(slot, Slot::Standard | Slot::Move | Slot::FullRound) {
            self.turn.disabled_acted = true;
        }
    }

    /// Check a turn action for `actor` now without applying it ([`crate::actions::check`]).
    /// Never rolls dice nor changes anything.
    pub(crate) fn check(
        &self,
        actor: CombatantId,
        a: &Action,
    ) -> Result<Option<crate::actions::plan::Plan>, crate::actions::Reject> {
        crate::actions::check::check(&crate::actions::check::Ctx::new(self, actor), a)
    }
}
