"""compile_strategy and evaluate_strategies on the real server with the scripted model
(tests/scripted_llm.py): a refused spec's errors go back to the model; shipped tactics files
compared through Evaluate with 3-sigma bands and z-tests."""

from __future__ import annotations

import json
import pathlib
import subprocess

import pytest
import yaml
from conftest import REPO, sim_binary
from scripted_llm import ScriptedLLM

from pf1e_gym import Pf1eClient
from pf1e_gym._codec import capabilities
from pf1e_gym.llm import (
    ChatModel,
    StrategyError,
    compile_strategy,
    evaluate_strategies,
    strategy_sweep_spec,
    two_proportion_z,
)
from pf1e_gym.llm.eval import main
from pf1e_gym.llm.strategy import tactics_errors, tactics_request_schema

SCENARIO = "sample_arena"

VALID = {
    "name": "focus fire",
    "description": "focus fire the weakest",
    "default": {"target": ["lowest_hp"]},
}
SCHEMA_INVALID = {
    "name": "focus fire",
    "description": "focus fire the weakest",
    "default": {"target": ["the_weakest_one"]},
}


@pytest.fixture(scope="module")
def client(server_address: str):
    with Pf1eClient(server_address) as c:
        yield c


@pytest.fixture(scope="module")
def has_tactics(client: Pf1eClient) -> bool:
    spec = client.get_spec(SCENARIO)
    return capabilities(spec)["tactics"] and bool(spec.tactics_json_schema)


def model(llm: ScriptedLLM) -> ChatModel:
    return ChatModel(llm.base_url, "scripted", api_key="test", timeout=5.0)


def test_sweep_spec_shape() -> None:
    s = strategy_sweep_spec(SCENARIO, "players", VALID, runs=300, seed=4)
    assert s["scenario"] == SCENARIO and s["runs"] == 300 and s["seed"] == 4
    assert s["rank_side"] == "players" and s["tactics"] == {"players": VALID}
    assert "placements" not in s
    assert "tactics" not in strategy_sweep_spec(SCENARIO, "players", None, runs=1, seed=1)


def test_compile_strategy_sends_errors_back(client, has_tactics) -> None:
    assert has_tactics
    script = [
        {"content": "I would focus the weakest orc."},
        {"content": json.dumps(SCHEMA_INVALID)},
        {"content": json.dumps(VALID)},
    ]
    attempts: list[dict] = []
    with ScriptedLLM(script) as llm:
        spec = compile_strategy(
            "focus fire the weakest",
            scenario=SCENARIO,
            side="players",
            client=client,
            model=model(llm),
            retries=3,
            attempts=attempts,
        )
        reqs = llm.requests
    assert len(reqs) == 3
    assert {k: spec[k] for k in VALID} == VALID
    assert spec["source"] == "compiled by scripted from words"
    assert [bool(a["errors"]) for a in attempts] == [True, True, False]
    # each refusal reached the next request
    assert "not a JSON object" in reqs[1]["messages"][-1]["content"]
    assert "the_weakest_one" in reqs[2]["messages"][-1]["content"]
    assert attempts[1]["errors"][0] in reqs[2]["messages"][-1]["content"]
    spec_pb = client.get_spec(SCENARIO)
    schema = json.loads(spec_pb.tactics_json_schema)
    asked = reqs[0]["response_format"]["json_schema"]["schema"]
    assert asked == tactics_request_schema(schema, spec_pb)
    # a strict subset: no free strings to write, combatant keys from the scenario
    assert "description" not in asked["properties"] and "source" not in asked["properties"]
    assert asked["required"] == ["name"]
    keys = asked["properties"]["combatants"]["properties"]
    assert {"orc-2", "goblin"} <= set(keys) and asked["properties"]["combatants"][
        "additionalProperties"
    ] is False
    assert "focus fire the weakest" in reqs[0]["messages"][1]["content"]
    assert "orc-2" in reqs[0]["messages"][1]["content"]  # the combatants are listed


def test_compile_strategy_gives_up(client, has_tactics) -> None:
    assert has_tactics
    with ScriptedLLM(default={"content": json.dumps(SCHEMA_INVALID)}) as llm:
        with pytest.raises(StrategyError, match="after 2 replies") as err:
            compile_strategy(
                "x", scenario=SCENARIO, side="players", client=client, model=model(llm), retries=1
            )
    assert len(err.value.attempts) == 2


def test_the_engine_check_names_the_field(client, has_tactics) -> None:
    assert has_tactics
    errors = tactics_errors(client, SCENARIO, "players", {**VALID, "bogus_field": 1})
    assert len(errors) == 1 and "bogus_field" in errors[0]
    assert tactics_errors(client, SCENARIO, "players", VALID) == []


SHIPPED = ("archers_hold_the_pillar", "focus_fire_weakest")  # data/tactics/, for sample_arena


def shipped_tactics() -> dict[str, dict]:
    return {
        name: yaml.safe_load((REPO / "data" / "tactics" / f"{name}.yaml").read_text())
        for name in SHIPPED
    }


def test_evaluate_two_shipped_strategies(client, has_tactics) -> None:
    assert has_tactics
    specs = shipped_tactics()
    for spec in specs.values():
        assert tactics_errors(client, SCENARIO, "players", spec) == []
    report = evaluate_strategies(
        specs, scenario=SCENARIO, side="players", runs=300, seed=3, client=client
    )
    rows = report["rows"]
    assert [r["name"] for r in rows] == ["default", *specs]
    for r in rows:
        assert r["runs"] == 300 and 0 <= r["wins"] <= 300
        assert r["win_rate"] == r["wins"] / 300
        lo, hi = r["band_3sigma"]
        assert lo <= r["win_rate"] <= hi
    assert len(report["pairs"]) == 3
    for p in report["pairs"]:
        a = next(r for r in rows if r["name"] == p["a"])
        b = next(r for r in rows if r["name"] == p["b"])
        z, pv = two_proportion_z(a["wins"], 300, b["wins"], 300)
        assert (p["z"], p["p"]) == (z, pv) and p["significant"] == (abs(z) >= 3)
    for name in specs:
        assert name in report["text"]
    again = evaluate_strategies(
        specs, scenario=SCENARIO, side="players", runs=300, seed=3, client=client
    )
    assert again["rows"] == rows  # deterministic


def test_strategy_cli_writes_a_tactics_file(
    server_address, client, has_tactics, tmp_path: pathlib.Path, capsys
) -> None:
    assert has_tactics
    out = tmp_path / "tactics.yaml"
    with ScriptedLLM(
        [{"content": json.dumps(SCHEMA_INVALID)}, {"content": json.dumps(VALID)}]
    ) as llm:
        rc = main(
            [
                "strategy", "focus fire the weakest",
                "--address", server_address,
                "--base-url", llm.base_url,
                "--scenario", SCENARIO,
                "--side", "players",
                "--out", str(out),
                "--runs", "100",
            ]
        )  # fmt: skip
    assert rc == 0
    written = yaml.safe_load(out.read_text())
    assert {k: written[k] for k in VALID} == VALID
    assert tactics_errors(client, SCENARIO, "players", written) == []
    printed = capsys.readouterr().out
    assert "compiled" in printed and "default" in printed and "z =" in printed
    # pf1e-sim plays the written file
    goblin, orc = (str(REPO / "data" / "monsters" / f"{m}.json") for m in ("goblin", "orc"))
    sim = subprocess.run(
        [
            str(sim_binary()),
            "--map", str(REPO / "data" / "maps" / "sample_arena.yaml"),
            "--side", "players", goblin, goblin, goblin,
            "--side", "monsters", orc, orc,
            "--tactics", f"players={out}",
            "--runs", "50",
            "--seed", "1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )  # fmt: skip
    assert sim.returncode == 0, sim.stderr
