#!/usr/bin/env python3
"""AoO agent: plays one side and answers every attack of opportunity offered to it.

The server asks an externally controlled combatant before it makes an attack of opportunity
(AoO): when an enemy leaves a square it threatens, stands up, shoots, tries a maneuver… next
to it, the provoking action pauses and the agent gets a **reaction decision**
(``info["decision_kind"] == "attack_of_opportunity"``), even in the middle of the enemy's
turn. Its mask holds only the answers: take the AoO with one of the offered weapons, or
decline (which spends nothing). This agent:

- at its **turns**, plays the rules of ``scripted_agent.py`` (shoot, fight, close in, end),
  except that it does not shoot while an enemy threatens it (shooting provokes too);
- at every **AoO decision**, declines when the provoker is prone or dying and takes it with
  the first offered weapon otherwise. The provoker's state is read from the JSON observation
  (the ``prone`` and ``dying`` flags of ``combatants[provoker_index]``): the reacting
  combatant's own view, taken at the moment of the provocation, so a provoker standing up
  is still prone there. (A dying combatant is unconscious and does not act, so in practice
  it never provokes; the check is kept for completeness.)

Why decline against a prone enemy? It is a house tactic, not a rule: a combatant has one AoO
a round (more with Combat Reflexes), and a prone enemy spending its move action to stand up is
no threat yet; the agent keeps the AoO for an enemy that is getting somewhere.

    python clients/python/examples/aoo_agent.py --address 127.0.0.1:50051 --episodes 10
    python clients/python/examples/aoo_agent.py --yard --episodes 5

``--yard`` plays a small inline scenario built from the repository's ``data/monsters`` files
(``--data-dir``), where both answers come up: a prone orc next to two goblins (it stands up
and provokes) and two orcs that walk past a goblin's longspear (they leave a threatened
square). Prints one line per episode with its decisions and answers and, last,
``<side> win rate: X.X% (W/N)`` and
``reactions: N offered, T taken, D declined (prone P, dying Q)``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from collections import Counter
from typing import Any

from scripted_agent import choose as scripted_choose

from pf1e_gym import Pf1eEnv, inline_scenario, pb

# The repository's data directory (this file is clients/python/examples/aoo_agent.py).
DATA_DIR = pathlib.Path(__file__).resolve().parents[3] / "data"

YARD_MAP = """name: "AoO yard"
square_size_ft: 5
terrain: |
  #########
  #.......#
  #.......#
  #.......#
  #.......#
  #########
legend:
  "#": { type: wall, move_cost: null, blocks_los: true }
  ".": { type: floor, move_cost: 1 }
zones: |
  .........
  ..A....B.
  ..AB.....
  .......B.
  .........
  .........
deployment:
  players: A
  monsters: B
"""


def yard_scenario(data_dir: pathlib.Path = DATA_DIR) -> pb.Scenario:
    """The ``--yard`` scenario: goblins ``goblin`` (1,2) and ``goblin-2`` (2,2) (18 hp and
    Combat Reflexes; ``goblin-2`` also carries a longspear, reach 10 ft) against ``orc``
    (1,7), ``orc-2`` (2,3), which starts **prone**, and ``orc-3`` (3,7)."""
    goblin = json.loads((data_dir / "monsters" / "goblin.json").read_text())
    orc = json.loads((data_dir / "monsters" / "orc.json").read_text())
    # Sturdier than the Bestiary's (6 hp): the fight lasts a few rounds.
    goblin["hp_max"] = 18
    goblin["feats"] = [*goblin["feats"], "Combat Reflexes"]
    longspear = {
        "id": "longspear",
        "name": "longspear",
        "kind": "melee",
        "attack_bonus": 1,
        "damage": [{"formula": "1d6", "types": ["piercing"]}],
        "crit_mult": 3,
        "two_handed": True,
        "reach_weapon": True,
    }
    spear_goblin = {**goblin, "attacks": [longspear, *goblin["attacks"]]}
    prone_orc = {**orc, "conditions": [{"name": "prone"}]}
    return inline_scenario(
        YARD_MAP,
        {
            "players": [json.dumps(goblin), json.dumps(spear_goblin)],
            "monsters": [json.dumps(orc), json.dumps(prone_orc), json.dumps(orc)],
        },
    )


def choose_turn(state: pb.EpisodeState) -> int:
    """The turn action: ``scripted_agent.choose`` without ranged attacks while an enemy
    threatens the actor (they would provoke attacks of opportunity)."""
    snap = json.loads(state.observation.json)
    if not snap.get("enemies_threatening_me"):
        return scripted_choose(state)
    attacks = snap["combatants"][state.decision.actor_index]["attacks"]

    def ranged(la: pb.LegalAction) -> bool:
        a = la.action
        if a.kind not in (pb.ACTION_KIND_ATTACK, pb.ACTION_KIND_FULL_ATTACK):
            return False
        w = a.weapon if a.HasField("weapon") else 0
        return w < len(attacks) and attacks[w]["kind"] == "ranged"

    melee_only = pb.EpisodeState()
    melee_only.CopyFrom(state)
    del melee_only.legal_actions[:]
    melee_only.legal_actions.extend(la for la in state.legal_actions if not ranged(la))
    return scripted_choose(melee_only)


def answer_reaction(snapshot: dict[str, Any], reaction: dict[str, Any]) -> tuple[int, str]:
    """The answer to an AoO offer (``info["reaction"]``) given the reacting combatant's JSON
    observation: ``(action id, why)``, ``why`` one of ``"taken"``, ``"declined_prone"``,
    ``"declined_dying"``."""
    provoker = snapshot["combatants"][reaction["provoker_index"]]
    if provoker.get("dying"):
        return reaction["decline_id"], "declined_dying"
    if provoker.get("prone"):
        return reaction["decline_id"], "declined_prone"
    return reaction["take_ids"][0], "taken"


def play_episode(env: Pf1eEnv, seed: int) -> tuple[dict[str, Any], float, Counter[str]]:
    """One episode; returns its outcome, last reward and counts: decisions by kind
    (``turn_action``, ``attack_of_opportunity``) and AoO answers (``taken``,
    ``declined_prone``, ``declined_dying``)."""
    obs, info = env.reset(seed=seed)
    counts: Counter[str] = Counter()
    reward = 0.0
    while info["outcome"] is None:
        counts[info["decision_kind"]] += 1
        if info["decision_kind"] == "attack_of_opportunity":
            action, why = answer_reaction(json.loads(obs["json"]), info["reaction"])
            counts[why] += 1
        else:
            assert env.state is not None
            action = choose_turn(env.state)
        obs, reward, _term, _trunc, info = env.step(action)
        if not all(r["ok"] for r in info["action_results"]):
            counts["rejected"] += 1
    return info["outcome"], reward, counts


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
    p.add_argument(
        "--side",
        default="players",
        help="side played by the agent (in the yard: players, the goblins; monsters, the orcs)",
    )
    p.add_argument(
        "--yard",
        action="store_true",
        help="play the inline AoO yard (prone and moving orcs) instead of --scenario",
    )
    p.add_argument(
        "--data-dir",
        type=pathlib.Path,
        default=DATA_DIR,
        help="where --yard reads monsters/goblin.json and monsters/orc.json (default: the repo's)",
    )
    args = p.parse_args(argv)
    if args.episodes < 1:
        p.error("--episodes must be >= 1")

    scenario: str | pb.Scenario = yard_scenario(args.data_dir) if args.yard else args.scenario
    side = args.side
    env = Pf1eEnv(
        address=args.address, scenario=scenario, controlled_sides=[side], observation="json"
    )
    wins = 0
    total: Counter[str] = Counter()
    try:
        for ep in range(args.episodes):
            outcome, reward, counts = play_episode(env, args.seed + ep)
            total += counts
            wins += outcome["winner"] == side
            end = "round cap" if outcome["truncated"] else f"winner {outcome['winner'] or 'none'}"
            print(
                f"episode {ep + 1}: {end}, rounds {outcome['rounds']}, "
                f"turn decisions {counts['turn_action']}, "
                f"aoo decisions {counts['attack_of_opportunity']} "
                f"(taken {counts['taken']}, "
                f"declined {counts['declined_prone'] + counts['declined_dying']}), "
                f"reward {reward:+.0f}",
                flush=True,
            )
    finally:
        env.close()
    n = args.episodes
    print(f"{side} win rate: {100.0 * wins / n:.1f}% ({wins}/{n})")
    declined = total["declined_prone"] + total["declined_dying"]
    print(
        f"reactions: {total['attack_of_opportunity']} offered, {total['taken']} taken, "
        f"{declined} declined (prone {total['declined_prone']}, "
        f"dying {total['declined_dying']})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
