#!/usr/bin/env python3
"""PPO with invalid-action masking on ``Pf1eVectorEnv``, CleanRL style: one file, no
framework, every step of the algorithm in view (torch only).

    python clients/python/examples/cleanrl_ppo.py --total-timesteps 200000
    python clients/python/examples/cleanrl_ppo.py --total-timesteps 2048 --num-envs 8  # smoke

Without ``--address`` (and ``$PF1E_ADDRESS``) the env uses a server on 127.0.0.1:50051, else
starts one itself (:mod:`pf1e_gym.server`) and stops it at exit.

The environment: ``--num-envs`` episodes of ``--scenario`` (side ``--side`` against the
server's default policy) stepped together in one ``StepBatch`` call per step, with
``autoreset_mode="same_step"``: a slot that ends returns its new episode's first observation
at once (its mask is never all zero) and its final observation in ``info["final_obs"]``.
The reward is the server's shaped reward with a per-round discount (``round_discount``) and
the learner's ``gamma`` 1 (a discount per decision would make padding a turn pay).

The algorithm (Schulman et al. 2017, as in CleanRL's ``ppo.py``; masking as in Huang &
Ontañón 2020, "A Closer Look at Invalid Action Masking"): an MLP actor and critic on the flat
observation ``concat(planes, features)``; the actor's logits of illegal actions are set to a
large negative number before the softmax, so illegal actions get probability 0 and no
gradient; rollouts of ``--num-steps`` per env, GAE(lambda), clipped surrogate objective,
clipped value loss, entropy bonus, ``--update-epochs`` passes over shuffled minibatches. A
round-cap truncation bootstraps from the value of ``info["final_obs"]``.

Prints ``global_step``, the steps per second and the win rate of the episodes finished since
the last line (the sampled policy: exploring, it wins far less than its greedy self); at the
end the greedy policy (masked argmax) plays ``--eval-episodes`` held-out seeds, next to the
server's default policy on the same seeds (:mod:`pf1e_gym.leaderboard`). ``--out DIR``
writes ``agent.pt`` (the state dict) and ``summary.json``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from pf1e_gym import Pf1eVectorEnv


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--address", help="server host:port (default: a local server)")
    p.add_argument("--scenario", default="sample_arena", help="bundled scenario name")
    p.add_argument("--side", default="players", help="the side the agent plays")
    p.add_argument("--seed", type=int, default=1, help="seed of torch and of the envs")
    p.add_argument("--total-timesteps", type=int, default=200_000, help="env steps to train")
    p.add_argument("--num-envs", type=int, default=32, help="episodes stepped together")
    p.add_argument("--num-steps", type=int, default=128, help="rollout length per env")
    p.add_argument("--learning-rate", type=float, default=2.5e-4)
    p.add_argument("--anneal-lr", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--gamma", type=float, default=1.0, help="per decision (1: see the docs)")
    p.add_argument("--round-discount", type=float, default=0.95, help="per round, on the server")
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--hidden", type=int, default=64, help="width of the two hidden layers")
    p.add_argument("--torch-threads", type=int, default=1)
    p.add_argument(
        "--eval-episodes",
        type=int,
        default=200,
        help="held-out episodes played greedily at the end (0: none)",
    )
    p.add_argument("--eval-seed", type=int, default=1_000_000, help="first held-out seed")
    p.add_argument("--out", help="directory for agent.pt and summary.json")
    args = p.parse_args(argv)
    for name in ("total_timesteps", "num_envs", "num_steps", "num_minibatches"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    if not 0 < args.round_discount <= 1:
        p.error("--round-discount must be in (0, 1]")
    args.batch_size = args.num_envs * args.num_steps
    args.minibatch_size = max(1, args.batch_size // args.num_minibatches)
    args.num_iterations = max(1, args.total_timesteps // args.batch_size)
    return args


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias: float = 0.0) -> nn.Linear:
    """Orthogonal weights, constant bias (CleanRL's initialisation)."""
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


class Agent(nn.Module):
    """Separate MLP actor and critic (tanh) on the flat observation."""

    def __init__(self, obs_size: int, n_actions: int, hidden: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, n_actions), std=0.01),
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.critic(x).squeeze(-1)
        return out

    def get_action_and_value(
        self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Sample (or score) an action of the masked categorical: ``(action, log_prob,
        entropy, value)``."""
        logits = self.actor(x).masked_fill(~mask, -1e8)  # illegal: probability 0
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.get_value(x)


def flat(obs: dict[str, Any]) -> np.ndarray:
    """``concat(planes.ravel(), features.ravel())`` per slot (one observation or a batch)."""
    planes, features = np.asarray(obs["planes"]), np.asarray(obs["features"])
    if planes.ndim == 3:  # a single observation (info["final_obs"][i])
        return np.concatenate([planes.ravel(), features.ravel()])
    k = len(planes)
    return np.concatenate([planes.reshape(k, -1), features.reshape(k, -1)], axis=1)


def evaluate(agent: Agent, envs: Pf1eVectorEnv, args: argparse.Namespace) -> tuple[float, float]:
    """The greedy policy's and the default policy's win rates on the held-out seeds."""
    from pf1e_gym import leaderboard as lb

    def greedy(planes: np.ndarray, features: np.ndarray, masks: np.ndarray) -> np.ndarray:
        x = torch.as_tensor(flat({"planes": planes, "features": features}))
        with torch.no_grad():
            logits = agent.actor(x).masked_fill(~torch.as_tensor(masks > 0), -1e8)
        return logits.argmax(dim=1).numpy()

    seeds = range(args.eval_seed, args.eval_seed + args.eval_episodes)
    kw = {"scenario": args.scenario, "side": args.side}
    mine = lb.play(envs.client, seeds, greedy, **kw)
    default = lb.play_default(envs.client, seeds, args.scenario, args.side)
    return mine.win_rate, default.win_rate


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)

    envs = Pf1eVectorEnv(
        args.num_envs,
        address=args.address,
        scenario=args.scenario,
        controlled_sides=[args.side],
        autoreset_mode="same_step",
        reward={"shaped": True, "round_discount": args.round_discount},
    )
    n_actions = int(envs.single_action_space.n)  # type: ignore[attr-defined]
    obs, _ = envs.reset(seed=args.seed)
    obs_size = flat(obs).shape[1]
    agent = Agent(obs_size, n_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    e, t_len = args.num_envs, args.num_steps
    b_obs = torch.zeros((t_len, e, obs_size))
    b_masks = torch.zeros((t_len, e, n_actions), dtype=torch.bool)
    b_actions = torch.zeros((t_len, e), dtype=torch.long)
    b_logprobs = torch.zeros((t_len, e))
    b_rewards = torch.zeros((t_len, e))
    b_dones = torch.zeros((t_len, e))
    b_values = torch.zeros((t_len, e))

    global_step, start = 0, time.time()
    next_obs = torch.as_tensor(flat(obs))
    next_mask = torch.as_tensor(obs["action_mask"].astype(bool))
    next_done = torch.zeros(e)
    wins = episodes = 0
    all_wins = all_episodes = 0
    try:
        for iteration in range(1, args.num_iterations + 1):
            if args.anneal_lr:
                frac = 1.0 - (iteration - 1.0) / args.num_iterations
                optimizer.param_groups[0]["lr"] = frac * args.learning_rate
            for step in range(t_len):
                global_step += e
                b_obs[step], b_masks[step], b_dones[step] = next_obs, next_mask, next_done
                with torch.no_grad():
                    action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
                b_values[step], b_actions[step], b_logprobs[step] = value, action, logprob
                obs, reward, term, trunc, info = envs.step(action.numpy())
                reward = torch.as_tensor(reward, dtype=torch.float32)
                # A round-cap truncation is not an end of the task: bootstrap from the value of
                # the final observation (the returned one is already the next episode's).
                for i in np.flatnonzero(trunc & ~term):
                    final = torch.as_tensor(flat(info["final_obs"][i]))
                    with torch.no_grad():
                        reward[i] += args.gamma * agent.get_value(final)
                b_rewards[step] = reward
                next_obs = torch.as_tensor(flat(obs))
                next_mask = torch.as_tensor(obs["action_mask"].astype(bool))
                next_done = torch.as_tensor(term | trunc, dtype=torch.float32)
                for i in np.flatnonzero(term | trunc):
                    episodes += 1
                    wins += info["winner"][i] == args.side
            all_wins, all_episodes = all_wins + wins, all_episodes + episodes

            # GAE(lambda) over the rollout.
            with torch.no_grad():
                next_value = agent.get_value(next_obs)
                advantages = torch.zeros_like(b_rewards)
                lastgaelam = torch.zeros(e)
                for t in reversed(range(t_len)):
                    if t == t_len - 1:
                        nextnonterminal, nextvalues = 1.0 - next_done, next_value
                    else:
                        nextnonterminal, nextvalues = 1.0 - b_dones[t + 1], b_values[t + 1]
                    delta = b_rewards[t] + args.gamma * nextvalues * nextnonterminal - b_values[t]
                    lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
                    advantages[t] = lastgaelam
                returns = advantages + b_values

            # PPO update on the flattened batch.
            x, m = b_obs.reshape(-1, obs_size), b_masks.reshape(-1, n_actions)
            a, old_logp = b_actions.reshape(-1), b_logprobs.reshape(-1)
            adv, ret, old_v = advantages.reshape(-1), returns.reshape(-1), b_values.reshape(-1)
            clipfracs = []
            for _epoch in range(args.update_epochs):
                order = torch.randperm(args.batch_size)
                for lo in range(0, args.batch_size, args.minibatch_size):
                    mb = order[lo : lo + args.minibatch_size]
                    _, newlogp, entropy, newv = agent.get_action_and_value(x[mb], m[mb], a[mb])
                    logratio = newlogp - old_logp[mb]
                    ratio = logratio.exp()
                    with torch.no_grad():
                        clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean())
                    mb_adv = adv[mb]
                    if len(mb) > 1:
                        mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                    pg_loss = torch.max(
                        -mb_adv * ratio,
                        -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef),
                    ).mean()
                    v_clipped = old_v[mb] + torch.clamp(
                        newv - old_v[mb], -args.clip_coef, args.clip_coef
                    )
                    v_loss = (
                        0.5 * torch.max((newv - ret[mb]) ** 2, (v_clipped - ret[mb]) ** 2).mean()
                    )
                    loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                    optimizer.zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                    optimizer.step()

            sps = int(global_step / (time.time() - start))
            rate = f"{wins / episodes:.3f}" if episodes else "n/a"
            print(
                f"global_step={global_step} sps={sps} episodes={episodes} win_rate={rate} "
                f"v_loss={v_loss.item():.4f} pg_loss={pg_loss.item():.4f} "
                f"entropy={entropy.mean().item():.3f} "
                f"clipfrac={torch.stack(clipfracs).mean().item():.3f}",
                flush=True,
            )
            wins = episodes = 0
        wall_s = round(time.time() - start, 1)
        greedy_rate = default_rate = None
        if args.eval_episodes > 0:
            greedy_rate, default_rate = evaluate(agent, envs, args)
            print(
                f"greedy policy on {args.eval_episodes} held-out seeds: win rate "
                f"{greedy_rate:.3f} (default policy on the same seeds: {default_rate:.3f})",
                flush=True,
            )
    finally:
        envs.close()
    summary = {
        "global_step": global_step,
        "wall_s": wall_s,
        "episodes": all_episodes,
        "win_rate": all_wins / all_episodes if all_episodes else None,
        "greedy_win_rate": greedy_rate,
        "default_win_rate": default_rate,
        "args": vars(args),
    }
    print(json.dumps({k: v for k, v in summary.items() if k != "args"}))
    if args.out:
        out = pathlib.Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        torch.save(agent.state_dict(), out / "agent.pt")
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
