"""The server's machine-readable error reasons.

Where a gRPC status code alone is ambiguous, the server adds a reason: the ``pf1e-reason``
trailer of a unary call, ``Error.reason`` of an inline error (batch items, Session stream
items). Reasons (``proto/pf1e/env/v1/environment.proto``, message ``Error``):

- ``episode_lost`` (NOT_FOUND): the episode id is from an earlier server instance — the server
  restarted and the episode is gone; start a new one with ``reset``.
- ``work_budget`` (RESOURCE_EXHAUSTED): the call ran out of its default-policy turns; the
  episode was closed.
- ``memory`` (RESOURCE_EXHAUSTED): an episode or the client's memory limit; ``quota``: the
  client's episode or evaluation quota; ``rate``: the client's request rate.
- ``malformed`` (INVALID_ARGUMENT): the request's bytes are not the message.
- ``call_duration`` (DEADLINE_EXCEEDED): the server's longest call duration
  (``--max-call-secs``) passed, not the client's own deadline.
"""

from __future__ import annotations

from typing import Any

import grpc

EPISODE_LOST = "episode_lost"
WORK_BUDGET = "work_budget"
MEMORY = "memory"
QUOTA = "quota"
RATE = "rate"
MALFORMED = "malformed"
CALL_DURATION = "call_duration"


def error_reason(err: Any) -> str:
    """The reason of a failed call (a :class:`grpc.RpcError`) or of an inline ``pb.Error``;
    ``""`` when the server gave none."""
    if hasattr(err, "reason") and isinstance(err.reason, str):
        return err.reason
    trailing = getattr(err, "trailing_metadata", None)
    if callable(trailing):
        for key, value in trailing() or ():
            if key == "pf1e-reason":
                return value if isinstance(value, str) else value.decode()
    return ""


def is_episode_lost(err: Any) -> bool:
    """True when ``err`` says the server restarted and the episode is lost (NOT_FOUND with
    reason ``episode_lost``), as opposed to an unknown, closed or expired episode."""
    code = err.code() if isinstance(err, grpc.RpcError) else getattr(err, "code", None)
    if isinstance(code, grpc.StatusCode):
        ok = code == grpc.StatusCode.NOT_FOUND
    else:
        ok = code == grpc.StatusCode.NOT_FOUND.value[0]
    return ok and error_reason(err) == EPISODE_LOST
