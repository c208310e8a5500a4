"""``Pf1eParallelEnv``: pf1e-gym self-play as a PettingZoo ``ParallelEnv``, over ``StepBatch``.

**The engine is sequential.** One combatant decides at a time (initiative order, several
decisions per turn while it has budget, reactions such as an attack of opportunity offered
mid-way through another combatant's action). A parallel view of it is honest only as this:

- every **controlled combatant is an agent** (its combatant id, ``goblin``, ``orc-2``…; by
  default both sides are controlled: self-play);
- at each :meth:`step` the **acting agent** of an episode is the combatant the server is
  waiting for (``infos[agent]["acting"]`` is ``True``); every other live agent **waits**;
- with ``num_episodes = E > 1`` the env runs E independent episodes of the scenario, its agents
  are ``f"{combatant_id}/{k}"`` (episode ``k``), and one :meth:`step` advances every unfinished
  episode by one decision in **one** ``StepBatch`` call: up to E agents act per call (batched
  self-play throughput); the agents of an episode leave ``agents`` when it ends, and the env is
  done when all E have ended (there is no autoreset: call :meth:`reset`).

**Waiting is an action.** With ``wait_action=True`` (the default) the action space is
``Discrete(n + 1)``: ids ``0 .. n-1`` are the server's action ids (unchanged, so
:func:`pf1e_gym.actions.decode_action` and the spec's action blocks apply) and
:attr:`wait_id` ``= n`` is "wait". A waiting agent's mask holds only ``wait_id``; an acting
agent's mask is the server's mask of its decision (``wait_id`` not legal). So **no agent ever
gets an all-zero mask** while it is live: a masked categorical is always well defined, and a
waiting agent's choice has probability 1 (no gradient). With ``wait_action=False`` the action
space is the server's ``Discrete(n)`` and a waiting agent's mask is all zeros (its action is
ignored): only for learners that look at ``infos[agent]["acting"]`` themselves.

Actions (:meth:`step`'s dict):

- an acting agent must be given an ``int`` in ``0 .. n-1``, else ``ValueError`` naming the
  agent (a missing acting agent, ``None``, ``wait_id`` or an id outside the space). An id
  in range but illegal now (masked out) is sent: the server rejects it **without changing the
  episode** (``infos[agent]["action_results"]``, ``ok`` false with its code) and the same
  agent acts again at the next step (its reward for that step is 0);
- a waiting agent may be left out or given ``None`` or ``wait_id``; with ``wait_action=True``
  any other id is a ``ValueError`` (it would be silently dropped); with ``wait_action=False``
  its action is ignored;
- a key that is not a live agent (unknown, or of an episode that has ended) is a
  ``ValueError``; :meth:`step` after the end (``agents`` empty) is a ``RuntimeError``.

**Observations** (a ``Dict``: ``planes``/``features`` or ``json``, and ``action_mask`` of
length ``n + 1`` with ``wait_action``): the acting agent gets the server's observation of its
decision (its own viewpoint: ``features[:, 1]``, "is me", marks its own row). The server
renders only the deciding combatant's view, so a waiting agent gets **the observation of its
own latest decision** (stale: the world may have changed since), or zeros (tensor mode; the
current snapshot in JSON mode) before its first decision. At the end every agent of the
episode gets its own final view (the server's ``final_agents``).

**Rewards** are per side, shared by the side's agents (as in :class:`~pf1e_gym.aec.Pf1eAECEnv`):
whenever an episode's response carries the server's ``rewards[side]`` (for the deciding side at
a decision, for every side at the end), each live agent of that side in that episode receives
it at that step. Without shaping, each agent's rewards sum to +1 (its side won), -1 (lost) or 0
(draw or round cap). Reward options: the ``reward`` dict ``{"shaped": bool, "damage_weight":
float, "kill_weight": float, "round_discount": float}`` (or the older keywords), also accepted
by ``reset(options={"reward": {...}})``, where its keys update the constructor's settings for
the episodes of that reset only (as in :class:`~pf1e_gym.env.Pf1eEnv`); other ``options`` keys
are ignored (PettingZoo's ``parallel_api_test`` passes some).

**Terminations / truncations**: all agents of an episode end together, ``terminated`` when a
side won (or every side is out of the fight), ``truncated`` at the round cap;
``infos[agent]["outcome"]`` is ``{"winner", "rounds", "truncated"}`` then.

**Infos** per agent: ``side``, ``combatant_index``, ``episode`` (``k``), ``acting``,
``action_mask`` (the observation's), ``decision_kind`` / ``reaction`` / ``decision_id`` /
``round`` (of its pending decision, ``None`` when waiting), ``action_results`` (of its own
action at this step, only when it acted), ``outcome`` (at the end).

**Seeds**: ``reset(seed=s)`` gives episode ``k`` the server seed ``s + k`` and seeds
``self.np_random`` (later unseeded resets draw from it), so a seeded run is reproducible.
An episode that ends before any controlled decision (only possible when a side is left to the
default policy) is reset again with a seed drawn from ``np_random``.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any

import grpc
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from pf1e_gym._codec import (
    ObsCodec,
    action_results,
    decision_kind_name,
    is_over,
    outcome,
    reaction_info,
    reward_dict,
    reward_options,
)
from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import BatchItemError, Pf1eClient, reset_request
from pf1e_gym.infos import AgentInfo
from pf1e_gym.server import open_client

_MAX_RESET_RETRIES = 100


class Pf1eParallelEnv(ParallelEnv):  # type: ignore[misc]  # pettingzoo ships no types
    """pf1e-gym self-play as a PettingZoo ``ParallelEnv`` (see the module docs).

    Args:
        address: ``host:port`` of the server; ``None``: ``$PF1E_ADDRESS``, else a local server
            (one on 127.0.0.1:50051, else one started here and shared: :mod:`pf1e_gym.server`).
        scenario: bundled scenario name, or a ``pb.Scenario``.
        controlled_sides: sides whose combatants are agents; ``None`` = every side (self-play).
        controlled_ids: further combatants (by id) that are agents.
        num_episodes: episodes stepped together (``E``; agents ``f"{id}/{k}"`` when ``E > 1``).
        observation: ``"auto"``, ``"tensor"`` or ``"json"`` (as :class:`~pf1e_gym.env.Pf1eEnv`).
        reward: the reward dict (module docs); ``shaped_reward``, ``damage_weight``,
            ``kill_weight``: the older keywords, used when ``reward`` is ``None``.
        wait_action: add the "wait" id ``n`` (module docs).
        client: an existing :class:`Pf1eClient` (not closed by :meth:`close`).
        timeout: deadline of each call, in seconds.

    Raises:
        ValueError: ``num_episodes < 1``, no controlled combatant, a bad reward dict.
    """

    metadata = {"name": "pf1e_parallel_v0", "render_modes": [], "is_parallelizable": True}  # noqa: RUF012

    def __init__(
        self,
        address: str | None = None,
        scenario: str | pb.Scenario = "sample_arena",
        controlled_sides: Sequence[str] | None = None,
        controlled_ids: Sequence[str] = (),
        *,
        num_episodes: int = 1,
        observation: str = "auto",
        reward: Mapping[str, Any] | None = None,
        shaped_reward: bool = False,
        damage_weight: float | None = None,
        kill_weight: float | None = None,
        wait_action: bool = True,
        client: Pf1eClient | None = None,
        timeout: float = 60.0,
    ) -> None:
        if int(num_episodes) < 1:
            raise ValueError(f"num_episodes: must be >= 1, got {num_episodes}")
        self.num_episodes = int(num_episodes)
        self.client, self._owns_client = open_client(address, client, timeout)
        self.scenario = scenario
        self.spec_msg: pb.Spec = self.client.get_spec(scenario)
        sides = list(self.spec_msg.sides) if controlled_sides is None else list(controlled_sides)
        self.controlled_sides = sides
        self.controlled_ids = list(controlled_ids)
        self.codec = ObsCodec(self.spec_msg, observation, legal_actions=False)
        self._obs_kwargs = self.codec.reset_kwargs()
        if self.codec.mode == "json" and "observation" in self._obs_kwargs:
            self._obs_kwargs["observation"].legal_actions = False  # the mask comes as bytes
        #: The reward settings of every episode (a dict of ``REWARD_KEYS``; empty: sparse).
        self.reward = reward_dict(
            None if reward is None else dict(reward),
            shaped_reward=shaped_reward,
            damage_weight=damage_weight,
            kill_weight=kill_weight,
        )
        self._reward = reward_options(self.reward, self.codec.caps)
        combatants = [
            c for c in self.spec_msg.combatants if c.side in sides or c.id in self.controlled_ids
        ]
        if not combatants:
            raise ValueError("controlled_sides/controlled_ids: no controlled combatant")
        self.n = int(self.spec_msg.action_space_size)
        self.wait_action = bool(wait_action)
        #: The "wait" action id (``n``), or ``None`` without ``wait_action``.
        self.wait_id: int | None = self.n if self.wait_action else None
        width = self.n + 1 if self.wait_action else self.n
        # Per agent: (episode k, combatant id); and the reverse map per episode.
        self.possible_agents: list[str] = []
        self.agent_episode: dict[str, int] = {}
        self.agent_combatant: dict[str, str] = {}
        self.agent_side: dict[str, str] = {}
        self.agent_index: dict[str, int] = {}
        self._by_combatant: list[dict[str, str]] = []
        for k in range(self.num_episodes):
            names: dict[str, str] = {}
            for c in combatants:
                name = c.id if self.num_episodes == 1 else f"{c.id}/{k}"
                self.possible_agents.append(name)
                self.agent_episode[name] = k
                self.agent_combatant[name] = c.id
                self.agent_side[name] = c.side
                self.agent_index[name] = int(c.index)
                names[c.id] = name
            self._by_combatant.append(names)
        self._action_space: spaces.Space[Any] = spaces.Discrete(width)
        self._width = width
        obs_spaces = dict(self.codec.space.spaces)
        obs_spaces["action_mask"] = spaces.MultiBinary(width)
        self._observation_space = spaces.Dict(obs_spaces)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._action_space)
        self._wait_mask = np.zeros(width, dtype=np.int8)
        if self.wait_action:
            self._wait_mask[self.n] = 1
        self.agents: list[str] = []
        self._states: list[pb.EpisodeState | None] = [None] * self.num_episodes
        self._last_obs: dict[str, dict[str, Any]] = {}
        self._np_random: np.random.Generator | None = None
        self.np_random_seed: int | None = None
        self._batched = bool(self.codec.caps.get("batch"))
        self.max_batch_items = int(self.spec_msg.max_batch_items) or 1024

    # -- PettingZoo API ----------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The agent's observation space (one object shared by every agent)."""
        space: spaces.Space[Any] = self.observation_spaces[agent]
        return space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(n + 1)`` with ``wait_action``, else ``Discrete(n)`` (shared)."""
        space: spaces.Space[Any] = self.action_spaces[agent]
        return space

    @property
    def np_random(self) -> np.random.Generator:
        """The generator later unseeded resets draw their server seeds from."""
        if self._np_random is None:
            self._np_random, self.np_random_seed = seeding.np_random()
        return self._np_random

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, Any]], dict[str, AgentInfo]]:
        """Start ``num_episodes`` new episodes (closing the previous ones).

        ``seed``: episode ``k`` gets ``seed + k`` (module docs). ``options["reward"]``: the
        reward dict, updating the constructor's for these episodes only; other keys are
        ignored. Returns
        ``(observations, infos)`` for every agent."""
        # Like Pf1eEnv: options["reward"] updates the constructor's settings for these
        # episodes only. Other keys are ignored (PettingZoo's parallel_api_test passes some).
        reward = self.reward
        if options and options.get("reward") is not None:
            reward = reward_dict(options["reward"], base=self.reward, field='options["reward"]')
        self._reward = reward_options(reward, self.codec.caps)
        if seed is not None:
            self._np_random, self.np_random_seed = seeding.np_random(int(seed))
            seeds = [int(seed) + k for k in range(self.num_episodes)]
        else:
            seeds = [self._draw_seed() for _ in range(self.num_episodes)]
        self._close_episodes()
        states = self._call([], [(k, s) for k, s in enumerate(seeds)])
        for _ in range(_MAX_RESET_RETRIES):
            dead = [k for k, st in enumerate(states) if is_over(st)]
            if not dead:
                break
            for k in dead:
                self._close_ids([states[k].episode_id])
            again = self._call([], [(k, self._draw_seed()) for k in dead])
            for k, st in zip(dead, again, strict=True):
                states[k] = st
        else:
            raise RuntimeError(
                f"{_MAX_RESET_RETRIES} resets in a row ended before any controlled decision"
            )
        self._states = list(states)
        self.agents = self.possible_agents[:]
        self._last_obs = {a: self.codec.agent_obs(None, "") for a in self.agents}
        if self.codec.mode == "json":
            for a in self.agents:
                first = self._states[self.agent_episode[a]]
                assert first is not None
                self._last_obs[a] = self.codec.agent_obs(None, first.observation.json)
        obs: dict[str, dict[str, Any]] = {}
        infos: dict[str, AgentInfo] = {}
        for k, state in enumerate(self._states):
            assert state is not None
            self._absorb(k, state, obs, infos, {}, {}, {}, acted=None)
        return obs, infos

    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[
        dict[str, dict[str, Any]],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, AgentInfo],
    ]:
        """Advance every unfinished episode by its acting agent's action (one ``StepBatch``).

        Returns ``(observations, rewards, terminations, truncations, infos)``, each with an
        entry for every agent live before the step. Raises ``ValueError`` for a bad
        ``actions`` dict (module docs) before anything is sent."""
        if not self.agents:
            raise RuntimeError("every episode has ended: call reset() before step()")
        live = set(self.agents)
        for name in actions:
            if name not in live:
                why = "not an agent" if name not in self.agent_episode else "no longer live"
                raise ValueError(f"actions[{name!r}]: {why} (live agents: {self.agents})")
        steps: list[tuple[int, str, int, int]] = []  # (episode, episode id, decision, action)
        acted: dict[int, str] = {}
        for k, st in enumerate(self._states):
            if st is None or is_over(st):
                continue
            actor = self._actor(k, st)
            a = actions.get(actor)
            if a is None or isinstance(a, bool | np.bool_):
                raise ValueError(
                    f"actions[{actor!r}]: this agent must act (its decision "
                    f"{int(st.decision.decision_id)} is pending), got {a!r}"
                )
            try:
                a_int = operator.index(a)  # an integer (numpy too); 1.5 or "0" are refused
            except TypeError:
                raise ValueError(
                    f"actions[{actor!r}]: expected an action id (an integer), got {a!r}"
                ) from None
            if not 0 <= a_int < self.n:
                what = "the wait id" if a_int == self.wait_id else "outside the action space"
                raise ValueError(
                    f"actions[{actor!r}]: {a_int} is {what}: this agent must act with an id "
                    f"in 0..{self.n - 1} (its action mask)"
                )
            steps.append((k, st.episode_id, int(st.decision.decision_id), a_int))
            acted[k] = actor
        if self.wait_action:
            for name, a in actions.items():
                if name in acted.values() or a is None:
                    continue
                try:
                    is_wait = operator.index(a) == self.wait_id
                except TypeError:
                    is_wait = False
                if not is_wait:
                    raise ValueError(
                        f"actions[{name!r}]: {a!r} given to a waiting agent (only the "
                        f"wait id {self.wait_id} or None)"
                    )
        states = self._call([(e, d, a) for _, e, d, a in steps], [])
        obs: dict[str, dict[str, Any]] = {}
        rewards: dict[str, float] = {}
        terms: dict[str, bool] = {}
        truncs: dict[str, bool] = {}
        infos: dict[str, AgentInfo] = {}
        stepped = dict(zip([k for k, *_ in steps], states, strict=True))
        for k, st in enumerate(self._states):
            if st is None or is_over(st):
                continue
            new = stepped[k]
            self._states[k] = new
            self._absorb(k, new, obs, infos, rewards, terms, truncs, acted=acted[k])
        self.agents = [a for a in self.agents if not (terms.get(a) or truncs.get(a))]
        for k, st in enumerate(self._states):
            if st is not None and is_over(st):
                self._close_ids([st.episode_id])
                self._states[k] = None
        return obs, rewards, terms, truncs, infos

    def close(self) -> None:
        """Close the episodes on the server and the connection (if this env created it)."""
        self._close_episodes()
        if self._owns_client:
            self.client.close()

    def render(self) -> None:
        """No rendering (the JSON observation and the infos carry everything)."""
        return None

    def state(self) -> np.ndarray:
        raise NotImplementedError("no global state: each agent observes from its own viewpoint")

    # -- helpers -----------------------------------------------------------------------------

    @property
    def episode_ids(self) -> list[str | None]:
        """The server's episode id of each running episode (``None`` once it has ended)."""
        return [st.episode_id if st is not None else None for st in self._states]

    def acting_agents(self) -> list[str]:
        """The agents whose decision is pending (one per unfinished episode)."""
        return [
            self._actor(k, st)
            for k, st in enumerate(self._states)
            if st is not None and not is_over(st)
        ]

    def _draw_seed(self) -> int:
        return int(self.np_random.integers(0, 2**63))

    def _actor(self, k: int, st: pb.EpisodeState) -> str:
        name = self._by_combatant[k].get(st.decision.actor_id)
        if name is None:
            raise RuntimeError(f"the server asks {st.decision.actor_id!r}, who is not an agent")
        return name

    def _mask(self, st: pb.EpisodeState) -> np.ndarray:
        m = self.codec.mask(st)
        if self.wait_action:
            m = np.concatenate([m, np.zeros(1, dtype=np.int8)])
        return m

    def _absorb(
        self,
        k: int,
        st: pb.EpisodeState,
        obs: dict[str, Any],
        infos: dict[str, Any],
        rewards: dict[str, float],
        terms: dict[str, bool],
        truncs: dict[str, bool],
        acted: str | None,
    ) -> None:
        """Fill the per-agent dicts of episode ``k`` from its new state ``st``."""
        names = [a for a in self._by_combatant[k].values() if a in self.agent_episode]
        over = is_over(st)
        side_rewards = {s: float(r) for s, r in st.rewards.items()}
        finals = {f.combatant_id: f for f in st.final_agents} if over else {}
        end = outcome(st) if over else None
        actor = None if over else self._actor(k, st)
        for a in names:
            info: AgentInfo = {
                "side": self.agent_side[a],
                "combatant_index": self.agent_index[a],
                "episode": k,
                "acting": a == actor,
                "decision_kind": None,
                "reaction": None,
                "decision_id": None,
                "round": None,
                "action_mask": self._wait_mask,  # replaced by the observation's, below
            }
            if a == acted:
                info["action_results"] = action_results(st)
            if over:
                f = finals.get(self.agent_combatant[a])
                tensors = f.tensors if f is not None and f.HasField("tensors") else None
                o = self.codec.agent_obs(tensors, st.observation.json)
                o["action_mask"] = np.zeros(self._width, dtype=np.int8)
                info["outcome"] = end
                terms[a] = bool(not st.truncated)
                truncs[a] = bool(st.truncated)
            elif a == actor:
                o = self.codec.obs(st, self._mask(st))
                self._last_obs[a] = o
                info.update(
                    {
                        "decision_kind": decision_kind_name(st.decision.kind),
                        "reaction": reaction_info(st.decision, self.spec_msg),
                        "decision_id": int(st.decision.decision_id),
                        "round": int(st.decision.round),
                    }
                )
            else:
                o = {**self._last_obs[a], "action_mask": self._wait_mask.copy()}
            if acted is not None and not over:
                terms[a] = False
                truncs[a] = False
            if acted is not None:
                rewards[a] = side_rewards.get(self.agent_side[a], 0.0)
            info["action_mask"] = o["action_mask"].copy()
            obs[a] = o
            infos[a] = info

    def _reset_req(self, seed: int) -> pb.ResetRequest:
        extra = dict(self._obs_kwargs)
        if self._reward is not None:
            extra["reward"] = self._reward
        return reset_request(
            self.scenario, seed, self.controlled_sides, self.controlled_ids, **extra
        )

    def _call(
        self, steps: list[tuple[str, int, int]], resets: list[tuple[int, int]]
    ) -> list[pb.EpisodeState]:
        """Steps ``(episode id, decision id, action id)`` then resets ``(episode k, seed)``
        through :meth:`Pf1eClient.batch` (``StepBatch`` chunks of ``max_batch_items``, unary
        calls on a server without it). Returns one state per item, in order; an item's inline
        error raises ``RuntimeError`` (``ValueError`` for ``INVALID_ARGUMENT``), the episodes
        the call's resets made being closed."""
        reset_reqs = [self._reset_req(s) for _, s in resets]
        try:
            chunks = self.client.batch(
                steps, reset_reqs, max_items=self.max_batch_items, unary=not self._batched
            )
        except BatchItemError as e:
            msg = f"StepBatch item: {e.message}"
            if e.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]:
                raise ValueError(msg) from None
            raise RuntimeError(msg) from None
        return [st for chunk in chunks for st in chunk.states]

    def _close_ids(self, episode_ids: Sequence[str]) -> None:
        for episode_id in episode_ids:
            try:
                self.client.close_episode(episode_id)
            except grpc.RpcError:  # best effort: it may have expired
                pass

    def _close_episodes(self) -> None:
        ids = [st.episode_id for st in self._states if st is not None]
        self._states = [None] * self.num_episodes
        self.agents = []
        self._close_ids(ids)
