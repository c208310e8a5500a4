"""``Pf1eAECEnv``: a pf1e-gym episode as a PettingZoo AEC environment.

Every **controlled combatant is an agent** (its combatant id: ``goblin``, ``goblin-2``, ``orc``…);
by default both sides are controlled (self-play) and nobody is left to the server's default
policy. ``agent_selection`` is always the combatant the server is waiting for, so the agents
act in the engine's order (initiative, several decisions per turn while the actor has budget).
An illegal action id is no error: the server rejects it without changing the episode (see
``infos[agent]["action_results"]``) and the same agent decides again.

**Reactions.** When a combatant provokes an attack of opportunity from an agent's combatant
(leaving a square it threatens, standing up, shooting, a maneuver…), the server pauses the
provoking action and waits for that agent: ``agent_selection`` becomes the **reacting
agent**, although it is another combatant's turn (the mover's, perhaps an agent of the other
side, perhaps the default policy's), and ``infos[agent]["decision_kind"]`` is
``"attack_of_opportunity"`` with the offer in ``infos[agent]["reaction"]`` (``provoker_index``,
``provoker_id``, ``provocation``, ``weapons``, the answering ids ``take_ids`` and
``decline_id``). Its mask holds only those answers. After the answer the provoking action goes
on and the selection moves to whoever the server waits for next (often the mover again).
At a turn decision ``decision_kind`` is ``"turn_action"`` and ``reaction`` is ``None``.

**Results.** ``infos[agent]["action_results"]`` are the results of the agent's own last step,
and ``infos[agent]["pending_results"]`` how many of its actions were then still without one;
both are kept until that agent steps again (so a mover whose move an AoO interrupted still
finds them when it is selected again after the reaction; absent before its first step).
Results that arrive later (``EpisodeState.late_results``: the rest of a list that another
agent's reaction interrupted) go to the agent whose step they belong to, in
``infos[agent]["late_results"]``, kept there until that agent steps again. With one action
id per step (this env) the interrupted action always has its own result, so
``pending_results`` is 0 and ``late_results`` empty; the routing is for servers or wrappers
that step lists.

Observations (same ``Dict`` space as :class:`~pf1e_gym.env.Pf1eEnv`: ``planes``/``features``
or ``json``, and ``action_mask``): ``observe(agent)`` is what that agent saw at its latest
decision, with an all-zero mask unless it is deciding now; an agent that has not decided yet
sees zeros (tensor mode) or the current JSON snapshot (JSON mode). At the end every agent
gets its own final observation (the server's ``final_agents``).

Rewards are **per side, shared by its agents**: whenever the server reports a reward for side S
(when S decides next, and for every side at the end; see ``RewardOptions`` in the proto),
each agent of S receives it. Sparse by default (+1 win / -1 loss / 0 draw at the end); pass the
reward dict ``reward={"shaped": True, "round_discount": 0.95, ...}`` (or the older
``shaped_reward=True``) for the damage/kill terms and the per-round discount, as in
:class:`~pf1e_gym.env.Pf1eEnv`; ``reset(options={"reward": {...}})`` updates it for that
episode only (other ``options`` keys are ignored, as PettingZoo's tests pass some).

Agents stay in ``agents`` until the episode ends, even when their combatant is down (it simply
never decides); at the end all are terminated (a side won) or truncated (round cap) together,
then each must step ``None`` to leave (PettingZoo's usual dead-step protocol).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from pf1e_gym._codec import (
    ObsCodec,
    action_results,
    decision_kind_name,
    is_over,
    late_results,
    outcome,
    reaction_info,
    reward_dict,
    reward_options,
)
from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import Pf1eClient
from pf1e_gym.infos import ActionResultInfo, AECInfo, LateResultsInfo
from pf1e_gym.server import open_client


class Pf1eAECEnv(AECEnv):  # type: ignore[misc]  # pettingzoo ships no types
    """A pf1e-gym episode with one PettingZoo agent per controlled combatant.

    Args:
        address: ``host:port`` of the server; ``None``: ``$PF1E_ADDRESS``, else a local server
            (one on 127.0.0.1:50051, else one started here and shared: :mod:`pf1e_gym.server`).
        scenario: bundled scenario name, or a ``pb.Scenario``.
        controlled_sides: sides whose combatants are agents; ``None`` = every side (self-play).
        controlled_ids: further combatants (by id) that are agents.
        observation, reward, shaped_reward, damage_weight, kill_weight, legal_actions,
            reaction_obs: as :class:`~pf1e_gym.env.Pf1eEnv` (a bad reward dict is a
            ``ValueError`` naming the key).
        client: an existing :class:`Pf1eClient` (not closed by :meth:`close`).
        timeout: deadline of each call, in seconds.
    """

    metadata = {"name": "pf1e_aec_v0", "render_modes": [], "is_parallelizable": False}  # noqa: RUF012

    def __init__(
        self,
        address: str | None = None,
        scenario: str | pb.Scenario = "sample_arena",
        controlled_sides: Sequence[str] | None = None,
        controlled_ids: Sequence[str] = (),
        *,
        observation: str = "auto",
        reward: dict[str, Any] | None = None,
        shaped_reward: bool = False,
        damage_weight: float | None = None,
        kill_weight: float | None = None,
        legal_actions: bool = True,
        reaction_obs: bool = False,
        client: Pf1eClient | None = None,
        timeout: float = 60.0,
    ) -> None:
        super().__init__()
        self.client, self._owns_client = open_client(address, client, timeout)
        self.scenario = scenario
        self.spec_msg: pb.Spec = self.client.get_spec(scenario)
        sides = list(self.spec_msg.sides) if controlled_sides is None else list(controlled_sides)
        self.controlled_sides = sides
        self.controlled_ids = list(controlled_ids)
        self.codec = ObsCodec(
            self.spec_msg, observation, legal_actions=legal_actions, reaction_obs=reaction_obs
        )
        self._reset_kwargs = self.codec.reset_kwargs()
        #: The reward settings of every episode (a dict of ``REWARD_KEYS``; empty: sparse).
        self.reward = reward_dict(
            reward,
            shaped_reward=shaped_reward,
            damage_weight=damage_weight,
            kill_weight=kill_weight,
        )
        reward_options(self.reward, self.codec.caps)  # checked once, here
        combatants = [
            c for c in self.spec_msg.combatants if c.side in sides or c.id in self.controlled_ids
        ]
        if not combatants:
            raise ValueError("no controlled combatant: an AEC env needs at least one agent")
        self.possible_agents = [c.id for c in combatants]
        self.agent_side = {c.id: c.side for c in combatants}
        self.agent_index = {c.id: int(c.index) for c in combatants}
        self._n = int(self.spec_msg.action_space_size)
        self._action_space: spaces.Space[Any] = spaces.Discrete(self._n)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._action_space)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self.codec.space)
        self.state_msg: pb.EpisodeState | None = None
        self._obs: dict[str, dict[str, Any]] = {}
        self._np_random: np.random.Generator | None = None
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, AECInfo] = {}
        # Steps whose list a reaction interrupted: decision id -> [agent, results still due].
        self._open_steps: dict[int, list[Any]] = {}
        # Late results per agent, kept until the agent steps again.
        self._late: dict[str, list[LateResultsInfo]] = {}
        # Each agent's last step: (action results, pending results), until it steps again.
        self._own: dict[str, tuple[list[ActionResultInfo], int]] = {}

    # -- PettingZoo API ----------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        space: spaces.Space[Any] = self.observation_spaces[agent]
        return space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        space: spaces.Space[Any] = self.action_spaces[agent]
        return space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new episode (closing the previous one). The server seed is ``seed``, else
        drawn from a generator seeded by the first ``seed`` given. ``options["reward"]``
        updates the reward dict for this episode; other keys are ignored."""
        reward = self.reward
        if options and options.get("reward") is not None:
            reward = reward_dict(options["reward"], base=self.reward, field='options["reward"]')
        opts = reward_options(reward, self.codec.caps)
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        server_seed = seed if seed is not None else int(self._np_random.integers(0, 2**63))
        self._close_episode()
        extra: dict[str, Any] = dict(self._reset_kwargs)
        if opts is not None:
            extra["reward"] = opts
        st = self.client.reset(
            self.scenario,
            server_seed,
            controlled_sides=self.controlled_sides,
            controlled_ids=self.controlled_ids,
            **extra,
        )
        self.state_msg = st
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._open_steps = {}
        self._late = {a: [] for a in self.agents}
        self._own = {}
        self.infos = {a: self._base_info(a) for a in self.agents}
        self._obs = {a: self.codec.agent_obs(None, st.observation.json) for a in self.agents}
        self.agent_selection = self.agents[0]
        self._absorb(st, acted=None)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self.state_msg
        assert st is not None and not is_over(st)
        if action is None:
            raise ValueError(f"agent {agent} is deciding: None is not an action")
        a = int(action)
        if not 0 <= a < self._n:
            raise ValueError(f"action {a} outside Discrete({self._n})")
        self._cumulative_rewards[agent] = 0.0
        decision_id = int(st.decision.decision_id)
        self.state_msg = self.client.step(st.episode_id, decision_id, action_ids=[a])
        self._late[agent] = []  # seen in its info before this step
        self._own.pop(agent, None)
        self._absorb(self.state_msg, acted=agent, decision_id=decision_id)

    def observe(self, agent: str) -> dict[str, Any]:
        return self._obs[agent]

    def close(self) -> None:
        """Close the episode on the server and the connection (if this env created it)."""
        self._close_episode()
        if self._owns_client:
            self.client.close()

    def render(self) -> None:
        """No rendering (the JSON observation and ``info`` carry everything)."""
        return None

    # -- helpers -----------------------------------------------------------------------------

    @property
    def episode_id(self) -> str | None:
        return self.state_msg.episode_id if self.state_msg is not None else None

    def _base_info(self, agent: str) -> AECInfo:
        info: AECInfo = {
            "side": self.agent_side[agent],
            "combatant_index": self.agent_index[agent],
            "action_mask": np.zeros(self._n, dtype=np.int8),
            "decision_kind": None,
            "reaction": None,
            "late_results": list(self._late.get(agent, ())),
        }
        own = self._own.get(agent)
        if own is not None:
            info["action_results"] = list(own[0])
            info["pending_results"] = own[1]
        return info

    def _route_late_results(self, st: pb.EpisodeState) -> None:
        """File each of ``st.late_results`` under the agent whose step it completes."""
        for lr in late_results(st):
            entry = self._open_steps.get(lr["decision_id"])
            if entry is None:
                continue  # not a step of this env (cannot happen with one env per episode)
            agent = entry[0]
            entry[1] -= len(lr["results"])
            if entry[1] <= 0:
                del self._open_steps[lr["decision_id"]]
            if agent in self._late:
                self._late[agent].append(lr)

    def _absorb(
        self, st: pb.EpisodeState, acted: str | None, decision_id: int | None = None
    ) -> None:
        """Update observations, rewards, infos and the selection from a server response
        (``acted``: the agent whose step of decision ``decision_id`` it answers)."""
        self._clear_rewards()
        for side, r in st.rewards.items():
            for a in self.agents:
                if self.agent_side[a] == side:
                    self.rewards[a] = float(r)
        if acted is not None and decision_id is not None and st.pending_results:
            self._open_steps[decision_id] = [acted, int(st.pending_results)]
        self._route_late_results(st)
        if acted is not None:
            self._own[acted] = (action_results(st), int(st.pending_results))
        for a in self.agents:
            # A new dict: observations handed out earlier are never mutated.
            self._obs[a] = self.codec.not_deciding(self._obs[a])
            self.infos[a] = self._base_info(a)
        if is_over(st):
            finals = {f.combatant_id: f for f in st.final_agents}
            end = outcome(st)
            for a in self.agents:
                f = finals.get(a)
                tensors = f.tensors if f is not None and f.HasField("tensors") else None
                self._obs[a] = self.codec.agent_obs(tensors, st.observation.json)
                self.infos[a]["outcome"] = end
                if st.truncated:
                    self.truncations[a] = True
                else:
                    self.terminations[a] = True
            self.agent_selection = self.agents[0]
        else:
            actor = st.decision.actor_id
            if actor not in self.agent_side:
                raise RuntimeError(f"the server asks {actor!r}, who is not an agent")
            mask = self.codec.mask(st)
            self._obs[actor] = self.codec.obs(st, mask)
            self.infos[actor].update(
                {
                    "action_mask": mask.copy(),
                    "legal_actions": [(la.id, la.label) for la in st.legal_actions],
                    "decision_id": int(st.decision.decision_id),
                    "round": int(st.decision.round),
                    "decision_kind": decision_kind_name(st.decision.kind),
                    "reaction": reaction_info(st.decision, self.spec_msg),
                }
            )
            self.agent_selection = actor
        self._accumulate_rewards()

    def _close_episode(self) -> None:
        if self.state_msg is None:
            return
        episode_id = self.state_msg.episode_id
        self.state_msg = None
        try:
            self.client.close_episode(episode_id)
        except Exception:  # best effort: it may have expired
            pass
