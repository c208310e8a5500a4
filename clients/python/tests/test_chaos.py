"""P10 chaos and soak: clients killed mid-stream and mid-batch, a server killed and restarted
under load. What must hold: the other clients see only the documented errors, nothing hangs
(every call has a deadline, every wait a timeout), a killed client's episodes are closed when
its connection ends, memory returns to its baseline, and a client of the restarted server is
told its episode is lost (NOT_FOUND, reason ``episode_lost``).

The soak writes its memory curve (server RSS and accounted episode bytes, sampled while the
load runs) to ``target/test-artifacts/soak_memory.csv``.
"""

from __future__ import annotations

import csv
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import threading
import time

import grpc
import pytest
from conftest import REPO, running_server_process

from pf1e_gym import Pf1eClient, is_episode_lost, pb

ARTIFACTS = REPO / "target" / "test-artifacts"

#: A client process that keeps a Session stream and a StepBatch loop busy until killed.
BUSY_CLIENT = textwrap.dedent(
    """
    import sys, threading
    from pf1e_gym import Pf1eClient, pb
    c = Pf1eClient(sys.argv[1], timeout=30)
    ids = [c.reset("sample_arena", seed=s, controlled_sides=["players"]).episode_id
           for s in range(20)]
    def stream():
        import queue
        q = queue.Queue()
        def reqs():
            n = 0
            while True:
                n += 1
                yield pb.SessionRequest(request_id=n, reset=pb.ResetRequest(
                    scenario=pb.Scenario(named="sample_arena"), seed=n,
                    controlled=pb.Controlled(sides=["players"])))
        for _ in c.stub.Session(reqs()):
            pass
    threading.Thread(target=stream, daemon=True).start()
    print("ready", flush=True)
    while True:
        c.stub.ResetBatch(pb.ResetBatchRequest(resets=[pb.ResetRequest(
            scenario=pb.Scenario(named="sample_arena"), seed=s,
            controlled=pb.Controlled(sides=["players"])) for s in range(32)]), timeout=30)
    """
)


def stats(address: str) -> pb.StatsResponse:
    c = Pf1eClient(address, timeout=10)
    try:
        return c.stub.Stats(pb.StatsRequest(), timeout=10)
    finally:
        c.close()


def rss_kib(pid: int) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def spawn_busy(address: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO / "clients" / "python"))
    p = subprocess.Popen(
        [sys.executable, "-c", BUSY_CLIENT, address],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert p.stdout is not None
    line = p.stdout.readline()
    assert line.strip() == "ready", line
    return p


def wait_until(pred, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.1)
    pytest.fail(f"timed out after {timeout} s waiting for: {what}")


def test_killed_clients_leave_nothing_and_do_not_disturb_others() -> None:
    with running_server_process() as (address, proc):
        base = stats(address)
        base_rss = rss_kib(proc.pid)
        survivor = Pf1eClient(address, timeout=20)
        mine = survivor.reset("sample_arena", seed=1, controlled_sides=["players"])
        busy = [spawn_busy(address) for _ in range(3)]
        wait_until(
            lambda: stats(address).live_episodes > base.live_episodes + 60,
            timeout=60,
            what="the busy clients' episodes",
        )
        # Kill them mid-stream and mid-batch (SIGKILL: no goodbye on the wire).
        for p in busy:
            p.send_signal(signal.SIGKILL)
            p.wait(timeout=10)
        # Their connections end (the kernel closes the sockets): their episodes go, the
        # survivor's stays.
        wait_until(
            lambda: stats(address).live_episodes == 1,
            timeout=30,
            what="killed clients' episodes closed",
        )
        st = survivor.observe(mine.episode_id)
        assert st.episode_id == mine.episode_id
        survivor.close()
        # RSS back near the baseline (the allocator may keep some pages: bounded).
        assert rss_kib(proc.pid) < base_rss + 200_000, (base_rss, rss_kib(proc.pid))


def test_a_restarted_server_says_episode_lost() -> None:
    with running_server_process() as (address, proc):
        c = Pf1eClient(address, timeout=10)
        st = c.reset("sample_arena", seed=3, controlled_sides=["players"])
        lost_id = st.episode_id
        # Killed under load: a busy client keeps it working.
        busy = spawn_busy(address)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        busy.wait(timeout=60)  # its calls fail (UNAVAILABLE) and it exits, nothing hangs
        assert busy.returncode != 0
        with pytest.raises(grpc.RpcError) as e:
            c.observe(lost_id)
        assert e.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
        c.close()
    with running_server_process() as (address2, _proc2):
        c = Pf1eClient(address2, timeout=10)
        with pytest.raises(grpc.RpcError) as e:
            c.observe(lost_id)
        assert e.value.code() == grpc.StatusCode.NOT_FOUND
        assert is_episode_lost(e.value), e.value.details()
        assert "server restarted; episode lost" in (e.value.details() or "")
        c.close()


def test_soak_memory_returns_to_baseline() -> None:
    """Bounded soak (~15 s): 4 threads reset, step and close episodes in a loop while a
    sampler records RSS and accounted bytes; after the load, every episode is gone and the
    accounted bytes are back to 0. The curve is written to soak_memory.csv."""
    seconds = float(os.environ.get("PF1E_SOAK_SECONDS", "15"))
    with running_server_process() as (address, proc):
        stop = threading.Event()
        errors: list[BaseException] = []
        rows: list[tuple[float, int, int, int]] = []
        t0 = time.monotonic()

        def worker(k: int) -> None:
            c = Pf1eClient(address, timeout=30)
            try:
                n = 0
                while not stop.is_set():
                    n += 1
                    st = c.reset("skirmish_4v4", seed=k * 100_000 + n, controlled_sides=["players"])
                    for _ in range(20):
                        if st.terminated or st.truncated:
                            break
                        st = c.step(st.episode_id, st.decision.decision_id, action_ids=[0])
                    if n % 3:
                        c.close_episode(st.episode_id)
            except BaseException as e:
                errors.append(e)
            finally:
                c.close()

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        while time.monotonic() - t0 < seconds:
            s = stats(address)
            rows.append(
                (
                    round(time.monotonic() - t0, 2),
                    rss_kib(proc.pid),
                    s.live_episodes,
                    s.episode_memory_bytes,
                )
            )
            time.sleep(0.5)
        stop.set()
        for t in threads:
            t.join(timeout=60)
            assert not t.is_alive(), "a soak worker hangs"
        assert not errors, errors
        # The workers' connections are closed: the episodes they left open go with them.
        wait_until(lambda: stats(address).live_episodes == 0, 30, "soak episodes closed")
        end = stats(address)
        assert end.episode_memory_bytes == 0
        rows.append((round(time.monotonic() - t0, 2), rss_kib(proc.pid), 0, 0))
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        with open(ARTIFACTS / "soak_memory.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["seconds", "server_rss_kib", "live_episodes", "episode_memory_bytes"])
            w.writerows(rows)
        peak = max(r[1] for r in rows)
        assert rows[-1][1] <= peak
