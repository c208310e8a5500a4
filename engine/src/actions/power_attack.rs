//! `activate_power_attack` (free action): toggle Power Attack on or off (CRB — Feats: Power
//! Attack). Its modifiers are in [`crate::rules::power_attack`].

use super::check::Ctx;
use super::plan::Plan;
use crate::actions::{Action, CombatantId, Reject};
use crate::episode::Episode;
use crate::rules::idx;

pub(super) fn check(cx: &Ctx<'_>, _a: &Action) -> Result<Plan, Reject> {
    if !cx
        .ep
        .spec(cx.actor)
        .has_feat(crate::content::feats::Feat::PowerAttack)
    {
        return Err(Reject::NoPowerAttack);
    }
    Ok(Plan::TogglePowerAttack)
}

/// Turn it on or off, logging the damage bonus per melee attack of the stat block when on
/// (+2X, +3X two-handed — not a light weapon — or a sole natural attack, +X secondary natural
/// attacks; melee touch attacks gain none and are not listed).
pub(super) fn execute(ep: &mut Episode, a: CombatantId) {
    let on = !ep.st[idx(a)].power_attack;
    ep.st[idx(a)].power_attack = on;
    let x = crate::rules::power_attack::power_attack_x(ep, a);
    let what = if on {
        let mut bonuses: Vec<String> = Vec::new();
        let melee: Vec<_> = ep
            .spec(a)
            .attacks
            .iter()
            .filter(|w| !w.is_ranged())
            .collect();
        for w in &melee {
            let b = crate::rules::power_attack::power_attack_damage(ep.spec(a), w, x);
            let s = format!("+{b} {}", w.name);
            if b != 0 && !bonuses.contains(&s) {
                bonuses.push(s);
            }
        }
        format!(
            "activates Power Attack (-{x} melee attack and CMB; damage {})",
            if melee.is_empty() {
                "unchanged: no melee attack".to_string()
            } else if bonuses.is_empty() {
                "unchanged: melee touch attacks only".to_string()
            } else {
                bonuses.join(", ")
            }
        )
    } else {
        "deactivates Power Attack".to_string()
    };
    ep.log_turn(a, what);
}
