//! Validation (`plan_action`, which never rolls a die nor changes state) and execution
//! (`execute`) of the turn actions, by action kind.

use crate::actions::{reasons, Action, ActionKind, CombatantId};
use crate::effects::conditions::Condition;
use crate::episode::Episode;
use crate::geometry::grid::{self, Cell};
use crate::rules::attack_roll::AttackOpts;
use crate::rules::charge::charge_path;
use crate::rules::idx;
use crate::rules::movement::budget_squares;
use crate::rules::movement::path_toward;
use crate::rules::weapons::can_weapon_attack;
use crate::rules::weapons::weapon_for;

/// A validated action, ready to execute (all choices made, no dice rolled yet).
#[derive(Debug, Clone)]
pub(crate) enum Plan {
    Attack {
        target: CombatantId,
        weapon: usize,
    },
    FullAttack {
        target: CombatantId,
        weapon: usize,
    },
    Charge {
        target: CombatantId,
        weapon: usize,
        path: Vec<Cell>,
    },
    Move {
        path: Vec<Cell>,
    },
    Step {
        to: Cell,
    },
    Withdraw {
        path: Vec<Cell>,
    },
    Maneuver(crate::rules::maneuvers::ManeuverPlan),
    StandUp,
    DropProne,
    RetrieveWeapon {
        weapon: usize,
    },
    RepairWeapon {
        weapon: usize,
    },
    TogglePowerAttack,
    Run {
        path: Vec<Cell>,
    },
}

pub(crate) fn target_of(
    ep: &Episode,
    a: CombatantId,
    act: &Action,
) -> Result<CombatantId, &'static str> {
    let Some(t) = act.target else {
        return Err(reasons::MISSING_TARGET);
    };
    if idx(t) >= ep.n() || t == a || !ep.enemies(a, t) || !ep.conscious(t) {
        return Err(reasons::INVALID_TARGET);
    }
    Ok(t)
}

fn weapon_choice(
    ep: &Episode,
    a: CombatantId,
    act: &Action,
    t: CombatantId,
) -> Result<usize, &'static str> {
    let from = ep.st[idx(a)].pos;
    match act.weapon {
        Some(w) => {
            if w >= ep.spec(a).attacks.len() {
                return Err(reasons::WEAPON_UNAVAILABLE);
            }
            can_weapon_attack(ep, a, from, w, t).map_err(|_| reasons::WEAPON_UNAVAILABLE)?;
            Ok(w)
        }
        None => weapon_for(ep, a, from, t),
    }
}

/// Validate an action for `a` now; never rolls dice nor changes state.
pub(crate) fn plan_action(
    ep: &Episode,
    a: CombatantId,
    act: &Action,
) -> Result<Plan, &'static str> {
    let moved = ep.turn.moved;
    match act.kind {
        ActionKind::EndTurn => unreachable!("handled by the caller"),
        // Refused by `Episode::check` before the rules (they answer reaction decisions).
        ActionKind::AttackOfOpportunity | ActionKind::Decline => Err(reasons::WRONG_DECISION_KIND),
        ActionKind::Attack | ActionKind::FullAttack => {
            let t = target_of(ep, a, act)?;
            let w = weapon_choice(ep, a, act, t)?;
            Ok(if act.kind == ActionKind::Attack {
                Plan::Attack {
                    target: t,
                    weapon: w,
                }
            } else {
                Plan::FullAttack {
                    target: t,
                    weapon: w,
                }
            })
        }
        ActionKind::Charge => {
            if moved {
                return Err(reasons::ALREADY_MOVED);
            }
            let t = target_of(ep, a, act)?;
            let (w, path) = charge_path(ep, a, t, act.weapon)?;
            Ok(Plan::Charge {
                target: t,
                weapon: w,
                path,
            })
        }
        ActionKind::Move => {
            if ep.turn.stepped {
                return Err(reasons::ALREADY_MOVED);
            }
            let budget = budget_squares(ep, a, 1);
            match (act.destination, act.target) {
                (Some(dest), _) => {
                    let field = ep.move_field(a, Some(budget));
                    if dest == ep.st[idx(a)].pos || !field.can_stop(dest) {
                        return Err(reasons::UNREACHABLE_DESTINATION);
                    }
                    let path = field
                        .path_to(dest)
                        .ok_or(reasons::UNREACHABLE_DESTINATION)?;
                    Ok(Plan::Move { path })
                }
                (None, Some(_)) => {
                    let t = target_of(ep, a, act)?;
                    if let Some(w) = act.weapon {
                        if w >= ep.spec(a).attacks.len() {
                            return Err(reasons::WEAPON_UNAVAILABLE);
                        }
                    }
                    let path = path_toward(ep, a, t, act.weapon, budget)
                        .ok_or(reasons::UNREACHABLE_DESTINATION)?;
                    Ok(Plan::Move { path })
                }
                (None, None) => Err(reasons::MISSING_TARGET),
            }
        }
        ActionKind::FiveFootStep => {
            if moved {
                return Err(reasons::ALREADY_MOVED);
            }
            let Some(dest) = act.destination else {
                return Err(reasons::MISSING_TARGET);
            };
            if budget_squares(ep, a, 1) == 0 {
                return Err(reasons::UNREACHABLE_DESTINATION);
            }
            let from = ep.st[idx(a)].pos;
            if grid::distance_squares(from, dest) != 1 {
                return Err(reasons::UNREACHABLE_DESTINATION);
            }
            // A 5-foot step costs exactly one square: never into difficult terrain or uphill
            // (CRB — Combat: Take 5-Foot Step).
            let field = ep.move_field(a, Some(1));
            if !field.can_stop(dest) || field.cost(dest) != Some(1) {
                return Err(reasons::UNREACHABLE_DESTINATION);
            }
            Ok(Plan::Step { to: dest })
        }
        ActionKind::Withdraw => {
            if moved {
                return Err(reasons::ALREADY_MOVED);
            }
            let Some(dest) = act.destination else {
                return Err(reasons::MISSING_TARGET);
            };
            let field = ep.move_field(a, Some(budget_squares(ep, a, 2)));
            if dest == ep.st[idx(a)].pos || !field.can_stop(dest) {
                return Err(reasons::UNREACHABLE_DESTINATION);
            }
            let path = field
                .path_to(dest)
                .ok_or(reasons::UNREACHABLE_DESTINATION)?;
            Ok(Plan::Withdraw { path })
        }
        ActionKind::Maneuver => {
            crate::rules::maneuvers::plan_maneuver(ep, a, act).map(Plan::Maneuver)
        }
        ActionKind::StandUp => {
            if !ep.has_condition(a, Condition::Prone) {
                return Err(reasons::NOT_PRONE);
            }
            Ok(Plan::StandUp)
        }
        ActionKind::DropProne => {
            if ep.has_condition(a, Condition::Prone) {
                return Err(reasons::ALREADY_PRONE);
            }
            Ok(Plan::DropProne)
        }
        ActionKind::RetrieveWeapon => {
            let w = act.weapon.ok_or(reasons::WEAPON_UNAVAILABLE)?;
            if !crate::rules::items::can_retrieve(ep, a, w) {
                return Err(reasons::WEAPON_UNAVAILABLE);
            }
            Ok(Plan::RetrieveWeapon { weapon: w })
        }
        ActionKind::RepairWeapon => {
            let w = act.weapon.ok_or(reasons::WEAPON_UNAVAILABLE)?;
            let ok = ep.st[idx(a)]
                .weapons
                .get(w)
                .is_some_and(|s| s.broken && !s.destroyed && s.dropped_at.is_none());
            if !ok {
                return Err(reasons::WEAPON_UNAVAILABLE);
            }
            Ok(Plan::RepairWeapon { weapon: w })
        }
        ActionKind::ActivatePowerAttack => {
            if !crate::content::feats::has(ep.spec(a), "Power Attack") {
                return Err(reasons::NO_POWER_ATTACK);
            }
            Ok(Plan::TogglePowerAttack)
        }
        ActionKind::Run => {
            if moved {
                return Err(reasons::ALREADY_MOVED);
            }
            if ep.st[idx(a)].run_rest > 0 {
                return Err(reasons::CANNOT_RUN);
            }
            let dest = act.destination.ok_or(reasons::MISSING_TARGET)?;
            let path = crate::rules::run::run_path(ep, a, dest)?;
            Ok(Plan::Run { path })
        }
    }
}

/// Execute a validated plan: what happens at once is done here; what may wait on a decision
/// (movement, attacks, attacks of opportunity) is pushed as frames ([`crate::episode::frames`]).
pub(crate) fn execute(ep: &mut Episode, a: CombatantId, plan: Plan) {
    use crate::episode::frames::Frame;
    match plan {
        Plan::Attack { target, weapon } => {
            ep.frames.push(Frame::Swing {
                attacker: a,
                target,
                weapon,
                opts: AttackOpts::default(),
                provoked: false,
            });
        }
        Plan::FullAttack { target, weapon } => full_attack(ep, a, target, weapon),
        Plan::Charge {
            target,
            weapon,
            path,
        } => {
            ep.turn.moved = true;
            ep.st[idx(a)].charging = true;
            ep.frames.push(Frame::ChargeAttack {
                attacker: a,
                target,
                weapon,
            });
            ep.start_walk(a, path, "charge", false);
        }
        Plan::Move { path } => {
            ep.turn.moved = true;
            ep.start_walk(a, path, "move", false);
        }
        Plan::Withdraw { path } => {
            ep.turn.moved = true;
            ep.start_walk(a, path, "withdraw", true);
        }
        Plan::Step { to } => {
            ep.turn.moved = true;
            ep.turn.stepped = true;
            let from = ep.st[idx(a)].pos;
            ep.st[idx(a)].pos = to;
            ep.log_turn(a, format!("5foot_step {from}->{to}"));
        }
        Plan::Maneuver(m) => crate::rules::maneuvers::execute_maneuver(ep, a, m),
        Plan::StandUp => stand_up(ep, a),
        Plan::DropProne => {
            ep.log_turn(a, "drops prone (free action)".into());
            ep.add_condition(a, Condition::Prone, None);
        }
        Plan::RetrieveWeapon { weapon } => crate::rules::items::retrieve_weapon(ep, a, weapon),
        Plan::RepairWeapon { weapon } => crate::rules::items::repair_weapon(ep, a, weapon),
        Plan::TogglePowerAttack => {
            let on = !ep.st[idx(a)].power_attack;
            ep.st[idx(a)].power_attack = on;
            let x = crate::rules::power_attack::power_attack_x(ep, a);
            let what = if on {
                // The damage bonus per melee attack of its stat block (CRB — Feats: Power
                // Attack: +2X, +3X two-handed, +X secondary natural attacks).
                let mut bonuses: Vec<String> = Vec::new();
                for w in ep.spec(a).attacks.iter().filter(|w| !w.is_ranged()) {
                    let b = crate::rules::power_attack::power_attack_damage(w, x);
                    let s = format!("+{b} {}", w.name);
                    if !bonuses.contains(&s) {
                        bonuses.push(s);
                    }
                }
                format!(
                    "activates Power Attack (-{x} melee attack and CMB; damage {})",
                    if bonuses.is_empty() {
                        "unchanged: no melee attack".to_string()
                    } else {
                        bonuses.join(", ")
                    }
                )
            } else {
                "deactivates Power Attack".to_string()
            };
            ep.log_turn(a, what);
        }
        Plan::Run { path } => crate::rules::run::run(ep, a, path),
    }
}

/// `stand_up`: a move action that provokes attacks of opportunity, resolved while still prone
/// (CRB — Conditions: Prone; Actions in Combat: Stand up from prone). It is an opportunity
/// separate from leaving threatened squares.
pub(crate) fn stand_up(ep: &mut Episode, a: CombatantId) {
    ep.log_turn(a, "stands up (move action)".into());
    ep.frames
        .push(crate::episode::frames::Frame::StandUp { actor: a });
    ep.open_window(a, crate::rules::aoo::Provocation::StandUp, None);
}

/// Full attack (CRB — Combat: Full Attack): a manufactured weapon attacks at −0/−5/−10/−15 for
/// BAB +1/+6/+11/+16, `count` swings each; a natural weapon never gets iteratives — every
/// natural attack of the creature is made `count` times, at its printed bonus (secondary −5
/// included — Bestiary — Universal Monster Rules: Natural Attacks). Remaining swings are lost when the target falls.
fn full_attack(ep: &mut Episode, a: CombatantId, t: CombatantId, w: usize) {
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
    ep.frames.push(crate::episode::frames::Frame::FullAttack {
        attacker: a,
        target: t,
        swings,
        next: 0,
    });
}
