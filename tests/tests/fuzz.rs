//! Fuzz target (`/work/shared/STYLE.md`, "Fuzz and bench check correctness too"; shakmaty's
//! `legals_are_legal`): proptest drives whole games with arbitrary input — cargo-fuzz needs a
//! nightly toolchain, proptest runs in `cargo test` on stable.
//!
//! An input is `(encounter, seed, numbers)`: an encounter of the conformance suite (every
//! scenario file, every pair of bundled creatures), the episode seed, and raw `u32` "action
//! numbers", one per decision, every combatant external. A number `x` picks, by `x % 16`:
//! 0–11 a legal id (the mask's ids, `(x >> 4) % count`), 12–13 any id of the action space
//! (`(x >> 4) % size`), 14–15 an arbitrary well-formed `Action` built from `x` (any kind,
//! reaction kinds half the time at a reaction decision; targets, weapons and squares in and
//! out of range, extreme coordinates, any maneuver).
//! When the numbers run out the conformance suite's random player ends the game. At every
//! decision the conformance checks run (`common/conformance.rs`, the same module), and every
//! submission checks that `validate` agrees with `submit`'s first result and that a rejected
//! action changes nothing but the decision id (state, transcript, observation); a panic is a
//! failure.
//!
//! Each run first replays the corpus `tests/fuzz-corpus/*.json` (`{"comment", "case",
//! "seed", "numbers", "covers"}`; `covers` lists what the case must still exercise, e.g.
//! `ok:run`), then random cases for `PF1E_FUZZ_SECONDS` seconds (default 15; 0 = the corpus
//! only), never past that budget (the next case starts only if the slowest so far still fits;
//! shrinking gets what is left). `PF1E_FUZZ_SEED` fixes the random cases' seed (printed
//! otherwise). A failing random case is printed in the corpus format, ready to be added; its
//! proptest seed is also saved in `tests/tests/fuzz.regressions`, replayed first next time.

mod common;
#[path = "common/conformance.rs"]
mod conformance;

use conformance::{Case, Choice, Chooser, DecisionInfo, Known, RandomPlayer, SplitMix64};
use pf1e_engine::actions::space::ActionSpace;
use pf1e_engine::episode::{Decision, Episode};
use pf1e_engine::{Action, ActionKind, AidMode, Cell, CombatantId, Direction, Maneuver};
use proptest::prelude::*;
use proptest::test_runner::{
    Config, FailurePersistence, FileFailurePersistence, PersistedSeed, RngSeed, TestCaseError,
    TestError, TestRunner,
};
use std::cell::RefCell;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Default time budget of the random cases, in seconds.
const DEFAULT_SECONDS: u64 = 15;
/// Numbers per random case at most (the random player ends the game after them).
const MAX_NUMBERS: usize = 64;

/// A well-formed but arbitrary action built from `x`, for an actor at `pos`; at a reaction
/// decision half of them are reaction kinds (with arbitrary fields).
fn arbitrary_action(x: u32, space: &ActionSpace, pos: Cell, reaction: bool) -> Action {
    let mut r = SplitMix64(u64::from(x) ^ 0xA5A5_5A5A_0F0F_F0F0);
    let kind = if reaction && r.below(2) == 0 {
        [ActionKind::AttackOfOpportunity, ActionKind::Decline][r.below(2)]
    } else {
        ActionKind::ALL[r.below(ActionKind::ALL.len())]
    };
    let (n, w) = (space.n as usize, space.w as usize);
    let (rows, cols) = (space.rows as i32, space.cols as i32);
    let target = match r.below(8) {
        0 | 1 => None,
        2 => Some(CombatantId(u16::MAX - r.below(2) as u16)),
        _ => Some(CombatantId(r.below(n + 2) as u16)),
    };
    let weapon = match r.below(8) {
        0 | 1 => None,
        2 => Some(usize::MAX - r.below(2)),
        // Past u32 (a truncating `as u32` would make it a small index).
        3 => Some(((u32::MAX as usize) + 1).saturating_add(r.below(w + 1))),
        _ => Some(r.below(w + 2)),
    };
    let destination = match r.below(10) {
        0 | 1 => None,
        2 => {
            let e = [i32::MIN, i32::MIN + 1, -1, i32::MAX - 1, i32::MAX];
            Some(Cell::new(e[r.below(e.len())], e[r.below(e.len())]))
        }
        3..=5 => {
            // Near the actor (5-foot steps, short moves), maybe off the map.
            let d = |r: &mut SplitMix64| r.below(5) as i32 - 2;
            Some(Cell::new(
                pos.row.saturating_add(d(&mut r)),
                pos.col.saturating_add(d(&mut r)),
            ))
        }
        _ => Some(Cell::new(
            r.below(rows as usize + 4) as i32 - 2,
            r.below(cols as usize + 4) as i32 - 2,
        )),
    };
    let maneuver = if r.below(4) < if kind == ActionKind::Maneuver { 3 } else { 1 } {
        Some(Maneuver::ALL[r.below(Maneuver::ALL.len())])
    } else {
        None
    };
    // A `ready` carries a readied action and a trigger (an arbitrary one of each).
    let (readied, trigger) = if kind == ActionKind::Ready {
        use pf1e_engine::actions::ReadyTrigger;
        let by = match r.below(3) {
            0 => None,
            _ => Some(CombatantId(r.below(n + 1) as u16)),
        };
        let trigger = match r.below(5) {
            0 => ReadyTrigger::EnemyEntersReach { by },
            1 => ReadyTrigger::EnemyWithin {
                ft: r.below(130) as u16,
                by,
            },
            2 => ReadyTrigger::EnemyAttacks { by },
            3 => ReadyTrigger::AllyActs { by },
            _ => ReadyTrigger::EnemyEntersReach { by: None },
        };
        let payload = ActionKind::ALL[r.below(ActionKind::ALL.len())];
        let readied = Action {
            kind: payload,
            target: target.filter(|_| r.below(2) == 0),
            destination,
            weapon: weapon.filter(|_| r.below(2) == 0),
            ..Action::new(payload)
        };
        (
            Some(Box::new(readied)),
            Some(trigger).filter(|_| r.below(8) != 0),
        )
    } else {
        (None, None)
    };
    // The fields of the menu kinds, drawn only for those kinds (other draws unchanged).
    let (ally, aid_mode) = if kind == ActionKind::AidAnother {
        let ally = match r.below(6) {
            0 => None,
            1 => Some(CombatantId(u16::MAX)),
            _ => Some(CombatantId(r.below(n + 2) as u16)),
        };
        let mode = [None, Some(AidMode::Attack), Some(AidMode::Ac)][r.below(3)];
        (ally, mode)
    } else {
        (None, None)
    };
    let direction = if kind == ActionKind::Maneuver && r.below(4) == 0 {
        Some(Direction::ALL[r.below(Direction::ALL.len())])
    } else {
        None
    };
    Action {
        kind,
        target,
        destination,
        weapon,
        maneuver,
        readied,
        trigger,
        aid_mode,
        ally,
        direction,
        // The cast fields are not drawn (the corpus' draws stay those it was found with).
        spell: None,
        target_pos: None,
        defensively: false,
        metamagic: Vec::new(),
    }
}

/// Plays the numbers, then the random player.
struct Numbers<'a> {
    numbers: &'a [u32],
    next: usize,
    tail: RandomPlayer,
    /// What the numbers asked for (`arbitrary:<what>`, `any_id`), for the corpus' `covers`.
    tags: std::collections::BTreeSet<String>,
}

/// Tags of an arbitrary action: which out-of-range parts it has.
fn tags_of(a: &Action, space: &ActionSpace) -> Vec<&'static str> {
    let mut t = vec!["arbitrary"];
    if a.target.is_some_and(|x| u32::from(x.0) >= space.n) {
        t.push("arbitrary:target_out_of_range");
    }
    if a.weapon.is_some_and(|w| w >= space.w as usize) {
        t.push("arbitrary:weapon_out_of_range");
    }
    if a.weapon.is_some_and(|w| w > u32::MAX as usize) {
        t.push("arbitrary:weapon_past_u32");
    }
    if let Some(d) = a.destination {
        if d.row < 0 || d.col < 0 || d.row >= space.rows as i32 || d.col >= space.cols as i32 {
            t.push("arbitrary:off_map");
        }
        if d.row.unsigned_abs() > 1 << 20 || d.col.unsigned_abs() > 1 << 20 {
            t.push("arbitrary:extreme_square");
        }
    }
    t
}

impl Chooser for Numbers<'_> {
    fn choose(&mut self, ep: &Episode, d: &Decision, info: &DecisionInfo) -> Choice {
        let Some(&x) = self.numbers.get(self.next) else {
            return self.tail.choose(ep, d, info);
        };
        self.next += 1;
        let hi = (x >> 4) as usize;
        match x % 16 {
            0..=11 if !info.legal.is_empty() => Choice::Id(info.legal[hi % info.legal.len()]),
            0..=13 => {
                self.tags.insert("any_id".into());
                Choice::Id((hi % ep.action_space_size() as usize) as u32)
            }
            _ => {
                let space = ActionSpace::of(ep.encounter());
                let a = arbitrary_action(x, &space, ep.position(d.actor), d.kind.is_reaction());
                self.tags
                    .extend(tags_of(&a, &space).into_iter().map(String::from));
                Choice::Action(a)
            }
        }
    }
}

/// The message of the last panic inside [`fuzz_one`] (the hook of [`quiet_panics`] keeps it
/// instead of printing it).
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// The first input that showed each known divergence (corpus format), printed at the end.
static EXAMPLES: Mutex<std::collections::BTreeMap<&'static str, String>> =
    Mutex::new(std::collections::BTreeMap::new());

thread_local! {
    /// Inside [`fuzz_one`]'s `catch_unwind`.
    static CAPTURING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Play one input; `Err` with the failure message (a check, or a panic).
fn fuzz_one(
    case: &Case,
    seed: u64,
    numbers: &[u32],
    known: &mut Known,
) -> Result<conformance::GameSummary, String> {
    let mut chooser = Numbers {
        numbers,
        next: 0,
        tail: RandomPlayer::new(seed),
        tags: Default::default(),
    };
    let before = known.counts();
    CAPTURING.with(|c| c.set(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        conformance::play_external(case, seed, &mut chooser, known)
    }));
    CAPTURING.with(|c| c.set(false));
    match r {
        Ok(r) => r.map(|mut s| {
            s.seen.extend(chooser.tags);
            for k in known.new_keys(&before) {
                s.seen.insert(format!("known:{k}"));
                EXAMPLES.lock().unwrap().entry(k).or_insert_with(|| {
                    corpus_json(&format!("known divergence {k}"), &case.name, seed, numbers)
                });
            }
            s
        }),
        Err(_) => {
            let msg = LAST_PANIC.lock().unwrap().take().unwrap_or_default();
            Err(format!("{}, seed {seed}: PANIC {msg}", case.name))
        }
    }
}

/// Keep the messages (with their location) of panics inside [`fuzz_one`] for the failure
/// report instead of printing each one while proptest shrinks; other panics print as usual.
fn quiet_panics() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if CAPTURING.with(|c| c.get()) {
            *LAST_PANIC.lock().unwrap() = Some(info.to_string());
        } else {
            default_hook(info);
        }
    }));
}

/// An input in the corpus format.
fn corpus_json(comment: &str, case: &str, seed: u64, numbers: &[u32]) -> String {
    let j = |v: serde_json::Value| v.to_string();
    format!(
        "{{\n  \"comment\": {},\n  \"case\": {},\n  \"seed\": {seed},\n  \"numbers\": {},\n  \
         \"covers\": []\n}}",
        j(comment.into()),
        j(case.into()),
        j(numbers.into())
    )
}

/// Replay every `tests/fuzz-corpus/*.json`; returns the failures.
fn replay_corpus(cases: &[Case], known: &mut Known) -> Vec<String> {
    let dir = common::root().join("tests/fuzz-corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/fuzz-corpus exists")
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "json").then_some(p)
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "the fuzz corpus is empty");
    let mut failures = Vec::new();
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&f).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: not JSON: {e}"));
        let field = |k: &str| {
            v.get(k)
                .unwrap_or_else(|| panic!("{name}: no field {k:?}"))
                .clone()
        };
        assert!(field("comment").is_string(), "{name}: comment");
        let case_name = field("case")
            .as_str()
            .expect("case is a string")
            .to_string();
        let seed = field("seed").as_u64().expect("seed is a u64");
        let numbers: Vec<u32> = field("numbers")
            .as_array()
            .expect("numbers is an array")
            .iter()
            .map(|x| {
                x.as_u64()
                    .and_then(|x| u32::try_from(x).ok())
                    .expect("numbers are u32")
            })
            .collect();
        let covers: Vec<String> = v
            .get("covers")
            .and_then(|c| c.as_array())
            .map(|c| {
                c.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let Some(case) = cases.iter().find(|c| c.name == case_name) else {
            failures.push(format!("{name}: no encounter named {case_name:?}"));
            continue;
        };
        match fuzz_one(case, seed, &numbers, known) {
            Ok(s) => {
                let missing: Vec<&String> =
                    covers.iter().filter(|c| !s.seen.contains(*c)).collect();
                if !missing.is_empty() {
                    failures.push(format!(
                        "{name}: no longer covers {missing:?} (it saw {:?})",
                        s.seen
                    ));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    failures
}

/// Loads the regression file only once (the first batch): the later batches save new
/// failures but do not replay the saved ones again.
#[derive(Debug, Clone, PartialEq)]
struct SaveOnly(FileFailurePersistence);

impl FailurePersistence for SaveOnly {
    fn load_persisted_failures2(&self, _: Option<&'static str>) -> Vec<PersistedSeed> {
        Vec::new()
    }
    fn save_persisted_failure2(
        &mut self,
        source_file: Option<&'static str>,
        seed: PersistedSeed,
        shrunken_value: &dyn std::fmt::Debug,
    ) {
        self.0
            .save_persisted_failure2(source_file, seed, shrunken_value)
    }
    fn box_clone(&self) -> Box<dyn FailurePersistence> {
        Box::new(self.clone())
    }
    fn eq(&self, other: &dyn FailurePersistence) -> bool {
        other.as_any().downcast_ref::<Self>() == Some(self)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
    )
}

#[test]
fn fuzz_games_with_arbitrary_input() {
    let start = Instant::now();
    let budget = Duration::from_secs(env_u64("PF1E_FUZZ_SECONDS").unwrap_or(DEFAULT_SECONDS));
    let cases = conformance::all_cases();
    quiet_panics();
    let known = RefCell::new(Known::new());

    let failures = replay_corpus(&cases, &mut known.borrow_mut());
    let corpus_time = start.elapsed();
    if !failures.is_empty() {
        known.borrow().finish("fuzz");
        panic!("fuzz corpus failures:\n{}", failures.join("\n"));
    }

    let base_seed = env_u64("PF1E_FUZZ_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let strategy = (
        0..cases.len(),
        any::<u64>(),
        proptest::collection::vec(any::<u32>(), 0..=MAX_NUMBERS),
    );
    let rand_start = Instant::now();
    let mut slowest = Duration::ZERO;
    let mut ran = 0u64;
    let mut failure: Option<String> = None;
    let smallest = RefCell::new(None);
    // One proptest seed per batch, a stream of its own for each base seed.
    let mut batch_seeds = SplitMix64(base_seed);
    // The first batch always runs: with a zero budget it runs no new case (`cases: 0`) but
    // still replays the regression file.
    while failure.is_none() && (ran == 0 || rand_start.elapsed() + slowest < budget) {
        let new_cases = u32::from(!budget.is_zero());
        let left = budget.saturating_sub(rand_start.elapsed());
        let file = FileFailurePersistence::WithSource("regressions");
        let config = Config {
            cases: new_cases,
            source_file: Some(file!()),
            failure_persistence: Some(if ran == 0 {
                Box::new(file)
            } else {
                Box::new(SaveOnly(file))
            }),
            rng_seed: RngSeed::Fixed(batch_seeds.next_u64()),
            max_shrink_time: (left.as_millis() as u32).max(1),
            // (`u32::MAX` would mean 4 × cases; the time limit above bounds it.)
            max_shrink_iters: u32::MAX - 1,
            ..Config::default()
        };
        let mut runner = TestRunner::new(config);
        let t = Instant::now();
        let result = runner.run(&strategy, |(ci, seed, numbers)| {
            fuzz_one(&cases[ci], seed, &numbers, &mut known.borrow_mut())
                .map(|_| ())
                .map_err(|e| {
                    // The smallest failing input seen (what proptest returns after a shrink
                    // cut short by the time limit may be one that passes).
                    let mut s = smallest.borrow_mut();
                    if s.as_ref()
                        .is_none_or(|(_, _, n, _): &(usize, u64, Vec<u32>, String)| {
                            numbers.len() <= n.len()
                        })
                    {
                        *s = Some((ci, seed, numbers.clone(), e.clone()));
                    }
                    TestCaseError::fail(e)
                })
        });
        slowest = slowest.max(t.elapsed());
        ran += 1;
        match result {
            Ok(()) => {}
            Err(TestError::Fail(..)) => {
                let (ci, seed, numbers, message) = smallest
                    .borrow_mut()
                    .take()
                    .expect("a failing input was seen");
                let first = message.lines().next().unwrap_or("").to_string();
                failure = Some(format!(
                    "{message}\n\nadd to tests/fuzz-corpus/ as a .json file:\n{}",
                    corpus_json(
                        &format!("found by the fuzz target: {first}"),
                        &cases[ci].name,
                        seed,
                        &numbers
                    )
                ));
            }
            Err(TestError::Abort(reason)) => failure = Some(format!("proptest aborted: {reason}")),
        }
    }
    eprintln!(
        "fuzz: corpus in {:.1}s; {ran} random case(s) in {:.1}s of a {}s budget (seed {base_seed}, \
         PF1E_FUZZ_SEED to replay), slowest {:.2}s",
        corpus_time.as_secs_f64(),
        rand_start.elapsed().as_secs_f64(),
        budget.as_secs(),
        slowest.as_secs_f64()
    );
    known.borrow().finish("fuzz");
    for (k, input) in EXAMPLES.lock().unwrap().iter() {
        eprintln!("fuzz: an input showing the known divergence {k}:\n{input}");
    }
    if let Some(f) = failure {
        panic!("{f}");
    }
}

/// Not a test: finds a corpus entry. `PF1E_CORPUS_CASE` names the encounter,
/// `PF1E_CORPUS_COVERS` lists (comma-separated) what it must exercise (the `covers` of the
/// corpus format: `ok:run`, `reaction:rejected:move:wrong_decision_kind`,
/// `arbitrary:extreme_square`, `known:<key>` for a known divergence of `KNOWN_DIVERGENCES`…); tries seeds and numbers from `PF1E_CORPUS_FROM` (0) on and
/// prints the first input (8 to 40 numbers) that covers them all.
/// `cargo test -p pf1e-tests --test fuzz -- --ignored --nocapture find_corpus_entry`.
#[test]
#[ignore = "a tool: prints a corpus entry for PF1E_CORPUS_CASE / PF1E_CORPUS_COVERS"]
fn find_corpus_entry() {
    let case_name = std::env::var("PF1E_CORPUS_CASE").expect("PF1E_CORPUS_CASE");
    let covers: Vec<String> = std::env::var("PF1E_CORPUS_COVERS")
        .unwrap_or_default()
        .split(',')
        .filter(|c| !c.is_empty())
        .map(String::from)
        .collect();
    let cases = conformance::all_cases();
    let case = cases
        .iter()
        .find(|c| c.name == case_name)
        .unwrap_or_else(|| panic!("no encounter {case_name:?}"));
    let from = env_u64("PF1E_CORPUS_FROM").unwrap_or(0);
    quiet_panics();
    let mut known = Known::new();
    for i in from..from + 500 {
        let mut r = SplitMix64(i);
        let len = 8 + (i as usize % 5) * 8;
        let numbers: Vec<u32> = (0..len).map(|_| r.next_u64() as u32).collect();
        let seed = i % 7;
        match fuzz_one(case, seed, &numbers, &mut known) {
            Ok(s) if covers.iter().all(|c| s.seen.contains(c)) => {
                println!("{}", corpus_json("", &case.name, seed, &numbers));
                println!("seen: {:?}", s.seen);
                return;
            }
            Ok(_) => {}
            Err(e) => panic!(
                "a failing input (add it to the corpus): {e}\n{}",
                corpus_json("", &case.name, seed, &numbers)
            ),
        }
    }
    panic!("nothing found in 500 tries");
}
