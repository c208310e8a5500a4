"""examples/train_ppo.py --smoke: MaskablePPO on the SB3 adapter for a few thousand steps (a
smoke test of the whole recipe, not a timed test)."""

from __future__ import annotations

import csv
import json
import pathlib
import sys

from conftest import require_rl

from pf1e_gym import Pf1eClient
from pf1e_gym.numpy_policy import NumpyPolicy

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def test_train_ppo_smoke(server_address: str, tmp_path) -> None:
    require_rl()
    sys.path.insert(0, str(EXAMPLES))
    try:
        import train_ppo
    finally:
        sys.path.remove(str(EXAMPLES))
    out = tmp_path / "run"
    assert train_ppo.main(["--smoke", "--address", server_address, "--out", str(out)]) == 0
    with open(out / "curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert int(rows[0]["env_steps"]) == 0
    assert int(rows[-1]["env_steps"]) >= 4096
    assert all(0.0 <= float(r["win_rate"]) <= 1.0 for r in rows)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["env_steps"] >= 4096 and summary["final_episodes"] == 16
    assert 0.0 <= summary["final_default_win_rate"] <= 1.0
    assert (out / "curve.png").stat().st_size > 1000
    assert (out / "model.zip").is_file()
    pol = NumpyPolicy.load(out / "policy.npz")
    client = Pf1eClient(server_address)
    pol.check_spec(client.get_spec("sample_arena"))
    client.close()
    assert pol.meta["scenario"] == "sample_arena" and pol.meta["side"] == "players"
