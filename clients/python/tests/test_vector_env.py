"""Pf1eVectorEnv: StepBatch stepping, NEXT_STEP autoreset, unary fallback."""

from __future__ import annotations

import time
import warnings

import grpc
import gymnasium
import numpy as np
import pytest
from conftest import running_server
from gymnasium.vector import AutoresetMode

from pf1e_gym import Pf1eClient, Pf1eVectorEnv, pb


def _random_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    scores = rng.random(masks.shape) * masks
    return scores.argmax(axis=1)


def _run(env: Pf1eVectorEnv, seed: int, steps: int) -> list[tuple]:
    """Random legal actions (every 7th step, slot 0 an illegal one: a rejected result);
    everything a step returns, infos included, as comparable values."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out = [_info_key(info)]
    for t in range(steps):
        acts = _random_actions(rng, obs["action_mask"])
        if t % 7 == 3 and obs["action_mask"][0].sum() > 0:
            acts[0] = int(np.flatnonzero(obs["action_mask"][0] == 0)[0])
        obs, rew, term, trunc, info = env.step(acts)
        out.append(
            (
                obs["planes"].tobytes(),
                obs["features"].tobytes(),
                obs["action_mask"].tobytes(),
                rew.tobytes(),
                term.tobytes(),
                trunc.tobytes(),
                _info_key(info),
            )
        )
    return out


def _info_key(info: dict) -> tuple:
    return tuple(
        (k, v.tobytes() if v.dtype != object else tuple(v.tolist()))
        for k, v in sorted(info.items())
    )


def test_vector_env_next_step_autoreset(server_address: str) -> None:
    env = Pf1eVectorEnv(8, address=server_address)
    try:
        assert env.batched
        assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
        assert env.observation_space["planes"].shape[0] == 8
        assert isinstance(env.action_space, gymnasium.spaces.MultiDiscrete)
        rng = np.random.default_rng(0)
        obs, info = env.reset(seed=100)
        assert env.observation_space.contains(obs)
        ids = env.episode_ids
        assert len(set(ids)) == 8
        ended_prev = np.zeros(8, dtype=bool)
        endings = 0
        for _ in range(400):
            obs, rew, term, trunc, info = env.step(_random_actions(rng, obs["action_mask"]))
            assert env.observation_space.contains(obs)
            assert np.array_equal(info["action_mask"], obs["action_mask"])
            # A slot that ended last step is reset now: new episode, reward 0, not done.
            for i in np.flatnonzero(ended_prev):
                assert env.episode_ids[i] != ids[i]
                assert rew[i] == 0.0 and not term[i] and not trunc[i]
                assert obs["action_mask"][i].sum() > 0
                assert info["result_code"][i] == "ok"
            ended = term | trunc
            for i in np.flatnonzero(ended):
                assert obs["action_mask"][i].sum() == 0 and info["_winner"][i]
                assert rew[i] in (-1.0, 0.0, 1.0)
            assert not (term & trunc).any()
            ids = env.episode_ids
            endings += int(ended.sum())
            ended_prev = ended
        assert endings >= 8
    finally:
        env.close()
    with Pf1eClient(server_address) as c:
        for eid in ids:
            with pytest.raises(grpc.RpcError) as e:
                c.observe(eid)  # closed by env.close()
            assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_vector_env_batched_equals_unary(server_address: str) -> None:
    a = Pf1eVectorEnv(4, address=server_address, batch=True)
    b = Pf1eVectorEnv(4, address=server_address, batch=False)
    try:
        assert a.batched and not b.batched
        assert _run(a, 9, 60) == _run(b, 9, 60)
    finally:
        a.close()
        b.close()


def test_vector_env_columnar_equals_items(server_address: str) -> None:
    # The columnar fast path (packed columns, planes as exact bytes) gives the same
    # observations, masks, rewards and end flags as one message per slot, bit for bit,
    # through autoresets; a batch width above max_batch_items is split across calls.
    a = Pf1eVectorEnv(6, address=server_address, columnar=True)
    b = Pf1eVectorEnv(6, address=server_address, columnar=False)
    try:
        assert a.columnar and not b.columnar
        assert a._col_decisions
        a.max_batch_items = 4
        want = _run(b, 21, 80)
        assert any(
            not ok
            for step in want[1:]
            for k, v in step[-1]
            if k == "result_ok"
            for ok in np.frombuffer(v, dtype=np.bool_)
        ), "no rejected action"
        assert a._compact
        assert _run(a, 21, 80) == want
        # Full columns (a server without compact columns): masks as bytes, every plane.
        a._compact = False
        assert _run(a, 21, 80) == want
        # A server without the decision columns: the rest of each row from its item.
        a._col_decisions = False
        assert _run(a, 21, 80) == want
    finally:
        a.close()
        b.close()
    with pytest.raises(ValueError, match="columnar"):
        Pf1eVectorEnv(2, address=server_address, batch=False, columnar=True)


def test_vector_env_closes_finished_episodes_in_its_batches(server_address: str) -> None:
    # Autoreset replaces finished episodes; with capability batch_close their Close rides in
    # the next StepBatch: the server holds exactly num_envs live episodes of this env while it
    # runs (no leak), and none after close().
    client = Pf1eClient(server_address)
    try:
        live = lambda: client.stub.Stats(pb.StatsRequest()).live_episodes  # noqa: E731
        before = live()
        env = Pf1eVectorEnv(5, address=server_address)
        assert env._batch_close
        rng = np.random.default_rng(4)
        obs, _ = env.reset(seed=4)
        ended = 0
        for _ in range(120):
            obs, _, term, trunc, _ = env.step(_random_actions(rng, obs["action_mask"]))
            ended += int(np.sum(term | trunc))
        assert ended > 0, "no episode ended: the test would not exercise autoreset"
        # Episodes that ended at the last step are closed at the next one.
        assert before + 5 <= live() <= before + 5 + int(np.sum(term | trunc))
        env.close()
        assert live() == before
    finally:
        client.close()


def test_vector_env_make_vec_and_fallback_warning(server_address: str) -> None:
    env = gymnasium.make_vec("pf1e_gym/SampleArena-v0", num_envs=3, address=server_address)
    try:
        assert isinstance(env.unwrapped, Pf1eVectorEnv) and env.num_envs == 3
        env.reset(seed=1)
    finally:
        env.close()

    class OldServer(Pf1eClient):
        """A client that sees a server without StepBatch."""

        def get_spec(self, scenario: str | pb.Scenario) -> pb.Spec:
            spec = super().get_spec(scenario)
            spec.capabilities.batch = False
            return spec

    with pytest.warns(UserWarning, match="no StepBatch"):
        env = Pf1eVectorEnv(2, client=OldServer(server_address))
    try:
        assert not env.batched
        obs, _ = env.reset(seed=2)
        env.step(_random_actions(np.random.default_rng(0), obs["action_mask"]))
    finally:
        env.close()
    with pytest.raises(ValueError, match="StepBatch"):
        Pf1eVectorEnv(2, client=OldServer(server_address), batch=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Pf1eVectorEnv(2, client=OldServer(server_address), batch=False).close()


def test_vector_env_inline_error_raises(server_address: str) -> None:
    from pf1e_gym.vector import BatchItemError

    env = Pf1eVectorEnv(3, address=server_address)
    try:
        obs, _ = env.reset(seed=4)
        with Pf1eClient(server_address) as c:
            c.close_episode(env.episode_ids[1])  # pulled from under the env
        with pytest.raises(BatchItemError, match="slot 1: NOT_FOUND") as e:
            env.step(_random_actions(np.random.default_rng(0), obs["action_mask"]))
        assert e.value.slot == 1 and e.value.code == grpc.StatusCode.NOT_FOUND.value[0]
    finally:
        env.close()


def test_vector_env_after_item_error_step_refuses_until_reset(server_address: str) -> None:
    # Part of the failed call was applied (the other slots' decisions moved on): a second
    # step() must say "reset first", not resend stale decision ids; reset() recovers.
    from pf1e_gym.vector import BatchItemError

    env = Pf1eVectorEnv(3, address=server_address, autoreset_mode="same_step")
    try:
        obs, _ = env.reset(seed=4)
        with Pf1eClient(server_address) as c:
            c.close_episode(env.episode_ids[1])
        actions = _random_actions(np.random.default_rng(0), obs["action_mask"])
        with pytest.raises(BatchItemError, match="slot 1: NOT_FOUND"):
            env.step(actions)
        with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
            env.step(actions)
        obs, _ = env.reset(seed=4)
        env.step(_random_actions(np.random.default_rng(0), obs["action_mask"]))
    finally:
        env.close()


def test_vector_env_failed_chunked_reset_leaks_no_episode() -> None:
    # A reset split over several StepBatch calls (max_batch_items 8) whose last chunk is
    # refused (max_episodes): the episodes the earlier chunks created are closed, not leaked.
    from pf1e_gym.vector import BatchItemError

    with running_server("--max-batch-items", "8", "--max-episodes", "20") as address:
        env = Pf1eVectorEnv(19, address=address, autoreset_mode="same_step")
        with pytest.raises(BatchItemError, match="RESOURCE_EXHAUSTED"):
            env.reset(seed=1)  # 19 slots + a pool of 2 > 20
        env.close()
        with Pf1eClient(address) as c:
            deadline = time.monotonic() + 5
            while c.stats().live_episodes and time.monotonic() < deadline:
                time.sleep(0.05)
            assert c.stats().live_episodes == 0


def test_vector_env_partial_store_equals_full_store(server_address: str) -> None:
    # Re-resetting some slots only (the dead-reset retry path) decodes compact rows into the
    # same observation as a whole batch does.
    env = Pf1eVectorEnv(3, address=server_address)
    try:
        assert env._compact
        env.reset(seed=5)
        for i in range(3):
            env._close_slot(i)
        rows = env._call([], [(0, 77), (1, 78), (2, 79)])
        env._store(np.arange(3), rows, np.arange(3))
        full = (env._planes.copy(), env._features.copy(), env._masks.copy())
        env._store(np.array([2, 0]), _subset(rows, [2, 0]), np.array([2, 0]))
        assert np.array_equal(env._planes, full[0])
        assert np.array_equal(env._features, full[1])
        assert np.array_equal(env._masks, full[2])
    finally:
        env.close()


def _subset(rows, order):  # type: ignore[no-untyped-def]
    from pf1e_gym.vector import _Rows

    sub = _Rows(rows.masks.shape[1], [rows.state(j) for j in order])
    for name in ("masks", "decision_ids", "actor", "rounds", "planes_u8", "features"):
        setattr(sub, name, getattr(rows, name)[order])
    sub.first_plane = rows.first_plane
    return sub


def _run_same_step(env: Pf1eVectorEnv, seed: int, steps: int) -> tuple[list[tuple], int]:
    """Random legal actions in SAME_STEP mode, checking the mode's invariants at every step;
    everything returned (final observations included) as comparable values, and the number of
    episodes ended."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out = [_info_key(info)]
    endings = 0
    ids = env.episode_ids
    for _ in range(steps):
        # No all-zero mask ever reaches the learner.
        assert (obs["action_mask"].sum(axis=1) > 0).all()
        obs, rew, term, trunc, info = env.step(_random_actions(rng, obs["action_mask"]))
        assert env.observation_space.contains(obs)
        assert np.array_equal(info["action_mask"], obs["action_mask"])
        ended = term | trunc
        assert not (term & trunc).any()
        finals = []
        if ended.any():
            assert np.array_equal(info["_final_obs"], ended)
            assert np.array_equal(info["_final_info"], ended)
            fi = info["final_info"]
            assert np.array_equal(fi["_winner"], ended)
            assert (fi["actor_index"][ended] == -1).all()
            for i in range(env.num_envs):
                if ended[i]:
                    fo = info["final_obs"][i]
                    assert env.single_observation_space.contains(fo)
                    assert fo["action_mask"].sum() == 0  # the final observation
                    assert env.episode_ids[i] != ids[i]  # a new episode took the slot
                    assert rew[i] in (-1.0, 0.0, 1.0)
                    finals.append((i, fo["planes"].tobytes(), fo["features"].tobytes()))
                else:
                    assert info["final_obs"][i] is None
                    assert env.episode_ids[i] == ids[i]
        else:
            assert "final_obs" not in info
        endings += int(ended.sum())
        ids = env.episode_ids
        out.append(
            (
                obs["planes"].tobytes(),
                obs["features"].tobytes(),
                obs["action_mask"].tobytes(),
                rew.tobytes(),
                term.tobytes(),
                trunc.tobytes(),
                tuple(finals),
            )
        )
    return out, endings


def test_vector_env_same_step_autoreset(server_address: str) -> None:
    env = Pf1eVectorEnv(8, address=server_address, autoreset_mode="same_step")
    calls: list[int] = []
    stub = env.client.stub
    step_batch = stub.StepBatch

    def counting(req, **kw):
        calls.append(len(req.resets))
        return step_batch(req, **kw)

    stub.StepBatch = counting
    try:
        assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
        assert Pf1eVectorEnv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
        run_a, endings = _run_same_step(env, 100, 300)
        assert endings >= 30
        # One call per step (plus the reset's), but for the rare pool refills.
        assert len(calls) == 1 + 300 + env.pool_refills
        assert env.pool_refills <= 30
        pooled = [env._pool.state(j).episode_id for j in range(env._pool.k)]
        assert pooled
        # Reproducible: the same seed gives the same run, final observations included.
        run_b, _ = _run_same_step(env, 100, 300)
        assert run_a == run_b
        # Another seed, another run.
        assert _run_same_step(env, 101, 50)[0] != run_a[:51]
        ids = env.episode_ids
        pooled += [env._pool.state(j).episode_id for j in range(env._pool.k)]
    finally:
        stub.StepBatch = step_batch
        env.close()
    with Pf1eClient(server_address) as c:
        for eid in ids + pooled:  # slots and pool closed by reset() / close()
            with pytest.raises(grpc.RpcError) as e:
                c.observe(eid)
            assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_vector_env_same_step_unary_equals_batched(server_address: str) -> None:
    a = Pf1eVectorEnv(4, address=server_address, autoreset_mode="same_step")
    b = Pf1eVectorEnv(4, address=server_address, autoreset_mode="same_step", batch=False)
    try:
        assert _run_same_step(a, 5, 120) == _run_same_step(b, 5, 120)
    finally:
        a.close()
        b.close()
    with pytest.raises(ValueError, match="autoreset_mode"):
        Pf1eVectorEnv(2, address=server_address, autoreset_mode="disabled")


def test_vector_env_reward_options(server_address: str) -> None:
    env = Pf1eVectorEnv(
        4, address=server_address, reward={"shaped": True}, autoreset_mode="same_step"
    )
    try:
        rng = np.random.default_rng(0)

        def rewards(options: dict | None) -> np.ndarray:
            obs, _ = env.reset(seed=7, options=options)
            out = []
            for _ in range(150):  # through several autoresets
                obs, rew, *_ = env.step(_random_actions(rng, obs["action_mask"]))
                out.append(rew)
            return np.concatenate(out)

        assert np.isin(rewards({"reward": {"shaped": False}}), (-1.0, 0.0, 1.0)).all()
        assert not np.isin(rewards(None), (-1.0, 0.0, 1.0)).all()
        env.reset(seed=1, options={"reward": {"round_discount": 0.5}})
        req = env._reset_req(3)  # what the later autoresets send
        assert req.reward.shaped and req.reward.round_discount == 0.5
        with pytest.raises(ValueError, match="'gamma'"):
            env.reset(options={"reward": {"gamma": 1.0}})
    finally:
        env.close()
