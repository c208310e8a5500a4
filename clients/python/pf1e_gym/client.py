"""A thin client of the ``pf1e.env.v1.Environment`` service.

Every method raises :class:`grpc.RpcError` on a non-OK status; ``err.code()`` tells which
(INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION, RESOURCE_EXHAUSTED, INTERNAL) and
``err.details()`` names the request field at fault; a server that cannot be reached at the
first contact (:meth:`Pf1eClient.get_spec`, :meth:`Pf1eClient.list_scenarios`) raises
:class:`ServerUnavailableError` instead, a ``grpc.RpcError`` that names the address and the fix.

:meth:`Pf1eClient.batch` is the one batching path of the package: the vector, parallel and
leaderboard code step and reset many episodes through it (``StepBatch`` in chunks of the
server's ``max_batch_items``, or concurrent unary calls on a server without it).
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
import queue
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import grpc

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym._proto.pf1e.env.v1 import environment_pb2_grpc as pb_grpc

DEFAULT_ADDRESS = "127.0.0.1:50051"


def resolve_address(address: str | None) -> str:
    """``address``, else ``$PF1E_ADDRESS``, else ``127.0.0.1:50051``."""
    return address or os.environ.get("PF1E_ADDRESS") or DEFAULT_ADDRESS


def scenario_message(scenario: str | pb.Scenario) -> pb.Scenario:
    """A ``Scenario`` message: a bundled scenario name (``"sample_arena"``) or a message as is."""
    if isinstance(scenario, pb.Scenario):
        return scenario
    if isinstance(scenario, str):
        return pb.Scenario(named=scenario)
    raise TypeError(f"scenario must be a name or a pb.Scenario, not {type(scenario).__name__}")


def inline_scenario(
    map_yaml: str,
    sides: Mapping[str, Sequence[str | tuple[str, str]]],
    *,
    round_cap: int = 0,
    simple_monster_death: bool = False,
) -> pb.Scenario:
    """An inline scenario: map YAML text and, per side name, combatant JSON texts (or
    ``(json, base_id)`` pairs). ``round_cap`` 0 means the server default (100 rounds)."""
    msg_sides = []
    for name, combatants in sides.items():
        cs = []
        for c in combatants:
            if isinstance(c, tuple):
                cs.append(pb.InlineCombatant(json=c[0], base_id=c[1]))
            else:
                cs.append(pb.InlineCombatant(json=c))
        msg_sides.append(pb.InlineSide(name=name, combatants=cs))
    return pb.Scenario(
        inline=pb.InlineScenario(
            map_yaml=map_yaml,
            sides=msg_sides,
            round_cap=round_cap,
            simple_monster_death=simple_monster_death,
        )
    )


def reset_request(
    scenario: str | pb.Scenario,
    seed: int = 0,
    controlled_sides: Iterable[str] = (),
    controlled_ids: Iterable[str] = (),
    *,
    tactics: Mapping[str, str | Mapping[str, Any]] | None = None,
    text: bool | None = None,
    lang: str | None = None,
    **extra: Any,
) -> pb.ResetRequest:
    """A ``ResetRequest``; ``extra`` sets further fields by name (newer protos).

    ``tactics``: a tactics spec per side name (YAML/JSON text, or a dict sent as JSON; format
    of ``data/tactics/``): that side's uncontrolled combatants play it instead of the default
    policy. ``text`` / ``lang``: set ``ObservationOptions.text`` (the decision rendered for a
    language model, in ``Observation.text``) and ``.lang`` (``"en"`` or ``"fr"``) on the
    ``observation`` options (those given in ``extra``, else the server defaults)."""
    if text is not None or lang is not None:
        opts = pb.ObservationOptions()
        if "observation" in extra and extra["observation"] is not None:
            opts.CopyFrom(extra["observation"])
        if text is not None:
            opts.text = bool(text)
        if lang is not None:
            opts.lang = lang
        extra["observation"] = opts
    if tactics:
        extra["tactics"] = {
            side: spec if isinstance(spec, str) else json.dumps(spec)
            for side, spec in tactics.items()
        }
    return pb.ResetRequest(
        scenario=scenario_message(scenario),
        seed=seed,
        controlled=pb.Controlled(sides=list(controlled_sides), combatant_ids=list(controlled_ids)),
        **extra,
    )


def actions_json_text(actions: str | Mapping[str, Any] | Sequence[Any]) -> str:
    """``StepRequest.actions_json`` text: a string as is, else ``json.dumps`` of a structured
    action (dict), a list of them, or a turn plan ``{"plan": [...]}``."""
    if isinstance(actions, str):
        return actions
    if isinstance(actions, Mapping):
        return json.dumps(dict(actions))
    return json.dumps(list(actions))


class DecisionKind(str, enum.Enum):
    """What a decision is about (``Decision.kind``), by the engine's name.

    A **turn action** is the deciding combatant's own turn (answered with turn actions,
    ``end_turn`` always legal); an **attack of opportunity** is a reaction offered to it while
    another combatant acts (answered with exactly one of :func:`aoo_action` with an offered
    weapon, or :func:`decline_action`; ``end_turn`` is not legal then)."""

    TURN_ACTION = "turn_action"
    ATTACK_OF_OPPORTUNITY = "attack_of_opportunity"
    #: The trigger of the actor's readied action happened: :func:`fire_readied_action` or
    #: :func:`decline_action` (hold it).
    READIED_TRIGGER = "readied_trigger"
    #: Step Up (an immediate action) after a foe's 5-foot step away: a ``5foot_step`` to an
    #: offered square, or :func:`decline_action`.
    STEP_UP = "step_up"

    @property
    def is_reaction(self) -> bool:
        """Whether this is an off-turn decision (a reaction), not a turn decision."""
        return self is not DecisionKind.TURN_ACTION


def decision_kind(x: pb.EpisodeState | pb.Decision | int) -> DecisionKind | None:
    """The kind of a state's pending decision (``None`` when the episode is over), of a
    ``Decision``, or of a ``DecisionKind`` number. A server that predates decision kinds sends
    0 (unspecified): it only asks for turn actions."""
    if isinstance(x, pb.EpisodeState):
        if not x.HasField("decision"):
            return None
        x = x.decision
    kind = x.kind if isinstance(x, pb.Decision) else int(x)
    if kind == pb.DECISION_KIND_ATTACK_OF_OPPORTUNITY:
        return DecisionKind.ATTACK_OF_OPPORTUNITY
    if kind == pb.DECISION_KIND_READIED_TRIGGER:
        return DecisionKind.READIED_TRIGGER
    if kind == pb.DECISION_KIND_STEP_UP:
        return DecisionKind.STEP_UP
    if kind in (pb.DECISION_KIND_TURN_ACTION, pb.DECISION_KIND_UNSPECIFIED):
        return DecisionKind.TURN_ACTION
    raise ValueError(f"unknown decision kind {kind} (a newer server: regenerate the stubs)")


def is_reaction(state: pb.EpisodeState) -> bool:
    """Whether ``state`` waits for a reaction (an attack of opportunity), not a turn action."""
    kind = decision_kind(state)
    return kind is not None and kind.is_reaction


def aoo_action(weapon: int | None = None) -> pb.Action:
    """The answer "take the attack of opportunity with ``weapon``" (an index into the
    reactor's attacks, one of the offer's ``weapons``; ``None``: the first offered)."""
    a = pb.Action(kind=pb.ACTION_KIND_ATTACK_OF_OPPORTUNITY)
    if weapon is not None:
        a.weapon = int(weapon)
    return a


def decline_action() -> pb.Action:
    """The answer "let the opportunity pass" (the attack of opportunity is not spent; a
    readied action is held for a later occurrence; Step Up is not taken)."""
    return pb.Action(kind=pb.ACTION_KIND_DECLINE)


def fire_readied_action() -> pb.Action:
    """The answer to a ``readied_trigger`` decision that takes the readied action now."""
    return pb.Action(kind=pb.ACTION_KIND_FIRE_READIED)


_TRIGGER_EVENTS = {
    "enemy_enters_reach": pb.READY_TRIGGER_EVENT_ENEMY_ENTERS_REACH,
    "enemy_within": pb.READY_TRIGGER_EVENT_ENEMY_WITHIN,
    "enemy_attacks": pb.READY_TRIGGER_EVENT_ENEMY_ATTACKS,
    "ally_acts": pb.READY_TRIGGER_EVENT_ALLY_ACTS,
}


def ready_action(
    readied: pb.Action,
    trigger: str,
    *,
    by: int | None = None,
    within_ft: int = 0,
) -> pb.Action:
    """A ``ready`` action (a standard action, CRB — Ready): take ``readied`` (an ``attack``,
    ``maneuver``, ``move`` or ``5foot_step`` action; an attack or maneuver without a target is
    aimed at the triggering creature) when ``trigger`` happens: ``enemy_enters_reach``,
    ``enemy_within`` (``within_ft`` feet, 5 to 120), ``enemy_attacks`` (the readier or an ally),
    ``ally_acts`` (a signal). ``by``: only this combatant (index) triggers it.

    Raises ``ValueError`` for an unknown trigger name."""
    if trigger not in _TRIGGER_EVENTS:
        raise ValueError(f"unknown trigger {trigger!r}: one of {sorted(_TRIGGER_EVENTS)}")
    t = pb.ReadyTrigger(event=_TRIGGER_EVENTS[trigger], within_ft=int(within_ft))
    if by is not None:
        t.by = int(by)
    a = pb.Action(kind=pb.ACTION_KIND_READY, trigger=t)
    a.readied.CopyFrom(readied)
    return a


def delay_action(after: int | None = None) -> pb.Action:
    """A ``delay``: act later this round, right after combatant ``after`` (index), or at the
    end of the round (CRB — Delay). Only before anything else of the turn."""
    a = pb.Action(kind=pb.ACTION_KIND_DELAY)
    if after is not None:
        a.target = int(after)
    return a


METAMAGIC = {
    "empower": pb.METAMAGIC_EMPOWER,
    "extend": pb.METAMAGIC_EXTEND,
    "heighten": pb.METAMAGIC_HEIGHTEN,
    "maximize": pb.METAMAGIC_MAXIMIZE,
    "quicken": pb.METAMAGIC_QUICKEN,
    "silent": pb.METAMAGIC_SILENT,
    "still": pb.METAMAGIC_STILL,
}
"""The metamagic feats by name (engine order: the ``activate_metamagic`` block's ids)."""


def _metamagic_value(m: str | int) -> pb.Metamagic:
    if isinstance(m, str):
        if m not in METAMAGIC:
            raise ValueError(f"unknown metamagic {m!r}: one of {list(METAMAGIC)}")
        return METAMAGIC[m]
    return cast(pb.Metamagic, int(m))


def cast_spell_action(
    spell: int,
    target: int | None = None,
    target_pos: tuple[int, int] | None = None,
    defensively: bool = False,
    metamagic: Iterable[str | int] = (),
) -> pb.Action:
    """A ``cast_spell`` action (CRB — Magic): cast the caster's spell ``spell`` (an index of
    its spellbook: ``Spec.combatants[i].spells`` or the observation's ``spells``) at the
    creature ``target`` (an index; the caster's own index for a personal spell) or at the
    square ``target_pos`` ``(row, col)`` (an area's point of origin: its top-left corner; a
    cone's or line's direction). ``defensively``: cast defensively (no attack of opportunity,
    a concentration check). ``metamagic``: names (``"empower"``…) or ``pb.METAMAGIC_*`` values
    of feats the caster has, applied to this cast (a defensive cast or one with metamagic has
    no action id: send it as an action).

    Raises ``ValueError`` for an unknown metamagic name, or both ``target`` and
    ``target_pos``."""
    if target is not None and target_pos is not None:
        raise ValueError("a cast takes a target creature or a target square, not both")
    a = pb.Action(kind=pb.ACTION_KIND_CAST_SPELL, spell=int(spell))
    if target is not None:
        a.target = int(target)
    if target_pos is not None:
        row, col = target_pos
        a.target_pos.row = int(row)
        a.target_pos.col = int(col)
    a.defensively = bool(defensively)
    a.metamagic.extend(_metamagic_value(m) for m in metamagic)
    return a


def cast_defensively_action() -> pb.Action:
    """The free declaration ``cast_defensively``: the actor's next cast this turn is defensive
    (no attack of opportunity; concentration DC 15 + 2 x spell level or the spell is lost)."""
    return pb.Action(kind=pb.ACTION_KIND_CAST_DEFENSIVELY)


def activate_metamagic_action(metamagic: str | int) -> pb.Action:
    """The free declaration ``activate_metamagic``: apply the metamagic feat ``metamagic`` (a
    name or a ``pb.METAMAGIC_*`` value; one the caster has) to its next cast this turn.

    Raises ``ValueError`` for an unknown name."""
    a = pb.Action(kind=pb.ACTION_KIND_ACTIVATE_METAMAGIC)
    a.metamagic.append(_metamagic_value(metamagic))
    return a


def cast_of_action_id(
    spec: pb.Spec, action_id: int
) -> tuple[int, int | None, tuple[int, int] | None] | None:
    """Decode an id of the ``cast_spell`` / ``cast_spell_at`` blocks offline: ``(spell,
    target, target_pos)`` — ``cast_spell`` is spell x N + target (``target_pos`` ``None``),
    ``cast_spell_at`` spell x C + square (``target`` ``None``, ``target_pos`` ``(row, col)``).
    ``spell`` indexes the actor's ``Spec.combatants[i].spells``. ``None`` for another id."""
    n = len(spec.combatants)
    cols = spec.map.cols
    cells = spec.map.rows * cols
    creature = action_block(spec, "cast_spell")
    if action_id in creature and n:
        k = action_id - creature.start
        return (k // n, k % n, None)
    square = action_block(spec, "cast_spell_at")
    if action_id in square and cells:
        k = action_id - square.start
        c = k % cells
        return (k // cells, None, (c // cols, c % cols))
    return None


def action_block(spec: pb.Spec, name: str) -> range:
    """The action ids of a block of the spec's action space, e.g. ``"attack_of_opportunity"``
    (one id per weapon index: ``action_block(spec, "attack_of_opportunity")[w]``) or
    ``"decline"`` (one id). Empty when the server has no such block."""
    for b in spec.action_blocks:
        if b.name == name:
            return range(int(b.first_id), int(b.first_id + b.size))
    return range(0)


SweepSpecSource = str | os.PathLike[str]
"""A sweep spec: its text (YAML or JSON), or a local file that the *client* reads."""

ProgressCallback = Callable[[pb.EvaluateProgress], object]
"""Called with each ``EvaluateProgress`` of an Evaluate stream (at most ~10 per second)."""


def evaluate_request(
    spec: SweepSpecSource,
    *,
    mode: pb.EvaluateMode = pb.EVALUATE_MODE_UNSPECIFIED,
    runs: int | None = None,
    seed: int | None = None,
    origin: str | None = None,
    placements: Iterable[int] | None = None,
    results: Iterable[pb.SweepPlacementResult] | None = None,
    heatmaps: bool = False,
    text: bool = False,
) -> pb.EvaluateRequest:
    """An ``EvaluateRequest``.

    ``spec`` is the sweep spec's text, or a path (``pathlib.Path``) whose text is read here and
    sent: the server never opens a path given by a client. ``origin`` labels the spec in the
    report and in error fields; it defaults to the path for a path (so the JSON document equals
    ``pf1e-sim sweep PATH``'s), else to ``spec`` (the server's default).
    """
    if isinstance(spec, os.PathLike):
        path = os.fspath(spec)
        with open(path, encoding="utf-8") as f:
            spec_text = f.read()
        if origin is None:
            origin = path
    elif isinstance(spec, str):
        spec_text = spec
    else:
        raise TypeError(f"spec must be text or a path, not {type(spec).__name__}")
    req = pb.EvaluateRequest(
        spec=spec_text,
        origin=origin or "",
        mode=mode,
        placements=[int(k) for k in placements or ()],
        results=list(results or ()),
        heatmaps=heatmaps,
        text=text,
    )
    if runs is not None:
        req.runs = int(runs)
    if seed is not None:
        req.seed = int(seed)
    return req


if TYPE_CHECKING:  # grpc-stubs' interceptors are generic; grpc's classes are not subscriptable
    _UnaryUnary = grpc.UnaryUnaryClientInterceptor[Any, Any]
    _UnaryStream = grpc.UnaryStreamClientInterceptor[Any, Any]
    _StreamUnary = grpc.StreamUnaryClientInterceptor[Any, Any]
    _StreamStream = grpc.StreamStreamClientInterceptor[Any, Any]
else:
    _UnaryUnary = grpc.UnaryUnaryClientInterceptor
    _UnaryStream = grpc.UnaryStreamClientInterceptor
    _StreamUnary = grpc.StreamUnaryClientInterceptor
    _StreamStream = grpc.StreamStreamClientInterceptor


class _BearerToken(_UnaryUnary, _UnaryStream, _StreamUnary, _StreamStream):
    """Adds ``authorization: Bearer <token>`` to every call (plaintext or TLS channels alike:
    gRPC call credentials would need TLS)."""

    def __init__(self, token: str) -> None:
        self._entry = ("authorization", f"Bearer {token}")

    def _details(self, details: grpc.ClientCallDetails) -> grpc.ClientCallDetails:
        metadata = [m for m in (details.metadata or ()) if m[0] != "authorization"]
        metadata.append(self._entry)
        return _CallDetails(
            details.method,
            details.timeout,
            metadata,
            details.credentials,
            getattr(details, "wait_for_ready", None),
            getattr(details, "compression", None),
        )

    def intercept_unary_unary(
        self, continuation: Any, client_call_details: grpc.ClientCallDetails, request: Any
    ) -> Any:
        return continuation(self._details(client_call_details), request)

    def intercept_unary_stream(
        self, continuation: Any, client_call_details: grpc.ClientCallDetails, request: Any
    ) -> Any:
        return continuation(self._details(client_call_details), request)

    def intercept_stream_unary(
        self, continuation: Any, client_call_details: grpc.ClientCallDetails, request_iterator: Any
    ) -> Any:
        return continuation(self._details(client_call_details), request_iterator)

    def intercept_stream_stream(
        self, continuation: Any, client_call_details: grpc.ClientCallDetails, request_iterator: Any
    ) -> Any:
        return continuation(self._details(client_call_details), request_iterator)


class _CallDetails(grpc.ClientCallDetails):
    def __init__(
        self,
        method: str,
        timeout: float | None,
        metadata: Any,
        credentials: grpc.CallCredentials | None,
        wait_for_ready: bool | None,
        compression: grpc.Compression | None,
    ) -> None:
        self.method = method
        self.timeout = timeout
        self.metadata = metadata
        self.credentials = credentials
        self.wait_for_ready = wait_for_ready
        self.compression = compression


def _pem(value: bytes | str | os.PathLike[str] | None, what: str) -> bytes | None:
    """PEM bytes as given, or read from a path (``str`` or path-like)."""
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, (str, os.PathLike)):
        with open(value, "rb") as f:
            return f.read()
    raise TypeError(f"{what} must be PEM bytes or a path, not {type(value).__name__}")


def resolve_token(token: str | None) -> str | None:
    """``token``, else ``$PF1E_TOKEN``, else ``None`` (no ``authorization`` metadata)."""
    return token or os.environ.get("PF1E_TOKEN") or None


def resolve_tls(
    tls: bool, root_certificates: bytes | str | os.PathLike[str] | None
) -> tuple[bool, bytes | None]:
    """Whether to use TLS and the trusted roots' PEM: ``root_certificates`` (bytes or a path),
    else the file named by ``$PF1E_TLS_ROOTS`` (which also turns TLS on), else the system
    roots (``None``) when ``tls`` is true."""
    if root_certificates is None and os.environ.get("PF1E_TLS_ROOTS"):
        root_certificates = os.environ["PF1E_TLS_ROOTS"]
    roots = _pem(root_certificates, "root_certificates")
    return (tls or roots is not None), roots


class StepItem(NamedTuple):
    """One step of a batch: answer decision ``decision_id`` of episode ``episode_id`` with the
    action id ``action_id``."""

    episode_id: str
    decision_id: int
    action_id: int


class BatchItemError(RuntimeError):
    """An item of a :meth:`Pf1eClient.batch` call failed: the server's inline error
    (``BatchItem.error``). ``item``: its index in the call (steps first, then resets);
    ``code``: the gRPC status code number (3 = INVALID_ARGUMENT…); ``message``: the server's
    text, naming the field. The vector env raises it with ``what="slot"`` and the slot as
    ``item`` (also readable as ``slot``)."""

    def __init__(self, item: int, code: int, message: str, *, what: str = "item") -> None:
        name = grpc.StatusCode.UNKNOWN.name
        for sc in grpc.StatusCode:
            if sc.value[0] == code:
                name = sc.name
        super().__init__(f"{what} {item}: {name}: {message}")
        self.item, self.code, self.message = item, code, message

    @property
    def slot(self) -> int:
        """``item`` under the name the vector env gives it."""
        return self.item


class _ItemStates(Sequence[pb.EpisodeState]):
    """The states of a batch response's items, read on demand (most rows never are)."""

    def __init__(self, items: Sequence[pb.BatchItem]) -> None:
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, j: Any) -> Any:
        if isinstance(j, slice):
            return [item.state for item in self._items[j]]
        return self._items[j].state


@dataclass
class BatchChunk:
    """One request of a :meth:`Pf1eClient.batch` call and its answer.

    Attributes:
        response: the ``BatchResponse`` (``None`` on the unary path: one ``Step`` / ``Reset``
            call per item).
        states: the ``EpisodeState`` of each of its items, in order (read from
            ``response.items`` on demand).
        start: index in the call of its first item (steps first, then resets).
        n_steps: how many of its items are steps (they come first).
    """

    response: pb.BatchResponse | None
    states: Sequence[pb.EpisodeState]
    start: int
    n_steps: int

    def __len__(self) -> int:
        return len(self.states)


class ServerUnavailableError(ConnectionError, grpc.RpcError):
    """No server answers at ``address`` (gRPC ``UNAVAILABLE`` at the first contact).

    A ``grpc.RpcError`` (``code()`` is ``UNAVAILABLE``, ``details()`` the channel's words) and a
    ``ConnectionError``, whose message names the address, where it came from, and the fix."""

    def __init__(self, address: str, source: str, details: str) -> None:
        self.address, self.source, self._details = address, source, details
        super().__init__(
            f"no pf1e-env-server answers at {address} ({source}; gRPC UNAVAILABLE: {details}). "
            f"Start one there (`pf1e-env-server --addr {address}`), pass the address of a "
            "running server, or give no address at all: the envs then start a local server "
            "themselves (pf1e_gym.launch_server() does it by hand)."
        )

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return self._details


class Pf1eClient:
    """Blocking client of one server.

    Args:
        address: ``host:port`` of the server; ``None``: ``$PF1E_ADDRESS``, else
            ``127.0.0.1:50051``.
        token: bearer token sent as ``authorization: Bearer <token>`` metadata on every call
            (servers started with ``--tokens``); ``None``: ``$PF1E_TOKEN`` if set, else none.
        tls: connect with TLS (servers started with ``--tls-cert``). Implied by
            ``root_certificates`` or ``$PF1E_TLS_ROOTS``.
        root_certificates: the CA certificates to trust (PEM bytes, or a path to a PEM file);
            ``None``: the file named by ``$PF1E_TLS_ROOTS`` if set, else the system roots.
        client_cert, client_key: this client's certificate chain and key (PEM bytes or paths),
            for servers that require client certificates (``--tls-client-ca``); both or
            neither.
        channel: an existing channel to use instead (not closed by :meth:`close`; ``token``
            still applies, the TLS arguments do not).
        timeout: deadline of each call, in seconds.
        options: more gRPC channel options (``(name, value)`` pairs, e.g. keepalive
            settings), after the defaults (256 MiB receive, 64 MiB send limits); not with
            ``channel``.

    Raises:
        ValueError: ``client_cert`` without ``client_key`` (or the reverse), or client
            certificates without TLS.
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        token: str | None = None,
        tls: bool = False,
        root_certificates: bytes | str | os.PathLike[str] | None = None,
        client_cert: bytes | str | os.PathLike[str] | None = None,
        client_key: bytes | str | os.PathLike[str] | None = None,
        channel: grpc.Channel | None = None,
        timeout: float = 60.0,
        options: Sequence[tuple[str, Any]] = (),
    ) -> None:
        self.address = resolve_address(address)
        #: Where :attr:`address` came from (named in :class:`ServerUnavailableError`).
        self.address_source = (
            "address given"
            if address
            else "from $PF1E_ADDRESS"
            if os.environ.get("PF1E_ADDRESS")
            else "the default address"
        )
        self._owns_channel = channel is None
        if (client_cert is None) != (client_key is None):
            raise ValueError("client_cert and client_key go together: give both or neither")
        if channel is None:
            use_tls, roots = resolve_tls(tls, root_certificates)
            if client_cert is not None and not use_tls:
                raise ValueError("client_cert/client_key need TLS (tls=True or root_certificates)")
            opts = [
                ("grpc.max_receive_message_length", 256 << 20),
                ("grpc.max_send_message_length", 64 << 20),
                *options,
            ]
            if use_tls:
                creds = grpc.ssl_channel_credentials(
                    root_certificates=roots,
                    private_key=_pem(client_key, "client_key"),
                    certificate_chain=_pem(client_cert, "client_cert"),
                )
                channel = grpc.secure_channel(self.address, creds, options=opts)
            else:
                channel = grpc.insecure_channel(self.address, options=opts)
        token = resolve_token(token)
        self._channel = (
            grpc.intercept_channel(channel, _BearerToken(token)) if token is not None else channel
        )
        #: The generated stub (``pf1e_gym._proto``): the raw calls, untyped.
        self.stub: Any = pb_grpc.EnvironmentStub(self._channel)  # type: ignore[no-untyped-call]
        self.timeout = timeout

    def get_spec(self, scenario: str | pb.Scenario) -> pb.Spec:
        """Static description of a scenario (combatants, sides, map, action space size)."""
        req = pb.GetSpecRequest(scenario=scenario_message(scenario))
        with self._first_contact():
            spec: pb.Spec = self.stub.GetSpec(req, timeout=self.timeout)
        return spec

    def list_scenarios(self) -> list[pb.ScenarioInfo]:
        """The server's bundled scenarios, sorted by name."""
        with self._first_contact():
            resp = self.stub.ListScenarios(pb.ListScenariosRequest(), timeout=self.timeout)
        return list(resp.scenarios)

    @contextlib.contextmanager
    def _first_contact(self) -> Iterator[None]:
        """Turn ``UNAVAILABLE`` into :class:`ServerUnavailableError` (the calls a session
        starts with: a newcomer without a server gets the address and the fix, not a gRPC
        traceback)."""
        try:
            yield
        except grpc.RpcError as e:
            if isinstance(e, ServerUnavailableError) or e.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            details = e.details() or "no details"
            raise ServerUnavailableError(self.address, self.address_source, details) from None

    def reset(
        self,
        scenario: str | pb.Scenario,
        seed: int = 0,
        *,
        controlled_sides: Iterable[str] = (),
        controlled_ids: Iterable[str] = (),
        tactics: Mapping[str, str | Mapping[str, Any]] | None = None,
        text: bool | None = None,
        lang: str | None = None,
        **extra: Any,
    ) -> pb.EpisodeState:
        """Start an episode (``seed``: 0 to 2**64-1); returns its first decision or its end.

        ``tactics``, ``text``, ``lang``: see :func:`reset_request` (an unknown language or a
        tactics spec the engine refuses is INVALID_ARGUMENT naming the field, e.g.
        ``tactics[players]: rules[2].when.hp_below``). ``extra``: further fields of
        ``ResetRequest`` (e.g. observation options), by name."""
        req = reset_request(
            scenario,
            seed,
            controlled_sides,
            controlled_ids,
            tactics=tactics,
            text=text,
            lang=lang,
            **extra,
        )
        resp: pb.EpisodeState = self.stub.Reset(req, timeout=self.timeout)
        return resp

    def step(
        self,
        episode_id: str,
        decision_id: int,
        *,
        action_ids: Sequence[int] = (),
        actions: Sequence[pb.Action] = (),
        action_labels: Sequence[str] = (),
        actions_json: str | Mapping[str, Any] | Sequence[Any] | None = None,
    ) -> pb.EpisodeState:
        """Submit the actions of decision ``decision_id``: exactly one of ``action_ids``,
        ``actions`` (messages), ``action_labels`` (exact ``LegalAction.label`` texts) or
        ``actions_json`` (a structured action, a list of them or a turn plan ``{"plan":
        [...]}``: JSON text, or a dict/list serialised here, see :func:`actions_json_text`).

        A label or JSON action that does not resolve is INVALID_ARGUMENT naming the field
        (``action_labels[0]``, ``actions_json[1].target``), nothing applied; one that resolves
        but is illegal now gets its ``ActionResult`` (``ok`` false, a code and a reason)."""
        req = pb.StepRequest(
            episode_id=episode_id,
            decision_id=decision_id,
            action_ids=[int(a) for a in action_ids],
            actions=list(actions),
            action_labels=list(action_labels),
        )
        if actions_json is not None:
            req.actions_json = actions_json_text(actions_json)
        resp: pb.EpisodeState = self.stub.Step(req, timeout=self.timeout)
        return resp

    def explain(
        self,
        episode_id: str,
        *,
        decision_id: int = 0,
        action_id: int | None = None,
        label: str | None = None,
        action_json: str | Mapping[str, Any] | None = None,
        action: pb.Action | None = None,
        all: bool = False,
    ) -> list[pb.Explanation]:
        """Why an action is or is not legal at the current decision (``Explain``): exactly
        one of ``action_id`` (masked-out ids too), ``label``, ``action_json`` (a structured
        action: JSON text or a dict), ``action`` (a message), or ``all`` (one
        ``Explanation`` per id of the action space, in id order). Each ``Explanation`` has
        ``legal``, ``code`` (the rejection code, empty when legal), ``reason`` (in words) and
        ``field`` (the field at fault). ``decision_id`` 0 = the current decision.

        Raises ``grpc.RpcError``: NOT_FOUND (episode), INVALID_ARGUMENT (none or several
        inputs, an unparsable JSON action), FAILED_PRECONDITION (stale decision, episode
        over), UNIMPLEMENTED (a server without Explain: ``Capabilities.explain`` false)."""
        req = pb.ExplainRequest(episode_id=episode_id, decision_id=int(decision_id), all=all)
        if action_id is not None:
            req.action_id = int(action_id)
        if label is not None:
            req.label = label
        if action_json is not None:
            req.action_json = (
                action_json if isinstance(action_json, str) else json.dumps(dict(action_json))
            )
        if action is not None:
            req.action.CopyFrom(action)
        return list(self.stub.Explain(req, timeout=self.timeout).explanations)

    def take_aoo(self, state: pb.EpisodeState, weapon: int | None = None) -> pb.EpisodeState:
        """Answer the pending attack-of-opportunity decision of ``state``: take it with
        ``weapon`` (``None``: the first offered). The provoking action then continues."""
        return self.step(state.episode_id, state.decision.decision_id, actions=[aoo_action(weapon)])

    def decline(self, state: pb.EpisodeState) -> pb.EpisodeState:
        """Answer the pending attack-of-opportunity decision of ``state``: let it pass (no
        attack is made and none is spent). The provoking action then continues."""
        return self.step(state.episode_id, state.decision.decision_id, actions=[decline_action()])

    def observe(self, episode_id: str) -> pb.EpisodeState:
        """The current state of an episode (no side effects)."""
        resp: pb.EpisodeState = self.stub.Observe(
            pb.ObserveRequest(episode_id=episode_id), timeout=self.timeout
        )
        return resp

    def close_episode(self, episode_id: str) -> None:
        """Forget an episode on the server."""
        self.stub.Close(pb.CloseRequest(episode_id=episode_id), timeout=self.timeout)

    def validate(
        self,
        episode_id: str,
        action_id: int | None = None,
        *,
        action: pb.Action | None = None,
        decision_id: int = 0,
    ) -> pb.ActionResult:
        """Dry run: would this action (by id, or as a message) be accepted now? Changes
        nothing. ``decision_id`` 0 = the current decision."""
        req = pb.ValidateRequest(episode_id=episode_id, decision_id=decision_id)
        if action is not None:
            req.action.CopyFrom(action)
        if action_id is not None:
            req.action_id = int(action_id)
        resp: pb.ActionResult = self.stub.Validate(req, timeout=self.timeout)
        return resp

    def snapshot(self, episode_id: str) -> pb.SnapshotResponse:
        """The episode's whole state (RNG included) as opaque bytes, for :meth:`restore`."""
        resp: pb.SnapshotResponse = self.stub.Snapshot(
            pb.SnapshotRequest(episode_id=episode_id), timeout=self.timeout
        )
        return resp

    def restore(
        self, scenario: str | pb.Scenario, snapshot: bytes | pb.SnapshotResponse, **extra: Any
    ) -> pb.EpisodeState:
        """A new episode from snapshot bytes (``extra``: ``observation``, ``reward``…)."""
        data = snapshot.snapshot if isinstance(snapshot, pb.SnapshotResponse) else snapshot
        req = pb.RestoreRequest(scenario=scenario_message(scenario), snapshot=data, **extra)
        resp: pb.EpisodeState = self.stub.Restore(req, timeout=self.timeout)
        return resp

    def fork(self, episode_id: str) -> pb.EpisodeState:
        """A new episode, an exact copy of ``episode_id`` (RNG and options included)."""
        resp: pb.EpisodeState = self.stub.Fork(
            pb.ForkRequest(episode_id=episode_id), timeout=self.timeout
        )
        return resp

    def export_transcript(self, episode_id: str, *, json_only: bool = False) -> pb.Transcript:
        """The input history of an episode, live or finished: its start (scenario, seed,
        controlled combatants, versions), every answered decision (``entries``: actions and
        results), the transcript ``lines``, the outcome, and the same as one JSON document
        (``transcript_json``) that :meth:`replay_transcript` turns back into the episode.
        ``json_only``: the document without the typed ``entries`` and ``lines`` (a smaller
        reply). ``replayable`` is false when the episode's seed is unknown or the document is
        too large."""
        req = pb.ExportTranscriptRequest(episode_id=episode_id, json_only=json_only)
        resp: pb.Transcript = self.stub.ExportTranscript(req, timeout=self.timeout)
        return resp

    def replay_transcript(
        self, transcript: str | bytes | pb.Transcript, **extra: Any
    ) -> pb.EpisodeState:
        """A new live episode rebuilt from an exported document (``transcript_json``, or the
        :class:`pb.Transcript` holding it), where the original stood; the server refuses a
        document whose history does not reproduce it (INVALID_ARGUMENT naming the field).
        ``extra``: ``observation``, ``reward`` (as at Reset)."""
        if isinstance(transcript, pb.Transcript):
            transcript = transcript.transcript_json
        data = transcript.encode() if isinstance(transcript, str) else bytes(transcript)
        req = pb.ReplayTranscriptRequest(transcript_json=data, **extra)
        resp: pb.EpisodeState = self.stub.ReplayTranscript(req, timeout=self.timeout)
        return resp

    def describe(self, episode_id: str) -> pb.EpisodeDescription:
        """What the episode is waiting for, its round, age and activity."""
        resp: pb.EpisodeDescription = self.stub.Describe(
            pb.DescribeRequest(episode_id=episode_id), timeout=self.timeout
        )
        return resp

    def stats(self) -> pb.StatsResponse:
        """Server counters (live episodes, steps…)."""
        resp: pb.StatsResponse = self.stub.Stats(pb.StatsRequest(), timeout=self.timeout)
        return resp

    def step_batch(
        self, steps: Sequence[pb.StepRequest] = (), resets: Sequence[pb.ResetRequest] = ()
    ) -> list[pb.BatchItem]:
        """Many steps then resets in one call; one item (state or inline error) each, in order."""
        req = pb.StepBatchRequest(steps=list(steps), resets=list(resets))
        return list(self.stub.StepBatch(req, timeout=self.timeout).items)

    def close_episode_future(self, episode_id: str) -> grpc.Future[pb.CloseResponse]:
        """:meth:`close_episode` without waiting: a ``grpc.Future`` (``.result()`` raises
        the call's ``grpc.RpcError``, if any)."""
        future: grpc.Future[pb.CloseResponse] = self.stub.Close.future(
            pb.CloseRequest(episode_id=episode_id), timeout=self.timeout
        )
        return future

    def batch(
        self,
        steps: Sequence[StepItem | tuple[str, int, int]] = (),
        resets: Sequence[pb.ResetRequest] = (),
        *,
        max_items: int = 1024,
        close_episode_ids: Sequence[str] = (),
        columnar: bool = False,
        compact_columns: bool = False,
        column_errors: bool = False,
        unary: bool = False,
    ) -> list[BatchChunk]:
        """Step and reset many episodes: the steps ``(episode id, decision id, action id)``
        then the resets, in order, in as few calls as the server allows.

        ``StepBatch`` requests of at most ``max_items`` items each (the server's
        ``Spec.max_batch_items``): the items are cut into chunks of ``max_items -
        len(close_episode_ids)`` (at least 1), and ``close_episode_ids`` ride along with the
        first request (they count towards the server's limit; a call with closes only is one
        request). ``columnar``: the steps as ``ColumnarSteps`` and the answers as
        ``BatchResponse.columns`` too (capability ``columnar_batch``; ``compact_columns``:
        masks as bits and the terrain planes left out, capability ``compact_columns``).
        ``column_errors``: the server counts its error items in ``columns.errors``
        (capability ``columnar_decisions``), so a response whose count is 0 is not scanned.
        ``unary``: a server without ``StepBatch``: one ``Step`` / ``Reset`` call per item, all
        issued at once on the channel and awaited together (closes: ``Close`` calls).

        Returns one :class:`BatchChunk` per request (items in order; none for an empty call).

        Raises:
            BatchItemError: the first failed item (``item``: its index in the call). The
                other items of its request, and every earlier request, were applied.
            grpc.RpcError: a call failed (a deadline, say: the server may still apply it).
            ValueError: more ``close_episode_ids`` than ``max_items``.
            On either error the episodes that this call's resets created are closed (best
            effort): nothing would hold them.
        """
        step_items = [StepItem(*x) for x in steps]
        closes = list(close_episode_ids)
        if len(closes) > max_items:
            raise ValueError(f"{len(closes)} close_episode_ids for batches of {max_items} items")
        if unary:
            return self._unary_batch(step_items, resets, closes)
        items: list[tuple[bool, Any]] = [(True, x) for x in step_items]
        items += [(False, r) for r in resets]
        width = max(1, max_items - len(closes))
        chunks: list[BatchChunk] = []
        created: list[str] = []
        try:
            for lo in range(0, len(items), width) if items else [0] if closes else []:
                part = items[lo : lo + width]
                chunk_steps = [x for is_step, x in part if is_step]
                chunk_resets = [x for is_step, x in part if not is_step]
                first_closes = closes if lo == 0 else []
                if columnar:
                    req = pb.StepBatchRequest(
                        columnar_steps=pb.ColumnarSteps(
                            episode_ids=[x.episode_id for x in chunk_steps],
                            decision_ids=[x.decision_id for x in chunk_steps],
                            action_ids=[x.action_id for x in chunk_steps],
                        ),
                        resets=chunk_resets,
                        columnar_response=True,
                        compact_columns=compact_columns,
                        close_episode_ids=first_closes,
                    )
                else:
                    req = pb.StepBatchRequest(
                        steps=[
                            pb.StepRequest(
                                episode_id=x.episode_id,
                                decision_id=x.decision_id,
                                action_ids=[x.action_id],
                            )
                            for x in chunk_steps
                        ],
                        resets=chunk_resets,
                        close_episode_ids=first_closes,
                    )
                resp: pb.BatchResponse = self.stub.StepBatch(req, timeout=self.timeout)
                n_steps = len(chunk_steps)
                made = [
                    item.state.episode_id for item in resp.items[n_steps:] if item.HasField("state")
                ]
                created.extend(made)
                scan = not (column_errors and resp.HasField("columns") and resp.columns.errors == 0)
                if scan:
                    for j, item in enumerate(resp.items):
                        if item.HasField("error"):
                            raise BatchItemError(lo + j, item.error.code, item.error.message)
                if part:
                    chunks.append(BatchChunk(resp, _ItemStates(resp.items), lo, n_steps))
        except BaseException:
            for episode_id in created:
                with contextlib.suppress(grpc.RpcError):
                    self.close_episode(episode_id)
            raise
        return chunks

    def _unary_batch(
        self, steps: list[StepItem], resets: Sequence[pb.ResetRequest], closes: list[str]
    ) -> list[BatchChunk]:
        """:meth:`batch` on a server without ``StepBatch``."""
        t = self.timeout
        closing = [self.close_episode_future(e) for e in closes]
        futures = [
            self.stub.Step.future(
                pb.StepRequest(
                    episode_id=x.episode_id, decision_id=x.decision_id, action_ids=[x.action_id]
                ),
                timeout=t,
            )
            for x in steps
        ]
        futures += [self.stub.Reset.future(r, timeout=t) for r in resets]
        for f in closing:
            with contextlib.suppress(grpc.RpcError):  # best effort: it may have expired
                f.result()
        states: list[pb.EpisodeState] = []
        try:
            for f in futures:
                states.append(f.result())
        except BaseException:
            for f in futures[len(steps) :]:
                with contextlib.suppress(grpc.RpcError):
                    st = f.result()
                    self.close_episode(st.episode_id)
            raise
        if not states:
            return []
        return [BatchChunk(None, states, 0, len(steps))]

    def echo(self, payload: bytes) -> bytes:
        """The transport floor (benchmarks): the payload back."""
        resp: pb.EchoResponse = self.stub.Echo(
            pb.EchoRequest(payload=payload), timeout=self.timeout
        )
        return resp.payload

    def session(self) -> Session:
        """Open a ``Session`` stream (see :class:`Session`)."""
        return Session(self)

    # -- Position sweeps (Evaluate) -----------------------------------------------------------

    def evaluate_stream(self, request: pb.EvaluateRequest, *, timeout: float | None = None) -> Any:
        """The raw ``Evaluate`` call: an iterator of ``EvaluateResponse`` (progress messages,
        then one final message) that is also a ``grpc.Call`` (``.cancel()`` stops the
        server's work). ``timeout``: deadline of the whole evaluation (``None``: none)."""
        return self.stub.Evaluate(request, timeout=timeout)

    def _evaluate_final(
        self,
        request: pb.EvaluateRequest,
        on_progress: ProgressCallback | None,
        timeout: float | None,
    ) -> pb.EvaluateResponse:
        call = self.evaluate_stream(request, timeout=timeout)
        final: pb.EvaluateResponse | None = None
        try:
            for msg in call:
                if msg.WhichOneof("kind") == "progress":
                    if on_progress is not None:
                        on_progress(msg.progress)
                else:
                    final = msg
        finally:
            if final is None:
                # on_progress raised, or KeyboardInterrupt: stop the server's work.
                call.cancel()
        if final is None:
            raise RuntimeError("Evaluate stream ended without a final message")
        return final

    def evaluate(
        self,
        spec: SweepSpecSource,
        runs: int | None = None,
        seed: int | None = None,
        placements: Iterable[int] | None = None,
        on_progress: ProgressCallback | None = None,
        *,
        origin: str | None = None,
        heatmaps: bool = False,
        text: bool = False,
        timeout: float | None = None,
    ) -> Any:
        """Evaluate a position sweep on the server (``Evaluate``), blocking until it ends.

        Args:
            spec: the sweep spec's text (YAML or JSON, format of ``data/sweeps/*.yaml``), or a
                ``pathlib.Path`` read here. Names in it resolve in the server's data directory.
            runs, seed: override the spec's ``runs`` and ``seed``.
            placements: ``None``: play every placement and return the report
                (``pb.SweepReport``: ``json``, ``csv``, typed rows, cell statistics). A list
                of placement indices: play only those and return their integer results
                (``list[pb.SweepPlacementResult]``, in that order), for :meth:`assemble`.
            on_progress: called with each ``pb.EvaluateProgress`` (combats and placements done
                and total, elapsed seconds, ETA). If it raises, the call is cancelled — the
                server stops its work within a combat — and the exception propagates.
            origin: label of the spec in the report (see :func:`evaluate_request`).
            heatmaps: with the report, one PNG per swept combatant (``cell_stats[i].png``).
            text: with the report, the ranked text table (``text``).
            timeout: deadline in seconds (``None``: none; the client's default ``timeout``
                does not apply to evaluations, which may run long).

        Raises:
            grpc.RpcError: INVALID_ARGUMENT (``err.details()`` names the field, e.g.
                ``spec: placements.goblin.cells[2]: ...``), RESOURCE_EXHAUSTED (the server
                runs ``--max-evaluations`` already), OUT_OF_RANGE (the report would exceed
                the server's ``--max-message-bytes``: checked before playing), DEADLINE_EXCEEDED,
                UNAVAILABLE.
        """
        if placements is None:
            req = evaluate_request(
                spec,
                mode=pb.EVALUATE_MODE_REPORT,
                runs=runs,
                seed=seed,
                origin=origin,
                heatmaps=heatmaps,
                text=text,
            )
            return self._evaluate_final(req, on_progress, timeout).report
        if heatmaps or text:
            raise ValueError("heatmaps and text come with a report: not with placements=")
        req = evaluate_request(
            spec,
            mode=pb.EVALUATE_MODE_PARTIAL,
            runs=runs,
            seed=seed,
            origin=origin,
            placements=placements,
        )
        return list(self._evaluate_final(req, on_progress, timeout).partial.results)

    def evaluate_plan(
        self,
        spec: SweepSpecSource,
        runs: int | None = None,
        seed: int | None = None,
        *,
        origin: str | None = None,
        timeout: float | None = None,
    ) -> pb.SweepPlanSummary:
        """The sweep's plan without playing it: placement count, runs, combats, swept ids."""
        req = evaluate_request(
            spec, mode=pb.EVALUATE_MODE_PLAN, runs=runs, seed=seed, origin=origin
        )
        return self._evaluate_final(req, None, timeout or self.timeout).plan

    def assemble(
        self,
        spec: SweepSpecSource,
        results: Iterable[pb.SweepPlacementResult],
        runs: int | None = None,
        seed: int | None = None,
        *,
        origin: str | None = None,
        heatmaps: bool = False,
        text: bool = False,
        timeout: float | None = None,
    ) -> pb.SweepReport:
        """The report from the results of every placement (gathered from
        ``evaluate(..., placements=...)`` calls, on any servers with the same data), computed
        by the server's own report code: equal to a single ``evaluate`` call's report. Same
        ``spec``, ``runs``, ``seed`` and ``origin`` as the partial calls."""
        req = evaluate_request(
            spec,
            mode=pb.EVALUATE_MODE_ASSEMBLE,
            runs=runs,
            seed=seed,
            origin=origin,
            results=results,
            heatmaps=heatmaps,
            text=text,
        )
        return self._evaluate_final(req, None, timeout or self.timeout).report

    def close(self) -> None:
        """Close the channel (if this client created it)."""
        if self._owns_channel:
            self._channel.close()

    def __enter__(self) -> Pf1eClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_END = object()


class Session:
    """One ordered bidirectional ``Session`` stream multiplexing many episodes.

    :meth:`send` queues a request (one keyword: ``reset=``, ``step=``, ``observe=``,
    ``validate=``, ``close=``, ``describe=``, ``snapshot=``, ``restore=``, ``fork=`` or
    ``echo=``, with its request message) and returns its request id; :meth:`recv` returns the
    next response, in request order. :meth:`call` does both. Errors come back inline
    (``response.WhichOneof("kind") == "error"``). Episodes created on the stream are closed by
    the server when it ends (:meth:`close`, or the end of a ``with`` block).
    """

    def __init__(self, client: Pf1eClient) -> None:
        self._requests: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._next_id = 1
        self._responses = client.stub.Session(iter(self._requests.get, _END))

    def send(self, **kind: Any) -> int:
        if len(kind) != 1:
            raise TypeError("exactly one request kind, e.g. send(step=pb.StepRequest(...))")
        request_id = self._next_id
        self._next_id += 1
        self._requests.put(pb.SessionRequest(request_id=request_id, **kind))
        return request_id

    def recv(self) -> pb.SessionResponse:
        resp: pb.SessionResponse = next(self._responses)
        return resp

    def call(self, **kind: Any) -> pb.SessionResponse:
        request_id = self.send(**kind)
        resp = self.recv()
        if resp.request_id != request_id:
            raise RuntimeError(f"response {resp.request_id} to request {request_id}")
        return resp

    def close(self) -> None:
        """End the stream (the server closes its episodes) and wait for its end."""
        self._requests.put(_END)
        for _ in self._responses:
            pass

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
