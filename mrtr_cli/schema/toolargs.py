"""Typing a call's tool arguments by the tool's `inputSchema` (docs/design.md, "Command shape":
`zip=02134` stays the string "02134" when the schema says string), and checking them
against it before anything is sent (schema/arguments.py does the typing and validation).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mrtr_cli.errors import JsonRpcError, UsageError
from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, one_line

if TYPE_CHECKING:
    from mrtr_cli.credentials import SecretPlaces


def tool_arguments(catalog: Any, name: str, items: list[Any], base: dict[str, Any] | None, *,
                   no_validate: bool = False, note: Callable[[str], None] | None = None,
                   places: SecretPlaces | None = None,
                   secret: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The `arguments` of `tools/call NAME`: `items` (parsed `key=value` items,
    `schema.arguments.parse_item`) over `base` (an arguments object), typed by the tool's
    `inputSchema` and validated against it. The tool list comes from `catalog` (a
    `protocol.lists.catalog.ToolCatalog`: the list cache when fresh); a cached schema that rejects
    the arguments is fetched again once. When the tool list cannot be had, the arguments
    stay untyped and unchecked (`note` says why, for `-v`).

    Args:
        no_validate: `call --no-validate`: each item typed where the schema allows, sent regardless.
        places: the run's secret places (`Environment.places`): the tool's secret arguments
            are noted there, so that their values are never written (`-v`, `--trace`).
        secret: registers a secret of the run (`Environment.add_secret`): called with each
            text of a secret argument's value (`credentials.secret_texts`), so that it is
            `***` in every diagnostic, a server's error message quoting it included.

    Raises:
        UsageError: unknown tool ("did you mean"), an item that cannot be typed, or arguments
            that fail the schema (exit 2; nothing is sent).
    """
    from mrtr_cli.schema.arguments import build_arguments, validate_arguments  # noqa: PLC0415 - lazy for start-up time

    say = note or (lambda text: None)

    def noted(arguments: dict[str, Any], tool: dict[str, Any] | None) -> dict[str, Any]:
        """`arguments`, its secret members noted in `places` and the texts of its secret
        values registered with `secret` (schema/secrecy.py)."""
        from mrtr_cli.credentials import secret_texts, secret_values  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.schema.secrecy import name_matches, secret_arguments  # noqa: PLC0415 - lazy for start-up time

        schema = tool.get("inputSchema") if tool else None
        if places is not None and tool is not None:
            places.note_tool(name, secret_arguments(arguments, schema))
        if secret is not None:
            for found in secret_values(arguments, schema, name_matches):
                for text in secret_texts(found):
                    secret(text)
        return arguments

    try:
        tool = catalog.find(name)
    except JsonRpcError as err:
        say(f"tools/list failed ({one_line(err.message, SERVER_TEXT_CHARS)}); arguments stay untyped and unchecked")
        return noted(build_arguments(items, base, None), None)

    def typed(tool: dict[str, Any] | None) -> dict[str, Any]:
        if no_validate:
            return noted(build_arguments(items, base, tool.get("inputSchema") if tool else None, lenient=True), tool)
        if tool is None:
            raise catalog.unknown(name)
        arguments = noted(build_arguments(items, base, tool.get("inputSchema")), tool)
        validate_arguments(arguments, tool.get("inputSchema"), name)
        return arguments


    try:
        return typed(tool)
    except UsageError:
        if not catalog.from_cache:
            raise
    say("the cached tool list rejects these arguments; fetching it again")
    catalog.load(refresh=True)
    return typed(catalog.find(name))
