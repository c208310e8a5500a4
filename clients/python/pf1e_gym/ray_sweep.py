"""Fan a position sweep out over several ``pf1e-env-server`` replicas with Ray.

A sweep's placements are independent and their results are integer counts, so a sweep splits
exactly: each server plays a subset of the placements (``Evaluate`` in mode PARTIAL), and one
server assembles the report from all the partial results (mode ASSEMBLE) with the same Rust
code as a single ``Evaluate`` call or ``pf1e-sim sweep`` — the merged report is byte for byte
the single-server one, whatever the split.

:func:`ray_sweep` does it with one Ray task per chunk of placements::

    import pathlib, ray
    from pf1e_gym.ray_sweep import ray_sweep

    ray.init()                                  # or ray.init(address="auto") on a cluster
    report = ray_sweep(
        pathlib.Path("data/sweeps/sample_arena_archer.yaml"),
        ["10.0.0.1:50051", "10.0.0.2:50051"],   # pf1e-env-server replicas, same data dir
        runs=1000,
    )
    print(report.text or report.csv)

1. One server returns the plan (``EVALUATE_MODE_PLAN``): the number of placements.
2. The placement indices ``0 .. n-1`` are cut into ``chunks`` contiguous ranges (default: one
   per server); chunk *i* goes to server ``i mod len(addresses)``.
3. One Ray task per chunk calls ``Evaluate`` (PARTIAL) on its server and returns the
   serialized ``SweepPlacementResult`` messages. A server that is unreachable (UNAVAILABLE) or
   busy (RESOURCE_EXHAUSTED: it runs ``--max-evaluations`` sweeps already) is retried, then
   the chunk moves on to the next server: results do not depend on which server plays them.
4. ``assemble_address`` (default: the first server) builds the report from every result.

Every server must load the same data (the spec's scenario, map and monsters) and run the same
version: each result carries the plan's fingerprint and ASSEMBLE refuses results of another
plan (INVALID_ARGUMENT on ``results[i].plan_fingerprint``). The tasks only wait on gRPC — the
servers do the combats — so they ask Ray for no CPU by default (``task_options`` overrides,
e.g. ``{"num_cpus": 1}`` or a ``scheduling_strategy``). On a multi-node cluster,
``pf1e_gym`` must be importable on every node (installed, or via a ``runtime_env``).

Ray is an optional dependency: ``pip install './clients/python[ray]'``.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Sequence
from typing import Any

import grpc

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import Pf1eClient, SweepSpecSource

__all__ = ["play_chunk", "ray_sweep", "split_placements"]

RETRY_CODES = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED)
"""Status codes on which a chunk is retried (then moved to the next server)."""


def _import_ray() -> Any:
    try:
        return importlib.import_module("ray")
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "pf1e_gym.ray_sweep needs Ray: pip install 'pf1e-gym[ray]' "
            "(from the repository: pip install './clients/python[ray]')"
        ) from e


def split_placements(n: int, chunks: int) -> list[list[int]]:
    """``0 .. n-1`` cut into ``min(chunks, n)`` contiguous ranges of near-equal sizes (the
    first ones one longer), in order. ``n = 0`` gives no chunk."""
    if n < 0 or chunks < 1:
        raise ValueError(f"need n >= 0 and chunks >= 1 (got n={n}, chunks={chunks})")
    chunks = min(chunks, n)
    out: list[list[int]] = []
    start = 0
    for i in range(chunks):
        size = n // chunks + (1 if i < n % chunks else 0)
        out.append(list(range(start, start + size)))
        start += size
    return out


def play_chunk(
    addresses: Sequence[str],
    spec_text: str,
    origin: str,
    runs: int | None,
    seed: int | None,
    placements: Sequence[int],
    timeout: float | None = None,
    attempts: int = 8,
    backoff: float = 0.25,
) -> list[bytes]:
    """Play ``placements`` (``Evaluate``, mode PARTIAL) on the first server of ``addresses``
    that accepts them; returns the serialized ``SweepPlacementResult`` messages, in order.

    This is the body of the Ray task; it needs no Ray itself. On UNAVAILABLE or
    RESOURCE_EXHAUSTED it tries the next address (cyclically), sleeping ``backoff`` seconds,
    doubled after every full round (at most 5 s), for ``attempts`` calls in all; any other
    error is raised at once (a bad spec fails the same on every server).
    """
    if not addresses:
        raise ValueError("no server address")
    last: grpc.RpcError | None = None
    delay = backoff
    for attempt in range(attempts):
        address = addresses[attempt % len(addresses)]
        try:
            with Pf1eClient(address) as client:
                results = client.evaluate(
                    spec_text,
                    runs=runs,
                    seed=seed,
                    placements=placements,
                    origin=origin,
                    timeout=timeout,
                )
            return [r.SerializeToString() for r in results]
        except grpc.RpcError as e:
            if e.code() not in RETRY_CODES:
                raise
            last = e
            if (attempt + 1) % len(addresses) == 0:
                time.sleep(delay)
                delay = min(delay * 2, 5.0)
    assert last is not None
    raise last


def ray_sweep(
    spec: SweepSpecSource,
    addresses: Sequence[str],
    *,
    runs: int | None = None,
    seed: int | None = None,
    origin: str | None = None,
    chunks: int | None = None,
    assemble_address: str | None = None,
    heatmaps: bool = False,
    text: bool = False,
    timeout: float | None = None,
    task_options: dict[str, Any] | None = None,
) -> pb.SweepReport:
    """Evaluate a position sweep across ``addresses`` (``pf1e-env-server`` replicas) with Ray
    tasks, and return the assembled report (``pb.SweepReport``: ``json``, ``csv``, typed
    ``placements`` and ``cell_stats``, and ``text`` / PNG heatmaps when asked).

    The report equals ``Pf1eClient(address).evaluate(spec, runs, seed, origin=origin)`` on any
    one of the servers, exactly (same JSON bytes), whatever ``chunks`` is.

    Args:
        spec: the sweep spec's text, or a ``pathlib.Path`` read here (the servers never open a
            client's path); for a path, ``origin`` defaults to it, as ``pf1e-sim sweep PATH``.
        addresses: ``host:port`` of each server; chunk *i* starts on ``addresses[i % len]``.
        runs, seed: override the spec's ``runs`` and ``seed``.
        origin: the spec's label in the report (default: the path, else ``spec``).
        chunks: number of Ray tasks (default: one per server; more chunks balance uneven
            servers, each server playing at most ``--max-evaluations`` of them at once).
        assemble_address: the server that assembles the report (default ``addresses[0]``).
        heatmaps, text: as :meth:`Pf1eClient.evaluate`.
        timeout: deadline of each ``Evaluate`` call, in seconds (``None``: none).
        task_options: options of the Ray tasks (``.options(**task_options)``); default
            ``{"num_cpus": 0}``.

    Uses the current Ray connection (``ray.init`` is called with defaults when none is open,
    which starts a local cluster).

    Raises:
        ImportError: Ray is not installed.
        grpc.RpcError: a server refused the spec (INVALID_ARGUMENT naming the field…), or a
            chunk found no server after its retries.
    """
    ray = _import_ray()
    addresses = list(addresses)
    if not addresses:
        raise ValueError("addresses: give at least one pf1e-env-server address")
    if isinstance(spec, os.PathLike):
        path = os.fspath(spec)
        with open(path, encoding="utf-8") as f:
            spec_text = f.read()
        if origin is None:
            origin = path
    else:
        spec_text = spec
    origin = origin or ""
    coordinator = assemble_address or addresses[0]

    with Pf1eClient(coordinator) as client:
        plan = client.evaluate_plan(spec_text, runs, seed, origin=origin or None)
    parts = split_placements(plan.placements, chunks or len(addresses))

    if not ray.is_initialized():
        ray.init()
    task = ray.remote(play_chunk).options(**(task_options or {"num_cpus": 0}))
    refs = []
    for i, part in enumerate(parts):
        # Start on server i mod len, then the others in turn (failover).
        order = addresses[i % len(addresses) :] + addresses[: i % len(addresses)]
        refs.append(task.remote(order, spec_text, origin, runs, seed, part, timeout))
    results: list[pb.SweepPlacementResult] = []
    for chunk in ray.get(refs):
        results.extend(pb.SweepPlacementResult.FromString(b) for b in chunk)

    with Pf1eClient(coordinator) as client:
        return client.assemble(
            spec_text,
            results,
            runs,
            seed,
            origin=origin or None,
            heatmaps=heatmaps,
            text=text,
            timeout=timeout,
        )
