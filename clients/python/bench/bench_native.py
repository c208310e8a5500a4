#!/usr/bin/env python3
"""Benchmark: the engine in process (``pf1e_gym.native``) against the gRPC vector env, the
server's in-process StepBatch and EnvPool's CartPole, in one run (not a test).

Rows (sample arena unless ``--scenario``; tensor observations; random legal actions drawn
outside the timed part; NEXT_STEP autoreset):

- ``native xN``: :class:`pf1e_gym.native.VectorEnv` (all cores; ``copy=True``, the default);
- ``grpc xN``: :class:`pf1e_gym.vector.Pf1eVectorEnv` over ``StepBatch`` to a release server
  started here (columnar batches);
- ``StepBatch in-process x256``: the server's own work per env step without transport
  (``env-server/examples/batch_timing.rs``, its release binary): the in-process floor of the
  gRPC path;
- ``envpool CartPole xN``: EnvPool (C++ thread pool) stepping CartPole-v1, the framework floor
  of an in-process vector env with a trivial game (skipped when ``envpool`` is not
  importable).

The rows are measured **interleaved**: ``--rounds`` rounds, each running every row for
``--seconds`` in turn, so that every row sees the same machine (a shared machine's speed
drifts within minutes); the table gives each row's median env steps/s over the rounds and the
ratios of the medians. Env steps/s counts the time inside ``step()`` only.

Usage::

    cargo build --release -p pf1e-env-server --bins --example batch_timing
    MATURIN_PEP517_ARGS="--profile release" pip install -e clients/python   # release extension
    python clients/python/bench/bench_native.py --seconds 3 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_steps import REPO, host_description, random_legal, start_server

from pf1e_gym import Pf1eVectorEnv, native


def proc_cpu(pid: int | None) -> float:
    """CPU seconds (user + system) of process ``pid`` so far (0 without one)."""
    if pid is None:
        return 0.0
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: CPU microseconds per env step of each row and round (this process and, for gRPC, the
#: server's): a cost that machine load changes far less than wall time.
CPU_US: dict[str, list[float]] = {}


def vector_row(
    make: Callable[[], object], seconds: float, name: str = "", server_pid: int | None = None
) -> Callable[[], float]:
    """A row stepping the vector env ``make()`` (kept across rounds) for ``seconds``; returns
    env steps/s of the time inside ``step()`` (and records its CPU µs per env step in
    :data:`CPU_US`: this process inside ``step()``, plus the server's over the row)."""
    state: dict[str, object] = {}

    def run() -> float:
        if "env" not in state:
            env = make()
            obs, _ = env.reset(seed=0)  # type: ignore[attr-defined]
            state.update(env=env, obs=obs, rng=np.random.default_rng(0))
        env, rng = state["env"], state["rng"]
        obs = state["obs"]
        inside = cpu = 0.0
        steps = 0
        server0 = proc_cpu(server_pid)
        t_end = time.perf_counter() + seconds
        while time.perf_counter() < t_end:
            masks = obs["action_mask"]  # type: ignore[index]
            acts = random_legal(rng, masks)  # type: ignore[arg-type]
            # Env steps: the slots that decide (not those being reset: NEXT_STEP ignores their
            # action), as batch_timing counts them.
            live = int(masks.any(axis=1).sum())
            c0, t0 = time.process_time(), time.perf_counter()
            obs, *_ = env.step(acts)  # type: ignore[attr-defined]
            inside += time.perf_counter() - t0
            cpu += time.process_time() - c0
            steps += live
        cpu += proc_cpu(server_pid) - server0
        CPU_US.setdefault(name, []).append(cpu / steps * 1e6)
        state["obs"] = obs
        return steps / inside

    run.close = lambda: state.get("env") and state["env"].close()  # type: ignore[attr-defined]
    return run


def envpool_row(n: int, seconds: float) -> Callable[[], float] | None:
    try:
        import envpool
    except ImportError:
        return None
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=n)
    env.reset()
    acts = np.zeros(n, dtype=np.int32)

    def run() -> float:
        steps, inside = 0, 0.0
        c0 = time.process_time()
        t_end = time.perf_counter() + seconds
        while time.perf_counter() < t_end:
            t0 = time.perf_counter()
            env.step(acts)
            inside += time.perf_counter() - t0
            steps += n
        CPU_US.setdefault(f"envpool CartPole x{n}", []).append(
            (time.process_time() - c0) / steps * 1e6
        )
        return steps / inside

    return run


def stepbatch_row(binary: pathlib.Path, seconds: float) -> Callable[[], float]:
    """The ``batch_timing`` example for about ``seconds`` (its batch count from the last run's
    rate)."""
    batches = [20]

    def run() -> float:
        import resource

        c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run(
            [str(binary)],
            capture_output=True,
            text=True,
            check=True,
            env=dict(os.environ, BATCHES=str(batches[0])),
        )
        m = re.search(r"([\d.]+) env steps/s, ([\d.]+) ms per batch", out.stdout)
        if not m:
            raise SystemExit(f"batch_timing printed {out.stdout!r}")
        rate, ms = float(m.group(1)), float(m.group(2))
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime
        steps = re.search(r"env steps (\d+)", out.stdout)
        # Its 20 warm-up batches and first resets count too (a slight overestimate).
        if steps:
            CPU_US.setdefault("StepBatch in-process x256", []).append(
                cpu / int(steps.group(1)) * 1e6 * batches[0] / (batches[0] + 21)
            )
        batches[0] = max(5, int(seconds * 1000 / ms))
        return rate

    return run


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=3.0, help="per row and round")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--scenario", default="sample_arena")
    p.add_argument("--widths", default="64,256")
    p.add_argument("--address", help="a running release server (default: start one)")
    p.add_argument(
        "--batch-timing",
        default=str(REPO / "target" / "release" / "examples" / "batch_timing"),
        help="the batch_timing example binary ('' to skip)",
    )
    args = p.parse_args(argv)
    widths = [int(w) for w in args.widths.split(",")]
    print(f"host: {host_description()}; load average {os.getloadavg()[0]:.1f}")
    proc, address = None, args.address
    if address is None:
        binary = pathlib.Path(
            os.environ.get(
                "PF1E_SERVER_BIN_RELEASE", REPO / "target" / "release" / "pf1e-env-server"
            )
        )
        if not binary.is_file():
            raise SystemExit(f"{binary} not found: cargo build --release -p pf1e-env-server")
        proc, address = start_server(binary)
    data = str(REPO / "data")
    rows: dict[str, Callable[[], float]] = {}
    for n in widths:
        rows[f"native x{n}"] = vector_row(
            lambda n=n: native.VectorEnv(n, args.scenario, data_dir=data),
            args.seconds,
            f"native x{n}",
        )
    for n in widths:
        rows[f"grpc x{n}"] = vector_row(
            lambda n=n: Pf1eVectorEnv(n, address, args.scenario),
            args.seconds,
            f"grpc x{n}",
            None if proc is None else proc.pid,
        )
    bt = pathlib.Path(args.batch_timing) if args.batch_timing else None
    if bt is not None and bt.is_file() and args.scenario == "sample_arena":
        rows["StepBatch in-process x256"] = stepbatch_row(bt, args.seconds)
    else:
        print(f"StepBatch in-process: skipped ({bt} not found, or not the sample arena)")
    for n in widths:
        row = envpool_row(n, args.seconds)
        if row is None:
            print("envpool: not importable (pip install envpool): CartPole rows skipped")
            break
        rows[f"envpool CartPole x{n}"] = row
    rates: dict[str, list[float]] = {k: [] for k in rows}
    try:
        for r in range(args.rounds):
            for name, fn in rows.items():
                rates[name].append(fn())
            print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:,.0f}" for k, v in rates.items()))
    finally:
        for fn in rows.values():
            close = getattr(fn, "close", None)
            if close:
                close()
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
    med = {k: statistics.median(v) for k, v in rates.items()}
    cpu = {k: statistics.median(v) for k, v in CPU_US.items()}
    print(f"\n| row | env steps/s (median of {args.rounds}) | min | max | CPU µs/env step |")
    print("|---|---:|---:|---:|---:|")
    for k, v in rates.items():
        c = f"{cpu[k]:,.1f}" if k in cpu else "n/a"
        print(f"| {k} | {med[k]:,.0f} | {min(v):,.0f} | {max(v):,.0f} | {c} |")
    print("\n| ratio | value |")
    print("|---|---:|")
    for n in widths:
        if f"grpc x{n}" in med:
            print(f"| native x{n} / grpc x{n} | {med[f'native x{n}'] / med[f'grpc x{n}']:.2f} |")
    sb = med.get("StepBatch in-process x256")
    if sb and "native x256" in med:
        print(f"| native x256 / StepBatch in-process x256 | {med['native x256'] / sb:.2f} |")
    print("\nCPU cost ratios (µs per env step, load-independent-ish; gRPC: client + server):")
    for n in widths:
        a, b = cpu.get(f"grpc x{n}"), cpu.get(f"native x{n}")
        if a and b:
            print(f"| grpc x{n} CPU / native x{n} CPU | {a / b:.2f} |")
    sbc, nc = cpu.get("StepBatch in-process x256"), cpu.get("native x256")
    if sbc and nc:
        print(f"| StepBatch in-process x256 CPU / native x256 CPU | {sbc / nc:.2f} |")
    for n in widths:
        ep = med.get(f"envpool CartPole x{n}")
        if ep:
            print(f"| native x{n} / envpool CartPole x{n} | {med[f'native x{n}'] / ep:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
