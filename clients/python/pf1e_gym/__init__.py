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
- :func:`launch_server` (:mod:`pf1e_gym.server`): start a local ``pf1e-env-server`` on a free
  port (a context manager stops it). The envs given no ``address`` start a shared one
  themselves when none is running; without a server binary they raise
  :class:`ServerNotFoundError` (what was tried, and the fix), and an address where nothing
  answers raises :class:`ServerUnavailableError` (the address, and the fix).

Importing the package registers one Gymnasium id per bundled scenario (:data:`GYM_IDS`, the
``data/scenarios/*.yaml`` files): ``pf1e_gym/SampleArena-v0`` (the goblins of ``sample_arena``
against default-policy orcs), ``pf1e_gym/MirrorDuel-v0`` (side ``west`` of ``mirror_duel``),
``pf1e_gym/Casters-v0`` (the party of four casters of ``casters``, side ``players``) and
``pf1e_gym/Skirmish4v4-v0`` (side ``players`` of ``skirmish_4v4``); each also has a vector
entry point (``gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")``:
a :class:`Pf1eVectorEnv`). ``gymnasium.make`` takes the envs' keywords (``address=...``,
``observation=...``, ``reward=...``); without ``address`` see above.
"""

import gymnasium

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.actions import decode_action, encode_action
from pf1e_gym.client import (
    METAMAGIC,
    BatchItemError,
    DecisionKind,
    Pf1eClient,
    ServerUnavailableError,
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
from pf1e_gym.server import LocalServer, ServerNotFoundError, ServerStartError, launch_server

__all__ = [
    "GYM_IDS",
    "METAMAGIC",
    "BatchItemError",
    "DecisionKind",
    "LocalServer",
    "Pf1eAECEnv",
    "Pf1eClient",
    "Pf1eEnv",
    "Pf1eParallelEnv",
    "Pf1eVectorEnv",
    "ServerNotFoundError",
    "ServerStartError",
    "ServerUnavailableError",
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
    "launch_server",
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


#: The registered Gymnasium ids: id -> ``Pf1eEnv`` keywords (one per bundled scenario,
#: ``data/scenarios/NAME.yaml``; the agent plays the side named first in the file). The
#: tests (``tests/test_gym_env.py``) check the list against ``data/``.
GYM_IDS: dict[str, dict[str, object]] = {
    "pf1e_gym/SampleArena-v0": {"scenario": "sample_arena", "controlled_sides": ["players"]},
    "pf1e_gym/MirrorDuel-v0": {"scenario": "mirror_duel", "controlled_sides": ["west"]},
    "pf1e_gym/Casters-v0": {"scenario": "casters", "controlled_sides": ["players"]},
    "pf1e_gym/Skirmish4v4-v0": {"scenario": "skirmish_4v4", "controlled_sides": ["players"]},
}


def _register() -> None:
    for env_id, kwargs in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="pf1e_gym.env:Pf1eEnv",
                vector_entry_point="pf1e_gym.vector:Pf1eVectorEnv",
                kwargs=dict(kwargs),
                disable_env_checker=False,
            )


_register()
