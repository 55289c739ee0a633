"""Printing results on stdout.

`--json` prints the final result object exactly as the server sent it (every
field, camelCase, `_meta` included). Text mode is for people: text blocks as
plain text, `structuredContent` as pretty JSON where it adds what the text lacks, other
blocks summarised, and every server string sanitised for the terminal.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from mrtr_cli.env import Environment
from mrtr_cli.jsonfile import json_type
from mrtr_cli.render.sanitize import dumps_safe, iter_dumps_safe, sanitize

#: Largest JSON text (characters) that is syntax-coloured; a larger one is printed plain.
MAX_COLOURED_JSON = 1 << 20


def print_json(env: Environment, value: object, *, one_line: bool = False) -> None:
    """Print one JSON value on stdout: indented for a terminal, one line for a pipe or
    when `one_line` (a stream of JSON lines, such as `listen --json`), streamed as it is
    encoded (a large result is not copied whole). When stdout is styled (a terminal,
    `--color`, FORCE_COLOR: render/color.py) it is syntax-coloured; the characters are
    the same, only styles are added."""
    from mrtr_cli.render.color import styled  # noqa: PLC0415 - lazy for start-up time

    chunks = iter_dumps_safe(value, indent=2 if env.stdout_isatty and not one_line else None)
    if styled(env, env.stdout):
        text = "".join(chunks)
        if len(text) <= MAX_COLOURED_JSON:
            from mrtr_cli.render.color import console, json_text  # noqa: PLC0415 - lazy for start-up time

            try:
                console(env, env.stdout, soft_wrap=True, emoji=False, markup=False).print(json_text(text))
                env.stdout.flush()
            except BrokenPipeError:
                env.out_chunks(())
            return
        chunks = iter((text,))
    env.out_chunks(itertools.chain(chunks, ("\n",)))


def _size(count: int) -> str:
    n = float(count)
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def _b64_len(data: object) -> int:
    if not isinstance(data, str):
        return 0
    return len(data) * 3 // 4 - data[-2:].count("=")


def summarise_block(block: object) -> str:
    """One line for a non-text content block (image, audio, resource link, blob)."""
    if not isinstance(block, dict):
        return f"[{json_type(block)}]"
    kind = block.get("type")
    if kind in ("image", "audio"):
        mime = sanitize(str(block.get('mimeType', '?')), single_line=True)
        return f"[{kind} {mime}, {_size(_b64_len(block.get('data')))}]"
    if kind == "resource_link":
        name = block.get("title") or block.get("name") or ""
        uri = sanitize(str(block.get('uri')), single_line=True)
        return f"[resource link] {sanitize(str(name), single_line=True)} <{uri}>"
    if kind == "resource":
        res = raw_res if isinstance(raw_res := block.get("resource"), dict) else {}
        return f"[resource {sanitize(str(res.get('uri')), single_line=True)}, {_size(_b64_len(res.get('blob')))}]"
    return f"[{sanitize(str(kind), single_line=True)} block]"


def _block_text(block: object) -> str | None:
    if isinstance(block, dict):
        if block.get("type") == "text":
            return str(block.get("text", ""))
        if block.get("type") == "resource":
            res = block.get("resource")
            if isinstance(res, dict) and "text" in res:
                return str(res["text"])
    return None


def _is_json_of(text: str, value: object) -> bool:
    try:
        same: bool = json.loads(text) == value
        return same
    except ValueError:
        return False


def _leaves(value: object, key: str = "") -> list[tuple[str, Any]]:
    """The scalar values inside a JSON value, each with the member name it sits under."""
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, str(k))]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v, key)]
    return [(key, value)]


def adds_to_text(structured: object, text: str) -> bool:
    """True when `structuredContent` says something the text blocks (`text`) do not: some
    string or number in it does not appear in the text (case ignored; a number as JSON
    writes it), or a true/false/null whose member name and value are both absent. A
    `{"result": "hello Ann"}` beside the text "hello Ann" adds nothing."""
    seen = text.casefold()
    for key, value in _leaves(structured):
        if isinstance(value, str):
            if value.strip() and value.casefold() not in seen:
                return True
        elif isinstance(value, bool) or value is None:
            if json.dumps(value) not in seen and (not key or key.casefold() not in seen):
                return True
        elif isinstance(value, int | float):
            if json.dumps(value) not in seen and str(value) not in seen:
                return True
        else:
            return True
    return False


def tool_result_text(result: dict[str, Any]) -> str:
    """The text rendering of a CallToolResult, each thing said once: the content blocks
    (text as it is, other blocks summarised), a text block that is the JSON of
    `structuredContent` as that JSON indented; `structuredContent` otherwise only when it
    adds what the text lacks (`adds_to_text`) or there is no text (docs/commands.md,
    "Results")."""
    lines: list[str] = []
    structured = result.get("structuredContent", _MISSING)
    shown_structured = False
    texts: list[str] = []
    for block in result.get("content") or []:
        text = _block_text(block)
        if text is None:
            lines.append(summarise_block(block))
        elif structured is not _MISSING and not shown_structured and _is_json_of(text, structured):
            lines.append(dumps_safe(structured, indent=2))
            shown_structured = True
        else:
            lines.append(sanitize(text))
            texts.append(text)
    if (structured is not _MISSING and not shown_structured
            and (not texts or adds_to_text(structured, "\n".join(texts)))):
        lines.append(dumps_safe(structured, indent=2))
    return "\n".join(lines)


def prompt_result_text(result: dict[str, Any]) -> str:
    """The text rendering of a GetPromptResult: each message as `[role]` then its content."""
    lines: list[str] = []
    if result.get("description"):
        lines.append(f"# {sanitize(str(result['description']), single_line=True)}")
    for message in result.get("messages") or []:
        if not isinstance(message, dict):
            continue
        lines.append(f"[{sanitize(str(message.get('role')), single_line=True)}]")
        content = message.get("content")
        for block in content if isinstance(content, list) else [content]:
            text = _block_text(block)
            lines.append(sanitize(text) if text is not None else summarise_block(block))
    return "\n".join(lines)


def resource_result_text(result: dict[str, Any]) -> str:
    """The text rendering of a ReadResourceResult: text contents as-is, blobs summarised."""
    lines: list[str] = []
    for item in result.get("contents") or []:
        if not isinstance(item, dict):
            continue
        if "text" in item:
            lines.append(sanitize(str(item["text"])))
        else:
            mime = sanitize(str(item.get("mimeType", "application/octet-stream")), single_line=True)
            lines.append(f"[blob {sanitize(str(item.get('uri')), single_line=True)}, {mime}, "
                         f"{_size(_b64_len(item.get('blob')))}; use --json or redirect stdout to a file]")
    return "\n".join(lines)


_MISSING = object()


def print_result(env: Environment, method: str, result: dict[str, Any], *, json_mode: bool) -> None:
    """Print a final result for `method` (tools/call, prompts/get, resources/read, or other)."""
    if json_mode:
        print_json(env, result)
        return
    if method == "resources/read":
        contents = result.get("contents") or []
        if (
            len(contents) == 1
            and isinstance(contents[0], dict)
            and "blob" in contents[0]
            and not env.stdout_isatty
        ):
            # A single binary resource to a file or pipe: write its bytes.
            import base64  # noqa: PLC0415 - start-up time

            try:
                data = base64.b64decode(contents[0]["blob"], validate=False)
            except (ValueError, TypeError):
                data = b""
            env.stdout.flush()
            env.stdout.buffer.write(data)  # type: ignore[attr-defined]  # stdout is a text stream over a binary buffer; IO[str] does not say so
            env.stdout.flush()
            return
        text = resource_result_text(result)
    elif method == "prompts/get":
        text = prompt_result_text(result)
    elif method == "tools/call":
        text = tool_result_text(result)
    else:
        text = dumps_safe(result, indent=2)
    if text:
        env.out(text)


def note_outcome(env: Environment, method: str, result: dict[str, Any], code: int) -> None:
    """At a terminal, say on stderr why a finished request exits non-zero (the result itself
    was printed as usual), so a person sees more than the exit code `code`: a tool result
    with `isError: true` (exit 1), or an input request that was declined or cancelled
    (exit 6). Nothing is written when stderr is not a terminal (scripts have the exit code)."""
    is_error = method == "tools/call" and result.get("isError") is True
    if not env.stderr_isatty or not (is_error or code == 6):
        return
    from rich.text import Text  # noqa: PLC0415 - lazy for start-up time

    from mrtr_cli.render.color import console  # noqa: PLC0415 - lazy for start-up time

    line = Text("mrtr: ")
    if is_error:
        line.append("error:", style="bold red")
        line.append(f" the tool reported an error (isError: true in its result); exit {code}")
    else:
        line.append("declined:", style="bold yellow")
        line.append(f" an input request was declined or cancelled, and the server finished without "
                    f"that answer (the result above); exit {code}")
    try:
        env.stdout.flush()
        console(env, env.stderr, soft_wrap=True).print(line)
    except (BrokenPipeError, ValueError):
        pass
