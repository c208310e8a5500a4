"""``Pf1eVectorEnv``: many pf1e-gym episodes as one Gymnasium ``VectorEnv``.

Each of the ``num_envs`` slots is an episode of the same scenario with the same controlled
side(s), as in :class:`~pf1e_gym.env.Pf1eEnv`. One :meth:`step` sends every slot's action in
**one** ``StepBatch`` call (the server steps them in parallel) and the resets of the slots that
ended at the previous step in the same call. Without ``StepBatch`` on the server (an older
server, or ``batch=False``), each slot is a unary ``Step``/``Reset``, all issued concurrently
on one channel (futures) and awaited together: same results, a lot slower.

**Autoreset mode: ``AutoresetMode.NEXT_STEP``** (Gymnasium 1.x's default), declared in
``metadata["autoreset_mode"]``. When slot *i* ends at step *t* (``terminations[i]`` or
``truncations[i]``), step *t* returns its final observation and reward; at step *t + 1* the
action given for slot *i* is ignored, the slot is reset (a new server episode, the old one is
closed) and step *t + 1* returns the first observation of the new episode with reward 0 and
``terminated = truncated = False``. Nothing else is reset behind your back.

Seeds: ``reset(seed=s)`` seeds slot *i* with ``s + i`` (a list gives one seed per slot) and
seeds ``self.np_random``, from which the seeds of later autoresets are drawn, so a seeded run
is reproducible. A reset whose controlled side never gets a decision (the default policy ended
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
- ``result_ok``, ``result_code``: of the action just applied (``True``/``ok`` for a reset slot);
- ``winner``: object array, set (side name or ``None`` for a draw) where an episode ended.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import grpc
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from pf1e_gym._codec import ObsCodec, is_over, result_code_name, side_reward
from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import Pf1eClient, reset_request

_MAX_RESET_RETRIES = 100

# One item of a batch: its state, and its observation rows (mask, planes, features); planes
# and features are None in JSON mode.
_Item = tuple[pb.EpisodeState, tuple[np.ndarray, np.ndarray | None, np.ndarray | None]]


class BatchItemError(RuntimeError):
    """A ``StepBatch`` item failed (the server's inline error: ``code`` and ``message``)."""

    def __init__(self, slot: int, code: int, message: str) -> None:
        name = grpc.StatusCode.UNKNOWN.name
        for sc in grpc.StatusCode:
            if sc.value[0] == code:
                name = sc.name
        super().__init__(f"slot {slot}: {name}: {message}")
        self.slot, self.code, self.message = slot, code, message


class Pf1eVectorEnv(VectorEnv):
    """``num_envs`` episodes of one scenario, stepped together (see the module docs).

    Args:
        num_envs: number of slots (episodes stepped together).
        address, scenario, controlled_sides, controlled_ids, observation, shaped_reward,
            damage_weight, kill_weight: as :class:`~pf1e_gym.env.Pf1eEnv`.
        batch: ``True`` (require ``StepBatch``), ``False`` (unary calls), ``"auto"`` (batch
            when the server has it; else unary with a ``UserWarning``).
        client: an existing :class:`Pf1eClient` (not closed by :meth:`close`).
        timeout: deadline of each call, in seconds.
        columnar: ``"auto"`` (columnar batches when batching tensor observations on a server
            that has them), ``True`` (require them) or ``False``.
    """

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
        shaped_reward: bool = False,
        damage_weight: float | None = None,
        kill_weight: float | None = None,
        batch: bool | str = "auto",
        client: Pf1eClient | None = None,
        timeout: float = 60.0,
        columnar: bool | str = "auto",
    ) -> None:
        if num_envs < 1:
            raise ValueError("num_envs must be >= 1")
        self._owns_client = client is None
        self.client = client if client is not None else Pf1eClient(address, timeout=timeout)
        self.scenario = scenario
        self.controlled_sides = list(controlled_sides)
        self.controlled_ids = list(controlled_ids)
        self.spec_msg: pb.Spec = self.client.get_spec(scenario)
        self.codec = ObsCodec(self.spec_msg, observation, legal_actions=False)
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
        if shaped_reward or damage_weight is not None or kill_weight is not None:
            self._reset_extra["reward"] = pb.RewardOptions(
                shaped=shaped_reward, damage_weight=damage_weight, kill_weight=kill_weight
            )

        self.num_envs = num_envs
        n = int(self.spec_msg.action_space_size)
        self.single_action_space = spaces.Discrete(n)
        self.single_observation_space = self.codec.space
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.render_mode = None
        self.closed = False

        self._states: list[pb.EpisodeState | None] = [None] * num_envs
        # The current observation of every slot, updated row by row from either transport.
        self._masks = np.zeros((num_envs, n), dtype=np.int8)
        if self.codec.mode == "tensor":
            self._planes = np.zeros((num_envs, *self.codec.plane_shape), dtype=np.float32)
            self._features = np.zeros((num_envs, *self.codec.feature_shape), dtype=np.float32)
        self._autoreset = np.zeros(num_envs, dtype=np.bool_)
        self._pending_closes: list[grpc.Future] = []
        # Episodes to close with the next StepBatch (servers with capability batch_close).
        self._batch_close = self.batched and self.codec.caps.get("batch_close", False)
        self._closing: list[str] = []
        #: Size in bytes of the last StepBatch response (benchmarks: the echo payload).
        self.last_batch_bytes = 0

    # -- Gymnasium API ---------------------------------------------------------------------

    def reset(
        self,
        *,
        seed: int | Sequence[int] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset every slot (closing the previous episodes). ``options`` is unused."""
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
        items = self._call([], [(i, s) for i, s in enumerate(seeds)])
        retries = self._retry_dead_resets(items, list(range(self.num_envs)))
        for i, item in enumerate(items):
            self._store(i, item)
        self._autoreset[:] = False
        codes = ["ok"] * self.num_envs
        ok = np.ones(self.num_envs, dtype=np.bool_)
        return self._batch_obs(), self._infos(ok, codes, retries)

    def step(
        self, actions: Any
    ) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every slot (NEXT_STEP autoreset: slots that ended last step are reset)."""
        acts = np.asarray(actions).reshape(self.num_envs)
        steps: list[tuple[int, tuple[str, int, int]]] = []
        resets: list[tuple[int, int]] = []
        for i in range(self.num_envs):
            st = self._states[i]
            if st is None:
                raise RuntimeError(
                    "no episode in this slot: call reset() first (also after a step() that "
                    "raised: the server may have applied part of it)"
                )
            if self._autoreset[i]:
                self._close_slot(i)
                resets.append((i, self._draw_seed()))
            else:
                a = int(acts[i])
                if not 0 <= a < self.single_action_space.n:
                    raise ValueError(
                        f"action {a} of env {i} outside Discrete({self.single_action_space.n})"
                    )
                steps.append((i, (st.episode_id, st.decision.decision_id, a)))
        items = self._call([r for _, r in steps], resets)
        slots = [i for i, _ in steps] + [i for i, _ in resets]
        reset_slots = [i for i, _ in resets]
        reset_items = items[len(steps) :]
        retries = self._retry_dead_resets(reset_items, reset_slots)
        items = items[: len(steps)] + reset_items
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        terminated = np.zeros(self.num_envs, dtype=np.bool_)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        ok = np.ones(self.num_envs, dtype=np.bool_)
        codes = ["ok"] * self.num_envs
        stepped = set()
        for i, item in zip(slots, items, strict=True):
            self._store(i, item)
            st = item[0]
            if i in reset_slots:
                continue
            stepped.add(i)
            rewards[i] = side_reward(st)
            terminated[i] = st.terminated
            truncated[i] = st.truncated
            if st.results:
                ok[i] = st.results[0].ok
                codes[i] = result_code_name(st.results[0].code)
        self._autoreset[:] = False
        for i in stepped:
            self._autoreset[i] = is_over(self._states[i])  # type: ignore[arg-type]
        return self._batch_obs(), rewards, terminated, truncated, self._infos(ok, codes, retries)

    def close_extras(self, **kwargs: Any) -> None:
        """Close every episode on the server, then the connection (if this env made it)."""
        for i in range(self.num_envs):
            self._close_slot(i)
        closing, self._closing = self._closing, []
        for episode_id in closing:
            self._close_now(episode_id)
        self._drain_closes()
        if self._owns_client:
            self.client.close()

    # -- helpers -----------------------------------------------------------------------------

    def action_masks(self) -> np.ndarray:
        """The current masks, ``(num_envs, n)`` ``int8`` (zeros for an ended slot)."""
        return self._masks.copy()

    @property
    def episode_ids(self) -> list[str | None]:
        """The server's episode id of each slot."""
        return [st.episode_id if st is not None else None for st in self._states]

    def _draw_seed(self) -> int:
        return int(self.np_random.integers(0, 2**63))

    def _reset_req(self, seed: int) -> pb.ResetRequest:
        return reset_request(
            self.scenario, seed, self.controlled_sides, self.controlled_ids, **self._reset_extra
        )

    def _retry_dead_resets(self, items: list[_Item], slots: list[int]) -> np.ndarray:
        """Re-reset, with fresh seeds, the reset items that are already over."""
        retries = np.zeros(self.num_envs, dtype=np.int64)
        for _ in range(_MAX_RESET_RETRIES):
            dead = [k for k, (st, _) in enumerate(items) if is_over(st)]
            if not dead:
                return retries
            for k in dead:
                self._close_id(items[k][0].episode_id)
                retries[slots[k]] += 1
            again = self._call([], [(slots[k], self._draw_seed()) for k in dead])
            for k, item in zip(dead, again, strict=True):
                items[k] = item
        raise RuntimeError(
            f"{_MAX_RESET_RETRIES} resets in a row ended before any controlled decision"
        )

    def _call(
        self, steps: list[tuple[str, int, int]], resets: list[tuple[int, int]]
    ) -> list[_Item]:
        """Steps ``(episode id, decision id, action id)`` then resets ``(slot, seed)``, in
        order: one StepBatch per ``max_batch_items``, or unary calls. Returns each item's
        state and observation rows."""
        self._drain_closes()
        reset_reqs = [self._reset_req(s) for _, s in resets]
        slots = list(range(len(steps))) + [i for i, _ in resets]
        if not self.batched:
            t = self.client.timeout
            futures = [
                self.client.stub.Step.future(
                    pb.StepRequest(episode_id=e, decision_id=d, action_ids=[a]), timeout=t
                )
                for e, d, a in steps
            ]
            futures += [self.client.stub.Reset.future(r, timeout=t) for r in reset_reqs]
            return [self._rows_of(f.result()) for f in futures]
        out: list[_Item] = []
        kinds: list[tuple[str, Any]] = [("s", x) for x in steps] + [("r", r) for r in reset_reqs]
        # Closes ride along with the first chunk (they count towards the batch limit).
        closing, self._closing = self._closing, []
        room = self.max_batch_items // 2
        for episode_id in closing[room:]:  # more than a batch can carry: Close calls
            self._close_now(episode_id)
        closing = closing[:room]
        width = max(1, self.max_batch_items - len(closing))
        for lo in range(0, max(len(kinds), 1), width):
            chunk = kinds[lo : lo + width]
            close_ids = closing if lo == 0 else []
            chunk_steps = [x for k, x in chunk if k == "s"]
            chunk_resets = [x for k, x in chunk if k == "r"]
            if self.columnar:
                req = pb.StepBatchRequest(
                    columnar_steps=pb.ColumnarSteps(
                        episode_ids=[e for e, _, _ in chunk_steps],
                        decision_ids=[d for _, d, _ in chunk_steps],
                        action_ids=[a for _, _, a in chunk_steps],
                    ),
                    resets=chunk_resets,
                    columnar_response=True,
                    close_episode_ids=close_ids,
                )
            else:
                req = pb.StepBatchRequest(
                    steps=[
                        pb.StepRequest(episode_id=e, decision_id=d, action_ids=[a])
                        for e, d, a in chunk_steps
                    ],
                    resets=chunk_resets,
                    close_episode_ids=close_ids,
                )
            resp = self.client.stub.StepBatch(req, timeout=self.client.timeout)
            self.last_batch_bytes = resp.ByteSize()
            for j, item in enumerate(resp.items):
                if item.HasField("error"):
                    # The episodes this response created would never be used: close them.
                    for k in range(len(chunk_steps), len(resp.items)):
                        if resp.items[k].HasField("state"):
                            self._close_now(resp.items[k].state.episode_id)
                    raise BatchItemError(slots[lo + j], item.error.code, item.error.message)
            if not chunk:
                continue
            if self.columnar:
                out.extend(self._columns_rows(resp))
            else:
                out.extend(self._rows_of(item.state) for item in resp.items)
        return out

    def _rows_of(self, st: pb.EpisodeState) -> _Item:
        """The observation rows carried by one full ``EpisodeState``."""
        mask = self.codec.mask(st)
        if self.codec.mode == "tensor":
            planes, features = self.codec.tensors(st.tensors)
            return st, (mask, planes, features)
        return st, (mask, None, None)

    def _columns_rows(self, resp: pb.BatchResponse) -> list[_Item]:
        """Decode ``resp.columns`` with a few numpy calls: one row view per item."""
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
        planes = np.frombuffer(c.planes, dtype=np.uint8).reshape(k, *plane_shape)
        # Exact: each plane value is byte / divisor in float32 (ObservationSchema).
        planes = planes.astype(np.float32) / self._plane_divisors
        features = np.frombuffer(c.features, dtype="<f4").reshape(k, *feature_shape)
        masks = np.frombuffer(c.action_masks, dtype=np.int8).reshape(k, self.codec.n)
        return [
            (item.state, (masks[j], planes[j], features[j])) for j, item in enumerate(resp.items)
        ]

    def _store(self, slot: int, item: _Item) -> None:
        """Make ``item`` the current state and observation of ``slot``."""
        st, (mask, planes, features) = item
        self._states[slot] = st
        self._masks[slot] = mask
        if planes is not None:
            self._planes[slot] = planes
            self._features[slot] = features

    def _close_slot(self, i: int) -> None:
        st = self._states[i]
        if st is None:
            return
        self._states[i] = None
        self._close_id(st.episode_id)

    def _close_id(self, episode_id: str) -> None:
        """Close a server episode: with the next StepBatch when the server takes closes in
        batches, else with a Close call now (awaited before the next call)."""
        if self._batch_close:
            self._closing.append(episode_id)
        else:
            self._close_now(episode_id)

    def _close_now(self, episode_id: str) -> None:
        self._pending_closes.append(
            self.client.stub.Close.future(
                pb.CloseRequest(episode_id=episode_id), timeout=self.client.timeout
            )
        )

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
            return {
                "action_mask": masks,
                "features": self._features.copy(),
                "planes": self._planes.copy(),
            }
        return {
            "action_mask": masks,
            "json": tuple(st.observation.json for st in self._states if st is not None),
        }

    def _infos(self, ok: np.ndarray, codes: list[str], retries: np.ndarray) -> dict[str, Any]:
        e = self.num_envs
        actor = np.full(e, -1, dtype=np.int64)
        rnd = np.zeros(e, dtype=np.int64)
        dec = np.zeros(e, dtype=np.int64)
        winner = np.full(e, None, dtype=object)
        ended = np.zeros(e, dtype=np.bool_)
        for i, st in enumerate(self._states):
            assert st is not None
            if st.HasField("decision"):
                actor[i] = st.decision.actor_index
                rnd[i] = st.decision.round
                dec[i] = st.decision.decision_id
            else:
                rnd[i] = st.outcome.rounds
            if st.terminated or st.truncated:
                ended[i] = True
                winner[i] = st.outcome.winner or None
        every = np.ones(e, dtype=np.bool_)
        masks = self._masks.copy()
        code_arr = np.array(codes, dtype=object)
        return {
            "action_mask": masks,
            "_action_mask": every,
            "actor_index": actor,
            "_actor_index": every,
            "round": rnd,
            "_round": every,
            "decision_id": dec,
            "_decision_id": every,
            "result_ok": ok,
            "_result_ok": every,
            "result_code": code_arr,
            "_result_code": every,
            "winner": winner,
            "_winner": ended,
            "reset_retries": retries,
            "_reset_retries": retries > 0,
        }
