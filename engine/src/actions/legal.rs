//! The legal actions of a decision: their enumeration into a list (with labels) or straight
//! into an action mask, and the "anything besides `end_turn`?" probe that ends a turn.

use crate::actions::check::{candidates, check, kind_check, preconditions, Ctx, ENUMERATION_ORDER};
use crate::actions::space::ActionSpace;
use crate::actions::{Action, ActionKind, CombatantId};
use crate::episode::{Decision, DecisionKind, Episode, LegalAction};

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
        (
            DecisionKind::ReadiedTrigger {
                readied,
                trigger_by,
                ..
            },
            ActionKind::FireReadied,
        ) => {
            format!(
                "fire_readied: {} ({})",
                label(ep, d.actor, readied),
                ep.id_of(*trigger_by)
            )
        }
        (DecisionKind::StepUp { foe, .. }, ActionKind::FiveFootStep) => {
            format!(
                "{} (step up after {})",
                label(ep, d.actor, a),
                ep.id_of(*foe)
            )
        }
        _ => label(ep, d.actor, a),
    }
}

/// Readable label of an action ("full_attack orc-2 with falchion").
pub fn label(ep: &Episode, actor: CombatantId, a: &Action) -> String {
    let mut s = a.kind.name().to_string();
    if let Some(cs) = a.spell.and_then(|i| ep.spec(actor).spellbook().get(i)) {
        s.push(' ');
        s.push_str(&cs.spell.name);
        if a.target.is_some() {
            s.push_str(" on");
        }
    }
    if let Some(p) = a.target_pos {
        s.push_str(&format!(" at {p}"));
    }
    if a.defensively {
        s.push_str(" defensively");
    }
    for m in &a.metamagic {
        s.push(' ');
        s.push_str(m.name());
    }
    if let Some(t) = a.target {
        if (t.0 as usize) < ep.n() {
            if matches!(a.kind, ActionKind::Move | ActionKind::Run) {
                s.push_str(" toward");
            }
            if a.kind == ActionKind::Delay {
                s.push_str(" after");
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
    if let Some(d) = a.direction {
        s.push_str(&format!(" direction {}", d.name()));
    }
    if let Some(f) = a.ally.filter(|f| (f.0 as usize) < ep.n()) {
        let mode = a.aid_mode.unwrap_or(crate::actions::AidMode::Attack);
        s.push_str(&format!(" for {} ({})", ep.id_of(f), mode.name()));
    }
    if let Some(w) = a.weapon {
        if let Some(x) = ep.spec(actor).attacks.get(w) {
            s.push_str(&format!(" with {}", x.name));
        }
    }
    if let (Some(p), Some(t)) = (a.readied.as_deref(), a.trigger) {
        s.push_str(&format!(": {} on {}", label(ep, actor, p), t.name()));
        if let Some(b) = t.by().filter(|b| (b.0 as usize) < ep.n()) {
            s.push_str(&format!(" by {}", ep.id_of(b)));
        }
    }
    s
}

/// Hand every legal turn action of `cx.actor` now but `end_turn` to `sink` (kinds in
/// [`ENUMERATION_ORDER`]) until it returns `true`: each kind's candidates, kept when
/// [`check`] accepts them — the very check `validate` and `submit` apply. `probe` leaves out
/// the free toggles (`drop_prone`, `activate_power_attack`, `fight_defensively`,
/// `activate_lunge`, `activate_deadly_aim`, `activate_combat_expertise`) and weapon handling
/// (`draw_weapon`, `sheathe_weapon`): a turn whose only options left are free declarations or
/// drawing and sheathing ends by itself (an agent that wants to draw or sheathe then lists it
/// before the action that would end its turn).
fn each_legal(cx: &Ctx<'_>, probe: bool, sink: &mut dyn FnMut(Action) -> bool) {
    for kind in ENUMERATION_ORDER {
        let toggle = matches!(
            kind,
            ActionKind::DropProne
                | ActionKind::ActivatePowerAttack
                | ActionKind::FightDefensively
                | ActionKind::ActivateLunge
                | ActionKind::ActivateDeadlyAim
                | ActionKind::ActivateCombatExpertise
                | ActionKind::CastDefensively
                | ActionKind::ActivateMetamagic
                | ActionKind::DrawWeapon
                | ActionKind::SheatheWeapon
        );
        if kind == ActionKind::EndTurn || (probe && toggle) {
            continue;
        }
        // The preconditions depend on the kind alone (but for a maneuver, whether it is an
        // escape, and for a cast, its casting time's slot): checked once for the kind, then
        // each candidate's own rules.
        let stopped = if matches!(kind, ActionKind::Maneuver | ActionKind::CastSpell) {
            candidates(cx, kind, &mut |a| check(cx, &a).is_ok() && sink(a))
        } else {
            if preconditions(cx, &Action::new(kind)).is_err() {
                continue;
            }
            candidates(cx, kind, &mut |a| kind_check(cx, &a).is_ok() && sink(a))
        };
        if stopped {
            return;
        }
    }
}

/// Whether `actor` has any legal action besides `end_turn` now (cheap: stops at the first).
pub(crate) fn any_besides_end_turn(ep: &Episode, actor: CombatantId) -> bool {
    // Every candidate kind but the free toggles (never probed) needs one of these slots
    // (`ActionKind::slot`, `Episode::slot_free`; a caster's swift spells the swift one):
    // with none left the answer is no, without searching — the common case at the end of
    // a turn.
    let b = ep.budget(actor);
    let swift_cast = b.swift && !ep.spec(actor).spellbook().is_empty();
    if !(b.standard || b.move_action || b.full_round || b.five_foot_step || swift_cast) {
        return false;
    }
    let space = ActionSpace::of(&ep.enc);
    let blocks = space.blocks();
    let cx = Ctx::new(ep, actor);
    // The actor's movement field first, even if an attack answers the probe: its next
    // decision (the mask, or the default policy) needs it, and the memo then holds it.
    cx.field();
    let mut found = false;
    each_legal(&cx, true, &mut |a| {
        found = space.encode_in(&blocks, &a, cx.pos).is_some();
        found
    });
    found
}

/// Set `mask[id] = 1` for every legal action id of `actor` now (`end_turn` included); `mask`
/// spans the action space. The ids of [`legal_actions`], without listing or labelling them.
pub(crate) fn fill_mask(ep: &Episode, d: &Decision, mask: &mut [u8]) {
    let space = ActionSpace::of(&ep.enc);
    if d.kind.is_reaction() {
        let b = space.blocks();
        let pos = ep.st[d.actor.0 as usize].pos;
        for a in crate::actions::reaction::answers(d) {
            if let Some(m) = space
                .encode_in(&b, &a, pos)
                .and_then(|id| mask.get_mut(id as usize))
            {
                *m = 1;
            }
        }
        return;
    }
    let blocks = space.blocks();
    let cx = Ctx::new(ep, d.actor);
    if let Some(m) = mask.get_mut(0) {
        *m = 1;
    }
    each_legal(&cx, false, &mut |a| {
        if let Some(m) = space
            .encode_in(&blocks, &a, cx.pos)
            .and_then(|id| mask.get_mut(id as usize))
        {
            *m = 1;
        }
        false
    });
}

/// Every legal action of the decision, sorted by id; `end_turn` first at a turn decision,
/// at a reaction the answers (`decline` among them).
pub(crate) fn legal_actions(ep: &Episode, d: &Decision) -> Vec<LegalAction> {
    let space = ActionSpace::of(&ep.enc);
    let actor = d.actor;
    let pos = ep.st[actor.0 as usize].pos;
    let mut legal: Vec<LegalAction> = Vec::new();
    let mut add = |a: Action, label: String| {
        if let Some(id) = space.encode(&a, pos) {
            legal.push(LegalAction {
                id,
                label,
                action: a,
            });
        }
    };
    if d.kind.is_reaction() {
        for a in crate::actions::reaction::answers(d) {
            let l = reaction_label(ep, d, &a);
            add(a, l);
        }
    } else {
        add(Action::new(ActionKind::EndTurn), "end_turn".to_string());
        let cx = Ctx::new(ep, actor);
        each_legal(&cx, false, &mut |a| {
            let l = label(ep, actor, &a);
            add(a, l);
            false
        });
    }
    legal.sort_by_key(|l| l.id);
    legal.dedup_by_key(|l| l.id);
    legal
}
