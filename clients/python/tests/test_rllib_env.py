"""RLlib over Pf1eParallelEnv: the native turn-based env, the PettingZoo wrapper path, and one
PPO iteration with action masking (skipped where ``ray[rllib]`` or torch is missing)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import rl_import

rl_import("ray.rllib", "rllib")

from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv  # noqa: E402 (after the rl_import skip)

from pf1e_gym.parallel import Pf1eParallelEnv  # noqa: E402 (after the rl_import skip)
from pf1e_gym.rllib import Pf1eRLlibEnv, side_mapping  # noqa: E402 (after the rl_import skip)


def _run_native(env: Pf1eRLlibEnv, seed: int) -> tuple[dict, dict, int]:
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    seen_done: set[str] = set()
    outcomes: dict[str, dict] = {}
    while True:
        assert obs, "no agent to act"
        for a, o in obs.items():
            assert env.observation_spaces[a].contains(o), a
        acting = {a for a in obs if infos[a]["acting"]}
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in acting}
        obs, rew, term, trunc, infos = env.step(actions)
        steps += 1
        for a, r in rew.items():
            totals[a] += r
        for a in term:
            if a != "__all__":
                assert a not in seen_done
                seen_done.add(a)
                assert a in obs  # its own final observation
                outcomes[a] = infos[a]["outcome"]
        if term["__all__"] or trunc["__all__"]:
            assert seen_done == set(env.possible_agents)
            return totals, outcomes, steps


def test_native_turn_based_env(server_address: str) -> None:
    env = Pf1eRLlibEnv({"address": server_address, "num_episodes": 2})
    try:
        assert len(env.possible_agents) == 10
        totals, outcomes, _ = _run_native(env, seed=3)
        for a, total in totals.items():
            winner = outcomes[a]["winner"]
            side = env.agent_side[a]
            assert total == (0.0 if winner is None else 1.0 if side == winner else -1.0)
        mapping = side_mapping(env.agent_side)
        assert mapping("orc/1") == "monsters" and mapping("goblin-2/0") == "players"
        # A one-episode probe's names serve a batched env.
        single = side_mapping({"orc": "monsters", "goblin": "players"})
        assert single("orc/7") == "monsters" and single("goblin") == "players"
        with pytest.raises(KeyError):
            single("wizard/0")
    finally:
        env.close()


def test_rllib_env_checker_and_pettingzoo_wrapper(server_address: str) -> None:
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = Pf1eRLlibEnv({"address": server_address})
    try:
        check_multiagent_environments(env)
    finally:
        env.close()
    wrapped = ParallelPettingZooEnv(Pf1eParallelEnv(address=server_address))
    try:
        obs, _ = wrapped.reset(seed=1)
        rng = np.random.default_rng(0)
        for _ in range(5000):
            act = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
            obs, _, term, trunc, _ = wrapped.step(act)
            obs = {a: o for a, o in obs.items() if not (term[a] or trunc[a])}
            if term["__all__"] or trunc["__all__"]:
                break
        else:
            pytest.fail("the episode did not end")
    finally:
        wrapped.close()


def test_one_ppo_iteration(server_address: str) -> None:
    rl_import("torch")
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env

    probe = Pf1eRLlibEnv({"address": server_address})
    agent_side = dict(probe.agent_side)
    probe.close()
    register_env("pf1e_selfplay", lambda cfg: Pf1eRLlibEnv(cfg))
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        config = (
            PPOConfig()
            .environment("pf1e_selfplay", env_config={"address": server_address})
            .env_runners(num_env_runners=0)
            .multi_agent(
                policies={"players", "monsters"},
                policy_mapping_fn=side_mapping(agent_side),
            )
            .rl_module(
                rl_module_spec=MultiRLModuleSpec(
                    rl_module_specs={
                        s: RLModuleSpec(
                            module_class=ActionMaskingTorchRLModule,
                            model_config={"fcnet_hiddens": [32]},
                        )
                        for s in ("players", "monsters")
                    }
                )
            )
            .training(train_batch_size_per_learner=128, minibatch_size=64, num_epochs=1)
        )
        algo = config.build_algo()
        try:
            result = algo.train()
            sampled = result["env_runners"]["num_env_steps_sampled_lifetime"]
            assert sampled >= 128
            learners = result["learners"]
            for side in ("players", "monsters"):
                # Both sides' modules learned from their own samples (finite losses: the
                # masks never left a module without a legal action).
                assert np.isfinite(float(learners[side]["total_loss"])), learners[side]
        finally:
            algo.stop()
    finally:
        ray.shutdown()
