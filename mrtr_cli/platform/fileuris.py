"""The local path a `file://` URI names: `file:///srv/x` is `/srv/x` on POSIX, and
`file:///C:/srv/x` is `C:\\srv\\x` on Windows (the standard library's `nturl2path`)."""

from __future__ import annotations

import sys
from urllib.parse import unquote

if sys.platform == "win32":
    from nturl2path import url2pathname as _to_path
else:
    _to_path = unquote


def uri_path(path: str) -> str:
    """The local path of a `file://` URI's path part (percent-decoded)."""
    return _to_path(path)
