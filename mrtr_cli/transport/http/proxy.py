"""A proxy's own answer, told from the server's (docs/configuration.md "Proxies and TLS"):
for the MCP endpoint's requests and for every sign-in request (auth/replies.py), which go
through the same proxy.

- HTTP 407 (Proxy Authentication Required) is always a proxy's (RFC 9110 section 15.5.8).
- A CONNECT the proxy refuses (an `https://` URL is reached through a tunnel the proxy
  opens) surfaces as an `httpx2.ProxyError` carrying the proxy's status line.
- HTTP 502, 503 and 504 through a proxy that forwards plain HTTP may be the proxy's (it
  could not reach the server, or gave up waiting) or the server's, passed on: nothing in
  the answer tells them apart reliably, so both are named. Through a tunnel (`https://`)
  every answer is the server's.

Each is a `ProxyRefused` (exit 3) naming the proxy and the variable it came from (its
password hidden), with what to change (`NO_PROXY`, the proxy's credentials); it is never
taken as evidence about the server (its protocol era, its sign-in).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from mrtr_cli.errors import TransportError
from mrtr_cli.render.invocation import command, for_new_shell
from mrtr_cli.transport.http.env import PROXY_SCHEMES, named_proxy, proxy_in_effect, shown

#: What a proxy answers itself when the server behind it fails it (RFC 9110 15.6.3-15.6.5).
GATEWAY_STATUSES = (502, 503, 504)


def _direct(variable: str) -> str:
    """How to reach the server without the proxy named by environment `variable`, as typed here."""
    return for_new_shell(f"to reach the server directly, add its host to NO_PROXY or unset {variable}") + \
        f" ({command('help environment')})"


class ProxyRefused(TransportError):
    """The request did not get past the proxy, or may not have (a gateway status through a
    forwarding proxy): exit 3. Never evidence about the server behind it."""


def proxy_answer(url: str, status: int) -> ProxyRefused | None:
    """The error for HTTP `status` answered to a request for `url` when the answer is (or
    may be) the proxy's: 407 always, 502/503/504 through a proxy that forwards plain HTTP.
    None when the answer is the server's."""
    if status == 407:
        return credentials_wanted(url)
    proxy = proxy_in_effect(url)
    if status in GATEWAY_STATUSES and proxy is not None and urlsplit(url).scheme == "http":
        return ProxyRefused(f"HTTP {status} from {named_proxy(proxy)}, or from {shown(url)} behind it (a proxy "
                            f"answers {status} itself when it cannot reach the server or gives up waiting)",
                            hint=_direct(proxy[1]))
    return None


def tunnel_refused(url: str, exc: Exception) -> ProxyRefused:
    """The error for a CONNECT the proxy refused (`exc`: an `httpx2.ProxyError`, whose text
    is the proxy's status line, e.g. "403 Forbidden") on the way to `url`."""
    proxy = proxy_in_effect(url)
    answer = shown(str(exc))
    if answer.startswith("407"):
        return credentials_wanted(url)
    p = urlsplit(url)
    where = f"{p.hostname}:{p.port or 443}"
    if proxy is None:  # httpx2 tunnels only through a proxy it was given: not expected
        return ProxyRefused(f"a proxy refused to open a connection to {where} for {shown(url)}: {answer}",
                            hint=command("help environment"))
    return ProxyRefused(f"{named_proxy(proxy)} refused to open a connection (CONNECT) to {where} for "
                        f"{shown(url)}: {answer}",
                        hint="the proxy does not let mrtr reach that host; " + _direct(proxy[1]))


def credentials_wanted(url: str) -> ProxyRefused:
    """The error for HTTP 407 (Proxy Authentication Required, to a request or to a CONNECT)
    on the way to `url`: the proxy in effect for it named, or, with none, one in the way."""
    proxy = proxy_in_effect(url)
    if proxy is None:
        names = ", ".join(f"{scheme.upper()}_PROXY" for scheme in PROXY_SCHEMES)
        return ProxyRefused(f"HTTP 407 (Proxy Authentication Required) for {shown(url)}: a proxy between mrtr "
                            f"and the server wants credentials, and no proxy is set for this URL ({names}, NO_PROXY)",
                            hint="set that proxy, with its user and password before its host, in HTTPS_PROXY "
                                 "or HTTP_PROXY (USER:PASSWORD@HOST:PORT; mrtr help environment)")
    has_credentials = "@" in urlsplit(proxy[0] if "://" in proxy[0] else "http://" + proxy[0]).netloc
    said = (f"refused the user and password in {proxy[1]}" if has_credentials else
            f"asks for credentials, and {proxy[1]} gives none")
    return ProxyRefused(f"{named_proxy(proxy)} {said} (HTTP 407 Proxy Authentication Required; "
                        f"requested: {shown(url)})",
                        hint=f"put the proxy's user and password in {proxy[1]}, before its host "
                             f"(USER:PASSWORD@HOST:PORT); or, " + _direct(proxy[1]))
