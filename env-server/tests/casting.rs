//! Spellcasting over gRPC on the bundled `casters` scenario: the spellbooks and summon slots
//! of GetSpec, the cast blocks, the magic tensor features (within [0, 1]), a cast from the
//! legal actions, the cast fields both ways, refusals with their ResultCodes, and bad cast
//! input as INVALID_ARGUMENT naming the field.
use pf1e_engine::actions::{Action, ActionKind, Metamagic};
use pf1e_engine::observe::tensor::{FEATURES, FEATURE_NAMES, FIRST_MAGIC_FEATURE};
use pf1e_engine::{Cell, CombatantId};
use pf1e_env_server::proto;
use pf1e_env_server::service::{action_to_proto, metamagic_from_proto, metamagic_to_proto};
use tonic::Code;

mod common;
use common::*;

async fn spec(t: &mut TestServer) -> proto::Spec {
    t.client
        .get_spec(proto::GetSpecRequest {
            scenario: named("casters"),
        })
        .await
        .unwrap()
        .into_inner()
}

fn index(spec: &proto::Spec, id: &str) -> u32 {
    spec.combatants.iter().find(|c| c.id == id).unwrap().index
}

fn spell(spec: &proto::Spec, id: &str, name: &str) -> proto::SpellInfo {
    spec.combatants[index(spec, id) as usize]
        .spells
        .iter()
        .find(|s| s.name.eq_ignore_ascii_case(name))
        .unwrap()
        .clone()
}

fn block(spec: &proto::Spec, name: &str) -> (u32, u32) {
    let b = spec.action_blocks.iter().find(|b| b.name == name).unwrap();
    (b.first_id, b.size)
}

async fn reset(t: &mut TestServer, seed: u64, tensors: bool) -> proto::EpisodeState {
    t.client
        .reset(proto::ResetRequest {
            scenario: named("casters"),
            seed,
            controlled: controlled_sides(&["players"]),
            observation: Some(proto::ObservationOptions {
                tensors,
                action_mask: true,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
}

async fn step(
    t: &mut TestServer,
    s: &proto::EpisodeState,
    actions: Vec<proto::Action>,
) -> Result<proto::EpisodeState, tonic::Status> {
    t.client
        .step(proto::StepRequest {
            episode_id: s.episode_id.clone(),
            decision_id: s.decision.as_ref().unwrap().decision_id,
            actions,
            ..Default::default()
        })
        .await
        .map(|r| r.into_inner())
}

fn kind(k: proto::ActionKind) -> proto::Action {
    proto::Action {
        kind: k as i32,
        ..Default::default()
    }
}

#[tokio::test]
async fn spec_lists_spellbooks_summon_slots_and_the_cast_blocks() {
    let mut t = start().await;
    let spec = spec(&mut t).await;
    let fireball = spell(&spec, "wizard_5", "fireball");
    assert_eq!(fireball.level, 3);
    assert_eq!(fireball.targeting, "area");
    let area = fireball.area.unwrap();
    assert_eq!((area.shape.as_str(), area.size_ft), ("spread", 20));
    assert_eq!(area.origin, "point");
    assert_eq!(fireball.uses, "counted");
    assert_eq!(fireball.cast_time, "standard");
    let mm = spell(&spec, "wizard_5", "magic missile");
    assert_eq!(mm.targeting, "creature");
    assert!(mm.area.is_none());
    assert_eq!(mm.range, "medium");
    assert_eq!(mm.range_ft, 100 + 10 * 5);
    for c in &spec.combatants {
        for (i, s) in c.spells.iter().enumerate() {
            assert_eq!(s.index as usize, i);
        }
        // A summon slot names its summoner and the spell; deployed combatants do not.
        assert_eq!(c.summon_slot, c.summoned_by.is_some());
        assert_eq!(c.summon_slot, c.summoned_by_spell.is_some());
        if let (Some(by), Some(si)) = (c.summoned_by, c.summoned_by_spell) {
            let summoner = &spec.combatants[by as usize];
            assert!(!summoner.summon_slot);
            assert!((si as usize) < summoner.spells.len());
        }
    }
    let s = spec
        .combatants
        .iter()
        .map(|c| c.spells.len())
        .max()
        .unwrap() as u32;
    let n = spec.combatants.len() as u32;
    let map = spec.map.as_ref().unwrap();
    let cells = (map.rows * map.cols) as u32;
    assert_eq!(block(&spec, "cast_spell").1, s * n);
    assert_eq!(block(&spec, "cast_spell_at").1, s * cells);
    assert_eq!(block(&spec, "cast_defensively").1, 1);
    assert_eq!(block(&spec, "activate_metamagic").1, 7);
    let schema = spec.observation_schema.unwrap();
    assert_eq!(schema.feature_names.len(), FEATURES);
    assert_eq!(
        schema.feature_names[FIRST_MAGIC_FEATURE..],
        FEATURE_NAMES[FIRST_MAGIC_FEATURE..]
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()[..]
    );
    assert_eq!(
        schema.feature_names[FIRST_MAGIC_FEATURE],
        "caster_level_div_20"
    );
    assert_eq!(
        schema.feature_names[FIRST_MAGIC_FEATURE + 10],
        "spell_resistance_div_40"
    );
}

#[tokio::test]
async fn magic_features_are_within_0_and_1_and_read_the_casters() {
    let mut t = start().await;
    let spec = spec(&mut t).await;
    let s = reset(&mut t, 0, true).await;
    let tensors = s.tensors.unwrap();
    let n = spec.combatants.len();
    assert_eq!(tensors.feature_shape, vec![n as u32, FEATURES as u32]);
    let f = |c: usize, name: &str| {
        let k = FEATURE_NAMES.iter().position(|x| *x == name).unwrap();
        tensors.features[c * FEATURES + k]
    };
    for c in 0..n {
        let row = &tensors.features[c * FEATURES..(c + 1) * FEATURES];
        for (name, v) in FEATURE_NAMES
            .iter()
            .zip(row)
            .skip(FIRST_MAGIC_FEATURE)
            .take(11)
        {
            assert!((0.0..=1.0).contains(v), "{name} of {c}: {v}");
        }
    }
    let wizard = index(&spec, "wizard_5") as usize;
    assert_eq!(f(wizard, "caster_level_div_20"), 5.0 / 20.0);
    // Nothing cast yet: every prepared copy left.
    assert_eq!(f(wizard, "spell_uses_left_fraction"), 1.0);
    let sorcerer = index(&spec, "sorcerer_4") as usize;
    assert_eq!(f(sorcerer, "spell_slots_left_fraction"), 1.0);
    let bat = index(&spec, "ogre") as usize;
    assert_eq!(f(bat, "caster_level_div_20"), 0.0);
    assert_eq!(f(bat, "spell_slots_left_fraction"), 0.0);
    for c in &spec.combatants {
        let i = c.index as usize;
        // Reserved summon slots are absent at the start; the deployed are not.
        assert_eq!(
            f(i, "absent"),
            if c.summon_slot { 1.0 } else { 0.0 },
            "{}",
            c.id
        );
    }
}

#[tokio::test]
async fn a_pc_casts_from_its_legal_actions_and_refusals_have_their_codes() {
    let mut t = start().await;
    let spec = spec(&mut t).await;
    let cleric = index(&spec, "cleric_3");
    let drow = index(&spec, "green_hag");
    let cure = spell(&spec, "cleric_3", "cure light wounds").index;
    let mut s = reset(&mut t, 1, false).await;
    let mut cast = false;
    let mut refused = false;
    for _ in 0..80 {
        if s.terminated || s.truncated || (cast && refused) {
            break;
        }
        let d = s.decision.clone().unwrap();
        if d.kind != proto::DecisionKind::TurnAction as i32 {
            s = step(&mut t, &s, vec![kind(proto::ActionKind::Decline)])
                .await
                .unwrap();
            continue;
        }
        let mut actions = vec![];
        if d.actor_index == cleric && !refused {
            refused = true;
            let far = proto::Action {
                kind: proto::ActionKind::CastSpell as i32,
                spell: Some(cure),
                target: Some(drow),
                ..Default::default()
            };
            let unknown = proto::Action {
                spell: Some(99),
                ..far.clone()
            };
            let missing = proto::Action {
                spell: None,
                ..far.clone()
            };
            let r = step(&mut t, &s, vec![far, unknown, missing]).await.unwrap();
            let codes: Vec<i32> = r.results.iter().map(|x| x.code).collect();
            assert_eq!(
                codes,
                vec![
                    proto::ResultCode::OutOfRange as i32,
                    proto::ResultCode::UnknownSpell as i32,
                    proto::ResultCode::MissingSpell as i32
                ],
                "{:?}",
                r.results
            );
            assert_eq!(r.results[1].reason, "unknown_spell");
            assert_eq!(r.results[1].detail, "spell 99");
            s = r;
            continue;
        }
        if !cast {
            if let Some(la) = s.legal_actions.iter().find(|l| {
                l.action.as_ref().is_some_and(|a| {
                    a.kind == proto::ActionKind::CastSpell as i32
                        && a.target.is_some_and(|x| x != d.actor_index)
                })
            }) {
                let a = la.action.clone().unwrap();
                assert!(a.spell.is_some() && !a.defensively && a.metamagic.is_empty());
                // An id of the `cast_spell` block: spell × N + target.
                let (first, _) = block(&spec, "cast_spell");
                let n = spec.combatants.len() as u32;
                assert_eq!(la.id - first, a.spell.unwrap() * n + a.target.unwrap());
                let r = step(&mut t, &s, vec![a]).await.unwrap();
                assert!(r.results[0].ok, "{:?}", r.results);
                assert_eq!(r.results[0].kind, proto::ActionKind::CastSpell as i32);
                cast = true;
                s = r;
                continue;
            }
        }
        actions.push(kind(proto::ActionKind::EndTurn));
        s = step(&mut t, &s, actions).await.unwrap();
    }
    assert!(cast && refused);
}

#[tokio::test]
async fn bad_cast_input_is_invalid_argument_naming_the_field() {
    let mut t = start().await;
    let s = reset(&mut t, 0, false).await;
    let cast = proto::Action {
        kind: proto::ActionKind::CastSpell as i32,
        spell: Some(0),
        target: Some(0),
        ..Default::default()
    };
    let cases = [
        (
            proto::Action {
                metamagic: vec![99],
                ..cast.clone()
            },
            "actions[0].metamagic[0]",
        ),
        (
            proto::Action {
                metamagic: vec![proto::Metamagic::Unspecified as i32],
                ..cast.clone()
            },
            "actions[0].metamagic[0]",
        ),
        (
            proto::Action {
                metamagic: vec![
                    proto::Metamagic::Extend as i32,
                    proto::Metamagic::Extend as i32,
                ],
                ..cast.clone()
            },
            "actions[0].metamagic[1]",
        ),
        (
            proto::Action {
                target: None,
                target_pos: Some(proto::Cell { row: -1, col: 0 }),
                ..cast.clone()
            },
            "actions[0].target_pos",
        ),
        (
            proto::Action {
                spell: Some(0),
                ..kind(proto::ActionKind::Attack)
            },
            "actions[0].spell",
        ),
        (
            proto::Action {
                defensively: true,
                ..kind(proto::ActionKind::EndTurn)
            },
            "actions[0].defensively",
        ),
        (
            proto::Action {
                target_pos: Some(proto::Cell { row: 1, col: 1 }),
                ..kind(proto::ActionKind::Move)
            },
            "actions[0].target_pos",
        ),
        (
            proto::Action {
                metamagic: vec![proto::Metamagic::Empower as i32],
                ..kind(proto::ActionKind::EndTurn)
            },
            "actions[0].metamagic",
        ),
    ];
    for (a, field) in cases {
        let err = step(&mut t, &s, vec![a]).await.unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{field}: {err:?}");
        assert!(err.message().contains(field), "{field}: {}", err.message());
    }
}

#[test]
fn cast_fields_convert_both_ways() {
    for m in Metamagic::ALL {
        assert_eq!(metamagic_from_proto(metamagic_to_proto(m)), Some(m));
    }
    let a = Action {
        spell: Some(3),
        target_pos: Some(Cell::new(2, 7)),
        defensively: true,
        metamagic: vec![Metamagic::Empower, Metamagic::Still],
        ..Action::new(ActionKind::CastSpell)
    };
    let p = action_to_proto(&a);
    assert_eq!(p.kind, proto::ActionKind::CastSpell as i32);
    assert_eq!(p.spell, Some(3));
    assert_eq!(p.target_pos, Some(proto::Cell { row: 2, col: 7 }));
    assert!(p.defensively);
    assert_eq!(
        p.metamagic,
        vec![
            proto::Metamagic::Empower as i32,
            proto::Metamagic::Still as i32
        ]
    );
    let b = Action {
        target: Some(CombatantId(1)),
        ..Action::new(ActionKind::ActivateMetamagic)
    };
    assert_eq!(
        action_to_proto(&b).kind,
        proto::ActionKind::ActivateMetamagic as i32
    );
}
