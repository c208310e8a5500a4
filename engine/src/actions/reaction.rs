//! The answers to a reaction decision (an attack of opportunity offered — CRB — Combat:
//! Attacks of Opportunity): `attack_of_opportunity` with an offered weapon, or `decline`.

use crate::actions::{Action, ActionKind, Reject, TargetIssue};
use crate::episode::{Decision, DecisionKind};

/// Check an answer to reaction decision `d`: `Ok(Some(weapon))` takes the attack of
/// opportunity, `Ok(None)` declines.
///
/// # Errors
/// `wrong_decision_kind` (a turn action); `invalid_target` (a target other than the
/// provoker, or any target on a decline); `weapon_unavailable` (a weapon not offered); `invalid_destination` (a
/// destination or maneuver on the answer).
pub(crate) fn check(d: &Decision, a: &Action) -> Result<Option<usize>, Reject> {
    let DecisionKind::AttackOfOpportunity {
        provoker, weapons, ..
    } = &d.kind
    else {
        return Err(Reject::WrongDecisionKind);
    };
    let wrong_target = |t| Reject::InvalidTarget {
        target: Some(t),
        why: TargetIssue::NotTheProvoker,
    };
    match a.kind {
        ActionKind::Decline => {
            if let Some(t) = a.target {
                return Err(Reject::InvalidTarget {
                    target: Some(t),
                    why: TargetIssue::DeclineTakesNone,
                });
            }
            if let Some(w) = a.weapon {
                return Err(Reject::WeaponUnavailable { weapon: Some(w) });
            }
            if a.destination.is_some() || a.maneuver.is_some() {
                return Err(Reject::InvalidDestination);
            }
            Ok(None)
        }
        ActionKind::AttackOfOpportunity => {
            if let Some(t) = a.target.filter(|t| t != provoker) {
                return Err(wrong_target(t));
            }
            if a.destination.is_some() || a.maneuver.is_some() {
                return Err(Reject::InvalidDestination);
            }
            match a.weapon {
                None => Ok(Some(weapons[0])),
                Some(w) if weapons.contains(&w) => Ok(Some(w)),
                Some(w) => Err(Reject::WeaponUnavailable { weapon: Some(w) }),
            }
        }
        _ => Err(Reject::WrongDecisionKind),
    }
}

/// The legal answers of reaction decision `d`: each offered weapon, then `decline`.
pub(crate) fn answers(d: &Decision) -> Vec<Action> {
    let mut out = Vec::new();
    if let DecisionKind::AttackOfOpportunity { weapons, .. } = &d.kind {
        for &w in weapons {
            out.push(Action {
                weapon: Some(w),
                ..Action::new(ActionKind::AttackOfOpportunity)
            });
        }
    }
    out.push(Action::new(ActionKind::Decline));
    out
}
