//! `pf1e-sim`: Monte Carlo balance report of an encounter (map + sides of combatants).
//!
//! ```text
//! pf1e-sim --map MAP --side NAME FILE... [--side NAME FILE...] [--runs 1000] [--seed 1]
//!          [--round-cap 100] [--transcript] [--simple-monster-death] [--lang fr|en]
//!          [--format text|json] [--threads N]
//! ```
//!
//! Exit codes: 0 when the report was printed; 2 on any usage or data error, with a one-line
//! message `pf1e-sim: error: ...` on stderr (clap's own usage errors also exit 2).
#![forbid(unsafe_code)]

use clap::{ArgAction, CommandFactory, FromArgMatches, Parser, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pf1e_engine::encounter::RulesOptions;
use pf1e_engine::{CombatantSpec, Encounter, MapSpec};
use pf1e_env_server::montecarlo::{run_batch, BatchResult};
use pf1e_env_server::report::{render_json, render_text, render_transcript, Lang};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

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
#[command(name = "pf1e-sim", version)]
struct Cli {
    /// Map YAML file.
    #[arg(long, value_name = "MAP")]
    map: PathBuf,
    /// A side: its name (as in the map's `deployment`) then one or more combatant JSON files;
    /// repeat for each side. A file may be repeated for identical combatants.
    #[arg(long, value_name = "NAME FILE", num_args = 1.., action = ArgAction::Append)]
    side: Vec<String>,
    /// Number of combats to simulate (1 to 1,000,000).
    #[arg(long, default_value_t = 1000)]
    runs: u32,
    /// Base seed: combat i uses seed + i.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Rounds after which a combat is a draw (>= 1).
    #[arg(long, default_value_t = 100)]
    round_cap: u32,
    /// Print the first combat's transcript as a table before the report.
    #[arg(long)]
    transcript: bool,
    /// Monsters die at hp <= 0 instead of hp <= -CON (never player characters).
    #[arg(long)]
    simple_monster_death: bool,
    /// Report language.
    #[arg(long, value_enum, default_value_t = Lang::Fr)]
    lang: Lang,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Worker threads (1 to 1024); default: one per core.
    #[arg(long)]
    threads: Option<usize>,
}

/// A usage or data error: printed as `pf1e-sim: error: {0}`, exit code 2.
#[derive(Debug)]
struct UsageError(String);

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    // `--side` values grouped by occurrence: `[name, file, file…]` per `--side`.
    let sides: Vec<Vec<String>> = matches
        .get_occurrences::<String>("side")
        .map(|occ| occ.map(|vals| vals.cloned().collect()).collect())
        .unwrap_or_default();
    match run(&cli, &sides) {
        Ok(()) => ExitCode::SUCCESS,
        Err(UsageError(msg)) => {
            eprintln!("pf1e-sim: error: {msg}");
            ExitCode::from(2)
        }
    }
}

/// Most combats per invocation: every run's record is kept in memory (a few hundred bytes each).
const MAX_RUNS: u32 = 1_000_000;
/// Most worker threads.
const MAX_THREADS: usize = 1024;

fn run(cli: &Cli, side_args: &[Vec<String>]) -> Result<(), UsageError> {
    if !(1..=MAX_RUNS).contains(&cli.runs) {
        return Err(UsageError(format!(
            "--runs must be in 1..={MAX_RUNS} (got {})",
            cli.runs
        )));
    }
    if cli.round_cap < 1 {
        return Err(UsageError(format!(
            "--round-cap must be >= 1 (got {})",
            cli.round_cap
        )));
    }
    if let Some(t) = cli.threads {
        if !(1..=MAX_THREADS).contains(&t) {
            return Err(UsageError(format!(
                "--threads must be in 1..={MAX_THREADS} (got {t})"
            )));
        }
    }
    if side_args.is_empty() {
        return Err(UsageError(
            "no --side given: give each side of the map's deployment with --side NAME FILE..."
                .into(),
        ));
    }
    for (i, values) in side_args.iter().enumerate() {
        let name = &values[0];
        if values.len() < 2 {
            return Err(UsageError(format!(
                "--side {name}: no combatant file given (expected --side {name} FILE...)"
            )));
        }
        if side_args[..i].iter().any(|v| &v[0] == name) {
            return Err(UsageError(format!("--side {name}: side given twice")));
        }
    }
    let map = MapSpec::load(&cli.map).map_err(|e| UsageError(e.to_string()))?;
    let mut sides = Vec::with_capacity(side_args.len());
    for values in side_args {
        let (name, files) = values
            .split_first()
            .expect("checked above: a name and at least one file");
        let mut combatants = Vec::with_capacity(files.len());
        for file in files {
            let path = Path::new(file);
            let spec = CombatantSpec::load(path).map_err(|e| UsageError(e.to_string()))?;
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| spec.name.to_lowercase());
            combatants.push((stem, spec));
        }
        sides.push((name.clone(), combatants));
    }
    let options = RulesOptions {
        round_cap: cli.round_cap,
        simple_monster_death: cli.simple_monster_death,
    };
    let encounter = Encounter::build(map, sides, options)
        .map_err(|e| UsageError(format!("{}: {e}", cli.map.display())))?;
    let encounter = Arc::new(encounter);

    let result = match cli.threads {
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| UsageError(format!("--threads {n}: {e}")))?;
            pool.install(|| simulate(encounter, cli))
        }
        None => simulate(encounter, cli),
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
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`pf1e-sim ... | head`) is not an error worth a message.
    let _ = stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush());
    Ok(())
}

/// Run the batch on the current rayon pool, with a progress bar on stderr when it is a
/// terminal.
fn simulate(encounter: Arc<Encounter>, cli: &Cli) -> BatchResult {
    if !std::io::stderr().is_terminal() {
        return run_batch(encounter, cli.runs, cli.seed, None);
    }
    let bar =
        ProgressBar::with_draw_target(Some(u64::from(cli.runs)), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] [{wide_bar}] {pos}/{len} combats ({per_sec}, ETA {eta})",
        )
        .expect("valid progress template")
        .progress_chars("=> "),
    );
    let tick = |n: u64| bar.inc(n);
    let result = run_batch(encounter, cli.runs, cli.seed, Some(&tick));
    bar.finish_and_clear();
    result
}
