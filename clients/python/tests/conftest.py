"""Fixtures: a real pf1e-env-server process on a free port.

The binary is ``$PF1E_SERVER_BIN``, else ``target/debug/pf1e-env-server`` of the repo (build it
with ``cargo build -p pf1e-env-server``). ``running_server(*args)`` starts more of them (the
Ray fan-out tests use two); ``cli_sweep`` runs ``pf1e-sim sweep`` (``$PF1E_SIM_BIN``, else the
``pf1e-sim`` next to the server binary).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]

#: ``PF1E_REQUIRE_LLAMA=1`` (``scripts/test.sh``, i.e. CI): the real-model tests must run, a
#: missing ``llama-server`` or ``llm`` package is a failure instead of a skip.
REQUIRE_LLAMA = os.environ.get("PF1E_REQUIRE_LLAMA") == "1"
LISTENING = re.compile(r"listening on (\S+)")


def server_binary() -> pathlib.Path:
    path = pathlib.Path(
        os.environ.get("PF1E_SERVER_BIN", REPO / "target" / "debug" / "pf1e-env-server")
    )
    if not path.is_file():
        pytest.fail(
            f"server binary {path} not found: run `cargo build -p pf1e-env-server` "
            "or set PF1E_SERVER_BIN"
        )
    return path


@contextlib.contextmanager
def running_server(*extra_args: str, data_dir: pathlib.Path | None = None) -> Iterator[str]:
    """Start a server on 127.0.0.1:0 (bundled data, ``extra_args`` appended) and yield its
    ``host:port``; stop it (SIGTERM, graceful) afterwards."""
    with running_server_process(*extra_args, data_dir=data_dir) as (address, _proc):
        yield address


@contextlib.contextmanager
def running_server_process(
    *extra_args: str, data_dir: pathlib.Path | None = None
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """:func:`running_server`, yielding ``(host:port, process)`` (for tests that stop, freeze
    or kill it). ``data_dir``: instead of the bundled ``data/``. At the end a stopped
    (SIGSTOP) process is continued before SIGTERM; a dead one is only reaped."""
    env = dict(os.environ, RUST_LOG=os.environ.get("RUST_LOG", "warn"))
    proc = subprocess.Popen(
        [
            str(server_binary()),
            "--addr",
            "127.0.0.1:0",
            "--data-dir",
            str(data_dir or REPO / "data"),
            *extra_args,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    found: list[str] = []
    lines: list[str] = []
    ready = threading.Event()

    def drain() -> None:
        # Read stderr until EOF so the server never blocks on a full pipe.
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            m = LISTENING.search(line)
            if m and not found:
                found.append(m.group(1))
                ready.set()
        ready.set()

    threading.Thread(target=drain, daemon=True).start()
    deadline = time.monotonic() + 60
    while not ready.wait(0.1) and time.monotonic() < deadline:
        pass
    if not found:
        proc.kill()
        proc.wait()
        pytest.fail("server did not print 'listening on ...':\n" + "".join(lines))
    try:
        yield found[0], proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGCONT)  # in case a test froze it
        proc.terminate()  # SIGTERM: graceful shutdown
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def server_address() -> Iterator[str]:
    """Start the server on 127.0.0.1:0 and yield its ``host:port``; stop it afterwards."""
    with running_server() as address:
        yield address


def llm_missing(reason: str) -> None:
    """Skip the test for ``reason`` (fail under ``PF1E_REQUIRE_LLAMA=1``)."""
    if REQUIRE_LLAMA:
        pytest.fail(f"PF1E_REQUIRE_LLAMA=1 but {reason}")
    pytest.skip(reason)


#: ``PF1E_REQUIRE_RL=1`` (``scripts/test.sh``, i.e. CI): the trainer tests (SB3, sb3-contrib,
#: RLlib, torch) must run; a missing package is a failure instead of a skip.
REQUIRE_RL = os.environ.get("PF1E_REQUIRE_RL") == "1"


def rl_import(name: str, extra: str = "rl"):
    """Import the trainer module ``name`` (of the ``extra`` extra), else skip the test — or fail
    it under ``PF1E_REQUIRE_RL=1``."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError as e:
        reason = f'{name} is not installed (pip install "pf1e-gym[{extra}]"): {e}'
        if REQUIRE_RL:
            pytest.fail(f"PF1E_REQUIRE_RL=1 but {reason}")
        pytest.skip(reason, allow_module_level=True)


def require_rl() -> None:
    """:func:`rl_import` of torch, stable-baselines3 and sb3-contrib (the trainer tests)."""
    for name in ("torch", "stable_baselines3", "sb3_contrib"):
        rl_import(name)


def llm_import(name: str):
    """Import the module ``name`` of the ``llm`` extra, else :func:`llm_missing`."""
    try:
        return __import__(name)
    except ImportError:
        llm_missing(f'the {name} package is not installed (pip install "pf1e-gym[llm]")')


def llama_server_or_skip() -> str:
    """``$PF1E_LLAMA_SERVER`` (the ``llama-server`` binary), else :func:`llm_missing`."""
    path = os.environ.get("PF1E_LLAMA_SERVER")
    if not path:
        llm_missing(
            "PF1E_LLAMA_SERVER is not set (PF1E_LLAMA_SERVER=$(bash scripts/llama_server.sh))"
        )
    return path


def sim_binary() -> pathlib.Path:
    """``$PF1E_SIM_BIN``, else ``pf1e-sim`` next to the server binary."""
    path = pathlib.Path(os.environ.get("PF1E_SIM_BIN", server_binary().parent / "pf1e-sim"))
    if not path.is_file():
        pytest.fail(f"{path} not found: run `cargo build -p pf1e-env-server` or set PF1E_SIM_BIN")
    return path


def cli_sweep(spec: pathlib.Path, runs: int, seed: int, out: pathlib.Path) -> str:
    """``pf1e-sim sweep SPEC --format json``'s stdout (files written into ``out``)."""
    args = ["sweep", str(spec), "--runs", str(runs), "--seed", str(seed), "--format", "json"]
    args += ["--data-dir", str(REPO / "data"), "--out", str(out)]
    proc = subprocess.run(
        [str(sim_binary()), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
