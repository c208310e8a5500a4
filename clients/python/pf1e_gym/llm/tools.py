"""Function-calling tools generated from a scenario's spec: one OpenAI-compatible function per
action kind, with typed arguments.

:func:`action_tools` reads two things of ``GetSpec`` and writes no rule by hand:

- ``Spec.action_blocks``: the fixed action space, block by block, each with its **axes**
  (``target``, ``weapon``, ``square``, ``spell``, ``maneuver``…). A block belongs to the action
  kind whose name is the longest kind name it starts with (``move_to`` and ``move_toward`` →
  ``move``, ``run_toward`` → ``run``, ``cast_spell_at`` → ``cast_spell``,
  ``ready_attack_on_entry`` → ``ready``); the kind's function takes the structured-action
  fields its blocks' axes name (``target``/``opponent``/``delay`` → ``target``, ``ally`` →
  ``ally``, ``weapon`` → ``weapon``, ``square`` → ``destination`` — ``target_pos`` for a
  spell —, ``direction`` → ``destination``, ``spell``, ``maneuver``, ``mode`` → ``aid_mode``,
  ``metamagic``); a field every block of the kind has is ``required``.
- ``Spec.action_json_schema``: the structured action's JSON Schema; each argument's type and
  enumeration (combatant ids, weapon names, spell names, maneuvers…) is copied from its
  property there, so a function's arguments are exactly what ``StepRequest.actions_json``
  accepts. Kinds whose structured form has fields beyond the axes get them from the schema's
  properties too: ``ready`` takes ``readied`` and ``trigger`` (its blocks are a shortcut of
  the readied attacks), ``cast_spell`` takes ``defensively`` and ``metamagic``.

A call ``{"name": "attack", "arguments": {"target": "orc-2", "weapon": "falchion"}}`` is the
structured action ``{"kind": "attack", "target": "orc-2", "weapon": "falchion"}``
(:func:`call_to_action`). :func:`tools_for_state` keeps the functions of the kinds that have a
legal action at the decision (a smaller prompt; the arguments keep the spec's whole
enumerations, so a wrong target is the model's, and counted).
"""

from __future__ import annotations

import json
from typing import Any

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb

# Axis name (ActionBlock.axes) -> structured-action field.
_AXIS_FIELD = {
    "target": "target",
    "opponent": "target",
    "delay": "target",
    "ally": "ally",
    "weapon": "weapon",
    "square": "destination",
    "direction": "destination",
    "spell": "spell",
    "maneuver": "maneuver",
    "mode": "aid_mode",
    "metamagic": "metamagic",
}

# Structured fields a kind takes beyond its blocks' axes (the schema's own properties).
_EXTRA_FIELDS = {
    "ready": ("readied", "trigger"),
    "cast_spell": ("defensively", "metamagic"),
}


def _kind_names(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("properties", {}).get("kind", {})
    return [k for k in kind.get("enum", []) if isinstance(k, str)]


def block_kind(block_name: str, kinds: list[str]) -> str | None:
    """The action kind of an ``ActionBlock`` name: the longest kind name it equals or starts
    with followed by ``_`` (``None`` when none)."""
    best = None
    for k in kinds:
        if (block_name == k or block_name.startswith(k + "_")) and (
            best is None or len(k) > len(best)
        ):
            best = k
    return best


def _describe(kind: str, fields: list[str]) -> str:
    words = kind.replace("_", " ")
    if not fields:
        return f"Take the action `{kind}` ({words})."
    return f"Take the action `{kind}` ({words}) with: {', '.join(fields)}."


def action_tools(spec: pb.Spec) -> list[dict[str, Any]]:
    """One OpenAI-compatible function tool per action kind of ``spec``'s action space, in
    action-space order (see the module docs). Raises ``ValueError`` when the spec has no
    structured-action schema (a server without structured actions)."""
    if not spec.action_json_schema:
        raise ValueError("the server publishes no Spec.action_json_schema (structured actions)")
    schema = json.loads(spec.action_json_schema)
    props: dict[str, Any] = schema.get("properties", {})
    kinds = _kind_names(schema)
    per_kind: dict[str, list[set[str]]] = {}
    for b in spec.action_blocks:
        kind = block_kind(b.name, kinds)
        if kind is None:
            continue
        fields = set()
        for axis in b.axes:
            f = _AXIS_FIELD.get(axis)
            if f == "destination" and kind == "cast_spell":
                f = "target_pos"
            if f is not None and f in props:
                fields.add(f)
        per_kind.setdefault(kind, []).append(fields)
    tools = []
    for kind, field_sets in per_kind.items():
        every = set.intersection(*field_sets) if field_sets else set()
        names: list[str] = []
        for fs in field_sets:
            names += [f for f in sorted(fs) if f not in names]
        names += [f for f in _EXTRA_FIELDS.get(kind, ()) if f in props and f not in names]
        if kind == "ready":
            every = {f for f in ("readied", "trigger") if f in props}
        params: dict[str, Any] = {
            "type": "object",
            "properties": {f: props[f] for f in names},
            "additionalProperties": False,
        }
        required = [f for f in names if f in every]
        if required:
            params["required"] = required
        tools.append(
            {
                "type": "function",
                "function": {
                    "name": kind,
                    "description": _describe(kind, names),
                    "parameters": params,
                },
            }
        )
    return tools


def legal_kinds(state: pb.EpisodeState) -> list[str]:
    """The action kinds of the decision's legal actions (the first word of each label, in
    order: ``attack``, ``5foot_step``, ``attack_of_opportunity``, ``fire_readied``…)."""
    out: list[str] = []
    for la in state.legal_actions:
        k = la.label.split(" ", 1)[0].rstrip(":")
        if k not in out:
            out.append(k)
    return out


def tools_for_state(tools: list[dict[str, Any]], state: pb.EpisodeState) -> list[dict[str, Any]]:
    """The tools of ``tools`` whose kind has a legal action at ``state``'s decision (all of
    them when the state lists no legal actions)."""
    kinds = legal_kinds(state)
    if not kinds:
        return tools
    return [t for t in tools if t["function"]["name"] in kinds]


def call_to_action(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The structured action of a function call."""
    return {"kind": name, **arguments}
