"""Inline scenarios for the attack-of-opportunity tests (not a test module).

``guard_room()``: the engine's reaction test layout (``engine/tests/reactions.rs``) over the
wire. A 3 by 8 room; ``hero`` (an orc, side ``heroes``) at (1,2) and ``guard`` (a goblin with
Combat Reflexes, side ``guards``) at (2,3), which threatens (1,2), (1,3) and (1,4): a hero
moving to (1,6) leaves three squares the guard threatens.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

from pf1e_gym import inline_scenario, pb

DATA = pathlib.Path(__file__).resolve().parents[3] / "data"

GUARD_ROOM_MAP = """name: "Guard room"
square_size_ft: 5
terrain: |
  ##########
  #........#
  #........#
  #........#
  ##########
legend:
  "#": { type: wall, move_cost: null, blocks_los: true }
  ".": { type: floor, move_cost: 1 }
zones: |
  ..........
  ..A.......
  ...B......
  ..........
  ..........
deployment:
  heroes: A
  guards: B
"""

HERO_DESTINATION = (1, 6)


def monster(name: str) -> dict[str, Any]:
    """A bundled monster's JSON, as a dict."""
    return json.loads((DATA / "monsters" / f"{name}.json").read_text())


def guard_room() -> pb.Scenario:
    hero = monster("orc")
    guard = monster("goblin")
    guard["feats"] = [*guard["feats"], "Combat Reflexes"]
    return inline_scenario(
        GUARD_ROOM_MAP,
        {"heroes": [(json.dumps(hero), "hero")], "guards": [(json.dumps(guard), "guard")]},
    )


def cell_id(spec: pb.Spec, block: str, row: int, col: int) -> int:
    """The id of a square of a per-square block (``move_to``, ``withdraw``, ``run``)."""
    b = next(b for b in spec.action_blocks if b.name == block)
    return int(b.first_id + row * spec.map.cols + col)


def combatant(state: pb.EpisodeState, cid: str) -> pb.CombatantState:
    """A combatant of the typed observation, by id."""
    return next(c for c in state.observation.combatants if c.id == cid)
