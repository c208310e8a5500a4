//! Determinism (DESIGN.md — "Seed + input log replays the game"): the same encounter and seed
//! give the same transcript bit for bit; a cloned episode (snapshot) continues identically; a
//! rejected action changes neither the state nor the RNG.

mod common;

use pf1e_engine::episode::{Controller, Episode, Status};
use pf1e_engine::{Action, ActionKind, CombatantId, RulesOptions};

fn transcript(ep: &Episode) -> Vec<String> {
    ep.transcript().iter().map(|l| l.to_string()).collect()
}

fn sample() -> std::sync::Arc<pf1e_engine::Encounter> {
    common::encounter(
        "sample_arena",
        &[
            ("players", &["goblin", "goblin", "goblin"]),
            ("monsters", &["orc", "orc"]),
        ],
        RulesOptions::default(),
    )
}

#[test]
fn same_seed_same_transcript_for_many_seeds() {
    let enc = sample();
    for seed in 0..50 {
        let mut a = Episode::new(enc.clone(), seed, &[]);
        let mut b = Episode::new(enc.clone(), seed, &[]);
        assert_eq!(a.advance(), b.advance());
        assert_eq!(transcript(&a), transcript(&b), "seed {seed}");
    }
    // Different seeds give different combats (the RNG is actually used).
    let t: std::collections::BTreeSet<Vec<String>> = (0..20)
        .map(|s| {
            let mut e = Episode::new(enc.clone(), s, &[]);
            e.advance();
            transcript(&e)
        })
        .collect();
    assert!(
        t.len() > 15,
        "only {} distinct transcripts out of 20 seeds",
        t.len()
    );
}

/// A clone taken at a decision (a snapshot) and the original, given the same actions, produce
/// identical transcripts (OpenSpiel-style clone test).
#[test]
fn snapshot_clone_replays_identically() {
    let enc = sample();
    let controllers = [Controller::External; 3];
    for seed in 0..20 {
        let mut ep = Episode::new(enc.clone(), seed, &controllers);
        let mut steps = 0;
        let mut snapshot: Option<(Episode, usize)> = None;
        let mut chosen: Vec<u32> = Vec::new();
        // Play: always the last legal action id (deterministic), snapshot at the 3rd decision.
        while let Status::Decision(_) = ep.advance() {
            if steps == 3 {
                snapshot = Some((ep.clone(), chosen.len()));
            }
            let legal = ep.legal_actions();
            assert!(
                !legal.is_empty(),
                "legal actions are never empty at a decision"
            );
            let pick = &legal[(steps * 7 + seed as usize) % legal.len()];
            chosen.push(pick.id);
            ep.submit(
                ep.decision().unwrap().decision_id,
                std::slice::from_ref(&pick.action),
            )
            .unwrap();
            steps += 1;
            assert!(steps < 10_000);
        }
        let Some((mut snap, k)) = snapshot else {
            continue;
        };
        for id in &chosen[k..] {
            match snap.advance() {
                Status::Decision(_) => {}
                Status::Terminal(_) => panic!("the snapshot ended early"),
            }
            let a = snap.action_from_id(*id).expect("id decodes");
            snap.submit(snap.decision().unwrap().decision_id, &[a])
                .unwrap();
        }
        assert!(matches!(snap.advance(), Status::Terminal(_)));
        assert_eq!(transcript(&snap), transcript(&ep), "seed {seed}");
    }
}

/// A rejected action is a no-op: same observation, same dice state afterwards (the next
/// rolls are the same as without the rejected action).
#[test]
fn rejected_action_changes_nothing() {
    let enc = sample();
    let controllers = [Controller::External; 3];
    let mut ep = Episode::new(enc, 7, &controllers);
    let Status::Decision(d) = ep.advance() else {
        panic!("goblins decide")
    };
    let before = serde_json::to_string(&ep.observation(None)).unwrap();
    let mut twin = ep.clone();
    // Attack an ally: invalid target.
    let mut bad = Action::new(ActionKind::Attack);
    bad.target = Some(pf1e_engine::CombatantId(if d.actor.0 == 0 { 1 } else { 0 }));
    let r = ep
        .submit(ep.decision().unwrap().decision_id, &[bad])
        .unwrap();
    assert!(!r[0].ok);
    assert_eq!(r[0].code(), Some("invalid_target"));
    // The turn continues: the same decision is re-issued with a new id.
    let Status::Decision(d2) = ep.advance() else {
        panic!("still deciding")
    };
    assert_eq!(d2.actor, d.actor);
    assert_ne!(d2.decision_id, d.decision_id);
    let after = serde_json::to_string(&ep.observation(None)).unwrap();
    assert_eq!(before, after);
    // End the turn in both and check the rest of the combat is identical.
    common::pass(&mut ep);
    common::pass(&mut twin);
    for e in [&mut ep, &mut twin] {
        while let Status::Decision(_) = e.advance() {
            common::pass(e);
        }
    }
    assert_eq!(transcript(&ep), transcript(&twin));
}

/// `validate` is a dry run: it agrees with `submit` on every legal action and on a bad one, and
/// changes nothing (same decision, same observation, same continuation).
#[test]
fn validate_agrees_with_submit_and_changes_nothing() {
    let enc = sample();
    let controllers = [Controller::External; 3];
    let mut ep = Episode::new(enc, 11, &controllers);
    let Status::Decision(d) = ep.advance() else {
        panic!("goblins decide")
    };
    let before = serde_json::to_string(&ep.observation(None)).unwrap();
    for l in ep.legal_actions() {
        let v = ep.validate(&l.action).unwrap();
        assert!(v.ok, "legal action {} validates: {v:?}", l.label);
        let mut copy = ep.clone();
        let r = copy
            .submit(
                copy.decision().unwrap().decision_id,
                std::slice::from_ref(&l.action),
            )
            .unwrap();
        assert_eq!(r[0], v, "{}", l.label);
    }
    let mut bad = Action::new(ActionKind::Withdraw);
    bad.destination = Some(pf1e_engine::Cell::new(0, 0)); // a wall
    let v = ep.validate(&bad).unwrap();
    let r = ep.clone().submit(d.decision_id, &[bad]).unwrap();
    assert_eq!(r[0], v);
    assert_eq!(v.code(), Some("unreachable_destination"));
    assert_eq!(ep.decision().unwrap(), &d);
    assert_eq!(
        serde_json::to_string(&ep.observation(None)).unwrap(),
        before
    );
}

/// Snapshot/restore (DESIGN.md — `Episode: Clone` and serializable): restoring a snapshot taken
/// at a decision and replaying the same actions gives the same transcript; garbage and
/// snapshots of another encounter are refused with an error, never a panic.
#[test]
fn snapshot_restore_replays_identically_and_rejects_garbage() {
    let enc = sample();
    let controllers = [Controller::External; 3];
    let mut ep = Episode::new(enc.clone(), 5, &controllers);
    let mut bytes = None;
    let mut chosen = Vec::new();
    let mut k = 0usize;
    while let Status::Decision(_) = ep.advance() {
        if k == 4 {
            bytes = Some((ep.snapshot(), chosen.len()));
        }
        let legal = ep.legal_actions();
        let pick = legal[(k * 5) % legal.len()].clone();
        chosen.push(pick.action.clone());
        ep.submit(ep.decision().unwrap().decision_id, &[pick.action])
            .unwrap();
        k += 1;
    }
    let (bytes, at) = bytes.expect("at least 5 decisions");
    let mut restored = Episode::restore(enc.clone(), &bytes).unwrap();
    for a in &chosen[at..] {
        assert!(matches!(restored.advance(), Status::Decision(_)));
        restored
            .submit(
                restored.decision().unwrap().decision_id,
                std::slice::from_ref(a),
            )
            .unwrap();
    }
    assert!(matches!(restored.advance(), Status::Terminal(_)));
    assert_eq!(transcript(&restored), transcript(&ep));
    // Garbage, truncation and another encounter.
    assert!(Episode::restore(enc.clone(), b"\x00\xffnot json").is_err());
    assert!(Episode::restore(enc.clone(), &bytes[..bytes.len() / 2]).is_err());
    let other = common::encounter(
        "sample_arena",
        &[("players", &["goblin"]), ("monsters", &["orc", "orc"])],
        RulesOptions::default(),
    );
    assert!(Episode::restore(other, &bytes).is_err());
    // A tampered turn position is refused.
    let text = String::from_utf8(bytes.clone()).unwrap();
    let tampered = text.replacen("\"turn_pos\":", "\"turn_pos\":999", 1);
    assert!(Episode::restore(enc, tampered.as_bytes()).is_err());
}

/// Tensor observations have the published fixed shapes at every decision, finite values, and
/// the action mask agrees with the legal actions.
#[test]
fn tensor_observation_shapes_and_mask() {
    use pf1e_engine::observe::tensor::{FEATURES, PLANES};
    let enc = sample();
    let (rows, cols) = (enc.map.rows as usize, enc.map.cols as usize);
    let n = enc.combatants.len();
    let mut ep = Episode::new(enc, 3, &[Controller::External; 3]);
    let mut k = 0;
    while let Status::Decision(d) = ep.advance() {
        let t = ep.observation_tensor(d.actor);
        assert_eq!(t.plane_shape, [PLANES, rows, cols]);
        assert_eq!(t.planes.len(), PLANES * rows * cols);
        assert_eq!(t.feature_shape, [n, FEATURES]);
        assert_eq!(t.features.len(), n * FEATURES);
        assert!(t.planes.iter().chain(&t.features).all(|v| v.is_finite()));
        // The one-byte encoding of the planes is exact (BatchColumns.planes).
        let bytes = t.planes_u8();
        let per_plane = rows * cols;
        for (i, (&b, &v)) in bytes.iter().zip(&t.planes).enumerate() {
            let d = f32::from(pf1e_engine::observe::tensor::PLANE_DIVISORS[i / per_plane]);
            assert_eq!((f32::from(b) / d).to_bits(), v.to_bits(), "plane value {i}");
        }
        // "me" plane marks the actor's square.
        let pos = ep.position(d.actor);
        assert_eq!(
            t.planes[5 * rows * cols + pos.row as usize * cols + pos.col as usize],
            1.0
        );
        let mask = ep.action_mask();
        let legal = ep.legal_actions();
        assert_eq!(mask.iter().filter(|&&m| m == 1).count(), legal.len());
        for l in &legal {
            assert_eq!(mask[l.id as usize], 1);
        }
        let pick = legal[k % legal.len()].action.clone();
        ep.submit(ep.decision().unwrap().decision_id, &[pick])
            .unwrap();
        k += 1;
    }
    assert!(ep.action_mask().iter().all(|&m| m == 0));
}

/// A tampered snapshot describing an impossible state is refused: a decision awaited from a
/// combatant that is not externally controlled, a round beyond the cap, an unknown condition;
/// and a well-formed state that its start and history do not give (hit points edited, another
/// starting seed, a result rewritten) — a restore replays the history and compares; and an
/// unknown key.
#[test]
fn tampered_snapshots_are_refused() {
    let enc = sample();
    let mut ep = Episode::new(enc.clone(), 2, &[Controller::External; 3]);
    assert!(matches!(ep.advance(), Status::Decision(_)));
    let text = String::from_utf8(ep.snapshot()).unwrap();
    assert!(Episode::restore(enc.clone(), text.as_bytes()).is_ok());
    let mut tampered: Vec<(String, String)> = [
        text.replace("\"external\"", "\"default_policy\""),
        text.replacen("\"round\":1,", "\"round\":1000,", 1),
        text.replacen("\"flat_footed\"", "\"no_such_condition\"", 1),
    ]
    .into_iter()
    .map(|t| (text.clone(), t))
    .collect();
    // A few decisions in, so the history has entries with results.
    for _ in 0..3 {
        let Status::Decision(d) = ep.advance() else {
            panic!("ended early")
        };
        let legal = ep.legal_actions();
        let a = legal[legal.len() / 2].action.clone();
        ep.submit(d.decision_id, &[a]).unwrap();
    }
    assert!(matches!(ep.advance(), Status::Decision(_)));
    let text = String::from_utf8(ep.snapshot()).unwrap();
    assert!(Episode::restore(enc.clone(), text.as_bytes()).is_ok());
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut hp = v.clone();
    let h = hp["st"][0]["hp"].as_i64().unwrap();
    hp["st"][0]["hp"] = serde_json::json!(h - 1);
    let mut seed = v.clone();
    let other = Episode::new(enc.clone(), 3, &[Controller::External; 3]).snapshot();
    let other: serde_json::Value = serde_json::from_slice(&other).unwrap();
    assert_ne!(other["start_dice"], seed["start_dice"]);
    seed["start_dice"] = other["start_dice"].clone();
    let mut result = v.clone();
    let ok = result["history"][0]["results"][0]["ok"].as_bool().unwrap();
    result["history"][0]["results"][0]["ok"] = serde_json::json!(!ok);
    let mut extra = v.clone();
    extra["zzz"] = serde_json::json!([[[1]]]);
    tampered.extend([hp, seed, result, extra].map(|t| (text.clone(), t.to_string())));
    for (i, (text, t)) in tampered.iter().enumerate() {
        assert_ne!(t, text, "tampering {i} changed the text");
        assert!(
            Episode::restore(enc.clone(), t.as_bytes()).is_err(),
            "tampering {i}"
        );
    }
}

/// A snapshot taken while a mover stands on an ally's square (a default-policy orc passing
/// through the other orc's square, stopped by an attack of opportunity an external goblin
/// decides) restores: two combatants may share squares mid-move (break-it finding: refused
/// as "two conscious combatants share a square").
#[test]
fn a_snapshot_mid_move_through_an_ally_restores() {
    let enc = sample();
    let ctl = [
        Controller::External,
        Controller::External,
        Controller::External,
        Controller::DefaultPolicy,
        Controller::DefaultPolicy,
    ];
    let mut ep = Episode::new(enc.clone(), 2, &ctl);
    for id in [
        73, 56, 77, 115, 114, 98, 136, 155, 198, 20, 56, 158, 160, 136, 302,
    ] {
        let Status::Decision(d) = ep.advance() else {
            panic!("ended early")
        };
        let a = ep.action_from_id(id).expect("an id of the space");
        ep.submit(d.decision_id, &[a]).unwrap();
    }
    let Status::Decision(d) = ep.advance() else {
        panic!("ended early")
    };
    assert!(d.kind.is_reaction(), "{d:?}");
    let (orc, orc2) = (CombatantId(3), CombatantId(4));
    assert_eq!(
        ep.position(orc),
        ep.position(orc2),
        "the mover stands on its ally"
    );
    let restored = Episode::restore(enc, &ep.snapshot()).expect("restores");
    assert_eq!(restored.snapshot(), ep.snapshot());
}
