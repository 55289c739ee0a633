"""The one reader for every file the user names on the command line, in an environment
variable or in a config file (answer files, `--args @FILE`, `k=@FILE`, `file:` header and
secret values, `--config`, pending documents, batch input, the `--resume` output file,
`--client-secret-file`, `--private-key-file`, `MRTR_CLIENT_SECRET_FILE`,
`MRTR_PRIVATE_KEY_FILE`) and for stdin (`-`); `check_user_file` applies the same rules to a
file another library reads by its name (`SSL_CERT_FILE`, which OpenSSL loads:
transport/http/tls.py), and `read_state_bytes` / `read_state_json` to what mrtr keeps in its
state directory (a directory the environment names: a refused file there is absent).

Rules (docs/limits.md):
- only a regular file, or `-` for stdin: a FIFO, a device (`/dev/zero`), a socket or a
  directory is refused at once (a FIFO is opened without blocking, so one with no writer
  cannot hang the run);
- at most `MAX_USER_FILE_BYTES` bytes (stdin too), else refused with the size;
- reading stdin is bounded by `--timeout` (a pipe whose writer never writes or closes).
Output files (`--trace`, `--save-answers`, batch `-o`) are checked before anything is
sent by `claim_output`, and opened by `open_user_output`: a FIFO with no reader is refused
at once (exit 2) instead of blocking the open; one with a reader (`--trace >(jq .)`) or a
device (`/dev/stderr`, `/dev/null`) is opened by the check and kept open for the write (so
its reader sees no end of file before it), and a regular file is written.
No output is another of the run's files, read or written: the same path, a symlink or a
hard link to it (`RunFiles`, the run's one registry of them: outputs and the files options
name are added before anything is sent, and every user file read here is added before it
is read, so `--args @FILE`, `KEY=@FILE`, a config file, a batch line's `answersFile` are
checked too; stdin redirected from a regular file is one of them when the run reads it:
`STDIN_NAME`); and a name no file can be created at (a dangling symlink, a name ending in
`/`, a missing folder the path walks through, a symlink loop) is refused by
`check_writable`, which asks the system as the open will, both before anything is sent. An
output claimed and not written is closed when the run ends (env.run_scope).
Every refusal is a `UsageError` (exit 2) naming the option and the path.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Iterable
from typing import IO, Any, Literal

from mrtr_cli.env import RunScope, current_run_scope
from mrtr_cli.errors import TimeoutExpired, UsageError
from mrtr_cli.jsonfile import loads_strict
from mrtr_cli.limits import MAX_USER_FILE_BYTES, describe_bytes, describe_seconds
from mrtr_cli.platform.fileopen import BINARY, NO_WAIT
from mrtr_cli.render.invocation import inside_shell
from mrtr_cli.render.sanitize import sanitize

_CHUNK = 1 << 16
_NOT_REGULAR_HINT = "give a regular file, or - to read stdin"
_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


class FileRefused(UsageError):
    """A user file its rules refuse (exit 2): not a regular file, over the size limit, or
    not readable. `why` says what is wrong in a few words ("a FIFO (named pipe), not a
    regular file", "larger than the limit of 64 MiB"), for a caller that names the file
    its own way (`SSL_CERT_FILE=PATH: ...`)."""

    def __init__(self, message: str, why: str, *, hint: str | None = None):
        super().__init__(message, hint=hint)
        self.why = why


def _label(what: str, path: str) -> str:
    """`what` and `path` for a message: "--config PATH", or for a `@FILE` form (`what` ends
    in `@`: "--args @", "city=@") "--args @PATH"."""
    return f"{what}{path}" if what.endswith("@") else f"{what} {path}"


def _too_big(what: str, path: str, limit: int) -> FileRefused:
    return FileRefused(f"{_label(what, path)} is larger than the limit of {describe_bytes(limit)}",
                       f"larger than the limit of {describe_bytes(limit)}",
                       hint="mrtr reads at most this much from one file or from stdin (docs/limits.md)")


def _unreadable(what: str, path: str, exc: OSError) -> FileRefused:
    why = str(exc.strerror or exc)
    return FileRefused(f"cannot read {_label(what, path)}: {why}", why)


def _open_regular(path: str, *, what: str, limit: int) -> int:
    """A descriptor of the regular file `path` (`~` expanded), opened without blocking (a
    FIFO with no writer too), after checking that it is one and at most `limit` bytes.

    Raises:
        FileNotFoundError: no such file.
        FileRefused: not a regular file, larger than `limit`, or cannot be opened.
        UsageError: not a usable file name.
    """
    full = os.path.expanduser(path)
    try:
        fd = os.open(full, os.O_RDONLY | BINARY | NO_WAIT)
    except FileNotFoundError:
        raise
    except OSError as exc:
        with contextlib.suppress(OSError):  # a socket cannot be opened at all (ENXIO): say what it is
            _check_kind(os.stat(full).st_mode, what, path)
        raise _unreadable(what, path, exc) from None
    except ValueError:  # a NUL character, or text that is no file name (a batch line's answersFile)
        raise UsageError(f"cannot read {_label(what, repr(path))}: not a usable file name") from None
    try:
        info = os.fstat(fd)
        _check_kind(info.st_mode, what, path)
        if info.st_size > limit:
            raise _too_big(what, path, limit)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _check_kind(mode: int, what: str, path: str) -> None:
    """Raise FileRefused unless `mode` is a regular file's."""
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "")
        why = f"{kind}, not a regular file" if kind else "not a regular file"
        raise FileRefused(f"cannot read {_label(what, path)}: it is {why}", why, hint=_not_regular_hint())


def _not_regular_hint() -> str:
    """What to give instead of a file that is not a regular one: a regular file, or `-`
    for stdin (not inside `mrtr shell`, whose stdin is its own input: shell/lineapp.py)."""
    return "give a regular file" if inside_shell() else _NOT_REGULAR_HINT


def check_user_file(path: str, *, what: str, limit: int = MAX_USER_FILE_BYTES) -> None:
    """Check, without reading it, that `path` is a file the rules of every user file let
    be read (module docstring): for a file another library reads by its name (a CA
    bundle, which OpenSSL loads), so that it cannot hang the run or be endless.

    Raises:
        FileNotFoundError, FileRefused, UsageError: as `read_user_bytes`.
    """
    os.close(_open_regular(path, what=what, limit=limit))


def check_variable_file(variable: str, value: str, purpose: str, *, hint: str, path: str | None = None,
                        missing_ok: bool = False) -> None:
    """Check that `path` (default `value`), a file the environment variable `variable`
    names (or one in the directory it names), passes the rules of every user file
    (`check_user_file`), without reading it. `missing_ok`: no such file is no error (the
    library reading it does without).

    Raises:
        UsageError: "VARIABLE=VALUE: [ENTRY in it: ]what is wrong (PURPOSE)", with `hint`
            (exit 2).
    """
    path = value if path is None else path
    try:
        check_user_file(path, what=variable)
    except FileNotFoundError:
        if missing_ok:
            return
        why = "no such file"
    except FileRefused as exc:
        why = exc.why
    except UsageError:
        why = "not a usable file name"
    else:
        return
    where = "" if path == value else f"{shown_path(os.path.basename(path))} in it: "
    raise UsageError(f"{variable}={shown_path(value)}: {where}{why} ({purpose})", hint=hint)


#: Variables naming a file that a library reads as it loads, before mrtr could check it
#: where it uses the library: OpenSSL reads its configuration file when Python's `hashlib`
#: or `ssl` is first imported (a FIFO there hangs the import; a missing one it does without).
LIBRARY_FILE_VARIABLES = {"OPENSSL_CONF": "OpenSSL's configuration file"}


def check_library_files() -> None:
    """Check the files `LIBRARY_FILE_VARIABLES` name (those set) by the rules of every user
    file, at the start of a run.

    Raises:
        UsageError: one is a FIFO, a device, a socket, a directory or over the size limit
            (exit 2, naming the variable).
    """
    for variable, purpose in LIBRARY_FILE_VARIABLES.items():
        value = os.environ.get(variable)
        if value:
            check_variable_file(variable, value, purpose, hint=f"point {variable} at a regular file, or unset it",
                                missing_ok=True)


def shown_path(path: str) -> str:
    """`path` fit for a message: one line, terminal controls escaped, at most 200 characters."""
    return sanitize(path, single_line=True)[:200]


def read_user_bytes(path: str, *, what: str, limit: int = MAX_USER_FILE_BYTES,
                    role: FileRole | None = "input") -> bytes:
    """The bytes of the regular file `path` (`~` expanded), a file of the run: added to its
    registry as `role` (`RunFiles.add`) before it is read; None for a file that is no
    user's (mrtr's state: `read_state_bytes`, the token store).

    Args:
        what: what the file is, for messages ("answer file", "--args @": `_label`).
        limit: the most bytes accepted.
        role: what the file is to the run (`FileRole`): "records" for batch `--resume`.

    Raises:
        FileNotFoundError: no such file (callers word that their own way).
        FileRefused: not a regular file, larger than `limit`, or another read error.
        SameFile: it is a file the run writes (exit 2).
        UsageError: not a usable file name.
    """
    fd = _open_regular(path, what=what, limit=limit)
    if role is not None:
        try:
            current_run_files().add(what, path, role)
        except BaseException:
            os.close(fd)
            raise
    try:
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                break
            total += len(chunk)
            if total > limit:  # grew while being read
                raise _too_big(what, path, limit)
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise _unreadable(what, path, exc) from None
    finally:
        os.close(fd)


def read_state_bytes(path: str, *, limit: int = MAX_USER_FILE_BYTES) -> bytes | None:
    """The bytes of `path`, a file mrtr keeps in its state directory (`state.state_dir`:
    named by `MRTR_STATE_DIR` or `XDG_STATE_HOME`), read under the rules of every user
    file; None when it is missing or those rules refuse it (a FIFO, a device, more than
    `limit` bytes): such a file is as good as absent (a cache, a record), never a hang.
    Never raises."""
    try:
        return read_user_bytes(path, what="state file", limit=limit, role=None)
    except (OSError, UsageError):
        return None


def read_state_json(path: str) -> Any:
    """The JSON document in `path`, a file mrtr keeps in its state directory
    (`read_state_bytes`), or None when it is absent, refused, or no JSON mrtr wrote (not
    UTF-8, not JSON, nested more than `MAX_JSON_DEPTH` levels). Never raises."""
    data = read_state_bytes(path)
    if data is None:
        return None
    try:
        return loads_strict(data.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError, json.JSONDecodeError
        return None


def read_stdin_bytes(stream: IO[Any], *, what: str, limit: int = MAX_USER_FILE_BYTES,
                     deadline: Any = None) -> bytes:
    """All of `stream` (stdin), at most `limit` bytes, waiting no longer than `deadline`
    (a `Deadline`, or None for no bound).

    Raises:
        UsageError: more than `limit` bytes.
        TimeoutExpired: the deadline passed while waiting for stdin.
    """
    source = getattr(stream, "buffer", stream)
    try:
        fd = source.fileno()
    except (AttributeError, OSError, ValueError):
        fd = None
    if fd is None:  # an in-memory stream
        data = source.read(limit + 1)
        data = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
        if len(data) > limit:
            raise _too_big(what, "(stdin)", limit)
        return data
    from mrtr_cli.platform.pipes import wait_readable  # noqa: PLC0415 - lazy for start-up time

    chunks, total = [], 0
    while True:
        left = deadline.remaining() if deadline is not None else None
        # (a descriptor that cannot be waited on is read, and may block)
        if left is not None and not wait_readable(fd, left):
            raise TimeoutExpired(f"timed out after {describe_seconds(deadline.timeout)} waiting for {what} on stdin")
        try:
            chunk = os.read(fd, _CHUNK)
        except BlockingIOError:
            continue
        except OSError as exc:
            raise UsageError(f"cannot read {what} from stdin: {exc.strerror or exc}") from None
        if not chunk:
            break
        total += len(chunk)
        if total > limit:
            raise _too_big(what, "(stdin)", limit)
        chunks.append(chunk)
    return b"".join(chunks)


def decode_text(data: bytes, *, what: str, path: str) -> str:
    """`data` as UTF-8 text, without the byte order mark some editors write at the start
    (no part of the text: every JSON, TOML or text file mrtr reads goes without it).

    Raises:
        UsageError: not valid UTF-8 (the first bad byte and its offset named).
    """
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read {what} {path}: not valid UTF-8 (byte 0x{data[exc.start]:02x} "
                         f"at offset {exc.start})") from None


def read_user_text(path: str, *, what: str, limit: int = MAX_USER_FILE_BYTES) -> str:
    """`read_user_bytes` decoded as UTF-8.

    Raises:
        FileNotFoundError, UsageError: as `read_user_bytes` and `decode_text`.
    """
    return decode_text(read_user_bytes(path, what=what, limit=limit), what=what, path=path)


def read_named_text(path: str, *, source: str, limit: int = MAX_USER_FILE_BYTES) -> str:
    """The text of the file `path` named by `source` (an option, an environment variable or
    a config value: "--private-key-file", "MRTR_CLIENT_SECRET_FILE", "./mcp.json: server
    'x': oauth clientSecret file:"), under the rules of every user file (module docstring),
    whichever way it was named.

    Raises:
        UsageError: missing, not a regular file, larger than `limit`, not UTF-8; the
            message names `source`, the path and the rule.
    """
    try:
        return read_user_text(path, what=source, limit=limit)
    except FileNotFoundError:
        raise UsageError(f"cannot read {_label(source, sanitize(path, single_line=True))}: no such file") from None
    except UsageError as exc:
        if source.startswith("-") or exc.hint != _NOT_REGULAR_HINT:
            raise
        raise UsageError(exc.message, hint="give a regular file") from None  # `-` is stdin for options only


#: Output files that are no regular file (a FIFO, a device), opened by `claim_output`
#: before the run sent anything and handed to the first `open_user_output` of the same path.
_claimed: dict[str, IO[str]] = {}


def claim_output(path: str, option: str) -> None:
    """Check the output file `path` named by `option` ("--save-answers", "-o") before the
    run sends anything, so that nothing sent or typed is lost at its end: a directory, a
    missing or read-only folder, and a FIFO no process reads are refused now. A FIFO with
    a reader, or a device, is opened now and kept for `open_user_output` (closing it
    would end the reader's input); a regular file is only checked (written at the end).

    Raises:
        UsageError: it could not be written (exit 2), naming `option`, the path and why.
    """
    full = os.path.abspath(os.path.expanduser(path))
    if full in _claimed:
        return
    try:
        kind = os.stat(full).st_mode
    except OSError:
        kind = 0
    if kind and not stat.S_ISREG(kind) and not stat.S_ISDIR(kind):
        try:
            _claimed[full] = open_user_output(path, "a")
        except OSError as exc:
            raise UsageError(f"{option} {sanitize(path, single_line=True)}: {exc.strerror or exc}") from None
        # Closed as the run that claimed it ends if nothing wrote it, whatever its outcome: a
        # shell line that failed after claiming `--save-answers FIFO` leaves its reader an end
        # of file, not a FIFO held open until the shell ends.
        if (scope := current_run_scope()) is not None:
            scope.ends.append(lambda: _release_claimed(full))
        return
    check_writable(path, option)


def open_user_output(path: str, mode: str = "w") -> IO[str]:
    """Open the output file `path` (`--trace`, `--save-answers`, batch `-o`) for text in
    `mode` ("w" or "a"), never blocking: a FIFO is opened without waiting for a reader
    (none is an error), then written as any file. A file `claim_output` opened is handed
    over as it is (once).

    Raises:
        OSError: it cannot be opened; for a FIFO no process reads, `ENXIO` with the
            strerror "no process is reading the FIFO".
    """
    import errno  # noqa: PLC0415 - lazy for start-up time

    claimed = _claimed.pop(os.path.abspath(os.path.expanduser(path)), None)
    if claimed is not None:
        return claimed

    from mrtr_cli.platform.fileopen import open_output  # noqa: PLC0415 - lazy for start-up time

    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode == "a" else os.O_TRUNC)
    try:
        fd = open_output(os.path.expanduser(path), flags, 0o666)  # writes then block as usual
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OSError(errno.ENXIO, "no process is reading the FIFO") from None
        raise
    stream = os.fdopen(fd, mode, encoding="utf-8")
    stream.buffer.raw.name = path  # type: ignore[attr-defined] # messages name the path, not the descriptor
    return stream


class UserInput:
    """The run's reader of stdin and of the files the user names: stdin is read once (at
    most `MAX_USER_FILE_BYTES`, bounded by the run's deadline) and later reads get the same
    text; `read_file("-")` is stdin.

    Args:
        env: the run's environment (`env.stdin`; `env.stdin_consumed` is set once read).
        deadline: returns the `protocol.deadline.Deadline` that bounds reading stdin.
    """

    def __init__(self, env: Any, deadline: Any):
        self.env = env
        self._deadline = deadline
        self._stdin_text: str | None = None

    def stdin(self) -> str:
        """All of stdin as text (read once). Raises UsageError (too big, not UTF-8), SameFile
        (stdin is redirected from a file the run writes), TimeoutExpired."""
        if self._stdin_text is None:
            current_run_files().add(STDIN_NAME, "-", "input")  # redirected from a file: never written over
            self.env.stdin_consumed = True
            data = read_stdin_bytes(self.env.stdin, what="input", deadline=self._deadline())
            self._stdin_text = decode_text(data, what="stdin", path="(-)")
        return self._stdin_text

    def read_file(self, path: str, what: str = "file") -> str:
        """The text of `path` (`-` is stdin); `what` names it in messages (the option).

        Raises:
            UsageError: the file cannot be read (missing, not a regular file, too big).
        """
        if path == "-":
            return self.stdin()
        return read_named_text(path, source=what)


def check_writable(path: str, option: str) -> None:
    """Raise UsageError now if `path` could not be written later, asking the system as the
    open will (the path as given, never resolved first: the kernel follows `nosuch/..`
    through `nosuch`, which must exist): a directory, a name ending in a path separator, a
    symlink loop, a missing or read-only folder, a folder on the way that is a file, a
    symlink to any of these (one whose target's folder is missing). Nothing is created or
    truncated, so that nothing typed is lost at the end of a run (`--save-answers`).

    Raises:
        UsageError: naming `option`, the path and why (exit 2).
    """
    shown = shown_path(path)
    expanded = os.path.expanduser(path)
    if expanded.endswith(tuple(sep for sep in (os.sep, os.altsep) if sep)):
        raise UsageError(f"{option} {shown}: names a directory (it ends with a separator)",
                         hint="give a file name")
    target, where = _link_target(expanded)
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except NotADirectoryError:
        info = None  # a folder on the way is a file: which one is said below
    except (OSError, ValueError) as exc:  # a symlink loop, a name too long, a NUL
        raise UsageError(f"{option} {shown}{where}: {_why(exc)}") from None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise UsageError(f"{option} {shown}{where}: is a directory")
        if not os.access(target, os.W_OK):
            raise UsageError(f"{option} {shown}{where}: not writable")
        return
    folder = os.path.dirname(target) or os.curdir
    try:
        os.stat(folder)
    except (OSError, ValueError) as exc:
        raise UsageError(f"{option} {shown}{where}: {_bad_folder(folder, exc)}") from None
    if not stat.S_ISDIR(os.stat(folder).st_mode):
        raise UsageError(f"{option} {shown}{where}: {shown_path(folder)} is not a folder")
    if not os.access(folder, os.W_OK):
        raise UsageError(f"{option} {shown}{where}: not writable")


def _bad_folder(folder: str, exc: OSError | ValueError) -> str:
    """Why the folder `folder`, which `os.stat` refused with `exc`, cannot hold a file,
    naming the first part of it that is missing or no folder, as the system walks it
    (`nosuch/..`: "the folder nosuch does not exist")."""
    if not isinstance(exc, FileNotFoundError | NotADirectoryError):
        return _why(exc)
    head, parts = os.path.splitdrive(folder)
    for part in parts.replace(os.altsep or os.sep, os.sep).split(os.sep):
        head = os.path.join(head, part) if head else (part or os.sep)
        if not part:
            continue
        try:
            mode = os.stat(head).st_mode
        except FileNotFoundError:
            return f"the folder {shown_path(head)} does not exist"
        except OSError as other:
            return _why(other)
        if not stat.S_ISDIR(mode):
            return f"{shown_path(head)} is not a folder"
    return _why(exc)


def _why(exc: Exception) -> str:
    """What an OSError or ValueError says, for a message."""
    return str(exc.strerror or exc) if isinstance(exc, OSError) else "not a usable file name"


def _link_target(path: str) -> tuple[str, str]:
    """Where writing `path` creates or writes the file: `path`, or for a symlink (dangling
    or not) the path it points to, joined to the link's folder as the kernel does (not
    resolved); and " (a symlink to TARGET)" for a message ("" for no symlink). A loop is
    left to `os.stat` to report (ELOOP)."""
    target = path
    for _ in range(40):  # the kernel's own bound on links followed
        try:
            if not os.path.islink(target):
                break
            target = os.path.join(os.path.dirname(target), os.readlink(target))
        except (OSError, ValueError):
            break
    else:
        return path, ""
    return target, "" if target == path else f" (a symlink to {shown_path(target)})"


#: What a file named by a run is to it: "input" (read), "output" (written over or appended
#: to), "records" (batch `-o` and `--resume`: read and appended to, and may be one file).
FileRole = Literal["input", "output", "records"]


class SameFile(UsageError):
    """Two of a run's files are one file and the run would write over one of them (exit 2):
    raised by `RunFiles.add` before the file is read or anything is sent. A reader that
    words its own errors (a config file found by default, a batch line) passes it on,
    naming the file it read its own way (`read_by`).

    Args:
        first: the file added before, as a message names it ("--trace out.json").
        what, path: the file being added: what it is ("--save-answers", "file") and its
            path as shown (`shown_path`; "" for standard input, named by `what` alone).
        reason: why that is refused ("mrtr would write over it").
    """

    def __init__(self, first: str, what: str, path: str, reason: str):
        self.first, self.what, self.path, self.reason = first, what, path, reason
        second = what if not path else _label(what, path)
        super().__init__(f"{first} and {second} are the same file: {reason}", hint="give each output a file of its own")

    def read_by(self, where: str) -> SameFile:
        """The same refusal with the file being added named as the one `where` reads ("-H
        Authorization", "line 3"): "the file of -H Authorization (tokf)"."""
        if not self.path:  # stdin: named as it is
            return self
        return SameFile(self.first, f"the {self.what} of {where} ({self.path})", "", self.reason)


def _entry_label(option: str, path: str) -> str:
    """A registered file as a message names it: "--trace PATH", "--args @PATH", or for
    stdin (`-`) `option` alone ("standard input")."""
    return option if path == "-" else _label(option, shown_path(path))


#: How `RunFiles` names stdin redirected from a file the run reads.
STDIN_NAME = "standard input"


def _stdin_identity() -> tuple[object, ...] | None:
    """The identity (`_identity`) of the file stdin (descriptor 0) is redirected from, or
    None when it is no regular file (a terminal, a pipe) or closed."""
    try:
        info = os.fstat(0)
    except OSError:
        return None
    return ("file", info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


def _identity(path: str) -> tuple[object, ...] | None:
    """What makes `path` one file: (st_dev, st_ino) of an existing regular file (any
    spelling, symlink or hard link), else its resolved path; None for a file that is no
    regular one (a device or a FIFO: `/dev/null` may be named twice) or no usable name."""
    full = os.path.expanduser(path)
    try:
        info = os.stat(full)
    except (OSError, ValueError):
        try:
            return ("path", os.path.normcase(os.path.realpath(full)))
        except (OSError, ValueError):
            return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return ("file", info.st_dev, info.st_ino)


def same_file(one: str, other: str) -> bool:
    """Whether the paths `one` and `other` name one regular file (or, missing, one place):
    `_identity`. Never raises."""
    key = _identity(one)
    return key is not None and key == _identity(other)


class RunFiles:
    """The one registry of a run's files (a command, a batch, one line of `mrtr shell`):
    every file it reads and every file it writes, so that none it writes is another of
    them. Outputs and the files options name are added before anything is sent
    (cli/build.py `make_app`); every user file is added as it is read (`read_user_bytes`:
    `--args @FILE`, `KEY=@FILE`, config files, answer files, a batch line's `answersFile`,
    a pending document, secret files), so a file found only while the run reads (the config
    file found by default, a path a config or a batch line names) is checked too, before it
    is read.

    Args:
        inherited: the registry of the run this one is part of (a shell line's: the
            shell's), whose files are this run's too, named with `prefix` ("the shell's ").
    """

    def __init__(self, inherited: RunFiles | None = None, *, prefix: str = ""):
        self._files: list[tuple[str, str, FileRole, tuple[object, ...]]] = [
            (prefix + option, path, role, key) for option, path, role, key in (inherited.entries if inherited else ())]
        self._inherited = len(self._files)

    @property
    def entries(self) -> tuple[tuple[str, str, FileRole, tuple[object, ...]], ...]:
        """The files added, in order: (option, path, role, identity: `_identity` when added)."""
        return tuple(self._files)

    def restart(self) -> None:
        """Forget the files added since it was made (keeping those it inherited): the run
        starts again (cli/main.py, after `EraChanged`) and adds its files again."""
        del self._files[self._inherited:]

    def add(self, option: str, path: str | None, role: FileRole) -> None:
        """Add the file `path` named by `option` ("--trace", "--args @", "config file"), as
        `role` (`FileRole`; a None or empty path is none, and so is a device or FIFO; `-`
        is stdin, for an input: `STDIN_NAME`, the regular file it is redirected from).
        Two inputs may be one file, and so may the two names of batch records; no output
        may be any other file of the run.

        Raises:
            SameFile: it is the same file as one already added (the same path once resolved,
                a symlink or a hard link) and one of them is written, naming both (exit 2).
        """
        if not path or (path == "-" and role != "input"):
            return
        if path == "-":  # stdin the run reads: a file it was redirected from is an input
            option, key = STDIN_NAME, _stdin_identity()
        else:
            key = _identity(path)
        if key is None or (option, path, role, key) in self._files:  # (read again: checked when first added)
            return
        for other_option, other_path, other_role, known in self._files:
            # (a file missing when it was added, its resolved path, may exist now: --trace)
            other_key = (_identity(other_path) or known) if known[0] == "path" else known
            if other_key != key or (role == other_role and role != "output"):
                continue
            reason = ("its records would be written over it" if "records" in (role, other_role)
                      else "mrtr would write over it")
            raise SameFile(_entry_label(other_option, other_path), option,
                           "" if path == "-" else shown_path(path), reason)
        self._files.append((option, path, role, key))


def _release_claimed(full: str) -> None:
    """Close the output at `full` that `claim_output` opened, if no writer took it
    (`open_user_output`). Never raises."""
    if (held := _claimed.pop(full, None)) is not None:
        with contextlib.suppress(OSError):
            held.close()


def current_run_files() -> RunFiles:
    """The registry of the run going on (env.run_scope, opened by cli/main.py `run`), made
    here at its first use (a shell line's starts with the shell's files, named "the shell's
    ..."); outside a run (a test calling a reader or `make_app` directly), a fresh one that
    no other reader sees."""
    scope = current_run_scope()
    return _registry_of(scope) if scope is not None else RunFiles()


def _registry_of(scope: RunScope) -> RunFiles:
    """The registry of `scope`, made now if it has none yet (`RunScope`)."""
    if not isinstance(scope.registry, RunFiles):
        inherited = (_registry_of(scope.parent)
                     if scope.parent is not None and scope.inherit_as is not None else None)
        scope.registry = RunFiles(inherited, prefix=scope.inherit_as or "")
    return scope.registry


def check_run_files(files: Iterable[tuple[str, str | None, FileRole]]) -> None:
    """Add `files`, (option, path, role), to the run's registry (`current_run_files`):
    before the run sends anything, no file it writes may be another file it reads or writes.

    Raises:
        SameFile: two are the same file (`RunFiles.add`), naming both options and paths (exit 2).
    """
    registry = current_run_files()
    for option, path, role in files:
        registry.add(option, path, role)


def load_json_document(path: str, *, what: str, stdin_text: str | None = None) -> Any:
    """Parse the JSON document at `path` (`-` means `stdin_text`) with `jsonfile.loads_strict`:
    one place for the "cannot read" and "not valid JSON" messages.

    Args:
        path: the file name as the user gave it (used in messages).
        what: what the file is, for messages ("answer file", "pending document").
        stdin_text: the text of stdin, when `path` is `-`.

    Raises:
        UsageError: the file cannot be read (not a regular file, too large: `read_user_text`),
            or is not valid JSON (line and column named).
    """
    try:
        text = (stdin_text or "") if path == "-" else read_user_text(path, what=what)
    except FileNotFoundError:
        raise UsageError(f"cannot read {what} {path}: no such file") from None
    try:
        return loads_strict(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path} is not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise UsageError(f"{path} is not usable JSON: nested too deeply") from None
