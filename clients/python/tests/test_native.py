"""The engine in process (``pf1e_gym.native``) against the gRPC path.

Same scenario, controlled side, seeds and actions ⇒ the same trajectories as
:class:`~pf1e_gym.vector.Pf1eVectorEnv` over a real server, bit for bit: observations (planes,
features, mask, reaction keys), rewards, ``terminated`` / ``truncated`` and every info key,
``final_obs`` / ``final_info`` included, in both autoreset modes, on bundled and inline
scenarios, with shaped discounted rewards, and whatever the thread count.

``PF1E_NATIVE_EPISODES`` sets how many episodes the sample-arena comparison plays (default 160,
a few seconds; the issue's 1,000: ``PF1E_NATIVE_EPISODES=1000 pytest -k native``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from pf1e_gym import Pf1eEnv, Pf1eVectorEnv, pb

native = pytest.importorskip(
    "pf1e_gym.native",
    reason="pf1e_gym._native is not built (pip install -e clients/python builds it)",
)

from aoo_scenarios import DATA  # noqa: E402
from test_reactions import yard  # noqa: E402

EPISODES = int(os.environ.get("PF1E_NATIVE_EPISODES", "160"))


def _same(a: Any, b: Any, where: str) -> None:
    """``a`` and ``b`` equal, arrays bit for bit (floats compared as their bits)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), f"{where}: keys {a.keys()} / {b}"
        for k in a:
            _same(a[k], b[k], f"{where}.{k}")
        return
    if isinstance(a, tuple | list):
        assert isinstance(b, tuple | list) and len(a) == len(b), f"{where}: {a!r} / {b!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
        return
    if isinstance(a, np.ndarray):
        b = np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype, (
            f"{where}: {a.dtype}{a.shape} / {b.dtype}{b.shape}"
        )
        if a.dtype == object:
            for i, (x, y) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
                _same(x, y, f"{where}[{i}]")
        elif a.dtype.kind == "f":
            assert np.array_equal(a.view(np.uint8), b.view(np.uint8)), f"{where}: values differ"
        else:
            assert np.array_equal(a, b), f"{where}: {a} / {b}"
        return
    assert a == b, f"{where}: {a!r} / {b!r}"


def _acts(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A random legal action per row (0 for a row with none: an ended NEXT_STEP slot)."""
    return np.array([int(rng.choice(ids)) if len(ids) else 0 for ids in map(np.flatnonzero, masks)])


def _play(make: Callable[[], tuple[Any, Any]], episodes: int, seed: int, rng_seed: int = 0) -> int:
    """Step a gRPC env and a native env side by side with the same random legal actions until
    ``episodes`` episodes ended, comparing everything at every step. Returns the steps taken."""
    grpc_env, nat = make()
    try:
        rng = np.random.default_rng(rng_seed)
        _same(grpc_env.reset(seed=seed), nat.reset(seed=seed), "reset")
        masks = nat.action_masks()
        ended = steps = 0
        while ended < episodes:
            acts = _acts(rng, masks)
            g, n = grpc_env.step(acts), nat.step(acts)
            steps += 1
            _same(g, n, f"step {steps}")
            ended += int(np.sum(n[2] | n[3]))
            masks = n[0]["action_mask"]
        return steps
    finally:
        grpc_env.close()
        nat.close()


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_native_vector_env_equals_grpc_sample_arena(server_address: str, mode: str) -> None:
    def make() -> tuple[Pf1eVectorEnv, native.VectorEnv]:
        return (
            Pf1eVectorEnv(16, server_address, autoreset_mode=mode),
            native.VectorEnv(16, data_dir=str(DATA), autoreset_mode=mode, num_threads=2),
        )

    assert _play(make, EPISODES // 2, seed=11) > 0


def test_native_vector_env_equals_grpc_shaped_reward_casters(server_address: str) -> None:
    """Spellcasters (the biggest action space), shaped rewards with a round discount, changed
    per reset through ``options``."""
    reward = {"shaped": True, "damage_weight": 0.5, "kill_weight": 0.2, "round_discount": 0.9}

    def make() -> tuple[Pf1eVectorEnv, native.VectorEnv]:
        return (
            Pf1eVectorEnv(4, server_address, "casters", reward=reward),
            native.VectorEnv(4, "casters", data_dir=str(DATA), reward=reward),
        )

    assert _play(make, 6, seed=3) > 0
    g = Pf1eVectorEnv(2, server_address, reward=reward)
    n = native.VectorEnv(2, data_dir=str(DATA), reward=reward)
    opts = {"reward": {"kill_weight": 1.0, "round_discount": None}}
    _same(g.reset(seed=5, options=opts), n.reset(seed=5, options=opts), "reset(options)")
    acts = np.array([int(np.flatnonzero(m)[0]) for m in n.action_masks()])
    _same(g.step(acts), n.step(acts), "step after reset(options)")
    g.close()


def test_native_vector_env_equals_grpc_inline_reactions(server_address: str) -> None:
    """An inline scenario (``examples/aoo_agent.py``'s yard) whose controlled side is offered
    attacks of opportunity: the reaction observation keys and ``info["reaction"]`` offers
    agree."""

    def make() -> tuple[Pf1eVectorEnv, native.VectorEnv]:
        return (
            Pf1eVectorEnv(4, server_address, yard(), reaction_obs=True, autoreset_mode="same_step"),
            native.VectorEnv(
                4, yard(), data_dir=str(DATA), reaction_obs=True, autoreset_mode="same_step"
            ),
        )

    reactions = 0
    rng = np.random.default_rng(1)
    g, n = make()
    try:
        _same(g.reset(seed=2), n.reset(seed=2), "reset")
        masks = n.action_masks()
        for step in range(60):
            acts = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
            out_g, out_n = g.step(acts), n.step(acts)
            _same(out_g, out_n, f"step {step}")
            reactions += int(np.sum(out_n[4]["_reaction"]))
            masks = out_n[0]["action_mask"]
    finally:
        g.close()
        n.close()
    assert reactions > 0, "the guard was never offered an attack of opportunity"


def test_native_threads_do_not_change_trajectories() -> None:
    """One thread or two: the same observations (determinism at any thread count)."""
    a = native.VectorEnv(8, data_dir=str(DATA), num_threads=1)
    b = native.VectorEnv(8, data_dir=str(DATA), num_threads=2)
    assert (a.num_threads, b.num_threads) == (1, 2)
    _same(a.reset(seed=4), b.reset(seed=4), "reset")
    rng = np.random.default_rng(0)
    for step in range(40):
        acts = _acts(rng, a.action_masks())
        _same(a.step(acts), b.step(acts), f"step {step}")


def test_native_single_env_equals_pf1e_env(server_address: str) -> None:
    """``native.Env`` gives ``Pf1eEnv``'s observations, rewards and flags."""
    g = Pf1eEnv(server_address)
    n = native.Env(data_dir=str(DATA), reward={"shaped": True})
    g_shaped = Pf1eEnv(server_address, reward={"shaped": True})
    try:
        assert n.observation_space == g.observation_space
        rng = np.random.default_rng(9)
        for seed in range(3):
            (og, ig), (on, inn) = g_shaped.reset(seed=seed), n.reset(seed=seed)
            _same(og, on, f"reset {seed}")
            done = False
            while not done:
                assert inn["actor_index"] == ig["actor_index"]
                assert inn["decision_kind"] == ig["decision_kind"]
                a = int(rng.choice(np.flatnonzero(on["action_mask"])))
                og, rg, tg, ug, ig = g_shaped.step(a)
                on, rn, tn, un, inn = n.step(a)
                _same((og, rg, tg, ug), (on, rn, tn, un), f"seed {seed}")
                assert inn["result_ok"] == ig["action_results"][0]["ok"]
                done = tn or un
            assert inn["outcome"] == ig["outcome"]
        with pytest.raises(RuntimeError, match="over"):
            n.step(0)
    finally:
        g.close()
        g_shaped.close()
        n.close()


def test_native_copy_modes_and_bad_input() -> None:
    shared = native.VectorEnv(2, data_dir=str(DATA), copy=False)
    obs, _ = shared.reset(seed=1)
    planes = obs["planes"]
    obs2 = shared.step(np.array([int(np.flatnonzero(m)[0]) for m in shared.action_masks()]))[0]
    assert obs2["planes"] is planes, "copy=False returns the env's own (overwritten) arrays"
    copied = native.VectorEnv(2, data_dir=str(DATA))
    obs, _ = copied.reset(seed=1)
    obs2 = copied.step(np.array([int(np.flatnonzero(m)[0]) for m in copied.action_masks()]))[0]
    assert obs2["planes"] is not obs["planes"]

    n = copied.single_action_space.n
    with pytest.raises(ValueError, match=f"action {n} of env 1 outside Discrete"):
        copied.step(np.array([0, n]))
    fresh = native.VectorEnv(1, data_dir=str(DATA))
    with pytest.raises(RuntimeError, match="reset"):
        fresh.step(np.array([0]))
    with pytest.raises(ValueError, match=r"scenario\.named"):
        native.VectorEnv(1, "no_such_scenario", data_dir=str(DATA))
    with pytest.raises(ValueError, match=r"controlled.sides\[0\]"):
        native.VectorEnv(1, controlled_sides=("nobody",), data_dir=str(DATA))
    with pytest.raises(ValueError, match=r"controlled.combatant_ids\[0\]"):
        native.VectorEnv(1, controlled_sides=(), controlled_ids=("x",), data_dir=str(DATA))
    with pytest.raises(ValueError, match="tensor observations only"):
        native.VectorEnv(1, data_dir=str(DATA), observation="json")
    with pytest.raises(ValueError, match="round_discount"):
        native.VectorEnv(1, data_dir=str(DATA), reward={"round_discount": 2.0})
    with pytest.raises(ValueError, match="num_envs"):
        native.VectorEnv(0, data_dir=str(DATA))
    # A bad item refuses the whole call before anything runs: the env steps on afterwards.
    obs, *_ = copied.step(np.array([int(np.flatnonzero(m)[0]) for m in copied.action_masks()]))
    assert obs["action_mask"].any()


def test_native_spec_is_the_servers(server_address: str) -> None:
    from pf1e_gym import Pf1eClient

    with Pf1eClient(server_address) as c:
        served = c.get_spec("casters")
    local = native.spec("casters", data_dir=str(DATA))
    # The same message but the limits of the serving process.
    served.ClearField("max_batch_items")
    local.ClearField("max_batch_items")
    assert served == local
    assert isinstance(local, pb.Spec)


def test_sb3_vec_env_native_backend_equals_grpc(server_address: str) -> None:
    """``Pf1eSB3VecEnv(backend="native")``: the same flattened observations, rewards, dones,
    masks and episode infos as over gRPC."""
    from conftest import rl_import

    rl_import("stable_baselines3")
    from pf1e_gym.sb3 import Pf1eSB3VecEnv

    g = Pf1eSB3VecEnv(4, server_address, seed=7, reward={"shaped": True})
    n = Pf1eSB3VecEnv(4, seed=7, reward={"shaped": True}, backend="native", data_dir=str(DATA))
    try:
        _same(g.reset(), n.reset(), "reset")
        rng = np.random.default_rng(2)
        ended = 0
        for step in range(40):
            masks = n.action_masks()
            _same(g.action_masks(), masks, f"masks {step}")
            acts = _acts(rng, masks)
            g.step_async(acts)
            n.step_async(acts)
            og, rg, dg, ig = g.step_wait()
            on, rn, dn, inn = n.step_wait()
            _same((og, rg, dg), (on, rn, dn), f"step {step}")
            for a, b in zip(ig, inn, strict=True):
                assert a.keys() == b.keys()
                ea, eb = a.get("episode"), b.get("episode")
                if ea is not None:  # "t" is wall time: not compared
                    _same((ea["r"], ea["l"]), (eb["r"], eb["l"]), f"episode info {step}")
            ended += int(dn.sum())
        assert ended > 0
        with pytest.raises(ValueError, match="backend"):
            Pf1eSB3VecEnv(1, backend="carrier-pigeon")
    finally:
        g.close()
        n.close()


def test_bundled_in_a_development_install(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """A checkout's install bundles no binaries (the server comes from $PF1E_SERVER_BIN or
    PATH) and finds the checkout's data; its console scripts then run the next binary on PATH,
    or exit 2 saying how to get one."""
    import pathlib

    from pf1e_gym import _bundled, _cli

    if _bundled.server_command() is not None:
        pytest.skip("this install bundles binaries (a wheel): scripts/wheel_smoke.py covers it")
    assert _bundled.sim_command() is None
    assert pathlib.Path(_bundled.data_dir()) == DATA.resolve()
    native.VectorEnv(1).reset(seed=0)  # the data directory by default
    monkeypatch.setenv("PATH", "")
    assert _cli.server() == 2
    assert "bundles no pf1e-env-server" in capsys.readouterr().err
