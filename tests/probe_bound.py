"""The era probe's bound is not under test (tests/README.md, "How the suite holds on a loaded
machine"): a `mrtr` command line a test runs against an HTTP test server it started carries
`--probe-timeout` (`conftest.url_args`) or `--protocol`.

With `--protocol auto` over HTTP the era probe waits 2 s for the `server/discover` answer,
counted from the send; a loaded machine answers later, mrtr then speaks 2025-11-25, and what
the test expected of 2026-07-28 goes otherwise. A test that leaves the bound at its default
passes on an idle machine and fails under load; this check fails it on any machine, before
mrtr starts. The places that start `mrtr` for a test call `check_probe_bound`
(`conftest.mrtr`, `support.start_mrtr`, `auth_support.run_mrtr`), or `check_process` with
the whole command (`terminals.spawn_pty`, through which every pseudo-terminal test starts
its process: `support.spawn`, the shell's `Shell`, `auth_support.spawn_mrtr`, ...); the
HTTP test servers (`conftest.HttpServers`, `auth_support`'s
OAuth-protected MCP server) name their origin with `served`.

Left out: `auth` and `resume` commands (`auth` opens no MCP session, its sign-in probe is
not the era probe; `resume` speaks the version its document saved), a URL with a user name
or password, a target named in a config file (`-s NAME`), servers a test writes itself, and
processes a test starts without these helpers: for those, cutting `DEFAULT_PROBE_TIMEOUT`
to 1 ms for a run is the check (tests/README.md).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

#: Origins (`http://127.0.0.1:PORT`) of the HTTP test servers started in this process.
_SERVED: set[str] = set()

#: Commands that send no era probe of their own: `auth` (its sign-in probe is another), and
#: `resume` (the pending document's saved version is spoken; a 2026-07-28 one is never probed).
_UNPROBED = ("auth", "resume")

#: Options that take the era probe's bound out of a run: a generous `--probe-timeout`, or
#: a pinned `--protocol` (no probe at all).
_BOUNDING = ("--probe-timeout", "--protocol")


def _origin(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:  # a malformed URL (a usage error's test): no server's
        return ""
    return f"{parts.scheme}://{parts.netloc}"


def served(url: str) -> str:
    """Note `url` as an HTTP test server's (its origin: every path on it counts); returns `url`."""
    _SERVED.add(_origin(url))
    return url


def _target_url(words: list[str], env: Mapping[str, str] | None) -> str | None:
    for i, word in enumerate(words):
        if word == "--url" and i + 1 < len(words):
            return words[i + 1]
        if word.startswith("--url="):
            return word.removeprefix("--url=")
    return (env or {}).get("MRTR_URL")


def check_probe_bound(args: Iterable[object], env: Mapping[str, str] | None = None) -> None:
    """Fail the test when `mrtr ARGS` (with `env` added to its environment) reaches an HTTP test
    server started here with the era probe's default bound: neither `--probe-timeout` nor
    `--protocol` given, and not an `auth` or `resume` command.

    Raises:
        AssertionError: naming the URL and the fix (`conftest.url_args(url)`, or `--protocol`).
    """
    words = [str(a) for a in args]
    url = _target_url(words, env)
    if url is None or _origin(url) not in _SERVED or any(command in words for command in _UNPROBED):
        return
    if any(word == option or word.startswith(option + "=") for word in words for option in _BOUNDING):
        return
    raise AssertionError(f"mrtr {' '.join(words)}: reaches the HTTP test server {url} with the era probe's "
                         "default 2 s bound, which a loaded machine outlasts (mrtr then speaks 2025-11-25): "
                         "give conftest.url_args(url) (--probe-timeout SAFETY), or --protocol where the era "
                         "is given (tests/probe_bound.py)")


def check_process(command: str, args: list[str], env: Mapping[str, str] | None = None) -> None:
    """`check_probe_bound` for a process started as `command ARGS` with environment `env`:
    `python -m mrtr_cli ...`, or a shell's `-c` line that runs it (`exec python -m mrtr_cli ...
    > out`); any other process passes.

    Raises:
        AssertionError: as `check_probe_bound`.
    """
    words = [command, *args]
    if len(args) >= 2 and args[0] == "-c":
        try:
            words = shlex.split(args[1])
        except ValueError:  # not a line shlex reads: not one of the helpers' mrtr lines
            return
    if "mrtr_cli" in words:
        rest = words[words.index("mrtr_cli") + 1:]
        check_probe_bound(rest[:rest.index(">")] if ">" in rest else rest, env)  # not the shell's redirection
