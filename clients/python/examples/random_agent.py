#!/usr/bin/env python3
"""Random agent: plays N episodes of a scenario as one side, choosing uniformly among the legal
actions at each decision, against the server's default policy.

    python clients/python/examples/random_agent.py --address 127.0.0.1:50051 --episodes 10 --seed 0

Prints one line per episode and, last, ``<side> win rate: X.X% (W/N)``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from pf1e_gym import Pf1eEnv


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--address",
        help="server host:port (default: $PF1E_ADDRESS, else a local server: one on "
        "127.0.0.1:50051, else one started here)",
    )
    p.add_argument("--episodes", type=int, default=10, help="number of episodes (>= 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the agent and of episode 1")
    p.add_argument("--scenario", default="sample_arena", help="bundled scenario name")
    p.add_argument("--side", default="players", help="side played by the agent")
    args = p.parse_args(argv)
    if args.episodes < 1:
        p.error("--episodes must be >= 1")

    rng = np.random.default_rng(args.seed)
    env = Pf1eEnv(address=args.address, scenario=args.scenario, controlled_sides=[args.side])
    wins = 0
    try:
        for ep in range(args.episodes):
            # Episode i is seeded seed + i on the server (reproducible with the agent's rng).
            _obs, info = env.reset(seed=args.seed + ep)
            reward, decisions = 0.0, 0
            while info["outcome"] is None:
                legal = np.flatnonzero(info["action_mask"])
                action = int(rng.choice(legal))
                _obs, reward, _terminated, _truncated, info = env.step(action)
                decisions += 1
            outcome = info["outcome"]
            winner = outcome["winner"]
            wins += winner == args.side
            end = "round cap" if outcome["truncated"] else f"winner {winner or 'none (draw)'}"
            print(
                f"episode {ep + 1}: {end}, rounds {outcome['rounds']}, "
                f"decisions {decisions}, reward {reward:+.0f}",
                flush=True,
            )
    finally:
        env.close()
    n = args.episodes
    print(f"{args.side} win rate: {100.0 * wins / n:.1f}% ({wins}/{n})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
