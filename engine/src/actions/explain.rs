//! Why an action is or is not legal now, in words (P8): for any action — an id of the action
//! space (masked-out ids included), a label, a structured or typed action — the verdict of
//! the very check `validate` and `submit` apply ([`crate::actions::check::check`] at a turn
//! decision, [`crate::actions::reaction::check`] at a reaction), so an explanation agrees
//! with `validate` by construction; then, for a refusal, the reason in words with names,
//! feet and squares, and the field at fault. The reasons are written once, in one `match`
//! over [`Reject`] ([`describe`]); where the code alone does not say what is in the way
//! (a blocked charge, a square out of reach, a wall on the line), the rules code is asked
//! again for the obstacle (`rules::charge::charge_obstacle`, the actor's movement field, the
//! straight line of `geometry::los`).
//!
//! [`explain_all`] explains every id of the action space sharing one check context
//! ([`Ctx`]: the actor's movement field, weapon reach, lines of effect are computed once).

use crate::actions::check::{self, Ctx};
use crate::actions::space::ActionSpace;
use crate::actions::{
    legal, reaction, Action, ActionKind, CombatantId, ReadyIssue, Reject, Slot, TargetIssue,
};
use crate::content::spells::Targeting;
use crate::episode::{Decision, DecisionKind, Episode, LifeState};
use crate::geometry::grid::{self, Cell, SQUARE_FT};
use crate::rules::charge::ChargeBlock;
use serde::Serialize;

/// The verdict on one action at the pending decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Explanation {
    /// Its id in the action space (`None`: no id stands for it).
    pub action_id: Option<u32>,
    /// Its readable label ([`legal::label`]; a reaction's [`legal::reaction_label`]).
    pub label: String,
    /// Whether `validate` accepts it now.
    pub legal: bool,
    /// The refusal (`None` when legal): [`Reject::code`] is the result code.
    pub reject: Option<Reject>,
    /// The reason in words ("the line to orc-2 crosses goblin-3 at (4,5)"); for a legal
    /// action, what it does.
    pub reason: String,
    /// The field at fault: `kind`, `target`, `destination`, `weapon`, `maneuver`, `spell`,
    /// `target_pos`, `metamagic`, `readied`, `trigger`, `ally`, `direction`, or `""` (the
    /// actor's state or budget; also for a legal action).
    pub field: &'static str,
}

/// Why no explanation can be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ExplainError {
    #[error("no decision is pending")]
    NoDecision,
    #[error(
        "action id {id} out of range: the action space has {size} ids, 0 to {}",
        .size.saturating_sub(1)
    )]
    IdOutOfRange { id: u32, size: u32 },
}

/// What the explanations of one decision share.
struct Explainer<'a> {
    ep: &'a Episode,
    d: &'a Decision,
    /// The check context (turn decisions only).
    cx: Option<Ctx<'a>>,
    space: ActionSpace,
}

impl<'a> Explainer<'a> {
    fn new(ep: &'a Episode) -> Result<Explainer<'a>, ExplainError> {
        let d = ep.decision().ok_or(ExplainError::NoDecision)?;
        let cx = (!d.kind.is_reaction()).then(|| Ctx::new(ep, d.actor));
        Ok(Explainer {
            ep,
            d,
            cx,
            space: ActionSpace::of(&ep.enc),
        })
    }

    fn explain(&self, a: &Action, id: Option<u32>) -> Explanation {
        let ep = self.ep;
        let d = self.d;
        let verdict = match &self.cx {
            Some(cx) => check::check(cx, a).map(|_| ()),
            None => reaction::check(d, a).map(|_| ()),
        };
        let label = legal::reaction_label(ep, d, a);
        let action_id = id.or_else(|| self.space.encode(a, ep.st[d.actor.0 as usize].pos));
        match verdict {
            Ok(()) => Explanation {
                action_id,
                reason: legal_reason(ep, d, a, &label),
                label,
                legal: true,
                reject: None,
                field: "",
            },
            Err(r) => {
                let (reason, field) = describe(ep, d, self.cx.as_ref(), a, &r);
                Explanation {
                    action_id,
                    label,
                    legal: false,
                    reject: Some(r),
                    reason,
                    field,
                }
            }
        }
    }
}

/// Explain action `a` at the pending decision of `ep` (its actor's).
///
/// # Errors
/// [`ExplainError::NoDecision`].
pub fn explain(ep: &Episode, a: &Action) -> Result<Explanation, ExplainError> {
    Ok(Explainer::new(ep)?.explain(a, None))
}

/// Explain action id `id` (legal or masked out) at the pending decision of `ep`.
///
/// # Errors
/// [`ExplainError::NoDecision`], [`ExplainError::IdOutOfRange`].
pub fn explain_id(ep: &Episode, id: u32) -> Result<Explanation, ExplainError> {
    let x = Explainer::new(ep)?;
    let size = x.space.size();
    let pos = ep.st[x.d.actor.0 as usize].pos;
    let a = x
        .space
        .decode(id, pos)
        .ok_or(ExplainError::IdOutOfRange { id, size })?;
    Ok(x.explain(&a, Some(id)))
}

/// Explain every id of the action space at the pending decision of `ep`, in id order (one
/// shared check context). `legal` is true exactly for the ids of the action mask.
///
/// # Errors
/// [`ExplainError::NoDecision`].
pub fn explain_all(ep: &Episode) -> Result<Vec<Explanation>, ExplainError> {
    let x = Explainer::new(ep)?;
    let pos = ep.st[x.d.actor.0 as usize].pos;
    Ok((0..x.space.size())
        .filter_map(|id| x.space.decode(id, pos).map(|a| x.explain(&a, Some(id))))
        .collect())
}

// ----- words ---------------------------------------------------------------------------

fn name(ep: &Episode, c: CombatantId) -> String {
    if (c.0 as usize) < ep.n() {
        ep.id_of(c).to_string()
    } else {
        format!("combatant {}", c.0)
    }
}

fn weapon_name(ep: &Episode, actor: CombatantId, w: usize) -> String {
    ep.spec(actor)
        .attacks
        .get(w)
        .map_or_else(|| format!("weapon {w}"), |x| x.name.clone())
}

fn spell_name(ep: &Episode, actor: CombatantId, s: usize) -> String {
    ep.spec(actor)
        .spellbook()
        .get(s)
        .map_or_else(|| format!("spell {s}"), |x| x.spell.name.clone())
}

fn life_word(l: LifeState) -> &'static str {
    match l {
        LifeState::Healthy => "healthy",
        LifeState::Disabled => "disabled",
        LifeState::Dying => "dying",
        LifeState::Stable => "unconscious (stable)",
        LifeState::Dead => "dead",
    }
}

/// A condition of `c` in words, with its rounds left ("prone", "shaken (2 rounds)").
fn condition_words(
    ep: &Episode,
    c: CombatantId,
    cond: crate::effects::conditions::Condition,
) -> String {
    match ep
        .conditions(c)
        .iter()
        .find(|x| x.condition == cond)
        .and_then(|x| x.rounds)
    {
        Some(1) => format!("{} (1 round left)", cond.name()),
        Some(n) => format!("{} ({n} rounds left)", cond.name()),
        None => cond.name().to_string(),
    }
}

/// The first square on the straight line from `from` to `to` (centre to centre) that blocks
/// line of effect, if any.
fn los_blocker(ep: &Episode, from: Cell, to: Cell) -> Option<Cell> {
    let g = &ep.enc.grid;
    crate::geometry::los::straight_line_iter(from, to)
        .take_while(|c| *c != to)
        .find(|c| g.in_bounds(*c) && g.blocks_los_at(*c))
}

/// "a wall at (4,5) blocks the line from (2,2) to orc-2 at (6,8)".
fn no_loe_words(ep: &Episode, actor: CombatantId, to: Cell, what: &str) -> String {
    let from = ep.position(actor);
    match los_blocker(ep, from, to) {
        Some(b) => format!(
            "no line of effect from {} at {from} to {what} at {to}: the square {b} blocks it",
            name(ep, actor)
        ),
        None => format!(
            "no line of effect from {} at {from} to {what} at {to}: every line between their corners crosses a blocking square",
            name(ep, actor)
        ),
    }
}

fn occupant(ep: &Episode, except: CombatantId, c: Cell) -> Option<CombatantId> {
    ep.ids().find(|&o| {
        o != except && ep.life_state(o) != LifeState::Dead && ep.cells_iter(o).any(|x| x == c)
    })
}

/// Why weapon `w` of `actor` cannot attack `t` from where it stands (the checks of
/// `rules::weapons::can_weapon_attack`, in words).
fn weapon_words(ep: &Episode, actor: CombatantId, w: usize, t: Option<CombatantId>) -> String {
    let spec = ep.spec(actor);
    let Some(x) = spec.attacks.get(w) else {
        return format!(
            "{} has no weapon {w}; weapons: {}",
            name(ep, actor),
            spec.attacks
                .iter()
                .enumerate()
                .map(|(i, a)| format!("{i} {}", a.name))
                .collect::<Vec<_>>()
                .join(", ")
        );
    };
    if let Some(s) = ep.weapon_state(actor, w) {
        if s.destroyed {
            return format!("the {} is destroyed", x.name);
        }
        if let Some(at) = s.dropped_at {
            return format!("the {} lies dropped at {at}", x.name);
        }
        if s.sheathed {
            return format!("the {} is sheathed (draw_weapon first)", x.name);
        }
    }
    let Some(t) = t.filter(|t| (t.0 as usize) < ep.n()) else {
        return format!("the {} cannot be used for this action", x.name);
    };
    let pos = ep.position(actor);
    match crate::rules::weapons::can_weapon_attack(ep, actor, pos, w, t) {
        Ok(()) => format!("the {} cannot be used for this action", x.name),
        Err(r) => range_words(ep, actor, w, t, &r),
    }
}

/// The words of a weapon's `out_of_range`, `no_line_of_effect`, `out_of_ammunition` or
/// condition refusal against `t`.
fn range_words(ep: &Episode, actor: CombatantId, w: usize, t: CombatantId, r: &Reject) -> String {
    let x = &ep.spec(actor).attacks[w];
    let pos = ep.position(actor);
    let dist = crate::rules::ranged::distance_ft_from(ep, actor, pos, t);
    match r {
        Reject::OutOfRange if x.is_ranged() => format!(
            "{} is {dist} ft away; the {}'s maximum range is {} ft",
            name(ep, t),
            x.name,
            crate::rules::ranged::max_range_ft(x)
        ),
        Reject::OutOfRange => {
            let reach = crate::rules::feats_movement::attack_reach(
                ep,
                actor,
                crate::rules::reach::melee_reach(ep, actor, x),
            );
            let inner = match reach.0 {
                Some(min) => format!(" (a reach weapon: not within {min} ft)"),
                None => String::new(),
            };
            format!(
                "{} is {dist} ft away; the {} reaches {} ft{inner}",
                name(ep, t),
                x.name,
                reach.1
            )
        }
        Reject::NoLineOfEffect => no_loe_words(ep, actor, ep.position(t), &name(ep, t)),
        Reject::OutOfAmmunition { .. } => format!("the {} has no ammunition left", x.name),
        Reject::PreventedByCondition { condition } => format!(
            "{} is {}: no ranged weapon but a crossbow",
            name(ep, actor),
            condition_words(ep, actor, *condition)
        ),
        other => format!("the {}: {}", x.name, other),
    }
}

fn slot_words(slot: Slot) -> &'static str {
    match slot {
        Slot::Standard => "standard action",
        Slot::Move => "move action",
        Slot::Swift => "swift action",
        Slot::FullRound => "full-round action",
        Slot::Free => "free action",
    }
}

/// What is left of the actor's budget ("left: move action, 5-foot step").
fn budget_left(cx: Option<&Ctx<'_>>) -> String {
    let Some(cx) = cx else {
        return String::new();
    };
    let b = cx.budget;
    let mut v = Vec::new();
    if b.full_round {
        v.push("full-round action");
    }
    if b.standard {
        v.push("standard action");
    }
    if b.move_action {
        v.push("move action");
    }
    if b.swift {
        v.push("swift action");
    }
    if b.five_foot_step {
        v.push("5-foot step");
    }
    if v.is_empty() {
        "; nothing but free actions is left this turn".into()
    } else {
        format!("; left this turn: {}", v.join(", "))
    }
}

/// Why `actor` cannot end a move, withdraw, run or 5-foot step on `dest`.
fn destination_words(ep: &Episode, cx: Option<&Ctx<'_>>, a: &Action, dest: Cell) -> String {
    let Some(cx) = cx else {
        return format!("{dest} is not a square this answer may go to");
    };
    let g = &ep.enc.grid;
    let who = name(ep, cx.actor);
    if !g.in_bounds(dest) {
        return format!(
            "{dest} is off the map ({} rows × {} columns)",
            g.rows, g.cols
        );
    }
    if dest == cx.pos {
        return format!("{dest} is {who}'s own square");
    }
    if let Some(o) = grid::footprint_iter(dest, ep.fp_side(cx.actor))
        .find(|x| !g.in_bounds(*x) || !g.passable(*x))
    {
        return format!("{o} is a wall or impassable terrain");
    }
    if let Some(o) = grid::footprint_iter(dest, ep.fp_side(cx.actor))
        .find_map(|x| occupant(ep, cx.actor, x).map(|b| (x, b)))
    {
        return format!("{} is occupied by {}", o.0, name(ep, o.1));
    }
    let speed = cx.speed_ft();
    if a.kind == ActionKind::FiveFootStep {
        let n = grid::distance_squares(cx.pos, dest);
        if n != 1 {
            return format!(
                "a 5-foot step goes to an adjacent square; {dest} is {} ft from {who}'s {}",
                n * SQUARE_FT,
                cx.pos
            );
        }
        if !crate::rules::movement::speed_allows_five_foot_step(speed) {
            return format!("{who}'s speed is {speed} ft: too slow for a 5-foot step");
        }
        return match cx.field().stop_cost(dest) {
            Some(c) => format!(
                "entering {dest} costs {} ft of movement (difficult terrain or uphill): a 5-foot step costs exactly 5 ft",
                c as i32 * SQUARE_FT
            ),
            None => format!("{who} cannot stop in {dest}"),
        };
    }
    let (mult, what) = match a.kind {
        ActionKind::Withdraw => (ep.withdraw_speed_multiple(cx.actor), "a withdraw"),
        ActionKind::Run => (4, "a run (in a straight line)"),
        _ => (1, "a move"),
    };
    let budget_ft = speed * mult;
    match cx.field().stop_cost(dest) {
        Some(c) => format!(
            "{dest} needs {} ft of movement; {what} allows {budget_ft} ft (speed {speed} ft)",
            c as i32 * SQUARE_FT
        ),
        None => format!("no path lets {who} stop in {dest}"),
    }
}

fn charge_words(ep: &Episode, actor: CombatantId, t: CombatantId, b: ChargeBlock) -> String {
    let tn = name(ep, t);
    match b {
        ChargeBlock::AlreadyInReach => {
            format!("{} can already attack {tn} from where it stands: a charge needs movement", name(ep, actor))
        }
        ChargeBlock::NoAttackSquare => {
            format!("no square from which to attack {tn} in melee has line of effect to it")
        }
        ChargeBlock::TooClose { squares } => format!(
            "the closest square from which to attack {tn} is {} ft away: a charge moves at least 10 ft",
            squares * SQUARE_FT
        ),
        ChargeBlock::Occupied { square, by } => match by {
            Some(o) => format!(
                "the closest square from which to attack {tn}, {square}, is occupied by {}",
                name(ep, o)
            ),
            None => format!("the closest square from which to attack {tn}, {square}, is occupied"),
        },
        ChargeBlock::Creature { by, square } => {
            format!("the line to {tn} crosses {} at {square}", name(ep, by))
        }
        ChargeBlock::Impassable { square } => {
            format!("the line to {tn} crosses a wall or impassable square at {square}")
        }
        ChargeBlock::Difficult { square } => {
            format!("the line to {tn} crosses difficult terrain at {square}")
        }
        ChargeBlock::Corner { square } => {
            format!("the line to {tn} cuts a corner or cannot climb at {square}")
        }
        ChargeBlock::TooFar { cost, max } => format!(
            "the line to {tn} is {} ft long; a charge moves at most {} ft (twice the speed)",
            cost as i32 * SQUARE_FT,
            max as i32 * SQUARE_FT
        ),
    }
}

/// What a legal action does, briefly.
fn legal_reason(ep: &Episode, d: &Decision, a: &Action, label: &str) -> String {
    if d.kind.is_reaction() {
        return format!("legal: {label}");
    }
    let slot = ep.slot_of(d.actor, a);
    match a.kind {
        ActionKind::EndTurn => "legal: ends the turn".into(),
        _ => format!("legal ({}): {label}", slot_words(slot)),
    }
}

/// The field a spell's target is in: `target_pos` for an area aimed at a square, else
/// `target`.
fn spell_target_field(ep: &Episode, actor: CombatantId, a: &Action) -> &'static str {
    let area = a
        .spell
        .and_then(|s| ep.spec(actor).spellbook().get(s))
        .is_some_and(|cs| {
            cs.spell.targeting == Targeting::Area
                && crate::rules::magic::area_needs_square(&cs.spell)
        });
    // An unknown spell keeps the field the request used.
    let unknown = a
        .spell
        .is_none_or(|s| ep.spec(actor).spellbook().get(s).is_none());
    if area || (unknown && a.target_pos.is_some()) {
        "target_pos"
    } else {
        "target"
    }
}

/// The reason in words and the field at fault of refusal `r` of action `a` at decision `d`
/// — one arm per [`Reject`] variant.
fn describe(
    ep: &Episode,
    d: &Decision,
    cx: Option<&Ctx<'_>>,
    a: &Action,
    r: &Reject,
) -> (String, &'static str) {
    let actor = d.actor;
    let who = name(ep, actor);
    let kind = a.kind.name();
    let moves = matches!(
        a.kind,
        ActionKind::Move
            | ActionKind::FiveFootStep
            | ActionKind::Withdraw
            | ActionKind::Run
            | ActionKind::SpringAttack
            | ActionKind::ShotOnTheRun
    );
    match r {
        Reject::MissingTarget => {
            if a.kind == ActionKind::CastSpell {
                let f = spell_target_field(ep, actor, a);
                let spell = a.spell.and_then(|s| ep.spec(actor).spellbook().get(s));
                match spell {
                    // A creature spell aimed at a square: it has a target_pos; what it
                    // lacks is the creature.
                    Some(cs) if f == "target" && a.target_pos.is_some() => (
                        format!(
                            "{} targets a creature: give a target combatant, not a target_pos square",
                            cs.spell.name
                        ),
                        "target",
                    ),
                    _ => (format!("{kind} needs a {f}"), f),
                }
            } else if moves || a.kind == ActionKind::FiveFootStep {
                (
                    format!("{kind} needs a destination square [row, col]"),
                    "destination",
                )
            } else {
                (format!("{kind} needs a target combatant"), "target")
            }
        }
        Reject::InvalidTarget { target, why } => {
            let tn = target.map_or_else(|| "the target".to_string(), |t| name(ep, t));
            let field = match why {
                TargetIssue::NotAnAlly => "ally",
                _ => "target",
            };
            let s = match why {
                TargetIssue::NoSuchCombatant => {
                    format!("{tn} does not exist ({} combatants)", ep.n())
                }
                TargetIssue::Itself => format!("{tn} is the actor itself"),
                TargetIssue::Ally => format!("{tn} is an ally of {who}, not an enemy"),
                TargetIssue::Unconscious => format!(
                    "{tn} is {}",
                    target.map_or("not conscious", |t| life_word(ep.life_state(t)))
                ),
                TargetIssue::AlreadyGrappling => format!("{tn} is already in a grapple"),
                TargetIssue::CannotBeTripped => {
                    format!("{tn} cannot be tripped (no legs, flying, or never trippable)")
                }
                TargetIssue::NothingHeld => format!("{tn} holds no weapon to disarm or sunder"),
                TargetIssue::NotTheGrappler => format!("{tn} is not the creature grappling {who}"),
                TargetIssue::NotTheProvoker => match &d.kind {
                    DecisionKind::AttackOfOpportunity { provoker, .. } => format!(
                        "{tn} did not provoke: the attack of opportunity is against {}",
                        name(ep, *provoker)
                    ),
                    _ => format!("{tn} is not the provoker"),
                },
                TargetIssue::DeclineTakesNone => {
                    format!("{kind} takes no target (it names {tn})")
                }
                TargetIssue::NotAnAlly => format!("{tn} is not an ally of {who}"),
                TargetIssue::Dead => format!("{tn} is dead"),
                TargetIssue::NotTheCaster => {
                    format!("a personal spell targets its caster {who}, not {tn}")
                }
            };
            (s, field)
        }
        Reject::WeaponUnavailable { weapon } => match (&d.kind, weapon) {
            (DecisionKind::AttackOfOpportunity { weapons, .. }, Some(w))
                if a.kind == ActionKind::AttackOfOpportunity =>
            {
                (
                    format!(
                        "the {} is not offered for this attack of opportunity; offered: {}",
                        weapon_name(ep, actor, *w),
                        weapons
                            .iter()
                            .map(|&x| weapon_name(ep, actor, x))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    "weapon",
                )
            }
            (k, Some(w)) if k.is_reaction() => {
                (format!("{kind} takes no weapon (it names weapon {w})"), "weapon")
            }
            (_, Some(w)) => {
                let x = ep.spec(actor).attacks.get(*w);
                let s = if a.kind == ActionKind::Charge && x.is_some_and(|x| x.is_ranged()) {
                    format!("the {} is a ranged weapon: a charge attacks in melee", x.map_or("", |x| &x.name))
                } else if matches!(a.kind, ActionKind::Move | ActionKind::Run) && a.target.is_none() {
                    format!("{kind} takes no weapon without a target")
                } else {
                    weapon_words(ep, actor, *w, a.target)
                };
                (s, "weapon")
            }
            (_, None) => (
                format!("none of {who}'s weapons is in hand and usable (dropped, destroyed or sheathed)"),
                "weapon",
            ),
        },
        Reject::NoWeapon => {
            let what = if a.kind == ActionKind::Charge || a.kind == ActionKind::CoupDeGrace {
                "melee weapon"
            } else {
                "weapon"
            };
            (format!("{who} has no usable {what}"), "weapon")
        }
        Reject::NoLineOfEffect => {
            if let Some(p) = a.target_pos {
                (no_loe_words(ep, actor, p, "the square"), "target_pos")
            } else if let Some(t) = a.target.filter(|t| (t.0 as usize) < ep.n()) {
                (no_loe_words(ep, actor, ep.position(t), &name(ep, t)), "target")
            } else {
                ("no line of effect".into(), "target")
            }
        }
        Reject::OutOfRange => {
            let t = a.target.filter(|t| (t.0 as usize) < ep.n());
            if a.kind == ActionKind::CastSpell {
                let f = spell_target_field(ep, actor, a);
                let range = a
                    .spell
                    .and_then(|s| ep.spec(actor).spellbook().get(s))
                    .map(|cs| crate::rules::magic::range_ft(ep, actor, cs));
                let (dist, what) = match (a.target_pos, t) {
                    (Some(p), _) => (
                        crate::rules::magic::distance_to_cell_ft(ep, actor, p),
                        format!("{p}"),
                    ),
                    (None, Some(t)) => (crate::rules::magic::distance_ft(ep, actor, t), name(ep, t)),
                    _ => (0, "the target".into()),
                };
                let sn = a.spell.map_or_else(String::new, |s| spell_name(ep, actor, s));
                (
                    format!(
                        "{what} is {dist} ft away; {sn}'s range is {} ft",
                        range.unwrap_or(0)
                    ),
                    f,
                )
            } else if a.kind == ActionKind::Charge {
                let s = t
                    .and_then(|t| {
                        crate::rules::charge::charge_obstacle(ep, actor, t, a.weapon)
                            .map(|b| charge_words(ep, actor, t, b))
                    })
                    .unwrap_or_else(|| "the charge line is longer than twice the speed".into());
                (s, "target")
            } else if let Some(t) = t {
                // A weapon chosen by the engine (no `weapon`): each weapon's range.
                let n = ep.spec(actor).attacks.len();
                let w = a.weapon.map_or_else(|| (0..n).collect::<Vec<_>>(), |w| vec![w]);
                let pos = ep.position(actor);
                let parts: Vec<String> = w
                    .into_iter()
                    .filter(|&w| w < n && ep.weapon_usable(actor, w))
                    .filter_map(|w| {
                        crate::rules::weapons::can_weapon_attack(ep, actor, pos, w, t)
                            .err()
                            .map(|r| range_words(ep, actor, w, t, &r))
                    })
                    .collect();
                let s = if parts.is_empty() {
                    format!(
                        "{} is {} ft away: out of range",
                        name(ep, t),
                        crate::rules::ranged::distance_ft_from(ep, actor, pos, t)
                    )
                } else {
                    parts.join("; ")
                };
                (s, "target")
            } else {
                ("out of range".into(), "target")
            }
        }
        Reject::OutOfAmmunition { weapon } => (
            format!("the {} has no ammunition left", weapon_name(ep, actor, *weapon)),
            "weapon",
        ),
        Reject::NoChargePath => {
            let s = a
                .target
                .filter(|t| (t.0 as usize) < ep.n())
                .and_then(|t| {
                    crate::rules::charge::charge_obstacle(ep, actor, t, a.weapon)
                        .map(|b| charge_words(ep, actor, t, b))
                })
                .unwrap_or_else(|| "no straight, clear charge line to the target".into());
            (s, "target")
        }
        Reject::UnreachableDestination => match a.destination {
            Some(dest) => (destination_words(ep, cx, a, dest), "destination"),
            None => {
                let tn = a.target.map_or_else(|| "the target".into(), |t| name(ep, t));
                let speed = cx.map_or(0, |c| c.speed_ft());
                (
                    format!(
                        "no square from which to attack {tn} is within {who}'s {speed} ft of movement"
                    ),
                    "target",
                )
            }
        },
        Reject::InvalidDestination => {
            if let DecisionKind::StepUp { squares, .. } = &d.kind {
                let offered = squares
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                let s = match a.destination {
                    Some(c) if a.kind == ActionKind::FiveFootStep => {
                        format!("Step Up offers {offered}, not {c}")
                    }
                    _ => format!("{kind} takes no destination or other parameter"),
                };
                return (s, "destination");
            }
            if d.kind.is_reaction() {
                let f = if a.maneuver.is_some() {
                    "maneuver"
                } else if a.readied.is_some() {
                    "readied"
                } else if a.trigger.is_some() {
                    "trigger"
                } else {
                    "destination"
                };
                return (format!("{kind} takes no {f}"), f);
            }
            if a.kind == ActionKind::CastSpell {
                let g = &ep.enc.grid;
                let s = match a.target_pos {
                    Some(p) if !g.in_bounds(p) => format!(
                        "{p} is off the map ({} rows × {} columns)",
                        g.rows, g.cols
                    ),
                    Some(p) => format!(
                        "{} cannot be aimed at {p} (a cone or line needs a square outside the caster's own; a spell centred on the caster or a creature-targeted one takes no target_pos)",
                        a.spell.map_or_else(String::new, |s| spell_name(ep, actor, s))
                    ),
                    None => "this spell takes no target or square".into(),
                };
                return (s, "target_pos");
            }
            let s = match a.destination {
                Some(c) => format!("{c} is not a valid destination for {kind}"),
                None => format!("{kind} takes no destination"),
            };
            (s, "destination")
        }
        Reject::AlreadyMoved => {
            let s = if cx.is_some_and(|c| c.stepped) && a.kind == ActionKind::Move {
                format!("{who} took a 5-foot step this turn: no other movement")
            } else {
                format!("{who} already moved this turn: no {kind} after other movement")
            };
            (s, "")
        }
        Reject::DowngradedActionEconomy { slot } => {
            let s = if *slot == Slot::FullRound {
                format!(
                    "{kind} is a full-round action: {who} already spent part of this turn{}",
                    budget_left(cx)
                )
            } else {
                format!(
                    "{who}'s {} is already spent this turn{}",
                    slot_words(*slot),
                    budget_left(cx)
                )
            };
            (s, "")
        }
        Reject::DowngradedDisabled { slot } => (
            format!(
                "{who} is disabled (0 hp): one move or standard action per turn, and the {} is not available{}",
                slot_words(*slot),
                budget_left(cx)
            ),
            "",
        ),
        Reject::DowngradedSurprise { slot } => (
            format!(
                "in the surprise round {who} has one standard or move action: no {} now{}",
                slot_words(*slot),
                budget_left(cx)
            ),
            "",
        ),
        Reject::DowngradedStaggered { slot } => (
            format!(
                "{who} is staggered: one move or standard action per turn, no {} now{}",
                slot_words(*slot),
                budget_left(cx)
            ),
            "",
        ),
        Reject::DowngradedNauseated { slot } => (
            format!(
                "{who} is nauseated: its single {} is already spent",
                slot_words(*slot)
            ),
            "",
        ),
        Reject::CannotAct { condition } => (
            match condition {
                Some(c) => format!("{who} is {}: it cannot act", condition_words(ep, actor, *c)),
                None => format!("{who} is {}: it cannot act", life_word(ep.life_state(actor))),
            },
            "",
        ),
        Reject::PreventedByCondition { condition } => (
            format!(
                "{who} is {}: it prevents {kind}",
                condition_words(ep, actor, *condition)
            ),
            "",
        ),
        Reject::TurnEnded => (
            "the turn ended before this action (an end_turn or the last action of the budget came first)".into(),
            "",
        ),
        Reject::NotProne => (format!("{who} is not prone"), ""),
        Reject::AlreadyProne => (format!("{who} is already prone"), ""),
        Reject::NoPowerAttack => (format!("{who} does not have Power Attack"), "kind"),
        Reject::TargetTooLarge => {
            let tn = a.target.map_or_else(|| "the target".into(), |t| name(ep, t));
            let m = a.maneuver.map_or("this maneuver", |m| m.name());
            (
                format!("{tn} is more than one size category larger than {who}: no {m}"),
                "target",
            )
        }
        Reject::NotGrappled => (
            format!(
                "{who} is not in the grapple this needs ({} is for a grappled creature or its grappler)",
                a.maneuver.map_or("escape or pin", |m| m.name())
            ),
            "maneuver",
        ),
        Reject::MissingManeuver => (
            "a maneuver action needs \"maneuver\" (trip, disarm, bull_rush…)".into(),
            "maneuver",
        ),
        Reject::CannotRun => (
            format!("{who} is resting after a failed Constitution check to keep running"),
            "",
        ),
        Reject::WrongDecisionKind => {
            let s = match &d.kind {
                DecisionKind::TurnAction => format!(
                    "{kind} answers a reaction decision; this is {who}'s turn"
                ),
                DecisionKind::AttackOfOpportunity { provoker, stand_still, .. } => format!(
                    "{who} is offered an attack of opportunity against {}: answer with attack_of_opportunity{} or decline",
                    name(ep, *provoker),
                    if *stand_still { ", stand_still" } else { "" }
                ),
                DecisionKind::ReadiedTrigger { trigger_by, .. } => format!(
                    "{}'s action triggers {who}'s readied action: answer with fire_readied or decline",
                    name(ep, *trigger_by)
                ),
                DecisionKind::StepUp { foe, .. } => format!(
                    "{} stepped away: answer with a 5foot_step (Step Up) or decline",
                    name(ep, *foe)
                ),
            };
            (s, "kind")
        }
        Reject::DecisionAnswered => (
            "an earlier action of the list already answered this reaction".into(),
            "kind",
        ),
        Reject::FightingDefensively => (
            format!(
                "{who} fights defensively this turn: it goes with an attack or a full attack only (no {kind})"
            ),
            "kind",
        ),
        Reject::AlreadyDelayed => (format!("{who} already delayed this round"), ""),
        Reject::AlreadyActed => (
            format!("{who} already acted this turn: delaying is taking no action, so only first"),
            "",
        ),
        Reject::InvalidDelay => (
            match a.target.filter(|t| (t.0 as usize) < ep.n()) {
                Some(t) => format!("{} does not act later this round", name(ep, t)),
                None => "nobody acts after this combatant this round".into(),
            },
            "target",
        ),
        Reject::InvalidReady { why } => {
            let field = match why {
                ReadyIssue::MissingReadied
                | ReadyIssue::UnsupportedReadied
                | ReadyIssue::BadPayload => "readied",
                ReadyIssue::MissingTrigger
                | ReadyIssue::WrongTriggerSide
                | ReadyIssue::BadDistance => "trigger",
            };
            let s = match why {
                ReadyIssue::MissingReadied => "ready needs the readied action (\"readied\")".into(),
                ReadyIssue::UnsupportedReadied => format!(
                    "{} cannot be readied: only attack, maneuver (not overrun or drag), move or 5foot_step",
                    a.readied.as_ref().map_or("this", |r| r.kind.name())
                ),
                ReadyIssue::MissingTrigger => "ready needs a trigger (\"trigger\": {\"event\": …})".into(),
                ReadyIssue::WrongTriggerSide => {
                    let by = a.trigger.and_then(|t| t.by()).map_or_else(|| "the creature".into(), |b| name(ep, b));
                    format!(
                        "{by} is of the wrong side for the event {}",
                        a.trigger.map_or("", |t| t.name())
                    )
                }
                ReadyIssue::BadDistance => "enemy_within takes 5 to 120 ft in steps of 5".into(),
                ReadyIssue::BadPayload => {
                    "the readied action's target is not an enemy, or its move has no destination".into()
                }
            };
            (s, field)
        }
        Reject::MissingFeat => {
            let (s, f) = match a.kind {
                ActionKind::CastSpell => (
                    format!(
                        "{who} lacks the metamagic feat: {}",
                        a.metamagic
                            .iter()
                            .filter(|m| !ep.spec(actor).has_feat(m.feat()))
                            .map(|m| m.name())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    "metamagic",
                ),
                ActionKind::ActivateMetamagic => {
                    (format!("{who} lacks this metamagic feat"), "metamagic")
                }
                _ => (format!("{kind} needs a feat {who} lacks"), "kind"),
            };
            (s, f)
        }
        Reject::AdjacentAtStart => (
            format!(
                "{} was adjacent to {who} at the start of its turn: Spring Attack cannot target it",
                a.target.map_or_else(|| "the target".into(), |t| name(ep, t))
            ),
            "target",
        ),
        Reject::StoodStill => (
            format!("a foe's Stand Still stopped {who}: no more movement this turn"),
            "",
        ),
        Reject::FeatNotApplicable => {
            let s = if a.kind == ActionKind::StandStill {
                "Stand Still is offered only when the provoker leaves a square adjacent to the answerer".to_string()
            } else {
                format!("{kind} does not apply now (already declared this turn)")
            };
            (s, "kind")
        }
        Reject::NoDeadlyAim => (format!("{who} does not have Deadly Aim"), "kind"),
        Reject::NoCombatExpertise => (format!("{who} does not have Combat Expertise"), "kind"),
        Reject::NotEngaged => (
            format!(
                "{} and {} do not threaten each other: aid another needs the opponent engaging the ally in melee",
                a.target.map_or_else(|| "the opponent".into(), |t| name(ep, t)),
                a.ally.map_or_else(|| "the ally".into(), |t| name(ep, t))
            ),
            "target",
        ),
        Reject::NotHelpless => (
            format!(
                "{} is not helpless (a coup de grace needs an unconscious, paralyzed or otherwise helpless target)",
                a.target.map_or_else(|| "the target".into(), |t| name(ep, t))
            ),
            "target",
        ),
        Reject::ImmuneToCriticalHits => (
            format!(
                "{} is immune to critical hits: no coup de grace",
                a.target.map_or_else(|| "the target".into(), |t| name(ep, t))
            ),
            "target",
        ),
        Reject::HandsFull => (
            format!("{who} has no free hand for {kind}"),
            "weapon",
        ),
        Reject::TargetConcealed => (
            format!(
                "{} has total concealment from {who}: no coup de grace",
                a.target.map_or_else(|| "the target".into(), |t| name(ep, t))
            ),
            "target",
        ),
        Reject::InvalidDirection => {
            let s = if a.kind == ActionKind::Maneuver
                && a.maneuver == Some(crate::actions::Maneuver::BullRush)
            {
                "a bull rush pushes straight back from the attacker (or along one of the directions next to it)".to_string()
            } else {
                format!("{kind} takes no direction")
            };
            (s, "direction")
        }
        Reject::MissingSpell => ("cast_spell needs \"spell\"".into(), "spell"),
        Reject::UnknownSpell { spell } => {
            let book = ep.spec(actor).spellbook();
            (
                format!(
                    "{who} has no spell {spell}; spells: {}",
                    if book.is_empty() {
                        "none".to_string()
                    } else {
                        book.iter()
                            .map(|c| c.spell.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
                "spell",
            )
        }
        Reject::DowngradedCastTime => (
            format!(
                "{} takes 1 minute or more to cast: not in combat",
                a.spell.map_or_else(String::new, |s| spell_name(ep, actor, s))
            ),
            "spell",
        ),
        Reject::NoSlot { level } => {
            let sn = a.spell.map_or_else(String::new, |s| spell_name(ep, actor, s));
            let f = if a.metamagic.is_empty() { "spell" } else { "metamagic" };
            (
                if *level > 9 {
                    format!("{sn} with this metamagic would need a level-{level} slot (9 at most)")
                } else {
                    format!("{who} has no spell slot of level {level} (or use of {sn}) left")
                },
                f,
            )
        }
        Reject::NoSpells => (format!("{who} has no spells"), "kind"),
        Reject::AlreadyDeclared => (format!("{kind} was already declared this turn"), "kind"),
        Reject::MetamagicNotApplicable => (
            format!(
                "metamagic does not apply to {}: only a spell cast from a slot (not a prepared copy or a spell-like ability), no Quicken on a full-round spell, one feat per activate_metamagic",
                a.spell.map_or_else(|| "this cast".to_string(), |s| spell_name(ep, actor, s))
            ),
            "metamagic",
        ),
    }
}
