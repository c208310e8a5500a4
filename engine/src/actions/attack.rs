//! `attack` (standard action: one attack) and `full_attack` (full-round action: every
//! attack) against a target (CRB — Combat: Attack, Full Attack).
//!
//! A full attack's attacks — iteratives, natural attacks, off-hand attacks of two-weapon
//! fighting, Rapid Shot's extra attack, Manyshot — are built by one function,
//! [`crate::rules::attack_list::full_attack_entries`]. The swings left are lost when the
//! target falls.

use super::check::{target_of, Ctx};
use super::plan::Plan;
use crate::actions::{Action, ActionKind, CombatantId, Reject};
use crate::episode::frames::Frame;
use crate::episode::Episode;
use crate::rules::attack_roll::AttackOpts;
use crate::rules::weapons::weapon_for;

/// The target must be a conscious enemy; the weapon (`None`: the first that can, the seed's
/// `weapon_for`) must reach or be in range of it with line of effect.
pub(super) fn check(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    let t = target_of(cx, a)?;
    let weapon = match a.weapon {
        Some(w) => {
            if w >= cx.ep.spec(cx.actor).attacks.len() {
                return Err(Reject::WeaponUnavailable { weapon: Some(w) });
            }
            cx.weapon_ok(w, t)
                .map_err(|_| Reject::WeaponUnavailable { weapon: Some(w) })?;
            w
        }
        None => weapon_for(cx.ep, cx.actor, cx.pos, t)?,
    };
    Ok(if a.kind == ActionKind::Attack {
        Plan::Attack { target: t, weapon }
    } else {
        Plan::FullAttack { target: t, weapon }
    })
}

/// Every conscious enemy with every weapon.
pub(super) fn candidates(
    cx: &Ctx<'_>,
    kind: ActionKind,
    emit: &mut dyn FnMut(Action) -> bool,
) -> bool {
    let n_w = cx.ep.spec(cx.actor).attacks.len();
    for t in cx.enemies() {
        for w in 0..n_w {
            let a = Action {
                target: Some(t),
                weapon: Some(w),
                ..Action::new(kind)
            };
            if emit(a) {
                return true;
            }
        }
    }
    false
}

/// One attack: a swing frame (a ranged one provokes first). With Vital Strike (Improved,
/// Greater) the attack rolls the weapon's damage dice 1 (2, 3) extra times (CRB — Feats:
/// Vital Strike: only with the attack action — not a charge, an attack of opportunity or a
/// full attack).
pub(super) fn execute_attack(ep: &mut Episode, a: CombatantId, target: CombatantId, weapon: usize) {
    super::defense::on_attack_action(ep, a);
    super::toggles::on_attack_action(ep, a, weapon);
    let vital_strike = crate::rules::attack_list::vital_strike_extra(ep.spec(a));
    ep.frames.push(Frame::Swing {
        attacker: a,
        target,
        weapon,
        opts: AttackOpts {
            vital_strike,
            ..Default::default()
        },
        provoked: false,
        triggers_checked: false,
    });
}

/// A full attack: its list of attacks ([`crate::rules::attack_list::full_attack_entries`],
/// the one builder of full attacks) as one frame.
pub(super) fn execute_full_attack(ep: &mut Episode, a: CombatantId, t: CombatantId, w: usize) {
    super::defense::on_attack_action(ep, a);
    super::toggles::on_attack_action(ep, a, w);
    let swings = crate::rules::attack_list::full_attack_entries(ep, a, t, w);
    ep.frames.push(Frame::FullAttack {
        attacker: a,
        target: t,
        swings,
        next: 0,
    });
}
