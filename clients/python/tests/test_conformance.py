"""Conformance checks of the server contract (issue 3), run against the real server binary.

- replay: the same (scenario, seed, controlled, actions) gives byte-identical responses
  (every ``EpisodeState`` field but the episode id: JSON and typed observation, tensors, mask,
  legal actions, results, rewards, outcome);
- snapshot/restore and fork: continuing a restored or forked episode with the same actions
  gives the same transcript as the original;
- rejected actions are no-ops: an illegal action changes nothing but the decision id (state
  and RNG: the rest of the episode is the same as without it), and ``Validate`` agrees with
  the mask. Two bookkeeping fields are not compared there: ``EpisodeState.steps`` counts
  rejected steps too (and restarts at 0 after ``Restore``), and the JSON's per-combatant
  ``last_turn_results`` log lists rejected attempts;
- the mask and the legal list agree at every decision;
- an episode ends exactly once: one terminal response, then FAILED_PRECONDITION, and Observe
  and Describe keep telling the same end;
- 1,000 random episodes end without an error (``StepBatch`` of 250 episodes when the server
  has it, else unary calls). With a debug server on 2 cores this takes ~15 s; set
  ``PF1E_CONFORMANCE_EPISODES`` to run more or fewer.
"""

from __future__ import annotations

import json
import os

import grpc
import numpy as np
import pytest

from pf1e_gym import Pf1eClient, Pf1eVectorEnv, pb

FULL = pb.ObservationOptions(json=True, tensors=True, legal_actions=True, typed=True)
SHAPED = pb.RewardOptions(shaped=True)


def _key(state: pb.EpisodeState, *, steps: bool = True) -> bytes:
    """The response as bytes, without its episode id (deterministic map order); without the
    ``steps`` counter too when ``steps`` is false (a restored episode counts from 0)."""
    s = pb.EpisodeState()
    s.CopyFrom(state)
    s.episode_id = ""
    if not steps:
        s.steps = 0
    return s.SerializeToString(deterministic=True)


def _without_turn_log(text: str) -> str:
    doc = json.loads(text)
    for c in doc.get("combatants", []):
        c.pop("last_turn_results", None)
    return json.dumps(doc, sort_keys=True)


def _mask(state: pb.EpisodeState) -> np.ndarray:
    return np.frombuffer(state.action_mask, dtype=np.uint8)


def _reset(c: Pf1eClient, seed: int, sides: list[str], scenario: str = "sample_arena"):
    return c.reset(scenario, seed, controlled_sides=sides, observation=FULL, reward=SHAPED)


def _play(
    c: Pf1eClient, state: pb.EpisodeState, actions: list[int] | None, rng, limit: int = 10_000
) -> tuple[list[int], list[bytes], pb.EpisodeState]:
    """Play from ``state``: the given actions (then stop), or random legal ones to the end."""
    taken: list[int] = []
    keys: list[bytes] = []  # without the `steps` counter (see _key)
    i = 0
    while state.HasField("decision") and i < limit:
        if actions is not None:
            if i >= len(actions):
                break
            a = actions[i]
        else:
            a = int(rng.choice([la.id for la in state.legal_actions]))
        state = c.step(state.episode_id, state.decision.decision_id, action_ids=[a])
        taken.append(a)
        keys.append(_key(state, steps=False))
        i += 1
    return taken, keys, state


@pytest.fixture(scope="module")
def client(server_address: str):
    with Pf1eClient(server_address) as c:
        spec = c.get_spec("sample_arena")
        assert spec.capabilities.tensor_observation
        yield c


@pytest.mark.parametrize(
    ("scenario", "sides", "seed"),
    [
        ("sample_arena", ["players"], 1),
        ("sample_arena", ["players", "monsters"], 2),
        ("mirror_duel", ["west", "east"], 3),
    ],
)
def test_replay_is_byte_identical(client: Pf1eClient, scenario: str, sides, seed: int) -> None:
    s1 = _reset(client, seed, sides, scenario)
    s2 = _reset(client, seed, sides, scenario)
    assert s1.episode_id != s2.episode_id
    assert _key(s1) == _key(s2)
    actions, keys1, end1 = _play(client, s1, None, np.random.default_rng(seed))
    assert end1.terminated or end1.truncated
    _, keys2, end2 = _play(client, s2, actions, None)
    assert keys1 == keys2
    assert _key(end1) == _key(end2)  # `steps` included
    assert end1.steps == len(actions)
    # A different seed gives a different episode (the seed matters).
    s3 = _reset(client, seed + 1000, sides, scenario)
    _, keys3, _ = _play(client, s3, actions[:5], None)
    assert keys3 != keys1[: len(keys3)] or _key(s3) != _key(s1)
    for s in (s1, s2, s3):
        client.close_episode(s.episode_id)


def test_snapshot_restore_and_fork_are_equivalent(client: Pf1eClient) -> None:
    spec = client.get_spec("sample_arena")
    if not spec.capabilities.snapshots:
        pytest.skip("server without Snapshot/Restore/Fork")
    rng = np.random.default_rng(5)
    start = _reset(client, 55, ["players", "monsters"])
    _, _, mid = _play(client, start, None, rng, limit=7)
    assert mid.HasField("decision")
    snap = client.snapshot(mid.episode_id)
    assert snap.snapshot and snap.rules_data_version == spec.rules_data_version
    fork = client.fork(mid.episode_id)
    assert fork.episode_id != mid.episode_id
    assert _key(fork) == _key(mid)
    assert fork.steps == mid.steps == 7
    # Continue the original to the end, then replay its actions on the fork and the restore.
    actions, keys, end = _play(client, mid, None, rng)
    _, fork_keys, _ = _play(client, fork, actions, None)
    assert fork_keys == keys
    for _ in range(2):  # a snapshot can be restored any number of times
        restored = client.restore("sample_arena", snap, observation=FULL, reward=SHAPED)
        assert restored.HasField("decision")
        assert restored.decision == mid.decision
        assert restored.tensors == mid.tensors and restored.action_mask == mid.action_mask
        assert restored.observation.json == mid.observation.json
        _, restored_keys, restored_end = _play(client, restored, actions, None)
        assert restored_keys == keys
        assert restored_end.outcome == end.outcome
        client.close_episode(restored.episode_id)
    # Bad bytes are INVALID_ARGUMENT naming the field.
    with pytest.raises(grpc.RpcError) as e:
        client.restore("sample_arena", b"garbage")
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "snapshot" in e.value.details()
    for eid in (start.episode_id, fork.episode_id):
        client.close_episode(eid)


def test_rejected_actions_are_no_ops(client: Pf1eClient) -> None:
    """Insert a rejected action before every decision: the episode is unchanged otherwise."""
    seed, sides = 77, ["players"]
    ref = _reset(client, seed, sides)
    actions, ref_keys, _ = _play(client, ref, None, np.random.default_rng(seed))
    s = _reset(client, seed, sides)
    validate = client.get_spec("sample_arena").capabilities.validate
    n = len(_mask(s))
    rejected = 0
    for a, want in zip(actions, ref_keys, strict=True):
        mask = _mask(s)
        illegal = np.flatnonzero(mask == 0)
        bad = int(illegal[(s.decision.decision_id * 7919) % len(illegal)])
        if validate:
            v = client.validate(s.episode_id, bad)
            assert not v.ok and v.code not in (pb.RESULT_CODE_OK, pb.RESULT_CODE_UNSPECIFIED)
            assert v.reason
            ok = client.validate(s.episode_id, a, decision_id=s.decision.decision_id)
            assert ok.ok
        before = _key(s)
        after = client.step(s.episode_id, s.decision.decision_id, action_ids=[bad])
        [res] = after.results
        assert not res.ok and res.field == "action_ids[0]" and res.reason
        assert res.code not in (pb.RESULT_CODE_OK, pb.RESULT_CODE_UNSPECIFIED)
        assert after.decision.decision_id == s.decision.decision_id + 1
        # Everything but the decision id, the results and the reward report is unchanged.
        for field in ("observation", "legal_actions", "tensors", "action_mask", "terminated"):
            assert getattr(after, field) == getattr(s, field), field
        assert after.decision.actor_id == s.decision.actor_id
        assert after.decision.budget == s.decision.budget
        assert before == _key(s)
        rejected += 1
        s = client.step(after.episode_id, after.decision.decision_id, action_ids=[a])
        # The accepted step gives the reference response (same RNG state), decision ids aside
        # (and the `steps` counter, which counts the rejected steps too).
        got = pb.EpisodeState.FromString(_key(s, steps=False))
        exp = pb.EpisodeState.FromString(want)
        got.decision.decision_id = exp.decision.decision_id = 0
        # The JSON's per-combatant `last_turn_results` log lists the rejected attempts too (a
        # history of what was tried, not game state): compared without it.
        for m in (got, exp):
            m.observation.json = _without_turn_log(m.observation.json)
        assert got == exp
    assert rejected == len(actions) > 0 and n == len(_mask(ref))


def test_mask_agrees_with_legal_list(client: Pf1eClient) -> None:
    rng = np.random.default_rng(11)
    for seed in range(3):
        s = _reset(client, 300 + seed, ["players", "monsters"])
        while True:
            mask = _mask(s)
            assert set(np.flatnonzero(mask).tolist()) == {la.id for la in s.legal_actions}
            assert [la.id for la in s.legal_actions] == sorted(la.id for la in s.legal_actions)
            assert len(mask) == s.action_space_size and set(np.unique(mask)) <= {0, 1}
            if not s.HasField("decision"):
                assert mask.sum() == 0 and not s.legal_actions
                break
            if s.decision.kind != pb.DECISION_KIND_TURN_ACTION:
                # A reaction: decline is always legal, end_turn not.
                kinds = {la.action.kind for la in s.legal_actions}
                assert pb.ACTION_KIND_DECLINE in kinds and mask[0] == 0
            else:
                assert mask.sum() >= 1 and mask[0] == 1  # end_turn is always legal
            a = int(rng.choice(np.flatnonzero(mask)))
            s = client.step(s.episode_id, s.decision.decision_id, action_ids=[a])
        client.close_episode(s.episode_id)


def test_validate_agrees_with_mask(client: Pf1eClient) -> None:
    """At a few decisions, Validate of every id of the space says ok exactly on the mask."""
    if not client.get_spec("sample_arena").capabilities.validate:
        pytest.skip("server without Validate")
    s = _reset(client, 42, ["players", "monsters"])
    rng = np.random.default_rng(42)
    for _ in range(3):
        mask = _mask(s)
        ok = [client.validate(s.episode_id, i).ok for i in range(len(mask))]
        assert np.flatnonzero(ok).tolist() == np.flatnonzero(mask).tolist()
        a = int(rng.choice(np.flatnonzero(mask)))
        s = client.step(s.episode_id, s.decision.decision_id, action_ids=[a])
    client.close_episode(s.episode_id)


def test_episode_ends_exactly_once(client: Pf1eClient) -> None:
    s = _reset(client, 9, ["players", "monsters"])
    states = [s]
    rng = np.random.default_rng(9)
    while states[-1].HasField("decision"):
        st = states[-1]
        a = int(rng.choice([la.id for la in st.legal_actions]))
        states.append(client.step(st.episode_id, st.decision.decision_id, action_ids=[a]))
    ends = [st for st in states if st.terminated or st.truncated]
    assert len(ends) == 1 and ends[0] is states[-1]
    end = states[-1]
    assert end.terminated != end.truncated
    assert set(end.rewards) == {"players", "monsters"}
    assert {f.combatant_id for f in end.final_agents} == {
        c.id for c in client.get_spec("sample_arena").combatants
    }
    for f in end.final_agents:
        assert f.reward == end.rewards[f.side]
    if end.terminated and end.outcome.winner:
        assert end.rewards[end.outcome.winner] > 0
    # After the end: FAILED_PRECONDITION, whatever the decision id; Observe repeats the end.
    for d in (0, states[-2].decision.decision_id, states[-2].decision.decision_id + 1):
        with pytest.raises(grpc.RpcError) as e:
            client.step(end.episode_id, d, action_ids=[0])
        assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    again = client.observe(end.episode_id)
    assert again.outcome == end.outcome and not again.HasField("decision")
    assert again.terminated == end.terminated and again.truncated == end.truncated
    if client.get_spec("sample_arena").capabilities.validate:
        desc = client.describe(end.episode_id)
        assert desc.over and desc.outcome == end.outcome and desc.steps == len(states) - 1
    client.close_episode(end.episode_id)


def test_thousand_random_episodes(server_address: str) -> None:
    episodes = int(os.environ.get("PF1E_CONFORMANCE_EPISODES", "1000"))
    width = min(250, episodes)
    scenarios = [("sample_arena", ["players"]), ("mirror_duel", ["west", "east"])]
    done = 0
    for k, (scenario, sides) in enumerate(scenarios):
        target = episodes // len(scenarios) + (episodes % len(scenarios) if k == 0 else 0)
        env = Pf1eVectorEnv(
            width,
            address=server_address,
            scenario=scenario,
            controlled_sides=sides,
            shaped_reward=True,
        )
        try:
            rng = np.random.default_rng(k)
            obs, _ = env.reset(seed=10_000 * (k + 1))
            ended = 0
            steps = 0
            while ended < target:
                scores = rng.random(obs["action_mask"].shape) * obs["action_mask"]
                obs, rew, term, trunc, info = env.step(scores.argmax(axis=1))
                assert np.isfinite(rew).all()
                assert info["result_ok"].all()  # only legal actions were sent
                ended += int((term | trunc).sum())
                steps += 1
                assert steps < 5_000, "episodes do not end"
            done += ended
        finally:
            env.close()
    assert done >= episodes
