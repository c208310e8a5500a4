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
