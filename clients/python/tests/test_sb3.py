"""Pf1eSB3VecEnv (Stable-Baselines3 VecEnv over StepBatch) and the SB3 env checker.

Skipped where stable-baselines3 / sb3-contrib are not installed (``pip install '.[rl]'``)."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from conftest import rl_import

rl_import("stable_baselines3")
rl_import("sb3_contrib")

from stable_baselines3.common.vec_env import VecEnv  # noqa: E402 (after the rl_import skip)

from pf1e_gym import Pf1eEnv, Pf1eVectorEnv  # noqa: E402 (after the rl_import skip)
from pf1e_gym.sb3 import Pf1eSB3VecEnv  # noqa: E402 (after the rl_import skip)


def _random(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def test_vec_env_api(server_address: str) -> None:
    env = Pf1eSB3VecEnv(6, address=server_address, seed=11)
    try:
        assert isinstance(env, VecEnv) and env.num_envs == 6
        lay = env.obs_layout
        p, f = lay["planes"], lay["features"]
        assert p["start"] == 0 and p["stop"] == f["start"]
        assert f["stop"] == env.observation_space.shape[0]
        assert len(f["names"]) == f["shape"][-1] and len(p["names"]) == p["shape"][0]
        assert env.observation_space.dtype == np.float32
        obs = env.reset()
        assert obs.shape == (6, *env.observation_space.shape) and obs.dtype == np.float32
        rng = np.random.default_rng(0)
        returns = np.zeros(6)
        lengths = np.zeros(6, dtype=int)
        episodes = 0
        for _ in range(250):
            masks = env.action_masks()
            assert masks.dtype == np.bool_ and masks.shape == (6, env.action_space.n)
            assert masks.any(axis=1).all()  # never an all-false mask
            assert all(env.observation_space.contains(o) for o in obs)
            env.step_async(_random(rng, masks))
            obs, rew, dones, infos = env.step_wait()
            assert rew.dtype == np.float32 and dones.dtype == np.bool_
            returns += rew
            lengths += 1
            for i, info in enumerate(infos):
                # terminal_observation exactly at the ends.
                assert ("terminal_observation" in info) == bool(dones[i])
                if dones[i]:
                    term = info["terminal_observation"]
                    assert term.shape == env.observation_space.shape
                    assert not np.array_equal(term, obs[i])  # obs is the new episode's
                    assert info["episode"]["l"] == lengths[i]
                    assert info["episode"]["r"] == pytest.approx(returns[i])
                    assert info["winner"] in ("players", "monsters", None)
                    assert isinstance(info["TimeLimit.truncated"], bool)
                    returns[i], lengths[i] = 0.0, 0
                    episodes += 1
                else:
                    assert info == {}
        assert episodes >= 10
        # The flat vector is concat(planes, features) of the same-step vector env.
        vec = Pf1eVectorEnv(6, address=server_address, autoreset_mode="same_step")
        try:
            raw, _ = vec.reset(seed=11)
            env.seed(11)
            flat = env.reset()
            assert np.array_equal(flat[:, p["start"] : p["stop"]], raw["planes"].reshape(6, -1))
            assert np.array_equal(
                flat[:, f["start"] : f["stop"]].reshape(6, *f["shape"]), raw["features"]
            )
        finally:
            vec.close()
        # What VecEnv requires, and what MaskablePPO calls.
        assert env.get_attr("render_mode") == [None] * 6
        assert env.has_attr("action_masks") and not env.has_attr("nope")
        rows = env.env_method("action_masks", indices=[1, 3])
        assert np.array_equal(np.stack(rows), env.action_masks()[[1, 3]])
        assert env.env_is_wrapped(object) == [False] * 6
        env.set_attr("flavour", 1)
        assert env.get_attr("flavour", indices=2) == [1]
        with pytest.raises(ValueError, match="share"):
            env.set_attr("flavour", 2, indices=[0])
        assert env.seed(5) == [5, 6, 7, 8, 9, 10]
    finally:
        env.close()


def test_seeded_runs_repeat_and_dict_observations(server_address: str) -> None:
    def run(flatten: bool) -> list:
        env = Pf1eSB3VecEnv(4, address=server_address, seed=3, flatten=flatten)
        try:
            rng = np.random.default_rng(1)
            out = [env.reset()]
            for _ in range(60):
                env.step_async(_random(rng, env.action_masks()))
                obs, rew, dones, infos = env.step_wait()
                out.append((obs, rew, dones, [sorted(i) for i in infos]))
            return out
        finally:
            env.close()

    a, b = run(True), run(True)
    assert repr(a) == repr(b)
    d = run(False)
    env = Pf1eSB3VecEnv(1, address=server_address, flatten=False)
    try:
        assert set(env.observation_space.spaces) == {"planes", "features"}
    finally:
        env.close()
    for flat, dic in zip(a, d, strict=True):
        obs = flat[0] if isinstance(flat, tuple) else flat
        dobs = dic[0] if isinstance(dic, tuple) else dic
        n = dobs["planes"][0].size
        assert np.array_equal(obs[:, :n], dobs["planes"].reshape(4, -1))


def test_maskable_ppo_learns_on_it(server_address: str) -> None:
    from sb3_contrib import MaskablePPO

    env = Pf1eSB3VecEnv(8, address=server_address, seed=0, reward={"shaped": True})
    try:
        model = MaskablePPO(
            "MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=2, seed=0, verbose=0
        )
        model.learn(512)
        assert model.num_timesteps >= 512
        assert len(model.ep_info_buffer) > 0
        assert all(np.isfinite(e["r"]) for e in model.ep_info_buffer)
        obs = env.reset()
        actions, _ = model.predict(obs, action_masks=env.action_masks())
        assert env.action_masks()[np.arange(8), actions].all()
    finally:
        env.close()


def test_evaluate_policy_reads_the_envs_episode_infos(server_address: str) -> None:
    # Found by the break-it review: env_is_wrapped(Monitor) was False, so sb3-contrib's
    # evaluate_policy warned "not wrapped with a Monitor" and, under VecNormalize, reported
    # normalised step rewards instead of the episode returns this env writes itself.
    import warnings

    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import VecNormalize

    base = Pf1eSB3VecEnv(4, address=server_address, seed=3)
    env = VecNormalize(base)
    try:
        assert base.env_is_wrapped(Monitor) == [True] * 4
        model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, seed=0, verbose=0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            returns, lengths = evaluate_policy(
                model, env, n_eval_episodes=8, return_episode_rewards=True, warn=True
            )
        # Sparse reward: each return is the episode's raw outcome, +1 / -1 / 0.
        assert len(returns) == 8 and set(returns) <= {-1.0, 0.0, 1.0}
        assert all(n >= 1 for n in lengths)
    finally:
        env.close()


def test_sb3_env_checker_passes_on_pf1e_env(server_address: str) -> None:
    from stable_baselines3.common.env_checker import check_env

    env = Pf1eEnv(address=server_address)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # advice on image-like planes
            check_env(env, warn=True)
    finally:
        env.close()


def test_pf1e_gym_does_not_import_sb3_or_torch() -> None:
    code = (
        "import sys, pf1e_gym, pf1e_gym.vector, pf1e_gym.env, pf1e_gym.aec; "
        "bad = [m for m in ('stable_baselines3', 'torch', 'sb3_contrib') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
