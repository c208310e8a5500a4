"""``Pf1eEnv``: a Gymnasium environment over a pf1e-env-server episode.

One agent plays every externally controlled combatant (all on one side, e.g. the goblins of
side ``players``), one decision at a time: each :meth:`Pf1eEnv.step` is one action of the
combatant named by ``info["actor"]``. Everyone else is played by the server's default policy.

Decisions are of two kinds (``info["decision_kind"]``): ``"turn_action"``, the actor's own
turn, and ``"attack_of_opportunity"``, a **reaction**: an enemy provoked an attack of
opportunity from one of the agent's combatants (by leaving a square it threatens, standing up,
shooting, a maneuver…) and the server waits for that combatant's answer before the provoking
action goes on — even in the middle of another combatant's turn. It is simply the next
observation: ``info["actor"]`` is the reacting combatant, the observation is its view, and
the mask holds only the answers (the ``attack_of_opportunity`` id of each offered weapon and
``decline``, the id of its block; ``end_turn`` is not legal). ``info["reaction"]`` is the
offer (``provoker_index``, ``provoker_id``, ``provocation``, ``weapons``, and the answering
ids ``take_ids`` / ``decline_id``), ``None`` at a turn decision. Declining spends nothing; a
declined "leaving" opportunity is offered again at the next threatened square the mover leaves
that round.

Observation (a ``Dict``, see :mod:`pf1e_gym._codec`):

- ``planes`` / ``features``: ``float32`` tensors whose shapes come from ``GetSpec`` (when the
  server sends tensor observations; ``observation="tensor"``), or ``json``: the engine's full
  observation snapshot as JSON with the seed's key names (``observation="json"``), or
  ``text``: the decision rendered for a language model (``observation="text"``, in the
  language ``lang``: ``"en"`` or ``"fr"``; the map with a legend, a status line per
  combatant, the budget, the last results and the numbered legal actions — a server with
  ``Capabilities.text_observation``). The mask stays next to it, as in the other modes;
- ``action_mask``: ``MultiBinary(n)`` (``int8``), 1 = legal now. ``"auto"`` (the default) picks
  tensors when the server offers them;
- with ``reaction_obs=True``: ``decision_kind`` (``Discrete(4)``: 0 turn action, 1 attack of
  opportunity, 2 readied trigger, 3 Step Up) and ``provoker`` (``Discrete(combatants + 1)``, the
  index of the combatant whose action caused the reaction, else ``combatants``). Off by
  default: the kind is already in the mask (a reaction mask has only reaction ids), but the
  tensors do not say *who* provoked — a learning agent that should judge the provoker wants
  this key.

Info (after ``reset`` and each ``step``):

- ``action_mask``: the same ``numpy.int8`` array as in the observation;
- ``legal_actions``: list of ``(id, label)``, sorted by id;
- ``action_results``: list of dicts ``{kind, ok, [code,] reason, field}`` of the step just
  applied (``code``: the ``ResultCode`` name, e.g. ``ok``, ``unreachable_destination``);
- ``actor`` (id of the deciding combatant, ``None`` at the end), ``actor_index``,
  ``decision_id``, ``round`` (the server's episode id is ``env.episode_id``);
- ``decision_kind`` (``"turn_action"``, ``"attack_of_opportunity"``, ``None`` at the end) and
  ``reaction`` (the offer, see above, or ``None``);
- ``pending_results`` and ``late_results``: the server's ``EpisodeState`` fields for action
  lists that a reaction interrupted. This env submits one action per step, and the interrupted
  action itself always has its result, so they are always ``0`` and ``[]`` here (they matter to
  :class:`~pf1e_gym.client.Pf1eClient` users who step lists);
- ``outcome``: ``None``, or at the end ``{"winner": side or None, "rounds", "truncated"}``.

Reward: the server's for the controlled side: +1 if it wins, -1 if it loses, 0 otherwise, at
the last step; with ``reward={"shaped": True}`` (or ``shaped_reward=True``) plus the
damage/kill potential difference since the side's previous decision, and with
``"round_discount": g`` every term discounted by the rounds elapsed, not the decisions taken
(formulas in the proto's ``RewardOptions``; ``reset(options={"reward": {...}})`` changes them
for one episode); ``info["rewards"]`` has
the server's per-side map. ``terminated`` (a side won or nobody can fight) and ``truncated``
(round cap) are the server's. There is no autoreset: after the end, ``step`` raises until ``reset``.
An illegal action id (in the space but not legal now) is not an error: the server rejects it
without changing the episode and reports why in ``info["action_results"]`` (``ok=False``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from pf1e_gym._codec import ObsCodec, is_over, reward_dict, reward_options, side_reward
from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import Pf1eClient
from pf1e_gym.infos import StepInfo
from pf1e_gym.server import open_client


def episode_reward(base: dict[str, Any], options: dict[str, Any] | None) -> dict[str, Any]:
    """The reward settings of an episode: ``base`` updated by ``options["reward"]``.

    Raises:
        ValueError: ``options`` has a key other than ``"reward"`` (named), or the reward dict
            a bad key or value (see :func:`pf1e_gym._codec.reward_dict`).
    """
    if not options:
        return base
    unknown = sorted(set(options) - {"reward"})
    if unknown:
        raise ValueError(f"options: unknown key {unknown[0]!r} (the only key is 'reward')")
    return reward_dict(options.get("reward"), base=base, field='options["reward"]')


class Pf1eEnv(gym.Env[dict[str, Any], int]):
    """A pf1e-gym episode as a Gymnasium env with a masked ``Discrete`` action space.

    Args:
        address: ``host:port`` of the server; ``None``: ``$PF1E_ADDRESS``, else a local server
            (one on 127.0.0.1:50051, else one started here and shared: :mod:`pf1e_gym.server`).
        scenario: bundled scenario name, or a ``pb.Scenario`` (see ``inline_scenario``).
        controlled_sides: sides whose combatants the agent plays.
        controlled_ids: further combatants (by id) the agent plays. All controlled combatants
            must be on one side for the reward to be meaningful (else it is always 0).
        observation: ``"auto"``, ``"tensor"``, ``"json"`` or ``"text"`` (see the module docs).
        lang: the language of the ``"text"`` observation, ``"en"`` (default) or ``"fr"``.
        reward: the reward options, a dict with any of the keys ``"shaped"`` (bool: add the
            damage and kill terms to the sparse reward; see ``RewardOptions`` in the proto),
            ``"damage_weight"`` and ``"kill_weight"`` (override the defaults 1.0 and 0.1) and
            ``"round_discount"`` (g in (0, 1]: discount per combat round, so that padding a
            turn with actions that change nothing earns nothing; train with gamma = 1).
            ``reset(options={"reward": {...}})`` overrides these keys for that episode.
        shaped_reward, damage_weight, kill_weight: the older keywords of the same settings
            (``reward`` entries win where both are given).
        legal_actions: fill ``info["legal_actions"]`` (costs the server some time; the mask
            is always there).
        reaction_obs: add the ``decision_kind`` and ``provoker`` observation keys.
        client: an existing :class:`Pf1eClient` (then ``address`` is ignored and the client
            is not closed by :meth:`close`).
        timeout: deadline of each call, in seconds.

    Raises:
        grpc.RpcError: the server rejected the scenario (e.g. NOT_FOUND for an unknown name).
        ValueError: ``observation="tensor"`` and the server sends no tensors;
            ``observation="text"`` and it renders no text, or ``lang`` is not offered; a
            ``reward`` key that is not one of ``pf1e_gym._codec.REWARD_KEYS``.
    """

    metadata = {"render_modes": []}  # noqa: RUF012 (gymnasium's convention)

    def __init__(
        self,
        address: str | None = None,
        scenario: str | pb.Scenario = "sample_arena",
        controlled_sides: Sequence[str] = ("players",),
        controlled_ids: Sequence[str] = (),
        *,
        observation: str = "auto",
        lang: str = "en",
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
        self.controlled_sides = list(controlled_sides)
        self.controlled_ids = list(controlled_ids)
        self.spec_msg: pb.Spec = self.client.get_spec(scenario)
        self.text_mode = observation == "text"
        self.codec = ObsCodec(
            self.spec_msg,
            "json" if self.text_mode else observation,
            legal_actions=legal_actions,
            reaction_obs=reaction_obs,
        )
        self._reset_kwargs = self.codec.reset_kwargs()
        if self.text_mode:
            caps = self.spec_msg.capabilities
            if not caps.text_observation:
                raise ValueError("the server renders no text observations (use mode='json')")
            if lang not in caps.text_languages:
                raise ValueError(f"lang: {lang!r} is not one of {list(caps.text_languages)}")
            self._reset_kwargs["observation"] = pb.ObservationOptions(
                json=False, legal_actions=legal_actions, typed=True, text=True, lang=lang
            )
        #: The reward settings of every episode (a dict of ``REWARD_KEYS``; empty: sparse).
        self.reward = reward_dict(
            reward,
            shaped_reward=shaped_reward,
            damage_weight=damage_weight,
            kill_weight=kill_weight,
        )
        self._n = int(self.spec_msg.action_space_size)
        self.action_space = gym.spaces.Discrete(self._n)
        self.observation_space = self.codec.space
        if self.text_mode:
            space = dict(self.codec.space.spaces)
            space["text"] = space.pop("json")
            self.observation_space = gym.spaces.Dict(space)
        self.state: pb.EpisodeState | None = None
        self._mask = np.zeros(self._n, dtype=np.int8)

    # -- Gymnasium API ---------------------------------------------------------------------

    def reset(  # type: ignore[override]  # the info: see step
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], StepInfo]:
        """Start a new episode (closing the previous one on the server).

        The server's seed is ``seed`` when given, else drawn from ``self.np_random`` (itself
        seeded by the first ``seed``). ``options``: ``{"reward": {...}}`` overrides keys of the
        constructor's ``reward`` settings for this episode only (same keys; ``None`` as a
        value restores the server default of that key).
        If the controlled side never gets a decision, the returned info already has an
        ``outcome`` and the next ``step`` raises.

        Raises:
            ValueError: an ``options`` key other than ``"reward"``, or a bad reward key/value.
        """
        reward = episode_reward(self.reward, options)
        super().reset(seed=seed, options=options)
        self._close_episode()
        server_seed = seed if seed is not None else int(self.np_random.integers(0, 2**63))
        extra: dict[str, Any] = dict(self._reset_kwargs)
        opts = reward_options(reward)
        if opts is not None:
            extra["reward"] = opts
        self.state = self.client.reset(
            self.scenario,
            server_seed,
            controlled_sides=self.controlled_sides,
            controlled_ids=self.controlled_ids,
            **extra,
        )
        return self._obs_info()

    # The info is a StepInfo (a TypedDict: a dict at run time, narrower than Gymnasium's
    # dict[str, Any] for a type checker).
    def step(  # type: ignore[override]
        self, action: int
    ) -> tuple[dict[str, Any], float, bool, bool, StepInfo]:
        """Apply action id ``action`` for the current decision.

        Raises:
            RuntimeError: no episode, or the episode is over (call ``reset``).
            ValueError: ``action`` is outside the action space.
            grpc.RpcError: the server refused the step.
        """
        st = self.state
        if st is None:
            raise RuntimeError("call reset() before step()")
        if is_over(st):
            raise RuntimeError("the episode is over: call reset()")
        a = int(action)
        if not 0 <= a < self._n:
            raise ValueError(f"action {a} outside Discrete({self._n})")
        self.state = self.client.step(st.episode_id, st.decision.decision_id, action_ids=[a])
        s = self.state
        obs, info = self._obs_info()
        return obs, side_reward(s), bool(s.terminated), bool(s.truncated), info

    def close(self) -> None:
        """Close the episode on the server and the connection (if this env created it)."""
        self._close_episode()
        if self._owns_client:
            self.client.close()
        super().close()  # type: ignore[no-untyped-call]  # gymnasium's Env.close is untyped

    # -- helpers -----------------------------------------------------------------------------

    @property
    def episode_id(self) -> str | None:
        """The server's id of the current episode (``None`` before ``reset``)."""
        return self.state.episode_id if self.state is not None else None

    def action_masks(self) -> np.ndarray:
        """The current action mask (``numpy.int8``, 1 = legal); all zeros when over.

        (The method name is the one sb3-contrib's ``MaskablePPO`` looks for.)"""
        mask: np.ndarray = self._mask.copy()
        return mask

    def _obs_info(self) -> tuple[dict[str, Any], StepInfo]:
        s = self.state
        assert s is not None
        self._mask = self.codec.mask(s)
        obs = self.codec.obs(s, self._mask)
        if self.text_mode:
            obs.pop("json")
            obs["text"] = s.observation.text
            obs = dict(sorted(obs.items()))  # the space's (sorted) key order
        return obs, self.codec.info(s, self._mask.copy())

    def _close_episode(self) -> None:
        if self.state is None:
            return
        episode_id = self.state.episode_id
        self.state = None
        try:
            self.client.close_episode(episode_id)
        except Exception:  # best effort: it may have expired
            pass
