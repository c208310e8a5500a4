//! The built-in default policy (the seed's `default_policy`), used for every combatant that no
//! external agent controls.
//!
//! For the nearest conscious enemy (5-10-5 distance between footprints; ties by list order):
//! 1. **full attack** if a weapon of the preferred mode can attack it from here;
//! 2. else **charge** if a straight clear line exists (melee fighters);
//! 3. else **5-foot step + full attack** if one step brings it into reach / range;
//! 4. else **move + attack**: move toward the closest square from which the preferred weapon
//!    can attack, then attack with the first weapon that can (the seed's `weapon_for`).
//!
//! Rules of thumb of the menu actions (ours; issue 11), applied only when that plan attacks
//! no one this turn (no attack, full attack or charge, and no move after which a weapon can
//! attack the enemy) and no conscious enemy can be attacked from where it stands:
//! - (b) **coup de grace** (full-round action, its budget intact) on the first helpless enemy
//!   (list order: dying, stable, paralyzed, asleep…) that one of its weapons can finish from
//!   here (CRB — Combat: Coup de Grace);
//! - (a) else **total defense** (+4 dodge AC, CRB — Actions in Combat: Total Defense) when an
//!   enemy threatens it, taken before the plan's move toward the enemy if there is one (the
//!   +4 counts against the attacks of opportunity of that move); a combatant limited to one
//!   action takes total defense alone.
//!
//! Conditions (ours; the seed's policy ignores them): a turn lost to a condition never reaches
//! the policy. A **frightened** or **panicked** combatant flees: it withdraws (2× speed, 1×
//! as a standard action when staggered or disabled; the first square does not provoke) to
//! the reachable square farthest from the nearest enemy, if that is farther than where it
//! stands and the rules accept that withdraw; if it cannot get farther, a frightened
//! combatant fights as usual (CRB: "if unable to flee, it may fight") and a panicked one does
//! nothing (cowers). A combatant that **cannot attack** (nauseated, pinned) only moves toward the
//! enemy when no weapon reaches. A **staggered** combatant (one action) attacks once from
//! here, or 5-foot steps and attacks once, or moves.
//!
//! Preparations (ours; each comes alone and the policy plans again after it with the budget
//! left — [`is_preparatory`]): a **prone** combatant that can move **stands up** first (a
//! move action that provokes; the rest of the turn is a single action); a combatant whose
//! dropped weapon lies within reach **picks it up** (move action) when that weapon has a
//! better attack bonus than every weapon it still holds (or it holds none); likewise it
//! **draws** a sheathed weapon (`draw_weapon`) better than every weapon in hand when its
//! hands allow; with the **Power
//! Attack** feat it turns the toggle on exactly when it pays against the nearest enemy with
//! its best melee weapon: expected damage `p(hit at bonus − X) × (avg + kX)` above
//! `p(hit at bonus) × avg` (p = (21 + bonus − AC) / 20 clamped to [0.05, 0.95], AC = the
//! printed total, avg = average weapon damage, k = 2, 3 two-handed, 1 secondary natural, 0 a
//! melee touch attack, which therefore never pays), off otherwise and for ranged-first
//! combatants. A **pinned** combatant tries to escape. No
//! maneuver is chosen by the policy; the Trip rider (wolf) is part of the attack itself.
//!
//! "Ranged attackers shoot": the preferred mode is that of the attack with the best attack
//! bonus (ties: list order) — the goblin (short bow +4 vs short sword +2) shoots, the orc
//! (falchion +5 vs javelin +1) closes in. A ranged attacker threatened in melee uses its melee
//! weapon when it reaches (shooting would provoke). This tie-break is ours: the seed used the
//! first usable weapon in list order.

use crate::actions::space::STEP_DIRECTIONS;
use crate::actions::{Action, ActionKind, CombatantId, Maneuver};
use crate::effects::conditions::Condition;
use crate::episode::Episode;
use crate::geometry::grid::{self, Cell};
use crate::rules;

/// The nearest conscious enemy of `a`, if any.
pub(crate) fn nearest_enemy(ep: &Episode, a: CombatantId) -> Option<CombatantId> {
    let pos = ep.position(a);
    ep.ids()
        .filter(|&t| t != a && ep.enemies(a, t) && ep.conscious(t))
        .min_by_key(|&t| {
            (
                grid::footprint_distance_squares(pos, ep.fp_side(a), ep.position(t), ep.fp_side(t)),
                t.0,
            )
        })
}

/// Whether the combatant prefers ranged attacks (its best attack bonus is a ranged attack).
pub(crate) fn prefers_ranged(ep: &Episode, a: CombatantId) -> bool {
    let attacks = &ep.spec(a).attacks;
    let mut best: Option<(i32, bool)> = None;
    for w in attacks {
        if best.is_none_or(|(b, _)| w.attack_bonus > b) {
            best = Some((w.attack_bonus, w.is_ranged()));
        }
    }
    best.is_some_and(|(_, r)| r)
}

/// First weapon of the wanted mode (ranged or melee) that can attack `t` from `from`.
pub(crate) fn weapon_of_mode(
    ep: &Episode,
    a: CombatantId,
    from: Cell,
    t: CombatantId,
    ranged: bool,
) -> Option<usize> {
    let attacks = &ep.spec(a).attacks;
    (0..attacks.len()).find(|&w| {
        attacks[w].is_ranged() == ranged
            && rules::weapons::can_weapon_attack(ep, a, from, w, t).is_ok()
    })
}

/// The weapon to use from `from` against `t`, following the preferred mode.
pub(crate) fn pick_weapon(
    ep: &Episode,
    a: CombatantId,
    from: Cell,
    t: CombatantId,
    threatened: bool,
) -> Option<usize> {
    let melee = weapon_of_mode(ep, a, from, t, false);
    if prefers_ranged(ep, a) {
        if threatened && melee.is_some() {
            return melee;
        }
        weapon_of_mode(ep, a, from, t, true).or(melee)
    } else {
        melee
    }
}

pub(crate) fn with(
    kind: ActionKind,
    target: CombatantId,
    weapon: Option<usize>,
    dest: Option<Cell>,
) -> Action {
    Action {
        kind,
        target: Some(target),
        destination: dest,
        weapon,
        ..Action::new(kind)
    }
}

/// Kinds the policy returns alone, planning again after them.
pub(crate) fn is_preparatory(kind: ActionKind) -> bool {
    matches!(
        kind,
        ActionKind::StandUp
            | ActionKind::RetrieveWeapon
            | ActionKind::ActivatePowerAttack
            | ActionKind::DrawWeapon
    )
}

/// Average damage of attack `wi` of `spec`: its dice plus its flat bonus.
pub(crate) fn average_damage(spec: &crate::content::combatant::CombatantSpec, wi: usize) -> f64 {
    let mut avg = spec.attacks[wi].damage_bonus as f64;
    for c in &spec.resolved().damage[wi] {
        avg += (c.dice.min() + c.dice.max()) as f64 / 2.0;
    }
    avg
}

/// Whether Power Attack pays for `a` against `t` (rule in the module doc).
pub(crate) fn power_attack_pays(ep: &Episode, a: CombatantId, t: CombatantId) -> bool {
    if prefers_ranged(ep, a) {
        return false;
    }
    let attacks = &ep.spec(a).attacks;
    let Some(w) = (0..attacks.len())
        .filter(|&w| !attacks[w].is_ranged() && ep.weapon_usable(a, w))
        .max_by_key(|&w| (attacks[w].attack_bonus, std::cmp::Reverse(w)))
    else {
        return false;
    };
    let wi = w;
    let w = &attacks[w];
    let x = crate::rules::power_attack::power_attack_x(ep, a);
    let bonus = crate::rules::power_attack::power_attack_damage(ep.spec(a), w, x) as f64;
    let x = x as f64;
    let ac = ep.spec(t).ac.total as f64;
    let p = |b: f64| ((21.0 + b - ac) / 20.0).clamp(0.05, 0.95);
    let b = w.attack_bonus as f64;
    let avg = average_damage(ep.spec(a), wi);
    p(b - x) * (avg + bonus) > p(b) * avg
}

/// A preparatory action for this turn, if one is due (see the module doc); the Power Attack
/// toggle only when `power_attack` (a tactics spec decides it otherwise).
fn preparation(ep: &Episode, a: CombatantId, t: CombatantId, power_attack: bool) -> Option<Action> {
    let budget = ep.budget(a);
    let cant_move = ep.cond_flag(a, |d| d.cant_move);
    if ep.has_condition(a, Condition::Prone) && budget.move_action && !cant_move {
        return Some(Action::new(ActionKind::StandUp));
    }
    let attacks = &ep.spec(a).attacks;
    if budget.move_action && !ep.turn.move_used {
        let best_held = (0..attacks.len())
            .filter(|&w| ep.weapon_usable(a, w))
            .map(|w| attacks[w].attack_bonus)
            .max();
        let retrieve = (0..attacks.len())
            .filter(|&w| crate::rules::items::can_retrieve(ep, a, w))
            .filter(|&w| best_held.is_none_or(|b| attacks[w].attack_bonus > b))
            .max_by_key(|&w| (attacks[w].attack_bonus, std::cmp::Reverse(w)));
        if let Some(w) = retrieve {
            let mut act = Action::new(ActionKind::RetrieveWeapon);
            act.weapon = Some(w);
            return Some(act);
        }
    }
    // A sheathed weapon better than every weapon in hand (or none in hand): draw it.
    let best_held = (0..attacks.len())
        .filter(|&w| ep.weapon_usable(a, w))
        .map(|w| attacks[w].attack_bonus)
        .max();
    let draw = (0..attacks.len())
        .filter(|&w| ep.weapon_sheathed(a, w))
        .filter(|&w| best_held.is_none_or(|b| attacks[w].attack_bonus > b))
        .max_by_key(|&w| (attacks[w].attack_bonus, std::cmp::Reverse(w)))
        .map(|w| Action {
            weapon: Some(w),
            ..Action::new(ActionKind::DrawWeapon)
        });
    if let Some(act) = draw.filter(|act| ep.check(a, act).is_ok()) {
        return Some(act);
    }
    if power_attack
        && ep
            .spec(a)
            .has_feat(crate::content::feats::Feat::PowerAttack)
        && power_attack_pays(ep, a, t) != ep.power_attack_on(a)
    {
        let toggle = Action::new(ActionKind::ActivatePowerAttack);
        // A nauseated combatant may take no free action.
        if ep.check(a, &toggle).is_ok() {
            return Some(toggle);
        }
    }
    None
}

/// What the default policy does next in a turn: `actions` in order (empty: end the turn),
/// then `then` if the rules accept it once they are done.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct PolicyPlan {
    pub actions: Vec<Action>,
    pub then: Option<Action>,
}

impl From<Vec<Action>> for PolicyPlan {
    fn from(actions: Vec<Action>) -> Self {
        PolicyPlan {
            actions,
            then: None,
        }
    }
}

/// The default policy's plan for `a`'s turn now (see the module doc).
pub(crate) fn default_policy(ep: &Episode, a: CombatantId) -> PolicyPlan {
    plan(ep, a)
}

fn plan(ep: &Episode, a: CombatantId) -> PolicyPlan {
    let Some(t) = nearest_enemy(ep, a) else {
        return PolicyPlan::default();
    };
    if let Some(p) = forced(ep, a, t, true) {
        return p;
    }
    let threatened = is_threatened(ep, a);
    let p = attack_plan(ep, a, t, threatened);
    finish(ep, a, t, threatened, p, None)
}

/// Whether an enemy threatens `a` where it stands.
pub(crate) fn is_threatened(ep: &Episode, a: CombatantId) -> bool {
    let pos = ep.position(a);
    ep.ids()
        .any(|x| x != a && ep.enemies(a, x) && rules::reach::threatens(ep, x, a, pos))
}

/// The part of the default policy that comes before any choice of attack (the module doc's
/// conditions and preparations), aimed at `t`: a frightened or panicked combatant flees, a
/// pinned one escapes, then a preparation (stand up, pick up, draw; the Power Attack toggle
/// only when `power_attack`), then a combatant that cannot attack only moves toward `t`.
/// `None`: nothing forced, the attack plan comes next.
pub(crate) fn forced(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    power_attack: bool,
) -> Option<PolicyPlan> {
    let pos = ep.position(a);
    let threatened = is_threatened(ep, a);
    if ep.cond_flag(a, |d| d.flees) {
        if let Some(dest) = flee_square(ep, a, t) {
            return Some(
                vec![Action {
                    destination: Some(dest),
                    ..Action::new(ActionKind::Withdraw)
                }]
                .into(),
            );
        }
        if ep.cond_flag(a, |d| d.cant_attack) {
            return Some(PolicyPlan::default());
        }
    }
    // Pinned: try to escape (CRB — Conditions: Pinned).
    if ep.has_condition(a, Condition::Pinned) && ep.budget(a).standard {
        if let Some(g) = ep.grappled_with(a) {
            let mut act = with(ActionKind::Maneuver, g, None, None);
            act.maneuver = Some(Maneuver::Escape);
            if ep.check(a, &act).is_ok() {
                return Some(vec![act].into());
            }
        }
    }
    if !ep.cond_flag(a, |d| d.cant_act) {
        if let Some(p) = preparation(ep, a, t, power_attack) {
            return Some(vec![p].into());
        }
    }
    if ep.cond_flag(a, |d| d.cant_attack) {
        if pick_weapon(ep, a, pos, t, threatened).is_some() {
            return Some(PolicyPlan::default());
        }
        let squares = (ep.speed_ft(a) / grid::SQUARE_FT).max(0) as u32;
        return Some(
            match rules::movement::path_toward(ep, a, t, None, squares) {
                Some(_) => vec![with(ActionKind::Move, t, None, None)].into(),
                None => PolicyPlan::default(),
            },
        );
    }
    None
}

/// The end of the default policy once the attack plan `p` against `t` is known: the spell
/// choice (`spell_plan`; its offence tries `focus` first when given), else the menu rules
/// applied to `p`.
pub(crate) fn finish(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    threatened: bool,
    p: PolicyPlan,
    focus: Option<CombatantId>,
) -> PolicyPlan {
    if !ep.spec(a).spellbook().is_empty() {
        let attacks = plan_attacks(ep, a, t, &p);
        if let Some(cast) = spell_plan(ep, a, threatened, attacks, focus) {
            return vec![cast].into();
        }
    }
    menu_rules(ep, a, t, threatened, p)
}

/// What a spell does, as far as the policy's choice goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SpellRole {
    Heal,
    Buff,
    Offence,
    Other,
}

fn role(spell: &crate::content::spells::SpellSpec) -> SpellRole {
    use crate::content::spells::{CreatureFilter, SpellEffect};
    if spell.effects.iter().any(|e| {
        matches!(e, SpellEffect::Heal { creatures, .. } if *creatures != CreatureFilter::Undead)
    }) {
        return SpellRole::Heal;
    }
    if spell.effects.iter().any(|e| {
        matches!(
            e,
            SpellEffect::Damage { .. }
                | SpellEffect::Condition { .. }
                | SpellEffect::Dispel { .. }
                | SpellEffect::ResumeDying { .. }
                | SpellEffect::Phases { .. }
        ) || matches!(e, SpellEffect::Special { name } if name == "slow")
    }) {
        return SpellRole::Offence;
    }
    if spell.effects.iter().any(|e| {
        matches!(e, SpellEffect::Buff { modifiers, .. } if modifiers.iter().all(|m| m.value > 0))
            || matches!(e, SpellEffect::MirrorImage { .. })
            || matches!(e, SpellEffect::Special { name } if name != "slow")
    }) {
        return SpellRole::Buff;
    }
    SpellRole::Other
}

/// The default policy's spell choice (the seed's, in its order; ours in the details): with
/// its standard action free, (1) **heal** the most wounded ally in range (itself included)
/// at half its hit points or less, or dying; (2) an **area** spell aimed at an enemy's
/// square (or toward it) that affects at least two enemies and no ally; (3) a **buff** not
/// already on it, before melee (no enemy threatens it); (4) **offence**: the highest-level
/// spell that can affect the nearest enemy it can reach — cantrips only when its weapons
/// attack no one this turn (`attacks`). Slots are spent on a creature only when the spell
/// can affect it as far as the observation tells (creature type, energy immunity,
/// mind-affecting vs undead and constructs — `rules::magic::can_affect`). Long casting
/// times are never chosen (they are refused anyway).
fn spell_plan(
    ep: &Episode,
    a: CombatantId,
    threatened: bool,
    attacks: bool,
    focus: Option<CombatantId>,
) -> Option<Action> {
    use crate::content::spells::Targeting;
    use rules::magic::can_affect;
    let book = ep.spec(a).spellbook();
    let cast = |si: usize, target: Option<CombatantId>, at: Option<Cell>| Action {
        spell: Some(si),
        target,
        target_pos: at,
        ..Action::new(ActionKind::CastSpell)
    };
    let ok = |x: &Action| ep.check(a, x).is_ok();
    // Spells by level, highest first (ties: spellbook order).
    let mut order: Vec<usize> = (0..book.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(book[i].level), i));
    let allies: Vec<CombatantId> = ep
        .ids()
        .filter(|&x| !ep.enemies(a, x) && ep.life_state(x) != crate::episode::LifeState::Dead)
        .collect();
    let enemies: Vec<CombatantId> = ep
        .ids()
        .filter(|&x| ep.enemies(a, x) && ep.conscious(x))
        .collect();
    // (1) Heal.
    let mut wounded: Vec<CombatantId> = allies
        .iter()
        .copied()
        .filter(|&x| {
            let max = ep.spec(x).max_hp();
            ep.st[rules::idx(x)].hp * 2 <= max
        })
        .collect();
    wounded.sort_by_key(|&x| (ep.st[rules::idx(x)].hp, x.0));
    for &x in &wounded {
        for &si in &order {
            if role(&book[si].spell) == SpellRole::Heal && can_affect(ep, &book[si].spell, x) {
                let act = cast(si, Some(x), None);
                if ok(&act) {
                    return Some(act);
                }
            }
        }
    }
    // (2) Areas on clustered enemies.
    let mut best: Option<(usize, Action)> = None;
    for &si in &order {
        let spell = &book[si].spell;
        if spell.targeting != Targeting::Area || role(spell) != SpellRole::Offence {
            continue;
        }
        let aims: Vec<Action> = if rules::magic::area_needs_square(spell) {
            enemies
                .iter()
                .map(|&e| cast(si, None, Some(ep.position(e))))
                .collect()
        } else {
            vec![cast(si, Some(a), None)]
        };
        for act in aims {
            if !ok(&act) {
                continue;
            }
            let cells: std::collections::BTreeSet<Cell> =
                rules::magic::area_cells(ep, a, spell, act.target, act.target_pos)
                    .into_iter()
                    .collect();
            let inside = |x: CombatantId| ep.cells_iter(x).any(|c| cells.contains(&c));
            let includes_caster = spell.area.is_some_and(|s| s.includes_caster);
            let affects_allies = spell
                .area
                .is_none_or(|s| s.affects != crate::content::spells::Affects::Enemies);
            if affects_allies
                && allies
                    .iter()
                    .any(|&x| inside(x) && ep.conscious(x) && (x != a || includes_caster))
            {
                continue;
            }
            let n = enemies
                .iter()
                .filter(|&&x| inside(x) && can_affect(ep, spell, x))
                .count();
            if n >= 2 && best.as_ref().is_none_or(|(m, _)| n > *m) {
                best = Some((n, act));
            }
        }
    }
    if let Some((_, act)) = best {
        return Some(act);
    }
    // (3) A buff before melee.
    if !threatened {
        for &si in &order {
            let spell = &book[si].spell;
            if role(spell) != SpellRole::Buff
                || ep.st[rules::idx(a)]
                    .spell_effects
                    .iter()
                    .any(|e| e.spell == spell.name)
                || (spell
                    .effects
                    .iter()
                    .any(|e| matches!(e, crate::content::spells::SpellEffect::MirrorImage { .. }))
                    && ep.st[rules::idx(a)].mirror_images > 0)
            {
                continue;
            }
            let act = match spell.targeting {
                Targeting::Area if !rules::magic::area_needs_square(spell) => {
                    cast(si, Some(a), None)
                }
                Targeting::Area => continue,
                _ => cast(si, Some(a), None),
            };
            if ok(&act) {
                return Some(act);
            }
        }
    }
    // (4) Offence on the nearest enemy it can reach with a spell.
    let mut by_distance = enemies.clone();
    by_distance.sort_by_key(|&x| (Some(x) != focus, rules::magic::distance_ft(ep, a, x), x.0));
    for &si in &order {
        let cs = &book[si];
        if role(&cs.spell) != SpellRole::Offence || cs.spell.targeting == Targeting::Area {
            continue;
        }
        if cs.level == 0 && attacks {
            continue;
        }
        for &x in &by_distance {
            if !can_affect(ep, &cs.spell, x) || already_affected(ep, &cs.spell, x) {
                continue;
            }
            let act = cast(si, Some(x), None);
            if ok(&act) {
                return Some(act);
            }
        }
    }
    None
}

/// Whether `t` already has every condition `spell` would give (no point casting it again).
fn already_affected(
    ep: &Episode,
    spell: &crate::content::spells::SpellSpec,
    t: CombatantId,
) -> bool {
    use crate::content::spells::SpellEffect;
    let conds: Vec<&str> = spell
        .effects
        .iter()
        .filter_map(|e| match e {
            SpellEffect::Condition { condition, .. } => Some(condition.as_str()),
            _ => None,
        })
        .collect();
    let only_conditions = spell
        .effects
        .iter()
        .all(|e| matches!(e, SpellEffect::Condition { .. }));
    only_conditions
        && !conds.is_empty()
        && conds
            .iter()
            .all(|c| Condition::from_name(c).is_some_and(|c| ep.has_condition(t, c)))
}

/// Whether plan `p` of `a` against `t` attacks this turn: an attack, a full attack or a
/// charge, or a move after which an attack is possible (its path ends where a weapon can
/// attack `t`, as far as the policy can tell before any attack of opportunity).
fn plan_attacks(ep: &Episode, a: CombatantId, t: CombatantId, p: &PolicyPlan) -> bool {
    if p.actions.iter().any(|x| {
        matches!(
            x.kind,
            ActionKind::Attack | ActionKind::FullAttack | ActionKind::Charge
        )
    }) {
        return true;
    }
    let Some(mv) = p.actions.iter().find(|x| x.kind == ActionKind::Move) else {
        return false;
    };
    if p.then.is_none() {
        return false;
    }
    let squares = (ep.speed_ft(a) / grid::SQUARE_FT).max(0) as u32;
    let Some(end) = rules::movement::path_toward(ep, a, t, mv.weapon, squares)
        .and_then(|path| path.last().copied())
    else {
        return false;
    };
    (0..ep.spec(a).attacks.len())
        .any(|w| rules::weapons::can_weapon_attack(ep, a, end, w, t).is_ok())
}

/// The rules of thumb of the menu actions (see the module doc), applied to the attack plan
/// `p` only when it attacks no one this turn and no conscious enemy can be attacked from
/// where `a` stands: (b) a coup de grace on a helpless enemy in reach, else (a) total
/// defense when an enemy threatens it (before the plan's move, if any).
fn menu_rules(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    threatened: bool,
    p: PolicyPlan,
) -> PolicyPlan {
    if plan_attacks(ep, a, t, &p) {
        return p;
    }
    let pos = ep.position(a);
    let attackable = ep
        .ids()
        .filter(|&x| x != a && ep.enemies(a, x) && ep.conscious(x))
        .any(|x| rules::weapons::weapon_for(ep, a, pos, x).is_ok());
    if attackable {
        return p;
    }
    // (b) Coup de grace: the first helpless enemy (list order) a weapon can finish.
    if ep.budget(a).full_round {
        for x in ep.ids() {
            if x == a || !ep.enemies(a, x) || !rules::coup_de_grace::helpless(ep, x) {
                continue;
            }
            let cdg = Action {
                target: Some(x),
                ..Action::new(ActionKind::CoupDeGrace)
            };
            if ep.check(a, &cdg).is_ok() {
                return vec![cdg].into();
            }
        }
    }
    // (a) Total defense when threatened, then the plan's move toward the enemy (if any).
    let td = Action::new(ActionKind::TotalDefense);
    if threatened && ep.check(a, &td).is_ok() {
        let mut actions = vec![td];
        if !ep.single_action(a) {
            actions.extend(p.actions.into_iter().filter(|x| x.kind == ActionKind::Move));
        }
        return actions.into();
    }
    p
}

/// Steps 1–4 of the module doc: the attack (or approach) against the nearest enemy `t`.
pub(crate) fn attack_plan(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    threatened: bool,
) -> PolicyPlan {
    let pos = ep.position(a);
    let ranged = prefers_ranged(ep, a);
    // 1. Full attack from here (a single attack when limited to one action).
    // Staggered or disabled: one move or standard action (a disabled combatant's standard
    // action costs it 1 hp — CRB — Injury and Death: Disabled — and it takes it: an attack
    // from here, else it moves).
    // After a preparatory move action (standing up, picking up a weapon) one action is left.
    let single = ep.single_action(a) || ep.turn.move_used;
    let attack_kind = if single {
        ActionKind::Attack
    } else {
        ActionKind::FullAttack
    };
    // The slot an attack needs is still free (a staggered combatant that stood up has none).
    let budget = ep.budget(a);
    let can_attack = if single {
        budget.standard
    } else {
        budget.full_round
    };
    if let Some(w) = pick_weapon(ep, a, pos, t, threatened).filter(|_| can_attack) {
        return vec![with(attack_kind, t, Some(w), None)].into();
    }
    let can_move = !ep.cond_flag(a, |d| d.cant_move) && ep.speed_ft(a) > 0;
    // 2. Charge (melee fighters).
    if !ranged
        && can_move
        && !single
        && !ep.cond_flag(a, |d| d.no_charge)
        && rules::charge::charge_path(ep, a, t, None).is_ok()
    {
        return vec![with(ActionKind::Charge, t, None, None)].into();
    }
    // 3. One 5-foot step suffices.
    if can_move && can_attack {
        // The unbounded field: when no 5-foot step will do, the move toward the target (step
        // 4) needs it anyway, and the memo then serves it (a bound only prunes).
        let field = ep.move_field(a, None);
        for (dr, dc) in STEP_DIRECTIONS {
            let c = Cell::new(pos.row + dr, pos.col + dc);
            if !(field.can_stop(c) && field.cost(c) == Some(1)) {
                continue;
            }
            if let Some(w) = weapon_of_mode(ep, a, c, t, ranged) {
                let step = Action {
                    destination: Some(c),
                    ..Action::new(ActionKind::FiveFootStep)
                };
                // The rules may still refuse it (a speed of 5 ft or less).
                if ep.check(a, &step).is_ok() {
                    return vec![step, with(attack_kind, t, Some(w), None)].into();
                }
            }
        }
    }
    // 4. Move toward a square of the preferred mode, then attack with whatever reaches.
    let squares = (ep.speed_ft(a) / grid::SQUARE_FT).max(0) as u32;
    let attacks = &ep.spec(a).attacks;
    let preferred: Option<usize> = (0..attacks.len()).find(|&w| attacks[w].is_ranged() == ranged);
    let moved = if can_move && budget.move_action {
        preferred
            .and_then(|w| rules::movement::path_toward(ep, a, t, Some(w), squares).map(|_| Some(w)))
            .or_else(|| rules::movement::path_toward(ep, a, t, None, squares).map(|_| None))
    } else {
        None
    };
    match moved {
        Some(w) if single => vec![with(ActionKind::Move, t, w, None)].into(),
        // The attack comes after the move only if it can be made then (the move may end
        // out of reach or range).
        Some(w) => PolicyPlan {
            actions: vec![with(ActionKind::Move, t, w, None)],
            then: Some(with(ActionKind::Attack, t, None, None)),
        },
        None => {
            // Cannot get closer (or cannot move at all: grappled, entangled in place…):
            // attack with anything that reaches from here, a ranged weapon included.
            match rules::weapons::weapon_for(ep, a, pos, t) {
                Ok(w) if can_attack => vec![with(attack_kind, t, Some(w), None)].into(),
                _ => PolicyPlan::default(),
            }
        }
    }
}

/// The default policy's answer to an attack-of-opportunity decision: it takes every attack
/// of opportunity it may, with the first weapon offered (list order).
pub(crate) fn answer_aoo(_ep: &Episode, _x: CombatantId, weapons: &[usize]) -> Option<usize> {
    weapons.first().copied()
}

/// Where a fleeing combatant withdraws (CRB — Conditions: Frightened, "flees from the source
/// of its fear"): among the squares it can reach with a withdraw (2× speed; 1× as the
/// standard action of a staggered or disabled combatant — CRB — Combat: Withdraw, Restricted
/// Withdraw, `Episode::withdraw_speed_multiple`), the one whose path crosses the fewest
/// squares threatened by enemies (the first square of a withdraw never provokes), then the
/// farthest from the nearest conscious enemy, then the cheapest, then (row, col) — and only
/// if that is farther from the enemies than where it stands, and only if the rules accept
/// that withdraw (its slot free, no condition against it).
pub(crate) fn flee_square(ep: &Episode, a: CombatantId, _enemy: CombatantId) -> Option<Cell> {
    if ep.cond_flag(a, |d| d.cant_move) || ep.speed_ft(a) == 0 {
        return None;
    }
    let squares = (ep.withdraw_speed_multiple(a) * ep.speed_ft(a) / grid::SQUARE_FT).max(0) as u32;
    let field = ep.move_field(a, Some(squares));
    let enemies: Vec<CombatantId> = ep
        .ids()
        .filter(|&x| ep.enemies(a, x) && ep.conscious(x))
        .collect();
    let nearest = |c: Cell| {
        enemies
            .iter()
            .map(|&x| {
                grid::footprint_distance_squares(c, ep.fp_side(a), ep.position(x), ep.fp_side(x))
            })
            .min()
            .unwrap_or(i32::MAX)
    };
    let threatened = rules::reach::threatened_squares(ep, &enemies);
    let cols = ep.encounter().grid.cols;
    let threats_on = |path: &[Cell]| {
        // Squares left after the first step (the withdraw's starting square is safe).
        path.iter()
            .take(path.len().saturating_sub(1))
            .filter(|c| threatened[(c.row * cols + c.col) as usize])
            .count()
    };
    let here = ep.position(a);
    let now = nearest(here);
    field
        .stoppable_iter()
        .filter(|(c, _)| *c != here && nearest(*c) > now)
        .filter_map(|(c, k)| {
            let path = field.path_to(c)?;
            Some(((threats_on(&path), std::cmp::Reverse(nearest(c)), k, c), c))
        })
        .min_by_key(|(key, _)| *key)
        .map(|(_, c)| c)
        .filter(|&c| {
            let w = Action {
                destination: Some(c),
                ..Action::new(ActionKind::Withdraw)
            };
            ep.check(a, &w).is_ok()
        })
}
