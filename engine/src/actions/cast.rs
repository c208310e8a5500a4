//! `cast_spell` (its slot is its casting time's) and `cast_defensively` (a free
//! declaration). The rules are [`crate::rules::magic`]; this module checks an action's
//! choices and lists the candidates of the action space's `cast_spell` blocks.
//!
//! A cast is legal when (CRB — Magic: Casting Spells, Range, Aiming a Spell, Line of
//! Effect): the spell is in the caster's spellbook (`unknown_spell`), its casting time fits
//! in a turn (`downgraded:cast_time` for 1 minute or more), it can be paid for (`no_slot`);
//! for a creature-targeted spell, the target exists and is not dead (`invalid_target`),
//! is within range (touch: within the caster's natural reach) (`out_of_range`) and in line
//! of effect (`no_line_of_effect`); a personal spell targets the caster; an area aimed at a
//! square needs one in bounds (`invalid_destination`), within range and in line of effect,
//! and a cone or line one outside the caster's own squares. The conditions that forbid
//! attacks (nauseated, pinned, panicked) forbid casting too (a simplification: the SRD
//! allows some casting while pinned, with a concentration check).

use super::check::Ctx;
use super::plan::Plan;
use crate::actions::{Action, ActionKind, Reject, TargetIssue};
use crate::content::spells::{CastTime, Targeting};
use crate::episode::Episode;
use crate::rules::magic::{self, CastPlan};

pub(super) fn check(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    check_cast(cx.ep, cx.actor, a, &|c| cx.loe_to_cell(c)).map(Plan::CastSpell)
}

/// The checks of a cast of `actor` (the budget aside: [`super::check::preconditions`]);
/// `loe(square)`: line of effect from the actor to that square.
pub(crate) fn check_cast(
    ep: &Episode,
    actor: crate::actions::CombatantId,
    a: &Action,
    loe: &dyn Fn(crate::geometry::grid::Cell) -> bool,
) -> Result<CastPlan, Reject> {
    let spec = ep.spec(actor);
    let si = a.spell.ok_or(Reject::MissingSpell)?;
    let cs = spec
        .spellbook()
        .get(si)
        .ok_or(Reject::UnknownSpell { spell: si })?;
    let spell = &cs.spell;
    let held = ep.st[actor.0 as usize]
        .held_charge
        .is_some_and(|h| h.spell == si);
    if spell.cast_time == CastTime::Long {
        return Err(Reject::DowngradedCastTime);
    }
    // Metamagic (CRB — Feats: Metamagic Feats): feats it has; only a spell cast from a slot
    // (a spontaneous caster, or a cantrip raised into a slot) — prepared copies and
    // spell-like abilities are prepared or fixed as they are; Quicken not on a spell of a
    // full round or more; the raised level at most 9.
    let mm = if held {
        magic::MetamagicSet::default()
    } else {
        magic::MetamagicSet::of(&a.metamagic).with(ep.st[actor.0 as usize].metamagic_next)
    };
    if !mm.is_empty() {
        if mm.list().iter().any(|m| !spec.has_feat(m.feat())) {
            return Err(Reject::MissingFeat);
        }
        let from_slot = matches!(
            cs.uses,
            crate::content::combatant::SpellUses::Slot
                | crate::content::combatant::SpellUses::Unlimited
        ) && !cs.spell_like;
        let quicken_too_long = mm.has(crate::actions::Metamagic::Quicken)
            && matches!(spell.cast_time, CastTime::FullRound | CastTime::OneRound);
        if !from_slot || quicken_too_long {
            return Err(Reject::MetamagicNotApplicable);
        }
        if cs.level + mm.level_increase() > 9 {
            return Err(Reject::NoSlot {
                level: cs.level + mm.level_increase(),
            });
        }
    }
    if !held && !magic::has_use(ep, actor, si, mm.level_increase()) {
        return Err(Reject::NoSlot {
            level: cs.level + mm.level_increase(),
        });
    }
    let defensively = a.defensively;
    let plan = |target, at| CastPlan {
        spell: si,
        target,
        at,
        defensively,
        deliver: held,
        metamagic: mm,
    };
    match spell.targeting {
        Targeting::Caster => {
            if a.target.is_some_and(|t| t != actor) {
                return Err(Reject::InvalidTarget {
                    target: a.target,
                    why: TargetIssue::NotTheCaster,
                });
            }
            if a.target_pos.is_some() {
                return Err(Reject::InvalidDestination);
            }
            Ok(plan(Some(actor), None))
        }
        Targeting::Creature => {
            let t = a.target.ok_or(Reject::MissingTarget)?;
            if t.0 as usize >= ep.n() {
                return Err(Reject::InvalidTarget {
                    target: Some(t),
                    why: TargetIssue::NoSuchCombatant,
                });
            }
            if ep.life_state(t) == crate::episode::LifeState::Dead {
                return Err(Reject::InvalidTarget {
                    target: Some(t),
                    why: TargetIssue::Dead,
                });
            }
            if a.target_pos.is_some() {
                return Err(Reject::InvalidDestination);
            }
            if t != actor {
                if magic::distance_ft(ep, actor, t) > magic::range_ft(ep, actor, cs) {
                    return Err(Reject::OutOfRange);
                }
                if !magic::line_of_effect(ep, actor, t) {
                    return Err(Reject::NoLineOfEffect);
                }
            }
            Ok(plan(Some(t), None))
        }
        Targeting::Area => {
            if !magic::area_needs_square(spell) {
                // Centred on the caster: nothing to aim.
                if a.target.is_some_and(|t| t != actor) || a.target_pos.is_some() {
                    return Err(Reject::InvalidDestination);
                }
                return Ok(plan(None, None));
            }
            let at = match (a.target_pos, a.target) {
                (Some(c), None) => c,
                (None, Some(t))
                    if (t.0 as usize) < ep.n()
                        && t != actor
                        && ep.life_state(t) != crate::episode::LifeState::Dead =>
                {
                    ep.position(t)
                }
                (None, None) => return Err(Reject::MissingTarget),
                _ => return Err(Reject::InvalidDestination),
            };
            if !ep.enc.grid.in_bounds(at) {
                return Err(Reject::InvalidDestination);
            }
            if magic::area_from_caster(spell) {
                // A cone or a line: aimed at a square outside the caster.
                if ep.cells_iter(actor).any(|c| c == at) {
                    return Err(Reject::InvalidDestination);
                }
            } else {
                if magic::distance_to_cell_ft(ep, actor, at) > magic::range_ft(ep, actor, cs) {
                    return Err(Reject::OutOfRange);
                }
                if !loe(at) {
                    return Err(Reject::NoLineOfEffect);
                }
            }
            Ok(plan(None, Some(at)))
        }
    }
}

/// The candidates of the `cast_spell` blocks: each spell of the spellbook at each creature
/// (creature-targeted spells; the caster for personal ones and areas centred on it; an
/// area aimed at a square: at each other creature's square), and each area spell aimed at a
/// square at each square of the map.
pub(super) fn candidates(cx: &Ctx<'_>, emit: &mut dyn FnMut(Action) -> bool) -> bool {
    let ep = cx.ep;
    let book = ep.spec(cx.actor).spellbook();
    for (si, cs) in book.iter().enumerate() {
        let base = Action {
            spell: Some(si),
            ..Action::new(ActionKind::CastSpell)
        };
        match cs.spell.targeting {
            Targeting::Caster => {
                if emit(Action {
                    target: Some(cx.actor),
                    ..base.clone()
                }) {
                    return true;
                }
            }
            Targeting::Creature => {
                for t in ep.ids() {
                    if emit(Action {
                        target: Some(t),
                        ..base.clone()
                    }) {
                        return true;
                    }
                }
            }
            Targeting::Area if !magic::area_needs_square(&cs.spell) => {
                // Centred on the caster: the id names the caster.
                if emit(Action {
                    target: Some(cx.actor),
                    ..base.clone()
                }) {
                    return true;
                }
            }
            Targeting::Area => {
                // Aimed at a creature's square (its anchor), or at any square.
                for t in ep.ids() {
                    if t != cx.actor
                        && emit(Action {
                            target: Some(t),
                            ..base.clone()
                        })
                    {
                        return true;
                    }
                }
                let (rows, cols) = (ep.enc.map.rows, ep.enc.map.cols);
                for row in 0..rows {
                    for col in 0..cols {
                        if emit(Action {
                            target_pos: Some(crate::geometry::grid::Cell { row, col }),
                            ..base.clone()
                        }) {
                            return true;
                        }
                    }
                }
            }
        }
    }
    false
}

/// `cast_defensively`: only for a caster with a spell it can cast this turn, once.
pub(super) fn check_cast_defensively(cx: &Ctx<'_>, _a: &Action) -> Result<Plan, Reject> {
    let ep = cx.ep;
    if ep.spec(cx.actor).spellbook().is_empty() {
        return Err(Reject::NoSpells);
    }
    if ep.st[cx.actor.0 as usize].cast_defensively {
        return Err(Reject::AlreadyDeclared);
    }
    Ok(Plan::CastDefensively)
}

pub(super) fn execute_cast_defensively(ep: &mut Episode, a: crate::actions::CombatantId) {
    ep.st[a.0 as usize].cast_defensively = true;
    ep.log_turn(a, "will cast defensively".into());
}

/// `activate_metamagic`: one metamagic feat (`metamagic[0]`) the caster has, not declared
/// yet this turn; it applies to the next cast this turn.
pub(super) fn check_activate_metamagic(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    let ep = cx.ep;
    let spec = ep.spec(cx.actor);
    if spec.spellbook().is_empty() {
        return Err(Reject::NoSpells);
    }
    let [m] = a.metamagic.as_slice() else {
        return Err(Reject::MetamagicNotApplicable);
    };
    if !spec.has_feat(m.feat()) {
        return Err(Reject::MissingFeat);
    }
    if ep.st[cx.actor.0 as usize].metamagic_next.has(*m) {
        return Err(Reject::AlreadyDeclared);
    }
    Ok(Plan::ActivateMetamagic(*m))
}

/// The seven `activate_metamagic` candidates.
pub(super) fn candidates_metamagic(emit: &mut dyn FnMut(Action) -> bool) -> bool {
    crate::actions::Metamagic::ALL.into_iter().any(|m| {
        emit(Action {
            metamagic: vec![m],
            ..Action::new(ActionKind::ActivateMetamagic)
        })
    })
}

pub(super) fn execute_activate_metamagic(
    ep: &mut Episode,
    a: crate::actions::CombatantId,
    m: crate::actions::Metamagic,
) {
    let st = &mut ep.st[a.0 as usize];
    st.metamagic_next = st.metamagic_next.with(magic::MetamagicSet::of(&[m]));
    ep.log_turn(
        a,
        format!("will apply {} to its next spell", m.feat().name()),
    );
}
