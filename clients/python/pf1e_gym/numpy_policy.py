"""A trained policy as a small ``.npz`` with a numpy forward pass (no torch needed).

The file (written by ``examples/train_ppo.py``, :func:`export_sb3`) holds the actor of an SB3
``MlpPolicy``: ``w0, b0, …, w{L-1}, b{L-1}`` (hidden layers, ``x @ w.T + b`` then the
activation) and ``wa, ba`` (the action logits), all ``float32``, plus ``meta``: a JSON string
with ``format`` (``"pf1e-numpy-policy/1"``), ``activation`` (``"tanh"`` or ``"relu"``),
``scenario``, ``side``, ``rules_data_version``, ``obs_size``, ``action_space_size``,
``plane_shape``, ``feature_shape``, ``plane_names``, ``feature_names`` and free-form
``training`` (how it was trained).

The observation is the flat vector of :class:`~pf1e_gym.sb3.Pf1eSB3VecEnv` (``flatten=True``):
``concat(planes.ravel(), features.ravel())`` per row. The action is the argmax of the logits
over the legal actions (the action mask), or a sample of the masked softmax with a seeded
``numpy.random.Generator``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb

FORMAT = "pf1e-numpy-policy/1"


def _relu(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.maximum(x, 0.0)
    return out


def _tanh(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.tanh(x)
    return out


_ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {"tanh": _tanh, "relu": _relu}


class NumpyPolicy:
    """An MLP actor: ``hidden`` = [(w, b), …], ``head`` = (wa, ba), ``meta`` (see the module)."""

    def __init__(
        self,
        hidden: list[tuple[np.ndarray, np.ndarray]],
        head: tuple[np.ndarray, np.ndarray],
        meta: dict[str, Any],
    ) -> None:
        act = meta.get("activation", "tanh")
        if act not in _ACTIVATIONS:
            raise ValueError(f"activation {act!r} not one of {sorted(_ACTIVATIONS)}")
        self.hidden = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in hidden]
        self.head = (np.asarray(head[0], np.float32), np.asarray(head[1], np.float32))
        self.meta = dict(meta)
        self._act = _ACTIVATIONS[act]
        n_in = self.hidden[0][0].shape[1] if self.hidden else self.head[0].shape[1]
        if int(meta.get("obs_size", n_in) or 0) != n_in:
            raise ValueError(f"meta obs_size {meta['obs_size']} != first layer's input {n_in}")
        self.obs_size = n_in
        self.n_actions = int(self.head[0].shape[0])

    # -- files -------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> NumpyPolicy:
        """Read a ``.npz`` written by :meth:`save`. Raises ``ValueError`` for another format."""
        with np.load(path, allow_pickle=False) as d:
            if "meta" not in d:
                raise ValueError(f"{path}: no 'meta' entry (not a pf1e numpy policy)")
            meta = json.loads(str(d["meta"]))
            if meta.get("format") != FORMAT:
                raise ValueError(f"{path}: format {meta.get('format')!r}, expected {FORMAT!r}")
            hidden = []
            k = 0
            while f"w{k}" in d:
                hidden.append((d[f"w{k}"], d[f"b{k}"]))
                k += 1
            return cls(hidden, (d["wa"], d["ba"]), meta)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the ``.npz`` (compressed)."""
        arrays: dict[str, Any] = {}
        for k, (w, b) in enumerate(self.hidden):
            arrays[f"w{k}"], arrays[f"b{k}"] = w, b
        arrays["wa"], arrays["ba"] = self.head
        meta = {"format": FORMAT, **self.meta}
        arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
        np.savez_compressed(path, **arrays)

    # -- checks ------------------------------------------------------------------------------

    def check_spec(self, spec: pb.Spec) -> None:
        """Raise ``ValueError`` unless ``spec`` (a scenario's ``GetSpec``) has this policy's
        observation layout and action space (shapes and feature/plane names)."""
        schema = spec.observation_schema
        want = {
            "action_space_size": int(spec.action_space_size),
            "plane_shape": [int(x) for x in schema.plane_shape],
            "feature_shape": [int(x) for x in schema.feature_shape],
            "plane_names": list(schema.plane_names),
            "feature_names": list(schema.feature_names),
        }
        for key, value in want.items():
            if key in self.meta and self.meta[key] != value:
                got = self.meta[key]
                if isinstance(value, list) and len(value) > 3:
                    got, value = f"{len(got)} entries", f"{len(value)} entries"
                raise ValueError(
                    f"policy {key} ({got}) differs from the server's ({value}): "
                    "retrain it for this observation layout"
                )

    # -- forward -----------------------------------------------------------------------------

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Action logits ``(k, n)`` of flat observations ``(k, obs_size)`` (or one row)."""
        x = np.asarray(obs, dtype=np.float32)
        one = x.ndim == 1
        x = x.reshape(-1, self.obs_size)
        for w, b in self.hidden:
            x = self._act(x @ w.T + b)
        out: np.ndarray = x @ self.head[0].T + self.head[1]
        return out[0] if one else out

    def act(
        self,
        obs: np.ndarray,
        masks: np.ndarray,
        *,
        deterministic: bool = True,
        rng: np.random.Generator | None = None,
    ) -> np.ndarray:
        """Actions ``(k,)``: the masked argmax (``deterministic``) or a sample of the masked
        softmax drawn from ``rng`` (required then). A row with no legal action gets action 0."""
        lg = self.logits(np.atleast_2d(obs)).astype(np.float64)
        legal = np.atleast_2d(masks) > 0
        lg = np.where(legal, lg, -np.inf)
        none = ~legal.any(axis=1)
        lg[none] = 0.0
        if deterministic:
            best: np.ndarray = lg.argmax(axis=1)
            return best
        if rng is None:
            raise ValueError("sampling (deterministic=False) needs rng")
        z = lg - lg.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        u = rng.random((len(p), 1))
        drawn: np.ndarray = np.minimum((p.cumsum(axis=1) < u).sum(axis=1), p.shape[1] - 1)
        return drawn

    @staticmethod
    def flat_obs(planes: np.ndarray, features: np.ndarray) -> np.ndarray:
        """The flat observation rows ``concat(planes.ravel(), features.ravel())``."""
        k = len(planes)
        return np.concatenate([planes.reshape(k, -1), features.reshape(k, -1)], axis=1)

    def tensor_policy(
        self, deterministic: bool = True, seed: int = 0
    ) -> Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
        """A :data:`pf1e_gym.leaderboard.TensorPolicy` (``act(planes, features, masks)``)."""
        rng = np.random.default_rng(seed)

        def act(planes: np.ndarray, features: np.ndarray, masks: np.ndarray) -> np.ndarray:
            return self.act(
                self.flat_obs(planes, features), masks, deterministic=deterministic, rng=rng
            )

        return act


def export_sb3(model: Any, spec: pb.Spec, side: str, training: dict[str, Any]) -> NumpyPolicy:
    """The actor of an SB3 / sb3-contrib ``MlpPolicy`` model (``FlattenExtractor``, Linear +
    Tanh/ReLU layers) as a :class:`NumpyPolicy` (imports torch through the model only)."""
    import torch.nn as nn

    policy = model.policy
    layers = list(policy.mlp_extractor.policy_net)
    hidden = []
    activation = None
    for layer in layers:
        if isinstance(layer, nn.Linear):
            hidden.append((layer.weight.detach().cpu().numpy(), layer.bias.detach().cpu().numpy()))
        elif isinstance(layer, nn.Tanh):
            activation = activation or "tanh"
        elif isinstance(layer, nn.ReLU):
            activation = activation or "relu"
        else:
            raise ValueError(f"cannot export a {type(layer).__name__} layer")
    head = policy.action_net
    schema = spec.observation_schema
    meta = {
        "activation": activation or "tanh",
        "scenario": spec.scenario,
        "side": side,
        "rules_data_version": spec.rules_data_version,
        "engine_version": spec.engine_version,
        "obs_size": int(np.prod(schema.plane_shape) + np.prod(schema.feature_shape)),
        "action_space_size": int(spec.action_space_size),
        "plane_shape": [int(x) for x in schema.plane_shape],
        "feature_shape": [int(x) for x in schema.feature_shape],
        "plane_names": list(schema.plane_names),
        "feature_names": list(schema.feature_names),
        "training": training,
    }
    return NumpyPolicy(
        hidden,
        (head.weight.detach().cpu().numpy(), head.bias.detach().cpu().numpy()),
        meta,
    )
