"""The LLM layer end to end against a real model: llama.cpp's ``llama-server`` serving the tiny
random-weight model of :mod:`pf1e_gym.llm.local_model`, decoding constrained by the JSON Schema
of each request, and a real pf1e-env-server. Nothing is scripted on this path: prompt → HTTP →
tokenize → decode under the grammar → parse → validate → Step / Explain → scorecard.

- the ``pf1e-llm-eval`` console script plays a whole fight in ``label`` mode (the schema is the
  enum of the legal labels, so every reply is accepted);
- ``action`` mode (``Spec.action_json_schema``) for a few decisions: the replies are valid
  structured actions, most of them illegal for a random model, so Explain's reasons and the
  retry path run for real;
- ``compile_strategy`` writes a tactics spec the engine accepts, which ``pf1e-sim --tactics``
  then plays.

Cost control (random weights read ~1 token per byte): the ``mirror_duel`` scenario (one orc a
side), one fight, a few action-mode decisions, greedy decoding. Needs ``PF1E_LLAMA_SERVER`` and
the ``llm`` extra: without them the tests skip, under ``PF1E_REQUIRE_LLAMA=1`` they fail.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, llama_server_or_skip, llm_import, sim_binary

SCENARIO = "mirror_duel"
SIDE = "west"
#: Context of the server: an action-mode prompt (~8.6k characters: the observation and the
#: structured-action schema) plus one retry (the reply, the reason and the schema again).
N_CTX = 16384
ACTION_DECISIONS = 6


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    llm_import("gguf")
    llm_import("openai")
    llama_server_or_skip()
    from pf1e_gym.llm.local_model import LocalLlamaServer, write_tiny_model

    model = write_tiny_model(tmp_path_factory.mktemp("llm") / "tiny.gguf", seed=0, n_ctx=N_CTX)
    with LocalLlamaServer(model, n_ctx=N_CTX) as srv:
        yield srv


@pytest.fixture(scope="module")
def client(server_address):
    from pf1e_gym import Pf1eClient

    with Pf1eClient(server_address, timeout=60.0) as c:
        yield c


def _chat_model(llama, **kw):
    from pf1e_gym.llm import ChatModel

    # temperature 0 (ChatModel's default): greedy, so a run repeats itself.
    return ChatModel(llama.base_url, llama.model, timeout=120.0, transport_retries=0, **kw)


def test_eval_console_script_plays_a_whole_fight(llama, server_address, tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "pf1e-llm-eval"
    assert script.is_file(), f"{script}: the console script of the package is not installed"
    out = tmp_path / "eval"
    # fmt: off
    proc = subprocess.run(
        [
            str(script), "--address", server_address, "--scenario", SCENARIO, "--side", SIDE,
            "--fights", "1", "--seed", "1", "--base-url", llama.base_url,
            "--model", llama.model, "--answer", "label", "--timeout", "120",
            "--out", str(out), "--json",
        ],
        capture_output=True, text=True, timeout=600, check=False,
    )
    # fmt: on
    assert proc.returncode == 0, proc.stderr
    card = json.loads(proc.stdout)
    assert json.loads((out / "scorecard.json").read_text()) == card
    assert card["model"] == llama.model and card["answer"] == "label"
    assert card["format_level"] == "json_schema"  # the real server took the schema
    assert card["fights"] == 1 and card["wins"] + card["losses"] + card["draws"] == 1
    assert card["mean_rounds"] >= 1
    d = card["decisions"]
    assert d > 0
    # the schema is the enum of the legal labels: every reply is one, and accepted
    assert card["malformed_total"] == 0 and card["malformed"] == {}
    assert card["fallbacks"] == 0 and card["retries"] == 0
    assert card["accepted"] == d and card["model_calls"] == d
    assert card["transport_errors"] == {} and card["format_downgrades"] == 0
    assert card["prompt_tokens"] > 1000 * d  # a text observation: > 1k byte tokens each
    assert card["completion_tokens"] >= 10 * d  # at least '{"action":"' + a label
    lat = card["latency_s"]
    assert 0 < lat["p50"] <= lat["p95"] <= lat["max"] and lat["mean"] > 0

    transcripts = sorted(out.glob("fight-*.jsonl"))
    assert [p.name for p in transcripts] == ["fight-0-seed-1.jsonl"]
    records = [json.loads(line) for line in transcripts[0].read_text().splitlines()]
    assert len(records) == d and all(r["type"] == "call" for r in records)
    assert sum(r["prompt_tokens"] for r in records) == card["prompt_tokens"]
    for r in records:
        assert r["fight"] == 0 and r["seed"] == 1 and r["result"] == "accepted"
        assert json.loads(r["reply"]) == {"action": r["parsed"]}
        assert r["submitted"] == {"action_labels": [r["parsed"]]}
        assert r["results"] and all(x["ok"] for x in r["results"])
        assert r["parsed"] in r["messages"][1]["content"]  # a label of the observation
    print(
        f"\nlabel mode, one fight: {d} decisions, {card['mean_rounds']:.0f} rounds, "
        f"{card['prompt_tokens']} tokens in, latency p50 {lat['p50']:.2f} s"
    )


def test_action_mode_refusals_go_through_explain_and_retry(llama, client) -> None:
    import jsonschema

    from pf1e_gym.llm import AgentStats, LLMAgent

    agent = LLMAgent(_chat_model(llama, max_tokens=1024), answer="action", retries=1)
    spec = client.get_spec(SCENARIO)
    schema = json.loads(spec.action_json_schema)
    state = client.reset(
        SCENARIO, 1, controlled_sides=[SIDE], observation=agent.observation_options()
    )
    st = AgentStats()
    records: list[dict] = []
    try:
        # at most ACTION_DECISIONS decisions (the fight may end sooner: the orc dies)
        while state.HasField("decision") and not state.terminated:
            state = agent.act(client, state, spec, stats=st, records=records)
            if st.decisions == ACTION_DECISIONS:
                break
    finally:
        client.close_episode(state.episode_id)

    calls = [r for r in records if r["type"] == "call"]
    fallbacks = [r for r in records if r["type"] == "fallback"]
    assert 1 <= st.decisions <= ACTION_DECISIONS
    assert st.accepted + st.fallbacks == st.decisions
    assert st.model_calls == len(calls) and st.fallbacks == len(fallbacks)
    assert st.fallback_reasons == {"retries_exhausted": st.fallbacks} or st.fallbacks == 0
    assert st.retries == sum(r["attempt"] > 0 for r in calls)
    assert st.transport_errors == {} and st.format_downgrades == 0
    assert st.prompt_tokens > 0 and st.completion_tokens > 0
    # constrained decoding: every reply is a structured action of the published schema
    for r in calls:
        assert r["format_level"] == "json_schema"
        value = json.loads(r["reply"])
        jsonschema.validate(value, schema)
        assert r["parsed"] == value and r["submitted"] == {"actions_json": json.dumps(value)}
    # so a refusal is the server's: unresolved (INVALID_ARGUMENT) or illegal (an ActionResult)
    assert all(k == "unresolved" or k.startswith("illegal:") for k in st.malformed)
    refused = [r for r in calls if r["result"] == "refused"]
    assert sum(st.malformed.values()) == len(refused)
    assert [r["result"] for r in calls].count("accepted") == st.accepted
    # a random network mostly picks actions that are not legal here: the path runs for real
    assert refused, "no refused action: the retry path did not run"
    for i, r in enumerate(calls):
        if r["result"] != "refused":
            continue
        assert r["message"]
        if r["reason"].startswith("illegal:"):
            # the Explain reason: "<label>: <code>: <why>", the code the ActionResult's
            code = r["reason"].removeprefix("illegal:")
            assert f": {code}: " in r["message"] or r["message"].startswith(code), r["message"]
        if r["attempt"] == 0:  # retried in the same conversation, with the reason
            nxt = calls[i + 1]
            assert nxt["attempt"] == 1 and nxt["actor"] == r["actor"]
            assert nxt["messages"][:2] == r["messages"][:2]
            assert nxt["messages"][-2] == {"role": "assistant", "content": r["reply"]}
            assert r["message"] in nxt["messages"][-1]["content"]
        else:  # retries spent: the fallback answered the decision
            assert any(f["actor"] == r["actor"] for f in fallbacks)
    print(
        f"\naction mode, {st.decisions} decisions: {st.model_calls} calls, accepted "
        f"{st.accepted}, refused {dict(st.malformed)}, fallbacks {st.fallbacks}"
    )


def test_compile_strategy_gives_a_spec_that_pf1e_sim_plays(llama, client, tmp_path) -> None:
    import yaml

    from pf1e_gym.llm import compile_strategy
    from pf1e_gym.llm.strategy import tactics_errors

    attempts: list[dict] = []
    text = "attack the weakest enemy; withdraw when badly hurt"
    tactics = compile_strategy(
        text,
        scenario=SCENARIO,
        side=SIDE,
        client=client,
        model=_chat_model(llama, max_tokens=1024),
        retries=2,
        attempts=attempts,
    )
    # greedy decoding of the pinned llama.cpp: the first reply is accepted (names are free
    # strings of at most 100 characters the engine takes; the rest is bounded by the schema)
    assert [a["errors"] for a in attempts] == [[]]
    assert tactics["description"] == text
    assert tactics["source"] == f"compiled by {llama.model} from words"
    assert tactics_errors(client, SCENARIO, SIDE, tactics) == []
    schema = json.loads(client.get_spec(SCENARIO).tactics_json_schema)
    import jsonschema

    jsonschema.validate(tactics, schema)

    path = tmp_path / "compiled.yaml"
    path.write_text(yaml.safe_dump(tactics, sort_keys=False, allow_unicode=True))
    orc = str(REPO / "data" / "monsters" / "orc.json")
    # fmt: off
    sim = subprocess.run(
        [
            str(sim_binary()), "--map", str(REPO / "data" / "maps" / "mirror_duel.yaml"),
            "--side", "west", orc, "--side", "east", orc,
            "--tactics", f"west={path}", "--runs", "50", "--seed", "1", "--format", "json",
        ],
        capture_output=True, text=True, timeout=120, check=False,
    )
    # fmt: on
    assert sim.returncode == 0, sim.stderr
    report = json.loads(sim.stdout)
    assert report["runs"] == 50, report
    print(f"\ncompiled in {len(attempts)} replies: {json.dumps(tactics)[:300]}")


def test_function_calling_fight_with_the_scorecard(llama, client, tmp_path: Path) -> None:
    """A whole fight in ``tools`` mode: the offered functions (one per action kind, generated
    from the spec) become the grammar llama-server decodes under, so every reply is a
    well-formed call of an offered function with schema-valid arguments; the agent plays them;
    the scorecard counts it all."""
    from pf1e_gym.llm import LLMAgent
    from pf1e_gym.llm.eval import run_eval

    agent = LLMAgent(
        # The random model favours the whitespace JSON allows between tokens (up to
        # max_tokens); a logit bias against the whitespace byte tokens (space, tab, newline,
        # carriage return, SentencePiece's U+2581) keeps its replies short — a decoding setting,
        # the reply still decoded under the grammar of the functions.
        _chat_model(
            llama,
            max_tokens=600,
            extra_body={"logit_bias": {str(3 + b): -100 for b in (9, 10, 13, 32)} | {"259": -100}},
        ),
        answer="tools",
        text_mode="compact",
        retries=1,
        fallback="end_turn",
        # llama.cpp infers a native tool-call syntax from the chat template; the tiny model's
        # has none (and a random model writes whitespace before any call): the functions go
        # through the JSON Schema of the answer instead (ChatModel.complete_tools)
        tool_format="json_schema",
    )
    result = run_eval(client, agent, SCENARIO, side=SIDE, fights=1, seed=4, out=tmp_path)
    card = result.card
    assert card["fights"] == 1 and card["decisions"] > 0
    assert card["answer"] == "tools" and card["format_level"] == "json_schema"
    # the server took the tools: every decision got replies (no model_unavailable fallback)
    assert card["fallback_reasons"].get("model_unavailable", 0) == 0
    assert card["transport_errors"] == {}
    calls = [r for f in result.fights for r in f.records if r["type"] == "call"]
    assert len(calls) == card["model_calls"] > 0
    assert all(r["format_level"] == "tools_json_schema" for r in calls)
    # grammar-constrained: each reply is a call (or calls) of an offered function — unless
    # the random model's whitespace ran it into max_tokens (a truncated reply, refused as
    # no_tool_call and counted)
    parsed = [r for r in calls if r["tool_calls"]]
    assert parsed, [r.get("reply") for r in calls]
    for r in parsed:
        assert {c["name"] for c in r["tool_calls"]} <= set(r["tools"])
    for r in calls:
        if not r["tool_calls"]:
            assert r["result"] == "refused" and r["reason"] == "no_tool_call"
            assert r["completion_tokens"] >= 600
    assert card["malformed"].get("no_tool_call", 0) == len(calls) - len(parsed)
    axes = card["axes"]
    assert axes["parameter_fidelity"]["submitted_actions"] >= card["accepted"]
    assert 0 <= axes["rule_compliance"]["first_try_rate"] <= 1
    assert card["prompt_tokens"] > 0 and axes["efficiency"]["latency_p50_s"] > 0
    assert (tmp_path / "scorecard.json").is_file()
