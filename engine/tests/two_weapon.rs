//! Two-weapon fighting (CRB — Combat: Two-Weapon Fighting, Table: Two-Weapon Fighting
//! Penalties; Feats: Two-Weapon Fighting, Improved / Greater Two-Weapon Fighting, Double Slice,
//! Power Attack). Data convention: each weapon's `attack_bonus` and damage are its
//! single-attack numbers; the engine applies the table and the off hand's ½ Str.

mod common;

use common::*;
use pf1e_engine::{Action, ActionKind, CombatantId, Episode};
use serde_json::{json, Value};

/// A two-weapon fighter: longsword (+5, 1d8+3) and an off-hand short sword (+5, 1d6+3), Str
/// 16 (+3), BAB `bab`, the given feats; the off-hand weapon light when `light`.
fn fighter(bab: i32, light: bool, feats: &[&str]) -> Value {
    let mut v = creature("hero");
    v["bab"] = json!(bab);
    v["abilities"]["str_score"] = json!(16);
    v["feats"] = json!(feats);
    let mut off = melee("short sword", 5, "1d6+3", "piercing");
    off["off_hand"] = json!(true);
    off["light"] = json!(light);
    v["attacks"] = json!([melee("longsword", 5, "1d8+3", "slashing"), off]);
    v
}

/// A dummy with AC `ac` and 100 hp.
fn dummy(ac: i32) -> Value {
    let mut v = creature("dummy");
    v["ac"] = json!({ "total": ac, "touch": ac, "flat_footed": ac });
    v["hp_max"] = json!(100);
    v
}

fn duel(hero: Value, ac: i32, faces: &[u32]) -> (Episode, CombatantId) {
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "dummy", dummy(ac), (2, 3)),
        ],
    );
    let mut ep = episode(enc, faces);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    (ep, d)
}

/// CRB — Combat: Two-Weapon Fighting, Table: Two-Weapon Fighting Penalties: every row
/// (normal −6/−10; light off-hand −4/−8; the feat −4/−4; the feat and a light off-hand −2/−2),
/// the off-hand attack at the highest bonus, after the main hand's.
#[test]
fn crb_twf_penalty_table_rows() {
    for (feat, light, primary, off) in [
        (false, false, -6, -10),
        (false, true, -4, -8),
        (true, false, -4, -4),
        (true, true, -2, -2),
    ] {
        let feats: &[&str] = if feat { &["Two-Weapon Fighting"] } else { &[] };
        // Initiative 20 / 1, then two misses against AC 40 (no damage dice).
        let (mut ep, d) = duel(fighter(1, light, feats), 40, &[20, 1, 10, 10]);
        assert_all_ok(&submit(&mut ep, &[full_attack_with(d, 0)]));
        let p = 5 + primary;
        let o = 5 + off;
        assert_eq!(
            lines_of(&ep, "hero"),
            vec![
                format!(
                    "longsword vs dummy d20=10{p:+}={} AC 40 [two-weapon fighting {primary}] -> MISS",
                    10 + p
                ),
                format!(
                    "short sword vs dummy d20=10{o:+}={} AC 40 [two-weapon fighting {off}, off hand] -> MISS",
                    10 + o
                ),
            ],
            "feat {feat} light {light}"
        );
        assert_eq!(dice_left(&ep), 0);
    }
}

/// CRB — Combat: Two-Weapon Fighting, Off-Hand: only ½ the Str bonus to off-hand damage
/// (Str +3 → +1); the main hand keeps its full Str.
#[test]
fn crb_off_hand_adds_half_str_to_damage() {
    // Hits at d20 15; longsword 1d8 = 4 → 7; short sword 1d6 = 4 → 4 + 3 − 2 = 5.
    let (mut ep, d) = duel(
        fighter(1, true, &["Two-Weapon Fighting"]),
        10,
        &[20, 1, 15, 4, 15, 4],
    );
    submit(&mut ep, &[full_attack_with(d, 0)]);
    assert_eq!(ep.hp(d), 100 - 7 - 5, "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

/// CRB — Feats: Double Slice: the full Str bonus to off-hand damage.
#[test]
fn crb_double_slice_adds_full_str_off_hand() {
    let (mut ep, d) = duel(
        fighter(1, true, &["Two-Weapon Fighting", "Double Slice"]),
        10,
        &[20, 1, 15, 4, 15, 4],
    );
    submit(&mut ep, &[full_attack_with(d, 0)]);
    assert_eq!(ep.hp(d), 100 - 7 - 7, "{}", log(&ep));
}

/// CRB — Feats: Improved Two-Weapon Fighting (a second off-hand attack at −5), Greater
/// Two-Weapon Fighting (a third at −10); with BAB +11 the main hand has its three iteratives.
#[test]
fn crb_improved_and_greater_twf_add_off_hand_attacks() {
    for (feats, off_hand_attacks) in [
        (vec!["Two-Weapon Fighting"], 1),
        (
            vec!["Two-Weapon Fighting", "Improved Two-Weapon Fighting"],
            2,
        ),
        (
            vec![
                "Two-Weapon Fighting",
                "Improved Two-Weapon Fighting",
                "Greater Two-Weapon Fighting",
            ],
            3,
        ),
    ] {
        let n = 3 + off_hand_attacks;
        let mut faces = vec![20, 1];
        faces.extend(std::iter::repeat_n(10, n));
        let (mut ep, d) = duel(fighter(11, true, &feats), 40, &faces);
        submit(&mut ep, &[full_attack_with(d, 0)]);
        let lines = lines_of(&ep, "hero");
        assert_eq!(lines.len(), n, "{feats:?}: {}", log(&ep));
        // Main hand +3/−2/−7, off hand +3/−2/−7 (−2/−2 with the feat and a light weapon).
        let bonuses = ["d20=10+3=13", "d20=10-2=8", "d20=10-7=3"];
        for (i, b) in bonuses.iter().enumerate() {
            assert!(
                lines[i].starts_with(&format!("longsword vs dummy {b}")),
                "{lines:?}"
            );
        }
        for (i, b) in bonuses.iter().take(off_hand_attacks).enumerate() {
            assert!(
                lines[3 + i].starts_with(&format!("short sword vs dummy {b}"))
                    && lines[3 + i].contains("off hand"),
                "{lines:?}"
            );
        }
        assert_eq!(dice_left(&ep), 0);
    }
}

/// CRB — Combat: Two-Weapon Fighting applies to a full attack only: the attack action with
/// either weapon uses its full bonus and full Str (no penalty, no ½ Str).
#[test]
fn crb_attack_action_with_the_off_hand_weapon_has_full_bonus_and_str() {
    let (mut ep, d) = duel(fighter(1, true, &[]), 10, &[20, 1, 10, 4]);
    submit(&mut ep, &[attack_with(d, 1)]);
    assert_eq!(
        lines_of(&ep, "hero"),
        vec!["short sword vs dummy d20=10+5=15 AC 10 -> HIT 7 damage (dummy hp 100->93)"]
    );
}

/// CRB — Combat: Attacks of Opportunity are single attacks at the full bonus: no two-weapon
/// penalty even for a two-weapon fighter, whatever it did on its turn.
#[test]
fn crb_attack_of_opportunity_uses_the_full_bonus() {
    // The hero full-attacks with both weapons (two misses), then the dummy walks away and
    // provokes: the AoO with the longsword is at +5.
    let (mut ep, d) = duel(fighter(1, true, &[]), 40, &[20, 1, 10, 10, 10]);
    submit(&mut ep, &[full_attack_with(d, 0)]);
    turn_of(&mut ep, "dummy");
    submit(&mut ep, &[move_to(2, 8)]);
    let aoo = lines_with(&ep, "attack of opportunity");
    assert_eq!(aoo.len(), 1, "{}", log(&ep));
    assert!(
        log(&ep).contains("hero: longsword vs dummy d20=10+5=15 AC 40 -> MISS"),
        "{}",
        log(&ep)
    );
    assert_eq!(dice_left(&ep), 0);
}

/// CRB — Feats: Power Attack: half the damage bonus on off-hand attacks (BAB 4: X = 2, +4
/// main hand, +2 off hand).
#[test]
fn crb_power_attack_adds_half_off_hand() {
    let mut hero = fighter(4, true, &["Two-Weapon Fighting", "Power Attack"]);
    hero["abilities"]["str_score"] = json!(10);
    hero["attacks"][0]["damage"][0]["formula"] = json!("1d8");
    hero["attacks"][1]["damage"][0]["formula"] = json!("1d6");
    let (mut ep, d) = duel(hero, 10, &[20, 1, 15, 4, 15, 4]);
    let pa = Action::new(ActionKind::ActivatePowerAttack);
    submit(&mut ep, &[pa, full_attack_with(d, 0)]);
    assert_eq!(ep.hp(d), 100 - (4 + 4) - (4 + 2), "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

/// A full attack naming the off-hand weapon is a full attack with that weapon alone (our
/// reading, `docs/conformance.md`): no off-hand attack, no two-weapon penalty.
#[test]
fn full_attack_with_the_off_hand_weapon_alone() {
    let (mut ep, d) = duel(fighter(1, true, &[]), 40, &[20, 1, 10]);
    submit(&mut ep, &[full_attack_with(d, 1)]);
    assert_eq!(
        lines_of(&ep, "hero"),
        vec!["short sword vs dummy d20=10+5=15 AC 40 -> MISS"]
    );
}

/// The off-hand weapon must reach the target: out of reach (a dropped weapon…), the full
/// attack has no off-hand attack and no two-weapon penalty.
#[test]
fn an_off_hand_weapon_that_cannot_attack_adds_nothing() {
    let mut hero = fighter(1, true, &[]);
    hero["attacks"][0]["reach_ft"] = json!(10);
    hero["attacks"][0]["reach_weapon"] = json!(false);
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "dummy", dummy(40), (2, 4)),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 10]);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    submit(&mut ep, &[full_attack_with(d, 0)]);
    assert_eq!(
        lines_of(&ep, "hero"),
        vec!["longsword vs dummy d20=10+5=15 AC 40 -> MISS"]
    );
}

/// Data: an off-hand weapon is a manufactured weapon held in one hand; the errors name the
/// field.
#[test]
fn off_hand_data_errors_are_clear() {
    let mut v = creature("x");
    v["attacks"][0]["natural"] = json!(true);
    v["attacks"][0]["off_hand"] = json!(true);
    let e = pf1e_engine::CombatantSpec::from_json_str(&v.to_string(), "x.json").unwrap_err();
    assert!(
        e.to_string().contains("attacks[0].off_hand") && e.to_string().contains("natural"),
        "{e}"
    );
    let mut v = creature("x");
    v["attacks"][0]["two_handed"] = json!(true);
    v["attacks"][0]["off_hand"] = json!(true);
    let e = pf1e_engine::CombatantSpec::from_json_str(&v.to_string(), "x.json").unwrap_err();
    assert!(e.to_string().contains("two-handed"), "{e}");
}
