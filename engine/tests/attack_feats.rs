//! The attack-roll feats (CRB — Feats: Vital Strike, Improved / Greater Vital Strike, Rapid
//! Shot, Manyshot, Deadly Aim, Combat Expertise, Weapon Finesse, Toughness; APG — Feats:
//! Point-Blank Master; Bestiary — Feats: Multiattack). Scripted dice; initiative 20 / 1 first.

mod common;

use common::*;
use pf1e_engine::{Action, ActionKind, CombatantId, Episode};
use serde_json::{json, Value};

fn hero(feats: &[&str], bab: i32) -> Value {
    let mut v = creature("hero");
    v["bab"] = json!(bab);
    v["feats"] = json!(feats);
    v["attacks"] = json!([
        melee("longsword", 5, "1d8+3", "slashing"),
        ranged("longbow", 5, "1d8", "piercing", 100),
        ranged("light crossbow", 5, "1d8", "piercing", 80)
    ]);
    v
}

fn dummy(ac: i32) -> Value {
    let mut v = creature("dummy");
    v["ac"] = json!({ "total": ac, "touch": ac, "flat_footed": ac });
    v["hp_max"] = json!(100);
    v
}

/// The hero at (2,2), the dummy at `at`, the hero's turn.
fn duel_at(hero: Value, ac: i32, at: (i32, i32), faces: &[u32]) -> (Episode, CombatantId) {
    let enc = encounter(
        &room(3, 10),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "dummy", dummy(ac), at),
        ],
    );
    let mut ep = episode(enc, faces);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    (ep, d)
}

fn duel(hero: Value, ac: i32, faces: &[u32]) -> (Episode, CombatantId) {
    duel_at(hero, ac, (2, 3), faces)
}

// ----- Vital Strike ---------------------------------------------------------------------

/// CRB — Feats: Vital Strike: with the attack action, the weapon's damage dice are rolled
/// twice and added (the flat bonus once); Improved ×3, Greater ×4.
#[test]
fn crb_vital_strike_rolls_the_weapon_dice_again_on_the_attack_action() {
    for (feat, extra) in [
        ("Vital Strike", vec![5]),
        ("Improved Vital Strike", vec![5, 6]),
        ("Greater Vital Strike", vec![5, 6, 7]),
    ] {
        let mut faces = vec![20, 1, 15, 4];
        faces.extend(&extra);
        let (mut ep, d) = duel(hero(&[feat], 1), 10, &faces);
        submit(&mut ep, &[attack_with(d, 0)]);
        let sum: u32 = extra.iter().sum();
        assert_eq!(ep.hp(d), 100 - (4 + 3 + sum as i32), "{feat}: {}", log(&ep));
        let times = if extra.len() == 1 {
            String::new()
        } else {
            format!("{}x", extra.len())
        };
        assert!(
            log(&ep).contains(&format!("[Vital Strike +{times}1d8={sum}]")),
            "{}",
            log(&ep)
        );
        assert_eq!(dice_left(&ep), 0);
    }
}

/// CRB — Feats: Vital Strike: the extra dice are not multiplied on a critical hit (×2: the
/// weapon dice and bonus twice, the Vital Strike die once).
#[test]
fn crb_vital_strike_dice_are_not_multiplied_on_a_critical() {
    let (mut ep, d) = duel(hero(&["Vital Strike"], 1), 10, &[20, 1, 20, 15, 4, 4, 5]);
    submit(&mut ep, &[attack_with(d, 0)]);
    assert!(log(&ep).contains("CRIT x2"), "{}", log(&ep));
    assert_eq!(ep.hp(d), 100 - ((4 + 3) + (4 + 3) + 5));
    assert_eq!(dice_left(&ep), 0);
}

/// CRB — Feats: Vital Strike is used with the attack action only: a charge (a special
/// full-round action) and a full attack roll the dice once.
#[test]
fn crb_vital_strike_not_on_a_charge_nor_a_full_attack() {
    let (mut ep, d) = duel_at(hero(&["Vital Strike"], 1), 10, (2, 6), &[20, 1, 15, 4]);
    assert_all_ok(&submit(&mut ep, &[charge(d)]));
    assert_eq!(ep.hp(d), 100 - 7, "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
    let (mut ep, d) = duel(hero(&["Vital Strike"], 1), 10, &[20, 1, 15, 4]);
    submit(&mut ep, &[full_attack_with(d, 0)]);
    assert_eq!(ep.hp(d), 100 - 7, "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

/// CRB — Feats: Vital Strike is not used on an attack of opportunity.
#[test]
fn crb_vital_strike_not_on_an_attack_of_opportunity() {
    let (mut ep, _d) = duel(hero(&["Vital Strike"], 1), 10, &[20, 1, 15, 4]);
    turn_of(&mut ep, "dummy");
    submit(&mut ep, &[move_to(2, 8)]);
    assert_eq!(lines_with(&ep, "attack of opportunity").len(), 1);
    let d = cid(&ep, "dummy");
    assert_eq!(ep.hp(d), 100 - 7, "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

// ----- Rapid Shot, Manyshot -------------------------------------------------------------

/// CRB — Feats: Rapid Shot: a full attack with a ranged weapon gets one extra attack at the
/// highest bonus, and every attack of it takes −2.
#[test]
fn crb_rapid_shot_one_extra_attack_every_attack_minus_2() {
    let (mut ep, d) = duel_at(hero(&["Rapid Shot"], 6), 40, (2, 6), &[20, 1, 10, 10, 10]);
    submit(&mut ep, &[full_attack_with(d, 1)]);
    assert_eq!(
        lines_of(&ep, "hero"),
        vec![
            "longbow vs dummy d20=10+3=13 AC 40 [Rapid Shot -2] -> MISS",
            "longbow vs dummy d20=10+3=13 AC 40 [Rapid Shot -2] -> MISS",
            "longbow vs dummy d20=10-2=8 AC 40 [Rapid Shot -2] -> MISS",
        ]
    );
    assert_eq!(dice_left(&ep), 0);
}

/// CRB — Feats: Rapid Shot applies to ranged full attacks only (a melee full attack is
/// unchanged), and not to a single ranged attack.
#[test]
fn crb_rapid_shot_not_in_melee_nor_on_the_attack_action() {
    let (mut ep, d) = duel(hero(&["Rapid Shot"], 1), 40, &[20, 1, 10]);
    submit(&mut ep, &[full_attack_with(d, 0)]);
    assert_eq!(
        lines_of(&ep, "hero"),
        vec!["longsword vs dummy d20=10+5=15 AC 40 -> MISS"]
    );
    let (mut ep, d) = duel_at(hero(&["Rapid Shot"], 1), 40, (2, 6), &[20, 1, 10]);
    submit(&mut ep, &[attack_with(d, 1)]);
    assert_eq!(
        lines_of(&ep, "hero"),
        vec!["longbow vs dummy d20=10+5=15 AC 40 -> MISS"]
    );
}

/// CRB — Feats: Manyshot: in a full attack with a bow the first attack fires two arrows; both
/// hit on a hit; the critical multiplier (and precision damage) applies to one arrow only.
#[test]
fn crb_manyshot_first_attack_two_arrows_critical_once() {
    // BAB 6: +5/+0. First attack: threat 20, confirmed (15); longbow ×3 on the first arrow
    // (4+4+4), the second arrow once (5). Second attack misses (2+0 vs AC 10).
    let mut h = hero(&["Manyshot"], 6);
    h["attacks"][1]["crit_mult"] = json!(3);
    let (mut ep, d) = duel_at(h, 10, (2, 6), &[20, 1, 20, 15, 4, 4, 4, 5, 2]);
    submit(&mut ep, &[full_attack_with(d, 1)]);
    let lines = lines_of(&ep, "hero");
    assert_eq!(lines.len(), 2, "{}", log(&ep));
    assert!(
        lines[0]
            .starts_with("longbow vs dummy d20=20+5=25 AC 10 [Manyshot: two arrows] -> CRIT x3")
            && lines[0].contains("17 damage [second arrow 5]"),
        "{lines:?}"
    );
    assert_eq!(ep.hp(d), 100 - 17);
    assert_eq!(dice_left(&ep), 0);
}

/// CRB — Feats: Manyshot works with a bow only: a crossbow's full attack fires one bolt.
#[test]
fn crb_manyshot_not_with_a_crossbow() {
    let (mut ep, d) = duel_at(hero(&["Manyshot"], 6), 10, (2, 6), &[20, 1, 15, 4, 2]);
    submit(&mut ep, &[full_attack_with(d, 2)]);
    assert_eq!(ep.hp(d), 100 - 4, "{}", log(&ep));
    assert!(!log(&ep).contains("Manyshot"));
    assert_eq!(dice_left(&ep), 0);
}

// ----- Deadly Aim, Combat Expertise -------------------------------------------------------

/// CRB — Feats: Deadly Aim: −1 on ranged attack rolls and +2 damage, −1/+2 more at BAB +4
/// and every +4 thereafter (BAB 0: −1/+2, 4: −2/+4, 8: −3/+6); not on melee attacks.
#[test]
fn crb_deadly_aim_values_by_bab() {
    for (bab, x) in [(0, 1), (4, 2), (8, 3)] {
        let (mut ep, d) = duel_at(hero(&["Deadly Aim"], bab), 10, (2, 6), &[20, 1, 15, 4]);
        let da = Action::new(ActionKind::ActivateDeadlyAim);
        assert_all_ok(&submit(&mut ep, &[da, attack_with(d, 1)]));
        let h = cid(&ep, "hero");
        assert!(ep.deadly_aim_on(h));
        assert!(
            log(&ep).contains(&format!(
                "activates Deadly Aim (-{x} ranged attack; +{} ranged damage",
                2 * x
            )),
            "{}",
            log(&ep)
        );
        assert!(
            log(&ep).contains(&format!(
                "d20=15{:+}={} AC 10 [Deadly Aim -{x}]",
                5 - x,
                20 - x
            )),
            "{}",
            log(&ep)
        );
        assert_eq!(ep.hp(d), 100 - (4 + 2 * x));
        assert!(obs_json(&ep).contains("\"deadly_aim\":true"));
    }
    // Melee: unchanged.
    let (mut ep, d) = duel(hero(&["Deadly Aim"], 4), 10, &[20, 1, 15, 4]);
    let da = Action::new(ActionKind::ActivateDeadlyAim);
    submit(&mut ep, &[da, attack_with(d, 0)]);
    assert_eq!(ep.hp(d), 100 - 7);
}

/// CRB — Feats: Combat Expertise: with a melee attack action, −1 on melee attack rolls and +1
/// dodge AC until the next turn, −1/+1 more at BAB +4 and every +4 thereafter.
#[test]
fn crb_combat_expertise_values_by_bab_until_the_next_turn() {
    for (bab, x) in [(1, 1), (4, 2), (8, 3)] {
        let mut h = hero(&["Combat Expertise"], bab);
        h["ac"] = json!({ "total": 20, "touch": 20, "flat_footed": 20 });
        let (mut ep, d) = duel(h, 40, &[20, 1, 10, 10]);
        let ce = Action::new(ActionKind::ActivateCombatExpertise);
        assert_all_ok(&submit(&mut ep, &[ce, attack_with(d, 0)]));
        let h = cid(&ep, "hero");
        assert!(ep.combat_expertise_on(h));
        assert!(
            log(&ep).contains(&format!(
                "longsword vs dummy d20=10{:+}={} AC 40 [Combat Expertise -{x}] -> MISS",
                5 - x,
                15 - x
            )),
            "{}",
            log(&ep)
        );
        assert_eq!(
            ep.observation(None).combatants[h.0 as usize].combat_expertise_ac_bonus,
            x
        );
        // The dummy's attack sees the dodge bonus.
        turn_of(&mut ep, "dummy");
        submit(&mut ep, &[attack(h)]);
        assert!(
            log(&ep).contains(&format!(
                "dummy: longsword vs hero d20=10+5=15 AC {} [target Combat Expertise +{x}] -> MISS",
                20 + x
            )),
            "{}",
            log(&ep)
        );
        // It lasts until the start of the hero's next turn.
        turn_of(&mut ep, "hero");
        assert_eq!(
            ep.observation(None).combatants[h.0 as usize].combat_expertise_ac_bonus,
            0
        );
    }
}

/// CRB — Feats: Combat Expertise is chosen with a melee attack: on a turn without one (a
/// ranged attack, or no attack) it gives no bonus and no penalty.
#[test]
fn crb_combat_expertise_needs_a_melee_attack_action() {
    let (mut ep, d) = duel_at(hero(&["Combat Expertise"], 4), 40, (2, 6), &[20, 1, 10]);
    let ce = Action::new(ActionKind::ActivateCombatExpertise);
    submit(&mut ep, &[ce, attack_with(d, 1)]);
    assert!(
        log(&ep).contains("longbow vs dummy d20=10+5=15 AC 40 -> MISS"),
        "{}",
        log(&ep)
    );
    let h = cid(&ep, "hero");
    assert_eq!(
        ep.observation(None).combatants[h.0 as usize].combat_expertise_ac_bonus,
        0
    );
}

/// The toggles need their feat: `no_deadly_aim`, `no_combat_expertise`.
#[test]
fn toggles_without_the_feat_are_refused() {
    let (mut ep, _d) = duel(hero(&[], 1), 10, &[20, 1]);
    let r = submit(
        &mut ep,
        &[
            Action::new(ActionKind::ActivateDeadlyAim),
            Action::new(ActionKind::ActivateCombatExpertise),
        ],
    );
    assert_eq!(r[0].code(), Some("no_deadly_aim"));
    assert_eq!(r[1].code(), Some("no_combat_expertise"));
    let legal = ep.legal_actions();
    assert!(!legal.iter().any(|l| matches!(
        l.action.kind,
        ActionKind::ActivateDeadlyAim | ActionKind::ActivateCombatExpertise
    )));
}

// ----- Point-Blank Master -----------------------------------------------------------------

/// APG — Feats: Point-Blank Master: firing the named ranged weapon while threatened does not
/// provoke; another ranged weapon still does.
#[test]
fn apg_point_blank_master_no_aoo_with_the_named_weapon() {
    let mut h = hero(&["Point-Blank Master (longbow)"], 1);
    h["ac"] = json!({ "total": 40, "touch": 40, "flat_footed": 40 });
    // The dummy acts first once (no longer flat-footed, it threatens), then the hero's second
    // turn. Longbow: no opportunity; the shot misses (AC 40).
    let second_turn = |h: &Value, faces: &[u32]| {
        let (mut ep, d) = duel(h.clone(), 40, faces);
        turn_of(&mut ep, "dummy");
        turn_of(&mut ep, "hero");
        (ep, d)
    };
    let (mut ep, d) = second_turn(&h, &[20, 1, 10]);
    submit(&mut ep, &[attack_with(d, 1)]);
    assert!(
        lines_with(&ep, "attack of opportunity").is_empty(),
        "{}",
        log(&ep)
    );
    assert_eq!(dice_left(&ep), 0);
    // Crossbow: the dummy's attack of opportunity (misses), then the shot.
    let (mut ep, d) = second_turn(&h, &[20, 1, 10, 10]);
    submit(&mut ep, &[attack_with(d, 2)]);
    assert_eq!(
        lines_with(&ep, "attack of opportunity").len(),
        1,
        "{}",
        log(&ep)
    );
    assert_eq!(dice_left(&ep), 0);
}

// ----- Static feats from base numbers -----------------------------------------------------

fn base_numbers(v: Value) -> Value {
    set(v, "printed_feats_included", json!(false))
}

/// CRB — Feats: Toughness: +3 hp, +1 per Hit Die beyond 3 — applied only when the printed hp
/// do not include it.
#[test]
fn crb_toughness_from_base_numbers() {
    for (level, printed, hp) in [(1, false, 33), (5, false, 35), (5, true, 30)] {
        let mut v = hero(&["Toughness"], 1);
        v["level"] = json!(level);
        let v = if printed { v } else { base_numbers(v) };
        let (ep, _d) = duel(v, 10, &[20, 1]);
        let h = cid(&ep, "hero");
        assert_eq!(ep.hp(h), hp, "level {level} printed {printed}");
        assert_eq!(ep.observation(None).combatants[h.0 as usize].hp_max, hp);
    }
}

/// CRB — Feats: Weapon Finesse: Dex instead of Str on melee attack rolls with a light weapon
/// (Dex +3, Str +0: +3), not with a longsword; only from base numbers.
#[test]
fn crb_weapon_finesse_from_base_numbers() {
    let mut v = base_numbers(hero(&["Weapon Finesse"], 1));
    v["abilities"]["dex_score"] = json!(16);
    let mut dagger = melee("dagger", 5, "1d4", "piercing");
    dagger["light"] = json!(true);
    v["attacks"] = json!([melee("longsword", 5, "1d8", "slashing"), dagger]);
    let (mut ep, d) = duel(v.clone(), 40, &[20, 1, 10]);
    submit(&mut ep, &[attack_with(d, 1)]);
    assert_eq!(
        lines_of(&ep, "hero"),
        vec!["dagger vs dummy d20=10+8=18 AC 40 [Weapon Finesse +3] -> MISS"]
    );
    let (mut ep, d) = duel(v, 40, &[20, 1, 10]);
    submit(&mut ep, &[attack_with(d, 0)]);
    assert_eq!(
        lines_of(&ep, "hero"),
        vec!["longsword vs dummy d20=10+5=15 AC 40 -> MISS"]
    );
}

/// Bestiary — Feats: Multiattack: secondary natural attacks at −2 instead of −5 (+3 on the
/// printed bonus) for a creature written from base numbers.
#[test]
fn bestiary_multiattack_from_base_numbers() {
    let mut v = base_numbers(hero(&["Multiattack"], 1));
    let mut claw = melee("claw", 5, "1d4", "slashing");
    claw["natural"] = json!(true);
    let mut bite = melee("bite", 0, "1d6", "piercing");
    bite["natural"] = json!(true);
    bite["secondary"] = json!(true);
    v["attacks"] = json!([claw, bite]);
    let (mut ep, d) = duel(v, 40, &[20, 1, 10, 10]);
    submit(&mut ep, &[full_attack_with(d, 0)]);
    assert_eq!(
        lines_of(&ep, "hero"),
        vec![
            "claw vs dummy d20=10+5=15 AC 40 -> MISS",
            "bite vs dummy d20=10+3=13 AC 40 -> MISS",
        ]
    );
}
