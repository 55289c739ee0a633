"""Following the MCP endpoint's redirects hop by hop (HTTP 301, 302, 303, 307, 308), each
target checked before a byte is sent to it (docs/limits.md "Redirects").

- A target must pass the one rule on where a server-given URL may go
  (transport/http/urlrule.py: a valid http(s) URL; never a link-local or cloud-metadata
  address, also by a name that resolves to one, checked again on the address connected to
  (transport/http/guard.py); HTTPS, or plain HTTP to this machine or on the origin of the
  URL the user gave).
- The method and the body are kept (307, 308; 301 and 302 for any method but POST; 303
  for GET and HEAD). A redirect that would turn the request into a GET (a POST answered
  301, 302 or 303; another method answered 303) is not followed: the error names where
  it points, since MCP messages go by POST only.
- At most `MAX_REDIRECTS` hops.
- Credentials go to the origin of the URL the user gave only (as browsers and httpx2
  do with `Authorization`, and further): a hop to another origin (scheme, host, port)
  drops `Authorization`, `DPoP`, `Cookie` (the cookie jar adds the target's own) and
  every header the user set (`-H`, a config entry's headers: any of them may be a key),
  and they are not restored on a hop back. A 2025-11-25 `Mcp-Session-Id` goes along: it
  names a session of whichever server issued it, not the user. A DPoP proof names the
  method and URL it is for and is never sent twice (RFC 9449 sections 4.2, 11.1): a hop
  within the origin gets a new one, for the target.

Spec: RFC 9110 section 15.4 (redirects); 2026-07-28 basic/authorization/security-
considerations "Token Audience Binding and Validation" and "Token Theft" (a token goes to
the resource it is for, and nowhere else).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from mrtr_cli.errors import TransportError
from mrtr_cli.render.invocation import for_new_shell
from mrtr_cli.render.weburl import UNPARSED, misread
from mrtr_cli.transport.base import Remaining, RequestTimeout
from mrtr_cli.transport.http.env import shown
from mrtr_cli.transport.http.guard import server_given
from mrtr_cli.transport.http.reply import REDIRECT_STATUSES, read_capped
from mrtr_cli.transport.http.urlrule import FORBIDDEN, INVALID, origin, refusal, resolved_refusal, url_problem

if TYPE_CHECKING:  # pragma: no cover
    import httpx2

#: Redirects followed for one request, at most.
MAX_REDIRECTS = 5
#: Headers that carry credentials: they go to the user's origin only.
CREDENTIAL_HEADERS = ("authorization", "dpop", "cookie")
#: Headers each request gets afresh (httpx2 sets them from the URL and the body).
_REBUILT = ("host", "content-length", "transfer-encoding", "cookie")


class RedirectRefused(TransportError):
    """A redirect of the MCP endpoint that mrtr does not follow (exit 3): nothing was sent
    to its target. Never evidence about the server's protocol era."""


def send_following(client: httpx2.Client, request: httpx2.Request, *, private: Iterable[str],
                   remaining: Remaining | None = None,
                   on_hop: Callable[[httpx2.Response, httpx2.Request], None] | None = None,
                   reproof: Callable[[str, str], Mapping[str, str]] | None = None,
                   first: httpx2.Response | None = None) -> httpx2.Response:
    """Send `request` (streamed; to the URL the user gave: plain HTTP may stay on its
    origin, and credentials go nowhere else) with `client` (made with
    `follow_redirects=False`) and follow its redirects by the rules above; the last
    response is returned open.

    Args:
        private: the names of the headers the user set (dropped with the credentials).
        remaining: the seconds left to the caller, or None: each hop's timeouts are cut to it.
        on_hop: called with each redirect response (closed) and the request that follows
            it, before that is sent (the trace).
        reproof: `(method, url) -> headers`: the `Authorization` and `DPoP` headers for a
            request to `url` (a new proof); called for a hop within the user's origin of a
            request that carried a DPoP proof. None: such a hop keeps no DPoP header.

    Raises:
        RedirectRefused: a target that breaks the rule (or resolves where no request may
            go), a redirect that would turn the request into a GET, or more than
            `MAX_REDIRECTS` hops.
        RequestTimeout: `remaining` ran out between hops.
        httpx2.HTTPError: a request failed (`exc.request` is the hop that failed).
    """
    said: str | None = None  # how the current hop came about, once it is a redirect's
    hops = 0
    user_url = str(request.url)
    while True:
        if first is not None:
            resp, first = first, None
        elif said is None:
            resp = client.send(request, stream=True)
        else:
            with server_given(_resolves_refusal(said)):  # the address connected to is checked too
                resp = client.send(request, stream=True)
        location = resp.headers.get("location")
        if resp.status_code not in REDIRECT_STATUSES or location is None:
            return resp
        try:
            read_capped(resp, 65536)  # a redirect's body is not wanted; a little is read so the connection is reused
        except Exception:  # noqa: BLE001 - nothing in it matters
            pass
        finally:
            resp.close()
        said = f"{shown(str(request.url))} redirects (HTTP {resp.status_code}) to"
        if hops == MAX_REDIRECTS:
            raise RedirectRefused(f"{shown(user_url)} redirects more than {MAX_REDIRECTS} times (the last: {said} "
                                  f"{shown(location)}); mrtr follows at most {MAX_REDIRECTS} redirects of a request",
                                  hint="is that the MCP endpoint? A redirect loop never ends")
        request = _next_request(client, request, resp.status_code, location, said, user_url=user_url,
                                private=private, remaining=remaining, reproof=reproof)
        said = f"{said} {shown(str(request.url))}"
        hops += 1
        if on_hop is not None:
            on_hop(resp, request)


def _next_request(client: httpx2.Client, request: httpx2.Request, status: int, location: str, said: str, *,
                  user_url: str, private: Iterable[str], remaining: Remaining | None,
                  reproof: Callable[[str, str], Mapping[str, str]] | None = None) -> httpx2.Request:
    """The request a redirect to `location` asks for, checked by the rules (see
    `send_following`)."""
    import httpx2  # noqa: PLC0415 - lazy for start-up time

    target = _target(request, location, said)
    why = refusal(target, same_origin_as=user_url)
    if why == FORBIDDEN:
        raise RedirectRefused(f"{said} {shown(target)}, which is {why}; mrtr never sends requests there on a "
                              "server's word")
    if why is not None:
        raise RedirectRefused(f"{said} {shown(target)}, which is {why}; nothing was sent there",
                              hint="mrtr follows a redirect only to HTTPS, or to plain HTTP on this machine or "
                                   f"on the origin of {shown(user_url)}")
    address = resolved_refusal(target)
    if address is not None:
        raise _resolves_refusal(f"{said} {shown(target)}")(address)
    method = request.method
    if (status == 303 and method not in ("GET", "HEAD")) or (status in (301, 302) and method == "POST"):
        raise RedirectRefused(f"{said} {shown(target)}, which would turn the {method} into a GET; MCP messages "
                              "go by POST only, so it is not followed",
                              hint=f"if {shown(target)} is the MCP endpoint, " + for_new_shell("give it with --url"))
    headers = httpx2.Headers(request.headers)
    for name in _REBUILT:
        headers.pop(name, None)
    if origin(target) != origin(str(request.url)):
        for name in (*CREDENTIAL_HEADERS, *private):
            headers.pop(name, None)
    elif "dpop" in headers:  # a proof is for one method and URL, and is used once
        del headers["dpop"]
        if reproof is not None:
            headers.update(reproof(method, target))
    extensions = dict(request.extensions)
    if remaining is not None and (left := remaining()) is not None:
        if left <= 0:
            raise RequestTimeout()
        bound = dict(extensions.get("timeout") or {})
        extensions["timeout"] = {key: left if bound.get(key) is None else min(bound[key], left)
                                 for key in ("connect", "read", "write", "pool")}
    body = request.content if request.content else None
    hop = httpx2.Request(method, target, headers=headers, content=body, extensions=extensions)
    client.cookies.set_cookie_header(hop)
    return hop


def _target(request: httpx2.Request, location: str, said: str) -> str:
    """The absolute URL a redirect from `request` to `location` goes to, read the same by
    the HTTP client and a browser (`urlrule.url_problem`; `location` as a browser reads it
    from there: `\\host` is `//host` to it).

    Raises:
        RedirectRefused: naming the location (as sent, when a browser reads it otherwise).
    """
    import httpx2  # noqa: PLC0415 - lazy for start-up time

    try:
        target = str(request.url.join(location).copy_with(fragment=None))
    except (httpx2.InvalidURL, ValueError, TypeError):
        target = ""
    problem = url_problem(target)
    misreading = misread(location, base=str(request.url))
    if problem == INVALID and misreading in (None, UNPARSED):
        raise RedirectRefused(f"{said} {shown(location)}, which {INVALID}; nothing was sent there")
    if misreading is not None:  # also where the HTTP client cannot take it (a non-ASCII host, controls)
        raise RedirectRefused(f"{said} {shown(location)}, {misreading}; nothing was sent there")
    if problem is not None:  # the target as the HTTP client joined it
        raise RedirectRefused(f"{said} {shown(target)}, {problem}; nothing was sent there")
    return target


def _resolves_refusal(said: str) -> Callable[[str], RedirectRefused]:
    """The error for a redirect target (`said`: "URL redirects (HTTP N) to TARGET") whose
    name resolves to `address`, where no request may go."""
    return lambda address: RedirectRefused(f"{said}, which resolves to {address}, {FORBIDDEN}; mrtr never sends "
                                           "requests there on a server's word")
