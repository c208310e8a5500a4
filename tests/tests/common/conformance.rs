//! The conformance checks every encounter must pass (OpenSpiel's `RandomSimTest`,
//! `tests/basic_tests.cc`), shared by `tests/conformance.rs` (random masked games) and
//! `tests/fuzz.rs` (proptest-driven games with arbitrary input).
//!
//! Included with `#[path = "common/conformance.rs"] mod conformance;` next to `mod common;`.
//!
//! Every check failure is a message naming the encounter, the seed, the decision index, the id
//! and the decoded action. A failure is first looked up in [`KNOWN_DIVERGENCES`]: an allowed
//! one is counted (and its first occurrence kept as a reproduction, printed at the end of the
//! test), any other one fails the test.
#![allow(dead_code)]

use crate::common;
use pf1e_engine::episode::{Controller, Decision, DecisionKind, Episode, Outcome, Status};
use pf1e_engine::episode::{HistoryEntry, SubmitError};
use pf1e_engine::observe::tensor::{FEATURES, PLANES};
use pf1e_engine::{Action, ActionKind, ActionResult, DiceSource, Encounter, RulesOptions};
use pf1e_env_server::scenarios::ScenarioStore;
use std::sync::Arc;

/// Engine defects known today. A failure of check `key` in an encounter whose name contains
/// `encounter` (`*`: any encounter) is counted and reported (stderr: run with `--nocapture`)
/// instead of failing the test. Every entry is an **engine bug** to fix; each comes with a
/// reproduction that `tests/conformance.rs` (`every_known_divergence_still_occurs`) plays and
/// that must still show it: once the engine is fixed that test fails, and the entry (with its
/// corpus `known:` items in `tests/fuzz-corpus`) is to be removed, so the list cannot go stale.
/// Encounter names are `scenario <file stem>` and `pair <a> vs <b>`; the keys are listed in
/// [`CHECK_KEYS`].
///
/// None today. Bugs 4, 5 and 6 (`ActionSpace::encode`: `end_turn` with parameters encoding
/// to id 0; weapon indices truncated by `as u32`, and `then_some(start + w)` overflowing; the
/// 5-foot step's `d.row - actor_pos.row` overflowing) are fixed: an action has an id only if
/// that id decodes back to it, and `action_id` never panics. `engine/tests/action_economy.rs`
/// (`action_id_only_for_an_action_its_id_decodes_to_and_never_overflows`) checks it, and the
/// suite asserts it on every input, the corpus's `attack_weapon_index_past_u32.json`,
/// `retrieve_weapon_index_near_usize_max.json` and `5foot_step_extreme_square.json` included.
pub const KNOWN_DIVERGENCES: &[KnownDivergence] = &[];

/// Every check key (the second field of [`KNOWN_DIVERGENCES`]); `<kind>` is an action kind
/// (`run`, `5foot_step`…), `<reason>` a result reason.
pub const CHECK_KEYS: &[&str] = &[
    "advance_not_idempotent",
    "status_mismatch",
    "mask_length",
    "mask_value",
    "id_does_not_decode",
    "id_roundtrip",
    "mask_vs_validate:<kind>",
    "validate_error",
    "legal_actions_vs_mask",
    "legal_action_roundtrip",
    "no_legal_action",
    "end_turn_not_legal",
    "turn_decision_without_action",
    "reaction_answers",
    "reaction_budget",
    "legal_id_refused_by_submit:<kind>",
    "submit_vs_validate:<kind>",
    "submit_error",
    "rejected_action_changed_state:<kind>",
    "rejected_decision_not_reissued",
    "observation",
    "tensor",
    "refused_with_external_controllers",
    "default_policy_refused:<kind>:<reason>",
    "default_policy_decision",
    "too_many_decisions",
    "terminal",
    "battle_over_lines",
    "clone_diverged",
    "restore_diverged",
    "replay_diverged",
    "history",
    "encode_decode_roundtrip:<kind>",
    "action_id_panics:<kind>",
];

/// Round cap of the creature-pair encounters (bounds their time).
pub const PAIR_ROUND_CAP: u32 = 25;
/// Every legal id is submitted on a clone at every `SUBMIT_EVERY`-th decision (0, 5, 10…).
pub const SUBMIT_EVERY: usize = 5;
/// The decision index at which a clone and a `restore(snapshot())` twin are taken.
pub const TWIN_AT: usize = 3;
/// A game longer than this many decisions fails (`too_many_decisions`).
pub const MAX_DECISIONS: usize = 20_000;
/// Illegal ids submitted on clones at each `SUBMIT_EVERY`-th decision (evenly spread; each
/// costs two snapshots; the fuzz target submits many more).
pub const REJECTED_SAMPLES: usize = 2;
/// Of the ids the mask refuses in the square-aimed cast block (`cast_spell_at`, spells ×
/// squares: thousands of ids for a caster), one in this many is validated (the ids the mask
/// accepts are all validated): the mask = validate check stays exhaustive elsewhere and
/// affordable in CI.
pub const CAST_AT_SAMPLE: u32 = 13;

/// One encounter the suite plays.
#[derive(Clone)]
pub struct Case {
    pub name: String,
    pub enc: Arc<Encounter>,
}

/// Every scenario file `data/scenarios/*.yaml`, loaded with the server's [`ScenarioStore`]
/// (as a `named` scenario of a request), sorted by name. Panics if a file does not load or is
/// not listed by the store (a name the server would refuse).
pub fn scenario_cases() -> Vec<Case> {
    let data = common::root().join("data");
    let mut files: Vec<String> = std::fs::read_dir(data.join("scenarios"))
        .expect("data/scenarios exists")
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "yaml").then(|| p.file_stem()?.to_str().map(str::to_string))?
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no scenario file in data/scenarios");
    let store = ScenarioStore::new(&data);
    let listed: Vec<String> = store.list().into_iter().map(|s| s.name).collect();
    assert_eq!(
        listed, files,
        "ScenarioStore::list must list every data/scenarios/*.yaml"
    );
    files
        .into_iter()
        .map(|name| Case {
            enc: store
                .named(&name, "scenario")
                .unwrap_or_else(|e| panic!("scenario {name} loads: {e}")),
            name: format!("scenario {name}"),
        })
        .collect()
}

/// The file stems of `data/<dir>/*.json`, sorted.
fn json_stems(dir: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(common::root().join("data").join(dir))
        .unwrap_or_else(|e| panic!("data/{dir}: {e}"))
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "json").then(|| p.file_stem()?.to_str().map(str::to_string))?
        })
        .collect();
    names.sort();
    names
}

/// The bundled creatures (`data/monsters/*.json`, file stems), sorted.
pub fn monster_names() -> Vec<String> {
    json_stems("monsters")
}

/// Every unordered pair of bundled creatures, each creature against itself included: `a` as
/// side `players`, `b` as side `monsters` on the sample arena (as `tests/bundled.rs`), round
/// cap [`PAIR_ROUND_CAP`].
pub fn pair_cases() -> Vec<Case> {
    let names = monster_names();
    let mut out = Vec::new();
    for (i, a) in names.iter().enumerate() {
        for b in &names[i..] {
            out.push(Case {
                name: format!("pair {a} vs {b}"),
                enc: common::encounter(
                    "sample_arena",
                    &[("players", &[a.as_str()]), ("monsters", &[b.as_str()])],
                    RulesOptions {
                        round_cap: PAIR_ROUND_CAP,
                        simple_monster_death: false,
                    },
                ),
            });
        }
    }
    out
}

/// The bundled player characters (`data/pcs/*.json`, file stems), sorted.
pub fn pc_names() -> Vec<String> {
    json_stems("pcs")
}

/// Every bundled player character (side `players`) against every bundled creature and
/// every player character (side `monsters`) on the sample arena, round cap
/// [`PAIR_ROUND_CAP`].
pub fn pc_cases() -> Vec<Case> {
    let mut out = Vec::new();
    let others: Vec<String> = monster_names().into_iter().chain(pc_names()).collect();
    for a in pc_names() {
        for b in &others {
            out.push(Case {
                name: format!("pc {a} vs {b}"),
                enc: common::encounter(
                    "sample_arena",
                    &[("players", &[a.as_str()]), ("monsters", &[b.as_str()])],
                    RulesOptions {
                        round_cap: PAIR_ROUND_CAP,
                        simple_monster_death: false,
                    },
                ),
            });
        }
    }
    out
}

/// Scenarios, then pairs.
pub fn all_cases() -> Vec<Case> {
    let mut v = scenario_cases();
    v.extend(pair_cases());
    v
}

/// SplitMix64 (Steele, Lea, Flood 2014): the suite's own seeded RNG.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`; the modulo bias is negligible here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Where a check runs.
#[derive(Debug, Clone)]
pub struct At {
    pub case: String,
    pub seed: u64,
    /// Index of the decision in the game (0 = first), or `usize::MAX` at the end.
    pub decision: usize,
}

impl std::fmt::Display for At {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.decision == usize::MAX {
            write!(f, "{}, seed {}, at the end", self.case, self.seed)
        } else {
            write!(
                f,
                "{}, seed {}, decision {}",
                self.case, self.seed, self.decision
            )
        }
    }
}

/// A check failure: the message to print.
pub type Failure = String;

/// One known engine defect (see [`KNOWN_DIVERGENCES`]).
#[derive(Debug, Clone, Copy)]
pub struct KnownDivergence {
    /// Encounters it is allowed in: a part of the name, or `*`.
    pub encounter: &'static str,
    /// The check key ([`CHECK_KEYS`]).
    pub key: &'static str,
    /// A game that shows it.
    pub repro: Repro,
}

/// How to reproduce a known divergence.
#[derive(Debug, Clone, Copy)]
pub enum Repro {
    /// [`play_external`] of the encounter with the seed (and the [`RandomPlayer`] of the seed).
    External(&'static str, u64),
    /// [`play_default`] of the encounter with the seed.
    DefaultPolicy(&'static str, u64),
    /// [`submit_checked`] of the action at the first decision of the encounter with the seed.
    FirstDecision(&'static str, u64, fn() -> Action),
}

use Repro::{DefaultPolicy, External, FirstDecision};

const fn k(encounter: &'static str, key: &'static str, repro: Repro) -> KnownDivergence {
    KnownDivergence {
        encounter,
        key,
        repro,
    }
}

/// Counts of the allowed failures ([`KNOWN_DIVERGENCES`]) and the first reproduction of each.
#[derive(Debug, Default)]
pub struct Known {
    hits: Vec<u64>,
    first: Vec<Option<String>>,
}

impl Known {
    pub fn new() -> Known {
        Known {
            hits: vec![0; KNOWN_DIVERGENCES.len()],
            first: vec![None; KNOWN_DIVERGENCES.len()],
        }
    }

    fn entry(case: &str, key: &str) -> Option<usize> {
        KNOWN_DIVERGENCES
            .iter()
            .position(|e| e.key == key && (e.encounter == "*" || case.contains(e.encounter)))
    }

    /// Check `key` failed at `at`: `Ok` when the failure is a known divergence (counted), else
    /// the failure message. `detail` is only computed when needed.
    pub fn flag(
        &mut self,
        at: &At,
        key: &str,
        detail: impl FnOnce() -> String,
    ) -> Result<(), Failure> {
        match Self::entry(&at.case, key) {
            Some(i) => {
                self.hits[i] += 1;
                if self.first[i].is_none() {
                    self.first[i] = Some(format!("{at}: {key}: {}", detail()));
                }
                Ok(())
            }
            None => Err(format!("{at}: {key}: {}", detail())),
        }
    }

    /// The check keys of the known divergences seen at least once more than in `before`
    /// (a copy of [`Known::counts`] taken earlier).
    pub fn new_keys(&self, before: &[u64]) -> Vec<&'static str> {
        (0..self.hits.len())
            .filter(|&i| self.hits[i] > before.get(i).copied().unwrap_or(0))
            .map(|i| KNOWN_DIVERGENCES[i].key)
            .collect()
    }

    /// How many times each known divergence was seen.
    pub fn counts(&self) -> Vec<u64> {
        self.hits.clone()
    }

    /// The report of the known divergences seen.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        for (i, e) in KNOWN_DIVERGENCES.iter().enumerate() {
            if self.hits[i] > 0 {
                s.push_str(&format!(
                    "known divergence ({:?}, {:?}): {} time(s); first: {}\n",
                    e.encounter,
                    e.key,
                    self.hits[i],
                    self.first[i].as_deref().unwrap_or("")
                ));
            }
        }
        s
    }

    /// Print the summary.
    pub fn finish(&self, test: &str) {
        let s = self.summary();
        if !s.is_empty() {
            eprintln!("{test}: KNOWN ENGINE DIVERGENCES (allowed by KNOWN_DIVERGENCES):\n{s}");
        }
    }
}

/// Play the reproduction of known divergence `i`; returns how many times it was seen, or the
/// failure that stopped the game.
pub fn reproduce(i: usize, cases: &[Case]) -> Result<u64, Failure> {
    let e = &KNOWN_DIVERGENCES[i];
    let name = match e.repro {
        External(n, _) | DefaultPolicy(n, _) | FirstDecision(n, _, _) => n,
    };
    let case = cases
        .iter()
        .find(|c| c.name == name)
        .ok_or_else(|| format!("no encounter named {name:?}"))?;
    let mut known = Known::new();
    match e.repro {
        External(_, seed) => {
            play_external(case, seed, &mut RandomPlayer::new(seed), &mut known)?;
        }
        DefaultPolicy(_, seed) => {
            play_default(case, seed, &mut known)?;
        }
        FirstDecision(_, seed, action) => {
            let n = case.enc.combatants.len();
            let mut ep = Episode::new(case.enc.clone(), seed, &vec![Controller::External; n]);
            let Status::Decision(d) = ep.advance() else {
                return Err(format!("{name}, seed {seed}: no decision"));
            };
            let at = At {
                case: case.name.clone(),
                seed,
                decision: 0,
            };
            submit_checked(&mut ep, &d, &action(), &at, &mut known, false)?;
        }
    }
    known.finish(&format!("reproduction of {}", e.key));
    Ok(known.hits[i])
}

/// Fail with `key` unless `cond` (or the failure is known).
macro_rules! ensure {
    ($known:expr, $at:expr, $cond:expr, $key:expr, $($fmt:tt)+) => {
        if !$cond {
            $known.flag($at, &$key, || format!($($fmt)+))?;
        }
    };
}

fn kind_name(a: &Action) -> &'static str {
    a.kind.name()
}

/// Readable `id N (label; Action)` of an id at the pending decision.
pub fn describe(ep: &Episode, id: u32) -> String {
    match (ep.action_from_id(id), ep.decision()) {
        (Some(a), Some(d)) => format!(
            "id {id} ({}; {a:?})",
            pf1e_engine::actions::legal::label(ep, d.actor, &a)
        ),
        (a, _) => format!("id {id} ({a:?})"),
    }
}

/// The last `n` transcript lines, one per line, indented.
pub fn tail(ep: &Episode, n: usize) -> String {
    let t = ep.transcript();
    let lines: Vec<String> = t[t.len().saturating_sub(n)..]
        .iter()
        .map(|l| format!("    | {l}"))
        .collect();
    if lines.is_empty() {
        "    | (empty transcript)".into()
    } else {
        lines.join("\n")
    }
}

/// The actor of a decision, as `id at [row, col]`.
fn who(ep: &Episode, d: &Decision) -> String {
    let c = &ep.encounter().combatants[d.actor.0 as usize];
    format!(
        "{} ({}, {:?}) at {:?}, hp {}, {:?}",
        c.id,
        c.spec.name,
        c.spec.size,
        ep.position(d.actor),
        ep.hp(d.actor),
        ep.life_state(d.actor)
    )
}

/// What the checks of one decision found.
#[derive(Debug, Clone)]
pub struct DecisionInfo {
    /// The mask's ids (sorted).
    pub legal: Vec<u32>,
    /// The ids the mask and `validate` both accept (sorted): what a random player picks from.
    pub agreed: Vec<u32>,
}

/// Every JSON number is finite.
fn json_finite(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Number(n) => n.as_f64().is_some_and(f64::is_finite),
        serde_json::Value::Array(a) => a.iter().all(json_finite),
        serde_json::Value::Object(o) => o.values().all(json_finite),
        _ => true,
    }
}

/// `observation(viewer)` serializes to JSON with only finite numbers; returns the JSON text.
pub fn observation_json(
    ep: &Episode,
    viewer: Option<pf1e_engine::CombatantId>,
) -> Result<String, String> {
    let obs = ep.observation(viewer);
    let v = serde_json::to_value(&obs).map_err(|e| format!("does not serialize: {e}"))?;
    if !json_finite(&v) {
        return Err(format!("a number is not finite: {v}"));
    }
    serde_json::to_string(&v).map_err(|e| e.to_string())
}

/// `observation_tensor(viewer)` has the declared shapes and only finite values, each within
/// its exact bounds (`FEATURE_BOUNDS`, `plane_bounds`).
pub fn tensor_problem(ep: &Episode, viewer: pf1e_engine::CombatantId) -> Option<String> {
    let enc = ep.encounter();
    let (rows, cols, n) = (
        enc.grid.rows as usize,
        enc.grid.cols as usize,
        enc.combatants.len(),
    );
    let t = ep.observation_tensor(viewer);
    if t.plane_shape != [PLANES, rows, cols] {
        return Some(format!(
            "plane_shape {:?} instead of {:?}",
            t.plane_shape,
            [PLANES, rows, cols]
        ));
    }
    if t.feature_shape != [n, FEATURES] {
        return Some(format!(
            "feature_shape {:?} instead of {:?}",
            t.feature_shape,
            [n, FEATURES]
        ));
    }
    if t.planes.len() != PLANES * rows * cols || t.features.len() != n * FEATURES {
        return Some(format!(
            "lengths planes {} features {} do not match the shapes",
            t.planes.len(),
            t.features.len()
        ));
    }
    if let Some(i) = t.planes.iter().position(|x| !x.is_finite()) {
        return Some(format!("plane value {i} is {}", t.planes[i]));
    }
    if let Some(i) = t.features.iter().position(|x| !x.is_finite()) {
        return Some(format!("feature value {i} is {}", t.features[i]));
    }
    // Exact bounds (issue 14): every value within the schema's bounds.
    let bounds = pf1e_engine::observe::tensor::plane_bounds(enc);
    let cells = (rows * cols).max(1);
    if let Some(i) = t.planes.iter().enumerate().position(|(i, v)| {
        let (lo, hi) = bounds[i / cells];
        !(lo..=hi).contains(v)
    }) {
        return Some(format!(
            "plane value {i} ({}) is {}, outside {:?}",
            pf1e_engine::observe::tensor::PLANE_NAMES[i / cells],
            t.planes[i],
            bounds[i / cells]
        ));
    }
    let fb = &pf1e_engine::observe::tensor::FEATURE_BOUNDS;
    if let Some(i) = t.features.iter().enumerate().position(|(i, v)| {
        let (lo, hi) = fb[i % FEATURES];
        !(lo..=hi).contains(v)
    }) {
        return Some(format!(
            "feature value {i} ({}) is {}, outside {:?}",
            pf1e_engine::observe::tensor::FEATURE_NAMES[i % FEATURES],
            t.features[i],
            fb[i % FEATURES]
        ));
    }
    None
}

/// The episode state that a rejected action must leave alone, in parts: the snapshot JSON
/// without what a rejected action legitimately changes — the input history and the turn's
/// result list (compared apart: each gets exactly the rejected entry), the decision ids, and
/// the turn frame's `acted` flag, which only the default policy's "takes no action" line
/// reads — plus the transcript and (`with_observation`: expensive to build, and a function of
/// the state) the observation.
#[derive(Debug, Clone, PartialEq)]
pub struct RejectionState {
    pub rest: serde_json::Value,
    pub history: Vec<serde_json::Value>,
    pub turn_results: Vec<serde_json::Value>,
    pub transcript: Vec<String>,
    pub observation: String,
}

pub fn state_for_rejection(ep: &Episode, with_observation: bool) -> RejectionState {
    let mut v: serde_json::Value =
        serde_json::from_slice(&ep.snapshot()).expect("a snapshot is JSON");
    let mut history = Vec::new();
    let mut turn_results = Vec::new();
    let array = |x: Option<serde_json::Value>| match x {
        Some(serde_json::Value::Array(a)) => a,
        _ => Vec::new(),
    };
    if let Some(o) = v.as_object_mut() {
        history = array(o.remove("history"));
        o.remove("next_decision_id");
        if let Some(t) = o.get_mut("turn").and_then(|t| t.as_object_mut()) {
            turn_results = array(t.remove("results"));
        }
        if let Some(p) = o
            .get_mut("phase")
            .and_then(|p| p.get_mut("Awaiting"))
            .and_then(|p| p.as_object_mut())
        {
            p.remove("decision_id");
        }
        if let Some(frames) = o.get_mut("frames").and_then(|f| f.as_array_mut()) {
            for f in frames {
                if let Some(t) = f.get_mut("turn").and_then(|t| t.as_object_mut()) {
                    t.remove("acted");
                }
            }
        }
    }
    RejectionState {
        rest: v,
        history,
        turn_results,
        transcript: ep.transcript().iter().map(|l| l.to_string()).collect(),
        observation: if with_observation {
            observation_json(ep, None).unwrap_or_default()
        } else {
            String::new()
        },
    }
}

/// Submit `a` at decision `d` (as the first and only action) and check that the first result
/// equals `validate`'s; when rejected, that nothing changed but the decision id: the same
/// question comes back (same actor, kind, budget, a newer id), with the same state,
/// transcript and (`with_observation`) observation. Returns the submit results.
pub fn submit_checked(
    ep: &mut Episode,
    d: &Decision,
    a: &Action,
    at: &At,
    known: &mut Known,
    with_observation: bool,
) -> Result<Vec<ActionResult>, Failure> {
    let v = match ep.validate(a) {
        Ok(v) => v,
        Err(e) => {
            known.flag(at, "validate_error", || {
                format!("validate({a:?}) errs: {e}")
            })?;
            return Ok(Vec::new());
        }
    };
    // An action with an id is that id's action (so the mask speaks for it too); `action_id`
    // never panics.
    let id = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ep.action_id(a)));
    let id = match id {
        Ok(id) => id,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            known.flag(at, &format!("action_id_panics:{}", kind_name(a)), || {
                format!("action_id({a:?}) panics: {msg}")
            })?;
            None
        }
    };
    if let Some(id) = id {
        let back = ep.action_from_id(id);
        ensure!(
            known,
            at,
            back.as_ref() == Some(a),
            format!("encode_decode_roundtrip:{}", kind_name(a)),
            "{a:?} has id {id}, which decodes to {back:?}"
        );
    }
    let before = (!v.ok).then(|| state_for_rejection(ep, with_observation));
    let results = match ep.submit(d.decision_id, std::slice::from_ref(a)) {
        Ok(r) => r,
        Err(e) => {
            known.flag(at, "submit_error", || {
                format!("submit({}, [{a:?}]) errs: {e}", d.decision_id)
            })?;
            return Ok(Vec::new());
        }
    };
    let first = results.first();
    ensure!(
        known,
        at,
        first == Some(&v),
        format!("submit_vs_validate:{}", kind_name(a)),
        "{a:?}: validate says {v:?}, submit's first result is {first:?} (all: {results:?})\n{}",
        tail(ep, 8)
    );
    if let Some(before) = before {
        match ep.advance() {
            Status::Decision(d2) => {
                ensure!(
                    known,
                    at,
                    d2.actor == d.actor
                        && d2.kind == d.kind
                        && d2.budget == d.budget
                        && d2.round == d.round
                        && d2.decision_id > d.decision_id,
                    "rejected_decision_not_reissued",
                    "after rejected {a:?} ({v:?}) decision {d:?} became {d2:?}"
                );
            }
            s => {
                known.flag(at, "rejected_decision_not_reissued", || {
                    format!("after rejected {a:?} ({v:?}) the status is {s:?}")
                })?;
            }
        }
        let after = state_for_rejection(ep, with_observation);
        // What the rejection must add: one history entry, and (at a turn decision) its
        // result in the turn's results.
        let mut expect = before.clone();
        let entry = HistoryEntry {
            decision_id: d.decision_id,
            actor: d.actor,
            kind: d.kind.clone(),
            actions: vec![a.clone()],
            results: vec![v.clone()],
        };
        expect
            .history
            .push(serde_json::to_value(&entry).expect("serializes"));
        if !d.kind.is_reaction() {
            expect
                .turn_results
                .push(serde_json::to_value(&v).expect("serializes"));
        }
        if after != expect {
            let show = |x: &dyn std::fmt::Debug| {
                let s = format!("{x:?}");
                s.chars().take(600).collect::<String>()
            };
            let what = if after.transcript != expect.transcript {
                format!(
                    "transcript grew: {:?}",
                    &after.transcript[expect.transcript.len().min(after.transcript.len())..]
                )
            } else if after.observation != expect.observation {
                "the observation changed".to_string()
            } else if after.history != expect.history {
                format!(
                    "history: expected a last entry {}, got {}",
                    show(&expect.history.last()),
                    show(&after.history.last())
                )
            } else if after.turn_results != expect.turn_results {
                format!(
                    "turn results: expected {}, got {}",
                    show(&expect.turn_results),
                    show(&after.turn_results)
                )
            } else {
                let (a0, b0) = (&after.rest, &expect.rest);
                let keys: Vec<&String> = a0
                    .as_object()
                    .map(|o| {
                        o.keys()
                            .filter(|k| a0.get(k.as_str()) != b0.get(k.as_str()))
                            .collect()
                    })
                    .unwrap_or_default();
                let diffs: Vec<String> = keys
                    .iter()
                    .map(|k| {
                        format!(
                            "{k}: before {} after {}",
                            show(&b0.get(k.as_str())),
                            show(&a0.get(k.as_str()))
                        )
                    })
                    .collect();
                format!("snapshot fields changed: {}", diffs.join("; "))
            };
            known.flag(
                at,
                &format!("rejected_action_changed_state:{}", kind_name(a)),
                || format!("rejected {a:?} ({v:?}): {what}"),
            )?;
        }
    }
    Ok(results)
}

/// Every check of one pending decision `d` (`ep.advance()` returned it). With `submit_all`,
/// also submits every legal id and [`REJECTED_SAMPLES`] illegal ones on clones.
pub fn check_decision(
    ep: &Episode,
    d: &Decision,
    at: &At,
    known: &mut Known,
    submit_all: bool,
) -> Result<DecisionInfo, Failure> {
    ensure!(
        known,
        at,
        ep.decision() == Some(d) && ep.status() == Some(Status::Decision(d.clone())),
        "status_mismatch",
        "advance() returned {d:?} but decision() is {:?}",
        ep.decision()
    );
    let size = ep.action_space_size();
    let mask = ep.action_mask();
    ensure!(
        known,
        at,
        mask.len() == size as usize,
        "mask_length",
        "mask has {} entries, the action space {size}",
        mask.len()
    );
    let mut legal = Vec::new();
    let mut agreed = Vec::new();
    let mut divergent = Vec::new();
    let cast_at = pf1e_engine::actions::space::ActionSpace::of(ep.encounter())
        .blocks()
        .into_iter()
        .find(|b| b.0 == "cast_spell_at")
        .map(|(_, start, size)| start..start + size)
        .unwrap_or(0..0);
    for id in 0..size {
        let m = mask.get(id as usize).copied().unwrap_or(0);
        ensure!(known, at, m <= 1, "mask_value", "mask[{id}] = {m}");
        if m == 0
            && cast_at.contains(&id)
            && !(u64::from(id) + d.decision_id).is_multiple_of(u64::from(CAST_AT_SAMPLE))
        {
            continue;
        }
        let Some(a) = ep.action_from_id(id) else {
            known.flag(at, "id_does_not_decode", || format!("id {id} of {size}"))?;
            continue;
        };
        let back = ep.action_id(&a);
        ensure!(
            known,
            at,
            back == Some(id),
            "id_roundtrip",
            "id {id} decodes to {a:?}, which encodes to {back:?}"
        );
        let v = match ep.validate(&a) {
            Ok(v) => v,
            Err(e) => {
                known.flag(at, "validate_error", || {
                    format!("validate({a:?}) errs: {e}")
                })?;
                continue;
            }
        };
        if m == 1 {
            legal.push(id);
        }
        if (m == 1) != v.ok {
            divergent.push(id);
            known.flag(at, &format!("mask_vs_validate:{}", kind_name(&a)), || {
                format!(
                    "{}: mask {m} but validate {v:?}\n  actor {}\n  decision {d:?}\n{}",
                    describe(ep, id),
                    who(ep, d),
                    tail(ep, 8)
                )
            })?;
        } else if m == 1 {
            agreed.push(id);
        }
    }
    // legal_actions(): the mask's ids, sorted, each with its own id.
    let la = ep.legal_actions();
    let la_ids: Vec<u32> = la.iter().map(|l| l.id).collect();
    ensure!(
        known,
        at,
        la_ids == legal,
        "legal_actions_vs_mask",
        "legal_actions() ids {la_ids:?} but mask ids {legal:?}"
    );
    for l in &la {
        let back = ep.action_id(&l.action);
        let decoded = ep.action_from_id(l.id);
        ensure!(
            known,
            at,
            back == Some(l.id) && decoded.as_ref() == Some(&l.action) && !l.label.is_empty(),
            "legal_action_roundtrip",
            "legal action {l:?}: its action encodes to {back:?}, its id decodes to {decoded:?}"
        );
    }
    ensure!(
        known,
        at,
        !legal.is_empty(),
        "no_legal_action",
        "empty mask at {d:?}\n{}",
        tail(ep, 8)
    );
    let decline = ep.action_id(&Action::new(ActionKind::Decline));
    match &d.kind {
        DecisionKind::TurnAction => {
            ensure!(
                known,
                at,
                legal.first() == Some(&0),
                "end_turn_not_legal",
                "turn decision without end_turn: {legal:?}"
            );
            // The turn ends by itself when nothing but end_turn (and free toggles) is left.
            let acts = legal.iter().any(|&id| {
                ep.action_from_id(id).is_some_and(|a| {
                    !matches!(
                        a.kind,
                        ActionKind::EndTurn
                            | ActionKind::DropProne
                            | ActionKind::ActivatePowerAttack
                            | ActionKind::FightDefensively
                            | ActionKind::ActivateLunge
                    )
                })
            });
            ensure!(
                known,
                at,
                acts,
                "turn_decision_without_action",
                "turn decision whose only legal ids are {:?}\n  actor {}\n{}",
                legal.iter().map(|&i| describe(ep, i)).collect::<Vec<_>>(),
                who(ep, d),
                tail(ep, 8)
            );
        }
        DecisionKind::AttackOfOpportunity {
            weapons,
            stand_still,
            ..
        } => {
            // Stand Still's answer where the decision offers it (CRB — Feats: Stand Still).
            let stand_still = stand_still
                .then(|| ep.action_id(&Action::new(ActionKind::StandStill)))
                .flatten();
            let mut expect: Vec<u32> = weapons
                .iter()
                .filter_map(|&w| {
                    let mut a = Action::new(ActionKind::AttackOfOpportunity);
                    a.weapon = Some(w);
                    ep.action_id(&a)
                })
                .chain(decline)
                .chain(stand_still)
                .collect();
            expect.sort_unstable();
            expect.dedup();
            ensure!(
                known,
                at,
                legal == expect && !legal.contains(&0) && decline.is_some_and(|x| legal.contains(&x)),
                "reaction_answers",
                "reaction {d:?}: legal {legal:?}, expected the offered weapons and decline {expect:?}"
            );
            ensure!(
                known,
                at,
                d.budget == pf1e_engine::Budget::default(),
                "reaction_budget",
                "reaction decision with a budget: {d:?}"
            );
        }
        DecisionKind::ReadiedTrigger { .. } | DecisionKind::StepUp { .. } => {
            // Fire / Step Up to each offered square, and decline (CRB — Ready; Step Up).
            let mut expect: Vec<u32> = match &d.kind {
                DecisionKind::StepUp { squares, .. } => squares
                    .iter()
                    .filter_map(|&c| {
                        let mut a = Action::new(ActionKind::FiveFootStep);
                        a.destination = Some(c);
                        ep.action_id(&a)
                    })
                    .collect(),
                _ => ep
                    .action_id(&Action::new(ActionKind::FireReadied))
                    .into_iter()
                    .collect(),
            };
            expect.extend(decline);
            expect.sort_unstable();
            ensure!(
                known,
                at,
                legal == expect && !legal.contains(&0),
                "reaction_answers",
                "reaction {d:?}: legal {legal:?}, expected {expect:?}"
            );
            ensure!(
                known,
                at,
                d.budget == pf1e_engine::Budget::default(),
                "reaction_budget",
                "reaction decision with a budget: {d:?}"
            );
        }
    }
    // Observations.
    if let Err(e) = observation_json(ep, None) {
        known.flag(at, "observation", || format!("observation(None) {e}"))?;
    }
    if let Some(p) = tensor_problem(ep, d.actor) {
        known.flag(at, "tensor", || {
            format!("observation_tensor({:?}): {p}", d.actor)
        })?;
    }
    if submit_all {
        for c in ep.encounter().combatants.iter().enumerate() {
            let id = pf1e_engine::CombatantId(c.0 as u16);
            // (An observation costs about as much as the whole validate sweep in a debug
            // build: every viewer's only at the first decision of a game.)
            if at.decision == 0 {
                if let Err(e) = observation_json(ep, Some(id)) {
                    known.flag(at, "observation", || format!("observation({id:?}) {e}"))?;
                }
            }
            if let Some(p) = tensor_problem(ep, id) {
                known.flag(at, "tensor", || format!("observation_tensor({id:?}): {p}"))?;
            }
        }
        // The legal square-aimed casts (up to thousands) are submitted one in
        // CAST_AT_SAMPLE, the other legal ids all.
        for &id in legal.iter().filter(|&&id| {
            !cast_at.contains(&id)
                || (u64::from(id) + d.decision_id).is_multiple_of(u64::from(CAST_AT_SAMPLE))
        }) {
            let a = ep.action_from_id(id).expect("a legal id decodes");
            let mut c = ep.clone();
            let r = c.submit(d.decision_id, std::slice::from_ref(&a));
            let ok = matches!(&r, Ok(v) if v.first().is_some_and(|x| x.ok));
            if !ok && !divergent.contains(&id) {
                known.flag(
                    at,
                    &format!("legal_id_refused_by_submit:{}", kind_name(&a)),
                    || {
                        format!(
                            "{} is in the mask but submit answers {r:?}\n  actor {}\n{}",
                            describe(ep, id),
                            who(ep, d),
                            tail(ep, 8)
                        )
                    },
                )?;
            }
        }
        // A sample of illegal ids: refused as validate says, and nothing changes.
        let illegal: Vec<u32> = (0..size).filter(|i| !legal.contains(i)).collect();
        let step = (illegal.len() / REJECTED_SAMPLES).max(1);
        let offset = at.decision.wrapping_mul(7919) % step;
        for &id in illegal
            .iter()
            .skip(offset)
            .step_by(step)
            .take(REJECTED_SAMPLES)
        {
            let a = ep.action_from_id(id).expect("every id decodes");
            let mut c = ep.clone();
            submit_checked(&mut c, d, &a, at, known, false)?;
        }
    }
    Ok(DecisionInfo { legal, agreed })
}

/// What to submit at a decision.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    /// An id of the action space (decoded at the decision).
    Id(u32),
    /// A raw action.
    Action(Action),
}

/// Picks what to submit at each decision of an external game.
pub trait Chooser {
    fn choose(&mut self, ep: &Episode, d: &Decision, info: &DecisionInfo) -> Choice;
}

/// A random masked player: a uniformly random id among those the mask and `validate` both
/// accept, biased so that fights end: at a turn decision `end_turn` only 1 time in 10 when
/// something else is legal, and 1 time in 2 an attacking id (attack, full attack, charge,
/// move toward, maneuver) when there is one; at a reaction, uniform.
#[derive(Debug, Clone)]
pub struct RandomPlayer(pub SplitMix64);

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer(SplitMix64(seed ^ 0x5EED_C0DE_0BAD_F00D))
    }

    /// The pick among `agreed` ids.
    pub fn pick(&mut self, ep: &Episode, d: &Decision, agreed: &[u32]) -> u32 {
        if agreed.is_empty() {
            return 0;
        }
        if d.kind.is_reaction() {
            return agreed[self.0.below(agreed.len())];
        }
        let others: Vec<u32> = agreed.iter().copied().filter(|&i| i != 0).collect();
        let r = self.0.below(100);
        if others.is_empty() || (r < 10 && agreed.contains(&0)) {
            return 0;
        }
        if r < 55 {
            let attacking: Vec<u32> = others
                .iter()
                .copied()
                .filter(|&i| {
                    ep.action_from_id(i).is_some_and(|a| {
                        matches!(
                            a.kind,
                            ActionKind::Attack
                                | ActionKind::FullAttack
                                | ActionKind::Charge
                                | ActionKind::Maneuver
                        ) || (a.kind == ActionKind::Move && a.target.is_some())
                    })
                })
                .collect();
            if !attacking.is_empty() {
                return attacking[self.0.below(attacking.len())];
            }
        }
        others[self.0.below(others.len())]
    }
}

impl Chooser for RandomPlayer {
    fn choose(&mut self, ep: &Episode, d: &Decision, info: &DecisionInfo) -> Choice {
        Choice::Id(self.pick(ep, d, &info.agreed))
    }
}

/// How the game went.
#[derive(Debug, Clone)]
pub struct GameSummary {
    pub decisions: usize,
    pub outcome: Outcome,
    pub reactions: usize,
    /// What the game exercised: `ok:<kind>` (an accepted submission), `rejected:<kind>:<reason>`
    /// (both prefixed `reaction:` at a reaction decision), `end:win` / `end:draw`.
    pub seen: std::collections::BTreeSet<String>,
}

fn transcript(ep: &Episode) -> Vec<String> {
    ep.transcript().iter().map(|l| l.to_string()).collect()
}

/// The first index where two transcripts differ, with both lines.
fn first_difference(a: &[String], b: &[String]) -> String {
    let i = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    format!(
        "first difference at line {i}: {:?} vs {:?} (lengths {} and {})",
        a.get(i),
        b.get(i),
        a.len(),
        b.len()
    )
}

/// The checks of a finished episode: the end is reached exactly once (a second `advance`
/// gives the same outcome, `submit` and `validate` say `Terminal`, an all-zero mask, no legal
/// action, one "battle over" line, the last one).
pub fn check_terminal(ep: &mut Episode, at: &At, known: &mut Known) -> Result<Outcome, Failure> {
    let o = match ep.advance() {
        Status::Terminal(o) => o,
        s => {
            known.flag(at, "terminal", || format!("not terminal: {s:?}"))?;
            return Ok(Outcome {
                winner: None,
                rounds: 0,
                truncated: false,
            });
        }
    };
    let again = ep.advance();
    ensure!(
        known,
        at,
        again == Status::Terminal(o.clone())
            && ep.status() == Some(Status::Terminal(o.clone()))
            && ep.outcome() == Some(&o)
            && ep.decision().is_none(),
        "terminal",
        "outcome {o:?}, then advance() {again:?}, status() {:?}",
        ep.status()
    );
    let last_id = ep.history().last().map_or(1, |h| h.decision_id);
    for id in [0, last_id, last_id + 1] {
        let r = ep.submit(id, &[Action::new(ActionKind::EndTurn)]);
        ensure!(
            known,
            at,
            r == Err(SubmitError::Terminal),
            "terminal",
            "submit({id}, [end_turn]) after the end answers {r:?}"
        );
    }
    let v = ep.validate(&Action::new(ActionKind::EndTurn));
    ensure!(
        known,
        at,
        v == Err(SubmitError::Terminal),
        "terminal",
        "validate(end_turn) after the end answers {v:?}"
    );
    let mask = ep.action_mask();
    ensure!(
        known,
        at,
        mask.len() == ep.action_space_size() as usize && mask.iter().all(|&m| m == 0),
        "terminal",
        "mask after the end: {} entries, {} set",
        mask.len(),
        mask.iter().filter(|&&m| m != 0).count()
    );
    ensure!(
        known,
        at,
        ep.legal_actions().is_empty() && ep.action_from_id(0).is_none(),
        "terminal",
        "legal actions after the end: {:?}",
        ep.legal_actions()
    );
    let enc = ep.encounter().clone();
    ensure!(
        known,
        at,
        o.winner.as_ref().is_none_or(|w| enc.sides.contains(w))
            && o.rounds >= 1
            && o.rounds <= enc.options.round_cap
            && (!o.truncated || (o.winner.is_none() && o.rounds == enc.options.round_cap)),
        "terminal",
        "implausible outcome {o:?} (sides {:?}, round cap {})",
        enc.sides,
        enc.options.round_cap
    );
    let t = transcript(ep);
    let over: Vec<usize> = (0..t.len())
        .filter(|&i| t[i].starts_with("battle over"))
        .collect();
    ensure!(
        known,
        at,
        over.len() == 1 && over[0] + 1 == t.len(),
        "battle_over_lines",
        "\"battle over\" at lines {over:?} of {}: {:?}",
        t.len(),
        over.iter().map(|&i| &t[i]).collect::<Vec<_>>()
    );
    if let Err(e) = observation_json(ep, None) {
        known.flag(at, "observation", || {
            format!("observation(None) at the end {e}")
        })?;
    }
    if let Some(p) = tensor_problem(ep, pf1e_engine::CombatantId(0)) {
        known.flag(at, "tensor", || {
            format!("observation_tensor at the end: {p}")
        })?;
    }
    Ok(o)
}

/// A twin of the episode taken at a decision, continued with the same choices at the end.
struct Twin {
    what: &'static str,
    key: &'static str,
    ep: Episode,
    from: usize,
}

/// Play `case` with every combatant external, `chooser` deciding, to the end, with every
/// check at every decision ([`check_decision`]; every legal id submitted on clones at every
/// [`SUBMIT_EVERY`]-th decision), the twins of decision [`TWIN_AT`] (`clone()` and
/// `restore(snapshot())`), the replay of the history and the end checks.
pub fn play_external(
    case: &Case,
    seed: u64,
    chooser: &mut dyn Chooser,
    known: &mut Known,
) -> Result<GameSummary, Failure> {
    let enc = case.enc.clone();
    let n = enc.combatants.len();
    let controllers = vec![Controller::External; n];
    let mut ep = Episode::new(enc.clone(), seed, &controllers);
    let mut at = At {
        case: case.name.clone(),
        seed,
        decision: 0,
    };
    let mut choices: Vec<Choice> = Vec::new();
    let mut twins: Vec<Twin> = Vec::new();
    let mut reactions = 0;
    let mut seen = std::collections::BTreeSet::new();
    let mut k = 0;
    loop {
        at.decision = k;
        let s = ep.advance();
        let s2 = ep.advance();
        ensure!(
            known,
            &at,
            s == s2,
            "advance_not_idempotent",
            "advance() gave {s:?} then {s2:?}"
        );
        let Status::Decision(d) = s else { break };
        if k >= MAX_DECISIONS {
            known.flag(&at, "too_many_decisions", || {
                format!("still deciding after {k} decisions\n{}", tail(&ep, 8))
            })?;
            break;
        }
        reactions += usize::from(d.kind.is_reaction());
        if k == TWIN_AT {
            let bytes = ep.snapshot();
            match Episode::restore(enc.clone(), &bytes) {
                Ok(r) => {
                    ensure!(
                        known,
                        &at,
                        r.snapshot() == bytes,
                        "restore_diverged",
                        "restore(snapshot()).snapshot() differs from snapshot()"
                    );
                    twins.push(Twin {
                        what: "restore(snapshot())",
                        key: "restore_diverged",
                        ep: r,
                        from: choices.len(),
                    });
                }
                Err(e) => known.flag(&at, "restore_diverged", || format!("restore fails: {e}"))?,
            }
            twins.push(Twin {
                what: "clone()",
                key: "clone_diverged",
                ep: ep.clone(),
                from: choices.len(),
            });
        }
        let info = check_decision(&ep, &d, &at, known, k % SUBMIT_EVERY == 0)?;
        let choice = chooser.choose(&ep, &d, &info);
        let a = match &choice {
            Choice::Id(id) => match ep.action_from_id(*id) {
                Some(a) => a,
                None => {
                    known.flag(&at, "id_does_not_decode", || format!("chosen id {id}"))?;
                    Action::new(ActionKind::EndTurn)
                }
            },
            Choice::Action(a) => a.clone(),
        };
        let results = submit_checked(&mut ep, &d, &a, &at, known, true)?;
        if let Some(r) = results.first() {
            let what = if r.ok {
                format!("ok:{}", r.kind.name())
            } else {
                format!("rejected:{}:{}", r.kind.name(), r.code().unwrap_or(""))
            };
            seen.insert(if d.kind.is_reaction() {
                format!("reaction:{what}")
            } else {
                what
            });
        }
        let in_history = ep
            .results_of(d.decision_id)
            .is_some_and(|r| r.starts_with(&results));
        ensure!(
            known,
            &at,
            in_history,
            "history",
            "results_of({}) = {:?} does not start with submit's {results:?}",
            d.decision_id,
            ep.results_of(d.decision_id)
        );
        if let Choice::Id(id) = &choice {
            if info.agreed.contains(id) {
                let ok = results.first().is_some_and(|r| r.ok);
                ensure!(
                    known,
                    &at,
                    ok,
                    format!("legal_id_refused_by_submit:{}", kind_name(&a)),
                    "the pick {} was refused: {results:?}\n{}",
                    describe(&ep, *id),
                    tail(&ep, 8)
                );
            }
        }
        choices.push(choice);
        k += 1;
    }
    at.decision = usize::MAX;
    let outcome = check_terminal(&mut ep, &at, known)?;
    let t = transcript(&ep);
    if let Some(l) = t.iter().find(|l| l.contains("refused")) {
        known.flag(&at, "refused_with_external_controllers", || {
            format!("the default policy was asked: {l:?}")
        })?;
    }
    // History: one entry per submitted choice, with the action as submitted.
    let h: &[HistoryEntry] = ep.history();
    ensure!(
        known,
        &at,
        h.len() == choices.len(),
        "history",
        "{} history entries for {} submissions",
        h.len(),
        choices.len()
    );
    let bytes = ep.snapshot();
    for mut tw in twins {
        let mut tat = at.clone();
        for (i, c) in choices[tw.from..].iter().enumerate() {
            tat.decision = tw.from + i;
            let Status::Decision(d) = tw.ep.advance() else {
                known.flag(&tat, tw.key, || format!("the {} twin ended early", tw.what))?;
                break;
            };
            let a = match c {
                Choice::Id(id) => tw.ep.action_from_id(*id),
                Choice::Action(a) => Some(a.clone()),
            };
            let Some(a) = a else {
                known.flag(&tat, tw.key, || {
                    format!("{c:?} does not decode in the twin")
                })?;
                break;
            };
            if let Err(e) = tw.ep.submit(d.decision_id, &[a]) {
                known.flag(&tat, tw.key, || {
                    format!("the {} twin refuses: {e}", tw.what)
                })?;
                break;
            }
        }
        let s = tw.ep.advance();
        ensure!(
            known,
            &at,
            s == Status::Terminal(outcome.clone()),
            tw.key,
            "the {} twin ends with {s:?} instead of {outcome:?}",
            tw.what
        );
        let tt = transcript(&tw.ep);
        ensure!(
            known,
            &at,
            tt == t,
            tw.key,
            "the {} twin's transcript differs: {}",
            tw.what,
            first_difference(&t, &tt)
        );
        ensure!(
            known,
            &at,
            tw.ep.snapshot() == bytes,
            tw.key,
            "the {} twin's final snapshot differs",
            tw.what
        );
    }
    match Episode::replay(enc, DiceSource::seeded(seed), &controllers, ep.history()) {
        Ok(r) => {
            ensure!(
                known,
                &at,
                r.snapshot() == bytes,
                "replay_diverged",
                "replay of the history: snapshot differs; {}",
                first_difference(&t, &transcript(&r))
            );
        }
        Err(e) => known.flag(&at, "replay_diverged", || format!("replay fails: {e}"))?,
    }
    seen.insert(
        if outcome.winner.is_some() {
            "end:win"
        } else {
            "end:draw"
        }
        .to_string(),
    );
    Ok(GameSummary {
        decisions: choices.len(),
        outcome,
        reactions,
        seen,
    })
}

/// Play `case` with the default policy on both sides: no decision arises, no transcript line
/// says "refused" (the default policy never chooses what the rules refuse), the end checks
/// hold, and the same seed (and a replay of the empty history) gives the same episode.
pub fn play_default(case: &Case, seed: u64, known: &mut Known) -> Result<Outcome, Failure> {
    let enc = case.enc.clone();
    let mut ep = Episode::new(enc.clone(), seed, &[]);
    let at = At {
        case: case.name.clone(),
        seed,
        decision: usize::MAX,
    };
    let s = ep.advance();
    if let Status::Decision(d) = &s {
        known.flag(&at, "default_policy_decision", || {
            format!("a decision with no external controller: {d:?}")
        })?;
        return Ok(Outcome {
            winner: None,
            rounds: 0,
            truncated: false,
        });
    }
    let t = transcript(&ep);
    for (i, l) in t.iter().enumerate() {
        if !l.contains("refused") {
            continue;
        }
        // "round N id: <kind> refused: <reason>"
        let msg = &ep.transcript()[i].message;
        let key = match msg.split_once(" refused: ") {
            Some((kind, reason)) => format!("default_policy_refused:{kind}:{reason}"),
            None => "default_policy_refused:other".to_string(),
        };
        known.flag(&at, &key, || {
            let lo = i.saturating_sub(6);
            let around: Vec<String> = t[lo..(i + 3).min(t.len())]
                .iter()
                .enumerate()
                .map(|(j, x)| format!("    {}{x}", if lo + j == i { "> " } else { "| " }))
                .collect();
            format!("transcript line {i}:\n{}", around.join("\n"))
        })?;
    }
    let o = check_terminal(&mut ep, &at, known)?;
    let mut again = Episode::new(enc.clone(), seed, &[]);
    again.advance();
    let bytes = ep.snapshot();
    ensure!(
        known,
        &at,
        again.snapshot() == bytes,
        "replay_diverged",
        "the same seed gives another episode: {}",
        first_difference(&t, &transcript(&again))
    );
    match Episode::replay(enc, DiceSource::seeded(seed), &[], ep.history()) {
        Ok(r) => ensure!(
            known,
            &at,
            r.snapshot() == bytes,
            "replay_diverged",
            "replay of the (empty) history differs"
        ),
        Err(e) => known.flag(&at, "replay_diverged", || format!("replay fails: {e}"))?,
    }
    Ok(o)
}
