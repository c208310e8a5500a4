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
