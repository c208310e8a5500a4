"""Several agents in one fight: each player character (or each side) driven by its own model or
agent, the rest by the server's default policy.

``agents`` maps a **combatant id** (``cleric_3``) or a **side name** (``monsters``) to an
:class:`~pf1e_gym.llm.LLMAgent`; a decision goes to the agent of its actor's id, else to the
agent of its actor's side. The server controls exactly those combatants (``controlled_ids``
and ``controlled_sides`` of Reset); the default policy plays everyone else. Every agent keeps
its own counters, so the scorecard is per agent (:func:`pf1e_gym.llm.eval.run_eval_multi`).

LLM against LLM on the same seeds: give each side its own agent (``{"players": a, "monsters":
b}``), run the seeds, then swap the models and run the same seeds again.

One fight has one text observation setting (language, text mode, budget: Reset's
``ObservationOptions``): the agents of a fight must agree on them (``ValueError`` otherwise);
each may differ in model, answer mode, retries and fallback.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import grpc

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import Pf1eClient
from pf1e_gym.llm.agent import AgentStats, FightResult, LLMAgent


@dataclasses.dataclass
class MultiFightResult:
    """One fight of several agents: ``seed``, ``winner`` (``None``: a draw), ``rounds``,
    ``truncated``, and per agent key its :class:`~pf1e_gym.llm.FightResult` (``outcome`` for
    that agent's side, its counters and records)."""

    seed: int
    winner: str | None
    rounds: int
    truncated: bool
    per_agent: dict[str, FightResult]


def _text_key(agent: LLMAgent) -> tuple[Any, ...]:
    return (agent.lang, agent.text_mode, agent.token_budget, agent.chars_per_token)


def play_multi(
    client: Pf1eClient,
    scenario: str | pb.Scenario,
    agents: Mapping[str, LLMAgent],
    *,
    seed: int = 0,
    max_decisions: int = 100_000,
) -> MultiFightResult:
    """Play one episode with ``agents`` (see the module docs).

    Raises ``ValueError`` (an unknown id or side, no agent, agents disagreeing on the text
    options, an answer mode the server cannot serve), ``grpc.RpcError``, ``RuntimeError`` (more
    than ``max_decisions`` decisions)."""
    if not agents:
        raise ValueError("agents: at least one")
    spec = client.get_spec(scenario)
    ids = {c.id: c.side for c in spec.combatants}
    sides = list(spec.sides)
    controlled_ids = [k for k in agents if k in ids]
    controlled_sides = [k for k in agents if k in sides and k not in ids]
    unknown = [k for k in agents if k not in ids and k not in sides]
    if unknown:
        raise ValueError(
            f"agents: {unknown} are neither combatant ids ({sorted(ids)}) nor sides ({sides})"
        )
    first = next(iter(agents.values()))
    for key, a in agents.items():
        a.check_spec(spec)
        if _text_key(a) != _text_key(first):
            raise ValueError(
                f"agents[{key!r}]: the agents of one fight share the text options (lang, "
                "text_mode, token_budget, chars_per_token)"
            )
    state = client.reset(
        scenario,
        seed,
        controlled_sides=controlled_sides,
        controlled_ids=controlled_ids,
        observation=first.observation_options(),
    )
    stats = {k: AgentStats() for k in agents}
    records: dict[str, list[dict[str, Any]]] = {k: [] for k in agents}
    try:
        n = 0
        while state.HasField("decision") and not (state.terminated or state.truncated):
            n += 1
            if n > max_decisions:
                raise RuntimeError(f"more than {max_decisions} decisions in one episode")
            actor = state.decision.actor_id
            key = actor if actor in agents else ids.get(actor, "")
            if key not in agents:
                raise RuntimeError(f"decision of {actor!r}: no agent controls it")
            state = agents[key].act(client, state, spec, stats=stats[key], records=records[key])
    finally:
        if not (state.terminated or state.truncated):
            try:
                client.close_episode(state.episode_id)
            except grpc.RpcError:
                pass
    winner = state.outcome.winner or None
    per_agent = {}
    for key, agent in agents.items():
        side = ids.get(key, key)
        agent.stats.merge(stats[key])
        per_agent[key] = FightResult(
            seed=seed,
            side=side,
            outcome="draw" if winner is None else ("win" if winner == side else "loss"),
            winner=winner,
            rounds=int(state.outcome.rounds),
            truncated=bool(state.truncated),
            stats=stats[key],
            records=records[key],
        )
    return MultiFightResult(
        seed, winner, int(state.outcome.rounds), bool(state.truncated), per_agent
    )
