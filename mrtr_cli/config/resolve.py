"""Resolving the run's target: `--url`, `--stdio` or `-s NAME` (else MRTR_URL / MRTR_STDIO /
MRTR_SERVER), with the command line's headers (`-H`, `--bearer-token-env`), then deciding
whether it may be reached (config/trust.py). The TARGET options: docs/design.md, "Command shape".
"""

from __future__ import annotations

import os
from collections.abc import Callable

from mrtr_cli.config.target import Target, check_header, check_header_values, check_url, parse_header, parse_stdio
from mrtr_cli.credentials import url_secrets
from mrtr_cli.env import Environment
from mrtr_cli.errors import UsageError, refused
from mrtr_cli.runcontext import RunOptions


def resolve_target(opts: RunOptions, env: Environment, *, read_file: Callable[[str], str],
                   warn: Callable[[str], None], confirm: Callable[[str], bool]) -> Target:
    """The target from `--url` / `--stdio` / `-s NAME` (or MRTR_URL / MRTR_STDIO / MRTR_SERVER,
    which are copied into `opts`), trusted or refused (`config.trust.trust_target`, which asks
    a person with `confirm(question) -> bool`).

    Header values given as `env:VAR` or `file:PATH` are read here (`read_file`); every header
    value, token and config `env`/`headers` value is registered as a secret (`env.add_secret`).
    A server config's `roots` stay on `Target.roots`.

    Raises:
        UsageError: none or more than one target given, a bad URL or header, an unknown server,
            a target from a pending document that is neither known nor approved.
    """
    o = opts
    given = [x for x in (o.url, o.stdio, o.server) if x]
    from_environment = not given
    if from_environment:
        o.url, o.stdio, o.server = env.settings.url, env.settings.stdio, env.settings.server
        given = [x for x in (o.url, o.stdio, o.server) if x]
    if not given:
        raise UsageError("no server given: use --url URL, --stdio \"CMD ARGS\" or -s NAME")
    if len(given) > 1:
        raise UsageError("give exactly one of MRTR_URL, MRTR_STDIO and MRTR_SERVER" if from_environment
                         else "give exactly one of --url, --stdio and -s/--server")
    from mrtr_cli.config.encodable import PROCESS, REQUEST, check_text  # noqa: PLC0415 - lazy for start-up time

    for value, option, variable, carrier in ((o.url, "--url", "MRTR_URL", REQUEST),
                                             (o.stdio, "--stdio", "MRTR_STDIO", PROCESS)):
        if value:  # decoded with surrogateescape: a byte that is not UTF-8 cannot be passed on
            check_text(value, variable if from_environment else option, carrier=carrier, from_bytes=True)
    try:
        return _resolve(o, env, read_file, warn, confirm, stdio_source="MRTR_STDIO" if from_environment else "--stdio")
    except UsageError as exc:
        if from_environment:  # name what the user set, not an option they did not type
            for option, variable in (("--url", "MRTR_URL"), ("--stdio", "MRTR_STDIO"), ("-s", "MRTR_SERVER")):
                if exc.message.startswith(option + " "):
                    exc.message = variable + "=" + exc.message[len(option) + 1:]
                    break
        raise


def _resolve(o: RunOptions, env: Environment, read_file: Callable[[str], str],
             warn: Callable[[str], None], confirm: Callable[[str], bool], *,
             stdio_source: str = "--stdio") -> Target:
    """`resolve_target` once the one target option is known (`stdio_source`: where the
    stdio command came from, as its errors name it)."""
    headers = command_line_headers(o, env, read_file)
    if o.server:
        from mrtr_cli.config.servers import resolve_server  # noqa: PLC0415 - lazy for start-up time

        target = resolve_server(o.server, o.config, expand_env=o.expand_env, add_secret=env.add_secret, warn=warn)
        target.headers.update(headers)  # the command line wins over the config file
    elif o.url:
        target = Target(url=check_url(o.url, "--url"), headers=headers)
        for secret in url_secrets(o.url):
            env.add_secret(secret)
    else:
        target = Target(command=parse_stdio(o.stdio or "", stdio_source))
    if target.url:
        check_header_values(target.headers, "server " + target.server + ": header" if target.server else "-H")
    from mrtr_cli.config.trust import trust_target  # noqa: PLC0415 - lazy for start-up time

    trust_target(target, o, env, confirm)
    return target


def command_line_headers(opts: RunOptions, env: Environment, read_file: Callable[[str], str]) -> dict[str, str]:
    """The HTTP headers of `-H "Name: value"` (a value may be `env:VAR` / `file:PATH`, also
    after an auth scheme) and `--bearer-token-env VAR` (`Authorization: Bearer $VAR`); header
    name -> value. Every `-H` value is registered as a secret (kept out of `-vv`, `--trace`
    and errors) unless its name is one of `--public-header NAME` (case-insensitive);
    values read from `env:`/`file:` and the token always are.

    Raises:
        UsageError: a malformed header, an unreadable value source, an empty token variable.
    """
    if not opts.headers and not opts.bearer_token_env:
        return {}  # before the import: its patterns take longer to compile than a stdio call's checks
    from mrtr_cli.config.values import resolve_header_value  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.credentials import is_secret_name  # noqa: PLC0415 - lazy for start-up time

    headers: dict[str, str] = {}
    public = {name.strip().lower() for name in opts.public_headers}
    for text in opts.headers:
        name, value = parse_header(text)
        written = value
        value, secret = resolve_header_value(value, allowed=True, where=f"-H {name}", read_file=read_file)
        if name.lower() not in public:  # every -H value is a secret unless named public
            env.add_secret(value)
        if is_secret_name(name) and name.lower() not in public:
            env.add_secret(value.split(" ", 1)[-1])  # the credential after an auth scheme
        if secret:
            env.add_secret(secret)
        source = written.strip().rsplit(" ", 1)[-1] if secret else ""
        check_header(name, value, f"-H {name}" + (f" ({source})" if source else ""))
        headers[name] = value
    if opts.bearer_token_env:
        token = os.environ.get(opts.bearer_token_env)
        if not token:
            raise refused("--bearer-token-env {0}: that environment variable is empty or unset",
                          opts.bearer_token_env, hint="it takes the name of a variable that holds the token, "
                                                      "e.g. --bearer-token-env MCP_TOKEN")
        env.add_secret(token)
        check_header("Authorization", f"Bearer {token}", f"--bearer-token-env {opts.bearer_token_env}")
        headers["Authorization"] = f"Bearer {token}"
    return headers
