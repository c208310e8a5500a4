"""A scripted model behind the OpenAI Chat Completions API, for deterministic tests of the
agent's retry, fallback and counting paths.

:class:`ScriptedLLM` is a real HTTP server (``http.server`` in a thread, 127.0.0.1:0) that
answers ``POST /v1/chat/completions`` and ``GET /v1/models``. Each completion request takes the
next **step** of the script (a dict, or a callable of the request body returning one), then the
``default`` step once the script is spent. A step:

- ``{"content": TEXT}``: a completion whose message content is ``TEXT``;
- ``{"tool_calls": [{"name": N, "arguments": ARGS}, ...]}``: a completion calling functions
  (``ARGS`` a dict, sent as its JSON text, or a string sent as it is);
- ``{"status": 500, "error": "..."}``: an HTTP error instead; with ``"if_format":
  "json_schema"`` only when the request's ``response_format`` has that type (else the step
  answers ``content``);
- ``{"sleep": SECONDS, ...}``: wait first (longer than the client's timeout: a timeout);
- ``{"usage": {"prompt_tokens": P, "completion_tokens": C}}`` (default 100 and 10), or
  ``{"usage": None}`` for a reply without ``usage``.

Every request body is kept in :attr:`ScriptedLLM.requests` (in arrival order, a timed-out one
included), so tests can assert what reached the model (e.g. a refusal's reason in the next
prompt).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]
DEFAULT_USAGE = {"prompt_tokens": 100, "completion_tokens": 10}


def legal_labels(request: dict[str, Any]) -> list[str]:
    """The legal labels of a decision request: the enum of its ``json_schema``
    response_format, else the ``[N] label`` / ``N: label`` lines of its first user message."""
    rf = request.get("response_format") or {}
    if rf.get("type") == "json_schema":
        prop = rf["json_schema"]["schema"].get("properties", {}).get("action", {})
        if "enum" in prop:
            return list(prop["enum"])
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    # "[10] attack orc-2 with short bow" (the server's text) or "10: attack ..." (the fallback)
    return re.findall(r"^\s*(?:\[\d+\]|\d+:)\s+(.+?)\s*$", user, re.M)


def attack_or_end_turn(request: dict[str, Any]) -> dict[str, Any]:
    """A responder for whole fights in label mode: the first legal label that attacks (or
    takes an attack of opportunity), else ``end_turn`` (``decline`` at a reaction)."""
    labels = legal_labels(request)
    pick = next((lab for lab in labels if "attack" in lab), None)
    if pick is None:
        pick = (
            "end_turn"
            if "end_turn" in labels
            else next((lab for lab in labels if lab.startswith("decline")), labels[0])
        )
    return {"content": json.dumps({"action": pick})}


class ScriptedLLM:
    """See the module docs. ``with ScriptedLLM(script) as llm: ... llm.base_url``."""

    def __init__(self, script: list[Step] = (), default: Step | None = None) -> None:
        self.script = list(script)
        self.default = default
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self.base_url = ""

    def _next(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.requests.append(body)
            step = self.script.pop(0) if self.script else self.default
        if step is None:
            return {"status": 500, "error": "script exhausted"}
        return step(body) if callable(step) else dict(step)

    def __enter__(self) -> ScriptedLLM:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and went away

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(
                        200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]}
                    )
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                n = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(n) or b"{}")
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": "not found"}})
                    return
                step = outer._next(body)
                if step.get("sleep"):
                    time.sleep(float(step["sleep"]))
                fmt = (body.get("response_format") or {}).get("type")
                if "status" in step and step.get("if_format", fmt) == fmt:
                    err = step.get("error", "scripted error")
                    self._send(
                        int(step["status"]), {"error": {"message": err, "type": "server_error"}}
                    )
                    return
                message: dict[str, Any] = {"role": "assistant", "content": step.get("content", "")}
                calls = step.get("tool_calls") or []
                if calls:
                    message["tool_calls"] = [
                        {
                            "id": f"call_{k}",
                            "type": "function",
                            "function": {
                                "name": c["name"],
                                "arguments": c["arguments"]
                                if isinstance(c["arguments"], str)
                                else json.dumps(c["arguments"]),
                            },
                        }
                        for k, c in enumerate(calls)
                    ]
                payload: dict[str, Any] = {
                    "id": f"chatcmpl-{len(outer.requests)}",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", "scripted"),
                    "choices": [
                        {
                            "index": 0,
                            "message": message,
                            "finish_reason": "tool_calls" if calls else "stop",
                        }
                    ],
                }
                usage = step.get("usage", DEFAULT_USAGE)
                if usage is not None:
                    payload["usage"] = {
                        **usage,
                        "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"],
                    }
                self._send(200, payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        port = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{port}/v1"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
