"""The sign-in's HTTP exchanges in `-vv` and `--trace FILE` (render/trace.py), in the
records the MCP traffic uses (`{"dir": "http-request" | "http-response", "http": {...}}`),
with the bodies the MCP traffic carries as messages: metadata, registration, token and
revocation requests and replies.

Nothing secret reaches a trace: credential headers are `***` (`Authorization`, so also
Basic client authentication), and so is every body member that carries a credential
(`SECRET_MEMBERS`: tokens, client secrets, the authorization code, the PKCE
`code_verifier`, client assertions), in JSON and form bodies alike; every secret the run
knows is redacted from every string besides (`Tracer`). A body that is neither JSON nor a
form, or is compressed or cut short, is recorded by its size only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

#: Body members whose values are credentials (RFC 6749, 7009, 7521, 7591, 7636; OpenID).
SECRET_MEMBERS = frozenset({
    "access_token", "refresh_token", "id_token", "token", "client_secret", "code", "code_verifier",
    "client_assertion", "assertion", "registration_access_token", "device_code", "password",
    "software_statement", "subject_token", "actor_token",
})
#: The most bytes of one body kept for the trace (larger: its size only).
MAX_TRACED_BODY = 256 * 1024


def redact_members(value: object) -> Any:
    """`value` (a JSON value or a form as a dict) with every `SECRET_MEMBERS` member's
    value replaced by `***`, at any depth."""
    if isinstance(value, dict):
        return {k: "***" if k in SECRET_MEMBERS else redact_members(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_members(v) for v in value]
    return value


def describe_body(headers: Any, data: bytes, size: int | None = None) -> dict[str, Any]:
    """The trace members of a body: `{"body": JSON}` or `{"form": {...}}` (redacted), else
    `{"bodyBytes": N}`; {} when there is none.

    Args:
        data: the whole body, or b"" when only its `size` is known.
        size: the bytes of the body (default: `len(data)`).
    """
    size = len(data) if size is None else size
    if not size:
        return {}
    kind = (headers.get("content-type") or "").lower()
    encoding = (headers.get("content-encoding") or "identity").lower()
    if data and encoding == "identity" and len(data) <= MAX_TRACED_BODY:
        try:
            text = data.decode("utf-8")
            if "x-www-form-urlencoded" in kind:
                from urllib.parse import parse_qsl  # noqa: PLC0415 - lazy for start-up time

                return {"form": redact_members(dict(parse_qsl(text, keep_blank_values=True)))}
            if "json" in kind:
                return {"body": redact_members(json.loads(text))}
        except (ValueError, RecursionError):
            pass
    return {"bodyBytes": size}


class _TracedStream:
    """A response body stream that keeps what passes through it (at most MAX_TRACED_BODY
    bytes) and calls `done(data, size)` once, when the response is closed: `data` is the
    whole body read, or b"" when it was not read to its end or is too large; `size` the
    bytes read."""

    def __init__(self, inner: Any, done: Callable[[bytes, int], None]):
        self._inner = inner
        self._done = done
        self._chunks: list[bytes] = []
        self._size = 0
        self._complete = False
        self._reported = False

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._inner:
            if self._size + len(chunk) <= MAX_TRACED_BODY:
                self._chunks.append(chunk)
            self._size += len(chunk)
            yield chunk
        self._complete = True

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            if not self._reported:
                self._reported = True
                whole = self._complete and self._size <= MAX_TRACED_BODY
                self._done(b"".join(self._chunks) if whole else b"", self._size)


def trace_hooks(tracer: Any) -> dict[str, list[Callable[[Any], None]]]:
    """httpx2 event hooks that write each request and its response to `tracer`
    (`render.trace.Tracer.http`) while it is active (`-v`, `--trace`)."""
    import httpx2  # noqa: PLC0415 - lazy for start-up time

    class Traced(_TracedStream, httpx2.SyncByteStream):
        pass

    def on_request(request: Any) -> None:
        if not tracer.active:
            return
        try:
            content = request.content
        except httpx2.RequestNotRead:
            content = b""
        tracer.http("request", {"method": request.method, "url": str(request.url), "headers": dict(request.headers),
                                **describe_body(request.headers, content)})

    def on_response(response: Any) -> None:
        if not tracer.active:
            return
        info = {"status": response.status_code, "url": str(response.request.url), "headers": dict(response.headers)}

        def done(data: bytes, size: int) -> None:
            tracer.http("response", {**info, **describe_body(response.headers, data, size)})

        response.stream = Traced(response.stream, done)

    return {"request": [on_request], "response": [on_response]}
