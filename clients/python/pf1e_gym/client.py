"""A thin client of the ``pf1e.env.v1.Environment`` service.

Every method raises :class:`grpc.RpcError` on a non-OK status; ``err.code()`` tells which
(INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION, RESOURCE_EXHAUSTED, INTERNAL) and
``err.details()`` names the request field at fault.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import grpc

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym._proto.pf1e.env.v1 import environment_pb2_grpc as pb_grpc

DEFAULT_ADDRESS = "127.0.0.1:50051"


def scenario_message(scenario: str | pb.Scenario) -> pb.Scenario:
    """A ``Scenario`` message: a bundled scenario name (``"sample_arena"``) or a message as is."""
    if isinstance(scenario, pb.Scenario):
        return scenario
    if isinstance(scenario, str):
        return pb.Scenario(named=scenario)
    raise TypeError(f"scenario must be a name or a pb.Scenario, not {type(scenario).__name__}")


def inline_scenario(
    map_yaml: str,
    sides: Mapping[str, Sequence[str | tuple[str, str]]],
    *,
    round_cap: int = 0,
    simple_monster_death: bool = False,
) -> pb.Scenario:
    """An inline scenario: map YAML text and, per side name, combatant JSON texts (or
    ``(json, base_id)`` pairs). ``round_cap`` 0 means the server default (100 rounds)."""
    msg_sides = []
    for name, combatants in sides.items():
        cs = []
        for c in combatants:
            if isinstance(c, tuple):
                cs.append(pb.InlineCombatant(json=c[0], base_id=c[1]))
            else:
                cs.append(pb.InlineCombatant(json=c))
        msg_sides.append(pb.InlineSide(name=name, combatants=cs))
    return pb.Scenario(
        inline=pb.InlineScenario(
            map_yaml=map_yaml,
            sides=msg_sides,
            round_cap=round_cap,
            simple_monster_death=simple_monster_death,
        )
    )


class Pf1eClient:
    """Blocking client of one server.

    Args:
        address: ``host:port`` of the server (plaintext gRPC).
        channel: an existing channel to use instead (not closed by :meth:`close`).
        timeout: deadline of each call, in seconds.
    """

    def __init__(
        self,
        address: str = DEFAULT_ADDRESS,
        *,
        channel: grpc.Channel | None = None,
        timeout: float = 60.0,
    ) -> None:
        self._owns_channel = channel is None
        self._channel = channel if channel is not None else grpc.insecure_channel(address)
        self.stub = pb_grpc.EnvironmentStub(self._channel)
        self.timeout = timeout

    def get_spec(self, scenario: str | pb.Scenario) -> pb.Spec:
        """Static description of a scenario (combatants, sides, map, action space size)."""
        req = pb.GetSpecRequest(scenario=scenario_message(scenario))
        return self.stub.GetSpec(req, timeout=self.timeout)

    def list_scenarios(self) -> list[pb.ScenarioInfo]:
        """The server's bundled scenarios, sorted by name."""
        resp = self.stub.ListScenarios(pb.ListScenariosRequest(), timeout=self.timeout)
        return list(resp.scenarios)

    def reset(
        self,
        scenario: str | pb.Scenario,
        seed: int = 0,
        *,
        controlled_sides: Iterable[str] = (),
        controlled_ids: Iterable[str] = (),
    ) -> pb.EpisodeState:
        """Start an episode (``seed``: 0 to 2**64-1); returns its first decision or its end."""
        req = pb.ResetRequest(
            scenario=scenario_message(scenario),
            seed=seed,
            controlled=pb.Controlled(
                sides=list(controlled_sides), combatant_ids=list(controlled_ids)
            ),
        )
        return self.stub.Reset(req, timeout=self.timeout)

    def step(
        self,
        episode_id: str,
        decision_id: int,
        *,
        action_ids: Sequence[int] = (),
        actions: Sequence[pb.Action] = (),
    ) -> pb.EpisodeState:
        """Submit the actions (by id, or as messages) of decision ``decision_id``."""
        req = pb.StepRequest(
            episode_id=episode_id,
            decision_id=decision_id,
            action_ids=[int(a) for a in action_ids],
            actions=list(actions),
        )
        return self.stub.Step(req, timeout=self.timeout)

    def observe(self, episode_id: str) -> pb.EpisodeState:
        """The current state of an episode (no side effects)."""
        return self.stub.Observe(pb.ObserveRequest(episode_id=episode_id), timeout=self.timeout)

    def close_episode(self, episode_id: str) -> None:
        """Forget an episode on the server."""
        self.stub.Close(pb.CloseRequest(episode_id=episode_id), timeout=self.timeout)

    def close(self) -> None:
        """Close the channel (if this client created it)."""
        if self._owns_channel:
            self._channel.close()

    def __enter__(self) -> Pf1eClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
