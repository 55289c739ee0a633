"""Every `MRTR_*` environment variable, read here and nowhere else (docs/configuration.md
"Environment variables" lists each: meaning, default, limits).

`Settings` reads its mapping (the process environment unless given another) at the moment a
value is asked for, never at import: a run pays only for the variables it uses, and a
variable changed by a test before the call is the one read. Each value is bounded as the
table says; a value that cannot be used is a `UsageError` (exit 2) naming the variable,
in one line, except where the table says a bad value falls back (shell completion, the
"still waiting" notice, the reader thread's message limit).

The one variable mrtr sets rather than reads, `MRTR_STDIO_RUN` (the mark a stdio server's
process tree is found by, `platform/proctree.py`), is not a setting.

An `Environment` carries one (`env.settings`); code that runs without one (a cache, the
token store, the message limit of a reader thread) asks `current()`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from mrtr_cli.errors import UsageError
from mrtr_cli.limits import describe_seconds

if TYPE_CHECKING:
    from mrtr_cli.oauth_variables import OAuthVariables

#: `MRTR_AUTH_WAIT`: seconds the sign-in's loopback redirect waits for the browser.
DEFAULT_AUTH_WAIT = 300.0
#: `MRTR_COMPLETE_TIMEOUT`: seconds shell completion waits for a server's answer.
DEFAULT_COMPLETE_TIMEOUT = 3.0
#: `MRTR_WAIT_NOTICE_SECONDS`: seconds of a stdio server's silence before "still waiting".
DEFAULT_WAIT_NOTICE = 5.0


#: The OAuth variables (`OAUTH_NAMES`) that name a file (those of its `*_file` fields, which
#: tests/test_settings_reads.py checks): without loading oauth_variables, for a run that does not sign in.
OAUTH_FILE_VARIABLES = ("MRTR_CLIENT_SECRET_FILE", "MRTR_PRIVATE_KEY_FILE", "MRTR_ASSERTION_FILE", "MRTR_ID_TOKEN_FILE")


class Settings:
    """The `MRTR_*` variables of one environment, each read when asked for.

    Args:
        environ: where to read them; None: the process environment (`os.environ`, read
            live, so a variable set after this object was made is seen).
    """

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ: Mapping[str, str] = os.environ if environ is None else environ

    def _text(self, name: str) -> str | None:
        """The variable's value; None when it is unset or empty."""
        return self._environ.get(name) or None

    def _flag(self, name: str) -> bool:
        """A switch: set to anything but empty or `0`."""
        return self._environ.get(name, "") not in ("", "0")

    # ------------------------------------------------------------------ the target
    @property
    def url(self) -> str | None:
        """`MRTR_URL`: the server's URL when no target option is given."""
        return self._text("MRTR_URL")

    @property
    def stdio(self) -> str | None:
        """`MRTR_STDIO`: the stdio server's command when no target option is given."""
        return self._text("MRTR_STDIO")

    @property
    def server(self) -> str | None:
        """`MRTR_SERVER`: a named server when no target option is given."""
        return self._text("MRTR_SERVER")

    @property
    def target_given(self) -> bool:
        """Whether any of `MRTR_URL`, `MRTR_STDIO`, `MRTR_SERVER` is set."""
        return bool(self.url or self.server or self.stdio)

    # ------------------------------------------------------------------ switches
    @property
    def no_input(self) -> bool:
        """`MRTR_NO_INPUT`: never prompt, as `--no-input`."""
        return self._flag("MRTR_NO_INPUT")

    @property
    def no_cache(self) -> bool:
        """`MRTR_NO_CACHE`: no tool-list cache and no era cache."""
        return self._flag("MRTR_NO_CACHE")

    @property
    def debug(self) -> bool:
        """`MRTR_DEBUG`: an internal error (exit 70) also prints its traceback."""
        return self._flag("MRTR_DEBUG")

    # ------------------------------------------------------------------ places and programs
    @property
    def state_dir(self) -> str | None:
        """`MRTR_STATE_DIR`: the state directory itself; None: the platform's choice."""
        return self._text("MRTR_STATE_DIR")

    @property
    def pager(self) -> str | None:
        """`MRTR_PAGER` as set (empty included: no pager); None when unset (then `PAGER`)."""
        return self._environ.get("MRTR_PAGER")

    @property
    def token_store(self) -> str:
        """`MRTR_TOKEN_STORE`: "file" (the default) or what it names (auth/store.py checks it)."""
        return self._environ.get("MRTR_TOKEN_STORE", "file") or "file"

    @property
    def max_message_size(self) -> str | None:
        """`MRTR_MAX_MESSAGE_SIZE` as written (transport/limits.py parses and bounds it)."""
        return self._text("MRTR_MAX_MESSAGE_SIZE")

    # ------------------------------------------------------------------ durations (seconds)
    def auth_wait(self) -> float:
        """`MRTR_AUTH_WAIT`: seconds the sign-in's redirect is waited for (default 300).

        Raises:
            UsageError: not a positive, finite number (exit 2), naming the variable.
        """
        return self._seconds("MRTR_AUTH_WAIT", DEFAULT_AUTH_WAIT)

    def complete_timeout(self) -> float:
        """`MRTR_COMPLETE_TIMEOUT`: seconds shell completion waits for a server (default 3);
        a value that is not a positive number: the default (completion has nowhere to say so)."""
        try:
            return self._seconds("MRTR_COMPLETE_TIMEOUT", DEFAULT_COMPLETE_TIMEOUT)
        except UsageError:
            return DEFAULT_COMPLETE_TIMEOUT

    def wait_notice(self) -> float | None:
        """`MRTR_WAIT_NOTICE_SECONDS`: the silence (seconds) after which "still waiting" is
        printed (default 5), or None for never (0, or a value that is not a positive number)."""
        text = self._environ.get("MRTR_WAIT_NOTICE_SECONDS")
        if text is None or text == "":
            return DEFAULT_WAIT_NOTICE
        try:
            value = float(text)
        except ValueError:
            return None
        return value if 0 < value < float("inf") else None

    def _seconds(self, name: str, default: float) -> float:
        """A number of seconds from `name`: `default` when it is unset or blank.

        Raises:
            UsageError: not a positive, finite number (exit 2), naming the variable and
                showing at most 40 characters of the value, controls made visible.
        """
        import math  # noqa: PLC0415 - start-up time: read only by sign-in and shell completion

        text = self._environ.get(name, "")
        if not text.strip():
            return default
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (0 < value < math.inf):
            shown = "".join(ch if ch.isprintable() else _escape(ch) for ch in text[:40])
            raise UsageError(f"{name}={shown!r}: expected a positive number of seconds",
                             hint=f"unset it for the default ({describe_seconds(default)})")
        return value

    # ------------------------------------------------------------------ OAuth
    def jwt_variable(self, name: str) -> str:
        """The value of the variable a JWT source names (`MRTR_ASSERTION`, `MRTR_ID_TOKEN`:
        auth/flows/federation.py), read now: it is read again for each token; "" when unset."""
        return self._environ.get(name, "")

    def oauth_files(self) -> list[tuple[str, str]]:
        """The files the OAuth variables name, (variable, path), those set: read when the run
        signs in, after it sent its first request, so they are named to the run's registry
        of files before (userfiles.RunFiles: no output may be one of them)."""
        return [(name, value) for name in OAUTH_FILE_VARIABLES if (value := self._environ.get(name))]

    def oauth(self) -> OAuthVariables:
        """The OAuth variables as set (config/oauth.py checks them)."""
        from mrtr_cli.oauth_variables import OAUTH_NAMES, OAuthVariables  # noqa: PLC0415 - only a run that signs in

        return OAuthVariables(**{field: self._environ.get(name) for field, name in OAUTH_NAMES.items()})


def current() -> Settings:
    """The settings of the process environment, for code that runs without an `Environment`."""
    return Settings()


def _escape(ch: str) -> str:
    """A character a terminal must not be given (a control, a bidi mark, a lone surrogate
    from bytes that were not UTF-8), as its escape: `\\x01`, `\\u202e`."""
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"
