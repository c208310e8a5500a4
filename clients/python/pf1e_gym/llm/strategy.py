"""Strategies in words → tactics specs the engine plays (the seed's Phase 2), and their
comparison over many fights.

- :func:`compile_strategy`: the model writes a tactics spec (the format of ``data/tactics/``,
  ``docs/tactics.md``) for a strategy in words, constrained by the server's
  ``Spec.tactics_json_schema``; the spec is checked with ``jsonschema`` and then by the engine
  (a ``Reset`` with ``tactics={side: spec}``, which names the field it refuses); each error goes
  back to the model for another try.
- :func:`evaluate_strategies`: each spec (and the default policy) played by ``side`` against the
  default policy through the ``Evaluate`` RPC — a sweep spec with a ``tactics:`` field and no
  swept combatant (:func:`strategy_sweep_spec`) —, reported with 3 sigma bands and pairwise
  two-proportion z-tests.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
from collections.abc import Mapping
from typing import Any

import grpc
import jsonschema

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import Pf1eClient
from pf1e_gym.llm import templates
from pf1e_gym.llm.agent import _json_in, _schema_errors
from pf1e_gym.llm.chat import ChatModel
from pf1e_gym.llm.stats import band_3sigma, two_proportion_z

DEFAULT_NAME = "default"
"""The name of the default policy's row in :func:`evaluate_strategies`."""


class StrategyError(RuntimeError):
    """The model gave no acceptable tactics spec within the retries. ``attempts``: one dict
    per model reply (``reply``, ``spec`` when it parsed, ``errors``)."""

    def __init__(self, message: str, attempts: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.attempts = attempts


def load_tactics_yaml(text: str | Any) -> Any:
    """A tactics spec's YAML (or JSON) text or open file, read as the engine reads it.

    The engine's YAML (``serde_yaml``) is YAML 1.2, where only ``true``/``false`` are booleans;
    PyYAML's ``safe_load`` is YAML 1.1, where ``on``, ``off``, ``yes``, ``no`` (any case) are
    booleans too, so the ``on:`` key of a ``cast`` rule (``do: {cast: {spell: fireball, on:
    target}}``, ``data/tactics/casters_open_with_areas.yaml``) would read as ``True`` and the
    engine would refuse the spec (``do.cast.true: unknown field``). This loader is PyYAML's safe
    loader with the YAML 1.2 booleans."""
    import yaml

    return yaml.load(text, Loader=_yaml12_loader())  # a SafeLoader subclass


_YAML12_LOADER: Any = None


def _yaml12_loader() -> Any:
    global _YAML12_LOADER
    if _YAML12_LOADER is None:
        import re

        import yaml

        class Yaml12SafeLoader(yaml.SafeLoader):  # type: ignore[misc]
            """SafeLoader whose booleans are YAML 1.2's (``true`` / ``false`` only)."""

        resolvers = {
            ch: [(tag, rx) for tag, rx in rs if tag != "tag:yaml.org,2002:bool"]
            for ch, rs in yaml.SafeLoader.yaml_implicit_resolvers.items()
        }
        Yaml12SafeLoader.yaml_implicit_resolvers = resolvers
        Yaml12SafeLoader.add_implicit_resolver(
            "tag:yaml.org,2002:bool",
            re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
            list("tTfF"),
        )
        _YAML12_LOADER = Yaml12SafeLoader
    return _YAML12_LOADER


def _combatant_lines(spec: pb.Spec) -> str:
    return "\n".join(f"  {c.id}, {c.name}, {c.side}" for c in spec.combatants)


def tactics_errors(
    client: Pf1eClient, scenario: str | pb.Scenario, side: str, tactics: Any, schema: Any = None
) -> list[str]:
    """Why the engine (and ``schema``, a JSON Schema, when given) refuses ``tactics`` for
    ``side`` of ``scenario``: ``[]`` when accepted. The engine's check is a ``Reset`` with
    ``tactics={side: tactics}`` (the episode is closed at once)."""
    if schema is not None:
        errors = sorted(
            jsonschema.Draft202012Validator(schema).iter_errors(tactics), key=lambda e: list(e.path)
        )
        if errors:
            return [_schema_errors(errors)]
    try:
        state = client.reset(scenario, 0, tactics={side: json.dumps(tactics)})
    except grpc.RpcError as e:
        if e.code() != grpc.StatusCode.INVALID_ARGUMENT:
            raise
        return [f"the engine refused it: {e.details()}"]
    try:
        client.close_episode(state.episode_id)
    except grpc.RpcError:
        pass
    return []


def tactics_request_schema(schema: dict[str, Any], spec: pb.Spec) -> dict[str, Any]:
    """The JSON Schema :func:`compile_strategy` asks the model to follow: a strict subset of the
    published ``schema`` (``Spec.tactics_json_schema``) for the combatants of ``spec``, so that
    constrained decoding produces short, finished documents:

    - no ``description`` nor ``source``: free strings of any length, which the compiler fills
      itself (the strategy's text and ``"compiled by <model> from words"``);
    - ``combatants`` keyed only by the scenario's combatant ids and names
      (``properties``, ``additionalProperties: false``) instead of any string.

    The reply, once filled, is still validated against the full ``schema``."""
    s = copy.deepcopy(schema)
    props = s.get("properties", {})
    for key in ("description", "source"):
        props.pop(key, None)
    if "required" in s:
        s["required"] = [r for r in s["required"] if r in props]
    comb = props.get("combatants")
    if isinstance(comb, dict) and isinstance(comb.get("additionalProperties"), dict):
        block = comb.pop("additionalProperties")
        keys = sorted({c.id for c in spec.combatants} | {c.name for c in spec.combatants} - {""})
        comb["properties"] = {k: block for k in keys}
        comb["additionalProperties"] = False
    return s


def compile_strategy(
    text: str,
    *,
    scenario: str | pb.Scenario,
    side: str,
    client: Pf1eClient,
    model: ChatModel | None = None,
    lang: str = "en",
    retries: int = 3,
    prompt_dir: str | os.PathLike[str] | None = None,
    attempts: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A tactics spec (a dict; the format of ``data/tactics/``) for the strategy ``text``, as
    played by ``side`` of ``scenario``, written by ``model`` (default: a
    :class:`~pf1e_gym.llm.ChatModel` from the environment).

    The model gets the ``strategy_system.txt`` / ``strategy.txt`` prompts (the schema, the
    combatants, the text) and a ``json_schema`` response format of
    :func:`tactics_request_schema` (``Spec.tactics_json_schema`` without the free strings
    ``description`` and ``source``, combatant keys limited to the scenario's); its reply is
    parsed, completed (a spec without ``description`` gets ``text``, one without ``source``
    ``"compiled by <model> from words"``), validated with ``jsonschema`` against the full
    schema, then by the engine (a ``Reset`` with ``tactics={side: spec}``). Each refusal goes
    back (``strategy_retry.txt``) for another try, up to ``retries`` times.
    ``attempts``: a list that gets one dict per reply (``reply``, ``spec``, ``errors``).

    Raises :class:`StrategyError` (no acceptable spec; a server without tactics),
    :class:`~pf1e_gym.llm.ModelUnavailable`, ``grpc.RpcError`` (unknown scenario…),
    ``ValueError`` (bad ``lang`` / ``retries`` / ``side``)."""
    templates.check_lang(lang)
    if retries < 0:
        raise ValueError(f"retries: must be >= 0, not {retries}")
    log = attempts if attempts is not None else []
    spec = client.get_spec(scenario)
    if side not in spec.sides:
        raise ValueError(f"side: {side!r} is not a side of this scenario ({list(spec.sides)})")
    if not spec.tactics_json_schema:
        raise StrategyError("the server has no tactics (Spec.tactics_json_schema is empty)", log)
    schema = json.loads(spec.tactics_json_schema)
    asked = tactics_request_schema(schema, spec)
    model = model if model is not None else ChatModel()
    scenario_name = spec.scenario or (scenario if isinstance(scenario, str) else "inline")
    messages = [
        {
            "role": "system",
            "content": templates.render(
                "strategy_system.txt", lang, prompt_dir, schema=json.dumps(asked)
            ),
        },
        {
            "role": "user",
            "content": templates.render(
                "strategy.txt",
                lang,
                prompt_dir,
                scenario=scenario_name,
                side=side,
                combatants=_combatant_lines(spec),
                text=text,
            ),
        },
    ]
    errors: list[str] = []
    for attempt in range(retries + 1):
        reply = model.complete(messages, asked, name="pf1e_tactics", strict=False)
        obj = _json_in(reply.content)
        rec: dict[str, Any] = {"attempt": attempt, "reply": reply.content}
        if not isinstance(obj, dict):
            errors = [f"the reply is not a JSON object: {reply.content[:200]!r}"]
        else:
            rec["spec"] = obj
            props = schema.get("properties", {})
            if "description" not in obj and "description" in props:
                obj = {**obj, "description": text}
            if "source" not in obj and "source" in props:
                obj = {**obj, "source": f"compiled by {model.model} from words"}
            errors = tactics_errors(client, scenario, side, obj, schema)
        rec["errors"] = errors
        log.append(rec)
        if not errors:
            compiled: dict[str, Any] = obj
            return compiled
        if attempt < retries:
            messages.append({"role": "assistant", "content": reply.content})
            messages.append(
                {
                    "role": "user",
                    "content": templates.render(
                        "strategy_retry.txt", lang, prompt_dir, errors="\n".join(errors)
                    ),
                }
            )
    raise StrategyError(
        f"no acceptable tactics spec after {retries + 1} replies; last: {'; '.join(errors)}", log
    )


def strategy_sweep_spec(
    scenario: str,
    side: str,
    tactics: Mapping[str, Any] | None,
    *,
    runs: int,
    seed: int,
) -> dict[str, Any]:
    """The sweep spec that plays ``side`` of ``scenario`` with ``tactics`` (``None``: the
    default policy) against the default policy, ``runs`` fights from ``seed``, nobody swept
    (``data/sweeps/`` format with the ``tactics:`` field, side → spec)."""
    sweep: dict[str, Any] = {
        "description": f"{side} of {scenario}: "
        + (str(tactics.get("name", "tactics")) if tactics else "default policy"),
        "scenario": scenario,
        "runs": int(runs),
        "seed": int(seed),
        "rank_side": side,
    }
    if tactics is not None:
        sweep["tactics"] = {side: dict(tactics)}
    return sweep


def evaluate_strategies(
    specs: Mapping[str, Mapping[str, Any]],
    *,
    scenario: str,
    side: str,
    runs: int,
    seed: int = 1,
    client: Pf1eClient,
    baseline: bool = True,
) -> dict[str, Any]:
    """Play each tactics spec of ``specs`` (name → spec dict) as ``side`` of ``scenario``
    against the default policy, ``runs`` fights each from ``seed`` (the same seeds for every
    strategy), through ``Evaluate``; with ``baseline`` the default policy too (row
    :data:`DEFAULT_NAME`).

    Returns ``{"rows": [...], "pairs": [...], "text": str}``: a row per strategy (``name``,
    ``runs``, ``wins``, ``win_rate``, ``band_3sigma`` ``[lo, hi]``, ``draws``,
    ``mean_rounds``), a pair per two strategies (``a``, ``b``, ``z`` — positive when ``a``
    wins more —, ``p`` two-sided, ``significant`` = ``|z| ≥ 3``; the pooled two-proportion
    z-test, treating the two samples as independent), and both as a text table.

    Raises ``grpc.RpcError`` (INVALID_ARGUMENT naming the field for a spec the server
    refuses), ``ValueError`` (``runs`` < 1, a name used twice)."""
    if runs < 1:
        raise ValueError(f"runs: must be >= 1, not {runs}")
    todo: list[tuple[str, Mapping[str, Any] | None]] = []
    if baseline:
        if DEFAULT_NAME in specs:
            raise ValueError(f"specs: the name {DEFAULT_NAME!r} is the baseline's")
        todo.append((DEFAULT_NAME, None))
    todo.extend(specs.items())
    rows: list[dict[str, Any]] = []
    for name, tactics in todo:
        sweep = strategy_sweep_spec(scenario, side, tactics, runs=runs, seed=seed)
        report = client.evaluate(json.dumps(sweep), origin=f"strategy:{name}")
        row = report.placements[0]
        sides = list(report.plan.sides)
        wins = int(row.wins[sides.index(side)].count)
        n = int(row.runs)
        lo, hi = band_3sigma(wins, n)
        rows.append(
            {
                "name": name,
                "runs": n,
                "wins": wins,
                "win_rate": wins / n if n else 0.0,
                "band_3sigma": [lo, hi],
                "draws": int(row.draws.count),
                "mean_rounds": float(row.mean_rounds),
            }
        )
    pairs = []
    for a, b in itertools.combinations(rows, 2):
        z, p = two_proportion_z(a["wins"], a["runs"], b["wins"], b["runs"])
        pairs.append({"a": a["name"], "b": b["name"], "z": z, "p": p, "significant": abs(z) >= 3})
    return {"rows": rows, "pairs": pairs, "text": _table(rows, pairs, scenario, side)}


def _table(
    rows: list[dict[str, Any]], pairs: list[dict[str, Any]], scenario: str, side: str
) -> str:
    w = max([len(r["name"]) for r in rows] + [8])
    out = [
        f"Strategies of {side} on {scenario} against the default policy",
        f"  {'strategy':<{w}}  {'runs':>6}  {'win rate':>8}  {'3 sigma band':>15}  {'draws':>6}  "
        f"{'rounds':>6}",
    ]
    for r in rows:
        lo, hi = r["band_3sigma"]
        out.append(
            f"  {r['name']:<{w}}  {r['runs']:>6}  {r['win_rate']:>8.3f}  "
            f"[{lo:.3f}, {hi:.3f}]  {r['draws']:>6}  {r['mean_rounds']:>6.2f}"
        )
    if pairs:
        out.append("  two-proportion z-tests (|z| >= 3: significant at 3 sigma)")
        for p in pairs:
            mark = "  *" if p["significant"] else ""
            out.append(f"    {p['a']} vs {p['b']}: z = {p['z']:+.2f}, p = {p['p']:.3g}{mark}")
    return "\n".join(out)
