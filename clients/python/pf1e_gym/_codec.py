"""Conversion of server messages (``EpisodeState``) to Gymnasium observations and infos.

Shared by :class:`~pf1e_gym.env.Pf1eEnv`, :class:`~pf1e_gym.vector.Pf1eVectorEnv` and
:class:`~pf1e_gym.aec.Pf1eAECEnv`, so the three agree on spaces and values.

The observation is a ``Dict``:

- ``planes`` (``float32`` ``Box`` of shape ``[planes, rows, cols]``) and ``features``
  (``float32`` ``Box`` of shape ``[combatants, features]``): the tensor observation, when the
  server sends one (``mode="tensor"``); their bounds are the schema's exact ones
  (``feature_low/high`` per feature, ``plane_low/high`` per plane, broadcast over the rows /
  squares) with ``capabilities.feature_bounds``, else ``±1e6`` (:func:`tensor_bounds`);
- ``json`` (:class:`JsonText`, a ``Text`` with a short ``repr``): the engine's full
  observation snapshot as JSON (``mode="json"``);
- ``action_mask`` (``MultiBinary(n)``, ``int8``, 1 = legal): always;
- with ``reaction_obs=True`` only: ``decision_kind`` (``Discrete(2)``: 0 = a turn action,
  1 = an attack of opportunity offered to the deciding combatant) and ``provoker``
  (``Discrete(combatants + 1)``: the provoker's index at a reaction, ``combatants`` otherwise).

Decisions come in two kinds (``Decision.kind``): the deciding combatant's **turn** (its
actions; ``end_turn`` always legal), or a **reaction**: an attack of opportunity it may take
against a provoker while another combatant acts (only the ``attack_of_opportunity`` ids of the
offered weapons and ``decline`` are legal). ``info["decision_kind"]`` names it and
``info["reaction"]`` holds the offer (:func:`reaction_info`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium import spaces

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import action_block
from pf1e_gym.infos import (
    ActionResultInfo,
    LateResultsInfo,
    OutcomeInfo,
    ReactionInfo,
    StepInfo,
)

# Characters the JSON observation may contain: the Basic Multilingual Plane without controls
# and surrogates (serde_json escapes control characters; non-BMP characters are not expected).
_JSON_CHARSET = frozenset(
    ["\t", "\n", "\r"]
    + [chr(c) for c in range(0x20, 0xD800)]
    + [chr(c) for c in range(0xE000, 0xFFFE)]
)
MAX_JSON_CHARS = 1 << 24


class JsonText(spaces.Text):
    """The ``Text`` space of the JSON observation, with a short ``repr``.

    Its charset (:data:`_JSON_CHARSET`, about 63,000 characters) is the one of
    ``gymnasium.spaces.Text``; only the printout is shortened (the default ``repr`` lists every
    character)."""

    def __repr__(self) -> str:
        return (
            f"JsonText(min_length={self.min_length}, max_length={self.max_length}, "
            f"charset=<{len(self.character_set)} characters: the BMP without controls>)"
        )


class BoundsBox(spaces.Box):
    """A ``Box`` with per-element bounds (the schema's exact ones) and a short ``repr``.

    Only the printout differs from ``gymnasium.spaces.Box``: the default ``repr`` lists every
    bound when they are not all equal (8,000 characters for the sample arena's features).
    It gives the ranges of the bounds instead, ``BoundsBox(low in [-1.0, 0.0], high in [1.0,
    4.0], (5, 155), float32)``; ``.low`` / ``.high`` hold them all."""

    def __repr__(self) -> str:
        lo, hi = self.low, self.high
        if lo.size == 0 or (np.all(lo == lo.flat[0]) and np.all(hi == hi.flat[0])):
            return super().__repr__()
        return (
            f"BoundsBox(low in [{lo.min():.6g}, {lo.max():.6g}], high in [{hi.min():.6g}, "
            f"{hi.max():.6g}], "
            f"{self.shape}, {self.dtype})"
        )


# Fallback bounds of the tensor values, for a server without ``capabilities.feature_bounds``
# (it publishes no exact bounds): the engine documents "roughly in [0, 1]"; hp fractions go
# down to -1 and a few counters (hp/100, attacks of opportunity left) can exceed 1.
TENSOR_LOW = -1e6
TENSOR_HIGH = 1e6

#: The keys of a reward options dict (``reward=`` of the env constructors and
#: ``reset(options={"reward": ...})``), fields of ``pb.RewardOptions``.
REWARD_KEYS = ("shaped", "damage_weight", "kill_weight", "round_discount")


def reward_dict(
    reward: dict[str, Any] | None = None,
    *,
    shaped_reward: bool = False,
    damage_weight: float | None = None,
    kill_weight: float | None = None,
    base: dict[str, Any] | None = None,
    field: str = "reward",
) -> dict[str, Any]:
    """Merge reward settings into one dict of :data:`REWARD_KEYS` (absent = server default).

    ``base`` first (e.g. the constructor's settings), then the old keywords (``shaped_reward``,
    ``damage_weight``, ``kill_weight``) where set, then ``reward`` (a dict; its entries win).

    Raises:
        ValueError: ``reward`` is not a dict, has a key outside :data:`REWARD_KEYS` (the
            message names ``field`` and the key), or a value of the wrong type.
    """
    out = dict(base or {})
    if shaped_reward:
        out["shaped"] = True
    if damage_weight is not None:
        out["damage_weight"] = damage_weight
    if kill_weight is not None:
        out["kill_weight"] = kill_weight
    if reward is None:
        return out
    if not isinstance(reward, dict):
        raise ValueError(f"{field}: a dict with keys {REWARD_KEYS}, not {type(reward).__name__}")
    for key, value in reward.items():
        if key not in REWARD_KEYS:
            raise ValueError(
                f"{field}: unknown key {key!r} (the keys are {', '.join(REWARD_KEYS)})"
            )
        if key == "shaped":
            if not isinstance(value, bool | np.bool_):
                raise ValueError(f"{field}.shaped: a bool, not {value!r}")
            out[key] = bool(value)
        elif value is None:
            out.pop(key, None)
        elif isinstance(value, bool) or not isinstance(value, int | float | np.number):
            raise ValueError(f"{field}.{key}: a number, not {value!r}")
        else:
            v = float(value)
            # The server's rules (RewardOptions), checked here too so that every env raises
            # the same ValueError before anything is sent.
            if key == "round_discount" and not (math.isfinite(v) and 0.0 < v <= 1.0):
                raise ValueError(f"{field}.round_discount: in (0, 1], not {value!r}")
            if key != "round_discount" and not (math.isfinite(v) and abs(v) <= 1000.0):
                raise ValueError(f"{field}.{key}: finite, at most 1000 in size, not {value!r}")
            out[key] = v
    return out


def reward_options(
    settings: dict[str, Any], caps: dict[str, Any] | None = None
) -> pb.RewardOptions | None:
    """``pb.RewardOptions`` of a :func:`reward_dict` (``None`` when empty: the server's default,
    the sparse reward). The server validates the values too (INVALID_ARGUMENT naming
    ``reward.<field>``).

    Raises:
        ValueError: ``round_discount`` is set and ``caps`` (the server's capabilities, when
            given) says the server does not apply it.
    """
    if not settings:
        return None
    if "round_discount" in settings and caps is not None and not caps.get("round_discount"):
        raise ValueError(
            "reward.round_discount: this server does not apply a round discount "
            "(Capabilities.round_discount is false)"
        )
    return pb.RewardOptions(**settings)


def tensor_bounds(
    spec: pb.Spec, plane_shape: tuple[int, ...], feature_shape: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]:
    """``(plane_low, plane_high, feature_low, feature_high, exact)``: ``float32`` arrays of
    the tensors' shapes. With ``capabilities.feature_bounds`` (and one bound per plane and per
    feature) the schema's exact bounds broadcast over the map squares / combatant rows
    (``exact=True``); else the wide :data:`TENSOR_LOW` / :data:`TENSOR_HIGH`."""
    schema = spec.observation_schema
    n_planes, n_features = plane_shape[0], feature_shape[-1]
    if (
        capabilities(spec)["feature_bounds"]
        and len(schema.feature_low) == n_features
        and len(schema.feature_high) == n_features
        and len(schema.plane_low) == n_planes
        and len(schema.plane_high) == n_planes
    ):
        pl = np.asarray(schema.plane_low, np.float32).reshape(-1, 1, 1)
        ph = np.asarray(schema.plane_high, np.float32).reshape(-1, 1, 1)
        fl = np.asarray(schema.feature_low, np.float32)
        fh = np.asarray(schema.feature_high, np.float32)
        return (
            np.broadcast_to(pl, plane_shape).copy(),
            np.broadcast_to(ph, plane_shape).copy(),
            np.broadcast_to(fl, feature_shape).copy(),
            np.broadcast_to(fh, feature_shape).copy(),
            True,
        )
    return (
        np.full(plane_shape, TENSOR_LOW, np.float32),
        np.full(plane_shape, TENSOR_HIGH, np.float32),
        np.full(feature_shape, TENSOR_LOW, np.float32),
        np.full(feature_shape, TENSOR_HIGH, np.float32),
        False,
    )


MODES = ("auto", "tensor", "json")


def capabilities(spec: pb.Spec) -> dict[str, bool]:
    """The server's capability flags (all ``False`` for a server that predates them)."""
    names = [f.name for f in pb.Capabilities.DESCRIPTOR.fields]
    if not spec.HasField("capabilities"):
        return dict.fromkeys(names, False)
    return {n: bool(getattr(spec.capabilities, n)) for n in names}


def tensor_shapes(spec: pb.Spec) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """``(plane_shape, feature_shape)`` from the spec, or ``None`` if the server has none."""
    if not capabilities(spec)["tensor_observation"]:
        return None
    schema = spec.observation_schema
    planes = tuple(int(x) for x in schema.plane_shape)
    features = tuple(int(x) for x in schema.feature_shape)
    if len(planes) != 3 or len(features) != 2:
        return None
    return planes, features


def kind_name(kind: int) -> str:
    """``ACTION_KIND_FULL_ATTACK`` → ``full_attack``."""
    name = pb.ActionKind.Name(kind) if kind in pb.ActionKind.values() else str(kind)
    return name.removeprefix("ACTION_KIND_").lower()


_RESULT_CODES = {
    v.number: v.name.removeprefix("RESULT_CODE_").lower() for v in pb.ResultCode.DESCRIPTOR.values
}


def result_code_name(code: int) -> str:
    """``RESULT_CODE_OK`` → ``ok`` (``unspecified`` from a server without codes)."""
    return _RESULT_CODES.get(code, str(code))


def _result_dict(r: pb.ActionResult) -> ActionResultInfo:
    return {
        "kind": kind_name(r.kind),
        "ok": r.ok,
        "code": result_code_name(r.code),
        "reason": r.reason,
        "field": r.field,
    }


def action_results(state: pb.EpisodeState) -> list[ActionResultInfo]:
    """The results of the step just applied, as plain dicts."""
    return [_result_dict(r) for r in state.results]


def late_results(state: pb.EpisodeState) -> list[LateResultsInfo]:
    """``EpisodeState.late_results`` as plain dicts: the rest of the results of earlier steps
    whose action list another combatant's reaction had interrupted, ``{"decision_id"`` (of that
    step), ``"first_index"`` (in its list), ``"results"`` (dicts as :func:`action_results`)``}``.
    """
    return [
        {
            "decision_id": int(lr.decision_id),
            "first_index": int(lr.first_index),
            "results": [_result_dict(r) for r in lr.results],
        }
        for lr in state.late_results
    ]


# Decision kinds: names (``Decision.kind``) and the values of the ``decision_kind`` observation.
TURN_ACTION = "turn_action"
ATTACK_OF_OPPORTUNITY = "attack_of_opportunity"
READIED_TRIGGER = "readied_trigger"
STEP_UP = "step_up"
# In ``DecisionKind`` number order (1, 2, 3, 4): the ``decision_kind`` observation is the index.
DECISION_KINDS = (TURN_ACTION, ATTACK_OF_OPPORTUNITY, READIED_TRIGGER, STEP_UP)

_KIND_BY_NUMBER: dict[int, str] = {
    pb.DECISION_KIND_ATTACK_OF_OPPORTUNITY: ATTACK_OF_OPPORTUNITY,
    pb.DECISION_KIND_READIED_TRIGGER: READIED_TRIGGER,
    pb.DECISION_KIND_STEP_UP: STEP_UP,
}


def decision_kind_name(kind: int) -> str:
    """``DECISION_KIND_ATTACK_OF_OPPORTUNITY`` (2) → ``attack_of_opportunity``,
    ``DECISION_KIND_READIED_TRIGGER`` (3) → ``readied_trigger``, ``DECISION_KIND_STEP_UP`` (4)
    → ``step_up``. A server that predates decision kinds sends 0 (unspecified): it only ever
    asks for turn actions."""
    if kind in _KIND_BY_NUMBER:
        return _KIND_BY_NUMBER[kind]
    if kind in (pb.DECISION_KIND_TURN_ACTION, pb.DECISION_KIND_UNSPECIFIED):
        return TURN_ACTION
    return str(kind)


def _cell(c: pb.Cell) -> tuple[int, int]:
    return (int(c.row), int(c.col))


def reaction_info(d: pb.Decision, spec: pb.Spec | None = None) -> ReactionInfo | None:
    """The offer of a reaction decision as a plain dict (``None`` at a turn decision).

    Every offer has ``kind`` and ``provoker_index`` / ``provoker_id``: the combatant whose
    action caused it (the provoker of an attack of opportunity, the creature that triggered a
    readied action, the foe whose 5-foot step offers Step Up), and with ``spec`` the
    ``decline_id``. By kind:

    - ``attack_of_opportunity``: ``provocation`` (``leaving``, ``ranged_attack``,
      ``stand_up``, ``maneuver``, ``pick_up``, ``entering``, ``cast_spell``…), ``weapons``
      (the offered weapon indices) and with ``spec`` ``take_ids`` (one per offered weapon,
      same order); where the reactor has Stand Still and the provoker leaves a square
      adjacent to it, the ``stand_still`` block's id is legal too (CRB — Feats: Stand Still);
    - ``readied_trigger``: ``trigger`` (its event name), ``readied`` (the readied
      ``pb.Action`` as it would resolve now) and with ``spec`` ``fire_id``;
    - ``step_up``: ``squares`` (``(row, col)`` the actor may step to) — answered with a
      ``5foot_step`` action to one of them (its id is the 5-foot step id of that direction).
    """
    decline_id = None
    if spec is not None:
        decline = action_block(spec, "decline")
        decline_id = decline[0] if len(decline) else None
    if d.kind == pb.DECISION_KIND_READIED_TRIGGER:
        r = d.readied_trigger
        info: ReactionInfo = {
            "kind": READIED_TRIGGER,
            "provoker_index": int(r.trigger_by_index),
            "provoker_id": r.trigger_by_id,
            "trigger": pb.ReadyTriggerEvent.Name(r.trigger.event)
            .removeprefix("READY_TRIGGER_EVENT_")
            .lower(),
            "readied": r.readied,
        }
        if spec is not None:
            fire = action_block(spec, "fire_readied")
            info["fire_id"] = fire[0] if len(fire) else None
            info["decline_id"] = decline_id
        return info
    if d.kind == pb.DECISION_KIND_STEP_UP:
        step_up = d.step_up
        up: ReactionInfo = {
            "kind": STEP_UP,
            "provoker_index": int(step_up.foe_index),
            "provoker_id": step_up.foe_id,
            "squares": [_cell(c) for c in step_up.squares],
        }
        if spec is not None:
            up["decline_id"] = decline_id
        return up
    if d.kind != pb.DECISION_KIND_ATTACK_OF_OPPORTUNITY:
        return None
    o = d.attack_of_opportunity
    weapons = [int(w) for w in o.weapons]
    offer: ReactionInfo = {
        "kind": ATTACK_OF_OPPORTUNITY,
        "provoker_index": int(o.provoker_index),
        "provoker_id": o.provoker_id,
        "provocation": o.provocation,
        "weapons": weapons,
    }
    if spec is not None:
        aoo = action_block(spec, "attack_of_opportunity")
        decline = action_block(spec, "decline")
        offer["take_ids"] = [aoo[w] for w in weapons if w < len(aoo)]
        offer["decline_id"] = decline[0] if len(decline) else None
    return offer


def is_over(state: pb.EpisodeState) -> bool:
    return bool(state.terminated or state.truncated or not state.HasField("decision"))


def side_reward(state: pb.EpisodeState) -> float:
    """The reward of the controlled side: its entry of the per-side map (newer servers,
    shaped or not), else the sparse ``reward`` field."""
    if state.reward_side and state.reward_side in state.rewards:
        return float(state.rewards[state.reward_side])
    return float(state.reward)


def outcome(state: pb.EpisodeState) -> OutcomeInfo | None:
    if not (state.terminated or state.truncated):
        return None
    return {
        "winner": state.outcome.winner or None,
        "rounds": int(state.outcome.rounds),
        "truncated": bool(state.outcome.truncated),
    }


class ObsCodec:
    """Observation space of an encounter and the conversion of its states.

    Args:
        spec: the scenario's ``Spec``.
        mode: ``"tensor"`` (planes + features), ``"json"``, or ``"auto"`` (tensor when the
            server provides tensors, else JSON).
        reaction_obs: add the ``decision_kind`` and ``provoker`` keys (see the module docs).
    """

    def __init__(
        self,
        spec: pb.Spec,
        mode: str = "auto",
        *,
        legal_actions: bool = True,
        json_in_info: bool = False,
        reaction_obs: bool = False,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"observation mode must be one of {MODES}, not {mode!r}")
        self.n = int(spec.action_space_size)
        shapes = tensor_shapes(spec)
        if mode == "auto":
            mode = "tensor" if shapes is not None else "json"
        if mode == "tensor" and shapes is None:
            raise ValueError("the server sends no tensor observations (use mode='json')")
        self.mode = mode
        self.caps = capabilities(spec)
        self.legal_actions = legal_actions
        self.json_in_info = json_in_info
        self.spec = spec
        self.reaction_obs = reaction_obs
        self.n_combatants = len(spec.combatants)
        d: dict[str, spaces.Space[Any]] = {}
        if mode == "tensor":
            assert shapes is not None
            self.plane_shape, self.feature_shape = shapes
            pl, ph, fl, fh, self.exact_bounds = tensor_bounds(
                spec, self.plane_shape, self.feature_shape
            )
            d["planes"] = BoundsBox(pl, ph, self.plane_shape, np.float32)
            d["features"] = BoundsBox(fl, fh, self.feature_shape, np.float32)
        else:
            self.plane_shape = self.feature_shape = ()
            self.exact_bounds = False
            d["json"] = JsonText(max_length=MAX_JSON_CHARS, min_length=0, charset=_JSON_CHARSET)
        d["action_mask"] = spaces.MultiBinary(self.n)
        if reaction_obs:
            d["decision_kind"] = spaces.Discrete(len(DECISION_KINDS))
            d["provoker"] = spaces.Discrete(self.n_combatants + 1)
        self.space = spaces.Dict(d)

    def observation_options(self) -> pb.ObservationOptions | None:
        """What to ask the server for at Reset (``None``: the server default, JSON)."""
        if self.mode == "json":
            if not self.caps["tensor_observation"]:
                return None  # an older server: the defaults are what we need
            return pb.ObservationOptions(
                json=True, legal_actions=self.legal_actions, typed=True, action_mask=True
            )
        return pb.ObservationOptions(
            json=self.json_in_info, tensors=True, legal_actions=self.legal_actions, typed=False
        )

    def reset_kwargs(self) -> dict[str, Any]:
        """Extra keyword arguments of :meth:`Pf1eClient.reset` for this observation mode."""
        opts = self.observation_options()
        return {} if opts is None else {"observation": opts}

    # -- pieces ------------------------------------------------------------------------------

    def mask(self, state: pb.EpisodeState) -> np.ndarray:
        """The action mask of ``state`` (``int8``, 1 = legal; zeros when the episode is over)."""
        raw = state.action_mask
        if len(raw) == self.n:
            sent: np.ndarray = np.frombuffer(raw, dtype=np.int8).copy()
            return sent
        mask = np.zeros(self.n, dtype=np.int8)
        ids = [la.id for la in state.legal_actions]
        if ids:
            mask[np.asarray(ids, dtype=np.int64)] = 1
        return mask

    def tensors(self, t: pb.TensorObservation) -> tuple[np.ndarray, np.ndarray]:
        """``(planes, features)`` arrays of a ``TensorObservation``."""
        planes = _floats(t.planes, self.plane_shape)
        features = _floats(t.features, self.feature_shape)
        return planes, features

    def reaction_values(self, state: pb.EpisodeState) -> tuple[int, int]:
        """``(decision_kind, provoker)`` observation values of ``state``: at a reaction the
        index of its kind in :data:`DECISION_KINDS` (1 attack of opportunity, 2 readied
        trigger, 3 Step Up) and the index of the combatant whose action caused it; else
        ``(0, combatants)``."""
        if state.HasField("decision"):
            info = reaction_info(state.decision)
            if info is not None:
                return DECISION_KINDS.index(info["kind"]), info["provoker_index"]
        return 0, self.n_combatants

    def _with_reaction(
        self, obs: dict[str, Any], values: tuple[int, int] | None = None
    ) -> dict[str, Any]:
        if self.reaction_obs:
            kind, provoker = values if values is not None else (0, self.n_combatants)
            obs["decision_kind"] = np.int64(kind)
            obs["provoker"] = np.int64(provoker)
            return dict(sorted(obs.items()))  # the space's (sorted) key order
        return obs

    def obs(self, state: pb.EpisodeState, mask: np.ndarray | None = None) -> dict[str, Any]:
        """The observation dict of ``state`` (keys in the space's order)."""
        if mask is None:
            mask = self.mask(state)
        values = self.reaction_values(state) if self.reaction_obs else None
        obs: dict[str, Any]
        if self.mode == "tensor":
            planes, features = self.tensors(state.tensors)
            obs = {"action_mask": mask, "features": features, "planes": planes}
        else:
            obs = {"action_mask": mask, "json": state.observation.json}
        return self._with_reaction(obs, values)

    def agent_obs(self, t: pb.TensorObservation | None, json: str = "") -> dict[str, Any]:
        """An observation with a zero mask (an agent that is not deciding), from tensors."""
        mask = np.zeros(self.n, dtype=np.int8)
        if self.mode == "tensor":
            if t is None:
                return self.zeros()
            planes, features = self.tensors(t)
            return self._with_reaction(
                {"action_mask": mask, "features": features, "planes": planes}
            )
        return self._with_reaction({"action_mask": mask, "json": json})

    def not_deciding(self, obs: dict[str, Any]) -> dict[str, Any]:
        """A copy of ``obs`` as seen by an agent that is not deciding now: zero mask, and (with
        ``reaction_obs``) no reaction."""
        out = {**obs, "action_mask": np.zeros_like(obs["action_mask"])}
        return self._with_reaction(out)

    def zeros(self) -> dict[str, Any]:
        """An all-zero observation (e.g. for an agent that has not observed anything yet)."""
        mask = np.zeros(self.n, dtype=np.int8)
        if self.mode == "tensor":
            return self._with_reaction(
                {
                    "action_mask": mask,
                    "features": np.zeros(self.feature_shape, np.float32),
                    "planes": np.zeros(self.plane_shape, np.float32),
                }
            )
        return self._with_reaction({"action_mask": mask, "json": ""})

    def info(self, state: pb.EpisodeState, mask: np.ndarray) -> StepInfo:
        """The info dict of ``state`` (see the module docs of :mod:`pf1e_gym.env`)."""
        d = state.decision if state.HasField("decision") else None
        if d is not None:
            rnd = int(d.round)
        elif state.terminated or state.truncated:
            rnd = int(state.outcome.rounds)
        else:
            rnd = int(state.observation.round)
        info: StepInfo = {
            "action_mask": mask,
            "legal_actions": [(la.id, la.label) for la in state.legal_actions],
            "action_results": action_results(state),
            "actor": d.actor_id if d is not None else None,
            "actor_index": d.actor_index if d is not None else None,
            "decision_id": d.decision_id if d is not None else None,
            "round": rnd,
            "decision_kind": decision_kind_name(d.kind) if d is not None else None,
            "reaction": reaction_info(d, self.spec) if d is not None else None,
            "pending_results": int(state.pending_results),
            "late_results": late_results(state),
            "outcome": outcome(state),
            "rewards": dict(sorted(state.rewards.items())),
        }
        if self.mode == "tensor" and self.json_in_info:
            info["json"] = state.observation.json
        return info


def _floats(values: Any, shape: tuple[int, ...]) -> np.ndarray:
    """Packed floats (a repeated float field, or little-endian ``f32`` bytes) as an array."""
    if isinstance(values, bytes | bytearray | memoryview):
        arr = np.frombuffer(values, dtype="<f4").astype(np.float32)
    else:
        arr = np.asarray(values, dtype=np.float32)
    expected = 1
    for d in shape:
        expected *= d
    if arr.size != expected:
        raise ValueError(f"tensor of {arr.size} values, expected shape {shape}")
    return arr.reshape(shape)
