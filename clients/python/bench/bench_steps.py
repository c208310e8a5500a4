#!/usr/bin/env python3
"""Benchmark of Python stepping against pf1e-env-server (not a test).

Measures, in one run and against one server:

- ``echo``: the transport floor, a trivial ``Echo`` RPC whose payload is the size of the
  response it is compared with (one unary step response; one batch response of N episodes);
- ``unary``: ``Step`` one episode per call (tensor observations and mask, no JSON, no legal
  list), random legal actions, ``Reset`` when an episode ends (counted in that call);
- ``stream``: the same over one ``Session`` stream, one request in flight (ping-pong);
- ``batch N``: :class:`pf1e_gym.Pf1eVectorEnv` over ``StepBatch`` with N = 64 and 256 episodes
  (tensor observations, NEXT_STEP autoreset; includes the client's decoding into numpy).

For each it prints calls/s, env steps/s (over the time spent stepping), p50/p99 latency per
call and the ratio of the p50 to the p50 of the echo of the same payload size, the two
measured alternately, call by call (the echo rows above each row).

Then the **adapters** (skip with ``--no-adapters``; needs stable-baselines3 for the SB3
rows): env steps/s through ``Pf1eSB3VecEnv`` x64 and x256 and through the Gymnasium vector
env ``gymnasium.make_vec("pf1e_gym/SampleArena-v0")`` x256 in both autoreset modes, each as
a **ratio** of the raw ``Pf1eVectorEnv`` (NEXT_STEP, driven directly) of the same width,
measured alternately with it, call by call.

The header names the host (CPU model, clock, cores) and, with ``--batch-timing`` (the
``batch_timing`` example binary, or ``cargo`` to ``cargo run --release -p pf1e-env-server
--example batch_timing``), the in-process batch rate of this run, so that a reader can tell a
slower host from a regression. Usage::

    python clients/python/bench/bench_steps.py                      # starts a release server
    python clients/python/bench/bench_steps.py --address 127.0.0.1:50051 --seconds 5

Without ``--address`` it starts ``$PF1E_SERVER_BIN_RELEASE``, else
``target/release/pf1e-env-server`` (build it with ``cargo build --release -p pf1e-env-server``),
on a free port, and stops it at the end.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

from pf1e_gym import Pf1eClient, Pf1eVectorEnv, pb

REPO = pathlib.Path(__file__).resolve().parents[3]


def start_server(binary: pathlib.Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [str(binary), "--addr", "127.0.0.1:0", "--data-dir", str(REPO / "data")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, RUST_LOG="warn"),
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        m = re.search(r"listening on (\S+)", line)
        if m:
            # Keep draining stderr so the server never blocks on a full pipe.
            import threading

            threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
            return proc, m.group(1)
    proc.wait()
    raise SystemExit(f"{binary} did not start")


def host_description() -> str:
    """CPU model, clock and core count (``/proc/cpuinfo``, ``lscpu``), one line."""
    model, mhz = "unknown CPU", ""
    try:
        text = pathlib.Path("/proc/cpuinfo").read_text()
        if m := re.search(r"^model name\s*:\s*(.+)$", text, re.M):
            model = m.group(1).strip()
        if m := re.search(r"^cpu MHz\s*:\s*([\d.]+)$", text, re.M):
            mhz = f"{float(m.group(1)):.0f} MHz now"
    except OSError:
        pass
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        if m := re.search(r"^CPU max MHz:\s*([\d.]+)$", out, re.M):
            mhz += f", max {float(m.group(1)):.0f} MHz"
    except (OSError, subprocess.SubprocessError):
        pass
    return f"{model}{' (' + mhz.strip(', ') + ')' if mhz else ''}, {os.cpu_count()} cores"


def batch_timing(how: str | None) -> str:
    """The in-process batch figure of ``batch_timing`` (its output, trimmed), or why not."""
    if not how:
        return "not run (--batch-timing PATH|cargo)"
    if how == "cargo":
        cmd = ["cargo", "run", "-q", "--release", "-p", "pf1e-env-server", "--example"]
        cmd.append("batch_timing")
    else:
        cmd = [how]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=1800)
    except (OSError, subprocess.SubprocessError) as e:
        return f"failed: {e}"
    lines = [x.strip() for x in out.stdout.splitlines() if x.strip()]
    return " | ".join(lines[-3:]) if out.returncode == 0 else f"failed: {out.stderr[-300:]}"


def random_legal(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (``(n, actions)``, 1 = legal;
    id 0, end_turn, for a row with none): the k-th legal id, k uniform in [0, legal count),
    found on the running count — the agent costs ~0.1 ms per 256 rows, not the ~0.3 ms of
    an argmax over random scores."""
    counts = masks.cumsum(axis=1, dtype=np.int32)
    k = (rng.random(len(masks)) * counts[:, -1]).astype(np.int32)
    return (counts > k[:, None]).argmax(axis=1)


def measure(
    fn: Callable[[], int], seconds: float, floor: Callable[[], object]
) -> tuple[int, int, np.ndarray, float, np.ndarray]:
    """Call ``fn`` (which returns the env steps it made) for ``seconds`` after a warm-up,
    alternating each call with one call of ``floor`` (the echo of the same payload size), so
    that both see the same machine: on a shared machine the speed drifts by ±15% within
    minutes, and a ratio of two figures taken minutes apart would measure the drift. Returns
    (calls, steps, per-call latencies of ``fn`` in s, time spent in ``fn`` in s, per-call
    latencies of ``floor`` in s)."""
    t_end = time.perf_counter() + min(0.5, seconds / 4)
    while time.perf_counter() < t_end:
        floor()
        fn()
    lat: list[float] = []
    floor_lat: list[float] = []
    steps = 0
    t_end = time.perf_counter() + 2 * seconds
    while True:
        t0 = time.perf_counter()
        floor()
        t1 = time.perf_counter()
        steps += fn()
        t2 = time.perf_counter()
        floor_lat.append(t1 - t0)
        lat.append(t2 - t1)
        if t2 >= t_end:
            break
    return len(lat), steps, np.asarray(lat), float(np.sum(lat)), np.asarray(floor_lat)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--address", help="server host:port (default: start a release server)")
    p.add_argument("--scenario", default="sample_arena")
    p.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    p.add_argument("--batch", type=int, nargs="*", default=[64, 256], help="batch widths")
    p.add_argument(
        "--no-adapters", action="store_true", help="skip the SB3 / Gymnasium adapter rows"
    )
    p.add_argument(
        "--batch-timing",
        metavar="PATH|cargo",
        help="also run the in-process batch_timing example (its binary, or 'cargo')",
    )
    args = p.parse_args(argv)
    print(f"host: {host_description()}")
    print(f"in-process batch (batch_timing): {batch_timing(args.batch_timing)}")

    proc = None
    address = args.address
    if address is None:
        binary = pathlib.Path(
            os.environ.get(
                "PF1E_SERVER_BIN_RELEASE", REPO / "target" / "release" / "pf1e-env-server"
            )
        )
        if not binary.is_file():
            raise SystemExit(f"{binary} not found: cargo build --release -p pf1e-env-server")
        proc, address = start_server(binary)
    client = Pf1eClient(address)
    rows: list[tuple[str, int, int, np.ndarray, float, float | None]] = []
    try:
        spec = client.get_spec(args.scenario)
        opts = pb.ObservationOptions(json=False, tensors=True, legal_actions=False, typed=False)
        rng = np.random.default_rng(0)

        # -- unary ---------------------------------------------------------------------------
        seed = [0]

        def new_episode() -> pb.EpisodeState:
            seed[0] += 1
            return client.reset(
                args.scenario, seed[0], controlled_sides=[spec.sides[0]], observation=opts
            )

        state = [new_episode()]
        payload = len(state[0].SerializeToString())

        def unary_step() -> int:
            s = state[0]
            legal = np.flatnonzero(np.frombuffer(s.action_mask, dtype=np.uint8))
            a = int(legal[rng.integers(len(legal))])
            s = client.step(s.episode_id, s.decision.decision_id, action_ids=[a])
            if not s.HasField("decision"):
                client.close_episode(s.episode_id)
                s = new_episode()  # counted in this call's latency, rarely
            state[0] = s
            return 1

        def echo(size: int) -> Callable[[], object]:
            req = pb.EchoRequest(payload=b"\x01" * size)
            return lambda: client.stub.Echo(req)

        def row(name: str, fn: Callable[[], int], size: int) -> None:
            """Measure ``fn`` interleaved with the echo of ``size`` bytes; add both rows."""
            calls, steps, lat, dt, floor = measure(fn, args.seconds, echo(size))
            rows.append((f"  echo {size} B", len(floor), 0, floor, float(np.sum(floor)), None))
            rows.append((name, calls, steps, lat, dt, float(np.median(floor))))

        row("unary step", unary_step, payload)
        client.close_episode(state[0].episode_id)

        # -- stream ping-pong (one Session, one episode, one request in flight) -------------
        if spec.capabilities.stream:
            with client.session() as sess:
                reset = pb.ResetRequest(
                    scenario=pb.Scenario(named=args.scenario),
                    seed=1,
                    controlled=pb.Controlled(sides=[spec.sides[0]]),
                    observation=opts,
                )
                cur = [sess.call(reset=reset).state]

                def stream_step() -> int:
                    s = cur[0]
                    legal = np.flatnonzero(np.frombuffer(s.action_mask, dtype=np.uint8))
                    a = int(legal[rng.integers(len(legal))])
                    req = pb.StepRequest(
                        episode_id=s.episode_id, decision_id=s.decision.decision_id, action_ids=[a]
                    )
                    s = sess.call(step=req).state
                    if not s.HasField("decision"):
                        sess.call(close=pb.CloseRequest(episode_id=s.episode_id))
                        reset.seed += 1
                        s = sess.call(reset=reset).state
                    cur[0] = s
                    return 1

                row("stream step", stream_step, payload)

        # -- batched -------------------------------------------------------------------------
        if spec.capabilities.batch:
            for width in args.batch:
                env = Pf1eVectorEnv(
                    width, address=address, scenario=args.scenario, controlled_sides=[spec.sides[0]]
                )
                obs, _ = env.reset(seed=width)

                def batch_step(
                    env: Pf1eVectorEnv = env,
                    width: int = width,
                    cur: list = [obs],  # noqa: B006
                ) -> int:
                    cur[0], *_ = env.step(random_legal(rng, cur[0]["action_mask"]))
                    return width

                # The echo payload: the size of a real StepBatch response of this width.
                batch_step()
                row(f"batch {width}", batch_step, env.last_batch_bytes)
                env.close()
        else:
            print("(the server has no StepBatch: batched rows skipped)")
        if spec.capabilities.batch and not args.no_adapters:
            adapters = adapter_rows(address, args.scenario, spec.sides[0], args.seconds)
        else:
            adapters = []
    finally:
        client.close()
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=20)

    print(
        f"server {address}, scenario {args.scenario}, {args.seconds:.1f} s per row; each row "
        "is measured call by call alternating with the echo above it"
    )
    print(f"{'what':<16}{'calls/s':>10}{'steps/s':>12}{'p50 µs':>10}{'p99 µs':>10}{'p50/echo':>10}")
    for name, calls, steps, lat, dt, floor_p50 in rows:
        p50, p99 = np.percentile(lat, [50, 99]) * 1e6
        ratio = f"{np.median(lat) / floor_p50:.2f}x" if floor_p50 else "1.00x"
        sps = f"{steps / dt:,.0f}" if steps else "-"
        print(f"{name:<16}{calls / dt:>10,.0f}{sps:>12}{p50:>10,.0f}{p99:>10,.0f}{ratio:>10}")
    if adapters:
        print(
            "adapters: env steps/s through each, and as a ratio of the raw Pf1eVectorEnv "
            "(NEXT_STEP) of the same width, measured alternately call by call"
        )
        print(f"{'adapter':<34}{'steps/s':>10}{'raw steps/s':>13}{'ratio':>8}")
        for name, sps, raw in adapters:
            print(f"{name:<34}{sps:>10,.0f}{raw:>13,.0f}{sps / raw:>7.2f}x")
    return 0


def adapter_rows(
    address: str, scenario: str, side: str, seconds: float
) -> list[tuple[str, float, float]]:
    """``(name, adapter steps/s, raw steps/s)`` per adapter, each measured alternately with
    a raw ``Pf1eVectorEnv`` of its width."""
    import gymnasium

    rng = np.random.default_rng(1)
    out: list[tuple[str, float, float]] = []
    kw = {"address": address, "scenario": scenario, "controlled_sides": [side]}

    def raw_stepper(width: int) -> tuple[Pf1eVectorEnv, Callable[[], object]]:
        raw = Pf1eVectorEnv(width, **kw)
        cur = [raw.reset(seed=width)[0]["action_mask"]]

        def step() -> object:
            cur[0] = raw.step(random_legal(rng, cur[0]))[0]["action_mask"]
            return None

        return raw, step

    def run(name: str, width: int, fn: Callable[[], int], close: Callable[[], None]) -> None:
        raw, raw_step = raw_stepper(width)
        try:
            _calls, steps, _lat, dt, floor = measure(fn, seconds, raw_step)
            out.append((name, steps / dt, width * len(floor) / float(np.sum(floor))))
        finally:
            raw.close()
            close()

    for mode in ("next_step", "same_step"):
        venv = gymnasium.make_vec(
            "pf1e_gym/SampleArena-v0", num_envs=256, autoreset_mode=mode, **kw
        )
        cur = [venv.reset(seed=7)[0]["action_mask"]]

        def gym_step(venv: object = venv, cur: list = cur) -> int:
            cur[0] = venv.step(random_legal(rng, cur[0]))[0]["action_mask"]  # type: ignore[attr-defined]
            return 256

        run(f"gymnasium make_vec {mode} x256", 256, gym_step, venv.close)
    try:
        from pf1e_gym.sb3 import Pf1eSB3VecEnv
    except ImportError as e:
        print(f"(no stable-baselines3: SB3 rows skipped: {e})")
        return out
    for width in (64, 256):
        env = Pf1eSB3VecEnv(width, seed=3, **kw)
        env.reset()

        def sb3_step(env: Pf1eSB3VecEnv = env, width: int = width) -> int:
            env.step_async(random_legal(rng, env.action_masks()))
            env.step_wait()
            return width

        run(f"Pf1eSB3VecEnv x{width}", width, sb3_step, env.close)
    return out


if __name__ == "__main__":
    sys.exit(main())
