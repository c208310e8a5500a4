//! `total_defense` (standard action) and `fight_defensively` (a free declaration before the
//! turn's attack or full attack) — CRB — Combat: Actions in Combat: Total Defense; Attack,
//! Fighting Defensively as a Standard Action; Full Attack, Fighting Defensively as a
//! Full-Round Action.
//!
//! - Total defense: +4 dodge bonus to AC from the start of the action until the start of the
//!   actor's next turn, no attacks of opportunity meanwhile (`rules::aoo::can_make_aoo`); it
//!   takes the standard action, so no attack follows it that turn (the budget refuses one,
//!   `downgraded:action_economy`); a move action still may. Not combined with fighting
//!   defensively (`fighting_defensively`). The +6 with 3 ranks in Acrobatics is not modelled
//!   (no skills).
//! - Fighting defensively: declared (free) while the standard action is still unspent, before
//!   any attack of the turn; from then until the start of the actor's next turn every attack
//!   roll it makes (critical confirmations, attacks of opportunity and combat maneuver checks
//!   included: "all attacks in a round") takes −4, and its attack or full attack gives it a
//!   +2 dodge bonus to AC until the start of its next turn. After the declaration a charge, a
//!   maneuver or total defense is refused (`fighting_defensively`); a declaration not
//!   followed by an attack lapses at the end of the turn (no penalty, no bonus). The −2 / +3
//!   with 3 ranks in Acrobatics is not modelled (no skills).
//!
//! The bonus and the penalty are typed modifiers (`Episode::modifiers_for`): a dodge bonus,
//! lost whenever the creature is denied its Dexterity bonus to AC (flat-footed…), counted in
//! its CMD like every dodge bonus.

use super::check::Ctx;
use super::plan::Plan;
use crate::actions::{Action, CombatantId, Reject, Slot};
use crate::episode::Episode;
use crate::rules::idx;

/// The dodge bonus of total defense.
pub(crate) const TOTAL_DEFENSE_AC: i32 = 4;
/// The dodge bonus of fighting defensively.
pub(crate) const FIGHT_DEFENSIVELY_AC: i32 = 2;
/// The attack penalty of fighting defensively.
pub(crate) const FIGHT_DEFENSIVELY_ATTACK: i32 = -4;

pub(super) fn check_total_defense(cx: &Ctx<'_>, _a: &Action) -> Result<Plan, Reject> {
    if cx.ep.st[idx(cx.actor)].fight_defensively {
        return Err(Reject::FightingDefensively);
    }
    Ok(Plan::TotalDefense)
}

/// Declared once per turn, while an attack action can still follow (the standard action
/// unspent: no attack made yet this turn).
pub(super) fn check_fight_defensively(cx: &Ctx<'_>, _a: &Action) -> Result<Plan, Reject> {
    if cx.ep.st[idx(cx.actor)].fight_defensively {
        return Err(Reject::FightingDefensively);
    }
    if !cx.budget.standard {
        return Err(Reject::DowngradedActionEconomy {
            slot: Slot::Standard,
        });
    }
    Ok(Plan::FightDefensively)
}

pub(super) fn execute_total_defense(ep: &mut Episode, a: CombatantId) {
    let s = &mut ep.st[idx(a)];
    s.total_defense = true;
    s.defensive_ac_bonus = s.defensive_ac_bonus.max(TOTAL_DEFENSE_AC);
    ep.log_turn(
        a,
        format!(
            "total defense (standard action): +{TOTAL_DEFENSE_AC} dodge AC, no attacks of opportunity until its next turn"
        ),
    );
}

pub(super) fn execute_fight_defensively(ep: &mut Episode, a: CombatantId) {
    ep.st[idx(a)].fight_defensively = true;
    ep.log_turn(
        a,
        format!(
            "fights defensively: {FIGHT_DEFENSIVELY_ATTACK} on every attack roll, +{FIGHT_DEFENSIVELY_AC} dodge AC with its attack, until its next turn"
        ),
    );
}

/// The start of an attack or a full attack of `a`: fighting defensively, it gains its +2
/// dodge bonus to AC now.
pub(super) fn on_attack_action(ep: &mut Episode, a: CombatantId) {
    let s = &mut ep.st[idx(a)];
    if s.fight_defensively && s.defensive_ac_bonus < FIGHT_DEFENSIVELY_AC {
        s.defensive_ac_bonus = FIGHT_DEFENSIVELY_AC;
    }
}
