"""``Pf1eSB3VecEnv``: a Stable-Baselines3 ``VecEnv`` over ``StepBatch`` (one call per step).

Stable-Baselines3 (and sb3-contrib's ``MaskablePPO``) consume a ``VecEnv`` with same-step
reset: the step where slot *i* ends returns the new episode's first observation, with the
final one in ``infos[i]["terminal_observation"]``. This adapter wraps a
:class:`~pf1e_gym.vector.Pf1eVectorEnv` in ``autoreset_mode="same_step"`` (its pool of
pre-reset episodes keeps it to one ``StepBatch`` per step) and converts:

- **observation**: with ``flatten=True`` (the default) one ``Box(float32)`` vector per slot,
  ``concat(planes.ravel(), features.ravel())`` (C order), bounds those of the ``planes`` and
  ``features`` boxes (exact with ``Spec.capabilities.feature_bounds``: see
  :attr:`Pf1eSB3VecEnv.exact_bounds`; an older server publishes none and the bounds are
  ``±1e6``, which SB3's checker warns about). :attr:`Pf1eSB3VecEnv.obs_layout` gives the
  slices. ``flatten=False``: a ``Dict`` with ``planes`` ``(planes, rows, cols)`` and
  ``features`` ``(combatants, features)`` (use ``MultiInputPolicy``). The action mask is
  **not** in the observation: ``MaskablePPO`` asks :meth:`Pf1eSB3VecEnv.action_masks`;
- **action**: ``Discrete(n)`` per slot (an id of the spec's action space);
- **infos** (one dict per slot): at the end of an episode ``terminal_observation`` (its
  final observation, in the same format), ``episode`` ``{"r": return, "l": length in
  decisions, "t": seconds since the env was made}`` (what SB3's ``Monitor`` writes: the
  logger's ``ep_rew_mean`` / ``ep_len_mean`` come from it; do not wrap in ``VecMonitor``
  too), ``winner`` (side name, ``None`` for a draw) and ``TimeLimit.truncated`` (the round
  cap ended it; SB3 then bootstraps from ``terminal_observation``). Other steps: ``{}``.

Seeds: ``seed=`` (or :meth:`seed`) seeds the next :meth:`reset`: slot *i* gets ``seed + i``
and the autoreset seeds come from the vector env's ``np_random``, so a seeded run is
reproducible. Reward settings: ``reward=`` (as :class:`~pf1e_gym.env.Pf1eEnv`) or
``set_options({"reward": {...}})`` before a reset.

Only this module imports ``stable_baselines3`` (``pip install 'pf1e-gym[rl]'``); the rest of
:mod:`pf1e_gym` works without it (and without torch).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any, cast

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from pf1e_gym._codec import BoundsBox
from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import Pf1eClient
from pf1e_gym.infos import SB3Info
from pf1e_gym.vector import Pf1eVectorEnv

__all__ = ["Pf1eSB3VecEnv"]


class Pf1eSB3VecEnv(VecEnv):
    """``num_envs`` pf1e-gym episodes as an SB3 ``VecEnv`` (see the module docs).

    Args:
        num_envs: number of slots.
        address: ``host:port`` of the server; ``None``: ``$PF1E_ADDRESS``, else a local
            server (:mod:`pf1e_gym.server`).
        scenario: bundled scenario name or a ``pb.Scenario``.
        controlled_sides: the side(s) the agent plays (one side: the reward is that side's).
        reward: reward settings, a dict of ``"shaped"``, ``"damage_weight"``,
            ``"kill_weight"``, ``"round_discount"`` (see :class:`~pf1e_gym.env.Pf1eEnv`).
        flatten: one ``Box`` vector per slot (``True``) or a ``Dict`` of the two tensors.
        client: an existing :class:`~pf1e_gym.client.Pf1eClient` (not closed by
            :meth:`close`).
        timeout: deadline of each call, in seconds.
        seed: seed of the first :meth:`reset` (slot *i*: ``seed + i``).
        backend: ``"grpc"`` (the server at ``address``) or ``"native"`` (the engine in
            process, :class:`pf1e_gym.native.VectorEnv`: same trajectories, no server;
            ``address``, ``client`` and ``timeout`` are then unused).
        **vector_kwargs: further keywords of :class:`~pf1e_gym.vector.Pf1eVectorEnv`
            (``controlled_ids``, ``columnar``…; not ``observation``/``autoreset_mode``), or of
            :class:`pf1e_gym.native.VectorEnv` (``data_dir``, ``num_threads``…).

    Raises:
        ValueError: the server sends no tensor observations, or a bad reward key.
    """

    def __init__(
        self,
        num_envs: int,
        address: str | None = None,
        scenario: str | pb.Scenario = "sample_arena",
        controlled_sides: Sequence[str] = ("players",),
        *,
        reward: dict[str, Any] | None = None,
        flatten: bool = True,
        client: Pf1eClient | None = None,
        timeout: float = 60.0,
        seed: int | None = None,
        backend: str = "grpc",
        **vector_kwargs: Any,
    ) -> None:
        for key in ("observation", "autoreset_mode", "reaction_obs"):
            if key in vector_kwargs:
                raise ValueError(f"{key}: fixed by Pf1eSB3VecEnv (tensor, same_step, False)")
        if backend not in ("grpc", "native"):
            raise ValueError(f"backend: {backend!r} is not 'grpc' or 'native'")
        if backend == "native":
            from pf1e_gym import native

            venv: Any = native.VectorEnv(
                num_envs,
                scenario,
                controlled_sides,
                reward=reward,
                autoreset_mode="same_step",
                **vector_kwargs,
            )
        else:
            venv = Pf1eVectorEnv(
                num_envs,
                address=address,
                scenario=scenario,
                controlled_sides=controlled_sides,
                observation="tensor",
                reward=reward,
                client=client,
                timeout=timeout,
                autoreset_mode="same_step",
                **vector_kwargs,
            )
        self.venv = venv
        self.flatten = flatten
        single = self.venv.codec.space
        planes_box = cast(spaces.Box, single["planes"])  # tensor mode: two boxes
        features_box = cast(spaces.Box, single["features"])
        #: Whether the bounds are the server's exact ones (``capabilities.feature_bounds``);
        #: ``False``: the wide fallback ``±1e6``.
        self.exact_bounds = bool(self.venv.codec.exact_bounds)
        schema = self.venv.spec_msg.observation_schema
        p_size = int(np.prod(planes_box.shape))
        f_size = int(np.prod(features_box.shape))
        #: Where each tensor lies in the flat vector: ``{"planes": {"start", "stop",
        #: "shape", "names"}, "features": {...}}`` (``vec[start:stop].reshape(shape)``; names:
        #: the schema's plane / feature names, along the first / last axis).
        self.obs_layout: dict[str, dict[str, Any]] = {
            "planes": {
                "start": 0,
                "stop": p_size,
                "shape": tuple(planes_box.shape),
                "names": list(schema.plane_names),
            },
            "features": {
                "start": p_size,
                "stop": p_size + f_size,
                "shape": tuple(features_box.shape),
                "names": list(schema.feature_names),
            },
        }
        observation_space: spaces.Space[Any]
        if flatten:
            observation_space = BoundsBox(
                np.concatenate([planes_box.low.ravel(), features_box.low.ravel()]),
                np.concatenate([planes_box.high.ravel(), features_box.high.ravel()]),
                dtype=np.float32,
            )
        else:
            observation_space = spaces.Dict({"features": features_box, "planes": planes_box})
        self.render_mode = None
        super().__init__(num_envs, observation_space, self.venv.single_action_space)
        self._actions: np.ndarray | None = None
        self._masks = np.zeros((num_envs, int(self.venv.spec_msg.action_space_size)), np.bool_)
        self._ep_return = np.zeros(num_envs, dtype=np.float64)
        self._ep_len = np.zeros(num_envs, dtype=np.int64)
        self._t0 = time.perf_counter()
        self._started = False
        if seed is not None:
            self.seed(seed)

    # -- VecEnv API ------------------------------------------------------------------------

    def reset(self) -> Any:
        """Reset every slot (seeds from :meth:`seed`, options from ``set_options``)."""
        seeds = self._seeds
        seed: int | list[int] | None = None
        if any(s is not None for s in seeds):
            if any(s is None for s in seeds):
                raise ValueError("seed: every slot needs a seed, or none")
            seed = [int(s) for s in seeds]  # type: ignore[arg-type]
        options = self._options[0] if self._options else {}
        if any(o != options for o in self._options):
            raise ValueError("set_options: every slot shares one set of options")
        obs, info = self.venv.reset(seed=seed, options=options or None)
        self._reset_seeds()
        self._reset_options()
        self._started = True
        self._ep_return[:] = 0.0
        self._ep_len[:] = 0
        self._masks = info["action_mask"].astype(np.bool_)
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._convert(obs)

    def step_async(self, actions: np.ndarray) -> None:
        """Store the actions (one id per slot) for :meth:`step_wait`."""
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> tuple[Any, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """One ``StepBatch``: ``(obs, rewards, dones, infos)`` (see the module docs)."""
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        if not self._started:
            raise RuntimeError("call reset() before stepping")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, info = self.venv.step(actions)
        dones = terminated | truncated
        self._ep_return += rewards
        self._ep_len += 1
        self._masks = info["action_mask"].astype(np.bool_)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final_obs = info["final_obs"]
            winners = info["winner"]
            elapsed = round(time.perf_counter() - self._t0, 6)
            for i in np.flatnonzero(dones).tolist():
                fo = final_obs[i]
                end: SB3Info = {
                    "terminal_observation": self._convert_one(fo["planes"], fo["features"]),
                    "episode": {
                        "r": float(self._ep_return[i]),
                        "l": int(self._ep_len[i]),
                        "t": elapsed,
                    },
                    "winner": winners[i],
                    "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                }
                infos[i] = dict(end)
            self._ep_return[dones] = 0.0
            self._ep_len[dones] = 0
        return self._convert(obs), rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        """Close every episode on the server and the connection (if this env made it)."""
        self.venv.close()

    def action_masks(self) -> np.ndarray:
        """The legal actions of every slot now, ``bool`` ``(num_envs, n)`` (never all false
        after :meth:`reset`: ended slots already show their new episode)."""
        masks: np.ndarray = self._masks.copy()
        return masks

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """The attribute ``attr_name`` of this env, once per index (the slots share it).

        Raises:
            AttributeError: no such attribute.
        """
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set ``attr_name`` on this env (shared by every slot: ``indices`` must cover all or
        be ``None``).

        Raises:
            ValueError: ``indices`` names only some slots.
        """
        idx = list(self._get_indices(indices))
        if sorted(idx) != list(range(self.num_envs)):
            raise ValueError("set_attr: the slots share their attributes (indices=None)")
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        """Per-slot methods: ``action_masks`` (each slot's mask row: what sb3-contrib's
        ``get_action_masks`` stacks). Any other method of this env is called once and its
        result given to every index.

        Raises:
            AttributeError: no such method.
        """
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        """No Gymnasium wrapper is involved, but this env writes the ``episode`` info that
        SB3's ``Monitor`` would add (raw returns, before any ``VecNormalize``): ``True`` for
        ``Monitor`` itself (so ``evaluate_policy`` reads the true episode returns and lengths from
        it, without its "not wrapped with a Monitor" warning), ``False`` for any other
        wrapper, once per slot."""
        from stable_baselines3.common.monitor import Monitor

        wrapped = wrapper_class is Monitor
        return [wrapped for _ in self._get_indices(indices)]

    def _get_indices(self, indices: Any) -> Iterable[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int | np.integer):
            return [int(indices)]
        return [int(i) for i in indices]

    # -- helpers -----------------------------------------------------------------------------

    def _convert(self, obs: dict[str, Any]) -> Any:
        planes, features = obs["planes"], obs["features"]
        if self.flatten:
            e = self.num_envs
            return np.concatenate([planes.reshape(e, -1), features.reshape(e, -1)], axis=1)
        return {"features": features, "planes": planes}

    def _convert_one(self, planes: np.ndarray, features: np.ndarray) -> Any:
        if self.flatten:
            return np.concatenate([planes.ravel(), features.ravel()])
        return {"features": features.copy(), "planes": planes.copy()}
