"""RLlib (ray 2.x, new API stack) over pf1e-gym self-play: :class:`Pf1eRLlibEnv`.

Needs ``pip install "ray[rllib]" torch`` (not a dependency of ``pf1e_gym``; importing this
module without ray raises ``ImportError``). Two paths:

- **Native, turn-based** (:class:`Pf1eRLlibEnv`, an ``ray.rllib.env.MultiAgentEnv``): RLlib
  lets a multi-agent env return observations only for the agents that act next, so there is no
  "wait" action here: each step's observation dict holds the acting agent of every unfinished
  episode (one per episode of :class:`~pf1e_gym.parallel.Pf1eParallelEnv`, ``num_episodes``
  of them per ``StepBatch``), and the action dict RLlib sends back holds exactly those agents.
  Rewards go to every agent of the side the server reports them for (RLlib adds up an agent's
  rewards until its next observation). At the end of an episode every agent of it gets its own
  final observation and ``terminateds``/``truncateds`` (``"__all__"`` when every episode has
  ended).
  With ``flatten=True`` (default) the observation is ``{"action_mask": Box(0, 1, (n,)),
  "observations": Box(concat(planes.ravel(), features.ravel()))}``, the layout RLlib's
  ``ActionMaskingTorchRLModule`` example (``ray.rllib.examples.rl_modules.classes.
  action_masking_rlm``) expects; ``flatten=False`` keeps the parallel env's ``Dict``.
- **PettingZoo wrapper**: ``ray.rllib.env.wrappers.pettingzoo_env.ParallelPettingZooEnv(
  Pf1eParallelEnv(...))``, where every live agent acts at every step (waiting agents choose the
  wait id, the only legal one in their mask).

``config`` (RLlib passes one dict to the env constructor): the keyword arguments of
:class:`~pf1e_gym.parallel.Pf1eParallelEnv` (``address``, ``scenario``, ``controlled_sides``,
``num_episodes``, ``reward``…; ``observation`` must be ``"tensor"`` or ``"auto"``) plus
``flatten``. :func:`side_mapping` makes a ``policy_mapping_fn`` giving each agent the module
named after its side (self-play with one learner per side, or map both to one module).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.typing import AgentID, MultiAgentDict

from pf1e_gym._codec import BoundsBox
from pf1e_gym.parallel import Pf1eParallelEnv


class Pf1eRLlibEnv(MultiAgentEnv):
    """Turn-based RLlib ``MultiAgentEnv`` over :class:`~pf1e_gym.parallel.Pf1eParallelEnv`.

    Args:
        config: ``Pf1eParallelEnv`` keyword arguments plus ``flatten`` (see the module docs).

    Raises:
        ValueError: JSON observations (RLlib needs arrays), or a bad ``Pf1eParallelEnv``
            argument.
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # RLlib's is untyped
        cfg = dict(config or {})
        self.flatten = bool(cfg.pop("flatten", True))
        cfg["wait_action"] = False
        if cfg.get("observation", "auto") not in ("auto", "tensor"):
            raise ValueError("config.observation: RLlib needs tensor observations")
        cfg["observation"] = "tensor"
        self.par_env = Pf1eParallelEnv(**cfg)
        par = self.par_env
        self.possible_agents: list[AgentID] = list(par.possible_agents)
        self.agents: list[AgentID] = []
        self.agent_side = dict(par.agent_side)
        n = par.n
        single = par.observation_space(par.possible_agents[0])
        if self.flatten:
            assert isinstance(single, spaces.Dict)
            p, f = cast(spaces.Box, single["planes"]), cast(spaces.Box, single["features"])
            low = np.concatenate([p.low.ravel(), f.low.ravel()]).astype(np.float32)
            high = np.concatenate([p.high.ravel(), f.high.ravel()]).astype(np.float32)
            obs_space: spaces.Space[Any] = spaces.Dict(
                {
                    "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32),
                    "observations": BoundsBox(low, high, dtype=np.float32),
                }
            )
        else:
            obs_space = single
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(n))

    def _convert(self, o: dict[str, Any]) -> dict[str, Any]:
        if not self.flatten:
            return o
        return {
            "action_mask": o["action_mask"].astype(np.float32),
            "observations": np.concatenate([o["planes"].ravel(), o["features"].ravel()]),
        }

    def reset(  # type: ignore[override]  # RLlib's, not Gymnasium's
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[MultiAgentDict, MultiAgentDict]:
        """Reset every episode; observations of the acting agents only."""
        obs, infos = self.par_env.reset(seed=seed, options=options)
        self.agents = list(self.par_env.agents)
        acting = [a for a in obs if infos[a]["acting"]]
        return {a: self._convert(obs[a]) for a in acting}, {a: infos[a] for a in acting}

    # RLlib's MultiAgentEnv.step already departs from Gymnasium's Env.step (dicts per agent).
    def step(  # type: ignore[override]
        self, action_dict: MultiAgentDict
    ) -> tuple[MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict]:
        """Step the acting agents' actions (``action_dict`` must hold exactly them)."""
        obs, rew, term, trunc, infos = self.par_env.step(cast(dict[str, Any], action_dict))
        out_obs: MultiAgentDict = {}
        out_infos: MultiAgentDict = {}
        terminateds: MultiAgentDict = {}
        truncateds: MultiAgentDict = {}
        for a in obs:
            done = term[a] or trunc[a]
            if done or infos[a]["acting"]:
                out_obs[a] = self._convert(obs[a])
                out_infos[a] = infos[a]
            if done:
                terminateds[a] = bool(term[a])
                truncateds[a] = bool(trunc[a])
        rewards: MultiAgentDict = {a: r for a, r in rew.items() if r != 0.0 or a in out_obs}
        self.agents = list(self.par_env.agents)
        terminateds["__all__"] = truncateds["__all__"] = False
        if not self.agents:
            ended = [a for a in obs if term[a] or trunc[a]]
            terminateds["__all__"] = all(term[a] for a in ended)
            truncateds["__all__"] = not terminateds["__all__"]
        return out_obs, rewards, terminateds, truncateds, out_infos

    def close(self) -> None:
        self.par_env.close()


def side_mapping(agent_side: Mapping[str, str]) -> Callable[..., str]:
    """A ``policy_mapping_fn`` giving each agent the module named after its side (``players``,
    ``monsters``): ``agent_side`` is :attr:`Pf1eRLlibEnv.agent_side` (or the parallel env's).
    An agent ``"<id>/<k>"`` of a batched env maps like ``"<id>"``, so a probe env with one
    episode serves any ``num_episodes``. An unknown agent id raises ``KeyError``."""
    sides = dict(agent_side)
    for name, side in agent_side.items():
        sides.setdefault(name.split("/", 1)[0], side)

    def mapping(agent_id: str, *args: Any, **kwargs: Any) -> str:
        if agent_id in sides:
            return sides[agent_id]
        return sides[agent_id.split("/", 1)[0]]

    return mapping
