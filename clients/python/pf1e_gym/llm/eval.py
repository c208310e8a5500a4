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

Exit codes: 0 done; 2 bad arguments, an unknown scenario or side, an answer mode the server
cannot serve, or a server (pf1e-env-server or the chat endpoint) that cannot be reached.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pathlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

import grpc

from pf1e_gym import __version__
from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import Pf1eClient
from pf1e_gym.llm.agent import ANSWER_MODES, FALLBACKS, AgentStats, FightResult, LLMAgent
from pf1e_gym.llm.chat import FORMAT_LEVELS, ChatModel, ModelUnavailable
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
    card: dict[str, Any] = {
        **meta,
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
    return "\n".join(lines)


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
) -> Scorecard:
    """Play ``fights`` fights (seeds ``seed``, ``seed + 1``, …) of ``agent`` as ``side`` on
    ``scenario`` against the default policy. With ``out``: writes one JSONL transcript per
    fight and ``scorecard.json`` there. ``on_fight(k, result)`` is called after each fight."""
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
    )
    if outdir is not None:
        with open(outdir / "scorecard.json", "w", encoding="utf-8") as f:
            json.dump(card, f, indent=2, sort_keys=True)
            f.write("\n")
    return Scorecard(card, results)


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
    p.add_argument("--answer", default="label", choices=ANSWER_MODES, help="answer mode")
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


def _connect(args: argparse.Namespace) -> tuple[Pf1eClient, pb.Spec]:
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
    if args.side not in spec.sides:
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


def _run(argv: Sequence[str]) -> int:
    args = _parser().parse_args(argv)
    if args.fights < 1:
        raise _Exit2(f"--fights: must be >= 1, not {args.fights}")
    if args.retries < 0:
        raise _Exit2(f"--retries: must be >= 0, not {args.retries}")
    _check_seed(args.seed, args.fights)
    model = _model(args)
    client, spec = _connect(args)
    with client:
        agent = LLMAgent(
            model, answer=args.answer, lang=args.lang, retries=args.retries, fallback=args.fallback
        )
        try:
            agent.check_spec(spec)
        except ValueError as e:
            raise _Exit2(f"--{e}") from None

        def progress(k: int, r: FightResult) -> None:
            print(
                f"fight {k + 1}/{args.fights} seed {r.seed}: {r.outcome} in {r.rounds} rounds, "
                f"{r.stats.decisions} decisions",
                file=sys.stderr,
            )

        result = run_eval(
            client,
            agent,
            args.scenario,
            side=args.side,
            fights=args.fights,
            seed=args.seed,
            out=args.out,
            on_fight=progress,
        )
    if args.json:
        print(json.dumps(result.card, indent=2, sort_keys=True))
    else:
        print(result.text())
        if args.out:
            print(f"  transcripts   {args.out}/fight-*.jsonl, {args.out}/scorecard.json")
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
        return _run(argv)
    except _Exit2 as e:
        print(f"pf1e-llm-eval: error: {e}", file=sys.stderr)
        return 2
    except SystemExit as e:  # argparse: --help (0) or a bad argument (2)
        return e.code if isinstance(e.code, int) else 2


if __name__ == "__main__":
    sys.exit(main())
