"""Printing errors: one line on stderr (and an optional hint), or one JSON line with `--json`.

With `--json` an error is one line
`{"error": {"exitCode": N, "code": <json-rpc code or null>, "message": "...", "data": ..., "hint": ...}}`
(`hint` only when there is one; docs/design.md, "Output").
"""

from __future__ import annotations

import json
from typing import Any

from mrtr_cli.env import Environment
from mrtr_cli.errors import MrtrError
from mrtr_cli.render.sanitize import LINE_CHARS, SERVER_TEXT_CHARS, cut_text, one_line


def error_object(err: MrtrError) -> dict[str, Any]:
    """The `--json` error object: `{"exitCode", "code", "message", "data"}`, and `hint` when
    there is one (also a batch line's `error`)."""
    error: dict[str, Any] = {"exitCode": int(err.exit_status), "code": err.code, "message": err.message,
                             "data": err.data}
    if err.hint:
        error["hint"] = err.hint
    return error


def print_error(env: Environment, err: MrtrError, *, json_mode: bool, line: int | None = None) -> None:
    """Report `err` on stderr (secrets redacted, server text sanitised). With `json_mode`,
    one JSON object `{"error": ...}`, with `"line"` after it for a line of a `mrtr shell`
    script (`line`, else `env.line_number`), as a `mrtr batch` record has it."""
    if json_mode:
        shown: dict[str, Any] = {"error": error_object(err)}
        number = line if line is not None else env.line_number
        if number is not None:
            shown["line"] = number
        env.err(json.dumps(shown, ensure_ascii=True, default=str))
        return
    prefix = "mrtr: error: "
    if err.from_server:
        prefix = f"mrtr: error: server error {err.code}: "
    env.err(prefix + shown_message(err))
    if err.hint:
        for hint_line in str(err.hint).splitlines():
            env.err("  " + cut_text(hint_line, LINE_CHARS))


def shown_message(err: MrtrError) -> str:
    """`err.message` as one line of text output: sanitised (`render.sanitize.one_line`) and
    cut, a server's own message (`from_server`: a JSON-RPC error's) to `SERVER_TEXT_CHARS`,
    mrtr's own to `LINE_CHARS`; "(no message)" for none. `--json` keeps the message whole
    (`error_object`)."""
    return one_line(err.message, SERVER_TEXT_CHARS if err.from_server else LINE_CHARS) or "(no message)"
