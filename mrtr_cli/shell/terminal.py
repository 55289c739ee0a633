"""Lines from a person at a terminal: prompt_toolkit's line editor with the shell's history
file (shell/history.py), Tab completion (shell/completion.py) and the prompt
(shell/prompt.py). The only module of the shell that imports prompt_toolkit (a checked
contract, pyproject.toml), and only when a shell starts at a terminal (start-up time).

While the prompt waits, what the rest of mrtr writes to stderr (a log the server sends,
a list change, a server that stopped) goes through the `Relay` (responders/above.py) above the prompt, so the
line being typed stays whole. A paste of several lines gives the whole lines at once (the
loop runs each in turn) and leaves an unfinished last one in the next prompt's editor.
Ctrl-C at the prompt raises KeyboardInterrupt (the loop clears the line); Ctrl-D on an
empty line is the end of the input.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import AsyncGenerator, Callable, Iterable, Iterator
from typing import IO, Any, TextIO, cast

from mrtr_cli.platform import fileopen
from mrtr_cli.responders.above import Relay
from mrtr_cli.responders.stopping import signals_end
from mrtr_cli.shell.completion import Completer
from mrtr_cli.shell.history import HISTORY_READ_LIMIT

__all__ = ["TerminalReader"]


def _history_class() -> type:
    from prompt_toolkit.history import History  # noqa: PLC0415 - lazy for start-up time

    class ShellHistory(History):
        """The history file (prompt_toolkit's FileHistory format: `+line` entries after a
        `# time` line), read from its last `HISTORY_READ_LIMIT` bytes only, written 0600
        with each line scrubbed of secrets first (`scrub` returns None: not written)."""

        def __init__(self, path: str, scrub: Callable[[str], str | None]):
            self.path = path
            self.scrub = scrub
            self.held: list[str] = []  # lines accepted, not yet run (`store_string`)
            super().__init__()

        def load_history_strings(self) -> Iterable[str]:
            try:
                fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | fileopen.BINARY | fileopen.NO_WAIT)
            except OSError:
                return []
            with os.fdopen(fd, "rb") as fh:
                info = os.fstat(fh.fileno())
                if not stat.S_ISREG(info.st_mode):  # never a FIFO or a device
                    return []
                _owner_only(fh.fileno(), info)
                start = max(0, info.st_size - HISTORY_READ_LIMIT)
                fh.seek(start)
                data = fh.read(HISTORY_READ_LIMIT)
            lines = data.decode("utf-8", errors="replace").split("\n")
            if start:
                lines = lines[1:]  # the first line read may be cut
            found = [line[1:] for line in lines if line.startswith("+")]
            return list(reversed(found))

        def store_string(self, string: str) -> None:
            """Hold `string` (one line, or several pasted at once) until it has run (`flush`):
            only then does the shell know each secret it gave (a form's field the server marks
            secret, registered with the session's redaction while the line runs)."""
            self.held.append(string)

        def flush(self) -> None:
            """Append each held line that `scrub` keeps, scrubbed by what the session knows now."""
            held, self.held = self.held, []
            for string in held:
                self._write(string)

        def _write(self, string: str) -> None:
            kept = [text for line in string.split("\n") if line.strip() and (text := self.scrub(line)) is not None]
            if not kept:
                return
            import datetime  # noqa: PLC0415 - lazy for start-up time

            entries = "".join(f"\n# {datetime.datetime.now()}\n+{text}\n" for text in kept)
            try:
                os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
                # NO_WAIT: a FIFO nobody reads is an error at once, not a hang; only a file is written
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                             | fileopen.BINARY | fileopen.NO_WAIT, 0o600)
                with os.fdopen(fd, "ab") as fh:
                    info = os.fstat(fh.fileno())
                    if stat.S_ISREG(info.st_mode):
                        _owner_only(fh.fileno(), info)
                        fh.write(entries.encode("utf-8", errors="replace"))
            except OSError:
                pass  # a history that cannot be written is no reason to stop the shell

    return ShellHistory


def _owner_only(fd: int, info: os.stat_result) -> None:
    """The history file open as `fd` (`info`: its `fstat`) made 0600 when it is more open (a
    file written by an older mrtr, or by hand, 0644): the mode the history promises."""
    if stat.S_IMODE(info.st_mode) & 0o077:
        from mrtr_cli.platform.filemodes import owner_only_file  # noqa: PLC0415 - lazy for start-up time

        with contextlib.suppress(OSError):  # not its owner: the history is still read and written
            owner_only_file(fd)


class TerminalReader:
    """Reads lines typed at the terminal.

    Args:
        stdin: the terminal's input stream.
        stderr: the terminal's output stream (the real one, not the relay): the prompt and
            the line being typed are drawn there, so stdout carries results only.
        relay: the run's stderr relay (`Relay`).
        completer: what Tab offers.
        history_path: the history file.
        scrub: a line as the history file may keep it, or None (shell/history.py `scrub`).
        styled: style the prompt (bold name); False for plain text (`--color never`, NO_COLOR).
    """

    interactive = True

    def __init__(self, stdin: IO[str], stderr: IO[str], relay: Relay, completer: Completer, history_path: str,
                 scrub: Callable[[str], str | None], *, styled: bool = True):
        from prompt_toolkit import PromptSession  # noqa: PLC0415 - lazy for start-up time
        from prompt_toolkit.auto_suggest import AutoSuggestFromHistory  # noqa: PLC0415 - lazy
        from prompt_toolkit.input import create_input  # noqa: PLC0415 - lazy
        from prompt_toolkit.key_binding import KeyBindings  # noqa: PLC0415 - lazy
        from prompt_toolkit.keys import Keys  # noqa: PLC0415 - lazy
        from prompt_toolkit.output import create_output  # noqa: PLC0415 - lazy

        self.relay = relay
        self.styled = styled
        self._input = create_input(cast(TextIO, stdin))
        self._output = create_output(stdout=cast(TextIO, stderr))
        self._rest = ""  # the unfinished last line of a paste: the next prompt starts with it
        keys = KeyBindings()
        keys.add(Keys.BracketedPaste)(lambda event: self._pasted(event.current_buffer, event.data))
        self._history = _history_class()(history_path, scrub)
        self.session: Any = PromptSession(
            history=self._history, completer=_adapter(completer),
            complete_while_typing=False, auto_suggest=AutoSuggestFromHistory(), input=self._input,
            output=self._output, reserve_space_for_menu=6, key_bindings=keys)

    def _pasted(self, buffer: Any, data: str) -> None:
        """Text pasted at the prompt (bracketed paste) goes in where the cursor is; when the
        line then holds whole lines (each ended by a newline), they are taken at once, as if
        each were typed and Entered, and what follows the last newline waits in the editor of
        the next prompt, to be finished (`read`)."""
        from prompt_toolkit.document import Document  # noqa: PLC0415 - lazy

        from mrtr_cli.responders.paste import newlines  # noqa: PLC0415 - lazy for start-up time

        buffer.insert_text(newlines(data))
        whole, newline, self._rest = buffer.text.rpartition("\n")
        if not newline:
            return
        buffer.document = Document(whole, len(whole))
        buffer.validate_and_handle()

    def discard(self) -> None:
        """Forget the unfinished last line of a paste (a Ctrl-C stopped the lines before it)."""
        self._rest = ""

    def read(self, prompt: Callable[[], Any] | None = None) -> str | None:
        """The next line typed, or None at Ctrl-D on an empty line; `prompt()` gives the
        prompt's (style, text) parts, asked again whenever it is drawn (a server that stopped
        meanwhile shows). Raises KeyboardInterrupt for Ctrl-C (the line typed so far is dropped)."""
        from prompt_toolkit.formatted_text import FormattedText  # noqa: PLC0415 - lazy

        def message() -> Any:
            parts = prompt() if prompt is not None else [("", "> ")]
            return FormattedText(parts if self.styled else [("", text) for _, text in parts])

        self._history.flush()  # the lines before this one have run
        self.relay.app = self.session.app
        start, self._rest = self._rest, ""
        try:
            with signals_end(self.session.app):  # a stop signal ends the line editor through its API
                return str(self.session.prompt(message, default=start, handle_sigint=False))
        except EOFError:
            return None
        finally:
            self.relay.stop()


def _adapter(logic: Completer) -> Any:
    """`logic` as a prompt_toolkit completer that never holds the line editor: the
    candidates are worked out on a thread of their own (the server may be asked: a
    `completion/complete` waits up to `MRTR_COMPLETE_TIMEOUT`), and the editor only awaits
    them. Enter, Ctrl-C or more typing while they are worked out goes on at once: the
    editor stops awaiting (prompt_toolkit's own `ThreadedCompleter` would wait for the
    thread before the line is taken), and what the thread finds later is dropped."""
    from prompt_toolkit.completion import Completer as Base  # noqa: PLC0415 - lazy
    from prompt_toolkit.completion import Completion  # noqa: PLC0415 - lazy

    def candidates(text: str) -> list[Any]:
        try:
            found = logic.complete(text)
        except Exception:  # noqa: BLE001 - completion never fails loudly
            return []
        return [Completion(c.text, start_position=c.start, display=c.display or None, display_meta=c.meta or None)
                for c in found]

    class Adapter(Base):
        def get_completions(self, document: Any, complete_event: object) -> Iterator[Any]:
            yield from candidates(document.text_before_cursor)

        async def get_completions_async(self, document: Any, complete_event: object) -> AsyncGenerator[Any, None]:
            import asyncio  # noqa: PLC0415 - lazy for start-up time
            import threading  # noqa: PLC0415 - lazy for start-up time

            loop = asyncio.get_running_loop()
            found: asyncio.Future[list[Any]] = loop.create_future()
            text = document.text_before_cursor

            def work() -> None:
                result = candidates(text)

                def deliver() -> None:
                    if not found.done():  # else the editor stopped awaiting (Enter, Ctrl-C, typing)
                        found.set_result(result)

                with contextlib.suppress(RuntimeError):  # the prompt ended meanwhile: its loop is closed
                    loop.call_soon_threadsafe(deliver)

            threading.Thread(target=work, name="mrtr-shell-complete", daemon=True).start()
            for completion in await found:
                yield completion

    return Adapter()
