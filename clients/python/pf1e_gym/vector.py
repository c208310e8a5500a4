"""``Pf1eVectorEnv``: many pf1e-gym episodes as one Gymnasium ``VectorEnv``.

Each of the ``num_envs`` slots is an episode of the same scenario with the same controlled
side(s), as in :class:`~pf1e_gym.env.Pf1eEnv`. One :meth:`step` sends every slot's action in
**one** ``StepBatch`` call (the server steps them in parallel) and the resets of the slots that
ended at the previous step in the same call. Without ``StepBatch`` on the server (an older
server, or ``batch=False``), each slot is a unary ``Step``/``Reset``, all issued concurrently
on one channel (futures) and awaited together: same results, a lot slower.

**Autoreset modes** (``autoreset_mode=``, declared per instance in
``metadata["autoreset_mode"]``):

- ``"next_step"`` (``AutoresetMode.NEXT_STEP``, Gymnasium 1.x's default): when slot *i* ends
  at step *t* (``terminations[i]`` or ``truncations[i]``), step *t* returns its final
  observation and reward; at step *t + 1* the action given for slot *i* is ignored, the slot is
  reset (a new server episode, the old one is closed) and step *t + 1* returns the first
  observation of the new episode with reward 0, ``terminated = truncated = False`` and an
  **all-zero** ``action_mask`` row at step *t* (drop those rows from a masked learner).
- ``"same_step"`` (``AutoresetMode.SAME_STEP``): step *t* returns, for a slot that ends, the
  reward and end flags of its last step and the **first observation of the new episode**
  (its mask is never all zero); the final observation is in ``infos["final_obs"]`` (an object
  array: the slot's observation dict where ``infos["_final_obs"]`` is set, ``None``
  elsewhere) and the final step's infos in ``infos["final_info"]`` (a dict of batched infos
  whose ``_key`` masks are set only at the ended slots; mask ``infos["_final_info"]``), as
  Gymnasium 1.x's ``SyncVectorEnv`` does. Still **one call per step**: the env keeps a pool
  of pre-reset episodes, replenished by resets added to each ``StepBatch`` (the pool is
  topped up to the number of slots that ended at the previous step plus ``pool_margin``,
  ``max(2, num_envs // 16)``); only when more slots end at once than the pool holds is an
  extra reset call made (``pool_refills`` counts them). The slots that end take the pooled
  episodes in slot order. Pooled episodes are closed by ``reset()`` and ``close()``.

Nothing else is reset behind your back.

Seeds: ``reset(seed=s)`` seeds slot *i* with ``s + i`` (a list gives one seed per slot) and
seeds ``self.np_random``, from which the seeds of later autoresets (SAME_STEP: of the pooled
episodes, in the order they are requested) are drawn, so a seeded run is reproducible.

Rewards: ``reward={"shaped", "damage_weight", "kill_weight", "round_discount"}`` as
:class:`~pf1e_gym.env.Pf1eEnv`; ``reset(options={"reward": {...}})`` overrides keys for the
episodes that reset starts and every later autoreset (the pool included), until the next
``reset``. A reset whose controlled side never gets a decision (the default policy ended
the combat first) is retried with the next seed from ``np_random`` (``infos["reset_retries"]``
counts them); this cannot happen in the bundled scenarios.

**Columnar batches.** With tensor observations and a server that has them
(``Spec.capabilities.columnar_batch``), each ``StepBatch`` sends the actions as three packed
columns and receives every slot's planes (one byte per value, exact), features, masks, rewards
and end flags as one packed array each, decoded with a handful of numpy calls instead of one
message per slot (``columnar=False`` turns it off; the observations are identical).

**Errors.** ``step()`` raises :class:`BatchItemError` when the server refuses a slot's item
(the other items of that call may have been applied) and ``grpc.RpcError`` when the call
fails (a deadline, say: the server may still have applied it). Either way the env no longer
knows every slot's current decision: call ``reset()`` before stepping again.

Rewards are those of :class:`~pf1e_gym.env.Pf1eEnv`: for the controlled side, so control one
side per vector env (with several controlled sides the server names no reward side and the
reward is 0: use :class:`~pf1e_gym.aec.Pf1eAECEnv` for self-play).

Observations are batched (``gymnasium.vector.utils.batch_space`` of the single space):
``planes`` ``(num_envs, planes, rows, cols)``, ``features`` ``(num_envs, combatants, features)``,
``action_mask`` ``(num_envs, n)`` ``int8`` (tensor mode; in JSON mode ``json`` is a tuple of
strings). Infos (every key with its ``_key`` boolean mask, Gymnasium style):

- ``action_mask``: the masks again, ``(num_envs, n)``;
- ``actor_index`` (``-1`` when over), ``round``, ``decision_id``: ``int64`` arrays;
- ``decision_kind``: object array, ``"turn_action"``, ``"attack_of_opportunity"`` (a reaction:
  the slot's actor is offered an attack of opportunity mid-way through another combatant's
  action; its mask holds only the reaction answers) or ``None`` when over; ``reaction``: the
  offer dict of :class:`~pf1e_gym.env.Pf1eEnv`'s ``info["reaction"]`` where
  ``_reaction`` is set (reaction slots only). Read from the ``decision_kinds`` column
  (capability ``columnar_decision_kinds``; the offer from the item of those rows only), else
  from the items. ``pending_results`` / ``late_results`` are not carried: with one action per
  slot and step they are always 0 and empty (see :class:`~pf1e_gym.env.Pf1eEnv`);
- ``result_ok``, ``result_code``: of the action just applied (``True``/``ok`` for a reset slot);
- ``winner``: object array, set (side name or ``None`` for a draw) where an episode ended.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, cast

import grpc
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from pf1e_gym._codec import (
    DECISION_KINDS,
    ObsCodec,
    reaction_info,
    result_code_name,
    reward_dict,
    reward_options,
    side_reward,
)
from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import BatchItemError, Pf1eClient, reset_request
from pf1e_gym.env import episode_reward
from pf1e_gym.infos import VectorInfo
from pf1e_gym.server import open_client

_MAX_RESET_RETRIES = 100
_ROW_ARRAYS = (
    "masks",
    "rewards",
    "terminated",
    "truncated",
    "decision_ids",
    "actor",
    "rounds",
    "result_ok",
    "result_codes",
    "kinds",
)
AUTORESET_MODES = ("next_step", "same_step")

# Result code number -> name, as an array indexed by the number (unknown numbers: their digits).
_CODE_NAMES = np.array(
    [
        result_code_name(c)
        for c in range(max(v.number for v in pb.ResultCode.DESCRIPTOR.values) + 1)
    ],
    dtype=object,
)
# DecisionKind number -> name (0: no decision, the episode is over).
_KIND_NAMES = np.array([None, *DECISION_KINDS], dtype=object)


class _Rows:
    """The k results of one ``_call`` as arrays, one row per item (steps first, then resets).

    Built either from columns (``BatchColumns`` with ``columnar_decisions``: no per-item work)
    or from full ``EpisodeState`` messages. ``state(j)`` is the row's message (only opened for
    resets, ended episodes and JSON observations)."""

    def __init__(self, n_actions: int, states: Sequence[pb.EpisodeState]) -> None:
        k = len(states)
        self.k = k
        self._states = states
        self.masks = np.zeros((k, n_actions), dtype=np.int8)
        # Float planes, or (columns) the bytes they are encoded as: see ``_store``. With
        # compact columns the bytes start at plane ``first_plane`` (the terrain planes are
        # the spec's).
        self.planes: np.ndarray | None = None
        self.planes_u8: np.ndarray | None = None
        self.first_plane = 0
        self.features: np.ndarray | None = None
        self.rewards = np.zeros(k, dtype=np.float32)
        self.terminated = np.zeros(k, dtype=np.bool_)
        self.truncated = np.zeros(k, dtype=np.bool_)
        self.decision_ids = np.zeros(k, dtype=np.int64)
        self.actor = np.full(k, -1, dtype=np.int64)
        self.rounds = np.zeros(k, dtype=np.int64)
        self.result_ok = np.ones(k, dtype=np.bool_)
        self.result_codes = np.full(k, pb.RESULT_CODE_OK, dtype=np.int64)
        # ``DecisionKind`` numbers (0: no decision; a server without kinds: 1 for every
        # decision).
        self.kinds = np.zeros(k, dtype=np.int64)

    @classmethod
    def of_states(
        cls, codec: ObsCodec, states: Sequence[pb.EpisodeState], tensors: bool = True
    ) -> _Rows:
        """Rows read from full states, one message at a time (``tensors=False``: not the
        planes and features, which come in columns)."""
        r = cls(codec.n, states)
        if codec.mode == "tensor" and tensors:
            r.planes = np.zeros((r.k, *codec.plane_shape), dtype=np.float32)
            r.features = np.zeros((r.k, *codec.feature_shape), dtype=np.float32)
        for j, st in enumerate(states):
            r.masks[j] = codec.mask(st)
            if r.planes is not None and r.features is not None:
                r.planes[j], r.features[j] = codec.tensors(st.tensors)
            r.rewards[j] = side_reward(st)
            r.terminated[j] = st.terminated
            r.truncated[j] = st.truncated
            if st.HasField("decision"):
                r.decision_ids[j] = st.decision.decision_id
                r.actor[j] = st.decision.actor_index
                r.rounds[j] = st.decision.round
                r.kinds[j] = st.decision.kind or pb.DECISION_KIND_TURN_ACTION
            else:
                r.rounds[j] = st.outcome.rounds
            if st.results:
                r.result_ok[j] = st.results[0].ok
                r.result_codes[j] = st.results[0].code
        return r

    @classmethod
    def concat(cls, parts: list[_Rows]) -> _Rows:
        if len(parts) == 1:
            return parts[0]
        states = [p.state(j) for p in parts for j in range(p.k)]
        r = cls(parts[0].masks.shape[1], states)
        for name in _ROW_ARRAYS:
            setattr(r, name, np.concatenate([getattr(p, name) for p in parts]))
        for name in ("planes", "planes_u8", "features"):
            if getattr(parts[0], name) is not None:
                setattr(r, name, np.concatenate([getattr(p, name) for p in parts]))
        r.first_plane = parts[0].first_plane
        return r

    def state(self, j: int) -> pb.EpisodeState:
        return self._states[j]

    def take(self, idx: np.ndarray | Sequence[int] | slice) -> _Rows:
        """The rows ``idx`` (indices or a slice), in that order, as new ``_Rows``."""
        if isinstance(idx, slice):
            idx = np.arange(self.k)[idx]
        idx = np.asarray(idx, dtype=np.int64)
        r = _Rows(self.masks.shape[1], _Picked(self._states, idx))
        for name in _ROW_ARRAYS:
            setattr(r, name, getattr(self, name)[idx])
        for name in ("planes", "planes_u8", "features"):
            value = getattr(self, name)
            if value is not None:
                setattr(r, name, value[idx])
        r.first_plane = self.first_plane
        return r

    def reactions(self) -> np.ndarray:
        """The rows at a reaction decision (their offer is in ``state(j).decision``)."""
        return np.flatnonzero(self.kinds == pb.DECISION_KIND_ATTACK_OF_OPPORTUNITY)


class _Picked(Sequence[pb.EpisodeState]):
    """The states ``states[idx[j]]``, read on demand (``_Rows.take``)."""

    def __init__(self, states: Sequence[pb.EpisodeState], idx: np.ndarray) -> None:
        self._states, self._idx = states, idx

    def __len__(self) -> int:
        return len(self._idx)

    def __getitem__(self, j: Any) -> Any:
        return self._states[int(self._idx[j])]


class Pf1eVectorEnv(VectorEnv[dict[str, Any], Any, np.ndarray]):
    """``num_envs`` episodes of one scenario, stepped together (see the module docs).

    Args:
        num_envs: number of slots (episodes stepped together).
        address, scenario, controlled_sides, controlled_ids, observation, reward,
            shaped_reward, damage_weight, kill_weight, reaction_obs: as
            :class:`~pf1e_gym.env.Pf1eEnv`
            (with ``reaction_obs`` the batched ``decision_kind`` and ``provoker`` are
            ``(num_envs,)`` ``int64`` arrays).
        batch: ``True`` (require ``StepBatch``), ``False`` (unary calls), ``"auto"`` (batch
            when the server has it; else unary with a ``UserWarning``).
        client: an existing :class:`Pf1eClient` (not closed by :meth:`close`).
        timeout: deadline of each call, in seconds.
        columnar: ``"auto"`` (columnar batches when batching tensor observations on a server
            that has them), ``True`` (require them) or ``False``.
        autoreset_mode: ``"next_step"`` (default) or ``"same_step"`` (or the
            ``AutoresetMode`` member); see the module docs.
    """

    # The class default; each instance sets its own ``autoreset_mode``.
    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 1,
        address: str | None = None,
        scenario: str | pb.Scenario = "sample_arena",
        controlled_sides: Sequence[str] = ("players",),
        controlled_ids: Sequence[str] = (),
        *,
        observation: str = "auto",
        reward: dict[str, Any] | None = None,
        shaped_reward: bool = False,
        damage_weight: float | None = None,
        kill_weight: float | None = None,
        batch: bool | str = "auto",
        client: Pf1eClient | None = None,
        timeout: float = 60.0,
        columnar: bool | str = "auto",
        reaction_obs: bool = False,
        autoreset_mode: str | AutoresetMode = "next_step",
    ) -> None:
        if num_envs < 1:
            raise ValueError("num_envs must be >= 1")
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
        #: The reward settings of the constructor (a dict of ``REWARD_KEYS``; empty: sparse).
        self.reward = reward_dict(
            reward,
            shaped_reward=shaped_reward,
            damage_weight=damage_weight,
            kill_weight=kill_weight,
        )
        # Those of the episodes started now (the last reset's options applied).
        self._episode_reward = self.reward
        self.client, self._owns_client = open_client(address, client, timeout)
        self.scenario = scenario
        self.controlled_sides = list(controlled_sides)
        self.controlled_ids = list(controlled_ids)
        self.spec_msg: pb.Spec = self.client.get_spec(scenario)
        self.codec = ObsCodec(
            self.spec_msg, observation, legal_actions=False, reaction_obs=reaction_obs
        )
        has_batch = self.codec.caps["batch"]
        if batch is True and not has_batch:
            raise ValueError("the server has no StepBatch (use batch=False)")
        if batch == "auto" and not has_batch:
            warnings.warn(
                "pf1e-env-server has no StepBatch: Pf1eVectorEnv falls back to one unary call "
                "per episode (much slower)",
                UserWarning,
                stacklevel=2,
            )
        self.batched = bool(has_batch and batch is not False)
        can_columnar = (
            self.batched and self.codec.mode == "tensor" and self.codec.caps["columnar_batch"]
        )
        if columnar is True and not can_columnar:
            raise ValueError(
                "columnar batches need StepBatch, tensor observations and a server with "
                "capabilities.columnar_batch"
            )
        self.columnar = bool(can_columnar and columnar is not False)
        divisors = list(self.spec_msg.observation_schema.plane_divisors)
        self._plane_divisors = (
            np.asarray(divisors, dtype=np.float32).reshape(-1, 1, 1) if divisors else None
        )
        self.max_batch_items = int(self.spec_msg.max_batch_items) or 1024
        self._reset_extra: dict[str, Any] = self.codec.reset_kwargs()
        if self.codec.mode == "json":
            # The mask comes as bytes when the server can send it; the legal list is not needed.
            opts = self._reset_extra.get("observation")
            if opts is not None:
                opts.legal_actions = False

        self.num_envs = num_envs
        n = self._n = int(self.spec_msg.action_space_size)
        self.single_action_space = spaces.Discrete(n)
        self.single_observation_space = self.codec.space
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.render_mode = None
        self.closed = False

        # Per slot: the server's episode id and the current decision (from either transport).
        self._episode_ids: list[str | None] = [None] * num_envs
        # A call failed part-way (the slots' decisions are unknown): reset() before step().
        self._needs_reset = False
        self._decision_ids = np.zeros(num_envs, dtype=np.int64)
        self._actor = np.full(num_envs, -1, dtype=np.int64)
        self._round = np.zeros(num_envs, dtype=np.int64)
        self._kind = np.zeros(num_envs, dtype=np.int64)  # DecisionKind numbers, 0 when over
        # The offer dict of the slots at a reaction decision (None elsewhere) and its
        # provoker's index (the combatant count elsewhere: the ``provoker`` observation).
        self._reaction = np.full(num_envs, None, dtype=object)
        self._provoker = np.full(num_envs, self.codec.n_combatants, dtype=np.int64)
        self._json: list[str] = [""] * num_envs
        # The current observation of every slot.
        self._masks = np.zeros((num_envs, n), dtype=np.int8)
        if self.codec.mode == "tensor":
            self._planes = np.zeros((num_envs, *self.codec.plane_shape), dtype=np.float32)
            self._features = np.zeros((num_envs, *self.codec.feature_shape), dtype=np.float32)
        self._autoreset = np.zeros(num_envs, dtype=np.bool_)
        self._pending_closes: list[grpc.Future[pb.CloseResponse]] = []
        # Episodes to close with the next StepBatch (servers with capability batch_close).
        self._batch_close = self.batched and self.codec.caps.get("batch_close", False)
        self._closing: list[str] = []
        # Decision and result columns in columnar responses (capability columnar_decisions),
        # and the decision kind column (columnar_decision_kinds).
        self._col_decisions = self.columnar and self.codec.caps.get("columnar_decisions", False)
        self._col_kinds = self.columnar and self.codec.caps.get("columnar_decision_kinds", False)
        # Compact columns: masks as bits, terrain planes once (from the spec).
        schema = self.spec_msg.observation_schema
        self._compact = bool(
            self.columnar
            and self.codec.caps.get("compact_columns", False)
            and schema.terrain_plane_count > 0
        )
        self._terrain_u8: np.ndarray | None = None
        if self._compact:
            _, rows_, cols_ = self.codec.plane_shape
            self._terrain_u8 = np.frombuffer(schema.terrain_planes, dtype=np.uint8).reshape(
                int(schema.terrain_plane_count), rows_, cols_
            )
        self._last_response: pb.BatchResponse | None = None
        # SAME_STEP: episodes reset ahead of need (rows of their first decision, in the order
        # they are handed out), the pool size wanted after the next step, and counters.
        self._pool: _Rows = _Rows.of_states(self.codec, [])
        self.pool_margin = max(2, num_envs // 16)
        self._pool_target = self.pool_margin
        #: SAME_STEP: extra reset calls made because the pool ran dry (a benchmark figure).
        self.pool_refills = 0

    @property
    def last_batch_bytes(self) -> int:
        """Size in bytes of the last StepBatch response (benchmarks: the echo payload)."""
        r = self._last_response
        return 0 if r is None else r.ByteSize()

    # -- Gymnasium API ---------------------------------------------------------------------

    def reset(
        self,
        *,
        seed: int | Sequence[int] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset every slot (closing the previous episodes and, in SAME_STEP mode, the pool of
        pre-reset episodes).

        ``options``: ``{"reward": {...}}`` overrides keys of the constructor's ``reward``
        settings for these episodes and for every later autoreset, until the next ``reset``.

        Raises:
            ValueError: bad seeds, an ``options`` key other than ``"reward"`` or a bad reward
                key/value (named).
        """
        self._episode_reward = episode_reward(self.reward, options)
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
        for i in range(self.num_envs):
            self._close_slot(i)
        self._close_pool()
        slots = np.arange(self.num_envs)
        # SAME_STEP: the first pool rides along (seeds drawn after the slots').
        pool_seeds = [self._draw_seed() for _ in range(self.pool_margin if self.same_step else 0)]
        rows = self._call([], [(i, s) for i, s in enumerate(seeds)] + [(-1, s) for s in pool_seeds])
        if pool_seeds:
            self._add_to_pool(rows.take(slice(self.num_envs, None)))
            rows = rows.take(slice(0, self.num_envs))
            self._pool_target = self.pool_margin
        self._store(slots, rows, slots)
        retries = self._retry_dead_resets(slots)
        self._needs_reset = False
        self._autoreset[:] = False
        ok = np.ones(self.num_envs, dtype=np.bool_)
        codes = np.full(self.num_envs, pb.RESULT_CODE_OK, dtype=np.int64)
        return self._batch_obs(), self._infos(ok, codes, retries)

    def step(
        self, actions: Any
    ) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every slot (NEXT_STEP: slots that ended last step are reset; SAME_STEP: slots
        that end now take a pooled new episode, see the module docs)."""
        if self.same_step:
            return self._step_same(actions)
        acts = np.asarray(actions).reshape(self.num_envs)
        if self._needs_reset or any(e is None for e in self._episode_ids):
            raise RuntimeError(
                "no episode in this slot: call reset() first (also after a step() that "
                "raised: the server may have applied part of it)"
            )
        reset_slots = np.flatnonzero(self._autoreset)
        step_slots = np.flatnonzero(~self._autoreset)
        a = acts[step_slots].astype(np.int64)
        n = self._n
        bad = np.flatnonzero((a < 0) | (a >= n))
        if len(bad):
            i = int(step_slots[bad[0]])
            raise ValueError(f"action {int(acts[i])} of env {i} outside Discrete({n})")
        for slot in reset_slots:
            self._close_slot(int(slot))
        steps = list(
            zip(
                [self._episode_ids[i] for i in step_slots],
                self._decision_ids[step_slots].tolist(),
                a.tolist(),
                strict=True,
            )
        )
        resets = [(int(i), self._draw_seed()) for i in reset_slots]
        rows = self._call(steps, resets)  # type: ignore[arg-type]
        slots = np.concatenate([step_slots, reset_slots])
        self._store(slots, rows, reset_slots)
        retries = self._retry_dead_resets(reset_slots)
        e = self.num_envs
        stepped = np.zeros(e, dtype=np.bool_)
        stepped[step_slots] = True
        rewards = np.zeros(e, dtype=np.float32)
        terminated = np.zeros(e, dtype=np.bool_)
        truncated = np.zeros(e, dtype=np.bool_)
        ok = np.ones(e, dtype=np.bool_)
        codes = np.full(e, pb.RESULT_CODE_OK, dtype=np.int64)
        m = len(step_slots)
        rewards[step_slots] = rows.rewards[:m]
        terminated[step_slots] = rows.terminated[:m]
        truncated[step_slots] = rows.truncated[:m]
        ok[step_slots] = rows.result_ok[:m]
        codes[step_slots] = rows.result_codes[:m]
        self._autoreset[:] = stepped & (self._actor < 0)
        # Winners of the episodes that ended at this step.
        ended_rows = np.flatnonzero(rows.terminated[:m] | rows.truncated[:m])
        winners = {
            int(step_slots[j]): rows.state(int(j)).outcome.winner or None for j in ended_rows
        }
        return (
            self._batch_obs(),
            rewards,
            terminated,
            truncated,
            self._infos(ok, codes, retries, winners),
        )

    def _step_same(
        self, actions: Any
    ) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """SAME_STEP: step every slot and replenish the pool in one call; the slots that end
        take pooled episodes (an extra reset call only if the pool is short)."""
        e = self.num_envs
        acts = np.asarray(actions).reshape(e)
        if self._needs_reset or any(x is None for x in self._episode_ids):
            raise RuntimeError(
                "no episode in this slot: call reset() first (also after a step() that "
                "raised: the server may have applied part of it)"
            )
        a = acts.astype(np.int64)
        n = self._n
        bad = np.flatnonzero((a < 0) | (a >= n))
        if len(bad):
            i = int(bad[0])
            raise ValueError(f"action {int(acts[i])} of env {i} outside Discrete({n})")
        steps = list(zip(self._episode_ids, self._decision_ids.tolist(), a.tolist(), strict=True))
        want = max(0, self._pool_target - self._pool.k)
        resets = [(-1, self._draw_seed()) for _ in range(want)]
        rows = self._call(steps, resets)  # type: ignore[arg-type]
        if want:
            self._add_to_pool(rows.take(slice(e, None)))
            rows = rows.take(slice(0, e))
        slots = np.arange(e)
        self._store(slots, rows, slots[:0])
        rewards = rows.rewards.copy()
        terminated = rows.terminated.copy()
        truncated = rows.truncated.copy()
        ended = self._actor < 0
        # An episode with no decision left is over (the server always flags it; defensive).
        truncated |= ended & ~terminated & ~truncated
        ended_slots = np.flatnonzero(ended)
        winners = {int(i): rows.state(int(i)).outcome.winner or None for i in ended_slots.tolist()}
        retries = np.zeros(e, dtype=np.int64)
        infos = self._infos(rows.result_ok, rows.result_codes, retries, winners)
        if len(ended_slots):
            final_obs = np.full(e, None, dtype=object)
            obs_now = self._batch_obs()
            for i in ended_slots.tolist():
                final_obs[i] = {k: v[i] for k, v in obs_now.items()}
            final_info = dict(infos)
            for key in list(final_info):
                if key.startswith("_"):
                    final_info[key] = final_info[key] & ended
            for i in ended_slots.tolist():
                self._close_slot(i)
            while self._pool.k < len(ended_slots):
                self.pool_refills += 1
                short = len(ended_slots) - self._pool.k
                seeds = [(-1, self._draw_seed()) for _ in range(short + self.pool_margin)]
                self._add_to_pool(self._call([], seeds))
            m = len(ended_slots)
            fresh, self._pool = self._pool.take(slice(0, m)), self._pool.take(slice(m, None))
            self._store(ended_slots, fresh, ended_slots)
            infos = self._infos(rows.result_ok, rows.result_codes, retries, winners)
            infos["final_obs"] = final_obs
            infos["_final_obs"] = ended.copy()
            infos["final_info"] = final_info
            infos["_final_info"] = ended.copy()
        self._pool_target = len(ended_slots) + self.pool_margin
        return self._batch_obs(), rewards, terminated, truncated, infos

    def _add_to_pool(self, rows: _Rows) -> None:
        """Append freshly reset episodes to the pool (closing those already over)."""
        if rows.k == 0:
            return
        live = rows.actor >= 0
        for j in np.flatnonzero(~live).tolist():
            self._close_id(rows.state(j).episode_id)
        if not live.all():
            rows = rows.take(np.flatnonzero(live))
        self._pool = _Rows.concat([p for p in (self._pool, rows) if p.k]) if self._pool.k else rows

    def _close_pool(self) -> None:
        for j in range(self._pool.k):
            self._close_id(self._pool.state(j).episode_id)
        self._pool = _Rows.of_states(self.codec, [])

    def close_extras(self, **kwargs: Any) -> None:
        """Close every episode on the server (the pool's too), then the connection (if this
        env made it)."""
        if not hasattr(self, "_pool"):
            return  # the constructor raised before there was anything to close
        for i in range(self.num_envs):
            self._close_slot(i)
        self._close_pool()
        closing, self._closing = self._closing, []
        for episode_id in closing:
            self._close_now(episode_id)
        self._drain_closes()
        if self._owns_client:
            self.client.close()

    # -- helpers -----------------------------------------------------------------------------

    def action_masks(self) -> np.ndarray:
        """The current masks, ``(num_envs, n)`` ``int8`` (zeros for an ended slot)."""
        masks: np.ndarray = self._masks.copy()
        return masks

    @property
    def episode_ids(self) -> list[str | None]:
        """The server's episode id of each slot."""
        return list(self._episode_ids)

    def _draw_seed(self) -> int:
        return int(self.np_random.integers(0, 2**63))

    def _reset_req(self, seed: int) -> pb.ResetRequest:
        extra = self._reset_extra
        opts = reward_options(self._episode_reward)
        if opts is not None:
            extra = {**extra, "reward": opts}
        return reset_request(
            self.scenario, seed, self.controlled_sides, self.controlled_ids, **extra
        )

    def _retry_dead_resets(self, slots: np.ndarray) -> np.ndarray:
        """Re-reset, with fresh seeds, the just-reset ``slots`` whose episode is already over."""
        retries = np.zeros(self.num_envs, dtype=np.int64)
        for _ in range(_MAX_RESET_RETRIES):
            dead = [int(i) for i in slots if self._actor[i] < 0]
            if not dead:
                return retries
            for i in dead:
                self._close_slot(i)
                retries[i] += 1
            dead_arr = np.asarray(dead, dtype=np.int64)
            rows = self._call([], [(i, self._draw_seed()) for i in dead])
            self._store(dead_arr, rows, dead_arr)
        raise RuntimeError(
            f"{_MAX_RESET_RETRIES} resets in a row ended before any controlled decision"
        )

    def _call(self, steps: list[tuple[str, int, int]], resets: list[tuple[int, int]]) -> _Rows:
        """Steps ``(episode id, decision id, action id)`` then resets ``(slot, seed)``, in
        order, through :meth:`Pf1eClient.batch` (StepBatch chunks, or unary calls). Returns
        one row per item."""
        self._drain_closes()
        reset_reqs = [self._reset_req(s) for _, s in resets]
        slots = list(range(len(steps))) + [i for i, _ in resets]
        closing: list[str] = []
        if self.batched:
            # Closes ride along with the first chunk (they count towards the batch limit).
            closing, self._closing = self._closing, []
            room = self.max_batch_items // 2
            for episode_id in closing[room:]:  # more than a batch can carry: Close calls
                self._close_now(episode_id)
            closing = closing[:room]
        try:
            chunks = self.client.batch(
                steps,
                reset_reqs,
                max_items=self.max_batch_items,
                close_episode_ids=closing,
                columnar=self.columnar,
                compact_columns=self._compact,
                column_errors=self._col_decisions,
                unary=not self.batched,
            )
        except BatchItemError as e:
            # Never step on from a half-applied call (see "Errors").
            self._needs_reset = True
            raise BatchItemError(slots[e.item], e.code, e.message, what="slot") from None
        except BaseException:
            self._needs_reset = True
            raise
        parts: list[_Rows] = []
        for chunk in chunks:
            if chunk.response is not None:
                self._last_response = chunk.response
            if self.columnar and chunk.response is not None:
                parts.append(self._columns_rows(chunk.response, chunk.states))
            else:
                parts.append(_Rows.of_states(self.codec, chunk.states))
        if not parts:
            return _Rows.of_states(self.codec, [])
        return _Rows.concat(parts)

    def _columns_rows(self, resp: pb.BatchResponse, states: Sequence[pb.EpisodeState]) -> _Rows:
        """Decode ``resp.columns`` with a few numpy calls."""
        c = resp.columns
        k = int(c.items)
        if k != len(resp.items):
            raise RuntimeError(f"columns of {k} rows for {len(resp.items)} items")
        plane_shape, feature_shape = self.codec.plane_shape, self.codec.feature_shape
        if tuple(c.plane_shape) != plane_shape or tuple(c.feature_shape) != feature_shape:
            raise RuntimeError(
                f"columnar shapes {tuple(c.plane_shape)}/{tuple(c.feature_shape)} differ from "
                f"the spec's {plane_shape}/{feature_shape}"
            )
        if self._col_decisions and len(c.decision_ids) == k:
            r = _Rows(self.codec.n, states)
            r.rewards = np.asarray(c.rewards, dtype=np.float32)
            r.terminated = np.frombuffer(c.terminated, dtype=np.uint8).astype(np.bool_)
            r.truncated = np.frombuffer(c.truncated, dtype=np.uint8).astype(np.bool_)
            r.decision_ids = np.asarray(c.decision_ids, dtype=np.int64)
            r.actor = np.asarray(c.actor_indices, dtype=np.int64)
            r.rounds = np.asarray(c.rounds, dtype=np.int64)
            r.result_ok = np.frombuffer(c.result_ok, dtype=np.uint8).astype(np.bool_)
            r.result_codes = np.asarray(c.result_codes, dtype=np.int64)
            if self._col_kinds and len(c.decision_kinds) == k:
                r.kinds = np.frombuffer(c.decision_kinds, dtype=np.uint8).astype(np.int64)
            else:
                # A server without the kind column: from the items of the rows with a decision.
                for j in np.flatnonzero(r.actor >= 0):
                    r.kinds[j] = states[int(j)].decision.kind or pb.DECISION_KIND_TURN_ACTION
        else:
            # An older server: the rest of each row from its item.
            r = _Rows.of_states(self.codec, states, tensors=False)
        n = self.codec.n
        if c.first_plane:
            if self._terrain_u8 is None or c.first_plane != len(self._terrain_u8):
                raise RuntimeError(f"compact columns from plane {c.first_plane} unexpected")
            bits = np.frombuffer(c.action_mask_bits, dtype=np.uint8).reshape(k, -(-n // 8))
            r.masks = np.unpackbits(bits, axis=1, count=n, bitorder="little").view(np.int8)
            r.first_plane = int(c.first_plane)
        else:
            r.masks = np.frombuffer(c.action_masks, dtype=np.int8).reshape(k, n)
        dyn = (plane_shape[0] - r.first_plane, *plane_shape[1:])
        r.planes_u8 = np.frombuffer(c.planes, dtype=np.uint8).reshape(k, *dyn)
        r.features = np.frombuffer(c.features, dtype="<f4").reshape(k, *feature_shape)
        return r

    def _store(self, slots: np.ndarray, rows: _Rows, new_episodes: np.ndarray) -> None:
        """Make row j the current decision and observation of ``slots[j]``; the slots in
        ``new_episodes`` (resets: the last rows, in order) also take the row's episode id.

        The planes and features are new arrays each time (never written after they were
        returned to the caller, so observations are returned without a copy)."""
        if rows.k != len(slots):
            raise RuntimeError(f"{rows.k} results for {len(slots)} slots")
        self._masks[slots] = rows.masks
        self._decision_ids[slots] = rows.decision_ids
        self._actor[slots] = rows.actor
        self._round[slots] = rows.rounds
        self._kind[slots] = rows.kinds
        self._reaction[slots] = None
        self._provoker[slots] = self.codec.n_combatants
        for j in rows.reactions().tolist():
            offer = reaction_info(rows.state(j).decision, self.spec_msg)
            self._reaction[slots[j]] = offer
            if offer is not None:
                self._provoker[slots[j]] = offer["provoker_index"]
        if self.codec.mode == "tensor" and (rows.planes is not None or rows.planes_u8 is not None):
            assert self._plane_divisors is not None  # tensor observations have divisors
            every = rows.k == self.num_envs
            fp = rows.first_plane
            if rows.planes_u8 is not None and every:
                # Exact: each plane value is byte / divisor in float32 (ObservationSchema).
                u8 = np.empty((self.num_envs, *self.codec.plane_shape), dtype=np.uint8)
                if fp:
                    assert self._terrain_u8 is not None  # compact columns
                    u8[:, :fp] = self._terrain_u8
                u8[slots, fp:] = rows.planes_u8
                self._planes = np.divide(u8, self._plane_divisors, dtype=np.float32)
            else:
                planes = rows.planes
                if planes is None:
                    assert rows.planes_u8 is not None
                    packed: np.ndarray = rows.planes_u8
                    if fp:
                        assert self._terrain_u8 is not None  # compact columns
                        terrain = np.broadcast_to(
                            self._terrain_u8, (rows.k, *self._terrain_u8.shape)
                        )
                        packed = np.concatenate([terrain, packed], axis=1)
                    planes = np.divide(packed, self._plane_divisors, dtype=np.float32)
                new = np.empty_like(self._planes) if every else self._planes.copy()
                new[slots] = planes
                self._planes = new
            features = np.empty_like(self._features) if every else self._features.copy()
            features[slots] = rows.features
            self._features = features
        first_new = rows.k - len(new_episodes)
        for j, i in enumerate(new_episodes.tolist(), start=first_new):
            self._episode_ids[i] = rows.state(j).episode_id
        if self.codec.mode == "json":
            for j, i in enumerate(slots):
                self._json[int(i)] = rows.state(j).observation.json

    def _close_slot(self, i: int) -> None:
        episode_id = self._episode_ids[i]
        if episode_id is None:
            return
        self._episode_ids[i] = None
        self._close_id(episode_id)

    def _close_id(self, episode_id: str) -> None:
        """Close a server episode: with the next StepBatch when the server takes closes in
        batches, else with a Close call now (awaited before the next call)."""
        if self._batch_close:
            self._closing.append(episode_id)
        else:
            self._close_now(episode_id)

    def _close_now(self, episode_id: str) -> None:
        self._pending_closes.append(self.client.close_episode_future(episode_id))

    def _drain_closes(self) -> None:
        pending, self._pending_closes = self._pending_closes, []
        for f in pending:
            try:
                f.result()
            except grpc.RpcError:  # best effort: it may have expired
                pass

    def _batch_obs(self) -> dict[str, Any]:
        masks = self._masks.copy()
        if self.codec.mode == "tensor":
            # New arrays at every step (``_store``): no copy needed.
            obs = {"action_mask": masks, "features": self._features, "planes": self._planes}
        else:
            obs = {"action_mask": masks, "json": tuple(self._json)}
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
        return vector_infos(self, ok, codes, retries, winners)


def vector_infos(
    env: Any,
    ok: np.ndarray,
    codes: np.ndarray,
    retries: np.ndarray,
    winners: dict[int, str | None] | None = None,
) -> dict[str, Any]:
    """The vector infos of a step or reset (Gymnasium's ``key`` / ``_key`` layout) from
    ``env``'s per-slot arrays (``num_envs``, ``_masks``, ``_actor``, ``_round``,
    ``_decision_ids``, ``_kind``, ``_reaction``): shared by :class:`Pf1eVectorEnv` and
    :class:`pf1e_gym.native.VectorEnv`. ``winners``: slot → winner of the episodes that
    ended."""
    e = env.num_envs
    winner = np.full(e, None, dtype=object)
    ended_mask = np.zeros(e, dtype=np.bool_)
    for i, w in (winners or {}).items():
        winner[i] = w
        ended_mask[i] = True
    every = np.ones(e, dtype=np.bool_)
    known = (codes >= 0) & (codes < len(_CODE_NAMES))
    code_arr = _CODE_NAMES[np.where(known, codes, 0)]
    for j in np.flatnonzero(~known):
        code_arr[j] = result_code_name(int(codes[j]))
    known_kind = (env._kind >= 0) & (env._kind < len(_KIND_NAMES))
    kind_arr = _KIND_NAMES[np.where(known_kind, env._kind, 0)]
    for j in np.flatnonzero(~known_kind):
        kind_arr[j] = str(int(env._kind[j]))
    info: VectorInfo = {
        "action_mask": env._masks.copy(),
        "_action_mask": every,
        "actor_index": env._actor.copy(),
        "_actor_index": every,
        "round": env._round.copy(),
        "_round": every,
        "decision_id": np.where(env._actor >= 0, env._decision_ids, 0),
        "_decision_id": every,
        "decision_kind": kind_arr,
        "_decision_kind": every,
        "reaction": env._reaction.copy(),
        "_reaction": env._kind == pb.DECISION_KIND_ATTACK_OF_OPPORTUNITY,
        "result_ok": ok,
        "_result_ok": every,
        "result_code": code_arr,
        "_result_code": every,
        "winner": winner,
        "_winner": ended_mask,
        "reset_retries": retries,
        "_reset_retries": retries > 0,
    }
    # Gymnasium's vector infos are a dict[str, Any]; the keys were checked above.
    return cast(dict[str, Any], info)
