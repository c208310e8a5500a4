"""End-to-end tests of the Python client against the real server binary."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import grpc
import numpy as np
import pytest

from pf1e_gym import Pf1eClient, Pf1eEnv, pb

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def test_random_agent_example_prints_a_win_rate(server_address: str) -> None:
    out = subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "random_agent.py"),
            "--address",
            server_address,
            "--episodes",
            "3",
            "--seed",
            "5",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    assert len(re.findall(r"^episode \d+: ", out.stdout, re.M)) == 3, out.stdout
    assert re.search(r"^players win rate: \d+\.\d% \(\d/3\)$", out.stdout, re.M), out.stdout


def test_spec_and_scenarios(server_address: str) -> None:
    with Pf1eClient(server_address) as c:
        names = [s.name for s in c.list_scenarios()]
        assert "sample_arena" in names and "mirror_duel" in names
        spec = c.get_spec("sample_arena")
        assert list(spec.sides) == ["players", "monsters"]
        assert spec.mask_polarity == "1 = legal"
        assert spec.action_space_size > 0


def test_mask_agrees_with_legal_actions(server_address: str) -> None:
    env = Pf1eEnv(address=server_address, scenario="sample_arena", controlled_sides=["players"])
    rng = np.random.default_rng(0)
    try:
        assert env.action_space.n == env.spec_msg.action_space_size
        obs, info = env.reset(seed=11)
        assert env.observation_space.contains(obs)
        steps = 0
        while info["outcome"] is None:
            mask = info["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (env.action_space.n,)
            assert set(np.flatnonzero(mask).tolist()) == {i for i, _ in info["legal_actions"]}
            assert mask.sum() >= 1
            assert info["actor"].startswith("goblin")
            action = int(rng.choice(np.flatnonzero(mask)))
            obs, reward, terminated, truncated, info = env.step(action)
            assert len(info["action_results"]) == 1
            assert info["action_results"][0]["field"] == "action_ids[0]"
            steps += 1
            assert steps < 20_000
        assert terminated or truncated
        assert reward in (-1.0, 0.0, 1.0)
        assert info["action_mask"].sum() == 0 and info["legal_actions"] == []
        with pytest.raises(RuntimeError, match="over"):
            env.step(0)
    finally:
        env.close()


def test_stale_step_raises_failed_precondition(server_address: str) -> None:
    with Pf1eClient(server_address) as c:
        s = c.reset("sample_arena", 3, controlled_sides=["players"])
        assert s.HasField("decision")
        d = s.decision.decision_id
        with pytest.raises(grpc.RpcError) as e:
            c.step(s.episode_id, d + 1, action_ids=[s.legal_actions[0].id])
        assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "decision" in e.value.details()
        # The episode still works with the right decision id.
        s2 = c.step(s.episode_id, d, action_ids=[s.legal_actions[0].id])
        assert len(s2.results) == 1
        # Bad requests get their status too.
        with pytest.raises(grpc.RpcError) as e:
            c.step(s.episode_id, d, actions=[pb.Action()])
        assert e.value.code() in (
            grpc.StatusCode.INVALID_ARGUMENT,
            grpc.StatusCode.FAILED_PRECONDITION,
        )
        with pytest.raises(grpc.RpcError) as e:
            c.reset("../etc/passwd")
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        c.close_episode(s.episode_id)
        with pytest.raises(grpc.RpcError) as e:
            c.observe(s.episode_id)
        assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_gymnasium_env_checker(server_address: str) -> None:
    from gymnasium.utils.env_checker import check_env

    env = Pf1eEnv(address=server_address, scenario="mirror_duel", controlled_sides=["west"])
    try:
        check_env(env, skip_render_check=True)
    finally:
        env.close()


def test_session_stream(server_address: str) -> None:
    with Pf1eClient(server_address) as c:
        with c.session() as s:
            r = s.call(
                reset=pb.ResetRequest(
                    scenario=pb.Scenario(named="sample_arena"),
                    seed=1,
                    controlled=pb.Controlled(sides=["players"]),
                )
            )
            st = r.state
            assert r.WhichOneof("kind") == "state" and st.HasField("decision")
            # Pipelined requests come back in order; a bad one is an inline error.
            ids = [
                s.send(observe=pb.ObserveRequest(episode_id=st.episode_id)),
                s.send(observe=pb.ObserveRequest(episode_id="nope")),
                s.send(
                    step=pb.StepRequest(
                        episode_id=st.episode_id,
                        decision_id=st.decision.decision_id,
                        action_ids=[st.legal_actions[0].id],
                    )
                ),
                s.send(echo=pb.EchoRequest(payload=b"abc")),
            ]
            got = [s.recv() for _ in ids]
            assert [g.request_id for g in got] == ids
            assert got[0].state.decision == st.decision
            assert got[1].error.code == grpc.StatusCode.NOT_FOUND.value[0]
            assert got[2].state.results[0].field == "action_ids[0]"
            assert got[3].echo.payload == b"abc"
        # The stream's episodes are closed when it ends.
        with pytest.raises(grpc.RpcError) as e:
            c.observe(st.episode_id)
        assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_batch_chunks_closes_and_item_errors(server_address: str) -> None:
    # Pf1eClient.batch, the one batching path: items cut into chunks of max_items minus the
    # closes, closes riding with the first request; an item's inline error raises
    # BatchItemError with its index in the call, and the episodes the call's resets created
    # are closed.
    from pf1e_gym.client import BatchItemError, reset_request

    with Pf1eClient(server_address) as c:
        live = lambda: c.stats().live_episodes  # noqa: E731
        base = live()
        resets = [reset_request("sample_arena", s, ["players"]) for s in range(5)]
        chunks = c.batch([], resets, max_items=2)
        assert [len(ch) for ch in chunks] == [2, 2, 1]
        assert [ch.start for ch in chunks] == [0, 2, 4]
        states = [st for ch in chunks for st in ch.states]
        for s, st in zip(range(5), states, strict=True):
            one = c.reset("sample_arena", s, controlled_sides=["players"])
            assert one.observation == st.observation and one.decision == st.decision
            c.close_episode(one.episode_id)
        assert live() == base + 5
        steps = [(st.episode_id, st.decision.decision_id, 0) for st in states[:3]]
        with pytest.raises(ValueError, match="close_episode_ids"):
            c.batch(steps, close_episode_ids=[st.episode_id for st in states], max_items=4)
        # Three steps (end_turn) and two closes: chunks of 4 - 2 = 2 items.
        chunks = c.batch(steps, close_episode_ids=[states[3].episode_id, states[4].episode_id],
                         max_items=4)  # fmt: skip
        assert [(len(ch), ch.n_steps) for ch in chunks] == [(2, 2), (1, 1)]
        assert all(st.results[0].ok for ch in chunks for st in ch.states)
        assert live() == base + 3
        assert c.batch([], []) == []
        # A bad item (an unknown episode) among resets: BatchItemError naming it, no leak.
        now = c.observe(states[0].episode_id).decision.decision_id
        bad = [(states[0].episode_id, now, 0), ("no-such-episode", 1, 0)]
        with pytest.raises(BatchItemError, match=r"item 1: NOT_FOUND") as e:
            c.batch(bad, resets[:2], max_items=3)
        assert e.value.item == 1 and e.value.code == grpc.StatusCode.NOT_FOUND.value[0]
        assert live() == base + 3
        # The unary path (a server without StepBatch) gives the same states.
        again = c.batch([], resets[:2], unary=True)
        assert [st.observation for st in again[0].states] == [st.observation for st in states[:2]]
        for st in states[:3] + list(again[0].states):
            c.close_episode(st.episode_id)
        assert live() == base


def test_unreachable_address_names_it_and_the_fix() -> None:
    # No server at an explicit address: not a raw UNAVAILABLE traceback but an error naming
    # the address and the fix (still a grpc.RpcError with code UNAVAILABLE).
    import socket

    from pf1e_gym import ServerUnavailableError

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # free once closed: nothing listens there
    address = f"127.0.0.1:{port}"
    with pytest.raises(ServerUnavailableError) as e:
        Pf1eEnv(address=address)
    msg = str(e.value)
    assert address in msg and "address given" in msg
    assert "pf1e-env-server --addr" in msg and "launch_server" in msg
    assert isinstance(e.value, grpc.RpcError) and e.value.code() == grpc.StatusCode.UNAVAILABLE
    assert e.value.__suppress_context__  # raised "from None": no gRPC traceback above it
