//! Statistical tests in closed form (3σ bands, σ = √(p(1−p)/n)), as the seed does: a mirror
//! matchup is fair, and the natural 1 / natural 20 rules give their exact rates.

mod common;

use pf1e_engine::content::combatant::CombatantSpec;
use pf1e_engine::content::map::MapSpec;
use pf1e_engine::episode::{Controller, Episode, Status};
use pf1e_engine::{Action, ActionKind, CombatantId, Encounter, RulesOptions};
use pf1e_env_server::montecarlo::run_batch;
use std::sync::Arc;

fn within_3_sigma(count: u64, n: u64, p: f64) -> bool {
    let sigma = (p * (1.0 - p) / n as f64).sqrt();
    let observed = count as f64 / n as f64;
    (observed - p).abs() <= 3.0 * sigma
}

/// Interpreting the report (seed): identical combatants on mirrored zones win about half the
/// fights. 2,000 runs each; draws counted as half a win for each side.
#[test]
fn mirror_matchups_are_fair_within_3_sigma() {
    for (side_w, side_e) in [
        (&["orc"][..], &["orc"][..]),
        (&["wolf", "wolf"][..], &["wolf", "wolf"][..]),
    ] {
        let enc = common::encounter(
            "mirror_duel",
            &[("west", side_w), ("east", side_e)],
            RulesOptions::default(),
        );
        let r = run_batch(enc, 2000, 1, None);
        let west = r.sides[0].wins.count;
        let draws = r.draws.count;
        // Count a draw as half a win: 2 × wins + draws out of 2n.
        assert!(
            within_3_sigma(2 * west + draws, 2 * 2000, 0.5),
            "{side_w:?}: west won {west} of 2000 (draws {draws})"
        );
        assert_eq!(r.sides[0].wins.count + r.sides[1].wins.count + draws, 2000);
    }
}

const ROOM: &str = "name: room\nterrain: |\n  #####\n  #...#\n  #####\nlegend:\n  \"#\": { type: wall, move_cost: null, blocks_los: true }\n  \".\": { type: floor, move_cost: 1 }\nzones: |\n  .....\n  .AB..\n  .....\ndeployment:\n  a: A\n  b: B\n";

fn fighter(name: &str, attack_bonus: i32, ac: i32, hp: i32) -> CombatantSpec {
    let json = format!(
        r#"{{"name": "{name}", "size": "Medium", "source": "test", "abilities": {{"str_score": 10, "dex_score": 10, "con_score": 10, "int_score": 10, "wis_score": 10, "cha_score": 10}},
        "hp_max": {hp}, "ac": {{"total": {ac}, "touch": {ac}, "flat_footed": {ac}}}, "bab": 0, "initiative_mod": 0,
        "speed_land_ft": 30, "saves": {{"fort": 0, "ref": 0, "will": 0}},
        "attacks": [{{"name": "club", "kind": "melee", "attack_bonus": {attack_bonus}, "damage": [{{"formula": "1", "types": ["bludgeoning"]}}], "crit_range": 20, "crit_mult": 2}}]}}"#
    );
    CombatantSpec::from_json_str(&json, "inline").unwrap()
}

/// Count hits of an externally controlled attacker making one attack per turn.
fn hit_rate(attack_bonus: i32, ac: i32, episodes: u64) -> (u64, u64) {
    let enc = Arc::new(
        Encounter::build(
            MapSpec::from_yaml_str(ROOM, "room").unwrap(),
            vec![
                (
                    "a".into(),
                    vec![(
                        "attacker".into(),
                        fighter("attacker", attack_bonus, 10, 1000),
                    )],
                ),
                (
                    "b".into(),
                    vec![("target".into(), fighter("target", -100, ac, 100_000))],
                ),
            ],
            RulesOptions {
                round_cap: 100,
                simple_monster_death: false,
            },
        )
        .unwrap(),
    );
    let (mut attacks, mut hits) = (0, 0);
    for seed in 0..episodes {
        let mut ep = Episode::new(enc.clone(), seed, &[Controller::External]);
        while let Status::Decision(_) = ep.advance() {
            let mut a = Action::new(ActionKind::Attack);
            a.target = Some(CombatantId(1));
            a.weapon = Some(0);
            ep.submit(
                ep.decision().unwrap().decision_id,
                &[a, Action::new(ActionKind::EndTurn)],
            )
            .unwrap();
        }
        attacks += u64::from(ep.attrition()[0].attacks);
        hits += u64::from(ep.attrition()[0].hits);
    }
    (hits, attacks)
}

/// CRB — Combat: Attack Roll, "a natural 20 is always a hit": +0 against AC 100 hits 5 %.
#[test]
fn natural_20_always_hits_5_percent() {
    let (hits, n) = hit_rate(0, 100, 50);
    assert_eq!(n, 5000, "one attack per round, 100 rounds, 50 episodes");
    assert!(within_3_sigma(hits, n, 0.05), "{hits}/{n}");
}

/// CRB — Combat: Attack Roll, "a natural 1 is always a miss": +100 against AC 10 hits 95 %.
#[test]
fn natural_1_always_misses_95_percent_hits() {
    let (hits, n) = hit_rate(100, 10, 50);
    assert_eq!(n, 5000, "one attack per round, 100 rounds, 50 episodes");
    assert!(within_3_sigma(hits, n, 0.95), "{hits}/{n}");
}

/// A plain roll: +5 against AC 15 hits on 10–20, 55 %.
#[test]
fn plain_attack_roll_rate() {
    let (hits, n) = hit_rate(5, 15, 50);
    assert!(within_3_sigma(hits, n, 0.55), "{hits}/{n}");
}
