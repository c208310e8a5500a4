//! # pf1e-native — `pf1e_gym._native`
//!
//! The pf1e-gym engine in process for Python (PyO3; built by maturin into the `pf1e_gym`
//! wheel). [`core`] holds the vector of episodes (pure Rust); this file is the binding:
//!
//! - `spec(data_dir, scenario) -> bytes`: the scenario's `pf1e.env.v1.Spec`, serialized —
//!   the very message the gRPC server's GetSpec returns, so the Python side builds the same
//!   spaces from it;
//! - `VecCore(data_dir, scenario, controlled_sides, controlled_ids, num_envs, threads,
//!   reward)`: `num_envs` slots; `bind(...)` takes the caller's numpy output arrays once;
//!   `run(codes, args, pool_seeds)` works on every slot at once on the core's thread pool with
//!   the GIL released, writing the rows of the slots it worked on straight into those arrays.
//!
//! Scenarios are named (`data/scenarios/<name>.yaml`) or inline, given as a serialized
//! `pf1e.env.v1.Scenario`; controlled sides and ids, and reward options (a serialized
//! `RewardOptions`), are checked by the server's own functions, with its messages.
//! `pf1e_gym/native.py` is the Gymnasium API over this module (`docs/native.md`).
pub mod core;

use crate::core::{Core, CoreError, Game, Out, Work};
use numpy::{PyArrayDyn, PyArrayMethods};
use pf1e_env_server::proto;
use pf1e_env_server::scenarios::{InlineScenario, ScenarioSource, ScenarioStore};
use pf1e_env_server::service::{
    controllers, decision_to_proto, reward_config, EnvironmentService, ServiceConfig,
};
use prost::Message;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// The allocator of the server and CLI binaries (the engine allocates many small vectors per
/// decision; glibc malloc measured about 15 % of server time).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn py_err(e: CoreError) -> PyErr {
    match e {
        CoreError::Invalid(m) => PyValueError::new_err(m),
        CoreError::Episode(m) => PyRuntimeError::new_err(m),
    }
}

/// A serialized `pf1e.env.v1.Scenario` → the scenario loader's source.
fn scenario_source(bytes: &[u8]) -> PyResult<ScenarioSource> {
    let s = proto::Scenario::decode(bytes)
        .map_err(|e| PyValueError::new_err(format!("scenario: not a Scenario message: {e}")))?;
    match s.source {
        Some(proto::scenario::Source::Named(n)) => Ok(ScenarioSource::Named(n)),
        Some(proto::scenario::Source::Inline(i)) => {
            Ok(ScenarioSource::Inline(InlineScenario::from(&i)))
        }
        None => Err(PyValueError::new_err(
            "scenario: one of named or inline is required",
        )),
    }
}

/// Optional serialized `RewardOptions` → the engine's settings (the server's defaults and
/// checks; INVALID_ARGUMENT there is `ValueError` here, naming `reward.<field>`).
fn reward_of(bytes: Option<&[u8]>) -> PyResult<pf1e_engine::reward::RewardConfig> {
    let opts = bytes
        .map(proto::RewardOptions::decode)
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("reward: not a RewardOptions message: {e}")))?;
    reward_config(opts.as_ref(), "reward").map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The `Spec` (serialized) of a scenario: what the gRPC server's GetSpec answers.
///
/// Raises `ValueError` (the scenario is missing, unknown, or invalid; the message names the
/// field).
#[pyfunction]
fn spec<'py>(py: Python<'py>, data_dir: &str, scenario: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let req = proto::GetSpecRequest {
        scenario: Some(
            proto::Scenario::decode(scenario)
                .map_err(|e| PyValueError::new_err(format!("scenario: {e}")))?,
        ),
    };
    let svc = EnvironmentService::new(ServiceConfig::new(data_dir));
    let spec = svc
        .get_spec_blocking(&req)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &spec.encode_to_vec()))
}

/// The caller's output arrays (C-contiguous, one row per slot).
struct Buffers {
    planes: Py<PyArrayDyn<f32>>,
    features: Py<PyArrayDyn<f32>>,
    masks: Py<PyArrayDyn<i8>>,
    rewards: Py<PyArrayDyn<f32>>,
    terminated: Py<PyArrayDyn<bool>>,
    truncated: Py<PyArrayDyn<bool>>,
    decision_ids: Py<PyArrayDyn<i64>>,
    actor: Py<PyArrayDyn<i64>>,
    rounds: Py<PyArrayDyn<i64>>,
    kinds: Py<PyArrayDyn<i64>>,
    result_ok: Py<PyArrayDyn<bool>>,
    result_codes: Py<PyArrayDyn<i64>>,
    winners: Py<PyArrayDyn<i64>>,
}

/// `num_envs` episodes of one scenario stepped together in process (see the module docs).
#[pyclass(module = "pf1e_gym._native", name = "VecCore")]
struct PyCore {
    core: Core,
    bufs: Option<Buffers>,
}

/// What `run` does to a slot: `codes[i]` 0 keep, 1 step (`args[i]` the action id), 2 reset
/// (`args[i]` the seed), 3 the next pooled episode.
fn work_of(codes: &[i64], args: &[u64]) -> PyResult<Vec<Work>> {
    if codes.len() != args.len() {
        return Err(PyValueError::new_err(format!(
            "codes and args differ in length ({} and {})",
            codes.len(),
            args.len()
        )));
    }
    codes
        .iter()
        .zip(args)
        .enumerate()
        .map(|(i, (&c, &a))| {
            Ok(match c {
                0 => Work::Keep,
                1 => Work::Step(u32::try_from(a).map_err(|_| {
                    PyValueError::new_err(format!("env {i}: action id {a} out of range"))
                })?),
                2 => Work::Reset(a),
                3 => Work::FromPool,
                other => {
                    return Err(PyValueError::new_err(format!(
                        "codes[{i}]: {other} is not 0 (keep), 1 (step), 2 (reset) or 3 (pool)"
                    )))
                }
            })
        })
        .collect()
}

#[pymethods]
impl PyCore {
    /// Raises `ValueError` for an unknown scenario, side or combatant id, or bad reward
    /// options (the message names the field, as the server's INVALID_ARGUMENT does).
    #[new]
    #[pyo3(signature = (data_dir, scenario, controlled_sides, controlled_ids, num_envs, threads=0, reward=None))]
    fn new(
        data_dir: &str,
        scenario: &[u8],
        controlled_sides: Vec<String>,
        controlled_ids: Vec<String>,
        num_envs: usize,
        threads: usize,
        reward: Option<&[u8]>,
    ) -> PyResult<PyCore> {
        if num_envs == 0 {
            return Err(PyValueError::new_err("num_envs must be >= 1"));
        }
        let source = scenario_source(scenario)?;
        let store = ScenarioStore::new(data_dir);
        let (_, enc) = store
            .resolve(Some(&source), "scenario")
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let controlled = proto::Controlled {
            sides: controlled_sides,
            combatant_ids: controlled_ids,
        };
        let (ctl, _) = controllers(&enc, Some(&controlled))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let game = Game::new(enc, ctl, reward_of(reward)?);
        Ok(PyCore {
            core: Core::new(game, num_envs, threads).map_err(py_err)?,
            bufs: None,
        })
    }

    /// Reward options (a serialized `RewardOptions`, `None`: the defaults, sparse) of the
    /// episodes started from now on.
    #[pyo3(signature = (reward=None))]
    fn set_reward(&mut self, reward: Option<&[u8]>) -> PyResult<()> {
        self.core.set_reward(reward_of(reward)?);
        Ok(())
    }

    /// Values per row: `(planes, features, actions)`.
    fn row_lengths(&self) -> (usize, usize, usize) {
        self.core.game().row_lengths()
    }

    /// Threads of the core's pool.
    #[getter]
    fn threads(&self) -> usize {
        self.core.threads()
    }

    /// Episodes waiting in the pool (SAME_STEP autoreset).
    fn pool_len(&self) -> usize {
        self.core.pool_len()
    }

    /// Forget every episode (the slots' and the pool's).
    fn clear(&mut self) {
        self.core.clear();
    }

    /// Take the output arrays (kept for the core's life; each C-contiguous with
    /// `num_envs` rows): planes, features (`float32`), masks (`int8`), rewards (`float32`),
    /// terminated, truncated (`bool`), decision_ids, actor, rounds, kinds (`int64`),
    /// result_ok (`bool`), result_codes, winners (`int64`).
    #[allow(clippy::too_many_arguments)]
    fn bind(
        &mut self,
        planes: Py<PyArrayDyn<f32>>,
        features: Py<PyArrayDyn<f32>>,
        masks: Py<PyArrayDyn<i8>>,
        rewards: Py<PyArrayDyn<f32>>,
        terminated: Py<PyArrayDyn<bool>>,
        truncated: Py<PyArrayDyn<bool>>,
        decision_ids: Py<PyArrayDyn<i64>>,
        actor: Py<PyArrayDyn<i64>>,
        rounds: Py<PyArrayDyn<i64>>,
        kinds: Py<PyArrayDyn<i64>>,
        result_ok: Py<PyArrayDyn<bool>>,
        result_codes: Py<PyArrayDyn<i64>>,
        winners: Py<PyArrayDyn<i64>>,
    ) {
        self.bufs = Some(Buffers {
            planes,
            features,
            masks,
            rewards,
            terminated,
            truncated,
            decision_ids,
            actor,
            rounds,
            kinds,
            result_ok,
            result_codes,
            winners,
        });
    }

    /// Work on every slot at once (GIL released): `codes` / `args` one per slot (see
    /// `work_of`), and one pooled reset per `pool_seeds` item. Returns how many pooled
    /// episodes were dropped (over at their start).
    ///
    /// Raises `ValueError` (nothing applied: a bad code, action id or buffer; a step of a
    /// slot without an episode) or `RuntimeError` (an episode went wrong: that slot is
    /// emptied, the others were applied).
    fn run(
        &mut self,
        py: Python<'_>,
        codes: numpy::PyReadonlyArray1<'_, i64>,
        args: numpy::PyReadonlyArray1<'_, u64>,
        pool_seeds: numpy::PyReadonlyArray1<'_, u64>,
    ) -> PyResult<usize> {
        let work = work_of(codes.as_slice()?, args.as_slice()?)?;
        let pool_seeds = pool_seeds.as_slice()?.to_vec();
        let b = self
            .bufs
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("bind() the output arrays first"))?;
        let mut planes = b.planes.bind(py).try_readwrite()?;
        let mut features = b.features.bind(py).try_readwrite()?;
        let mut masks = b.masks.bind(py).try_readwrite()?;
        let mut rewards = b.rewards.bind(py).try_readwrite()?;
        let mut terminated = b.terminated.bind(py).try_readwrite()?;
        let mut truncated = b.truncated.bind(py).try_readwrite()?;
        let mut decision_ids = b.decision_ids.bind(py).try_readwrite()?;
        let mut actor = b.actor.bind(py).try_readwrite()?;
        let mut rounds = b.rounds.bind(py).try_readwrite()?;
        let mut kinds = b.kinds.bind(py).try_readwrite()?;
        let mut result_ok = b.result_ok.bind(py).try_readwrite()?;
        let mut result_codes = b.result_codes.bind(py).try_readwrite()?;
        let mut winners = b.winners.bind(py).try_readwrite()?;
        let mut out = Out {
            planes: planes.as_slice_mut()?,
            features: features.as_slice_mut()?,
            masks: masks.as_slice_mut()?,
            rewards: rewards.as_slice_mut()?,
            terminated: terminated.as_slice_mut()?,
            truncated: truncated.as_slice_mut()?,
            decision_ids: decision_ids.as_slice_mut()?,
            actor: actor.as_slice_mut()?,
            rounds: rounds.as_slice_mut()?,
            kinds: kinds.as_slice_mut()?,
            result_ok: result_ok.as_slice_mut()?,
            result_codes: result_codes.as_slice_mut()?,
            winners: winners.as_slice_mut()?,
        };
        let core = &mut self.core;
        py.detach(|| core.run(&work, &pool_seeds, &mut out))
            .map_err(py_err)
    }

    /// Slot `i`'s pending decision as a serialized `pf1e.env.v1.Decision` (the server's
    /// `EpisodeState.decision`: actor, round, budget, kind and a reaction's offer), or `None`
    /// when it has no episode or its episode is over.
    fn decision<'py>(&self, py: Python<'py>, i: usize) -> Option<Bound<'py, PyBytes>> {
        let slot = self.core.slot(i)?;
        match slot.status() {
            pf1e_engine::Status::Decision(d) => Some(PyBytes::new(
                py,
                &decision_to_proto(slot.episode(), d).encode_to_vec(),
            )),
            pf1e_engine::Status::Terminal(_) => None,
        }
    }
}

/// `pf1e_gym._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(spec, m)?)?;
    m.add_class::<PyCore>()?;
    m.add("ENGINE_VERSION", pf1e_engine::VERSION)?;
    Ok(())
}
