"""Files and folders only their owner may use: the token store, the state directory.

POSIX: mode 0600 for a file, 0700 for a folder. Windows: modes mean nothing (only the
read-only flag exists); the files are kept in the user's profile (`userdirs`), whose
access list already admits only that user, administrators and the system
(docs/platforms.md). `os.makedirs(..., mode=0o700)` and `os.open(..., 0o600)` are right as
they are on both.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    from mrtr_cli.platform._windows import filemodes as _impl
else:
    from mrtr_cli.platform._posix import filemodes as _impl

#: `owner_only_file(fd)`: the open file `fd` readable and writable by its owner only.
owner_only_file = _impl.owner_only_file
#: `owner_only_folder(path)`: the folder `path` usable by its owner only; never raises.
owner_only_folder = _impl.owner_only_folder
