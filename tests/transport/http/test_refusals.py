"""HTTP 403 from the MCP endpoint: its hint says what the request carried. One that carried
no Authorization header is told how to pass credentials; one that carried credentials is
told that the server refuses them (docs/oauth.md)."""

from __future__ import annotations

import pytest

from tests.conftest import url_args
from tests.http_doubles import TOKEN, Answering, Seen

#: No proxy setting of the machine running the tests leaks into a case.
QUIET = {name: "" for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")}
PASS_CREDENTIALS = "pass credentials with -H 'Authorization: Bearer ...' or --bearer-token-env VAR"


def _forbidden(seen: Seen) -> tuple[int, dict[str, str], bytes]:
    return 403, {}, b"forbidden"


@pytest.mark.parametrize("how", ["nothing", "bearer-token-env", "header"])
def test_a_403_hint_depends_on_whether_credentials_were_sent(mrtr, started, how):
    server = started(Answering, _forbidden)
    args = {"nothing": [], "bearer-token-env": ["--bearer-token-env", "TOK"],
            "header": ["-H", f"Authorization: Bearer {TOKEN}"]}[how]
    r = mrtr(*url_args(server.url()), *args, "tools", env={**QUIET, "TOK": TOKEN, "MRTR_NO_INPUT": "1"})
    assert r.code == 8, r.stderr
    assert TOKEN not in r.stdout + r.stderr and "Traceback" not in r.stderr
    assert f"mrtr: error: HTTP 403: authentication refused by {server.url()}" in r.stderr
    sent = [{k.lower(): v for k, v in s.headers.items()}.get("authorization") for s in server.seen]
    if how == "nothing":
        assert sent and not any(sent), sent
        assert PASS_CREDENTIALS in r.stderr, r.stderr
        assert "signed-in" not in r.stderr and "refuses the credentials" not in r.stderr
    else:
        assert sent and all(sent), sent
        assert "the server refuses the credentials this request carried (its Authorization header)" in r.stderr
        assert PASS_CREDENTIALS not in r.stderr and "signed-in" not in r.stderr
