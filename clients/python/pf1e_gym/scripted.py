"""A simple rule-based player (the ``scripted`` entry of :mod:`pf1e_gym.leaderboard` and of
``examples/scripted_agent.py``).

At each decision of one of its combatants, in this order:

1. shoot: a full attack, else an attack, with a **ranged** weapon, at the weakest enemy in reach;
2. fight: the same with a melee weapon;
3. close in: move toward the nearest enemy (the server's "move toward" action);
4. end the turn.

At a reaction (a decision that is not the actor's turn, with no ``end_turn``: an attack of
opportunity offered, a readied action's trigger, Step Up) it takes the attack of opportunity
(with the first offered weapon), else answers with the first legal action.

It reads the JSON observation (hit points, distances, the actor's attacks) and the typed legal
actions of the ``EpisodeState`` (``ObservationOptions.json`` and ``legal_actions``).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb

ATTACKS = (pb.ACTION_KIND_FULL_ATTACK, pb.ACTION_KIND_ATTACK)


def choose(state: pb.EpisodeState) -> int:
    """The action id the rules above pick for the pending decision of ``state``, a turn
    decision or a reaction (its JSON observation and typed legal actions are read).

    Raises ``ValueError`` if ``state`` has no pending decision (the episode is over) or no
    legal action."""
    legal = list(state.legal_actions)
    if not state.HasField("decision") or not legal:
        raise ValueError("choose: no pending decision with legal actions (is the episode over?)")
    if not any(la.action.kind == pb.ACTION_KIND_END_TURN for la in legal):
        # A reaction (an attack of opportunity, a readied trigger, Step Up): no turn action
        # is legal. Take the attack of opportunity, else the first answer.
        aoo = [la for la in legal if la.action.kind == pb.ACTION_KIND_ATTACK_OF_OPPORTUNITY]
        return min(aoo or legal, key=lambda la: la.id).id
    snap: dict[str, Any] = json.loads(state.observation.json)
    combatants = snap["combatants"]
    me = combatants[state.decision.actor_index]
    hp = {c["index"]: c["hp"] for c in combatants}
    pairs = {p["target_index"]: p for p in snap.get("pairs", [])}

    def weapon_kind(la: pb.LegalAction) -> str:
        w = la.action.weapon if la.action.HasField("weapon") else 0
        attacks = me["attacks"]
        kind: str = attacks[w]["kind"] if w < len(attacks) else "melee"
        return kind

    for ranged in (True, False):
        for kind in ATTACKS:
            options = [
                la
                for la in legal
                if la.action.kind == kind and (weapon_kind(la) == "ranged") == ranged
            ]
            if options:
                # The weakest target first (ties: the lowest id).
                return min(options, key=lambda la: (hp[la.action.target], la.id)).id
    toward = [
        la for la in legal if la.action.kind == pb.ACTION_KIND_MOVE and la.action.HasField("target")
    ]
    if toward:

        def dist(la: pb.LegalAction) -> int:
            d: int = pairs.get(la.action.target, {}).get("distance_ft", 1 << 30)
            return d

        return min(toward, key=lambda la: (dist(la), la.id)).id
    return min(
        (la for la in legal if la.action.kind == pb.ACTION_KIND_END_TURN), key=lambda la: la.id
    ).id


def choose_any(state: pb.EpisodeState) -> int:
    """:func:`choose` (kept under this name: ``choose`` answers reactions itself since it no
    longer raises ``StopIteration`` at them)."""
    return choose(state)


class TensorScripted:
    """:func:`choose_any`'s rules computed from the tensor observation and the action mask (no
    JSON: fast enough for batched play, e.g. 1,000 leaderboard episodes).

    The action ids are the engine's fixed layout (``attack`` / ``full_attack``: ``target * W +
    weapon``; ``move_toward``: ``target``); hit points come from the ``hp_div_100`` feature,
    positions from ``row_fraction`` / ``col_fraction`` (distance 5-10-5 in squares, as the
    engine's ``pairs.distance_ft``); which weapon of a combatant is ranged is read once from a
    JSON observation (:meth:`from_client`)."""

    def __init__(self, spec: pb.Spec, ranged: list[list[bool]]) -> None:
        from pf1e_gym.client import action_block

        names = list(spec.observation_schema.feature_names)
        self.f_me = names.index("is_me")
        self.f_ally = names.index("is_ally")
        self.f_present = names.index("present")
        self.f_hp = names.index("hp_div_100")
        self.f_row = names.index("row_fraction")
        self.f_col = names.index("col_fraction")
        _, self.rows, self.cols = (int(x) for x in spec.observation_schema.plane_shape)
        self.attack = action_block(spec, "attack")
        self.full_attack = action_block(spec, "full_attack")
        self.toward = action_block(spec, "move_toward")
        self.aoo = action_block(spec, "attack_of_opportunity")
        self.end_turn = action_block(spec, "end_turn")
        n_comb = len(spec.combatants)
        self.w = len(self.attack) // max(1, n_comb)
        # ranged[c][w]: weapon w of combatant c is a ranged attack (False beyond its attacks).
        self.ranged = np.zeros((n_comb, self.w), dtype=np.bool_)
        for c, kinds in enumerate(ranged):
            for w, r in enumerate(kinds[: self.w]):
                self.ranged[c, w] = r

    @classmethod
    def from_client(cls, client: Any, scenario: Any = "sample_arena") -> TensorScripted:
        """Read the spec and one JSON observation of ``scenario`` (each combatant's attacks)."""
        spec = client.get_spec(scenario)
        st = client.reset(scenario, seed=0)
        try:
            snap = json.loads(st.observation.json)
        finally:
            client.close_episode(st.episode_id)
        ranged = [[a["kind"] == "ranged" for a in c["attacks"]] for c in snap["combatants"]]
        return cls(spec, ranged)

    def act_one(self, features: np.ndarray, mask: np.ndarray) -> int:
        me_rows = np.flatnonzero(features[:, self.f_me] > 0.5)
        legal = mask > 0
        if len(me_rows):
            me = int(me_rows[0])
            hp = np.rint(features[:, self.f_hp] * 100).astype(np.int64)
            for want_ranged in (True, False):
                for block in (self.full_attack, self.attack):
                    best: tuple[int, int] | None = None
                    for k, aid in enumerate(block):
                        if not legal[aid]:
                            continue
                        t, w = divmod(k, self.w)
                        if bool(self.ranged[me, w]) != want_ranged:
                            continue
                        key = (int(hp[t]), aid)
                        if best is None or key < best:
                            best = key
                    if best is not None:
                        return best[1]
            r = np.rint(features[:, self.f_row] * self.rows).astype(np.int64)
            c = np.rint(features[:, self.f_col] * self.cols).astype(np.int64)
            best = None
            for t, aid in enumerate(self.toward):
                if legal[aid]:
                    dr, dc = abs(r[t] - r[me]), abs(c[t] - c[me])
                    key = (int(max(dr, dc) + min(dr, dc) // 2), aid)
                    if best is None or key < best:
                        best = key
            if best is not None:
                return best[1]
        if len(self.end_turn) and legal[self.end_turn[0]]:
            return self.end_turn[0]
        aoo = [a for a in self.aoo if legal[a]]
        if aoo:
            return aoo[0]
        return int(np.flatnonzero(legal)[0])

    def __call__(self, planes: np.ndarray, features: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array(
            [self.act_one(features[i], masks[i]) for i in range(len(masks))], dtype=np.int64
        )
