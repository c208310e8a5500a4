"""What an installed wheel bundles: the ``pf1e-env-server`` / ``pf1e-sim`` binaries and the
scenario data (``data/``: maps, monsters, PCs, scenarios, spells, tactics).

A wheel built by ``scripts/build_wheel.sh`` carries them inside the package
(``pf1e_gym/_bin/`` and ``pf1e_gym/_data/``); a development install (``pip install -e
clients/python`` from a checkout) has no bundled binaries, and its data directory is the
checkout's ``data/``.

Used by :func:`pf1e_gym.server.launch_server` (resolution order: ``binary=`` →
``$PF1E_SERVER_BIN`` → :func:`server_command` → ``pf1e-env-server`` on ``PATH``), by the
``pf1e-env-server`` / ``pf1e-sim`` console scripts (:mod:`pf1e_gym._cli`) and by
:mod:`pf1e_gym.native` (the default data directory).
"""

from __future__ import annotations

import os
import pathlib

_PKG = pathlib.Path(__file__).resolve().parent


def _binary(name: str) -> pathlib.Path | None:
    """The bundled executable ``name`` (``pf1e_gym/_bin/<name>``), if this install has it."""
    path = _PKG / "_bin" / name
    if path.is_file() and os.access(path, os.X_OK):
        return path
    return None


def server_command() -> list[str] | None:
    """The argv prefix that starts the bundled ``pf1e-env-server`` (its flags follow:
    ``[*server_command(), "--addr", "127.0.0.1:0", "--data-dir", data_dir()]``), or ``None``
    when this install bundles no server (a development install: build it with ``cargo build
    -p pf1e-env-server`` and set ``$PF1E_SERVER_BIN``).

    The bundled server does not read ``$PF1E_DATA_DIR`` from the package: pass
    ``--data-dir`` (:func:`data_dir`) or set ``$PF1E_DATA_DIR``."""
    path = _binary("pf1e-env-server")
    return None if path is None else [str(path)]


def sim_command() -> list[str] | None:
    """The argv prefix that runs the bundled ``pf1e-sim`` (Monte Carlo CLI), or ``None``."""
    path = _binary("pf1e-sim")
    return None if path is None else [str(path)]


def data_dir() -> str | None:
    """The scenario data directory (``maps/``, ``monsters/``, ``pcs/``, ``scenarios/``, …) that
    comes with this install: the wheel's ``pf1e_gym/_data``, else the ``data/`` of the checkout
    a development install runs from; ``None`` when neither exists."""
    for candidate in (_PKG / "_data", _PKG.parents[2] / "data"):
        if (candidate / "scenarios").is_dir():
            return str(candidate)
    return None
