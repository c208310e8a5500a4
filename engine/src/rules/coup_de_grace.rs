//! Coup de grace (CRB — Combat: Helpless Defenders, Coup de Grace): as a full-round action,
//! with a melee weapon (or a bow or crossbow when adjacent), against a helpless opponent: an
//! automatic hit and critical hit; a defender that survives the damage makes a Fortitude
//! save (DC 10 + the damage dealt) or dies. It provokes attacks of opportunity from every
//! threatening opponent; never against a creature immune to critical hits.
//!
//! Helpless here ([`helpless`]): unconscious (dying or stable) or under a condition with the
//! `helpless` flag (helpless, paralyzed, asleep…). Pinned is not helpless (CRB —
//! Conditions: Pinned). Simplifications (`docs/conformance.md`): the hit is automatic, so no
//! concealment roll is made; a target with total concealment (a blinded attacker) is refused
//! (`target_concealed`) instead of the SRD's two consecutive full-round actions; the
//! sneak attack dice count (the SRD's "extra sneak attack damage"), precision immunity
//! aside.

use crate::actions::reject::{Reject, TargetIssue};
use crate::actions::CombatantId;
use crate::episode::{Episode, LifeState};
use crate::rules::idx;

/// Whether `t` is helpless for a coup de grace: not dead, and unconscious (dying or stable)
/// or under a helpless condition (CRB — Combat: Helpless Defenders: "bound, sleeping,
/// paralyzed, unconscious, or otherwise at your mercy").
pub(crate) fn helpless(ep: &Episode, t: CombatantId) -> bool {
    match ep.life_state(t) {
        LifeState::Dead => false,
        LifeState::Dying | LifeState::Stable => true,
        LifeState::Healthy | LifeState::Disabled => ep.cond_flag(t, |d| d.helpless),
    }
}

/// Whether weapon `w` is a bow or a crossbow (CRB: a coup de grace may use one when adjacent).
fn bow_or_crossbow(ep: &Episode, a: CombatantId, w: usize) -> bool {
    let weapon = &ep.spec(a).attacks[w];
    weapon.is_ranged() && weapon.name.to_lowercase().contains("bow")
}

/// Whether weapon `w` of `a` can deliver a coup de grace to `t` from where `a` stands: a
/// melee weapon that can attack it there (in hand, reach, line of effect), or a bow or
/// crossbow that can attack it with `a` adjacent.
pub(crate) fn weapon_can(ep: &Episode, a: CombatantId, w: usize, t: CombatantId) -> bool {
    let Some(weapon) = ep.spec(a).attacks.get(w) else {
        return false;
    };
    let pos = ep.st[idx(a)].pos;
    if crate::rules::weapons::can_weapon_attack(ep, a, pos, w, t).is_err() {
        return false;
    }
    !weapon.is_ranged()
        || (bow_or_crossbow(ep, a, w)
            && crate::geometry::grid::footprint_distance_squares(
                pos,
                ep.fp_side(a),
                ep.st[idx(t)].pos,
                ep.fp_side(t),
            ) <= 1)
}

/// Validate a coup de grace of `a` against `target` with `weapon` (`None`: the first that
/// can). No die, no change.
///
/// # Errors
/// `missing_target`; `invalid_target` (no such combatant, itself, an ally, dead);
/// `not_helpless`; `immune_to_critical_hits`; `target_concealed`; `weapon_unavailable` (the
/// named weapon cannot); `no_weapon` (no melee weapon, bow or crossbow in hand);
/// `out_of_range` (none reaches).
pub(crate) fn check(
    ep: &Episode,
    a: CombatantId,
    target: Option<CombatantId>,
    weapon: Option<usize>,
) -> Result<(CombatantId, usize), Reject> {
    let t = target.ok_or(Reject::MissingTarget)?;
    let bad = |why| {
        Err(Reject::InvalidTarget {
            target: Some(t),
            why,
        })
    };
    if t.0 as usize >= ep.n() {
        return bad(TargetIssue::NoSuchCombatant);
    }
    if t == a {
        return bad(TargetIssue::Itself);
    }
    if !ep.enemies(a, t) {
        return bad(TargetIssue::Ally);
    }
    if ep.life_state(t) == LifeState::Dead {
        return bad(TargetIssue::Dead);
    }
    if !helpless(ep, t) {
        return Err(Reject::NotHelpless);
    }
    if ep.traits(t).immune_critical {
        return Err(Reject::ImmuneToCriticalHits);
    }
    if ep.miss_chance(a, t) >= 50 {
        return Err(Reject::TargetConcealed);
    }
    let n = ep.spec(a).attacks.len();
    match weapon {
        Some(w) if w < n && weapon_can(ep, a, w, t) => Ok((t, w)),
        Some(w) => Err(Reject::WeaponUnavailable { weapon: Some(w) }),
        None => {
            let usable = (0..n).any(|w| {
                ep.weapon_usable(a, w)
                    && (!ep.spec(a).attacks[w].is_ranged() || bow_or_crossbow(ep, a, w))
            });
            if !usable {
                return Err(Reject::NoWeapon);
            }
            (0..n)
                .find(|&w| weapon_can(ep, a, w, t))
                .map(|w| (t, w))
                .ok_or(Reject::OutOfRange)
        }
    }
}

/// Start a coup de grace: it provokes from every threatening opponent first (CRB), then
/// [`deliver`].
pub(crate) fn start(ep: &mut Episode, a: CombatantId, t: CombatantId, w: usize) {
    let (tid, name) = (ep.id_of(t).to_string(), ep.spec(a).attacks[w].name.clone());
    ep.log_turn(
        a,
        format!("coup de grace on {tid} with its {name} (full-round action)"),
    );
    ep.frames.push(crate::episode::frames::Frame::CoupDeGrace {
        attacker: a,
        target: t,
        weapon: w,
    });
    ep.open_window(a, crate::rules::aoo::Provocation::CoupDeGrace, None);
}

/// The blow, once the opportunities are resolved: if `a` still stands and `t` is still
/// helpless and alive, an automatic critical hit (the weapon's multiplier, ×2 broken), then
/// the Fortitude save DC 10 + damage dealt of a survivor, which dies on a failure.
pub(crate) fn deliver(ep: &mut Episode, a: CombatantId, t: CombatantId, w: usize) {
    if !ep.conscious(a) || !helpless(ep, t) {
        return;
    }
    let spec = ep.spec_arc(a);
    let weapon = &spec.attacks[w];
    let mult = if ep.weapon_broken(a, w) {
        2
    } else {
        weapon.crit_mult
    };
    let mods = crate::rules::damage::weapon_mods(ep, a, w);
    let d_ft = crate::rules::ranged::distance_ft_from(ep, a, ep.st[idx(a)].pos, t);
    let dmg_mod = crate::rules::damage::damage_bonus(&mods, weapon, Some(d_ft));
    let sneak = if ep.traits(t).immune_precision {
        0
    } else {
        spec.resolved().sneak_dice
    };
    let dmg = crate::rules::damage::roll_damage(
        ep,
        a,
        w,
        t,
        crate::rules::damage::HitDamage {
            mult,
            dmg_mod,
            sneak_d6: sneak,
            vital_dice: 0,
            skip_precision: false,
        },
    );
    let at = &mut ep.attrition[idx(a)];
    at.attacks += 1;
    at.hits += 1;
    at.crits += 1;
    let tid = ep.id_of(t).to_string();
    let head = format!("{} vs {tid} coup de grace -> CRIT x{mult}", weapon.name);
    let line = |before: i32, after: i32| {
        format!(
            "{head} {} damage{} ({tid} hp {before}->{after})",
            dmg.total, dmg.note
        )
    };
    crate::rules::damage::take_damage(ep, Some(a), t, dmg.total, Some(&line));
    if ep.life_state(t) == LifeState::Dead {
        return;
    }
    // Undead and constructs are immune to "any effect that requires a Fortitude save (unless
    // the effect also works on objects)" (Bestiary — Creature Types: Undead, Construct): the
    // damage stands, no save or death.
    if matches!(
        ep.spec(t).creature_type.as_deref(),
        Some("undead") | Some("construct")
    ) {
        let tid = ep.id_of(t).to_string();
        ep.log_turn(
            a,
            format!("{tid}: no Fortitude save (immune to Fortitude effects)"),
        );
        return;
    }
    let dc = 10 + dmg.total;
    let save = ep.roll_save(t, crate::rules::saves::SaveKind::Fort, dc, &[]);
    if !save.success {
        kill(ep, t);
    }
}

/// `t` dies of a coup de grace (a failed Fortitude save).
fn kill(ep: &mut Episode, t: CombatantId) {
    ep.st[idx(t)].life = LifeState::Dead;
    if ep.st[idx(t)].grapple.is_some() {
        crate::rules::grapple::end_grapple(ep, t);
    }
    let hp = ep.st[idx(t)].hp;
    ep.log_turn(t, format!("dies of the coup de grace (hp {hp})"));
}
