//! P10: a snapshot is client data — restore checks every counter exactly and names what is
//! wrong; tampered numbers never panic, on restore or when advancing a restored episode.

#[path = "../examples/common/bundled.rs"]
mod bundled;

use pf1e_engine::episode::SnapshotError;
use pf1e_engine::{Controller, Encounter, Episode, Status};
use proptest::prelude::*;
use serde_json::Value;
use std::sync::Arc;

/// `ep` after `decisions` seeded decisions (everyone external).
fn played(enc: &Arc<Encounter>, seed: u64, decisions: usize) -> Episode {
    let mut ep = Episode::new(enc.clone(), seed, &[Controller::External; 8]);
    let mut rng = seed | 1;
    let mut status = ep.advance();
    for _ in 0..decisions {
        let Status::Decision(d) = &status else { break };
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let legal = ep.legal_actions();
        let pick = legal
            .iter()
            .find(|l| {
                matches!(
                    l.action.kind,
                    pf1e_engine::ActionKind::Attack
                        | pf1e_engine::ActionKind::FullAttack
                        | pf1e_engine::ActionKind::CastSpell
                ) && !(rng >> 40).is_multiple_of(3)
            })
            .unwrap_or(&legal[(rng >> 33) as usize % legal.len()]);
        ep.submit(d.decision_id, std::slice::from_ref(&pick.action))
            .unwrap();
        status = ep.advance();
    }
    ep
}

fn json(ep: &Episode) -> Value {
    serde_json::from_slice(&ep.snapshot()).unwrap()
}

/// Restore `v` (a tampered snapshot) and return the error's text.
fn refused(enc: &Arc<Encounter>, v: &Value) -> String {
    match Episode::restore(enc.clone(), &serde_json::to_vec(v).unwrap()) {
        Ok(_) => panic!("a tampered snapshot was accepted"),
        Err(e @ SnapshotError::Malformed(_)) => e.to_string(),
        Err(e) => panic!("unexpected error {e}"),
    }
}

#[test]
fn hit_points_above_the_maximum_are_refused_exactly() {
    let enc = bundled::encounter(false);
    let ep = played(&enc, 2, 4);
    let max = enc.combatants[0].spec.max_hp();
    let mut v = json(&ep);
    // The untampered snapshot restores.
    Episode::restore(enc.clone(), &serde_json::to_vec(&v).unwrap()).unwrap();
    v["st"][0]["hp"] = (max + 1).into();
    let e = refused(&enc, &v);
    assert!(
        e.contains("st[0]") && e.contains(&format!("hp {} is above its max hp {max}", max + 1)),
        "{e}"
    );
    v["st"][0]["hp"] = (max + 1000).into();
    assert!(refused(&enc, &v).contains("above its max hp"));
}

#[test]
fn each_counter_is_checked_and_named() {
    let enc = bundled::encounter(true);
    let ep = played(&enc, 1, 6);
    let v = json(&ep);
    let tamper = |edit: &dyn Fn(&mut Value), want: &str| {
        let mut x = v.clone();
        edit(&mut x);
        let e = refused(&enc, &x);
        assert!(e.contains(want), "want {want:?} in {e:?}");
    };
    let n = enc.combatants.len();
    // A healthy combatant with hp > 0 said to be dying.
    let healthy = (0..n)
        .find(|&i| v["st"][i]["life"] == "healthy")
        .expect("someone is healthy");
    tamper(
        &|x| x["st"][healthy]["life"] = "dying".into(),
        "does not fit hp",
    );
    tamper(&|x| x["st"][healthy]["hp"] = 0.into(), "does not fit hp");
    // Ammunition above the start.
    if let Some((i, k, start)) = (0..n).find_map(|i| {
        enc.combatants[i]
            .spec
            .attacks
            .iter()
            .enumerate()
            .find_map(|(k, a)| a.ammunition.map(|s| (i, k, s)))
    }) {
        tamper(&|x| x["st"][i]["ammo"][k] = (start + 1).into(), "ammo[");
        tamper(&|x| x["st"][i]["ammo"][k] = Value::Null, "ammo[");
    }
    // Spell slots above the caster's.
    let caster = (0..n)
        .find(|&i| {
            v["st"][i]["slots_left"]
                .as_array()
                .is_some_and(|a| !a.is_empty())
        })
        .expect("a caster with slots");
    tamper(
        &|x| x["st"][caster]["slots_left"][1] = 99.into(),
        "slots_left[1]",
    );
    // Counted uses (prepared copies, uses per day) above the start, or on a spell
    // without counted uses.
    let counted = (0..n).find_map(|i| {
        v["st"][i]["spell_uses"]
            .as_array()
            .and_then(|a| a.iter().position(Value::is_number).map(|k| (i, k)))
    });
    let (i, k) = counted.expect("a caster with counted uses");
    tamper(&|x| x["st"][i]["spell_uses"][k] = 99.into(), "spell_uses[");
    tamper(
        &|x| x["st"][i]["spell_uses"][k] = Value::Null,
        "spell_uses[",
    );
    // Attacks of opportunity above the allowance.
    tamper(&|x| x["st"][0]["aoo_used"] = 9.into(), "aoo_used");
    // A duration out of range; a condition listed twice.
    tamper(
        &|x| {
            x["st"][0]["conditions"] = serde_json::json!([{"name": "shaken", "rounds": 50_000_000}])
        },
        "duration",
    );
    tamper(
        &|x| {
            x["st"][0]["conditions"] = serde_json::json!([{"name": "shaken", "rounds": 2}, {"name": "shaken", "rounds": 3}])
        },
        "listed twice",
    );
    tamper(
        &|x| x["st"][0]["summon_rounds"] = 1_000_000.into(),
        "duration",
    );
    // Attrition: more hits than attacks.
    tamper(
        &|x| {
            let a = x["attrition"][0]["attacks"].as_u64().unwrap();
            x["attrition"][0]["hits"] = (a + 1).into();
        },
        "attrition[0]",
    );
    tamper(
        &|x| x["attrition"][1]["damage_taken"] = (-5).into(),
        "attrition[1]",
    );
    // The transcript names a stranger, or a round past the cap.
    tamper(&|x| x["log"][3]["actor"] = "stranger".into(), "log[3]");
    tamper(&|x| x["log"][3]["round"] = 1_000_000.into(), "log[3]");
    // History ids must increase.
    tamper(
        &|x| {
            let id = x["history"][0]["decision_id"].clone();
            x["history"][1]["decision_id"] = id;
        },
        "history",
    );
    // Counters that were already checked keep their message.
    tamper(&|x| x["round"] = 1_000_000.into(), "round out of range");
    tamper(&|x| x["turn_pos"] = 99.into(), "turn position");
    tamper(&|x| x["next_decision_id"] = 0.into(), "decision");
}

/// Every numeric leaf of `v`, as a JSON pointer.
fn numeric_paths(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Number(_) => out.push(at),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                numeric_paths(x, format!("{at}/{i}"), out);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                numeric_paths(
                    x,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        _ => {}
    }
}

/// Snapshots of both encounters at a few points of play, with their numeric paths.
fn corpus() -> Vec<(Arc<Encounter>, Value, Vec<String>)> {
    let mut out = Vec::new();
    for casters in [false, true] {
        let enc = bundled::encounter(casters);
        for (seed, decisions) in [(0u64, 1usize), (3, 5), (5, 12)] {
            let v = json(&played(&enc, seed, decisions));
            let mut paths = Vec::new();
            numeric_paths(&v, String::new(), &mut paths);
            out.push((enc.clone(), v, paths));
        }
    }
    out
}

fn interesting() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::from(0)),
        Just(Value::from(1)),
        Just(Value::from(-1)),
        Just(Value::from(2)),
        Just(Value::from(u16::MAX)),
        Just(Value::from(u32::MAX)),
        Just(Value::from(i32::MIN)),
        Just(Value::from(u64::MAX)),
        Just(Value::from(i64::MIN)),
        Just(Value::from(1.5)),
        (-1000i64..1000).prop_map(Value::from),
        any::<u32>().prop_map(Value::from),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Mutate one to three numeric fields of a real snapshot: restore either refuses it
    /// with an error, or the episode restored advances and plays on without panicking.
    #[test]
    fn tampered_numbers_never_panic(
        which in 0usize..6,
        picks in proptest::collection::vec((any::<prop::sample::Index>(), interesting()), 1..4),
    ) {
        thread_local! {
            static CORPUS: Vec<(Arc<Encounter>, Value, Vec<String>)> = corpus();
        }
        CORPUS.with(|c| {
            let (enc, v, paths) = &c[which];
            let mut x = v.clone();
            for (i, val) in &picks {
                let p = &paths[i.index(paths.len())];
                *x.pointer_mut(p).unwrap() = val.clone();
            }
            if let Ok(mut ep) = Episode::restore(enc.clone(), &serde_json::to_vec(&x).unwrap()) {
                let _ = ep.memory_bytes();
                for _ in 0..4 {
                    let Status::Decision(d) = ep.advance() else { break };
                    let a = ep.legal_actions()[0].action.clone();
                    ep.submit(d.decision_id, &[a]).unwrap();
                }
            }
        });
    }
}
