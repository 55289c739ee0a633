"""The target of a run: a Streamable HTTP URL or a stdio command (docs/design.md, "Command shape").

A target knows how to build its transport and how to describe itself without
secrets (for pending documents, task records and messages): headers and
environment values are never part of `public()`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.credentials import public_url
from mrtr_cli.env import Environment
from mrtr_cli.errors import UsageError, name_like, refused
from mrtr_cli.platform import shellwords
from mrtr_cli.render.trace import Tracer
from mrtr_cli.transport.base import FRAMING_HEADERS, SignIn, Transport

#: The `roots` of a server's config entry: (its entries as written, paths or `{uri, name}`
#: objects, checked when used: responders/roots.py; the source label; the base directory
#: of relative paths, or None).
ConfigRoots = tuple[list[object], str, "str | None"]

#: What `Target.public()` is made from: (server, url, stdio argv).
_PublicKey = tuple["str | None", "str | None", "tuple[str, ...] | None"]


@dataclass(eq=False, repr=False)
class Target:
    """Where the server is.

    Attributes:
        url: the MCP endpoint for Streamable HTTP, or None.
        command: the stdio command line (argv), or None.
        server: the config name it came from (`-s NAME`), or None.
        headers: HTTP headers to send (may hold secrets).
        env: extra environment for a stdio server (may hold secrets).
        cwd: working directory for a stdio server.
        roots: roots from a server config entry, as `(entries, source label, base directory
            for relative paths)`, or None (`roots` in a server's config entry).
        oauth: OAuth settings from the config entry (`config.oauth.AuthSettings`), or None.
    """

    url: str | None = None
    command: list[str] | None = None
    server: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    roots: ConfigRoots | None = None
    oauth: Any = None
    #: `public()` as made from its key, kept while the target stays as it is (a shell's lines ask per line).
    _public_memo: tuple[_PublicKey, dict[str, Any]] | None = field(default=None, init=False, repr=False,
                                                                    compare=False)

    @property
    def label(self) -> str:
        if self.server:
            return self.server
        if self.url:
            return public_url(self.url)
        return " ".join(self.command or [])

    def public(self) -> dict[str, Any]:
        """A description safe to store or print: no headers, no environment values, and a
        URL without its credentials (`url_secrets`: shown as `***`).

        A server from a config file is named only (`{"server": NAME}`): its URL or
        command line may hold expanded values, and `-s NAME` finds it again.
        """
        key: _PublicKey = (self.server, self.url, tuple(self.command) if self.command else None)
        if self._public_memo is None or self._public_memo[0] != key:
            out: dict[str, Any] = {}
            if self.server:
                out["server"] = self.server
            else:
                if self.url:
                    out["url"] = public_url(self.url)
                if self.command:
                    out["stdio"] = shellwords.join(self.command)
            self._public_memo = (key, out)
        return dict(self._public_memo[1])

    def cache_identity(self) -> dict[str, Any]:
        """What identifies the server for caching: its URL, or its stdio argv and cwd."""
        if self.url:
            return {"url": self.url}
        return {"stdio": list(self.command or []), "cwd": self.cwd}

    def auth_context(self) -> dict[str, Any] | None:
        """What identifies the authorization context (header and environment values;
        secrets: hash it, never store it), or None when nothing is sent."""
        if not self.headers and not self.env:
            return None
        return {"headers": {k.lower(): v for k, v in self.headers.items()}, "env": dict(self.env)}

    def make_transport(self, env: Environment, tracer: Tracer, authorizer: SignIn | None = None) -> Transport:
        """Build (not start) the transport for this target (`authorizer`: the OAuth hook of
        an HTTP target, a `transport.base.SignIn` such as transport/http/authhook.py's
        `Authorizer`; a stdio target never has one)."""
        if self.url:
            from mrtr_cli.transport.http.transport import HttpTransport  # noqa: PLC0415 - lazy for start-up time

            return HttpTransport(self.url, headers=self.headers, on_http=tracer.http if tracer.active else None,
                                 authorizer=authorizer)
        from mrtr_cli.transport.stdio.transport import StdioTransport  # noqa: PLC0415 - lazy for start-up time

        sink = None if env.quiet else (lambda line: env.err(line))
        return StdioTransport(self.command or [], env=self.env, cwd=self.cwd, stderr_sink=sink)


def parse_stdio(command: str, source: str = "--stdio") -> list[str]:
    """Split a `--stdio` command line as the platform splits words (`platform.shellwords`:
    a POSIX shell's rules; on Windows, a program's command line rules); no shell runs it;
    `source` is where it came from (`--stdio`, or the variable `MRTR_STDIO`), as errors name it.

    Raises:
        UsageError: unbalanced quotes or an empty command.
    """
    variable = not source.startswith("-")
    try:
        argv = shellwords.split(command)
    except ValueError as exc:
        raise UsageError(f"{source}={command!r}: {exc}" if variable else f"{source} {command!r}: {exc}") from None
    if not argv:
        example = f"{source}='python server.py'" if variable else f"{source} \"python server.py\""
        raise UsageError(f"{source} {'is empty: it ' if variable else ''}needs a command, e.g. {example}")
    return argv


def check_url(url: str, where: str) -> str:
    """`url` if it is a usable http(s) URL.

    Raises:
        UsageError: another scheme, no host, a bad port or bracketed address, a space or a
            control character anywhere in it.
    """
    from urllib.parse import urlsplit  # noqa: PLC0415 - lazy for start-up time

    shown = public_url(url) if url.startswith(("http://", "https://")) else url
    bad = next((i for i, c in enumerate(url) if ord(c) <= 0x20 or 0x7f <= ord(c) <= 0x9f), None)
    if bad is not None:  # RFC 3986: no spaces or control characters (an HTTP request line cannot carry them)
        what = "a space" if url[bad] == " " else f"a control character ({url[bad]!r})"
        raise UsageError(f"{where} {shown!r}: the URL has {what} at position {bad}",
                         hint="percent-encode it (a space is %20)")
    if not url.startswith(("http://", "https://")):
        raise UsageError(f"{where} {shown!r}: expected an http:// or https:// URL")
    try:
        parts = urlsplit(url)
        _ = parts.port
        ok = bool(parts.hostname)
    except ValueError as exc:
        raise UsageError(f"{where} {shown!r}: not a valid URL ({exc})") from None
    if not ok:
        raise UsageError(f"{where} {shown!r}: the URL names no host")
    return url


#: (Pattern texts, compiled at their first use and kept by `re`'s own cache: a run that
#: does not use them does not compile them, docs/performance.md.)
#: RFC 9110 section 5.1: a field name is a token.
_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
#: RFC 9110 section 5.5: a field value is visible ASCII, spaces and tabs (obs-text, bytes
#: above 0x7f, is not produced here: a value must be ASCII text).
_FIELD_VALUE = r"[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?|"


def check_header(name: str, value: str, where: str) -> None:
    """Refuse a header that HTTP cannot carry, before anything is sent (RFC 9110 sections
    5.1 and 5.5). Every header source goes through here: `-H`, `--bearer-token-env`,
    `env:`/`file:` values and config files.

    Args:
        where: the option or variable the header came from ("-H X-Api-Key",
            "--bearer-token-env TOKEN"), named in the message.

    Raises:
        UsageError: a name that is not a token, or one of `FRAMING_HEADERS`; a value that is
            not ASCII, holds a line break or another control character, or begins or ends with
            white space. The message names `where` and what is wrong, never the value (it may
            be a credential).
    """
    if not re.fullmatch(_TOKEN, name):
        raise UsageError(f"{where}: the header name is not a valid HTTP field name")
    if name.lower() in FRAMING_HEADERS:
        raise UsageError(f"{where}: mrtr sets this header itself (it frames the request); it cannot be given")
    if re.fullmatch(_FIELD_VALUE, value):
        return
    if not value.isascii():
        problem = "is not ASCII"
    elif "\r" in value or "\n" in value:
        problem = "has a line break"
    elif value != value.strip(" \t"):
        problem = "begins or ends with white space"
    else:
        problem = "has a control character"
    raise UsageError(f"{where}: the value {problem}, which an HTTP header cannot carry",
                     hint="percent-encode or base64-encode it, as the server expects" if problem == "is not ASCII"
                     else "remove it from the value (a token read from a file or variable often ends in a newline)")


def check_header_values(headers: dict[str, str], where: str = "-H") -> None:
    """`check_header` for every header in `headers` (`where` is followed by the name).

    Raises:
        UsageError: as `check_header`.
    """
    for name, value in headers.items():
        check_header(name, value, f"{where} {name}")


def parse_header(text: str) -> tuple[str, str]:
    """Parse `-H "Name: value"`.

    Raises:
        UsageError: no colon, an empty or invalid name.
    """
    name, sep, value = text.partition(":")
    name = name.strip()
    if not sep or not name or any(c in name for c in " \t\r\n"):
        # Never echo the value: it may be a credential with a typo in it (`Authorization=Bearer
        # ...`). The name it starts with is said when spelled as a name (errors.name_like), else
        # the word is named by its place (errors.refused).
        start = re.split(r"[\s:=;,]", text.strip(), maxsplit=1)[0]
        why = "expected \"Name: value\" (a header name, a colon, then the value)"
        if start and name_like(start) and not start.startswith("-"):
            raise UsageError(f"-H {start}...: {why}")
        raise refused(f"-H {{0}}: {why}", text)
    if "\r" in value or "\n" in value:
        raise UsageError(f"-H {name}: header values cannot contain line breaks")
    return name, value.strip()


def target_from_public(doc: dict[str, Any]) -> Target:
    """Rebuild a target from its `public()` form (pending documents, task records).

    Raises:
        UsageError: the description names neither a URL nor a stdio command.
    """
    if doc.get("url"):
        return Target(url=str(doc["url"]), server=doc.get("server"))
    if doc.get("stdio"):
        return Target(command=parse_stdio(str(doc["stdio"])), server=doc.get("server"))
    if doc.get("server"):
        return Target(server=str(doc["server"]))
    raise UsageError("the saved target names neither a URL nor a stdio command")
