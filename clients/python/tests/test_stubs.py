"""The committed stubs (pf1e_gym/_proto) are up to date with proto/."""

from __future__ import annotations

import filecmp
import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
COMMITTED = REPO / "clients" / "python" / "pf1e_gym" / "_proto"


def _diff(a: pathlib.Path, b: pathlib.Path) -> list[str]:
    out: list[str] = []

    def walk(c: filecmp.dircmp, rel: str) -> None:
        out.extend(f"only in committed: {rel}{n}" for n in c.left_only if n != "__pycache__")
        out.extend(f"only in regenerated: {rel}{n}" for n in c.right_only)
        out.extend(f"differs: {rel}{n}" for n in c.diff_files)
        for name, sub in c.subdirs.items():
            if name != "__pycache__":
                walk(sub, f"{rel}{name}/")

    walk(filecmp.dircmp(a, b, ignore=["__pycache__"]), "")
    return out


def test_committed_stubs_match_proto(tmp_path: pathlib.Path) -> None:
    if importlib.util.find_spec("grpc_tools") is None:
        pytest.skip("grpcio-tools is not installed (pip install 'clients/python[test]')")
    out = tmp_path / "_proto"
    env = dict(os.environ, PYTHON=sys.executable)
    subprocess.run(
        ["bash", str(REPO / "scripts" / "gen_python_stubs.sh"), str(out)],
        check=True,
        env=env,
        capture_output=True,
    )
    diff = _diff(COMMITTED, out)
    assert not diff, "stale stubs, run scripts/gen_python_stubs.sh:\n" + "\n".join(diff)
