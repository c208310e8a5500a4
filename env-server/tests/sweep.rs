//! End-to-end tests of `pf1e-sim sweep`: files written, invalid squares named with exit 2,
//! thread-count invariance, command-line overrides of the spec.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_pf1e-sim");

fn data_dir() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data")
        .display()
        .to_string()
}

/// A temporary directory with a unique name, removed (with its contents) on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(stem: &str) -> TempDir {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("pf1e-sim-sweep-{}-{n}-{stem}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create temp dir");
        TempDir(path)
    }
    fn file(&self, name: &str, contents: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, contents).expect("write temp file");
        p.display().to_string()
    }
    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
    fn path(&self) -> String {
        self.0.display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `pf1e-sim sweep SPEC --data-dir <repo data> ARGS...`
fn sweep(spec: &str, args: &[&str]) -> Output {
    let data = data_dir();
    Command::new(BIN)
        .args(["sweep", spec, "--data-dir", &data])
        .args(args)
        .output()
        .expect("run pf1e-sim")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
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

const ZONE_SPEC: &str =
    "scenario: sample_arena\nplacements:\n  goblin: { zone: A }\nruns: 6\nseed: 1\n";

#[test]
fn bundled_example_writes_every_file() {
    let out = TempDir::new("example");
    let spec = format!("{}/sweeps/sample_arena_archer.yaml", data_dir());
    let o = sweep(&spec, &["--runs", "8", "--out", &out.path()]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("=== Position sweep ===\n"), "{text}");
    assert!(
        text.contains("Swept: goblin (players) over zone A: 7 squares"),
        "{text}"
    );
    assert!(
        text.contains("not used: goblin (2,3): impassable square (pillar)"),
        "{text}"
    );
    assert!(
        text.contains("Ranking: by the win rate of players"),
        "{text}"
    );
    assert!(text.contains("one-sided Fisher exact test"), "{text}");
    assert!(
        text.contains("Best set (not distinguishable from the best, #"),
        "{text}"
    );
    assert!(
        text.contains("Runs: 8 per placement = 56 combats; seed 1"),
        "{text}"
    );
    for f in [
        "sweep.csv",
        "sweep.json",
        "heatmap-goblin.png",
        "heatmap-goblin.svg",
    ] {
        let meta = std::fs::metadata(out.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(meta.len() > 0, "{f} is empty");
    }
    let png = std::fs::read(out.join("heatmap-goblin.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let svg = std::fs::read_to_string(out.join("heatmap-goblin.svg")).unwrap();
    assert!(svg.contains("<svg"), "{svg:.200}");
    let csv = std::fs::read_to_string(out.join("sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 7, "{csv}");
    assert!(csv.starts_with("index,product_index,rank,goblin_row,goblin_col,runs,"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(json["placements"].as_array().unwrap().len(), 7);
    assert_eq!(json["runs"], 8);
    assert_eq!(json["rank_side"], "players");
    for p in json["placements"].as_array().unwrap() {
        let wins: u64 = p["wins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["count"].as_u64().unwrap())
            .sum();
        assert_eq!(wins + p["draws"]["count"].as_u64().unwrap(), 8);
    }
}

#[test]
fn json_format_on_stdout_equals_the_file() {
    let dir = TempDir::new("json");
    let spec = dir.file("s.yaml", ZONE_SPEC);
    let out = dir.join("out").display().to_string();
    let o = sweep(&spec, &["--out", &out, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let file = std::fs::read_to_string(dir.join("out/sweep.json")).unwrap();
    assert_eq!(stdout(&o), file);
}

#[test]
fn thread_count_does_not_change_the_report() {
    let dir = TempDir::new("threads");
    let spec = dir.file("s.yaml", ZONE_SPEC);
    let (a, b) = (dir.join("a"), dir.join("b"));
    let one = sweep(
        &spec,
        &["--out", &a.display().to_string(), "--threads", "1"],
    );
    let two = sweep(
        &spec,
        &["--out", &b.display().to_string(), "--threads", "2"],
    );
    assert_eq!(one.status.code(), Some(0), "stderr: {}", stderr(&one));
    assert_eq!(two.status.code(), Some(0), "stderr: {}", stderr(&two));
    assert_eq!(stdout(&one), stdout(&two));
    for f in [
        "sweep.csv",
        "sweep.json",
        "heatmap-goblin.svg",
        "heatmap-goblin.png",
    ] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f} differs between 1 and 2 threads"
        );
    }
}

#[test]
fn command_line_runs_and_seed_override_the_spec() {
    let dir = TempDir::new("overrides");
    let spec = dir.file("s.yaml", ZONE_SPEC);
    let same = dir.file(
        "t.yaml",
        &ZONE_SPEC
            .replace("runs: 6", "runs: 4")
            .replace("seed: 1", "seed: 9"),
    );
    let (a, b) = (dir.join("a"), dir.join("b"));
    let over = sweep(
        &spec,
        &[
            "--runs",
            "4",
            "--seed",
            "9",
            "--out",
            &a.display().to_string(),
            "--format",
            "json",
        ],
    );
    let written = sweep(
        &same,
        &["--out", &b.display().to_string(), "--format", "json"],
    );
    assert_eq!(over.status.code(), Some(0), "stderr: {}", stderr(&over));
    assert_eq!(
        written.status.code(),
        Some(0),
        "stderr: {}",
        stderr(&written)
    );
    let mut x: serde_json::Value = serde_json::from_str(&stdout(&over)).unwrap();
    let mut y: serde_json::Value = serde_json::from_str(&stdout(&written)).unwrap();
    assert_eq!(x["runs"], 4);
    assert_eq!(x["seed"], 9);
    // Only the origin (the spec's file name) differs.
    x["origin"] = serde_json::Value::Null;
    y["origin"] = serde_json::Value::Null;
    assert_eq!(x, y);
    // Without overrides, the spec's values.
    let plain = sweep(
        &spec,
        &["--out", &a.display().to_string(), "--format", "json"],
    );
    let z: serde_json::Value = serde_json::from_str(&stdout(&plain)).unwrap();
    assert_eq!((z["runs"].clone(), z["seed"].clone()), (6.into(), 1.into()));
}

#[test]
fn invalid_squares_exit_2_naming_combatant_square_and_reason() {
    let dir = TempDir::new("invalid");
    let out = dir.join("out").display().to_string();
    let cases: [(&str, &[&str]); 5] = [
        (
            "goblin: { cells: [[3, 1], [0, 4]] }",
            &["placements.goblin.cells[1]", "goblin start (0,4)", "wall"],
        ),
        (
            "goblin: { cells: [[3, 1], [8, 4]] }",
            &[
                "placements.goblin.cells[1]",
                "goblin start (8,4)",
                "off the map",
            ],
        ),
        (
            "goblin: { cell: [3, 25] }",
            &[
                "placements.goblin.cell",
                "goblin start (3,25)",
                "off the map",
            ],
        ),
        (
            "orc: { cell: [4, 8] }\n  goblin: { cells: [[4, 8], [4, 9]] }",
            &[
                "placements.goblin.cells[0]",
                "goblin start (4,8)",
                "overlaps orc",
            ],
        ),
        (
            "goblin: { rect: { from: [5, 1], to: [6, 4] } }",
            &[
                "placements.goblin.rect",
                "goblin start (6,3)",
                "pillar",
                "exclude",
            ],
        ),
    ];
    for (placements, needles) in cases {
        let spec = dir.file(
            "bad.yaml",
            &format!("scenario: sample_arena\nplacements:\n  {placements}\nruns: 2\n"),
        );
        let o = sweep(&spec, &["--out", &out]);
        assert_error(&o, needles);
        assert!(stderr(&o).contains("bad.yaml: "), "{}", stderr(&o));
    }
    assert!(!dir.join("out").exists(), "nothing written on error");
}

#[test]
fn bad_input_exits_2_with_the_field() {
    let dir = TempDir::new("bad");
    let out = dir.join("out").display().to_string();
    let spec = dir.file("s.yaml", ZONE_SPEC);
    assert_error(
        &sweep(&spec, &["--out", &out, "--runs", "0"]),
        &["--runs: "],
    );
    assert_error(
        &sweep(&spec, &["--out", &out, "--threads", "0"]),
        &["--threads: "],
    );
    let missing = dir.join("missing.yaml").display().to_string();
    assert_error(
        &sweep(&missing, &["--out", &out]),
        &["missing.yaml", "cannot read"],
    );
    let typo = dir.file("typo.yaml", "scenario: sample_arena\nrunz: 3\n");
    assert_error(&sweep(&typo, &["--out", &out]), &["typo.yaml", "runz"]);
    let unknown = dir.file("u.yaml", "scenario: nope\n");
    assert_error(
        &sweep(&unknown, &["--out", &out]),
        &["u.yaml: scenario", "nope"],
    );
    let id = dir.file(
        "id.yaml",
        "scenario: sample_arena\nplacements: {ogre: {cell: [3, 3]}}\n",
    );
    assert_error(
        &sweep(&id, &["--out", &out]),
        &["id.yaml: placements.ogre", "unknown combatant id"],
    );
    let o = Command::new(BIN)
        .args([
            "sweep",
            &spec,
            "--out",
            &out,
            "--data-dir",
            "/nonexistent-pf1e",
        ])
        .output()
        .unwrap();
    assert_error(&o, &["--data-dir"]);
    // Flat options and the subcommand do not mix (clap's usage error, exit 2).
    let o = Command::new(BIN)
        .args(["--runs", "3", "sweep", &spec, "--out", &out])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // `--out` is required.
    let o = Command::new(BIN).args(["sweep", &spec]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--out"), "{}", stderr(&o));
}

#[test]
fn overlapping_combinations_are_reported_not_errors() {
    let dir = TempDir::new("overlap");
    let spec = dir.file(
        "s.yaml",
        "scenario: sample_arena\nplacements:\n  goblin: { cells: [[3, 1], [3, 2]] }\n  goblin-2: { cells: [[3, 2], [3, 3]] }\nruns: 2\n",
    );
    let o = sweep(&spec, &["--out", &dir.join("out").display().to_string()]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("Placements: 3 — 4 combinations (1 excluded)"),
        "{text}"
    );
    assert!(
        text.contains(
            "excluded: 1 × goblin and goblin-2 overlap (first: goblin (3,2), goblin-2 (3,2))"
        ),
        "{text}"
    );
    assert!(dir.join("out/heatmap-goblin-2.png").is_file());
}

/// A directory that exists and in which no file can be created, if this system has one:
/// a read-only directory (0o555) for a normal user; for root, who may write there anyway,
/// Linux's /sys (sysfs refuses new files to everyone).
fn unwritable_dir(dir: &TempDir) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let ro = dir.join("read-only");
    std::fs::create_dir_all(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let cannot_write = |d: &Path| {
        let probe = d.join("pf1e-test-probe");
        let created = std::fs::write(&probe, b"x").is_ok();
        if created {
            let _ = std::fs::remove_file(&probe);
        }
        d.is_dir() && !created
    };
    if cannot_write(&ro) {
        return Some(ro);
    }
    let sys = PathBuf::from("/sys");
    cannot_write(&sys).then_some(sys)
}

#[test]
fn out_problems_exit_2_before_playing() {
    let dir = TempDir::new("out");
    let spec = dir.file("s.yaml", ZONE_SPEC);
    // 7 placements × 1,000,000 runs would take very long: every check comes first.
    let run = |out: &str| {
        let t0 = std::time::Instant::now();
        let o = sweep(&spec, &["--out", out, "--runs", "1000000"]);
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(60),
            "{:?}",
            t0.elapsed()
        );
        o
    };
    // An existing regular file.
    let file = dir.file("plain.txt", "not a directory");
    assert_error(&run(&file), &["--out: ", "plain.txt: is not a directory"]);
    // A directory that cannot be created (its parent is a file).
    let under = format!("{file}/sub");
    assert_error(
        &run(&under),
        &["--out: ", "plain.txt/sub: cannot create the directory: "],
    );
    // One of the files to replace is a directory, or read-only.
    let out = dir.join("out");
    std::fs::create_dir_all(out.join("sweep.csv")).unwrap();
    assert_error(
        &run(&out.display().to_string()),
        &["--out: ", "sweep.csv: is a directory"],
    );
    std::fs::remove_dir(out.join("sweep.csv")).unwrap();
    // An existing directory where no file can be created.
    match unwritable_dir(&dir) {
        Some(ro) => {
            let o = run(&ro.display().to_string());
            assert_error(&o, &["--out: ", "cannot create files in it: "]);
            assert!(
                stderr(&o).contains(&ro.display().to_string()),
                "{}",
                stderr(&o)
            );
        }
        None => eprintln!("no unwritable directory on this system: that case is not tested"),
    }
    // Nothing is left behind by the checks.
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);
}

#[test]
fn text_report_escapes_control_characters() {
    let dir = TempDir::new("escape");
    let spec = dir.file(
        "s.yaml",
        "scenario: sample_arena\n\
         description: \"line1\\nline2 \\e[31mRED\\e[0m \\u0007bell\"\n\
         placements:\n  goblin: { cells: [[3, 1]] }\nruns: 1\n",
    );
    let o = sweep(&spec, &["--out", &dir.join("out").display().to_string()]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let text = stdout(&o);
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "{text:?}"
    );
    assert!(
        text.contains("  line1\n  line2 \\u{1b}[31mRED\\u{1b}[0m \\u{7}bell\n"),
        "{text}"
    );
    // One of everything, in the singular.
    assert!(text.contains(": 1 square\n"), "{text}");
    assert!(text.contains("= 1 combat;"), "{text}");
    // The JSON file keeps the description (JSON escapes it).
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/sweep.json")).unwrap())
            .unwrap();
    assert_eq!(
        json["description"],
        "line1\nline2 \u{1b}[31mRED\u{1b}[0m \u{7}bell"
    );
    // Errors quoting a control character stay on one line, escaped.
    let bad = dir.file(
        "bad.yaml",
        "scenario: sample_arena\nplacements: {\"a\\nb\\e[2J\": {cell: [3, 3]}}\n",
    );
    let o = sweep(&bad, &["--out", &dir.join("out").display().to_string()]);
    assert_error(
        &o,
        &[r#"placements["a\nb\u{1b}[2J"]"#, "unknown combatant id"],
    );
    assert!(!stderr(&o).contains('\u{1b}'), "{}", stderr(&o));
}

#[test]
fn a_sample_over_the_placement_limit_names_sample_size() {
    let dir = TempDir::new("sample");
    // 36 × 18 × 16 × 11 = 114,048 playable combinations; a sample of 100,001 is too many.
    let cells = |it: &mut dyn Iterator<Item = (i32, i32)>| {
        let v: Vec<String> = it.map(|(r, c)| format!("[{r}, {c}]")).collect();
        format!("{{ cells: [{}] }}", v.join(", "))
    };
    let row = |r: i32| (1..=18).map(move |c| (r, c));
    let spec = format!(
        "scenario: sample_arena\nplacements:\n  goblin: {}\n  goblin-2: {}\n  goblin-3: {}\n  orc: {}\nruns: 1\nsample: {{size: 100001}}\n",
        cells(&mut row(3).chain(row(4))),
        cells(&mut row(5)),
        cells(&mut row(6).filter(|&(_, c)| c != 3 && c != 16)),
        cells(
            &mut (13..=18)
                .map(|c| (1, c))
                .chain([13, 14, 15, 17, 18].map(|c| (2, c)))
        ),
    );
    let spec = dir.file("big.yaml", &spec);
    let o = sweep(&spec, &["--out", &dir.join("out").display().to_string()]);
    assert_error(
        &o,
        &["big.yaml: sample.size: ", "at most 100000", "got 100001"],
    );
}
