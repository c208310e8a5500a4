"""Spellcasting over the wire (CRB — Magic), on the bundled ``casters`` scenario: cleric 3,
wizard 5, sorcerer 4, druid 3 (side ``players``) against a green hag and two ogres
(``monsters``), plus the combatant slots reserved for summoned creatures.

Through plain gRPC (``Pf1eClient``: a cast chosen from the legal actions, refusals with their
ResultCode, bad input as INVALID_ARGUMENT), the Gymnasium env (ids of the ``cast_spell_at`` and
``cast_defensively`` blocks from the mask) and the PettingZoo AEC env.
"""

from __future__ import annotations

import json

import grpc
import numpy as np
import pytest

from pf1e_gym import (
    Pf1eAECEnv,
    Pf1eClient,
    Pf1eEnv,
    action_block,
    activate_metamagic_action,
    cast_defensively_action,
    cast_of_action_id,
    cast_spell_action,
    decline_action,
    is_reaction,
    pb,
)

SCENARIO = "casters"
END = pb.Action(kind=pb.ACTION_KIND_END_TURN)


def _index(spec: pb.Spec, cid: str) -> int:
    return next(c.index for c in spec.combatants if c.id == cid)


def _spell(spec: pb.Spec, cid: str, name: str) -> pb.SpellInfo:
    return next(s for s in spec.combatants[_index(spec, cid)].spells if s.name.lower() == name)


def _pass(state: pb.EpisodeState) -> pb.Action:
    """End the turn, or decline at a reaction decision (an attack of opportunity offered)."""
    return decline_action() if is_reaction(state) else END


def _pass_id(info: dict) -> int:
    """The env id that passes: ``decline`` at a reaction, else ``end_turn`` (0)."""
    return info["reaction"]["decline_id"] if info.get("reaction") else 0


def _cast_ids(spec: pb.Spec, mask: np.ndarray, block: str) -> list[int]:
    return [i for i in action_block(spec, block) if mask[i] == 1]


def test_spec_lists_spellbooks_summon_slots_and_the_cast_blocks(server_address: str) -> None:
    with Pf1eClient(server_address) as c:
        spec = c.get_spec(SCENARIO)
    wizard = spec.combatants[_index(spec, "wizard_5")]
    names = [s.name.lower() for s in wizard.spells]
    assert "fireball" in names and "magic missile" in names
    assert [s.index for s in wizard.spells] == list(range(len(wizard.spells)))
    fireball = _spell(spec, "wizard_5", "fireball")
    assert fireball.level == 3 and fireball.targeting == "area"
    assert fireball.area.shape == "spread" and fireball.area.size_ft == 20
    assert fireball.area.origin == "point" and fireball.uses == "counted"
    assert _spell(spec, "wizard_5", "magic missile").targeting == "creature"
    # The deployed combatants come first; reserved summon slots (if any spell summons) after.
    deployed = [x for x in spec.combatants if not x.summon_slot]
    assert [x.id for x in deployed][:6] == [
        "cleric_3",
        "wizard_5",
        "sorcerer_4",
        "druid_3",
        "green_hag",
        "ogre",
    ]
    for x in spec.combatants:
        if x.summon_slot:
            assert x.HasField("summoned_by") and x.summoned_by < len(deployed)
            summoner = spec.combatants[x.summoned_by]
            assert x.summoned_by_spell < len(summoner.spells)
    # S = most spellbook entries of any combatant.
    s = max(len(x.spells) for x in spec.combatants)
    n = len(spec.combatants)
    cells = spec.map.rows * spec.map.cols
    assert len(action_block(spec, "cast_spell")) == s * n
    assert len(action_block(spec, "cast_spell_at")) == s * cells
    assert len(action_block(spec, "cast_defensively")) == 1
    assert len(action_block(spec, "activate_metamagic")) == 7
    feats = list(spec.observation_schema.feature_names)
    # The magic group: features 50..61 (issue 14 appends its groups after it).
    assert feats[50:61] == [
        "caster_level_div_20",
        "spell_slots_left_fraction",
        "spell_uses_left_fraction",
        "pending_cast",
        "held_charge",
        "active_buffs_div_10",
        "mirror_images_div_8",
        "absent",
        "summon_rounds_left_div_20",
        "cast_defensively",
        "spell_resistance_div_40",
    ]


def test_client_casts_a_creature_targeted_spell_from_the_legal_actions(
    server_address: str,
) -> None:
    with Pf1eClient(server_address) as c:
        spec = c.get_spec(SCENARIO)
        s = c.reset(SCENARIO, 1, controlled_sides=["players"])
        for _ in range(40):
            assert not (s.terminated or s.truncated), "no creature-targeted cast was legal"
            actor = spec.combatants[s.decision.actor_index]
            creature_casts = [
                la
                for la in s.legal_actions
                if la.action.kind == pb.ACTION_KIND_CAST_SPELL
                and la.action.HasField("target")
                and la.action.target != s.decision.actor_index
                and actor.spells[la.action.spell].targeting == "creature"
            ]
            if actor.player_character and creature_casts and not is_reaction(s):
                la = creature_casts[0]
                # The id decodes offline to the same cast.
                assert cast_of_action_id(spec, la.id) == (la.action.spell, la.action.target, None)
                s = c.step(s.episode_id, s.decision.decision_id, actions=[la.action])
                assert s.results[0].ok, s.results
                assert s.results[0].kind == pb.ACTION_KIND_CAST_SPELL
                assert s.results[0].code == pb.RESULT_CODE_OK
                return
            s = c.step(s.episode_id, s.decision.decision_id, actions=[_pass(s)])
    raise AssertionError("no PC turn with a creature-targeted cast")


def test_gym_env_places_an_area_by_a_cast_spell_at_id(server_address: str) -> None:
    env = Pf1eEnv(address=server_address, scenario=SCENARIO, controlled_sides=["players"])
    try:
        spec = env.spec_msg
        at_block = action_block(spec, "cast_spell_at")
        obs, info = env.reset(seed=2)
        for _ in range(60):
            assert info["outcome"] is None, "the episode ended before an area cast"
            mask = obs["action_mask"]
            ids = _cast_ids(spec, mask, "cast_spell_at")
            if ids:
                action = ids[len(ids) // 2]
                spell, target, square = cast_of_action_id(spec, action)
                assert target is None and square is not None
                actor = spec.combatants[info["actor_index"]]
                assert actor.spells[spell].targeting == "area"
                assert action in at_block
                obs, _, _, _, info = env.step(action)
                res = info["action_results"]
                assert res[0]["ok"] and res[0]["kind"] == "cast_spell", res
                # The magic features are within [0, 1] exactly.
                magic = obs["features"][:, -11:]
                assert magic.min() >= 0.0 and magic.max() <= 1.0
                return
            obs, _, _, _, info = env.step(_pass_id(info))
        raise AssertionError("no cast_spell_at id was ever legal")
    finally:
        env.close()


def test_gym_env_cast_defensively_then_a_cast(server_address: str) -> None:
    env = Pf1eEnv(address=server_address, scenario=SCENARIO, controlled_sides=["players"])
    try:
        spec = env.spec_msg
        defensive_id = action_block(spec, "cast_defensively")[0]
        feature = list(spec.observation_schema.feature_names).index("cast_defensively")
        obs, info = env.reset(seed=4)
        for _ in range(60):
            assert info["outcome"] is None
            mask = obs["action_mask"]
            casts = _cast_ids(spec, mask, "cast_spell") + _cast_ids(spec, mask, "cast_spell_at")
            if mask[defensive_id] == 1 and casts:
                me = info["actor_index"]
                obs, _, _, _, info = env.step(defensive_id)
                res = info["action_results"]
                assert res[0]["ok"] and res[0]["kind"] == "cast_defensively", res
                # Still the caster's turn, the declaration in its features, not offered twice.
                assert info["actor_index"] == me
                assert obs["features"][me, feature] == 1.0
                assert obs["action_mask"][defensive_id] == 0
                mask = obs["action_mask"]
                casts = _cast_ids(spec, mask, "cast_spell") + _cast_ids(spec, mask, "cast_spell_at")
                assert casts
                obs, _, _, _, info = env.step(casts[0])
                res = info["action_results"]
                assert res[0]["ok"] and res[0]["kind"] == "cast_spell", res
                return
            obs, _, _, _, info = env.step(_pass_id(info))
        raise AssertionError("no turn offered cast_defensively and a cast")
    finally:
        env.close()


def test_aec_env_plays_a_casters_turn_with_a_cast_id(server_address: str) -> None:
    env = Pf1eAECEnv(address=server_address, scenario=SCENARIO, observation="json")
    try:
        spec = env.spec_msg
        env.reset(seed=5)
        cast = False
        for agent in env.agent_iter(max_iter=600):
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            ids = _cast_ids(spec, mask, "cast_spell") + _cast_ids(spec, mask, "cast_spell_at")
            if ids and info["decision_kind"] == "turn_action":
                assert len(spec.combatants[_index(spec, agent)].spells) > 0
                env.step(ids[0])
                res = env.infos[agent]["action_results"]
                assert res and res[0]["ok"] and res[0]["kind"] == "cast_spell", res
                cast = True
                break
            env.step(_pass_id(info))
        assert cast
    finally:
        env.close()


def test_refused_casts_return_their_result_codes(server_address: str) -> None:
    with Pf1eClient(server_address) as c:
        spec = c.get_spec(SCENARIO)
        cleric = _index(spec, "cleric_3")
        wizard = _index(spec, "wizard_5")
        drow = _index(spec, "green_hag")
        cure = _spell(spec, "cleric_3", "cure light wounds").index
        mage_armor = _spell(spec, "wizard_5", "mage armor").index
        seen: set[int] = set()
        for seed in range(6):
            s = c.reset(SCENARIO, seed, controlled_sides=["players"])
            wizard_turns = 0
            for _ in range(60):
                if s.terminated or s.truncated:
                    break
                d = s.decision
                if is_reaction(s):
                    s = c.step(s.episode_id, d.decision_id, actions=[decline_action()])
                    continue
                acts: list[pb.Action] = [END]
                if d.actor_index == cleric and d.round == 1:
                    # A touch spell at a far foe: out of range; no such spellbook index.
                    s = c.step(
                        s.episode_id,
                        d.decision_id,
                        actions=[
                            cast_spell_action(cure, target=drow),
                            cast_spell_action(99, target=drow),
                            # Metamagic the cleric lacks (no Empower Spell).
                            cast_spell_action(cure, target=cleric, metamagic=["empower"]),
                            END,
                        ],
                    )
                    codes = [r.code for r in s.results]
                    assert codes[:3] == [
                        pb.RESULT_CODE_OUT_OF_RANGE,
                        pb.RESULT_CODE_UNKNOWN_SPELL,
                        pb.RESULT_CODE_MISSING_FEAT,
                    ], s.results
                    assert s.results[1].reason == "unknown_spell"
                    assert s.results[1].detail == "spell 99"
                    seen.update(codes[:3])
                    continue
                if d.actor_index == wizard:
                    wizard_turns += 1
                    # Its one prepared mage armor on itself: ok, then no slot on its next turn.
                    acts = [cast_spell_action(mage_armor, target=wizard), END]
                    s = c.step(s.episode_id, d.decision_id, actions=acts)
                    want = pb.RESULT_CODE_OK if wizard_turns == 1 else pb.RESULT_CODE_NO_SLOT
                    assert s.results[0].code == want, s.results
                    if wizard_turns == 2:
                        assert s.results[0].reason == "no_slot"
                        assert s.results[0].detail == "spell level 1"
                        seen.add(want)
                        break
                    continue
                s = c.step(s.episode_id, d.decision_id, actions=acts)
            if {pb.RESULT_CODE_OUT_OF_RANGE, pb.RESULT_CODE_NO_SLOT} <= seen:
                return
        raise AssertionError(f"not every refusal was seen: {seen}")


def test_bad_cast_input_is_invalid_argument_naming_the_field(server_address: str) -> None:
    with Pf1eClient(server_address) as c:
        s = c.reset(SCENARIO, 0, controlled_sides=["players"])
        d = s.decision
        bad = [
            (cast_spell_action(0, target=0, metamagic=[99]), "actions[0].metamagic[0]"),
            (
                cast_spell_action(0, target=0, metamagic=[pb.METAMAGIC_UNSPECIFIED]),
                "actions[0].metamagic[0]",
            ),
            (
                cast_spell_action(0, target=0, metamagic=["extend", "extend"]),
                "actions[0].metamagic[1]",
            ),
            (cast_spell_action(0, target_pos=(99, 0)), "actions[0].target_pos"),
            (pb.Action(kind=pb.ACTION_KIND_ATTACK, target=4, spell=0), "actions[0].spell"),
            (pb.Action(kind=pb.ACTION_KIND_END_TURN, defensively=True), "actions[0].defensively"),
            (
                pb.Action(kind=pb.ACTION_KIND_END_TURN, metamagic=[pb.METAMAGIC_EMPOWER]),
                "actions[0].metamagic",
            ),
        ]
        for action, field in bad:
            with pytest.raises(grpc.RpcError) as err:
                c.step(s.episode_id, d.decision_id, actions=[action])
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert field in (err.value.details() or ""), (field, err.value.details())
        # The helpers: one declaration each; an unknown name is a ValueError.
        assert activate_metamagic_action("quicken").metamagic == [pb.METAMAGIC_QUICKEN]
        assert cast_defensively_action().kind == pb.ACTION_KIND_CAST_DEFENSIVELY
        with pytest.raises(ValueError):
            activate_metamagic_action("twin")
        with pytest.raises(ValueError):
            cast_spell_action(0, target=1, target_pos=(1, 1))
        # The JSON observation carries the spellbook with uses left.
        obs = json.loads(s.observation.json)
        wizard = next(x for x in obs["combatants"] if x["id"] == "wizard_5")
        assert wizard["caster_level"] == 5 and len(wizard["spells"]) > 0
