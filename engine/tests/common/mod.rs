//! Shared builders for the rules tests: inline maps, inline combatants, fully scripted episodes.
//!
//! Every combatant of a test episode is `Controller::External`, so no default-policy turn ever
//! consumes a scripted die behind the test's back: each test submits every action and scripts
//! every d20/damage die, then checks that the script was consumed exactly.
#![allow(dead_code)]

use pf1e_engine::episode::LogLine;
use pf1e_engine::{
    Action, ActionKind, ActionResult, Cell, CombatantId, CombatantSpec, Controller, Decision,
    DecisionKind, DiceSource, Encounter, Episode, MapSpec, RulesOptions, ScriptedDice, Status,
};
use serde_json::{json, Value};
use std::sync::Arc;

/// A melee weapon: `name`, attack bonus, damage formula and damage type.
pub fn melee(name: &str, bonus: i32, formula: &str, ty: &str) -> Value {
    json!({
        "name": name,
        "kind": "melee",
        "attack_bonus": bonus,
        "damage": [{ "formula": formula, "types": [ty] }]
    })
}

/// A ranged weapon with a range increment (feet).
pub fn ranged(name: &str, bonus: i32, formula: &str, ty: &str, inc: i32) -> Value {
    json!({
        "name": name,
        "kind": "ranged",
        "attack_bonus": bonus,
        "range_increment_ft": inc,
        "damage": [{ "formula": formula, "types": [ty] }]
    })
}

/// Set (or replace) `key` of a JSON object.
pub fn set(mut v: Value, key: &str, val: Value) -> Value {
    v.as_object_mut()
        .expect("a JSON object")
        .insert(key.to_string(), val);
    v
}

/// A plain Medium creature: AC 10 (touch 10, flat-footed 10), 30 hp, Con 10, BAB +1,
/// initiative +0, speed 30 ft, one longsword (+5, 1d8 slashing).
pub fn creature(name: &str) -> Value {
    json!({
        "name": name,
        "size": "Medium",
        "source": "pf1e-gym test fixture",
        "abilities": {
            "str_score": 10, "dex_score": 10, "con_score": 10,
            "int_score": 10, "wis_score": 10, "cha_score": 10
        },
        "hp_max": 30,
        "ac": { "total": 10, "touch": 10, "flat_footed": 10 },
        "bab": 1,
        "initiative_mod": 0,
        "speed_land_ft": 30,
        "saves": { "fort": 0, "ref": 0, "will": 0 },
        "attacks": [melee("longsword", 5, "1d8", "slashing")]
    })
}

/// Parse a combatant JSON value; its spells resolve against [`registry`].
pub fn spec(v: &Value) -> CombatantSpec {
    let mut s =
        CombatantSpec::from_json_str(&v.to_string(), "inline").unwrap_or_else(|e| panic!("{e}"));
    if s.has_spells() {
        s.resolve_spells(&registry(), "inline")
            .unwrap_or_else(|e| panic!("{e}"));
    }
    s
}

/// The spells of `data/spells/` plus the test spells of [`TEST_SPELLS`].
pub fn registry() -> pf1e_engine::content::spells::SpellRegistry {
    use pf1e_engine::content::spells::{SpellRegistry, SpellSpec};
    let data = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let mut reg = SpellRegistry::for_data_dir(&data).unwrap_or_else(|e| panic!("{e}"));
    for (i, s) in TEST_SPELLS.iter().enumerate() {
        let spell = SpellSpec::from_json_str(s, &format!("TEST_SPELLS[{i}]"))
            .unwrap_or_else(|e| panic!("{e}"));
        reg.insert(spell);
    }
    reg
}

/// Spells of the tests (not SRD data): shapes the rules tests need whatever `data/spells`
/// holds.
pub const TEST_SPELLS: &[&str] = &[
    r#"{"name": "test long spell", "source": "PF1e SRD test fixture", "school": "universal",
        "levels": {"cleric": 1}, "cast_time": "1 minute", "range": "personal",
        "targeting": "caster", "effects": [{"kind": "heal", "dice": "1"}], "summary": "t"}"#,
    r#"{"name": "test shock", "source": "PF1e SRD test fixture", "school": "evocation",
        "levels": {"sorcerer/wizard": 1}, "range": "touch", "targeting": "creature",
        "attack": "melee_touch", "effects": [{"kind": "damage", "dice": "1d6",
        "dice_scaling": {"amount": 1, "per_levels": 1, "from_level": 1, "max": 4},
        "types": ["electricity"]}], "summary": "t"}"#,
    r#"{"name": "test ray", "source": "PF1e SRD test fixture", "school": "evocation",
        "levels": {"sorcerer/wizard": 0}, "range": "close", "targeting": "creature",
        "attack": "ranged_touch", "effects": [{"kind": "damage", "dice": "1d3",
        "types": ["cold"]}], "summary": "t"}"#,
    r#"{"name": "test slumber", "source": "PF1e SRD test fixture", "school": "enchantment",
        "descriptors": ["mind-affecting"], "levels": {"sorcerer/wizard": 1},
        "cast_time": "1 round", "range": "medium", "targeting": "creature",
        "save": {"kind": "will", "on_success": "negates"},
        "effects": [{"kind": "condition", "condition": "asleep", "duration": {"rounds": 5}}],
        "summary": "t"}"#,
    r#"{"name": "test images", "source": "PF1e SRD test fixture", "school": "illusion",
        "levels": {"sorcerer/wizard": 2}, "range": "personal", "targeting": "caster",
        "duration": {"per_level": 1},
        "effects": [{"kind": "mirror_image", "dice": "1d4",
        "scaling": {"amount": 1, "per_levels": 3}, "max": 8}], "summary": "t"}"#,
];

/// A caster: [`creature`] with Int 16 (+3), caster level `cl`, `spells` (names) from
/// spontaneous slots `slots` (`{"1": 2}`).
pub fn caster(name: &str, cl: i32, spells: &[&str], slots: Value) -> Value {
    let mut v = creature(name);
    v["abilities"]["int_score"] = json!(16);
    v["level"] = json!(cl);
    v["caster_level"] = json!(cl);
    v["caster_class"] = json!("wizard");
    v["casting_ability"] = json!("int");
    v["spells"] = json!(spells
        .iter()
        .map(|s| json!({"name": s}))
        .collect::<Vec<_>>());
    v["spell_slots"] = slots;
    v
}

/// One combatant to place: side, base id, stat block, exact starting square.
pub struct Unit {
    pub side: &'static str,
    pub id: &'static str,
    pub spec: Value,
    pub at: (i32, i32),
}

pub fn unit(side: &'static str, id: &'static str, spec: Value, at: (i32, i32)) -> Unit {
    Unit { side, id, spec, at }
}

/// An open room of `rows` × `cols` floor squares surrounded by walls (so the floor squares are
/// rows 1..=rows, cols 1..=cols).
pub fn room(rows: usize, cols: usize) -> Vec<String> {
    let wall = "#".repeat(cols + 2);
    let mut out = vec![wall.clone()];
    for _ in 0..rows {
        out.push(format!("#{}#", ".".repeat(cols)));
    }
    out.push(wall);
    out
}

/// Build an encounter on `terrain` (legend: `#` wall, `.` floor, `T` difficult terrain of
/// move cost 2, `c` low wall granting standard cover), with an optional elevation layer.
/// Units of one side must be listed together and in (row, col) order of their squares; the
/// side order is the order of first appearance. Panics if a unit is not placed where asked.
pub fn encounter_with(
    terrain: &[String],
    elevation: Option<&[&str]>,
    units: Vec<Unit>,
    options: RulesOptions,
) -> Arc<Encounter> {
    let rows = terrain.len();
    let cols = terrain[0].len();
    let mut sides: Vec<&'static str> = Vec::new();
    for u in &units {
        if !sides.contains(&u.side) {
            sides.push(u.side);
        }
    }
    let mut zones = vec![vec!['.'; cols]; rows];
    for u in &units {
        let letter = (b'A' + sides.iter().position(|s| *s == u.side).unwrap() as u8) as char;
        // The unit's whole footprint is zone (a Large unit needs 2×2 zone squares).
        let side = spec(&u.spec).size.footprint_side() as usize;
        let (r0, c0) = (u.at.0 as usize, u.at.1 as usize);
        for row in zones.iter_mut().skip(r0).take(side) {
            for cell in row.iter_mut().skip(c0).take(side) {
                *cell = letter;
            }
        }
    }
    let block = |lines: &[String]| -> String {
        lines.iter().map(|l| format!("  {l}\n")).collect::<String>()
    };
    let zone_lines: Vec<String> = zones.iter().map(|r| r.iter().collect()).collect();
    let mut yaml = String::from("name: \"test map\"\nsquare_size_ft: 5\nterrain: |\n");
    yaml.push_str(&block(terrain));
    yaml.push_str(
        "legend:\n  \"#\": { type: wall, move_cost: null, blocks_los: true }\n  \".\": { type: floor, move_cost: 1 }\n  \"T\": { type: rubble, move_cost: 2 }\n  \"c\": { type: low_wall, move_cost: null, cover: true }\n",
    );
    if let Some(e) = elevation {
        let lines: Vec<String> = e.iter().map(|s| s.to_string()).collect();
        yaml.push_str("elevation: |\n");
        yaml.push_str(&block(&lines));
    }
    yaml.push_str("zones: |\n");
    yaml.push_str(&block(&zone_lines));
    yaml.push_str("deployment:\n");
    for (i, s) in sides.iter().enumerate() {
        yaml.push_str(&format!("  {s}: {}\n", (b'A' + i as u8) as char));
    }
    let map = MapSpec::from_yaml_str(&yaml, "inline").unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    let side_lists: Vec<(String, Vec<(String, CombatantSpec)>)> = sides
        .iter()
        .map(|s| {
            (
                s.to_string(),
                units
                    .iter()
                    .filter(|u| u.side == *s)
                    .map(|u| (u.id.to_string(), spec(&u.spec)))
                    .collect(),
            )
        })
        .collect();
    let enc = Encounter::build(map, side_lists, options).unwrap_or_else(|e| panic!("{e}"));
    for u in &units {
        let p = enc
            .combatants
            .iter()
            .find(|p| p.id == u.id)
            .unwrap_or_else(|| panic!("no combatant {}", u.id));
        assert_eq!(
            p.start,
            Cell::new(u.at.0, u.at.1),
            "{} not placed where asked",
            u.id
        );
    }
    Arc::new(enc)
}

/// [`encounter_with`] without elevation and with default options.
pub fn encounter(terrain: &[String], units: Vec<Unit>) -> Arc<Encounter> {
    encounter_with(terrain, None, units, RulesOptions::default())
}

/// The combatant id of base id `id`.
pub fn cid(ep: &Episode, id: &str) -> CombatantId {
    let i = ep
        .encounter()
        .combatants
        .iter()
        .position(|p| p.id == id)
        .unwrap_or_else(|| panic!("no combatant {id}"));
    CombatantId(i as u16)
}

/// An episode where every combatant is externally controlled, with scripted dice.
pub fn episode(enc: Arc<Encounter>, faces: &[u32]) -> Episode {
    let n = enc.combatants.len();
    Episode::with_dice(
        enc,
        DiceSource::Scripted(ScriptedDice::new(faces.iter().copied())),
        &vec![Controller::External; n],
    )
}

/// Scripted faces not consumed yet.
pub fn dice_left(ep: &Episode) -> usize {
    match ep.dice_source() {
        DiceSource::Scripted(s) => s.remaining(),
        _ => panic!("not scripted"),
    }
}

/// Advance until it is `actor`'s turn decision, ending every other combatant's turn at once
/// (and taking every attack of opportunity offered, as [`take_reactions`]). Panics if the
/// episode ends first.
pub fn turn_of(ep: &mut Episode, actor: &str) {
    let want = cid(ep, actor);
    loop {
        match ep.advance() {
            Status::Terminal(o) => panic!("episode ended before {actor}'s turn: {o:?}"),
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

/// The answer that takes the attack of opportunity of decision `d` with the first weapon
/// offered (what the default policy does).
pub fn take_aoo(d: &Decision) -> Action {
    let DecisionKind::AttackOfOpportunity { weapons, .. } = &d.kind else {
        panic!("not an attack-of-opportunity decision: {d:?}");
    };
    Action {
        weapon: Some(weapons[0]),
        ..Action::new(ActionKind::AttackOfOpportunity)
    }
}

/// What the default policy answers to reaction decision `d`: take the attack of opportunity
/// with the first weapon offered, fire a readied action, Step Up to the first square.
pub fn take_reaction(d: &Decision) -> Action {
    match &d.kind {
        DecisionKind::AttackOfOpportunity { .. } => take_aoo(d),
        DecisionKind::ReadiedTrigger { .. } => Action::new(ActionKind::FireReadied),
        DecisionKind::StepUp { squares, .. } => Action {
            destination: Some(squares[0]),
            ..Action::new(ActionKind::FiveFootStep)
        },
        DecisionKind::TurnAction => panic!("not a reaction decision: {d:?}"),
    }
}

/// The pending decision (panics if none).
pub fn decision(ep: &Episode) -> Decision {
    ep.decision().cloned().expect("a decision is pending")
}

/// Answer every pending reaction decision by taking the attack of opportunity (so that a
/// test's turn plays as if every threatener took its AoOs).
pub fn take_reactions(ep: &mut Episode) {
    while let Some(d) = ep.decision().cloned() {
        if !d.kind.is_reaction() {
            return;
        }
        ep.submit(d.decision_id, &[take_reaction(&d)]).unwrap();
    }
}

/// Submit actions for the pending decision, taking every attack of opportunity they provoke
/// from externally controlled threateners ([`take_reactions`]); the results of the whole
/// list.
pub fn submit(ep: &mut Episode, actions: &[Action]) -> Vec<ActionResult> {
    let d = decision(ep);
    ep.submit(d.decision_id, actions)
        .expect("a decision is pending");
    take_reactions(ep);
    ep.results_of(d.decision_id)
        .expect("the decision was answered")
        .to_vec()
}

/// Submit actions for the pending decision and return at the next pause, without answering
/// reactions (the results resolved before it).
pub fn submit_raw(ep: &mut Episode, actions: &[Action]) -> Vec<ActionResult> {
    let d = decision(ep);
    ep.submit(d.decision_id, actions)
        .expect("a decision is pending")
}

/// End the pending decision's turn.
pub fn end_turn(ep: &mut Episode) {
    submit(ep, &[Action::new(ActionKind::EndTurn)]);
}

pub fn attack(t: CombatantId) -> Action {
    Action {
        target: Some(t),
        ..Action::new(ActionKind::Attack)
    }
}

pub fn attack_with(t: CombatantId, w: usize) -> Action {
    Action {
        weapon: Some(w),
        ..attack(t)
    }
}

pub fn full_attack(t: CombatantId) -> Action {
    Action {
        kind: ActionKind::FullAttack,
        ..attack(t)
    }
}

pub fn full_attack_with(t: CombatantId, w: usize) -> Action {
    Action {
        kind: ActionKind::FullAttack,
        ..attack_with(t, w)
    }
}

pub fn charge(t: CombatantId) -> Action {
    Action {
        kind: ActionKind::Charge,
        ..attack(t)
    }
}

pub fn to(kind: ActionKind, row: i32, col: i32) -> Action {
    Action {
        destination: Some(Cell::new(row, col)),
        ..Action::new(kind)
    }
}

pub fn move_to(row: i32, col: i32) -> Action {
    to(ActionKind::Move, row, col)
}

pub fn step(row: i32, col: i32) -> Action {
    to(ActionKind::FiveFootStep, row, col)
}

pub fn withdraw(row: i32, col: i32) -> Action {
    to(ActionKind::Withdraw, row, col)
}

pub fn ok(r: &ActionResult) -> bool {
    r.ok && r.reason.is_none()
}

/// Assert every result is plainly accepted.
pub fn assert_all_ok(rs: &[ActionResult]) {
    for r in rs {
        assert!(ok(r), "rejected: {r:?}");
    }
}

/// Transcript messages of `actor` (base id), in order.
pub fn lines_of(ep: &Episode, actor: &str) -> Vec<String> {
    ep.transcript()
        .iter()
        .filter(|l: &&LogLine| l.actor.as_deref() == Some(actor))
        .map(|l| l.message.clone())
        .collect()
}

/// The whole transcript as text (for failure messages).
pub fn log(ep: &Episode) -> String {
    ep.transcript()
        .iter()
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Transcript lines containing `needle`.
pub fn lines_with(ep: &Episode, needle: &str) -> Vec<String> {
    ep.transcript()
        .iter()
        .map(|l| l.to_string())
        .filter(|l| l.contains(needle))
        .collect()
}

/// The observation JSON for the pending decision.
pub fn obs_json(ep: &Episode) -> String {
    serde_json::to_string(&ep.observation(None)).unwrap()
}
