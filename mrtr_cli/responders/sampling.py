"""Answering `sampling/createMessage` input requests: `--sampling-command CMD`, and a
readable summary of a request for the person at the terminal.

Spec: client/sampling (2026-07-28). The request's params (`CreateMessageRequestParams`:
messages, systemPrompt?, modelPreferences?, maxTokens, tools?, ...) go to the command as
one JSON object on its stdin; the command prints one `CreateMessageResult`
(`{role, content, model, stopReason?}`) as JSON on its stdout and exits 0. `mrtr` checks
the result before it is sent. `sampling.tools` is declared only with `--sampling-tools`
(the command says it can return `tool_use` blocks).
"""

from __future__ import annotations

import json
from typing import Any

from mrtr_cli.env import Environment
from mrtr_cli.errors import TimeoutExpired, UsageError
from mrtr_cli.jsonfile import loads_strict
from mrtr_cli.limits import MAX_USER_FILE_BYTES, describe_bytes, describe_seconds
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.render.output import summarise_block
from mrtr_cli.render.sanitize import dumps_safe, sanitize
from mrtr_cli.responders.shapes import sampling_result_problems

DEFAULT_SAMPLING_TIMEOUT = 120.0  # seconds
STDERR_TAIL_LINES = 10
#: The most the command may print on stdout (bytes; as much as any file the user names):
#: past it mrtr stops reading and ends it. Of its stderr only the last
#: `MAX_SAMPLING_STDERR` bytes are kept (and relayed).
MAX_SAMPLING_OUTPUT = MAX_USER_FILE_BYTES
MAX_SAMPLING_STDERR = 256 * 1024


class CommandSampler:
    """Runs `--sampling-command CMD` once per sampling request.

    Args:
        command: the command line (split like a shell would; no shell runs it).
        env: the run's environment (the command's stderr is relayed there unless `-q`).
        timeout: seconds the command may take (`--sampling-timeout`), or None for no limit
            other than `deadline`.
        deadline: the run's overall bound (`--timeout`); the command never outlives it.

    Calling it with a request's params returns the command's CreateMessageResult.

    Raises (from a call):
        UsageError: the command cannot be started, exits non-zero, prints more than
            `MAX_SAMPLING_OUTPUT` bytes, or prints something that is not a valid
            CreateMessageResult for this request (exit 2).
        TimeoutExpired: the command took longer than its timeout (exit 7).
    However a call ends, the command's process group is ended (`transport.stdio.boundedrun`).
    """

    def __init__(self, command: str, env: Environment, *, timeout: float | None = DEFAULT_SAMPLING_TIMEOUT,
                 deadline: Deadline | None = None):
        from mrtr_cli.platform import shellwords  # noqa: PLC0415 - lazy for start-up time

        try:
            self.argv = shellwords.split(command)
        except ValueError as exc:
            raise UsageError(f"--sampling-command {command!r}: {exc}") from None
        if not self.argv:
            raise UsageError("--sampling-command needs a command, e.g. --sampling-command \"python llm.py\"")
        self.command = command
        self.env = env
        self.timeout = timeout
        self.deadline = deadline

    def within(self, deadline: Deadline) -> CommandSampler:
        """The same command bounded by `deadline` (a run's, or one batch line's)."""
        return CommandSampler(self.command, self.env, timeout=self.timeout, deadline=deadline)

    def _limit(self) -> tuple[float | None, str]:
        left = self.deadline.remaining() if self.deadline is not None else None
        if left is not None and (self.timeout is None or left < self.timeout):
            return left, "--timeout"
        return self.timeout, "--sampling-timeout"

    def __call__(self, params: dict[str, Any]) -> dict[str, Any]:
        from mrtr_cli.transport.stdio.boundedrun import CommandTimedOut, OutputTooLarge, run_bounded  # noqa: PLC0415

        name = f"--sampling-command {self.command!r}"
        limit, which = self._limit()
        data = json.dumps(params, ensure_ascii=False).encode("utf-8")
        try:
            done = run_bounded(self.argv, stdin=data, stdout_limit=MAX_SAMPLING_OUTPUT,
                               stderr_limit=MAX_SAMPLING_STDERR, timeout=limit)
        except FileNotFoundError:
            raise UsageError(f"{name}: command not found: {self.argv[0]}") from None
        except OutputTooLarge:
            raise UsageError(f"{name} printed more than {describe_bytes(MAX_SAMPLING_OUTPUT)} on stdout; mrtr "
                             "stopped reading and ended it") from None
        except CommandTimedOut:
            raise TimeoutExpired(f"{name} did not answer within {describe_seconds(limit)} ({which})") from None
        except OSError as exc:
            raise UsageError(f"{name}: cannot start it: {exc.strerror or exc}") from None
        err_lines = done.stderr.decode("utf-8", "replace").splitlines()
        if done.stderr_dropped:
            err_lines.insert(0, f"[... {done.stderr_dropped} bytes of its stderr before these lines not kept]")
        if done.returncode != 0:
            how = (f"was killed by signal {-done.returncode}" if done.returncode < 0
                   else f"exited with code {done.returncode}")
            raise UsageError(f"{name} {how}", hint=_tail(err_lines))
        self._relay(err_lines)
        text = done.stdout.decode("utf-8", "replace").strip()
        if not text:
            raise UsageError(f"{name} printed nothing; it must print a CreateMessageResult as JSON",
                             hint=_tail(err_lines))
        try:
            result = loads_strict(text)
        except ValueError as exc:
            raise UsageError(f"{name} printed something that is not JSON ({exc})",
                             hint="output: " + sanitize(text[:200], single_line=True)) from None
        problems = sampling_result_problems(result, params)
        if problems:
            raise UsageError(f"{name} printed an invalid CreateMessageResult: {problems[0]}",
                             data={"problems": problems})
        checked: dict[str, Any] = result  # a CreateMessageResult object: checked above
        return checked

    def _relay(self, lines: list[str]) -> None:
        if self.env.quiet:
            return
        for line in lines:
            self.env.err("sampling command: " + sanitize(line, drop_colours=True))


def _tail(lines: list[str]) -> str | None:
    tail = [sanitize(line, drop_colours=True) for line in lines[-STDERR_TAIL_LINES:] if line.strip()]
    return "its stderr:\n" + "\n".join("  " + line for line in tail) if tail else None


# ---------------------------------------------------------------------- showing a request
def _number(value: object) -> str:
    return f"{value:g}" if isinstance(value, int | float) and not isinstance(value, bool) else dumps_safe(value)


def describe_block(block: object) -> str:
    """One sampling content block as text for a person (sanitised)."""
    if not isinstance(block, dict):
        return summarise_block(block)
    kind = block.get("type")
    if kind == "text":
        return sanitize(str(block.get("text", "")))
    if kind == "tool_use":
        return (f"[tool_use {sanitize(str(block.get('name')), single_line=True)} "
                f"{dumps_safe(block.get('input', {}))} id={sanitize(str(block.get('id')), single_line=True)}]")
    if kind == "tool_result":
        inner = raw_inner if isinstance(raw_inner := block.get("content"), list) else []
        text = " ".join(describe_block(b) for b in inner)
        flag = " (error)" if block.get("isError") else ""
        return f"[tool_result{flag} for {sanitize(str(block.get('toolUseId')), single_line=True)}: {text}]"
    return summarise_block(block)


def describe_request(params: dict[str, Any]) -> list[str]:
    """Lines describing a `CreateMessageRequestParams` for a person: system prompt, each
    message with its role, model preferences, maxTokens, and the other parameters given.
    Every string from the server is sanitised; continuation lines are indented."""
    lines: list[str] = []

    def add(label: str, text: str) -> None:
        body = text.replace("\n", "\n" + " " * (len(label) + 2))
        lines.append(f"{label}: {body}")

    if params.get("systemPrompt"):
        add("system prompt", sanitize(str(params["systemPrompt"])))
    messages = raw_messages if isinstance(raw_messages := params.get("messages"), list) else []
    for message in messages:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        blocks = content if isinstance(content, list) else [content]
        add(sanitize(str(message.get("role", "?")), single_line=True), "\n".join(describe_block(b) for b in blocks))
    prefs = params.get("modelPreferences")
    if isinstance(prefs, dict):
        parts = []
        hints = [h.get("name") for h in prefs.get("hints") or [] if isinstance(h, dict) and h.get("name")]
        if hints:
            parts.append("hints " + ", ".join(sanitize(str(h), single_line=True) for h in hints))
        for key in ("intelligencePriority", "speedPriority", "costPriority"):
            if key in prefs:
                parts.append(f"{key.removesuffix('Priority')} {_number(prefs[key])}")
        if parts:
            add("model preferences", "; ".join(parts))
    add("maxTokens", _number(params.get("maxTokens")))
    if "temperature" in params:
        add("temperature", _number(params["temperature"]))
    if params.get("stopSequences"):
        add("stop sequences", dumps_safe(params["stopSequences"]))
    if params.get("includeContext") not in (None, "none"):
        add("includeContext", sanitize(str(params["includeContext"]), single_line=True)
            + " (mrtr shares no other context)")
    tools = raw_tools if isinstance(raw_tools := params.get("tools"), list) else []
    if tools:
        names = ", ".join(sanitize(str(t.get("name")), single_line=True) for t in tools if isinstance(t, dict))
        add("tools offered", names)
    if params.get("metadata"):
        add("metadata", dumps_safe(params["metadata"]))
    return lines
