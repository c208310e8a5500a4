"""A local ``pf1e-env-server`` started from Python: :func:`launch_server`, and the shared
server the envs start themselves when given no address.

:func:`launch_server` starts a server on a free loopback port (``127.0.0.1:0``; the port the
server picked is read from its ``listening on ADDR`` line) and returns a
:class:`LocalServer`, a context manager that stops it (SIGTERM, then SIGKILL after
``stop_timeout`` seconds)::

    with pf1e_gym.launch_server() as server:
        env = pf1e_gym.Pf1eEnv(address=server.address)

**The binary**, first found of (:func:`find_server`):

1. ``binary=`` (a path; an error if it is not an executable file);
2. ``$PF1E_SERVER_BIN`` (same);
3. the server bundled in the wheel (``pf1e_gym._bundled.server_command()``, when the installed
   package has one);
4. ``pf1e-env-server`` on ``PATH``;
5. a source checkout's ``target/release/pf1e-env-server``, then ``target/debug/…`` (the
   checkout this package was installed from in editable mode; ``$CARGO_TARGET_DIR`` first);

else :class:`ServerNotFoundError`, listing what was tried and how to get one.

**The data directory** (``--data-dir``: maps, monsters, scenarios…): ``data_dir=``, else
``$PF1E_DATA_DIR``, else the wheel's bundled data (``pf1e_gym._bundled.data_dir()``), else the
source checkout's ``data/``; else none is passed and the server uses ``./data``.

**Envs without an address.** ``Pf1eEnv``, ``Pf1eVectorEnv``, ``Pf1eAECEnv``,
``Pf1eParallelEnv`` (and so ``gymnasium.make("pf1e_gym/…")``, the SB3 and RLlib adapters and
``pf1e-leaderboard``) given neither ``address=`` nor ``client=`` connect to
:func:`default_address`: ``$PF1E_ADDRESS`` if set; else the **shared local server** of this
process, if it started one; else the one a parent process started (``$PF1E_SHARED_SERVER``,
if it still answers); else a server already listening on ``127.0.0.1:50051`` (one you
started by hand); else a new shared local server is started (:func:`shared_server`).

Sharing and cleanup: one shared server per process, used by every env that asked for one
(each env has its own connection and its own episodes on it; closing an env closes its
episodes, not the server). It is stopped when the interpreter exits (``atexit``), or by
:func:`stop_shared_server`. Its address is exported as ``$PF1E_SHARED_SERVER``, so that
worker processes (Gymnasium's ``AsyncVectorEnv``, ``multiprocessing``) use it instead of
starting their own; a forked child never stops its parent's server. On Linux the server also
gets SIGTERM when the thread that started it dies (``PR_SET_PDEATHSIG``: a killed Python
leaves no orphan server; started from the main thread only, as the signal follows the
starting thread). It runs in its own session, so a Ctrl-C in the terminal reaches Python
first, which then closes its episodes and stops the server in order.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import ctypes
import importlib
import importlib.util
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType

from pf1e_gym.client import Pf1eClient

__all__ = [
    "DEFAULT_ADDRESS",
    "LocalServer",
    "ServerNotFoundError",
    "ServerStartError",
    "default_address",
    "find_data_dir",
    "find_server",
    "launch_server",
    "open_client",
    "shared_server",
    "stop_shared_server",
]

#: The address a hand-started server listens on by default (``pf1e-env-server``'s ``--addr``).
DEFAULT_ADDRESS = "127.0.0.1:50051"
SERVER_NAME = "pf1e-env-server"
#: The variable through which a shared server's address reaches child processes.
SHARED_ENV = "PF1E_SHARED_SERVER"
_LISTENING = re.compile(r"listening on (\S+)")
# The repository root when this package is used from a source checkout (editable install).
_CHECKOUT = pathlib.Path(__file__).resolve().parents[3]


class ServerNotFoundError(RuntimeError):
    """No server to use and no ``pf1e-env-server`` binary to start one.

    ``tried``: what was looked at, in order (``"$PF1E_SERVER_BIN: not set"``…)."""

    def __init__(self, message: str, tried: Sequence[str]) -> None:
        super().__init__(message)
        self.tried = list(tried)


class ServerStartError(RuntimeError):
    """A server binary was found but did not start (its exit status and last log lines)."""


# -- where things are ---------------------------------------------------------------------------


def _bundled() -> object | None:
    """The wheel's ``pf1e_gym._bundled`` module, or ``None`` in an install without it."""
    if importlib.util.find_spec("pf1e_gym._bundled") is None:
        return None
    return importlib.import_module("pf1e_gym._bundled")


def _executable(path: pathlib.Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _checkout() -> pathlib.Path | None:
    """The source checkout this package lives in (``Cargo.toml`` and ``env-server/``), if
    any."""
    root = _CHECKOUT
    if (root / "Cargo.toml").is_file() and (root / "env-server").is_dir():
        return root
    return None


def find_server(binary: str | os.PathLike[str] | None = None) -> tuple[list[str], str]:
    """The command that starts a server, and where it was found (see the module docs for
    the order).

    Returns:
        ``(command, origin)``: the argv prefix (the binary, or the bundled launcher's command)
        and a phrase naming where it came from (``"$PF1E_SERVER_BIN"``, ``"PATH"``…).

    Raises:
        ServerNotFoundError: ``binary`` or ``$PF1E_SERVER_BIN`` is not an executable file,
            or nothing was found (the message lists each place tried and the fixes).
    """
    tried: list[str] = []
    if binary is not None:
        path = pathlib.Path(binary)
        if not _executable(path):
            raise ServerNotFoundError(f"binary={os.fspath(binary)!r}: no executable file", [])
        return [str(path)], "binary="
    tried.append("binary=: not given")
    env_bin = os.environ.get("PF1E_SERVER_BIN")
    if env_bin:
        if not _executable(pathlib.Path(env_bin)):
            raise ServerNotFoundError(
                f"$PF1E_SERVER_BIN={env_bin!r}: no executable file (unset it, or point it at a "
                f"built {SERVER_NAME})",
                [],
            )
        return [env_bin], "$PF1E_SERVER_BIN"
    tried.append("$PF1E_SERVER_BIN: not set")
    bundled = _bundled()
    command_fn: Callable[[], list[str] | None] | None = getattr(bundled, "server_command", None)
    command = command_fn() if command_fn is not None else None
    if command:
        return list(command), "the server bundled in the wheel"
    tried.append(
        "the wheel's bundled server: "
        + ("none in this install" if bundled is None else "its module has none")
    )
    on_path = shutil.which(SERVER_NAME)
    if on_path:
        return [on_path], "PATH"
    tried.append(f"{SERVER_NAME} on PATH: not found")
    root = _checkout()
    if root is None:
        tried.append("a source checkout's target/: this package is not in one")
    else:
        targets = (
            [pathlib.Path(os.environ["CARGO_TARGET_DIR"])]
            if os.environ.get("CARGO_TARGET_DIR")
            else []
        )
        targets.append(root / "target")
        for target in targets:
            for profile in ("release", "debug"):
                path = target / profile / SERVER_NAME
                if _executable(path):
                    return [str(path)], f"the checkout's target/{profile}"
                tried.append(f"{path}: not built")
    raise ServerNotFoundError(
        f"no {SERVER_NAME} binary found. Tried: "
        + "; ".join(tried)
        + f". Fix: pass binary=PATH, set PF1E_SERVER_BIN, put {SERVER_NAME} on PATH, install "
        "the pf1e-gym wheel (it bundles the server), or build it in the checkout "
        "(`cargo build --release -p pf1e-env-server`).",
        tried,
    )


def find_data_dir(data_dir: str | os.PathLike[str] | None = None) -> str | None:
    """The data directory a started server gets (see the module docs), or ``None`` (the
    server's own default, ``./data``). Raises ``FileNotFoundError`` when ``data_dir`` is given
    and is not a directory."""
    if data_dir is not None:
        if not pathlib.Path(data_dir).is_dir():
            raise FileNotFoundError(f"data_dir={os.fspath(data_dir)!r}: no such directory")
        return os.fspath(data_dir)
    env_dir = os.environ.get("PF1E_DATA_DIR")
    if env_dir:
        return env_dir
    bundled = _bundled()
    data_fn: Callable[[], str | None] | None = getattr(bundled, "data_dir", None)
    bundled_dir = data_fn() if data_fn is not None else None
    if bundled_dir:
        return bundled_dir
    root = _checkout()
    if root is not None and (root / "data" / "scenarios").is_dir():
        return str(root / "data")
    return None


# -- one server -----------------------------------------------------------------------------


def _parent_death_signal() -> Callable[[], None] | None:
    """A ``preexec_fn`` asking Linux to SIGTERM the child when this thread dies, or ``None``
    (not Linux, no libc, or not the main thread: the signal follows the starting thread)."""
    if not sys.platform.startswith("linux"):
        return None
    if threading.current_thread() is not threading.main_thread():
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1

    def set_signal() -> None:
        prctl(pr_set_pdeathsig, int(signal.SIGTERM), 0, 0, 0)

    return set_signal


class LocalServer:
    """A ``pf1e-env-server`` process started by :func:`launch_server`.

    Attributes:
        address: ``host:port`` it listens on (loopback).
        process: the ``subprocess.Popen``.
        command: the full command line it was started with.
        origin: where the binary was found (see :func:`find_server`).

    A context manager: ``with launch_server() as server:`` stops it at the end of the block.
    """

    def __init__(
        self,
        command: list[str],
        origin: str,
        *,
        env: Mapping[str, str] | None = None,
        startup_timeout: float = 60.0,
    ) -> None:
        self.command = command
        self.origin = origin
        self._owner_pid = os.getpid()
        self._log: collections.deque[str] = collections.deque(maxlen=40)
        run_env = dict(os.environ if env is None else env)
        run_env.setdefault("RUST_LOG", "warn")
        try:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                env=run_env,
                start_new_session=True,
                preexec_fn=_parent_death_signal(),
            )
        except OSError as e:
            raise ServerStartError(f"{command[0]} ({origin}): cannot run: {e}") from e
        found: list[str] = []
        ready = threading.Event()

        def drain() -> None:
            # Read stderr to the end, so the server never blocks on a full pipe.
            assert self.process.stderr is not None
            for line in self.process.stderr:
                self._log.append(line.rstrip("\n"))
                m = _LISTENING.search(line)
                if m and not found:
                    found.append(m.group(1))
                    ready.set()
            ready.set()

        threading.Thread(target=drain, name="pf1e-env-server stderr", daemon=True).start()
        deadline = time.monotonic() + startup_timeout
        while not ready.wait(0.05) and time.monotonic() < deadline:
            pass
        if not found:
            status = self.process.poll()
            if status is None and ready.is_set():
                # Its stderr closed: it is exiting (the pipe closes before it can be reaped).
                with contextlib.suppress(subprocess.TimeoutExpired):
                    status = self.process.wait(timeout=5)
            self._kill()
            what = (
                f"exited with status {status}"
                if status is not None
                else f"printed no 'listening on' line in {startup_timeout:g} s"
            )
            raise ServerStartError(
                f"{' '.join(command)} ({origin}) {what}. Its last log lines:\n" + self.log_tail()
            )
        self.address: str = found[0]

    def log_tail(self) -> str:
        """The server's last stderr lines (up to 40)."""
        return "\n".join(self._log)

    @property
    def running(self) -> bool:
        """Whether the process is still alive."""
        return self.process.poll() is None

    def stop(self, timeout: float = 20.0) -> int | None:
        """Stop the server: SIGTERM (its episodes end, in-flight calls finish within its
        grace period), then SIGKILL after ``timeout`` seconds. Returns its exit status
        (``None`` in a forked child, which never stops its parent's server). Idempotent."""
        if os.getpid() != self._owner_pid:
            return None
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self._kill()
        return self.process.returncode

    def _kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def __enter__(self) -> LocalServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else f"exited {self.process.returncode}"
        return f"LocalServer({self.address}, pid {self.process.pid}, {state})"


def launch_server(
    binary: str | os.PathLike[str] | None = None,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    startup_timeout: float = 60.0,
) -> LocalServer:
    """Start a ``pf1e-env-server`` on a free loopback port and return it once it listens.

    Args:
        binary: the server binary; ``None``: see :func:`find_server`.
        data_dir: its ``--data-dir``; ``None``: see :func:`find_data_dir`.
        args: further server flags (``["--max-episodes", "100"]``…); not ``--addr``.
        env: the process environment (default: this one; ``RUST_LOG`` defaults to ``warn``).
        startup_timeout: seconds to wait for its ``listening on`` line.

    Raises:
        ServerNotFoundError: no binary (the message lists what was tried and the fixes).
        ServerStartError: the binary did not start (its exit status and log lines).
        FileNotFoundError: ``data_dir`` is not a directory.
        ValueError: ``args`` sets ``--addr``.
    """
    if any(a == "--addr" or a.startswith("--addr=") for a in args):
        raise ValueError("args: --addr is chosen by launch_server (127.0.0.1:0, a free port)")
    command, origin = find_server(binary)
    data = find_data_dir(data_dir)
    full = [*command, "--addr", "127.0.0.1:0"]
    if data is not None:
        full += ["--data-dir", data]
    full += list(args)
    return LocalServer(full, origin, env=env, startup_timeout=startup_timeout)


# -- the shared server of the envs ----------------------------------------------------------

_shared: LocalServer | None = None
_shared_lock = threading.Lock()


def _answers(address: str, timeout: float = 0.5) -> bool:
    """Whether something accepts TCP connections at ``host:port`` (a refused loopback
    connection fails at once)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        return False
    try:
        with socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout):
            return True
    except OSError:
        return False


def shared_server() -> LocalServer:
    """The shared local server of this process, started on first use (:func:`launch_server`
    with the default binary and data; see the module docs for how it is shared and stopped).

    Raises what :func:`launch_server` raises."""
    global _shared
    with _shared_lock:
        if (
            _shared is not None
            and _shared._owner_pid == os.getpid()  # a forked child does not own it
            and _shared.running
        ):
            return _shared
        server = launch_server()
        _shared = server
        os.environ[SHARED_ENV] = server.address
        return server


def stop_shared_server() -> None:
    """Stop the shared local server, if this process started one (also run at exit)."""
    global _shared
    with _shared_lock:
        server, _shared = _shared, None
        if server is None or server._owner_pid != os.getpid():
            return
        if os.environ.get(SHARED_ENV) == server.address:
            del os.environ[SHARED_ENV]
        with contextlib.suppress(OSError):
            server.stop()


atexit.register(stop_shared_server)


def default_address() -> str:
    """The address of an env given no address: ``$PF1E_ADDRESS``; else this process's shared
    server; else its parent's (``$PF1E_SHARED_SERVER``, if it answers); else a server already
    listening on ``127.0.0.1:50051``; else a new shared server (:func:`shared_server`).

    Raises:
        ServerNotFoundError: nothing listens on ``127.0.0.1:50051`` and no binary was found
            (the message names the address and the fixes).
        ServerStartError: the binary found did not start.
    """
    env_address = os.environ.get("PF1E_ADDRESS")
    if env_address:
        return env_address
    server = _shared
    if server is not None and server.running:
        return server.address  # ours, or (forked child) the parent's
    inherited = os.environ.get(SHARED_ENV)
    if inherited and _answers(inherited):
        return inherited
    if _answers(DEFAULT_ADDRESS):
        return DEFAULT_ADDRESS
    try:
        return shared_server().address
    except ServerNotFoundError as e:
        raise ServerNotFoundError(
            f"no pf1e-env-server listens on {DEFAULT_ADDRESS} (the default address; "
            "$PF1E_ADDRESS is not set) and none could be started here: "
            + str(e)
            + " Or start one yourself and pass address= (or set PF1E_ADDRESS).",
            e.tried,
        ) from None


def open_client(
    address: str | None, client: Pf1eClient | None, timeout: float
) -> tuple[Pf1eClient, bool]:
    """The envs' connection: ``(client, owned)``: ``client`` as given (not owned: the env does
    not close it), else a new :class:`~pf1e_gym.client.Pf1eClient` to ``address``, else to
    :func:`default_address` (which may start the shared server)."""
    if client is not None:
        return client, False
    return Pf1eClient(address or default_address(), timeout=timeout), True
