"""Conversion of server messages (``EpisodeState``) to Gymnasium observations and infos.

Shared by :class:`~pf1e_gym.env.Pf1eEnv`, :class:`~pf1e_gym.vector.Pf1eVectorEnv` and
:class:`~pf1e_gym.aec.Pf1eAECEnv`, so the three agree on spaces and values.

The observation is a ``Dict``:

- ``planes`` (``float32`` ``Box`` of shape ``[planes, rows, cols]``) and ``features``
  (``float32`` ``Box`` of shape ``[combatants, features]``): the tensor observation, when the
  server sends one (``mode="tensor"``);
- ``json`` (``Text``): the engine's full observation snapshot as JSON (``mode="json"``);
- ``action_mask`` (``MultiBinary(n)``, ``int8``, 1 = legal): always.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb

# Characters the JSON observation may contain: the Basic Multilingual Plane without controls
# and surrogates (serde_json escapes control characters; non-BMP characters are not expected).
_JSON_CHARSET = frozenset(
    ["\t", "\n", "\r"]
    + [chr(c) for c in range(0x20, 0xD800)]
    + [chr(c) for c in range(0xE000, 0xFFFE)]
)
MAX_JSON_CHARS = 1 << 24

# Bounds of the tensor values: the engine documents "roughly in [0, 1]"; hp fractions go down
# to -1 and a few counters (hp/100, attacks of opportunity left) can exceed 1.
TENSOR_LOW = -1e6
TENSOR_HIGH = 1e6

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


def action_results(state: pb.EpisodeState) -> list[dict[str, Any]]:
    """The results of the step just applied, as plain dicts."""
    out = []
    for r in state.results:
        out.append(
            {
                "kind": kind_name(r.kind),
                "ok": r.ok,
                "code": result_code_name(r.code),
                "reason": r.reason,
                "field": r.field,
            }
        )
    return out


def is_over(state: pb.EpisodeState) -> bool:
    return bool(state.terminated or state.truncated or not state.HasField("decision"))


def side_reward(state: pb.EpisodeState) -> float:
    """The reward of the controlled side: its entry of the per-side map (newer servers,
    shaped or not), else the sparse ``reward`` field."""
    if state.reward_side and state.reward_side in state.rewards:
        return float(state.rewards[state.reward_side])
    return float(state.reward)


def outcome(state: pb.EpisodeState) -> dict[str, Any] | None:
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
    """

    def __init__(
        self,
        spec: pb.Spec,
        mode: str = "auto",
        *,
        legal_actions: bool = True,
        json_in_info: bool = False,
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
        d: dict[str, spaces.Space] = {}
        if mode == "tensor":
            assert shapes is not None
            self.plane_shape, self.feature_shape = shapes
            d["planes"] = spaces.Box(TENSOR_LOW, TENSOR_HIGH, self.plane_shape, np.float32)
            d["features"] = spaces.Box(TENSOR_LOW, TENSOR_HIGH, self.feature_shape, np.float32)
        else:
            self.plane_shape = self.feature_shape = ()
            d["json"] = spaces.Text(max_length=MAX_JSON_CHARS, min_length=0, charset=_JSON_CHARSET)
        d["action_mask"] = spaces.MultiBinary(self.n)
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
            return np.frombuffer(raw, dtype=np.int8).copy()
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

    def obs(self, state: pb.EpisodeState, mask: np.ndarray | None = None) -> dict[str, Any]:
        """The observation dict of ``state`` (keys in the space's order)."""
        if mask is None:
            mask = self.mask(state)
        if self.mode == "tensor":
            planes, features = self.tensors(state.tensors)
            return {"action_mask": mask, "features": features, "planes": planes}
        return {"action_mask": mask, "json": state.observation.json}

    def agent_obs(self, t: pb.TensorObservation | None, json: str = "") -> dict[str, Any]:
        """An observation with a zero mask (an agent that is not deciding), from tensors."""
        mask = np.zeros(self.n, dtype=np.int8)
        if self.mode == "tensor":
            if t is None:
                return self.zeros()
            planes, features = self.tensors(t)
            return {"action_mask": mask, "features": features, "planes": planes}
        return {"action_mask": mask, "json": json}

    def zeros(self) -> dict[str, Any]:
        """An all-zero observation (e.g. for an agent that has not observed anything yet)."""
        mask = np.zeros(self.n, dtype=np.int8)
        if self.mode == "tensor":
            return {
                "action_mask": mask,
                "features": np.zeros(self.feature_shape, np.float32),
                "planes": np.zeros(self.plane_shape, np.float32),
            }
        return {"action_mask": mask, "json": ""}

    def info(self, state: pb.EpisodeState, mask: np.ndarray) -> dict[str, Any]:
        """The info dict of ``state`` (see the module docs of :mod:`pf1e_gym.env`)."""
        d = state.decision if state.HasField("decision") else None
        if d is not None:
            rnd = int(d.round)
        elif state.terminated or state.truncated:
            rnd = int(state.outcome.rounds)
        else:
            rnd = int(state.observation.round)
        info: dict[str, Any] = {
            "action_mask": mask,
            "legal_actions": [(la.id, la.label) for la in state.legal_actions],
            "action_results": action_results(state),
            "actor": d.actor_id if d is not None else None,
            "actor_index": d.actor_index if d is not None else None,
            "decision_id": d.decision_id if d is not None else None,
            "round": rnd,
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
