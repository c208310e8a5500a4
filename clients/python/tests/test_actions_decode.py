"""``decode_action`` / ``encode_action`` (issue 14): decoding an id from the spec alone agrees
with what the server says of every legal action (its typed ``action`` and its label), on
random decisions of a few episodes of every bundled scenario."""

from __future__ import annotations

import random

import pytest

from pf1e_gym import Pf1eClient, decode_action, encode_action, pb

SCENARIOS = ("sample_arena", "mirror_duel", "skirmish_4v4", "casters")

#: The typed kind of each block (a block name → ``ActionKind``).
KIND = {
    "end_turn": pb.ACTION_KIND_END_TURN,
    "attack": pb.ACTION_KIND_ATTACK,
    "full_attack": pb.ACTION_KIND_FULL_ATTACK,
    "charge": pb.ACTION_KIND_CHARGE,
    "move_toward": pb.ACTION_KIND_MOVE,
    "move_to": pb.ACTION_KIND_MOVE,
    "5foot_step": pb.ACTION_KIND_FIVE_FOOT_STEP,
    "withdraw": pb.ACTION_KIND_WITHDRAW,
    "maneuver": pb.ACTION_KIND_MANEUVER,
    "run": pb.ACTION_KIND_RUN,
    "run_toward": pb.ACTION_KIND_RUN,
    "aid_another": pb.ACTION_KIND_AID_ANOTHER,
    "delay": pb.ACTION_KIND_DELAY,
    "cast_spell": pb.ACTION_KIND_CAST_SPELL,
    "cast_spell_at": pb.ACTION_KIND_CAST_SPELL,
    "draw_weapon": pb.ACTION_KIND_DRAW_WEAPON,
    "sheathe_weapon": pb.ACTION_KIND_SHEATHE_WEAPON,
    "coup_de_grace": pb.ACTION_KIND_COUP_DE_GRACE,
    "attack_of_opportunity": pb.ACTION_KIND_ATTACK_OF_OPPORTUNITY,
}
STEP = {"N": (-1, 0), "NE": (-1, 1), "E": (0, 1), "SE": (1, 1), "S": (1, 0), "SW": (1, -1),
        "W": (0, -1), "NW": (-1, -1)}  # fmt: skip


def _check(spec: pb.Spec, state: pb.EpisodeState, legal: pb.LegalAction) -> str:
    """Assert that ``decode_action`` agrees with the server's legal action; its kind."""
    d = decode_action(spec, legal.id)
    a = legal.action
    ctx = f"{d} vs {a} ({legal.label!r})"
    assert d["id"] == legal.id
    assert encode_action(spec, **{k: v for k, v in d.items() if k != "id"}) == legal.id, ctx
    kind = d["kind"]
    if kind in KIND:
        assert a.kind == KIND[kind], ctx
    # A readied attack's target and weapon are the readied action's.
    inner = a.readied if a.kind == pb.ACTION_KIND_READY else a
    if "target" in d or "opponent" in d:
        t = d.get("target", d.get("opponent"))
        assert inner.HasField("target") and inner.target == t, ctx
        cid = d.get("target_id", d.get("opponent_id"))
        assert cid == spec.combatants[t].id
    if "ally" in d:
        assert a.ally == d["ally"], ctx
    if "weapon" in d:
        assert inner.HasField("weapon") and inner.weapon == d["weapon"], ctx
    if "square" in d:
        cell = a.target_pos if kind == "cast_spell_at" else a.destination
        assert (cell.row, cell.col) == d["square"], ctx
    if "direction" in d:
        me = state.observation.combatants[state.decision.actor_index]
        dr, dc = STEP[d["direction"]]
        assert (a.destination.row, a.destination.col) == (me.row + dr, me.col + dc), ctx
    if "maneuver" in d:
        name = pb.ManeuverType.Name(a.maneuver).removeprefix("MANEUVER_TYPE_").lower()
        assert name == d["maneuver"], ctx
    if "mode" in d:
        assert pb.AidMode.Name(a.aid_mode).removeprefix("AID_MODE_").lower() == d["mode"], ctx
    if "metamagic" in d:
        names = [pb.Metamagic.Name(m).removeprefix("METAMAGIC_").lower() for m in a.metamagic]
        assert names == [d["metamagic"]], ctx
    if "spell" in d:
        assert a.spell == d["spell"], ctx
    if "delay" in d:
        assert (a.target + 1 if a.HasField("target") else 0) == d["delay"], ctx
    return kind


def test_decode_action_agrees_with_every_legal_action(server_address: str) -> None:
    rng = random.Random(14)
    kinds: set[str] = set()
    checked = 0
    with Pf1eClient(server_address) as c:
        for scenario in SCENARIOS:
            spec = c.get_spec(scenario)
            assert spec.capabilities.action_block_axes
            sides = [spec.sides[0]]
            for seed in range(2):
                s = c.reset(scenario, seed, controlled_sides=sides)
                steps = 0
                while not (s.terminated or s.truncated) and steps < 80:
                    assert s.legal_actions
                    for la in s.legal_actions:
                        if la.id != 0 or la.action.kind == pb.ACTION_KIND_END_TURN:
                            kinds.add(_check(spec, s, la))
                            checked += 1
                    pick = rng.choice([la.id for la in s.legal_actions])
                    s = c.step(s.episode_id, s.decision.decision_id, action_ids=[pick])
                    steps += 1
    # Many kinds of block were met, not just end_turn.
    assert checked > 500, checked
    assert {"attack", "move_to", "5foot_step", "move_toward"} <= kinds, kinds


def test_decode_and_encode_are_inverse_over_the_whole_space(server_address: str) -> None:
    with Pf1eClient(server_address) as c:
        spec = c.get_spec("sample_arena")
    total = sum(b.size for b in spec.action_blocks)
    assert total == spec.action_space_size
    for i in range(total):
        d = decode_action(spec, i)
        assert encode_action(spec, **{k: v for k, v in d.items() if k != "id"}) == i
    a = decode_action(spec, next(b.first_id for b in spec.action_blocks if b.name == "attack"))
    assert a == {"id": a["id"], "kind": "attack", "target": 0,
                 "target_id": spec.combatants[0].id, "weapon": 0}  # fmt: skip
    step = next(b for b in spec.action_blocks if b.name == "5foot_step")
    assert decode_action(spec, step.first_id + 7)["direction"] == "NW"
    assert (
        encode_action(spec, "move_to", square=(1, 2))
        == decode_action(spec, encode_action(spec, "move_to", square=1 * spec.map.cols + 2))["id"]
    )
    with pytest.raises(ValueError, match="outside the action space"):
        decode_action(spec, total)
    with pytest.raises(ValueError, match="outside the action space"):
        decode_action(spec, -1)
    with pytest.raises(ValueError, match="missing axis 'weapon'"):
        encode_action(spec, "attack", target=0)
    with pytest.raises(ValueError, match="unknown action block"):
        encode_action(spec, "fireball")
    with pytest.raises(ValueError, match="not an index below"):
        encode_action(spec, "charge", target=len(spec.combatants))


def test_ids_and_axis_values_must_be_integers(server_address: str) -> None:
    # Found by the break-it review: 1.5 and True decoded as id 1 (int() rounding), "7" as 7,
    # and encode_action refused numpy integers (an id or index taken from an array).
    import numpy as np

    with Pf1eClient(server_address) as c:
        spec = c.get_spec("sample_arena")
    for bad in (1.5, True, "7", None):
        with pytest.raises(ValueError, match="action_id: an integer"):
            decode_action(spec, bad)  # type: ignore[arg-type]
    assert decode_action(spec, np.int64(7)) == decode_action(spec, 7)
    d = decode_action(spec, 7)
    assert encode_action(spec, "attack", target=np.int64(d["target"]), weapon=np.int32(0)) == 7
    with pytest.raises(ValueError, match=r"attack\.weapon: 0\.0 is not an index"):
        encode_action(spec, "attack", target=d["target"], weapon=0.0)
    with pytest.raises(ValueError, match=r"attack\.weapon: True is not an index"):
        encode_action(spec, "attack", target=d["target"], weapon=True)
