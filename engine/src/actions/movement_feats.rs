//! The action kinds of the movement, reach and opportunity feats (CRB — Feats; rules in
//! [`crate::rules::feats_movement`]):
//!
//! - `cleave` (standard action, Cleave or Great Cleave): `target` (a conscious enemy) and
//!   `weapon` (a melee weapon that can attack it now; `None`: the first such);
//! - `spring_attack` / `shot_on_the_run` (full-round actions, the feat of their name):
//!   `target` and `destination` (where the move ends, within the actor's speed); `weapon`
//!   optional (`None`: the first usable melee weapon for Spring Attack, ranged for Shot on
//!   the Run). The engine picks the attack square (the cheapest total move, see the rules
//!   module). No movement before it this turn (`already_moved`); Spring Attack never against
//!   a foe adjacent at the start of the turn (`adjacent_at_start`);
//! - `activate_lunge` (free, Lunge): while the standard action is unspent (no attack yet this
//!   turn: `downgraded:action_economy`), once per turn (`feat_not_applicable`).
//!
//! Without the feat: `missing_feat`.

use super::check::{target_of, Ctx};
use super::plan::Plan;
use crate::actions::{Action, ActionKind, CombatantId, Reject, Slot};
use crate::content::feats::Feat;
use crate::episode::Episode;
use crate::geometry::grid;
use crate::rules::feats_movement::{move_attack_table, MoveAttackTable};
use crate::rules::idx;
use std::rc::Rc;

/// The actor's weapon for a kind that needs a melee (`ranged == false`) or ranged weapon:
/// `a.weapon` checked to be of that kind and usable, or the first usable one. `None` and no
/// such weapon: `no_weapon`.
fn weapon_of_kind(cx: &Ctx<'_>, a: &Action, ranged: bool) -> Result<usize, Reject> {
    let attacks = &cx.ep.spec(cx.actor).attacks;
    let fits = |w: usize| {
        attacks[w].is_ranged() == ranged
            && cx.ep.weapon_usable(cx.actor, w)
            && cx.ep.st[idx(cx.actor)].ammo.get(w).copied().flatten() != Some(0)
    };
    match a.weapon {
        Some(w) if w < attacks.len() && fits(w) => Ok(w),
        Some(w) => Err(Reject::WeaponUnavailable { weapon: Some(w) }),
        None => (0..attacks.len())
            .find(|&w| fits(w))
            .ok_or(Reject::NoWeapon),
    }
}

/// `cleave`: Cleave or Great Cleave; a conscious enemy; a melee weapon that can attack it
/// from here (an explicit ranged weapon or one that does not reach: `weapon_unavailable`;
/// none given: the first melee weapon that can, else the reason of the first).
pub(super) fn check_cleave(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    let spec = cx.ep.spec(cx.actor);
    if !spec.has_feat(Feat::Cleave) && !spec.has_feat(Feat::GreatCleave) {
        return Err(Reject::MissingFeat);
    }
    let t = target_of(cx, a)?;
    let attacks = &spec.attacks;
    let weapon = match a.weapon {
        Some(w) => {
            if w >= attacks.len() || attacks[w].is_ranged() || cx.weapon_ok(w, t).is_err() {
                return Err(Reject::WeaponUnavailable { weapon: Some(w) });
            }
            w
        }
        None => {
            let mut first_err = None;
            let mut found = None;
            for w in (0..attacks.len()).filter(|&w| !attacks[w].is_ranged()) {
                match cx.weapon_ok(w, t) {
                    Ok(()) => {
                        found = Some(w);
                        break;
                    }
                    Err(e) => {
                        first_err.get_or_insert(e);
                    }
                }
            }
            match found {
                Some(w) => w,
                None => return Err(first_err.unwrap_or(Reject::NoWeapon)),
            }
        }
    };
    Ok(Plan::Cleave { target: t, weapon })
}

/// Every conscious enemy with every weapon (as `attack`).
pub(super) fn candidates_cleave(cx: &Ctx<'_>, emit: &mut dyn FnMut(Action) -> bool) -> bool {
    let spec = cx.ep.spec(cx.actor);
    if !spec.has_feat(Feat::Cleave) && !spec.has_feat(Feat::GreatCleave) {
        return false;
    }
    let n_w = spec.attacks.len();
    for t in cx.enemies() {
        for w in 0..n_w {
            let a = Action {
                target: Some(t),
                weapon: Some(w),
                ..Action::new(ActionKind::Cleave)
            };
            if emit(a) {
                return true;
            }
        }
    }
    false
}

/// Start a cleave (the standard attack action: fighting defensively gains its AC now).
pub(super) fn execute_cleave(ep: &mut Episode, a: CombatantId, target: CombatantId, weapon: usize) {
    super::defense::on_attack_action(ep, a);
    crate::rules::feats_movement::execute_cleave(ep, a, target, weapon);
}

/// The feat of a move-attack kind.
fn move_attack_feat(kind: ActionKind) -> Feat {
    if kind == ActionKind::SpringAttack {
        Feat::SpringAttack
    } else {
        Feat::ShotOnTheRun
    }
}

/// The move-attack table of the actor against `t` with `w` (memoised in the decision's
/// [`Ctx`]).
fn table(cx: &Ctx<'_>, t: CombatantId, w: usize, spring: bool) -> Rc<MoveAttackTable> {
    let key = (t, w, spring);
    if let Some((_, tab)) = cx.move_attack.borrow().iter().find(|(k, _)| *k == key) {
        return tab.clone();
    }
    let tab = Rc::new(move_attack_table(
        cx.ep,
        cx.actor,
        cx.field(),
        t,
        w,
        spring,
        cx.budget_squares(1),
    ));
    cx.move_attack.borrow_mut().push((key, tab.clone()));
    tab
}

/// `spring_attack` / `shot_on_the_run` (see the module doc).
pub(super) fn check_move_attack(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    let spring = a.kind == ActionKind::SpringAttack;
    if !cx.ep.spec(cx.actor).has_feat(move_attack_feat(a.kind)) {
        return Err(Reject::MissingFeat);
    }
    if cx.moved {
        return Err(Reject::AlreadyMoved);
    }
    let t = target_of(cx, a)?;
    let Some(dest) = a.destination else {
        return Err(Reject::MissingTarget);
    };
    if spring {
        // "You cannot use this ability to attack a foe that is adjacent to you at the start
        // of your turn": nothing moved yet this turn, so adjacent now.
        let (ep, me) = (cx.ep, cx.actor);
        let d =
            grid::footprint_distance_squares(cx.pos, ep.fp_side(me), ep.position(t), ep.fp_side(t));
        if d <= 1 {
            return Err(Reject::AdjacentAtStart);
        }
    }
    let weapon = weapon_of_kind(cx, a, !spring)?;
    let Some(i) = cx.ep.enc.grid.index(dest) else {
        return Err(Reject::InvalidDestination);
    };
    let Some((_, at)) = table(cx, t, weapon, spring)[i] else {
        return Err(Reject::UnreachableDestination);
    };
    Ok(Plan::MoveAttack {
        target: t,
        weapon,
        at,
        dest,
        spring,
        speed: cx.budget_squares(1),
    })
}

/// Every conscious enemy with every destination its table reaches (no weapon: the id's).
pub(super) fn candidates_move_attack(
    cx: &Ctx<'_>,
    kind: ActionKind,
    emit: &mut dyn FnMut(Action) -> bool,
) -> bool {
    let spring = kind == ActionKind::SpringAttack;
    if !cx.ep.spec(cx.actor).has_feat(move_attack_feat(kind)) || cx.moved {
        return false;
    }
    let Ok(weapon) = weapon_of_kind(cx, &Action::new(kind), !spring) else {
        return false;
    };
    // The action space has only the hit-and-run-back form (the move ends on the starting
    // square: `space.rs`); other destinations are structured actions, checked when submitted.
    let cols = cx.ep.enc.grid.cols;
    let home = (cx.pos.row * cols + cx.pos.col) as usize;
    for t in cx.enemies() {
        let tab = table(cx, t, weapon, spring);
        if tab.get(home).is_none_or(|e| e.is_none()) {
            continue;
        }
        let a = Action {
            target: Some(t),
            destination: Some(cx.pos),
            ..Action::new(kind)
        };
        if emit(a) {
            return true;
        }
    }
    false
}

/// `activate_lunge` (see the module doc).
pub(super) fn check_lunge(cx: &Ctx<'_>, _a: &Action) -> Result<Plan, Reject> {
    if !cx.ep.spec(cx.actor).has_feat(Feat::Lunge) {
        return Err(Reject::MissingFeat);
    }
    if cx.ep.st[idx(cx.actor)].lunge {
        return Err(Reject::FeatNotApplicable);
    }
    if !cx.budget.standard {
        return Err(Reject::DowngradedActionEconomy {
            slot: Slot::Standard,
        });
    }
    Ok(Plan::Lunge)
}

/// Declare Lunge: +5 ft reach until the end of the turn, −2 AC until the next.
pub(super) fn execute_lunge(ep: &mut Episode, a: CombatantId) {
    use crate::rules::feats_movement::{LUNGE_AC, LUNGE_REACH_FT};
    ep.st[idx(a)].lunge = true;
    ep.log_turn(
        a,
        format!(
            "lunges: +{LUNGE_REACH_FT} ft reach on its melee attacks this turn, {LUNGE_AC} AC until its next turn"
        ),
    );
}
