"""LLM reinforcement learning on pf1e-gym (pf1e_gym.llm.rl): the TRL environment against the
real server, and a few GRPO steps of TRL's ``GRPOTrainer`` on CPU with a tiny random-weight
model built from a config (nothing downloaded)."""

from __future__ import annotations

import os

from conftest import rl_import

from pf1e_gym import Pf1eClient
from pf1e_gym.llm.rl import Pf1eTRLEnv


def test_environment_plays_rewards_and_refuses(server_address):
    with Pf1eClient(server_address) as client:
        env = Pf1eTRLEnv("mirror_duel", "west", client=client, seed=4)
        text = env.reset()
        assert "Legal actions" in text and " (row,col): " in text  # compact by default
        assert "Refused" in env.act("fly away") and env.illegal == 1
        # play to the end: attack when possible, else end the turn (decline a reaction)
        n = 0
        while not (env.state.terminated or env.state.truncated):
            labels = [la.label for la in env.state.legal_actions]
            pick = next(
                (x for x in labels if x.startswith(("full_attack", "attack", "charge"))),
                "end_turn"
                if "end_turn" in labels
                else next(x for x in labels if x.startswith("decline")),
            )
            out = env.act(pick)
            n += 1
            assert n < 500
        assert out.startswith("The fight is over")
        won = env.state.outcome.winner == "west"
        lost = env.state.outcome.winner == "east"
        reward = env.get_reward()
        # terminal +1/-1 plus the shaped potential; minus the refused label
        assert (won and reward > 0.5) or (lost and reward < -0.5) or not (won or lost)
        assert abs(reward - (env.reward_sum - 0.05)) < 1e-9
        # the next rollout starts a new fight on the next seed, counters reset
        env.reset()
        assert env.illegal == 0 and env.steps == 0 and env.resets == 2
        env._close()


def test_grpo_steps_on_a_tiny_local_model(server_address, tmp_path):
    """The plumbing end to end: TRL's GRPOTrainer generates with the model, the environment's
    reset starts a fight per rollout on the real server, get_reward scores it, and the
    trainer takes optimisation steps (the weights change). Random weights: no learning is
    claimed."""
    torch = rl_import("torch", "llm-rl")
    rl_import("trl", "llm-rl")
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from pf1e_gym.llm.rl import tiny_tool_model

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    model, tokenizer = tiny_tool_model(seed=0)
    before = [p.detach().clone() for p in model.parameters()]
    envs: list[Pf1eTRLEnv] = []

    def factory() -> Pf1eTRLEnv:
        # Each instance its own seeds (3, 4, 5…: seeds 3 and 6 are fights the east side wins
        # before west decides), so the rollouts of one prompt differ in reward and GRPO's
        # group-relative advantage is not all zero.
        env = Pf1eTRLEnv(
            "mirror_duel", "west", address=server_address, seed=3 + len(envs), token_budget=300
        )
        envs.append(env)
        return env

    system = "Play the side west. Call act with the exact label of a legal action."
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": system}]}] * 8)
    args = GRPOConfig(
        output_dir=str(tmp_path),
        max_steps=2,
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=16,
        max_tool_calling_iterations=2,
        learning_rate=1e-2,
        logging_steps=1,
        report_to=[],
        use_cpu=True,
        save_strategy="no",
        seed=0,
        dataloader_num_workers=0,
    )
    trainer = GRPOTrainer(
        model=model,
        args=args,
        train_dataset=data,
        processing_class=tokenizer,
        environment_factory=factory,
    )
    trainer.train()
    assert trainer.state.global_step == 2
    # every rollout started a fight of its own on the server and was scored from it
    assert sum(e.resets for e in envs) >= 2 * 2
    logged = [h for h in trainer.state.log_history if "reward" in h]
    assert len(logged) == 2
    assert any(float(h["reward_std"]) > 0 for h in logged), logged
    changed = any(
        not torch.equal(a, b.detach()) for a, b in zip(before, model.parameters(), strict=True)
    )
    assert changed, "the optimiser changed no weight"
    for e in envs:
        e._close()
