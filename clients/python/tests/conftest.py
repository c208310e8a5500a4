"""Fixtures: a real pf1e-env-server process on a free port.

The binary is ``$PF1E_SERVER_BIN``, else ``target/debug/pf1e-env-server`` of the repo (build it
with ``cargo build -p pf1e-env-server``).
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import threading
import time
from collections.abc import Iterator

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
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


@pytest.fixture(scope="session")
def server_address() -> Iterator[str]:
    """Start the server on 127.0.0.1:0 and yield its ``host:port``; stop it afterwards."""
    env = dict(os.environ, RUST_LOG=os.environ.get("RUST_LOG", "warn"))
    proc = subprocess.Popen(
        [str(server_binary()), "--addr", "127.0.0.1:0", "--data-dir", str(REPO / "data")],
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
        yield found[0]
    finally:
        proc.terminate()  # SIGTERM: graceful shutdown
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
