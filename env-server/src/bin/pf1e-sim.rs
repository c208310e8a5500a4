//! `pf1e-sim`: Monte Carlo balance report of an encounter (map + sides of combatants), and
//! position sweeps (`pf1e-sim sweep`).
//!
//! ```text
//! pf1e-sim (--scenario NAME|FILE | --map MAP --side NAME FILE... [--side NAME FILE...])
//!          [--runs 1000] [--seed 1] [--round-cap N] [--transcript] [--simple-monster-death]
//!          [--lang en|fr] [--format text|json] [--threads N] [--tactics SIDE=FILE]...
//!          [--replay-html FILE] [--data-dir DIR]
//! pf1e-sim sweep SPEC --out DIR [--runs N] [--seed S] [--threads N] [--format text|json]
//!          [--lang en|fr] [--data-dir DIR]
//! pf1e-sim replay TRANSCRIPT [--out FILE] [--data-dir DIR]
//! ```
//!
//! MAP, the combatant FILEs, the tactics FILEs, `--scenario` and SPEC are files, or names of
//! the data directory's `maps/`, `monsters/` (then `pcs/`), `tactics/`, `scenarios/` and
//! `sweeps/` (an argument naming an existing file is that file); an unknown name exits 2
//! naming the flag and the close names.
//!
//! `--replay-html FILE` writes the replay viewer page ([`pf1e_env_server::replay`]) of the
//! first combat (seed `--seed`); `replay` writes it for an ExportTranscript document
//! (`transcript_json`, saved to a file), next to it by default (`TRANSCRIPT` with `.html`).
//!
//! `sweep` evaluates every placement of a sweep spec ([`pf1e_env_server::sweep`]), prints the
//! ranked table (or the JSON document) on stdout and writes `sweep.csv`, `sweep.json` and, per
//! swept combatant, `heatmap-<id>.png` and `heatmap-<id>.svg` into `--out`.
//!
//! Exit codes: 0 when the report was printed; 2 on any usage or data error, with a one-line
//! message `pf1e-sim: error: ...` on stderr (clap's own usage errors also exit 2). Control
//! characters in that line (from a path, a spec or a data file) are escaped (`\u{1b}`), so it
//! stays one line and cannot drive the terminal; so are those of the text reports.
//!
//! `sweep` checks `--out` before playing: it is created if missing, must be a directory in
//! which a file can be created, and the files to be replaced must be writable files.
#![forbid(unsafe_code)]

use clap::{ArgAction, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use pf1e_engine::content::encounter::RulesOptions;
use pf1e_engine::{CombatantSpec, Encounter, Interrupted, MapSpec, ReplayStop, WorkBudget};
use pf1e_env_server::heatmap::{render_png, render_svg, HeatmapError};
use pf1e_env_server::montecarlo::{run_batch, BatchResult};
use pf1e_env_server::replay;
use pf1e_env_server::report::{escape_controls, render_json, render_text, render_transcript, Lang};
use pf1e_env_server::scenarios::ScenarioStore;
use pf1e_env_server::service::{read_offline, DEFAULT_MAX_TURNS_PER_CALL, MAX_TRANSCRIPT_BYTES};
use pf1e_env_server::sweep::{
    assemble_report, check_runs, run_placements, SweepError, SweepPlan, SweepReport, SweepSpec,
    MAX_SPEC_BYTES,
};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The allocator of the shipped binaries (see `pf1e-env-server`), so figures match them.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// The text report (and transcript table).
    Text,
    /// One JSON document.
    Json,
}

/// Monte Carlo combat simulator for Pathfinder 1e: plays an encounter many times with seeded
/// dice and prints a balance report (win rates with 3σ bands, draws, mean rounds, attrition).
#[derive(Debug, Parser)]
#[command(
    name = "pf1e-sim",
    version,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    /// A subcommand; without one, the Monte Carlo report of `--map` and `--side`.
    #[command(subcommand)]
    command: Option<Command>,
    /// A scenario: a bundled scenario's name (`casters`: data/scenarios/casters.yaml) or a
    /// scenario YAML file (whose map and combatant names resolve in the data directory).
    /// Instead of --map and --side.
    #[arg(long, value_name = "NAME|FILE", conflicts_with_all = ["map", "side"])]
    scenario: Option<String>,
    /// Map: a map YAML file, or a name of data/maps/ (`sample_arena`).
    #[arg(long, value_name = "MAP", required_unless_present = "scenario")]
    map: Option<String>,
    /// A side: its name (as in the map's `deployment`) then one or more combatants, each a
    /// combatant JSON file or a name of data/monsters/ or data/pcs/ (`goblin`, `cleric_3`);
    /// repeat for each side. A combatant may be repeated for identical combatants.
    #[arg(long, value_name = "NAME FILE", num_args = 1.., action = ArgAction::Append)]
    side: Vec<String>,
    /// Number of combats to simulate (1 to 1,000,000).
    #[arg(
        long,
        value_name = "N",
        default_value = "1000",
        allow_hyphen_values = true
    )]
    runs: String,
    /// Base seed: combat i uses seed + i (0 to 2^64 - 1).
    #[arg(
        long,
        value_name = "S",
        default_value = "1",
        allow_hyphen_values = true
    )]
    seed: String,
    /// Rounds after which a combat is a draw (1 to 100,000); default: the scenario's, else
    /// 100.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    round_cap: Option<String>,
    /// Print the first combat's transcript as a table before the report.
    #[arg(long)]
    transcript: bool,
    /// Monsters die at hp <= 0 instead of hp <= -CON (never player characters); also on when
    /// the scenario says so.
    #[arg(long)]
    simple_monster_death: bool,
    /// Report language: English, or French with French typography.
    #[arg(long, value_enum, default_value_t = Lang::En)]
    lang: Lang,
    /// Data directory where names resolve (maps/, monsters/, pcs/, scenarios/, tactics/);
    /// default: $PF1E_DATA_DIR, else ./data. Only read for arguments that are not files.
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Worker threads (1 to 1024); default: one per core.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    threads: Option<String>,
    /// The tactics SIDE plays: a tactics spec file, YAML or JSON, or a name of data/tactics/
    /// (see docs/tactics.md); repeat for each side. Sides without one play the default policy.
    #[arg(long, value_name = "SIDE=FILE", action = ArgAction::Append)]
    tactics: Vec<String>,
    /// Write the replay viewer of the first combat (seed --seed) to FILE: a self-contained
    /// HTML page (see docs/replay-viewer.md).
    #[arg(long, value_name = "FILE")]
    replay_html: Option<PathBuf>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Position sweep: play an encounter for every placement of a sweep spec, rank the
    /// placements by a side's win rate, write sweep.csv, sweep.json and heatmaps into --out.
    Sweep(SweepArgs),
    /// Replay viewer of a transcript: read an ExportTranscript document (its transcript_json
    /// saved to a file), replay it on the bundled scenario data and write a self-contained
    /// HTML page that steps through it (see docs/replay-viewer.md).
    Replay(ReplayArgs),
}

/// Arguments of `pf1e-sim replay`.
#[derive(Debug, Args)]
struct ReplayArgs {
    /// The transcript document (ExportTranscript's transcript_json), a JSON file.
    #[arg(value_name = "TRANSCRIPT")]
    transcript: PathBuf,
    /// The page to write; default: TRANSCRIPT with the extension .html, next to it.
    #[arg(long, short = 'o', value_name = "FILE")]
    out: Option<PathBuf>,
    /// Data directory holding maps/, monsters/, pcs/, scenarios/ (the document's named
    /// scenario); default: $PF1E_DATA_DIR, else ./data.
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Most default-policy turns the replay may run (a transcript is client data: it may ask
    /// for a combat that never ends); default: the server's --max-turns-per-call default for
    /// each history entry and one more. Beyond: exit 2 naming this option.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_turns: Option<u64>,
    /// Longest the replay may run, in seconds (default: the server's --max-call-secs
    /// default, 300). Beyond: exit 2 naming this option.
    #[arg(long, value_name = "S", default_value_t = 300,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    max_secs: u64,
    /// Most memory the process may hold while replaying, in MiB (its resident set, read from
    /// /proc/self/statm: Linux only). The page keeps a copy of the fight per step, so a long
    /// fight costs memory quadratically in its length. Beyond: exit 2 naming this option.
    #[arg(long, value_name = "MIB", default_value_t = 2048,
          value_parser = clap::value_parser!(u64).range(16..=1_048_576))]
    max_memory_mib: u64,
}

/// Resident set of this process in bytes (`/proc/self/statm`, Linux), `None` elsewhere.
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages.saturating_mul(4096))
}

/// Arguments of `pf1e-sim sweep`.
#[derive(Debug, Args)]
struct SweepArgs {
    /// Sweep spec: a YAML or JSON file, or a name of data/sweeps/ (`sample_arena_archer`).
    #[arg(value_name = "SPEC")]
    spec: String,
    /// Combats per placement (1 to 1,000,000); overrides the spec's `runs`.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    runs: Option<String>,
    /// Base seed of the run seeds (0 to 2^64 - 1); overrides the spec's `seed`.
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    seed: Option<String>,
    /// Directory receiving sweep.csv, sweep.json and, per swept combatant ID, heatmap-ID.png
    /// and heatmap-ID.svg (created if missing; files of those names are replaced).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Worker threads (1 to 1024); default: one per core. The report does not depend on it.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    threads: Option<String>,
    /// What stdout gets: the ranked text table or the JSON document.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Language of the text table: English, or French with French typography.
    #[arg(long, value_enum, default_value_t = Lang::En)]
    lang: Lang,
    /// Data directory holding maps/, monsters/, pcs/, scenarios/, sweeps/; default:
    /// $PF1E_DATA_DIR, else ./data.
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
}

/// Read a file the user named, of at most `max` bytes, through a bounded reader
/// (`Read::take(max + 1)`): a longer file or an endless one (`/dev/zero`) is refused after
/// `max + 1` bytes with "the file is more than N bytes (the limit)".
fn read_file(path: &Path, max: usize) -> Result<String, pf1e_engine::content::ReadError> {
    pf1e_engine::content::read_text_bounded(path, max)
}

/// A usage or data error: printed as `pf1e-sim: error: {0}`, exit code 2.
#[derive(Debug)]
struct UsageError(String);

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let Some(command) = &cli.command {
        let done = match command {
            Command::Sweep(args) => sweep(args),
            Command::Replay(args) => replay(args),
        };
        return match done {
            Ok(()) => ExitCode::SUCCESS,
            Err(UsageError(msg)) => {
                eprintln!("pf1e-sim: error: {}", escape_controls(&msg));
                ExitCode::from(2)
            }
        };
    }
    // `--side` values grouped by occurrence: `[name, file, file…]` per `--side`.
    let sides: Vec<Vec<String>> = matches
        .get_occurrences::<String>("side")
        .map(|occ| occ.map(|vals| vals.cloned().collect()).collect())
        .unwrap_or_default();
    match run(&cli, &sides) {
        Ok(()) => ExitCode::SUCCESS,
        Err(UsageError(msg)) => {
            eprintln!("pf1e-sim: error: {}", escape_controls(&msg));
            ExitCode::from(2)
        }
    }
}

/// Most combats per invocation: every run's record is kept in memory (a few hundred bytes each).
const MAX_RUNS: u32 = 1_000_000;
/// Most worker threads.
const MAX_THREADS: usize = 1024;
/// Most `--side` flags (the engine's limit on the sides of an encounter).
const MAX_SIDES: usize = pf1e_engine::content::encounter::MAX_SIDES;

/// A numeric flag's value: an integer in `lo..=hi`, else a usage error naming the flag, the
/// value as written and the range (`--runs: -1 is out of range: must be in 1..=1000000`).
/// The flags take hyphen values (`--runs -1`), so a negative number reaches this check
/// instead of being read as an unknown option.
fn int_flag(flag: &str, text: &str, lo: u64, hi: u64) -> Result<u64, UsageError> {
    let t = text.trim();
    match t.parse::<i128>() {
        Ok(v) if (i128::from(lo)..=i128::from(hi)).contains(&v) => Ok(v as u64),
        Ok(_) => Err(UsageError(format!(
            "{flag}: {t} is out of range: must be in {lo}..={hi}"
        ))),
        Err(_)
            if !t.is_empty()
                && t.trim_start_matches(['-', '+'])
                    .bytes()
                    .all(|b| b.is_ascii_digit()) =>
        {
            Err(UsageError(format!(
                "{flag}: {t} is out of range: must be in {lo}..={hi}"
            )))
        }
        Err(_) => Err(UsageError(format!(
            "{flag}: {text:?} is not an integer: must be in {lo}..={hi}"
        ))),
    }
}

/// The validated numeric flags of the Monte Carlo report.
struct Numbers {
    runs: u32,
    seed: u64,
    /// `--round-cap`, if given.
    round_cap: Option<u32>,
    threads: Option<usize>,
}

fn numbers(cli: &Cli) -> Result<Numbers, UsageError> {
    Ok(Numbers {
        runs: int_flag("--runs", &cli.runs, 1, u64::from(MAX_RUNS))? as u32,
        seed: int_flag("--seed", &cli.seed, 0, u64::MAX)?,
        round_cap: cli
            .round_cap
            .as_deref()
            .map(|r| {
                int_flag(
                    "--round-cap",
                    r,
                    1,
                    u64::from(pf1e_env_server::scenarios::MAX_ROUND_CAP),
                )
                .map(|v| v as u32)
            })
            .transpose()?,
        threads: cli
            .threads
            .as_deref()
            .map(|t| int_flag("--threads", t, 1, MAX_THREADS as u64).map(|v| v as usize))
            .transpose()?,
    })
}

fn run(cli: &Cli, side_args: &[Vec<String>]) -> Result<(), UsageError> {
    let nums = numbers(cli)?;
    let data = DataDir::new(cli.data_dir.as_deref());
    let (mut encounter, map_path) = match &cli.scenario {
        Some(arg) => scenario_encounter(arg, &data, &nums, cli.simple_monster_death)?,
        None => flat_encounter(cli, side_args, &data, &nums)?,
    };
    for arg in &cli.tactics {
        encounter = attach_tactics(&encounter, arg, &data)?;
    }
    let encounter = Arc::new(encounter);
    if let Some(path) = &cli.replay_html {
        check_writable(path, "--replay-html")?;
        // Every argument that may be an input file (a `SIDE=FILE` tactics argument by its
        // file part), and the map the scenario read.
        let inputs = cli
            .scenario
            .iter()
            .chain(&cli.map)
            .chain(&cli.side)
            .map(String::as_str)
            .chain(
                cli.tactics
                    .iter()
                    .map(|t| t.split_once('=').map_or(t.as_str(), |(_, f)| f)),
            )
            .map(Path::new)
            .chain(std::iter::once(map_path.as_path()));
        refuse_overwriting(path, inputs, "--replay-html")?;
    }

    let result = match nums.threads {
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| UsageError(format!("--threads {n}: {e}")))?;
            pool.install(|| simulate(Arc::clone(&encounter), &nums))
        }
        None => simulate(Arc::clone(&encounter), &nums),
    };

    let out = match cli.format {
        Format::Json => render_json(&result, cli.transcript),
        Format::Text => {
            let mut s = String::new();
            if cli.transcript {
                s.push_str(&render_transcript(&result.first_transcript, cli.lang));
                s.push('\n');
            }
            s.push_str(&render_text(&result, cli.lang));
            s
        }
    };
    if let Some(path) = &cli.replay_html {
        write_replay_of_first(
            &encounter,
            nums.seed,
            &result.first_transcript,
            &map_path,
            path,
        )?;
    }
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`pf1e-sim ... | head`) is not an error worth a message.
    let _ = stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush());
    Ok(())
}

/// The encounter of `--map` and `--side` (names resolve in the data directory), and the map
/// file.
fn flat_encounter(
    cli: &Cli,
    side_args: &[Vec<String>],
    data: &DataDir,
    nums: &Numbers,
) -> Result<(Encounter, PathBuf), UsageError> {
    if side_args.len() > MAX_SIDES {
        return Err(UsageError(format!(
            "--side: {} sides given: at most {MAX_SIDES}",
            side_args.len()
        )));
    }
    if side_args.is_empty() {
        return Err(UsageError(
            "no --side given: give each side of the map's deployment with --side NAME FILE... \
             (or a bundled scenario with --scenario NAME)"
                .into(),
        ));
    }
    let mut seen = std::collections::HashSet::new();
    for values in side_args {
        let name = &values[0];
        if values.len() < 2 {
            return Err(UsageError(format!(
                "--side {name}: no combatant file given (expected --side {name} FILE...)"
            )));
        }
        if !seen.insert(name.as_str()) {
            return Err(UsageError(format!("--side {name}: side given twice")));
        }
    }
    let files: usize = side_args.iter().map(|v| v.len() - 1).sum();
    let max_combatants = pf1e_engine::content::encounter::MAX_COMBATANTS;
    if files > max_combatants {
        return Err(UsageError(format!(
            "--side: {files} combatant files given: at most {max_combatants} in all"
        )));
    }
    let map_arg = cli
        .map
        .as_deref()
        .expect("clap requires --map without --scenario or a subcommand");
    let map_path = data.resolve(map_arg, "--map", MAPS)?;
    let map = MapSpec::load(&map_path).map_err(|e| UsageError(e.to_string()))?;
    let mut sides = Vec::with_capacity(side_args.len());
    // A file repeated for identical combatants is read once.
    let mut loaded: std::collections::HashMap<PathBuf, CombatantSpec> = Default::default();
    for values in side_args {
        let (name, files) = values
            .split_first()
            .expect("checked above: a name and at least one file");
        let mut combatants = Vec::with_capacity(files.len());
        for file in files {
            let path = data.resolve(file, &format!("--side {name}"), COMBATANTS)?;
            let spec = match loaded.get(&path) {
                Some(s) => s.clone(),
                None => {
                    let s = CombatantSpec::load(&path).map_err(|e| UsageError(e.to_string()))?;
                    loaded.insert(path.clone(), s.clone());
                    s
                }
            };
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| spec.name.to_lowercase());
            combatants.push((stem, spec));
        }
        sides.push((name.clone(), combatants));
    }
    let options = RulesOptions {
        round_cap: nums
            .round_cap
            .unwrap_or(pf1e_env_server::scenarios::DEFAULT_ROUND_CAP),
        simple_monster_death: cli.simple_monster_death,
    };
    let encounter = Encounter::build(map, sides, options)
        .map_err(|e| UsageError(format!("{}: {e}", map_path.display())))?;
    Ok((encounter, map_path))
}

/// The encounter of `--scenario NAME|FILE` (its map and combatant names resolve in the data
/// directory; `--round-cap` and `--simple-monster-death` override the file's), and its map
/// file.
fn scenario_encounter(
    arg: &str,
    data: &DataDir,
    nums: &Numbers,
    simple_monster_death: bool,
) -> Result<(Encounter, PathBuf), UsageError> {
    let path = data.resolve(arg, "--scenario", SCENARIOS)?;
    let origin = path.display().to_string();
    let text = read_file(&path, pf1e_env_server::scenarios::MAX_SCENARIO_BYTES)
        .map_err(|e| UsageError(format!("--scenario: {origin}: {e}")))?;
    let mut file = pf1e_env_server::scenarios::ScenarioFile::from_yaml_str(&text, &origin)
        .map_err(|e| UsageError(format!("--scenario: {e}")))?;
    if let Some(cap) = nums.round_cap {
        file.round_cap = cap;
    }
    file.simple_monster_death |= simple_monster_death;
    let dir = data.get("--scenario")?;
    let map_path = dir.join("maps").join(format!("{}.yaml", file.map));
    let encounter = ScenarioStore::new(dir)
        .build_file(&file)
        .map_err(|e| UsageError(format!("--scenario: {origin}: {e}")))?;
    Ok((encounter, map_path))
}

/// Where names of a kind live in the data directory: the folders and the file extensions.
type Kind = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
);
/// Maps: `maps/NAME.yaml`.
const MAPS: Kind = ("map", &["maps"], &["yaml"]);
/// Combatants: `monsters/NAME.json`, else `pcs/NAME.json`.
const COMBATANTS: Kind = ("combatant", &["monsters", "pcs"], &["json"]);
/// Scenarios: `scenarios/NAME.yaml`.
const SCENARIOS: Kind = ("scenario", &["scenarios"], &["yaml"]);
/// Sweep specs: `sweeps/NAME.yaml` or `.json`.
const SWEEPS: Kind = ("sweep spec", &["sweeps"], &["yaml", "json"]);
/// Tactics specs: `tactics/NAME.yaml` or `.json`.
const TACTICS: Kind = ("tactics spec", &["tactics"], &["yaml", "json"]);

/// The data directory where names resolve, looked up only when a name needs it.
struct DataDir {
    given: Option<PathBuf>,
}

impl DataDir {
    fn new(given: Option<&Path>) -> DataDir {
        DataDir {
            given: given.map(Path::to_path_buf),
        }
    }

    /// The directory (see [`data_dir`]); errors name `field`, the argument that needed it.
    fn get(&self, field: &str) -> Result<PathBuf, UsageError> {
        data_dir(self.given.as_deref()).map_err(|UsageError(e)| UsageError(format!("{field}: {e}")))
    }

    /// `arg` as a file when one exists at that path or when it is not a name
    /// (`^[a-z0-9_]+$`: a path, whose reading then says what is wrong), else as a name of
    /// `kind` in the data directory (`<data>/<folder>/<arg>.<ext>`, the folders and
    /// extensions in order).
    ///
    /// # Errors
    /// A [`UsageError`] naming `field` and `arg`, listing the close names of that kind (or
    /// all of them when few) when nothing matches.
    fn resolve(&self, arg: &str, field: &str, kind: Kind) -> Result<PathBuf, UsageError> {
        let path = Path::new(arg);
        if path.is_file() {
            return Ok(path.to_path_buf());
        }
        let (what, folders, exts) = kind;
        if !pf1e_env_server::scenarios::is_valid_name(arg) {
            // Not a name (`^[a-z0-9_]+$`): a path, whose reading says what is wrong.
            return Ok(path.to_path_buf());
        }
        let dir = self.get(field)?;
        for folder in folders {
            for ext in exts {
                let p = dir.join(folder).join(format!("{arg}.{ext}"));
                if p.is_file() {
                    return Ok(p);
                }
            }
        }
        let known = names_in(&dir, folders, exts);
        let close = close_names(arg, &known);
        let where_ = folders
            .iter()
            .map(|f| format!("{}/{f}/", dir.display()))
            .collect::<Vec<_>>()
            .join(" or ");
        let hint = if !close.is_empty() {
            format!(" (close names: {})", close.join(", "))
        } else if !known.is_empty() && known.len() <= 12 {
            format!(" (known: {})", known.join(", "))
        } else {
            String::new()
        };
        Err(UsageError(format!(
            "{field}: unknown {what} `{arg}`: no such file, nor in {where_}{hint}"
        )))
    }
}

/// The names (file stems) of the files with one of `exts` in the `folders` of `dir`, sorted,
/// without duplicates.
fn names_in(dir: &Path, folders: &[&str], exts: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = folders
        .iter()
        .filter_map(|f| std::fs::read_dir(dir.join(f)).ok())
        .flatten()
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            let ext = p.extension()?.to_str()?;
            exts.contains(&ext)
                .then(|| p.file_stem()?.to_str().map(str::to_string))
                .flatten()
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The names of `known` close to `arg` (Jaro–Winkler similarity ≥ 0.8, or one containing the
/// other), most similar first, at most 5.
fn close_names(arg: &str, known: &[String]) -> Vec<String> {
    let mut scored: Vec<(f64, &String)> = known
        .iter()
        .map(|k| (strsim::jaro_winkler(arg, k), k))
        .filter(|(score, k)| *score >= 0.8 || k.contains(arg) || arg.contains(k.as_str()))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.into_iter().take(5).map(|(_, k)| k.clone()).collect()
}

/// `--tactics SIDE=FILE`: read, parse and attach the tactics spec (errors name the argument,
/// the file and the field).
fn attach_tactics(
    encounter: &Encounter,
    arg: &str,
    data: &DataDir,
) -> Result<Encounter, UsageError> {
    let err = |what: String| UsageError(format!("--tactics {arg}: {what}"));
    let Some((side, file)) = arg.split_once('=') else {
        return Err(err("expected SIDE=FILE".into()));
    };
    if side.is_empty() || file.is_empty() {
        return Err(err("expected SIDE=FILE".into()));
    }
    let path = data.resolve(file, "--tactics", TACTICS)?;
    let text = read_file(&path, pf1e_engine::tactics::MAX_TACTICS_BYTES)
        .map_err(|e| err(format!("{file}: {e}")))?;
    let spec = pf1e_engine::TacticsSpec::from_yaml_or_json(&text)
        .map_err(|e| err(format!("{file}: {e}")))?;
    if encounter.tactics.contains_key(side) {
        return Err(err(format!("side {side} given twice")));
    }
    if !encounter.sides.iter().any(|s| s == side) {
        return Err(err(format!(
            "unknown side {side}: the encounter has {}",
            encounter.sides.join(", ")
        )));
    }
    encounter
        .with_tactics(side, Arc::new(spec))
        .map_err(|e| err(format!("{file}: {}", e.reason)))
}

/// Run the batch on the current rayon pool, with a progress bar on stderr when it is a
/// terminal.
fn simulate(encounter: Arc<Encounter>, nums: &Numbers) -> BatchResult {
    if !std::io::stderr().is_terminal() {
        return run_batch(encounter, nums.runs, nums.seed, None);
    }
    let bar =
        ProgressBar::with_draw_target(Some(u64::from(nums.runs)), ProgressDrawTarget::stderr());
    bar.set_style(combat_bar_style());
    let tick = |n: u64| bar.inc(n);
    let result = run_batch(encounter, nums.runs, nums.seed, Some(&tick));
    bar.finish_and_clear();
    result
}

/// The progress bar of combats: `[00:00:03] [=====>    ] 20000/70000 combats (6,679/s, ETA 8s)`
/// (a whole number of combats per second, with thousands separators).
fn combat_bar_style() -> ProgressStyle {
    ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] [{wide_bar}] {pos}/{len} combats ({rate}, ETA {eta})",
    )
    .expect("valid progress template")
    .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = write!(w, "{}", per_second(s.per_sec()));
    })
    .progress_chars("=> ")
}

/// A rate as a whole number per second with thousands separators: `6,679/s`; `-/s` while
/// unknown.
fn per_second(rate: f64) -> String {
    if rate.is_finite() && rate >= 0.0 {
        format!("{}/s", HumanCount(rate.round() as u64))
    } else {
        "-/s".into()
    }
}

/// Check, before playing, that `path` can be written: not a directory, its folder exists
/// (errors name `what`, the option).
/// The data directory: `--data-dir`, else `$PF1E_DATA_DIR`, else `./data`.
///
/// # Errors
/// A [`UsageError`] naming `--data-dir` when it is not a directory.
fn data_dir(given: Option<&Path>) -> Result<PathBuf, UsageError> {
    let dir = given
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("PF1E_DATA_DIR").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("data"));
    if !dir.is_dir() {
        return Err(UsageError(format!(
            "--data-dir: {}: not a directory (give --data-dir or set PF1E_DATA_DIR)",
            dir.display()
        )));
    }
    Ok(dir)
}

fn check_writable(path: &Path, what: &str) -> Result<(), UsageError> {
    let err = |why: String| UsageError(format!("{what}: {}: {why}", path.display()));
    if path.is_dir() {
        return Err(err("is a directory".into()));
    }
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(err(format!("no such directory {}", parent.display())));
    }
    Ok(())
}

/// Whether `a` and `b` name the same existing file (through `..`, symbolic links or, on Unix,
/// hard links).
fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if ma.dev() == mb.dev() && ma.ino() == mb.ino() {
            return true;
        }
    }
    let _ = (ma, mb);
    matches!(
        (std::fs::canonicalize(a), std::fs::canonicalize(b)),
        (Ok(x), Ok(y)) if x == y
    )
}

/// Exit 2 (naming `what`) when the output file `out` is one of the `inputs` (the page would
/// replace a file the run read).
fn refuse_overwriting<'a>(
    out: &Path,
    inputs: impl IntoIterator<Item = &'a Path>,
    what: &str,
) -> Result<(), UsageError> {
    match inputs.into_iter().find(|i| same_file(out, i)) {
        Some(i) => Err(UsageError(format!(
            "{what}: {}: is an input of this run ({})",
            out.display(),
            i.display()
        ))),
        None => Ok(()),
    }
}

/// `--replay-html`: replay combat 0 of the batch (seed `seed`, every combatant on the
/// default policy) step by step and write its page; its transcript must be the batch's.
fn write_replay_of_first(
    encounter: &Arc<Encounter>,
    seed: u64,
    first: &[pf1e_engine::episode::LogLine],
    map_path: &Path,
    path: &Path,
) -> Result<(), UsageError> {
    let title = format!(
        "{} ({}), seed {seed}",
        encounter.map.name,
        map_path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    // The batch played this combat already (within the round cap): no budget needed.
    let (doc, ep) = replay::record(
        Arc::clone(encounter),
        seed,
        &[],
        &[],
        title,
        &mut WorkBudget::unlimited(),
    )
    .map_err(|e| UsageError(format!("--replay-html: {e}")))?;
    if ep.transcript() != first {
        return Err(UsageError(
            "--replay-html: internal error: the recorded combat differs from the batch's first"
                .into(),
        ));
    }
    write_page(path, &doc, "--replay-html")
}

/// Write the page of `doc` to `path` and say so on stderr.
fn write_page(path: &Path, doc: &replay::ReplayDoc, what: &str) -> Result<(), UsageError> {
    std::fs::write(path, replay::render_html(doc))
        .map_err(|e| UsageError(format!("{what}: {}: {e}", path.display())))?;
    eprintln!(
        "pf1e-sim: wrote {} ({} steps)",
        escape_controls(&path.display().to_string()),
        doc.frames.len() - 1
    );
    Ok(())
}

/// `pf1e-sim replay`: read the transcript document, check it as ReplayTranscript does,
/// replay it step by step (it must reproduce the document's transcript and outcome) and write
/// the page.
fn replay(args: &ReplayArgs) -> Result<(), UsageError> {
    let file = args.transcript.display().to_string();
    let err = |why: String| UsageError(format!("{file}: {why}"));
    let bytes = read_file(&args.transcript, MAX_TRANSCRIPT_BYTES)
        .map_err(|e| err(e.to_string()))?
        .into_bytes();
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| args.transcript.with_extension("html"));
    if out == args.transcript || same_file(&out, &args.transcript) {
        return Err(UsageError(format!(
            "--out: {}: is the transcript itself",
            out.display()
        )));
    }
    check_writable(&out, "--out")?;
    let data_dir = data_dir(args.data_dir.as_deref())?;
    let t = read_offline(&ScenarioStore::new(data_dir), &bytes).map_err(|e| {
        let msg = e.to_string();
        err(msg
            .strip_prefix("transcript_json.")
            .unwrap_or(&msg)
            .to_string())
    })?;
    let title = format!("{}, seed {}", t.scenario, t.seed);
    // A transcript is client data (unsigned): its replay runs under a work budget, as the
    // server's ReplayTranscript does — turns (one Reset's worth per history entry by
    // default) and wall time.
    let max_turns = args
        .max_turns
        .unwrap_or_else(|| DEFAULT_MAX_TURNS_PER_CALL.saturating_mul(t.history.len() as u64 + 1));
    let until = Instant::now() + Duration::from_secs(args.max_secs);
    let max_bytes = args.max_memory_mib.saturating_mul(1 << 20);
    let over_memory = AtomicBool::new(false);
    let stop = || {
        if resident_bytes().is_some_and(|b| b > max_bytes) {
            over_memory.store(true, std::sync::atomic::Ordering::Relaxed);
            return true;
        }
        Instant::now() >= until
    };
    let mut budget = WorkBudget::new(max_turns, &stop);
    let (doc, ep) = replay::record(
        Arc::clone(&t.encounter),
        t.seed,
        &t.controllers,
        &t.history,
        title,
        &mut budget,
    )
    .map_err(|e| match e {
        ReplayStop::Mismatch(e) => err(e.to_string()),
        ReplayStop::Interrupted(Interrupted::TurnBudget { turns }) => UsageError(format!(
            "--max-turns: the replay of {file} ran {turns} default-policy turns without \
             reproducing the document (raise --max-turns if the transcript is trusted)"
        )),
        ReplayStop::Interrupted(Interrupted::Stopped)
            if over_memory.load(std::sync::atomic::Ordering::Relaxed) =>
        {
            UsageError(format!(
                "--max-memory-mib: the replay of {file} held more than {} MiB without \
                 reproducing the document (raise --max-memory-mib if the transcript is trusted)",
                args.max_memory_mib
            ))
        }
        ReplayStop::Interrupted(Interrupted::Stopped) => UsageError(format!(
            "--max-secs: the replay of {file} ran {} s without reproducing the document \
             (raise --max-secs if the transcript is trusted)",
            args.max_secs
        )),
    })?;
    if let Some(i) = ep
        .history()
        .iter()
        .zip(&t.history)
        .position(|(a, b)| a.results != b.results)
    {
        return Err(err(format!("history[{i}].results: differ from the replay")));
    }
    if let Some(i) = ep
        .transcript()
        .iter()
        .zip(&t.transcript)
        .position(|(a, b)| a != b)
    {
        return Err(err(format!("transcript[{i}]: differs from the replay")));
    }
    if ep.transcript().len() != t.transcript.len() {
        return Err(err(format!(
            "transcript: {} lines, the replay has {}",
            t.transcript.len(),
            ep.transcript().len()
        )));
    }
    if t.outcome.is_some() && ep.outcome() != t.outcome.as_ref() {
        return Err(err("outcome: differs from the replay".into()));
    }
    write_page(&out, &doc, "--out")
}

impl From<SweepError> for UsageError {
    fn from(e: SweepError) -> Self {
        UsageError(e.to_string())
    }
}

/// `pf1e-sim sweep`: parse the spec, apply the command-line overrides, build the plan, play
/// every placement, print the report and write the files.
fn sweep(args: &SweepArgs) -> Result<(), UsageError> {
    let threads = args
        .threads
        .as_deref()
        .map(|t| int_flag("--threads", t, 1, MAX_THREADS as u64).map(|v| v as usize))
        .transpose()?;
    let runs = args
        .runs
        .as_deref()
        .map(|r| int_flag("--runs", r, 1, pf1e_env_server::sweep::MAX_RUNS))
        .transpose()?;
    if let Some(r) = runs {
        check_runs(r).map_err(|reason| UsageError(format!("--runs: {reason}")))?;
    }
    let seed = args
        .seed
        .as_deref()
        .map(|s| int_flag("--seed", s, 0, u64::MAX))
        .transpose()?;
    let spec_path = DataDir::new(args.data_dir.as_deref()).resolve(&args.spec, "SPEC", SWEEPS)?;
    let origin = spec_path.display().to_string();
    let text =
        read_file(&spec_path, MAX_SPEC_BYTES).map_err(|e| UsageError(format!("{origin}: {e}")))?;
    let mut spec = SweepSpec::from_str(&text, &origin)?;
    if let Some(r) = runs {
        spec.runs = Some(r);
    }
    if let Some(s) = seed {
        spec.seed = Some(s);
    }
    let data_dir = data_dir(args.data_dir.as_deref())?;
    let plan = SweepPlan::build(&spec, &ScenarioStore::new(data_dir))?;
    let mut names = vec!["sweep.csv".to_string(), "sweep.json".to_string()];
    for s in &plan.swept {
        names.push(format!("heatmap-{}.png", s.id));
        names.push(format!("heatmap-{}.svg", s.id));
    }
    prepare_out(&args.out, &names)?;

    let report = match threads {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| UsageError(format!("--threads: {n}: {e}")))?
            .install(|| play_sweep(&plan)),
        None => play_sweep(&plan),
    }?;

    let write = |name: &str, contents: &str| -> Result<PathBuf, UsageError> {
        let path = args.out.join(name);
        std::fs::write(&path, contents)
            .map_err(|e| UsageError(format!("--out: {}: {e}", path.display())))?;
        Ok(path)
    };
    let mut written = vec![
        write("sweep.csv", &report.to_csv())?,
        write("sweep.json", &report.to_json())?,
    ];
    for (h, s) in report.heatmaps().iter().zip(&report.swept) {
        let heatmap_err = |e: HeatmapError| UsageError(format!("--out: {e}"));
        let png = args.out.join(format!("heatmap-{}.png", s.id));
        render_png(h, &png).map_err(heatmap_err)?;
        let svg = args.out.join(format!("heatmap-{}.svg", s.id));
        render_svg(h, &svg).map_err(heatmap_err)?;
        written.extend([png, svg]);
    }
    let out = match args.format {
        Format::Text => report.render_text_lang(args.lang),
        Format::Json => report.to_json(),
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush());
    let written: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    eprintln!("pf1e-sim: wrote {}", escape_controls(&written.join(", ")));
    Ok(())
}

/// Make `out` ready before any combat is played: create it if missing (with its parents),
/// check that it is a directory in which a file can be created (a probe file, removed at
/// once), and that each of `names` there is missing or a writable file. Errors name `--out`.
fn prepare_out(out: &Path, names: &[String]) -> Result<(), UsageError> {
    let err = |path: &Path, what: String| UsageError(format!("--out: {}: {what}", path.display()));
    match std::fs::metadata(out) {
        Ok(m) if !m.is_dir() => return Err(err(out, "is not a directory".into())),
        Ok(_) => {}
        // Missing (or unreachable: the error of the creation says why).
        Err(_) => std::fs::create_dir_all(out)
            .map_err(|e| err(out, format!("cannot create the directory: {e}")))?,
    }
    let probe = out.join(format!(".pf1e-sim-probe-{}", std::process::id()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map_err(|e| err(out, format!("cannot create files in it: {e}")))?;
    let written = file.write_all(b"pf1e-sim probe\n");
    drop(file);
    let removed = std::fs::remove_file(&probe);
    written
        .and(removed)
        .map_err(|e| err(out, format!("cannot write files in it: {e}")))?;
    for name in names {
        let path = out.join(name);
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => return Err(err(&path, "is a directory".into())),
            // Opened for writing without truncating: nothing changes yet.
            Ok(_) => {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .map_err(|e| err(&path, format!("cannot be replaced: {e}")))?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(err(&path, e.to_string())),
        }
    }
    Ok(())
}

/// Play every placement of `plan` on the current rayon pool, with a progress bar (combats,
/// ETA) on stderr when it is a terminal, and assemble the report.
fn play_sweep(plan: &SweepPlan) -> Result<SweepReport, UsageError> {
    let indices: Vec<usize> = (0..plan.placements.len()).collect();
    let cancel = AtomicBool::new(false);
    let results = if std::io::stderr().is_terminal() {
        let bar =
            ProgressBar::with_draw_target(Some(plan.total_combats()), ProgressDrawTarget::stderr());
        bar.set_style(combat_bar_style());
        let tick = |n: u64| bar.inc(n);
        let r = run_placements(plan, &indices, Some(&tick), &cancel);
        bar.finish_and_clear();
        r
    } else {
        run_placements(plan, &indices, None, &cancel)
    }?;
    Ok(assemble_report(plan, results)?)
}

#[cfg(test)]
mod tests {
    use super::per_second;

    #[test]
    fn the_progress_rate_is_a_whole_number_per_second() {
        assert_eq!(per_second(6_679.233_6), "6,679/s");
        assert_eq!(per_second(0.4), "0/s");
        assert_eq!(per_second(1_234_567.5), "1,234,568/s");
        assert_eq!(per_second(f64::NAN), "-/s");
        assert_eq!(per_second(f64::INFINITY), "-/s");
    }
}
