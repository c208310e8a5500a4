"""Attacks of opportunity as reaction decisions, against the real server: answered through
plain gRPC (``Pf1eClient``), the Gymnasium env, the vector env and the PettingZoo AEC env.

Scenarios in ``aoo_scenarios.py`` (the guard room) and ``examples/aoo_agent.py`` (the yard).
"""

from __future__ import annotations

import json
import pathlib
import sys
import warnings

import numpy as np
import pytest
from aoo_scenarios import HERO_DESTINATION, cell_id, combatant, guard_room

from pf1e_gym import (
    DecisionKind,
    Pf1eAECEnv,
    Pf1eClient,
    Pf1eEnv,
    Pf1eVectorEnv,
    action_block,
    decision_kind,
    is_reaction,
    pb,
)

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def yard() -> pb.Scenario:
    sys.path.insert(0, str(EXAMPLES))
    try:
        from aoo_agent import yard_scenario
    finally:
        sys.path.remove(str(EXAMPLES))
    return yard_scenario()


def _to_heros_turn(c: Pf1eClient, s: pb.EpisodeState) -> pb.EpisodeState:
    """End the guard's turns until the hero decides."""
    while s.decision.actor_id != "hero":
        assert decision_kind(s) is DecisionKind.TURN_ACTION
        s = c.step(s.episode_id, s.decision.decision_id, action_ids=[0])
    return s


def _move_then_end() -> list[pb.Action]:
    row, col = HERO_DESTINATION
    return [
        pb.Action(kind=pb.ACTION_KIND_MOVE, destination=pb.Cell(row=row, col=col)),
        pb.Action(kind=pb.ACTION_KIND_END_TURN),
    ]


def test_client_declines_and_the_move_goes_on(server_address: str) -> None:
    with Pf1eClient(server_address) as c:
        spec = c.get_spec(guard_room())
        aoo_ids = set(action_block(spec, "attack_of_opportunity"))
        decline_id = action_block(spec, "decline")[0]
        # The blocks appended after `decline` (total_defense, fight_defensively, aid_another,
        # coup_de_grace, draw_weapon, sheathe_weapon, run_toward) are turn actions.
        assert decline_id == action_block(spec, "attack_of_opportunity")[-1] + 1
        s = c.reset(guard_room(), 0, controlled_sides=["heroes", "guards"])
        s = _to_heros_turn(c, s)
        assert decision_kind(s) is DecisionKind.TURN_ACTION and not is_reaction(s)
        # A turn decision never offers the reaction ids.
        assert not {la.id for la in s.legal_actions} & (aoo_ids | {decline_id})
        hero_hp = combatant(s, "hero").hp
        mover = s.decision.decision_id
        s = c.step(s.episode_id, mover, actions=_move_then_end())
        # The move is accepted and under way; the guard decides before the hero leaves (1,2);
        # the end_turn after it has no result yet.
        assert [(r.kind, r.ok) for r in s.results] == [(pb.ACTION_KIND_MOVE, True)]
        assert s.pending_results == 1
        asked_at = []
        late: list[pb.LateResults] = []
        while is_reaction(s):
            assert s.decision.actor_id == "guard"
            offer = s.decision.attack_of_opportunity
            assert (offer.provoker_id, offer.provocation) == ("hero", "leaving")
            assert offer.provoker_index == combatant(s, "hero").index
            assert {la.id for la in s.legal_actions} == {
                *(action_block(spec, "attack_of_opportunity")[w] for w in offer.weapons),
                decline_id,
            }
            hero, guard = combatant(s, "hero"), combatant(s, "guard")
            asked_at.append((hero.row, hero.col))
            aoo_left = guard.aoo_remaining
            s = c.decline(s)
            assert [(r.kind, r.ok) for r in s.results] == [(pb.ACTION_KIND_DECLINE, True)]
            assert s.pending_results == 0
            assert combatant(s, "guard").aoo_remaining == aoo_left  # declining spends nothing
            late += s.late_results
        # Asked once, leaving the first threatened square: declining spends the guard's
        # movement opportunity against the hero for the round (CRB — Attacks of Opportunity:
        # moving out of more than one square threatened by the same opponent in the same
        # round counts as one opportunity), so the squares left after it ask nothing. No
        # attack was made (the hero is unhurt), the move went on to its end, and the
        # end_turn's result came late.
        assert asked_at == [(1, 2)]
        hero = combatant(s, "hero")
        assert (hero.row, hero.col) == HERO_DESTINATION and hero.hp == hero_hp
        assert [(x.decision_id, x.first_index) for x in late] == [(mover, 1)]
        assert [(r.kind, r.ok, r.field) for r in late[0].results] == [
            (pb.ACTION_KIND_END_TURN, True, "actions[1]")
        ]
        assert s.decision.actor_id == "guard" and decision_kind(s) is DecisionKind.TURN_ACTION
        c.close_episode(s.episode_id)


def test_client_takes_an_aoo_and_refuses_turn_actions_at_a_reaction(server_address: str) -> None:
    with Pf1eClient(server_address) as c:
        s = _to_heros_turn(c, c.reset(guard_room(), 0, controlled_sides=["heroes", "guards"]))
        s = c.step(s.episode_id, s.decision.decision_id, actions=_move_then_end()[:1])
        assert is_reaction(s) and s.pending_results == 0
        # end_turn is not an answer: refused, the same question comes back.
        s2 = c.step(s.episode_id, s.decision.decision_id, action_ids=[0])
        assert s2.results[0].code == pb.RESULT_CODE_WRONG_DECISION_KIND
        assert is_reaction(s2) and s2.decision.decision_id > s.decision.decision_id
        aoo_left = combatant(s2, "guard").aoo_remaining
        s3 = c.take_aoo(s2, weapon=s2.decision.attack_of_opportunity.weapons[0])
        assert s3.results[0].kind == pb.ACTION_KIND_ATTACK_OF_OPPORTUNITY and s3.results[0].ok
        assert combatant(s3, "guard").aoo_remaining == aoo_left - 1
        c.close_episode(s.episode_id)


def test_gym_env_gets_reaction_decisions_with_reaction_masks(server_address: str) -> None:
    env = Pf1eEnv(address=server_address, scenario=yard(), observation="tensor", reaction_obs=True)
    try:
        spec = env.spec_msg
        aoo = set(action_block(spec, "attack_of_opportunity"))
        decline = action_block(spec, "decline")[0]
        kinds: dict[str, int] = {}
        for seed in range(3):
            obs, info = env.reset(seed=seed)
            while info["outcome"] is None:
                legal = set(np.flatnonzero(obs["action_mask"]).tolist())
                assert legal == {i for i, _ in info["legal_actions"]}
                # One action per step: every action's result comes with it.
                assert info["pending_results"] == 0 and info["late_results"] == []
                kind = info["decision_kind"]
                kinds[kind] = kinds.get(kind, 0) + 1
                if kind == "attack_of_opportunity":
                    offer = info["reaction"]
                    # Only the answers: the offered weapons' AoO ids and decline.
                    assert legal == {*offer["take_ids"], decline}
                    assert offer["decline_id"] == decline and legal <= aoo | {decline}
                    assert obs["action_mask"][0] == 0
                    assert offer["provoker_id"] in ("orc", "orc-2", "orc-3")
                    assert offer["provocation"] in ("leaving", "stand_up")
                    assert info["actor"] in ("goblin", "goblin-2")
                    assert (obs["decision_kind"], obs["provoker"]) == (1, offer["provoker_index"])
                    action = decline if seed % 2 else offer["take_ids"][0]
                else:
                    assert kind == "turn_action" and info["reaction"] is None
                    assert not legal & (aoo | {decline}) and 0 in legal
                    assert (obs["decision_kind"], obs["provoker"]) == (0, len(spec.combatants))
                    action = 0
                assert env.observation_space.contains(obs)
                obs, _, _, _, info = env.step(action)
                assert all(r["ok"] for r in info["action_results"]), info["action_results"]
            assert info["decision_kind"] is None and info["reaction"] is None
        assert kinds["attack_of_opportunity"] >= 3 and kinds["turn_action"] >= 3, kinds
    finally:
        env.close()


def test_env_checker_with_reaction_observations(server_address: str) -> None:
    from gymnasium.utils.env_checker import check_env

    for observation in ("tensor", "json"):
        env = Pf1eEnv(
            address=server_address, scenario=yard(), observation=observation, reaction_obs=True
        )
        try:
            assert {"decision_kind", "provoker"} <= set(env.observation_space.spaces)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                check_env(env, skip_render_check=True)
            assert [str(w.message) for w in caught] == []
        finally:
            env.close()


def test_aec_env_asks_the_reacting_agent_mid_turn_and_declines(server_address: str) -> None:
    env = Pf1eAECEnv(address=server_address, scenario=guard_room(), observation="json")
    try:
        spec = env.spec_msg
        move = cell_id(spec, "move_to", *HERO_DESTINATION)
        env.reset(seed=0)
        assert env.possible_agents == ["hero", "guard"]
        previous = None
        reactions = []
        moved = False
        hero_hp = None
        for agent in env.agent_iter(max_iter=200):
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            snap = json.loads(obs["json"])
            by_id = {c["id"]: c for c in snap["combatants"]}
            if info["decision_kind"] == "attack_of_opportunity":
                # Asked of the guard, in the middle of the hero's turn (the hero acted last,
                # the move is under way).
                assert agent == "guard" and previous in ("hero", "guard")
                offer = info["reaction"]
                assert (offer["provoker_id"], offer["provocation"]) == ("hero", "leaving")
                assert set(np.flatnonzero(obs["action_mask"]).tolist()) == {
                    *offer["take_ids"],
                    offer["decline_id"],
                }
                # The mover's observation is not asked anything now.
                assert env.observe("hero")["action_mask"].sum() == 0
                assert env.infos["hero"]["decision_kind"] is None
                reactions.append((by_id["hero"]["pos"], by_id["guard"]["aoo_remaining"]))
                env.step(offer["decline_id"])
                assert env.infos["guard"]["action_results"][0]["kind"] == "decline"
            elif agent == "hero" and not moved:
                assert info["decision_kind"] == "turn_action" and info["reaction"] is None
                hero_hp = by_id["hero"]["hp"]
                moved = True
                env.step(move)
            else:
                assert info["decision_kind"] == "turn_action"
                if agent == "hero" and moved and hero_hp is not None:
                    # After the decline: the move ended where it was going, unhurt, and the
                    # hero still finds its move's result (the guard stepped in between).
                    assert by_id["hero"]["pos"] == list(HERO_DESTINATION)
                    assert by_id["hero"]["hp"] == hero_hp
                    assert [r["kind"] for r in info["action_results"]] == ["move"]
                    assert info["action_results"][0]["ok"]
                    break
                env.step(0)
            previous = agent
        # One movement opportunity per opponent per round: the decline spends it.
        assert [tuple(pos) for pos, _ in reactions] == [(1, 2)]
        # No attack of opportunity was made: the guard's count never went down.
        assert len({left for _, left in reactions}) == 1
        assert env.infos["guard"]["late_results"] == []
    finally:
        env.close()


def test_aec_api_test_with_reaction_observations(server_address: str) -> None:
    from pettingzoo.test import api_test
    from test_aec_env import _check_warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = Pf1eAECEnv(address=server_address, scenario=yard(), reaction_obs=True)
        try:
            api_test(env, num_cycles=300)
        finally:
            env.close()
    _check_warnings(caught)


def test_aec_env_routes_late_results_to_the_agent_whose_step_they_finish(
    server_address: str,
) -> None:
    # This env steps one action id at a time, so the server never leaves a result pending for
    # it; the routing is checked here on responses shaped like the client test's (the hero's
    # [move, end_turn] interrupted, the end_turn's result arriving with the guard's decline).
    env = Pf1eAECEnv(address=server_address, scenario=guard_room(), observation="json")
    try:
        env.reset(seed=1)
        st = env.state_msg
        assert st is not None and env.agent_selection == "hero"
        interrupted = pb.EpisodeState()
        interrupted.CopyFrom(st)
        interrupted.pending_results = 1
        env._absorb(interrupted, acted="hero", decision_id=41)
        assert env.infos["hero"]["pending_results"] == 1
        answered = pb.EpisodeState()
        answered.CopyFrom(st)
        answered.late_results.add(
            decision_id=41,
            first_index=1,
            results=[
                pb.ActionResult(kind=pb.ACTION_KIND_END_TURN, ok=True, code=pb.RESULT_CODE_OK)
            ],
        )
        env._absorb(answered, acted="guard", decision_id=42)
        want = [
            {
                "decision_id": 41,
                "first_index": 1,
                "results": [
                    {"kind": "end_turn", "ok": True, "code": "ok", "reason": "", "field": ""}
                ],
            }
        ]
        assert env.infos["hero"]["late_results"] == want
        assert env.infos["guard"]["late_results"] == []
        assert env._open_steps == {}  # every pending result arrived
        # Kept until the hero steps again (a response in between does not drop them).
        env._absorb(st, acted="guard", decision_id=43)
        assert env.infos["hero"]["late_results"] == want
        env.agent_selection = "hero"
        env.step(0)
        assert env.infos["hero"]["late_results"] == []
    finally:
        env.close()


def _vector_run(env: Pf1eVectorEnv, seed: int, steps: int) -> tuple[list, int]:
    """Random legal actions; per step the observation and the reaction infos."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out, reactions = [], 0
    for _ in range(steps):
        rows = []
        for i in range(env.num_envs):
            kind = info["decision_kind"][i]
            offer = info["reaction"][i] if info["_reaction"][i] else None
            mask = obs["action_mask"][i]
            assert (offer is not None) == (kind == "attack_of_opportunity")
            if offer is not None:
                reactions += 1
                assert set(np.flatnonzero(mask).tolist()) == {
                    *offer["take_ids"],
                    offer["decline_id"],
                }
            assert obs["decision_kind"][i] == int(offer is not None)
            provoker = offer["provoker_index"] if offer else len(env.spec_msg.combatants)
            assert obs["provoker"][i] == provoker
            rows.append((kind, json.dumps(offer, sort_keys=True)))
        out.append((rows, obs["planes"].tobytes(), obs["action_mask"].tobytes()))
        acts = (rng.random(obs["action_mask"].shape) * obs["action_mask"]).argmax(axis=1)
        obs, _, _, _, info = env.step(acts)
    return out, reactions


def test_vector_env_reaction_infos_from_columns_equal_the_items(server_address: str) -> None:
    kw = {"address": server_address, "scenario": yard(), "reaction_obs": True}
    cols = Pf1eVectorEnv(4, columnar=True, **kw)
    items = Pf1eVectorEnv(4, columnar=False, **kw)
    try:
        assert cols._col_kinds and not items._col_kinds
        want, reactions = _vector_run(items, 5, 40)
        assert reactions >= 4, reactions
        assert _vector_run(cols, 5, 40) == (want, reactions)
        cols._compact = False  # full columns
        assert _vector_run(cols, 5, 40) == (want, reactions)
        cols._col_kinds = False  # a server without the kind column: kinds from the items
        assert _vector_run(cols, 5, 40) == (want, reactions)
        assert cols.observation_space["decision_kind"].shape == (4,)
    finally:
        cols.close()
        items.close()


def test_decision_kind_helpers() -> None:
    assert decision_kind(pb.EpisodeState()) is None
    assert decision_kind(pb.DECISION_KIND_UNSPECIFIED) is DecisionKind.TURN_ACTION
    d = pb.Decision(kind=pb.DECISION_KIND_ATTACK_OF_OPPORTUNITY)
    assert decision_kind(d) is DecisionKind.ATTACK_OF_OPPORTUNITY
    assert DecisionKind.ATTACK_OF_OPPORTUNITY.is_reaction
    assert DecisionKind.ATTACK_OF_OPPORTUNITY == "attack_of_opportunity"
    with pytest.raises(ValueError, match="unknown decision kind"):
        decision_kind(99)
