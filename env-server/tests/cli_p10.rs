//! P10 loader and CLI findings (break-it review): numeric flags' messages, bounded file reads
//! (`/dev/zero`), explicit YAML tags and unbounded side lists in scenario files and sweep
//! specs, the size caps of inline scenarios, no server path in inline errors; and the seed
//! corpus of the loader fuzz target (fuzz/corpus/).

use pf1e_env_server::scenarios::{
    build_inline, InlineCombatant, InlineScenario, InlineSide, ScenarioError, ScenarioFile,
    ScenarioSource, ScenarioStore, MAX_INLINE_AREA_X_COMBATANTS, MAX_INLINE_COMBATANTS,
    MAX_INLINE_MAP_AREA,
};
use pf1e_env_server::sweep::SweepSpec;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_pf1e-sim");

fn data(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data")
        .join(rel)
        .display()
        .to_string()
}

fn sim(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run pf1e-sim")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit 2, nothing on stdout, one line `pf1e-sim: error: ...` mentioning every needle.
fn assert_error(o: &Output, needles: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert!(o.stdout.is_empty(), "nothing on stdout on error");
    assert!(err.starts_with("pf1e-sim: error: "), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    for n in needles {
        assert!(err.contains(n), "stderr should mention {n:?}: {err}");
    }
}

fn report_args() -> Vec<String> {
    let (m, g, o) = (
        data("maps/sample_arena.yaml"),
        data("monsters/goblin.json"),
        data("monsters/orc.json"),
    );
    [
        "--map", &m, "--side", "players", &g, "--side", "monsters", &o,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn with(base: &[String], extra: &[&str]) -> Output {
    let mut a: Vec<&str> = base.iter().map(String::as_str).collect();
    a.extend(extra);
    sim(&a)
}

// Finding 1: `--runs -1` said "unexpected argument": every numeric flag takes the hyphen value
// and reports it out of range, naming the flag and the range.
#[test]
fn negative_numeric_flags_are_reported_out_of_range() {
    let base = report_args();
    for (flag, range) in [
        ("--runs", "1..=1000000"),
        ("--seed", "0..=18446744073709551615"),
        ("--round-cap", "1..=100000"),
        ("--threads", "1..=1024"),
    ] {
        let o = with(&base, &[flag, "-1"]);
        assert_error(&o, &[flag, "-1 is out of range", range]);
        assert!(!stderr(&o).contains("unexpected argument"));
        let o = with(&base, &[flag, "99999999999999999999999"]);
        assert_error(&o, &[flag, "99999999999999999999999", range]);
        let o = with(&base, &[flag, "ten"]);
        assert_error(&o, &[flag, "not an integer", range]);
    }
    let spec = data("sweeps/sample_arena_rect.yaml");
    let out = std::env::temp_dir().join(format!("pf1e-p10-sweep-{}", std::process::id()));
    let out = out.display().to_string();
    for (flag, range) in [
        ("--runs", "1..=1000000"),
        ("--seed", "0..=18446744073709551615"),
        ("--threads", "1..=1024"),
    ] {
        let o = sim(&["sweep", &spec, "--out", &out, flag, "-1"]);
        assert_error(&o, &[flag, "-1 is out of range", range]);
    }
    let _ = std::fs::remove_dir_all(&out);
}

// Finding 3: every file the CLI reads goes through a bounded reader: `/dev/zero` ends fast
// with exit 2 naming the file and the limit (it ran out of memory before).
#[test]
fn dev_zero_is_refused_fast_for_every_file_the_cli_reads() {
    let zero = "/dev/zero";
    if !Path::new(zero).exists() {
        return;
    }
    let (m, g, o) = (
        data("maps/sample_arena.yaml"),
        data("monsters/goblin.json"),
        data("monsters/orc.json"),
    );
    let tactics = format!("players={zero}");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "--map", zero, "--side", "players", &g, "--side", "monsters", &o,
            ],
            "1048576 bytes",
        ),
        (
            vec![
                "--map", &m, "--side", "players", zero, "--side", "monsters", &o,
            ],
            "1048576 bytes",
        ),
        (
            vec![
                "--map",
                &m,
                "--side",
                "players",
                &g,
                "--side",
                "monsters",
                &o,
                "--tactics",
                &tactics,
            ],
            "65536 bytes",
        ),
        (
            vec!["sweep", zero, "--out", "/tmp/pf1e-p10-unused"],
            "1048576 bytes",
        ),
        (
            vec!["replay", zero, "--out", "/tmp/pf1e-p10-unused.html"],
            "8388608 bytes",
        ),
    ];
    for (args, limit) in cases {
        let t = Instant::now();
        let out = sim(&args);
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "{args:?} took too long"
        );
        assert_error(&out, &[zero, limit, "(the limit)"]);
    }
}

// Finding 2: sides without bound on the command line.
#[test]
fn more_sides_than_the_engine_allows_is_a_usage_error() {
    let (m, g) = (data("maps/sample_arena.yaml"), data("monsters/goblin.json"));
    let names: Vec<String> = (0..17).map(|i| format!("s{i}")).collect();
    let mut args = vec!["--map".to_string(), m];
    for n in &names {
        args.extend(["--side".to_string(), n.clone(), g.clone()]);
    }
    let o = sim(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_error(&o, &["--side", "17 sides", "at most 16"]);
}

// Finding 2: a scenario listing 50,000 sides was checked for duplicates in quadratic time;
// now refused at the 17th, naming the field. Duplicates are still named.
#[test]
fn scenario_files_bound_their_sides_and_combatants() {
    let mut text = String::from("map: sample_arena\nsides:\n");
    for i in 0..50_000 {
        text.push_str(&format!("  s{i}: [goblin]\n"));
    }
    let t = Instant::now();
    let e = ScenarioFile::from_yaml_str(&text, "x.yaml").unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(e.contains("sides") && e.contains("at most 16"), "{e}");
    let e =
        ScenarioFile::from_yaml_str("map: m\nsides: {a: [orc], a: [orc]}\n", "x.yaml").unwrap_err();
    assert!(e.contains("duplicate side `a`"), "{e}");
    let many = vec!["goblin"; 1025].join(", ");
    let e = ScenarioFile::from_yaml_str(&format!("map: m\nsides: {{a: [{many}]}}\n"), "x.yaml")
        .unwrap_err();
    assert!(e.contains("at most 1024"), "{e}");
    // Sweep specs list placements with a linear duplicate check.
    let mut spec = String::from("scenario: sample_arena\nplacements:\n");
    for i in 0..40_000 {
        spec.push_str(&format!("  g{i}: {{ zone: A }}\n"));
    }
    spec.push_str("  g0: { zone: A }\n");
    let t = Instant::now();
    let e = SweepSpec::from_str(&spec, "s.yaml")
        .unwrap_err()
        .to_string();
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(e.contains("duplicate key `g0`"), "{e}");
}

// Finding 2: explicit YAML tags in scenario files and sweep specs are refused with the field.
#[test]
fn explicit_tags_in_scenario_files_and_sweep_specs_are_refused() {
    let e = ScenarioFile::from_yaml_str("map: !!binary c2FtcGxl\nsides: {a: [orc]}\n", "x.yaml")
        .unwrap_err();
    assert!(
        e.contains("field `map`") && e.contains("explicit YAML tag"),
        "{e}"
    );
    let e = ScenarioFile::from_yaml_str("map: m\nsides: {a: [!orc orc]}\n", "x.yaml").unwrap_err();
    assert!(e.contains("sides.a[0]") && e.contains("!orc"), "{e}");
    let e = SweepSpec::from_str("scenario: !!str sample_arena\nplacements: {}\n", "s.yaml")
        .unwrap_err();
    assert_eq!(e.field(), Some("s.yaml: scenario"), "{e}");
    assert!(e.to_string().contains("explicit YAML tag"), "{e}");
    // The CLI: exit 2 naming the file and the field.
    let dir = std::env::temp_dir().join(format!("pf1e-p10-tag-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("tagged.yaml");
    std::fs::write(
        &spec,
        "scenario: sample_arena\nruns: !!int 5\nplacements:\n  goblin: { zone: A }\n",
    )
    .unwrap();
    let out = dir.join("out");
    let o = sim(&[
        "sweep",
        &spec.display().to_string(),
        "--out",
        &out.display().to_string(),
    ]);
    assert_error(&o, &["tagged.yaml", "runs", "explicit YAML tag"]);
    let _ = std::fs::remove_dir_all(&dir);
}

fn floor_map(rows: usize, cols: usize, per_side: usize) -> String {
    let zone_rows = per_side.div_ceil(cols);
    let (mut t, mut z) = (String::new(), String::new());
    for r in 0..rows {
        t.push_str(&format!("  {}\n", ".".repeat(cols)));
        let l = if r < zone_rows {
            'A'
        } else if r >= rows - zone_rows {
            'B'
        } else {
            '.'
        };
        z.push_str(&format!("  {}\n", l.to_string().repeat(cols)));
    }
    format!(
        "name: caps\nterrain: |\n{t}legend:\n  \".\": {{ type: floor, move_cost: 1 }}\nzones: |\n{z}deployment:\n  players: A\n  monsters: B\n"
    )
}

fn inline(rows: usize, cols: usize, per_side: usize) -> InlineScenario {
    let goblin = std::fs::read_to_string(data("monsters/goblin.json")).unwrap();
    let side = |name: &str| InlineSide {
        name: name.into(),
        combatants: vec![
            InlineCombatant {
                json: goblin.clone(),
                base_id: String::new(),
            };
            per_side
        ],
    };
    InlineScenario {
        map_yaml: floor_map(rows, cols, per_side),
        sides: vec![side("players"), side("monsters")],
        round_cap: 0,
        simple_monster_death: false,
    }
}

fn inline_err(s: &InlineScenario) -> (String, String) {
    match build_inline(s, "scenario.inline") {
        Err(ScenarioError::InvalidInline { field, message }) => (field, message),
        other => panic!("expected InvalidInline, got {:?}", other.map(|_| ())),
    }
}

// Finding 5: caps on inline scenarios bound a round's cost (a 256×256 map with 128 vs 128
// cost ~70 s of CPU per round).
#[test]
fn inline_scenarios_are_capped_by_area_combatants_and_their_product() {
    // At each cap: accepted.
    assert!(build_inline(&inline(128, 128, 4), "scenario.inline").is_ok());
    assert!(build_inline(&inline(32, 32, 32), "scenario.inline").is_ok());
    // Past the area.
    let (f, m) = inline_err(&inline(129, 128, 1));
    assert_eq!(f, "scenario.inline.map_yaml.terrain");
    assert!(
        m.contains("16512 squares") && m.contains(&MAX_INLINE_MAP_AREA.to_string()),
        "{m}"
    );
    // Past the number of combatants.
    let (f, m) = inline_err(&inline(32, 32, 33));
    assert_eq!(f, "scenario.inline.sides");
    assert!(
        m.contains("66 combatants") && m.contains(&MAX_INLINE_COMBATANTS.to_string()),
        "{m}"
    );
    // Past the product: 128 × 128 with 10 combatants.
    let (f, m) = inline_err(&inline(128, 128, 5));
    assert_eq!(f, "scenario.inline");
    assert!(
        m.contains("16384 × 10 = 163840") && m.contains(&MAX_INLINE_AREA_X_COMBATANTS.to_string()),
        "{m}"
    );
    // The 256 × 256 map with 128 vs 128 of the issue.
    let (f, _) = inline_err(&inline(256, 256, 128));
    assert!(f.starts_with("scenario.inline"), "{f}");
}

// Finding 5: every bundled scenario fits the inline caps too (they could be sent inline).
#[test]
fn bundled_scenarios_fit_the_inline_caps() {
    let store = ScenarioStore::new(data(""));
    let list = store.list();
    assert!(list.len() >= 4);
    for info in list {
        let enc = store.named(&info.name, "scenario.named").unwrap();
        let area = (enc.grid.rows * enc.grid.cols) as usize;
        let n = enc.combatants.len();
        assert!(area <= MAX_INLINE_MAP_AREA, "{}", info.name);
        assert!(n <= MAX_INLINE_COMBATANTS, "{}", info.name);
        assert!(area * n <= MAX_INLINE_AREA_X_COMBATANTS, "{}", info.name);
    }
}

// Finding 4: client-facing inline errors never quote a server path (the origin of every
// inline text is its request field).
#[test]
fn inline_errors_never_quote_server_paths() {
    let dir = PathBuf::from(data("")).canonicalize().unwrap();
    let store = ScenarioStore::new(&dir);
    let ok = inline(8, 8, 1);
    let caster = std::fs::read_to_string(data("pcs/wizard_5.json"))
        .or_else(|_| std::fs::read_to_string(data("monsters/green_hag.json")))
        .unwrap();
    let mut cases = Vec::new();
    let mut s = ok.clone();
    s.map_yaml = "name: x\nterrain: 5\n".into();
    cases.push(s);
    let mut s = ok.clone();
    s.sides[0].combatants[0].json = "{\"name\": 1}".into();
    cases.push(s);
    let mut s = ok.clone();
    s.sides[0].combatants[0].json = caster;
    cases.push(s);
    let mut s = ok.clone();
    s.sides[1].name = "nobody".into();
    cases.push(s);
    let mut s = ok.clone();
    s.map_yaml = s.map_yaml.replace("move_cost: 1", "move_cost: !!str 1");
    cases.push(s);
    for s in cases {
        let e = store
            .resolve(Some(&ScenarioSource::Inline(s)), "scenario")
            .map(|_| ())
            .unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with("scenario.inline"), "{msg}");
        assert!(!msg.contains(&dir.display().to_string()), "{msg}");
        assert!(!msg.contains(env!("CARGO_MANIFEST_DIR")), "{msg}");
    }
}

/// The seed snapshots of the fuzz target (`fuzz/corpus/loaders/snapshot-*`: selector byte 4,
/// then `Episode::snapshot` bytes of the bundled sample arena, players external) restore on
/// this engine. `PF1E_REGEN_FUZZ_SEEDS=1` rewrites them first (after a snapshot format change).
#[test]
fn fuzz_snapshot_seeds_restore() {
    use pf1e_engine::episode::Controller;
    use pf1e_engine::{Episode, Status};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/loaders");
    let store = ScenarioStore::new(data(""));
    let enc = store.named("sample_arena", "fuzz").unwrap();
    if std::env::var("PF1E_REGEN_FUZZ_SEEDS").is_ok_and(|v| v == "1") {
        let ctl = [Controller::External; 3];
        for (k, steps) in [(0usize, 0usize), (1, 3), (2, 12)] {
            let mut ep = Episode::new(enc.clone(), k as u64 + 1, &ctl);
            for _ in 0..steps {
                if let Status::Decision(d) = ep.advance() {
                    let a = ep.legal_actions()[0].action.clone();
                    ep.submit(d.decision_id, &[a]).unwrap();
                }
            }
            ep.advance();
            let mut bytes = vec![4u8];
            bytes.extend(ep.snapshot());
            std::fs::write(dir.join(format!("snapshot-{k}")), bytes).unwrap();
        }
    }
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if !p
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("snapshot-")
        {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap();
        assert_eq!(bytes[0] % 6, 4, "{}", p.display());
        Episode::restore(enc.clone(), &bytes[1..]).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (regenerate: PF1E_REGEN_FUZZ_SEEDS=1 cargo test -p pf1e-env-server --test cli_p10 fuzz_snapshot_seeds_restore)",
                p.display()
            )
        });
        n += 1;
    }
    assert!(n >= 3, "snapshot seeds in {}", dir.display());
}

// Finding 4: the Evaluate RPC sends sweep-plan errors to clients: data files are named under
// `<data>`, never by the server's path.
#[test]
fn sweep_plan_errors_name_data_files_under_data_not_the_server_path() {
    use pf1e_env_server::sweep::SweepPlan;
    let dir = PathBuf::from(data("")).canonicalize().unwrap();
    let store = ScenarioStore::new(&dir);
    for (text, needle) in [
        (
            "scenario: no_such\nplacements: {}\n",
            "<data>/scenarios/no_such.yaml",
        ),
        (
            "scenario: sample_arena\ntactics: {players: no_such}\nplacements: {}\n",
            "<data>/tactics/no_such.yaml",
        ),
        (
            "map: no_such\nsides: {players: [goblin], monsters: [orc]}\nplacements: {}\n",
            "<data>/maps/no_such.yaml",
        ),
        (
            "map: sample_arena\nsides: {players: [no_such], monsters: [orc]}\nplacements: {}\n",
            "<data>/monsters/no_such.json",
        ),
    ] {
        let spec = SweepSpec::from_str(text, "spec").unwrap();
        let e = SweepPlan::build(&spec, &store).unwrap_err().to_string();
        assert!(e.contains(needle), "{e}");
        assert!(!e.contains(&dir.display().to_string()), "{e}");
    }
}
