"""pf1e_gym.server: launch_server, the binary's resolution order, the shared server the envs
start themselves (and stop at exit), and the errors without a server or a binary."""

from __future__ import annotations

import importlib.machinery
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time
import types

import gymnasium
import pytest
from conftest import REPO, server_binary

import pf1e_gym
from pf1e_gym import server as srv

# Nothing listens on port 1 of the loopback: the "server on 127.0.0.1:50051" step of the
# default address is skipped whatever runs on this machine.
NOWHERE = "127.0.0.1:1"
_REAL_BUNDLED = srv._bundled


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) is dead for us.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return True


def _wait_dead(pid: int, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def _fake_binary(path: pathlib.Path, body: str = "exit 3") -> pathlib.Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> pathlib.Path:
    """No PF1E_* variables, an empty PATH directory, no bundled module, no checkout."""
    for var in ("PF1E_SERVER_BIN", "PF1E_ADDRESS", "PF1E_DATA_DIR", srv.SHARED_ENV):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("CARGO_TARGET_DIR", raising=False)
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(srv, "_CHECKOUT", tmp_path / "no-checkout")
    monkeypatch.setattr(srv, "DEFAULT_ADDRESS", NOWHERE)
    monkeypatch.setattr(srv, "_bundled", lambda: None)
    return empty


def test_launch_server_serves_and_stops() -> None:
    with pf1e_gym.launch_server(server_binary(), data_dir=REPO / "data") as server:
        assert server.running and server.address.startswith("127.0.0.1:")
        assert server.origin == "binary="
        env = pf1e_gym.Pf1eEnv(address=server.address)
        _obs, info = env.reset(seed=1)
        assert info["actor"] is not None
        env.close()
        pid = server.process.pid
    assert not server.running and server.process.returncode == 0  # SIGTERM: graceful
    assert not _alive(pid)
    assert server.stop() == 0  # idempotent
    with pytest.raises(ValueError, match="--addr"):
        pf1e_gym.launch_server(server_binary(), args=["--addr", "127.0.0.1:9"])
    with pytest.raises(FileNotFoundError, match="data_dir"):
        pf1e_gym.launch_server(server_binary(), data_dir=REPO / "no-such-dir")


def test_binary_resolution_order(clean_env: pathlib.Path, tmp_path, monkeypatch) -> None:
    # Nothing anywhere: the error lists every place tried and the fixes.
    with pytest.raises(pf1e_gym.ServerNotFoundError) as e:
        srv.find_server()
    msg = str(e.value)
    for what in ("binary=", "$PF1E_SERVER_BIN", "bundled", "PATH", "source checkout"):
        assert what in msg, what
    assert "cargo build --release -p pf1e-env-server" in msg and len(e.value.tried) == 5
    # A source checkout: target/debug, then target/release when both are built.
    checkout = tmp_path / "checkout"
    (checkout / "env-server").mkdir(parents=True)
    (checkout / "Cargo.toml").write_text("[workspace]\n")
    monkeypatch.setattr(srv, "_CHECKOUT", checkout)
    with pytest.raises(pf1e_gym.ServerNotFoundError, match="target/release/pf1e-env-server"):
        srv.find_server()
    debug = _fake_binary(checkout / "target" / "debug" / "pf1e-env-server")
    assert srv.find_server() == ([str(debug)], "the checkout's target/debug")
    release = _fake_binary(checkout / "target" / "release" / "pf1e-env-server")
    assert srv.find_server()[0] == [str(release)]
    # PATH beats the checkout.
    on_path = _fake_binary(clean_env / "pf1e-env-server")
    assert srv.find_server() == ([str(on_path)], "PATH")
    # The wheel's bundled server beats PATH (its module may be absent: see clean_env).
    bundled = types.ModuleType("pf1e_gym._bundled")
    bundled.__spec__ = importlib.machinery.ModuleSpec("pf1e_gym._bundled", None)
    bundled.server_command = lambda: ["/opt/bundled/pf1e-env-server"]  # type: ignore[attr-defined]
    bundled.data_dir = lambda: "/opt/bundled/data"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pf1e_gym._bundled", bundled)
    monkeypatch.setattr(srv, "_bundled", _REAL_BUNDLED)
    bundled_server = (["/opt/bundled/pf1e-env-server"], "the server bundled in the wheel")
    assert srv.find_server() == bundled_server
    assert srv.find_data_dir() == "/opt/bundled/data"
    bundled.server_command = lambda: None  # type: ignore[attr-defined]
    assert srv.find_server()[1] == "PATH"
    # $PF1E_SERVER_BIN beats the bundled server; binary= beats everything.
    env_bin = _fake_binary(tmp_path / "env" / "server")
    monkeypatch.setenv("PF1E_SERVER_BIN", str(env_bin))
    assert srv.find_server() == ([str(env_bin)], "$PF1E_SERVER_BIN")
    monkeypatch.setenv("PF1E_DATA_DIR", str(tmp_path))
    assert srv.find_data_dir() == str(tmp_path)
    explicit = _fake_binary(tmp_path / "explicit" / "server")
    assert srv.find_server(explicit) == ([str(explicit)], "binary=")
    # An explicit binary or $PF1E_SERVER_BIN that is no executable file is an error naming it
    # (not skipped in silence).
    with pytest.raises(pf1e_gym.ServerNotFoundError, match="binary='/nope'"):
        srv.find_server("/nope")
    monkeypatch.setenv("PF1E_SERVER_BIN", "/nope/server")
    with pytest.raises(pf1e_gym.ServerNotFoundError, match=r"\$PF1E_SERVER_BIN='/nope/server'"):
        srv.find_server()


def test_a_binary_that_does_not_start_is_reported(tmp_path: pathlib.Path) -> None:
    bad = _fake_binary(tmp_path / "server", "echo 'error: no such flag' >&2; exit 3")
    with pytest.raises(pf1e_gym.ServerStartError, match="exited with status 3") as e:
        pf1e_gym.launch_server(bad)
    assert "error: no such flag" in str(e.value)


def test_envs_without_a_server_or_binary_say_what_to_do(clean_env: pathlib.Path) -> None:
    # gymnasium.make without an address, no server on the default address, no binary: one
    # error naming the address and the fixes (not a gRPC UNAVAILABLE traceback).
    with pytest.raises(pf1e_gym.ServerNotFoundError) as e:
        gymnasium.make("pf1e_gym/SampleArena-v0")
    msg = str(e.value)
    assert f"no pf1e-env-server listens on {NOWHERE}" in msg
    assert "PF1E_SERVER_BIN" in msg and "address=" in msg and "cargo build" in msg
    assert srv._shared is None


_AUTO_START = """
import os, subprocess, sys
import gymnasium
import pf1e_gym
from pf1e_gym import server as srv
srv.DEFAULT_ADDRESS = {nowhere!r}
a = gymnasium.make("pf1e_gym/SampleArena-v0")
b = pf1e_gym.Pf1eVectorEnv(2)
c = gymnasium.make("pf1e_gym/Casters-v0")
a.reset(seed=0); b.reset(seed=0); c.reset(seed=0)
shared = srv._shared
assert a.unwrapped.client.address == b.client.address == c.unwrapped.client.address
assert shared.address == a.unwrapped.client.address == os.environ[srv.SHARED_ENV]
# A child process (e.g. a worker of an AsyncVectorEnv) uses the same server.
child = subprocess.run(
    [sys.executable, "-c", "from pf1e_gym import server; print(server.default_address())"],
    capture_output=True, text=True, check=True,
)
assert child.stdout.strip() == shared.address, child
a.close(); b.close(); c.close()
assert shared.running  # closing the envs closes their episodes, not the shared server
print("PID", shared.process.pid, flush=True)
{end}
"""


def _auto_start(end: str) -> tuple[subprocess.CompletedProcess[str], int]:
    env = dict(os.environ, PF1E_SERVER_BIN=str(server_binary()), PF1E_DATA_DIR=str(REPO / "data"))
    for var in ("PF1E_ADDRESS", srv.SHARED_ENV):
        env.pop(var, None)
    script = textwrap.dedent(_AUTO_START).format(nowhere=NOWHERE, end=end)
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env
    )
    pids = [int(line.split()[1]) for line in proc.stdout.splitlines() if line.startswith("PID ")]
    assert pids, proc.stderr
    return proc, pids[0]


def test_envs_start_one_shared_server_and_it_stops_at_exit() -> None:
    proc, pid = _auto_start("")
    assert proc.returncode == 0, proc.stderr
    assert _wait_dead(pid), "the shared server outlived the interpreter"


def test_a_killed_python_leaves_no_orphan_server() -> None:
    # SIGKILL: no atexit. The server gets SIGTERM from the kernel (PR_SET_PDEATHSIG, Linux).
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux only")
    proc, pid = _auto_start("import signal; os.kill(os.getpid(), signal.SIGKILL)")
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert _wait_dead(pid), "the shared server outlived a killed interpreter"
