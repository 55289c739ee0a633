"""Pending documents: what a call that stopped for input (exit 5) needs to finish.

docs/design.md, "Pending documents". The document names the target (never headers or tokens),
the protocol version, the original method and params, the server's
`inputRequests` and exact `requestState`, the keys still `missing`, and an
`answersTemplate` that is itself an answer file once its nulls are filled in
(its `_fields` member, ignored when read back, describes each field: type,
required, allowed values, default).

No secret form field (`credentials.is_secret_field`) is written: `answered`,
`sentResponses` and the template hold `null` in its place, and stderr names each one
(engine/withheld.py; docs/answers.md, "Secrets"). Nor is a secret tool argument: it is
left out of `params.arguments` and named in `withheld` (`mrtr resume` asks for it again).

A server speaking a handshake-era version (2025-11-25 and earlier) asks during the
call, so its documents say `"era": "legacy", "resumable": false` (plus the server's
`result` or `error`); reading one back (engine/resume.py `load_pending`) refuses them:
the call is run again instead.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, TypedDict

from mrtr_cli.credentials import secret_properties
from mrtr_cli.engine.withheld import (
    SecretFields,
    Withheld,
    arguments_without_secrets,
    prefill_without_secrets,
    responses_without_secrets,
    withheld_member,
    withheld_notes,
)
from mrtr_cli.jsonfile import dumps_utf8
from mrtr_cli.platform.fileopen import BINARY

PENDING_FORMAT = "pending/1"


class _AnswersTemplateBase(TypedDict):
    _help: str
    inputResponses: dict[str, object]


class AnswersTemplate(_AnswersTemplateBase, total=False):
    """`answersTemplate` of a pending document (docs/answers.md): an answer file once its
    nulls are filled in. `inputResponses`: key -> the template entry of the request's kind
    (responders/kinds/ `Kind.template`: an `ElicitResult`, `CreateMessageResult` or
    `ListRootsResult` with `null`s); `_fields`: key -> its kind's help (`Kind.template_help`:
    a form's fields, a URL note). Members starting with `_` are ignored when read back."""

    _fields: dict[str, dict[str, object]]


class PendingDocument(TypedDict, total=False):
    """What `build_pending` writes (docs/answers.md, "Pending documents"; format
    `PENDING_FORMAT`), its members in the order written. Always there: `mrtr`, `createdAt`,
    `target`, `protocolVersion`, `method`, `params`, `inputRequests`, `missing`,
    `answersTemplate` (`total=False` only so that the document is built member by member,
    in that order). `target`, `params` and `inputRequests` are kept as they came (the
    user's target, the call's params, the server's requests: not checked here), less
    the secret tool arguments, which `withheld` names (engine/withheld.py).
    `requestState` only when the server sent one, echoed exactly; `taskId` for a task's
    questions; `answered` / `sentResponses`: `inputResponses` already given (this round,
    earlier rounds); `rejected` and `explanation`: answers a server refused and why
    (engine/mrtr.py). A document read back (`load_pending`) is a file from anywhere, not
    this type."""

    mrtr: str
    createdAt: str
    target: dict[str, Any]
    protocolVersion: str
    method: str
    params: dict[str, Any]
    withheld: Withheld
    taskId: str
    inputRequests: dict[str, Any]
    requestState: str
    missing: list[str]
    answered: dict[str, Any]
    sentResponses: dict[str, Any]
    answersTemplate: AnswersTemplate | dict[str, object]
    rejected: dict[str, Any]
    explanation: str


TEMPLATE_HELP = (
    "Replace each null with an answer (_fields gives each field's type, whether it is required and its "
    "allowed values); an optional field may stay null. To refuse a request, replace its whole value with "
    "{\"action\": \"decline\"} (or \"cancel\"). For a URL request, open the URL yourself first."
)


def answers_template(input_requests: dict[str, Any], missing: list[str],
                     prefill: dict[str, dict[str, Any]] | None = None) -> AnswersTemplate:
    """An answer file for the `missing` keys: `inputResponses` with `null` where an answer
    goes, `_fields` help from each request's kind (a form's fields, the URL of a URL
    request), and a `_help` line. Members starting with `_` are ignored when the file is
    read back."""
    from mrtr_cli.responders.kinds import request_kind  # noqa: PLC0415 - lazy for start-up time

    responses: dict[str, object] = {}
    help_: dict[str, dict[str, object]] = {}
    for key in missing:
        found = request_kind(input_requests.get(key))
        if found is None:
            responses[key] = None
            continue
        kind, params = found
        responses[key] = kind.template(params, (prefill or {}).get(key))
        entry = kind.template_help(params)
        if entry is not None:
            help_[key] = entry
    template: AnswersTemplate = {"_help": TEMPLATE_HELP, "inputResponses": responses}
    if help_:
        template["_fields"] = help_
    return template


def _config_words(doc: Mapping[str, object], config_words: Sequence[str]) -> list[str]:
    """`config_words` (`--config FILE`, `--expand-env`) when the document's target is a
    named server: what a printed command needs after `mrtr` to find that server again."""
    target = raw_target if isinstance(raw_target := doc.get("target"), dict) else {}
    return [*(config_words if target.get("server") and not (target.get("url") or target.get("stdio")) else [])]


def _resume_command(doc: Mapping[str, object], config_words: Sequence[str]) -> str:
    """`mrtr [--config FILE] resume PENDING.json --answers ANSWERS.json` (render/invocation.py)."""
    from mrtr_cli.render.invocation import command_line  # noqa: PLC0415 - lazy for start-up time

    return command_line(["resume"], ["PENDING.json"], ["--answers", "ANSWERS.json"],
                        target=_config_words(doc, config_words)) or "mrtr resume PENDING.json --answers ANSWERS.json"


def url_notes(doc: Mapping[str, object]) -> list[str]:
    """Lines for stderr on each request a pending document leaves unanswered, as its kind
    has them: a URL-mode request's URL (sanitised, with the host a browser would visit and
    the URL's warnings), so that a person can open it themselves; `mrtr` never opens
    anything without a person's consent."""
    from mrtr_cli.responders.kinds import request_kind  # noqa: PLC0415 - lazy for start-up time

    lines: list[str] = []
    requests = raw_requests if isinstance(raw_requests := doc.get("inputRequests"), dict) else {}
    missing = doc.get("missing")
    for key in missing if isinstance(missing, list) else []:
        found = request_kind(requests.get(key))
        if found is not None:
            lines.extend(found[0].pending_notes(key, found[1]))
    return lines


def pending_notes(doc: Mapping[str, object], config_words: Sequence[str] = (), *,
                  hides: Callable[[str], bool] | None = None) -> list[str]:
    """Lines for stderr after a pending document was printed: what to do next.

    `config_words`: the run's `--config FILE` / `--expand-env` (`Environment.config_words`),
    carried by the printed commands when the target is a named server. `hides`: as for
    `start_again_command` (`Environment.hides`, the redaction the lines pass through).

    URLs of URL-mode requests are listed (sanitised) so a person can open them
    themselves; `mrtr` never opens anything without a person's consent.
    """
    lines = url_notes(doc)
    if doc.get("resumable") is False:  # an older server asked during the call: start it again
        lines.append("  this server cannot resume a call: fill in the answersTemplate, then start it again:")
        lines.append("  " + start_again_legacy(doc, config_words, hides=hides))
    elif _target(doc).get("stdio") and doc.get("taskId"):
        # The task lived in the server process, which ended with this run: the call starts
        # again, answered by the template (a replay: inOrder for task-keyed questions).
        lines.append("  the stdio server ended with this run, and its task with it: fill in the answersTemplate "
                     "(it answers the call from the beginning), then start the call again with it:")
        lines.append("  " + start_again_legacy(doc, config_words, hides=hides))
        template = raw_template if isinstance(raw_template := doc.get("answersTemplate"), dict) else {}
        if "inOrder" not in template:  # keyed as asked: a server that keeps its tasks takes them
            lines.append("  or, if the server keeps its tasks (a file, a database): "
                         + _resume_command(doc, config_words))
    elif _target(doc).get("stdio"):
        # The server process (and any state it kept) ended with this run: a resume starts a
        # new one, which goes on only if it accepts the requestState the old one made.
        lines.append("  the stdio server ended with this run: fill in the answersTemplate, then start the call "
                     "again with it (add the answers given before):")
        lines.append("  " + start_again_legacy(doc, config_words, hides=hides))
        lines.append("  or: " + _resume_command(doc, config_words)
                     + "  (starts a new server process: it goes on only "
                     "if the server accepts a requestState made by the one that ended, else exit 4)")
    else:
        lines.append("  save the document, fill in its answersTemplate, then: " + _resume_lead(doc)
                     + _resume_command(doc, config_words))
    lines.append("  e.g.: jq .answersTemplate PENDING.json > ANSWERS.json  (edit the nulls)")
    lines.extend(withheld_arguments_notes(doc))
    return lines


def withheld_arguments_notes(doc: Mapping[str, object]) -> list[str]:
    """A line on the secret arguments the document withheld (its `withheld.arguments`), which
    the commands printed for the next step do not carry: how to give them again (`resume`
    at the terminal or with `-a NAME=VALUE`, a call started again with `NAME=VALUE`); none
    when there are none."""
    from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - lazy for start-up time

    member = doc.get("withheld")
    names = member.get("arguments") if isinstance(member, dict) else None
    if not isinstance(names, list) or not names:
        return []
    listed = ", ".join(sanitize(str(name), single_line=True) for name in names)
    return [f"  the secret arguments not in the document ({listed}): resume asks for them at a terminal or takes "
            "-a NAME=VALUE; a call started again needs them as NAME=VALUE"]


def _target(doc: Mapping[str, object]) -> Mapping[str, object]:
    """The document's `target` object (empty when it is missing or not an object)."""
    target = doc.get("target")
    return target if isinstance(target, dict) else {}


def _resume_lead(doc: Mapping[str, object]) -> str:
    """What a printed `mrtr resume` needs first: for a URL saved without its credentials
    (`u:***@host`), how to give the URL again (`MRTR_URL`); else nothing."""
    url = _target(doc).get("url")
    if not url:
        return ""
    from mrtr_cli.credentials import url_in_command  # noqa: PLC0415 - lazy for start-up time

    return url_in_command(str(url))[1]


def hidden_by_url_rule(text: str) -> bool:
    """Whether the redaction of every diagnostic line masks part of `text` by the URL rule
    alone (`credentials.redact_urls`: a URL's password, its secret-named parameters): the
    default of `start_again_command`'s `hides`."""
    from mrtr_cli.credentials import redact_urls  # noqa: PLC0415 - lazy for start-up time

    return redact_urls(text) != text


def start_again_command(doc: Mapping[str, object], config_words: Sequence[str] = (), *,
                        target_words: bool = True, options: Sequence[str] = (),
                        hides: Callable[[str], bool] | None = None) -> str:
    """The `mrtr` command line that starts the pending call over (target, command, its
    `options`, arguments), built by render/invocation.py `command_line` (quoted, a `--`
    before a name that starts with `-`; inside `mrtr shell` as typed at its prompt);
    `config_words` as for `pending_notes`. Without `target_words`, no target (inside
    `mrtr shell`, whose target is fixed). A call whose name or arguments cannot be shown
    as typed is named in words instead.

    A command printed on stderr passes through its redaction (`Environment.redact`), which
    would mask a value of the user's own (a URL-shaped tool argument with `token=...`), so
    that the command could not work as printed. `hides(text)` says whether it masks part of
    `text` (`Environment.hides`; default `hidden_by_url_rule`): such a value is never put in
    the command; a stand-in is (`--args @ARGS.json`, `read URI`, `--stdio COMMAND`), and a
    note after the command says where in the pending document the value is. A target URL
    with credentials is named by `MRTR_URL` instead (`credentials.url_in_command`).
    """
    from mrtr_cli.render.invocation import command_line, inside_shell  # noqa: PLC0415 - lazy for start-up time

    hidden = hides or hidden_by_url_rule
    notes: list[str] = []

    def shown(value: str, stand_in: str, where: str) -> str:
        if not hidden(value):
            return value
        notes.append(f"{stand_in.lstrip('@')}: {where}")
        return stand_in

    target = found if isinstance(found := doc.get("target"), dict) and target_words else {}
    words = _config_words(doc, config_words) if target_words else []
    lead = ""
    if target.get("url"):
        from mrtr_cli.credentials import url_in_command  # noqa: PLC0415 - lazy for start-up time

        url_words, lead = url_in_command(str(target["url"]))  # a URL saved without its credentials: MRTR_URL
        words += url_words
    elif target.get("stdio"):
        words += ["--stdio", shown(str(target["stdio"]), "COMMAND", "the server's command, the pending "
                                   "document's target.stdio")]
    elif target.get("server"):
        words += ["-s", str(target["server"])]
    params = raw_params if isinstance(raw_params := doc.get("params"), dict) else {}
    method = doc.get("method")
    if method == "resources/read":
        command, operand = ["read"], shown(str(params.get("uri")), "URI", "the resource's URI, the pending "
                                           "document's params.uri")
    else:
        command, operand = ["prompt" if method == "prompts/get" else "call"], str(params.get("name"))
        if params.get("arguments"):
            whole = json.dumps(params["arguments"], ensure_ascii=False, separators=(",", ":"))
            if not whole.isprintable():  # \uXXXX escapes: printed as typed
                whole = json.dumps(params["arguments"], separators=(",", ":"))
            command += ["--args", shown(whole, "@ARGS.json", "a file holding the call's arguments, the pending "
                                        "document's params.arguments, e.g. jq .params.arguments PENDING.json "
                                        "> ARGS.json")]
        if method == "tools/call" and isinstance(params.get("task"), dict):
            command.append("--task")  # it ran as a (2025-11-25) task
    said = f"  ({'; '.join(notes)}; not printed here: it holds a credential)" if notes else ""
    line = command_line(command[:1], [operand], [*command[1:], *options], target=words)
    if line is None:
        return (f"{command[0]} with the {'uri' if command[0] == 'read' else 'name and arguments'} of the pending "
                "document's params (they cannot be shown as typed)")
    return ("" if inside_shell() else lead) + line + said


def start_again_legacy(doc: Mapping[str, object], config_words: Sequence[str] = (), *,
                       hides: Callable[[str], bool] | None = None) -> str:
    """For a document from an older server (`resumable: false`): the command that starts
    the call again in the same protocol version, with the filled-in answers (`hides` as
    for `start_again_command`)."""
    version = doc.get("protocolVersion")
    pin = ["--protocol", str(version)] if version else []
    return start_again_command(doc, config_words, options=[*pin, "--answers", "ANSWERS.json"], hides=hides)


def build_pending(
    *,
    target: dict[str, Any],
    protocol_version: str,
    method: str,
    params: dict[str, Any],
    input_requests: dict[str, Any],
    request_state: str | None,
    missing: list[str],
    answered: dict[str, Any] | None = None,
    prefill: dict[str, dict[str, Any]] | None = None,
    task_id: str | None = None,
    sent_responses: dict[str, Any] | None = None,
    replay: dict[str, Any] | None = None,
    secret_fields: SecretFields | None = None,
    secret_arguments: Mapping[str, Collection[str]] | None = None,
    note: Callable[[str], None] | None = None,
) -> PendingDocument:
    """The pending document (docs/design.md, "Pending documents"); `requestState` only if one came.

    No secret form field is written (engine/withheld.py): those of `input_requests` and
    those `secret_fields` names (input key -> field names: the responder chain's, which
    knows the forms of earlier rounds too) are `null` in `answered`, `sentResponses` and
    `replay`, and left out of the `prefill`; `note` gets one stderr line for each. No
    secret argument of a `tools/call` either (`withheld.arguments_without_secrets`, by
    `secret_arguments`: tool name -> its secret arguments by its `inputSchema`, the run's
    `SecretPlaces.tools`, and by name), nor of a `prompts/get` (by name): each is left out
    of `params.arguments`, named in the `withheld` member, and gets a stderr line through `note`.

    `sentResponses` (when earlier rounds were answered) holds what was sent in them, as
    the `inputResponses` of an answer file: with `answered` and the answers still
    missing, it replays the whole call, and `resume --save-answers` writes it all.

    `replay` (a task over stdio, which ended with the run: the call is started again):
    the answers the task was given before, by key in the order asked. The template then
    replays the call: the task's questions keyed by its own id (`<taskId>:<hash>`, another
    id on the new run) go into `inOrder`, those answered before first (`replay_template`)."""
    secrets = _secret_fields(input_requests, secret_fields or {})
    dropped: list[str] = []
    answered = responses_without_secrets(answered or {}, secrets, dropped)
    sent_responses = responses_without_secrets(sent_responses or {}, secrets, dropped)
    replay = responses_without_secrets(replay, secrets, dropped) if replay is not None else None
    prefill = prefill_without_secrets(prefill or {}, secrets, dropped)
    withheld: list[str] = []
    if method == "tools/call":
        params, withheld = arguments_without_secrets(params, (secret_arguments or {}).get(str(params.get("name")), ()))
    elif method == "prompts/get":  # a prompt's arguments have no schema: secrets by name
        params, withheld = arguments_without_secrets(params, ())
    if note is not None:
        for line in withheld_notes(dropped, "the pending document", "on resume"):
            note(line)
        kind = "prompt" if method == "prompts/get" else "tool"
        for name in withheld:
            note(f"mrtr: {kind} argument {name} is a secret: not written to the pending document; give it again "
                 f"on resume (-a {name}=VALUE, or typed at the terminal)")
    doc: PendingDocument = {
        "mrtr": PENDING_FORMAT,
        "createdAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "target": target,
        "protocolVersion": protocol_version,
        "method": method,
        "params": params,
    }
    if withheld:
        doc["withheld"] = withheld_member(withheld, method)
    if task_id is not None:
        doc["taskId"] = task_id
    doc["inputRequests"] = input_requests
    if request_state is not None:
        doc["requestState"] = request_state
    doc["missing"] = missing
    if answered:
        doc["answered"] = answered
    if sent_responses:
        doc["sentResponses"] = sent_responses
    doc["answersTemplate"] = answers_template(input_requests, missing, prefill)
    if replay is not None and task_id:
        doc["answersTemplate"] = replay_template(doc["answersTemplate"], task_id, replay)
    return doc


def _secret_fields(input_requests: Mapping[str, Any], known: SecretFields) -> dict[str, set[str]]:
    """`known` (input key -> secret field names) with the secret fields of each form in
    `input_requests` (its `requestedSchema`: `credentials.secret_properties`) added."""
    out = {key: set(names) for key, names in known.items()}
    for key, request in input_requests.items():
        params = request.get("params") if isinstance(request, dict) else None
        names = secret_properties(params.get("requestedSchema") if isinstance(params, dict) else None)
        if names:
            out.setdefault(str(key), set()).update(names)
    return out


REPLAY_HELP = ("The task ended with the run: this file answers the call started again from the beginning. "
               "inOrder answers the task's questions in the order asked (their keys hold the task's id, "
               "which the new task does not share), those answered before first; replace each null.")


def replay_template(template: Mapping[str, object], task_id: str, earlier: dict[str, Any]) -> dict[str, object]:
    """`template` (of `answers_template`) made to answer the call started again: the
    answers `earlier` (key -> response, in the order asked) first, then the ones missing;
    a question keyed by the task's own id (`chain.task_keyed`) in `inOrder`, any other by
    its key in `inputResponses` (docs/answers.md "inOrder")."""
    from mrtr_cli.responders.chain import task_keyed  # noqa: PLC0415 - lazy for start-up time

    raw_missing = template.get("inputResponses")
    missing: dict[str, object] = raw_missing if isinstance(raw_missing, dict) else {}
    keyed = {k: v for k, v in earlier.items() if not task_keyed(k, task_id)}
    keyed.update((k, v) for k, v in missing.items() if not task_keyed(k, task_id))
    in_order = ([v for k, v in earlier.items() if task_keyed(k, task_id)]
                + [v for k, v in missing.items() if task_keyed(k, task_id)])
    out = {**template, "inputResponses": keyed}
    if in_order:
        out = {"_help": template.get("_help"), "_replay": REPLAY_HELP, "inOrder": in_order,
               **{k: v for k, v in out.items() if k != "_help"}}
    return out


def legacy_pending(
    *,
    target: dict[str, Any],
    protocol_version: str,
    method: str,
    params: dict[str, Any],
    input_requests: dict[str, Any],
    missing: list[str],
    answered: dict[str, Any] | None = None,
    prefill: dict[str, dict[str, Any]] | None = None,
    result: dict[str, Any] | None = None,
    error: Any = None,
    told: bool = True,
    secret_fields: SecretFields | None = None,
    secret_arguments: Mapping[str, Collection[str]] | None = None,
    note: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The pending document of a call to a handshake-era server (2025-11-25 and earlier)
    that asked what nobody could answer: `"era": "legacy", "resumable": false`, a note on
    starting the call again, and the server's `result` or `error` (a `JsonRpcError`).
    `told`: the server was answered 'cancel'; False for `-32042`, whose error ended the
    call with nothing asked of the client. The 2025-11-25 session (protocol/legacy.py)
    gets this function as a callback through its server-request responder; `secret_fields`,
    `secret_arguments` and `note` as for `build_pending`."""
    doc: dict[str, Any] = dict(build_pending(
        target=target, protocol_version=protocol_version, method=method, params=params,
        input_requests=input_requests, request_state=None, missing=missing, answered=answered, prefill=prefill,
        secret_fields=secret_fields, secret_arguments=secret_arguments, note=note,
    ))
    head = {k: doc.pop(k) for k in ("mrtr", "target", "protocolVersion")}
    doc = {**head, "era": "legacy", "resumable": False, **doc}
    what = ("what nobody could answer was answered 'cancel'" if told
            else "the call ended with its -32042 error (URL elicitation required) and nobody could consent")
    doc["note"] = (f"This server speaks MCP {protocol_version}: it asks its questions during the call, "
                   f"and {what}, so there is no requestState to "
                   "resume. Fill in answersTemplate and start the call again with --answers FILE.")
    if result is not None:
        doc["result"] = result
    if error is not None:
        doc["error"] = {"code": error.code, "message": error.message, "data": error.data}
    return doc


def forget_interrupted(path: str) -> None:
    """Delete `path` if it is a document `save_interrupted` wrote (its call has now finished);
    any other file is the user's own and is left alone."""
    from mrtr_cli.state import state_dir  # noqa: PLC0415 - lazy for start-up time

    if path == "-":
        return
    folder = os.path.realpath(os.path.join(state_dir(), "pending"))
    full = os.path.realpath(os.path.expanduser(path))
    if os.path.dirname(full) == folder:
        with contextlib.suppress(OSError):
            os.unlink(full)


def resume_command(doc: Mapping[str, object], path: str, config_words: Sequence[str] = ()) -> str:
    """`mrtr resume PATH`, the command that finishes `doc` saved at `path`
    (`save_interrupted`) as typed at the user's own shell: with `config_words` (the run's
    `--config FILE` / `--expand-env`) when the document names a server of a config file,
    which it names and does not locate, and first what gives again the URL of one saved
    without its credentials (`MRTR_URL=...`)."""
    from mrtr_cli.render.invocation import command_line  # noqa: PLC0415 - only when a round stops

    line = command_line(["resume"], [path], target=_config_words(doc, config_words), at_command_line=True)
    return _resume_lead(doc) + (line or "mrtr resume with the path of the saved document (it cannot be shown as typed)")


def after_shell(doc: Mapping[str, object], path: str | None, config_words: Sequence[str] = ()) -> str:
    """`; after this shell: mrtr resume PATH` (`resume_command`), the tail of a hint read
    inside `mrtr shell` (render/invocation.py `inside_shell`) for a call kept after Ctrl-C
    and saved at `path` by `save_interrupted` ("" when it could not be saved): leaving the
    shell loses nothing."""
    if not path:
        return ""
    return "; after this shell: " + resume_command(doc, path, config_words)


def save_interrupted(doc: Mapping[str, object]) -> str | None:
    """Write a pending document to the state dir (after Ctrl-C at a prompt, or when the retry
    carrying typed answers failed); returns its path, or None when it cannot be written.

    The name is `<time>-<pid>.json`, with `-2`, `-3`... added when that file exists: several
    documents saved by one run in the same second (batch lines) never overwrite each other."""
    from mrtr_cli.state import state_dir  # noqa: PLC0415 - lazy for start-up time

    try:
        directory = os.path.join(state_dir(), "pending")
        os.makedirs(directory, exist_ok=True)
        stem = os.path.join(directory, time.strftime("%Y%m%dT%H%M%S") + f"-{os.getpid()}")
        for n in range(1, 1000):
            path = stem + (f"-{n}" if n > 1 else "") + ".json"
            try:
                # Answers are the person's own data: readable by them only.
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | BINARY, 0o600)
            except FileExistsError:
                continue
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(dumps_utf8(doc, indent=2))
            return path
        return None
    except OSError:
        return None
