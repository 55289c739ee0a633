"""Server completions: `completion/complete` (2026-07-28 server/utilities/completion).

A server that declares the `completions` capability suggests values for a prompt's
arguments (`ref/prompt`) and a resource template's variables (`ref/resource`), given
what has been typed (`argument.value`) and the other values known so far
(`context.arguments`). `mrtr complete` sends one request; shell completion asks
through `cached_completion`, which keeps each answer for `COMPLETION_TTL` seconds in
the list cache (the spec: clients SHOULD cache completion results) so that repeated
Tab presses do not reach the server again.
"""

from __future__ import annotations

import json
import time
from typing import Any

from mrtr_cli.errors import ProtocolError
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.lists.cache import ListCache
from mrtr_cli.protocol.session import Session

METHOD = "completion/complete"
#: How long (seconds) shell completion reuses a server's answer to the same request.
COMPLETION_TTL = 60.0


def complete_params(kind: str, ref: str, argument: str, value: str,
                    context: dict[str, str] | None = None) -> dict[str, Any]:
    """The `CompleteRequest` params for a prompt argument (`kind` "prompt", `ref` the
    prompt name) or a template variable (`kind` "resource", `ref` the URI template)."""
    reference = {"type": "ref/prompt", "name": ref} if kind == "prompt" else {"type": "ref/resource", "uri": ref}
    params: dict[str, Any] = {"ref": reference, "argument": {"name": argument, "value": value}}
    if context:
        params["context"] = {"arguments": dict(context)}
    return params


def offers_completions(session: Session) -> bool | None:
    """Whether the server declared `completions` in what the session knows of it (the
    `server/discover` result of the era probe, or an older server's `initialize`
    result); None when the session has not seen either."""
    result = session.server_description
    if not isinstance(result, dict) or not isinstance(result.get("capabilities"), dict):
        return None
    return "completions" in result["capabilities"]


def request_completion(session: Session, params: dict[str, Any], *, deadline: Deadline | None = None) -> dict[str, Any]:
    """Send `completion/complete` and return its result as sent, declaring what a
    `prompts/get` would (protocol/capabilities/declared.py).

    Raises:
        ProtocolError: the result has no `completion.values` list of strings.
        JsonRpcError / TransportError / TimeoutExpired: from the session.
    """
    result = session.request(METHOD, params, capabilities=session.capabilities_for(METHOD), deadline=deadline)
    completion_values(result)
    return result



def completion_values(result: object) -> list[str]:
    """The `completion.values` of a `CompleteResult`.

    Raises:
        ProtocolError: they are missing or not all strings.
    """
    completion = result.get("completion") if isinstance(result, dict) else None
    values = completion.get("values") if isinstance(completion, dict) else None
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ProtocolError(f"the server's {METHOD} result has no completion.values list of strings")
    return values


def _key(params: dict[str, Any]) -> str:
    import hashlib  # noqa: PLC0415 - lazy for start-up time

    return METHOD + "#" + hashlib.sha256(json.dumps(params, sort_keys=True).encode("utf-8")).hexdigest()[:24]


def cached_completion(cache: ListCache | None, params: dict[str, Any], *,
                      now: float | None = None) -> dict[str, Any] | None:
    """The server's answer to the same request within the last `COMPLETION_TTL` seconds
    (same server, authorization context and declared capabilities), or None."""
    if cache is None:
        return None
    entry = cache.get(_key(params))
    if entry is None or len(entry.pages) != 1:
        return None
    if (time.time() if now is None else now) >= entry.received[0] + COMPLETION_TTL:
        return None
    return entry.pages[0]


def store_completion(cache: ListCache | None, params: dict[str, Any], result: dict[str, Any]) -> None:
    """Keep `result` for `cached_completion` (errors writing are ignored, as the list cache's)."""
    if cache is not None:
        cache.put(_key(params), [result], [time.time()])
