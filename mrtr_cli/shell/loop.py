"""The shell's loop: read a line, run it, go on (docs/shell.md).

Each line is split into words (shell/words.py) and run by the command line's own command
definitions (`run_line`, from cli/commands/shell.py) with an environment of its own and the shell's
session (shell/host.py). The shell answers `exit`, `quit` and a bare `help` itself, and
turns a bare `resume` into one that finishes the pending document it kept.

From a script, every line runs in order, a failing one does not stop the rest unless
`--fail-fast`, and the shell exits with the code of the first failing line (named in one
line on stderr, as `mrtr batch` does). At a terminal the shell exits 0 when the person
leaves, and a Ctrl-C stops only the line that was running (exit 130 for that line).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from mrtr_cli.errors import ExitStatus, UsageError, termination_received
from mrtr_cli.render.sanitize import sanitize
from mrtr_cli.shell.host import ShellHost
from mrtr_cli.shell.prompt import prompt_parts
from mrtr_cli.shell.words import EXIT_WORDS, refusal, skipped, split_line

if TYPE_CHECKING:  # pragma: no cover - the grammar loads for a bare `resume` only
    from mrtr_cli.shell.grammar import CommandSpec

#: Characters of a line quoted when the first failing line is named.
SHOWN_CHARS = 60
#: `run_line(words, env)`: run one command line, return its exit code (cli/commands/shell.py).
RunLine = Callable[[list[str], Any], int]


class LineReader(Protocol):
    """Where lines come from: `read(prompt)` returns the next line, or None at the end;
    a terminal's shows `prompt()` (shell/prompt.py parts) and raises KeyboardInterrupt for
    Ctrl-C at the prompt."""

    interactive: bool

    def read(self, prompt: object = None) -> str | None:
        """The next line, or None at the end; several lines (a paste) are joined by newlines."""

    def discard(self) -> None:
        """Forget what a paste left to finish (a Ctrl-C stopped the lines before it)."""


class ShellLoop:
    """Runs the lines `reader` gives over `host`'s session.

    Args:
        host: the shell's session and line runs.
        reader: a `LineReader` (shell/script.py, shell/terminal.py).
        run_line: runs one command line (the command definitions).
        commands: gives the command line's commands (shell/grammar.py), for a bare `resume`.
        summaries: gives (command, one-line help) for the shell's `help` (called when it is asked for).
        fail_fast: from a script, stop after the first failing line.
    """

    def __init__(self, host: ShellHost, reader: LineReader, run_line: RunLine,
                 commands: Callable[[], dict[str, CommandSpec]], summaries: Callable[[], list[tuple[str, str]]], *,
                 fail_fast: bool = False):
        self.host = host
        self.env = host.env
        self.reader = reader
        self.run_line = run_line
        self.commands = commands
        self.summaries = summaries
        self.fail_fast = fail_fast
        self.first_failure: tuple[int, int, str | None, str] | None = None  # (line number, code, text, why not run)
        self.first_hidden: frozenset[int] = frozenset()  # the words of the first failing line its error hid
        self.stopped: int | None = None  # what ended the shell early (exit code)

    def run(self) -> int:
        """Read and run every line; returns the shell's exit code. The session is closed
        (the server stopped) before it returns."""
        from mrtr_cli.render.invocation import shell_running  # noqa: PLC0415 - lazy for start-up time

        try:
            with shell_running():
                self._lines()
        finally:
            self.host.close()
        if self.stopped is not None:
            return self.stopped
        if self.first_failure is None:
            return int(ExitStatus.SUCCESS)
        number, code, typed, not_run = self.first_failure
        text = None if typed is None else self.host.shown_line(typed, self.first_hidden)  # never a secret it gave
        if self.env.quiet:
            pass
        elif self.env.json_mode:  # as the errors are: one JSON line
            import json  # noqa: PLC0415 - lazy for start-up time

            line: dict[str, object] = {"line": number, "command": None if text is None else text.strip()}
            if text is None:
                line["notRun"] = not_run
            self.env.err(json.dumps({"shell": {"exitCode": code, "firstFailure": line}}, ensure_ascii=True))
        else:
            from mrtr_cli.batch.records import first_failure_line  # noqa: PLC0415 - lazy for start-up time

            if text is None:
                shown = f"not run: {not_run}"
            else:
                shown = sanitize(text.strip(), single_line=True)
                shown = shown if len(shown) <= SHOWN_CHARS else shown[:SHOWN_CHARS - 1] + "…"
            self.env.err(first_failure_line("shell", code, number, shown))
        return code

    def _lines(self) -> None:
        interactive = self.reader.interactive
        number = 0
        waiting: list[str] = []  # the rest of several lines pasted at the prompt at once
        while True:
            try:
                if interactive:
                    self.host.check_server()
                try:
                    text = waiting.pop(0) if waiting else self._read()
                except UsageError as exc:  # a script line that is no command line (too long, not UTF-8, NUL)
                    number += 1
                    self._error(exc, number)
                    if self._record(number, int(ExitStatus.USAGE), None, getattr(exc, "summary", exc.message)):
                        return
                    continue
                if text is None:
                    return
                if "\n" in text:  # a paste of several lines: each runs in turn, as if typed
                    text, *waiting = text.split("\n")
                number += 1
                if skipped(text):
                    continue
                code = self._run_text(text, number)
            except KeyboardInterrupt:  # at the prompt (the line is cleared), or between lines
                waiting.clear()  # Ctrl-C also drops what is left of a paste
                self.reader.discard()
                if interactive and termination_received() is None:
                    continue
                self._end_on_signal()
                self.stopped = int(ExitStatus.INTERRUPTED)
                return
            if code is None:  # exit, quit
                return
            if termination_received() is not None:  # SIGTERM, SIGHUP: the shell ends, not only the command
                self._end_on_signal()
                self.stopped = int(ExitStatus.INTERRUPTED)
                return
            if code == int(ExitStatus.INTERRUPTED):
                waiting.clear()  # Ctrl-C stops what is left of a paste too
                self.reader.discard()
                if not interactive:
                    self.stopped = code  # and a script
                    return
            if self._record(number, code, text) or self.stopped is not None:
                return

    def _read(self) -> str | None:
        """The next line from the reader (None at the end); the lines before it are in the
        history now, so the words their errors hid are forgotten (`ShellHost.hidden`)."""
        text = self.reader.read(self._prompt)
        self.host.hidden.clear()
        return text

    def _record(self, number: int, code: int, text: str | None, not_run: str = "") -> bool:
        """Note a line's exit code (`text`: the line; None for a line that is no command line,
        `not_run` saying why); True when the shell stops here (`--fail-fast`)."""
        if code == 0 or self.reader.interactive:
            return False
        if self.first_failure is None:
            self.first_failure = (number, code, text, not_run)
            self.first_hidden = self.host.hidden.get(text, frozenset()) if text is not None else frozenset()
        return self.fail_fast

    def _prompt(self) -> Any:
        """The prompt as it stands now (drawn again when a message goes above it)."""
        host = self.host
        return prompt_parts(host.server_label(), pending=host.pending is not None, stopped=host.stopped)

    def _error(self, exc: UsageError, number: int) -> None:
        """A line the shell itself refuses, said as every error is (one JSON line with --json);
        from a script, with its line number."""
        from mrtr_cli.render.errors import print_error  # noqa: PLC0415 - lazy for start-up time

        if self.reader.interactive:
            print_error(self.env, exc, json_mode=self.env.json_mode)
            return
        exc = UsageError(f"line {number}: {exc.message}", hint=exc.hint)
        print_error(self.env, exc, json_mode=self.env.json_mode, line=number)

    # ------------------------------------------------------------------ one line
    def _run_text(self, text: str, number: int) -> int | None:
        """Run one line; its exit code, or None for `exit`/`quit`."""
        try:
            words = split_line(text)
            if not words:
                return 0
            if words[0] in EXIT_WORDS:
                if len(words) > 1:
                    raise UsageError(f"{words[0]} takes no arguments")
                return None
            if words in (["help"], ["--help"], ["-h"]):
                self._help()
                return 0
            refused = refusal(words)
            if refused is not None:
                raise refused
            kept = None
            typed = words
            if words[0] == "resume":
                words, kept = self._resume(words)
        except UsageError as exc:
            self._error(exc, number)
            return int(ExitStatus.USAGE)
        code = self._run_words(words, kept, number)
        self._note_hidden(text, typed, words)
        return code

    def _note_hidden(self, text: str, typed: list[str], ran: list[str]) -> None:
        """Keep which words of line `text` its error did not print (`ShellHost.hidden`: the
        history and the first failing line hide them too), from the indices in the words
        that ran (`ran`: `typed`, the line's words without a leading `mrtr`, with the `-`
        a bare `resume` adds)."""
        words, places = self.host.ran_hidden
        if not places or list(words) != ran:
            return
        from mrtr_cli.shell.history import line_words  # noqa: PLC0415 - only after such an error
        lead = len(line_words(text)) - len(typed)  # a leading `mrtr`, which split_line leaves out
        added = None if ran == typed else len(typed) if "--" in typed else 1  # where `resume` put its `-`
        self.host.hidden[text] = frozenset(
            (at - 1 if added is not None and at > added else at) + lead for at in places if at != added)

    def _resume(self, words: list[str]) -> tuple[list[str], Mapping[str, object] | None]:
        """A bare `resume` (no PENDING file) finishes the pending document the shell kept:
        `-` stands for it on this line."""
        from mrtr_cli.shell.grammar import walk  # noqa: PLC0415 - lazy for start-up time

        found = walk(self.commands(), words)
        options = words[:words.index("--")] if "--" in words else words
        if (found is None or found.positionals or found.pending_option is not None
                or "--help" in options or "-h" in options):  # help needs no pending call
            return words, None
        pending = self.host.pending
        if pending is None:
            raise UsageError("nothing to resume: no call in this shell stopped for input (exit 5)",
                             hint="resume PENDING.json finishes a pending document saved in a file")
        if pending.get("resumable") is False:
            from mrtr_cli.engine.pending import start_again_command  # noqa: PLC0415 - lazy for start-up time
            from mrtr_cli.shell.host import answer_flags  # noqa: PLC0415 - lazy for start-up time

            flags, named = answer_flags(pending)
            raise UsageError(f"the last pending call cannot be resumed: its server (MCP "
                             f"{pending.get('protocolVersion')}) "
                             "asks its questions during the call and keeps no requestState",
                             hint="start it again with the answers: "
                                  + start_again_command(pending, target_words=False, options=flags,
                                                        hides=self.host.env.hides)
                                  + named)
        return [*words, "-"] if "--" in words else [words[0], "-", *words[1:]], self.host.pending

    def _run_words(self, words: list[str], kept: Mapping[str, object] | None, number: int) -> int:
        host = self.host
        env = host.line_env(None if self.reader.interactive else number)
        strict = host.app.strict_checker()
        if strict is not None:
            strict.begin_line()  # --strict: this line's violations decide its exit code
        host.begin_line(kept)
        try:
            code = self.run_line(words, env)
        except KeyboardInterrupt:  # after the command's own handling of Ctrl-C, or before it
            code = int(ExitStatus.INTERRUPTED)
        finally:
            host.end_line()
        if code == int(ExitStatus.INTERRUPTED):
            from mrtr_cli.protocol.interrupts import disarm  # noqa: PLC0415 - lazy for start-up time

            disarm()  # the next Ctrl-C cancels the next command again, not the shell
        if strict is not None:
            from mrtr_cli.protocol.checks.strict import strict_exit  # noqa: PLC0415 - lazy for start-up time

            code = strict_exit(code, strict.line_count())
        if kept is not None and code in (0, 1, 6):
            host.pending = None  # finished: nothing left to resume
        if env.stdout is not self.env.stdout:  # a write to stdout failed: every later result would be lost too
            why = ("the results cannot be written" if code == int(ExitStatus.USAGE)  # closed, full (said already)
                   else "the reader of the results went away (broken pipe)")
            self.env.err(f"mrtr: shell: stopped: {why}")
            self.stopped = int(ExitStatus.USAGE)
        return code

    def _end_on_signal(self) -> None:
        """Say which stop signal ends the shell (SIGTERM, SIGHUP), if one does."""
        name = termination_received()
        if name is not None:
            self.env.err(f"mrtr: shell: ended by {name}")

    def _help(self) -> None:
        """The shell's own help (`help`): its commands, and what differs from the command line."""
        summaries = self.summaries()
        width = max(len(name) for name, _ in summaries) if summaries else 10
        lines = ["Commands run as on the command line, without naming the server (this shell has one):", ""]
        lines += [f"  {name.ljust(width)}  {summary}" for name, summary in summaries]
        lines += [
            "",
            "In the shell:",
            f"  {'help [COMMAND|TOPIC]'.ljust(24)}  this list; a command's or topic's help (also: COMMAND --help;",
            f"  {''.ljust(24)}  its examples are typed outside the shell: "
            "here, leave out --url, --stdio, -s, --config)",
            f"  {'resume'.ljust(24)}  finish the last call that stopped for input (exit 5), e.g. resume -a FIELD=VALUE",
            f"  {'exit, quit, Ctrl-D'.ljust(24)}  leave the shell (the server is stopped)",
            "  Tab completes commands, options, tools, arguments and answers; Up, Down and Ctrl-R search the",
            "  history; Ctrl-C cancels the running command (the server is told) and clears the line at the prompt.",
            "",
            "Options that name a server or set up the session (--url, --stdio, -s, --config, -H, --bearer-token-env,",
            "--protocol, --trace, ...) go on the `mrtr ... shell` line; batch, shell and completion do not run here.",
        ]
        self.env.out("\n".join(lines))
