"""Grants on a JWT someone else issued: the JWT bearer grant of workload identity
federation (RFC 7523 section 2.1; the MCP workload identity federation profile) and the
token exchange of enterprise-managed authorization (RFC 8693; ext-auth
enterprise-managed-authorization: an ID token for an Identity Assertion JWT
Authorization Grant, ID-JAG, at the enterprise identity provider).

The JWTs come from a file (read again for every token request: platforms rotate them),
an environment variable or a command (`config.oauth.AssertionSource`); each is a secret.
"""

from __future__ import annotations

import os
import re
from typing import Any

from mrtr_cli.config.oauth import AssertionSource
from mrtr_cli.errors import AuthError, TimeoutExpired, UsageError
from mrtr_cli.limits import describe_seconds

JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"

#: How long an assertion command may run (seconds), and the longest JWT (bytes).
COMMAND_TIMEOUT = 30.0
MAX_ASSERTION = 64 * 1024
#: The most a command may print (bytes): a JWT of `MAX_ASSERTION` and a line end or a
#: little white space; past it mrtr stops reading. Of its stderr (never shown: it may
#: hold the JWT) only the last `MAX_COMMAND_STDERR` bytes are kept.
MAX_COMMAND_OUTPUT = MAX_ASSERTION + 64
MAX_COMMAND_STDERR = 64 * 1024


def read_assertion(source: AssertionSource, what: str, deadline: Any = None) -> str:
    """The JWT of `source`, read now (a file again each time, a command run again).

    Args:
        what: what it is, for messages ("the workload's JWT").
        deadline: the run's `Deadline` (`--timeout`), which also bounds the command.

    Raises:
        UsageError: the file breaks the rules of every user file (a FIFO, a device, over
            the size limit: `userfiles.read_named_text`), or the file or variable holds no
            JWT (named, never the value; exit 2).
        AuthError: the command gives nothing usable (named, never the value; exit 8).
        TimeoutExpired: the command did not finish within `--timeout` (exit 7).
    """
    if source.kind == "env":
        from mrtr_cli.settings import current  # noqa: PLC0415 - lazy for start-up time

        value = current().jwt_variable(source.value)
        if not value.strip():
            raise UsageError(f"{what} ({source.where}): the environment variable {source.value} is empty or unset")
    elif source.kind == "file":
        from mrtr_cli.userfiles import read_named_text  # noqa: PLC0415 - lazy for start-up time

        # the same reader as every user file: a FIFO or device is refused at once, never read
        try:
            value = read_named_text(os.path.expanduser(source.value), source=source.where, limit=MAX_ASSERTION + 1)
        except UsageError as exc:
            if exc.hint and "stdin" in exc.hint:  # `-` is no stdin here: the JWT is read again for each token
                exc.hint = "give a regular file"
            raise
    else:
        value = _run(source, what, deadline)
    value = value.removeprefix("\ufeff").strip()  # a byte order mark some editors write is no part of it
    if len(value) > MAX_ASSERTION or not is_compact_jwt(value):
        # A file or variable the user named is bad input (exit 2); a command's output is
        # what its identity provider gave (exit 8).
        error = AuthError if source.kind == "command" else UsageError
        raise error(f"{what} from {source.where} is not a JWT (three base64url parts, no spaces, "
                    f"at most {MAX_ASSERTION} bytes)")
    return value


def _run(source: AssertionSource, what: str, deadline: Any = None) -> str:
    """The output of the assertion command, within COMMAND_TIMEOUT and the run's deadline,
    read within `MAX_COMMAND_OUTPUT` bytes (`transport.stdio.boundedrun`: its process group is
    ended however it ends)."""
    from mrtr_cli.platform import shellwords  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.transport.stdio.boundedrun import CommandTimedOut, OutputTooLarge, run_bounded  # noqa: PLC0415

    left = deadline.remaining() if deadline is not None else None
    limit = COMMAND_TIMEOUT if left is None else max(min(COMMAND_TIMEOUT, left), 0.01)

    try:
        argv = shellwords.split(source.value)
    except ValueError as exc:
        raise AuthError(f"{source.where}: cannot split the command ({exc})") from None
    if not argv:
        raise AuthError(f"{source.where}: the command is empty")
    try:
        done = run_bounded(argv, stdout_limit=MAX_COMMAND_OUTPUT, stderr_limit=MAX_COMMAND_STDERR, timeout=limit)
    except FileNotFoundError:
        raise AuthError(f"{source.where}: command not found: {argv[0]}") from None
    except OutputTooLarge:
        raise AuthError(f"{source.where}: the command printed more than {MAX_ASSERTION // 1024} KiB, more than "
                        f"{what} can be; mrtr stopped reading and ended it") from None
    except CommandTimedOut:
        if limit < COMMAND_TIMEOUT:
            raise TimeoutExpired(f"{source.where}: the command did not finish within --timeout") from None
        raise AuthError(f"{source.where}: the command did not finish within "
                        f"{describe_seconds(COMMAND_TIMEOUT)}") from None
    except OSError as exc:
        raise AuthError(f"{source.where}: cannot run the command ({exc.strerror or exc})") from None
    if done.returncode != 0:
        raise AuthError(f"{source.where}: the command exited with {done.returncode} instead of printing {what}")
    return done.stdout.decode("utf-8", "replace")


#: A JWT in its compact form (RFC 7519 section 3.1, RFC 7515 section 7.1): three base64url
#: parts (no padding) joined by dots; the signature of an unsecured JWT is empty.
_COMPACT_JWT = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")


def is_compact_jwt(value: str) -> bool:
    """`value` has the shape of a compact JWT: three base64url parts, the last possibly
    empty, and nothing else (no spaces, no other characters). Its content is not checked:
    the authorization server that takes it does that."""
    return _COMPACT_JWT.fullmatch(value) is not None


def jwt_bearer_form(assertion: str, resource: str, scopes: list[str]) -> dict[str, str]:
    """The token request form of the JWT bearer grant (RFC 7523 section 2.1) for the MCP
    server `resource` (RFC 8707)."""
    data = {"grant_type": JWT_BEARER_GRANT, "assertion": assertion, "resource": resource}
    if scopes:
        data["scope"] = " ".join(scopes)
    return data


def exchange_for_id_jag(http: Any, settings: Any, *, audience: str, resource: str, scopes: list[str],
                        add_secret: Any, redact: Any = None, deadline: Any = None) -> str:
    """Exchange the enterprise ID token for an ID-JAG at the identity provider's token
    endpoint (RFC 8693 section 2.1: `subject_token_type` id_token, `requested_token_type`
    id-jag, `audience` the MCP authorization server's issuer, `resource` the MCP server).

    Args:
        settings: `AuthSettings` with `id_token`, `idp_token_endpoint`, `idp_client_id`
            and `idp_client_secret` (client_secret_basic when given, else the client id
            in the form).
        add_secret: registers each credential for redaction before it is sent.

    Returns:
        The ID-JAG (a JWT; a secret).

    Raises:
        TokenError: the identity provider refused; AuthError: it answered without an
            ID-JAG; TimeoutExpired: it did not answer in time.
    """
    from mrtr_cli.auth.endpoint import grants  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.auth.replies import fetch  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.auth.urls import allowed_url, shown  # noqa: PLC0415 - lazy for start-up time

    endpoint = allowed_url(settings.idp_token_endpoint, "the identity provider's token endpoint")
    subject = read_assertion(settings.id_token, "the identity provider's ID token", deadline)
    add_secret(subject)
    data = {"grant_type": TOKEN_EXCHANGE_GRANT, "requested_token_type": ID_JAG_TYPE, "subject_token": subject,
            "subject_token_type": ID_TOKEN_TYPE, "audience": audience, "resource": resource}
    if scopes:
        data["scope"] = " ".join(scopes)
    headers: dict[str, str] = {"Accept": "application/json"}
    if settings.idp_client_id:
        client = {"client_id": settings.idp_client_id, "client_secret": settings.idp_client_secret,
                  "token_endpoint_auth_method": "client_secret_basic" if settings.idp_client_secret else "none"}
        for value in grants.client_auth(client, data, headers, audience=endpoint):
            add_secret(value)
    import httpx2  # noqa: PLC0415 - lazy for start-up time

    try:
        reply = fetch(http, "POST", endpoint, "the identity provider's token endpoint", data=data, headers=headers)
    except httpx2.TimeoutException:
        raise TimeoutExpired(f"the identity provider's token endpoint {shown(endpoint)} "
                             "did not answer in time") from None
    except httpx2.HTTPError as exc:
        from mrtr_cli.transport.http.env import through_proxy  # noqa: PLC0415 - lazy for start-up time

        raise grants.TokenError(f"cannot reach the identity provider's token endpoint {shown(endpoint)}"
                                f"{through_proxy(endpoint)}: "
                                f"{type(exc).__name__}") from None
    body = reply.document
    if reply.status != 200 or body is None:
        raise grants.TokenError(f"the identity provider refused the token exchange (HTTP {reply.status}"
                                f"{reply.error_detail(redact)})", reply.error_code)
    jag = body.get("access_token")
    if body.get("issued_token_type") != ID_JAG_TYPE or not isinstance(jag, str) or not is_compact_jwt(jag):
        raise AuthError("the identity provider answered the token exchange without an ID-JAG "
                        f"(issued_token_type {shown(body.get('issued_token_type'))})")
    add_secret(jag)
    return jag
