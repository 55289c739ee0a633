"""Values that come from somewhere else: `${VAR}` in config files, `env:VAR` and
`file:PATH` in header values, and numbers of seconds from `MRTR_*` environment variables
(`seconds_setting`).

A config file must not be able to send your environment or your files to a server,
so whoever reads a config decides whether indirection is allowed (user-level
files, or `--expand-env`); when it is not, the text stays as written and the
caller reports which variables were left alone.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping

from mrtr_cli.errors import UsageError


# ${VAR}, ${VAR:-default}, ${env:VAR} (VS Code, Cursor), ${userHome}, ${workspaceFolder}, ${input:id}
_VAR = re.compile(r"\$\{(?:(env|input):)?([A-Za-z_][A-Za-z0-9_.\-]*)(?::-([^}]*))?\}")
# `-H "Name: env:VAR"`, `file:PATH`, optionally after an auth scheme: "Bearer env:TOKEN".
_INDIRECT = re.compile(r"^(?:(Bearer|Basic|Token|Bot|ApiKey|Digest) +)?(env|file):(.+)$", re.IGNORECASE)


def expand_vars(text: str, *, allowed: bool, environ: Mapping[str, str] | None = None,
                builtins: Mapping[str, str] | None = None, where: str = "") -> tuple[str, list[str]]:
    """Expand `${VAR}`, `${VAR:-default}`, `${env:VAR}` and the built-in names in `text`.

    Args:
        allowed: expand environment variables; when False the text is returned as is.
        environ: the environment (default `os.environ`).
        builtins: names that are always expanded because they reveal nothing
            (e.g. `workspaceFolder`, the project directory).
        where: what holds the text, for messages (e.g. "./.mcp.json: server 'x'").

    Returns:
        (text, names): the expanded text, and the variable names left unexpanded
        because expansion is not allowed.

    Raises:
        UsageError: an unset variable without a default, or a VS Code `${input:...}`
            variable (mrtr cannot ask for those).
    """
    environ = os.environ if environ is None else environ
    builtins = builtins or {}
    skipped: list[str] = []

    def replace(m: re.Match[str]) -> str:
        prefix, name, default = m.group(1), m.group(2), m.group(3)
        if prefix == "input":
            raise UsageError(f"{where}: ${{input:{name}}} asks the editor for a value, which mrtr cannot do",
                             hint="put the value in an environment variable and use ${env:NAME} with --expand-env")
        if prefix is None and name in builtins:
            return builtins[name]
        if not allowed:
            skipped.append(name)
            return m.group(0)
        if name == "userHome" and prefix is None:
            return os.path.expanduser("~")
        value = environ.get(name)
        if value is None:
            if default is not None:
                return default
            raise UsageError(f"{where}: ${{{name}}} is not set", hint="set it, or give a default: ${NAME:-value}")
        return value

    return _VAR.sub(replace, text), skipped


def resolve_header_value(value: str, *, allowed: bool, where: str,
                         read_file: Callable[[str], str] | None = None) -> tuple[str, str | None]:
    """Resolve a header value given as `env:VAR` or `file:PATH` (optionally after an
    auth scheme, as in `Bearer env:TOKEN`).

    Args:
        allowed: indirection is allowed here (always for `-H`; for config files only
            in user-level files or with `--expand-env`).
        where: what holds the value, for messages (e.g. "-H Authorization").
        read_file: reads a file's text (default: open it); trailing newlines are dropped.

    Returns:
        (value, secret): the value to send, and the part read from the environment or
        the file (None when the value was given directly).

    Raises:
        UsageError: the variable is unset or empty, or the file cannot be read.
    """
    m = _INDIRECT.match(value.strip())
    if m is None or not allowed:
        return value, None
    scheme, kind, ref = m.group(1), m.group(2).lower(), m.group(3).strip()
    if kind == "env":
        found = os.environ.get(ref)
        if not found:
            raise UsageError(f"{where}: environment variable {ref} is empty or unset")
    else:
        from mrtr_cli.userfiles import read_user_text  # noqa: PLC0415 - lazy for start-up time

        try:
            found = read_file(ref) if read_file is not None else read_user_text(ref, what="file")
        except FileNotFoundError:
            raise UsageError(f"{where}: cannot read {ref}: no such file") from None
        except UsageError as exc:
            raise UsageError(f"{where}: {exc.message}", hint=exc.hint) from None
        found = found.rstrip("\r\n")
        if not found:
            raise UsageError(f"{where}: {ref} is empty")
    if "\r" in found or "\n" in found:
        raise UsageError(f"{where}: the value from {kind}:{ref} has a line break, which a header cannot carry")
    return (f"{scheme} {found}" if scheme else found), found


def seconds_setting(name: str, default: float) -> float:
    """A number of seconds from the environment variable `name`: `default` when it is unset
    or empty.

    Raises:
        UsageError: the value is not a positive, finite number (exit 2), naming the variable.
    """
    import math  # noqa: PLC0415 - start-up time: read only by sign-in and shell completion

    text = os.environ.get(name, "")
    if not text.strip():
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (0 < value < math.inf):
        from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - start-up time: only on an error path

        raise UsageError(f"{name}={sanitize(text, single_line=True)[:40]!r}: expected a positive number of seconds",
                         hint=f"unset it for the default ({default:g} s)")
    return value
