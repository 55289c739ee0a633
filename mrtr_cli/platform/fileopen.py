"""Opening files with `os.open` the same way everywhere.

- `BINARY`: in every `os.open` of mrtr's. Windows opens a descriptor in text mode unless
  told otherwise (a read would turn CRLF into LF and stop at a Ctrl-Z byte; a write would
  turn LF into CRLF); POSIX has no such mode (0).
- `NO_WAIT`: opening never waits for the other end of a FIFO (reading: no writer yet;
  writing: no reader, which is an error at once, ENXIO) and never makes a terminal the
  controlling one (`O_NONBLOCK | O_NOCTTY`). Windows has no FIFOs in the file system (0).
- `open_output`: a file to write (`--trace`, `--save-answers`) opened with `NO_WAIT`, its
  descriptor then blocking as usual.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    from mrtr_cli.platform._windows import fileopen as _impl
else:
    from mrtr_cli.platform._posix import fileopen as _impl

BINARY: int = _impl.BINARY
NO_WAIT: int = _impl.NO_WAIT
#: `open_output(path, flags, mode) -> fd`: `os.open(path, flags | BINARY | NO_WAIT, mode)`,
#: then blocking writes. Raises OSError (ENXIO for a FIFO nobody reads).
open_output = _impl.open_output
