"""Message tracing: `-v` prints JSON-RPC messages to stderr, `-vv` adds HTTP headers,
`--trace FILE` writes every message as one JSON line.

Secrets never reach a trace: header values of credential headers are replaced by
`***`, the value at each secret place of a message sent (a secret form field or tool
argument, whatever its type: `Environment.masked`, credentials.py) too, and every known
secret string is redacted from every line.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from typing import IO, Any

from mrtr_cli.env import Environment
from mrtr_cli.errors import WriteFailed
from mrtr_cli.jsonfile import dumps_utf8
from mrtr_cli.render.live.repeats import RepeatedNotes
from mrtr_cli.render.sanitize import quote_value, sanitize

#: Header names whose values are credentials, never traced: whoever holds an `Mcp-Session-Id`
#: can act in that session, so it is one too (also in the reply that first hands it over,
#: traced before the session learns it).
SENSITIVE_HEADERS = {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "dpop",
                     "mcp-session-id"}


def redact_headers(headers: dict[str, str], env: Environment) -> dict[str, str]:
    """A copy of `headers` with credential values replaced by `***`."""
    out = {}
    for name, value in headers.items():
        if name.lower() in SENSITIVE_HEADERS or value in env.secrets:
            out[name] = "***"
        else:
            out[name] = env.redact(value)
    return out


class Tracer:
    """Writes traces of what crosses the wire.

    Args:
        env: the run's environment (stderr, secrets).
        verbosity: 0 none, 1 JSON-RPC messages, 2 messages and HTTP headers.
        trace_file: an open text file for JSON lines, or None.
    """

    def __init__(self, env: Environment, verbosity: int = 0, trace_file: IO[str] | None = None):
        self.env = env
        self.verbosity = verbosity
        self.trace_file = trace_file
        self._lock = threading.Lock()
        self._strays = RepeatedNotes("responses no request waited for", first=1)

    @property
    def active(self) -> bool:
        return self.verbosity > 0 or self.trace_file is not None

    def message(self, direction: str, msg: Mapping[str, object]) -> None:
        """Trace one JSON-RPC message; `direction` is "send" or "recv"."""
        if not self.active:
            return
        if direction == "send":
            msg = self.env.masked(msg)
        else:
            self.env.places.learn(msg)
        if self.verbosity > 0:
            arrow = "->" if direction == "send" else "<-"
            # Redacted as it will be read (sanitized), and before it is cut: a secret at the
            # cut is never shown in part.
            text = self.env.redact(sanitize(json.dumps(msg, ensure_ascii=False)))
            if len(text) > 4000 and self.verbosity < 2:
                text = text[:4000] + f"... ({len(text)} chars)"
            self.env.err(f"{arrow} {text}")
        self._write({"ts": time.time(), "dir": direction, "message": msg})

    def http(self, kind: str, info: dict[str, Any]) -> None:
        """Trace HTTP request/response metadata (headers redacted)."""
        info = dict(info)
        if "headers" in info:
            info["headers"] = redact_headers(dict(info["headers"]), self.env)
        if self.verbosity >= 2:
            if kind == "request":
                self.env.err(f"-> HTTP {info.get('method')} {info.get('url')}")
            else:
                self.env.err(f"<- HTTP {info.get('status')}")
            for name, value in info.get("headers", {}).items():
                self.env.err(f"   {name}: {sanitize(str(value), single_line=True)}")
        if self.trace_file is not None:
            self._write({"ts": time.time(), "dir": "http-" + kind, "http": info})

    def stray(self, msg: Mapping[str, object]) -> None:
        """A response no request waits for where it came (its id names no request in flight,
        legitimate after a cancellation, or the server's mistake): mrtr ignores it. The
        trace file keeps it (lossless); `-v` notes the first of a stretch on one line (its id
        cut and sanitised: `quote_value`), and counts the rest for `summarise` (a flood of
        them is never a flood of lines)."""
        if not self.active:
            return
        if self.verbosity > 0 and self._strays.take():
            self.env.err(f"-- ignored a response for id {quote_value(msg.get('id'))}, which no request waits for "
                         "here (one cancelled, or the server's mistake)")
        self._write({"ts": time.time(), "dir": "recv", "message": msg})

    def summarise(self) -> None:
        """At `-v`, one line counting the `stray` responses not noted since the last
        summary (none when there were none); the next stretch is noted afresh."""
        line = self._strays.summary(lead="-- ", where="; --trace FILE keeps them", restart=True)
        if line is not None and self.verbosity > 0:
            self.env.err(line)

    def note(self, text: str) -> None:
        """A free-form diagnostic line shown at `-v`."""
        if self.verbosity > 0:
            self.env.err(f"-- {text}")

    def _write(self, record: dict[str, Any]) -> None:
        if self.trace_file is None:
            return
        # Secrets are replaced inside string values before encoding, so that the line stays
        # JSON (and a secret is found in its plain form, not its JSON-escaped one).
        line = dumps_utf8(redact_values(record, self.env.redact))
        with self._lock:
            if self.trace_file is None:
                return
            try:
                self.trace_file.write(line + "\n")
                self.trace_file.flush()
            except OSError as exc:  # a full disk: the trace the user asked for is lost (exit 2)
                name = getattr(self.trace_file, "name", "FILE")
                self.trace_file = None
                self.env.write_failure = WriteFailed(f"cannot write --trace {name}: {exc.strerror or exc}")
        if self.env.write_failure is not None and record.get("dir") == "send" and "method" in record["message"]:
            # A request or notification about to be sent (in the thread sending it, never a
            # reader's): nothing more happens untraced.
            raise self.env.write_failure


def redact_values(value: object, redact: Any) -> Any:
    """`value` with `redact` applied to every string in it (keys are protocol names, kept)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_values(v, redact) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_values(v, redact) for v in value]
    return value
