"""LLMAgent against the real server and a scripted model behind the OpenAI API
(tests/scripted_llm.py): refusals by reason, retries with the reason sent back, format
downgrades, timeouts, fallbacks, token counts — asserted exactly."""

from __future__ import annotations

import json

import pytest
from scripted_llm import ScriptedLLM

from pf1e_gym import Pf1eClient, pb
from pf1e_gym._codec import capabilities
from pf1e_gym.client import actions_json_text, reset_request
from pf1e_gym.llm import AgentStats, ChatModel, LLMAgent, render_fallback_text, templates

SCENARIO = "sample_arena"


@pytest.fixture(scope="module")
def client(server_address: str):
    with Pf1eClient(server_address) as c:
        yield c


@pytest.fixture(scope="module")
def spec(client: Pf1eClient) -> pb.Spec:
    return client.get_spec(SCENARIO)


def first_state(client: Pf1eClient, agent: LLMAgent, seed: int = 1) -> pb.EpisodeState:
    s = client.reset(
        SCENARIO, seed, controlled_sides=["players"], observation=agent.observation_options()
    )
    assert s.HasField("decision")
    return s


def last_user(request: dict) -> str:
    return [m["content"] for m in request["messages"] if m["role"] == "user"][-1]


def model(llm: ScriptedLLM, **kw) -> ChatModel:
    kw.setdefault("timeout", 5.0)
    kw.setdefault("backoff", 0.01)
    return ChatModel(llm.base_url, "scripted", api_key="test", **kw)


def label_of(state: pb.EpisodeState, word: str) -> str:
    return next(la.label for la in state.legal_actions if la.label.startswith(word))


def test_format_downgrade_invalid_json_unknown_label_then_valid(client, spec):
    with ScriptedLLM() as llm:
        agent = LLMAgent(model(llm), answer="label", retries=2)
        s = first_state(client, agent)
        good = label_of(s, "attack ")
        llm.script = [
            {"status": 500, "if_format": "json_schema", "error": "json_schema unsupported"},
            {"content": "{not json"},
            {"content": json.dumps({"action": "dance a jig"})},
            {"content": json.dumps({"action": good})},
        ]
        records: list[dict] = []
        s2 = agent.act(client, s, spec, records=records)
        reqs = llm.requests
    st = agent.stats
    assert st.decisions == 1
    assert st.model_calls == 3
    assert st.accepted == 1
    assert dict(st.malformed) == {"invalid_json": 1, "unknown_label": 1}
    assert st.retries == 2
    assert st.fallbacks == 0
    assert st.format_downgrades == 1
    assert dict(st.transport_errors) == {}
    assert (st.prompt_tokens, st.completion_tokens) == (300, 30)
    assert len(st.latencies_s) == 3
    assert agent.model.format_level == "json_object"  # remembered
    assert agent.model.stats.calls == 4
    # What reached the model: the schema first, then json_object; the reasons in the retries.
    assert [r.get("response_format", {}).get("type") for r in reqs] == [
        "json_schema",
        "json_object",
        "json_object",
        "json_object",
    ]
    assert reqs[0]["response_format"]["json_schema"]["schema"]["properties"]["action"]["enum"] == [
        la.label for la in s.legal_actions
    ]
    assert "not a JSON object" in last_user(reqs[2])
    assert "dance a jig" in last_user(reqs[3])
    assert records[1]["message"] in last_user(reqs[3])
    assert [r["result"] for r in records] == ["refused", "refused", "accepted"]
    assert records[2]["parsed"] == good
    assert s2.results[0].ok
    # the refused reply stays in the conversation, before the retry prompt
    assert reqs[3]["messages"][-2] == {"role": "assistant", "content": '{"action": "dance a jig"}'}


def test_illegal_action_gets_the_reason_back(client, spec):
    with ScriptedLLM() as llm:
        agent = LLMAgent(model(llm), answer="id", retries=1)
        s = first_state(client, agent, seed=2)
        legal = {la.id for la in s.legal_actions}
        masked = next(i for i in range(1, spec.action_space_size) if i not in legal)
        expected = None
        if capabilities(spec)["explain"]:
            expected = client.explain(s.episode_id, action_id=masked)[0]
            assert not expected.legal and expected.reason
        llm.script = [
            {"content": json.dumps({"action_id": masked})},
            {"content": json.dumps({"action_id": 0})},  # end_turn
        ]
        records: list[dict] = []
        s2 = agent.act(client, s, spec, records=records)
        reqs = llm.requests
    st = agent.stats
    (reason,) = st.malformed
    assert reason.startswith("illegal:") and st.malformed[reason] == 1
    assert reason != "illegal:ok"
    assert (st.retries, st.fallbacks, st.accepted, st.model_calls) == (1, 0, 1, 2)
    assert records[0]["result"] == "refused" and records[0]["reason"] == reason
    # the reason reached the next prompt: the Explain reason where the server has Explain,
    # else the result's code
    retry_prompt = last_user(reqs[1])
    assert records[0]["message"] in retry_prompt
    if expected is not None:
        assert expected.reason in retry_prompt
    else:
        assert reason.removeprefix("illegal:") in retry_prompt
    assert s2.results[0].ok and s2.results[0].kind == pb.ACTION_KIND_END_TURN


def test_timeout_is_retried_with_backoff_and_counted(client, spec):
    with ScriptedLLM() as llm:
        agent = LLMAgent(model(llm, timeout=0.5, transport_retries=1), answer="label")
        s = first_state(client, agent, seed=3)
        llm.script = [
            {"sleep": 2.0, "content": json.dumps({"action": "end_turn"})},
            {"content": json.dumps({"action": "end_turn"})},
        ]
        agent.act(client, s, spec)
    st = agent.stats
    assert dict(st.transport_errors) == {"timeout": 1}
    assert st.transport_retries == 1
    assert (st.model_calls, st.accepted, st.retries, st.fallbacks) == (1, 1, 0, 0)
    assert dict(st.malformed) == {}


def test_unreachable_model_falls_back_to_end_turn(client, spec):
    with ScriptedLLM() as llm:
        agent = LLMAgent(model(llm, timeout=0.3, transport_retries=1), answer="label")
        s = first_state(client, agent, seed=4)
        llm.script = [{"sleep": 1.0, "content": "{}"}, {"sleep": 1.0, "content": "{}"}]
        records: list[dict] = []
        s2 = agent.act(client, s, spec, records=records)
    st = agent.stats
    assert dict(st.transport_errors) == {"timeout": 2}
    assert st.transport_retries == 1
    assert (st.model_calls, st.accepted, st.fallbacks) == (0, 0, 1)
    assert dict(st.fallback_reasons) == {"model_unavailable": 1}
    assert [r["type"] for r in records] == ["call", "fallback"]
    assert records[0]["result"] == "model_unavailable" and records[0]["reason"] == "timeout"
    assert s2.results[0].ok and s2.results[0].kind == pb.ACTION_KIND_END_TURN


@pytest.mark.parametrize("fallback", ["end_turn", "first_legal"])
def test_retries_exhausted_fall_back(client, spec, fallback):
    with ScriptedLLM(default={"content": "no idea", "usage": None}) as llm:
        agent = LLMAgent(model(llm), answer="label", retries=2, fallback=fallback)
        s = first_state(client, agent, seed=5)
        expected = agent.fallback_action(s)
        s2 = agent.act(client, s, spec)
        n = len(llm.requests)
    st = agent.stats
    assert n == 3
    assert dict(st.malformed) == {"invalid_json": 3}
    assert (st.retries, st.fallbacks, st.accepted, st.model_calls) == (2, 1, 0, 3)
    assert dict(st.fallback_reasons) == {"retries_exhausted": 1}
    assert (st.prompt_tokens, st.completion_tokens) == (0, 0)  # no usage in the replies
    assert s2.results[0].ok and s2.results[0].kind == expected.kind
    if fallback == "end_turn":
        assert expected.kind == pb.ACTION_KIND_END_TURN
    else:
        first = min(
            (la for la in s.legal_actions if la.action.kind != pb.ACTION_KIND_END_TURN),
            key=lambda la: la.id,
        )
        assert expected == first.action


def test_text_level_parses_a_label_in_free_text(client, spec):
    with ScriptedLLM() as llm:
        agent = LLMAgent(model(llm, format_level="text"), answer="label")
        s = first_state(client, agent, seed=1)
        good = label_of(s, "attack ")
        llm.script = [{"content": f"I think the best move is to {good}, obviously."}]
        records: list[dict] = []
        s2 = agent.act(client, s, spec, records=records)
        reqs = llm.requests
    assert "response_format" not in reqs[0]
    assert records[0]["parsed"] == good and records[0]["format_level"] == "text"
    assert s2.results[0].ok and agent.stats.accepted == 1


def test_schema_mismatch_is_counted(client, spec):
    with ScriptedLLM() as llm:
        agent = LLMAgent(model(llm), answer="id", retries=1)
        s = first_state(client, agent, seed=7)
        llm.script = [
            {"content": json.dumps({"action": "end_turn"})},
            {"content": json.dumps({"action_id": 99999})},
        ]
        agent.act(client, s, spec)
    st = agent.stats
    assert dict(st.malformed) == {"schema_mismatch": 1, "unknown_id": 1}
    assert (st.retries, st.fallbacks) == (1, 1)


def test_a_whole_fight_counts_add_up(client):
    from scripted_llm import attack_or_end_turn

    with ScriptedLLM(default=attack_or_end_turn) as llm:
        agent = LLMAgent(model(llm), answer="label")
        r1 = agent.play(client, SCENARIO, side="players", seed=11)
        r2 = agent.play(client, SCENARIO, side="players", seed=11)
        n = len(llm.requests)
    assert r1.outcome in ("win", "loss", "draw") and r1.rounds >= 1
    assert r1.stats.decisions == r1.stats.accepted == r1.stats.model_calls > 0
    assert (r1.outcome, r1.rounds, r1.stats.decisions) == (
        r2.outcome,
        r2.rounds,
        r2.stats.decisions,
    )
    assert n == 2 * r1.stats.model_calls
    total = AgentStats()
    total.merge(r1.stats)
    total.merge(r2.stats)
    assert agent.stats.as_dict() == total.as_dict()


def test_bad_arguments_name_the_field():
    m = ChatModel("http://127.0.0.1:9/v1", "x", api_key="k")
    with pytest.raises(ValueError, match="answer"):
        LLMAgent(m, answer="poem")
    with pytest.raises(ValueError, match="default policy's choice"):
        LLMAgent(m, fallback="default_policy")
    with pytest.raises(ValueError, match="lang"):
        LLMAgent(m, lang="de")
    with pytest.raises(ValueError, match="retries"):
        LLMAgent(m, retries=-1)
    with pytest.raises(ValueError, match="format_level"):
        ChatModel("http://127.0.0.1:9/v1", format_level="xml")


def test_prompts_are_packaged_files_in_both_languages():
    for lang in templates.LANGS:
        for name in templates.NAMES:
            assert templates.load(name, lang).strip(), (lang, name)
    text = templates.render(
        "decision.txt",
        "fr",
        decision_id=3,
        round=2,
        actor="goblin",
        decision_kind="turn_action",
        observation="OBS",
        answer_instructions="ANS",
    )
    assert text.startswith("Décision 3, round 2 : goblin") and "OBS" in text and "ANS" in text


def test_fallback_text_lists_every_legal_action(client):
    s = client.reset(SCENARIO, 1, controlled_sides=["players"])
    text = render_fallback_text(s)
    for la in s.legal_actions:
        assert f"{la.id}: {la.label}" in text
    assert "goblin (players): hp" in text


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_server_text_observation_reaches_the_prompt(client, spec, lang):
    assert capabilities(spec)["text_observation"]
    with ScriptedLLM(default={"content": json.dumps({"action": "end_turn"})}) as llm:
        agent = LLMAgent(model(llm), lang=lang)
        s = first_state(client, agent, seed=8)
        assert s.observation.text
        agent.act(client, s, spec)
        prompt = last_user(llm.requests[0])
    assert s.observation.text.strip() in prompt


def test_action_mode_submits_structured_json(client, spec):
    assert capabilities(spec)["structured_actions"] and spec.action_json_schema
    with ScriptedLLM() as llm:
        agent = LLMAgent(model(llm), answer="action", retries=1)
        s = first_state(client, agent, seed=9)
        llm.script = [
            {"content": json.dumps({"kind": "attack", "target": "nobody-7"})},
            {"content": json.dumps({"kind": "end_turn"})},
        ]
        records: list[dict] = []
        s2 = agent.act(client, s, spec, records=records)
        reqs = llm.requests
    assert reqs[0]["response_format"]["json_schema"]["schema"] == json.loads(
        spec.action_json_schema
    )
    assert records[0]["result"] == "refused"
    assert records[0]["reason"] in ("schema_mismatch", "unresolved")
    assert records[1]["result"] == "accepted"
    assert records[1]["submitted"] == {"actions_json": '{"kind": "end_turn"}'}
    assert s2.results[0].ok


def test_client_step_and_explain_by_label(client, spec):
    caps = capabilities(spec)
    assert caps["structured_actions"] and caps["explain"]
    s = client.reset(SCENARIO, 1, controlled_sides=["players"])
    ex = client.explain(s.episode_id, label="end_turn")
    assert len(ex) == 1 and ex[0].legal
    every = client.explain(s.episode_id, all=True)
    assert len(every) == spec.action_space_size
    assert all(e.legal or e.reason for e in every)
    s2 = client.step(s.episode_id, s.decision.decision_id, action_labels=["end_turn"])
    assert s2.results[0].ok


def test_client_request_builders():
    req = reset_request(
        SCENARIO,
        3,
        ["players"],
        tactics={"players": {"name": "n", "description": "d"}, "monsters": "name: m\n"},
        text=True,
        lang="fr",
    )
    assert req.observation.text and req.observation.lang == "fr"
    assert json.loads(req.tactics["players"]) == {"name": "n", "description": "d"}
    assert req.tactics["monsters"] == "name: m\n"
    req = reset_request(SCENARIO, observation=pb.ObservationOptions(tensors=True), text=True)
    assert req.observation.tensors and req.observation.text and req.observation.lang == ""
    assert actions_json_text({"kind": "end_turn"}) == '{"kind": "end_turn"}'
    assert json.loads(actions_json_text([{"kind": "end_turn"}])) == [{"kind": "end_turn"}]
    assert actions_json_text('{"plan": []}') == '{"plan": []}'


def test_gym_env_text_observation(server_address, spec):
    from pf1e_gym import Pf1eEnv

    assert capabilities(spec)["text_observation"]
    with pytest.raises(ValueError, match="lang"):
        Pf1eEnv(server_address, observation="text", lang="de")
    env = Pf1eEnv(server_address, observation="text", lang="fr")
    try:
        obs, info = env.reset(seed=1)
        assert env.observation_space.contains(obs)
        assert isinstance(obs["text"], str) and obs["text"]
        for _id, label in info["legal_actions"]:
            assert label in obs["text"]
        obs, *_ = env.step(0)
        assert env.observation_space.contains(obs)
    finally:
        env.close()


def test_plan_mode_submits_a_whole_turn(client, spec):
    assert capabilities(spec)["structured_actions"] and spec.plan_json_schema
    with ScriptedLLM() as llm:
        agent = LLMAgent(model(llm), answer="plan", retries=0)
        s = first_state(client, agent, seed=1)
        attack = next(la for la in s.legal_actions if la.label.startswith("attack "))
        weapon = attack.label.split(" with ", 1)[1]  # "attack orc-2 with short bow"
        target = spec.combatants[attack.action.target].id
        plan = {
            "plan": [
                {"kind": "attack", "target": target, "weapon": weapon},
                {"kind": "end_turn"},
            ]
        }
        llm.script = [{"content": json.dumps(plan)}]
        records: list[dict] = []
        s2 = agent.act(client, s, spec, records=records)
        reqs = llm.requests
    assert reqs[0]["response_format"]["json_schema"]["schema"] == json.loads(spec.plan_json_schema)
    assert records[0]["result"] == "accepted"
    assert json.loads(records[0]["submitted"]["actions_json"]) == plan
    assert [r.kind for r in s2.results][-1] == pb.ACTION_KIND_END_TURN
    assert agent.stats.accepted == 1 and agent.stats.fallbacks == 0


# -- function calling (answer="tools") and compact text ----------------------------------------


def test_tools_are_generated_from_the_spec(spec):
    from pf1e_gym.llm.tools import action_tools, block_kind

    tools = {t["function"]["name"]: t["function"] for t in action_tools(spec)}
    schema = json.loads(spec.action_json_schema)
    # one function per action kind of the action space, every name a kind of the schema
    kinds = set(schema["properties"]["kind"]["enum"])
    assert set(tools) <= kinds
    assert {block_kind(b.name, sorted(kinds)) for b in spec.action_blocks} == set(tools)
    # typed arguments copied from the schema's properties (enumerations included)
    attack = tools["attack"]["parameters"]
    assert attack["required"] == ["target", "weapon"]
    assert attack["properties"]["target"] == schema["properties"]["target"]
    assert set(tools["move"]["parameters"]["properties"]) == {"destination", "target"}
    assert "required" not in tools["move"]["parameters"]  # move_to or move_toward
    assert set(tools["ready"]["parameters"]["required"]) == {"readied", "trigger"}
    assert tools["end_turn"]["parameters"]["properties"] == {}


def test_tools_mode_plays_a_call_and_counts_a_wrong_parameter(client, spec):
    with ScriptedLLM() as llm:
        agent = LLMAgent(model(llm), answer="tools", retries=2)
        s = first_state(client, agent, seed=3)
        llm.script = [
            {"content": "I think I will wait."},  # no call
            {"tool_calls": [{"name": "move", "arguments": {"target": "nobody"}}]},  # schema
            {"tool_calls": [{"name": "end_turn", "arguments": {}}]},
        ]
        records: list[dict] = []
        s2 = agent.act(client, s, spec, records=records)
        reqs = llm.requests
    st = agent.stats
    assert reqs[0]["tool_choice"] == "required"
    offered = [t["function"]["name"] for t in reqs[0]["tools"]]
    legal_kinds = {la.label.split(" ", 1)[0].rstrip(":") for la in s.legal_actions}
    assert set(offered) == legal_kinds and "cast_spell" not in offered
    assert dict(st.malformed) == {"no_tool_call": 1, "schema_mismatch": 1}
    assert (st.retries, st.accepted, st.first_try, st.fallbacks) == (2, 1, 0, 0)
    assert "nobody" in last_user(reqs[2])  # the schema error went back
    assert records[-1]["parsed"] == {"kind": "end_turn"}
    assert s2.results[0].ok and s2.results[0].kind == pb.ACTION_KIND_END_TURN


def test_tools_mode_several_calls_are_the_rest_of_the_turn(client, spec):
    with ScriptedLLM() as llm:
        agent = LLMAgent(model(llm), answer="tools")
        s = first_state(client, agent, seed=1)
        label = next(la.label for la in s.legal_actions if la.label.startswith("move to ("))
        row, col = (int(x) for x in label.rpartition("(")[2].rstrip(")").split(","))
        llm.script = [
            {
                "tool_calls": [
                    {"name": "move", "arguments": {"destination": [row, col]}},
                    {"name": "end_turn", "arguments": {}},
                ]
            }
        ]
        records: list[dict] = []
        s2 = agent.act(client, s, spec, records=records)
    assert json.loads(records[0]["submitted"]["actions_json"]) == [
        {"kind": "move", "destination": [row, col]},
        {"kind": "end_turn"},
    ]
    assert [r.ok for r in s2.results] == [True, True]
    assert agent.stats.submitted_actions == 2 and agent.stats.first_try == 1


def test_unresolved_target_is_a_parameter_error(client, spec):
    with ScriptedLLM() as llm:
        agent = LLMAgent(model(llm), answer="action", retries=1)
        s = first_state(client, agent, seed=2)
        llm.script = [
            # schema-valid (every weapon of the scenario is in the enum) but not the actor's
            {"content": json.dumps({"kind": "attack", "target": "orc", "weapon": "falchion"})},
            {"content": json.dumps({"kind": "end_turn"})},
        ]
        agent.act(client, s, spec)
    st = agent.stats
    assert st.malformed["unresolved"] == 1
    assert dict(st.parameter_errors) == {"weapon": 1}
    assert st.submitted_actions == 2


def test_compact_text_reaches_the_prompt_and_keeps_every_label(client, spec):
    with ScriptedLLM(default={"content": json.dumps({"action": "end_turn"})}) as llm:
        full = LLMAgent(model(llm))
        compact = LLMAgent(model(llm), text_mode="compact")
        s_full = first_state(client, full, seed=4)
        s_compact = first_state(client, compact, seed=4)
        compact.act(client, s_compact, spec)
        prompt = last_user(llm.requests[0])
    assert " (row,col): " in prompt  # folded squares
    assert len(s_compact.observation.text) < len(s_full.observation.text)
    # the answer schema still offers every legal label
    enum = llm.requests[0]["response_format"]["json_schema"]["schema"]["properties"]["action"]
    assert sorted(enum["enum"]) == sorted(la.label for la in s_full.legal_actions)
    for la in s_full.legal_actions:  # a label, or its prefix with the square's row listed
        head, _, _ = la.label.rpartition(" (")
        assert la.label in prompt or f"{head} (row,col): " in prompt, la.label


def test_text_options_are_checked(client):
    for field, opts in (
        ("observation.text_mode", pb.ObservationOptions(text=True, text_mode="short")),
        (
            "observation.text_chars_per_token",
            pb.ObservationOptions(text=True, text_chars_per_token=0.1),
        ),
    ):
        with pytest.raises(Exception) as e:
            client.reset(SCENARIO, 1, controlled_sides=["players"], observation=opts)
        assert field in e.value.details()
    with pytest.raises(ValueError, match="text_mode"):
        LLMAgent(ChatModel("http://127.0.0.1:9/v1"), text_mode="tiny")
    with pytest.raises(ValueError, match="token_budget"):
        LLMAgent(ChatModel("http://127.0.0.1:9/v1"), token_budget=0)


def test_token_budget_drops_the_map_not_the_actions(client):
    opts = pb.ObservationOptions(
        text=True, text_mode="compact", text_token_budget=50, text_chars_per_token=1.0
    )
    s = client.reset(SCENARIO, 1, controlled_sides=["players"], observation=opts)
    text = s.observation.text
    assert "Map omitted" in text and "Map (" not in text
    assert "[0] end_turn" in text
    roomy = client.reset(
        SCENARIO,
        1,
        controlled_sides=["players"],
        observation=pb.ObservationOptions(text=True, text_token_budget=100_000),
    )
    assert "Map (" in roomy.observation.text and " (row,col): " not in roomy.observation.text


def test_chars_per_token_is_measured_from_the_reported_usage(client, spec):
    with ScriptedLLM(
        default={
            "content": json.dumps({"action": "end_turn"}),
            "usage": {"prompt_tokens": 1000, "completion_tokens": 5},
        }
    ) as llm:
        agent = LLMAgent(model(llm), text_mode="compact", token_budget=500)
        assert agent.observation_options().text_chars_per_token == 0.0  # server default
        s = first_state(client, agent, seed=1)
        agent.act(client, s, spec)
        chars = sum(len(m["content"]) for m in llm.requests[0]["messages"])
    assert agent.measured_chars_per_token == pytest.approx(chars / 1000)
    opts = agent.observation_options()
    assert opts.text_chars_per_token == pytest.approx(chars / 1000, rel=1e-6)
    assert opts.text_token_budget == 500 and opts.text_mode == "compact"


def test_tools_over_structured_output(client, spec):
    """tool_format="json_schema": the functions go through the answer's JSON Schema."""
    with ScriptedLLM(
        default={"content": json.dumps({"tool_calls": [{"name": "end_turn", "arguments": {}}]})}
    ) as llm:
        agent = LLMAgent(model(llm), answer="tools", tool_format="json_schema")
        s = first_state(client, agent, seed=1)
        records: list[dict] = []
        s2 = agent.act(client, s, spec, records=records)
        req = llm.requests[0]
    assert "tools" not in req
    items = req["response_format"]["json_schema"]["schema"]["properties"]["tool_calls"]["items"]
    names = {alt["properties"]["name"]["const"] for alt in items["anyOf"]}
    assert names == {la.label.split(" ", 1)[0].rstrip(":") for la in s.legal_actions}
    assert "Functions you can call" in req["messages"][-1]["content"]
    assert records[0]["format_level"] == "tools_json_schema" and records[0]["tool_calls"]
    assert s2.results[0].ok and agent.stats.first_try == 1
    with pytest.raises(ValueError, match="tool_format"):
        LLMAgent(model(llm), answer="tools", tool_format="xml")
