"""The balance report in words (pf1e_gym.llm.narrate, ``pf1e-llm-eval narrate``): the number
validator, the retry and template paths with a scripted model, and the local llama-server."""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import REPO, llama_server_or_skip, llm_import, sim_binary
from scripted_llm import ScriptedLLM

from pf1e_gym.llm import ChatModel
from pf1e_gym.llm.eval import main as eval_main
from pf1e_gym.llm.narrate import check_numbers, narrate, template_report


@pytest.fixture(scope="module")
def stats() -> dict:
    """A real run's statistics: the README's default scenario (sample arena, 3 goblins vs 2
    orcs), 200 combats."""
    out = subprocess.run(
        [
            str(sim_binary()),
            "--map",
            str(REPO / "data/maps/sample_arena.yaml"),
            "--side",
            "players",
            *[str(REPO / "data/monsters/goblin.json")] * 3,
            "--side",
            "monsters",
            *[str(REPO / "data/monsters/orc.json")] * 2,
            "--runs",
            "200",
            "--seed",
            "1",
            "--format",
            "json",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def model(llm: ScriptedLLM) -> ChatModel:
    return ChatModel(llm.base_url, "scripted", api_key="test", timeout=5.0, backoff=0.01)


def test_template_reports_pass_and_an_injected_wrong_number_is_caught(stats):
    players = stats["sides"][0]
    for lang in ("fr", "en"):
        text = template_report(stats, lang)
        check = check_numbers(text, stats)
        assert check.ok, check.why()
        assert len(check.numbers) >= 10
        # inject one wrong number: the win rate one tenth of a point off
        right = f"{100 * players['rate']:.1f}"
        wrong = f"{100 * players['rate'] + 0.3:.1f}"
        if lang == "fr":
            right, wrong = right.replace(".", ","), wrong.replace(".", ",")
        assert right in text
        bad = check_numbers(text.replace(right, wrong, 1), stats)
        assert not bad.ok and bad.unknown == [wrong + ("\u00a0%" if lang == "fr" else "%")]
        assert wrong in bad.why()


def test_validator_forms(stats):
    rate = stats["sides"][0]["rate"]
    ok = check_numbers(
        f"players win {100 * rate:.0f} % ({rate:.2f}) over {stats['runs']:,} runs; "
        f"monsters too. 3\u03c3 bands.",
        stats,
        min_numbers=3,
    )
    assert ok.ok, ok.why()
    # ids with digits are names, not numbers; a side left out is caught
    c = check_numbers(f"goblin-3 and players: {stats['runs']} runs, 1 2 3", stats)
    assert "3" not in c.unknown and c.sides_missing == ["monsters"]
    # too few numbers: noise without digits is no report
    c = check_numbers("players monsters ßðđ ŋ æ", stats)
    assert not c.ok and "number(s)" in c.why()
    # a thousands separator and a number not in the statistics
    c = check_numbers("players monsters 1,234 runs 200 1", stats)
    assert c.unknown == ["1,234"]


def test_a_rejected_draft_is_retried_with_the_reason(stats):
    good = template_report(stats, "en")
    bad = good.replace(f"{stats['mean_rounds']:.2f}", "9.99")
    with ScriptedLLM(
        [{"content": json.dumps({"report": bad})}, {"content": json.dumps({"report": good})}]
    ) as llm:
        (r,) = narrate(stats, model(llm), langs=["en"])
        second = llm.requests[1]["messages"][-1]["content"]
    assert r.source == "model" and r.model == "scripted" and r.attempts == 2
    assert r.text == good and len(r.rejected) == 1 and "9.99" in r.rejected[0]
    assert "9.99" in second  # the reason reached the model
    assert "every number checked" in r.markdown() and "`scripted`" in r.markdown()


def test_always_wrong_falls_back_to_the_template(stats):
    with ScriptedLLM(default={"content": json.dumps({"report": "players monsters 12345"})}) as llm:
        rs = narrate(stats, model(llm), langs=["fr", "en"], retries=1)
    for r in rs:
        assert r.source == "template" and r.model is None and r.attempts == 2
        assert len(r.rejected) == 2 and all("12345" in w for w in r.rejected)
        assert check_numbers(r.text, stats).ok
        assert r.markdown().startswith("_Rapport gabarit" if r.lang == "fr" else "_Template")
    # not JSON, then an unreachable model: the template too
    with ScriptedLLM(default={"content": "not json"}) as llm:
        (r,) = narrate(stats, model(llm), langs=["en"], retries=0)
    assert r.source == "template" and "report" in r.rejected[0]
    dead = ChatModel("http://127.0.0.1:9/v1", "x", timeout=1.0, transport_retries=0)
    (r,) = narrate(stats, dead, langs=["en"])
    assert r.source == "template" and r.rejected[0].startswith("model unavailable")


def test_cli_writes_the_reports(stats, tmp_path, capsys):
    path = tmp_path / "stats.json"
    path.write_text(json.dumps(stats))
    assert eval_main(["narrate", str(path), "--template", "--out", str(tmp_path / "o")]) == 0
    fr = (tmp_path / "o" / "report.fr.md").read_text()
    assert fr.startswith("_Rapport gabarit") and "players" in fr
    doc = json.loads((tmp_path / "o" / "narration.json").read_text())
    assert [d["lang"] for d in doc] == ["fr", "en"]
    (tmp_path / "bad.json").write_text("[1, 2]")
    assert eval_main(["narrate", str(tmp_path / "bad.json"), "--template"]) == 2
    assert eval_main(["narrate", str(path), "--template", "--lang", "de"]) == 2
    assert "--lang" in capsys.readouterr().err


def test_local_model_report_is_checked_or_replaced(stats):
    """The tiny random-weight model under the report's JSON Schema: whatever it writes, what
    comes out is either a draft that passed the validator or the template."""
    llm_import("gguf")
    binary = llama_server_or_skip()
    import tempfile

    from pf1e_gym.llm.local_model import LocalLlamaServer, write_tiny_model

    with tempfile.TemporaryDirectory() as d:
        path = write_tiny_model(f"{d}/tiny.gguf", seed=0)
        with LocalLlamaServer(path, binary=binary, n_ctx=8192) as server:
            m = ChatModel(server.base_url, server.model, timeout=120.0)
            m.max_tokens = 256
            rs = narrate(stats, m, langs=["fr", "en"], retries=1)
    for r in rs:
        assert r.source in ("model", "template")
        assert check_numbers(r.text, stats).ok
        if r.source == "template":
            assert r.attempts == 2 and len(r.rejected) == 2
