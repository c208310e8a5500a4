"""Fanning a position sweep out over two server processes with Ray (``pf1e_gym.ray_sweep``):
the merged report equals the single-server report and ``pf1e-sim sweep``'s, exactly."""

from __future__ import annotations

import pathlib
import sys
import time
from collections.abc import Iterator

import pytest
from conftest import REPO, cli_sweep, running_server

from pf1e_gym import Pf1eClient
from pf1e_gym.ray_sweep import play_chunk, ray_sweep, split_placements

ARCHER = REPO / "data" / "sweeps" / "sample_arena_archer.yaml"
RECT = REPO / "data" / "sweeps" / "sample_arena_rect.yaml"


@pytest.fixture(scope="module")
def two_servers() -> Iterator[list[str]]:
    """Two server processes on loopback, each admitting one evaluation at a time (so that
    extra chunks exercise the busy-server retry)."""
    with (
        running_server("--max-evaluations", "1") as a,
        running_server("--max-evaluations", "1") as b,
    ):
        yield [a, b]


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A local Ray cluster of 2 CPUs (Ray is in the ``test`` extra: a missing Ray fails)."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_split_placements() -> None:
    assert split_placements(7, 2) == [[0, 1, 2, 3], [4, 5, 6]]
    assert split_placements(3, 5) == [[0], [1], [2]]
    assert split_placements(0, 2) == []
    assert [k for part in split_placements(30, 4) for k in part] == list(range(30))
    with pytest.raises(ValueError):
        split_placements(3, 0)


def test_fan_out_equals_single_server_and_cli(
    two_servers: list[str], local_ray: None, tmp_path: pathlib.Path
) -> None:
    t0 = time.monotonic()
    merged = ray_sweep(ARCHER, two_servers, runs=20, seed=3, heatmaps=True)
    fan_out_s = time.monotonic() - t0
    with Pf1eClient(two_servers[1]) as c:
        single = c.evaluate(ARCHER, runs=20, seed=3, heatmaps=True)
    assert merged.json == single.json
    assert merged == single  # the typed fields and PNGs too
    assert merged.json == cli_sweep(ARCHER, 20, 3, tmp_path)
    print(f"fan-out over 2 servers: {fan_out_s:.2f} s")


def test_more_chunks_than_slots_and_another_assembler(
    two_servers: list[str], local_ray: None
) -> None:
    # 5 chunks on 2 servers admitting 1 evaluation each: busy servers answer
    # RESOURCE_EXHAUSTED and the chunks are retried / moved; the result is the same.
    merged = ray_sweep(
        RECT, two_servers, runs=10, seed=4, chunks=5, assemble_address=two_servers[1]
    )
    with Pf1eClient(two_servers[0]) as c:
        single = c.evaluate(RECT, runs=10, seed=4)
    assert merged.json == single.json
    assert len(merged.placements) == 30


def test_play_chunk_fails_over_to_a_live_server(two_servers: list[str]) -> None:
    dead = "127.0.0.1:1"  # nothing listens there: UNAVAILABLE
    spec = ARCHER.read_text()
    got = play_chunk([dead, two_servers[0]], spec, "", 5, 1, [2, 0])
    with Pf1eClient(two_servers[0]) as c:
        want = c.evaluate(spec, runs=5, seed=1, placements=[2, 0])
    assert got == [r.SerializeToString() for r in want]


def test_missing_ray_is_a_clear_import_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails
    with pytest.raises(ImportError, match=r"pip install .*\[ray\]"):
        ray_sweep("scenario: sample_arena", ["127.0.0.1:1"])
