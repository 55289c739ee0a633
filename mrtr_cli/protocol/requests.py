"""The method and params of one MRTR-capable request from a command's words: `call TOOL`
(tools/call), `prompt NAME` (prompts/get), `read URI` (resources/read), also a line of
`mrtr batch`; and `origin_of`, how a request is named to people.

A 2025-11-25 server may ask its questions while answering the list a command fetches
first (`tools/list` before a `call`): what nobody could answer then is pending for the
command (its pending document names `call TOOL`, which starts it again), not for the list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mrtr_cli.errors import InputRequired, UsageError
from mrtr_cli.protocol.run import ProtocolRun


def origin_of(method: str, params: Mapping[str, object]) -> str:
    """A short description of a request for people: "tools/call update_work_item"."""
    subject = params.get("name") if method != "resources/read" else params.get("uri")
    return f"{method} {subject}" if subject is not None else method


def request_params(run: ProtocolRun, session: Any, command: str, subject: str, items: list[Any] | None = None,
                   base: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """The method and params of `call TOOL`, `prompt NAME` or `read URI`: tool arguments
    typed by the tool's `inputSchema` and validated (`schema.toolargs.tool_arguments`) and,
    on a 2025-11-25 server, the `task` member (`run.task_field`); prompt arguments
    as given (strings), checked against `prompts/list` unless `--no-validate`
    (`protocol.lists.catalog.check_prompt_request`); a resource's URI, or a resource template's
    expanded with `items` (`protocol.lists.templates.expand`).

    Args:
        run: the run (options, tracer, its tool catalog and list cache).
        session: the open `protocol.session.Session`.
        command: "call", "prompt" or "read".
        subject: the tool or prompt name, or the resource URI.
        items: parsed `key=value` items (`schema.arguments.parse_item`).
        base: an arguments object (`--args`, or a batch line's `arguments`).

    Raises:
        UsageError: as `tool_arguments` and `schema.arguments.build_arguments` raise (exit 2).
    """
    if command == "read":
        if items:  # `read TEMPLATE NAME=VALUE...`: the variables of a resource template
            from mrtr_cli.protocol.lists.templates import expand, is_template  # noqa: PLC0415 - lazy for start-up time
            from mrtr_cli.schema.arguments import build_arguments  # noqa: PLC0415 - lazy for start-up time
            from mrtr_cli.schema.prompt_arguments import require_strings  # noqa: PLC0415 - lazy for start-up time

            if not is_template(subject):
                raise UsageError(f"{subject} is not a URI template, so NAME=VALUE items have nothing to fill",
                                 hint="give a template with {variables}, e.g. 'repo://{owner}/{name}'")
            subject = expand(subject, require_strings(build_arguments(items, None, None), "template variable"))
        return "resources/read", {"uri": subject}
    if command == "call":
        try:
            return "tools/call", _call_params(run, session, subject, items, base)
        except InputRequired as exc:  # asked while listing the tools
            raise _pending_for(exc, "tools/call", subject, items, base) from None
    from mrtr_cli.schema.arguments import build_arguments  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.schema.prompt_arguments import require_strings  # noqa: PLC0415 - lazy for start-up time

    params: dict[str, Any] = {"name": subject}
    arguments = require_strings(build_arguments(items or [], base, None), "prompt argument")
    if not run.opts.no_validate:  # checked against prompts/list as tool arguments are against tools/list
        from mrtr_cli.protocol.lists.catalog import check_prompt_request  # noqa: PLC0415 - lazy for start-up time

        try:
            check_prompt_request(session, run.list_cache(), subject, arguments or {}, deadline=run.deadline())
        except InputRequired as exc:  # asked while listing the prompts
            raise _pending_for(exc, "prompts/get", subject, items, base) from None
    if arguments:
        params["arguments"] = arguments
    return "prompts/get", params


def _call_params(run: ProtocolRun, session: Any, subject: str, items: list[Any] | None,
                 base: dict[str, Any] | None) -> dict[str, Any]:
    """The params of `call TOOL` (`request_params`)."""
    from mrtr_cli.schema.toolargs import tool_arguments  # noqa: PLC0415 - lazy for start-up time

    catalog = run.catalog(session)
    call_params = {"name": subject, "arguments": tool_arguments(catalog, subject, items or [], base,
                                                           no_validate=run.opts.no_validate,
                                                           note=run.tracer.note, places=run.env.places,
                                                           secret=run.env.add_secret)}
    task = run.task_field(session, subject, catalog)  # 2025-11-25 task augmentation
    if task is not None:
        call_params["task"] = task
    return call_params


def _pending_for(exc: InputRequired, method: str, subject: str, items: list[Any] | None,
                 base: dict[str, Any] | None) -> InputRequired:
    """`exc`, raised while a list was fetched for the command `method` `subject`, made the
    command's: its pending document names the command (`method`, `{name, arguments}` as
    given, untyped: the list that types them was not had) instead of the list, whose
    `result` it leaves out. A document already naming `method` is returned as it is."""
    doc = dict(exc.pending)
    if doc.get("method") == method:
        return exc
    from mrtr_cli.schema.arguments import build_arguments  # noqa: PLC0415 - lazy for start-up time

    params: dict[str, Any] = {"name": subject}
    try:
        arguments = build_arguments(items or [], base, None)
    except UsageError:
        arguments = dict(base or {})
    if arguments:
        params["arguments"] = arguments
    doc.pop("result", None)
    doc["method"], doc["params"] = method, params
    return InputRequired(exc.message, doc)
