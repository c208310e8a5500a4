"""Offline decoding of the encounter's discrete action ids, from ``GetSpec`` alone.

The action space is a list of blocks (``Spec.action_blocks``); a server with the capability
``action_block_axes`` describes how the index within a block (``id - first_id``) decodes:
row-major over ``ActionBlock.axes`` (the last varying fastest), with ``axis_sizes`` and, for
an enumerated last axis (``direction``, ``maneuver``, ``mode``, ``metamagic``), the value
names in ``last_axis_values``. :func:`decode_action` turns an id into a dict, and
:func:`encode_action` is its inverse; neither calls the server.

>>> spec = client.get_spec("sample_arena")  # doctest: +SKIP
>>> decode_action(spec, 7)  # doctest: +SKIP
{'id': 7, 'kind': 'attack', 'target': 3, 'target_id': 'orc', 'weapon': 0}

An id being in the space does not make it legal: the decision's action mask says which are.
"""

from __future__ import annotations

import numbers
from typing import Any

from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb

#: Axes whose value is a combatant index (``Spec.combatants``); the decoded dict also has
#: ``<axis>_id``, the combatant's id string.
COMBATANT_AXES = ("target", "opponent", "ally")
#: Axes decoded to the name of the value (``ActionBlock.last_axis_values``).
ENUM_AXES = ("direction", "maneuver", "mode", "metamagic")


def _block_of(spec: pb.Spec, action_id: int) -> pb.ActionBlock:
    for b in spec.action_blocks:
        if b.first_id <= action_id < b.first_id + b.size:
            return b
    total = sum(b.size for b in spec.action_blocks)
    raise ValueError(f"action id {action_id} is outside the action space (0..{total - 1})")


def _index(value: Any, field: str) -> int:
    """``value`` as an ``int`` if it is an integer (Python or numpy, not a bool), else
    ``ValueError`` naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{field}: an integer, not {value!r}")
    return int(value)


def _check_axes(block: pb.ActionBlock) -> None:
    if block.size > 1 and not block.axes:
        raise ValueError(
            f"block {block.name!r} has no axes: the server predates ActionBlock.axes "
            "(capability action_block_axes)"
        )


def decode_action(spec: pb.Spec, action_id: int) -> dict[str, Any]:
    """What action id ``action_id`` means in the encounter of ``spec`` (a ``GetSpec`` answer).

    Returns ``{"id", "kind"}`` — ``kind`` the block's name (``"attack"``, ``"move_to"``,
    ``"5foot_step"``…) — plus one key per axis of the block: ``target`` / ``opponent`` /
    ``ally`` (a combatant index, ``Spec.combatants`` order) with ``<axis>_id`` (that
    combatant's id string), ``weapon`` (an index in the actor's attacks), ``square`` as
    ``(row, col)``, ``direction`` (``"N"``, ``"NE"``… of a 5-foot step, relative to the
    actor), ``maneuver`` / ``mode`` / ``metamagic`` (the value's name), ``spell`` (an index in
    the actor's spellbook, ``CombatantInfo.spells``) and ``delay`` (0: to the end of the round;
    1 + t: to just after combatant t). Raises ``ValueError`` for an id outside the space (or
    a server that does not describe the axes, or an ``action_id`` that is not an integer:
    ``1.5``, ``True`` or ``"7"`` are refused, not rounded)."""
    action_id = _index(action_id, "action_id")
    block = _block_of(spec, action_id)
    _check_axes(block)
    out: dict[str, Any] = {"id": action_id, "kind": block.name}
    rest = action_id - block.first_id
    values = [0] * len(block.axes)
    for i in range(len(block.axes) - 1, -1, -1):
        rest, values[i] = divmod(rest, block.axis_sizes[i])
    cols = spec.map.cols
    for i, (axis, v) in enumerate(zip(block.axes, values, strict=True)):
        if axis in COMBATANT_AXES:
            out[axis] = v
            out[f"{axis}_id"] = spec.combatants[v].id if v < len(spec.combatants) else ""
        elif axis == "square":
            out[axis] = divmod(v, cols)
        elif axis in ENUM_AXES and i == len(block.axes) - 1 and block.last_axis_values:
            out[axis] = block.last_axis_values[v]
        else:
            out[axis] = v
    return out


def encode_action(spec: pb.Spec, kind: str, **axes: Any) -> int:
    """The action id of block ``kind`` with these axis values — the inverse of
    :func:`decode_action`: ``encode_action(spec, **{k: v for k, v in decode_action(spec,
    i).items() if k != "id"})`` is ``i`` (the ``<axis>_id`` keys are accepted and must then
    agree). A combatant axis takes an index or an id string, ``square`` a ``(row, col)`` pair
    or a row-major index, an enumerated axis its name or index. Raises ``ValueError`` for an
    unknown block, a missing, unknown or out-of-range axis value."""
    block = next((b for b in spec.action_blocks if b.name == kind), None)
    if block is None:
        names = ", ".join(b.name for b in spec.action_blocks)
        raise ValueError(f"unknown action block {kind!r} (blocks: {names})")
    _check_axes(block)
    ids = {c.id: c.index for c in spec.combatants}
    given = dict(axes)
    k = 0
    last = len(block.axes) - 1
    for i, (axis, size) in enumerate(zip(block.axes, block.axis_sizes, strict=True)):
        if axis not in given:
            raise ValueError(f"{kind}: missing axis {axis!r} (axes: {list(block.axes)})")
        v = given.pop(axis)
        if axis in COMBATANT_AXES:
            if isinstance(v, str):
                if v not in ids:
                    raise ValueError(f"{kind}.{axis}: unknown combatant id {v!r}")
                v = ids[v]
            cid = given.pop(f"{axis}_id", None)
            if cid is not None and ids.get(cid) != v:
                raise ValueError(f"{kind}.{axis}_id: {cid!r} is not combatant {v}")
        elif axis == "square" and not isinstance(v, numbers.Integral):
            row, col = v
            if not (0 <= col < spec.map.cols and 0 <= row < spec.map.rows):
                raise ValueError(f"{kind}.square: {(row, col)} is off the map")
            v = row * spec.map.cols + col
        elif isinstance(v, str):
            values = list(block.last_axis_values) if i == last else []
            if v not in values:
                raise ValueError(f"{kind}.{axis}: unknown value {v!r} (values: {values})")
            v = values.index(v)
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= int(v) < size:
            raise ValueError(f"{kind}.{axis}: {v!r} is not an index below {size}")
        v = int(v)
        k = k * size + v
    if given:
        raise ValueError(f"{kind}: unknown axes {sorted(given)} (axes: {list(block.axes)})")
    return int(block.first_id + k)
