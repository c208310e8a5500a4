//! The CPU cost of one round of an inline scenario at and around the caps of
//! `pf1e_env_server::scenarios` (`MAX_INLINE_MAP_AREA`, `MAX_INLINE_COMBATANTS`,
//! `MAX_INLINE_AREA_X_COMBATANTS`): an open floor map of R × C squares, goblins (top rows)
//! against orcs (bottom rows), as far apart as the map allows, every combatant on the default
//! policy, round cap 1 (so one `advance` plays initiative and one whole round). Encounters are
//! built as the server builds an inline one (no run-line table). Prints, per configuration,
//! the median of 3 rounds (3 seeds) and whether the caps accept it.
//!
//! Usage: `cargo run -p pf1e-env-server --example inline_caps` (the dev profile builds the
//! engine at opt-level 2; `--release` for the shipped build's figures)
//! (`INLINE_CAPS_BIG=1` adds 256 × 256 with 64 and 128 combatants: minutes per round).
use pf1e_engine::{CombatantSpec, Encounter, Episode, MapSpec, RulesOptions};
use pf1e_env_server::scenarios::{
    build_inline, InlineCombatant, InlineScenario, InlineSide, MAX_INLINE_AREA_X_COMBATANTS,
    MAX_INLINE_COMBATANTS, MAX_INLINE_MAP_AREA,
};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Map YAML: `rows` × `cols` floor, zone A the first rows, zone B the last rows, each with
/// room for `per_side` combatants.
fn map_yaml(rows: usize, cols: usize, per_side: usize) -> String {
    let zone_rows = per_side.div_ceil(cols);
    let mut terrain = String::new();
    let mut zones = String::new();
    for r in 0..rows {
        terrain.push_str("  ");
        terrain.push_str(&".".repeat(cols));
        terrain.push('\n');
        let z = if r < zone_rows {
            'A'
        } else if r >= rows - zone_rows {
            'B'
        } else {
            '.'
        };
        zones.push_str("  ");
        zones.push_str(&z.to_string().repeat(cols));
        zones.push('\n');
    }
    format!(
        "name: caps\nterrain: |\n{terrain}legend:\n  \".\": {{ type: floor, move_cost: 1 }}\nzones: |\n{zones}deployment:\n  players: A\n  monsters: B\n"
    )
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/monsters");
    let goblin = std::fs::read_to_string(root.join("goblin.json")).unwrap();
    let orc = std::fs::read_to_string(root.join("orc.json")).unwrap();
    println!(
        "caps: map area {MAX_INLINE_MAP_AREA}, combatants {MAX_INLINE_COMBATANTS}, area × combatants {MAX_INLINE_AREA_X_COMBATANTS}"
    );
    let mut configs = vec![
        (32, 32, 4),
        (64, 64, 4),
        (64, 64, 16),
        (64, 64, 32),
        (64, 64, 64),
        (128, 128, 8),
        (32, 32, 64),
        (128, 128, 16),
        (128, 128, 32),
        (256, 256, 4),
        (256, 256, 16),
    ];
    if std::env::var("INLINE_CAPS_BIG").is_ok_and(|v| v == "1") {
        configs.extend([(256, 256, 64), (256, 256, 128)]);
    }
    for (rows, cols, n) in configs {
        let per_side = n / 2;
        let yaml = map_yaml(rows, cols, per_side);
        let inline = InlineScenario {
            map_yaml: yaml.clone(),
            sides: vec![
                InlineSide {
                    name: "players".into(),
                    combatants: (0..per_side)
                        .map(|_| InlineCombatant {
                            json: goblin.clone(),
                            base_id: String::new(),
                        })
                        .collect(),
                },
                InlineSide {
                    name: "monsters".into(),
                    combatants: (0..per_side)
                        .map(|_| InlineCombatant {
                            json: orc.clone(),
                            base_id: String::new(),
                        })
                        .collect(),
                },
            ],
            round_cap: 1,
            simple_monster_death: false,
        };
        let accepted = build_inline(&inline, "scenario.inline").is_ok();
        let map = MapSpec::from_yaml_str(&yaml, "caps").unwrap();
        let g = CombatantSpec::from_json_str(&goblin, "goblin").unwrap();
        let o = CombatantSpec::from_json_str(&orc, "orc").unwrap();
        let sides = vec![
            (
                "players".to_string(),
                vec![("goblin".to_string(), g); per_side],
            ),
            (
                "monsters".to_string(),
                vec![("orc".to_string(), o); per_side],
            ),
        ];
        let options = RulesOptions {
            round_cap: 1,
            simple_monster_death: false,
        };
        let mut enc = Encounter::build(map, sides, options).unwrap();
        Arc::make_mut(&mut enc.grid).without_run_line_table();
        let enc = Arc::new(enc);
        let mut times: Vec<f64> = (0..3u64)
            .map(|seed| {
                let mut ep = Episode::new(Arc::clone(&enc), seed, &[]);
                let t = Instant::now();
                std::hint::black_box(ep.advance());
                t.elapsed().as_secs_f64()
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let area = rows * cols;
        println!(
            "{rows:>3} × {cols:<3} {n:>3} combatants: area × combatants {:>8}: round {:>9.1} ms ({:.3} µs per square·combatant); inline caps {}",
            area * n,
            times[1] * 1e3,
            times[1] * 1e6 / (area * n) as f64,
            if accepted { "accept" } else { "refuse" }
        );
    }
}
