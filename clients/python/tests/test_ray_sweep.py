"""Fanning a position sweep out over server processes with Ray (``pf1e_gym.ray_sweep``): the
merged report equals the single-server report and ``pf1e-sim sweep``'s, exactly — also when
chunks queue for slots, servers are busy with outside calls, unreachable, frozen or killed."""

from __future__ import annotations

import logging
import os
import pathlib
import pickle
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator

import grpc
import pytest
from conftest import REPO, cli_sweep, running_server, running_server_process

from pf1e_gym import Pf1eClient
from pf1e_gym.ray_sweep import SweepServerError, play_chunk, ray_sweep, split_placements

ARCHER = REPO / "data" / "sweeps" / "sample_arena_archer.yaml"
RECT = REPO / "data" / "sweeps" / "sample_arena_rect.yaml"
DEAD = "127.0.0.1:1"  # nothing listens there: UNAVAILABLE at once
LOGGER = "pf1e_gym.ray_sweep"


@pytest.fixture(scope="module")
def two_servers() -> Iterator[list[str]]:
    """Two server processes on loopback, each admitting one evaluation at a time (so that
    extra chunks have to queue for a slot)."""
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


def single(address: str, spec: pathlib.Path, runs: int, seed: int) -> str:
    """The JSON report of one plain ``Evaluate`` call."""
    with Pf1eClient(address) as c:
        return c.evaluate(spec, runs=runs, seed=seed).json


def when(
    address: str, ready: Callable[[object], bool], action: Callable[[], None]
) -> threading.Thread:
    """A thread polling ``address``'s ``Stats`` every 20 ms until ``ready(stats)``, then
    calling ``action`` (once). Started; gives up after 60 s."""

    def run() -> None:
        deadline = time.monotonic() + 60
        with Pf1eClient(address, timeout=5) as c:
            while time.monotonic() < deadline:
                if ready(c.stats()):
                    action()
                    return
                time.sleep(0.02)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


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
        single_report = c.evaluate(ARCHER, runs=20, seed=3, heatmaps=True)
    assert merged.json == single_report.json
    assert merged == single_report  # the typed fields and PNGs too
    assert merged.json == cli_sweep(ARCHER, 20, 3, tmp_path)
    print(f"fan-out over 2 servers: {fan_out_s:.2f} s")


def test_more_chunks_than_slots_and_another_assembler(
    two_servers: list[str], local_ray: None
) -> None:
    merged = ray_sweep(
        RECT, two_servers, runs=10, seed=4, chunks=5, assemble_address=two_servers[1]
    )
    assert merged.json == single(two_servers[0], RECT, 10, 4)
    assert len(merged.placements) == 30


def test_waiting_chunks_queue_until_a_slot_frees(
    two_servers: list[str], local_ray: None, caplog: pytest.LogCaptureFixture
) -> None:
    # 6 chunks of ~2 s on 2 servers of 1 slot each: the last two wait ~4 s for a slot. The
    # driver hands a chunk to a server only when it has a free slot, so no server ever
    # refuses one (before, chunks retried RESOURCE_EXHAUSTED for ~3.75 s and gave up).
    caplog.set_level(logging.INFO, logger=LOGGER)
    t0 = time.monotonic()
    merged = ray_sweep(RECT, two_servers, runs=300, seed=5, chunks=6)
    elapsed = time.monotonic() - t0
    refusals = [r.getMessage() for r in caplog.records if "RESOURCE_EXHAUSTED" in r.getMessage()]
    assert refusals == []
    assert merged.json == single(two_servers[1], RECT, 300, 5)
    print(f"6 chunks on 2 one-slot servers: {elapsed:.2f} s")


def test_outside_load_is_waited_for(local_ray: None, caplog: pytest.LogCaptureFixture) -> None:
    # The only server's only slot is taken for 2 s by a call from outside the sweep (a long
    # sweep with a 2 s deadline): PLAN gets RESOURCE_EXHAUSTED, backs off and goes on once
    # the slot is free (before, it failed at once).
    caplog.set_level(logging.INFO, logger=LOGGER)
    with running_server("--max-evaluations", "1") as a:
        outside: list[grpc.StatusCode] = []

        def hold_the_slot() -> None:
            with Pf1eClient(a) as c:
                try:
                    c.evaluate(RECT, runs=1_000_000, timeout=2.0)
                except grpc.RpcError as e:
                    outside.append(e.code())

        t = threading.Thread(target=hold_the_slot, daemon=True)
        t.start()
        with Pf1eClient(a) as c:
            while c.stats().evaluations_running == 0:
                time.sleep(0.01)
        t0 = time.monotonic()
        merged = ray_sweep(ARCHER, [a], runs=5, seed=1, retry_timeout=60)
        waited = time.monotonic() - t0
        t.join(60)
        assert outside == [grpc.StatusCode.DEADLINE_EXCEEDED]
        assert merged.json == single(a, ARCHER, 5, 1)
    assert waited > 1.0
    busy = [r.getMessage() for r in caplog.records if "RESOURCE_EXHAUSTED" in r.getMessage()]
    assert any(m.startswith("PLAN") for m in busy), busy


def test_play_chunk_raises_a_picklable_error(two_servers: list[str]) -> None:
    spec = ARCHER.read_text()
    got = play_chunk(two_servers[0], spec, "", 5, 1, [2, 0])
    with Pf1eClient(two_servers[0]) as c:
        want = c.evaluate(spec, runs=5, seed=1, placements=[2, 0])
    assert got == [r.SerializeToString() for r in want]
    with pytest.raises(SweepServerError) as info:
        play_chunk(DEAD, spec, "", 5, 1, [0])
    err = info.value
    assert (err.code, err.address, err.started) == ("UNAVAILABLE", DEAD, False)
    copy = pickle.loads(pickle.dumps(err))
    assert (copy.code, copy.details, copy.address, str(copy)) == (
        err.code,
        err.details,
        err.address,
        str(err),
    )


def test_bad_spec_raises_sweep_server_error(two_servers: list[str], local_ray: None) -> None:
    with pytest.raises(SweepServerError) as info:
        ray_sweep("placements: {}", two_servers, runs=5)
    err = info.value
    assert err.code == "INVALID_ARGUMENT"
    assert err.address == two_servers[0]
    assert err.details.startswith("spec: ")


def test_error_inside_a_ray_task_reaches_the_caller_unwrapped(
    two_servers: list[str], local_ray: None, tmp_path: pathlib.Path
) -> None:
    # PLAN succeeds on a good server; the chunk's server lacks the spec's scenario, so the
    # error is raised inside the Ray task (a grpc.RpcError there is not picklable).
    import ray

    data = tmp_path / "data"
    shutil.copytree(REPO / "data", data)
    (data / "scenarios" / "sample_arena.yaml").unlink()
    with running_server(data_dir=data) as bad:
        with pytest.raises(SweepServerError) as info:
            ray_sweep(ARCHER, [bad], runs=5, assemble_address=two_servers[0])
    err = info.value
    assert type(err) is SweepServerError
    assert not isinstance(err, ray.exceptions.RayTaskError)
    assert (err.code, err.address, err.started) == ("INVALID_ARGUMENT", bad, False)
    assert "unknown scenario `sample_arena`" in err.details


def test_unreachable_servers_are_failed_over(two_servers: list[str], local_ray: None) -> None:
    # The first address (PLAN, chunks, ASSEMBLE) is dead from the start: every step goes on
    # the live server.
    merged = ray_sweep(RECT, [DEAD, two_servers[0]], runs=5, seed=6, chunks=3)
    assert merged.json == single(two_servers[0], RECT, 5, 6)


def test_no_server_at_all_gives_up_after_retry_timeout(
    two_servers: list[str], local_ray: None
) -> None:
    t0 = time.monotonic()
    with pytest.raises(SweepServerError) as info:  # PLAN's round-robin
        ray_sweep(RECT, [DEAD], runs=5, retry_timeout=1.0)
    assert info.value.code == "UNAVAILABLE"
    # PLAN on a live coordinator, but the only chunk server is dead: the driver's loop.
    with pytest.raises(SweepServerError) as info:
        ray_sweep(RECT, [DEAD], runs=5, assemble_address=two_servers[0], retry_timeout=1.0)
    assert (info.value.code, info.value.address) == ("UNAVAILABLE", DEAD)
    assert time.monotonic() - t0 < 20


def test_frozen_server_is_failed_over(local_ray: None, caplog: pytest.LogCaptureFixture) -> None:
    # B is frozen (SIGSTOP) while it plays a chunk: keepalive pings go unanswered, the call
    # fails UNAVAILABLE after ~2 x keepalive, and the chunk is replayed on A.
    caplog.set_level(logging.INFO, logger=LOGGER)
    with (
        running_server_process("--max-evaluations", "1") as (a, _),
        running_server_process("--max-evaluations", "1") as (b, proc_b),
    ):
        frozen = threading.Event()

        def freeze() -> None:
            os.kill(proc_b.pid, signal.SIGSTOP)
            frozen.set()

        when(b, lambda s: s.evaluations_running >= 1, freeze)
        t0 = time.monotonic()
        merged = ray_sweep(
            RECT,
            [a, b],
            runs=200,
            seed=7,
            chunks=2,
            keepalive=1.0,
            connect_timeout=2.0,
            timeout=60,  # were the freeze not noticed: DEADLINE_EXCEEDED, not a hang
        )
        elapsed = time.monotonic() - t0
        assert frozen.is_set(), "B never played a chunk"
        assert merged.json == single(a, RECT, 200, 7)
        os.kill(proc_b.pid, signal.SIGCONT)
    lost = [r.getMessage() for r in caplog.records if r.getMessage().startswith("chunk ")]
    assert any("UNAVAILABLE from " + b in m for m in lost), lost
    assert elapsed < 30
    print(f"sweep with a frozen server: {elapsed:.2f} s")


def test_coordinator_killed_mid_sweep(local_ray: None, caplog: pytest.LogCaptureFixture) -> None:
    # A (PLAN, first choice for ASSEMBLE) is killed while it plays a chunk: its chunk is
    # replayed on B, and ASSEMBLE moves to B instead of discarding the finished work.
    caplog.set_level(logging.INFO, logger=LOGGER)
    with (
        running_server_process("--max-evaluations", "1") as (a, proc_a),
        running_server_process("--max-evaluations", "1") as (b, _),
    ):
        # started >= 2: PLAN, then a chunk.
        killer = when(
            a,
            lambda s: s.evaluations_started >= 2 and s.evaluations_running >= 1,
            lambda: proc_a.send_signal(signal.SIGKILL),
        )
        merged = ray_sweep(RECT, [a, b], runs=200, seed=8, chunks=4, timeout=60)
        killer.join(5)
        assert proc_a.poll() is not None, "A was never killed"
        assert merged.json == single(b, RECT, 200, 8)
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("ASSEMBLE: UNAVAILABLE from " + a) for m in messages), messages


def test_missing_ray_is_a_clear_import_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails
    with pytest.raises(ImportError, match=r"pip install .*\[ray\]"):
        ray_sweep("scenario: sample_arena", [DEAD])
