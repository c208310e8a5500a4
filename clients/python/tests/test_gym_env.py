"""Pf1eEnv: Gymnasium API, registration, env checker, masks, rejected actions."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest

import pf1e_gym
from pf1e_gym import Pf1eEnv


def _play_random(env: gymnasium.Env, seed: int, rng: np.random.Generator) -> tuple:
    obs, info = env.reset(seed=seed)
    steps = 0
    while True:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        steps += 1
        assert steps < 20_000
        if terminated or truncated:
            return obs, reward, terminated, truncated, info


def test_make_registered_env_with_tensor_observations(server_address: str) -> None:
    assert "pf1e_gym/SampleArena-v0" in gymnasium.registry
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the passive checker of make() must stay silent
        env = gymnasium.make("pf1e_gym/SampleArena-v0", address=server_address)
        try:
            spec = env.unwrapped.spec_msg
            schema = spec.observation_schema
            assert isinstance(env.action_space, gymnasium.spaces.Discrete)
            assert env.action_space.n == spec.action_space_size
            space = env.observation_space
            assert isinstance(space, gymnasium.spaces.Dict)
            assert set(space.spaces) == {"planes", "features", "action_mask"}
            assert space["planes"].shape == tuple(schema.plane_shape)
            assert space["features"].shape == tuple(schema.feature_shape)
            assert space["planes"].dtype == np.float32
            assert isinstance(space["action_mask"], gymnasium.spaces.MultiBinary)
            obs, info = env.reset(seed=3)
            assert space.contains(obs)
            assert np.array_equal(obs["action_mask"], info["action_mask"])
            assert obs["action_mask"].dtype == np.int8
            assert set(np.flatnonzero(obs["action_mask"]).tolist()) == {
                i for i, _ in info["legal_actions"]
            }
            # Planes: exactly one square is "me" (plane 5) for a Small/Medium actor.
            assert obs["planes"][5].sum() == 1.0
            obs, reward, terminated, truncated, info = _play_random(
                env, 4, np.random.default_rng(4)
            )
            assert terminated != truncated
            assert reward in (-1.0, 0.0, 1.0)
            assert info["outcome"] is not None
            assert obs["action_mask"].sum() == 0
            # No hidden autoreset: stepping after the end is an error until reset.
            with pytest.raises(RuntimeError, match="over"):
                env.step(0)
        finally:
            env.close()


def test_env_checker_passes_without_warnings(server_address: str) -> None:
    from gymnasium.utils.env_checker import check_env

    for observation in ("tensor", "json"):
        env = Pf1eEnv(address=server_address, scenario="sample_arena", observation=observation)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                check_env(env, skip_render_check=True)
            assert [str(w.message) for w in caught] == []
        finally:
            env.close()


def test_illegal_action_is_reported_not_raised(server_address: str) -> None:
    env = Pf1eEnv(address=server_address, observation="tensor")
    try:
        obs, info = env.reset(seed=7)
        illegal = int(np.flatnonzero(obs["action_mask"] == 0)[-1])
        obs2, reward, terminated, truncated, info2 = env.step(illegal)
        assert (reward, terminated, truncated) == (0.0, False, False)
        [res] = info2["action_results"]
        assert res["ok"] is False and res["code"] not in ("ok", "unspecified")
        assert res["reason"] and res["field"] == "action_ids[0]"
        # Nothing changed but the decision id.
        assert info2["actor"] == info["actor"]
        assert info2["decision_id"] == info["decision_id"] + 1
        for key in obs:
            assert np.array_equal(obs[key], obs2[key]), key
        with pytest.raises(ValueError, match="outside"):
            env.step(env.action_space.n)
    finally:
        env.close()


def test_json_mode_and_seeding(server_address: str) -> None:
    env = Pf1eEnv(address=server_address, observation="json")
    try:
        assert set(env.observation_space.spaces) == {"json", "action_mask"}
        obs_a, _ = env.reset(seed=21)
        obs_b, _ = env.reset(seed=21)
        assert obs_a["json"] == obs_b["json"] and obs_a["json"].startswith("{")
        # Unseeded resets draw from np_random: reproducible after a seeded reset.
        env.reset(seed=5)
        j1 = env.reset()[0]["json"]
        env.reset(seed=5)
        j2 = env.reset()[0]["json"]
        assert j1 == j2
    finally:
        env.close()


def test_shaped_reward(server_address: str) -> None:
    env = Pf1eEnv(address=server_address, shaped_reward=True, kill_weight=0.5)
    try:
        rng = np.random.default_rng(1)
        obs, info = env.reset(seed=1)
        rewards = []
        while True:
            a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, r, term, trunc, info = env.step(a)
            rewards.append(r)
            assert info["rewards"].keys() <= {"players"}
            if term or trunc:
                break
        # Shaping pays something before the end; the end still carries the sparse part.
        assert any(r != 0.0 for r in rewards[:-1])
        assert all(np.isfinite(rewards))
    finally:
        env.close()


def test_package_exports() -> None:
    assert pf1e_gym.Pf1eVectorEnv.__name__ == "Pf1eVectorEnv"
    assert pf1e_gym.Pf1eAECEnv.__name__ == "Pf1eAECEnv"
    with pytest.raises(AttributeError):
        _ = pf1e_gym.NoSuchThing  # type: ignore[attr-defined]


def test_make_without_importing_the_package(server_address: str) -> None:
    import subprocess
    import sys

    code = (
        "import gymnasium, sys\n"
        "env = gymnasium.make('pf1e_gym:pf1e_gym/SampleArena-v0', address=sys.argv[1])\n"
        "obs, info = env.reset(seed=0)\n"
        "print(sorted(obs), int(obs['action_mask'].sum()) > 0)\n"
        "env.close()\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, server_address], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['action_mask', 'features', 'planes'] True"


def _rewards_of(env: Pf1eEnv, seed: int, options: dict | None = None) -> list[float]:
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed, options=options)
    out = []
    while True:
        obs, r, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        out.append(r)
        if term or trunc:
            return out


def test_reward_dict_and_reset_options(server_address: str) -> None:
    old = Pf1eEnv(address=server_address, shaped_reward=True, kill_weight=0.5)
    new = Pf1eEnv(address=server_address, reward={"shaped": True, "kill_weight": 0.5})
    try:
        assert new.reward == old.reward == {"shaped": True, "kill_weight": 0.5}
        shaped = _rewards_of(new, 3)
        assert shaped == _rewards_of(old, 3)
        assert any(r not in (-1.0, 0.0, 1.0) for r in shaped)
        # options["reward"] overrides keys for that episode only.
        sparse = _rewards_of(new, 3, {"reward": {"shaped": False}})
        assert len(sparse) == len(shaped) and set(sparse) <= {-1.0, 0.0, 1.0}
        assert all(r == 0.0 for r in sparse[:-1])
        assert _rewards_of(new, 3) == shaped
        with pytest.raises(ValueError, match="'gamma'"):
            new.reset(options={"reward": {"gamma": 0.9}})
        with pytest.raises(ValueError, match="'rewards'"):
            new.reset(options={"rewards": {}})
        with pytest.raises(ValueError, match="kill_weight"):
            Pf1eEnv(address=server_address, reward={"kill_weight": "a lot"})
        with pytest.raises(ValueError, match="'discount'"):
            Pf1eEnv(address=server_address, reward={"discount": 0.5})
        # round_discount is sent as RewardOptions.round_discount.
        sent = []
        reset = new.client.reset

        def spy(*args, **kwargs):
            sent.append(kwargs.get("reward"))
            return reset(*args, **kwargs)

        new.client.reset = spy  # type: ignore[method-assign]
        new.reset(seed=1, options={"reward": {"round_discount": 0.9}})
        new.reset(seed=1)
        assert sent[0].HasField("round_discount") and abs(sent[0].round_discount - 0.9) < 1e-6
        assert sent[0].shaped and not sent[1].HasField("round_discount")
    finally:
        old.close()
        new.close()


def test_observation_space_repr_is_short(server_address: str) -> None:
    for observation in ("tensor", "json"):
        env = Pf1eEnv(address=server_address, observation=observation)
        try:
            text = repr(env.observation_space)
            assert len(text) < 400, (observation, len(text))
            if observation == "json":
                assert (
                    "JsonText" in text and len(env.observation_space["json"].character_set) > 60_000
                )
        finally:
            env.close()
    # With the exact per-feature bounds (capabilities.feature_bounds) gymnasium's Box repr
    # listed every bound: 8,255 characters for the tensor observation (break-it review).
    from pf1e_gym import Pf1eVectorEnv
    from pf1e_gym.parallel import Pf1eParallelEnv

    venv = Pf1eVectorEnv(2, address=server_address, observation="tensor")
    par = Pf1eParallelEnv(address=server_address, observation="tensor")
    try:
        exact = venv.codec.exact_bounds  # an older server: uniform bounds, a short repr
        for space in (venv.single_observation_space, par.observation_space("goblin")):
            text = repr(space)
            assert len(text) < 400, text
            assert ("BoundsBox(low in [" in text) == exact, text
        if exact:
            assert float(space["features"].low.min()) == -1.0  # the bounds themselves are kept
    finally:
        venv.close()
        par.close()


def test_tensor_bounds_from_schema(server_address: str) -> None:
    from pf1e_gym import pb
    from pf1e_gym._codec import TENSOR_HIGH, ObsCodec

    env = Pf1eEnv(address=server_address, observation="tensor")
    try:
        spec = pb.Spec()
        spec.CopyFrom(env.spec_msg)
    finally:
        env.close()
    planes, rows, cols = spec.observation_schema.plane_shape
    combatants, features = spec.observation_schema.feature_shape
    if not spec.capabilities.feature_bounds:
        codec = ObsCodec(spec, "tensor")
        assert not codec.exact_bounds and codec.space["features"].high.max() == TENSOR_HIGH
        spec.capabilities.feature_bounds = True
        schema = spec.observation_schema
        schema.feature_low[:] = [-1.0 if k == 0 else 0.0 for k in range(features)]
        schema.feature_high[:] = [float(k + 1) for k in range(features)]
        schema.plane_low[:] = [0.0] * planes
        schema.plane_high[:] = [1.0 + k for k in range(planes)]
    codec = ObsCodec(spec, "tensor")
    assert codec.exact_bounds
    f, p = codec.space["features"], codec.space["planes"]
    assert f.shape == (combatants, features) and p.shape == (planes, rows, cols)
    for c in range(combatants):
        assert np.array_equal(f.low[c], np.asarray(spec.observation_schema.feature_low, np.float32))
        assert np.array_equal(
            f.high[c], np.asarray(spec.observation_schema.feature_high, np.float32)
        )
    for k in range(planes):
        assert (p.high[k] == np.float32(spec.observation_schema.plane_high[k])).all()
        assert (p.low[k] == np.float32(spec.observation_schema.plane_low[k])).all()


def test_every_bundled_scenario_has_a_gym_id(server_address: str) -> None:
    # One registered id per data/scenarios/*.yaml (none left out, none stale), the agent on a
    # side of that file; each one makes, resets and steps (and makes its vector env).
    import pathlib

    import yaml

    data = pathlib.Path(__file__).resolve().parents[3] / "data" / "scenarios"
    files = {p.stem: yaml.safe_load(p.read_text()) for p in sorted(data.glob("*.yaml"))}
    by_scenario = {kw["scenario"]: (env_id, kw) for env_id, kw in pf1e_gym.GYM_IDS.items()}
    assert sorted(by_scenario) == sorted(files)
    for name, (env_id, kw) in by_scenario.items():
        assert env_id in gymnasium.registry
        camel = "".join(w[:1].upper() + w[1:] for w in name.split("_"))
        assert env_id == f"pf1e_gym/{camel}-v0"
        assert kw["controlled_sides"] == [next(iter(files[name]["sides"]))], name
        env = gymnasium.make(env_id, address=server_address)
        # (The mirror duel's default-policy orc may kill the agent's in round 1: seed 0.)
        obs, info = next(
            (o, i) for o, i in (env.reset(seed=s) for s in range(10)) if i["actor"] is not None
        )
        action = int(np.flatnonzero(obs["action_mask"])[0])
        _obs, _r, _te, _tr, info = env.step(action)
        assert info["action_results"][0]["ok"], (env_id, info["action_results"])
        env.close()
    venv = gymnasium.make_vec(
        "pf1e_gym/Skirmish4v4-v0",
        num_envs=2,
        vectorization_mode="vector_entry_point",
        address=server_address,
    )
    obs, _ = venv.reset(seed=1)
    assert obs["action_mask"].shape[0] == 2 and obs["action_mask"].sum() > 0
    venv.close()


def test_version_on_the_python_clis(capsys) -> None:
    import importlib.metadata

    from pf1e_gym import leaderboard

    assert pf1e_gym.__version__ == importlib.metadata.version("pf1e-gym")
    with pytest.raises(SystemExit) as e:
        leaderboard.main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"pf1e-leaderboard {pf1e_gym.__version__}"
    try:
        from pf1e_gym.llm import eval as llm_eval
    except ImportError:  # the llm extra is not installed
        return
    assert llm_eval.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"pf1e-llm-eval {pf1e_gym.__version__}"
