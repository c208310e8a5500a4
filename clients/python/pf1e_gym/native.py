"""The engine in process: :class:`VectorEnv` and :class:`Env`, without a server.

The wheel's native extension (``pf1e_gym._native``, Rust, built by maturin) runs the
episodes inside the Python process: a step of ``num_envs`` episodes is one call that steps
them in parallel on a Rust thread pool with the GIL released and writes every observation,
mask, reward and flag straight into arrays this env owns (no messages, no per-step
allocation in Python). Same scenario, controlled side, seeds and actions ⇒ the same
trajectories as :class:`~pf1e_gym.vector.Pf1eVectorEnv` over gRPC, bit for bit: same spec
(the server's ``GetSpec`` message, built by the same code), same tensors, masks, action ids,
rewards, end flags and infos (``tests/test_native.py`` checks it over many seeded episodes).

Use it for training throughput on one machine; the gRPC server stays the path for remote and
multi-language clients, LLM agents (text observations, labels, Explain) and everything else
the protocol offers. What it does not have: JSON or text observations (tensors only), the
legal-action labels, snapshots, transcripts, tactics per reset.

:class:`VectorEnv` follows :class:`~pf1e_gym.vector.Pf1eVectorEnv` exactly — both
Gymnasium autoreset modes (``"next_step"``, ``"same_step"`` with a pool of pre-reset
episodes replenished in the same call as the step), ``reset(seed=s)`` seeding slot *i* with
*s + i* and later autoresets from ``np_random`` in the same order, the same infos — see that
class for the semantics. Only the transport differs, and two options:

- ``num_threads``: threads of the Rust pool (default: one per CPU);
- ``copy``: ``True`` (default, as Gymnasium's vector envs) returns observations that stay
  valid after the next step (one ``memcpy`` of the batch); ``False`` returns the env's own
  arrays, overwritten in place by the next ``step``/``reset`` (zero copies: copy what you
  keep, e.g. into a rollout buffer, before stepping again).

Errors: a bad action (outside ``Discrete(n)``) raises ``ValueError`` before anything runs;
an episode that goes wrong (a runaway out of turns, an engine panic) raises ``RuntimeError``
after the other slots were stepped, and the env then needs ``reset()``, as the gRPC env does.

Without the extension (a development install that has not built it) importing this module
raises ``ImportError`` saying how to build it (``docs/native.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from pf1e_gym import _bundled
from pf1e_gym._codec import ObsCodec, reaction_info, reward_dict, reward_options
from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.env import episode_reward
from pf1e_gym.vector import _CODE_NAMES, _KIND_NAMES, AUTORESET_MODES, vector_infos

try:
    from pf1e_gym import _native
except ImportError as e:  # pragma: no cover - depends on the install
    raise ImportError(
        "pf1e_gym.native needs the native extension pf1e_gym._native, which this install "
        "does not have: install a pf1e-gym wheel, or build it from a checkout with "
        "`pip install -e clients/python` (maturin; needs cargo) — see docs/native.md"
    ) from e

__all__ = ["Env", "VectorEnv", "available"]

_MAX_RESET_RETRIES = 100
# ``VecCore.run`` work codes.
_KEEP, _STEP, _RESET, _POOL = 0, 1, 2, 3


def available() -> bool:
    """Whether the native extension is importable (always ``True`` once this module is)."""
    return True


def _scenario_msg(scenario: str | pb.Scenario) -> pb.Scenario:
    if isinstance(scenario, pb.Scenario):
        return scenario
    return pb.Scenario(named=scenario)


def _data_dir(data_dir: str | None) -> str:
    if data_dir is not None:
        return str(data_dir)
    found = _bundled.data_dir()
    if found is None:
        raise ValueError(
            "no scenario data: pass data_dir= (the repository's data/ directory) — this "
            "install bundles none"
        )
    return found


def spec(scenario: str | pb.Scenario = "sample_arena", data_dir: str | None = None) -> pb.Spec:
    """The scenario's ``Spec``: the message the server's ``GetSpec`` returns."""
    raw = _native.spec(_data_dir(data_dir), _scenario_msg(scenario).SerializeToString())
    return pb.Spec.FromString(raw)


class VectorEnv(gym.vector.VectorEnv[dict[str, Any], Any, np.ndarray]):
    """``num_envs`` episodes of one scenario stepped together in process (see the module docs).

    Args:
        num_envs: number of slots.
        scenario: a bundled scenario name or a ``pb.Scenario`` (named or inline).
        controlled_sides, controlled_ids: who the agent plays (one side for a reward).
        data_dir: the scenario data (default: the wheel's bundled ``data/``, or the
            checkout's).
        observation: ``"tensor"`` or ``"auto"`` (the same); JSON is the gRPC env's.
        reward, shaped_reward, damage_weight, kill_weight: as
            :class:`~pf1e_gym.vector.Pf1eVectorEnv`.
        reaction_obs: add ``decision_kind`` and ``provoker`` to the observation.
        autoreset_mode: ``"next_step"`` (default) or ``"same_step"``.
        num_threads: threads stepping the episodes (``None``: one per CPU).
        copy: return observations that survive the next step (default) or the env's own
            arrays (zero copies).

    Raises:
        ValueError: an unknown scenario, side, combatant id or reward option (the message names
            the field), ``num_envs < 1``, a JSON observation mode, a bad autoreset mode.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 1,
        scenario: str | pb.Scenario = "sample_arena",
        controlled_sides: Sequence[str] = ("players",),
        controlled_ids: Sequence[str] = (),
        *,
        data_dir: str | None = None,
        observation: str = "tensor",
        reward: dict[str, Any] | None = None,
        shaped_reward: bool = False,
        damage_weight: float | None = None,
        kill_weight: float | None = None,
        reaction_obs: bool = False,
        autoreset_mode: str | AutoresetMode = "next_step",
        num_threads: int | None = None,
        copy: bool = True,
    ) -> None:
        if num_envs < 1:
            raise ValueError("num_envs must be >= 1")
        if observation not in ("tensor", "auto"):
            raise ValueError(
                f"observation: {observation!r}: the native env has tensor observations only "
                "(use pf1e_gym.Pf1eVectorEnv over gRPC for JSON)"
            )
        mode = autoreset_mode.value if isinstance(autoreset_mode, AutoresetMode) else autoreset_mode
        if mode not in AUTORESET_MODES:
            raise ValueError(f"autoreset_mode: {autoreset_mode!r} is not one of {AUTORESET_MODES}")
        self.same_step = mode == "same_step"
        self.metadata = {
            **type(self).metadata,
            "autoreset_mode": AutoresetMode.SAME_STEP
            if self.same_step
            else AutoresetMode.NEXT_STEP,
        }
        self.reward = reward_dict(
            reward,
            shaped_reward=shaped_reward,
            damage_weight=damage_weight,
            kill_weight=kill_weight,
        )
        self._episode_reward = self.reward
        self.scenario = scenario
        self.controlled_sides = list(controlled_sides)
        self.controlled_ids = list(controlled_ids)
        self.data_dir = _data_dir(data_dir)
        scenario_bytes = _scenario_msg(scenario).SerializeToString()
        self.spec_msg = pb.Spec.FromString(_native.spec(self.data_dir, scenario_bytes))
        self.codec = ObsCodec(
            self.spec_msg, "tensor", legal_actions=False, reaction_obs=reaction_obs
        )
        self._core = _native.VecCore(
            self.data_dir,
            scenario_bytes,
            self.controlled_sides,
            self.controlled_ids,
            num_envs,
            0 if num_threads is None else int(num_threads),
            self._reward_bytes(self.reward),
        )
        self.copy = copy
        self.num_envs = num_envs
        n = int(self.spec_msg.action_space_size)
        self.n_actions = n
        self.single_action_space = spaces.Discrete(n)
        self.single_observation_space = self.codec.space
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.render_mode = None
        self.closed = False
        self._sides = list(self.spec_msg.sides)
        e = num_envs
        # The rows the core writes (bound once; see ``VecCore.bind``).
        self._planes = np.zeros((e, *self.codec.plane_shape), dtype=np.float32)
        self._features = np.zeros((e, *self.codec.feature_shape), dtype=np.float32)
        self._masks = np.zeros((e, n), dtype=np.int8)
        self._rewards = np.zeros(e, dtype=np.float32)
        self._terminated = np.zeros(e, dtype=np.bool_)
        self._truncated = np.zeros(e, dtype=np.bool_)
        self._decision_ids = np.zeros(e, dtype=np.int64)
        self._actor = np.full(e, -1, dtype=np.int64)
        self._round = np.zeros(e, dtype=np.int64)
        self._kind = np.zeros(e, dtype=np.int64)
        self._result_ok = np.ones(e, dtype=np.bool_)
        self._result_codes = np.full(e, pb.RESULT_CODE_OK, dtype=np.int64)
        self._winners = np.full(e, -1, dtype=np.int64)
        self._core.bind(
            self._planes,
            self._features,
            self._masks,
            self._rewards,
            self._terminated,
            self._truncated,
            self._decision_ids,
            self._actor,
            self._round,
            self._kind,
            self._result_ok,
            self._result_codes,
            self._winners,
        )
        self._reaction = np.full(e, None, dtype=object)
        self._provoker = np.full(e, self.codec.n_combatants, dtype=np.int64)
        self._autoreset = np.zeros(e, dtype=np.bool_)
        self._live = np.zeros(e, dtype=np.bool_)
        self._needs_reset = True
        self._codes = np.zeros(e, dtype=np.int64)
        self._args = np.zeros(e, dtype=np.uint64)
        self._no_seeds = np.zeros(0, dtype=np.uint64)
        self.pool_margin = max(2, num_envs // 16)
        self._pool_target = self.pool_margin
        #: SAME_STEP: extra pool refills because more slots ended than the pool held.
        self.pool_refills = 0

    @property
    def num_threads(self) -> int:
        """Threads of the Rust pool that steps the episodes."""
        return int(self._core.threads)

    # -- Gymnasium API ---------------------------------------------------------------------

    def reset(
        self,
        *,
        seed: int | Sequence[int] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset every slot (and, SAME_STEP, the pool); as
        :meth:`pf1e_gym.vector.Pf1eVectorEnv.reset`."""
        self._episode_reward = episode_reward(self.reward, options)
        self._core.set_reward(self._reward_bytes(self._episode_reward))
        if isinstance(seed, int) or seed is None:
            super().reset(seed=seed)
            if seed is None:
                seeds = [self._draw_seed() for _ in range(self.num_envs)]
            else:
                seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = [int(s) for s in seed]
            if len(seeds) != self.num_envs:
                raise ValueError(f"{len(seeds)} seeds for {self.num_envs} envs")
            super().reset(seed=seeds[0])
        self._core.clear()
        self._live[:] = False
        self._needs_reset = True
        pool_seeds = [self._draw_seed() for _ in range(self.pool_margin if self.same_step else 0)]
        slots = np.arange(self.num_envs)
        self._run_on(slots, _RESET, self._seeds(seeds), self._seeds(pool_seeds))
        self._pool_target = self.pool_margin
        retries = self._retry_dead_resets(slots)
        self._needs_reset = False
        self._autoreset[:] = False
        ok = np.ones(self.num_envs, dtype=np.bool_)
        codes = np.full(self.num_envs, pb.RESULT_CODE_OK, dtype=np.int64)
        return self._batch_obs(), self._infos(ok, codes, retries)

    def step(
        self, actions: Any
    ) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every slot; as :meth:`pf1e_gym.vector.Pf1eVectorEnv.step`."""
        if self._needs_reset or not self._live.all():
            raise RuntimeError(
                "no episode in this slot: call reset() first (also after a step() that "
                "raised: part of it may have been applied)"
            )
        if self.same_step:
            return self._step_same(actions)
        e = self.num_envs
        acts = np.asarray(actions).reshape(e)
        reset_slots = np.flatnonzero(self._autoreset)
        step_slots = np.flatnonzero(~self._autoreset)
        a = acts[step_slots].astype(np.int64)
        n = self.n_actions
        bad = np.flatnonzero((a < 0) | (a >= n))
        if len(bad):
            i = int(step_slots[bad[0]])
            raise ValueError(f"action {int(acts[i])} of env {i} outside Discrete({n})")
        seeds = self._seeds([self._draw_seed() for _ in reset_slots])
        codes, args = self._codes, self._args
        codes[:] = _RESET
        codes[step_slots] = _STEP
        args[step_slots] = a
        args[reset_slots] = seeds
        self._run(codes, args, self._no_seeds, np.arange(e))
        retries = self._retry_dead_resets(reset_slots)
        stepped = ~self._autoreset
        rewards = np.where(stepped, self._rewards, np.float32(0))
        terminated = self._terminated & stepped
        truncated = self._truncated & stepped
        ok = np.where(stepped, self._result_ok, True)
        result_codes = np.where(stepped, self._result_codes, pb.RESULT_CODE_OK)
        self._autoreset = stepped & (self._actor < 0)
        ended = np.flatnonzero(terminated | truncated)
        winners = {int(i): self._winner(int(i)) for i in ended}
        return (
            self._batch_obs(),
            rewards,
            terminated,
            truncated,
            self._infos(ok, result_codes, retries, winners),
        )

    def _step_same(
        self, actions: Any
    ) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        e = self.num_envs
        acts = np.asarray(actions).reshape(e)
        a = acts.astype(np.int64)
        n = self.n_actions
        bad = np.flatnonzero((a < 0) | (a >= n))
        if len(bad):
            i = int(bad[0])
            raise ValueError(f"action {int(acts[i])} of env {i} outside Discrete({n})")
        want = max(0, self._pool_target - self._core.pool_len())
        pool_seeds = self._seeds([self._draw_seed() for _ in range(want)])
        codes, args = self._codes, self._args
        codes[:] = _STEP
        args[:] = a
        self._run(codes, args, pool_seeds, np.arange(e))
        rewards = self._rewards.copy()
        terminated = self._terminated.copy()
        truncated = self._truncated.copy()
        ok = self._result_ok.copy()
        result_codes = self._result_codes.copy()
        ended = self._actor < 0
        truncated |= ended & ~terminated & ~truncated
        ended_slots = np.flatnonzero(ended)
        winners = {int(i): self._winner(int(i)) for i in ended_slots}
        retries = np.zeros(e, dtype=np.int64)
        infos = self._infos(ok, result_codes, retries, winners)
        if len(ended_slots):
            final_obs = np.full(e, None, dtype=object)
            obs_now = self._batch_obs(copy=False)
            for i in ended_slots.tolist():
                final_obs[i] = {k: v[i].copy() for k, v in obs_now.items()}
            final_info = dict(infos)
            for key in list(final_info):
                if key.startswith("_"):
                    final_info[key] = final_info[key] & ended
            while self._core.pool_len() < len(ended_slots):
                self.pool_refills += 1
                short = len(ended_slots) - self._core.pool_len()
                seeds = self._seeds([self._draw_seed() for _ in range(short + self.pool_margin)])
                codes[:] = _KEEP
                self._run(codes, args, seeds, ended_slots[:0])
            codes[:] = _KEEP
            codes[ended_slots] = _POOL
            self._run(codes, args, self._no_seeds, ended_slots)
            infos = self._infos(ok, result_codes, retries, winners)
            infos["final_obs"] = final_obs
            infos["_final_obs"] = ended.copy()
            infos["final_info"] = final_info
            infos["_final_info"] = ended.copy()
        self._pool_target = len(ended_slots) + self.pool_margin
        return self._batch_obs(), rewards, terminated, truncated, infos

    def close_extras(self, **kwargs: Any) -> None:
        """Drop every episode (the slots' and the pool's)."""
        if hasattr(self, "_core"):
            self._core.clear()
            self._live[:] = False

    # -- helpers -----------------------------------------------------------------------------

    def action_masks(self) -> np.ndarray:
        """The current masks, ``(num_envs, n)`` ``int8`` (zeros for an ended slot)."""
        masks: np.ndarray = self._masks.copy()
        return masks

    def _draw_seed(self) -> int:
        return int(self.np_random.integers(0, 2**63))

    @staticmethod
    def _seeds(seeds: Sequence[int]) -> np.ndarray:
        if any(not 0 <= s < 2**64 for s in seeds):
            raise ValueError("seeds must be in [0, 2**64)")
        return np.asarray(seeds, dtype=np.uint64).reshape(-1)

    @staticmethod
    def _reward_bytes(settings: dict[str, Any]) -> bytes | None:
        opts = reward_options(settings)
        return None if opts is None else opts.SerializeToString()

    def _winner(self, i: int) -> str | None:
        w = int(self._winners[i])
        return self._sides[w] if 0 <= w < len(self._sides) else None

    def _run_on(self, slots: np.ndarray, code: int, args: np.ndarray, pool: np.ndarray) -> None:
        codes = self._codes
        codes[:] = _KEEP
        codes[slots] = code
        self._args[slots] = args
        self._run(codes, self._args, pool, slots)

    def _run(
        self, codes: np.ndarray, args: np.ndarray, pool_seeds: np.ndarray, worked: np.ndarray
    ) -> None:
        """One core call; then the reaction offers of the ``worked`` slots."""
        try:
            self._core.run(codes, args, pool_seeds)
        except RuntimeError:
            self._needs_reset = True
            raise
        self._live[codes != _KEEP] = True
        self._reaction[worked] = None
        self._provoker[worked] = self.codec.n_combatants
        aoo = pb.DECISION_KIND_ATTACK_OF_OPPORTUNITY
        for i in worked[self._kind[worked] == aoo].tolist():
            raw = self._core.decision(i)
            offer = reaction_info(pb.Decision.FromString(raw), self.spec_msg) if raw else None
            self._reaction[i] = offer
            if offer is not None:
                self._provoker[i] = offer["provoker_index"]

    def _retry_dead_resets(self, slots: np.ndarray) -> np.ndarray:
        """Re-reset, with fresh seeds, the just-reset ``slots`` whose episode is already over."""
        retries = np.zeros(self.num_envs, dtype=np.int64)
        for _ in range(_MAX_RESET_RETRIES):
            dead = np.asarray([int(i) for i in slots if self._actor[i] < 0], dtype=np.int64)
            if not len(dead):
                return retries
            retries[dead] += 1
            self._run_on(
                dead, _RESET, self._seeds([self._draw_seed() for _ in dead]), self._no_seeds
            )
        raise RuntimeError(
            f"{_MAX_RESET_RETRIES} resets in a row ended before any controlled decision"
        )

    def _batch_obs(self, copy: bool | None = None) -> dict[str, Any]:
        copy = self.copy if copy is None else copy
        planes = self._planes.copy() if copy else self._planes
        features = self._features.copy() if copy else self._features
        obs: dict[str, Any] = {
            "action_mask": self._masks.copy(),
            "features": features,
            "planes": planes,
        }
        if self.codec.reaction_obs:
            reacting = self._kind == pb.DECISION_KIND_ATTACK_OF_OPPORTUNITY
            obs["decision_kind"] = reacting.astype(np.int64)
            obs["provoker"] = self._provoker.copy()
            obs = dict(sorted(obs.items()))
        return obs

    def _infos(
        self,
        ok: np.ndarray,
        codes: np.ndarray,
        retries: np.ndarray,
        winners: dict[int, str | None] | None = None,
    ) -> dict[str, Any]:
        return vector_infos(self, np.asarray(ok, dtype=np.bool_), codes, retries, winners)


class Env(gym.Env[dict[str, Any], int]):
    """One episode in process: the Gymnasium API of :class:`~pf1e_gym.env.Pf1eEnv` (same
    spaces, observations, rewards, ``terminated`` / ``truncated``, seeds; no autoreset: after
    the end ``step`` raises until ``reset``), over a one-slot :class:`VectorEnv`.

    Its info has the vector env's per-slot keys (``action_mask``, ``actor_index``,
    ``decision_id``, ``round``, ``decision_kind``, ``reaction``, ``result_ok``,
    ``result_code``, ``outcome``), not the gRPC env's legal-action labels and result
    reasons (use :class:`~pf1e_gym.env.Pf1eEnv` for those).

    Args: as :class:`VectorEnv` (without ``num_envs`` and ``autoreset_mode``).
    """

    metadata = {"render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        scenario: str | pb.Scenario = "sample_arena",
        controlled_sides: Sequence[str] = ("players",),
        controlled_ids: Sequence[str] = (),
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("num_threads", 1)
        self._vec = VectorEnv(1, scenario, controlled_sides, controlled_ids, **kwargs)
        self.spec_msg = self._vec.spec_msg
        self.codec = self._vec.codec
        self.observation_space = self._vec.single_observation_space
        self.action_space = self._vec.single_action_space
        self.render_mode = None
        self._over = True

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start a new episode: the seed is ``seed`` when given, else drawn from
        ``self.np_random`` (as :meth:`pf1e_gym.env.Pf1eEnv.reset`)."""
        super().reset(seed=seed, options=options)
        server_seed = seed if seed is not None else int(self.np_random.integers(0, 2**63))
        v = self._vec
        v._episode_reward = episode_reward(v.reward, options)
        v._core.set_reward(v._reward_bytes(v._episode_reward))
        v._core.clear()
        v._run_on(np.arange(1), _RESET, v._seeds([server_seed]), v._no_seeds)
        v._needs_reset = False
        self._over = bool(v._actor[0] < 0)
        return self._obs_info(True, pb.RESULT_CODE_OK)

    def step(self, action: int) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Apply action id ``action`` at the current decision.

        Raises:
            RuntimeError: no episode, or it is over (call ``reset``).
            ValueError: ``action`` outside the action space.
        """
        if self._over:
            raise RuntimeError("the episode is over (or not started): call reset()")
        a = int(action)
        n = self._vec.n_actions
        if not 0 <= a < n:
            raise ValueError(f"action {a} outside Discrete({n})")
        v = self._vec
        v._codes[0] = _STEP
        v._args[0] = a
        v._run(v._codes, v._args, v._no_seeds, np.arange(1))
        self._over = bool(v._actor[0] < 0)
        obs, info = self._obs_info(bool(v._result_ok[0]), int(v._result_codes[0]))
        return obs, float(v._rewards[0]), bool(v._terminated[0]), bool(v._truncated[0]), info

    def action_masks(self) -> np.ndarray:
        """The current action mask (``int8``; zeros when over)."""
        mask: np.ndarray = self._vec._masks[0].copy()
        return mask

    def close(self) -> None:
        """Drop the episode."""
        self._vec.close()
        self._over = True
        super().close()  # type: ignore[no-untyped-call]  # gymnasium's Env.close is untyped

    def _obs_info(self, ok: bool, code: int) -> tuple[dict[str, Any], dict[str, Any]]:
        v = self._vec
        obs = {k: np.copy(x[0]) for k, x in v._batch_obs(copy=False).items()}
        if self.codec.reaction_obs:
            obs["decision_kind"] = np.int64(obs["decision_kind"])
            obs["provoker"] = np.int64(obs["provoker"])
        over = v._actor[0] < 0
        info: dict[str, Any] = {
            "action_mask": obs["action_mask"].copy(),
            "actor_index": None if over else int(v._actor[0]),
            "decision_id": None if over else int(v._decision_ids[0]),
            "round": int(v._round[0]),
            "decision_kind": _KIND_NAMES[int(v._kind[0])] if not over else None,
            "reaction": v._reaction[0],
            "result_ok": ok,
            "result_code": _CODE_NAMES[code] if 0 <= code < len(_CODE_NAMES) else str(code),
            "outcome": None
            if not over
            else {
                "winner": v._winner(0),
                "rounds": int(v._round[0]),
                "truncated": bool(v._truncated[0]),
            },
        }
        return obs, info
