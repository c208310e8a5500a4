//! End-to-end tests of the `pf1e-sim` binary: bad inputs exit 2 with a message naming the
//! problem; good inputs print a deterministic report.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_pf1e-sim");

fn data(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data")
        .join(rel)
        .display()
        .to_string()
}

fn arena() -> String {
    data("maps/sample_arena.yaml")
}
fn goblin() -> String {
    data("monsters/goblin.json")
}
fn orc() -> String {
    data("monsters/orc.json")
}

/// A temporary file with a unique name, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(stem: &str, ext: &str, contents: &str) -> TempFile {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "pf1e-sim-cli-{}-{n}-{stem}.{ext}",
            std::process::id()
        ));
        std::fs::write(&path, contents).expect("write temp file");
        TempFile(path)
    }
    fn path(&self) -> String {
        self.0.display().to_string()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn sim(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run pf1e-sim")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

/// Asserts exit code 2, a one-line `pf1e-sim: error:` message (unless from clap), and that
/// stderr mentions every needle.
fn assert_usage_error(o: &Output, needles: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert!(o.stdout.is_empty(), "nothing on stdout on error");
    for n in needles {
        assert!(err.contains(n), "stderr should mention {n:?}: {err}");
    }
}

fn assert_one_line_error(o: &Output, needles: &[&str]) {
    assert_usage_error(o, needles);
    let err = stderr(o);
    assert!(err.starts_with("pf1e-sim: error: "), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
}

/// The standard 3 goblins vs 2 orcs command line on the sample arena.
fn standard_args(runs: &str) -> Vec<String> {
    let (map, g, o) = (arena(), goblin(), orc());
    [
        "--map", &map, "--side", "players", &g, &g, &g, "--side", "monsters", &o, &o, "--runs",
        runs, "--seed", "1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn run_owned(args: &[String]) -> Output {
    sim(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

// ---------------------------------------------------------------- usage errors (no engine)

#[test]
fn missing_map_is_a_usage_error() {
    let g = goblin();
    let o = sim(&["--side", "players", &g]);
    assert_usage_error(&o, &["--map"]);
}

#[test]
fn runs_zero_is_a_usage_error() {
    let (map, g, o) = (arena(), goblin(), orc());
    let out = sim(&[
        "--map", &map, "--side", "players", &g, "--side", "monsters", &o, "--runs", "0",
    ]);
    assert_one_line_error(&out, &["--runs"]);
}

#[test]
fn runs_and_threads_beyond_the_limits_are_usage_errors() {
    let (map, g, o) = (arena(), goblin(), orc());
    let base = [
        "--map", &map, "--side", "players", &g, "--side", "monsters", &o,
    ];
    let mut a = base.to_vec();
    a.extend(["--runs", "1000000000"]);
    assert_one_line_error(&sim(&a), &["--runs", "1000000"]);
    let mut a = base.to_vec();
    a.extend(["--threads", "100000"]);
    assert_one_line_error(&sim(&a), &["--threads", "1024"]);
}

#[test]
fn round_cap_zero_and_threads_zero_are_usage_errors() {
    let (map, g, o) = (arena(), goblin(), orc());
    let base = [
        "--map", &map, "--side", "players", &g, "--side", "monsters", &o,
    ];
    let mut a = base.to_vec();
    a.extend(["--round-cap", "0"]);
    assert_one_line_error(&sim(&a), &["--round-cap"]);
    let mut a = base.to_vec();
    a.extend(["--threads", "0"]);
    assert_one_line_error(&sim(&a), &["--threads"]);
}

#[test]
fn bad_lang_is_a_usage_error() {
    let (map, g, o) = (arena(), goblin(), orc());
    let out = sim(&[
        "--map", &map, "--side", "players", &g, "--side", "monsters", &o, "--lang", "de",
    ]);
    assert_usage_error(&out, &["--lang", "de"]);
}

#[test]
fn side_without_file_is_a_usage_error() {
    let (map, g) = (arena(), goblin());
    let out = sim(&["--map", &map, "--side", "players", &g, "--side", "monsters"]);
    assert_one_line_error(&out, &["--side monsters", "no combatant file"]);
}

#[test]
fn no_side_is_a_usage_error() {
    let map = arena();
    let out = sim(&["--map", &map]);
    assert_one_line_error(&out, &["--side"]);
}

#[test]
fn help_exits_zero() {
    let o = sim(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    for flag in [
        "--map",
        "--side",
        "--runs",
        "--seed",
        "--round-cap",
        "--transcript",
    ] {
        assert!(out.contains(flag), "{out}");
    }
}

// ------------------------------------------------------ data errors (need the engine + data)

#[test]
fn missing_map_file_is_a_data_error() {
    let g = goblin();
    let missing = std::env::temp_dir().join(format!(
        "pf1e-sim-cli-{}-no-such-map.yaml",
        std::process::id()
    ));
    let missing = missing.display().to_string();
    let out = sim(&["--map", &missing, "--side", "players", &g]);
    assert_one_line_error(&out, &[&missing]);
}

#[test]
fn malformed_map_is_a_data_error() {
    let map = TempFile::new("bad-map", "yaml", "name: [unclosed\nterrain: |\n  ###\n");
    let (g, o) = (goblin(), orc());
    let out = sim(&[
        "--map",
        &map.path(),
        "--side",
        "players",
        &g,
        "--side",
        "monsters",
        &o,
    ]);
    assert_one_line_error(&out, &[&map.path()]);
}

#[test]
fn side_not_in_deployment_is_a_data_error() {
    let (map, g, o) = (arena(), goblin(), orc());
    let out = sim(&[
        "--map", &map, "--side", "players", &g, "--side", "dragons", &o,
    ]);
    assert_one_line_error(&out, &["dragons"]);
}

#[test]
fn deployment_side_missing_is_a_data_error() {
    let (map, g) = (arena(), goblin());
    let out = sim(&["--map", &map, "--side", "players", &g]);
    assert_one_line_error(&out, &["monsters"]);
}

#[test]
fn combatant_with_unknown_field_is_a_data_error() {
    let text = std::fs::read_to_string(goblin()).expect("read goblin.json");
    let bad = text.replacen('{', "{\n  \"hit_dice_typo\": 3,", 1);
    let file = TempFile::new("goblin-typo", "json", &bad);
    let (map, o) = (arena(), orc());
    let out = sim(&[
        "--map",
        &map,
        "--side",
        "players",
        &file.path(),
        "--side",
        "monsters",
        &o,
    ]);
    assert_one_line_error(&out, &[&file.path(), "hit_dice_typo"]);
}

#[test]
fn missing_combatant_file_is_a_data_error() {
    let (map, o) = (arena(), orc());
    let missing = std::env::temp_dir()
        .join(format!("pf1e-sim-cli-{}-no-such.json", std::process::id()))
        .display()
        .to_string();
    let out = sim(&[
        "--map", &map, "--side", "players", &missing, "--side", "monsters", &o,
    ]);
    assert_one_line_error(&out, &[&missing]);
}

// ---------------------------------------------------------------- successful simulations

#[test]
fn french_report_for_goblins_vs_orcs() {
    let mut args = standard_args("200");
    args.extend(["--lang".into(), "fr".into()]);
    let o = run_owned(&args);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    for needle in [
        "=== Rapport d'équilibrage ===\n",
        "Carte\u{a0}: Arène d'essai\n",
        "players\u{a0}: 3 combattants\n",
        "monsters\u{a0}: 2 combattants\n",
        "200 combats simulés (graine 1, plafond de 100 rounds)\n",
        "Victoires players\u{a0}: ",
        "Victoires monsters\u{a0}: ",
        "— bande 3σ\u{a0}: [",
        "Nuls\u{a0}: ",
        "Rounds moyens\u{a0}: ",
        "Attrition moyenne par combattant",
        "goblin-3",
        "orc-2",
        "ChaCha8Rng",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in\n{out}");
    }
}

#[test]
fn same_command_gives_identical_output() {
    let args = standard_args("200");
    let a = run_owned(&args);
    let b = run_owned(&args);
    assert_eq!(a.status.code(), Some(0), "stderr: {}", stderr(&a));
    assert_eq!(stdout(&a), stdout(&b));
}

#[test]
fn thread_count_does_not_change_the_result() {
    let mut one = standard_args("200");
    one.extend(["--threads".into(), "1".into(), "--transcript".into()]);
    let mut two = standard_args("200");
    two.extend(["--threads".into(), "2".into(), "--transcript".into()]);
    let a = run_owned(&one);
    let b = run_owned(&two);
    assert_eq!(a.status.code(), Some(0), "stderr: {}", stderr(&a));
    assert_eq!(b.status.code(), Some(0), "stderr: {}", stderr(&b));
    assert_eq!(stdout(&a), stdout(&b));
}

#[test]
fn json_output_counts_add_up() {
    let mut args = standard_args("200");
    args.extend(["--format".into(), "json".into(), "--transcript".into()]);
    let o = run_owned(&args);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
    assert_eq!(v["runs"], 200);
    assert_eq!(v["seed"], 1);
    assert_eq!(v["round_cap"], 100);
    assert_eq!(v["map"], "Arène d'essai");
    let sides = v["sides"].as_array().expect("sides");
    assert_eq!(sides.len(), 2);
    let wins: u64 = sides.iter().map(|s| s["wins"].as_u64().unwrap()).sum();
    assert_eq!(wins + v["draws"].as_u64().unwrap(), 200);
    for s in sides {
        let [lo, hi] = [s["band_3sigma"][0].as_f64(), s["band_3sigma"][1].as_f64()];
        let (lo, hi, p) = (lo.unwrap(), hi.unwrap(), s["rate"].as_f64().unwrap());
        assert!((0.0..=p).contains(&lo) && (p..=1.0).contains(&hi));
        let [wl, wh] = [
            s["wilson_3sigma"][0].as_f64(),
            s["wilson_3sigma"][1].as_f64(),
        ];
        assert!(wl.unwrap() <= p && p <= wh.unwrap());
    }
    assert_eq!(v["combatants"].as_array().unwrap().len(), 5);
    assert!(!v["transcript"].as_array().expect("transcript").is_empty());
    assert_eq!(v["rng"], pf1e_engine::dice::RNG_VERSION);
}

#[test]
fn english_report_and_transcript() {
    let mut args = standard_args("50");
    args.extend(["--transcript".into()]);
    let o = run_owned(&args);
    // English is the default: `--lang en` says the same.
    let mut en = args.clone();
    en.extend(["--lang".into(), "en".into()]);
    assert_eq!(stdout(&run_owned(&en)), stdout(&o));
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("=== Transcript of the first combat ===\n"),
        "{out}"
    );
    for needle in [
        "=== Balance report ===\n",
        "Map: Arène d'essai\n",
        "50 combats simulated (seed 1, cap 100 rounds)\n",
        "Wins players: ",
        "— 3σ band: [",
        "Draws: ",
        "Mean rounds: ",
        "Mean attrition per combatant",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in\n{out}");
    }
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[1].starts_with("Round  Combatant"), "{}", lines[1]);
    assert!(lines[2].starts_with("-----  "), "{}", lines[2]);
}

/// `--replay-html` never replaces a file the run read: the page aimed at a combatant file of
/// `--side` (spelled differently: `dir/./name`) is refused, exit 2 naming the option, and the
/// file is left as it was.
#[test]
fn replay_html_refuses_to_overwrite_an_input() {
    let g = TempFile::new(
        "goblin",
        "json",
        &std::fs::read_to_string(goblin()).unwrap(),
    );
    let dir = g.0.parent().unwrap().display().to_string();
    let name = g.0.file_name().unwrap().to_string_lossy().into_owned();
    let aliased = format!("{dir}/./{name}");
    let (map, o) = (arena(), orc());
    let out = sim(&[
        "--map",
        &map,
        "--side",
        "players",
        &g.path(),
        "--side",
        "monsters",
        &o,
        "--runs",
        "1",
        "--replay-html",
        &aliased,
    ]);
    assert_one_line_error(&out, &["--replay-html", "is an input of this run"]);
    assert_eq!(
        std::fs::read_to_string(&g.0).unwrap(),
        std::fs::read_to_string(goblin()).unwrap()
    );
}

/// `pf1e-sim replay T -o T'` where T' is T by another spelling (or a hard link) is refused
/// before the transcript is read as one (the page would replace it).
#[test]
fn replay_refuses_to_write_over_its_transcript_by_any_name() {
    let t = TempFile::new("transcript", "json", "{}");
    let dir = t.0.parent().unwrap().display().to_string();
    let name = t.0.file_name().unwrap().to_string_lossy().into_owned();
    let aliased = format!("{dir}/./{name}");
    let out = sim(&["replay", &t.path(), "-o", &aliased]);
    assert_one_line_error(&out, &["--out", "is the transcript itself"]);
    let link = t.0.with_extension("link.json");
    let _ = std::fs::remove_file(&link);
    std::fs::hard_link(&t.0, &link).unwrap();
    let out = sim(&["replay", &t.path(), "-o", &link.display().to_string()]);
    let _ = std::fs::remove_file(&link);
    assert_one_line_error(&out, &["--out", "is the transcript itself"]);
    assert_eq!(std::fs::read_to_string(&t.0).unwrap(), "{}");
}
