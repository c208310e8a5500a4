#!/usr/bin/env python3
"""Scripted agent: a simple rule-based player of one side against the server's default policy.

The rules live in :mod:`pf1e_gym.scripted` (also the ``scripted`` entry of ``pf1e-leaderboard``):

At each decision of one of its combatants, in this order:

1. shoot: a full attack, else an attack, with a **ranged** weapon, at the weakest enemy in reach;
2. fight: the same with a melee weapon;
3. close in: move toward the nearest enemy (the server's "move toward" action);
4. end the turn;

and at a reaction (an attack of opportunity offered to one of its combatants mid-way through an
enemy's action) it takes the attack.

    python clients/python/examples/scripted_agent.py --episodes 10

Without ``--address`` (and ``$PF1E_ADDRESS``) it uses a server on 127.0.0.1:50051, else starts
one (:func:`pf1e_gym.launch_server`). Prints one line per episode and, last,
``<side> win rate: X.X% (W/N)`` and ``reactions answered: R``.
"""

from __future__ import annotations

import argparse
import sys

from pf1e_gym import Pf1eEnv
from pf1e_gym.scripted import choose


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--address",
        help="server host:port (default: $PF1E_ADDRESS, else a local server: one on "
        "127.0.0.1:50051, else one started here)",
    )
    p.add_argument("--episodes", type=int, default=10, help="number of episodes (>= 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of episode 1 (episode i: seed + i)")
    p.add_argument("--scenario", default="sample_arena", help="bundled scenario name")
    p.add_argument("--side", default="players", help="side played by the agent")
    args = p.parse_args(argv)
    if args.episodes < 1:
        p.error("--episodes must be >= 1")

    env = Pf1eEnv(
        address=args.address,
        scenario=args.scenario,
        controlled_sides=[args.side],
        observation="json",
    )
    wins = reactions = 0
    try:
        for ep in range(args.episodes):
            _obs, info = env.reset(seed=args.seed + ep)
            reward, decisions = 0.0, 0
            while info["outcome"] is None:
                assert env.state is not None
                reactions += info["decision_kind"] != "turn_action"
                _obs, reward, _term, _trunc, info = env.step(choose(env.state))
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
    print(f"reactions answered: {reactions}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
