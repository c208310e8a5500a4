"""pf1e-mcp (pf1e_gym.mcp_server) through the official MCP client library (package ``mcp``)
against the real server binary: a whole fight over stdio, two agents sharing one fight over
streamable HTTP, the errors, the resources and a Monte Carlo."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import time

import pytest
from conftest import REPO, REQUIRE_LLAMA

try:
    import mcp
except ImportError as e:  # pragma: no cover - the [mcp] extra is in CI's install
    if REQUIRE_LLAMA:
        pytest.fail(f"the mcp package is missing (pip install 'pf1e-gym[mcp]'): {e}")
    pytest.skip(f"the mcp package is missing: {e}", allow_module_level=True)


def payload(result) -> dict:
    """A tool result's JSON value (structured content, else the text content)."""
    assert not result.is_error, result.content
    sc = result.structured_content
    if isinstance(sc, dict):
        return sc.get("result", sc) if set(sc) == {"result"} else sc
    return json.loads(result.content[0].text)


def error_text(result) -> str:
    assert result.is_error, result
    return " ".join(getattr(c, "text", "") for c in result.content)


def pick(fight: dict, legal: dict) -> str:
    labels = [a["label"] for a in legal["actions"]]
    for prefix in ("full_attack", "attack", "charge", "move toward"):
        for lab in labels:
            if lab.startswith(prefix):
                return lab
    if "end_turn" in labels:
        return "end_turn"
    return next(lab for lab in labels if lab.startswith("decline"))


def stdio_params(address: str) -> mcp.StdioServerParameters:
    return mcp.StdioServerParameters(
        command=sys.executable,
        args=["-m", "pf1e_gym.mcp_server", "--address", address],
        env={**os.environ, "PYTHONPATH": str(REPO / "clients" / "python")},
    )


def test_a_whole_fight_over_stdio(server_address):
    async def main() -> None:
        async with mcp.Client(stdio_params(server_address)) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            assert {
                "list_scenarios",
                "start_fight",
                "act",
                "explain",
                "legal_actions",
                "observe",
                "transcript",
                "result",
                "simulate",
                "sweep",
            } <= tools
            scenarios = payload(await c.call_tool("list_scenarios", {}))
            names = (
                [s["name"] for s in scenarios]
                if isinstance(scenarios, list)
                else [s["name"] for s in scenarios["result"]]
            )
            assert "mirror_duel" in names
            fight = payload(
                await c.call_tool(
                    "start_fight", {"scenario": "mirror_duel", "side": "west", "seed": 4}
                )
            )
            fid = fight["fight_id"]
            assert len(fid) == 32 and "Legal actions" in fight["text"]
            assert " (row,col): " in fight["text"]  # compact by default
            ob = payload(await c.call_tool("observe", {"fight_id": fid, "format": "json"}))
            ids = [x["id"] for x in ob["observation"]["combatants"]]
            assert ids == ["orc", "orc-2"] and ob["decision"]["actor"] == "orc"
            # explain a move into a wall
            ex = payload(await c.call_tool("explain", {"fight_id": fid, "label": "move to (0,0)"}))
            assert ex["explanations"][0]["legal"] is False and ex["explanations"][0]["reason"]
            # an unknown label is a tool error naming the field, the fight unharmed
            err = await c.call_tool("act", {"fight_id": fid, "label": "fly away"})
            assert "action_labels[0]" in error_text(err)
            decisions = 0
            while not fight["over"]:
                legal = payload(await c.call_tool("legal_actions", {"fight_id": fid}))
                fight = payload(
                    await c.call_tool("act", {"fight_id": fid, "label": pick(fight, legal)})
                )
                assert all(r["ok"] for r in fight["results"]), fight["results"]
                decisions += 1
                assert decisions < 500
            res = payload(await c.call_tool("result", {"fight_id": fid}))
            assert res["over"] and res["winner"] in ("west", "east", None)
            assert res["decisions"] == decisions
            tr = payload(await c.call_tool("transcript", {"fight_id": fid, "last": 5}))
            assert 0 < len(tr["lines"]) <= 5 and tr["total_lines"] >= len(tr["lines"])
            err = await c.call_tool("act", {"fight_id": fid, "label": "end_turn"})
            assert "over" in error_text(err)
            payload(await c.call_tool("close_fight", {"fight_id": fid}))
            err = await c.call_tool("observe", {"fight_id": fid})
            assert "fight_id" in error_text(err)
            # the same seed and choices replay the same fight: the winner matches
            again = payload(
                await c.call_tool(
                    "start_fight", {"scenario": "mirror_duel", "side": "west", "seed": 4}
                )
            )
            while not again["over"]:
                legal = payload(await c.call_tool("legal_actions", {"fight_id": again["fight_id"]}))
                again = payload(
                    await c.call_tool(
                        "act", {"fight_id": again["fight_id"], "label": pick(again, legal)}
                    )
                )
            assert again["outcome"] == {k: res[k] for k in ("winner", "rounds", "truncated")}
            # bad arguments name the field
            err = await c.call_tool("start_fight", {"scenario": "mirror_duel", "side": "north"})
            assert "side" in error_text(err)
            err = await c.call_tool(
                "start_fight", {"scenario": "mirror_duel", "side": "west", "text_mode": "x"}
            )
            assert "text_mode" in error_text(err)
            # resources: the docs and a scenario's schemas
            doc = await c.read_resource("pf1e://docs/actions-for-llms")
            assert "structured" in doc.contents[0].text
            sch = await c.read_resource("pf1e://scenarios/mirror_duel/schemas")
            assert json.loads(sch.contents[0].text)["action"]["required"] == ["kind"]
            # a Monte Carlo for a game master
            mc = payload(
                await c.call_tool("simulate", {"scenario": "mirror_duel", "runs": 40, "seed": 1})
            )
            row = mc["placements"][0]
            assert row["runs"] == 40 and sum(row["wins"].values()) + row["draws"] == 40

    asyncio.run(main())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def http_server(address: str):
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO / "clients" / "python")}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pf1e_gym.mcp_server",
            "--address",
            address,
            "--transport",
            "http",
            "--port",
            str(port),
            "--max-fights",
            "2",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert proc.poll() is None, proc.stderr.read()
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_two_agents_share_a_fight_over_http(server_address):
    """Several models in one fight: one MCP client per combatant; each acts only on its own
    decisions (``actor``), with the fight id the first handed to the second."""

    async def main(url: str) -> None:
        async with mcp.Client(url) as a, mcp.Client(url) as b:
            fight = payload(
                await a.call_tool(
                    "start_fight",
                    {"scenario": "mirror_duel", "combatants": ["orc", "orc-2"], "seed": 5},
                )
            )
            fid = fight["fight_id"]
            agents = {"orc": a, "orc-2": b}
            seen = set()
            n = 0
            while not fight["over"]:
                actor = fight["decision"]["actor"]
                other = agents["orc-2" if actor == "orc" else "orc"]
                err = await other.call_tool(
                    "act",
                    {
                        "fight_id": fid,
                        "label": "end_turn",
                        "actor": "orc-2" if actor == "orc" else "orc",
                    },
                )
                assert "actor" in error_text(err)  # not its decision
                me = agents[actor]
                legal = payload(await me.call_tool("legal_actions", {"fight_id": fid}))
                fight = payload(
                    await me.call_tool(
                        "act", {"fight_id": fid, "label": pick(fight, legal), "actor": actor}
                    )
                )
                seen.add(actor)
                n += 1
                assert n < 500
            assert seen == {"orc", "orc-2"}
            assert fight["outcome"]["winner"] in ("west", "east", None)
            # the server's own limit: two live fights at most (--max-fights 2)
            f2 = payload(
                await a.call_tool("start_fight", {"scenario": "mirror_duel", "side": "west"})
            )
            err = await b.call_tool("start_fight", {"scenario": "mirror_duel", "side": "east"})
            assert "too many live fights" in error_text(err)
            payload(await a.call_tool("close_fight", {"fight_id": f2["fight_id"]}))
            # a stranger without the id cannot guess it
            err = await b.call_tool("observe", {"fight_id": "0" * 32})
            assert "fight_id" in error_text(err)

    with http_server(server_address) as url:
        asyncio.run(main(url))


def test_cli_refuses_bad_limits():
    r = subprocess.run(
        [sys.executable, "-m", "pf1e_gym.mcp_server", "--max-fights", "0"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO / "clients" / "python")},
    )
    assert r.returncode == 2 and "--max-fights" in r.stderr
