"""Every Python console script answers ``--version`` with the package version (issue 31).

The scripts are run as their entry points are declared in pyproject.toml (``module:function``),
in a subprocess, so a parser that lacks ``--version`` fails here.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

import pf1e_gym

# pyproject.toml [project.scripts] whose parsers are Python's (the pf1e-env-server / pf1e-sim
# scripts exec the Rust binaries, whose clap parsers have --version: env-server/tests/cli.rs).
SCRIPTS = {
    "pf1e-llm-eval": "pf1e_gym.llm.eval",
    "pf1e-leaderboard": "pf1e_gym.leaderboard",
    "pf1e-mcp": "pf1e_gym.mcp_server",
}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_console_script_prints_its_version(name: str) -> None:
    code = f"import sys; sys.argv = [{name!r}, '--version']; import {SCRIPTS[name]} as m; m.main()"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"{name} {pf1e_gym.__version__}", out.stdout


def test_the_declared_scripts_are_the_ones_checked() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    pyproject = pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml"
    declared = tomllib.loads(pyproject.read_text())["project"]["scripts"]
    python_parsers = {k for k, v in declared.items() if not v.startswith("pf1e_gym._cli:")}
    assert python_parsers == set(SCRIPTS)
