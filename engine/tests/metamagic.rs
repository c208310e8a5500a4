//! Metamagic (CRB — Feats: Metamagic Feats; Magic: Spontaneous Casting and Metamagic Feats):
//! per-cast options of the feats a caster has, a slot that many levels higher, a full-round
//! action for a spontaneous caster (Quicken: a swift action that does not provoke), Empower
//! and Maximize on variable numbers, Extend on durations, Heighten on the DC only.

mod common;

use common::*;
use pf1e_engine::{Action, ActionKind, CombatantId, Metamagic};
use serde_json::json;

fn cast(spell: usize, t: CombatantId, mm: &[Metamagic]) -> Action {
    Action {
        spell: Some(spell),
        target: Some(t),
        metamagic: mm.to_vec(),
        ..Action::new(ActionKind::CastSpell)
    }
}

/// A sorcerer-like mage (CL 5, slots 1–4) with `feats`, a foe at (1,7); the mage acts first.
fn duel(
    feats: &[&str],
    spells: &[&str],
    faces: &[u32],
) -> (pf1e_engine::Episode, CombatantId, CombatantId) {
    let mut v = caster(
        "mage",
        5,
        spells,
        json!({"1": 3, "2": 2, "3": 1, "4": 1, "5": 1}),
    );
    v["feats"] = json!(feats);
    let enc = encounter(
        &room(3, 10),
        vec![
            unit("a", "mage", v, (1, 1)),
            unit("b", "foe", creature("foe"), (1, 7)),
        ],
    );
    let mut all = vec![20, 1];
    all.extend_from_slice(faces);
    let mut ep = episode(enc, &all);
    turn_of(&mut ep, "mage");
    let (m, f) = (cid(&ep, "mage"), cid(&ep, "foe"));
    (ep, m, f)
}

fn slots(ep: &pf1e_engine::Episode, m: CombatantId, level: &str) -> u32 {
    ep.observation(None).combatants[m.0 as usize].spell_slots_left[level]
}

#[test]
fn crb_empower_spell_half_again_in_a_slot_two_levels_higher_full_round_for_spontaneous() {
    // Magic missile CL 5: three missiles; empowered: each roll and its bonus ×1.5, rounded
    // down ("including bonuses to those dice rolls"). Rolls 4, 3, 2 → 7, 6, 4.
    let (mut ep, m, f) = duel(&["Empower Spell"], &["magic missile"], &[4, 3, 2]);
    let r = submit(&mut ep, &[cast(0, f, &[Metamagic::Empower]), move_to(1, 2)]);
    assert!(ok(&r[0]));
    // A spontaneous caster's metamagic spell is a full-round action: no move after it.
    assert_eq!(r[1].code(), Some("downgraded:action_economy"));
    let l = log(&ep);
    assert!(
        l.contains("casts magic missile on foe (level 3 slot) [empower]"),
        "{l}"
    );
    assert!(l.contains("empowered 1d4+1=7"), "{l}");
    assert!(l.contains("empowered 1d4+1=6"), "{l}");
    assert!(l.contains("empowered 1d4+1=4"), "{l}");
    assert_eq!(slots(&ep, m, "3"), 0);
    assert_eq!(slots(&ep, m, "1"), 3);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_maximize_spell_maximum_of_the_dice_no_roll() {
    // Maximized magic missile: 5 each, no dice rolled.
    let (mut ep, m, f) = duel(&["Maximize Spell"], &["magic missile"], &[]);
    assert!(ok(
        &submit(&mut ep, &[cast(0, f, &[Metamagic::Maximize])])[0]
    ));
    assert_eq!(
        lines_with(&ep, "maximized 1d4+1=5").len(),
        3,
        "{}",
        log(&ep)
    );
    assert_eq!(slots(&ep, m, "4"), 0);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_quicken_spell_is_a_swift_action_that_does_not_provoke() {
    // Adjacent foe, round 2 (no longer flat-footed): a quickened spell provokes nothing and
    // leaves the standard action free (a second, normal cast provokes).
    let mut v = caster("mage", 9, &["magic missile"], json!({"1": 3, "5": 1}));
    v["feats"] = json!(["Quicken Spell"]);
    let enc = encounter(
        &room(3, 10),
        vec![
            unit("a", "mage", v, (1, 1)),
            unit("b", "foe", creature("foe"), (1, 2)),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 1, 1, 1, 1, 1]);
    turn_of(&mut ep, "mage");
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    let f = cid(&ep, "foe");
    let d = decision(&ep);
    ep.submit(d.decision_id, &[cast(0, f, &[Metamagic::Quicken])])
        .unwrap();
    let l = log(&ep);
    assert!(l.contains("[quicken]"), "{l}");
    let d = decision(&ep);
    assert!(!d.kind.is_reaction(), "no AoO: {l}");
    assert!(d.budget.standard && !d.budget.swift, "{:?}", d.budget);
}

#[test]
fn crb_metamagic_needs_the_feat_and_a_slot_cast_from_slots() {
    let (mut ep, _m, f) = duel(&[], &["magic missile"], &[]);
    let r = submit(&mut ep, &[cast(0, f, &[Metamagic::Empower])]);
    assert_eq!(r[0].code(), Some("missing_feat"));
    // Prepared copies: metamagic is prepared in advance (not at the cast).
    let mut v = caster("cleric", 5, &[], json!({}));
    v["spells"] = json!([{"name": "magic missile", "prepared": 2}]);
    v["feats"] = json!(["Empower Spell"]);
    let enc = encounter(
        &room(3, 10),
        vec![
            unit("a", "cleric", v, (1, 1)),
            unit("b", "foe", creature("foe"), (1, 7)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "cleric");
    let f = cid(&ep, "foe");
    let r = submit(&mut ep, &[cast(0, f, &[Metamagic::Empower])]);
    assert_eq!(r[0].code(), Some("metamagic_not_applicable"));
}

#[test]
fn crb_heighten_spell_raises_the_dc_other_metamagic_does_not() {
    // Cause fear (Will partial), DC 10 + 1 + 3 = 14; heightened: 15; empowered: 14.
    let (mut ep, _m, f) = duel(&["Heighten Spell"], &["cause fear"], &[20, 1]);
    assert!(ok(
        &submit(&mut ep, &[cast(0, f, &[Metamagic::Heighten])])[0]
    ));
    assert!(log(&ep).contains("vs DC 15"), "{}", log(&ep));
}

#[test]
fn crb_extend_spell_doubles_the_duration_declared_with_activate_metamagic() {
    // Bless at CL 5: 50 rounds; extended: 100. Declared by the action-space toggle.
    let (mut ep, m, _f) = duel(&["Extend Spell"], &["bless"], &[]);
    let toggle = Action {
        metamagic: vec![Metamagic::Extend],
        ..Action::new(ActionKind::ActivateMetamagic)
    };
    let bless = Action {
        spell: Some(0),
        target: Some(m),
        ..Action::new(ActionKind::CastSpell)
    };
    assert_all_ok(&submit(&mut ep, &[toggle, bless]));
    let obs = ep.observation(None);
    assert_eq!(
        obs.combatants[m.0 as usize].active_buffs.get("bless"),
        Some(&100)
    );
    assert_eq!(slots(&ep, m, "2"), 1);
}
