"""``pf1e-llm-eval``: N fights of an :class:`~pf1e_gym.llm.LLMAgent` on a named scenario against
the server's default policy, with a scorecard and per-fight transcripts.

::

    pf1e-llm-eval --scenario sample_arena --side players --fights 20 --seed 1 \\
        --base-url http://127.0.0.1:8080/v1 --model default --answer label --out out/llm
    pf1e-llm-eval strategy "focus fire the weakest" --scenario sample_arena --side players \\
        --out tactics.yaml [--runs 500 --compare focus=data/tactics/focus_fire.yaml]

The scorecard (printed, and ``scorecard.json`` in ``--out``) has the win rate of the agent's
side with its **95 % Wilson score interval**, losses, draws (nobody won, or the round cap),
mean rounds, and per decision: refused answers by reason, retries, fallbacks, tokens in and out,
model-call latency (mean, p50, p95, in seconds). ``--out DIR`` also gets one JSONL transcript
per fight (``fight-<k>-seed-<seed>.jsonl``): one line per model call (the prompt messages, the
reply, the parsed answer, what was submitted, the result, tokens, latency) and per fallback.

**Scorecard axes** (``card["axes"]``, the figures LLM-agent papers report):

- ``rule_compliance``: refused answers (malformed or illegal) and retries per decision, the
  share of decisions answered by the model's first answer, fallbacks per decision;
- ``parameter_fidelity``: actions named by the model, those with a wrong parameter (a target,
  weapon, spell or square that does not resolve or is refused for itself) by field, and the
  share without;
- ``efficiency``: model calls, prompt and completion tokens per decision, latency p50 / p95;
- ``outcome``: win rate with its 95 % Wilson interval and, with ``--paired`` (default on), the
  default policy on the **same seeds** playing the same side: its wins, the discordant pairs
  and the exact McNemar p-value;
- ``tactical_optimality``: ``null`` until a search baseline exists (regret against it).

**Modes on the same seeds**: ``--answer label,tools`` plays each answer mode over the same
seeds and prints a comparison table (one scorecard per mode in ``--out/<mode>/``).

**Several agents in one fight**: ``--agent WHO=KEY=VALUE,...`` (repeatable) gives a combatant id
or a side its own agent — ``model``, ``base_url``, ``answer``, ``retries``, ``fallback`` — e.g.
``--agent cleric_3=model=qwen2.5,answer=tools --agent monsters=model=llama3``; the others play
with the default policy; one scorecard per agent (:mod:`pf1e_gym.llm.multi`).

**The balance report in words** (``pf1e-llm-eval narrate STATS.json``): see
:mod:`pf1e_gym.llm.narrate`.

Exit codes: 0 done; 2 bad arguments, an unknown scenario or side, an answer mode the server
cannot serve, or a server (pf1e-env-server or the chat endpoint) that cannot be reached.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import pathlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

import grpc

from pf1e_gym import __version__
from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import Pf1eClient
from pf1e_gym.llm.agent import (
    ANSWER_MODES,
    FALLBACKS,
    TEXT_MODES,
    TOOL_FORMATS,
    AgentStats,
    FightResult,
    LLMAgent,
)
from pf1e_gym.llm.chat import FORMAT_LEVELS, ChatModel, ModelUnavailable
from pf1e_gym.llm.multi import MultiFightResult, play_multi
from pf1e_gym.llm.stats import percentile, wilson_interval
from pf1e_gym.llm.templates import LANGS


@dataclasses.dataclass
class Scorecard:
    """The result of :func:`run_eval`: ``card`` (the JSON-able scorecard, see
    :func:`scorecard`) and the :class:`~pf1e_gym.llm.FightResult` of every fight."""

    card: dict[str, Any]
    fights: list[FightResult]

    def text(self) -> str:
        """The scorecard as a readable table (what ``pf1e-llm-eval`` prints)."""
        return format_scorecard(self.card)


def scorecard(results: Sequence[FightResult], **meta: Any) -> dict[str, Any]:
    """The scorecard of some fights (``meta``: more keys, e.g. ``model``, ``answer``).

    Keys: ``fights``, ``wins``, ``losses``, ``draws``, ``win_rate``, ``win_rate_wilson95``
    (``[lo, hi]``, the 95 % Wilson score interval), ``mean_rounds``, ``decisions``,
    ``model_calls``, ``accepted``, ``malformed`` (refusals by reason), ``malformed_total``,
    ``retries``, ``fallbacks``, ``fallback_reasons``, ``transport_errors`` (by kind),
    ``transport_retries``, ``format_downgrades``, ``prompt_tokens``, ``completion_tokens``,
    ``per_decision`` (``malformed``, ``retries``, ``fallbacks``, ``prompt_tokens``,
    ``completion_tokens``, ``model_calls``: totals divided by ``decisions``), ``latency_s``
    (``mean``, ``p50``, ``p95``, ``max`` of the model calls, seconds), ``seeds``."""
    total = AgentStats()
    for r in results:
        total.merge(r.stats)
    n = len(results)
    wins = sum(r.outcome == "win" for r in results)
    losses = sum(r.outcome == "loss" for r in results)
    draws = n - wins - losses
    lo, hi = wilson_interval(wins, n)
    d = max(total.decisions, 1)
    lat = total.latencies_s
    malformed_total = sum(total.malformed.values())
    first_try = total.first_try
    submitted = total.submitted_actions
    param_errors = sum(total.parameter_errors.values())
    axes = {
        "rule_compliance": {
            "refused_per_decision": malformed_total / d,
            "illegal_per_decision": sum(
                v for k, v in total.malformed.items() if k.startswith("illegal:")
            )
            / d,
            "malformed_per_decision": sum(
                v for k, v in total.malformed.items() if not k.startswith("illegal:")
            )
            / d,
            "retries_per_decision": total.retries / d,
            "first_try_rate": first_try / d,
            "fallbacks_per_decision": total.fallbacks / d,
        },
        "parameter_fidelity": {
            "submitted_actions": submitted,
            "parameter_errors": dict(sorted(total.parameter_errors.items())),
            "rate": (1 - param_errors / submitted) if submitted else None,
        },
        "efficiency": {
            "calls_per_decision": total.model_calls / d,
            "prompt_tokens_per_decision": total.prompt_tokens / d,
            "completion_tokens_per_decision": total.completion_tokens / d,
            "latency_p50_s": percentile(lat, 50),
            "latency_p95_s": percentile(lat, 95),
        },
        "outcome": {"win_rate": wins / n if n else 0.0, "win_rate_wilson95": [lo, hi]},
        "tactical_optimality": None,
    }
    card: dict[str, Any] = {
        **meta,
        "axes": axes,
        "fights": n,
        "wins": wins,
        "losses": losses,
        "draws": draws,
        "win_rate": wins / n if n else 0.0,
        "win_rate_wilson95": [lo, hi],
        "mean_rounds": sum(r.rounds for r in results) / n if n else 0.0,
        "decisions": total.decisions,
        "model_calls": total.model_calls,
        "accepted": total.accepted,
        "malformed": dict(sorted(total.malformed.items())),
        "malformed_total": malformed_total,
        "retries": total.retries,
        "fallbacks": total.fallbacks,
        "fallback_reasons": dict(sorted(total.fallback_reasons.items())),
        "transport_errors": dict(sorted(total.transport_errors.items())),
        "transport_retries": total.transport_retries,
        "format_downgrades": total.format_downgrades,
        "prompt_tokens": total.prompt_tokens,
        "completion_tokens": total.completion_tokens,
        "per_decision": {
            "malformed": malformed_total / d,
            "retries": total.retries / d,
            "fallbacks": total.fallbacks / d,
            "model_calls": total.model_calls / d,
            "prompt_tokens": total.prompt_tokens / d,
            "completion_tokens": total.completion_tokens / d,
        },
        "latency_s": {
            "mean": sum(lat) / len(lat) if lat else 0.0,
            "p50": percentile(lat, 50),
            "p95": percentile(lat, 95),
            "max": max(lat) if lat else 0.0,
        },
        "seeds": [r.seed for r in results],
    }
    return card


def format_scorecard(card: dict[str, Any]) -> str:
    """A readable table of a :func:`scorecard`."""
    lo, hi = card["win_rate_wilson95"]
    pd = card["per_decision"]
    lat = card["latency_s"]
    head = " ".join(
        f"{k}={card[k]}" for k in ("scenario", "side", "model", "answer", "lang") if k in card
    )
    lines = [
        f"LLM scorecard  {head}".rstrip(),
        f"  fights        {card['fights']}  (wins {card['wins']}, losses {card['losses']}, "
        f"draws {card['draws']})",
        f"  win rate      {card['win_rate']:.3f}  95% Wilson interval [{lo:.3f}, {hi:.3f}]",
        f"  mean rounds   {card['mean_rounds']:.2f}",
        f"  decisions     {card['decisions']}  model calls {card['model_calls']}  "
        f"accepted {card['accepted']}",
        f"  malformed     {card['malformed_total']}  ({pd['malformed']:.3f}/decision)"
        + "".join(f"\n    {k:<28} {v}" for k, v in card["malformed"].items()),
        f"  retries       {card['retries']}  ({pd['retries']:.3f}/decision)",
        f"  fallbacks     {card['fallbacks']}  ({pd['fallbacks']:.3f}/decision)"
        + "".join(f"  {k}={v}" for k, v in card["fallback_reasons"].items()),
        f"  transport     errors {sum(card['transport_errors'].values())}"
        + "".join(f" {k}={v}" for k, v in card["transport_errors"].items())
        + f"  retries {card['transport_retries']}  format downgrades "
        f"{card['format_downgrades']}",
        f"  tokens        in {card['prompt_tokens']} ({pd['prompt_tokens']:.1f}/decision)  "
        f"out {card['completion_tokens']} ({pd['completion_tokens']:.1f}/decision)",
        f"  latency (s)   mean {lat['mean']:.3f}  p50 {lat['p50']:.3f}  p95 {lat['p95']:.3f}  "
        f"max {lat['max']:.3f}",
    ]
    axes = card.get("axes")
    if axes:
        rc, pf, out = axes["rule_compliance"], axes["parameter_fidelity"], axes["outcome"]
        rate = "n/a" if pf["rate"] is None else f"{pf['rate']:.3f}"
        lines.append(
            f"  compliance    first try {rc['first_try_rate']:.3f}  illegal "
            f"{rc['illegal_per_decision']:.3f}/decision  malformed "
            f"{rc['malformed_per_decision']:.3f}/decision"
        )
        lines.append(
            f"  parameters    {pf['submitted_actions']} actions named, fidelity {rate}"
            + "".join(f"  {k}={v}" for k, v in pf["parameter_errors"].items())
        )
        paired = out.get("paired_vs_default")
        if paired:
            lines.append(
                f"  vs default    same seeds: default wins {paired['default_wins']}, agent only "
                f"{paired['agent_only']}, default only {paired['default_only']}, McNemar exact "
                f"p {paired['mcnemar_p']:.3f}"
            )
    return "\n".join(lines)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value of ``b`` and ``c`` discordant pairs (a binomial test of
    ``min(b, c)`` among ``b + c`` at one half)."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail: float = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2.0 * tail)


def default_outcomes(
    client: Pf1eClient, scenario: str, side: str, seeds: Sequence[int]
) -> list[str]:
    """``win``/``loss``/``draw`` of ``side`` on each seed when the default policy plays every
    combatant (a Reset that controls nobody plays the fight to its end)."""
    out = []
    for s in seeds:
        st = client.reset(scenario, s)
        winner = st.outcome.winner or None
        out.append("draw" if winner is None else ("win" if winner == side else "loss"))
        if not (st.terminated or st.truncated):
            client.close_episode(st.episode_id)
    return out


def add_paired(
    card: dict[str, Any], results: Sequence[FightResult], baseline: Sequence[str]
) -> None:
    """Put the paired comparison with the default policy (same seeds) into ``card``."""
    agent = [r.outcome == "win" for r in results]
    default = [o == "win" for o in baseline]
    b = sum(a and not d for a, d in zip(agent, default, strict=True))
    c = sum(d and not a for a, d in zip(agent, default, strict=True))
    card["axes"]["outcome"]["paired_vs_default"] = {
        "default_wins": sum(default),
        "both_win": sum(a and d for a, d in zip(agent, default, strict=True)),
        "agent_only": b,
        "default_only": c,
        "mcnemar_p": mcnemar_exact(b, c),
    }


def run_eval(
    client: Pf1eClient,
    agent: LLMAgent,
    scenario: str,
    *,
    side: str,
    fights: int,
    seed: int = 1,
    out: str | os.PathLike[str] | None = None,
    on_fight: Callable[[int, FightResult], object] | None = None,
    paired: bool = False,
) -> Scorecard:
    """Play ``fights`` fights (seeds ``seed``, ``seed + 1``, …) of ``agent`` as ``side`` on
    ``scenario`` against the default policy. With ``out``: writes one JSONL transcript per
    fight and ``scorecard.json`` there. ``on_fight(k, result)`` is called after each fight.
    ``paired``: also play the default policy on the same seeds (the outcome axis's paired
    comparison)."""
    if fights < 1:
        raise ValueError(f"fights: must be >= 1, not {fights}")
    outdir = pathlib.Path(out) if out is not None else None
    if outdir is not None:
        outdir.mkdir(parents=True, exist_ok=True)
    results = []
    for k in range(fights):
        s = seed + k
        r = agent.play(client, scenario, side=side, seed=s)
        results.append(r)
        if outdir is not None:
            with open(outdir / f"fight-{k}-seed-{s}.jsonl", "w", encoding="utf-8") as f:
                for rec in r.records:
                    f.write(json.dumps({"fight": k, "seed": s, **rec}, ensure_ascii=False))
                    f.write("\n")
        if on_fight is not None:
            on_fight(k, r)
    card = scorecard(
        results,
        scenario=scenario,
        side=side,
        model=agent.model.model,
        base_url=agent.model.base_url,
        answer=agent.answer,
        lang=agent.lang,
        retries_allowed=agent.retries,
        fallback=agent.fallback,
        format_level=agent.model.format_level,
        text_mode=agent.text_mode,
    )
    if paired:
        add_paired(
            card, results, default_outcomes(client, scenario, side, [r.seed for r in results])
        )
    if outdir is not None:
        with open(outdir / "scorecard.json", "w", encoding="utf-8") as f:
            json.dump(card, f, indent=2, sort_keys=True)
            f.write("\n")
    return Scorecard(card, results)


def run_eval_multi(
    client: Pf1eClient,
    agents: dict[str, LLMAgent],
    scenario: str,
    *,
    fights: int,
    seed: int = 1,
    out: str | os.PathLike[str] | None = None,
    on_fight: Callable[[int, MultiFightResult], object] | None = None,
) -> dict[str, Scorecard]:
    """Play ``fights`` fights of several agents (:func:`pf1e_gym.llm.multi.play_multi`) on the
    same seeds; one scorecard per agent key (its outcome for its side). With ``out``: one JSONL
    transcript per fight and agent (``fight-<k>-seed-<s>-<key>.jsonl``) and ``scorecards.json``."""
    if fights < 1:
        raise ValueError(f"fights: must be >= 1, not {fights}")
    outdir = pathlib.Path(out) if out is not None else None
    if outdir is not None:
        outdir.mkdir(parents=True, exist_ok=True)
    per: dict[str, list[FightResult]] = {k: [] for k in agents}
    for k in range(fights):
        s = seed + k
        r = play_multi(client, scenario, agents, seed=s)
        for key, fr in r.per_agent.items():
            per[key].append(fr)
            if outdir is not None:
                safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in key)
                with open(outdir / f"fight-{k}-seed-{s}-{safe}.jsonl", "w", encoding="utf-8") as f:
                    for rec in fr.records:
                        f.write(
                            json.dumps(
                                {"fight": k, "seed": s, "agent": key, **rec}, ensure_ascii=False
                            )
                        )
                        f.write("\n")
        if on_fight is not None:
            on_fight(k, r)
    cards = {}
    for key, agent in agents.items():
        card = scorecard(
            per[key],
            scenario=scenario,
            side=per[key][0].side if per[key] else "",
            agent=key,
            model=agent.model.model,
            base_url=agent.model.base_url,
            answer=agent.answer,
            lang=agent.lang,
            text_mode=agent.text_mode,
        )
        cards[key] = Scorecard(card, per[key])
    if outdir is not None:
        with open(outdir / "scorecards.json", "w", encoding="utf-8") as f:
            json.dump({k: v.card for k, v in cards.items()}, f, indent=2, sort_keys=True)
            f.write("\n")
    return cards


def compare_table(cards: dict[str, dict[str, Any]]) -> str:
    """Scorecards side by side (one column per mode or agent): the axes' headline figures."""
    keys = list(cards)
    rows: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
        ("win rate", lambda c: f"{c['win_rate']:.3f}"),
        ("first try", lambda c: f"{c['axes']['rule_compliance']['first_try_rate']:.3f}"),
        (
            "refused/decision",
            lambda c: f"{c['axes']['rule_compliance']['refused_per_decision']:.3f}",
        ),
        ("fallbacks/decision", lambda c: f"{c['per_decision']['fallbacks']:.3f}"),
        (
            "param. fidelity",
            lambda c: (
                "n/a"
                if c["axes"]["parameter_fidelity"]["rate"] is None
                else f"{c['axes']['parameter_fidelity']['rate']:.3f}"
            ),
        ),
        ("prompt tok/decision", lambda c: f"{c['per_decision']['prompt_tokens']:.0f}"),
        ("calls/decision", lambda c: f"{c['per_decision']['model_calls']:.2f}"),
        ("latency p50 (s)", lambda c: f"{c['latency_s']['p50']:.3f}"),
    ]
    w = max(12, *(len(k) for k in keys))
    lines = ["".ljust(20) + "".join(k.rjust(w + 2) for k in keys)]
    for name, f in rows:
        lines.append(name.ljust(20) + "".join(f(cards[k]).rjust(w + 2) for k in keys))
    return "\n".join(lines)


# -- command line ---------------------------------------------------------------------------------


class _Exit2(Exception):
    pass


def _add_llm_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    p.add_argument("--address", help="pf1e-env-server host:port (default $PF1E_ADDRESS)")
    p.add_argument("--scenario", default="sample_arena", help="bundled scenario name")
    p.add_argument("--side", default="players", help="the side the model plays")
    p.add_argument("--lang", default="en", choices=LANGS, help="prompt and observation language")
    p.add_argument("--base-url", help="chat API base URL (default $PF1E_LLM_BASE_URL)")
    p.add_argument("--model", help="model name (default $PF1E_LLM_MODEL)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per model request")
    p.add_argument(
        "--transport-retries", type=int, default=2, help="retries of a timed-out/failed request"
    )
    p.add_argument(
        "--format-level",
        default="json_schema",
        choices=FORMAT_LEVELS,
        help="structured-output level to start at",
    )
    p.add_argument("--seed", type=int, default=1, help="first seed")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pf1e-llm-eval",
        description="Fights of an LLM agent against the default policy, with a scorecard. "
        "`pf1e-llm-eval strategy --help`: compile a strategy in words into a tactics file.",
    )
    _add_llm_args(p)
    p.add_argument("--fights", type=int, default=10, help="number of fights")
    p.add_argument(
        "--answer",
        default="label",
        help=f"answer mode, or several separated by commas to compare them on the same seeds "
        f"({', '.join(ANSWER_MODES)})",
    )
    p.add_argument("--text-mode", default="full", choices=TEXT_MODES, help="text detail")
    p.add_argument(
        "--tool-format",
        default="native",
        choices=TOOL_FORMATS,
        help="answer mode tools: the request's tools, or function calls over structured output",
    )
    p.add_argument("--token-budget", type=int, help="budget in tokens of the text observation")
    p.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="WHO=KEY=VALUE,...",
        help="an agent of its own for a combatant id or a side (repeatable): model=, "
        "base_url=, answer=, retries=, fallback=",
    )
    p.add_argument(
        "--no-paired",
        action="store_true",
        help="do not play the default policy on the same seeds for the paired comparison",
    )
    p.add_argument("--retries", type=int, default=2, help="retries of a refused answer")
    p.add_argument("--fallback", default="end_turn", choices=FALLBACKS, help="fallback action")
    p.add_argument("--out", help="directory for the transcripts (JSONL) and scorecard.json")
    p.add_argument("--json", action="store_true", help="print the scorecard as JSON")
    return p


def _strategy_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pf1e-llm-eval strategy",
        description="Compile a strategy written in words into a tactics spec (YAML) that "
        "`pf1e-sim --tactics SIDE=FILE` and Evaluate play; optionally compare it.",
    )
    p.add_argument("text", help="the strategy, in words")
    _add_llm_args(p)
    p.add_argument("--out", required=True, help="the tactics file to write (YAML)")
    p.add_argument("--retries", type=int, default=3, help="retries of a refused spec")
    p.add_argument(
        "--runs", type=int, default=0, help="fights per strategy for the comparison (0: none)"
    )
    p.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="another tactics file to compare with (repeatable)",
    )
    return p


def _connect(args: argparse.Namespace, check_side: bool = True) -> tuple[Pf1eClient, pb.Spec]:
    client = Pf1eClient(args.address, timeout=max(args.timeout, 10.0))
    try:
        spec = client.stub.GetSpec(
            pb.GetSpecRequest(scenario=pb.Scenario(named=args.scenario)), timeout=10.0
        )
    except grpc.RpcError as e:
        client.close()
        if e.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            raise _Exit2(
                f"cannot reach the pf1e-env-server at {client.address}: {e.details()}"
            ) from None
        raise _Exit2(f"scenario {args.scenario!r}: {e.details()}") from None
    if check_side and args.side not in spec.sides:
        client.close()
        raise _Exit2(f"--side: {args.side!r} is not a side of {args.scenario} ({list(spec.sides)})")
    return client, spec


def _model(args: argparse.Namespace) -> ChatModel:
    if args.timeout <= 0:
        raise _Exit2(f"--timeout: must be > 0, not {args.timeout}")
    if args.transport_retries < 0:
        raise _Exit2(f"--transport-retries: must be >= 0, not {args.transport_retries}")
    model = ChatModel(
        args.base_url,
        args.model,
        timeout=args.timeout,
        transport_retries=args.transport_retries,
        format_level=args.format_level,
    )
    try:
        model.check_reachable(timeout=min(args.timeout, 10.0))
    except ModelUnavailable as e:
        raise _Exit2(f"cannot reach the chat endpoint at {model.base_url}: {e}") from None
    return model


def _check_seed(seed: int, count: int) -> None:
    """Seeds are unsigned 64-bit (``ResetRequest.seed``): ``seed`` … ``seed + count - 1``."""
    if not 0 <= seed <= 2**64 - count:
        raise _Exit2(
            f"--seed: must be 0 to {2**64 - count} (unsigned 64-bit, {count} seed(s) from it),"
            f" not {seed}"
        )


def _parse_agents(items: Sequence[str]) -> dict[str, dict[str, str]]:
    """``WHO=KEY=VALUE,...`` items → who → options (exit 2 on a malformed item)."""
    allowed = {"model", "base_url", "answer", "retries", "fallback"}
    out: dict[str, dict[str, str]] = {}
    for item in items:
        who, sep, rest = item.partition("=")
        if not sep or not who:
            raise _Exit2(f"--agent: {item!r} is not WHO=KEY=VALUE,...")
        if who in out:
            raise _Exit2(f"--agent: {who!r} given twice")
        opts: dict[str, str] = {}
        for kv in filter(None, rest.split(",")):
            k, sep2, v = kv.partition("=")
            if not sep2 or k not in allowed:
                raise _Exit2(f"--agent {who}: {kv!r} is not one of {sorted(allowed)}=VALUE")
            opts[k] = v
        out[who] = opts
    return out


def _agent(args: argparse.Namespace, answer: str, model: ChatModel, **over: Any) -> LLMAgent:
    if answer not in ANSWER_MODES:
        raise _Exit2(f"--answer: {answer!r} is not one of {list(ANSWER_MODES)}")
    try:
        return LLMAgent(
            model,
            answer=answer,
            lang=args.lang,
            retries=int(over.get("retries", args.retries)),
            fallback=over.get("fallback", args.fallback),
            text_mode=args.text_mode,
            token_budget=args.token_budget,
            tool_format=args.tool_format,
        )
    except ValueError as e:
        raise _Exit2(f"--{e}") from None


def _run(argv: Sequence[str]) -> int:
    args = _parser().parse_args(argv)
    if args.fights < 1:
        raise _Exit2(f"--fights: must be >= 1, not {args.fights}")
    if args.retries < 0:
        raise _Exit2(f"--retries: must be >= 0, not {args.retries}")
    if args.token_budget is not None and args.token_budget < 1:
        raise _Exit2(f"--token-budget: must be >= 1, not {args.token_budget}")
    _check_seed(args.seed, args.fights)
    if args.agent:
        return _run_multi(args)
    answers = [a.strip() for a in args.answer.split(",") if a.strip()]
    if not answers or len(set(answers)) != len(answers):
        raise _Exit2(f"--answer: {args.answer!r} is not a list of distinct answer modes")
    model = _model(args)
    client, spec = _connect(args)
    cards: dict[str, dict[str, Any]] = {}
    with client:
        for answer in answers:
            agent = _agent(args, answer, model)
            try:
                agent.check_spec(spec)
            except ValueError as e:
                raise _Exit2(f"--{e}") from None

            def progress(k: int, r: FightResult, answer: str = answer) -> None:
                print(
                    f"[{answer}] fight {k + 1}/{args.fights} seed {r.seed}: {r.outcome} in "
                    f"{r.rounds} rounds, {r.stats.decisions} decisions",
                    file=sys.stderr,
                )

            out = args.out
            if out and len(answers) > 1:
                out = os.path.join(out, answer)
            result = run_eval(
                client,
                agent,
                args.scenario,
                side=args.side,
                fights=args.fights,
                seed=args.seed,
                out=out,
                on_fight=progress,
                paired=not args.no_paired,
            )
            cards[answer] = result.card
            if not args.json:
                print(result.text())
                if out:
                    print(f"  transcripts   {out}/fight-*.jsonl, {out}/scorecard.json")
    if args.json:
        print(json.dumps(cards if len(cards) > 1 else cards[answers[0]], indent=2, sort_keys=True))
    elif len(cards) > 1:
        print("\nAnswer modes on the same seeds:")
        print(compare_table(cards))
    return 0


def _run_multi(args: argparse.Namespace) -> int:
    specs = _parse_agents(args.agent)
    models: dict[tuple[str | None, str | None], ChatModel] = {}
    client, _spec = _connect(args, check_side=False)
    agents: dict[str, LLMAgent] = {}
    with client:
        for who, opts in specs.items():
            key = (opts.get("base_url"), opts.get("model"))
            if key not in models:
                a = argparse.Namespace(
                    **{
                        **vars(args),
                        "base_url": key[0] or args.base_url,
                        "model": key[1] or args.model,
                    }
                )
                models[key] = _model(a)
            over = {k: v for k, v in opts.items() if k in ("retries", "fallback")}
            agents[who] = _agent(args, opts.get("answer", args.answer), models[key], **over)

        def progress(k: int, r: MultiFightResult) -> None:
            print(
                f"fight {k + 1}/{args.fights} seed {r.seed}: winner {r.winner or 'none'} in "
                f"{r.rounds} rounds",
                file=sys.stderr,
            )

        try:
            cards = run_eval_multi(
                client,
                agents,
                args.scenario,
                fights=args.fights,
                seed=args.seed,
                out=args.out,
                on_fight=progress,
            )
        except ValueError as e:
            raise _Exit2(f"--agent: {e}") from None
    if args.json:
        print(json.dumps({k: v.card for k, v in cards.items()}, indent=2, sort_keys=True))
    else:
        for who, card in cards.items():
            print(f"== agent {who} ==")
            print(card.text())
        print("\nAgents of the same fights:")
        print(compare_table({k: v.card for k, v in cards.items()}))
    return 0


def _narrate(argv: Sequence[str]) -> int:
    from pf1e_gym.llm.narrate import LANGS as NARRATE_LANGS
    from pf1e_gym.llm.narrate import narrate

    p = argparse.ArgumentParser(
        prog="pf1e-llm-eval narrate",
        description="The balance report in words: a model writes it from the statistics of a "
        "run (pf1e-sim --format json); every number is checked against them; a rejected "
        "draft is retried, then the template report is used.",
    )
    p.add_argument("stats", help="the statistics (JSON file of pf1e-sim --format json; - = stdin)")
    p.add_argument("--lang", default="fr,en", help="languages, comma-separated (fr, en)")
    p.add_argument("--base-url", help="chat API base URL (default $PF1E_LLM_BASE_URL)")
    p.add_argument("--model", help="model name (default $PF1E_LLM_MODEL)")
    p.add_argument("--template", action="store_true", help="no model: the template report")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per model request")
    p.add_argument("--retries", type=int, default=2, help="retries of a rejected draft")
    p.add_argument("--min-numbers", type=int, default=3, help="numbers a report must cite")
    p.add_argument("--out", help="directory for report.<lang>.md and narration.json")
    args = p.parse_args(argv)
    langs = [x.strip() for x in args.lang.split(",") if x.strip()]
    bad = [x for x in langs if x not in NARRATE_LANGS]
    if bad or not langs:
        raise _Exit2(f"--lang: {args.lang!r}: languages are {list(NARRATE_LANGS)}")
    if args.retries < 0:
        raise _Exit2(f"--retries: must be >= 0, not {args.retries}")
    try:
        text = (
            sys.stdin.read() if args.stats == "-" else pathlib.Path(args.stats).read_text("utf-8")
        )
        stats = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise _Exit2(f"stats: {e}") from None
    if not isinstance(stats, dict) or not isinstance(stats.get("sides"), list):
        raise _Exit2(
            "stats: not a pf1e-sim --format json report (no `sides` list; sweep reports are "
            "not narrated yet)"
        )
    model = None
    if not args.template:
        ns = argparse.Namespace(
            base_url=args.base_url,
            model=args.model,
            timeout=args.timeout,
            transport_retries=2,
            format_level="json_schema",
        )
        model = _model(ns)
        model.max_tokens = 1024
    results = narrate(stats, model, langs=langs, retries=args.retries, min_numbers=args.min_numbers)
    outdir = pathlib.Path(args.out) if args.out else None
    if outdir is not None:
        outdir.mkdir(parents=True, exist_ok=True)
    for r in results:
        print(f"== {r.lang} ({r.source}{': ' + r.model if r.model else ''}) ==")
        print(r.markdown())
        for why in r.rejected:
            print(f"  rejected draft: {why}", file=sys.stderr)
        if outdir is not None:
            (outdir / f"report.{r.lang}.md").write_text(r.markdown(), encoding="utf-8")
    if outdir is not None:
        (outdir / "narration.json").write_text(
            json.dumps([dataclasses.asdict(r) for r in results], indent=2, ensure_ascii=False)
            + "\n",
            encoding="utf-8",
        )
    return 0


def _strategy(argv: Sequence[str]) -> int:
    import yaml

    from pf1e_gym.llm.strategy import StrategyError, compile_strategy, evaluate_strategies

    args = _strategy_parser().parse_args(argv)
    if args.retries < 0:
        raise _Exit2(f"--retries: must be >= 0, not {args.retries}")
    if args.runs < 0:
        raise _Exit2(f"--runs: must be >= 0, not {args.runs}")
    _check_seed(args.seed, 1)
    others = _load_compare(args.compare)
    model = _model(args)
    client, spec = _connect(args)
    with client:
        if not spec.tactics_json_schema:
            raise _Exit2("the server has no tactics (Spec.tactics_json_schema is empty)")
        try:
            compiled = compile_strategy(
                args.text,
                scenario=args.scenario,
                side=args.side,
                client=client,
                model=model,
                lang=args.lang,
                retries=args.retries,
            )
        except StrategyError as e:
            print(f"pf1e-llm-eval strategy: {e}", file=sys.stderr)
            return 1
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(f"# Compiled by pf1e-llm-eval strategy from: {args.text}\n")
            yaml.safe_dump(compiled, f, sort_keys=False, allow_unicode=True)
        print(f"wrote {args.out}  (pf1e-sim --tactics {args.side}={args.out})")
        if args.runs:
            report = evaluate_strategies(
                {"compiled": compiled, **others},
                scenario=args.scenario,
                side=args.side,
                runs=args.runs,
                seed=args.seed,
                client=client,
            )
            print(report["text"])
    return 0


def _load_compare(items: Sequence[str]) -> dict[str, Any]:
    """``--compare NAME=FILE`` items → name → tactics spec, read as the engine reads YAML
    (:func:`pf1e_gym.llm.strategy.load_tactics_yaml`: ``on:`` stays a key). Exit 2 (``_Exit2``)
    on a malformed item, an unreadable file or bad YAML."""
    import yaml

    from pf1e_gym.llm.strategy import load_tactics_yaml

    others: dict[str, Any] = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise _Exit2(f"--compare: {item!r} is not NAME=FILE")
        try:
            with open(path, encoding="utf-8") as f:
                others[name] = load_tactics_yaml(f)
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
            raise _Exit2(f"--compare {name}: {e}") from None
        if not isinstance(others[name], dict):
            raise _Exit2(f"--compare {name}: {path} is not a tactics spec (a YAML/JSON object)")
    return others


def main(argv: Sequence[str] | None = None) -> int:
    """The ``pf1e-llm-eval`` entry point (returns the exit code)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["strategy"]:
            return _strategy(argv[1:])
        if argv[:1] == ["narrate"]:
            return _narrate(argv[1:])
        return _run(argv)
    except _Exit2 as e:
        print(f"pf1e-llm-eval: error: {e}", file=sys.stderr)
        return 2
    except SystemExit as e:  # argparse: --help (0) or a bad argument (2)
        return e.code if isinstance(e.code, int) else 2


if __name__ == "__main__":
    sys.exit(main())
