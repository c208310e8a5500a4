"""The shapes of the envs' info dicts, as ``TypedDict``s (for type checkers and readers; at run
time they are plain dicts).

- :class:`StepInfo`: ``info`` of :class:`~pf1e_gym.env.Pf1eEnv` (``reset`` and ``step``);
- :class:`AECInfo`: ``infos[agent]`` of :class:`~pf1e_gym.aec.Pf1eAECEnv`;
- :class:`AgentInfo`: ``infos[agent]`` of :class:`~pf1e_gym.parallel.Pf1eParallelEnv`;
- :class:`VectorInfo`: ``infos`` of :class:`~pf1e_gym.vector.Pf1eVectorEnv` (arrays of
  ``num_envs`` rows, each key with its ``_key`` mask, Gymnasium's convention);
- :data:`SB3Info`: one slot's ``infos[i]`` of :class:`~pf1e_gym.sb3.Pf1eSB3VecEnv` at the
  end of an episode;

and their parts: :class:`ActionResultInfo`, :class:`LateResultsInfo`, :class:`OutcomeInfo`,
:class:`ReactionInfo`, :class:`EpisodeStatsInfo`. The classes whose keys are not always
present are split in a base (always there) and a ``total=False`` subclass.
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb

__all__ = [
    "AECInfo",
    "ActionResultInfo",
    "AgentInfo",
    "EpisodeStatsInfo",
    "LateResultsInfo",
    "OutcomeInfo",
    "ReactionInfo",
    "SB3Info",
    "StepInfo",
    "VectorInfo",
]


class ActionResultInfo(TypedDict):
    """The result of one applied action (``EpisodeState.results[i]``)."""

    #: The action kind's name (``attack``, ``move``, ``end_turn``…).
    kind: str
    #: Whether it was applied (``False``: rejected, the episode unchanged).
    ok: bool
    #: The ``ResultCode`` name (``ok``, ``unreachable_destination``…).
    code: str
    #: Why, in words.
    reason: str
    #: The field of the action at fault (empty when none).
    field: str


class LateResultsInfo(TypedDict):
    """The rest of the results of an earlier step whose action list another combatant's
    reaction interrupted (``EpisodeState.late_results[i]``)."""

    #: The decision id of that step.
    decision_id: int
    #: The index in its list of the first of these results.
    first_index: int
    results: list[ActionResultInfo]


class OutcomeInfo(TypedDict):
    """The end of an episode."""

    #: The winning side, ``None`` for a draw (or the round cap).
    winner: str | None
    #: Combat rounds played.
    rounds: int
    #: Ended by the round cap.
    truncated: bool


class _ReactionBase(TypedDict):
    #: ``attack_of_opportunity``, ``readied_trigger`` or ``step_up``.
    kind: str
    #: The combatant whose action caused the reaction (index, id).
    provoker_index: int
    provoker_id: str


class ReactionInfo(_ReactionBase, total=False):
    """The offer of a reaction decision (``info["reaction"]``); the keys by kind:

    - ``attack_of_opportunity``: ``provocation``, ``weapons`` (indices into the reactor's
      attacks), with the spec ``take_ids`` (one action id per offered weapon), ``decline_id``;
    - ``readied_trigger``: ``trigger`` (the event's name), ``readied`` (the readied action),
      with the spec ``fire_id``, ``decline_id``;
    - ``step_up``: ``squares`` (``(row, col)``), with the spec ``decline_id``.
    """

    provocation: str
    weapons: list[int]
    take_ids: list[int]
    decline_id: int | None
    trigger: str
    readied: pb.Action
    fire_id: int | None
    squares: list[tuple[int, int]]


class _StepInfoBase(TypedDict):
    #: 1 = legal now (``int8``, ``(n,)``); zeros at the end.
    action_mask: np.ndarray
    #: ``(id, label)`` of each legal action, by id (empty with ``legal_actions=False``).
    legal_actions: list[tuple[int, str]]
    #: The results of the step just applied.
    action_results: list[ActionResultInfo]
    #: The deciding combatant (id, index), ``None`` at the end.
    actor: str | None
    actor_index: int | None
    decision_id: int | None
    #: The combat round.
    round: int
    #: ``turn_action``, a reaction's kind, ``None`` at the end.
    decision_kind: str | None
    reaction: ReactionInfo | None
    pending_results: int
    late_results: list[LateResultsInfo]
    outcome: OutcomeInfo | None
    #: The server's reward of each side for this step.
    rewards: dict[str, float]


class StepInfo(_StepInfoBase, total=False):
    """``info`` of :class:`~pf1e_gym.env.Pf1eEnv` (see its module docs)."""

    #: The JSON observation too (tensor mode with ``json_in_info``).
    json: str


class _AECInfoBase(TypedDict):
    side: str
    combatant_index: int
    #: The agent's mask: zeros unless it is deciding now.
    action_mask: np.ndarray
    decision_kind: str | None
    reaction: ReactionInfo | None
    late_results: list[LateResultsInfo]


class AECInfo(_AECInfoBase, total=False):
    """``infos[agent]`` of :class:`~pf1e_gym.aec.Pf1eAECEnv`: the decision keys while it
    decides, its own last step's results once it stepped, the outcome at the end."""

    legal_actions: list[tuple[int, str]]
    decision_id: int
    round: int
    action_results: list[ActionResultInfo]
    pending_results: int
    outcome: OutcomeInfo | None


class _AgentInfoBase(TypedDict):
    side: str
    combatant_index: int
    #: The episode ``k`` of the agent (``f"{id}/{k}"``).
    episode: int
    #: Whether its decision is pending (it must act at the next step).
    acting: bool
    action_mask: np.ndarray
    decision_kind: str | None
    reaction: ReactionInfo | None
    decision_id: int | None
    round: int | None


class AgentInfo(_AgentInfoBase, total=False):
    """``infos[agent]`` of :class:`~pf1e_gym.parallel.Pf1eParallelEnv`."""

    #: The results of its own action at this step (only when it acted).
    action_results: list[ActionResultInfo]
    #: At the end of its episode.
    outcome: OutcomeInfo | None


class _VectorInfoBase(TypedDict):
    action_mask: np.ndarray
    _action_mask: np.ndarray
    actor_index: np.ndarray
    _actor_index: np.ndarray
    round: np.ndarray
    _round: np.ndarray
    decision_id: np.ndarray
    _decision_id: np.ndarray
    decision_kind: np.ndarray
    _decision_kind: np.ndarray
    reaction: np.ndarray
    _reaction: np.ndarray
    result_ok: np.ndarray
    _result_ok: np.ndarray
    result_code: np.ndarray
    _result_code: np.ndarray
    winner: np.ndarray
    _winner: np.ndarray
    reset_retries: np.ndarray
    _reset_retries: np.ndarray


class VectorInfo(_VectorInfoBase, total=False):
    """``infos`` of :class:`~pf1e_gym.vector.Pf1eVectorEnv`: ``num_envs`` rows per key (see
    its module docs); SAME_STEP adds the final observation and infos of the slots that
    ended."""

    final_obs: np.ndarray
    _final_obs: np.ndarray
    final_info: dict[str, Any]
    _final_info: np.ndarray


class EpisodeStatsInfo(TypedDict):
    """SB3's ``Monitor`` episode record."""

    #: Return (sum of rewards).
    r: float
    #: Length in decisions.
    l: int  # noqa: E741 (SB3's key)
    #: Seconds since the env was made.
    t: float


SB3Info = TypedDict(
    "SB3Info",
    {
        "terminal_observation": Any,
        "episode": EpisodeStatsInfo,
        "winner": "str | None",
        "TimeLimit.truncated": bool,
    },
    total=False,
)
"""One slot's ``infos[i]`` of :class:`~pf1e_gym.sb3.Pf1eSB3VecEnv` (empty but at the end of an
episode)."""
