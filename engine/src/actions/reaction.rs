//! The answers to a reaction decision (an attack of opportunity offered — CRB — Combat:
//! Attacks of Opportunity): `attack_of_opportunity` with an offered weapon, `decline`, or
//! (where the decision offers it — CRB — Feats: Stand Still) `stand_still`.

use crate::actions::{Action, ActionKind, Reject, TargetIssue};
use crate::episode::{Decision, DecisionKind};

/// An accepted answer to an attack-of-opportunity decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AooAnswer {
    /// Take the attack of opportunity with this weapon.
    Take(usize),
    /// Let the opportunity pass.
    Decline,
    /// A combat maneuver check instead (Stand Still).
    StandStill,
}

impl AooAnswer {
    /// The weapon of a taken attack of opportunity (`None`: declined or Stand Still).
    pub(crate) fn weapon(self) -> Option<usize> {
        match self {
            AooAnswer::Take(w) => Some(w),
            _ => None,
        }
    }
}

/// Check an answer to reaction decision `d`.
///
/// # Errors
/// `wrong_decision_kind` (a turn action); `invalid_target` (a target other than the
/// provoker, or any target on a decline); `weapon_unavailable` (a weapon not offered); `invalid_destination` (a
/// destination or maneuver on the answer); `feat_not_applicable` (`stand_still` where the
/// decision does not offer it).
pub(crate) fn check(d: &Decision, a: &Action) -> Result<AooAnswer, Reject> {
    let DecisionKind::AttackOfOpportunity {
        provoker,
        weapons,
        stand_still,
        ..
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
            Ok(AooAnswer::Decline)
        }
        ActionKind::StandStill => {
            if let Some(t) = a.target.filter(|t| t != provoker) {
                return Err(wrong_target(t));
            }
            if let Some(w) = a.weapon {
                return Err(Reject::WeaponUnavailable { weapon: Some(w) });
            }
            if a.destination.is_some() || a.maneuver.is_some() {
                return Err(Reject::InvalidDestination);
            }
            if !stand_still {
                return Err(Reject::FeatNotApplicable);
            }
            Ok(AooAnswer::StandStill)
        }
        ActionKind::AttackOfOpportunity => {
            if let Some(t) = a.target.filter(|t| t != provoker) {
                return Err(wrong_target(t));
            }
            if a.destination.is_some() || a.maneuver.is_some() {
                return Err(Reject::InvalidDestination);
            }
            match a.weapon {
                None => Ok(AooAnswer::Take(weapons[0])),
                Some(w) if weapons.contains(&w) => Ok(AooAnswer::Take(w)),
                Some(w) => Err(Reject::WeaponUnavailable { weapon: Some(w) }),
            }
        }
        _ => Err(Reject::WrongDecisionKind),
    }
}

/// The legal answers of reaction decision `d`: each offered weapon, `stand_still` where
/// offered, then `decline`.
pub(crate) fn answers(d: &Decision) -> Vec<Action> {
    let mut out = Vec::new();
    if let DecisionKind::AttackOfOpportunity {
        weapons,
        stand_still,
        ..
    } = &d.kind
    {
        for &w in weapons {
            out.push(Action {
                weapon: Some(w),
                ..Action::new(ActionKind::AttackOfOpportunity)
            });
        }
        if *stand_still {
            out.push(Action::new(ActionKind::StandStill));
        }
    }
    out.push(Action::new(ActionKind::Decline));
    out
}
