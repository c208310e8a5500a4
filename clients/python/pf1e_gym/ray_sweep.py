"""Fan a position sweep out over several ``pf1e-env-server`` replicas with Ray.

A sweep's placements are independent and their results are integer counts, so a sweep splits
exactly: each server plays a subset of the placements (``Evaluate`` in mode PARTIAL), and one
server assembles the report from all the partial results (mode ASSEMBLE) with the same Rust
code as a single ``Evaluate`` call or ``pf1e-sim sweep`` — the merged report is byte for byte
the single-server one, whatever the split and whichever servers play which chunk.

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

1. ``PLAN`` (``assemble_address``, default the first server; then the others in turn): the
   number of placements, cut into ``chunks`` contiguous ranges (default: one per server).
2. A Ray task per server asks its ``Stats``: ``max_evaluations`` is the server's capacity
   (``--max-evaluations``). The driver then hands the chunks out, at most *capacity* in
   flight per server (a ``ray.wait`` loop: a chunk that finishes frees a slot for the next
   one), so the chunks of the sweep never compete for a server's slots: extra chunks queue
   in the driver, however long the chunks are.
3. Each chunk is one Ray task (:func:`play_chunk`) calling ``Evaluate`` (PARTIAL) on its
   server; it returns the serialized ``SweepPlacementResult`` messages. When the task fails:

   * ``RESOURCE_EXHAUSTED`` before the server started the chunk (its slots are taken by
     calls from outside this sweep): the chunk goes back to the queue and that server gets
     no new chunk for a backoff delay (``backoff`` seconds, doubled on each refusal up to
     ``max_backoff``, reset when it admits a chunk); the chunk may start on any server;
   * ``UNAVAILABLE`` (unreachable, shutting down, connection lost, or no answer: see
     ``keepalive`` and ``connect_timeout``): the chunk goes back to the queue and the server
     is left out until a ``Stats`` probe succeeds again (probes spaced by the same kind of
     backoff, at most 10 s apart): the chunk is replayed elsewhere — results do not depend
     on which server plays them;
   * anything else (``INVALID_ARGUMENT`` naming the field, ``OUT_OF_RANGE``,
     ``DEADLINE_EXCEEDED`` of ``timeout``…) fails the sweep: the other tasks are cancelled
     (which cancels their calls) and :class:`SweepServerError` is raised.

   There is no attempt limit: the sweep fails only when no chunk of it is in flight and
   none has been admitted by any server for ``retry_timeout`` seconds (default 300; ``None``
   waits forever), with the last error.
4. ``ASSEMBLE`` builds the report from every result (``assemble_address``, then the other
   servers in turn).

``PLAN`` and ``ASSEMBLE`` run in the caller's process with the same rules: an unreachable or
busy server is skipped for the next one, and after a full round the round starts again after
a backoff, until ``retry_timeout``.

A frozen server (stopped process, dead host, cut network) is noticed by gRPC keepalive
pings: every ``keepalive`` seconds the client pings, and a connection whose ping is not
answered within ``keepalive`` seconds is closed (``UNAVAILABLE``); a new connection must
answer a ``Stats`` call within ``connect_timeout`` seconds. So a chunk on a server that
freezes is replayed on another one after about twice ``keepalive`` seconds.

Errors raised here are :class:`SweepServerError` (picklable, unlike ``grpc.RpcError``: it
crosses the Ray task boundary, and the Ray wrapper ``RayTaskError`` is removed before it
reaches the caller), with ``.code`` (the ``grpc.StatusCode`` name), ``.details`` and
``.address``. Retries and failovers are logged (logger ``pf1e_gym.ray_sweep``, INFO and
WARNING).

Every server must load the same data (the spec's scenario, map and monsters) and run the same
version: each result carries the plan's fingerprint and ASSEMBLE refuses results of another
plan (INVALID_ARGUMENT on ``results[i].plan_fingerprint``). The tasks only wait on gRPC — the
servers do the combats — so they ask Ray for no CPU by default (``task_options`` overrides,
e.g. ``{"num_cpus": 1}`` or a ``scheduling_strategy``). On a multi-node cluster,
``pf1e_gym`` must be importable on every node (installed, or via a ``runtime_env``).

Ray is an optional dependency: ``pip install './clients/python[ray]'``.
"""

from __future__ import annotations

import collections
import importlib
import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import Pf1eClient, SweepSpecSource

__all__ = [
    "SweepServerError",
    "channel_options",
    "play_chunk",
    "ray_sweep",
    "server_capacity",
    "split_placements",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_KEEPALIVE = 5.0
"""Seconds between keepalive pings, and to wait for a ping's answer."""
DEFAULT_CONNECT_TIMEOUT = 10.0
"""Seconds a server has to answer ``Stats`` on a new connection."""
DEFAULT_RETRY_TIMEOUT = 300.0
"""Seconds without any server admitting work of the sweep before it fails."""
MAX_PROBE_DELAY = 10.0
"""Longest wait between two probes of an unreachable server, in seconds."""

_BUSY = "RESOURCE_EXHAUSTED"
_DOWN = "UNAVAILABLE"
# RESOURCE_EXHAUSTED that is not "every evaluation slot is taken": a message over a size
# limit (servers before OUT_OF_RANGE, or the client's receive limit). Retrying cannot help.
_TOO_LARGE_HINTS = ("--max-message-bytes", "larger than max")


class SweepServerError(RuntimeError):
    """A server's error in a sweep (or the client's verdict on a server), as a picklable
    exception: unlike ``grpc.RpcError`` it crosses a Ray task's boundary.

    Attributes:
        code: name of the ``grpc.StatusCode`` (``"INVALID_ARGUMENT"``, ``"UNAVAILABLE"``…);
            a server that does not answer in time is ``"UNAVAILABLE"``.
        details: the server's message (it names the request field at fault), or why the
            client gave up on the server.
        address: the server's ``host:port``.
        started: whether the server had started to play the chunk (sent a progress message)
            before the error.
    """

    def __init__(self, code: str, details: str, address: str, started: bool = False) -> None:
        super().__init__(f"{code} from {address}: {details}")
        self.code = code
        self.details = details
        self.address = address
        self.started = started

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.code, self.details, self.address, self.started))

    @property
    def status_code(self) -> grpc.StatusCode:
        """:attr:`code` as a ``grpc.StatusCode``."""
        return grpc.StatusCode[self.code]

    @classmethod
    def from_rpc(cls, err: grpc.RpcError, address: str, started: bool = False) -> SweepServerError:
        """The error of a failed gRPC call (``err.code()``, ``err.details()``)."""
        code = err.code() if callable(getattr(err, "code", None)) else None
        details = err.details() if callable(getattr(err, "details", None)) else None
        name = code.name if isinstance(code, grpc.StatusCode) else "UNKNOWN"
        return cls(name, str(details if details is not None else err), address, started)


def _is_busy(err: SweepServerError) -> bool:
    """Every evaluation slot of the server is taken (retry later); not a size limit."""
    return (
        err.code == _BUSY
        and not err.started
        and not any(h in err.details for h in _TOO_LARGE_HINTS)
    )


def _is_down(err: SweepServerError) -> bool:
    return err.code == _DOWN


def channel_options(keepalive: float | None = DEFAULT_KEEPALIVE) -> list[tuple[str, int]]:
    """gRPC channel options that close a connection whose peer stopped answering: a ping
    every ``keepalive`` seconds (with or without calls), and ``UNAVAILABLE`` when one is not
    answered within ``keepalive`` seconds. ``None``: no option (gRPC's defaults: no
    keepalive)."""
    if keepalive is None:
        return []
    if keepalive <= 0:
        raise ValueError(f"keepalive must be > 0 seconds (got {keepalive})")
    ms = max(1, round(keepalive * 1000))
    return [
        ("grpc.keepalive_time_ms", ms),
        ("grpc.keepalive_timeout_ms", ms),
        # gRPC also times pings out with its own ping timeout (1 minute by default).
        ("grpc.http2.ping_timeout_ms", ms),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.max_pings_without_data", 0),
    ]


CLIENT_OPTIONS = ("token", "tls", "root_certificates", "client_cert", "client_key")
"""The keys of ``client_options``: :class:`Pf1eClient`'s connection arguments."""


def check_client_options(client_options: Mapping[str, Any] | None) -> dict[str, Any]:
    """``client_options`` as a dict (``{}`` for ``None``); raises ``ValueError`` naming a key
    that is not one of :data:`CLIENT_OPTIONS`."""
    opts = dict(client_options or {})
    for key in opts:
        if key not in CLIENT_OPTIONS:
            raise ValueError(
                f"client_options: unknown key {key!r} (known: {', '.join(CLIENT_OPTIONS)})"
            )
    return opts


def _connect(
    address: str,
    keepalive: float | None,
    connect_timeout: float,
    client_options: Mapping[str, Any] | None = None,
) -> tuple[Pf1eClient, pb.StatsResponse]:
    """A client of ``address`` whose server answered ``Stats`` within ``connect_timeout``
    (a new connection to a frozen server would otherwise wait for gRPC's own connection
    deadline, 20 s or more), and that answer; raises :class:`SweepServerError`.
    ``client_options``: token / TLS arguments of :class:`Pf1eClient`."""
    client = Pf1eClient(
        address, options=channel_options(keepalive), **check_client_options(client_options)
    )
    try:
        stats = client.stub.Stats(pb.StatsRequest(), timeout=connect_timeout)
    except grpc.RpcError as e:
        client.close()
        err = SweepServerError.from_rpc(e, address)
        if err.code == "DEADLINE_EXCEEDED":
            err = SweepServerError(
                _DOWN, f"no answer to Stats within {connect_timeout:g} s", address
            )
        raise err from None
    except BaseException:
        client.close()
        raise
    return client, stats


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


def server_capacity(
    address: str,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    keepalive: float | None = DEFAULT_KEEPALIVE,
    client_options: Mapping[str, Any] | None = None,
) -> int:
    """How many ``Evaluate`` calls the server admits at once (``Stats.max_evaluations``,
    at least 1). The body of :func:`ray_sweep`'s probe tasks.

    Raises:
        SweepServerError: the server did not answer (``UNAVAILABLE``) or refused.
    """
    client, stats = _connect(address, keepalive, connect_timeout, client_options)
    client.close()
    return max(1, int(stats.max_evaluations))


def play_chunk(
    address: str,
    spec_text: str,
    origin: str,
    runs: int | None,
    seed: int | None,
    placements: Sequence[int],
    timeout: float | None = None,
    *,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    keepalive: float | None = DEFAULT_KEEPALIVE,
    client_options: Mapping[str, Any] | None = None,
) -> list[bytes]:
    """Play ``placements`` (``Evaluate``, mode PARTIAL) on the server at ``address``, once;
    returns the serialized ``SweepPlacementResult`` messages, in order.

    This is the body of :func:`ray_sweep`'s chunk tasks; it needs no Ray itself, and does not
    retry (the driver decides where a failed chunk goes next).

    Args:
        timeout: deadline of the ``Evaluate`` call, in seconds (``None``: none).
        connect_timeout: seconds the server has to answer ``Stats`` first.
        keepalive: see :func:`channel_options`.
        client_options: token / TLS arguments of :class:`Pf1eClient` (see :func:`ray_sweep`).

    Raises:
        SweepServerError: any gRPC error (``.started`` tells whether the server had begun to
            play), ``UNAVAILABLE`` for a server that does not answer in time.
    """
    started = False

    def on_progress(_p: pb.EvaluateProgress) -> None:
        nonlocal started
        started = True

    client, _ = _connect(address, keepalive, connect_timeout, client_options)
    try:
        results = client.evaluate(
            spec_text,
            runs=runs,
            seed=seed,
            placements=placements,
            on_progress=on_progress,
            origin=origin or None,
            timeout=timeout,
        )
    except grpc.RpcError as e:
        raise SweepServerError.from_rpc(e, address, started) from None
    finally:
        client.close()
    return [r.SerializeToString() for r in results]


def _call_in_turn(
    what: str,
    addresses: Sequence[str],
    call: Callable[[Pf1eClient], T],
    *,
    connect_timeout: float,
    keepalive: float | None,
    client_options: Mapping[str, Any] | None,
    retry_timeout: float | None,
    backoff: float,
    max_backoff: float,
) -> T:
    """``call`` on the first of ``addresses`` that takes it, in the caller's process: an
    unreachable or busy server is skipped for the next one; after a round where every server
    was, the round starts again after a backoff, until ``retry_timeout``."""
    t0 = time.monotonic()
    delay = backoff
    while True:
        last: SweepServerError | None = None
        for address in addresses:
            try:
                client, _ = _connect(address, keepalive, connect_timeout, client_options)
                try:
                    return call(client)
                except grpc.RpcError as e:
                    raise SweepServerError.from_rpc(e, address) from None
                finally:
                    client.close()
            except SweepServerError as e:
                if not (_is_busy(e) or _is_down(e)):
                    raise
                log.info("%s: %s; trying the next server", what, e)
                last = e
        assert last is not None
        if retry_timeout is not None and time.monotonic() - t0 + delay > retry_timeout:
            raise last
        log.info("%s: every server busy or unreachable; next round in %.2f s", what, delay)
        time.sleep(delay)
        delay = min(delay * 2, max_backoff)


@dataclass
class _Server:
    """What the driver knows of one server."""

    address: str
    capacity: int = 0  # Stats.max_evaluations; 0 until a probe answered
    in_flight: int = 0  # chunks of ours on it now
    probing: bool = False  # a probe task is in flight
    up: bool = False  # the last probe answered and no chunk found it unreachable since
    probe_at: float = 0.0  # when not up: time of the next probe
    probe_delay: float = 0.0
    busy_until: float = 0.0  # up but refusing (outside load): no new chunk before this
    busy_delay: float = 0.0

    def free(self, now: float) -> int:
        if not self.up or now < self.busy_until:
            return 0
        return max(0, self.capacity - self.in_flight)


def _unwrap(ray: Any, err: BaseException) -> BaseException:
    """The exception raised inside a Ray task, without Ray's ``RayTaskError`` wrapper."""
    if isinstance(err, ray.exceptions.RayTaskError):
        cause = getattr(err, "cause", None)
        if isinstance(cause, BaseException):
            return cause
    return err


def _play_all(
    ray: Any,
    servers: list[_Server],
    parts: list[list[int]],
    launch_chunk: Callable[[str, list[int]], Any],
    launch_probe: Callable[[str], Any],
    *,
    retry_timeout: float | None,
    backoff: float,
    max_backoff: float,
) -> list[list[bytes]]:
    """The driver's scheduling loop (see the module documentation, steps 2 and 3): the
    results of every chunk, in chunk order. ``launch_chunk(address, placements)`` and
    ``launch_probe(address)`` start the Ray tasks and return their object refs."""
    results: list[list[bytes] | None] = [None] * len(parts)
    pending: collections.deque[int] = collections.deque(range(len(parts)))
    # ref -> ("probe", server, -1) or ("chunk", server, chunk)
    refs: dict[Any, tuple[str, int, int]] = {}
    stalled_since: float | None = None
    last_error: SweepServerError | None = None
    for s in servers:
        s.probe_delay = backoff
        s.busy_delay = backoff

    def down(s: _Server, now: float) -> None:
        s.up = False
        s.probe_at = now + s.probe_delay
        s.probe_delay = min(s.probe_delay * 2, MAX_PROBE_DELAY)

    try:
        while pending or any(kind == "chunk" for kind, _, _ in refs.values()):
            now = time.monotonic()
            for si, s in enumerate(servers):
                if not s.up and not s.probing and now >= s.probe_at:
                    s.probing = True
                    refs[launch_probe(s.address)] = ("probe", si, -1)
            while pending:
                si = max(range(len(servers)), key=lambda i: (servers[i].free(now), -i))
                if servers[si].free(now) == 0:
                    break
                ci = pending.popleft()
                servers[si].in_flight += 1
                refs[launch_chunk(servers[si].address, parts[ci])] = ("chunk", si, ci)
            chunks_in_flight = sum(kind == "chunk" for kind, _, _ in refs.values())
            if pending and chunks_in_flight == 0:
                if stalled_since is None:
                    stalled_since = now
                elif retry_timeout is not None and now - stalled_since > retry_timeout:
                    raise last_error or SweepServerError(
                        _DOWN,
                        f"no server admitted a chunk for {retry_timeout:g} s",
                        ", ".join(s.address for s in servers),
                    )
            # Sleep until a task ends or the next timed event (a probe, a busy server's
            # backoff, the stall deadline), whichever comes first.
            events = [s.probe_at for s in servers if not s.up and not s.probing]
            events += [s.busy_until for s in servers if s.up and s.busy_until > now]
            if stalled_since is not None and retry_timeout is not None:
                events.append(stalled_since + retry_timeout + 0.01)
            wait = max(0.01, min(events) - now) if events else None
            if not refs:
                time.sleep(wait if wait is not None else backoff)
                continue
            ready, _ = ray.wait(list(refs), num_returns=1, timeout=wait)
            for ref in ready:
                kind, si, ci = refs.pop(ref)
                s = servers[si]
                now = time.monotonic()
                try:
                    value = ray.get(ref)
                except Exception as raw:
                    e = _unwrap(ray, raw)
                    if not isinstance(e, SweepServerError):
                        raise  # a bug, not a server's answer: Ray's traceback helps
                    error: SweepServerError | None = e
                else:
                    error = None
                if kind == "probe":
                    s.probing = False
                    if error is None:
                        s.capacity, s.up = int(value), True
                        log.info("%s: %d evaluation slot(s)", s.address, s.capacity)
                    else:
                        last_error = error
                        down(s, now)
                        log.warning(
                            "%s: probe failed (%s); next in %.2f s",
                            s.address,
                            error,
                            s.probe_at - now,
                        )
                    continue
                s.in_flight -= 1
                if error is None:
                    results[ci] = value
                    stalled_since = None
                    s.busy_delay = backoff
                    s.probe_delay = backoff
                    continue
                if error.started:
                    stalled_since = None  # it was admitted: the sweep was moving
                if _is_busy(error):
                    s.busy_until = now + s.busy_delay
                    log.info(
                        "chunk %d: %s; server busy for %.2f s, chunk requeued",
                        ci,
                        error,
                        s.busy_delay,
                    )
                    s.busy_delay = min(s.busy_delay * 2, max_backoff)
                elif _is_down(error):
                    if s.up:
                        down(s, now)
                    log.warning("chunk %d: %s; server left out, chunk requeued", ci, error)
                else:
                    raise error
                last_error = error
                pending.appendleft(ci)
    except BaseException:
        for ref in refs:
            try:
                ray.cancel(ref)
            except Exception:  # pragma: no cover - best effort
                pass
        raise
    for ref in refs:  # probes still in flight: nobody waits for them
        ray.cancel(ref)
    done = [r for r in results if r is not None]
    assert len(done) == len(parts)
    return done


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
    keepalive: float | None = DEFAULT_KEEPALIVE,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    retry_timeout: float | None = DEFAULT_RETRY_TIMEOUT,
    backoff: float = 0.25,
    max_backoff: float = 5.0,
    client_options: Mapping[str, Any] | None = None,
) -> pb.SweepReport:
    """Evaluate a position sweep across ``addresses`` (``pf1e-env-server`` replicas) with Ray
    tasks, and return the assembled report (``pb.SweepReport``: ``json``, ``csv``, typed
    ``placements`` and ``cell_stats``, and ``text`` / PNG heatmaps when asked).

    The report equals ``Pf1eClient(address).evaluate(spec, runs, seed, origin=origin)`` on any
    one of the servers, exactly (same JSON bytes), whatever ``chunks`` is and wherever the
    chunks were played (see the module documentation for the scheduling and the retries).

    Args:
        spec: the sweep spec's text, or a ``pathlib.Path`` read here (the servers never open a
            client's path); for a path, ``origin`` defaults to it, as ``pf1e-sim sweep PATH``.
        addresses: ``host:port`` of each server.
        runs, seed: override the spec's ``runs`` and ``seed``.
        origin: the spec's label in the report (default: the path, else ``spec``).
        chunks: number of chunks, one Ray task each (default: one per server). Each server
            plays at most its ``--max-evaluations`` of them at once; the others wait in the
            driver until a slot frees. More chunks balance uneven servers.
        assemble_address: the server tried first for PLAN and ASSEMBLE (default
            ``addresses[0]``); the others follow in turn when it is busy or unreachable.
        heatmaps, text: as :meth:`Pf1eClient.evaluate`.
        timeout: deadline of each ``Evaluate`` call, in seconds (``None``: none). Expiring
            fails the sweep (``DEADLINE_EXCEEDED``).
        task_options: options of the Ray tasks (``.options(**task_options)``); default
            ``{"num_cpus": 0}``.
        keepalive: seconds between keepalive pings and to wait for their answer (a server
            that stops answering is left out after about twice this); ``None``: gRPC's
            defaults (no keepalive: a frozen server may hang its chunk forever).
        connect_timeout: seconds a server has to answer ``Stats`` on each new connection.
        retry_timeout: the sweep fails (with the last error) when, for this many seconds, no
            chunk is in flight and no server admits one (all busy or unreachable), or PLAN /
            ASSEMBLE found every server busy or unreachable; ``None``: wait forever.
        backoff, max_backoff: first and longest delay before a busy server gets a chunk
            again, or before the next round of PLAN / ASSEMBLE, in seconds (doubling).
        client_options: how to connect to every server: :class:`Pf1eClient`'s ``token``,
            ``tls``, ``root_certificates``, ``client_cert``, ``client_key`` (PEM bytes travel
            to the Ray tasks as they are; paths are opened where the task runs, and so are
            ``$PF1E_TOKEN`` / ``$PF1E_TLS_ROOTS`` when a key is not given).

    Uses the current Ray connection (``ray.init`` is called with defaults when none is open,
    which starts a local cluster).

    Raises:
        ImportError: Ray is not installed.
        SweepServerError: a server refused the request (``.code`` ``"INVALID_ARGUMENT"``,
            ``.details`` naming the field…, ``.address`` the server), or no server admitted
            work for ``retry_timeout`` seconds (``"UNAVAILABLE"`` or
            ``"RESOURCE_EXHAUSTED"``).
    """
    client_options = check_client_options(client_options)
    ray = _import_ray()
    addresses = list(dict.fromkeys(addresses))
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
    coordinators = list(dict.fromkeys([assemble_address or addresses[0], *addresses]))
    retry: dict[str, Any] = {
        "connect_timeout": connect_timeout,
        "keepalive": keepalive,
        "client_options": client_options,
        "retry_timeout": retry_timeout,
        "backoff": backoff,
        "max_backoff": max_backoff,
    }

    plan = _call_in_turn(
        "PLAN",
        coordinators,
        lambda c: c.evaluate_plan(spec_text, runs, seed, origin=origin or None, timeout=timeout),
        **retry,
    )
    parts = split_placements(plan.placements, chunks or len(addresses))

    if not ray.is_initialized():
        ray.init()
    opts = task_options or {"num_cpus": 0}
    play = ray.remote(play_chunk).options(**opts)
    probe = ray.remote(server_capacity).options(**opts)
    chunk_results = _play_all(
        ray,
        [_Server(a) for a in addresses],
        parts,
        lambda address, placements: play.remote(
            address,
            spec_text,
            origin,
            runs,
            seed,
            placements,
            timeout,
            connect_timeout=connect_timeout,
            keepalive=keepalive,
            client_options=client_options,
        ),
        lambda address: probe.remote(address, connect_timeout, keepalive, client_options),
        retry_timeout=retry_timeout,
        backoff=backoff,
        max_backoff=max_backoff,
    )
    results = [pb.SweepPlacementResult.FromString(b) for chunk in chunk_results for b in chunk]

    return _call_in_turn(
        "ASSEMBLE",
        coordinators,
        lambda c: c.assemble(
            spec_text,
            results,
            runs,
            seed,
            origin=origin or None,
            heatmaps=heatmaps,
            text=text,
            timeout=timeout,
        ),
        **retry,
    )
