"""Transcripts against the real server: ``Pf1eClient.export_transcript`` of a live episode
(at a reaction that interrupted a turn list, in an inline scenario), ``replay_transcript``
into a new episode that goes on exactly like the original, the same document at the end,
and refused documents and episodes."""

from __future__ import annotations

import json

import grpc
import pytest
from aoo_scenarios import HERO_DESTINATION, guard_room

from pf1e_gym import Pf1eClient, is_reaction, pb


def _same(a: pb.EpisodeState, b: pb.EpisodeState) -> None:
    """Everything but the episode id."""
    for field in (
        "decision",
        "results",
        "late_results",
        "pending_results",
        "legal_actions",
        "terminated",
        "truncated",
        "outcome",
        "steps",
    ):
        assert getattr(a, field) == getattr(b, field), field
    assert a.observation.json == b.observation.json


def _choose(s: pb.EpisodeState) -> list[int]:
    """Decline every reaction; attack when possible, else end the turn."""
    if is_reaction(s):
        return [next(la.id for la in s.legal_actions if la.action.kind == pb.ACTION_KIND_DECLINE)]
    attacks = [la.id for la in s.legal_actions if la.action.kind == pb.ACTION_KIND_ATTACK]
    return attacks[:1] or [0]


def _at_the_guards_reaction(c: Pf1eClient) -> pb.EpisodeState:
    s = c.reset(guard_room(), 0, controlled_sides=["heroes", "guards"])
    while s.decision.actor_id != "hero":
        s = c.step(s.episode_id, s.decision.decision_id, action_ids=[0])
    row, col = HERO_DESTINATION
    move = pb.Action(kind=pb.ACTION_KIND_MOVE, destination=pb.Cell(row=row, col=col))
    end = pb.Action(kind=pb.ACTION_KIND_END_TURN)
    s = c.step(s.episode_id, s.decision.decision_id, actions=[move, end])
    assert is_reaction(s) and s.pending_results == 1
    return s


def test_export_and_replay_continue_identically(server_address: str) -> None:
    with Pf1eClient(server_address) as c:
        assert c.get_spec("sample_arena").capabilities.transcripts
        a = _at_the_guards_reaction(c)
        t = c.export_transcript(a.episode_id)
        assert t.scenario == "inline" and t.seed == 0 and t.replayable
        assert [x.id for x in t.controlled] == ["hero", "guard"]
        assert t.decision == a.decision and not t.HasField("outcome")
        last = t.entries[-1]
        assert last.actor_id == "hero" and len(last.actions) == 2 and len(last.results) == 1
        assert t.lines[0].message.startswith("initiative")
        doc = json.loads(t.transcript_json)
        assert doc["format"] == "pf1e-transcript" and "inline" in doc["scenario"]
        assert doc["open_steps"] == [{"decision_id": last.decision_id, "by_id": False}]
        assert c.export_transcript(a.episode_id, json_only=True).entries == []

        b = c.replay_transcript(t)
        assert b.episode_id != a.episode_id
        assert b.decision == a.decision and b.steps == a.steps
        # The document as a string or bytes works the same.
        for form in (t.transcript_json, t.transcript_json.encode()):
            c.close_episode(c.replay_transcript(form).episode_id)
        late = 0
        while not (a.terminated or a.truncated):
            ids = _choose(a)
            a = c.step(a.episode_id, a.decision.decision_id, action_ids=ids)
            b = c.step(b.episode_id, b.decision.decision_id, action_ids=ids)
            _same(a, b)
            late += len(a.late_results)
        # The move's end_turn resolved after the reactions, in both, named as sent.
        assert late == 1
        end_a = c.export_transcript(a.episode_id)
        end_b = c.export_transcript(b.episode_id)
        assert end_a.transcript_json == end_b.transcript_json
        assert end_a.outcome == a.outcome
        done = c.replay_transcript(end_a.transcript_json)
        assert done.terminated or done.truncated
        for ep in (a.episode_id, b.episode_id, done.episode_id):
            c.close_episode(ep)


def test_bad_documents_and_episodes_are_refused(server_address: str) -> None:
    with Pf1eClient(server_address) as c:
        s = _at_the_guards_reaction(c)
        doc = json.loads(c.export_transcript(s.episode_id).transcript_json)
        forged = dict(doc, final_state="0" * 16)
        with pytest.raises(grpc.RpcError) as e:
            c.replay_transcript(json.dumps(forged))
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "transcript_json.final_state" in (e.value.details() or "")
        with pytest.raises(grpc.RpcError) as e:
            c.replay_transcript(b"\xff\x00 not json")
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.RpcError) as e:
            c.replay_transcript(json.dumps(dict(doc, scenario={"named": "no_such_scenario"})))
        assert e.value.code() == grpc.StatusCode.NOT_FOUND
        with pytest.raises(grpc.RpcError) as e:
            c.export_transcript("ep-none")
        assert e.value.code() == grpc.StatusCode.NOT_FOUND
        c.close_episode(s.episode_id)
