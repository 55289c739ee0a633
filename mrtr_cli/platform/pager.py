"""The pager long help goes through when nothing else is named (docs/commands.md, "Help").

POSIX: `less -FRX` (as git and gh page): quits at once when the text fits the screen
(-F), shows styles (-R), leaves the text on the screen (-X). Windows: `more`, which every
Windows has (it shows styles only in a terminal that reads them itself).
"""

from __future__ import annotations

import sys

#: The default pager command, as words.
DEFAULT_PAGER: list[str] = ["more"] if sys.platform == "win32" else ["less", "-FRX"]
