//! Break-it tests of the P7 spellcasting (issue 12), written by a reviewer: the tests of what
//! held up, and one test per defect it found (each was `#[ignore]`d until fixed; each names
//! its SRD rule in its comment).

mod common;

use common::*;
use pf1e_engine::effects::conditions::Condition;
use pf1e_engine::episode::LifeState;
use pf1e_engine::{
    Action, ActionKind, Cell, CombatantId, Controller, DiceSource, Episode, Metamagic,
    ScriptedDice, Status,
};
use serde_json::{json, Value};

fn cast(spell: usize, t: CombatantId) -> Action {
    Action {
        spell: Some(spell),
        target: Some(t),
        ..Action::new(ActionKind::CastSpell)
    }
}

fn cast_at(spell: usize, row: i32, col: i32) -> Action {
    Action {
        spell: Some(spell),
        target_pos: Some(Cell::new(row, col)),
        ..Action::new(ActionKind::CastSpell)
    }
}

fn cast_mm(spell: usize, t: CombatantId, mm: &[Metamagic]) -> Action {
    Action {
        metamagic: mm.to_vec(),
        ..cast(spell, t)
    }
}

/// A tail of faces that every die accepts (1s): a continuation after the scripted part.
const TAIL: usize = 3000;

/// Units in a `rows` × `cols` room: the first acts first (d20 20, the others 1, reserved
/// summon slots 1 too); then `faces`, then [`TAIL`] ones. Returns the episode at the first
/// unit's turn, and the whole script (for replays).
fn fight_in(rows: usize, cols: usize, units: Vec<Unit>, faces: &[u32]) -> (Episode, Vec<u32>) {
    let first = units[0].id;
    let n = units.len();
    let enc = encounter(&room(rows, cols), units);
    let mut all = vec![20];
    all.extend(std::iter::repeat_n(1, n - 1));
    let extra = enc.combatants.len() - n;
    all.extend(std::iter::repeat_n(1, extra));
    all.extend_from_slice(faces);
    all.extend(std::iter::repeat_n(1, TAIL));
    let mut ep = episode(enc, &all);
    turn_of(&mut ep, first);
    (ep, all)
}

fn fight(units: Vec<Unit>, faces: &[u32]) -> (Episode, Vec<u32>) {
    fight_in(7, 14, units, faces)
}

fn mage(cl: i32, spells: &[&str]) -> Value {
    caster(
        "mage",
        cl,
        spells,
        json!({"1": 4, "2": 3, "3": 2, "4": 2, "5": 2, "6": 2, "7": 1, "8": 1, "9": 1}),
    )
}

fn hp(ep: &Episode, c: CombatantId) -> i32 {
    ep.observation(None).combatants[c.0 as usize].hp
}

/// Every id of the action space: the mask bit equals `validate(decode(id)).ok` (the mask
/// never offers what `submit` refuses, and never hides what it accepts). Checked on the
/// whole space (the cast blocks included).
fn check_mask_validate(ep: &Episode) {
    let Some(d) = ep.decision().cloned() else {
        return;
    };
    let mask = ep.action_mask();
    for (id, &bit) in mask.iter().enumerate() {
        let Some(a) = ep.action_from_id(id as u32) else {
            assert_eq!(bit, 0, "id {id} is masked legal but does not decode");
            continue;
        };
        let v = ep.validate(&a).expect("a decision is pending");
        assert_eq!(
            v.ok,
            bit == 1,
            "id {id} ({a:?}) at decision {:?}: mask {bit}, validate {v:?}\n{}",
            d.kind,
            log(ep)
        );
    }
}

/// Play `steps` decisions deterministically: mostly casts when one is legal (a varied index),
/// else a varied legal action; checks mask = validate at each decision. Returns the log.
fn drive(ep: &mut Episode, steps: usize, check_mask: bool) -> String {
    drive_from(ep, steps, check_mask, 0)
}

fn drive_from(ep: &mut Episode, steps: usize, check_mask: bool, k0: usize) -> String {
    for k in k0..k0 + steps {
        let d = match ep.advance() {
            Status::Terminal(_) => break,
            Status::Decision(d) => d,
        };
        if check_mask {
            check_mask_validate(ep);
        }
        let legal = ep.legal_actions();
        assert!(!legal.is_empty(), "no legal action at {d:?}");
        let casts: Vec<_> = legal
            .iter()
            .filter(|l| l.action.kind == ActionKind::CastSpell)
            .collect();
        let pick = if !casts.is_empty() && k % 3 != 0 {
            casts[(k * 7 + d.decision_id as usize) % casts.len()]
                .action
                .clone()
        } else {
            legal[(k * 13 + d.decision_id as usize) % legal.len()]
                .action
                .clone()
        };
        let r = ep
            .submit(d.decision_id, std::slice::from_ref(&pick))
            .unwrap();
        assert!(
            r.iter().all(|x| x.ok),
            "a legal action refused: {pick:?} {r:?}"
        );
    }
    log(ep)
}

/// At this pause: `restore(snapshot())` is byte-identical; a clone, the restored episode and
/// a replay of the history continue identically to the original.
fn twins(ep: &Episode, script: &[u32], what: &str) {
    let enc = ep.encounter().clone();
    let bytes = ep.snapshot();
    let restored = Episode::restore(enc.clone(), &bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(
        restored.snapshot(),
        bytes,
        "{what}: restore is not byte-identical"
    );
    let replayed = Episode::replay(
        enc.clone(),
        DiceSource::Scripted(ScriptedDice::new(script.iter().copied())),
        &vec![Controller::External; enc.combatants.len()],
        ep.history(),
    )
    .unwrap_or_else(|e| panic!("{what}: replay: {e:?}"));
    let (x, y): (Value, Value) = (
        serde_json::from_slice(&replayed.snapshot()).unwrap(),
        serde_json::from_slice(&bytes).unwrap(),
    );
    let diffs: Vec<String> = y
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, v)| x.get(k.as_str()) != Some(v))
        .map(|(k, v)| {
            let mut a = x.get(k.as_str()).map(|v| v.to_string()).unwrap_or_default();
            let mut b = v.to_string();
            if k == "history" || k == "log" {
                a = a
                    .chars()
                    .rev()
                    .take(700)
                    .collect::<String>()
                    .chars()
                    .rev()
                    .collect();
                b = b
                    .chars()
                    .rev()
                    .take(700)
                    .collect::<String>()
                    .chars()
                    .rev()
                    .collect();
            } else if k == "dice" || k == "start_dice" {
                a = format!("{} chars", a.len());
                b = format!("{} chars", b.len());
            }
            format!("{k}:\n  replay   {a}\n  original {b}")
        })
        .collect();
    assert!(
        diffs.is_empty(),
        "{what}: the replay differs:\n{}",
        diffs.join("\n")
    );
    let mut a = ep.clone();
    let mut b = restored;
    let mut c = replayed;
    let la = drive(&mut a, 40, false);
    let lb = drive(&mut b, 40, false);
    let lc = drive(&mut c, 40, false);
    assert_eq!(la, lb, "{what}: restored continuation differs");
    assert_eq!(la, lc, "{what}: replayed continuation differs");
    assert_eq!(a.snapshot(), b.snapshot(), "{what}: restored state differs");
}

// ----- snapshot / clone / replay at the pauses of a cast ---------------------------------

#[test]
fn twins_at_the_attack_of_opportunity_window_a_cast_opens() {
    // Adjacent foe, not flat-footed after its first turn: the cast provokes; the pause is the
    // foe's AoO decision, the Cast frame under it.
    let (mut ep, script) = fight(
        vec![
            unit(
                "a",
                "mage",
                mage(3, &["magic missile", "test shock"]),
                (3, 1),
            ),
            unit("b", "foe", creature("foe"), (3, 2)),
        ],
        &[],
    );
    end_turn(&mut ep);
    turn_of(&mut ep, "foe");
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    let f = cid(&ep, "foe");
    submit_raw(&mut ep, &[cast(0, f)]);
    let d = decision(&ep);
    assert!(d.kind.is_reaction(), "{d:?}\n{}", log(&ep));
    check_mask_validate(&ep);
    twins(&ep, &script, "AoO window of a cast");
}

#[test]
fn twins_with_a_pending_one_round_cast() {
    let (mut ep, script) = fight(
        vec![
            unit("a", "mage", mage(3, &["test slumber"]), (3, 1)),
            unit("b", "foe", creature("foe"), (3, 9)),
        ],
        &[],
    );
    let f = cid(&ep, "foe");
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    turn_of(&mut ep, "foe");
    assert!(ep.observation(None).combatants[0].pending_cast.is_some());
    check_mask_validate(&ep);
    twins(&ep, &script, "pending 1-round cast");
}

#[test]
fn twins_with_a_held_charge() {
    // The touch attack rolls a 1 (the tail): a miss, the charge held.
    let (mut ep, script) = fight(
        vec![
            unit(
                "a",
                "mage",
                mage(3, &["test shock", "magic missile"]),
                (3, 1),
            ),
            unit("b", "foe", creature("foe"), (3, 2)),
        ],
        &[],
    );
    let f = cid(&ep, "foe");
    // Flat-footed foe: no AoO; the touch misses on a 1.
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    assert!(log(&ep).contains("holds the charge"), "{}", log(&ep));
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    check_mask_validate(&ep);
    twins(&ep, &script, "held charge");
}

#[test]
fn twins_with_a_summoned_creature_and_a_persistent_area() {
    let (mut ep, script) = fight(
        vec![
            unit(
                "a",
                "mage",
                mage(5, &["summon monster i", "web", "entangle", "fireball"]),
                (3, 1),
            ),
            unit("b", "foe", creature("foe"), (3, 9)),
            unit("b", "foe2", creature("foe2"), (4, 9)),
        ],
        &[],
    );
    let m = cid(&ep, "mage");
    assert_all_ok(&submit(&mut ep, &[cast(0, m)]));
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    let l = log(&ep);
    assert!(l.contains("summons"), "{l}");
    assert_all_ok(&submit(&mut ep, &[cast_at(1, 3, 9)]));
    let obs = ep.observation(None);
    assert_eq!(obs.spell_areas.len(), 1, "{}", log(&ep));
    check_mask_validate(&ep);
    twins(&ep, &script, "summon + web");
    // And with the rat's own turn pending.
    end_turn(&mut ep);
    let _ = ep.advance();
    check_mask_validate(&ep);
    twins(&ep, &script, "summoned creature's turn");
}

#[test]
fn twins_and_mask_through_a_random_caster_fight() {
    // A whole fight of two casters with every kind of spell, mask = validate at every
    // decision, twins every 7th decision.
    let everything = [
        "magic missile",
        "fireball",
        "burning hands",
        "lightning bolt",
        "shocking grasp",
        "cure light wounds",
        "web",
        "summon monster i",
        "hold person",
        "scorching ray",
        "test slumber",
        "mirror image",
        "acid arrow",
        "dispel magic",
        "bless",
        "sleep",
    ];
    let mut a = mage(5, &everything);
    a["feats"] = json!([
        "Empower Spell",
        "Quicken Spell",
        "Extend Spell",
        "Maximize Spell",
        "Heighten Spell"
    ]);
    a["creature_type"] = json!("humanoid");
    let mut b = set(mage(5, &everything), "name", json!("enemy"));
    b["creature_type"] = json!("humanoid");
    let (mut ep, script) = fight_in(
        6,
        8,
        vec![unit("a", "mage", a, (3, 1)), unit("b", "enemy", b, (3, 6))],
        &[],
    );
    for k in 0..120 {
        if matches!(ep.status(), Some(Status::Terminal(_))) {
            break;
        }
        if k % 7 == 0 {
            ep.advance();
            twins(&ep, &script, &format!("decision {k}"));
        }
        drive_from(&mut ep, 1, true, k);
    }
    let l = log(&ep);
    assert!(l.matches("casts ").count() >= 5, "{l}");
}

// ----- casting mechanics that should hold ------------------------------------------------

#[test]
fn cast_at_a_dead_target_and_at_an_absent_summon_slot_is_refused() {
    let (mut ep, _s) = fight(
        vec![
            unit(
                "a",
                "mage",
                mage(1, &["magic missile", "summon monster i"]),
                (3, 1),
            ),
            unit("b", "foe", set(creature("foe"), "hp_max", json!(1)), (3, 9)),
            unit("b", "foe2", creature("foe2"), (4, 9)),
        ],
        &[4, 4],
    );
    let f = cid(&ep, "foe");
    let rat = CombatantId((ep.encounter().combatants.len() - 1) as u16);
    assert!(ep.observation(None).combatants[rat.0 as usize].absent);
    let r = ep.validate(&cast(0, rat)).unwrap();
    assert!(!r.ok, "an absent slot is not a target: {r:?}");
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    // Foe at 1 - 5 = -4: dying (not dead). A magic missile at it is legal.
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    let v = ep.validate(&cast(0, f)).unwrap();
    assert!(
        v.ok || ep.life_state(f) == LifeState::Dead,
        "{v:?} {:?}\n{}",
        ep.life_state(f),
        log(&ep)
    );
}

#[test]
fn healing_caps_at_max_hp_and_a_dead_ally_cannot_be_targeted() {
    let (mut ep, _s) = fight(
        vec![
            unit("a", "mage", mage(1, &["cure light wounds"]), (3, 1)),
            unit("a", "ally", creature("ally"), (3, 2)),
            unit("b", "foe", creature("foe"), (3, 12)),
        ],
        &[8],
    );
    let al = cid(&ep, "ally");
    assert_all_ok(&submit(&mut ep, &[cast(0, al)]));
    assert_eq!(hp(&ep, al), 30, "{}", log(&ep));
    assert!(log(&ep).contains("heals ally 0 hp"), "{}", log(&ep));
}

#[test]
fn cure_on_an_undead_foe_is_a_touch_attack_and_harms() {
    let undead = set(creature("zombie"), "creature_type", json!("undead"));
    let (mut ep, _s) = fight(
        vec![
            unit(
                "a",
                "mage",
                mage(1, &["cure light wounds", "hold person", "sleep"]),
                (3, 1),
            ),
            unit("b", "zombie", undead, (3, 2)),
        ],
        // touch d20 15 hits AC 10; Will save d20 2 fails; 1d8 = 6 + 1.
        &[15, 2, 6],
    );
    let z = cid(&ep, "zombie");
    assert_all_ok(&submit(&mut ep, &[cast(0, z)]));
    let l = log(&ep);
    assert!(l.contains("melee touch vs zombie"), "{l}");
    assert_eq!(hp(&ep, z), 23, "{l}");
}

#[test]
fn prepared_copies_without_slots_and_at_will_spell_like_abilities() {
    let mut m = caster("mage", 3, &[], json!({}));
    m["spells"] = json!([{"name": "magic missile", "prepared": 1}]);
    m["spell_like_abilities"] = json!([{"name": "ray of frost", "at_will": true}]);
    let (mut ep, _s) = fight(
        vec![
            unit("a", "mage", m, (3, 1)),
            unit(
                "b",
                "foe",
                set(creature("foe"), "hp_max", json!(200)),
                (3, 5),
            ),
        ],
        &[1, 1],
    );
    let f = cid(&ep, "foe");
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    let r = ep.validate(&cast(0, f)).unwrap();
    assert_eq!(r.code(), Some("no_slot"), "{r:?}");
    // At will: three turns in a row.
    for _ in 0..3 {
        assert!(ep.validate(&cast(1, f)).unwrap().ok);
        submit(&mut ep, &[cast(1, f)]);
        end_turn(&mut ep);
        turn_of(&mut ep, "mage");
    }
}

#[test]
fn metamagic_combinations_cost_their_levels_and_cap_at_9() {
    let mut m = mage(5, &["fireball", "magic missile", "ray of frost"]);
    m["feats"] = json!([
        "Empower Spell",
        "Maximize Spell",
        "Quicken Spell",
        "Heighten Spell",
        "Extend Spell"
    ]);
    let (ep, _s) = fight(
        vec![
            unit("a", "mage", m, (3, 1)),
            unit("b", "foe", creature("foe"), (3, 5)),
        ],
        &[],
    );
    let f = cid(&ep, "foe");
    use Metamagic::*;
    // Fireball 3 + empower 2 + maximize 3 = 8: allowed; + quicken 4 = 12 > 9: no_slot.
    let ok8 = ep
        .validate(&Action {
            metamagic: vec![Empower, Maximize],
            ..cast_at(0, 3, 9)
        })
        .unwrap();
    assert!(ok8.ok, "{ok8:?}");
    let too_high = ep
        .validate(&Action {
            metamagic: vec![Empower, Maximize, Quicken],
            ..cast_at(0, 3, 9)
        })
        .unwrap();
    assert!(!too_high.ok, "{too_high:?}");
    // Duplicates count once.
    let dup = ep.validate(&cast_mm(1, f, &[Empower, Empower])).unwrap();
    assert!(dup.ok, "{dup:?}");
    // A cantrip raised into a slot.
    let can = ep.validate(&cast_mm(2, f, &[Maximize])).unwrap();
    assert!(can.ok, "{can:?}");
    // A feat it lacks.
    let no = ep.validate(&cast_mm(1, f, &[Metamagic::Silent])).unwrap();
    assert!(!no.ok);
}

#[test]
fn areas_at_map_corners_and_cones_and_lines_at_odd_squares_never_panic() {
    // Every square of the map (walls included) as the aim of a burst, a cone and a line, from
    // a caster in a corner: validate and, for accepted ones, a clone casts it.
    let (ep, _s) = fight_in(
        5,
        5,
        vec![
            unit(
                "a",
                "mage",
                mage(5, &["fireball", "burning hands", "lightning bolt"]),
                (1, 1),
            ),
            unit("b", "foe", creature("foe"), (5, 5)),
        ],
        &[],
    );
    let (rows, cols) = (7, 7);
    for si in 0..3 {
        for r in -2..rows + 2 {
            for c in -2..cols + 2 {
                let a = cast_at(si, r, c);
                let v = ep.validate(&a).unwrap();
                if v.ok {
                    let mut e = ep.clone();
                    let d = decision(&e);
                    let res = e.submit(d.decision_id, std::slice::from_ref(&a)).unwrap();
                    assert!(res[0].ok, "{a:?}: {res:?}");
                } else {
                    assert!(v.code().is_some());
                }
            }
        }
    }
}

#[test]
fn zones_of_two_casters_stack_and_one_caster_recasting_replaces() {
    let (mut ep, _s) = fight(
        vec![
            unit("a", "mage", mage(5, &["web"]), (3, 1)),
            unit(
                "a",
                "mage2",
                set(mage(5, &["web"]), "name", json!("mage2")),
                (4, 1),
            ),
            unit("b", "foe", creature("foe"), (3, 9)),
        ],
        &[],
    );
    assert_all_ok(&submit(&mut ep, &[cast_at(0, 3, 9)]));
    turn_of(&mut ep, "mage2");
    assert_all_ok(&submit(&mut ep, &[cast_at(0, 3, 9)]));
    turn_of(&mut ep, "mage");
    assert_all_ok(&submit(&mut ep, &[cast_at(0, 3, 10)]));
    let obs = ep.observation(None);
    assert_eq!(
        obs.spell_areas.len(),
        2,
        "{:?}",
        obs.spell_areas
            .iter()
            .map(|z| (&z.caster, &z.cells))
            .collect::<Vec<_>>()
    );
}

// ----- defects ---------------------------------------------------------------------------

#[test]
fn a_killed_summon_can_be_summoned_again() {
    // CRB — Magic: Conjuration (Summoning): "When the spell that summoned a creature ends
    // and the creature disappears… A creature that is killed … disappears" — it is not
    // really dead; the conjurer can summon another with a new casting. Here the mage's own
    // magic missile (CL 5: 3 × (1 + 1) = 6) kills its rat (5 hp; simple monster death).
    let units = vec![
        unit(
            "a",
            "mage",
            mage(5, &["summon monster i", "magic missile"]),
            (3, 1),
        ),
        unit("b", "foe", creature("foe"), (3, 12)),
    ];
    let n = units.len();
    let enc = encounter_with(
        &room(7, 14),
        None,
        units,
        pf1e_engine::RulesOptions {
            simple_monster_death: true,
            ..Default::default()
        },
    );
    let mut all = vec![20];
    all.extend(std::iter::repeat_n(1, n - 1 + enc.combatants.len() - n));
    all.extend(std::iter::repeat_n(1, TAIL));
    let mut ep = episode(enc, &all);
    turn_of(&mut ep, "mage");
    let m = cid(&ep, "mage");
    assert_all_ok(&submit(&mut ep, &[cast(0, m)]));
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    let rat = CombatantId((ep.encounter().combatants.len() - 1) as u16);
    assert!(
        !ep.observation(None).combatants[rat.0 as usize].absent,
        "{}",
        log(&ep)
    );
    assert_all_ok(&submit(&mut ep, &[cast(1, rat)]));
    assert_eq!(ep.life_state(rat), LifeState::Dead, "{}", log(&ep));
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    assert_all_ok(&submit(&mut ep, &[cast(0, m)]));
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    let l = log(&ep);
    assert!(!l.contains("no free summon slot"), "{l}");
    assert_ne!(ep.life_state(rat), LifeState::Dead, "{l}");
}

#[test]
fn targeted_dispel_makes_one_check_and_ends_one_spell() {
    // CRB — Spells: Dispel Magic, Targeted Dispel: "You make one dispel check (1d20 + your
    // caster level) and compare that to the spell with highest caster level … Repeat this
    // process until you have dispelled one spell affecting the target".
    let (mut ep, _s) = fight(
        vec![
            unit("a", "mage", mage(5, &["dispel magic"]), (3, 1)),
            unit("b", "foe", mage(1, &["shield", "mage armor"]), (3, 9)),
        ],
        &[],
    );
    // The foe buffs itself twice (CL 1 effects: DC 12), then the mage dispels with a d20 of 20.
    turn_of(&mut ep, "foe");
    let f = cid(&ep, "foe");
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    turn_of(&mut ep, "mage");
    end_turn(&mut ep);
    turn_of(&mut ep, "foe");
    assert_all_ok(&submit(&mut ep, &[cast(1, f)]));
    turn_of(&mut ep, "mage");
    assert_eq!(
        ep.observation(None).combatants[f.0 as usize]
            .active_buffs
            .len(),
        2
    );
    // The tail's d20 = 1: 1 + 5 = 6 < 12, nothing dispelled — use a scripted run instead:
    // count the dispel checks made.
    submit(&mut ep, &[cast(0, f)]);
    let checks = lines_with(&ep, "dispel check").len();
    assert_eq!(
        checks,
        1,
        "one dispel check per targeted dispel:\n{}",
        log(&ep)
    );
}

#[test]
fn printed_dc_is_final_wizard_5_fireball_dc_18() {
    // data/pcs/wizard_5.json prints fireball dc 18 = 10 + 3 + 4 (Int 19) + 1 (Spell Focus
    // (evocation)), its notes say so; README: "DC = 10 + spell level + casting ability
    // modifier unless printed". The engine's save_dc adds Spell Focus again.
    let path =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/pcs/wizard_5.json");
    // The bundled file loads (its spells resolve); the test re-uses its stat block inline.
    pf1e_engine::CombatantSpec::load(&path).unwrap();
    let mut w: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    w["spells"] = json!([{"name": "fireball", "level": 3, "prepared": 1, "dc": 18}]);
    let (mut ep, _s) = fight(
        vec![
            unit("a", "wiz", w, (3, 1)),
            unit("b", "foe", creature("foe"), (3, 9)),
        ],
        &[],
    );
    submit(&mut ep, &[cast_at(0, 3, 9)]);
    let l = log(&ep);
    assert!(l.contains("vs DC 18"), "{l}");
}

#[test]
fn empower_increases_bonuses_to_the_dice_rolls_by_half() {
    // CRB — Feats: Empower Spell: "All variable, numeric effects of an empowered spell are
    // increased by half, including bonuses to those dice rolls." Magic missile CL 1: one
    // missile 1d4+1; empowered with a 4: (4 + 1) × 1.5 = 7 (the engine: 4 × 1.5 + 1 = 7 —
    // take a 2: (2 + 1) × 1.5 = 4 vs the engine's 3 + 1 = 4 … a 3: 6 vs 5).
    let mut m = mage(1, &["magic missile"]);
    m["feats"] = json!(["Empower Spell"]);
    let (mut ep, _s) = fight(
        vec![
            unit("a", "mage", m, (3, 1)),
            unit("b", "foe", creature("foe"), (3, 9)),
        ],
        &[3],
    );
    let f = cid(&ep, "foe");
    assert_all_ok(&submit(&mut ep, &[cast_mm(0, f, &[Metamagic::Empower])]));
    assert_eq!(hp(&ep, f), 30 - 6, "{}", log(&ep));
}

#[test]
fn a_caster_paralyzed_during_a_one_round_casting_loses_the_spell() {
    // CRB — Magic: Casting Time ("you must continue the invocations… until just before your
    // turn in the next round"); Conditions: Paralyzed ("cannot move or act… can take purely
    // mental actions" — spells with components are not purely mental).
    let mut m = mage(1, &["test slumber"]);
    m["creature_type"] = json!("humanoid");
    let (mut ep, _s) = fight(
        vec![
            unit("a", "mage", m, (3, 1)),
            unit("b", "foe", mage(5, &["hold person"]), (3, 9)),
        ],
        &[],
    );
    let f = cid(&ep, "foe");
    let me = cid(&ep, "mage");
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    turn_of(&mut ep, "foe");
    // Will save of the mage: d20 1 (tail): paralyzed.
    assert_all_ok(&submit(&mut ep, &[cast(0, me)]));
    assert!(ep.has_condition(me, Condition::Paralyzed), "{}", log(&ep));
    turn_of_or_end(&mut ep, "mage");
    let l = log(&ep);
    assert!(!l.contains("finishes casting test slumber"), "{l}");
}

/// [`turn_of`], but returns quietly when the round passes (a paralyzed mage has no turn
/// decision): up to 3 decisions.
fn turn_of_or_end(ep: &mut Episode, actor: &str) {
    let want = cid(ep, actor);
    for _ in 0..6 {
        match ep.advance() {
            Status::Terminal(_) => return,
            Status::Decision(d) if d.kind.is_reaction() => {
                ep.submit(d.decision_id, &[take_reaction(&d)]).unwrap();
            }
            Status::Decision(d) if d.actor == want => return,
            Status::Decision(d) => {
                ep.submit(d.decision_id, &[Action::new(ActionKind::EndTurn)])
                    .unwrap();
            }
        }
    }
}

#[test]
fn an_area_is_not_aimed_at_an_absent_summon_slot() {
    // An absent slot is not on the map (README: reserved slots are `absent` until summoned);
    // a creature-targeted spell at it is refused (`invalid_target`), an area "at a creature's
    // square" should be too.
    let (ep, _s) = fight(
        vec![
            unit(
                "a",
                "mage",
                mage(5, &["fireball", "summon monster i"]),
                (3, 1),
            ),
            unit("b", "foe", creature("foe"), (3, 12)),
        ],
        &[],
    );
    let slot = CombatantId((ep.encounter().combatants.len() - 1) as u16);
    assert!(ep.observation(None).combatants[slot.0 as usize].absent);
    let offered: Vec<String> = ep
        .legal_actions()
        .into_iter()
        .filter(|l| l.action.kind == ActionKind::CastSpell && l.action.target == Some(slot))
        .map(|l| l.label)
        .collect();
    assert!(
        offered.is_empty(),
        "{offered:?} (slot at {:?})",
        ep.position(slot)
    );
}

#[test]
fn heightened_spell_concentration_uses_the_heightened_level() {
    // CRB — Feats: Heighten Spell: "All effects dependent on spell level (such as saving
    // throw DCs …) are calculated according to the heightened level"; Magic: Concentration —
    // Casting Defensively: DC 15 + double the spell's level. Magic missile heightened to 2nd:
    // DC 19. Concentration d20 14 + 1 (CL) + 3 (Int) = 18: fails against 19.
    let mut m = mage(1, &["magic missile"]);
    m["feats"] = json!(["Heighten Spell"]);
    let (mut ep, _s) = fight(
        vec![
            unit("a", "mage", m, (3, 1)),
            unit("b", "foe", creature("foe"), (3, 5)),
        ],
        &[14],
    );
    let f = cid(&ep, "foe");
    submit(
        &mut ep,
        &[Action {
            defensively: true,
            ..cast_mm(0, f, &[Metamagic::Heighten])
        }],
    );
    let l = log(&ep);
    assert!(l.contains("vs DC 19"), "{l}");
}

#[test]
fn stabilize_does_nothing_to_a_conscious_creature() {
    // CRB — Spells: Stabilize: "you target a living creature that has -1 or fewer hit
    // points. That creature is automatically stabilized". pf1e-sim casters seed 1
    // (--transcript): cleric_3 casts stabilize on druid_3 (hp 4->5, 10->11, 11->12…) on five
    // turns in a row.
    let hurt = set(creature("ally"), "hp_max", json!(30));
    let (mut ep, _s) = fight(
        vec![
            unit(
                "a",
                "mage",
                set(mage(1, &[]), "spells", json!([{"name": "stabilize"}])),
                (3, 1),
            ),
            unit("a", "ally", hurt, (3, 2)),
            unit("b", "foe", creature("foe"), (3, 12)),
        ],
        &[],
    );
    let al = cid(&ep, "ally");
    // Ally at full hp 30; the rule: no effect (or the cast refused) on a creature above -1 hp.
    let v = ep.validate(&cast(0, al)).unwrap();
    if v.ok {
        submit(&mut ep, &[cast(0, al)]);
    }
    let l = log(&ep);
    assert!(!l.contains("stabilize: 1 heals"), "{l}");
}
