//! `attack` (standard action: one attack) and `full_attack` (full-round action: every
//! attack) against a target (CRB — Combat: Attack, Full Attack).
//!
//! A full attack with a manufactured weapon attacks at −0/−5/−10/−15 for BAB +1/+6/+11/+16,
//! `count` swings each; a natural weapon never gets iteratives — every natural attack of the
//! creature is made `count` times, at its printed bonus (secondary −5 included — Bestiary —
//! Universal Monster Rules: Natural Attacks). The swings left are lost when the target falls.

use super::check::{target_of, Ctx};
use super::plan::Plan;
use crate::actions::{Action, ActionKind, CombatantId, Reject};
use crate::episode::frames::Frame;
use crate::episode::Episode;
use crate::rules::attack_roll::AttackOpts;
use crate::rules::idx;
use crate::rules::weapons::{can_weapon_attack, weapon_for};

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

/// One attack: a swing frame (a ranged one provokes first).
pub(super) fn execute_attack(ep: &mut Episode, a: CombatantId, target: CombatantId, weapon: usize) {
    super::defense::on_attack_action(ep, a);
    ep.frames.push(Frame::Swing {
        attacker: a,
        target,
        weapon,
        opts: AttackOpts::default(),
        provoked: false,
        triggers_checked: false,
    });
}

/// A full attack: its swings (see the module doc) as one frame.
pub(super) fn execute_full_attack(ep: &mut Episode, a: CombatantId, t: CombatantId, w: usize) {
    super::defense::on_attack_action(ep, a);
    let spec = ep.spec_arc(a);
    let weapon = &spec.attacks[w];
    let mut swings: Vec<(usize, i32)> = Vec::new();
    if weapon.natural {
        for (i, x) in spec.attacks.iter().enumerate() {
            if !x.natural {
                continue;
            }
            let pos = ep.st[idx(a)].pos;
            if i != w && can_weapon_attack(ep, a, pos, i, t).is_err() {
                continue;
            }
            // `attack_bonus` is the stat block's printed value: a secondary attack's −5 is
            // already in it (Bestiary — Universal Monster Rules: Natural Attacks).
            for _ in 0..x.count {
                swings.push((i, 0));
            }
        }
    } else {
        let iteratives = 1 + [6, 11, 16].iter().filter(|&&b| spec.bab >= b).count() as i32;
        for k in 0..iteratives {
            for _ in 0..weapon.count {
                swings.push((w, -5 * k));
            }
        }
    }
    ep.frames.push(Frame::FullAttack {
        attacker: a,
        target: t,
        swings,
        next: 0,
    });
}
