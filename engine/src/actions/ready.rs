//! `delay` and `ready` (CRB — Combat: Special Initiative Actions: Delay, Ready): their checks
//! and candidates. What happens when a readied action's trigger occurs is in
//! [`crate::rules::ready`]; the new place in the initiative order of a delay in
//! [`crate::rules::ready::execute_delay`].

use super::check::{forbidden, Ctx};
use super::plan::Plan;
use super::{Action, ActionKind, Maneuver, ReadyIssue, ReadyTrigger, Reject, TargetIssue};
use crate::actions::CombatantId;

/// `delay`: only before anything else of the turn ("you take no action" — CRB — Delay;
/// `already_acted`), at most once a round (the seed's `already_delayed`), and only past a
/// combatant that acts later this round (`target`; none: the end of the round). Nobody after
/// the actor: `invalid_delay`.
pub(super) fn check_delay(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    let ep = cx.ep;
    let me = cx.actor;
    if ep.st[me.0 as usize].delayed_round == Some(ep.round) {
        return Err(Reject::AlreadyDelayed);
    }
    let t = &ep.turn;
    if t.standard_used || t.move_used || t.full_round_used || t.moved || t.disabled_acted {
        return Err(Reject::AlreadyActed);
    }
    let later = ep.later_this_round(me);
    match a.target {
        None if later.is_empty() => Err(Reject::InvalidDelay),
        None => Ok(Plan::Delay { after: None }),
        Some(x) if x.0 as usize >= ep.n() => Err(Reject::InvalidTarget {
            target: Some(x),
            why: TargetIssue::NoSuchCombatant,
        }),
        Some(x) if x == me => Err(Reject::InvalidTarget {
            target: Some(x),
            why: TargetIssue::Itself,
        }),
        Some(x) if !later.contains(&x) => Err(Reject::InvalidDelay),
        Some(x) => Ok(Plan::Delay { after: Some(x) }),
    }
}

/// `delay` to the end of the round, and past each combatant acting later this round.
pub(super) fn candidates_delay(cx: &Ctx<'_>, emit: &mut dyn FnMut(Action) -> bool) -> bool {
    if emit(Action::new(ActionKind::Delay)) {
        return true;
    }
    for x in cx.ep.later_this_round(cx.actor) {
        let a = Action {
            target: Some(x),
            ..Action::new(ActionKind::Delay)
        };
        if emit(a) {
            return true;
        }
    }
    false
}

/// `ready`: a standard action naming the readied action and its trigger. The readied action
/// is an `attack` or a `maneuver` (not overrun or drag, which are part of one's own move) —
/// without a target it is aimed at the triggering creature — a `move` to a square or toward
/// a target, or a `5foot_step` to an adjacent square. Its own legality (reach, line of
/// effect, path) is checked when the trigger occurs; here only its shape and whether a
/// condition of the actor forbids its kind now.
pub(super) fn check_ready(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    let bad = |why| Reject::InvalidReady { why };
    let ep = cx.ep;
    let me = cx.actor;
    let payload = a
        .readied
        .as_deref()
        .ok_or(bad(ReadyIssue::MissingReadied))?;
    let trigger = a.trigger.ok_or(bad(ReadyIssue::MissingTrigger))?;
    let supported = match payload.kind {
        ActionKind::Attack | ActionKind::Move | ActionKind::FiveFootStep => true,
        ActionKind::Maneuver => {
            !matches!(payload.maneuver, Some(Maneuver::Overrun | Maneuver::Drag))
        }
        _ => false,
    };
    if !supported || payload.readied.is_some() || payload.trigger.is_some() {
        return Err(bad(ReadyIssue::UnsupportedReadied));
    }
    if let ReadyTrigger::EnemyWithin { ft, .. } = trigger {
        if !(5..=120).contains(&ft) || ft % 5 != 0 {
            return Err(bad(ReadyIssue::BadDistance));
        }
    }
    let ally_trigger = matches!(trigger, ReadyTrigger::AllyActs { .. });
    if let Some(b) = trigger.by() {
        let ok = (b.0 as usize) < ep.n()
            && b != me
            && if ally_trigger {
                !ep.enemies(me, b)
            } else {
                ep.enemies(me, b)
            };
        if !ok {
            return Err(bad(ReadyIssue::WrongTriggerSide));
        }
    }
    let enemy = |t: CombatantId| (t.0 as usize) < ep.n() && ep.enemies(me, t);
    match payload.kind {
        ActionKind::Attack | ActionKind::Maneuver => {
            if payload.kind == ActionKind::Maneuver && payload.maneuver.is_none() {
                return Err(Reject::MissingManeuver);
            }
            match payload.target {
                Some(t) if !enemy(t) || !ep.conscious(t) => {
                    return Err(bad(ReadyIssue::BadPayload))
                }
                // Aimed at the trigger: an ally's signal names no enemy.
                None if ally_trigger => return Err(bad(ReadyIssue::BadPayload)),
                _ => {}
            }
            if let Some(w) = payload.weapon {
                if w >= ep.spec(me).attacks.len() || !ep.weapon_usable(me, w) {
                    return Err(Reject::WeaponUnavailable { weapon: Some(w) });
                }
            }
            if payload.destination.is_some() {
                return Err(bad(ReadyIssue::BadPayload));
            }
        }
        ActionKind::Move => match (payload.destination, payload.target) {
            (Some(d), None) if ep.enc.grid.in_bounds(d) => {}
            (None, Some(t)) if (t.0 as usize) < ep.n() && t != me => {}
            _ => return Err(bad(ReadyIssue::BadPayload)),
        },
        _ => {
            // A 5-foot step: to a square next to the actor's (it does not move before).
            let ok = payload.destination.is_some_and(|d| {
                let p = cx.pos;
                d != p && d.row.abs_diff(p.row) <= 1 && d.col.abs_diff(p.col) <= 1
            });
            if !ok || payload.target.is_some() {
                return Err(bad(ReadyIssue::BadPayload));
            }
        }
    }
    // A condition that forbids the readied kind now forbids readying it (nauseated,
    // pinned, panicked: no attack; grappled: no movement).
    forbidden(cx, payload)?;
    Ok(Plan::Ready {
        action: payload.clone(),
        trigger,
    })
}

/// The readied actions of the action space: an attack with each weapon when an enemy enters
/// reach, or when an enemy attacks the actor or an ally; an attack on each enemy at an
/// ally's signal (see [`crate::actions::space`]).
pub(super) fn candidates_ready(cx: &Ctx<'_>, emit: &mut dyn FnMut(Action) -> bool) -> bool {
    let n_w = cx.ep.spec(cx.actor).attacks.len();
    for trigger in [
        ReadyTrigger::EnemyEntersReach { by: None },
        ReadyTrigger::EnemyAttacks { by: None },
    ] {
        for w in 0..n_w {
            if emit(ready_attack(trigger, Some(w), None)) {
                return true;
            }
        }
    }
    for t in cx.enemies() {
        if emit(ready_attack(
            ReadyTrigger::AllyActs { by: None },
            None,
            Some(t),
        )) {
            return true;
        }
    }
    false
}

/// `ready` of an attack (with `weapon`, on `target`) on `trigger`.
pub(crate) fn ready_attack(
    trigger: ReadyTrigger,
    weapon: Option<usize>,
    target: Option<CombatantId>,
) -> Action {
    Action {
        readied: Some(Box::new(Action {
            weapon,
            target,
            ..Action::new(ActionKind::Attack)
        })),
        trigger: Some(trigger),
        ..Action::new(ActionKind::Ready)
    }
}
