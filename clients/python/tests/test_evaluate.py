"""Position sweeps through the server (``Evaluate``): report, progress, subsets, errors and
cancellation, against the real server binary (and the ``pf1e-sim`` CLI next to it)."""

from __future__ import annotations

import pathlib
import time

import grpc
import pytest
from conftest import REPO, cli_sweep

from pf1e_gym import Pf1eClient, pb

ARCHER = REPO / "data" / "sweeps" / "sample_arena_archer.yaml"
RECT = REPO / "data" / "sweeps" / "sample_arena_rect.yaml"


def wait_idle(client: Pf1eClient, within: float) -> float:
    """Seconds until no evaluation holds a slot on the server (fails after ``within``)."""
    t0 = time.monotonic()
    while client.stats().evaluations_running:
        assert time.monotonic() - t0 < within, "evaluations still running"
        time.sleep(0.005)
    return time.monotonic() - t0


def test_report_progress_and_cli_equality(server_address: str, tmp_path: pathlib.Path) -> None:
    progress: list[pb.EvaluateProgress] = []
    with Pf1eClient(server_address) as c:
        report = c.evaluate(ARCHER, 20, 3, on_progress=progress.append, heatmaps=True, text=True)
        assert c.get_spec("sample_arena").capabilities.evaluate
    assert report.json == cli_sweep(ARCHER, 20, 3, tmp_path)
    assert report.csv == (tmp_path / "sweep.csv").read_text()
    assert report.cell_stats[0].png == (tmp_path / "heatmap-goblin.png").read_bytes()
    assert report.text.startswith("=== Position sweep ===")
    assert report.plan.placements == 7 and report.plan.combats == 140
    assert [row.index for row in report.placements] == list(range(7))
    assert report.ranking[0] == report.best
    assert progress, "at least one progress message"
    assert progress[0].combats_total == 140 and progress[0].placements_total == 7
    assert (progress[-1].combats_done, progress[-1].placements_done) == (140, 7)
    done = [p.combats_done for p in progress]
    assert done == sorted(done)


def test_subsets_assemble_to_the_whole_report(server_address: str) -> None:
    with Pf1eClient(server_address) as c:
        whole = c.evaluate(RECT, runs=10, seed=2)
        plan = c.evaluate_plan(RECT, runs=10, seed=2)
        assert plan.placements == 30 and plan.fingerprint == whole.plan.fingerprint
        part = c.evaluate(RECT, 10, 2, placements=range(20, 30))
        assert [r.index for r in part] == list(range(20, 30))
        part += c.evaluate(RECT, 10, 2, placements=range(20))
        merged = c.assemble(RECT, reversed(part), runs=10, seed=2)
    assert merged.json == whole.json
    assert merged == whole


def test_bad_spec_is_invalid_argument_naming_the_field(server_address: str) -> None:
    spec = "scenario: sample_arena\nplacements:\n  goblin: {cells: [[1, 1], [0, 0]]}\n"
    with Pf1eClient(server_address) as c, pytest.raises(grpc.RpcError) as err:
        c.evaluate(spec, runs=5)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.details().startswith("spec: placements.goblin.cells[1]: "), err.value.details()
    with Pf1eClient(server_address) as c, pytest.raises(grpc.RpcError) as err:
        c.evaluate(ARCHER, runs=5, placements=[3, 99])
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.details().startswith("placements[1]: "), err.value.details()


class _Enough(Exception):
    pass


def test_raising_in_on_progress_cancels_the_servers_work(server_address: str) -> None:
    def on_progress(p: pb.EvaluateProgress) -> None:
        if p.combats_done > 0:
            raise _Enough

    with Pf1eClient(server_address) as c:
        before = c.stats()
        with pytest.raises(_Enough):
            c.evaluate(ARCHER, runs=100_000, on_progress=on_progress)  # 700,000 combats
        took = wait_idle(c, within=5.0)
        after = c.stats()
    assert took <= 1.0, f"the server's work stopped {took:.3f} s after the cancellation"
    assert after.evaluations_cancelled == before.evaluations_cancelled + 1
    assert after.evaluations_completed == before.evaluations_completed
    assert after.combats_evaluated - before.combats_evaluated < 70_000
