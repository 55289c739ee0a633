"""Reading JSON documents the user names on the command line (answer files, pending
documents, batch inputs): one place for the "cannot read" and "not valid JSON" messages."""

from __future__ import annotations

import json
from typing import Any

from mrtr_cli.errors import UsageError


def load_json_document(path: str, *, what: str, stdin_text: str | None = None) -> Any:
    """Parse the JSON document at `path` (`-` means `stdin_text`).

    Args:
        path: the file name as the user gave it (used in messages).
        what: what the file is, for messages ("answer file", "pending document").
        stdin_text: the text of stdin, when `path` is `-`.

    Raises:
        UsageError: the file cannot be read, or is not valid JSON (line and column named).
    """
    try:
        if path == "-":
            text = stdin_text if stdin_text is not None else ""
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
    except FileNotFoundError:
        raise UsageError(f"cannot read {what} {path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read {what} {path}: not valid UTF-8 (byte 0x{exc.object[exc.start]:02x} "
                         f"at offset {exc.start})") from None
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path} is not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise UsageError(f"{path} is not usable JSON: nested too deeply") from None
