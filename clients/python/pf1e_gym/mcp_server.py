"""``pf1e-mcp``: pf1e-gym as a Model Context Protocol server (extra ``mcp``:
``pip install 'pf1e-gym[mcp]'``).

An MCP client — a desktop assistant, an agent framework, the official ``mcp`` client library —
plays fights and runs Monte Carlo evaluations through **tools**, and reads the rules
documentation an agent may consult as **resources**. The server is the official Python SDK's
``MCPServer`` (package ``mcp``), over **stdio** (a client launches ``pf1e-mcp``) or
**streamable HTTP** (``pf1e-mcp --transport http --port 8765``, endpoint ``/mcp``); behind it a
``pf1e-env-server`` at ``--address`` (default ``$PF1E_ADDRESS``, else ``127.0.0.1:50051``).

Tools (arguments and results are JSON; every failure is a tool error whose text names the
argument):

- ``list_scenarios()``: the bundled scenarios (name, description, sides, combatants);
- ``list_formats()``: the answer formats ``act`` takes, the text modes and languages;
- ``start_fight(scenario, side | combatants, seed, lang, text_mode)``: a new fight where the
  caller controls a side (or some combatants by id; the default policy plays everyone else);
  returns ``fight_id`` and the first decision (text);
- ``observe(fight_id, format)``: the pending decision as text (``compact`` or ``full``), or the
  typed observation as JSON (``format="json"``);
- ``legal_actions(fight_id)``: the legal actions (id, label, kind), all of them;
- ``explain(fight_id, label | action_id | action)``: whether an action is legal now and, if
  not, why (the engine's reason and the field at fault);
- ``act(fight_id, label | action_id | action | plan, actor)``: one action by exact label, by id,
  as a structured JSON action, or the rest of the turn as a plan; returns the results and the
  next decision. ``actor`` (a combatant id) is checked against the pending decision, so
  several agents — one per PC, each its own MCP client — can share a fight safely;
- ``transcript(fight_id, last)``: the fight's transcript lines (the last ``last``);
- ``result(fight_id)``: the outcome (winner, rounds) or "in progress";
- ``close_fight(fight_id)``;
- ``simulate(scenario, runs, seed, tactics)``: a Monte Carlo of the scenario played by the
  default policy (or a tactics spec per side) on the server — the win rates, rounds, report;
- ``sweep(spec, runs, seed)``: a position sweep (``data/sweeps`` format, YAML or JSON text).

Resources: ``pf1e://docs/{name}`` — the documentation files an agent may consult
(``actions-for-llms``, ``text-observation``, ``tactics``, ``conformance``, …; from
``--docs-dir``, default the checkout's ``docs/`` when run from one), and
``pf1e://scenarios/{name}/schemas`` — a scenario's structured-action, plan and tactics JSON
Schemas (from ``GetSpec``).

**Isolation.** A fight is named by an unguessable id (128 random bits): only a client that was
given it can read or play it — that is what lets one client hand a fight to another (several
models in one fight) while strangers cannot touch it, on stdio and on stateless HTTP alike.
Each fight has its own gRPC connection to the env server, so the server's per-client limits
(P10/P12: episodes, memory, rate, work budget) apply per fight, and its episode ownership keeps
one fight's episode out of another's reach. This server adds its own: ``--max-fights`` live
fights (default 64), each closed after ``--idle-timeout`` seconds unused (default 900); a
simulation or sweep is capped at ``--max-runs`` combats (default 100,000).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import pathlib
import secrets
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import grpc
from google.protobuf import json_format

from pf1e_gym import __version__
from pf1e_gym._codec import decision_kind_name, result_code_name
from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import Pf1eClient, resolve_address

TEXT_MODES = ("compact", "full")
LANGS = ("en", "fr")


class ToolFailure(Exception):
    """A tool call that cannot be done; the message names the argument."""


@dataclasses.dataclass
class Fight:
    """A live fight: its own client (connection), episode, last state."""

    fight_id: str
    client: Pf1eClient
    scenario: str
    seed: int
    controlled: list[str]
    state: pb.EpisodeState
    lang: str
    text_mode: str
    last_used: float
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    decisions: int = 0


def _kind(kind: int) -> str:
    name = pb.ActionKind.Name(kind) if kind in pb.ActionKind.values() else str(kind)
    return name.removeprefix("ACTION_KIND_").lower()


def _details(e: grpc.RpcError) -> str:
    return f"{e.code().name}: {e.details()}"


class Pf1eMCP:
    """The tools' logic, synchronous and transport-free (the MCP layer wraps each method).

    Args:
        address: the env server (``host:port``; default ``$PF1E_ADDRESS``).
        max_fights: live fights at most (a new one beyond is refused).
        idle_timeout: seconds after which an unused fight is closed.
        max_runs: combats at most per ``simulate`` / ``sweep``.
        docs_dir: where the ``pf1e://docs/{name}`` resources are read (``None``: the
            checkout's ``docs/`` if there is one).
        client_factory: builds the gRPC client of a fight (tests).
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        max_fights: int = 64,
        idle_timeout: float = 900.0,
        max_runs: int = 100_000,
        docs_dir: str | os.PathLike[str] | None = None,
        client_factory: Callable[[str], Pf1eClient] | None = None,
    ) -> None:
        self.address = resolve_address(address)
        self.max_fights = max_fights
        self.idle_timeout = idle_timeout
        self.max_runs = max_runs
        self.docs_dir = pathlib.Path(docs_dir) if docs_dir else _default_docs_dir()
        self._factory = client_factory or _own_connection
        self._fights: dict[str, Fight] = {}
        self._lock = threading.Lock()
        self._shared = self._factory(self.address)

    # -- fights -----------------------------------------------------------------------------

    def _fight(self, fight_id: str) -> Fight:
        self._expire()
        with self._lock:
            f = self._fights.get(fight_id)
        if f is None:
            raise ToolFailure(f"fight_id: no live fight {fight_id!r} (closed, expired or unknown)")
        f.last_used = time.monotonic()
        return f

    def _expire(self) -> None:
        now = time.monotonic()
        with self._lock:
            old = [k for k, f in self._fights.items() if now - f.last_used > self.idle_timeout]
            gone = [self._fights.pop(k) for k in old]
        for f in gone:
            _close(f)

    def list_scenarios(self) -> list[dict[str, Any]]:
        out = []
        for s in self._shared.list_scenarios():
            spec = self._shared.get_spec(s.name)
            out.append(
                {
                    "name": s.name,
                    "description": s.description,
                    "sides": list(spec.sides),
                    "combatants": [
                        {"id": c.id, "name": c.name, "side": c.side} for c in spec.combatants
                    ],
                    "map": {"name": spec.map.name, "rows": spec.map.rows, "cols": spec.map.cols},
                }
            )
        return out

    def list_formats(self) -> dict[str, Any]:
        return {
            "act": {
                "label": "an exact legal-action label, e.g. 'move to (3,4)'",
                "action_id": "an action-space id (LegalAction.id)",
                "action": "one structured JSON action, e.g. {'kind': 'attack', 'target': "
                "'orc-2', 'weapon': 'falchion'} (pf1e://docs/actions-for-llms)",
                "plan": "the rest of the turn: a list of structured actions",
            },
            "text_modes": list(TEXT_MODES),
            "languages": list(LANGS),
            "observe_formats": ["text", "json"],
        }

    def start_fight(
        self,
        scenario: str,
        side: str | None = None,
        combatants: Sequence[str] | None = None,
        seed: int = 0,
        lang: str = "en",
        text_mode: str = "compact",
    ) -> dict[str, Any]:
        if lang not in LANGS:
            raise ToolFailure(f"lang: {lang!r} is not one of {list(LANGS)}")
        if text_mode not in TEXT_MODES:
            raise ToolFailure(f"text_mode: {text_mode!r} is not one of {list(TEXT_MODES)}")
        if not 0 <= seed < 2**64:
            raise ToolFailure(f"seed: must be 0 to 2**64-1, not {seed}")
        if (side is None) == (not combatants):
            raise ToolFailure("side, combatants: give exactly one (a side, or combatant ids)")
        self._expire()
        with self._lock:
            if len(self._fights) >= self.max_fights:
                raise ToolFailure(
                    f"too many live fights ({self.max_fights}): close one (close_fight) first"
                )
        client = self._factory(self.address)
        try:
            spec = client.get_spec(scenario)
            if side is not None and side not in spec.sides:
                raise ToolFailure(f"side: {side!r} is not a side of {scenario} {list(spec.sides)}")
            ids = [c.id for c in spec.combatants]
            for c in combatants or ():
                if c not in ids:
                    raise ToolFailure(f"combatants: no combatant {c!r} in {scenario} ({ids})")
            opts = pb.ObservationOptions(
                json=False,
                typed=True,
                legal_actions=True,
                text=True,
                lang=lang,
                text_mode=text_mode,
            )
            state = client.reset(
                scenario,
                seed,
                controlled_sides=[side] if side is not None else [],
                controlled_ids=list(combatants or ()),
                observation=opts,
            )
        except grpc.RpcError as e:
            client.close()
            raise ToolFailure(f"scenario {scenario!r}: {_details(e)}") from None
        except Exception:
            client.close()
            raise
        controlled = [side] if side is not None else list(combatants or ())
        fight = Fight(
            secrets.token_hex(16),
            client,
            scenario,
            seed,
            controlled,
            state,
            lang,
            text_mode,
            time.monotonic(),
        )
        with self._lock:
            self._fights[fight.fight_id] = fight
        return {"fight_id": fight.fight_id, **self._summary(fight)}

    def _summary(self, f: Fight) -> dict[str, Any]:
        s = f.state
        out: dict[str, Any] = {
            "scenario": f.scenario,
            "seed": f.seed,
            "controlled": f.controlled,
            "over": bool(s.terminated or s.truncated),
        }
        if s.HasField("decision") and not out["over"]:
            d = s.decision
            out["decision"] = {
                "decision_id": int(d.decision_id),
                "actor": d.actor_id,
                "kind": decision_kind_name(d.kind),
                "round": int(d.round),
            }
        else:
            out["outcome"] = self._outcome(f)
        out["text"] = s.observation.text
        return out

    @staticmethod
    def _outcome(f: Fight) -> dict[str, Any]:
        s = f.state
        o = s.outcome
        return {
            "winner": o.winner or None,
            "rounds": int(o.rounds),
            "truncated": bool(s.truncated),
        }

    def observe(self, fight_id: str, format: str = "text") -> dict[str, Any]:
        f = self._fight(fight_id)
        if format == "text":
            return self._summary(f)
        if format == "json":
            with f.lock:
                full = f.client.observe(f.state.episode_id)
            out = self._summary(f)
            out.pop("text", None)
            out["observation"] = json_format.MessageToDict(
                full.observation, preserving_proto_field_name=True
            )
            out["observation"].pop("text", None)
            return out
        raise ToolFailure(f"format: {format!r} is not 'text' or 'json'")

    def legal_actions(self, fight_id: str) -> dict[str, Any]:
        f = self._fight(fight_id)
        return {
            "decision_id": int(f.state.decision.decision_id),
            "actor": f.state.decision.actor_id,
            "actions": [
                {"id": int(la.id), "label": la.label, "kind": _kind(la.action.kind)}
                for la in f.state.legal_actions
            ],
        }

    def explain(
        self,
        fight_id: str,
        label: str | None = None,
        action_id: int | None = None,
        action: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        f = self._fight(fight_id)
        given = [x is not None for x in (label, action_id, action)]
        if sum(given) != 1:
            raise ToolFailure("label, action_id, action: give exactly one")
        kw: dict[str, Any] = {}
        if label is not None:
            kw["label"] = label
        elif action_id is not None:
            kw["action_id"] = int(action_id)
        else:
            kw["action_json"] = json.dumps(action)
        with f.lock:
            try:
                ex = f.client.explain(
                    f.state.episode_id, decision_id=f.state.decision.decision_id, **kw
                )
            except grpc.RpcError as e:
                raise ToolFailure(_details(e)) from None
        return {
            "explanations": [
                {
                    "label": e.label,
                    "legal": e.legal,
                    "code": e.code,
                    "reason": e.reason,
                    "field": e.field,
                }
                for e in ex
            ]
        }

    def act(
        self,
        fight_id: str,
        label: str | None = None,
        action_id: int | None = None,
        action: dict[str, Any] | None = None,
        plan: list[dict[str, Any]] | None = None,
        actor: str | None = None,
    ) -> dict[str, Any]:
        f = self._fight(fight_id)
        given = [x is not None for x in (label, action_id, action, plan)]
        if sum(given) != 1:
            raise ToolFailure("label, action_id, action, plan: give exactly one")
        with f.lock:
            s = f.state
            if s.terminated or s.truncated or not s.HasField("decision"):
                raise ToolFailure("fight_id: the fight is over (see result)")
            if actor is not None and actor != s.decision.actor_id:
                raise ToolFailure(
                    f"actor: the pending decision is {s.decision.actor_id!r}'s, not {actor!r}"
                )
            kw: dict[str, Any]
            if label is not None:
                kw = {"action_labels": [label]}
            elif action_id is not None:
                kw = {"action_ids": [int(action_id)]}
            elif action is not None:
                kw = {"actions_json": action}
            else:
                kw = {"actions_json": {"plan": plan}}
            try:
                new = f.client.step(s.episode_id, s.decision.decision_id, **kw)
            except grpc.RpcError as e:
                raise ToolFailure(_details(e)) from None
            f.state = new
            f.decisions += 1
        out = self._summary(f)
        out["results"] = [
            {
                "kind": _kind(r.kind),
                "ok": r.ok,
                "code": result_code_name(r.code),
                "detail": r.detail,
                "field": r.field,
            }
            for r in new.results
        ]
        return out

    def transcript(self, fight_id: str, last: int = 50) -> dict[str, Any]:
        f = self._fight(fight_id)
        if last < 1:
            raise ToolFailure(f"last: must be >= 1, not {last}")
        with f.lock:
            try:
                t = f.client.export_transcript(f.state.episode_id)
            except grpc.RpcError as e:
                raise ToolFailure(_details(e)) from None
        lines = [{"round": int(x.round), "actor": x.actor, "text": x.message} for x in t.lines]
        return {"lines": lines[-last:], "total_lines": len(lines), **self.result(fight_id)}

    def result(self, fight_id: str) -> dict[str, Any]:
        f = self._fight(fight_id)
        s = f.state
        if s.terminated or s.truncated:
            return {"over": True, **self._outcome(f), "decisions": f.decisions}
        return {"over": False, "decisions": f.decisions}

    def close_fight(self, fight_id: str) -> dict[str, Any]:
        with self._lock:
            f = self._fights.pop(fight_id, None)
        if f is None:
            raise ToolFailure(f"fight_id: no live fight {fight_id!r}")
        _close(f)
        return {"closed": fight_id}

    def close_all(self) -> None:
        with self._lock:
            gone = list(self._fights.values())
            self._fights.clear()
        for f in gone:
            _close(f)
        self._shared.close()

    # -- evaluations ---------------------------------------------------------------------

    def simulate(
        self,
        scenario: str,
        runs: int = 1000,
        seed: int = 1,
        tactics: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        if not 1 <= runs <= self.max_runs:
            raise ToolFailure(f"runs: must be 1 to {self.max_runs}, not {runs}")
        spec: dict[str, Any] = {"scenario": scenario, "runs": int(runs), "seed": int(seed)}
        if tactics:
            spec["tactics"] = tactics
        return self._evaluate(json.dumps(spec), origin=f"simulate:{scenario}")

    def sweep(self, spec: str, runs: int | None = None, seed: int | None = None) -> dict[str, Any]:
        try:
            plan = self._shared.evaluate_plan(spec, runs=runs, seed=seed)
        except grpc.RpcError as e:
            raise ToolFailure(f"spec: {_details(e)}") from None
        if plan.combats > self.max_runs:
            raise ToolFailure(
                f"spec: {plan.combats} combats is over this server's --max-runs {self.max_runs}"
            )
        return self._evaluate(spec, runs=runs, seed=seed, origin="sweep")

    def _evaluate(self, spec: str, **kw: Any) -> dict[str, Any]:
        try:
            report = self._shared.evaluate(spec, text=True, **kw)
        except grpc.RpcError as e:
            raise ToolFailure(f"spec: {_details(e)}") from None
        sides = list(report.plan.sides)
        rows = []
        for p in report.placements:
            rows.append(
                {
                    "placement": int(p.index),
                    "runs": int(p.runs),
                    "wins": {sides[i]: int(w.count) for i, w in enumerate(p.wins)},
                    "draws": int(p.draws.count),
                    "mean_rounds": float(p.mean_rounds),
                }
            )
        return {"sides": sides, "placements": rows[:50], "text": report.text}

    # -- resources -----------------------------------------------------------------------

    def doc_names(self) -> list[str]:
        if self.docs_dir is None or not self.docs_dir.is_dir():
            return []
        return sorted(p.stem for p in self.docs_dir.glob("*.md"))

    def doc(self, name: str) -> str:
        if name not in self.doc_names():
            raise ToolFailure(f"name: no document {name!r}; documents: {self.doc_names()}")
        assert self.docs_dir is not None
        return (self.docs_dir / f"{name}.md").read_text(encoding="utf-8")

    def schemas(self, scenario: str) -> dict[str, Any]:
        try:
            spec = self._shared.get_spec(scenario)
        except grpc.RpcError as e:
            raise ToolFailure(f"scenario {scenario!r}: {_details(e)}") from None
        return {
            "action": json.loads(spec.action_json_schema or "null"),
            "plan": json.loads(spec.plan_json_schema or "null"),
            "tactics": json.loads(spec.tactics_json_schema or "null"),
        }


def _own_connection(address: str) -> Pf1eClient:
    """A client on a connection of its own (a local subchannel pool: gRPC would otherwise share
    one connection between channels to the same address)."""
    return Pf1eClient(address, options=[("grpc.use_local_subchannel_pool", 1)])


def _close(f: Fight) -> None:
    try:
        f.client.close_episode(f.state.episode_id)
    except grpc.RpcError:
        pass
    f.client.close()


def _default_docs_dir() -> pathlib.Path | None:
    here = pathlib.Path(__file__).resolve()
    for parent in here.parents:
        d = parent / "docs"
        if (d / "actions-for-llms.md").is_file():
            return d
    return None


# -- the MCP layer ------------------------------------------------------------------------------


def build_server(app: Pf1eMCP) -> Any:
    """The ``MCPServer`` exposing ``app``'s tools and resources."""
    import anyio
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer(
        name="pf1e-gym",
        instructions=(
            "Pathfinder 1e tactical combat. list_scenarios, then start_fight (a side or "
            "combatant ids); at each decision read the text (the map, the combatants, the "
            "legal actions) and call act with one exact label, an action id, a structured "
            "action or a plan; explain tells why an action is refused. pf1e://docs/"
            "actions-for-llms describes labels and structured actions."
        ),
    )

    def tool(fn: Callable[..., Any]) -> None:
        @functools.wraps(fn)
        async def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))
            except ToolFailure as e:
                raise ToolError(str(e)) from None

        server.add_tool(run, name=fn.__name__, description=(fn.__doc__ or "").strip())

    def list_scenarios() -> list[dict[str, Any]]:
        """The bundled scenarios: name, description, sides, combatants (id, name, side), map."""
        return app.list_scenarios()

    def list_formats() -> dict[str, Any]:
        """The answer formats act takes, the text modes and languages of observations."""
        return app.list_formats()

    def start_fight(
        scenario: str,
        side: str | None = None,
        combatants: list[str] | None = None,
        seed: int = 0,
        lang: str = "en",
        text_mode: str = "compact",
    ) -> dict[str, Any]:
        """Start a fight of a scenario: you control one side (side) or some combatants by id
        (combatants); the default policy plays the others. Same seed = same fight. Returns
        fight_id, the pending decision and its text (lang en/fr; text_mode compact/full)."""
        return app.start_fight(scenario, side, combatants, seed, lang, text_mode)

    def observe(fight_id: str, format: str = "text") -> dict[str, Any]:
        """The pending decision of a fight: format 'text' (the rendered decision) or 'json'
        (the typed observation)."""
        return app.observe(fight_id, format)

    def legal_actions(fight_id: str) -> dict[str, Any]:
        """Every legal action of the pending decision: id, exact label, kind."""
        return app.legal_actions(fight_id)

    def explain(
        fight_id: str,
        label: str | None = None,
        action_id: int | None = None,
        action: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Is this action legal now, and if not why (reason code, words, field)? Give one of
        label, action_id, action (structured JSON)."""
        return app.explain(fight_id, label, action_id, action)

    def act(
        fight_id: str,
        label: str | None = None,
        action_id: int | None = None,
        action: dict[str, Any] | None = None,
        plan: list[dict[str, Any]] | None = None,
        actor: str | None = None,
    ) -> dict[str, Any]:
        """Answer the pending decision with one of: label (exact), action_id, action
        (structured JSON, e.g. {"kind": "attack", "target": "orc-2"}), plan (a list of
        structured actions: the rest of the turn). actor, when given, must be the deciding
        combatant (for agents sharing a fight). Returns the results and the next decision."""
        return app.act(fight_id, label, action_id, action, plan, actor)

    def transcript(fight_id: str, last: int = 50) -> dict[str, Any]:
        """The fight's transcript: its last `last` lines (rolls, hits, damage, moves)."""
        return app.transcript(fight_id, last)

    def result(fight_id: str) -> dict[str, Any]:
        """The fight's outcome (winner, rounds) once over, else in progress."""
        return app.result(fight_id)

    def close_fight(fight_id: str) -> dict[str, Any]:
        """End a fight and free it."""
        return app.close_fight(fight_id)

    def simulate(
        scenario: str, runs: int = 1000, seed: int = 1, tactics: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Monte Carlo: play the scenario `runs` times with the default policy (or a tactics
        spec per side: {side: spec}); wins per side, draws, mean rounds and the report."""
        return app.simulate(scenario, runs, seed, tactics)

    def sweep(spec: str, runs: int | None = None, seed: int | None = None) -> dict[str, Any]:
        """A position sweep for a game master: the spec (YAML or JSON text, data/sweeps
        format); placements ranked by win rate."""
        return app.sweep(spec, runs, seed)

    for fn in (
        list_scenarios,
        list_formats,
        start_fight,
        observe,
        legal_actions,
        explain,
        act,
        transcript,
        result,
        close_fight,
        simulate,
        sweep,
    ):
        tool(fn)

    @server.resource(
        "pf1e://docs/{name}",
        name="pf1e-docs",
        description="A pf1e-gym documentation file (Markdown): actions-for-llms, "
        "text-observation, tactics, conformance, …",
        mime_type="text/markdown",
    )
    def doc(name: str) -> str:
        try:
            return app.doc(name)
        except ToolFailure as e:
            raise ValueError(str(e)) from None

    @server.resource(
        "pf1e://scenarios/{name}/schemas",
        name="pf1e-schemas",
        description="A scenario's JSON Schemas: structured action, turn plan, tactics.",
        mime_type="application/json",
    )
    def schemas(name: str) -> str:
        try:
            return json.dumps(app.schemas(name))
        except ToolFailure as e:
            raise ValueError(str(e)) from None

    return server


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pf1e-mcp",
        description="pf1e-gym as an MCP server (stdio or streamable HTTP) in front of a "
        "pf1e-env-server.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    p.add_argument("--address", help="pf1e-env-server host:port (default $PF1E_ADDRESS)")
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP: address to listen on")
    p.add_argument("--port", type=int, default=8765, help="HTTP: port (endpoint /mcp)")
    p.add_argument("--max-fights", type=int, default=64, help="live fights at most")
    p.add_argument(
        "--idle-timeout", type=float, default=900.0, help="seconds before an unused fight closes"
    )
    p.add_argument("--max-runs", type=int, default=100_000, help="combats per simulate/sweep")
    p.add_argument("--docs-dir", help="the documentation resources (default: the checkout's)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """The ``pf1e-mcp`` entry point."""
    args = _parser().parse_args(argv)
    for name in ("max_fights", "max_runs"):
        if getattr(args, name) < 1:
            print(f"pf1e-mcp: error: --{name.replace('_', '-')} must be >= 1", file=sys.stderr)
            return 2
    if args.idle_timeout <= 0:
        print("pf1e-mcp: error: --idle-timeout must be > 0", file=sys.stderr)
        return 2
    try:
        import mcp  # noqa: F401
    except ImportError:
        print(
            "pf1e-mcp: error: the mcp package is missing: pip install 'pf1e-gym[mcp]'",
            file=sys.stderr,
        )
        return 2
    app = Pf1eMCP(
        args.address,
        max_fights=args.max_fights,
        idle_timeout=args.idle_timeout,
        max_runs=args.max_runs,
        docs_dir=args.docs_dir,
    )
    server = build_server(app)
    try:
        if args.transport == "stdio":
            server.run("stdio")
        else:
            print(
                f"pf1e-mcp: streamable HTTP on http://{args.host}:{args.port}/mcp",
                file=sys.stderr,
                flush=True,
            )
            server.run("streamable-http", host=args.host, port=args.port)
    finally:
        app.close_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
