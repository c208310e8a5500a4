"""Prompt tokens per decision of the LLM agent, per scenario, answer mode and text mode
(the table of docs/text-observation.md, "Prompt tokens per decision").

For every decision of ``--episodes`` seeded episodes of each scenario (the agent's side
controlled, a fixed scripted choice: attack when it can, else close in, else end the turn), it
builds the exact messages :class:`pf1e_gym.llm.LLMAgent` would send in each answer mode (the
system prompt, the decision prompt with the server's text observation and the answer
instructions — the JSON Schema itself for ``action`` / ``plan``; for ``tools`` the function
definitions offered, which a server puts into the prompt) and counts their tokens with:

- ``bytes``: UTF-8 bytes — exactly the tokens of the byte-level test model of
  ``pf1e_gym.llm.local_model`` (one token per byte), i.e. what ``usage.prompt_tokens`` reports
  in CI, less the chat template's few tokens;
- ``llama3`` (with ``--vocab FILE``): a real BPE tokenizer, Llama 3's 128k vocabulary, read
  from llama.cpp's ``models/ggml-vocab-llama-bpe.gguf`` (shipped in the ``llama-cpp-python``
  sdist on PyPI) and run with the ``tokenizers`` library (Llama 3's pre-tokenizer split);
  ``qwen2`` the same from ``ggml-vocab-qwen2.gguf``.

Usage (a running server, or one started from ``$PF1E_SERVER_BIN``)::

    python clients/python/bench/prompt_tokens.py --address HOST:PORT --episodes 3 \\
        --vocab llama3=/path/ggml-vocab-llama-bpe.gguf --vocab qwen2=/path/ggml-vocab-qwen2.gguf

A benchmark, not a test: the figures depend on the data and the prompts, not on the machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Callable

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import Pf1eClient
from pf1e_gym.llm.agent import ANSWER_MODES, LLMAgent
from pf1e_gym.llm.chat import ChatModel
from pf1e_gym.llm.tools import tools_for_state

# Llama 3 / Qwen2 pre-tokenizer split (the regex their tokenizer.json files use).
_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)

SCENARIOS = {
    "mirror_duel": "west",
    "sample_arena": "players",
    "skirmish_4v4": "players",
    "casters": "players",
}


def gguf_tokenizer(path: str) -> Callable[[str], int]:
    """A token counter from a llama.cpp vocabulary-only GGUF (BPE tokens and merges)."""
    import gguf
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

    r = gguf.GGUFReader(path)

    def strings(name: str) -> list[str]:
        f = r.fields[name]
        return [bytes(f.parts[i]).decode("utf-8") for i in f.data]

    tokens = strings("tokenizer.ggml.tokens")
    merges = [tuple(m.split(" ", 1)) for m in strings("tokenizer.ggml.merges")]
    vocab = {t: i for i, t in enumerate(tokens)}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(_SPLIT), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    return lambda text: len(tok.encode(text, add_special_tokens=False).ids)


def choose(state: pb.EpisodeState) -> str:
    labels = [la.label for la in state.legal_actions]
    for prefix in ("full_attack", "attack", "cast_spell", "charge", "move toward", "decline"):
        for lab in labels:
            if lab.startswith(prefix):
                return lab
    return "end_turn" if "end_turn" in labels else labels[0]


def prompt_texts(agent: LLMAgent, state: pb.EpisodeState, spec: pb.Spec) -> str:
    d = state.decision
    side = spec.combatants[d.actor_index].side
    text = agent._render("system.txt", side=side) + "\n" + agent._decision_prompt(state, spec)
    if agent.answer == "tools":
        text += "\n" + json.dumps(tools_for_state(agent._spec_tools(spec), state))
    return text


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--address", help="pf1e-env-server host:port (default: start one)")
    p.add_argument("--episodes", type=int, default=3)
    p.add_argument("--max-decisions", type=int, default=60, help="per episode")
    p.add_argument("--vocab", action="append", default=[], metavar="NAME=GGUF")
    p.add_argument("--scenario", action="append", help="default: every bundled scenario")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    counters: dict[str, Callable[[str], int]] = {"bytes": lambda t: len(t.encode("utf-8"))}
    for item in args.vocab:
        name, _, path = item.partition("=")
        counters[name] = gguf_tokenizer(path)
    if args.address is None:
        sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "tests"))
        from conftest import running_server

        ctx = running_server()
        address = ctx.__enter__()
    else:
        ctx, address = None, args.address
    client = Pf1eClient(address)
    rows = []
    model = ChatModel(base_url="http://127.0.0.1:9/v1", model="none")
    for scenario in args.scenario or list(SCENARIOS):
        side = SCENARIOS.get(scenario, "players")
        spec = client.get_spec(scenario)
        for text_mode in ("full", "compact"):
            samples: dict[tuple[str, str], list[int]] = {}
            agents = {a: LLMAgent(model, answer=a, text_mode=text_mode) for a in ANSWER_MODES}
            for seed in range(1, args.episodes + 1):
                st = client.reset(
                    scenario,
                    seed,
                    controlled_sides=[side],
                    observation=agents["label"].observation_options(),
                )
                n = 0
                while st.HasField("decision") and not (st.terminated or st.truncated):
                    n += 1
                    if n > args.max_decisions:
                        client.close_episode(st.episode_id)
                        break
                    for a, agent in agents.items():
                        text = prompt_texts(agent, st, spec)
                        for cname, count in counters.items():
                            samples.setdefault((a, cname), []).append(count(text))
                    st = client.step(
                        st.episode_id, st.decision.decision_id, action_labels=[choose(st)]
                    )
            for (a, cname), v in samples.items():
                v.sort()
                rows.append(
                    {
                        "scenario": scenario,
                        "text_mode": text_mode,
                        "answer": a,
                        "tokenizer": cname,
                        "decisions": len(v),
                        "median": statistics.median(v),
                        "p95": v[min(len(v) - 1, round(0.95 * (len(v) - 1)))],
                    }
                )
    client.close()
    if ctx is not None:
        ctx.__exit__(None, None, None)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    names = list(counters)
    print(
        "| scenario | answer | "
        + " | ".join(f"{c} full (median / p95) | {c} compact (median / p95)" for c in names)
        + " |"
    )
    print("|---|---|" + "---|" * (2 * len(names)))
    for scenario in args.scenario or list(SCENARIOS):
        for a in ANSWER_MODES:
            cells = []
            for c in names:
                for tm in ("full", "compact"):
                    r = next(
                        x
                        for x in rows
                        if x["scenario"] == scenario
                        and x["answer"] == a
                        and x["tokenizer"] == c
                        and x["text_mode"] == tm
                    )
                    cells.append(f"{r['median']:,.0f} / {r['p95']:,.0f}")
            dec = next(x["decisions"] for x in rows if x["scenario"] == scenario)
            print(f"| {scenario} ({dec}) | {a} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
