"""Values that come from somewhere else: `${VAR}` in config files (and each host
format's own way of writing it: `Syntax`), `env:VAR` and
`file:PATH` in header values.

A config file must not be able to send your environment or your files to a server,
so whoever reads a config decides whether indirection is allowed (user-level
files, or `--expand-env`); when it is not, the text stays as written and the
caller reports which variables were left alone.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from mrtr_cli.errors import UsageError

# `-H "Name: env:VAR"`, `file:PATH`, optionally after an auth scheme: "Bearer env:TOKEN".
_INDIRECT = re.compile(r"^(?:(Bearer|Basic|Token|Bot|ApiKey|Digest) +)?(env|file):(.+)$", re.IGNORECASE)


@dataclass(frozen=True)
class Syntax:
    """How one config format writes a reference to an environment variable or a file in
    its values, and what an unset variable becomes (each host's own rule,
    docs/configuration.md "Named servers").

    Attributes:
        pattern: matches one reference; its groups: `kind` (`env`, `input`, `file`, or None
            for a bare name), `name` (a variable name or a path), `default` (after `:-`),
            `bare` (a `$NAME` without braces). None: the format has no references.
        missing: what an unset variable without a default becomes: "error" (refused,
            naming it), "empty" or "keep" (left as written).
        shown: how a reference is written, to name it in messages: `{kind}` and `{name}`
            are filled in (for a bare name, `{kind}` is "env").
    """

    pattern: re.Pattern[str] | None
    missing: str = "error"
    shown: str = "${{{name}}}"

    def show(self, kind: str | None, name: str) -> str:
        """The reference to `name` as this format writes it (`${NAME}`, `{env:NAME}`)."""
        return self.shown.format(kind=kind or "env", name=name)


#: mrtr's own files, Claude Desktop, Claude Code, Cursor and VS Code: `${VAR}`,
#: `${VAR:-default}`, `${env:VAR}`, the built-in names (`${workspaceFolder}`,
#: `${userHome}`) and VS Code's `${input:id}` (which mrtr cannot answer).
MRTR = Syntax(re.compile(r"\$\{(?:(?P<kind>env|input):)?(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)"
                         r"(?::-(?P<default>[^}]*))?\}"))
#: Gemini CLI: `$VAR`, `${VAR}` and `${VAR:-default}`; an unset variable stays as written.
GEMINI = Syntax(re.compile(r"\$(?:(?P<bare>\w+)|\{(?P<name>[^}]+?)(?::-(?P<default>[^}]*))?\})"), missing="keep")
#: Windsurf: `${env:VAR}` and `${file:PATH}`.
WINDSURF = Syntax(re.compile(r"\$\{(?P<kind>env|file):(?P<name>[^}]+)\}"), shown="${{{kind}:{name}}}")
#: OpenCode: `{env:VAR}` (unset: empty) and `{file:PATH}` (relative to the config file's folder).
OPENCODE = Syntax(re.compile(r"\{(?P<kind>env|file):(?P<name>[^}]+)\}"), missing="empty", shown="{{{kind}:{name}}}")
#: Codex, Zed and goose write values as they are.
LITERAL = Syntax(None)


def expand_vars(text: str, *, allowed: bool, environ: Mapping[str, str] | None = None,
                builtins: Mapping[str, str] | None = None, where: str = "", syntax: Syntax = MRTR,
                base: str | None = None, read_file: Callable[[str], str] | None = None,
                secret: Callable[[str], None] | None = None) -> tuple[str, list[str]]:
    """Expand the references of `syntax` in `text` (by default `${VAR}`, `${VAR:-default}`,
    `${env:VAR}` and the built-in names).

    Args:
        allowed: expand environment variables and files; when False they are left as written.
        environ: the environment (default `os.environ`).
        builtins: names that are always expanded because they reveal nothing
            (e.g. `workspaceFolder`, the project directory).
        where: what holds the text, for messages (e.g. "./.mcp.json: server 'x'").
        syntax: how references are written (`MRTR`, `GEMINI`, `WINDSURF`, `OPENCODE`).
        base: the folder a relative `file:` path is read from (the config file's).
        read_file: reads a `file:` reference's text (default: `userfiles.read_user_text`);
            surrounding white space is dropped.
        secret: called with every text read from a file (a file is where tokens are kept).

    Returns:
        (text, refs): the expanded text, and the references left as written because
        expansion is not allowed (as the format writes them, without a default).

    Raises:
        UsageError: an unset variable without a default (where the format refuses one), a
            `file:` that cannot be read, or a VS Code `${input:...}` variable (mrtr cannot
            ask for those).
    """
    if syntax.pattern is None:
        return text, []
    environ = os.environ if environ is None else environ
    builtins = builtins or {}
    skipped: list[str] = []

    def replace(m: re.Match[str]) -> str:
        groups = m.groupdict()
        kind, default = groups.get("kind"), groups.get("default")
        name = groups.get("name") or groups.get("bare") or ""
        if kind == "input":
            raise UsageError(f"{where}: ${{input:{name}}} asks the editor for a value, which mrtr cannot do",
                             hint="put the value in an environment variable and use ${env:NAME} with --expand-env")
        if kind is None and name in builtins:
            return builtins[name]
        if not allowed:
            shown = syntax.show(kind, name)
            if shown not in skipped:
                skipped.append(shown)
            return m.group(0)
        if kind == "file":
            found = _read_reference(name, base=base, where=where, read_file=read_file)
            if secret is not None:
                secret(found)
            return found
        if name == "userHome" and kind is None and syntax is MRTR:
            return os.path.expanduser("~")
        value = environ.get(name)
        if value is not None:
            return value
        if default is not None:
            return default
        if syntax.missing == "empty":
            return ""
        if syntax.missing == "keep":
            return m.group(0)
        raise UsageError(f"{where}: {syntax.show(kind, name)} is not set",
                         hint="set it, or give a default: ${NAME:-value}"
                         if syntax is MRTR else "set it in the environment")

    return syntax.pattern.sub(replace, text), skipped


def _read_reference(path: str, *, base: str | None, where: str, read_file: Callable[[str], str] | None) -> str:
    """The text of the file a `file:` reference names (`~` expanded, relative to `base`),
    without surrounding white space.

    Raises:
        UsageError: the file cannot be read (missing, not a regular file, too large)."""
    full = os.path.expanduser(path.strip())
    if base is not None and not os.path.isabs(full):
        full = os.path.join(base, full)
    return _read_text(full, where=where, read_file=read_file).strip()


def _read_text(path: str, *, where: str, read_file: Callable[[str], str] | None) -> str:
    """The text of the file `path` (`read_file`, default `userfiles.read_user_text`), every
    problem worded after `where`.

    Raises:
        UsageError: missing, not a regular file, too large, not UTF-8."""
    from mrtr_cli.userfiles import SameFile, read_user_text  # noqa: PLC0415 - lazy for start-up time

    try:
        return read_file(path) if read_file is not None else read_user_text(path, what="file")
    except FileNotFoundError:
        raise UsageError(f"{where}: cannot read {path}: no such file") from None
    except SameFile as exc:  # a file the run writes: still refused as one, named as `where` reads it
        raise exc.read_by(where) from None
    except UsageError as exc:
        raise UsageError(f"{where}: {exc.message}", hint=exc.hint) from None


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
        found = _read_text(ref, where=where, read_file=read_file).rstrip("\r\n")
        if not found:
            raise UsageError(f"{where}: {ref} is empty")
    if "\r" in found or "\n" in found:
        raise UsageError(f"{where}: the value from {kind}:{ref} has a line break, which a header cannot carry")
    return (f"{scheme} {found}" if scheme else found), found
