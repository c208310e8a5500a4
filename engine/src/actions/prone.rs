//! `stand_up` (move action: stand up from prone; it provokes attacks of opportunity) and
//! `drop_prone` (free action) — CRB — Conditions: Prone; Actions in Combat.

use super::check::Ctx;
use super::plan::Plan;
use crate::actions::{Action, CombatantId, Reject};
use crate::effects::conditions::Condition;
use crate::episode::frames::Frame;
use crate::episode::Episode;
use crate::rules::aoo::Provocation;

pub(super) fn check_stand_up(cx: &Ctx<'_>, _a: &Action) -> Result<Plan, Reject> {
    if !cx.ep.has_condition(cx.actor, Condition::Prone) {
        return Err(Reject::NotProne);
    }
    Ok(Plan::StandUp)
}

pub(super) fn check_drop_prone(cx: &Ctx<'_>, _a: &Action) -> Result<Plan, Reject> {
    if cx.ep.has_condition(cx.actor, Condition::Prone) {
        return Err(Reject::AlreadyProne);
    }
    Ok(Plan::DropProne)
}

/// Standing up provokes, resolved while still prone: an opportunity separate from leaving
/// threatened squares; the creature stands if it is still conscious after it.
pub(super) fn execute_stand_up(ep: &mut Episode, a: CombatantId) {
    ep.log_turn(a, "stands up (move action)".into());
    ep.frames.push(Frame::StandUp { actor: a });
    ep.open_window(a, Provocation::StandUp, None);
}

pub(super) fn execute_drop_prone(ep: &mut Episode, a: CombatantId) {
    ep.log_turn(a, "drops prone (free action)".into());
    ep.add_condition(a, Condition::Prone, None);
}
