"""The `mrtr` program's entry point (the console script and `python -m mrtr_cli`).

Before the command line is parsed (and click imported), a stdio server the command line
plainly needs is launched, so that it boots while the rest of `mrtr` loads
(`transport.stdio.early.prelaunch`, docs/performance.md); then `cli.main.main` runs the command.
A server the run did not adopt is stopped before `mrtr` exits.

The garbage collector's first generation is collected every `GC_YOUNG_THRESHOLD` new
objects instead of every 700: loading `mrtr` creates a few hundred thousand objects (code,
functions, classes) that all live to the end, and with the default the collector ran
about thirty times while `mrtr call` loaded, a tenth of the process's CPU
(docs/performance.md). Cycles are still collected, less often.

At the end every object left is moved out of the garbage collector's sight (`gc.freeze`):
the interpreter's shutdown then skips searching them for reference cycles, which took
longer than some whole commands (docs/performance.md). Nothing else changes at exit:
modules, open files and atexit handlers are finalized as before.
"""

from __future__ import annotations

import gc
import sys

from mrtr_cli.errors import terminated

#: New container objects between two collections of the youngest generation (Python's
#: default: 700). Sized above what loading `mrtr` for one command creates.
GC_YOUNG_THRESHOLD = 50_000


def main() -> None:
    """Run `mrtr` with `sys.argv` and exit with the documented code (`cli.main.main`)."""
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    from mrtr_cli.platform.signals import on_termination  # noqa: PLC0415 - lazy for start-up time

    # As cli.main.main does: SIGTERM (Ctrl-Break on Windows) ends the run like Ctrl-C, from the first moment.
    on_termination(terminated)
    try:
        from mrtr_cli.transport.stdio.early import prelaunch  # noqa: PLC0415 - lazy for start-up time

        prelaunch(sys.argv[1:])
        from mrtr_cli.cli.main import main as run_cli  # noqa: PLC0415 - lazy for start-up time
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM while mrtr loads: no command has run yet
        _discard_prelaunched()
        sys.stderr.write("mrtr: interrupted\n")
        raise SystemExit(130) from None
    try:
        run_cli()
    finally:
        _discard_prelaunched()
        gc.freeze()


def _discard_prelaunched() -> None:
    """Stop a server launched early that the run did not adopt (none when the module that
    launches it was never loaded: an interrupt came first)."""
    discard = getattr(sys.modules.get("mrtr_cli.transport.stdio.early"), "discard_prelaunched", None)
    if discard is not None:  # None too when the interrupt came while that module loaded
        discard()
