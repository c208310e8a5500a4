//! The answers to a reaction decision: an attack of opportunity offered (CRB — Combat:
//! Attacks of Opportunity) — `attack_of_opportunity` with an offered weapon, or `decline`;
//! a readied action's trigger (CRB — Special Initiative Actions: Ready) — `fire_readied`,
//! or `decline` to hold it; Step Up offered (CRB — Feats: Step Up, an immediate action) — a
//! `5foot_step` to an offered square, or `decline`; and, where an attack-of-opportunity decision
//! offers it (CRB — Feats: Stand Still), `stand_still`.

use crate::actions::{Action, ActionKind, Reject, TargetIssue};
use crate::episode::{Decision, DecisionKind};
use crate::geometry::grid::Cell;

/// An accepted answer to a reaction decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// Let it pass (an attack of opportunity, a readied action held, Step Up not taken).
    Decline,
    /// Take the attack of opportunity with this weapon.
    Aoo(usize),
    /// Fire the readied action.
    Fire,
    /// Step Up to this square.
    Step(Cell),
    /// A combat maneuver check instead of the attack of opportunity (Stand Still).
    StandStill,
}

/// A `decline` (or `fire_readied`) carries nothing.
fn bare(a: &Action) -> Result<(), Reject> {
    if let Some(t) = a.target {
        return Err(Reject::InvalidTarget {
            target: Some(t),
            why: TargetIssue::DeclineTakesNone,
        });
    }
    if let Some(w) = a.weapon {
        return Err(Reject::WeaponUnavailable { weapon: Some(w) });
    }
    if a.destination.is_some() || a.maneuver.is_some() || a.readied.is_some() || a.trigger.is_some()
    {
        return Err(Reject::InvalidDestination);
    }
    Ok(())
}

/// Check an answer to reaction decision `d`.
///
/// # Errors
/// `wrong_decision_kind` (a turn action, or an answer of another decision kind);
/// `invalid_target` (a target other than the provoker, or any target on a decline);
/// `weapon_unavailable` (a weapon not offered); `invalid_destination` (a destination or
/// maneuver on the answer, or a Step Up square not offered); `feat_not_applicable`
/// (`stand_still` where the decision does not offer it).
pub(crate) fn check(d: &Decision, a: &Action) -> Result<Answer, Reject> {
    match &d.kind {
        DecisionKind::TurnAction => Err(Reject::WrongDecisionKind),
        DecisionKind::AttackOfOpportunity { .. } => check_aoo(d, a),
        DecisionKind::ReadiedTrigger { .. } => match a.kind {
            ActionKind::FireReadied => bare(a).map(|()| Answer::Fire),
            ActionKind::Decline => bare(a).map(|()| Answer::Decline),
            _ => Err(Reject::WrongDecisionKind),
        },
        DecisionKind::StepUp { squares, .. } => match a.kind {
            ActionKind::Decline => bare(a).map(|()| Answer::Decline),
            ActionKind::FiveFootStep => {
                if a.target.is_some() || a.weapon.is_some() || a.maneuver.is_some() {
                    return Err(Reject::InvalidDestination);
                }
                match a.destination {
                    Some(to) if squares.contains(&to) => Ok(Answer::Step(to)),
                    Some(_) => Err(Reject::InvalidDestination),
                    None => Err(Reject::MissingTarget),
                }
            }
            _ => Err(Reject::WrongDecisionKind),
        },
    }
}

fn check_aoo(d: &Decision, a: &Action) -> Result<Answer, Reject> {
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
            Ok(Answer::Decline)
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
            Ok(Answer::StandStill)
        }
        ActionKind::AttackOfOpportunity => {
            if let Some(t) = a.target.filter(|t| t != provoker) {
                return Err(wrong_target(t));
            }
            if a.destination.is_some() || a.maneuver.is_some() {
                return Err(Reject::InvalidDestination);
            }
            match a.weapon {
                None => Ok(Answer::Aoo(weapons[0])),
                Some(w) if weapons.contains(&w) => Ok(Answer::Aoo(w)),
                Some(w) => Err(Reject::WeaponUnavailable { weapon: Some(w) }),
            }
        }
        _ => Err(Reject::WrongDecisionKind),
    }
}

/// The legal answers of reaction decision `d`: each offered weapon and `stand_still` where
/// offered / `fire_readied` / each offered Step Up square, then `decline`.
pub(crate) fn answers(d: &Decision) -> Vec<Action> {
    let mut out = Vec::new();
    match &d.kind {
        DecisionKind::AttackOfOpportunity {
            weapons,
            stand_still,
            ..
        } => {
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
        DecisionKind::ReadiedTrigger { .. } => out.push(Action::new(ActionKind::FireReadied)),
        DecisionKind::StepUp { squares, .. } => {
            for &to in squares {
                out.push(Action {
                    destination: Some(to),
                    ..Action::new(ActionKind::FiveFootStep)
                });
            }
        }
        DecisionKind::TurnAction => return out,
    }
    out.push(Action::new(ActionKind::Decline));
    out
}
