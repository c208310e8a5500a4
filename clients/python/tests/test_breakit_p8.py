"""Break-it review of issue 13 (P8): each test pins a defect found by trying the LLM layer as a
new user would (it failed before its fix)."""

from __future__ import annotations

import pathlib

import pytest
from conftest import REPO

from pf1e_gym import Pf1eClient
from pf1e_gym.llm.eval import _Exit2, _load_compare
from pf1e_gym.llm.strategy import load_tactics_yaml, tactics_errors

TACTICS = REPO / "data" / "tactics"


def test_shipped_tactics_read_with_yaml_1_2_booleans() -> None:
    # PyYAML's safe_load (YAML 1.1) read `on: target` of a cast rule as {True: "target"}.
    spec = load_tactics_yaml((TACTICS / "casters_open_with_areas.yaml").read_text())
    casts = [
        r["do"]["cast"]
        for b in [spec.get("default", {}), *spec.get("combatants", {}).values()]
        for r in b.get("rules", [])
        if isinstance(r.get("do"), dict) and "cast" in r["do"]
    ]
    assert casts and all(set(c) <= {"spell", "on"} for c in casts), casts
    assert load_tactics_yaml("a: on\nb: yes\nc: true\nd: False\n") == {
        "a": "on",
        "b": "yes",
        "c": True,
        "d": False,
    }


def test_compare_files_are_accepted_by_the_engine(server_address: str) -> None:
    # `pf1e-llm-eval strategy --compare areas=data/tactics/casters_open_with_areas.yaml` sent
    # `do.cast.true` to Evaluate, which refused it.
    others = _load_compare([f"areas={TACTICS / 'casters_open_with_areas.yaml'}"])
    with Pf1eClient(server_address) as c:
        assert tactics_errors(c, "casters", "players", others["areas"]) == []


@pytest.mark.parametrize(
    "item",
    ["nofile", "x=/nonexistent/tactics.yaml", "x=" + str(REPO / "README.md")],
)
def test_bad_compare_items_exit_2(item: str, tmp_path: pathlib.Path) -> None:
    with pytest.raises(_Exit2):
        _load_compare([item])
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(_Exit2):
        _load_compare([f"x={bad}"])


def test_local_model_port_0_means_a_free_port() -> None:
    # `python -m pf1e_gym.llm.local_model --port 0` passed 0 to llama-server, which bound a
    # port nobody could learn; start() waited 60 s for /health on port 0 and failed.
    from pf1e_gym.llm.local_model import LocalLlamaServer

    assert LocalLlamaServer("tiny.gguf", port=0).port is None
    assert LocalLlamaServer("tiny.gguf", port=8080).port == 8080
    for bad in (-1, 65536):
        with pytest.raises(ValueError, match="port"):
            LocalLlamaServer("tiny.gguf", port=bad)


@pytest.mark.parametrize(
    "argv",
    [
        ["--seed", "-1"],
        ["--seed", str(2**64 - 1), "--fights", "2"],
        ["strategy", "focus fire", "--out", "/nonexistent/t.yaml", "--seed", "-3"],
    ],
)
def test_bad_seeds_exit_2_with_a_message(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # `pf1e-llm-eval --seed -1` died with a ValueError traceback from protobuf (exit 1).
    from pf1e_gym.llm.eval import main

    base = [
        "--scenario",
        "sample_arena",
        "--side",
        "players",
        "--base-url",
        "http://127.0.0.1:9/v1",
    ]
    if argv[0] == "strategy":
        argv = [*argv, *base]
    else:
        argv = [*base, *argv]
    assert main(argv) == 2
    assert "--seed: must be 0 to" in capsys.readouterr().err


def test_a_refusal_at_every_format_level_does_not_downgrade_for_good() -> None:
    # A prompt over the model's context (llama.cpp: HTTP 400 "exceeds the available context
    # size") was taken for a refused response_format: the model went to plain text for the rest
    # of the run (format_level "text", format_downgrades 2) after one long decision.
    from scripted_llm import ScriptedLLM

    from pf1e_gym.llm import ChatModel, ModelUnavailable

    too_long = {"status": 400, "error": "request exceeds the available context size"}
    with ScriptedLLM() as llm:
        m = ChatModel(llm.base_url, "scripted", api_key="t", timeout=5, backoff=0.01)
        llm.script = [too_long, too_long, too_long, {"content": '{"action": "end_turn"}'}]
        schema = {"type": "object", "properties": {"action": {"type": "string"}}}
        with pytest.raises(ModelUnavailable):
            m.complete([{"role": "user", "content": "x"}], schema)
        assert (m.format_level, m.stats.format_downgrades) == ("json_schema", 0)
        assert dict(m.stats.transport_errors) == {"http_400": 1}
        reply = m.complete([{"role": "user", "content": "x"}], schema)
        assert reply.format_level == "json_schema"
        types = [r.get("response_format", {}).get("type") for r in llm.requests]
        assert types == ["json_schema", "json_object", None, "json_schema"]


def test_wilson_bounds_at_0_and_n_successes_are_exact() -> None:
    # 0 wins of 3 printed a lower bound of 5.55e-17, not 0.
    from pf1e_gym.llm import wilson_interval

    assert wilson_interval(0, 3)[0] == 0.0
    assert wilson_interval(3, 3)[1] == 1.0
    hi = wilson_interval(0, 3)[1]
    z2 = 1.959963984540054**2
    assert hi == pytest.approx((z2 / 3) / (1 + z2 / 3))
    # 7 of 20 by hand: centre (p + z²/2n) / (1 + z²/n), half z·sqrt(pq/n + z²/4n²) / (1 + z²/n)
    c = (0.35 + z2 / 40) / (1 + z2 / 20)
    h = 1.959963984540054 * (0.35 * 0.65 / 20 + z2 / 1600) ** 0.5 / (1 + z2 / 20)
    assert wilson_interval(7, 20) == pytest.approx((c - h, c + h))


class _RawServer:
    """An HTTP server answering every POST with ``body`` (HTTP 200) and GET /models with []."""

    def __init__(self, body: bytes) -> None:
        import http.server
        import threading

        outer = self

        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a: object) -> None:
                pass

            def _send(self, b: bytes) -> None:
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(b)))
                self.end_headers()
                self.wfile.write(b)

            def do_GET(self) -> None:
                self._send(b'{"object": "list", "data": []}')

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                outer.posts += 1
                self._send(body)

        self.posts = 0
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _completion(**fields: object) -> bytes:
    import json

    base = {"id": "x", "object": "chat.completion", "created": 0, "model": "m"}
    return json.dumps({**base, **fields}).encode()


@pytest.mark.parametrize("body", [b"{not json", b"<html>502 Bad Gateway</html>"])
def test_a_reply_that_is_not_json_is_a_transport_error(body: bytes) -> None:
    # pf1e-llm-eval died with json.JSONDecodeError (exit 1) at the first such reply.
    from pf1e_gym.llm import ChatModel, ModelUnavailable

    srv = _RawServer(body)
    try:
        m = ChatModel(srv.base_url, "m", timeout=5, transport_retries=1, backoff=0.01)
        with pytest.raises(ModelUnavailable) as e:
            m.complete([{"role": "user", "content": "x"}], None)
        assert e.value.kind == "bad_response"
        assert dict(m.stats.transport_errors) == {"bad_response": 2}
        assert srv.posts == 2
    finally:
        srv.close()


def test_garbage_usage_and_content_do_not_crash() -> None:
    # usage {"prompt_tokens": "a"} raised ValueError out of ChatModel.complete.
    from pf1e_gym.llm import ChatModel

    msg = {"role": "assistant", "content": '{"action": "end_turn"}'}
    body = _completion(
        usage={"prompt_tokens": "a", "completion_tokens": -4, "total_tokens": None},
        choices=[{"index": 0, "finish_reason": "stop", "message": msg}],
    )
    srv = _RawServer(body)
    try:
        m = ChatModel(srv.base_url, "m", timeout=5, transport_retries=0)
        r = m.complete([{"role": "user", "content": "x"}], None)
        assert (r.content, r.prompt_tokens, r.completion_tokens) == ('{"action": "end_turn"}', 0, 0)
    finally:
        srv.close()
