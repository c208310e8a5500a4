//! The GM's report of `pf1e-sim` (issue 31): knocked-out, death and total-party-kill rates
//! with Wilson intervals, resources left, the encounter's difficulty, English by default and
//! French with `--lang fr`; scenario, map, combatant, tactics and sweep names from `data/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_pf1e-sim");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Run pf1e-sim in the repository root (where `data/` is found by default).
fn sim(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(root())
        .env_remove("PF1E_DATA_DIR")
        .output()
        .expect("run pf1e-sim")
}

fn ok(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn usage_error(o: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert!(o.stdout.is_empty());
    for n in needles {
        assert!(err.contains(n), "stderr should mention {n:?}: {err}");
    }
}

#[test]
fn english_gm_report_of_the_casters() {
    let out = ok(&sim(&[
        "--scenario",
        "casters",
        "--runs",
        "60",
        "--seed",
        "1",
    ]));
    for needle in [
        "=== Balance report ===\n",
        "Map: Caster hall\n",
        "Encounter: monsters 3,200 XP (CR 7) = 3,200 XP, CR 7; for players (APL 4, average \
         level 3.75 of 4 characters): epic (CR = APL +3)\n",
        "Total party kill (players all unconscious or dead at the end): ",
        "All of players dead: ",
        "Knocked out (unconscious or dead at some point) and dead at the end, with Wilson 3σ \
         intervals:\n",
        "Combatant   Side      Knocked out  Wilson 3σ",
        "Resources left at the end of the ",
        "combats won by players",
        "wizard_5  ",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in\n{out}");
    }
    assert!(!out.contains('\u{a0}') && !out.contains(" :"), "{out}");
}

#[test]
fn french_gm_report_is_french_throughout() {
    let out = ok(&sim(&[
        "--scenario",
        "casters",
        "--runs",
        "60",
        "--lang",
        "fr",
    ]));
    for needle in [
        "=== Rapport d'équilibrage ===\n",
        "Rencontre\u{a0}: monsters 3\u{202f}200 PX (FP 7) = 3\u{202f}200 PX, FP 7\u{202f}; pour \
         players (NGM 4, niveau moyen 3,75 sur 4 personnages)\u{a0}: épique (FP = NGM +3)\n",
        "Groupe entièrement hors de combat (players tous inconscients ou morts à la fin)\u{a0}: ",
        "Hors de combat (inconscient ou mort à un moment) et mort à la fin",
        "Ressources restantes à la fin des ",
        "Générateur aléatoire\u{a0}: ",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in\n{out}");
    }
    for (i, line) in out.lines().enumerate() {
        for bad in [
            " :", " ;", " %", "Wins", "Draws", "Mean", "Side", "Hits", "Knocked",
        ] {
            assert!(!line.contains(bad), "line {i} has {bad:?}: {line}");
        }
        if !line.contains("ChaCha8Rng") {
            let b = line.as_bytes();
            for w in b.windows(3) {
                assert!(
                    !(w[0].is_ascii_digit() && w[1] == b'.' && w[2].is_ascii_digit()),
                    "decimal point on line {i}: {line}"
                );
            }
        }
    }
}

#[test]
fn json_gm_report_has_the_rates_resources_and_difficulty() {
    let out = ok(&sim(&[
        "--scenario",
        "casters",
        "--runs",
        "30",
        "--format",
        "json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["encounter"]["difficulty"], "epic");
    assert_eq!(v["encounter"]["cr"], "7");
    assert_eq!(v["encounter"]["party"]["apl"], 4);
    assert_eq!(v["party"]["side"], "players");
    let tpk = &v["party"]["tpk"];
    assert!(tpk["wilson_3sigma"][0].as_f64().unwrap() <= tpk["rate"].as_f64().unwrap());
    let c = &v["combatants"][0];
    assert_eq!(c["id"], "cleric_3");
    assert!(c["knocked_out"]["count"].as_u64().unwrap() >= c["dead"]["count"].as_u64().unwrap());
    let r = &v["sides"][0]["resources_when_won"][1];
    assert_eq!(r["id"], "wizard_5");
    assert!(r["hp"]["p50"].as_i64().unwrap() <= r["hp_max"].as_i64().unwrap());
}

/// Names from data/ give the same report as the paths.
#[test]
fn names_and_paths_are_the_same_encounter() {
    let by_name = ok(&sim(&[
        "--map",
        "sample_arena",
        "--side",
        "players",
        "goblin",
        "goblin",
        "goblin",
        "--side",
        "monsters",
        "orc",
        "orc",
        "--runs",
        "40",
    ]));
    let by_path = ok(&sim(&[
        "--map",
        "data/maps/sample_arena.yaml",
        "--side",
        "players",
        "data/monsters/goblin.json",
        "data/monsters/goblin.json",
        "data/monsters/goblin.json",
        "--side",
        "monsters",
        "data/monsters/orc.json",
        "data/monsters/orc.json",
        "--runs",
        "40",
    ]));
    let by_scenario = ok(&sim(&["--scenario", "sample_arena", "--runs", "40"]));
    let by_scenario_file = ok(&sim(&[
        "--scenario",
        "data/scenarios/sample_arena.yaml",
        "--runs",
        "40",
    ]));
    assert_eq!(by_name, by_path);
    assert_eq!(by_scenario, by_path);
    assert_eq!(by_scenario_file, by_path);
    // A tactics spec by name too.
    let t = ok(&sim(&[
        "--scenario",
        "casters",
        "--runs",
        "5",
        "--tactics",
        "players=casters_open_with_areas",
    ]));
    assert!(t.contains("tactics \"casters_open_with_areas\""), "{t}");
}

#[test]
fn unknown_names_exit_2_naming_the_field_and_close_names() {
    usage_error(
        &sim(&["--scenario", "castres"]),
        &[
            "--scenario",
            "unknown scenario `castres`",
            "close names: casters",
        ],
    );
    usage_error(
        &sim(&["--map", "sample_arene", "--side", "players", "goblin"]),
        &["--map", "`sample_arene`", "sample_arena"],
    );
    usage_error(
        &sim(&[
            "--map",
            "sample_arena",
            "--side",
            "players",
            "gobelin",
            "--side",
            "monsters",
            "orc",
        ]),
        &["--side players", "unknown combatant `gobelin`", "goblin"],
    );
    usage_error(
        &sim(&["sweep", "sample_arena_archr", "--out", "/tmp/never"]),
        &["SPEC", "unknown sweep spec", "sample_arena_archer"],
    );
    usage_error(
        &sim(&["--scenario", "no/such/file.yaml"]),
        &["--scenario", "no/such/file.yaml"],
    );
    // --scenario and --map do not mix (clap).
    usage_error(
        &sim(&["--scenario", "casters", "--map", "sample_arena"]),
        &["--scenario", "--map"],
    );
    assert!(!Path::new("/tmp/never").exists());
}

#[test]
fn sweep_by_name_in_french() {
    let dir = std::env::temp_dir().join(format!("pf1e-gm-sweep-{}", std::process::id()));
    let out = ok(&sim(&[
        "sweep",
        "sample_arena_archer",
        "--runs",
        "20",
        "--out",
        dir.to_str().unwrap(),
        "--lang",
        "fr",
    ]));
    assert!(out.starts_with("=== Balayage des positions ===\n"), "{out}");
    assert!(
        out.contains("Meilleur ensemble (ne se distinguent pas du meilleur, #"),
        "{out}"
    );
    assert!(out.contains("correction de Bonferroni"), "{out}");
    assert!(!out.contains(" :") && !out.contains("Best set"), "{out}");
    let svg = std::fs::read_to_string(dir.join("heatmap-goblin.svg")).unwrap();
    assert!(svg.contains("colour scale fitted to the data"));
    assert!(svg.contains("enemy start"));
    std::fs::remove_dir_all(&dir).unwrap();
}
