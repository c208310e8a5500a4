"""pf1e_gym.numpy_policy: file round trip, checks, sampling, and equality with the torch actor."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import require_rl
from test_leaderboard import tiny_policy

from pf1e_gym import Pf1eClient
from pf1e_gym.numpy_policy import NumpyPolicy


def test_round_trip_and_checks(server_address: str, tmp_path) -> None:
    client = Pf1eClient(server_address)
    spec = client.get_spec("sample_arena")
    client.close()
    pol = tiny_policy(spec, seed=3)
    path = tmp_path / "p.npz"
    pol.save(path)
    back = NumpyPolicy.load(path)
    back.check_spec(spec)
    rng = np.random.default_rng(0)
    obs = rng.random((5, pol.obs_size), dtype=np.float32)
    assert np.array_equal(back.logits(obs), pol.logits(obs))
    masks = np.zeros((5, pol.n_actions), np.int8)
    masks[:, [0, 3, 7]] = 1
    greedy = back.act(obs, masks)
    assert set(greedy.tolist()) <= {0, 3, 7}
    lg = pol.logits(obs)[:, [0, 3, 7]]
    assert np.array_equal(greedy, np.array([0, 3, 7])[lg.argmax(axis=1)])
    # Sampling: only legal actions, reproducible with the same seed.
    s1 = back.act(
        np.repeat(obs, 40, 0),
        np.repeat(masks, 40, 0),
        deterministic=False,
        rng=np.random.default_rng(9),
    )
    s2 = back.act(
        np.repeat(obs, 40, 0),
        np.repeat(masks, 40, 0),
        deterministic=False,
        rng=np.random.default_rng(9),
    )
    assert np.array_equal(s1, s2) and set(s1.tolist()) <= {0, 3, 7}
    with pytest.raises(ValueError, match="rng"):
        back.act(obs, masks, deterministic=False)
    # Another layout is refused with the field named.
    pol.meta["feature_names"] = ["x", *pol.meta["feature_names"][1:]]
    with pytest.raises(ValueError, match="feature_names"):
        pol.check_spec(spec)
    np.savez(tmp_path / "bad.npz", w=np.zeros(2))
    with pytest.raises(ValueError, match="meta"):
        NumpyPolicy.load(tmp_path / "bad.npz")


def test_numpy_forward_equals_torch_policy(server_address: str) -> None:
    require_rl()
    from sb3_contrib import MaskablePPO

    from pf1e_gym.numpy_policy import export_sb3
    from pf1e_gym.sb3 import Pf1eSB3VecEnv

    env = Pf1eSB3VecEnv(16, server_address, reward={"shaped": True}, seed=5)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=16,
        batch_size=64,
        seed=1,
        device="cpu",
        policy_kwargs={"net_arch": {"pi": [32, 16], "vf": [32]}},
    )
    model.learn(256)  # moved away from the initial weights
    client = Pf1eClient(server_address)
    spec = client.get_spec("sample_arena")
    client.close()
    pol = export_sb3(model, spec, "players", {"test": True})
    pol.check_spec(spec)
    obs = env.reset()
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(20):
        masks = env.action_masks()
        a_torch, _ = model.predict(obs, action_masks=masks, deterministic=True)
        a_np = pol.act(obs, masks)
        # Equal but for near-ties: torch takes the argmax of float32 probabilities, where two
        # logits 1e-7 apart (seen: 0.14387873 / 0.14387883) round to one value and the first
        # wins; numpy takes the argmax of the logits (break-it review: this failed so).
        a_torch = np.asarray(a_torch)
        lg = pol.logits(obs)
        rows = np.flatnonzero(a_torch != a_np)
        gap = np.abs(lg[rows, a_torch[rows]] - lg[rows, a_np[rows]])
        assert (gap <= 1e-5).all(), (rows, gap)
        checked += len(a_np)
        # Step with random legal actions so the observations vary.
        keys = rng.random(masks.shape) * masks
        obs, _r, _d, _i = env.step(keys.argmax(axis=1))
    assert checked == 320
    env.close()
