#!/usr/bin/env python3
"""Self-play: both sides of a scenario played by agents of a PettingZoo AEC env.

Every combatant is an agent of :class:`pf1e_gym.Pf1eAECEnv` (nobody is left to the server's
default policy). Side ``--greedy-side`` plays a greedy policy (attack when it can, else move
toward an enemy, else a random legal action); the other sides play uniformly random legal
actions. Rewards are per side, shared by its agents (sparse: +1 / -1 / 0 at the end).

    python clients/python/examples/selfplay.py --address 127.0.0.1:50051 --episodes 5

Prints one line per episode and, last, ``wins: <side> N, <side> N, draws N``.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

import numpy as np

from pf1e_gym import Pf1eAECEnv

GREEDY_PREFIXES = ("full_attack ", "attack ", "charge ", "move toward ")


def greedy(legal: list[tuple[int, str]], rng: np.random.Generator) -> int:
    """The first legal action whose label starts with a preferred prefix, else a random one."""
    for prefix in GREEDY_PREFIXES:
        ids = [i for i, label in legal if label.startswith(prefix)]
        if ids:
            return int(rng.choice(ids))
    return int(rng.choice([i for i, _ in legal]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--address",
        help="server host:port (default: $PF1E_ADDRESS, else a local server: one on "
        "127.0.0.1:50051, else one started here)",
    )
    p.add_argument("--episodes", type=int, default=5, help="number of episodes (>= 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the policies and of episode 1")
    p.add_argument("--scenario", default="sample_arena", help="bundled scenario name")
    p.add_argument("--greedy-side", default="players", help="side playing the greedy policy")
    args = p.parse_args(argv)
    if args.episodes < 1:
        p.error("--episodes must be >= 1")

    rng = np.random.default_rng(args.seed)
    env = Pf1eAECEnv(address=args.address, scenario=args.scenario, observation="tensor")
    sides = list(env.spec_msg.sides)
    wins: Counter[str] = Counter()
    try:
        for ep in range(args.episodes):
            env.reset(seed=args.seed + ep)
            returns = dict.fromkeys(env.possible_agents, 0.0)
            decisions = 0
            outcome = None
            for agent in env.agent_iter():
                obs, reward, terminated, truncated, info = env.last()
                returns[agent] += reward
                if terminated or truncated:
                    outcome = info["outcome"]
                    env.step(None)
                    continue
                if env.agent_side[agent] == args.greedy_side:
                    action = greedy(info["legal_actions"], rng)
                else:
                    action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                env.step(action)
                decisions += 1
            assert outcome is not None
            winner = outcome["winner"]
            wins[winner or "draw"] += 1
            side_return = {
                s: next((returns[a] for a in returns if env.agent_side[a] == s), 0.0) for s in sides
            }
            shown = ", ".join(f"{s} {r:+.0f}" for s, r in side_return.items())
            print(
                f"episode {ep + 1}: winner {winner or 'none (draw)'}, rounds {outcome['rounds']}, "
                f"decisions {decisions}, returns {shown}",
                flush=True,
            )
    finally:
        env.close()
    print("wins: " + ", ".join(f"{s} {wins[s]}" for s in sides) + f", draws {wins['draw']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
