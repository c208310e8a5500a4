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


def _scalar_tags(tb_dir: pathlib.Path) -> set[str]:
    """The scalar tags of the TensorBoard event files in ``tb_dir`` (TFRecord framing: length
    u64, its CRC u32, the Event message, its CRC u32)."""
    import struct

    from tensorboardX.proto import event_pb2

    tags: set[str] = set()
    for path in tb_dir.glob("events.out.tfevents.*"):
        data = path.read_bytes()
        pos = 0
        while pos + 12 <= len(data):
            (n,) = struct.unpack("<Q", data[pos : pos + 8])
            event = event_pb2.Event.FromString(data[pos + 12 : pos + 12 + n])
            tags.update(v.tag for v in event.summary.value)
            pos += 12 + n + 4
    return tags


def test_train_ppo_killed_run_resumes(server_address: str, tmp_path) -> None:
    # A run SIGKILLed after its first checkpoint resumes from it with --resume: the curve keeps
    # the evaluations made before the kill, training goes on from the checkpoint's env step
    # (not from 0) to --timesteps, and TensorBoard has SB3's and the evaluations' scalars.
    require_rl()
    import signal
    import subprocess
    import time

    out = tmp_path / "run"
    cmd = [
        sys.executable,
        str(EXAMPLES / "train_ppo.py"),
        "--smoke",
        "--address",
        server_address,
        "--out",
        str(out),
        "--timesteps",
        "3072",
        "--eval-every",
        "1024",
        "--checkpoint-every",
        "1024",
        "--no-progress",
    ]
    state = out / "checkpoint" / "state.json"
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while not state.is_file() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert state.is_file(), proc.stderr.read() if proc.poll() is not None else "timeout"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    killed_at = json.loads(state.read_text())["env_steps"]
    assert 1024 <= killed_at < 3072 and not (out / "summary.json").exists()
    # Without --resume the checkpoint is not overwritten.
    refused = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "--resume" in refused.stderr
    done = subprocess.run([*cmd, "--resume"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"resuming {out} at env step {killed_at}" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["resumed_at_env_steps"] == [killed_at]
    assert 3072 <= summary["env_steps"] < 3072 + 1024
    with open(out / "curve.csv") as f:
        steps = [int(r["env_steps"]) for r in csv.DictReader(f)]
    assert steps[0] == 0 and steps == sorted(steps) and len(set(steps)) == len(steps)
    assert 1024 <= steps[1] <= killed_at  # an evaluation made before the kill
    tags = _scalar_tags(out / "tb")
    assert {"eval/win_rate", "eval/default_win_rate", "rollout/ep_rew_mean"} <= tags, tags
    assert any(t.startswith("train/") for t in tags), tags


def test_cleanrl_ppo_runs(server_address: str, tmp_path) -> None:
    # examples/cleanrl_ppo.py, the single-file PPO on Pf1eVectorEnv: two updates of a tiny
    # run end with a saved agent whose masked policy only picks legal actions.
    require_rl()
    import subprocess

    import numpy as np
    import torch

    out = tmp_path / "cleanrl"
    args = ["--address", server_address, "--total-timesteps", "512", "--num-envs", "8"]
    args += ["--num-steps", "32", "--eval-episodes", "8", "--out", str(out)]
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "cleanrl_ppo.py"), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("global_step=")]
    assert [ln.split()[0] for ln in lines] == ["global_step=256", "global_step=512"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["global_step"] == 512 and summary["episodes"] > 0
    assert 0.0 <= summary["greedy_win_rate"] <= 1.0 and 0.0 <= summary["default_win_rate"] <= 1.0
    assert "greedy policy on 8 held-out seeds: win rate" in done.stdout
    sys.path.insert(0, str(EXAMPLES))
    try:
        import cleanrl_ppo
    finally:
        sys.path.remove(str(EXAMPLES))
    from pf1e_gym import Pf1eVectorEnv

    env = Pf1eVectorEnv(4, address=server_address, autoreset_mode="same_step")
    try:
        obs, _ = env.reset(seed=3)
        x = torch.as_tensor(cleanrl_ppo.flat(obs))
        agent = cleanrl_ppo.Agent(x.shape[1], env.single_action_space.n, 64)
        agent.load_state_dict(torch.load(out / "agent.pt"))
        mask = torch.as_tensor(obs["action_mask"].astype(bool))
        for _ in range(20):
            action, _, _, _ = agent.get_action_and_value(x, mask)
            assert np.all(obs["action_mask"][np.arange(4), action.numpy()] == 1)
    finally:
        env.close()
