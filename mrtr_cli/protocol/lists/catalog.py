"""The server's tool list as a client needs it: cached, filtered, and mirrored into headers.

- `tools/list` is fetched through every page once per run and kept in the list
  cache (`listcache`) per server, honouring `ttlMs` and `cacheScope`
  (server/utilities/caching). A fresh cached list saves the round trip; a cached
  list that does not know a tool is re-fetched once before the tool is called unknown.
- On Streamable HTTP, tools whose `x-mcp-header` annotations are invalid are left
  out of the list (basic/transports/streamable-http, "x-mcp-header"); `excluded`
  says which and why (`mrtr tools` prints it as a warning, `-v` notes it always).
- For each `tools/call`, the `Mcp-Param-{Name}` headers are computed from the
  tool's annotations and the call's arguments; when the server answers `-32020`
  (HeaderMismatch) the list is fetched again and the request retried once, if the
  new list changes the headers.

The session calls `headers_for` and `refresh_after_mismatch` (its `param_headers`
hook); the transport never learns about any of this.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from mrtr_cli.errors import JsonRpcError, UsageError
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.headers import invalid_x_mcp_header, param_headers, x_mcp_header_map
from mrtr_cli.protocol.lists.cache import ListCache
from mrtr_cli.protocol.lists.listing import LIST_MEMBER, list_all
from mrtr_cli.protocol.session import Session
from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, one_line, quote_value


def fetch_list(session: Session, method: str, cache: ListCache | None, *,
               deadline: Deadline | None = None) -> tuple[list[Any], list[dict[str, Any]]]:
    """Fetch every page of a list method and store the pages in `cache` (if any).

    Returns:
        (items, pages) as `list_all` gives them.

    Raises:
        JsonRpcError / ProtocolError / TransportError: from the session.
    """
    started = time.time()  # conservative: each page counts as received when the walk began
    items, pages = list_all(session, method, deadline=deadline)
    if cache is not None:
        cache.put(method, pages, [started] * len(pages))
    return items, pages


def cached_list(session: Session, method: str, cache: ListCache | None, *, deadline: Deadline | None = None,
                refresh: bool = False) -> tuple[list[Any], list[dict[str, Any]], bool]:
    """A list from a fresh cache entry (same server, authorization context and declared
    capabilities), else fetched (`fetch_list`); `refresh=True` always fetches.

    Returns:
        (items, pages, from_cache).

    Raises:
        as `fetch_list`.
    """
    entry = cache.get(method) if cache is not None and not refresh else None
    if entry is not None and entry.fresh():
        member = LIST_MEMBER[method]
        items = [x for p in entry.pages if isinstance(xs := p.get(member), list) for x in xs]
        return items, entry.pages, True
    items, pages = fetch_list(session, method, cache, deadline=deadline)
    return items, pages, False


def check_prompt_request(session: Session, cache: ListCache | None, name: str, arguments: dict[str, Any], *,
                         deadline: Deadline | None = None, partial: bool = False) -> None:
    """Check `prompts/get NAME` with `arguments` against the server's `prompts/list`
    (schema/prompt_arguments.py) before it is sent. A cached list that does not know the
    prompt, or rejects the arguments, is fetched again once. A server that does not
    answer `prompts/list` gets the request unchecked. `partial`: only the names are
    checked (`completion/complete`, where required arguments may not be typed yet).

    Raises:
        UsageError: unknown prompt, unknown argument, missing required argument (exit 2).
    """
    from mrtr_cli.schema.prompt_arguments import check_prompt_arguments, unknown_prompt  # noqa: PLC0415 - lazy for start-up time

    refresh = False
    while True:
        try:
            prompts, _, from_cache = cached_list(session, "prompts/list", cache, deadline=deadline, refresh=refresh)
        except JsonRpcError as err:
            session.tracer.note(f"prompts/list failed ({one_line(err.message, SERVER_TEXT_CHARS)}); "
                                "prompt arguments stay unchecked")
            return
        prompt = next((p for p in prompts if isinstance(p, dict) and p.get("name") == name), None)
        try:
            if prompt is None:
                raise unknown_prompt(name, prompts)
            check_prompt_arguments(name, prompt, arguments, partial=partial)
            return
        except UsageError:
            if not from_cache:
                raise
        session.tracer.note("the cached prompt list rejects this request; fetching it again")
        refresh = True


class ToolCatalog:
    """The tools of one server for one run.

    Args:
        session: the open session.
        cache: the server's list cache, or None for no caching.
        exclude_invalid: leave out tools with invalid `x-mcp-header` annotations
            (MUST on Streamable HTTP; stdio MAY ignore the annotation).
        deadline: makes the deadline for a list walk.

    Attributes:
        from_cache: the current list came from the cache (not fetched this run).
        excluded: `{tool name: reason}` for tools left out.
        available: False when the server does not answer `tools/list` at all.
    """

    def __init__(self, session: Session, cache: ListCache | None, *, exclude_invalid: bool,
                 deadline: Callable[[], Deadline]):
        self.session = session
        self.cache = cache
        self.exclude_invalid = exclude_invalid
        self._deadline = deadline
        self._tools: list[dict[str, Any]] | None = None
        self._maps: dict[str, dict[tuple[str, ...], str]] = {}
        self.pages: list[dict[str, Any]] = []
        self.from_cache = False
        self.excluded: dict[str, str] = {}
        self.available = True
        self._lock = threading.RLock()  # `mrtr batch` lines share one catalog: one fetch at a time

    # ------------------------------------------------------------------ the list
    def load(self, *, refresh: bool = False) -> list[dict[str, Any]]:
        """The valid tools: from this run, else a fresh cache entry, else fetched.

        `refresh=True` always fetches (and updates the cache). Safe to call from several
        threads: one fetches, the others wait for its list.

        Raises:
            JsonRpcError / ProtocolError / TransportError: fetching failed.
        """
        tools = self._tools
        if tools is not None and not refresh:
            return tools
        with self._lock:
            if self._tools is not None and (not refresh or self._tools is not tools):
                return self._tools  # another thread loaded (or refreshed) it meanwhile
            return self._load(refresh)

    def _load(self, refresh: bool) -> list[dict[str, Any]]:
        items, pages, self.from_cache = cached_list(self.session, "tools/list", self.cache, refresh=refresh,
                                                    deadline=self._deadline())
        self.pages = pages
        self._set(items)
        assert self._tools is not None
        return self._tools

    def _set(self, items: list[Any]) -> None:
        self._maps = {}
        self.excluded = {}
        tools = []
        for tool in items:
            if not isinstance(tool, dict):
                continue
            reason = invalid_x_mcp_header(tool.get("inputSchema")) if self.exclude_invalid else None
            if reason is not None:
                name = str(tool.get("name"))
                self.excluded[name] = reason
                self.session.tracer.note(f"leaving out tool {quote_value(name)}: "
                                         f"invalid x-mcp-header ({one_line(reason, SERVER_TEXT_CHARS)})")
                continue
            tools.append(tool)
        self._tools = tools

    def find(self, name: str) -> dict[str, Any] | None:
        """The tool called `name`, re-fetching once when a cached list does not have it."""
        for tool in self.load():
            if tool.get("name") == name:
                return tool
        if self.from_cache:
            for tool in self.load(refresh=True):
                if tool.get("name") == name:
                    return tool
        return None

    def unknown(self, name: str) -> UsageError:
        """The error for a tool the server does not list, with a "did you mean" hint."""
        names = [str(t.get("name")) for t in self._tools or []]
        if name in self.excluded:
            return UsageError(f"tool {quote_value(name)} is not usable over HTTP: its definition has an invalid "
                              f"x-mcp-header annotation", hint=one_line(self.excluded[name], SERVER_TEXT_CHARS))
        from mrtr_cli.protocol.capabilities.declared import hidden_note  # noqa: PLC0415 - only for an unlisted tool
        from mrtr_cli.schema.prompt_arguments import unknown_name  # noqa: PLC0415 - lazy for start-up time

        return unknown_name("tool", name, names, hidden=hidden_note("tools", self.session.capabilities,
                                                                     self.session.declared_once() is not None))

    # ------------------------------------------------------------------ headers (session hook)
    def headers_for(self, method: str, params: Mapping[str, object] | None) -> dict[str, str]:
        """`Mcp-Param-*` headers for one request (only `tools/call` has any).

        The list is loaded on first use; if the server does not answer `tools/list`
        the call goes without parameter headers.
        """
        if method != "tools/call" or not isinstance(params, dict) or not self.available:
            return {}
        name = params.get("name")
        try:
            tools = self.load()
        except JsonRpcError as err:
            self.available = False
            self.session.tracer.note(f"tools/list failed ({one_line(err.message, SERVER_TEXT_CHARS)}); "
                                     "no Mcp-Param headers")
            return {}
        if name not in self._maps:
            tool = next((t for t in tools if t.get("name") == name), None)
            self._maps[str(name)] = x_mcp_header_map(tool.get("inputSchema")) if tool else {}
        return param_headers(self._maps[str(name)], params.get("arguments"))

    def refresh_after_mismatch(self, method: str, params: dict[str, Any] | None) -> bool:
        """After a `-32020` HeaderMismatch: fetch the list again; True when the request's
        headers changed (so a retry can succeed)."""
        if method != "tools/call":
            return False
        before = self.headers_for(method, params)
        try:
            self.load(refresh=True)
        except JsonRpcError:
            return False
        return self.headers_for(method, params) != before
