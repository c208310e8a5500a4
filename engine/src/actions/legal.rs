//! The legal actions of a decision: their enumeration into a list (with labels) or straight
//! into an action mask, and the "anything besides `end_turn`?" probe that ends a turn.

use crate::actions::space::{ActionSpace, STEP_DIRECTIONS};
use crate::actions::{Action, ActionKind, CombatantId, Maneuver};
use crate::effects::conditions::Condition;
use crate::episode::{Decision, DecisionKind, Episode, LegalAction};
use crate::geometry::grid::Cell;
use crate::rules;

/// The legal answers of a reaction decision: each offered weapon, then `decline`.
fn reaction_actions(d: &Decision) -> Vec<Action> {
    let mut out = Vec::new();
    if let DecisionKind::AttackOfOpportunity { weapons, .. } = &d.kind {
        for &w in weapons {
            let mut a = Action::new(ActionKind::AttackOfOpportunity);
            a.weapon = Some(w);
            out.push(a);
        }
    }
    out.push(Action::new(ActionKind::Decline));
    out
}

/// Label of a reaction answer: "attack_of_opportunity on goblin-2 with falchion", "decline".
pub fn reaction_label(ep: &Episode, d: &Decision, a: &Action) -> String {
    match (&d.kind, a.kind) {
        (DecisionKind::AttackOfOpportunity { provoker, .. }, ActionKind::AttackOfOpportunity) => {
            let mut s = format!("attack_of_opportunity on {}", ep.id_of(*provoker));
            if let Some(x) = a.weapon.and_then(|w| ep.spec(d.actor).attacks.get(w)) {
                s.push_str(&format!(" with {}", x.name));
            }
            s
        }
        _ => label(ep, d.actor, a),
    }
}

/// Readable label of an action ("full_attack orc-2 with falchion").
pub fn label(ep: &Episode, actor: CombatantId, a: &Action) -> String {
    let mut s = a.kind.name().to_string();
    if let Some(t) = a.target {
        if (t.0 as usize) < ep.n() {
            if a.kind == ActionKind::Move {
                s.push_str(" toward");
            }
            s.push(' ');
            s.push_str(ep.id_of(t));
        }
    }
    if let Some(d) = a.destination {
        s.push_str(&format!(" to {d}"));
    }
    if let Some(m) = a.maneuver {
        s.push(' ');
        s.push_str(m.name());
    }
    if let Some(w) = a.weapon {
        if let Some(x) = ep.spec(actor).attacks.get(w) {
            s.push_str(&format!(" with {}", x.name));
        }
    }
    s
}

/// Candidate actions of `actor` now (besides `end_turn`), cheapest checks first; with
/// `first_only`, stops at the first one found.
fn candidate_actions(ep: &Episode, actor: CombatantId, first_only: bool) -> Vec<Action> {
    let mut out: Vec<Action> = Vec::new();
    each_candidate(ep, actor, first_only, &mut |a| {
        out.push(a);
        first_only
    });
    out
}

/// Calls `sink` with each candidate action of [`candidate_actions`], in the same order,
/// until `sink` returns `true`; `first_only` leaves out what the first-action probe never
/// wants (the free toggles) and searches as that probe does.
fn each_candidate(
    ep: &Episode,
    actor: CombatantId,
    first_only: bool,
    sink: &mut dyn FnMut(Action) -> bool,
) {
    if !ep.conscious(actor) {
        return;
    }
    macro_rules! push {
        ($a:expr) => {{
            if sink($a) {
                return;
            }
        }};
    }
    let pos = ep.st[actor.0 as usize].pos;
    let budget = ep.budget(actor);
    let speed_squares = (ep.speed_ft(actor) / crate::geometry::grid::SQUARE_FT).max(0) as u32;
    // Movement kinds are refused while prone (stand up first) or unable to move.
    let can_walk =
        !ep.has_condition(actor, Condition::Prone) && !ep.cond_flag(actor, |d| d.cant_move);
    let move_ok = budget.move_action && !ep.turn.stepped && can_walk;
    let withdraw_ok = budget.full_round && !ep.turn.moved && can_walk;
    let step_ok = budget.five_foot_step && speed_squares > 0 && can_walk;
    // One unbounded field serves every movement kind: bounding Dijkstra only prunes squares
    // beyond the bound, so costs and paths within it are the same. The probe for a first
    // action asks for it too: the actor's next decision (its mask, or the default policy)
    // needs the same field, which the per-thread memo then already holds.
    let field = ep.move_field(actor, None);
    if step_ok {
        for (dr, dc) in STEP_DIRECTIONS {
            let c = Cell::new(pos.row + dr, pos.col + dc);
            if field.can_stop(c) && field.cost(c) == Some(1) {
                let mut a = Action::new(ActionKind::FiveFootStep);
                a.destination = Some(c);
                push!(a);
            }
        }
    }
    if move_ok && (speed_squares > 0 || !first_only) {
        for (cell, cost) in field.stoppable_iter() {
            if cell != pos && cost <= speed_squares {
                let mut a = Action::new(ActionKind::Move);
                a.destination = Some(cell);
                push!(a);
            }
        }
    }
    let targets: Vec<CombatantId> = ep
        .ids()
        .filter(|&t| t != actor && ep.enemies(actor, t) && ep.conscious(t))
        .collect();
    let n_w = ep.spec(actor).attacks.len();
    // Pinned and the like: no attack of any kind (`Episode::check`).
    let can_attack = !ep.cond_flag(actor, |d| d.cant_attack);
    if can_attack && (budget.standard || budget.full_round) {
        for &t in &targets {
            for w in 0..n_w {
                if rules::weapons::can_weapon_attack(ep, actor, pos, w, t).is_err() {
                    continue;
                }
                for (kind, ok) in [
                    (ActionKind::Attack, budget.standard),
                    (ActionKind::FullAttack, budget.full_round),
                ] {
                    if ok {
                        push!(Action {
                            kind,
                            target: Some(t),
                            destination: None,
                            weapon: Some(w),
                            maneuver: None,
                        });
                    }
                }
            }
        }
    }
    if can_attack
        && budget.full_round
        && !ep.turn.moved
        && can_walk
        && !ep.cond_flag(actor, |d| d.no_charge)
    {
        for &t in &targets {
            if rules::charge::charge_path(ep, actor, t, None).is_ok() {
                let mut a = Action::new(ActionKind::Charge);
                a.target = Some(t);
                push!(a);
            }
        }
    }
    let unbounded = field;
    if move_ok && !targets.is_empty() {
        let squares = rules::movement::squares_by_cost(&unbounded);
        for &t in &targets {
            if rules::movement::path_toward_sorted(
                ep,
                &unbounded,
                squares,
                actor,
                t,
                None,
                speed_squares,
            )
            .is_some()
            {
                let mut a = Action::new(ActionKind::Move);
                a.target = Some(t);
                push!(a);
            }
        }
    }
    if withdraw_ok {
        for (cell, cost) in unbounded.stoppable_iter() {
            if cell != pos && cost <= 2 * speed_squares {
                let mut a = Action::new(ActionKind::Withdraw);
                a.destination = Some(cell);
                push!(a);
            }
        }
    }
    // The kinds added with combat maneuvers: each candidate is checked like a submitted
    // action (conditions, budget slot, rules).
    let ok = |a: &Action| ep.check(actor, a).is_ok();
    for a in [ActionKind::StandUp].map(Action::new) {
        if ok(&a) {
            push!(a);
        }
    }
    let n_w = ep.spec(actor).attacks.len();
    for kind in [ActionKind::RetrieveWeapon, ActionKind::RepairWeapon] {
        for w in 0..n_w {
            let mut a = Action::new(kind);
            a.weapon = Some(w);
            if ok(&a) {
                push!(a);
            }
        }
    }
    if budget.standard {
        let grappler = ep.st[actor.0 as usize].grapple.map(|g| g.with);
        for t in ep.ids().filter(|&t| t != actor) {
            if !(targets.contains(&t) || grappler == Some(t)) {
                continue;
            }
            // Every maneuver but escape needs a melee weapon that reaches the target
            // (`plan_maneuver`): without one, only escape is worth checking.
            let reaches = crate::rules::maneuvers::maneuver_weapon(ep, actor, t, None).is_ok();
            for m in Maneuver::ALL {
                if !reaches && m != Maneuver::Escape {
                    continue;
                }
                let mut a = Action::new(ActionKind::Maneuver);
                a.target = Some(t);
                a.maneuver = Some(m);
                if ok(&a) {
                    push!(a);
                }
            }
        }
    }
    // Run: the conditions that do not depend on the destination (conditions, action slot,
    // already moved, resting) are probed once with a destination-less run, which `check`
    // refuses with `missing_target` exactly when all of them pass (the destination is the
    // last thing `plan_action` reads); then each destination needs only its straight-line
    // path. `tests::run_enumeration_matches_check` pins the equivalence with `check`.
    let run_ok = withdraw_ok
        && matches!(
            ep.check(actor, &Action::new(ActionKind::Run)),
            Err(r) if r == crate::actions::reasons::MISSING_TARGET
        );
    if run_ok {
        let max = crate::rules::run::run_multiplier(ep, actor) * speed_squares as i32;
        let g = &ep.enc.grid;
        let run_ok_to = crate::rules::run::run_destination_checker(ep, actor);
        for r in (pos.row - max).max(0)..=(pos.row + max).min(g.rows - 1) {
            for c in (pos.col - max).max(0)..=(pos.col + max).min(g.cols - 1) {
                let cell = Cell::new(r, c);
                // Cheap pre-filters (the full check below decides): a run ends on a square
                // where the mover may stop, within its run distance.
                if cell == pos
                    || !unbounded.can_stop(cell)
                    || crate::geometry::grid::distance_squares(pos, cell) > max
                {
                    continue;
                }
                if run_ok_to(cell).is_ok() {
                    let mut a = Action::new(ActionKind::Run);
                    a.destination = Some(cell);
                    push!(a);
                }
            }
        }
    }
    // Free toggles last, and never in the "anything besides end_turn?" probe: a turn whose
    // only options left are free declarations ends by itself.
    if !first_only {
        for a in [ActionKind::DropProne, ActionKind::ActivatePowerAttack].map(Action::new) {
            if ok(&a) {
                push!(a);
            }
        }
    }
}

/// Whether `actor` has any legal action besides `end_turn` now (cheap: stops at the first).
pub(crate) fn any_besides_end_turn(ep: &Episode, actor: CombatantId) -> bool {
    // Every candidate kind but the free toggles (never probed) needs one of these slots
    // (`ActionKind::slot`, `Episode::slot_free`): with none left the answer is no, without
    // searching — the common case at the end of a turn.
    let b = ep.budget(actor);
    if !(b.standard || b.move_action || b.full_round || b.five_foot_step) {
        return false;
    }
    let space = ActionSpace::of(&ep.enc);
    let blocks = space.blocks();
    let pos = ep.st[actor.0 as usize].pos;
    let mut found = false;
    // The first candidate decides, as it always has (every candidate has an id).
    each_candidate(ep, actor, true, &mut |a| {
        found = space.encode_in(&blocks, &a, pos).is_some();
        true
    });
    found
}

/// Set `mask[id] = 1` for every legal action id of `actor` now (`end_turn` included); `mask`
/// spans the action space. The ids of [`legal_actions`], without listing or labelling them.
pub(crate) fn fill_mask(ep: &Episode, d: &Decision, mask: &mut [u8]) {
    let space = ActionSpace::of(&ep.enc);
    if d.kind.is_reaction() {
        let b = space.blocks();
        for a in reaction_actions(d) {
            if let Some(m) = space
                .encode_in(&b, &a, Cell::new(0, 0))
                .and_then(|id| mask.get_mut(id as usize))
            {
                *m = 1;
            }
        }
        return;
    }
    let actor = d.actor;
    let blocks = space.blocks();
    let pos = ep.st[actor.0 as usize].pos;
    if let Some(m) = mask.get_mut(0) {
        *m = 1;
    }
    each_candidate(ep, actor, false, &mut |a| {
        if let Some(m) = space
            .encode_in(&blocks, &a, pos)
            .and_then(|id| mask.get_mut(id as usize))
        {
            *m = 1;
        }
        false
    });
}

/// Every legal action of `actor` now, sorted by id; `end_turn` always first.
pub(crate) fn legal_actions(ep: &Episode, d: &Decision) -> Vec<LegalAction> {
    let space = ActionSpace::of(&ep.enc);
    let actor = d.actor;
    let pos = ep.st[actor.0 as usize].pos;
    if d.kind.is_reaction() {
        let mut legal: Vec<LegalAction> = reaction_actions(d)
            .into_iter()
            .filter_map(|a| {
                Some(LegalAction {
                    id: space.encode(&a, pos)?,
                    label: reaction_label(ep, d, &a),
                    action: a,
                })
            })
            .collect();
        legal.sort_by_key(|l| l.id);
        return legal;
    }
    let mut legal: Vec<LegalAction> = std::iter::once(Action::new(ActionKind::EndTurn))
        .chain(candidate_actions(ep, actor, false))
        .filter_map(|a| {
            let id = space.encode(&a, pos)?;
            Some(LegalAction {
                id,
                label: label(ep, actor, &a),
                action: a,
            })
        })
        .collect();
    legal.sort_by_key(|l| l.id);
    legal.dedup_by_key(|l| l.id);
    legal
}
