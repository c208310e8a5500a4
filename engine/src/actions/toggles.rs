//! `activate_deadly_aim` and `activate_combat_expertise` (free actions): toggle Deadly Aim or
//! Combat Expertise on or off, like Power Attack (CRB — Feats: Deadly Aim, Combat Expertise).
//! Their modifiers are in [`crate::rules::attack_feats`].

use super::check::Ctx;
use super::plan::Plan;
use crate::actions::{Action, CombatantId, Reject};
use crate::content::feats::Feat;
use crate::episode::Episode;
use crate::rules::attack_feats::feat_x;
use crate::rules::idx;

pub(super) fn check_deadly_aim(cx: &Ctx<'_>, _a: &Action) -> Result<Plan, Reject> {
    if !cx.ep.spec(cx.actor).has_feat(Feat::DeadlyAim) {
        return Err(Reject::NoDeadlyAim);
    }
    Ok(Plan::ToggleDeadlyAim)
}

pub(super) fn check_combat_expertise(cx: &Ctx<'_>, _a: &Action) -> Result<Plan, Reject> {
    if !cx.ep.spec(cx.actor).has_feat(Feat::CombatExpertise) {
        return Err(Reject::NoCombatExpertise);
    }
    Ok(Plan::ToggleCombatExpertise)
}

/// Turn Deadly Aim on or off.
pub(super) fn execute_deadly_aim(ep: &mut Episode, a: CombatantId) {
    let on = !ep.st[idx(a)].deadly_aim;
    ep.st[idx(a)].deadly_aim = on;
    let x = feat_x(ep, a);
    let what = if on {
        format!(
            "activates Deadly Aim (-{x} ranged attack; +{} ranged damage, not on touch attacks)",
            2 * x
        )
    } else {
        "deactivates Deadly Aim".to_string()
    };
    ep.log_turn(a, what);
}

/// Turn Combat Expertise on or off (its effect starts with the next melee attack action).
pub(super) fn execute_combat_expertise(ep: &mut Episode, a: CombatantId) {
    let on = !ep.st[idx(a)].combat_expertise;
    ep.st[idx(a)].combat_expertise = on;
    let x = feat_x(ep, a);
    let what = if on {
        format!(
            "activates Combat Expertise (with a melee attack action: -{x} melee attack and CMB, +{x} dodge AC until its next turn)"
        )
    } else {
        "deactivates Combat Expertise".to_string()
    };
    ep.log_turn(a, what);
}

/// The start of an attack or a full attack of `a` with weapon `w`: with Combat Expertise on
/// and a melee weapon, its −X / +X dodge AC apply from now until the start of its next turn
/// (CRB — Feats: Combat Expertise: chosen when declaring a melee attack or full attack; the
/// effects last until the next turn).
pub(super) fn on_attack_action(ep: &mut Episode, a: CombatantId, w: usize) {
    if !ep.st[idx(a)].combat_expertise || ep.spec(a).attacks[w].is_ranged() {
        return;
    }
    let x = feat_x(ep, a);
    if ep.st[idx(a)].combat_expertise_ac < x {
        ep.st[idx(a)].combat_expertise_ac = x;
        ep.log_turn(
            a,
            format!(
                "Combat Expertise: -{x} melee attack and CMB, +{x} dodge AC until its next turn"
            ),
        );
    }
}
