"""Text views of what a server offers: list tables, one tool in detail, server/discover.

For people only: `--json` prints the server's objects as sent instead. On a terminal
a list is a `rich` table (wrapped to the width); to a pipe it is plain aligned
columns without a header, one item per line, first column the name. Every server
string is sanitised (`render.sanitize`) and never read as markup.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mrtr_cli.env import Environment
from mrtr_cli.render.color import console as styled_console
from mrtr_cli.render.sanitize import sanitize, short_number


def one_line(value: object, limit: int | None = None) -> str:
    """The first line of a server string, sanitised (empty for None)."""
    if value is None:
        return ""
    text = str(value).strip().splitlines()[0] if str(value).strip() else ""
    text = sanitize(text, single_line=True)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def print_table(env: Environment, headers: list[str], rows: list[list[str]]) -> None:
    """Print rows (already sanitised strings): a table on a terminal, aligned columns otherwise."""
    if not rows:
        return
    if env.stdout_isatty:
        from rich.table import Table  # noqa: PLC0415 - lazy: startup time
        from rich.text import Text  # noqa: PLC0415 - lazy for start-up time

        table = Table(box=None, header_style="bold", pad_edge=False, show_edge=False)
        for i, name in enumerate(headers):
            table.add_column(name, no_wrap=i == 0, overflow="fold", ratio=2 if i == len(headers) - 1 else None)
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))
        styled_console(env, env.stdout, soft_wrap=False).print(table)
        return
    widths = [max(len(row[i]) for row in rows) for i in range(len(headers) - 1)]
    for row in rows:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])] + [row[-1]]
        env.out("  ".join(cells).rstrip())


# ---------------------------------------------------------------------- schemas
def type_label(schema: object) -> str:
    """A short type name for a property schema: `string`, `integer`, `array of string`,
    `string | null`, `enum`, `object`..."""
    if not isinstance(schema, dict):
        return "any"
    t = schema.get("type")
    if isinstance(t, list):
        return " | ".join(str(x) for x in t)
    if t == "array":
        items = schema.get("items")
        return f"array of {type_label(items)}" if isinstance(items, dict) else "array"
    if isinstance(t, str):
        return t
    for combo in ("anyOf", "oneOf"):
        branches = schema.get(combo)
        if isinstance(branches, list) and branches:
            return " | ".join(dict.fromkeys(type_label(b) for b in branches))
    if "enum" in schema:
        return "enum"
    if "const" in schema:
        return "const"
    if "$ref" in schema:
        return sanitize(str(schema["$ref"]).rsplit("/", 1)[-1], single_line=True)
    return "any"


def parameter_paths(schema: object, prefix: tuple[str, ...] = (), depth: int = 0
                    ) -> list[tuple[tuple[str, ...], dict[str, Any], bool]]:
    """`(key path, property schema, required)` for each property, nested objects expanded
    (three levels below the top at most); `required` means required by its own parent
    object. A path keeps each name whole: a property named `x.y` is `("x.y",)`."""
    out: list[tuple[tuple[str, ...], dict[str, Any], bool]] = []
    if not isinstance(schema, dict):
        return out
    props = schema.get("properties")
    required = raw_required if isinstance(raw_required := schema.get("required"), list) else []
    if not isinstance(props, dict):
        return out
    for name, prop in props.items():
        prop = prop if isinstance(prop, dict) else {}
        path = (*prefix, str(name))
        out.append((path, prop, name in required))
        if prop.get("type") == "object" and isinstance(prop.get("properties"), dict) and depth < 3:
            out.extend(parameter_paths(prop, path, depth + 1))
    return out


def flatten_parameters(schema: object) -> list[tuple[str, dict[str, Any], bool]]:
    """`(dotted name, property schema, required)` for each property (`parameter_paths`, each
    path joined with dots, as `KEY=VALUE` items name them)."""
    return [(".".join(path), prop, required) for path, prop, required in parameter_paths(schema)]


def _property_text(name: str, prop: dict[str, Any]) -> str:
    """A property's description, else its title unless that only repeats the name
    (as generated titles do: `workItemId` -> "Workitemid")."""
    if prop.get("description"):
        return one_line(prop["description"])
    title = prop.get("title")
    plain = "".join(c for c in str(title or "").lower() if c.isalnum())
    if not title or plain == "".join(c for c in name.rsplit(".", 1)[-1].lower() if c.isalnum()):
        return ""
    return one_line(title)


def example_value(schema: dict[str, Any]) -> tuple[object, str]:
    """A value for a property in an example call: its `default`, `const`, first `enum` value
    or first example (a scalar), as JSON and as the text of `KEY=VALUE`; else a placeholder
    naming its type (`<string>`, for an array its items' type), as both."""
    for key in ("default", "const"):
        if key in schema and not isinstance(schema[key], dict | list):
            return schema[key], _as_item_text(schema[key])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0], _as_item_text(schema["enum"][0])
    examples = schema.get("examples")
    if isinstance(examples, list) and examples and not isinstance(examples[0], dict | list):
        return examples[0], _as_item_text(examples[0])
    label = type_label(schema)
    if label.startswith("array of "):
        label = label[len("array of "):]
    return f"<{label}>", f"<{label}>"


def _schema_value(value: object) -> str:
    """A value of a tool's schema (a `default`, an `enum` value, a `minimum`) as a tool's
    description shows it: its JSON, a number by `short_number` (a long integer as its first
    digits and its length)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return short_number(value)
    return json.dumps(value, ensure_ascii=False)


def _as_item_text(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value)


def describe_tool(tool: dict[str, Any], example: str, *, lead: str = "") -> str:
    """A person's view of one tool: title, description, parameters, headers, hints, example.
    `example`: the example call (`schema.example.example_call`); `lead`: a line said before
    the example ("" for none; `credentials.url_in_command`'s, for a URL with credentials)."""
    lines = []
    name = sanitize(str(tool.get("name")), single_line=True)
    annotations = raw_annotations if isinstance(raw_annotations := tool.get("annotations"), dict) else {}
    title = tool.get("title") or annotations.get("title")
    lines.append(f"{name}" + (f" — {one_line(title)}" if title else ""))
    description = tool.get("description")
    if isinstance(description, str) and description.strip():
        lines.append("")
        lines.extend("  " + sanitize(line) for line in description.strip().splitlines())
    schema = tool.get("inputSchema")
    params = parameter_paths(schema)
    lines.append("")
    if not params:
        lines.append("Parameters: none")
    else:
        lines.append("Parameters:")
        rows = []
        for path, prop, required in params:
            dotted, parent = ".".join(path), ".".join(path[:-1])  # `x.y` of `x`, or a name holding a dot
            facts = [("required" + (f" in {parent}" if parent else "")) if required else "optional"]
            if "default" in prop:
                facts.append("default " + _schema_value(prop["default"]))
            enum = prop.get("enum")
            if enum is None and isinstance(prop.get("items"), dict):
                enum = prop["items"].get("enum")
            if isinstance(enum, list):
                facts.append("one of " + ", ".join(_schema_value(v) for v in enum))
            for key, word in (("minimum", ">="), ("maximum", "<="), ("minLength", "min length"),
                              ("maxLength", "max length"), ("pattern", "pattern"), ("format", "format")):
                if key in prop:
                    value = prop[key]
                    facts.append(f"{word} {_schema_value(value) if key not in ('pattern', 'format') else value}")
            if "x-mcp-header" in prop:
                facts.append(f"header Mcp-Param-{prop['x-mcp-header']}")
            rows.append((sanitize(dotted, single_line=True), sanitize(type_label(prop), single_line=True),
                         sanitize("; ".join(facts), single_line=True), _property_text(dotted, prop)))
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        for row in rows:
            text = "  " + "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:3]))
            lines.append((text + ("  " + row[3] if row[3] else "")).rstrip())
    hints = [word for key, word in (("readOnlyHint", "read-only"), ("destructiveHint", "destructive"),
                                     ("idempotentHint", "idempotent"), ("openWorldHint", "open world"))
             if annotations.get(key) is True]
    if hints:
        lines.append("")
        lines.append("Hints: " + ", ".join(hints))
    if isinstance(tool.get("outputSchema"), dict):
        lines.append("Output: structured (outputSchema: "
                     + sanitize(type_label(tool["outputSchema"]), single_line=True) + ")")
    execution = tool.get("execution")
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    if support in ("required", "optional"):  # 2025-11-25 execution.taskSupport
        lines.append("Tasks: " + ("required (always runs as a task)" if support == "required"
                                  else "optional (--task runs it as a task)"))
    lines.append("")
    lines.append("Example:")
    if lead:
        lines.append("  " + sanitize(lead.rstrip(), single_line=True))
    lines.append("  " + example)
    return "\n".join(lines)


def describe_discover(result: dict[str, Any], speaking: str | None, era: str = "modern", *,
                      skills: str | None = None, listen: Sequence[str] = ()) -> str:
    """A person's view of a `server/discover` result (2026-07-28 section 1.5), or with
    `era="legacy"` of an older server's `InitializeResult` (2025-11-25 basic/lifecycle).

    `skills`: the skills extension the capabilities declare (`mrtr skills`), or None;
    `listen`: what `mrtr listen` can watch there (`protocol.features.listen.listenable`). The
    caller reads both from the capabilities: the protocol's rules sit above this layer."""
    if era == "legacy":
        lines = [f"Era:           legacy (initialize handshake, MCP {one_line(speaking)})"]
        info = result.get("serverInfo")
    else:
        lines = [f"Era:           modern (per-request metadata, MCP {one_line(speaking)})"]
        meta = raw_meta if isinstance(raw_meta := result.get("_meta"), dict) else {}
        info = meta.get("io.modelcontextprotocol/serverInfo")
    if isinstance(info, dict):
        who = one_line(info.get("title") or info.get("name"))
        if info.get("title") and info.get("name"):
            who += f" ({one_line(info.get('name'))})"
        if info.get("version"):
            who += f" {one_line(info.get('version'))}"
        lines.append(f"Server:        {who}")
        if info.get("description"):
            lines.append(f"               {one_line(info.get('description'))}")
        if info.get("websiteUrl"):
            lines.append(f"Website:       {one_line(info.get('websiteUrl'))}")
    versions = result.get("supportedVersions")
    if isinstance(versions, list):
        shown = ", ".join(one_line(v) for v in versions)
        lines.append(f"Versions:      {shown}" + (f" (speaking {speaking})" if speaking else ""))
    caps = result.get("capabilities")
    if isinstance(caps, dict):
        lines.append("Capabilities:" + ("" if caps else "  none"))
        for key, value in caps.items():
            detail = ""
            if isinstance(value, dict) and value:
                if key == "extensions":
                    detail = ", ".join(one_line(k) for k in value)
                else:
                    detail = ", ".join(one_line(k) + ("" if v is True else f"={json.dumps(v)}")
                                       for k, v in value.items() if v is not False)
            lines.append(f"  {one_line(key)}" + (f": {detail}" if detail else ""))
    lines.extend(_supports(skills, listen))
    if "ttlMs" in result or "cacheScope" in result:
        lines.append(f"Cache:         ttlMs {one_line(result.get('ttlMs'))}, {one_line(result.get('cacheScope'))}")
    instructions = result.get("instructions")
    if isinstance(instructions, str) and instructions.strip():
        lines.append("Instructions:")
        lines.extend("  " + sanitize(line) for line in instructions.strip().splitlines())
    return "\n".join(lines)


def _supports(skills: str | None, watch: Sequence[str]) -> list[str]:
    """The `Skills:` and `Listen:` lines of `describe_discover`: whether the server declares
    the skills extension (`mrtr skills`) and what `mrtr listen` can watch there."""
    return [f"Skills:        {'yes (' + skills + '): mrtr skills' if skills else 'no'}",
            f"Listen:        "
            f"{', '.join(watch) + ': mrtr listen' if watch else 'nothing (no listChanged, no subscribe)'}"]
