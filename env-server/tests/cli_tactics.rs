//! `pf1e-sim --tactics SIDE=FILE` and sweep specs with `tactics`: the report names the tactics
//! each side played, the tactics change the result, bad files exit 2 naming the field.
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_pf1e-sim");

fn data(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data")
        .join(rel)
        .display()
        .to_string()
}

fn sim(extra: &[&str]) -> Output {
    let (map, g, o) = (
        data("maps/sample_arena.yaml"),
        data("monsters/goblin.json"),
        data("monsters/orc.json"),
    );
    let mut args: Vec<&str> = vec![
        "--map", &map, "--side", "players", &g, &g, &g, "--side", "monsters", &o, &o, "--runs",
        "200", "--seed", "1", "--lang", "en",
    ];
    args.extend_from_slice(extra);
    Command::new(BIN)
        .args(&args)
        .output()
        .expect("run pf1e-sim")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn temp(name: &str, contents: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("pf1e-cli-tactics-{}-{name}", std::process::id()));
    std::fs::write(&p, contents).unwrap();
    p
}

#[test]
fn the_report_names_the_tactics_and_they_change_the_result() {
    let plain = sim(&[]);
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain.stderr));
    let arg = format!("players={}", data("tactics/focus_fire_weakest.yaml"));
    let t = sim(&["--tactics", &arg]);
    assert_eq!(t.status.code(), Some(0), "{}", text(&t.stderr));
    let out = text(&t.stdout);
    assert!(
        out.contains("players: 3 combatants, tactics \"focus_fire_weakest\""),
        "{out}"
    );
    assert!(out.contains("monsters: 2 combatants\n"), "{out}");
    assert_ne!(plain.stdout, t.stdout);
    // Deterministic.
    assert_eq!(sim(&["--tactics", &arg]).stdout, t.stdout);
    // JSON: the side says which tactics it played.
    let j = sim(&["--tactics", &arg, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    assert_eq!(v["sides"][0]["tactics"], "focus_fire_weakest");
    assert!(v["sides"][1].get("tactics").is_none());
}

#[test]
fn bad_tactics_exit_2_naming_the_field() {
    let bad = temp(
        "bad.yaml",
        "name: x\ndescription: d\ndefault:\n  rules:\n    - when: { hp_below_fraction: 3 }\n      do: withdraw\n",
    );
    let unknown = temp(
        "unknown.yaml",
        "name: x\ndescription: d\ndefault: { target: [{ named: dragon }] }\n",
    );
    let ok = data("tactics/focus_fire_weakest.yaml");
    let cases = [
        (
            format!("players={}", bad.display()),
            "default.rules[0].when.hp_below_fraction",
        ),
        (
            format!("players={}", unknown.display()),
            "default.target[0].named: no enemy of side players is called `dragon`",
        ),
        (format!("dragons={ok}"), "unknown side dragons"),
        ("players".to_string(), "expected SIDE=FILE"),
        (
            "players=/nonexistent/tactics.yaml".to_string(),
            "cannot read",
        ),
    ];
    for (arg, needle) in cases {
        let o = sim(&["--tactics", &arg]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{arg}: {err}");
        assert!(o.stdout.is_empty());
        assert!(err.starts_with("pf1e-sim: error: --tactics "), "{err}");
        assert!(err.contains(needle), "{arg}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    let _ = std::fs::remove_file(bad);
    let _ = std::fs::remove_file(unknown);
}

#[test]
fn a_sweep_without_swept_combatants_plays_the_base_encounter_with_its_tactics() {
    let out = std::env::temp_dir().join(format!("pf1e-cli-tactics-sweep-{}", std::process::id()));
    let o = Command::new(BIN)
        .args([
            "sweep",
            &data("sweeps/sample_arena_focus_fire.yaml"),
            "--out",
            &out.display().to_string(),
            "--runs",
            "100",
            "--data-dir",
            &data(""),
        ])
        .output()
        .unwrap();
    let s = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(s.contains("players (3, tactics focus_fire_weakest)"), "{s}");
    assert!(s.contains("Placements: 1"), "{s}");
    // An inline spec, and a bad file name.
    let inline = temp(
        "inline-sweep.yaml",
        "scenario: sample_arena\ntactics:\n  monsters: { name: turtle, description: d, default: { rules: [{ do: total_defense }] } }\nruns: 50\n",
    );
    let o = Command::new(BIN)
        .args([
            "sweep",
            &inline.display().to_string(),
            "--out",
            &out.display().to_string(),
            "--data-dir",
            &data(""),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("monsters (2, tactics turtle)"));
    let badname = temp(
        "badname-sweep.yaml",
        "scenario: sample_arena\ntactics:\n  players: ../secrets\n",
    );
    let o = Command::new(BIN)
        .args([
            "sweep",
            &badname.display().to_string(),
            "--out",
            &out.display().to_string(),
            "--data-dir",
            &data(""),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("tactics.players"),
        "{}",
        text(&o.stderr)
    );
    let _ = std::fs::remove_file(inline);
    let _ = std::fs::remove_file(badname);
    let _ = std::fs::remove_dir_all(out);
}
