"""pf1e_gym.leaderboard: the statistics against closed forms, and short real leaderboards."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pf1e_gym import Pf1eClient, pb
from pf1e_gym import leaderboard as lb
from pf1e_gym.numpy_policy import NumpyPolicy
from pf1e_gym.scripted import TensorScripted, choose_any

Z = lb.Z95


def test_wilson_closed_forms() -> None:
    # 0 of n: [0, (z²/n) / (1 + z²/n)].
    lo, hi = lb.wilson_interval(0, 10)
    assert lo == 0.0
    assert hi == pytest.approx((Z * Z / 10) / (1 + Z * Z / 10), abs=1e-12)
    assert hi == pytest.approx(0.277533, abs=1e-6)
    # 5 of 10: centre 1/2, half-width z·sqrt(1/40 + z²/400) / (1 + z²/10).
    lo, hi = lb.wilson_interval(5, 10)
    half = Z * math.sqrt(0.025 + Z * Z / 400) / (1 + Z * Z / 10)
    assert (lo, hi) == pytest.approx((0.5 - half, 0.5 + half), abs=1e-12)
    assert (lo, hi) == pytest.approx((0.2366, 0.7634), abs=5e-5)  # the usual table values
    # Symmetry: k of n mirrors n - k of n.
    lo1, hi1 = lb.wilson_interval(57, 100)
    lo2, hi2 = lb.wilson_interval(43, 100)
    assert (lo1, hi1) == pytest.approx((1 - hi2, 1 - lo2), abs=1e-12)
    assert lb.wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="outside"):
        lb.wilson_interval(11, 10)


def test_mcnemar_exact_closed_forms() -> None:
    assert lb.mcnemar_exact(0, 0) == 1.0
    assert lb.mcnemar_exact(0, 9) == 2 / 2**9
    assert lb.mcnemar_exact(9, 0) == 2 / 2**9
    assert lb.mcnemar_exact(1, 5) == pytest.approx(2 * (1 + 6) / 64)
    assert lb.mcnemar_exact(3, 3) == 1.0  # 2·P[X <= 3 | n = 6] > 1: clipped
    assert lb.mcnemar_exact(2, 10) == pytest.approx(2 * (1 + 12 + 66) / 4096)
    with pytest.raises(ValueError):
        lb.mcnemar_exact(-1, 2)


def test_compare_counts_discordant_seeds() -> None:
    seeds = np.arange(6)
    a = lb.EntryResult(
        "a", seeds, np.array([1, 1, 0, 0, 1, 0], bool), np.zeros(6, bool), np.ones(6, np.int64)
    )
    d = lb.EntryResult(
        "d", seeds, np.array([0, 1, 1, 0, 0, 0], bool), np.zeros(6, bool), np.ones(6, np.int64)
    )
    c = lb.compare(a, d)
    assert (c.b, c.c) == (2, 1)
    assert c.p_value == lb.mcnemar_exact(2, 1)
    other = lb.EntryResult("o", seeds + 1, a.won, a.draw, a.rounds)
    with pytest.raises(ValueError, match="different seeds"):
        lb.compare(other, d)


def tiny_policy(spec, seed: int = 0) -> NumpyPolicy:
    """A random-weight policy with the spec's layout (what train_ppo.py exports)."""
    schema = spec.observation_schema
    n_in = int(np.prod(schema.plane_shape) + np.prod(schema.feature_shape))
    n = int(spec.action_space_size)
    rng = np.random.default_rng(seed)
    meta = {
        "activation": "tanh",
        "obs_size": n_in,
        "action_space_size": n,
        "plane_shape": list(schema.plane_shape),
        "feature_shape": list(schema.feature_shape),
        "plane_names": list(schema.plane_names),
        "feature_names": list(schema.feature_names),
    }
    return NumpyPolicy(
        [(rng.normal(size=(8, n_in)).astype(np.float32), np.zeros(8, np.float32))],
        (rng.normal(size=(n, 8)).astype(np.float32), np.zeros(n, np.float32)),
        meta,
    )


def test_leaderboard_is_paired_and_deterministic(server_address: str, tmp_path) -> None:
    client = Pf1eClient(server_address, timeout=120)
    spec = client.get_spec("sample_arena")
    path = tmp_path / "tiny.npz"
    tiny_policy(spec).save(path)
    seeds = list(range(1_000_000, 1_000_024))
    results, base = lb.run(client, seeds, agents=[str(path)])
    names = [r.name for r in results]
    assert names == ["random", "scripted", "default policy", "tiny.npz"]
    assert base in results
    for r in results:
        assert list(r.seeds) == seeds
        assert r.n == 24
        assert (r.rounds >= 1).all()
        assert not (r.won & r.draw).any()
    # The default policy is the server's, reproducible on the same seeds.
    again = lb.play_default(client, seeds)
    assert np.array_equal(again.won, base.won)
    assert np.array_equal(again.rounds, base.rounds)
    # So are the scripted and the npz entries.
    script2 = lb.play(client, seeds, TensorScripted.from_client(client), name="scripted")
    assert np.array_equal(script2.won, results[1].won)
    text = lb.table(results, base)
    assert "(baseline)" in text and "tiny.npz" in text
    c = lb.compare(results[1], base)
    assert f"+{c.b} / -{c.c}" in text
    lb.plot(results, tmp_path / "lb.png")
    assert (tmp_path / "lb.png").stat().st_size > 1000
    client.close()


def test_tensor_scripted_plays_as_the_json_rules(server_address: str) -> None:
    """The batched scripted entry makes the same choices as pf1e_gym.scripted.choose on the
    JSON observation: same seeds, same outcomes, rounds and number of decisions."""
    client = Pf1eClient(server_address, timeout=120)
    seeds = list(range(500, 512))
    a = lb.play(client, seeds, choose_any, states=True)
    b = lb.play(client, seeds, TensorScripted.from_client(client))
    assert np.array_equal(a.won, b.won)
    assert np.array_equal(a.rounds, b.rounds)
    assert a.decisions == b.decisions
    client.close()


def test_cli(server_address: str, tmp_path, capsys) -> None:
    png = tmp_path / "board.png"
    rc = lb.main(["--address", server_address, "--episodes", "8", "--seed", "7", "--png", str(png)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "default policy" in out and "scripted" in out and "random" in out
    assert "seeds 7..14" in out
    assert png.is_file()
    for bad in (["--episodes", "0"], ["--entries", "nope"], ["--agent", str(tmp_path / "x.npz")]):
        with pytest.raises(SystemExit) as e:
            lb.main(["--address", server_address, *bad])
        assert e.value.code == 2


def test_cli_bad_arguments_exit_2_naming_the_flag(server_address: str, tmp_path, capsys) -> None:
    # Found by the break-it review: each of these was a traceback with exit 1 (a garbled
    # agent file only after every built-in entry had been played).
    garbled = tmp_path / "garbled.npz"
    garbled.write_bytes(b"not a zip")
    no_meta = tmp_path / "no_meta.npz"
    np.savez(no_meta, a=np.zeros(3))
    bad_zip = tmp_path / "bad.zip"
    bad_zip.write_bytes(b"PK garbage")
    other = tmp_path / "other_scenario.npz"
    NumpyPolicy(
        [], (np.zeros((3, 2), np.float32), np.zeros(3, np.float32)), {"action_space_size": 3}
    ).save(other)
    cases = [
        (["--scenario", "nope"], "--scenario nope: "),
        (["--side", "nobody"], "--side nobody: not a side"),
        (["--seed", "-1"], "--seed -1"),
        (["--entries", ","], "nothing to play"),
        (["--png", str(tmp_path / "no" / "x.png")], "no such directory"),
        (["--agent", str(garbled)], f"--agent {garbled}: "),
        (["--agent", str(no_meta)], "no 'meta' entry"),
        (["--agent", str(other)], "action_space_size (3) differs"),
        (["--agent", str(bad_zip)], f"--agent {bad_zip}: "),
    ]
    for bad, message in cases:
        capsys.readouterr()
        with pytest.raises(SystemExit) as e:
            lb.main(["--address", server_address, "--episodes", "2", *bad])
        assert e.value.code == 2, bad
        assert message in capsys.readouterr().err, bad


def test_play_equals_one_env_per_seed(server_address: str) -> None:
    """The batched play of an entry (StepBatch chunks of 5 items here) gives each seed the
    outcome, rounds and decisions of the same player on a plain Pf1eEnv, one unary Step at a
    time: the batching path changes nothing but the speed."""
    from pf1e_gym import Pf1eEnv

    client = Pf1eClient(server_address, timeout=120)
    seeds = list(range(700, 712))
    policy = TensorScripted.from_client(client)
    spec = client.get_spec("sample_arena")
    patched = pb.Spec()
    patched.CopyFrom(spec)
    patched.max_batch_items = 5
    real_get_spec = client.get_spec
    client.get_spec = lambda scenario: patched  # type: ignore[method-assign]
    try:
        batched = lb.play(client, seeds, policy)
        default = lb.play_default(client, seeds)
    finally:
        client.get_spec = real_get_spec  # type: ignore[method-assign]
    env = Pf1eEnv(client=client, legal_actions=False)
    won, rounds, decisions = [], [], 0
    try:
        for s in seeds:
            obs, info = env.reset(seed=s)
            while info["outcome"] is None:
                a = policy(obs["planes"][None], obs["features"][None], obs["action_mask"][None])
                obs, _r, _te, _tr, info = env.step(int(a[0]))
                decisions += 1
            won.append(info["outcome"]["winner"] == "players")
            rounds.append(info["outcome"]["rounds"])
    finally:
        env.close()
    assert batched.won.tolist() == won
    assert batched.rounds.tolist() == rounds
    assert batched.decisions == decisions
    # The default policy's episodes, reset in chunks of 5, are those of one Reset each.
    for k, s in enumerate(seeds):
        st = client.reset("sample_arena", s)
        assert (st.outcome.winner == "players") == default.won[k]
        assert st.outcome.rounds == default.rounds[k]
        client.close_episode(st.episode_id)
    client.close()
