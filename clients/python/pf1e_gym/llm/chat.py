"""One OpenAI-compatible chat endpoint, with structured output when it supports it.

:class:`ChatModel` wraps the official ``openai`` client (``OpenAI(base_url=..., api_key=...)``)
for any server that speaks the Chat Completions API: vLLM, llama.cpp's ``llama-server``,
Ollama (``http://localhost:11434/v1``), hosted APIs. Each :meth:`ChatModel.complete` asks for a
JSON answer following a JSON Schema, at the best **format level** the server accepts:

1. ``json_schema``: ``response_format={"type": "json_schema", "json_schema": {"name", "schema",
   "strict"}}`` (constrained decoding where the server does it);
2. ``json_object``: ``response_format={"type": "json_object"}`` (any JSON; the schema is only
   in the prompt);
3. ``text``: no ``response_format``; the reply is parsed as free text.

A server that refuses a ``response_format`` (HTTP 400, 422 or 500 to a request that carries one)
moves the request down one level at once; when a lower level then answers, the model stays there
for good — the level that worked is remembered in :attr:`ChatModel.format_level` (counted in
``format_downgrades``). When every level is refused the refusal was not about the format (a
prompt longer than the model's context, an unknown model name): the level goes back to where the
request started and the error is the request's. Timeouts (``timeout`` seconds per request),
connection errors, HTTP 429 and HTTP 5xx at the ``text`` level are transport errors: retried
``transport_retries`` times with exponential backoff (``backoff`` x 2^k seconds), each counted
in ``transport_errors`` by kind (``timeout``, ``connection``, ``http_<status>``,
``bad_response``: an answer whose body is not JSON); when the
retries are spent, or for another HTTP error, :class:`ModelUnavailable` is raised.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections import Counter
from typing import Any

import openai

FORMAT_LEVELS = ("json_schema", "json_object", "text")
"""The structured-output levels, best first."""

DEFAULT_BASE_URL = "http://127.0.0.1:8080/v1"
"""llama.cpp's ``llama-server`` default address (used when neither ``base_url`` nor
``$PF1E_LLM_BASE_URL`` is given)."""

DEFAULT_MODEL = "default"
"""The model name when neither ``model`` nor ``$PF1E_LLM_MODEL`` is given (local servers that
serve one model ignore it; hosted APIs need a real name)."""


class ModelUnavailable(RuntimeError):
    """The chat endpoint gave no reply: transport retries spent, or an HTTP error that is not
    a refused ``response_format``. ``kind`` is the last error's kind (``timeout``,
    ``connection``, ``http_<status>``, ``bad_response``)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind


@dataclasses.dataclass
class ChatStats:
    """Counters of a :class:`ChatModel` (cumulative over its life).

    ``calls``: HTTP requests sent; ``replies``: those that returned a completion;
    ``transport_errors``: failed requests by kind (``timeout``, ``connection``,
    ``http_<status>``); ``transport_retries``: requests sent again after one;
    ``format_downgrades``: format levels given up (a refused ``response_format``);
    ``prompt_tokens`` / ``completion_tokens``: sums of the replies' ``usage`` (0 when a server
    sends none); ``latencies_s``: wall time of each request that returned a completion, in
    seconds."""

    calls: int = 0
    replies: int = 0
    transport_errors: Counter[str] = dataclasses.field(default_factory=Counter)
    transport_retries: int = 0
    format_downgrades: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latencies_s: list[float] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class ChatReply:
    """One completion: its ``content`` (``""`` when the server sent none), the format level
    it was asked at, its tokens (``usage``; 0 when absent), the wall time of the request that
    returned it (``latency_s``), and ``attempts``: the requests sent for it (transport
    retries and format downgrades included)."""

    content: str
    format_level: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    attempts: int
    tool_calls: list[dict[str, str]] = dataclasses.field(default_factory=list)
    """Function calls of a :meth:`ChatModel.complete_tools` reply: ``{"name", "arguments"}``
    each (``arguments``: the JSON text the model wrote, not parsed)."""


def _count(x: Any) -> int:
    """A token count from a reply's ``usage``: a non-negative integer, else 0 (a server may send
    nothing, ``null`` or garbage there)."""
    return x if isinstance(x, int) and not isinstance(x, bool) and x >= 0 else 0


def _status_kind(err: openai.APIStatusError) -> str:
    return f"http_{err.status_code}"


class ChatModel:
    """An OpenAI-compatible chat endpoint.

    Args:
        base_url: e.g. ``http://127.0.0.1:8080/v1`` (llama.cpp), ``http://localhost:8000/v1``
            (vLLM), ``http://localhost:11434/v1`` (Ollama), ``https://api.openai.com/v1``;
            default ``$PF1E_LLM_BASE_URL``, else :data:`DEFAULT_BASE_URL`.
        model: the model name; default ``$PF1E_LLM_MODEL``, else :data:`DEFAULT_MODEL`.
        api_key: default ``$OPENAI_API_KEY``, else ``"none"`` (local servers need no key).
        timeout: seconds per request.
        transport_retries: how many times a request that timed out or failed in transport is
            sent again.
        backoff: seconds before the first transport retry, doubled each time.
        format_level: the level to start at (one of :data:`FORMAT_LEVELS`).
        temperature, max_tokens, seed: sampling parameters sent with every request
            (``None``: not sent).
        extra_body: more JSON fields for every request (server extensions, e.g. llama.cpp's
            ``grammar``).
        client: an ``openai.OpenAI`` to use instead of building one (its own retries should
            be 0: retries are counted here).
    """

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        transport_retries: int = 2,
        backoff: float = 0.5,
        format_level: str = "json_schema",
        temperature: float | None = 0.0,
        max_tokens: int | None = 512,
        seed: int | None = None,
        extra_body: dict[str, Any] | None = None,
        client: openai.OpenAI | None = None,
    ) -> None:
        if format_level not in FORMAT_LEVELS:
            raise ValueError(f"format_level: {format_level!r} is not one of {FORMAT_LEVELS}")
        if timeout <= 0:
            raise ValueError(f"timeout: must be > 0 seconds, not {timeout}")
        if transport_retries < 0:
            raise ValueError(f"transport_retries: must be >= 0, not {transport_retries}")
        self.base_url = base_url or os.environ.get("PF1E_LLM_BASE_URL") or DEFAULT_BASE_URL
        self.model = model or os.environ.get("PF1E_LLM_MODEL") or DEFAULT_MODEL
        self.timeout = float(timeout)
        self.transport_retries = int(transport_retries)
        self.backoff = float(backoff)
        self.format_level = format_level
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed
        self.extra_body = dict(extra_body or {})
        self.client = client or openai.OpenAI(
            base_url=self.base_url,
            api_key=api_key or os.environ.get("OPENAI_API_KEY") or "none",
            timeout=self.timeout,
            max_retries=0,
        )
        self.stats = ChatStats()

    def response_format(
        self, schema: dict[str, Any] | None, name: str, strict: bool
    ) -> dict[str, Any] | None:
        """The ``response_format`` of the current level (``None`` at ``text``, or without a
        schema at ``json_schema``)."""
        if self.format_level == "json_schema" and schema is not None:
            return {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": strict},
            }
        if self.format_level in ("json_schema", "json_object"):
            return {"type": "json_object"}
        return None

    def check_reachable(self, timeout: float = 5.0) -> None:
        """Raise :class:`ModelUnavailable` when nothing answers at ``base_url`` (a connection
        error or timeout on ``GET /models``); any HTTP answer, even an error, counts as
        reachable (not every server lists its models)."""
        try:
            self.client.models.list(timeout=timeout)
        except openai.APITimeoutError as e:
            raise ModelUnavailable("timeout", f"{self.base_url}: {e}") from e
        except openai.APIConnectionError as e:
            raise ModelUnavailable("connection", f"{self.base_url}: {e}") from e
        except openai.APIStatusError:
            pass

    def complete(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any] | None = None,
        *,
        name: str = "pf1e_answer",
        strict: bool = True,
    ) -> ChatReply:
        """One completion of ``messages`` (``[{"role", "content"}, ...]``), asking for JSON
        following ``schema`` at the current format level (see the module docs).

        Raises :class:`ModelUnavailable` (the counters are updated first)."""
        transport_failures = 0
        attempts = 0
        # The level this request started at: a refusal (400/422/500) is first taken for the
        # response format's and the request goes down a level; the lower level is kept only if
        # it then answers. If even plain text is refused the refusal was not about the format
        # (an over-long prompt, a bad model name): the level goes back and the error counts.
        start_level = self.format_level
        while True:
            fmt = self.response_format(schema, name, strict)
            kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
            if fmt is not None:
                kwargs["response_format"] = fmt
            if self.temperature is not None:
                kwargs["temperature"] = self.temperature
            if self.max_tokens is not None:
                kwargs["max_tokens"] = self.max_tokens
            if self.seed is not None:
                kwargs["seed"] = self.seed
            if self.extra_body:
                kwargs["extra_body"] = self.extra_body
            attempts += 1
            self.stats.calls += 1
            t0 = time.perf_counter()
            try:
                resp = self.client.chat.completions.create(timeout=self.timeout, **kwargs)
            except openai.APIStatusError as e:
                status = e.status_code
                if fmt is not None and status in (400, 422, 500):
                    self._downgrade()
                    continue
                if self.format_level != start_level:
                    self.stats.format_downgrades -= FORMAT_LEVELS.index(
                        self.format_level
                    ) - FORMAT_LEVELS.index(start_level)
                    self.format_level = start_level
                kind = _status_kind(e)
                retryable = status == 429 or status >= 500
                error: Exception = e
            except openai.APITimeoutError as e:
                kind, retryable, error = "timeout", True, e
            except openai.APIConnectionError as e:
                kind, retryable, error = "connection", True, e
            except ValueError as e:
                # An HTTP 200 whose body is not JSON (a proxy's HTML page, a truncated reply):
                # the openai client raises json.JSONDecodeError. A transport fault, not the
                # model's answer.
                kind, retryable, error = "bad_response", True, e
            else:
                latency = time.perf_counter() - t0
                return self._reply(resp, latency, attempts)
            self.stats.transport_errors[kind] += 1
            if not retryable or transport_failures >= self.transport_retries:
                raise ModelUnavailable(kind, str(error)) from error
            time.sleep(self.backoff * (2**transport_failures))
            transport_failures += 1
            self.stats.transport_retries += 1

    def complete_tools(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        *,
        tool_choice: str = "required",
        via: str = "native",
    ) -> ChatReply:
        """One completion of ``messages`` offering OpenAI-compatible function ``tools``
        (``[{"type": "function", "function": {"name", "description", "parameters"}}]``). The
        reply's :attr:`ChatReply.tool_calls` holds the calls.

        ``via="native"``: the request's ``tools`` and ``tool_choice`` (``"required"``: the
        model must call one; ``"auto"``); ``format_level`` ``"tools"``. Transport errors are
        retried and counted as in :meth:`complete`; a server that refuses ``tools`` (any HTTP
        error) raises :class:`ModelUnavailable`.

        ``via="json_schema"``: function calling over structured output, for servers or models
        without a native tool-call syntax: the functions are listed in a system message and the
        answer is constrained to ``{"tool_calls": [{"name": NAME, "arguments": {...}}, ...]}``
        (a JSON Schema whose items are one alternative per function, with its parameters), at
        the format levels of :meth:`complete`; ``format_level`` ``"tools_json_schema"``."""
        if via == "json_schema":
            return self._complete_tools_schema(messages, tools)
        if via != "native":
            raise ValueError(f"via: {via!r} is not 'native' or 'json_schema'")
        transport_failures = 0
        attempts = 0
        while True:
            kwargs: dict[str, Any] = {
                "model": self.model,
                "messages": messages,
                "tools": tools,
                "tool_choice": tool_choice,
            }
            if self.temperature is not None:
                kwargs["temperature"] = self.temperature
            if self.max_tokens is not None:
                kwargs["max_tokens"] = self.max_tokens
            if self.seed is not None:
                kwargs["seed"] = self.seed
            if self.extra_body:
                kwargs["extra_body"] = self.extra_body
            attempts += 1
            self.stats.calls += 1
            t0 = time.perf_counter()
            try:
                resp = self.client.chat.completions.create(timeout=self.timeout, **kwargs)
            except openai.APIStatusError as e:
                kind = _status_kind(e)
                retryable = e.status_code == 429 or e.status_code >= 502
                error: Exception = e
            except openai.APITimeoutError as e:
                kind, retryable, error = "timeout", True, e
            except openai.APIConnectionError as e:
                kind, retryable, error = "connection", True, e
            except ValueError as e:
                kind, retryable, error = "bad_response", True, e
            else:
                reply = self._reply(resp, time.perf_counter() - t0, attempts)
                reply.format_level = "tools"
                reply.tool_calls = _tool_calls(resp)
                return reply
            self.stats.transport_errors[kind] += 1
            if not retryable or transport_failures >= self.transport_retries:
                raise ModelUnavailable(kind, str(error)) from error
            time.sleep(self.backoff * (2**transport_failures))
            transport_failures += 1
            self.stats.transport_retries += 1

    def _complete_tools_schema(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> ChatReply:
        fns = [t["function"] for t in tools]
        schema = {
            "type": "object",
            "properties": {
                "tool_calls": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {
                        "anyOf": [
                            {
                                "type": "object",
                                "properties": {
                                    "name": {"const": f["name"]},
                                    "arguments": f.get("parameters") or {"type": "object"},
                                },
                                "required": ["name", "arguments"],
                                "additionalProperties": False,
                            }
                            for f in fns
                        ]
                    },
                }
            },
            "required": ["tool_calls"],
            "additionalProperties": False,
        }
        listing = "\n".join(
            json.dumps(
                {
                    "name": f["name"],
                    "description": f.get("description", ""),
                    "parameters": f.get("parameters", {}),
                },
                ensure_ascii=False,
            )
            for f in fns
        )
        note = {
            "role": "system",
            "content": "Functions you can call (one JSON object each):\n"
            + listing
            + '\nAnswer with JSON: {"tool_calls": [{"name": NAME, "arguments": {...}}, ...]}',
        }
        reply = self.complete([*messages, note], schema, name="tool_calls", strict=False)
        calls: list[dict[str, str]] = []
        try:
            value = json.loads(reply.content)
        except ValueError:
            value = None
        if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
            for c in value["tool_calls"]:
                if isinstance(c, dict) and isinstance(c.get("name"), str):
                    args = c.get("arguments", {})
                    calls.append({"name": c["name"], "arguments": json.dumps(args)})
        reply.tool_calls = calls
        reply.format_level = "tools_json_schema"
        return reply

    def _downgrade(self) -> None:
        i = FORMAT_LEVELS.index(self.format_level)
        self.format_level = FORMAT_LEVELS[min(i + 1, len(FORMAT_LEVELS) - 1)]
        self.stats.format_downgrades += 1

    def _reply(self, resp: Any, latency: float, attempts: int) -> ChatReply:
        usage = getattr(resp, "usage", None)
        pt = _count(getattr(usage, "prompt_tokens", 0)) if usage is not None else 0
        ct = _count(getattr(usage, "completion_tokens", 0)) if usage is not None else 0
        content = ""
        choices = getattr(resp, "choices", None)
        if isinstance(choices, list) and choices:
            message = getattr(choices[0], "message", None)
            text = getattr(message, "content", None)
            content = text if isinstance(text, str) else ""
        self.stats.replies += 1
        self.stats.prompt_tokens += pt
        self.stats.completion_tokens += ct
        self.stats.latencies_s.append(latency)
        return ChatReply(content, self.format_level, pt, ct, latency, attempts)


def _tool_calls(resp: Any) -> list[dict[str, str]]:
    """The function calls of a completion (``[]`` when none or malformed)."""
    out: list[dict[str, str]] = []
    choices = getattr(resp, "choices", None)
    if not (isinstance(choices, list) and choices):
        return out
    message = getattr(choices[0], "message", None)
    for call in getattr(message, "tool_calls", None) or []:
        fn = getattr(call, "function", None)
        name = getattr(fn, "name", None)
        args = getattr(fn, "arguments", None)
        if isinstance(name, str):
            out.append({"name": name, "arguments": args if isinstance(args, str) else ""})
    return out
