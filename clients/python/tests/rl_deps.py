"""The RL trainer dependencies (torch, stable-baselines3, sb3-contrib) for the tests that need
them: skipped when missing, a failure when ``PF1E_REQUIRE_RL=1`` (CI's trainer stage)."""

from __future__ import annotations

import importlib.util
import os

import pytest

REQUIRE_RL = os.environ.get("PF1E_REQUIRE_RL") == "1"


def require_rl() -> None:
    """Skip (or fail under ``PF1E_REQUIRE_RL=1``) unless torch, SB3 and sb3-contrib import."""
    missing = [m for m in ("torch", "stable_baselines3", "sb3_contrib") if not _importable(m)]
    if missing:
        reason = f"{', '.join(missing)} not installed (pip install torch sb3-contrib)"
        if REQUIRE_RL:
            pytest.fail(f"PF1E_REQUIRE_RL=1 but {reason}")
        pytest.skip(reason)


def _importable(name: str) -> bool:
    return importlib.util.find_spec(name) is not None
