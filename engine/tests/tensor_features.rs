//! The tensor observation's appended feature groups (issue 14): the viewer's relations to
//! each combatant (`rel_`, the JSON observation's pairs), the conditions (`cond_`), the
//! viewer's budget and decision kind, the round, the weapon slots — and the exact bounds of
//! every feature and plane ([`FEATURE_BOUNDS`], [`plane_bounds`]).

mod common;

#[path = "../examples/common/bundled.rs"]
#[allow(dead_code)]
mod bundled;

use common::*;
use pf1e_engine::effects::conditions::Condition;
use pf1e_engine::observe::tensor::*;
use pf1e_engine::{Action, ActionKind, CombatantId, Controller, Episode, Status};
use serde_json::json;

fn k(name: &str) -> usize {
    FEATURE_NAMES
        .iter()
        .position(|n| *n == name)
        .unwrap_or_else(|| panic!("no feature {name}"))
}

fn feat(t: &TensorObservation, row: CombatantId, name: &str) -> f32 {
    t.features[row.0 as usize * FEATURES + k(name)]
}

/// The names are unique, the group constants point at them, the condition names are
/// `cond_` + every condition in `Condition::ALL` order, and the 61 features before issue 14
/// did not move.
#[test]
fn feature_names_and_groups_are_laid_out_as_documented() {
    assert_eq!(FEATURES, 155);
    let mut seen = std::collections::HashSet::new();
    assert!(
        FEATURE_NAMES.iter().all(|n| seen.insert(*n)),
        "duplicate name"
    );
    assert_eq!(FEATURE_NAMES[0], "present");
    assert_eq!(FEATURE_NAMES[FIRST_MAGIC_FEATURE], "caster_level_div_20");
    assert_eq!(FEATURE_NAMES[60], "spell_resistance_div_40");
    assert_eq!(FEATURE_NAMES[FIRST_RELATION_FEATURE], "rel_valid");
    assert_eq!(FEATURE_NAMES[FIRST_CONDITION_FEATURE - 1], "rel_i_threaten");
    for (i, c) in Condition::ALL.iter().enumerate() {
        assert_eq!(
            FEATURE_NAMES[FIRST_CONDITION_FEATURE + i],
            format!("cond_{}", c.name())
        );
    }
    assert_eq!(FEATURE_NAMES[FIRST_BUDGET_FEATURE], "budget_standard");
    assert_eq!(FEATURE_NAMES[FIRST_ROUND_FEATURE - 1], "decision_reaction");
    assert_eq!(FEATURE_NAMES[FIRST_ROUND_FEATURE], "round_fraction");
    for s in 0..WEAPON_SLOTS {
        let w = FIRST_WEAPON_FEATURE + s * WEAPON_FEATURES;
        assert_eq!(FEATURE_NAMES[w], format!("weapon{s}_present"));
        assert_eq!(
            FEATURE_NAMES[w + WEAPON_FEATURES - 1],
            format!("weapon{s}_average_damage_div_30")
        );
    }
    assert_eq!(
        FIRST_WEAPON_FEATURE + WEAPON_SLOTS * WEAPON_FEATURES,
        FEATURES
    );
    for (i, (lo, hi)) in FEATURE_BOUNDS.iter().enumerate() {
        assert!(lo < hi, "{}: [{lo}, {hi}]", FEATURE_NAMES[i]);
    }
}

/// Every feature and plane value is finite and within its bounds, and the relation features
/// are exactly the JSON observation's pairs, at every decision of random masked games of the
/// bundled encounters (the sample arena, the casters' scenario: ranged weapons, reach,
/// spells, summons).
#[test]
fn random_masked_games_stay_within_bounds_and_relations_equal_the_json_pairs() {
    let mut checked = 0;
    for casters in [false, true] {
        let enc = bundled::encounter(casters);
        let planes = plane_bounds(&enc);
        // No plane has low = high (Gymnasium's checker warns about it; the flat sample arena
        // has no elevation, yet its elevation plane is [0, 1]).
        for (k, (lo, hi)) in planes.iter().enumerate() {
            assert!(lo < hi, "plane {k} bounds [{lo}, {hi}]");
        }
        let n = enc.combatants.len();
        let seeds = if casters { 3 } else { 12 };
        for seed in 0..seeds {
            let mut ep = Episode::new(enc.clone(), seed, &vec![Controller::External; n]);
            let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let mut steps = 0;
            while let Status::Decision(d) = ep.advance() {
                let t = ep.observation_tensor(d.actor);
                check(&ep, &t, d.actor, &planes);
                checked += 1;
                let mask = ep.action_mask();
                let legal: Vec<u32> = (0..mask.len() as u32)
                    .filter(|&i| mask[i as usize] == 1)
                    .collect();
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let id = legal[(rng % legal.len() as u64) as usize];
                let a = ep.action_from_id(id).unwrap();
                ep.submit(d.decision_id, &[a]).unwrap();
                steps += 1;
                if steps > 400 {
                    break;
                }
            }
        }
    }
    assert!(checked > 200, "only {checked} decisions");
}

fn check(ep: &Episode, t: &TensorObservation, viewer: CombatantId, planes: &[(f32, f32)]) {
    let cells = t.plane_shape[1] * t.plane_shape[2];
    for (i, v) in t.planes.iter().enumerate() {
        let (lo, hi) = planes[i / cells];
        assert!(
            v.is_finite() && (lo..=hi).contains(v),
            "plane {} value {v}",
            PLANE_NAMES[i / cells]
        );
    }
    for (i, v) in t.features.iter().enumerate() {
        let (lo, hi) = FEATURE_BOUNDS[i % FEATURES];
        assert!(
            v.is_finite() && (lo..=hi).contains(v),
            "row {} feature {} = {v}",
            i / FEATURES,
            FEATURE_NAMES[i % FEATURES]
        );
    }
    let obs = ep.observation(Some(viewer));
    let b = |v: bool| f32::from(u8::from(v));
    for c in (0..ep.encounter().combatants.len() as u16).map(CombatantId) {
        let row = &t.features[c.0 as usize * FEATURES..][..FEATURES];
        let rel = &row[FIRST_RELATION_FEATURE..FIRST_CONDITION_FEATURE];
        let co = &obs.combatants[c.0 as usize];
        if c == viewer || co.dead || co.absent {
            assert!(rel.iter().all(|&v| v == 0.0), "rel of {c:?}: {rel:?}");
            continue;
        }
        let p = obs.pairs.iter().find(|p| p.target_index == c.0).unwrap();
        let want = [
            1.0,
            b(co.side != obs.combatants[viewer.0 as usize].side),
            (p.distance_ft as f32 / 120.0).clamp(0.0, 1.0),
            b(p.has_line_of_effect),
            b(p.weapon_for.is_some()),
            (-p.range_penalty as f32 / 10.0).clamp(0.0, 1.0),
            (p.cover_bonus as f32 / 8.0).clamp(0.0, 1.0),
            b(p.flanking),
            b(p.can_charge),
            b(p.can_step5_to_attack),
            b(p.movement_cost_ft.is_some()),
            p.movement_cost_ft
                .map_or(1.0, |ft| (ft as f32 / 120.0).clamp(0.0, 1.0)),
            b(p.target_threatens_me),
        ];
        assert_eq!(&rel[..13], &want[..], "relation of {viewer:?} to {c:?}");
        // Conditions: the JSON's condition names (less its pseudo-conditions).
        for (i, cond) in Condition::ALL.iter().enumerate() {
            assert_eq!(
                row[FIRST_CONDITION_FEATURE + i],
                b(co.conditions.contains_key(cond.name())),
                "{} of {c:?}",
                cond.name()
            );
        }
    }
    // Budget: the JSON's, in the viewer's row only.
    let me = &t.features[viewer.0 as usize * FEATURES..][..FEATURES];
    let bud = obs.budget.unwrap();
    assert_eq!(
        &me[FIRST_BUDGET_FEATURE..FIRST_BUDGET_FEATURE + 5],
        &[
            b(bud.standard),
            b(bud.move_action),
            b(bud.swift),
            b(bud.full_round),
            b(bud.five_foot_step)
        ][..]
    );
    for c in (0..ep.encounter().combatants.len() as u16)
        .map(CombatantId)
        .filter(|&c| c != viewer)
    {
        let row = &t.features[c.0 as usize * FEATURES..][..FEATURES];
        assert!(row[FIRST_BUDGET_FEATURE..FIRST_ROUND_FEATURE]
            .iter()
            .all(|&v| v == 0.0));
    }
}

/// Two allies on opposite sides of an enemy: each flanks it and threatens it, it threatens
/// both, distance 5 ft, no cover; a far ally is not an enemy and is out of reach.
#[test]
fn relation_features_of_a_flanking_pair() {
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", creature("hero"), (2, 2)),
            unit("a", "friend", creature("friend"), (2, 4)),
            unit("b", "dummy", creature("dummy"), (2, 3)),
        ],
    );
    let mut ep = episode(enc, &[20, 15, 1]);
    turn_of(&mut ep, "hero");
    let (h, f, d) = (cid(&ep, "hero"), cid(&ep, "friend"), cid(&ep, "dummy"));
    let t = ep.observation_tensor(h);
    assert_eq!(feat(&t, d, "rel_valid"), 1.0);
    assert_eq!(feat(&t, d, "rel_enemy"), 1.0);
    assert_eq!(feat(&t, d, "rel_flanking"), 1.0);
    assert_eq!(feat(&t, d, "rel_can_attack_now"), 1.0);
    assert_eq!(feat(&t, d, "rel_i_threaten"), 1.0);
    assert_eq!(feat(&t, d, "rel_threatens_me"), 1.0);
    assert_eq!(feat(&t, d, "rel_distance_div_120"), 5.0 / 120.0);
    assert_eq!(feat(&t, d, "rel_move_cost_to_attack_div_120"), 0.0);
    assert_eq!(feat(&t, d, "rel_reachable_to_attack"), 1.0);
    assert_eq!(feat(&t, d, "rel_cover_bonus_div_8"), 0.0);
    assert_eq!(feat(&t, f, "rel_enemy"), 0.0);
    assert_eq!(feat(&t, f, "rel_can_charge"), 0.0);
    assert_eq!(feat(&t, f, "rel_distance_div_120"), 10.0 / 120.0);
    // The viewer's own row: no relation.
    assert_eq!(feat(&t, h, "rel_valid"), 0.0);
    // Turn decision, nothing spent yet.
    for n in [
        "budget_standard",
        "budget_move",
        "budget_swift",
        "budget_full_round",
        "budget_five_foot_step",
        "budget_immediate",
        "decision_turn_action",
    ] {
        assert_eq!(feat(&t, h, n), 1.0, "{n}");
    }
    assert_eq!(feat(&t, h, "decision_reaction"), 0.0);
    assert_eq!(feat(&t, d, "budget_standard"), 0.0);
}

/// A move action spends the full-round action and the 5-foot step; a move is still possible
/// (the standard action traded for one: CRB — Actions in Combat); the round features read
/// round 1 of a cap of 100 in every row.
#[test]
fn budget_after_a_move_action_and_the_round() {
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", creature("hero"), (2, 1)),
            unit("b", "dummy", creature("dummy"), (2, 8)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "hero");
    let (h, d) = (cid(&ep, "hero"), cid(&ep, "dummy"));
    assert_all_ok(&submit(&mut ep, &[move_to(2, 3)]));
    let t = ep.observation_tensor(h);
    assert_eq!(feat(&t, h, "budget_standard"), 1.0);
    assert_eq!(feat(&t, h, "budget_move"), 1.0);
    assert_eq!(feat(&t, h, "budget_full_round"), 0.0);
    assert_eq!(feat(&t, h, "budget_five_foot_step"), 0.0);
    assert_eq!(ep.round(), 1);
    for c in [h, d] {
        assert_eq!(feat(&t, c, "round_fraction"), 0.01);
        assert_eq!(feat(&t, c, "rounds_left_fraction"), 0.99);
        assert_eq!(feat(&t, c, "surprise_round"), 0.0);
    }
    // 25 ft from the dummy now: a charge is possible, no weapon reaches.
    assert_eq!(feat(&t, d, "rel_distance_div_120"), 25.0 / 120.0);
    assert_eq!(feat(&t, d, "rel_can_attack_now"), 0.0);
    assert_eq!(feat(&t, d, "rel_i_threaten"), 0.0);
    assert_eq!(feat(&t, d, "rel_move_cost_to_attack_div_120"), 20.0 / 120.0);
}

/// A prone creature's row has `cond_prone` (and the old `prone` feature) set, nothing else.
#[test]
fn conditions_multi_hot_reads_a_prone_creature() {
    let hero = set(creature("hero"), "conditions", json!([{"name": "prone"}]));
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "dummy", creature("dummy"), (2, 6)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "hero");
    let (h, d) = (cid(&ep, "hero"), cid(&ep, "dummy"));
    let t = ep.observation_tensor(h);
    assert_eq!(feat(&t, h, "cond_prone"), 1.0);
    assert_eq!(feat(&t, h, "prone"), 1.0);
    let on: Vec<&str> = Condition::ALL
        .iter()
        .filter(|c| feat(&t, h, &format!("cond_{}", c.name())) == 1.0)
        .map(|c| c.name())
        .collect();
    assert_eq!(on, ["prone"]);
    assert_eq!(feat(&t, d, "cond_prone"), 0.0);
}

/// A longbow with 4 arrows: slot 0 ranged with its range increment; after one shot 3/4 left;
/// slot 1 (a dagger) melee with 5 ft reach; slots 2 and 3 empty.
#[test]
fn weapon_slots_read_range_reach_and_ammunition() {
    let bow = set(
        ranged("longbow", 30, "1d8", "piercing", 100),
        "ammunition",
        json!(4),
    );
    let archer = set(
        creature("archer"),
        "attacks",
        json!([bow, melee("dagger", 3, "1d4+1", "piercing")]),
    );
    let enc = encounter(
        &room(3, 12),
        vec![
            unit("a", "archer", archer, (2, 1)),
            unit("b", "dummy", creature("dummy"), (2, 10)),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 20, 1, 1, 1]);
    turn_of(&mut ep, "archer");
    let (a, d) = (cid(&ep, "archer"), cid(&ep, "dummy"));
    let t = ep.observation_tensor(a);
    assert_eq!(feat(&t, a, "weapon0_present"), 1.0);
    assert_eq!(feat(&t, a, "weapon0_ranged"), 1.0);
    assert_eq!(feat(&t, a, "weapon0_reach_div_30"), 0.0);
    assert_eq!(
        feat(&t, a, "weapon0_range_increment_div_120"),
        100.0 / 120.0
    );
    assert_eq!(feat(&t, a, "weapon0_ammunition_left_fraction"), 1.0);
    assert_eq!(feat(&t, a, "weapon0_usable"), 1.0);
    assert_eq!(feat(&t, a, "weapon0_attack_bonus_div_30"), 1.0);
    assert_eq!(feat(&t, a, "weapon0_average_damage_div_30"), 4.5 / 30.0);
    assert_eq!(feat(&t, a, "weapon1_ranged"), 0.0);
    assert_eq!(feat(&t, a, "weapon1_reach_div_30"), 5.0 / 30.0);
    assert_eq!(feat(&t, a, "weapon1_ammunition_left_fraction"), 1.0);
    assert_eq!(feat(&t, a, "weapon1_average_damage_div_30"), 3.5 / 30.0);
    assert_eq!(feat(&t, a, "weapon2_present"), 0.0);
    assert_eq!(feat(&t, a, "weapon3_present"), 0.0);
    // The dummy is 45 ft away: within the first increment, no penalty; the bow attacks.
    assert_eq!(feat(&t, d, "rel_can_attack_now"), 1.0);
    assert_eq!(feat(&t, d, "rel_range_penalty_div_10"), 0.0);
    let mut shot = Action::new(ActionKind::Attack);
    shot.target = Some(d);
    shot.weapon = Some(0);
    submit(&mut ep, &[shot]);
    let t = ep.observation_tensor(a);
    assert_eq!(feat(&t, a, "weapon0_ammunition_left_fraction"), 0.75);
}
