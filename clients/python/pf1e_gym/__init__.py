"""pf1e_gym: Python client of the pf1e-gym environment server (gRPC package ``pf1e.env.v1``).

- :class:`Pf1eClient`: thin wrapper over the generated stub (``pf1e_gym._proto``).
- :class:`Pf1eEnv`: a Gymnasium environment, masked discrete actions.
"""

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import Pf1eClient, inline_scenario, scenario_message
from pf1e_gym.env import Pf1eEnv

__all__ = ["Pf1eClient", "Pf1eEnv", "inline_scenario", "pb", "scenario_message"]
__version__ = "0.1.0"
