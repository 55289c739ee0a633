"""What mrtr's HTTP client (httpx2) takes from the environment, and the one place every
`httpx2.Client` of mrtr is made (`new_client`).

httpx2 reads (docs/configuration.md, "Proxies and TLS", also `mrtr help environment`):
- `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` and `NO_PROXY` (the lower-case names too, which
  win over the upper-case ones), for every URL, 127.0.0.1 included.
The CA certificates (`SSL_CERT_FILE`, `SSL_CERT_DIR`) are mrtr's to read, under the rules
of every user file: `transport.http.tls` makes the context every client verifies with.

A value that cannot be used (no such file, a FIFO, a SOCKS or ftp:// proxy, a URL that
does not parse) fails before anything is sent: `new_client` raises a `UsageError` (exit
2) naming the variable. `proxy_in_effect` and `tlsenv.tls_variable` let connection errors
name the proxy or CA setting they went through.
"""

from __future__ import annotations

import os
from typing import Any

from mrtr_cli.credentials import public_url
from mrtr_cli.errors import UsageError
from mrtr_cli.render.sanitize import one_line
from mrtr_cli.transport.http.tls import tls_variable, verifying_context

#: The proxy schemes httpx2 reads (`<scheme>_proxy`, lower case first).
PROXY_SCHEMES = ("http", "https", "all")


def shown(value: str) -> str:
    """`value` fit for a message: one line, escaped once, at most 200 characters with an
    ellipsis where it is cut (`one_line`), a URL's credentials as `***` (`credentials.public_url`)."""
    return one_line(public_url(value), 200)


def proxy_variable(scheme: str) -> str | None:
    """The variable that sets the `scheme` ("http", "https", "all") proxy, as Python's
    `urllib.request.getproxies` reads it (the lower-case name wins), or None."""
    for name in (f"{scheme}_proxy", f"{scheme.upper()}_PROXY"):
        if name in os.environ:
            return name if os.environ[name] else None
    return None


def proxy_in_effect(url: str) -> tuple[str, str] | None:
    """The proxy httpx2 sends a request for `url` through, as (proxy URL, variable), or
    None (no proxy, or `NO_PROXY` covers the URL's host). Mirrors httpx2's own choice:
    its mount patterns, most specific first."""
    import httpx2  # noqa: PLC0415 - lazy for start-up time
    from httpx2._utils import URLPattern, get_environment_proxies  # noqa: PLC0415 - lazy for start-up time

    try:
        target = httpx2.URL(url)
        mounts = sorted((URLPattern(key), value) for key, value in get_environment_proxies().items())
    except Exception:  # noqa: BLE001 - a proxy value that does not parse is new_client's to report
        return None
    for pattern, proxy in mounts:
        if pattern.matches(target):
            if proxy is None:
                return None
            scheme = pattern.pattern.split("://", 1)[0]
            return proxy, proxy_variable(scheme) or f"{scheme.upper()}_PROXY"
    return None


def new_client(**options: Any) -> Any:
    """An `httpx2.Client(**options)` (it honours the variables above), verifying HTTPS
    servers with `tlsenv.verifying_context()`, whose direct connections check the address
    of a server-given host at connect time (transport/http/guard.py).

    Raises:
        UsageError: a variable holds a value that cannot be used (exit 2): the message
            names the variable, its value (a password hidden) and what is wrong.
    """
    import httpx2  # noqa: PLC0415 - lazy for start-up time

    from mrtr_cli.transport.http.guard import guard  # noqa: PLC0415 - lazy for start-up time

    options.setdefault("verify", verifying_context())
    options.setdefault("cookies", _cookie_jar())
    try:
        client = httpx2.Client(**options)
    except (ImportError, ValueError, httpx2.InvalidURL) as exc:
        problem = _proxy_problem(exc)
        if problem is None:
            raise
        raise UsageError(problem[0], hint=problem[1]) from None
    guard(client)
    return client


def _cookie_jar() -> Any:
    """An empty cookie jar that keeps no cookie `transport.http.echoed.unsendable` refuses (one
    that could never go back in a `Cookie` header): the usual rules otherwise."""
    import http.cookiejar  # noqa: PLC0415 - lazy for start-up time

    from mrtr_cli.transport.http.echoed import unsendable  # noqa: PLC0415 - lazy for start-up time

    class SendableOnly(http.cookiejar.DefaultCookiePolicy):
        def set_ok(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
            if unsendable(cookie.name) or (cookie.value is not None and unsendable(cookie.value)):
                return False
            return bool(super().set_ok(cookie, request))

    return http.cookiejar.CookieJar(policy=SendableOnly())


def _proxy_problem(exc: Exception) -> tuple[str, str] | None:
    """(message, hint) for the first proxy variable httpx2 cannot use, or None."""
    import httpx2  # noqa: PLC0415 - lazy for start-up time

    for scheme in PROXY_SCHEMES:
        name = proxy_variable(scheme)
        if name is None:
            continue
        value = os.environ[name]
        full = value if "://" in value else f"http://{value}"
        try:
            url = httpx2.URL(full)
        except httpx2.InvalidURL as bad:
            return (f"{name}={shown(value)}: not a valid proxy URL ({shown(str(bad))})",
                    f"fix or unset {name}")
        if url.scheme in ("socks5", "socks5h"):
            return (f"{name}={shown(value)}: SOCKS proxies are not supported",
                    f"unset {name}, or use an HTTP proxy (http:// or https://)")
        if url.scheme not in ("http", "https"):
            return (f"{name}={shown(value)}: not an HTTP proxy (the scheme must be http:// or https://)",
                    f"fix or unset {name}")
    return None


def through_proxy(url: str) -> str:
    """" through the proxy P (VARIABLE)" when a proxy is in effect for `url`, else ""."""
    return _via(proxy_in_effect(url))


def _via(proxy: tuple[str, str] | None) -> str:
    return "" if proxy is None else f" through {named_proxy(proxy)}"


def named_proxy(proxy: tuple[str, str]) -> str:
    """"the proxy P (VARIABLE)" for a `proxy_in_effect` answer, its password hidden."""
    return f"the proxy {shown(proxy[0])} ({proxy[1]})"


def connect_failure(url: str, exc: Exception, *, label: str | None = None) -> tuple[str, str | None]:
    """How a connection to `url` that failed with `exc` (an `httpx2.ConnectError` or
    `ConnectTimeout`) is worded, as (message, hint): a proxy in effect for the URL is
    named with its variable (it is the proxy that could not be reached) and the hint
    names `NO_PROXY`; a certificate that failed to verify names the CA setting. `label`
    names the URL instead of itself (e.g. with the URL that redirected there)."""
    proxy = proxy_in_effect(url)
    message = f"cannot connect to {label or shown(url)}{_via(proxy)}: {shown(str(exc))}"
    if "CERTIFICATE_VERIFY_FAILED" in str(exc):
        setting = tls_variable()
        if setting is not None:
            return message, (f"the server's certificate is not signed by a CA in {setting[0]}={shown(setting[1])}; "
                             f"fix or unset {setting[0]}")
        return message, ("the server's certificate is not signed by a known CA: "
                         "set SSL_CERT_FILE to a CA bundle that has its CA")
    if proxy is not None:
        return message, (f"is the proxy running? To connect directly, unset {proxy[1]} "
                         "or add the host to NO_PROXY (mrtr help environment)")
    return message, "is the server running at that address?"
