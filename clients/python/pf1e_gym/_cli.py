"""The ``pf1e-env-server`` and ``pf1e-sim`` console scripts of the wheel.

Each runs the binary the wheel bundles (:mod:`pf1e_gym._bundled`) in place of this Python
process (``os.execv``: its exit status, signals and output are the binary's own), with
``$PF1E_DATA_DIR`` defaulting to the bundled scenario data, so ``pf1e-sim --scenario ...`` and
``pf1e-env-server`` find the bundled scenarios without ``--data-dir``. An install without
bundled binaries (a development install) runs the next ``pf1e-env-server`` / ``pf1e-sim`` on
``PATH`` (e.g. ``cargo install --path env-server``), else exits with status 2 saying how to get
one.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import sys

from pf1e_gym import _bundled


def _other_on_path(name: str) -> str | None:
    """``name`` on ``PATH``, skipping this console script itself."""
    me = pathlib.Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else None
    for d in os.environ.get("PATH", "").split(os.pathsep):
        found = shutil.which(name, path=d) if d else None
        if found and (me is None or pathlib.Path(found).resolve() != me):
            return found
    return None


def _run(name: str, command: list[str] | None) -> int:
    data = _bundled.data_dir()
    if data is not None:
        os.environ.setdefault("PF1E_DATA_DIR", data)
    if command is None:
        other = _other_on_path(name)
        if other is None:
            sys.stderr.write(
                f"{name}: this pf1e-gym install bundles no {name} binary (a development "
                f"install): build it with `cargo build --release -p pf1e-env-server` and put "
                f"target/release on PATH, or install a pf1e-gym wheel (docs/native.md)\n"
            )
            return 2
        command = [other]
    argv = [*command, *sys.argv[1:]]
    os.execv(argv[0], argv)
    return 1  # not reached


def server() -> int:
    """``pf1e-env-server``: the bundled gRPC environment server."""
    return _run("pf1e-env-server", _bundled.server_command())


def sim() -> int:
    """``pf1e-sim``: the bundled Monte Carlo / sweep / replay CLI."""
    return _run("pf1e-sim", _bundled.sim_command())
