"""``Pf1eEnv``: a Gymnasium environment over a pf1e-env-server episode.

One agent plays every externally controlled combatant (all on one side, e.g. the goblins of
side ``players``), one decision at a time: each :meth:`Pf1eEnv.step` is one action of the
combatant named by ``info["actor"]``. Everyone else is played by the server's default policy.

Observation: ``{"json": str}``, the engine's full observation snapshot as JSON (seed key names).

Info (after ``reset`` and each ``step``):

- ``action_mask``: ``numpy.int8`` array of ``action_space.n``, 1 = legal now, 0 = illegal;
- ``legal_actions``: list of ``(id, label)``, sorted by id;
- ``action_results``: list of dicts ``{kind, ok, reason, field}`` of the step just applied;
- ``actor`` (id of the deciding combatant, ``None`` at the end), ``actor_index``,
  ``decision_id``, ``round`` (the server's episode id is ``env.episode_id``);
- ``outcome``: ``None``, or at the end ``{"winner": side or None, "rounds", "truncated"}``.

Reward: +1 if the controlled side wins, -1 if it loses, 0 otherwise; given at the last step only.
An illegal action id (in the space but not legal now) is not an error: the server applies the
engine's rules and reports it in ``action_results`` (``ok=False`` and a reason).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import DEFAULT_ADDRESS, Pf1eClient

# Characters the JSON observation may contain: the Basic Multilingual Plane without controls
# and surrogates (serde_json escapes control characters; non-BMP characters are not expected).
_JSON_CHARSET = frozenset(
    ["\t", "\n", "\r"]
    + [chr(c) for c in range(0x20, 0xD800)]
    + [chr(c) for c in range(0xE000, 0xFFFE)]
)
_MAX_JSON_CHARS = 1 << 24


def _kind_name(kind: int) -> str:
    name = pb.ActionKind.Name(kind) if kind in pb.ActionKind.values() else str(kind)
    return name.removeprefix("ACTION_KIND_").lower()


class Pf1eEnv(gym.Env):
    """A pf1e-gym episode as a Gymnasium env with a masked ``Discrete`` action space.

    Args:
        address: ``host:port`` of the server.
        scenario: bundled scenario name, or a ``pb.Scenario`` (see ``inline_scenario``).
        controlled_sides: sides whose combatants the agent plays.
        controlled_ids: further combatants (by id) the agent plays. All controlled combatants
            must be on one side for the reward to be meaningful (else it is always 0).
        client: an existing :class:`Pf1eClient` (then ``address`` is ignored and the client
            is not closed by :meth:`close`).
        timeout: deadline of each call, in seconds.

    Raises:
        grpc.RpcError: the server rejected the scenario (e.g. NOT_FOUND for an unknown name).
    """

    metadata = {"render_modes": []}  # noqa: RUF012 (gymnasium's convention)

    def __init__(
        self,
        address: str = DEFAULT_ADDRESS,
        scenario: str | pb.Scenario = "sample_arena",
        controlled_sides: Sequence[str] = ("players",),
        controlled_ids: Sequence[str] = (),
        *,
        client: Pf1eClient | None = None,
        timeout: float = 60.0,
    ) -> None:
        super().__init__()
        self._owns_client = client is None
        self.client = client if client is not None else Pf1eClient(address, timeout=timeout)
        self.scenario = scenario
        self.controlled_sides = list(controlled_sides)
        self.controlled_ids = list(controlled_ids)
        self.spec_msg: pb.Spec = self.client.get_spec(scenario)
        self.action_space = spaces.Discrete(self.spec_msg.action_space_size)
        self.observation_space = spaces.Dict(
            {"json": spaces.Text(max_length=_MAX_JSON_CHARS, min_length=0, charset=_JSON_CHARSET)}
        )
        self.state: pb.EpisodeState | None = None

    # -- Gymnasium API ---------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """Start a new episode (closing the previous one on the server).

        The server's seed is ``seed`` when given, else drawn from ``self.np_random``.
        If the controlled side never gets a decision, the returned info already has an
        ``outcome`` and the next ``step`` raises.
        """
        super().reset(seed=seed, options=options)
        self._close_episode()
        server_seed = seed if seed is not None else int(self.np_random.integers(0, 2**63))
        self.state = self.client.reset(
            self.scenario,
            server_seed,
            controlled_sides=self.controlled_sides,
            controlled_ids=self.controlled_ids,
        )
        return self._obs(), self._info()

    def step(self, action: int) -> tuple[dict[str, str], float, bool, bool, dict[str, Any]]:
        """Apply action id ``action`` for the current decision.

        Raises:
            RuntimeError: no episode, or the episode is over (call ``reset``).
            ValueError: ``action`` is outside the action space.
            grpc.RpcError: the server refused the step.
        """
        st = self.state
        if st is None:
            raise RuntimeError("call reset() before step()")
        if st.terminated or st.truncated or not st.HasField("decision"):
            raise RuntimeError("the episode is over: call reset()")
        a = int(action)
        if not 0 <= a < self.action_space.n:
            raise ValueError(f"action {a} outside Discrete({self.action_space.n})")
        self.state = self.client.step(st.episode_id, st.decision.decision_id, action_ids=[a])
        s = self.state
        return self._obs(), float(s.reward), bool(s.terminated), bool(s.truncated), self._info()

    def close(self) -> None:
        """Close the episode on the server and the connection (if this env created it)."""
        self._close_episode()
        if self._owns_client:
            self.client.close()
        super().close()

    # -- helpers -----------------------------------------------------------------------------

    @property
    def episode_id(self) -> str | None:
        """The server's id of the current episode (``None`` before ``reset``)."""
        return self.state.episode_id if self.state is not None else None

    def action_masks(self) -> np.ndarray:
        """The current action mask (``numpy.int8``, 1 = legal); all zeros when over."""
        mask = np.zeros(self.action_space.n, dtype=np.int8)
        if self.state is not None:
            for la in self.state.legal_actions:
                mask[la.id] = 1
        return mask

    def _close_episode(self) -> None:
        if self.state is None:
            return
        episode_id = self.state.episode_id
        self.state = None
        try:
            self.client.close_episode(episode_id)
        except Exception:  # best effort: it may have expired
            pass

    def _obs(self) -> dict[str, str]:
        assert self.state is not None
        return {"json": self.state.observation.json}

    def _info(self) -> dict[str, Any]:
        s = self.state
        assert s is not None
        d = s.decision if s.HasField("decision") else None
        outcome = None
        if s.terminated or s.truncated:
            outcome = {
                "winner": s.outcome.winner or None,
                "rounds": s.outcome.rounds,
                "truncated": s.outcome.truncated,
            }
        return {
            "action_mask": self.action_masks(),
            "legal_actions": [(la.id, la.label) for la in s.legal_actions],
            "action_results": [
                {"kind": _kind_name(r.kind), "ok": r.ok, "reason": r.reason, "field": r.field}
                for r in s.results
            ],
            "actor": d.actor_id if d is not None else None,
            "actor_index": d.actor_index if d is not None else None,
            "decision_id": d.decision_id if d is not None else None,
            "round": s.observation.round,
            "outcome": outcome,
        }
