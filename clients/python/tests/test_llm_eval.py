"""pf1e-llm-eval end to end with the scripted model (tests/scripted_llm.py) on the real
server: the scorecard printed and written, the JSONL transcripts consistent with it; exit
code 2 on bad arguments and unreachable servers; the statistics helpers."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest
from scripted_llm import ScriptedLLM, attack_or_end_turn

from pf1e_gym.llm import percentile, two_proportion_z, wilson_interval
from pf1e_gym.llm.eval import main


def test_eval_end_to_end(server_address: str, tmp_path: pathlib.Path, capsys) -> None:
    out = tmp_path / "llm"
    script = [{"content": "```json\n{oops"}, {"content": json.dumps({"action": "cartwheel"})}]
    with ScriptedLLM(script, default=attack_or_end_turn) as llm:
        rc = main(
            [
                "--address", server_address,
                "--base-url", llm.base_url,
                "--model", "scripted",
                "--scenario", "sample_arena",
                "--side", "players",
                "--fights", "3",
                "--seed", "5",
                "--retries", "2",
                "--out", str(out),
            ]
        )  # fmt: skip
        n_requests = len(llm.requests)
    assert rc == 0
    printed = capsys.readouterr().out
    assert "LLM scorecard" in printed and "95% Wilson interval" in printed
    card = json.loads((out / "scorecard.json").read_text())
    assert card["fights"] == 3 and card["seeds"] == [5, 6, 7]
    assert card["wins"] + card["losses"] + card["draws"] == 3
    lo, hi = card["win_rate_wilson95"]
    assert lo <= card["win_rate"] <= hi
    assert (lo, hi) == pytest.approx(wilson_interval(card["wins"], 3))
    assert card["malformed"] == {"invalid_json": 1, "unknown_label": 1}
    assert card["retries"] == 2 and card["fallbacks"] == 0
    assert card["model_calls"] == n_requests
    assert card["decisions"] == card["accepted"] > 0
    assert card["prompt_tokens"] == 100 * n_requests
    assert card["completion_tokens"] == 10 * n_requests
    assert card["per_decision"]["retries"] == pytest.approx(2 / card["decisions"])
    assert card["latency_s"]["p50"] <= card["latency_s"]["p95"] <= card["latency_s"]["max"]
    assert f"win rate      {card['win_rate']:.3f}" in printed
    # transcripts: one file per fight, one line per model call, counts as in the scorecard
    files = sorted(out.glob("fight-*.jsonl"))
    assert [f.name for f in files] == [
        "fight-0-seed-5.jsonl",
        "fight-1-seed-6.jsonl",
        "fight-2-seed-7.jsonl",
    ]
    lines = [json.loads(x) for f in files for x in f.read_text().splitlines()]
    calls = [x for x in lines if x["type"] == "call"]
    assert len(calls) == card["model_calls"]
    assert sum(x["result"] == "accepted" for x in calls) == card["accepted"]
    assert sum(x["result"] == "refused" for x in calls) == 2
    assert len({(x["fight"], x["decision_id"]) for x in calls}) == card["decisions"]
    first = calls[0]
    assert first["reply"] == "```json\n{oops" and first["reason"] == "invalid_json"
    assert first["messages"][0]["role"] == "system"
    assert {"prompt_tokens", "completion_tokens", "latency_s", "format_level"} <= first.keys()
    assert calls[2]["result"] == "accepted" and calls[2]["results"][0]["ok"]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pf1e_gym.llm.eval", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_exit_code_2(server_address: str) -> None:
    with ScriptedLLM() as llm:
        base = ["--base-url", llm.base_url, "--address", server_address]
        bad = run_cli(*base, "--answer", "poem")
        assert bad.returncode == 2 and "--answer" in bad.stderr
        bad = run_cli(*base, "--fights", "0")
        assert bad.returncode == 2 and "--fights" in bad.stderr
        bad = run_cli(*base, "--side", "dragons")
        assert bad.returncode == 2 and "dragons" in bad.stderr
        bad = run_cli(*base, "--scenario", "no_such_scenario")
        assert bad.returncode == 2 and "no_such_scenario" in bad.stderr
        bad = run_cli("--base-url", llm.base_url, "--address", "127.0.0.1:1")
        assert bad.returncode == 2 and "cannot reach the pf1e-env-server" in bad.stderr
        assert llm.requests == []  # nothing asked of the model
    bad = run_cli("--base-url", "http://127.0.0.1:1/v1", "--address", server_address)
    assert bad.returncode == 2 and "cannot reach the chat endpoint" in bad.stderr
    bad = run_cli("strategy")
    assert bad.returncode == 2


def test_wilson_interval_known_values() -> None:
    # Wilson (1927) score interval, 95 %: 5/10 -> [0.2366, 0.7634]; 0/10 -> [0, 0.2775]
    assert wilson_interval(5, 10) == pytest.approx((0.23659, 0.76341), abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.27753, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_percentile_and_z_test() -> None:
    assert percentile([3.0, 1.0, 2.0, 4.0], 50) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 95) == pytest.approx(4.8)
    assert percentile([], 50) == 0.0
    z, p = two_proportion_z(60, 100, 40, 100)
    assert z == pytest.approx(2.8284, abs=1e-4) and p == pytest.approx(0.004678, abs=1e-5)
    assert two_proportion_z(0, 10, 0, 10) == (0.0, 1.0)


def test_eval_at_the_plain_text_level(server_address: str, tmp_path: pathlib.Path) -> None:
    # No response_format at all: the labels come from the prompt, the reply is parsed as text.
    with ScriptedLLM(default=attack_or_end_turn) as llm:
        rc = main(
            [
                "--address", server_address,
                "--base-url", llm.base_url,
                "--format-level", "text",
                "--fights", "1",
                "--lang", "fr",
                "--out", str(tmp_path),
                "--json",
            ]
        )  # fmt: skip
        reqs = llm.requests
    assert rc == 0
    card = json.loads((tmp_path / "scorecard.json").read_text())
    assert card["format_level"] == "text" and card["lang"] == "fr"
    assert card["malformed"] == {} and card["decisions"] == card["accepted"] == len(reqs)
    assert all("response_format" not in r for r in reqs)


def test_scorecard_axes_and_paired_default(server_address: str, tmp_path: pathlib.Path) -> None:
    from pf1e_gym import Pf1eClient
    from pf1e_gym.llm.eval import default_outcomes

    with ScriptedLLM(default=attack_or_end_turn) as llm:
        rc = main(
            ["--address", server_address, "--base-url", llm.base_url, "--model", "s",
             "--scenario", "mirror_duel", "--side", "west", "--fights", "4", "--seed", "1",
             "--out", str(tmp_path)]
        )  # fmt: skip
    assert rc == 0
    card = json.loads((tmp_path / "scorecard.json").read_text())
    axes = card["axes"]
    assert set(axes) == {
        "rule_compliance", "parameter_fidelity", "efficiency", "outcome", "tactical_optimality"
    }  # fmt: skip
    assert axes["rule_compliance"]["first_try_rate"] == 1.0
    assert axes["parameter_fidelity"]["rate"] == 1.0
    assert axes["parameter_fidelity"]["submitted_actions"] == card["decisions"]
    assert axes["efficiency"]["prompt_tokens_per_decision"] == 100.0
    assert axes["tactical_optimality"] is None
    paired = axes["outcome"]["paired_vs_default"]
    with Pf1eClient(server_address) as c:
        base = default_outcomes(c, "mirror_duel", "west", [1, 2, 3, 4])
    assert paired["default_wins"] == base.count("win")
    assert paired["agent_only"] + paired["both_win"] == card["wins"]
    assert 0.0 <= paired["mcnemar_p"] <= 1.0


def test_mcnemar_exact_known_values() -> None:
    from pf1e_gym.llm.eval import mcnemar_exact

    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)  # two-sided binomial, n = 6
    assert mcnemar_exact(1, 9) == pytest.approx(2 * 11 / 1024)


def test_modes_on_the_same_seeds(server_address: str, tmp_path: pathlib.Path, capsys) -> None:
    """``--answer label,tools``: both modes, same seeds, one scorecard each and a table."""

    def respond(req: dict) -> dict:
        if "tools" in req:  # function calling: end the turn, or decline a reaction
            names = [t["function"]["name"] for t in req["tools"]]
            return {
                "tool_calls": [
                    {"name": "end_turn" if "end_turn" in names else "decline", "arguments": {}}
                ]
            }
        return attack_or_end_turn(req)

    with ScriptedLLM(default=respond) as llm:
        rc = main(
            ["--address", server_address, "--base-url", llm.base_url, "--model", "s",
             "--scenario", "mirror_duel", "--side", "west", "--fights", "2", "--seed", "1",
             "--answer", "label,tools", "--text-mode", "compact", "--no-paired",
             "--out", str(tmp_path)]
        )  # fmt: skip
    assert rc == 0
    out = capsys.readouterr().out
    assert "Answer modes on the same seeds:" in out and "param. fidelity" in out
    label = json.loads((tmp_path / "label" / "scorecard.json").read_text())
    tools = json.loads((tmp_path / "tools" / "scorecard.json").read_text())
    assert label["seeds"] == tools["seeds"] == [1, 2]
    assert tools["answer"] == "tools" and tools["text_mode"] == "compact"
    assert tools["accepted"] == tools["decisions"] > 0 and tools["fallbacks"] == 0
    assert "paired_vs_default" not in tools["axes"]["outcome"]


def test_several_agents_in_one_fight(server_address: str, tmp_path: pathlib.Path, capsys) -> None:
    """One agent per combatant (two models on two endpoints), the scorecard per agent."""
    with (
        ScriptedLLM(default=attack_or_end_turn) as a,
        ScriptedLLM(default={"content": json.dumps({"action": "end_turn"})}) as b,
    ):
        rc = main(
            ["--address", server_address, "--scenario", "mirror_duel", "--fights", "2",
             "--seed", "1", "--base-url", a.base_url, "--model", "a",
             "--agent", "orc=model=attacker",
             "--agent", f"orc-2=model=waiter,base_url={b.base_url},retries=0",
             "--out", str(tmp_path)]
        )  # fmt: skip
        assert a.requests and b.requests
        # each decision went to its own combatant's model
        assert all(
            "orc decides" in m["content"]
            for r in a.requests
            for m in r["messages"]
            if m["role"] == "user" and "decides" in m["content"]
        )
        assert all(r["model"] == "waiter" for r in b.requests)
        assert all(r["model"] == "attacker" for r in a.requests)
    assert rc == 0
    cards = json.loads((tmp_path / "scorecards.json").read_text())
    assert set(cards) == {"orc", "orc-2"}
    assert cards["orc"]["side"] == "west" and cards["orc-2"]["side"] == "east"
    assert cards["orc"]["model"] == "attacker" and cards["orc-2"]["model"] == "waiter"
    assert cards["orc"]["model_calls"] == len(a.requests)
    # the same fights: the wins of one are the losses of the other
    assert cards["orc"]["wins"] == cards["orc-2"]["losses"]
    assert sorted(tmp_path.glob("fight-0-seed-1-*.jsonl"))
    assert "Agents of the same fights:" in capsys.readouterr().out
    # a combatant id that does not exist: exit 2 naming it
    with ScriptedLLM(default=attack_or_end_turn) as a:
        rc = main(
            ["--address", server_address, "--scenario", "mirror_duel", "--fights", "1",
             "--base-url", a.base_url, "--agent", "nobody=model=x"]
        )  # fmt: skip
    assert rc == 2 and "nobody" in capsys.readouterr().err
