"""pf1e_gym: Python client of the pf1e-gym environment server (gRPC package ``pf1e.env.v1``).

- :class:`Pf1eClient`: thin wrapper over the generated stub (``pf1e_gym._proto``), incl.
  position sweeps (``evaluate``); :mod:`pf1e_gym.ray_sweep` fans a sweep out with Ray (optional).
  :class:`DecisionKind`, :func:`decision_kind`, :func:`is_reaction`, :func:`aoo_action`,
  :func:`decline_action`, :func:`fire_readied_action`, :func:`action_block`: telling a turn
  decision from a reaction (an attack of opportunity offered mid-action, a readied action's
  trigger, Step Up) and answering it; :func:`ready_action`, :func:`delay_action` build the
  special initiative actions; :func:`cast_spell_action`, :func:`cast_defensively_action`,
  :func:`activate_metamagic_action` (:data:`METAMAGIC`) build casts, and
  :func:`cast_of_action_id` decodes a ``cast_spell`` / ``cast_spell_at`` id with the spec's
  spellbooks (``Spec.combatants[i].spells``).
- :class:`Pf1eEnv`: a Gymnasium environment, masked discrete actions.
- :class:`Pf1eVectorEnv`: a Gymnasium ``VectorEnv`` of many episodes (batched stepping).
- :class:`Pf1eAECEnv`: a PettingZoo AEC environment, one agent per controlled combatant.
- :class:`Pf1eParallelEnv`: a PettingZoo parallel env (self-play over ``StepBatch``, a wait id).

Importing the package registers the Gymnasium ids ``pf1e_gym/SampleArena-v0`` (the goblins of
``sample_arena`` against default-policy orcs) and ``pf1e_gym/MirrorDuel-v0`` (side ``west`` of
``mirror_duel``). Pass ``address=...`` to ``gymnasium.make`` (default ``$PF1E_ADDRESS``, else
``127.0.0.1:50051``).
"""

import gymnasium

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.actions import decode_action, encode_action
from pf1e_gym.client import (
    METAMAGIC,
    DecisionKind,
    Pf1eClient,
    action_block,
    activate_metamagic_action,
    aoo_action,
    cast_defensively_action,
    cast_of_action_id,
    cast_spell_action,
    decision_kind,
    decline_action,
    delay_action,
    fire_readied_action,
    inline_scenario,
    is_reaction,
    ready_action,
    scenario_message,
)
from pf1e_gym.env import Pf1eEnv
from pf1e_gym.errors import error_reason, is_episode_lost

__all__ = [
    "METAMAGIC",
    "DecisionKind",
    "Pf1eAECEnv",
    "Pf1eClient",
    "Pf1eEnv",
    "Pf1eParallelEnv",
    "Pf1eVectorEnv",
    "action_block",
    "activate_metamagic_action",
    "aoo_action",
    "cast_defensively_action",
    "cast_of_action_id",
    "cast_spell_action",
    "decision_kind",
    "decline_action",
    "decode_action",
    "delay_action",
    "encode_action",
    "error_reason",
    "fire_readied_action",
    "inline_scenario",
    "is_episode_lost",
    "is_reaction",
    "pb",
    "ready_action",
    "scenario_message",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # Lazy: the vector and PettingZoo envs import more (pettingzoo) than most users need.
    if name == "Pf1eVectorEnv":
        from pf1e_gym.vector import Pf1eVectorEnv

        return Pf1eVectorEnv
    if name == "Pf1eAECEnv":
        from pf1e_gym.aec import Pf1eAECEnv

        return Pf1eAECEnv
    if name == "Pf1eParallelEnv":
        from pf1e_gym.parallel import Pf1eParallelEnv

        return Pf1eParallelEnv
    raise AttributeError(f"module 'pf1e_gym' has no attribute {name!r}")


def _register() -> None:
    ids = {
        "pf1e_gym/SampleArena-v0": {"scenario": "sample_arena", "controlled_sides": ["players"]},
        "pf1e_gym/MirrorDuel-v0": {"scenario": "mirror_duel", "controlled_sides": ["west"]},
    }
    for env_id, kwargs in ids.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="pf1e_gym.env:Pf1eEnv",
                vector_entry_point="pf1e_gym.vector:Pf1eVectorEnv",
                kwargs=kwargs,
                disable_env_checker=False,
            )


_register()
