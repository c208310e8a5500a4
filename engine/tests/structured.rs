//! Structured JSON actions (`actions::structured`): every legal action of many decisions
//! round-trips Action → JSON → Action and validates against the encounter's JSON Schema
//! (checked by `common/schema_subset.rs`, a validator of the subset the schemas use); labels
//! resolve; errors name the field path and list the accepted values.

mod common;
#[path = "common/schema_subset.rs"]
mod schema_subset;

use common::*;
use pf1e_engine::actions::structured::{
    action_from_value, action_json_schema, parse_actions, plan_json_schema, resolve_label, to_json,
    StructuredError,
};
use pf1e_engine::{Action, ActionKind, CombatantId, Controller, Episode, Maneuver, Status};
use serde_json::{json, Value};
use std::sync::Arc;

/// A fighter (longsword, longbow), a mage (magic missile, burning hands, fireball) against
/// two orcs (ids `orc`, `orc-2`) and a goblin.
fn mixed() -> Arc<pf1e_engine::Encounter> {
    let fighter = set(
        creature("fighter"),
        "attacks",
        json!([
            melee("longsword", 5, "1d8", "slashing"),
            ranged("longbow", 4, "1d8", "piercing", 100)
        ]),
    );
    let mage = caster(
        "mage",
        5,
        &["magic missile", "burning hands", "fireball"],
        json!({"1": 3, "3": 1}),
    );
    encounter(
        &room(8, 12),
        vec![
            unit("players", "fighter", fighter, (2, 2)),
            unit("players", "mage", mage, (3, 1)),
            unit("monsters", "orc", creature("orc"), (2, 9)),
            unit("monsters", "orc-2", creature("orc"), (5, 10)),
            unit("monsters", "goblin", creature("goblin"), (7, 11)),
        ],
    )
}

fn play(
    enc: Arc<pf1e_engine::Encounter>,
    seed: u64,
    decisions: usize,
    mut at: impl FnMut(&Episode),
) {
    let n = enc.combatants.len();
    let mut ep = Episode::new(enc, seed, &vec![Controller::External; n]);
    let mut rng = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    for _ in 0..decisions {
        let Status::Decision(d) = ep.advance() else {
            return;
        };
        at(&ep);
        let legal = ep.legal_actions();
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let pick = &legal[(rng >> 33) as usize % legal.len()];
        ep.submit(d.decision_id, std::slice::from_ref(&pick.action))
            .unwrap();
    }
}

#[test]
fn every_legal_action_round_trips_through_json_and_fits_the_schema() {
    let enc = mixed();
    let schema = action_json_schema(&enc);
    let plan_schema = plan_json_schema(&enc);
    let mut checked = 0;
    let mut kinds = std::collections::BTreeSet::new();
    for seed in 0..4 {
        play(enc.clone(), seed, 30, |ep| {
            let actor = ep.decision().unwrap().actor;
            let legal = ep.legal_actions();
            let mut plan = Vec::new();
            for l in &legal {
                let v = to_json(&enc, actor, &l.action);
                let back = action_from_value(&enc, actor, &v, "")
                    .unwrap_or_else(|e| panic!("{v} does not parse: {e}"));
                assert_eq!(back, l.action, "{v}");
                // Also as text.
                assert_eq!(
                    parse_actions(&enc, actor, &v.to_string()).unwrap(),
                    vec![l.action.clone()]
                );
                schema_subset::validate(&schema, &v, "")
                    .unwrap_or_else(|e| panic!("{v} against the schema: {e}"));
                // The label resolves to the same id (a sample: each resolution lists the
                // legal actions again).
                if checked % 23 == 0 {
                    let r = resolve_label(ep, &l.label).expect("a legal label resolves");
                    assert_eq!(ep.action_id(&r), Some(l.id), "{}", l.label);
                }
                kinds.insert(l.action.kind.name());
                plan.push(v);
                checked += 1;
            }
            let p = json!({ "plan": plan });
            schema_subset::validate(&plan_schema, &p, "").unwrap();
            assert_eq!(
                parse_actions(&enc, actor, &p.to_string()).unwrap().len(),
                legal.len()
            );
        });
    }
    assert!(checked > 500, "{checked} legal actions checked");
    for k in [
        "move",
        "attack",
        "full_attack",
        "cast_spell",
        "5foot_step",
        "end_turn",
    ] {
        assert!(kinds.contains(k), "{k} never legal: {kinds:?}");
    }
}

#[test]
fn names_ids_and_indices_resolve() {
    let enc = mixed();
    let fighter = CombatantId(0);
    let mage = CombatantId(1);
    let a = parse_actions(
        &enc,
        fighter,
        r#"{"kind": "full_attack", "target": "orc-2", "weapon": "LongBow"}"#,
    )
    .unwrap();
    assert_eq!(
        a,
        vec![Action {
            target: Some(CombatantId(3)),
            weapon: Some(1),
            ..Action::new(ActionKind::FullAttack)
        }]
    );
    // Indices, and a case-insensitive id.
    let b = parse_actions(
        &enc,
        fighter,
        r#"[{"kind": "attack", "target": 2, "weapon": 0}, {"kind":"charge","target":"ORC"}]"#,
    )
    .unwrap();
    assert_eq!(b[0].target, Some(CombatantId(2)));
    assert_eq!(b[0].weapon, Some(0));
    assert_eq!(b[1].target, Some(CombatantId(2)));
    let c = parse_actions(
        &enc,
        mage,
        r#"{"plan": [{"kind": "cast_spell", "spell": "fireball", "target_pos": [3, 9], "metamagic": ["empower"], "defensively": true},
                     {"kind": "move", "destination": [4, 7]},
                     {"kind": "maneuver", "maneuver": "bull rush", "target": "goblin", "direction": "e"},
                     {"kind": "ready", "readied": {"kind": "attack"}, "trigger": {"event": "enemy_within", "within_ft": 30, "by": "orc"}},
                     {"kind": "aid_another", "target": "orc", "ally": "fighter", "aid_mode": "ac"}]}"#,
    )
    .unwrap();
    assert_eq!(c[0].spell, Some(2));
    assert_eq!(c[0].target_pos, Some(pf1e_engine::Cell::new(3, 9)));
    assert!(c[0].defensively);
    assert_eq!(c[1].destination, Some(pf1e_engine::Cell::new(4, 7)));
    assert_eq!(c[2].maneuver, Some(Maneuver::BullRush));
    assert_eq!(
        c[3].trigger,
        Some(pf1e_engine::actions::ReadyTrigger::EnemyWithin {
            ft: 30,
            by: Some(CombatantId(2))
        })
    );
    assert_eq!(
        c[3].readied.as_deref(),
        Some(&Action::new(ActionKind::Attack))
    );
    assert_eq!(c[4].ally, Some(CombatantId(0)));
    // Round trip of what was parsed.
    for a in &c {
        assert_eq!(
            &action_from_value(&enc, mage, &to_json(&enc, mage, a), "").unwrap(),
            a
        );
    }
}

fn error(enc: &pf1e_engine::Encounter, actor: u16, text: &str) -> StructuredError {
    parse_actions(enc, CombatantId(actor), text).expect_err(text)
}

#[test]
fn errors_name_the_field_path_and_the_accepted_values() {
    let enc = mixed();
    let e = error(&enc, 0, r#"{"kind": "attack", "target": "orc-9"}"#);
    assert_eq!(e.field, "target");
    assert_eq!(
        e.reason,
        r#"no combatant "orc-9"; ids: fighter, mage, orc, orc-2, goblin"#
    );
    let e = error(
        &enc,
        0,
        r#"[{"kind": "end_turn"}, {"kind": "attack", "weapon": "axe"}]"#,
    );
    assert_eq!(e.field, "[1].weapon");
    assert_eq!(
        e.reason,
        r#"no weapon "axe"; the actor's weapons: longsword, longbow"#
    );
    let e = error(
        &enc,
        0,
        r#"{"plan": [{"kind": "move"}, {"kind": "end_turn"}, {"kind": "fly"}]}"#,
    );
    assert_eq!(e.field, "plan[2].kind");
    assert!(
        e.reason
            .starts_with(r#"no action kind "fly"; kinds: end_turn, attack, full_attack"#),
        "{}",
        e.reason
    );
    let e = error(&enc, 0, r#"{"kind": "attack", "targte": "orc"}"#);
    assert_eq!(e.field, "targte");
    assert!(e.reason.starts_with("unknown field; fields: kind, target"));
    let e = error(&enc, 0, r#"{"kind": "attack""#);
    assert_eq!(e.field, "");
    assert!(e.reason.starts_with("not valid JSON"), "{}", e.reason);
    assert_eq!(
        error(&enc, 0, "[]").reason,
        "an empty list: give at least one action"
    );
    assert_eq!(error(&enc, 0, r#"{"plan": []}"#).field, "plan");
    assert_eq!(error(&enc, 0, r#"{"plan": [], "x": 1}"#).field, "x");
    assert_eq!(error(&enc, 0, r#"{"target": "orc"}"#).field, "kind");
    assert_eq!(
        error(&enc, 0, r#"{"kind": "move", "destination": [1]}"#).field,
        "destination"
    );
    assert_eq!(
        error(&enc, 0, r#"{"kind": "attack", "target": 9}"#).field,
        "target"
    );
    let e = error(&enc, 1, r#"{"kind": "cast_spell", "spell": "wish"}"#);
    assert_eq!(e.field, "spell");
    assert_eq!(
        e.reason,
        r#"no spell "wish"; the actor's spells: magic missile, burning hands, fireball"#
    );
    let e = error(
        &enc,
        0,
        r#"{"kind": "ready", "readied": {"kind": "attack", "weapon": 7}}"#,
    );
    assert_eq!(e.field, "readied.weapon");
    let e = error(
        &enc,
        0,
        r#"{"kind": "ready", "trigger": {"event": "enemy_attacks", "within_ft": 10}}"#,
    );
    assert_eq!(e.field, "trigger.within_ft");
    let e = error(
        &enc,
        0,
        r#"{"kind": "ready", "trigger": {"event": "enemy_within"}}"#,
    );
    assert_eq!(e.field, "trigger.within_ft");
    let e = error(
        &enc,
        0,
        r#"{"kind": "cast_spell", "metamagic": ["empower", "twin"]}"#,
    );
    assert_eq!(e.field, "metamagic[1]");
    assert_eq!(
        error(&enc, 0, r#"{"kind": "maneuver", "maneuver": "suplex"}"#).field,
        "maneuver"
    );
    assert_eq!(error(&enc, 0, "7").field, "");
}

#[test]
fn the_schemas_list_this_encounters_names() {
    let enc = mixed();
    let s = action_json_schema(&enc);
    assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert_eq!(s["required"], json!(["kind"]));
    assert_eq!(s["additionalProperties"], json!(false));
    assert_eq!(
        s["properties"]["target"]["enum"],
        json!(["fighter", "mage", "orc", "orc-2", "goblin"])
    );
    assert_eq!(
        s["properties"]["weapon"]["enum"],
        json!(["longsword", "longbow"])
    );
    assert_eq!(
        s["properties"]["spell"]["enum"],
        json!(["magic missile", "burning hands", "fireball"])
    );
    let kinds = s["properties"]["kind"]["enum"].as_array().unwrap();
    assert_eq!(kinds.len(), ActionKind::ALL.len());
    // `readied` inlined one level: no recursion, no $ref.
    let r = &s["properties"]["readied"];
    assert_eq!(r["type"], "object");
    assert!(r["properties"].get("readied").is_none());
    assert!(!s.to_string().contains("$ref"));
    let p = plan_json_schema(&enc);
    assert_eq!(p["properties"]["plan"]["minItems"], 1);
    assert_eq!(
        p["properties"]["plan"]["items"]["required"],
        json!(["kind"])
    );
    // Bad values are refused by the schema too.
    for bad in [
        json!({"kind": "attack", "target": "orc-9"}),
        json!({"kind": "fly"}),
        json!({"target": "orc"}),
        json!({"kind": "attack", "extra": 1}),
        json!({"kind": "move", "destination": [1, 2, 3]}),
    ] {
        assert!(schema_subset::validate(&s, &bad, "").is_err(), "{bad}");
    }
    assert!(schema_subset::validate(&p, &json!({"plan": []}), "").is_err());
    // Two weapons of one name: the second is written as its weapon id, which the schema lists.
    let twin = set(
        creature("twin"),
        "attacks",
        json!([
            melee("claw", 3, "1d4", "slashing"),
            set(melee("Claw", 3, "1d4", "slashing"), "id", json!("claw_2"))
        ]),
    );
    let enc2 = encounter(
        &room(3, 5),
        vec![
            unit("a", "twin", twin, (1, 1)),
            unit("b", "dummy", creature("dummy"), (1, 2)),
        ],
    );
    let a = Action {
        target: Some(CombatantId(1)),
        weapon: Some(1),
        ..Action::new(ActionKind::Attack)
    };
    let j = to_json(&enc2, CombatantId(0), &a);
    assert_eq!(
        j,
        json!({"kind": "attack", "target": "dummy", "weapon": "claw_2"})
    );
    assert_eq!(
        action_json_schema(&enc2)["properties"]["weapon"]["enum"],
        json!(["claw", "longsword", "claw_2"])
    );
    assert_eq!(action_from_value(&enc2, CombatantId(0), &j, "").unwrap(), a);
    schema_subset::validate(&action_json_schema(&enc2), &j, "").unwrap();
    // No spells in the encounter: no spell fields.
    let plain = encounter(
        &room(3, 3),
        vec![
            unit("a", "hero", creature("hero"), (1, 1)),
            unit("b", "dummy", creature("dummy"), (3, 3)),
        ],
    );
    let s = action_json_schema(&plain);
    assert!(s["properties"].get("spell").is_none());
    let v: Value = serde_json::from_str(&s.to_string()).unwrap();
    assert_eq!(v, s);
}

/// Break-it (P8): a field the action's kind does not take was silently ignored (`{"kind":
/// "attack", "spell": "magic missile"}` played an attack, Explain called it legal with the
/// label `attack magic missile on orc …`), and a repeated metamagic or a `readied` inside a
/// `readied` resolved; the typed `Action` path refuses all of these with INVALID_ARGUMENT
/// naming the field. The JSON path now refuses them the same way.
#[test]
fn fields_the_kind_does_not_take_are_refused_like_the_typed_path() {
    let enc = mixed();
    let cases: [(u16, &str, &str); 10] = [
        (
            1,
            r#"{"kind": "attack", "target": "orc", "spell": "magic missile"}"#,
            "spell",
        ),
        (
            0,
            r#"{"kind": "attack", "target": "orc", "defensively": true}"#,
            "defensively",
        ),
        (
            0,
            r#"{"kind": "move", "destination": [1, 1], "target_pos": [1, 1]}"#,
            "target_pos",
        ),
        (
            0,
            r#"{"kind": "attack", "metamagic": ["quicken"]}"#,
            "metamagic",
        ),
        (
            0,
            r#"{"kind": "move", "destination": [1, 1], "maneuver": "trip"}"#,
            "maneuver",
        ),
        (0, r#"{"kind": "attack", "direction": "n"}"#, "direction"),
        (0, r#"{"kind": "attack", "ally": "mage"}"#, "ally"),
        (
            0,
            r#"{"kind": "attack", "readied": {"kind": "end_turn"}}"#,
            "readied",
        ),
        (
            1,
            r#"{"kind": "cast_spell", "spell": "magic missile", "metamagic": ["empower", "empower"]}"#,
            "metamagic[1]",
        ),
        (
            0,
            r#"{"plan": [{"kind": "ready", "readied": {"kind": "ready", "readied": {"kind": "attack"}}, "trigger": {"event": "enemy_attacks"}}]}"#,
            "plan[0].readied.readied",
        ),
    ];
    for (actor, text, field) in cases {
        let e = error(&enc, actor, text);
        assert_eq!(e.field, field, "{text}: {}", e.reason);
        assert!(!e.reason.is_empty());
    }
    let e = error(
        &enc,
        0,
        r#"{"kind": "attack", "trigger": {"event": "enemy_attacks"}}"#,
    );
    assert_eq!(e.field, "trigger");
    // What each kind does take still resolves.
    for text in [
        r#"{"kind": "cast_spell", "spell": "fireball", "target_pos": [3, 9], "metamagic": ["empower"], "defensively": true}"#,
        r#"{"kind": "activate_metamagic", "metamagic": ["empower"]}"#,
        r#"{"kind": "maneuver", "maneuver": "bull_rush", "target": "orc", "direction": "e"}"#,
        r#"{"kind": "aid_another", "target": "orc", "ally": "mage", "aid_mode": "ac"}"#,
        r#"{"kind": "ready", "readied": {"kind": "attack"}, "trigger": {"event": "enemy_attacks"}}"#,
    ] {
        parse_actions(&enc, CombatantId(1), text).expect(text);
    }
}
