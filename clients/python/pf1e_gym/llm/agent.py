"""``LLMAgent``: a language model plays a side through an OpenAI-compatible chat API.

Per decision the agent sends the server's text rendering of the decision
(``ObservationOptions.text``, in ``en`` or ``fr``; the map, the combatants, the budget, the last
results and the numbered legal actions) in a fresh two-message conversation (system prompt,
decision prompt: templates in ``pf1e_gym/llm/prompts/``), asks for a structured answer, parses
it, and submits it with ``Step``.

**Answer modes** (``answer=``):

- ``"label"`` (default): ``{"action": LABEL}``, the JSON Schema an enum of the legal actions'
  labels (``LegalAction.label``); submitted as ``StepRequest.action_labels`` (a server without
  structured actions: mapped to the legal action's id here);
- ``"id"``: ``{"action_id": ID}``, an enum of the legal ids; submitted as ``action_ids``;
- ``"action"``: one structured JSON action (``{"kind": "full_attack", "target": "orc-2",
  "weapon": "falchion"}``), schema ``Spec.action_json_schema``; submitted as ``actions_json``;
- ``"plan"``: the whole rest of the turn, ``{"plan": [action, ...]}``, schema
  ``Spec.plan_json_schema``, submitted as ``actions_json`` (applied with the turn's budget,
  one ``ActionResult`` each). At a reaction decision (attack of opportunity, readied trigger,
  Step Up) a plan makes no sense: the agent asks for one structured action instead.
- ``"tools"``: function calling (OpenAI-compatible ``tools``, ``tool_choice="required"``):
  one function per action kind generated from the spec (:mod:`pf1e_gym.llm.tools`), those of
  the kinds legal now offered; each call is a structured action, several calls the rest of the
  turn in order, submitted as ``actions_json``. A server that refuses ``tools`` gives no
  reply (:class:`~pf1e_gym.llm.chat.ModelUnavailable`, the fallback). ``tool_format=
  "json_schema"`` calls the same functions over structured output instead (a model or server
  without a native tool-call syntax; see :meth:`~pf1e_gym.llm.chat.ChatModel.complete_tools`).

**Text detail** (``text_mode``, ``token_budget``, ``chars_per_token``): the server's text
observation in ``full`` or ``compact`` mode (the legal actions that differ only by their square
folded into one line; docs/text-observation.md), with an optional budget in tokens.

At the ``text`` format level (a server that takes no ``response_format``, see
:mod:`pf1e_gym.llm.chat`) the reply is parsed as free text: a JSON object in it if there is one,
else (``label``) the longest legal label it contains or (``id``) its first integer.

**Refusals.** An answer is refused when it is not JSON (``invalid_json``), does not follow the
schema (``schema_mismatch``), names no legal label (``unknown_label``) or no id of the action
space (``unknown_id``), does not resolve on the server (``unresolved``: ``Step`` answered
INVALID_ARGUMENT for an ``actions_json``), or is illegal now (``illegal:<code>``, one count per
refused action: the ``ActionResult`` code, e.g. ``illegal:out_of_range``). The agent then sends the
reason back (``retry.txt``; for an illegal action the server's **Explain** reason, else the
result's code and detail) in the same conversation and asks again, up to ``retries`` times.

**Fallback.** When the retries are spent, or the chat endpoint gives no reply
(:class:`~pf1e_gym.llm.chat.ModelUnavailable`), the agent plays a safe action and counts it:

- ``fallback="end_turn"`` (default): ``end_turn`` at a turn decision, ``decline`` at a
  reaction;
- ``fallback="first_legal"``: the legal action with the lowest id other than ``end_turn`` and
  ``decline`` (e.g. the first move or attack), else as ``end_turn``.

The server's default policy is not offered as a fallback: no RPC returns the default policy's
choice for a decision that a client controls.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
from collections import Counter
from typing import Any

import grpc
import jsonschema

from pf1e_gym._codec import capabilities, decision_kind_name, result_code_name
from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import Pf1eClient, decline_action, is_reaction
from pf1e_gym.llm import templates
from pf1e_gym.llm.chat import ChatModel, ChatReply, ModelUnavailable
from pf1e_gym.llm.tools import action_tools, call_to_action, tools_for_state

ANSWER_MODES = ("label", "id", "action", "plan", "tools")
"""The answer modes (see the module docs)."""

FALLBACKS = ("end_turn", "first_legal")
"""The fallback actions (see the module docs)."""

TOOL_FORMATS = ("native", "json_schema")
"""How ``answer="tools"`` reaches the model: the request's ``tools``, or structured output."""

TEXT_MODES = ("full", "compact")
"""The text observation's detail levels (``ObservationOptions.text_mode``)."""

PARAMETER_CODES = frozenset(
    {
        "missing_target",
        "invalid_target",
        "weapon_unavailable",
        "no_weapon",
        "invalid_destination",
        "missing_maneuver",
        "target_too_large",
    }
)
"""Result codes of an action whose kind was possible but whose parameters (target, weapon,
square, maneuver) were not: counted as parameter errors (the scorecard's parameter fidelity)."""


@dataclasses.dataclass
class AgentStats:
    """Counters of an agent (per fight in :class:`FightResult`, cumulative in
    :attr:`LLMAgent.stats`).

    - ``decisions``: decisions answered (by the model or by the fallback);
    - ``model_calls``: completions received (one per attempt that got a reply);
    - ``accepted``: decisions answered by the model's own action;
    - ``malformed``: refused answers by reason (``invalid_json``, ``schema_mismatch``,
      ``unknown_label``, ``unknown_id``, ``unresolved``, ``illegal:<code>``);
    - ``retries``: answers asked again after a refusal;
    - ``fallbacks``: decisions answered by the fallback action, and ``fallback_reasons``
      (``retries_exhausted``, ``model_unavailable``);
    - ``transport_errors`` (by kind: ``timeout``, ``connection``, ``http_<status>``),
      ``transport_retries``, ``format_downgrades``: from the chat endpoint, see
      :class:`~pf1e_gym.llm.chat.ChatStats`;
    - ``prompt_tokens``, ``completion_tokens``: sums of the replies' ``usage`` (0 when absent);
    - ``latencies_s``: wall time of each completion, in seconds;
    - ``first_try``: decisions answered by the model's first answer;
    - ``submitted_actions``: actions the model's answers named (a plan or several tool calls
      count each), and ``parameter_errors`` among them by field or code: a name that does not
      resolve (``target``, ``weapon``, ``spell``, ``destination``… from the server's
      INVALID_ARGUMENT field) or an action refused for its parameters
      (:data:`PARAMETER_CODES`).
    """

    decisions: int = 0
    model_calls: int = 0
    accepted: int = 0
    malformed: Counter[str] = dataclasses.field(default_factory=Counter)
    retries: int = 0
    fallbacks: int = 0
    fallback_reasons: Counter[str] = dataclasses.field(default_factory=Counter)
    transport_errors: Counter[str] = dataclasses.field(default_factory=Counter)
    transport_retries: int = 0
    format_downgrades: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latencies_s: list[float] = dataclasses.field(default_factory=list)
    first_try: int = 0
    submitted_actions: int = 0
    parameter_errors: Counter[str] = dataclasses.field(default_factory=Counter)

    def merge(self, other: AgentStats) -> None:
        """Add ``other``'s counts to these."""
        for f in dataclasses.fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if isinstance(mine, Counter):
                mine.update(theirs)
            elif isinstance(mine, list):
                mine.extend(theirs)
            else:
                setattr(self, f.name, mine + theirs)

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able values (Counters as sorted dicts)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out[f.name] = dict(sorted(v.items())) if isinstance(v, Counter) else copy.copy(v)
        return out


@dataclasses.dataclass
class FightResult:
    """One episode played by :meth:`LLMAgent.play`: ``outcome`` ``"win"``, ``"loss"`` or
    ``"draw"`` for the agent's side (a draw: nobody won, or the round cap), the ``winner``
    side (``None`` for none), ``rounds``, ``truncated``, its counters and its ``records``
    (one dict per model call and per fallback, see :meth:`LLMAgent.act`)."""

    seed: int
    side: str
    outcome: str
    winner: str | None
    rounds: int
    truncated: bool
    stats: AgentStats
    records: list[dict[str, Any]]


class _Refusal(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def _json_in(text: str) -> Any:
    """The JSON value of ``text``, else the first JSON object inside it (``NotFound`` = None)."""
    s = text.strip()
    fence = re.match(r"^```(?:json)?\s*(.*?)\s*```$", s, re.S)
    if fence:
        s = fence.group(1)
    try:
        return json.loads(s)
    except ValueError:
        pass
    dec = json.JSONDecoder()
    for m in re.finditer(r"\{", s):
        try:
            value, _ = dec.raw_decode(s, m.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _excerpt(text: str, n: int = 200) -> str:
    t = " ".join(text.split())
    return t if len(t) <= n else t[: n - 1] + "…"


def render_fallback_text(state: pb.EpisodeState) -> str:
    """A minimal text observation for a server that renders none
    (``Capabilities.text_observation`` false): one line per combatant from the typed
    observation (id, side, hp, AC, square, conditions), then the numbered legal actions."""
    lines = []
    obs = state.observation
    if obs.combatants:
        lines.append("Combatants:")
        for c in obs.combatants:
            status = "dead" if c.dead else ("dying" if c.dying else "")
            conds = ", ".join([*c.conditions, *([status] if status else [])])
            lines.append(
                f"  {c.id} ({c.side}): hp {c.hp}/{c.hp_max}, AC {c.ac}, at ({c.row},{c.col})"
                + (f", {conds}" if conds else "")
            )
    lines.append("Legal actions:")
    for la in state.legal_actions:
        lines.append(f"  {la.id}: {la.label}")
    return "\n".join(lines)


class LLMAgent:
    """A language model that answers the decisions of the combatants a client controls.

    Args:
        model: the chat endpoint (:class:`~pf1e_gym.llm.chat.ChatModel`); default one built
            from ``$PF1E_LLM_BASE_URL``, ``$PF1E_LLM_MODEL``, ``$OPENAI_API_KEY``.
        answer: the answer mode, one of :data:`ANSWER_MODES`.
        lang: the language of the prompts and of the text observation, ``"en"`` or ``"fr"``
            (the action labels stay the engine's, in English).
        retries: how many times a refused answer is asked again before the fallback.
        fallback: one of :data:`FALLBACKS`.
        prompt_dir: a directory of prompt overrides (see :mod:`pf1e_gym.llm.templates`).
        text_mode: the text observation's detail, one of :data:`TEXT_MODES`.
        token_budget: a budget in tokens for the text observation (``None``: none); see
            ``ObservationOptions.text_token_budget``.
        tool_format: ``"native"`` (the request's ``tools``) or ``"json_schema"`` (function
            calls over structured output), for ``answer="tools"``.
        chars_per_token: the model tokenizer's characters per token for the budget
            (``None``: measured — the prompt's characters over the ``usage.prompt_tokens``
            the model's server reports, from the first reply on; used from the next episode,
            the options being fixed at Reset; the server's default, 4, before any reply).

    Raises ``ValueError`` naming the argument for a bad value.
    """

    def __init__(
        self,
        model: ChatModel | None = None,
        *,
        answer: str = "label",
        lang: str = "en",
        retries: int = 2,
        fallback: str = "end_turn",
        prompt_dir: str | os.PathLike[str] | None = None,
        text_mode: str = "full",
        token_budget: int | None = None,
        chars_per_token: float | None = None,
        tool_format: str = "native",
    ) -> None:
        if tool_format not in TOOL_FORMATS:
            raise ValueError(f"tool_format: {tool_format!r} is not one of {list(TOOL_FORMATS)}")
        if text_mode not in TEXT_MODES:
            raise ValueError(f"text_mode: {text_mode!r} is not one of {list(TEXT_MODES)}")
        if token_budget is not None and token_budget < 1:
            raise ValueError(f"token_budget: must be >= 1, not {token_budget}")
        if chars_per_token is not None and not 0.5 <= chars_per_token <= 16:
            raise ValueError(f"chars_per_token: must be 0.5 to 16, not {chars_per_token}")
        if answer not in ANSWER_MODES:
            raise ValueError(f"answer: {answer!r} is not one of {list(ANSWER_MODES)}")
        if fallback not in FALLBACKS:
            msg = f"fallback: {fallback!r} is not one of {list(FALLBACKS)}"
            if fallback == "default_policy":
                msg += " (the server does not expose the default policy's choice)"
            raise ValueError(msg)
        if retries < 0:
            raise ValueError(f"retries: must be >= 0, not {retries}")
        self.model = model if model is not None else ChatModel()
        self.answer = answer
        self.lang = templates.check_lang(lang)
        self.retries = int(retries)
        self.fallback = fallback
        self.prompt_dir = prompt_dir
        self.text_mode = text_mode
        self.tool_format = tool_format
        self.token_budget = token_budget
        self.chars_per_token = chars_per_token
        self.stats = AgentStats()
        self._tools: dict[str, list[dict[str, Any]]] = {}
        self.measured_chars_per_token: float | None = None

    # -- public --

    def check_spec(self, spec: pb.Spec) -> None:
        """``ValueError`` when the server cannot serve this answer mode (``action`` / ``plan``
        need ``Spec.action_json_schema`` / ``plan_json_schema``)."""
        if self.answer in ("action", "plan", "tools") and not spec.action_json_schema:
            raise ValueError(
                f"answer: {self.answer!r} needs a server with structured actions "
                "(Spec.action_json_schema is empty)"
            )
        if self.answer == "plan" and not spec.plan_json_schema:
            raise ValueError("answer: 'plan' needs Spec.plan_json_schema (empty on this server)")

    def observation_options(self) -> pb.ObservationOptions:
        """What the agent needs at Reset: the text rendering in its language, the legal
        actions and the typed core (no JSON snapshot)."""
        return pb.ObservationOptions(
            json=False,
            legal_actions=True,
            typed=True,
            text=True,
            lang=self.lang,
            text_mode=self.text_mode if self.text_mode != "full" else "",
            text_token_budget=self.token_budget or 0,
            text_chars_per_token=self.chars_per_token or self.measured_chars_per_token or 0.0,
        )

    def play(
        self,
        client: Pf1eClient,
        scenario: str | pb.Scenario,
        *,
        side: str,
        seed: int = 0,
        tactics: dict[str, Any] | None = None,
        max_decisions: int = 100_000,
    ) -> FightResult:
        """Play one episode: the agent controls ``side``, the server's default policy (or a
        tactics spec per side, ``tactics``) everyone else. Returns its :class:`FightResult`;
        its counters are added to :attr:`stats`.

        Raises ``grpc.RpcError`` (the server refused the scenario, the side…),
        ``ValueError`` (see :meth:`check_spec`), ``RuntimeError`` (more than
        ``max_decisions`` decisions)."""
        spec = client.get_spec(scenario)
        self.check_spec(spec)
        if side not in spec.sides:
            raise ValueError(f"side: {side!r} is not a side of this scenario ({list(spec.sides)})")
        state = client.reset(
            scenario,
            seed,
            controlled_sides=[side],
            tactics=tactics,
            observation=self.observation_options(),
        )
        stats = AgentStats()
        records: list[dict[str, Any]] = []
        try:
            n = 0
            while state.HasField("decision") and not (state.terminated or state.truncated):
                n += 1
                if n > max_decisions:
                    raise RuntimeError(f"more than {max_decisions} decisions in one episode")
                state = self.act(client, state, spec, stats=stats, records=records)
        finally:
            try:
                client.close_episode(state.episode_id)
            except grpc.RpcError:
                pass
        self.stats.merge(stats)
        winner = state.outcome.winner or None
        outcome = "draw" if winner is None else ("win" if winner == side else "loss")
        return FightResult(
            seed=seed,
            side=side,
            outcome=outcome,
            winner=winner,
            rounds=int(state.outcome.rounds),
            truncated=bool(state.truncated),
            stats=stats,
            records=records,
        )

    def act(
        self,
        client: Pf1eClient,
        state: pb.EpisodeState,
        spec: pb.Spec,
        *,
        stats: AgentStats | None = None,
        records: list[dict[str, Any]] | None = None,
    ) -> pb.EpisodeState:
        """Answer the pending decision of ``state`` (asking the model, retrying, falling
        back) and return the state after it. Counts into ``stats`` (default :attr:`stats`);
        appends to ``records`` one dict per model call — ``type: "call"``, ``decision_id``,
        ``actor``, ``attempt`` (0 = first), ``messages`` (the prompt), ``format_level``,
        ``reply``, ``parsed``, ``submitted``, ``result`` (``accepted``, ``refused``,
        ``model_unavailable``), ``reason`` / ``message`` (of a refusal), ``results`` (the
        step's ``ActionResult`` dicts), ``prompt_tokens``, ``completion_tokens``,
        ``latency_s`` — and one ``type: "fallback"`` dict per fallback."""
        st = stats if stats is not None else self.stats
        recs = records if records is not None else []
        st.decisions += 1
        d = state.decision
        side = spec.combatants[d.actor_index].side if d.actor_index < len(spec.combatants) else ""
        caps = capabilities(spec)
        messages = [
            {"role": "system", "content": self._render("system.txt", side=side)},
            {"role": "user", "content": self._decision_prompt(state, spec)},
        ]
        for attempt in range(self.retries + 1):
            schema, strict = self._schema(state, spec)
            rec: dict[str, Any] = {
                "type": "call",
                "decision_id": int(state.decision.decision_id),
                "actor": state.decision.actor_id,
                "attempt": attempt,
                "messages": copy.deepcopy(messages),
            }
            before = dataclasses.replace(
                self.model.stats, transport_errors=Counter(self.model.stats.transport_errors)
            )
            try:
                if self._mode(state) == "tools":
                    offered = tools_for_state(self._spec_tools(spec), state)
                    rec["tools"] = [t["function"]["name"] for t in offered]
                    reply = self.model.complete_tools(messages, offered, via=self.tool_format)
                else:
                    reply = self.model.complete(messages, schema, strict=strict)
            except ModelUnavailable as e:
                self._add_transport(st, before)
                rec.update(result="model_unavailable", reason=e.kind, message=str(e))
                recs.append(rec)
                return self._fall_back(client, state, st, recs, "model_unavailable")
            self._add_transport(st, before)
            self._count_reply(st, reply)
            if reply.prompt_tokens > 0:
                chars = sum(len(str(m.get("content", ""))) for m in messages)
                self.measured_chars_per_token = min(16.0, max(0.5, chars / reply.prompt_tokens))
            rec.update(
                format_level=reply.format_level,
                reply=reply.content,
                tool_calls=reply.tool_calls,
                prompt_tokens=reply.prompt_tokens,
                completion_tokens=reply.completion_tokens,
                latency_s=reply.latency_s,
            )
            try:
                value = self._parse(reply, state, spec)
                rec["parsed"] = value
                st.submitted_actions += _count_actions(value)
                new_state, submitted = self._submit(client, state, spec, caps, value, st)
                rec["submitted"] = submitted
                rec["results"] = _results(new_state)
                refused = [r for r in new_state.results if not r.ok]
                same_question = (
                    new_state.HasField("decision")
                    and new_state.decision.actor_index == d.actor_index
                    and new_state.decision.kind == d.kind
                )
                for r in refused:
                    if result_code_name(r.code) in PARAMETER_CODES:
                        st.parameter_errors[result_code_name(r.code)] += 1
                if same_question and new_state.results and len(refused) == len(new_state.results):
                    for r in refused:
                        st.malformed[f"illegal:{result_code_name(r.code)}"] += 1
                    reason = self._illegal_reason(client, new_state, caps, value, refused[0])
                    rec.update(
                        result="refused",
                        reason=f"illegal:{result_code_name(refused[0].code)}",
                        message=reason,
                    )
                    state = new_state
                    raise _Refusal("", reason)  # counted above
                for r in refused:  # a plan partly applied, or the episode moved on
                    st.malformed[f"illegal:{result_code_name(r.code)}"] += 1
                rec["result"] = "accepted"
                recs.append(rec)
                st.accepted += 1
                if attempt == 0:
                    st.first_try += 1
                return new_state
            except _Refusal as refusal:
                if refusal.reason:
                    st.malformed[refusal.reason] += 1
                    rec.update(result="refused", reason=refusal.reason, message=refusal.message)
                recs.append(rec)
                if attempt < self.retries:
                    st.retries += 1
                    said = reply.content
                    if reply.tool_calls:
                        said = json.dumps(reply.tool_calls, ensure_ascii=False)
                    messages.append({"role": "assistant", "content": said})
                    messages.append(
                        {
                            "role": "user",
                            "content": self._render(
                                "retry.txt",
                                reason=refusal.message,
                                answer_instructions=self._instructions(state, spec),
                            ),
                        }
                    )
        return self._fall_back(client, state, st, recs, "retries_exhausted")

    # -- prompts and schemas --

    def _render(self, name: str, **values: object) -> str:
        return templates.render(name, self.lang, self.prompt_dir, **values)

    def _mode(self, state: pb.EpisodeState) -> str:
        if self.answer == "plan" and is_reaction(state):
            return "action"
        return self.answer

    def _instructions(self, state: pb.EpisodeState, spec: pb.Spec) -> str:
        mode = self._mode(state)
        if mode == "action":
            return self._render("answer_action.txt", schema=spec.action_json_schema)
        if mode == "plan":
            return self._render("answer_plan.txt", schema=spec.plan_json_schema)
        return self._render(f"answer_{mode}.txt")

    def _spec_tools(self, spec: pb.Spec) -> list[dict[str, Any]]:
        """The function tools of ``spec`` (:func:`pf1e_gym.llm.tools.action_tools`), built
        once per scenario."""
        key = spec.action_json_schema + "\n" + ",".join(b.name for b in spec.action_blocks)
        if key not in self._tools:
            self._tools[key] = action_tools(spec)
        return self._tools[key]

    def _decision_prompt(self, state: pb.EpisodeState, spec: pb.Spec) -> str:
        d = state.decision
        text = state.observation.text or render_fallback_text(state)
        return self._render(
            "decision.txt",
            decision_id=d.decision_id,
            round=d.round,
            actor=d.actor_id,
            decision_kind=decision_kind_name(d.kind),
            observation=text.rstrip(),
            answer_instructions=self._instructions(state, spec),
        )

    def _schema(self, state: pb.EpisodeState, spec: pb.Spec) -> tuple[dict[str, Any], bool]:
        """The answer's JSON Schema and whether it is ``strict``-compatible."""
        mode = self._mode(state)
        if mode == "label":
            labels = [la.label for la in state.legal_actions]
            return _object_schema("action", {"type": "string", "enum": labels}), True
        if mode == "id":
            ids = [int(la.id) for la in state.legal_actions]
            return _object_schema("action_id", {"type": "integer", "enum": ids}), True
        if mode in ("action", "tools"):
            return json.loads(spec.action_json_schema), False
        return json.loads(spec.plan_json_schema), False

    # -- parsing and submitting --

    def _parse(self, reply: ChatReply, state: pb.EpisodeState, spec: pb.Spec) -> Any:
        mode = self._mode(state)
        if mode == "tools":
            return self._parse_tools(reply, state, spec)
        obj = _json_in(reply.content)
        if obj is None and reply.format_level == "text":
            if mode == "label":
                found = [la.label for la in state.legal_actions if la.label in reply.content]
                if found:
                    return max(found, key=len)
            elif mode == "id":
                m = re.search(r"-?\d+", reply.content)
                if m:
                    return self._check_id(int(m.group()), spec)
        if obj is None:
            raise _Refusal(
                "invalid_json", f"the reply is not a JSON object: {_excerpt(reply.content)!r}"
            )
        if mode == "label":
            if not (isinstance(obj, dict) and isinstance(obj.get("action"), str)):
                raise _Refusal(
                    "schema_mismatch",
                    f'expected {{"action": "<label>"}}, got {_excerpt(json.dumps(obj))}',
                )
            return obj["action"]
        if mode == "id":
            v = obj.get("action_id") if isinstance(obj, dict) else None
            if not isinstance(v, int) or isinstance(v, bool):
                raise _Refusal(
                    "schema_mismatch",
                    f'expected {{"action_id": <number>}}, got {_excerpt(json.dumps(obj))}',
                )
            return self._check_id(v, spec)
        schema, _ = self._schema(state, spec)
        errors = sorted(
            jsonschema.Draft202012Validator(schema).iter_errors(obj), key=lambda e: list(e.path)
        )
        if errors:
            raise _Refusal("schema_mismatch", _schema_errors(errors))
        return obj

    def _parse_tools(self, reply: ChatReply, state: pb.EpisodeState, spec: pb.Spec) -> Any:
        """The structured action(s) of a reply's function calls: one call → one action,
        several → a list (the rest of the turn, in order)."""
        if not reply.tool_calls:
            raise _Refusal(
                "no_tool_call",
                "the reply calls no function: call one of the offered functions "
                f"(it said: {_excerpt(reply.content)!r})",
            )
        offered = {t["function"]["name"]: t for t in tools_for_state(self._spec_tools(spec), state)}
        actions = []
        for i, call in enumerate(reply.tool_calls):
            name = call["name"]
            if name not in offered:
                raise _Refusal(
                    "unknown_tool",
                    f"call {i}: no function {name!r} now; the functions: {sorted(offered)}",
                )
            try:
                args = json.loads(call["arguments"] or "{}")
            except ValueError:
                raise _Refusal(
                    "invalid_json",
                    f"call {i} ({name}): the arguments are not JSON: "
                    f"{_excerpt(call['arguments'])!r}",
                ) from None
            if not isinstance(args, dict):
                raise _Refusal("schema_mismatch", f"call {i} ({name}): arguments must be an object")
            params = offered[name]["function"]["parameters"]
            errors = sorted(
                jsonschema.Draft202012Validator(params).iter_errors(args),
                key=lambda e: list(e.path),
            )
            if errors:
                raise _Refusal("schema_mismatch", f"call {i} ({name}): " + _schema_errors(errors))
            actions.append(call_to_action(name, args))
        return actions[0] if len(actions) == 1 else actions

    @staticmethod
    def _check_id(v: int, spec: pb.Spec) -> int:
        if not 0 <= v < spec.action_space_size:
            raise _Refusal(
                "unknown_id",
                f"{v} is not an action id (the action space has ids 0 to "
                f"{spec.action_space_size - 1}); answer with the number of a legal action",
            )
        return v

    def _submit(
        self,
        client: Pf1eClient,
        state: pb.EpisodeState,
        spec: pb.Spec,
        caps: dict[str, bool],
        value: Any,
        st: AgentStats | None = None,
    ) -> tuple[pb.EpisodeState, dict[str, Any]]:
        mode = self._mode(state)
        eid, did = state.episode_id, state.decision.decision_id
        try:
            if mode == "label":
                if caps["structured_actions"]:
                    sub: dict[str, Any] = {"action_labels": [value]}
                else:
                    ids = {la.label: int(la.id) for la in state.legal_actions}
                    if value not in ids:
                        raise _Refusal(
                            "unknown_label",
                            f"{value!r} is not the label of a legal action: copy one of the "
                            "listed labels exactly",
                        )
                    sub = {"action_ids": [ids[value]]}
            elif mode == "id":
                sub = {"action_ids": [value]}
            else:
                sub = {"actions_json": json.dumps(value)}
            return client.step(eid, did, **sub), sub
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.INVALID_ARGUMENT:
                raise
            reason = {"label": "unknown_label", "id": "unknown_id"}.get(mode, "unresolved")
            what = repr(value) if mode in ("label", "id") else _excerpt(json.dumps(value))
            if st is not None and reason == "unresolved":
                st.parameter_errors[_error_field(e.details() or "")] += 1
            raise _Refusal(reason, f"{what}: {e.details() or 'refused'}") from None

    def _illegal_reason(
        self,
        client: Pf1eClient,
        state: pb.EpisodeState,
        caps: dict[str, bool],
        value: Any,
        result: pb.ActionResult,
    ) -> str:
        """The Explain reason of a refused action (a server with Explain), else the result's
        code and detail."""
        code = result_code_name(result.code)
        fallback = f"{code}" + (f": {result.detail}" if result.detail else "")
        if not caps["explain"] or not state.HasField("decision"):
            return fallback
        mode = self._mode(state)
        kw: dict[str, Any]
        if mode == "label":
            kw = {"label": value}
        elif mode == "id":
            kw = {"action_id": value}
        else:
            plan = value.get("plan") if isinstance(value, dict) else None
            first = plan[0] if isinstance(plan, list) and plan else value
            kw = {"action_json": json.dumps(first)}
        try:
            ex = client.explain(state.episode_id, decision_id=state.decision.decision_id, **kw)
        except grpc.RpcError:
            return fallback
        if not ex or ex[0].legal:
            return fallback
        e = ex[0]
        where = f" (field: {e.field})" if e.field else ""
        return f"{e.label or value}: {e.code or code}: {e.reason}{where}"

    # -- fallback and counters --

    def fallback_action(self, state: pb.EpisodeState) -> pb.Action:
        """The fallback action for the pending decision of ``state`` (see the module docs)."""
        if self.fallback == "first_legal":
            skip = (pb.ACTION_KIND_END_TURN, pb.ACTION_KIND_DECLINE)
            for la in sorted(state.legal_actions, key=lambda la: la.id):
                if la.action.kind not in skip:
                    return la.action
        if is_reaction(state):
            return decline_action()
        return pb.Action(kind=pb.ACTION_KIND_END_TURN)

    def _fall_back(
        self,
        client: Pf1eClient,
        state: pb.EpisodeState,
        st: AgentStats,
        recs: list[dict[str, Any]],
        why: str,
    ) -> pb.EpisodeState:
        action = self.fallback_action(state)
        new_state = client.step(state.episode_id, state.decision.decision_id, actions=[action])
        st.fallbacks += 1
        st.fallback_reasons[why] += 1
        recs.append(
            {
                "type": "fallback",
                "decision_id": int(state.decision.decision_id),
                "actor": state.decision.actor_id,
                "why": why,
                "fallback": self.fallback,
                "action": _kind(action.kind),
                "results": _results(new_state),
            }
        )
        if new_state.results and not new_state.results[0].ok:
            r = new_state.results[0]
            raise RuntimeError(
                f"the fallback action {_kind(action.kind)} was refused: "
                f"{result_code_name(r.code)} {r.detail}"
            )
        return new_state

    def _add_transport(self, st: AgentStats, before: Any) -> None:
        now = self.model.stats
        st.transport_errors.update(now.transport_errors - before.transport_errors)
        st.transport_retries += now.transport_retries - before.transport_retries
        st.format_downgrades += now.format_downgrades - before.format_downgrades

    @staticmethod
    def _count_reply(st: AgentStats, reply: ChatReply) -> None:
        st.model_calls += 1
        st.prompt_tokens += reply.prompt_tokens
        st.completion_tokens += reply.completion_tokens
        st.latencies_s.append(reply.latency_s)


def _count_actions(value: Any) -> int:
    """How many actions a parsed answer names (a plan or a list: each)."""
    if isinstance(value, dict) and isinstance(value.get("plan"), list):
        return len(value["plan"])
    if isinstance(value, list):
        return len(value)
    return 1


def _error_field(details: str) -> str:
    """The field of a Step INVALID_ARGUMENT message (``actions_json.plan[1].target: no
    combatant …`` → ``target``; ``kind`` when no field is named)."""
    head = details.split(":", 1)[0]
    last = head.rsplit(".", 1)[-1]
    last = re.sub(r"\[\d+\]", "", last)
    return last if last and last != "actions_json" else "kind"


def _object_schema(key: str, prop: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {key: prop},
        "required": [key],
        "additionalProperties": False,
    }


def _schema_errors(errors: list[Any], limit: int = 5) -> str:
    parts = []
    for e in errors[:limit]:
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.path) or "(root)"
        msg = e.message
        if e.context:  # anyOf / oneOf: what each alternative says
            alts = [sub.message for sub in e.context[:3]]
            msg += ": " + "; or ".join(alts)
        parts.append(f"{path.lstrip('.')}: {msg}")
    more = f" (and {len(errors) - limit} more)" if len(errors) > limit else ""
    return "the answer does not follow the schema: " + "; ".join(parts) + more


def _kind(kind: int) -> str:
    name = pb.ActionKind.Name(kind) if kind in pb.ActionKind.values() else str(kind)
    return name.removeprefix("ACTION_KIND_").lower()


def _results(state: pb.EpisodeState) -> list[dict[str, Any]]:
    return [
        {
            "kind": _kind(r.kind),
            "ok": r.ok,
            "code": result_code_name(r.code),
            "detail": r.detail,
            "field": r.field,
        }
        for r in state.results
    ]
