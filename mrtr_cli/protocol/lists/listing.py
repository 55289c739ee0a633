"""Paginated list methods (2026-07-28 server/utilities/pagination).

`tools/list`, `prompts/list`, `resources/list`, `resources/templates/list` (and the
2025-11-25 `tasks/list`) are followed through every page: a missing `nextCursor` ends the list, an empty
string is a valid cursor and does not.
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.errors import ProtocolError
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.session import Session
from mrtr_cli.render.sanitize import quote_value

LIST_MEMBER = {
    "tools/list": "tools",
    "prompts/list": "prompts",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
    "tasks/list": "tasks",  # 2025-11-25 core tasks (legacy sessions)
    "skills/list": "skills",  # the skills extension (SEP-2640)
}
MAX_PAGES = 10_000


def list_all(session: Session, method: str, *, deadline: Deadline | None = None,
             capabilities: dict[str, Any] | None = None) -> tuple[list[Any], list[dict[str, Any]]]:
    """Fetch every page of a list method, declaring `capabilities` (default: what the
    session declares for that list, `Session.capabilities_for`).

    Returns:
        (items, pages): all items in order, and each page's result as sent.

    Raises:
        ProtocolError: a page without the list member, a repeated cursor loop, or too many pages.
        JsonRpcError / TransportError: from the session.
    """
    member = LIST_MEMBER[method]
    items: list[Any] = []
    pages: list[dict[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        params: dict[str, Any] = {} if cursor is None else {"cursor": cursor}
        asked = capabilities if capabilities is not None else session.capabilities_for(method)
        result = session.request(method, params, deadline=deadline, capabilities=asked)
        page = result.get(member)
        if not isinstance(page, list):
            raise ProtocolError(f"the server's {method} result has no {member!r} list")
        items.extend(page)
        pages.append(result)
        cursor = result.get("nextCursor")
        if cursor is None:
            return items, pages
        if not isinstance(cursor, str):
            raise ProtocolError(f"the server's {method} nextCursor is not a string")
        if cursor in seen:
            raise ProtocolError(f"the server's {method} pagination repeats cursor {quote_value(cursor)}")
        seen.add(cursor)
    raise ProtocolError(f"the server's {method} list has more than {MAX_PAGES} pages")
