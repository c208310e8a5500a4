//! Confused (CRB — Conditions: Confused): the d% at the start of the creature's turn.

use crate::actions::CombatantId;
use crate::episode::Episode;
use crate::rules::attack_roll::attack_roll;
use crate::rules::attack_roll::AttackOpts;
use crate::rules::idx;
use crate::rules::ranged::distance_ft_from;
use crate::rules::weapons::can_weapon_attack;

/// Confused (CRB — Conditions: Confused): d% at the start of its turn — 01–25 acts normally;
/// 26–50 babbles (turn lost); 51–75 deals 1d8 + Str modifier to itself with the item in hand;
/// 76–100 attacks the nearest creature (one melee attack if one reaches, else the turn is
/// lost). Returns whether the turn is lost. Simplification: "attacks the creature that last
/// attacked it" is not tracked.
pub(crate) fn confused_turn(ep: &mut Episode, a: CombatantId) -> bool {
    let d = ep.roll(100) as i32;
    if d <= 25 {
        ep.log_turn(a, format!("confused d%={d}: acts normally"));
        return false;
    }
    if d <= 50 {
        ep.log_turn(a, format!("confused d%={d}: babbles incoherently"));
        return true;
    }
    if d <= 75 {
        let s = ep.str_mods(a).1;
        let dmg = (ep.roll(8) as i32 + s).max(0);
        ep.log_turn(a, format!("confused d%={d}: hurts itself for {dmg}"));
        if dmg > 0 {
            ep.lose_hp(a, dmg);
        }
        return true;
    }
    let pos = ep.st[idx(a)].pos;
    let nearest = ep
        .ids()
        .filter(|&t| t != a && ep.conscious(t))
        .min_by_key(|&t| (distance_ft_from(ep, a, pos, t), t.0));
    let target = nearest.and_then(|t| {
        (0..ep.spec(a).attacks.len())
            .find(|&w| {
                !ep.spec(a).attacks[w].is_ranged() && can_weapon_attack(ep, a, pos, w, t).is_ok()
            })
            .map(|w| (t, w))
    });
    match target {
        Some((t, w)) => {
            let tid = ep.id_of(t).to_string();
            ep.log_turn(
                a,
                format!("confused d%={d}: attacks the nearest creature {tid}"),
            );
            attack_roll(ep, a, t, w, AttackOpts::default());
        }
        None => ep.log_turn(
            a,
            format!("confused d%={d}: no creature in reach, turn lost"),
        ),
    }
    true
}
