//! Run (CRB — Actions in Combat: Run; Feats: Run): full-round, 4× speed (5× with Run) in a
//! straight line, no difficult terrain, Dex bonus to AC lost until the next turn unless Run;
//! after Con-score rounds a DC 10 (+1 per check) Constitution check, failure stops.

mod common;

use common::*;
use pf1e_engine::{ActionKind, Episode};
use serde_json::{json, Value};

fn runner(feats: Value) -> Value {
    let mut v = set(creature("hero"), "feats", feats);
    v["abilities"]["dex_score"] = json!(14);
    v["ac"] = json!({"total": 12, "touch": 12, "flat_footed": 10});
    v
}

fn field(hero: Value, terrain: &[String], faces: &[u32]) -> Episode {
    let enc = encounter(
        terrain,
        vec![
            unit("a", "hero", hero, (1, 1)),
            unit("b", "dummy", creature("dummy"), (3, 1)),
        ],
    );
    let mut ep = episode(enc, faces);
    turn_of(&mut ep, "hero");
    ep
}

fn reason(ep: &Episode, r: i32, c: i32) -> Option<String> {
    ep.validate(&to(ActionKind::Run, r, c))
        .unwrap()
        .code()
        .map(str::to_string)
}

#[test]
fn crb_run_four_times_speed_straight_line_loses_dex() {
    let mut ep = field(runner(json!([])), &room(3, 30), &[20, 1]);
    assert_eq!(reason(&ep, 1, 25), None, "24 squares = 4 × 30 ft");
    assert_eq!(
        reason(&ep, 1, 26).as_deref(),
        Some("unreachable_destination")
    );
    assert!(ep
        .legal_actions()
        .iter()
        .any(|l| l.action == to(ActionKind::Run, 1, 25)));
    assert_all_ok(&submit(&mut ep, &[to(ActionKind::Run, 1, 25)]));
    let h = cid(&ep, "hero");
    assert_eq!(ep.position(h), pf1e_engine::Cell::new(1, 25));
    let obs = ep.observation(Some(h));
    assert!(obs.combatants[0].running && obs.combatants[0].denied_dex_to_ac);
}

#[test]
fn crb_run_feat_five_times_speed_keeps_dex() {
    let mut ep = field(runner(json!(["Run"])), &room(3, 32), &[20, 1]);
    assert_eq!(reason(&ep, 1, 31), None, "30 squares = 5 × 30 ft");
    submit(&mut ep, &[to(ActionKind::Run, 1, 31)]);
    let h = cid(&ep, "hero");
    assert!(!ep.observation(Some(h)).combatants[0].denied_dex_to_ac);
}

#[test]
fn crb_cannot_run_across_difficult_terrain_or_around_corners() {
    let mut terrain = room(3, 12);
    terrain[1].replace_range(6..7, "T");
    let ep = field(runner(json!([])), &terrain, &[20, 1]);
    assert_eq!(
        reason(&ep, 1, 10).as_deref(),
        Some("unreachable_destination")
    );
    assert_eq!(reason(&ep, 1, 5), None);
}

#[test]
fn crb_run_endurance_con_check_after_con_rounds() {
    // Con 1: the second consecutive run needs a DC 10 Con check (d20 5 − 5 = 0 fails): it
    // stops, and cannot run while resting.
    let mut hero = runner(json!([]));
    hero["abilities"]["con_score"] = json!(1);
    let mut ep = field(hero, &room(3, 30), &[20, 1, 5]);
    submit(&mut ep, &[to(ActionKind::Run, 1, 10)]);
    turn_of(&mut ep, "hero");
    submit(&mut ep, &[to(ActionKind::Run, 1, 20)]);
    assert!(
        log(&ep).contains("run stopped: Con check d20=5-5=0 vs DC 10 fails"),
        "{}",
        log(&ep)
    );
    let h = cid(&ep, "hero");
    assert_eq!(ep.position(h), pf1e_engine::Cell::new(1, 10));
    turn_of(&mut ep, "hero");
    assert_eq!(reason(&ep, 1, 20).as_deref(), Some("cannot_run"));
}

fn run_toward(t: pf1e_engine::CombatantId) -> pf1e_engine::Action {
    pf1e_engine::Action {
        target: Some(t),
        ..pf1e_engine::Action::new(ActionKind::Run)
    }
}

#[test]
fn seed_u5e_run_toward_a_target_runs_the_straight_line_and_stops_adjacent() {
    // CRB — Run: a straight line; the seed's U5e: toward the target, stopping adjacent.
    let enc = encounter(
        &room(3, 30),
        vec![
            unit("a", "hero", runner(json!([])), (2, 1)),
            unit("b", "dummy", creature("dummy"), (2, 14)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "hero");
    let (h, d) = (cid(&ep, "hero"), cid(&ep, "dummy"));
    assert!(ep.legal_actions().iter().any(|l| l.action == run_toward(d)));
    assert_all_ok(&submit(&mut ep, &[run_toward(d)]));
    assert_eq!(ep.position(h), pf1e_engine::Cell::new(2, 13));
    assert!(ep.observation(Some(h)).combatants[h.0 as usize].running);
}

#[test]
fn seed_u5e_run_toward_a_far_target_stops_at_the_run_distance() {
    // Speed 10 ft: 4 × 10 = 40 ft = 8 squares along the line.
    let slow = set(runner(json!([])), "speed_land_ft", json!(10));
    let enc = encounter(
        &room(3, 30),
        vec![
            unit("a", "hero", slow, (2, 1)),
            unit("b", "dummy", creature("dummy"), (2, 20)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "hero");
    let (h, d) = (cid(&ep, "hero"), cid(&ep, "dummy"));
    assert_all_ok(&submit(&mut ep, &[run_toward(d)]));
    assert_eq!(ep.position(h), pf1e_engine::Cell::new(2, 9));
}

#[test]
fn run_toward_refusals() {
    let ep = field(runner(json!([])), &room(3, 30), &[20, 1]);
    let (h, d) = (cid(&ep, "hero"), cid(&ep, "dummy"));
    let code = |a: &pf1e_engine::Action| ep.validate(a).unwrap().code().map(str::to_string);
    // Both a target and a destination.
    let mut both = run_toward(d);
    both.destination = Some(pf1e_engine::Cell::new(1, 5));
    assert_eq!(code(&both).as_deref(), Some("invalid_destination"));
    assert_eq!(code(&run_toward(h)).as_deref(), Some("invalid_target"));
    // The dummy at (3,1) is already adjacent... not: (1,1) and (3,1) are two apart; one
    // square is run.
    assert_eq!(code(&run_toward(d)), None);
    let enc = encounter(
        &room(3, 30),
        vec![
            unit("a", "hero", runner(json!([])), (2, 1)),
            unit("b", "dummy", creature("dummy"), (2, 2)),
        ],
    );
    let mut ep2 = episode(enc, &[20, 1]);
    turn_of(&mut ep2, "hero");
    let d2 = cid(&ep2, "dummy");
    assert_eq!(
        ep2.validate(&run_toward(d2)).unwrap().code(),
        Some("unreachable_destination")
    );
}
