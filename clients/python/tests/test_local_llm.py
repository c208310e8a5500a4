"""A real OpenAI-compatible server running a real (tiny, random-weight) model.

``pf1e_gym.llm.local_model`` writes the model and runs llama.cpp's ``llama-server``; these tests
talk to it with the official ``openai`` client and check that schema-constrained replies are
valid against the schema (parsed with ``json``, validated with ``jsonschema``).

Needs ``PF1E_LLAMA_SERVER`` (``PF1E_LLAMA_SERVER=$(bash scripts/llama_server.sh)``) and the
``llm`` extra. Without them the tests skip, except when ``PF1E_REQUIRE_LLAMA=1`` (as in
``scripts/test.sh``, i.e. CI), where a missing server or package is a failure.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from conftest import llama_server_or_skip
from conftest import llm_import as _import

N_REQUESTS = 10


@pytest.fixture(scope="module")
def local_model():
    _import("gguf")
    from pf1e_gym.llm import local_model

    return local_model


@pytest.fixture(scope="module")
def server(local_model, tmp_path_factory):
    llama_server_or_skip()
    model = local_model.write_tiny_model(tmp_path_factory.mktemp("llm") / "tiny.gguf", seed=0)
    with local_model.LocalLlamaServer(model) as srv:
        print(f"\nllama-server ready in {srv.startup_seconds * 1000:.0f} ms at {srv.base_url}")
        yield srv


@pytest.fixture(scope="module")
def client(server):
    openai = _import("openai")
    return openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=0, timeout=60)


@pytest.fixture(scope="module")
def jsonschema():
    return _import("jsonschema")


def _schema_format(name: str, schema: dict) -> dict:
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}


def _ask(client, server, prompt: str, seed: int, response_format=None, max_tokens: int = 200):
    kwargs = {}
    if response_format is not None:
        kwargs["response_format"] = response_format
    return client.chat.completions.create(
        model=server.model,
        messages=[
            {"role": "system", "content": "You play a Pathfinder combat. Answer in JSON."},
            {"role": "user", "content": prompt},
        ],
        max_tokens=max_tokens,
        temperature=1.0,  # sampled, seeded: varied replies, all of which must fit the schema
        seed=seed,
        **kwargs,
    )


def _check_all_valid(client, server, jsonschema, name: str, schema: dict) -> list:
    jsonschema.Draft202012Validator.check_schema(schema)
    values = []
    for i in range(N_REQUESTS):
        reply = _ask(client, server, f"Decision {i}: choose.", i, _schema_format(name, schema))
        choice = reply.choices[0]
        assert choice.finish_reason == "stop", (i, choice.finish_reason, choice.message.content)
        value = json.loads(choice.message.content)
        jsonschema.validate(value, schema)
        values.append(value)
    return values


# 90 labels in the engine's style (engine/src/actions/legal.rs `label`).
ACTION_LABELS = (
    ["end_turn", "total_defense", "drop_prone", "activate_power_attack", "withdraw"]
    + [
        f"{k} {t} with {w}"
        for k in ("attack", "full_attack")
        for t in ("orc-1", "orc-2", "goblin-3")
        for w in ("falchion", "longbow")
    ]
    + [f"maneuver {t} {m}" for t in ("orc-1", "orc-2") for m in ("trip", "disarm", "bull_rush")]
    + [f"charge orc-{i}" for i in (1, 2)]
    + [f"move to ({r},{c})" for r in range(3, 10) for c in range(2, 12)][:65]
)


def test_action_labels_are_ninety_distinct() -> None:
    assert len(ACTION_LABELS) == 90
    assert len(set(ACTION_LABELS)) == 90


def test_tiny_model_is_deterministic(local_model, tmp_path: Path) -> None:
    a = local_model.write_tiny_model(tmp_path / "a.gguf", seed=7)
    b = local_model.write_tiny_model(tmp_path / "b.gguf", seed=7)
    c = local_model.write_tiny_model(tmp_path / "c.gguf", seed=8)
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()
    assert a.stat().st_size < 1_000_000


def test_tiny_model_metadata(local_model, tmp_path: Path) -> None:
    import gguf

    reader = gguf.GGUFReader(local_model.write_tiny_model(tmp_path / "m.gguf", n_ctx=4096))

    def field(key: str):
        f = reader.fields[key]
        return f.contents()

    assert field("general.architecture") == "llama"
    assert field("llama.context_length") == 4096
    assert field("llama.block_count") == 2
    assert field("llama.embedding_length") == 64
    tokens = field("tokenizer.ggml.tokens")
    assert len(tokens) == 260
    assert tokens[:3] == ["<unk>", "<s>", "</s>"]
    assert tokens[3] == "<0x00>" and tokens[258] == "<0xFF>" and tokens[259] == "\u2581"
    names = {t.name for t in reader.tensors}
    assert "token_embd.weight" in names and "blk.1.ffn_down.weight" in names


def test_write_tiny_model_rejects_bad_arguments(local_model, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="seed"):
        local_model.write_tiny_model(tmp_path / "x.gguf", seed=-1)
    with pytest.raises(ValueError, match="n_ctx"):
        local_model.write_tiny_model(tmp_path / "x.gguf", n_ctx=0)


def test_missing_binary_is_a_clear_error(local_model, tmp_path: Path) -> None:
    srv = local_model.LocalLlamaServer(tmp_path / "none.gguf", binary=tmp_path / "no-such-server")
    with pytest.raises(local_model.LlamaServerError, match="not an executable"):
        srv.start()


def test_integer_with_bounds(client, server, jsonschema) -> None:
    schema = {
        "type": "object",
        "properties": {"action_id": {"type": "integer", "minimum": 0, "maximum": 610}},
        "required": ["action_id"],
        "additionalProperties": False,
    }
    values = _check_all_valid(client, server, jsonschema, "action_id", schema)
    assert all(0 <= v["action_id"] <= 610 for v in values)


def test_enum_of_ninety_labels(client, server, jsonschema) -> None:
    schema = {
        "type": "object",
        "properties": {"action": {"type": "string", "enum": ACTION_LABELS}},
        "required": ["action"],
        "additionalProperties": False,
    }
    values = _check_all_valid(client, server, jsonschema, "action_label", schema)
    assert all(v["action"] in ACTION_LABELS for v in values)


def test_nested_structured_action(client, server, jsonschema) -> None:
    square = {"type": "integer", "minimum": 0, "maximum": 39}
    schema = {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": ["move", "attack", "full_attack", "charge"]},
            "target": {"type": "string", "enum": ["orc-1", "orc-2", "goblin-3"]},
            "destination": {"type": "array", "items": square, "minItems": 2, "maxItems": 2},
        },
        "required": ["kind", "target", "destination"],
        "additionalProperties": False,
    }
    values = _check_all_valid(client, server, jsonschema, "structured_action", schema)
    assert all(len(v["destination"]) == 2 for v in values)


def test_plain_text_reply_is_a_string(client, server) -> None:
    reply = _ask(client, server, "Say anything.", seed=0, max_tokens=32)
    content = reply.choices[0].message.content
    assert isinstance(content, str)
    assert reply.usage.completion_tokens >= 1


def test_latency_of_a_two_thousand_character_prompt(client, server, jsonschema) -> None:
    # About the size of a text observation; one token per byte with the byte vocabulary.
    row = "orc-2 (enemy) hp 9/15 AC 13 at (4,7) reach 5 ft, wields falchion; flat-footed\n"
    prompt = (row * (2000 // len(row) + 1))[:2000]
    schema = {
        "type": "object",
        "properties": {"action": {"type": "string", "enum": ACTION_LABELS}},
        "required": ["action"],
        "additionalProperties": False,
    }
    timings = []
    for i in range(5):
        start = time.perf_counter()
        reply = _ask(client, server, f"{prompt}\nDecision {i}", i, _schema_format("a", schema))
        timings.append(time.perf_counter() - start)
        jsonschema.validate(json.loads(reply.choices[0].message.content), schema)
    usage = reply.usage
    print(
        f"\n2,000-character prompt ({usage.prompt_tokens} tokens in, "
        f"{usage.completion_tokens} out): per request "
        + ", ".join(f"{t * 1000:.0f}" for t in timings)
        + " ms"
    )
    assert usage.prompt_tokens > 2000  # byte vocabulary: at least one token per character


def test_stop_leaves_no_process(local_model, tmp_path: Path) -> None:
    llama_server_or_skip()
    model = local_model.write_tiny_model(tmp_path / "tiny.gguf", n_ctx=512)
    srv = local_model.LocalLlamaServer(model, n_ctx=512)
    with srv:
        proc = srv._proc
        port = srv.port
        assert srv.running
    assert proc is not None and proc.poll() is not None
    assert not srv.running
    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", port)) != 0
