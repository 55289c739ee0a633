"""The address check at connect time: a request to a URL a server handed mrtr (a redirect's
`Location`, a sign-in URL) connects only to addresses the rule allows (transport/http/urlrule.py:
no link-local or cloud-metadata address), checked on the very addresses the connection is
opened to, so a name that resolves to a harmless address when it is checked and to
169.254.169.254 when it is connected to (DNS rebinding) gains nothing.

How: every client `httpenv.new_client` makes has its direct connections opened by
`GuardedBackend` (an httpcore2 network backend). Within `server_given(refuse)` (a context of
the calling thread: httpx2's sync client connects on it), a new connection resolves the
host itself, refuses it when any of its addresses is forbidden (`refuse(address)` is
raised) and connects to the checked addresses only; outside it (the URL the user gave)
it connects as httpx2 would. Through a proxy, the proxy resolves the name: the connection
mrtr opens is to the proxy the user set, and only the name and what it resolves to here
are checked (`urlrule.resolved_refusal`, before the request).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import httpcore2  # loaded with the first client anyway (httpx2's transport imports it): this module is imported then

from mrtr_cli.transport.http.urlrule import forbidden_address

if TYPE_CHECKING:  # pragma: no cover
    import httpx2

#: Within a request to a server-given URL: makes the exception that refuses an address.
_REFUSE: contextvars.ContextVar[Callable[[str], Exception] | None] = contextvars.ContextVar("mrtr_refuse",
                                                                                          default=None)


@contextlib.contextmanager
def server_given(refuse: Callable[[str], Exception]) -> Iterator[None]:
    """Within this block, connections this thread opens are checked: `refuse(address)` (an
    exception, raised before the connection is opened) for a forbidden address."""
    token = _REFUSE.set(refuse)
    try:
        yield
    finally:
        _REFUSE.reset(token)


def guard(client: httpx2.Client) -> None:
    """Open the direct connections of `client` (an `httpx2.Client`) through `GuardedBackend`.
    Connections to a proxy are the user's choice and are left as they are.

    Raises:
        RuntimeError: httpx2 keeps its connection pool elsewhere than this module knows
            (a version this module was not written for): a bug to fix, not a check to skip.
    """
    found = False
    for transport in (client._transport, *client._mounts.values()):  # noqa: SLF001 - see Raises
        pool = getattr(transport, "_pool", None)
        if type(pool) is httpcore2.ConnectionPool:  # not HTTPProxy (a subclass): its connections go to the proxy
            pool._network_backend = GuardedBackend(pool._network_backend)  # noqa: SLF001
            found = True
    if not found:
        raise RuntimeError("httpx2's direct connection pool was not found: the connect-time address check "
                           "cannot be installed")


class GuardedBackend(httpcore2.NetworkBackend):
    """An httpcore2 network backend that checks the addresses of a server-given host
    before it connects (see the module docstring); otherwise it is `inner`."""

    def __init__(self, inner: httpcore2.NetworkBackend):
        self._inner = inner

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore2.NetworkStream:
        refuse = _REFUSE.get()
        if refuse is None:
            return self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        addresses = _resolve(host, port)
        for address in addresses:
            if forbidden_address(address):
                raise refuse(address)
        failure: Exception = httpcore2.ConnectError(f"{host} resolves to no address")
        for address in addresses:
            try:
                return self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore2.ConnectError, httpcore2.ConnectTimeout) as exc:
                failure = exc
        raise failure

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore2.NetworkStream:
        return self._inner.connect_unix_socket(path, timeout, socket_options)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def _resolve(host: str, port: int) -> list[str]:
    """The addresses of `host` (an address stays itself), in the order to try them.

    Raises:
        httpcore2.ConnectError: the name does not resolve (as httpx2 reports it).
    """
    import socket  # noqa: PLC0415 - lazy for start-up time

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise httpcore2.ConnectError(str(exc)) from exc
    return list(dict.fromkeys(str(info[4][0]) for info in infos))
