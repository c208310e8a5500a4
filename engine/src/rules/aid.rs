//! Aid another (CRB — Combat: Special Attacks, Aid Another): in position to make a melee
//! attack on an opponent that is engaging a friend in melee, a standard action and an attack
//! roll against AC 10; on a success the friend gains +2 on its next attack roll against that
//! opponent, or +2 to its AC against that opponent's next attack, as long as that attack comes
//! before the beginning of the aider's next turn. Several aids stack.
//!
//! Modelled: the aider needs a usable melee weapon that can attack the opponent from where it
//! stands (reach, line of effect; `weapon` or the first that can); "engaging a friend in
//! melee" is read as: the opponent threatens the friend or the friend threatens the opponent
//! ([`engaged`]). The roll is d20 + the weapon's attack bonus + the aider's attack-roll
//! modifiers (its conditions and feats, fighting defensively), natural 20 hits, natural 1
//! misses. Each success is one [`AidBonus`] on the friend; the attack-mode bonuses against an
//! opponent are all spent by the friend's next attack roll against it (an attack of
//! opportunity included; its confirmation roll uses the same bonus), the AC-mode ones by that
//! opponent's next attack roll against the friend; every bonus of an aider lapses at the start
//! of the aider's next turn (the seed's "the beneficiary's next turn" differs: the SRD wins,
//! `docs/conformance.md`). Both modes count on weapon attacks and spells' touch and ray
//! attacks alike (`rules::attack_roll::attack_roll_mods`, `target_ac`). Not modelled: aid on
//! combat maneuver checks, skill checks or saves against spells; the provocation when the
//! aided action provokes.

use crate::actions::{AidMode, CombatantId};
use crate::episode::AidBonus;
use crate::episode::Episode;
use crate::rules::idx;

/// The bonus of one successful aid another (CRB).
pub(crate) const AID_BONUS: i32 = 2;

/// Whether `opponent` is engaging `ally` in melee: either threatens the other where it
/// stands ([`crate::rules::reach::threatens`]).
pub(crate) fn engaged(ep: &Episode, opponent: CombatantId, ally: CombatantId) -> bool {
    let (op, ap) = (ep.st[idx(opponent)].pos, ep.st[idx(ally)].pos);
    crate::rules::reach::threatens(ep, opponent, ally, ap)
        || crate::rules::reach::threatens(ep, ally, opponent, op)
}

/// The total aid bonus of `holder` in `mode`, against `opponent` or every opponent (`None`).
pub(crate) fn sum(
    ep: &Episode,
    holder: CombatantId,
    mode: AidMode,
    opponent: Option<CombatantId>,
) -> i32 {
    ep.st[idx(holder)]
        .aid
        .iter()
        .filter(|b| b.mode == mode && opponent.is_none_or(|o| b.opponent == o))
        .count() as i32
        * AID_BONUS
}

/// Spend the bonuses `holder` has in `mode` against `opponent` (its next attack roll against
/// it, or that opponent's next attack roll against it); returns their total.
pub(crate) fn spend(
    ep: &mut Episode,
    holder: CombatantId,
    mode: AidMode,
    opponent: CombatantId,
) -> i32 {
    let v = sum(ep, holder, mode, Some(opponent));
    if v > 0 {
        ep.st[idx(holder)]
            .aid
            .retain(|b| !(b.mode == mode && b.opponent == opponent));
    }
    v
}

/// Resolve an aid another of `a` with weapon `w`: d20 + the weapon's bonus + `a`'s attack
/// modifiers against AC 10; a success gives `ally` one [`AidBonus`].
pub(crate) fn aid_another(
    ep: &mut Episode,
    a: CombatantId,
    opponent: CombatantId,
    ally: CombatantId,
    w: usize,
    mode: AidMode,
) {
    use crate::effects::{RollContext, Stat};
    let spec = ep.spec_arc(a);
    let weapon = &spec.attacks[w];
    let wid = weapon.weapon_id();
    let ctx = RollContext {
        ranged: false,
        distance_ft: None,
        weapon: Some((&wid, &weapon.name)),
        descriptors: &[],
    };
    let mods = crate::rules::damage::weapon_mods(ep, a, w);
    let res = crate::effects::resolve(&mods, Stat::Attack, &ctx);
    let bonus = weapon.attack_bonus + res.total;
    let d = ep.roll(20) as i32;
    let total = d + bonus;
    let ok = d != 1 && (d == 20 || total >= 10);
    let (oid, fid) = (ep.id_of(opponent).to_string(), ep.id_of(ally).to_string());
    let what = match mode {
        AidMode::Attack => format!("+{AID_BONUS} on {fid}'s next attack roll against {oid}"),
        AidMode::Ac => format!("+{AID_BONUS} to {fid}'s AC against {oid}'s next attack"),
    };
    let note = if res.applied.is_empty() {
        String::new()
    } else {
        format!(" [{}]", res.note())
    };
    let verdict = if ok { what } else { "fails".to_string() };
    ep.log_turn(
        a,
        format!(
            "aid another ({}) d20={d}{bonus:+}={total} vs AC 10{note} -> {verdict}",
            weapon.name
        ),
    );
    if ok {
        ep.st[idx(ally)].aid.push(AidBonus {
            aider: a,
            opponent,
            mode,
        });
    }
}
