"""Pf1eAECEnv: PettingZoo api_test and seed_test, self-play rewards."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from pf1e_gym import Pf1eAECEnv

# api_test's advice that does not fit this env: Dict observations (tensors + mask), combatant
# ids as agent names, and the all-zero masks of agents after the end.
ALLOWED = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
    "We recommend agents to be named in the format",
    "Action mask numpy array is all zeros",
)


def _check_warnings(caught: list[warnings.WarningMessage]) -> None:
    bad = [str(w.message) for w in caught if not str(w.message).startswith(ALLOWED)]
    assert bad == []


def test_pettingzoo_api_and_seed_tests(server_address: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for observation in ("tensor", "json"):
            env = Pf1eAECEnv(address=server_address, observation=observation)
            try:
                api_test(env, num_cycles=300)
            finally:
                env.close()
            seed_test(
                lambda o=observation: Pf1eAECEnv(address=server_address, observation=o),
                num_cycles=100,
            )
    _check_warnings(caught)


def test_one_side_controlled_and_self_play_rewards(server_address: str) -> None:
    env = Pf1eAECEnv(address=server_address, scenario="sample_arena")
    assert env.possible_agents == ["goblin", "goblin-2", "goblin-3", "orc", "orc-2"]
    rng = np.random.default_rng(3)
    totals: dict[str, float] = {}
    env.reset(seed=8)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        if term or trunc:
            assert info["outcome"] is not None
            # Each agent's own final view: "is_me" (feature 1) on its own combatant row.
            is_me = obs["features"][:, 1]
            assert np.flatnonzero(is_me).tolist() == [env.agent_index[agent]]
            assert obs["action_mask"].sum() == 0
            env.step(None)
        else:
            assert info["side"] == env.agent_side[agent]
            assert np.flatnonzero(obs["features"][:, 1]).tolist() == [env.agent_index[agent]]
            assert np.array_equal(obs["action_mask"], info["action_mask"])
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.agents == []
    winner = info["outcome"]["winner"]
    for agent, total in totals.items():
        side = env.agent_side[agent]
        assert total == (0.0 if winner is None else 1.0 if side == winner else -1.0)
    env.close()

    env = Pf1eAECEnv(address=server_address, controlled_sides=["monsters"])
    try:
        assert env.possible_agents == ["orc", "orc-2"]
        env.reset(seed=1)
        assert env.agent_selection in ("orc", "orc-2")
    finally:
        env.close()


def _returns(env: Pf1eAECEnv, seed: int, options: dict | None = None) -> tuple[dict, list]:
    """One self-play episode with a seeded random policy: per-agent returns and the actions."""
    rng = np.random.default_rng(5)
    totals: dict[str, float] = {}
    actions: list[tuple[str, int]] = []
    env.reset(seed=seed, options=options)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        if term or trunc:
            env.step(None)
        else:
            a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            actions.append((agent, a))
            env.step(a)
    return totals, actions


def test_reward_dict_and_reset_options(server_address: str) -> None:
    """The reward dict of the other envs: constructor and per-reset options, checked fields."""
    env = Pf1eAECEnv(address=server_address)
    try:
        sparse, acts = _returns(env, seed=8)
        shaped_opts = {"reward": {"shaped": True, "round_discount": 0.9}}
        shaped, acts2 = _returns(env, seed=8, options=shaped_opts)
        assert acts2 == acts  # the reward does not change the game
        assert shaped != sparse
        again, _ = _returns(env, seed=8)  # the options were for that reset only
        assert again == sparse
        with pytest.raises(ValueError, match=r"round_discount: in \(0, 1\]"):
            env.reset(seed=1, options={"reward": {"round_discount": 0}})
    finally:
        env.close()
    env = Pf1eAECEnv(address=server_address, reward={"shaped": True, "round_discount": 0.9})
    try:
        assert _returns(env, seed=8)[0] == shaped
    finally:
        env.close()
    with pytest.raises(ValueError, match="unknown key 'shapd'"):
        Pf1eAECEnv(address=server_address, reward={"shapd": True})
