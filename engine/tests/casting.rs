//! Casting and its economy (CRB — Magic: Casting Spells, Casting Time, Spell Slots; Combat:
//! Attacks of Opportunity — Casting a Spell; Magic: Concentration): slots spent, casting
//! times as budget slots, refusals (`no_slot`, `downgraded:cast_time`, range, line of
//! effect), the attack of opportunity a cast provokes, casting defensively, concentration
//! when damaged while casting, 1-round castings.

mod common;

use common::*;
use pf1e_engine::{Action, ActionKind, CombatantId, Status};
use serde_json::json;

fn cast(spell: usize, t: CombatantId) -> Action {
    Action {
        spell: Some(spell),
        target: Some(t),
        ..Action::new(ActionKind::CastSpell)
    }
}

fn code(r: &pf1e_engine::ActionResult) -> Option<&'static str> {
    r.code()
}

/// A mage (CL `cl`, `spells`, `slots`) at (1,1) and a foe at `foe_at` in a 3 × 10 room; the
/// mage acts first; then `faces`.
fn duel(
    cl: i32,
    spells: &[&str],
    slots: serde_json::Value,
    foe_at: (i32, i32),
    faces: &[u32],
) -> (pf1e_engine::Episode, CombatantId, CombatantId) {
    let enc = encounter(
        &room(3, 10),
        vec![
            unit("a", "mage", caster("mage", cl, spells, slots), (1, 1)),
            unit("b", "foe", creature("foe"), foe_at),
        ],
    );
    let mut all = vec![20, 1];
    all.extend_from_slice(faces);
    let mut ep = episode(enc, &all);
    turn_of(&mut ep, "mage");
    let (m, f) = (cid(&ep, "mage"), cid(&ep, "foe"));
    (ep, m, f)
}

#[test]
fn crb_magic_missile_one_missile_per_two_levels_beyond_first_no_attack_roll_slot_spent() {
    // CL 3: two missiles of 1d4+1 force (SRD Magic Missile); no attack roll; from 30 ft, not
    // threatened: no attack of opportunity. Dice: 3, then 2.
    let (mut ep, m, f) = duel(3, &["magic missile"], json!({"1": 2}), (1, 7), &[3, 2]);
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    let l = log(&ep);
    assert!(
        l.contains("casts magic missile on foe (level 1 slot)"),
        "{l}"
    );
    assert!(
        l.contains("magic missile hits foe: 1d4+1=4 -> 4 damage (foe hp 30->26)"),
        "{l}"
    );
    assert!(
        l.contains("magic missile hits foe: 1d4+1=3 -> 3 damage (foe hp 26->23)"),
        "{l}"
    );
    let obs = ep.observation(None);
    let mage = &obs.combatants[m.0 as usize];
    assert_eq!(mage.spell_slots_left.get("1"), Some(&1));
    assert_eq!(mage.spells[0].uses_left, Some(1));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_spell_slots_no_slot_left_is_refused_without_a_die() {
    let (mut ep, _m, f) = duel(1, &["magic missile"], json!({"1": 0}), (1, 7), &[]);
    let r = submit(&mut ep, &[cast(0, f)]);
    assert_eq!(code(&r[0]), Some("no_slot"));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_casting_time_one_minute_is_downgraded_cast_time() {
    let (mut ep, m, _f) = duel(1, &["test long spell"], json!({"1": 1}), (1, 7), &[]);
    let r = submit(&mut ep, &[cast(0, m)]);
    assert_eq!(code(&r[0]), Some("downgraded:cast_time"));
    // Never in the action mask either.
    assert!(ep
        .legal_actions()
        .iter()
        .all(|la| la.action.kind != ActionKind::CastSpell));
}

#[test]
fn crb_range_medium_is_100_ft_plus_10_per_level_and_line_of_effect_is_needed() {
    // Medium at CL 1: 110 ft; the room is 10 squares wide, so range holds; a wall blocks.
    let enc = encounter(
        &[
            "##########".to_string(),
            "#...#....#".to_string(),
            "##########".to_string(),
        ],
        vec![
            unit(
                "a",
                "mage",
                caster("mage", 1, &["magic missile", "test shock"], json!({"1": 2})),
                (1, 1),
            ),
            unit("b", "foe", creature("foe"), (1, 6)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "mage");
    let f = cid(&ep, "foe");
    let r = submit(&mut ep, &[cast(0, f)]);
    assert_eq!(code(&r[0]), Some("no_line_of_effect"));
    // A touch spell: the foe is out of reach.
    let r = submit(&mut ep, &[cast(1, f)]);
    assert_eq!(code(&r[0]), Some("out_of_range"));
}

#[test]
fn crb_casting_provokes_an_attack_of_opportunity_and_damage_calls_for_concentration() {
    // Adjacent foe: the cast provokes (CRB — Attacks of Opportunity: casting a spell). The
    // AoO hits (d20 15 + 5 vs AC 10) for 1d8 = 6; concentration DC 10 + 6 + 1 = 17: d20 10
    // + 1 (CL) + 3 (Int) = 14 fails: the spell is lost, its slot spent.
    // Round 2: the foe is no longer flat-footed (a flat-footed creature makes no attack of
    // opportunity).
    let (mut ep, m, f) = duel(1, &["magic missile"], json!({"1": 1}), (1, 2), &[15, 6, 10]);
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    let d = decision(&ep);
    ep.submit(d.decision_id, &[cast(0, f)]).unwrap();
    let aoo = decision(&ep);
    assert!(aoo.kind.is_reaction(), "{aoo:?}");
    ep.submit(aoo.decision_id, &[take_aoo(&aoo)]).unwrap();
    let l = log(&ep);
    assert!(
        l.contains("concentration (damaged while casting) d20=10+4=14 vs DC 17 -> failure"),
        "{l}"
    );
    assert!(l.contains("loses magic missile (the spell fizzles)"), "{l}");
    assert_eq!(
        ep.observation(None).combatants[m.0 as usize]
            .spell_slots_left
            .get("1"),
        Some(&0)
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_casting_defensively_does_not_provoke_concentration_15_plus_twice_the_level() {
    // Declared with `cast_defensively` (free): DC 15 + 2 = 17; d20 13 + 4 = 17 succeeds; no
    // attack of opportunity; then the missile (d4 = 4).
    let (mut ep, _m, f) = duel(1, &["magic missile"], json!({"1": 1}), (1, 2), &[13, 4]);
    let r = submit(
        &mut ep,
        &[Action::new(ActionKind::CastDefensively), cast(0, f)],
    );
    assert_all_ok(&r);
    let l = log(&ep);
    assert!(
        l.contains("casts magic missile on foe (level 1 slot), defensively"),
        "{l}"
    );
    assert!(
        l.contains("concentration (casting defensively) d20=13+4=17 vs DC 17 -> success"),
        "{l}"
    );
    assert!(!l.contains("attack of opportunity"), "{l}");
    assert!(l.contains("(foe hp 30->25)"), "{l}");
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_casting_defensively_failed_loses_the_spell_and_its_slot() {
    let (mut ep, m, f) = duel(1, &["magic missile"], json!({"1": 1}), (1, 2), &[2]);
    let a = Action {
        defensively: true,
        ..cast(0, f)
    };
    assert_all_ok(&submit(&mut ep, &[a]));
    let l = log(&ep);
    assert!(l.contains("d20=2+4=6 vs DC 17 -> failure"), "{l}");
    assert!(l.contains("loses magic missile"), "{l}");
    assert_eq!(
        ep.observation(None).combatants[m.0 as usize]
            .spell_slots_left
            .get("1"),
        Some(&0)
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_combat_casting_adds_4_to_defensive_casting() {
    let mut v = caster("mage", 1, &["magic missile"], json!({"1": 1}));
    v["feats"] = json!(["Combat Casting"]);
    let enc = encounter(
        &room(3, 10),
        vec![
            unit("a", "mage", v, (1, 1)),
            unit("b", "foe", creature("foe"), (1, 2)),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 9, 1]);
    turn_of(&mut ep, "mage");
    let f = cid(&ep, "foe");
    let a = Action {
        defensively: true,
        ..cast(0, f)
    };
    assert_all_ok(&submit(&mut ep, &[a]));
    let l = log(&ep);
    assert!(
        l.contains("d20=9+8=17 vs DC 17 [Combat Casting +4] -> success"),
        "{l}"
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_one_round_casting_takes_effect_before_the_next_turn() {
    // "test slumber" takes 1 round: a full-round action now, its effect just before the
    // mage's next turn (Will save d20 2 + 0 vs DC 10 + 1 + 3 = 14 fails: asleep).
    let (mut ep, m, f) = duel(1, &["test slumber"], json!({"1": 1}), (1, 7), &[2]);
    let r = submit(&mut ep, &[cast(0, f), move_to(1, 2)]);
    assert!(ok(&r[0]));
    assert_eq!(code(&r[1]), Some("downgraded:action_economy"));
    let obs = ep.observation(None);
    let pc = obs.combatants[m.0 as usize]
        .pending_cast
        .clone()
        .expect("a pending cast");
    assert_eq!(pc.spell_name, "test slumber");
    assert!(!ep.has_condition(f, pf1e_engine::effects::conditions::Condition::Asleep));
    // The foe's turn, then the mage's: the spell takes effect first.
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    let l = log(&ep);
    assert!(l.contains("finishes casting test slumber"), "{l}");
    assert!(l.contains("Will save d20=2+0=2 vs DC 14 -> failure"), "{l}");
    assert!(ep.has_condition(f, pf1e_engine::effects::conditions::Condition::Asleep));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_one_round_casting_interrupted_by_damage_needs_concentration() {
    // The foe walks up and hits the mage (d20 15 + 5, 1d8 = 5) before the casting completes:
    // DC 10 + 5 + 1 = 16, d20 3 + 4 = 7 fails.
    let (mut ep, _m, f) = duel(1, &["test slumber"], json!({"1": 1}), (1, 3), &[15, 5, 3]);
    assert!(ok(&submit(&mut ep, &[cast(0, f)])[0]));
    turn_of(&mut ep, "foe");
    let m = cid(&ep, "mage");
    assert_all_ok(&submit(&mut ep, &[move_to(1, 2), attack(m)]));
    turn_of(&mut ep, "mage");
    let l = log(&ep);
    assert!(
        l.contains("concentration (damaged while casting) d20=3+4=7 vs DC 16 -> failure"),
        "{l}"
    );
    assert!(l.contains("loses test slumber"), "{l}");
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_cantrips_are_unlimited() {
    let (mut ep, m, f) = duel(1, &["test ray"], json!({}), (1, 4), &[15, 2]);
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    let obs = ep.observation(None);
    assert_eq!(obs.combatants[m.0 as usize].spells[0].uses_left, None);
    assert!(
        log(&ep).contains("ranged touch vs foe d20=15+1=16 touch AC 10 -> HIT"),
        "{}",
        log(&ep)
    );
}

#[test]
fn legal_actions_list_casts_the_checks_accept() {
    let (ep, _m, f) = duel(
        3,
        &["magic missile", "fireball"],
        json!({"1": 1, "3": 1}),
        (1, 7),
        &[],
    );
    let legal = ep.legal_actions();
    let casts: Vec<_> = legal
        .iter()
        .filter(|la| la.action.kind == ActionKind::CastSpell)
        .collect();
    assert!(casts
        .iter()
        .any(|la| la.action.spell == Some(0) && la.action.target == Some(f)));
    // Fireball is aimed at squares: every square within range and line of effect.
    assert!(casts
        .iter()
        .any(|la| la.action.spell == Some(1) && la.action.target_pos.is_some()));
    for la in &casts {
        assert!(ep.validate(&la.action).unwrap().ok, "{:?}", la.action);
    }
    let _ = Status::Decision;
}

/// CRB — Combat: Attacks of Opportunity (Table: Actions in Combat: casting a spell and making
/// a ranged attack each provoke); Magic: Aiming a Spell — Ray ("as if using a ranged
/// weapon"); Paizo FAQ: a ray spell provokes twice, once for casting it and once for its
/// ranged touch attack, and casting defensively removes only the first. Round 2 (the foe
/// not flat-footed): cast defensively, DC 15: d20 13 + 4 = 17; no opportunity for the
/// casting; the ray's attack provokes: the foe's AoO d20 15 + 5 = 20 hits, 1d8 = 3; then
/// the ray d20 12 + 1 = 13 hits touch AC 10, 1d3 = 2.
#[test]
fn crb_a_ray_provokes_for_its_ranged_touch_attack_even_cast_defensively() {
    let (mut ep, m, f) = duel(
        1,
        &["test ray"],
        json!({"1": 1}),
        (1, 2),
        &[13, 15, 3, 12, 2],
    );
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    let a = Action {
        defensively: true,
        ..cast(0, f)
    };
    assert_all_ok(&submit(&mut ep, &[a]));
    let l = log(&ep);
    assert!(
        l.contains("concentration (casting defensively) d20=13+4=17 vs DC 15 -> success"),
        "{l}"
    );
    assert_eq!(lines_with(&ep, "attack of opportunity").len(), 1, "{l}");
    assert!(
        l.contains("attack of opportunity on mage (makes a ranged attack while threatened)"),
        "{l}"
    );
    assert!(
        l.contains("ranged touch vs foe d20=12+1=13 touch AC 10 -> HIT"),
        "{l}"
    );
    let obs = ep.observation(None);
    assert_eq!(obs.combatants[m.0 as usize].hp, 27, "{l}");
    assert_eq!(obs.combatants[f.0 as usize].hp, 28, "{l}");
    assert_eq!(dice_left(&ep), 0);
}

/// Snapshots (`Episode::snapshot` / `restore`) at the ray's own attack of opportunity
/// (`Frame::Ray` under the window): the restored episode resumes exactly as the original.
#[test]
fn snapshot_restores_at_a_rays_attack_of_opportunity() {
    let (mut ep, _m, f) = duel(
        1,
        &["test ray"],
        json!({"1": 1}),
        (1, 2),
        &[13, 15, 3, 12, 2],
    );
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    let a = Action {
        defensively: true,
        ..cast(0, f)
    };
    submit_raw(&mut ep, &[a]);
    let d = decision(&ep);
    assert!(d.kind.is_reaction(), "{d:?}");
    let mut back = pf1e_engine::Episode::restore(ep.encounter().clone(), &ep.snapshot())
        .unwrap_or_else(|e| panic!("{e}"));
    take_reactions(&mut ep);
    take_reactions(&mut back);
    assert!(
        log(&ep).contains("ranged touch vs foe d20=12+1=13"),
        "{}",
        log(&ep)
    );
    assert_eq!(log(&ep), log(&back));
    assert_eq!(dice_left(&back), 0);
}
