"""Readied actions and delay over the wire (CRB — Special Initiative Actions: Ready, Delay):
an external agent readies an attack and fires it at the trigger decision, through plain gRPC
(``Pf1eClient``), the Gymnasium env (action ids from the mask) and the PettingZoo AEC env.

The guard room of ``aoo_scenarios.py``: the hero (an orc) at (1,2) next to the guard (a
goblin) at (2,3).
"""

from __future__ import annotations

import json

from aoo_scenarios import combatant, guard_room

from pf1e_gym import (
    DecisionKind,
    Pf1eAECEnv,
    Pf1eClient,
    Pf1eEnv,
    action_block,
    decision_kind,
    delay_action,
    fire_readied_action,
    pb,
    ready_action,
)


def _ready_on_attack() -> pb.Action:
    return ready_action(pb.Action(kind=pb.ACTION_KIND_ATTACK, weapon=0), "enemy_attacks")


def test_client_readies_an_attack_and_fires_it_at_the_trigger(server_address: str) -> None:
    with Pf1eClient(server_address) as c:
        for seed in range(6):
            s = c.reset(guard_room(), seed, controlled_sides=["heroes"])
            assert s.decision.actor_id == "hero"
            if s.decision.round != 1 or s.observation.round != 1:
                continue
            s = c.step(s.episode_id, s.decision.decision_id, actions=[_ready_on_attack()])
            assert s.results[0].ok and s.results[0].reason == "ready"
            assert s.results[0].code == pb.RESULT_CODE_READY
            # The readied state is in the typed observation's JSON.
            assert '"readied":{' in s.observation.json.replace(" ", "")
            s = c.step(
                s.episode_id,
                s.decision.decision_id,
                actions=[pb.Action(kind=pb.ACTION_KIND_END_TURN)],
            )
            if s.terminated or s.truncated:
                continue
            # The default-policy guard attacks the hero: the hero's readied attack first.
            assert decision_kind(s) is DecisionKind.READIED_TRIGGER, s.decision
            offer = s.decision.readied_trigger
            assert offer.trigger_by_id == "guard"
            assert offer.trigger.event == pb.READY_TRIGGER_EVENT_ENEMY_ATTACKS
            assert offer.readied.kind == pb.ACTION_KIND_ATTACK
            spec = c.get_spec(guard_room())
            fire_id = action_block(spec, "fire_readied")[0]
            decline_id = action_block(spec, "decline")[0]
            assert {la.id for la in s.legal_actions} == {fire_id, decline_id}
            guard_hp = combatant(s, "guard").hp
            s = c.step(s.episode_id, s.decision.decision_id, actions=[fire_readied_action()])
            assert s.results[0].ok, s.results
            assert s.results[0].kind == pb.ACTION_KIND_FIRE_READIED
            # Fired (one-shot): the readied action is gone.
            hero = next(
                x for x in json.loads(s.observation.json)["combatants"] if x["id"] == "hero"
            )
            assert hero["readied"] is None
            assert combatant(s, "guard").hp <= guard_hp
            return
    raise AssertionError("no seed gave the hero the first turn of round 1")


def test_gym_env_fires_a_readied_attack_by_its_action_id(server_address: str) -> None:
    env = Pf1eEnv(address=server_address, scenario=guard_room(), controlled_sides=["heroes"])
    try:
        spec = env.spec_msg
        ready_id = action_block(spec, "ready_attack_on_enemy_attack")[0]
        fire_id = action_block(spec, "fire_readied")[0]
        fired = 0
        for seed in range(8):
            obs, info = env.reset(seed=seed)
            readied = False
            while info["outcome"] is None:
                mask = obs["action_mask"]
                if info["decision_kind"] == "readied_trigger":
                    assert mask[fire_id] == 1 and info["reaction"]["fire_id"] == fire_id
                    assert info["reaction"]["provoker_id"] == "guard"
                    action = fire_id
                    fired += 1
                elif not readied and mask[ready_id] == 1:
                    action = ready_id
                    readied = True
                else:
                    action = 0
                obs, _, _, _, info = env.step(action)
                assert all(r["ok"] for r in info["action_results"]), info["action_results"]
        assert fired > 0
    finally:
        env.close()


def test_aec_env_readied_trigger_goes_to_the_readier(server_address: str) -> None:
    env = Pf1eAECEnv(address=server_address, scenario=guard_room(), observation="json")
    try:
        spec = env.spec_msg
        ready_id = action_block(spec, "ready_attack_on_enemy_attack")[0]
        fire_id = action_block(spec, "fire_readied")[0]
        attack_ids = list(action_block(spec, "attack"))
        env.reset(seed=3)
        readied = fired = False
        for agent in env.agent_iter(max_iter=400):
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            if info["decision_kind"] == "readied_trigger":
                assert agent == "hero"
                env.step(fire_id)
                fired = True
            elif agent == "hero" and not readied and obs["action_mask"][ready_id] == 1:
                env.step(ready_id)
                readied = True
            elif agent == "guard" and readied:
                # The guard attacks the hero (the trigger) when it can.
                legal = [i for i in attack_ids if obs["action_mask"][i] == 1]
                env.step(legal[0] if legal else 0)
            else:
                env.step(0)
        assert fired
    finally:
        env.close()


def test_delay_over_grpc_says_delayed(server_address: str) -> None:
    with Pf1eClient(server_address) as c:
        s = c.reset(guard_room(), 0, controlled_sides=["heroes", "guards"])
        first = s.decision.actor_index
        other = 1 - first
        s = c.step(s.episode_id, s.decision.decision_id, actions=[delay_action(other)])
        assert s.results[0].ok and s.results[0].reason == "delayed"
        assert s.results[0].code == pb.RESULT_CODE_DELAYED
        assert s.decision.actor_index == other
