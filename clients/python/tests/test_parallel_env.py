"""Pf1eParallelEnv: PettingZoo parallel_api_test, self-play episodes, rewards, seeds, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from pf1e_gym._codec import reward_dict, reward_options
from pf1e_gym.parallel import Pf1eParallelEnv

# parallel_api_test's advice that does not fit: Dict observations and the zero masks of the
# agents after the end (they are no longer live).
ALLOWED = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
    "We recommend agents to be named in the format",
    "Action mask numpy array is all zeros",
)


def _random_policy(env: Pf1eParallelEnv, obs: dict, rng: np.random.Generator) -> dict:
    """A masked random action for every live agent (waiting agents draw the wait id)."""
    return {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}


def _play(
    env: Pf1eParallelEnv,
    seed: int,
    policy_seed: int,
    max_steps: int = 5000,
    options: dict | None = None,
) -> dict:
    """One run to the end; returns the totals, the acting agents per step, the outcomes."""
    rng = np.random.default_rng(policy_seed)
    obs, infos = env.reset(seed=seed, options=options)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    acting: list[tuple[str, ...]] = []
    trace: list[tuple] = []
    outcomes: dict[str, dict] = {}
    for _ in range(max_steps):
        if not env.agents:
            break
        live = list(env.agents)
        for a in live:
            mask = obs[a]["action_mask"]
            assert mask.sum() > 0, f"live agent {a} got an all-zero mask"
            assert np.array_equal(mask, infos[a]["action_mask"])
            if infos[a]["acting"]:
                assert mask[env.wait_id] == 0
                # Its own viewpoint: "is me" (feature 1) on its own combatant row.
                assert np.flatnonzero(obs[a]["features"][:, 1]).tolist() == [env.agent_index[a]]
            else:
                assert mask.tolist() == env._wait_mask.tolist()
        acting.append(tuple(a for a in live if infos[a]["acting"]))
        actions = _random_policy(env, obs, rng)
        obs, rew, term, trunc, infos = env.step(actions)
        assert set(obs) == set(rew) == set(term) == set(trunc) == set(infos) == set(live)
        for a, r in rew.items():
            totals[a] += r
        trace.append(tuple(sorted(rew.items())))
        for a in live:
            if term[a] or trunc[a]:
                assert a not in env.agents
                outcomes[a] = infos[a]["outcome"]
                assert obs[a]["action_mask"].sum() == 0
                assert np.flatnonzero(obs[a]["features"][:, 1]).tolist() == [env.agent_index[a]]
    else:
        pytest.fail("the episode did not end")
    return {"totals": totals, "acting": acting, "outcomes": outcomes, "trace": trace}


def test_parallel_api_test(server_address: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for kwargs in (
            {"observation": "tensor"},
            {"observation": "json"},
            {"num_episodes": 3},
            {"wait_action": False},
        ):
            env = Pf1eParallelEnv(address=server_address, **kwargs)
            try:
                parallel_api_test(env, num_cycles=2000)
            finally:
                env.close()
    bad = [str(w.message) for w in caught if not str(w.message).startswith(ALLOWED)]
    assert bad == []


def test_self_play_episode_both_sides_act_sparse_rewards(server_address: str) -> None:
    env = Pf1eParallelEnv(address=server_address)
    try:
        assert env.possible_agents == ["goblin", "goblin-2", "goblin-3", "orc", "orc-2"]
        assert env.wait_id == env.n
        assert env.action_space("orc").n == env.n + 1
        run = _play(env, seed=8, policy_seed=3)
        # Exactly one agent acts per step (one episode, a sequential engine).
        assert all(len(x) == 1 for x in run["acting"])
        sides_acting = {env.agent_side[x[0]] for x in run["acting"]}
        assert sides_acting == {"players", "monsters"}
        outcomes = run["outcomes"]
        assert set(outcomes) == set(env.possible_agents)
        winner = next(iter(outcomes.values()))["winner"]
        for a, total in run["totals"].items():
            expected = 0.0 if winner is None else 1.0 if env.agent_side[a] == winner else -1.0
            assert total == expected, (a, total, winner)
        assert env.agents == []
        with pytest.raises(RuntimeError, match="reset"):
            env.step({})
    finally:
        env.close()


def test_batched_episodes_several_agents_act_per_call(server_address: str) -> None:
    env = Pf1eParallelEnv(address=server_address, num_episodes=4)
    try:
        assert len(env.possible_agents) == 20 and "orc-2/3" in env.possible_agents
        run = _play(env, seed=100, policy_seed=1)
        assert max(len(x) for x in run["acting"]) == 4
        # At most one acting agent per episode.
        assert all(len({env.agent_episode[a] for a in x}) == len(x) for x in run["acting"])
        for k in range(4):
            names = [a for a in env.possible_agents if env.agent_episode[a] == k]
            winner = run["outcomes"][names[0]]["winner"]
            for a in names:
                expected = 0.0 if winner is None else 1.0 if env.agent_side[a] == winner else -1.0
                assert run["totals"][a] == expected
        # Episode k of a batch seeded s is a single episode seeded s + k: same first views.
        obs4, _ = env.reset(seed=100)
        single = Pf1eParallelEnv(address=server_address)
        try:
            obs1, _ = single.reset(seed=102)
            for cid in single.possible_agents:
                for key in ("planes", "features", "action_mask"):
                    assert np.array_equal(obs1[cid][key], obs4[f"{cid}/2"][key])
        finally:
            single.close()
    finally:
        env.close()


def test_seeds_reproducible(server_address: str) -> None:
    env = Pf1eParallelEnv(address=server_address, num_episodes=2)
    try:
        a = _play(env, seed=5, policy_seed=9)
        b = _play(env, seed=5, policy_seed=9)
        c = _play(env, seed=6, policy_seed=9)
        assert a["trace"] == b["trace"] and a["acting"] == b["acting"]
        assert a["outcomes"] == b["outcomes"]
        assert (a["acting"], a["trace"]) != (c["acting"], c["trace"])
        # Unseeded resets draw from the generator seeded by the last seed.
        env.reset(seed=11)
        o1, _ = env.reset()
        env.reset(seed=11)
        o2, _ = env.reset()
        for agent in env.possible_agents:
            assert np.array_equal(o1[agent]["features"], o2[agent]["features"])
    finally:
        env.close()


def test_one_side_controlled_other_by_default_policy(server_address: str) -> None:
    env = Pf1eParallelEnv(address=server_address, controlled_sides=["players"])
    try:
        assert env.possible_agents == ["goblin", "goblin-2", "goblin-3"]
        run = _play(env, seed=4, policy_seed=2)
        winner = run["outcomes"]["goblin"]["winner"]
        expected = 0.0 if winner is None else 1.0 if winner == "players" else -1.0
        assert set(run["totals"].values()) == {expected}
    finally:
        env.close()


def test_shaped_reward_via_reset_options(server_address: str) -> None:
    env = Pf1eParallelEnv(address=server_address)
    try:
        sparse = _play(env, seed=8, policy_seed=3)
        shaped_opts = {"reward": {"shaped": True, "kill_weight": 0.5}}
        shaped = _play(env, seed=8, policy_seed=3, options=shaped_opts)
        assert sparse["acting"] == shaped["acting"]  # rewards do not change the game
        nonzero = [r for step in shaped["trace"] for _, r in step if r != 0.0]
        sparse_nonzero = [r for step in sparse["trace"] for _, r in step if r != 0.0]
        assert len(nonzero) > len(sparse_nonzero)
        assert sparse["totals"] != shaped["totals"]
        # The options were for that reset only (as Pf1eEnv): the next one is sparse again.
        again = _play(env, seed=8, policy_seed=3)
        assert again["totals"] == sparse["totals"]
    finally:
        env.close()


def test_reward_dict_errors(server_address: str) -> None:
    with pytest.raises(ValueError, match=r"reward: unknown key 'shapd'"):
        reward_dict({"shapd": True})
    with pytest.raises(ValueError, match=r"reward\.shaped: a bool"):
        reward_dict({"shaped": 1})
    with pytest.raises(ValueError, match=r"reward\.kill_weight: a number"):
        reward_dict({"kill_weight": "0.1"})
    for bad in (0.0, -0.5, 1.5, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"reward\.round_discount: in \(0, 1\]"):
            reward_dict({"round_discount": bad})
    with pytest.raises(ValueError, match=r"reward\.damage_weight: finite"):
        reward_dict({"damage_weight": float("nan")})
    with pytest.raises(ValueError, match="round_discount"):
        reward_options({"round_discount": 0.9}, {"round_discount": False})
    opts = reward_options(reward_dict({"shaped": True, "damage_weight": 2, "round_discount": 0.9}))
    assert opts is not None and opts.shaped and opts.damage_weight == 2.0
    assert abs(opts.round_discount - 0.9) < 1e-6
    with pytest.raises(ValueError, match=r"reward\.round_discount: in \(0, 1\]"):
        Pf1eParallelEnv(address=server_address, reward={"round_discount": 0})
    with pytest.raises(ValueError, match="num_episodes"):
        Pf1eParallelEnv(address=server_address, num_episodes=0)
    with pytest.raises(ValueError, match="no controlled combatant"):
        Pf1eParallelEnv(address=server_address, controlled_sides=["nobody"])
    env = Pf1eParallelEnv(address=server_address)
    try:
        with pytest.raises(ValueError, match=r"options\[.reward.\]: unknown key .weight."):
            env.reset(seed=1, options={"reward": {"weight": 1.0}})
        # Unknown top-level option keys are ignored (parallel_api_test passes some).
        env.reset(seed=1, options={"options": 1})
    finally:
        env.close()


def test_bad_actions(server_address: str) -> None:
    env = Pf1eParallelEnv(address=server_address)
    try:
        obs, infos = env.reset(seed=8)
        (actor,) = env.acting_agents()
        assert infos[actor]["acting"]
        waiting = next(a for a in env.agents if a != actor)
        legal = int(np.flatnonzero(obs[actor]["action_mask"])[0])
        with pytest.raises(ValueError, match=r"actions\['wizard'\]: not an agent"):
            env.step({actor: legal, "wizard": 0})
        with pytest.raises(ValueError, match=rf"actions\[{actor!r}\]: this agent must act"):
            env.step({waiting: env.wait_id})
        with pytest.raises(ValueError, match="the wait id"):
            env.step({actor: env.wait_id})
        with pytest.raises(ValueError, match="outside the action space"):
            env.step({actor: env.n + 5})
        with pytest.raises(ValueError, match="outside the action space"):
            env.step({actor: -1})
        with pytest.raises(ValueError, match="expected an action id"):
            env.step({actor: "attack"})
        # Found by the break-it review: int() made 1.5 and "0" the actions 1 and 0.
        for not_an_int in (legal + 0.5, str(legal), np.float64(legal)):
            with pytest.raises(ValueError, match="expected an action id"):
                env.step({actor: not_an_int})
        with pytest.raises(ValueError, match="given to a waiting agent"):
            env.step({actor: legal, waiting: float(env.wait_id)})
        with pytest.raises(ValueError, match="given to a waiting agent"):
            env.step({actor: legal, waiting: legal})
        # Nothing was sent by the refused calls: the same decision is pending.
        assert env.acting_agents() == [actor]
        # An id in range but masked out: the server refuses it, nothing changes, the same
        # agent acts again.
        illegal = int(np.flatnonzero(obs[actor]["action_mask"][: env.n] == 0)[0])
        obs2, rew, term, _trunc, infos2 = env.step({actor: illegal})
        assert infos2[actor]["acting"] and env.acting_agents() == [actor]
        (result,) = infos2[actor]["action_results"]
        assert result["ok"] is False and result["code"] != "ok"
        assert all(r == 0.0 for r in rew.values()) and not any(term.values())
        # (The server re-issues the decision under a new decision id.)
        assert infos2[actor]["round"] == infos[actor]["round"]
        assert np.array_equal(obs2[actor]["action_mask"], obs[actor]["action_mask"])
        # None / omitted for waiting agents is fine; numpy integers (0-d arrays too) are ids.
        env.step({actor: np.array(legal), waiting: np.int64(env.wait_id)})
    finally:
        env.close()


def test_batched_equals_unary_and_chunked(server_address: str) -> None:
    # The one batching path (Pf1eClient.batch): one StepBatch per step, StepBatch chunks of
    # 2 items, and unary Step/Reset calls give the same run, rewards and outcomes.
    runs = []
    for batched, max_items in ((True, None), (True, 2), (False, None)):
        env = Pf1eParallelEnv(address=server_address, num_episodes=3)
        try:
            env._batched = batched
            if max_items is not None:
                env.max_batch_items = max_items
            runs.append(_play(env, seed=12, policy_seed=4))
        finally:
            env.close()
    assert runs[0]["outcomes"] and runs[0] == runs[1] == runs[2]
