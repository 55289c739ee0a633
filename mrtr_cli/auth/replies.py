"""The replies of authorization requests (metadata documents, token, registration
responses), read within the limits on what a server sends (transport/limits.py, README
"Limits"): the body is streamed in blocks and refused past the message size limit
(`--max-message-size`, `MRTR_MAX_MESSAGE_SIZE`), its JSON past 128 levels of nesting or
with a number JSON does not have. An authorization server is untrusted like any other:
such a reply is an authentication failure (`AuthError`, exit 8) naming the server and
the limit, never a crash. A proxy's own answer is the proxy's error, never the server's
(transport/http/proxy.py, exit 3).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mrtr_cli.errors import AuthError
from mrtr_cli.render.sanitize import one_line, sanitize

if TYPE_CHECKING:  # pragma: no cover
    import httpx2


@dataclass
class Reply:
    """One authorization reply.

    Attributes:
        status: the HTTP status.
        body: its JSON value, or None when it is not JSON (or was not run: a status the
            caller did not ask to read).
    """

    status: int
    body: Any = None
    location: str | None = None
    dpop_nonce: str | None = None  # the `DPoP-Nonce` header (RFC 9449 section 8)

    @property
    def document(self) -> dict[str, Any] | None:
        """The body when it is a JSON object, else None."""
        return self.body if isinstance(self.body, dict) else None

    @property
    def error_code(self) -> str | None:
        """The OAuth `error` code of the body (RFC 6749 section 5.2, RFC 7591 section 3.2.2), or None."""
        doc = self.document or {}
        return doc["error"] if isinstance(doc.get("error"), str) else None

    def error_detail(self, redact: Any = None) -> str:
        """", CODE: DESCRIPTION" of an error body (either part may be missing), sanitized
        and cut (80 and 200 characters, with an ellipsis); "" when it has neither. `redact`
        (a str -> str callable, e.g. `Environment.redact`) is applied to the sanitized text,
        as a person will read it, and before the cut, so that a secret the server echoes is
        never shown, in part or cut in two by an escape sequence."""
        doc = self.document or {}
        code, desc = self.error_code, doc.get("error_description")

        def clean(text: str, limit: int) -> str:
            text = sanitize(text, single_line=True)
            return one_line(redact(text) if redact else text, limit)

        detail = ", " + clean(code, 80) if code else ""
        return detail + (": " + clean(desc, 200) if isinstance(desc, str) else "")


def fetch(http: Any, method: str, url: str, what: str, *, read: tuple[int, ...] | None = None,
          server_given: str | None = None, user_url: bool = False, **request: Any) -> Reply:
    """Send one authorization request with `http` (an `httpx2.Client`) and read its reply
    within the limits.

    Args:
        method, url: the request ("GET", "POST"); `request` holds httpx2's other arguments
            (`headers`, `data`, `json`).
        what: the server for a message, e.g. "the token endpoint" (the URL follows it).
        read: the statuses whose body is read (None: every status); any other is returned
            with body None, unread.
        server_given: the member the URL came from (default: `what`), for the message when
            its host resolves to a link-local or cloud-metadata address
            (`urls.check_resolved`): checked before anything is sent, for every URL but
        user_url: one built from the URL the user gave (`--url`), which is the user's choice.

    Returns:
        The `Reply` (with the `Location` of a redirect, which is never followed).

    Raises:
        httpx2.HTTPError: the request failed (the caller says what that means).
        ProxyRefused: the proxy in the way answered itself (HTTP 407, a refused CONNECT) or
            may have (502, 503, 504 through a forwarding proxy): exit 3 naming the proxy
            and its variable (transport/http/proxy.py), never taken for the server's answer.
        AuthError: a server-given host is or resolves to an address where no request may
            go (checked again on the address connected to: transport/http/guard.py); the
            body is over the message size limit (also when its `Content-Length` says so,
            before it is read), nested more than 128 levels, or holds NaN, Infinity or an
            over-long integer (exit 8).
    """
    import httpx2  # noqa: PLC0415 - lazy for start-up time

    from mrtr_cli.transport.http.proxy import tunnel_refused  # noqa: PLC0415 - lazy for start-up time

    checked: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if not user_url:
        from mrtr_cli.auth.urls import check_resolved, resolved_to  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.transport.http.guard import server_given as guarded  # noqa: PLC0415 - lazy for start-up time

        member = server_given or what
        check_resolved(url, member)
        checked = guarded(lambda address: AuthError(resolved_to(member, url, address)))
    try:
        with checked, http.stream(method, url, **request) as resp:
            return _reply(resp, f"{what} {one_line(url, 200)}", read)
    except httpx2.ProxyError as exc:  # a CONNECT the proxy refused
        raise tunnel_refused(url, exc) from None


def _reply(resp: httpx2.Response, where: str, read: tuple[int, ...] | None) -> Reply:
    """The `Reply` of `resp` (an open `httpx2.Response`; `where` names it for a message):
    see `fetch`."""
    from mrtr_cli.transport.base import InvalidMessage, MessageTooDeep, MessageTooLarge  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.transport.http.proxy import proxy_answer  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.transport.http.reply import read_json_body  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.transport.limits import describe_size  # noqa: PLC0415 - lazy for start-up time

    refused = proxy_answer(str(resp.request.url), resp.status_code)
    if refused is not None:
        raise refused
    nonce = resp.headers.get("dpop-nonce")
    if read is not None and resp.status_code not in read:
        return Reply(resp.status_code, location=resp.headers.get("location"), dpop_nonce=nonce)
    try:
        return Reply(resp.status_code, read_json_body(resp, allow_overflow=True), dpop_nonce=nonce)
    except MessageTooLarge as exc:
        raise AuthError(f"{where} sent a reply over the limit of {describe_size(exc.limit)} on what a "
                        "server sends; refused", hint=exc.hint) from None
    except MessageTooDeep:
        from mrtr_cli.transport.limits import MAX_DEPTH  # noqa: PLC0415 - lazy for start-up time

        raise AuthError(f"{where} sent JSON nested more than {MAX_DEPTH} levels deep (the limit on JSON "
                        "from a server); refused") from None
    except InvalidMessage as exc:
        raise AuthError(f"{where} sent an unacceptable reply: {exc.message}") from None
