//! Combat maneuvers (CRB — Combat: Combat Maneuvers; APG — dirty trick, drag, reposition,
//! steal): CMB/CMD, provoking, size limits, margins, grapple, and the Trip rider (Bestiary —
//! Universal Monster Rules: Trip). Scripted dice: initiative d20s first (list order), then
//! every roll in order.

mod common;

use common::*;
use pf1e_engine::actions::{Reject, TargetIssue};
use pf1e_engine::effects::conditions::Condition;
use pf1e_engine::{Action, ActionKind, CombatantId, CombatantSpec, Episode, Maneuver};
use serde_json::{json, Value};

fn man(t: CombatantId, m: Maneuver) -> Action {
    let mut a = Action::new(ActionKind::Maneuver);
    a.target = Some(t);
    a.maneuver = Some(m);
    a
}

/// Hero at (2,2), dummy at (2,3); hero acts first (dummy flat-footed: no AoO).
fn duel(hero: Value, dummy: Value, faces: &[u32]) -> (Episode, CombatantId, CombatantId) {
    let enc = encounter(
        &room(4, 8),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "dummy", dummy, (2, 3)),
        ],
    );
    let mut ep = episode(enc, faces);
    turn_of(&mut ep, "hero");
    let (h, d) = (cid(&ep, "hero"), cid(&ep, "dummy"));
    (ep, h, d)
}

fn reason(ep: &Episode, a: &Action) -> Option<String> {
    ep.validate(a).unwrap().code().map(str::to_string)
}

#[test]
fn crb_cmb_cmd_formula_matches_every_bundled_printed_value() {
    // CMB = BAB + Str + size; CMD = 10 + BAB + Str + Dex + size: the SRD stat blocks of the
    // martial bestiary agree. (The casters' stat blocks of issue 12 are used as printed: feats
    // change their formula — Agile Maneuvers, Defensive Combat Training — and Tiny ones print
    // Str where the CRB says Dex; engine/tests/caster_data.rs checks their numbers.)
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/monsters");
    let martial = [
        "bugbear",
        "dark_stalker",
        "destrachan",
        "dire_rat",
        "giant_wood",
        "gnoll",
        "goblin",
        "hobgoblin",
        "human_skeleton",
        "human_zombie",
        "ogre",
        "orc",
        "small_earth_elemental",
        "tiefling",
        "wolf",
    ];
    let mut n = 0;
    for name in martial {
        let p = dir.join(format!("{name}.json"));
        let s = CombatantSpec::load(&p).unwrap();
        let (cmb, cmd) = (s.cmb.expect("printed cmb"), s.cmd.expect("printed cmd"));
        let mut bare = s.clone();
        bare.cmb = None;
        bare.cmd = None;
        bare.cmd_vs.clear();
        assert_eq!(bare.base_cmb("trip"), cmb, "{p:?} CMB");
        assert_eq!(bare.base_cmd("grapple"), cmd, "{p:?} CMD");
        n += 1;
    }
    assert_eq!(n, 15);
    // "14 (18 vs. trip)": the per-maneuver value wins for trip only.
    let wolf = CombatantSpec::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/monsters/wolf.json"),
    )
    .unwrap();
    assert_eq!((wolf.base_cmd("trip"), wolf.base_cmd("grapple")), (18, 14));
}

#[test]
fn crb_cmb_size_modifiers_and_dex_for_tiny() {
    // Tiny: Dex instead of Str for CMB, size −2; CMD keeps Str and Dex.
    let mut tiny = creature("tiny");
    tiny["size"] = json!("Tiny");
    tiny["abilities"]["str_score"] = json!(6);
    tiny["abilities"]["dex_score"] = json!(16);
    let s = spec(&tiny);
    assert_eq!(s.base_cmb("trip"), 1 + 3 - 2);
    assert_eq!(s.base_cmd("trip"), 10 + 1 - 2 + 3 - 2);
    let mut large = creature("large");
    large["size"] = json!("Large");
    large["bab"] = json!(3);
    large["abilities"]["str_score"] = json!(20);
    let s = spec(&large);
    assert_eq!(
        (s.base_cmb("trip"), s.base_cmd("trip")),
        (3 + 5 + 1, 10 + 3 + 5 + 1)
    );
    for (size, m) in [
        ("Fine", -8),
        ("Diminutive", -4),
        ("Small", -1),
        ("Huge", 2),
        ("Gargantuan", 4),
        ("Colossal", 8),
    ] {
        let mut c = creature("c");
        c["size"] = json!(size);
        let s = spec(&c);
        // Str 10 and Dex 10: the ability modifier is 0 whichever one counts.
        assert_eq!(s.base_cmb("trip"), 1 + m, "{size}");
    }
}

#[test]
fn crb_trip_success_knocks_prone_failure_by_10_trips_the_attacker() {
    // CMB +1 vs CMD 11 (dummy flat-footed: no AoO, no Dex bonus anyway).
    let (mut ep, h, d) = duel(creature("hero"), creature("dummy"), &[20, 1, 10]);
    assert_all_ok(&submit(&mut ep, &[man(d, Maneuver::Trip)]));
    assert_eq!(
        lines_of(&ep, "hero")[0],
        "trip vs dummy d20=10+1=11 CMD 11 -> SUCCESS"
    );
    assert!(ep.has_condition(d, Condition::Prone));
    assert!(!ep.has_condition(h, Condition::Prone));
    // Failure by 10 or more: the attacker is knocked prone instead.
    let big = set(creature("dummy"), "cmd", json!(21));
    let (mut ep, h, d) = duel(creature("hero"), big, &[20, 1, 9]);
    submit(&mut ep, &[man(d, Maneuver::Trip)]);
    assert!(
        log(&ep).contains("d20=9+1=10 CMD 21 -> FAIL"),
        "{}",
        log(&ep)
    );
    assert!(ep.has_condition(h, Condition::Prone) && !ep.has_condition(d, Condition::Prone));
    // Natural 20 always succeeds, natural 1 always fails.
    let big = set(creature("dummy"), "cmd", json!(40));
    let (mut ep, _, d) = duel(creature("hero"), big, &[20, 1, 20]);
    submit(&mut ep, &[man(d, Maneuver::Trip)]);
    assert!(ep.has_condition(d, Condition::Prone));
}

#[test]
fn crb_maneuver_provokes_from_target_aoo_damage_is_a_penalty_unless_improved_feat() {
    // Dummy acts first (so it is not flat-footed), then the hero trips: the dummy's AoO hits
    // for 4, a −4 penalty on the maneuver roll: 14 + 1 − 4 = 11 vs CMD 11.
    let enc = encounter(
        &room(4, 8),
        vec![
            unit("a", "hero", creature("hero"), (2, 2)),
            unit("b", "dummy", creature("dummy"), (2, 3)),
        ],
    );
    let mut ep = episode(enc.clone(), &[1, 20, 15, 4, 14]);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    submit(&mut ep, &[man(d, Maneuver::Trip)]);
    assert_eq!(
        lines_with(&ep, "attack of opportunity"),
        vec!["round 1 dummy: attack of opportunity on hero (attempts a combat maneuver)"]
    );
    assert!(
        log(&ep).contains("trip vs dummy d20=14-3=11 CMD 11 [AoO damage -4] -> SUCCESS"),
        "{}",
        log(&ep)
    );
    assert_eq!(dice_left(&ep), 0);
    // Improved Trip: no attack of opportunity.
    let hero = set(creature("hero"), "feats", json!(["Improved Trip"]));
    let enc = encounter(
        &room(4, 8),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "dummy", creature("dummy"), (2, 3)),
        ],
    );
    let mut ep = episode(enc, &[1, 20, 14]);
    turn_of(&mut ep, "hero");
    submit(&mut ep, &[man(d, Maneuver::Trip)]);
    assert!(lines_with(&ep, "attack of opportunity").is_empty());
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_trip_size_limit_large_creature_trips_huge_in_reach_medium_cannot() {
    let mut large = creature("hero");
    large["size"] = json!("Large");
    let mut huge = creature("dummy");
    huge["size"] = json!("Huge");
    let mut garg = creature("dummy");
    garg["size"] = json!("Gargantuan");
    // Large hero (2×2 at rows 2–3, cols 2–3), target 10 ft away: in its natural reach.
    let mk = |hero: Value, dummy: Value| {
        let enc = encounter(
            &room(8, 12),
            vec![
                unit("a", "hero", hero, (2, 2)),
                unit("b", "dummy", dummy, (2, 5)),
            ],
        );
        let mut ep = episode(enc, &[20, 1]);
        turn_of(&mut ep, "hero");
        let d = cid(&ep, "dummy");
        (ep, d)
    };
    let (ep, d) = mk(large.clone(), huge.clone());
    assert_eq!(reason(&ep, &man(d, Maneuver::Trip)), None);
    let (ep, d) = mk(large, garg);
    assert_eq!(
        reason(&ep, &man(d, Maneuver::Trip)).as_deref(),
        Some("target_too_large")
    );
    // Disarm and grapple have no size limit (out of reach here, so the reason is the range).
    let (ep, d) = mk(creature("hero"), huge);
    assert_eq!(
        reason(&ep, &man(d, Maneuver::Trip)).as_deref(),
        Some("target_too_large")
    );
    assert_eq!(
        reason(&ep, &man(d, Maneuver::Grapple)).as_deref(),
        Some("out_of_range")
    );
}

#[test]
fn crb_cmd_flat_footed_loses_dex_bonus_dodge_and_prone_penalty_apply() {
    // Dex 14 dummy with Dodge applied by the engine: CMD 10 + 1 + 0 + 2 + 1 (dodge) = 14;
    // flat-footed: no Dex bonus and no dodge bonus: 11; prone: −4 (an AC penalty).
    let mut dummy = creature("dummy");
    dummy["abilities"]["dex_score"] = json!(14);
    dummy["feats"] = json!(["Dodge"]);
    dummy["printed_feats_included"] = json!(false);
    let (mut ep, _, d) = duel(creature("hero"), dummy, &[20, 1]);
    assert_eq!(ep.cmd(d), 11, "flat-footed before its first turn");
    end_turn(&mut ep);
    turn_of(&mut ep, "dummy");
    assert_eq!(ep.cmd(d), 14);
    ep.apply_condition(d, "prone", None).unwrap();
    assert_eq!(ep.cmd(d), 10);
}

/// A Dex 14 dummy with the Dodge feat, printed numbers including it (the Bestiary
/// convention): AC 13, touch 13, flat-footed 10.
fn dodger(printed_cmd: Option<i32>) -> Value {
    let mut d = creature("dummy");
    d["abilities"]["dex_score"] = json!(14);
    d["feats"] = json!(["Dodge"]);
    d["ac"] = json!({"total": 13, "touch": 13, "flat_footed": 10});
    if let Some(cmd) = printed_cmd {
        d["cmd"] = json!(cmd);
    }
    d
}

#[test]
fn crb_computed_cmd_counts_the_dodge_feat_and_loses_it_with_dex() {
    // CMD 10 + 1 (BAB) + 0 + 2 (Dex) + 1 (dodge) = 14; flat-footed: no Dex bonus, no dodge
    // bonus (CRB — Combat Maneuver Defense; Armor Class: Dodge Bonuses): 11.
    assert_eq!(spec(&dodger(None)).base_cmd("trip"), 14);
    let (mut ep, _, d) = duel(creature("hero"), dodger(None), &[20, 1]);
    assert_eq!(ep.cmd(d), 11, "flat-footed before its first turn");
    end_turn(&mut ep);
    turn_of(&mut ep, "dummy");
    assert_eq!(ep.cmd(d), 14);
    assert_eq!(ep.observation(None).combatants[d.0 as usize].cmd, 14);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_printed_cmd_with_dodge_flat_footed_loses_dex_bonus_and_dodge() {
    // Printed CMD 14 (Dex +2 and Dodge +1 in it): flat-footed 14 − 2 − 1 = 11. The trip at
    // d20 10 + 1 = 11 meets it and succeeds.
    let (mut ep, _, d) = duel(creature("hero"), dodger(Some(14)), &[20, 1, 10]);
    assert_eq!(ep.cmd(d), 11, "flat-footed before its first turn");
    assert_all_ok(&submit(&mut ep, &[man(d, Maneuver::Trip)]));
    assert!(log(&ep).contains("Dex -2, Dodge -1"), "{}", log(&ep));
    assert!(ep.has_condition(d, Condition::Prone), "{}", log(&ep));
    // On its own turn it has its Dex and dodge back; prone: −4.
    turn_of(&mut ep, "dummy");
    assert_eq!(ep.cmd(d), 14 - 4);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn dodge_feat_with_printed_feats_excluded_stays_a_cmd_modifier() {
    // `printed_feats_included: false`: the base holds no dodge (13); the feat is a +1 dodge
    // AC modifier that the CMD collects (14) and loses when flat-footed (11) — as before.
    let mut dummy = dodger(None);
    dummy["printed_feats_included"] = json!(false);
    dummy["ac"] = json!({"total": 12, "touch": 12, "flat_footed": 10});
    assert_eq!(spec(&dummy).base_cmd("trip"), 13);
    let (mut ep, _, d) = duel(creature("hero"), dummy, &[20, 1]);
    assert_eq!(ep.cmd(d), 11);
    end_turn(&mut ep);
    turn_of(&mut ep, "dummy");
    assert_eq!(ep.cmd(d), 14);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_grappled_is_not_flat_footed_and_grapple_escape_cycle() {
    // Hero grapples (d20 10: 11 vs 11): both grappled; the dummy keeps its Dex to AC (only
    // the −4 Dex penalty of grappled), is not denied Dex; then it escapes (CMB vs CMD, no
    // AoO, the grappled −2 does not count): d20 10 + 1 = 11 vs the hero's CMD 11 − 2 (its
    // own grappled Dex −4).
    let mut dummy = creature("dummy");
    dummy["abilities"]["dex_score"] = json!(14);
    dummy["ac"] = json!({"total": 12, "touch": 12, "flat_footed": 10});
    let (mut ep, h, d) = duel(creature("hero"), dummy, &[20, 1, 10, 10]);
    assert_all_ok(&submit(&mut ep, &[man(d, Maneuver::Grapple)]));
    assert!(ep.has_condition(h, Condition::Grappled) && ep.has_condition(d, Condition::Grappled));
    assert_eq!(ep.grappled_with(d), Some(h));
    // Grappled and its standard action spent: nothing left, the turn ended by itself.
    turn_of(&mut ep, "dummy");
    let obs = ep.observation(None);
    assert!(!obs.combatants[d.0 as usize].denied_dex_to_ac);
    assert_eq!(
        obs.combatants[d.0 as usize].grappled_with.as_deref(),
        Some("hero")
    );
    // A grappled creature cannot move.
    assert_eq!(
        reason(&ep, &move_to(3, 3)).as_deref(),
        Some("prevented_by_condition")
    );
    assert_eq!(
        reason(&ep, &man(h, Maneuver::Pin)).as_deref(),
        Some("not_grappled")
    );
    let mut esc = Action::new(ActionKind::Maneuver);
    esc.maneuver = Some(Maneuver::Escape);
    assert_all_ok(&submit(&mut ep, &[esc]));
    assert!(
        log(&ep).contains("escape vs hero d20=10+1=11 CMD 9 [target Dex -2] -> SUCCESS"),
        "{}",
        log(&ep)
    );
    assert!(!ep.has_condition(h, Condition::Grappled) && !ep.has_condition(d, Condition::Grappled));
    assert_eq!(ep.grappled_with(h), None);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_grapple_maintain_plus_5_and_pin() {
    // Start (10+1=11 vs 11), next turn pin with +5 circumstance: 5 + 1 + 5 = 11 vs the
    // dummy's CMD 11 (its grappled Dex −4 is a penalty: Dex 10 → 6, −2) = 9.
    let (mut ep, _, d) = duel(creature("hero"), creature("dummy"), &[20, 1, 10, 5]);
    submit(&mut ep, &[man(d, Maneuver::Grapple)]);
    turn_of(&mut ep, "hero");
    assert_all_ok(&submit(&mut ep, &[man(d, Maneuver::Pin)]));
    assert!(
        log(&ep).contains("pin vs dummy d20=5+6=11 CMD 9"),
        "{}",
        log(&ep)
    );
    assert!(ep.has_condition(d, Condition::Pinned));
}

#[test]
fn crb_disarm_drops_the_weapon_then_retrieve_provokes() {
    let (mut ep, h, d) = duel(creature("hero"), creature("dummy"), &[20, 1, 10]);
    submit(&mut ep, &[man(d, Maneuver::Disarm)]);
    let st = ep.weapon_state(d, 0).unwrap();
    assert_eq!(st.dropped_at, Some(pf1e_engine::Cell::new(2, 3)));
    end_turn(&mut ep);
    turn_of(&mut ep, "dummy");
    // No weapon: no attack; picking it up is a move action that provokes.
    assert_eq!(
        reason(&ep, &attack(h)).as_deref(),
        Some("weapon_unavailable")
    );
    let legal = ep.legal_actions();
    let mut pick = Action::new(ActionKind::RetrieveWeapon);
    pick.weapon = Some(0);
    assert!(legal.iter().any(|l| l.action == pick));
    let _ = h;
}

#[test]
fn crb_bull_rush_pushes_5_ft_plus_5_per_5_margin() {
    // 19 + 1 = 20 vs 11: margin 9 → 10 ft.
    let (mut ep, _, d) = duel(creature("hero"), creature("dummy"), &[20, 1, 19]);
    submit(&mut ep, &[man(d, Maneuver::BullRush)]);
    assert_eq!(ep.position(d), pf1e_engine::Cell::new(2, 5));
    assert!(log(&ep).contains("pushes dummy back 10 ft"), "{}", log(&ep));
}

#[test]
fn crb_overrun_moves_through_prone_by_5_or_more() {
    let (mut ep, h, d) = duel(creature("hero"), creature("dummy"), &[20, 1, 15]);
    submit(&mut ep, &[man(d, Maneuver::Overrun)]);
    assert_eq!(ep.position(h), pf1e_engine::Cell::new(2, 4));
    assert!(ep.has_condition(d, Condition::Prone));
    let (mut ep, h, d) = duel(creature("hero"), creature("dummy"), &[20, 1, 12]);
    submit(&mut ep, &[man(d, Maneuver::Overrun)]);
    assert_eq!(ep.position(h), pf1e_engine::Cell::new(2, 4));
    assert!(
        !ep.has_condition(d, Condition::Prone),
        "margin 2 < 5: moves through only"
    );
}

#[test]
fn apg_dirty_trick_condition_1_round_plus_1_per_5() {
    let (mut ep, _, d) = duel(creature("hero"), creature("dummy"), &[20, 1, 20]);
    submit(&mut ep, &[man(d, Maneuver::DirtyTrickBlinded)]);
    // 20 + 1 = 21 vs 11: margin 10 → 3 rounds.
    assert_eq!(
        ep.observation(None).combatants[d.0 as usize]
            .conditions
            .get("blinded"),
        Some(&Some(3))
    );
}

#[test]
fn crb_stunned_target_plus_4_helpless_automatic_success() {
    let (mut ep, _, d) = duel(creature("hero"), creature("dummy"), &[20, 1, 4]);
    ep.apply_condition(d, "stunned", Some(2)).unwrap();
    submit(&mut ep, &[man(d, Maneuver::Trip)]);
    // Stunned: −2 AC also lowers CMD (11 − 2 = 9); +4 to the roll: 4 + 1 + 4 = 9.
    assert!(log(&ep).contains("d20=4+5=9 CMD 9"), "{}", log(&ep));
    assert!(ep.has_condition(d, Condition::Prone));
    let (mut ep, _, d) = duel(creature("hero"), creature("dummy"), &[20, 1, 2]);
    ep.apply_condition(d, "paralyzed", Some(2)).unwrap();
    submit(&mut ep, &[man(d, Maneuver::Disarm)]);
    assert!(
        log(&ep).contains("SUCCESS (helpless target)"),
        "{}",
        log(&ep)
    );
}

#[test]
fn bestiary_trip_rider_free_trip_on_bite_hit_without_aoo() {
    // The bundled wolf: bite +2 (1d6+1 plus trip), CMB +2; a hit trips without provoking.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/monsters");
    let wolf: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("wolf.json")).unwrap()).unwrap();
    let enc = encounter(
        &room(4, 8),
        vec![
            unit("a", "wolf", wolf, (2, 2)),
            unit("b", "dummy", creature("dummy"), (2, 3)),
        ],
    );
    // Initiative, bite d20 15 (hit), 1d6 = 3, trip d20 10 + 2 = 12 vs CMD 11.
    let mut ep = episode(enc, &[20, 1, 15, 3, 10]);
    turn_of(&mut ep, "wolf");
    let d = cid(&ep, "dummy");
    submit(&mut ep, &[attack(d)]);
    assert!(
        log(&ep).contains("trip vs dummy d20=10+2=12 CMD 11 -> SUCCESS"),
        "{}",
        log(&ep)
    );
    assert!(ep.has_condition(d, Condition::Prone));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_trip_creatures_without_legs_or_flying_cannot_be_tripped() {
    // CRB — Trip: "Some creatures—such as oozes, creatures without legs, and flying
    // creatures—cannot be tripped": the trait `no_legs` (oozes, snakes…), a fly speed, or the
    // trait `cannot_be_tripped`. Refused as `invalid_target` (cannot be tripped), off the
    // mask, no die rolled.
    let untrippable = [
        set(creature("dummy"), "speed_fly_ft", json!(60)),
        set(creature("dummy"), "traits", json!(["no_legs"])),
        set(creature("dummy"), "traits", json!(["cannot_be_tripped"])),
    ];
    for dummy in untrippable {
        let what = dummy.to_string();
        let (ep, _, d) = duel(creature("hero"), dummy, &[20, 1]);
        let a = man(d, Maneuver::Trip);
        assert_eq!(
            ep.validate(&a).unwrap().reason,
            Some(Reject::InvalidTarget {
                target: Some(d),
                why: TargetIssue::CannotBeTripped
            }),
            "{what}"
        );
        let legal = ep.legal_actions();
        assert!(!legal.iter().any(|l| l.action == a), "{what}");
        // Other maneuvers stay legal.
        assert!(legal.iter().any(|l| l.action == man(d, Maneuver::Disarm)));
        assert_eq!(dice_left(&ep), 0);
    }
    // Control: a plain dummy can be tripped.
    let (ep, _, d) = duel(creature("hero"), creature("dummy"), &[20, 1]);
    assert_eq!(ep.validate(&man(d, Maneuver::Trip)).unwrap().reason, None);
}

/// Our ruling on CRB — Combat: Trip ("If your attack fails by 10 or more, you are knocked
/// prone instead"; "Some creatures—such as oozes, creatures without legs, and flying
/// creatures—cannot be tripped") and Overrun ("exceeds your opponent's CMD by 5 or more …
/// the target is knocked prone"): a creature that cannot be tripped is not knocked prone by
/// these either. A flying, legless or `cannot_be_tripped` hero fails a trip by 11 and stays
/// up; the hero overruns such a dummy by 5 and moves through it without felling it.
#[test]
fn crb_trip_and_overrun_never_knock_prone_a_creature_that_cannot_be_tripped() {
    let untrippable = |name: &str| {
        [
            set(creature(name), "speed_fly_ft", json!(60)),
            set(creature(name), "traits", json!(["no_legs"])),
            set(creature(name), "traits", json!(["cannot_be_tripped"])),
        ]
    };
    for hero in untrippable("hero") {
        let what = hero.to_string();
        let big = set(creature("dummy"), "cmd", json!(21));
        let (mut ep, h, d) = duel(hero, big, &[20, 1, 9]);
        assert_all_ok(&submit(&mut ep, &[man(d, Maneuver::Trip)]));
        assert_eq!(
            lines_of(&ep, "hero"),
            vec!["trip vs dummy d20=9+1=10 CMD 21 -> FAIL"],
            "{what}"
        );
        assert!(!ep.has_condition(h, Condition::Prone), "{what}");
        assert!(!ep.has_condition(d, Condition::Prone), "{what}");
        assert_eq!(dice_left(&ep), 0);
    }
    for dummy in untrippable("dummy") {
        let what = dummy.to_string();
        let (mut ep, h, d) = duel(creature("hero"), dummy, &[20, 1, 15]);
        assert_all_ok(&submit(&mut ep, &[man(d, Maneuver::Overrun)]));
        assert_eq!(ep.position(h), pf1e_engine::Cell::new(2, 4), "{what}");
        assert!(
            log(&ep).contains("overrun vs dummy d20=15+1=16 CMD 11 -> SUCCESS"),
            "{what}: {}",
            log(&ep)
        );
        assert!(
            !ep.has_condition(d, Condition::Prone),
            "{what}: {}",
            log(&ep)
        );
        assert_eq!(dice_left(&ep), 0);
    }
    // Controls (crb_trip_success_knocks_prone_failure_by_10_trips_the_attacker,
    // crb_overrun_moves_through_prone_by_5_or_more): a plain tripper falls, a plain target
    // is knocked prone.
    let big = set(creature("dummy"), "cmd", json!(21));
    let (mut ep, h, d) = duel(creature("hero"), big, &[20, 1, 9]);
    submit(&mut ep, &[man(d, Maneuver::Trip)]);
    assert!(ep.has_condition(h, Condition::Prone));
    let (mut ep, _, d) = duel(creature("hero"), creature("dummy"), &[20, 1, 15]);
    submit(&mut ep, &[man(d, Maneuver::Overrun)]);
    assert!(ep.has_condition(d, Condition::Prone));
}

#[test]
fn bestiary_trip_rider_no_free_trip_against_a_legless_or_flying_target() {
    // The wolf's bite hits (d20 15, 1d6 = 3) a legless or flying dummy: no trip roll (the
    // scripted 10 stays), the dummy stays standing.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/monsters");
    let wolf: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("wolf.json")).unwrap()).unwrap();
    for dummy in [
        set(creature("dummy"), "speed_fly_ft", json!(60)),
        set(creature("dummy"), "traits", json!(["no_legs"])),
    ] {
        let what = dummy.to_string();
        let enc = encounter(
            &room(4, 8),
            vec![
                unit("a", "wolf", wolf.clone(), (2, 2)),
                unit("b", "dummy", dummy, (2, 3)),
            ],
        );
        let mut ep = episode(enc, &[20, 1, 15, 3, 10]);
        turn_of(&mut ep, "wolf");
        let d = cid(&ep, "dummy");
        assert_all_ok(&submit(&mut ep, &[attack(d)]));
        assert!(log(&ep).contains("-> HIT"), "{what}: {}", log(&ep));
        assert!(!log(&ep).contains("trip vs"), "{what}: {}", log(&ep));
        assert!(!ep.has_condition(d, Condition::Prone), "{what}");
        assert_eq!(dice_left(&ep), 1, "{what}: the trip die is not rolled");
    }
}

#[test]
fn maneuver_action_ids_round_trip_and_appear_in_legal_actions() {
    let (ep, _, d) = duel(creature("hero"), creature("dummy"), &[20, 1]);
    let legal = ep.legal_actions();
    for m in [Maneuver::Trip, Maneuver::Disarm, Maneuver::DirtyTrickShaken] {
        let a = man(d, m);
        let id = ep.action_id(&a).expect("an id");
        assert_eq!(ep.action_from_id(id), Some(a.clone()));
        assert!(legal.iter().any(|l| l.id == id && l.action == a), "{m:?}");
    }
    // Not grappled: no escape, no pin.
    assert!(!legal
        .iter()
        .any(|l| matches!(l.action.maneuver, Some(Maneuver::Escape | Maneuver::Pin))));
    let label = &legal
        .iter()
        .find(|l| l.action == man(d, Maneuver::Trip))
        .unwrap()
        .label;
    assert_eq!(label, "maneuver dummy trip");
    let mut bare = Action::new(ActionKind::Maneuver);
    bare.target = Some(d);
    assert_eq!(reason(&ep, &bare).as_deref(), Some("missing_maneuver"));
}

fn bull_rush_toward(t: CombatantId, d: pf1e_engine::Direction) -> Action {
    Action {
        direction: Some(d),
        ..man(t, Maneuver::BullRush)
    }
}

/// A Large hero (anchor (1,1), 2 × 2) and a Medium dummy at (3,2) in an 8 × 8 room: the line
/// between their centres runs between S and SE.
fn large_pusher(faces: &[u32]) -> (Episode, CombatantId) {
    let enc = encounter(
        &room(8, 8),
        vec![
            unit(
                "a",
                "hero",
                set(creature("hero"), "size", json!("Large")),
                (1, 1),
            ),
            unit("b", "dummy", creature("dummy"), (3, 2)),
        ],
    );
    let mut ep = episode(enc, faces);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    (ep, d)
}

#[test]
fn crb_bull_rush_straight_back_the_attacker_may_choose_between_the_two_grid_directions() {
    use pf1e_engine::Direction;
    // CRB — Bull Rush: "push an opponent straight back". Adjacent Medium creatures: only the
    // one direction; a direction off the line is refused, on another maneuver too.
    let (ep, _, d) = duel(creature("hero"), creature("dummy"), &[20, 1]);
    assert_eq!(
        reason(&ep, &bull_rush_toward(d, Direction::Se)).as_deref(),
        Some("invalid_direction")
    );
    assert_eq!(reason(&ep, &bull_rush_toward(d, Direction::E)), None);
    let trip = Action {
        direction: Some(Direction::E),
        ..man(d, Maneuver::Trip)
    };
    assert_eq!(reason(&ep, &trip).as_deref(), Some("invalid_direction"));
    // The Large hero: S and SE are both straight back, E is not. 19 + 2 = 21 vs CMD 11:
    // margin 10 → 15 ft: S three squares; SE two (5-10-5).
    let (ep, d) = large_pusher(&[20, 1]);
    assert_eq!(
        reason(&ep, &bull_rush_toward(d, Direction::E)).as_deref(),
        Some("invalid_direction")
    );
    let (mut ep, d) = large_pusher(&[20, 1, 19]);
    assert_all_ok(&submit(&mut ep, &[bull_rush_toward(d, Direction::S)]));
    assert_eq!(ep.position(d), pf1e_engine::Cell::new(6, 2));
    let (mut ep, d) = large_pusher(&[20, 1, 19]);
    assert_all_ok(&submit(&mut ep, &[bull_rush_toward(d, Direction::Se)]));
    assert_eq!(ep.position(d), pf1e_engine::Cell::new(5, 4));
    // Without a direction: the default (the diagonal of the centre line, as before).
    let (mut ep, d) = large_pusher(&[20, 1, 19]);
    assert_all_ok(&submit(&mut ep, &[man(d, Maneuver::BullRush)]));
    assert_eq!(ep.position(d), pf1e_engine::Cell::new(5, 4));
    assert_eq!(dice_left(&ep), 0);
}

/// CRB — Combat: Grapple ("you receive a +5 circumstance bonus on your combat maneuver check
/// to maintain the grapple" — the check to move, damage or pin); Conditions: Grappled ("−2
/// penalty on all attack rolls and combat maneuver checks, except those made to grapple or
/// escape a grapple"). The grappler's disarm against its grappled foe is no check to
/// maintain: no +5, and the grappled −2 applies. Start (10 + 1 = 11 vs 11); next turn the
/// disarm: d20 12 + 1 − 2 = 11 vs the dummy's CMD 9 (its grappled Dex −4).
#[test]
fn crb_grapple_plus_5_only_to_maintain_other_maneuvers_take_the_grappled_minus_2() {
    let (mut ep, _, d) = duel(creature("hero"), creature("dummy"), &[20, 1, 10, 12]);
    submit(&mut ep, &[man(d, Maneuver::Grapple)]);
    turn_of(&mut ep, "hero");
    assert_all_ok(&submit(&mut ep, &[man(d, Maneuver::Disarm)]));
    let l = log(&ep);
    assert!(l.contains("disarm vs dummy d20=12-1=11 CMD 9"), "{l}");
    assert!(!l.contains("maintain grapple"), "{l}");
    assert_eq!(dice_left(&ep), 0);
}
