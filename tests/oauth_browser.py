#!/usr/bin/env python
"""A stand-in web browser for the sign-in tests and the README: set `BROWSER` to this file
(`BROWSER="$PWD/tests/oauth_browser.py"`; Python's `webbrowser` runs `BROWSER` as one program, so
`BROWSER="python tests/oauth_browser.py"` would not work) or to a command running it.

`python tests/oauth_browser.py URL` behaves as a browser launcher does: it returns at once
(exit 0) and a detached child process "opens" URL: it GETs it with httpx2 and follows every
redirect the way a browser would, the last one included (the authorization server's redirect to
the client's 127.0.0.1 loopback callback), then exits.

Environment:
- `OAUTH_BROWSER_LOG` (required): a file to which one JSON line per event is appended:
  `{"event": "open", "url": ...}` when launched, `{"event": "visit", "url", "status",
  "location"}` per page fetched, then `{"event": "done", "status", "body"}` (the final page's
  status and first 500 characters) or `{"event": "error", "error": ...}`.
- `OAUTH_BROWSER_WAIT=1`: do the visits in the foreground (the launcher returns when done).
- `OAUTH_BROWSER_FORGE_FIRST=1`: before following a redirect that carries `state`, first visit
  the same URL with `state=forged` (as another page might), recorded as
  `{"event": "forged", "url", "status"}`.
- `OAUTH_BROWSER_STOP_AT=PREFIX`: do not visit a redirect whose URL starts with PREFIX (such as
  `http://127.0.0.1`): record it as `{"event": "stopped", "url": ...}` and end there; this is
  what a person using `--no-browser` copies from the address bar.

`read_log(path)` and `follow(url, stop_at=...)` are for tests to import.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

MAX_HOPS = 20
TIMEOUT = 60.0


def log(path: str, **event: Any) -> None:
    event["time"] = time.time()
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(event) + "\n")


def read_log(path: Path | str) -> list[dict[str, Any]]:
    """The events the browser recorded in `path` (empty when it never ran)."""
    p = Path(path)
    if not p.exists():
        return []
    return [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]


def follow(url: str, *, stop_at: str | None = None, record: str | None = None) -> dict[str, Any]:
    """GET `url` and follow redirects as a browser would (a relative Location is resolved;
    cookies kept). Returns {"visited": [urls], "stopped": url-or-None, "status": final status,
    "body": final body text}. With `stop_at`, a redirect to a URL starting with it is not
    fetched but returned as "stopped"."""
    import httpx2

    visited: list[str] = []
    forge = os.environ.get("OAUTH_BROWSER_FORGE_FIRST") == "1"
    with httpx2.Client(timeout=TIMEOUT, follow_redirects=False) as client:
        current = url
        for _ in range(MAX_HOPS):
            if stop_at and visited and current.startswith(stop_at):
                if record:
                    log(record, event="stopped", url=current)
                return {"visited": visited, "stopped": current, "status": None, "body": ""}
            response = client.get(current, headers={"accept": "text/html,*/*"})
            visited.append(current)
            location = response.headers.get("location")
            if record:
                log(record, event="visit", url=current, status=response.status_code, location=location)
            if response.is_redirect and location:
                current = str(response.url.join(location))
                if forge and "state=" in current:
                    forge = False
                    forged = re.sub(r"state=[^&]*", "state=forged", current)
                    status = client.get(forged).status_code
                    if record:
                        log(record, event="forged", url=forged, status=status)
                continue
            return {"visited": visited, "stopped": None, "status": response.status_code,
                    "body": response.text[:500]}
    raise RuntimeError("too many redirects")


def run(url: str, record: str) -> int:
    try:
        result = follow(url, stop_at=os.environ.get("OAUTH_BROWSER_STOP_AT") or None, record=record)
    except Exception as exc:  # noqa: BLE001 - recorded for the test to see
        log(record, event="error", error=f"{type(exc).__name__}: {exc}")
        return 1
    if result["stopped"] is None:
        log(record, event="done", status=result["status"], body=result["body"])
    return 0


def main(argv: list[str]) -> int:
    record = os.environ.get("OAUTH_BROWSER_LOG")
    if not record or len(argv) < 2:
        print("usage: OAUTH_BROWSER_LOG=FILE oauth_browser.py URL", file=sys.stderr)
        return 2
    if argv[1] == "--child":
        log(record, event="child", pid=os.getpid())
        return run(argv[2], record)
    url = argv[1]
    log(record, event="open", url=url, argv=argv[1:])
    if os.environ.get("OAUTH_BROWSER_WAIT") == "1":
        return run(url, record)
    subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", url], start_new_session=True,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
