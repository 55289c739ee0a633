"""Redirects of the MCP endpoint (docs/limits.md "Redirects"): followed hop by hop,
every target checked by the one rule on server-given URLs before a byte is sent to it (no
link-local or cloud-metadata address, also by a name that resolves to one; no plain HTTP to
another machine), a POST that a 301/302/303 would turn into a GET refused naming where it
points, credentials kept to the user's origin, and a challenge attributed to the origin
that sent it. The GET stream and the DELETE of a 2025-11-25 session go through the same
rule. What must not be contacted is tested in a loopback-only network namespace, with a
listener on 169.254.169.254 proving that no connection arrived."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import asdict
from typing import Any

import pytest

from tests.auth_support import self_signed_certificate
from tests.conftest import EXAMPLE_SERVER, ROOT, SAFETY, clean_env, url_args
from tests.http_doubles import TOKEN, Answering, Case, Seen, redirecting

#: No proxy setting of the machine running the tests leaks into a case.
QUIET = {name: "" for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")}


@pytest.fixture
def servers(started):
    return lambda answer, **options: started(Answering, answer, **options)


@pytest.fixture(scope="module")
def example_url(http_servers):
    return http_servers.start(EXAMPLE_SERVER)


def _no_secret(run: Any) -> None:
    assert TOKEN not in run.stdout + run.stderr, run.stderr
    assert "Traceback" not in run.stderr, run.stderr


def _error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("mrtr: error: ")]
    assert len(lines) == 1, stderr
    return lines[0]


# ---------------------------------------------------------------------- on 127.0.0.1
@pytest.mark.parametrize("status", [301, 302, 303])
def test_a_post_that_a_redirect_would_turn_into_a_get_is_an_error_naming_the_location(mrtr, servers, status):
    target = servers(lambda seen: (200, {}, b""))
    first = servers(redirecting(status, target.url("/mcp/v2")))
    r = mrtr(*url_args(first.url()), "--bearer-token-env", "TOK", "tools", env={**QUIET, "TOK": TOKEN})
    _no_secret(r)
    assert r.code == 3, r.stderr
    assert _error_line(r.stderr) == (
        f"mrtr: error: {first.url()} redirects (HTTP {status}) to {target.url('/mcp/v2')}, which would turn the "
        "POST into a GET; MCP messages go by POST only, so it is not followed"), r.stderr
    assert f"if {target.url('/mcp/v2')} is the MCP endpoint, give it with --url" in r.stderr
    assert "not an MCP endpoint" not in r.stderr and "--protocol" not in r.stderr
    assert target.seen == [] and len(first.seen) == 1  # nothing went there, and no era fallback came after


@pytest.mark.parametrize("token", [True, False], ids=["bearer-token", "oauth-hook"])
def test_a_challenge_after_a_redirect_is_the_other_origins_and_gets_no_credentials(mrtr, servers, token):
    """The 401 of the redirect's target is that origin's: it gets no credentials, and its
    challenge starts no sign-in for the server the user named."""
    def other_answer(seen: Seen) -> tuple[int, dict[str, str], bytes]:
        if seen.path == "/mcp":
            return 401, {"WWW-Authenticate": f'Bearer resource_metadata="{other.url("/prm", host="localhost")}"'}, b""
        return 404, {}, b""

    other = servers(other_answer)
    moved = other.url(host="localhost")  # another origin than 127.0.0.1
    first = servers(redirecting(307, moved))
    args = ["--bearer-token-env", "TOK"] if token else []
    r = mrtr(*url_args(first.url()), *args, "tools", env={**QUIET, "TOK": TOKEN, "MRTR_NO_INPUT": "1"})
    _no_secret(r)
    assert r.code == 8, r.stderr
    assert _error_line(r.stderr) == (f"mrtr: error: HTTP 401: authentication required by {moved} (where {first.url()} "
                                     "redirected)"), r.stderr
    assert "mrtr sends no credentials after a redirect to another origin" in r.stderr
    assert "auth login" not in r.stderr
    assert [s.path for s in other.seen] == ["/mcp"], other.seen  # its resource metadata was never asked for
    assert all("authorization" not in {k.lower() for k in s.headers} for s in other.seen), other.seen
    assert [s.path for s in first.seen] == ["/mcp"], first.seen  # no sign-in at the user's server either
    if token:
        assert first.seen[0].headers.get("Authorization") == f"Bearer {TOKEN}"  # the user's origin gets it


def test_a_redirect_to_another_origin_on_this_machine_is_followed(mrtr, servers, example_url):
    """A 307/308 keeps the POST and its body; the headers the user set stay home."""
    moved = example_url.replace("127.0.0.1", "localhost")
    first = servers(redirecting(308, moved))
    r = mrtr(*url_args(first.url()), "-H", f"X-Api-Key: {TOKEN}", "-vv", "tools", env=QUIET)
    _no_secret(r)
    assert r.code == 0, r.stderr
    assert "update_work_item" in r.stdout
    assert f"-> HTTP POST {moved}" in r.stderr  # each hop is traced
    assert all(s.headers.get("X-Api-Key") == TOKEN for s in first.seen)


def test_a_redirect_within_the_origin_is_followed(mrtr, example_url):
    """The SDK's server redirects `/mcp/` to `/mcp` (HTTP 307)."""
    r = mrtr(*url_args(example_url + "/"), "tools", env=QUIET)
    assert r.code == 0, r.stderr
    assert "update_work_item" in r.stdout


def test_a_redirect_loop_ends_after_five_hops(mrtr, servers):
    loop = servers(redirecting(307, "/again"))
    r = mrtr(*url_args(loop.url()), "tools", env=QUIET)
    assert r.code == 3, r.stderr
    assert _error_line(r.stderr).startswith(f"mrtr: error: {loop.url()} redirects more than 5 times"), r.stderr
    assert len(loop.seen) == 6


@pytest.mark.parametrize("location", ["http://[::1", "ftp://127.0.0.1/mcp", "data:,{}"],
                         ids=["bad-port", "not-http", "data"])
def test_a_location_that_is_no_http_url_is_refused(mrtr, servers, location):
    first = servers(redirecting(307, location))
    r = mrtr(*url_args(first.url()), "tools", env=QUIET)
    assert r.code == 3, r.stderr
    assert "which is not a valid http(s) URL; nothing was sent there" in _error_line(r.stderr), r.stderr
    assert len(first.seen) == 1


@pytest.mark.parametrize(("location", "why", "host"), [
    ("http://evil.example\\@{here}/mcp", "holds a backslash", "evil.example"),
    ("http://user:pw@{here}/mcp", "has a user name or password", "127.0.0.1"),
    ("http://0x7f.1:{port}/mcp", "IPv4 address in another form", "127.0.0.1"),
    ("http://2130706433:{port}/mcp", "IPv4 address in another form", "127.0.0.1"),
    ("/\\evil.example/mcp", "holds a backslash", "evil.example"),
], ids=["backslash", "userinfo", "hex-ipv4", "integer-ipv4", "relative-backslash"])
def test_a_location_a_browser_reads_otherwise_is_refused_naming_the_browsers_host(mrtr, servers, location, why,
                                                                                  host):
    # The target the HTTP client would go to is not the one a browser reads: refused, with
    # one line naming what a browser would visit, and no second request anywhere.
    second = servers(lambda seen: (200, {}, b""))
    here = second.url().split("://", 1)[1].split("/", 1)[0]
    first = servers(redirecting(307, location.format(here=here, port=here.rsplit(":", 1)[1])))
    r = mrtr("--url", first.url(), "tools", env=QUIET)
    assert r.code == 3, r.stderr
    line = _error_line(r.stderr)
    assert why in line and f"a browser goes to host {host}; nothing was sent there" in line, line
    assert len(first.seen) == 1 and second.seen == []


@pytest.mark.parametrize(("path", "sent"), [("/caf\u00e9", "/caf%C3%A9"), ("/\u202ex", "/%E2%80%AEx")],
                         ids=["latin", "bidi"])
def test_a_location_with_a_non_ascii_path_is_followed_percent_encoded(mrtr, servers, path, sent):
    # The server sends the Location in UTF-8; a browser follows it with its path
    # percent-encoded, and so does mrtr (it was an error about the 'ascii' codec).
    second = servers(lambda seen: (404, {}, b""))
    first = servers(redirecting(307, second.url(path).encode().decode("latin-1")))
    r = mrtr("--url", first.url(), "tools", env=QUIET)
    assert "codec" not in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert [seen.path for seen in second.seen][:1] == [sent], (second.seen, r.stderr)


@pytest.mark.parametrize(("location", "shown", "why"), [
    ("{base}/\u0085x", "{base}/\\x85x", "holds spaces, tabs, line breaks or control characters"),
    ("{base}/\x1b[2Jx", "{base}/\\x1b[2Jx", "holds spaces, tabs, line breaks or control characters"),
    ("https://\u0435xample.com/", "https://\u0435xample.com/",
     "not ASCII; a browser visits its punycode): a browser goes to host xn--xample-2of.com"),
], ids=["c1", "esc", "cyrillic-host"])
def test_a_refused_location_is_named_once_escaped_with_the_reason(mrtr, servers, location, shown, why):
    # The error says it was a redirect, where to (escaped once: one backslash, as every
    # message shows server text) and why it is not followed; nothing reaches the target.
    second = servers(lambda seen: (200, {}, b""))
    first = servers(redirecting(307, location.format(base=second.url("")).encode().decode("latin-1")))
    r = mrtr("--url", first.url(), "tools", env=QUIET)
    assert r.code == 3, r.stderr
    line = _error_line(r.stderr)
    assert line.startswith(f"mrtr: error: {first.url()} redirects (HTTP 307) to "
                           f"{shown.format(base=second.url(''))}, wh"), line
    assert why in line and line.endswith("; nothing was sent there"), line
    assert "\\\\" not in line and "'" not in line and second.seen == [], line


# ---------------------------------------------------------------------- in a loopback-only namespace
def _netns_available() -> bool:
    if not shutil.which("unshare") or not shutil.which("ip"):
        return False
    try:
        return subprocess.run(["unshare", "-n", "-m", "sh", "-c",
                               "ip link set lo up && ip addr add 169.254.169.254/32 dev lo && "
                               "mount --bind /etc/hosts /etc/hosts"], capture_output=True,
                               timeout=SAFETY).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


CASES = [
    Case("post-307-metadata-address", 307),
    Case("post-308-metadata-address", 308),
    Case("post-302-metadata-address", 302),
    Case("post-303-metadata-address", 303),
    Case("post-301-name-resolving-to-it", 301, "https://sneaky.test:{port}/{case}"),
    Case("post-307-name-resolving-to-it", 307, "https://sneaky.test:{port}/{case}"),
    Case("post-307-plain-http-elsewhere", 307, "http://plain.test:{port}/{case}"),
    Case("post-307-ipv4-mapped", 307, "http://[::ffff:169.254.169.254]:{port}/{case}"),
    Case("https-to-plain-http-elsewhere", 307, "http://plain.test:{port}/{case}", https=True),
    Case("https-to-name-resolving-to-it", 308, "https://sneaky.test:{port}/{case}", https=True),
    Case("legacy-get-and-delete", args=["--protocol", "2025-11-25"]),
]


@pytest.fixture(scope="module")
def namespace_runs(tmp_path_factory):
    """Every case of `CASES` run once inside one loopback-only namespace (with its own
    /etc/hosts naming sneaky.test and plain.test 169.254.169.254, which is on lo)."""
    tmp = tmp_path_factory.mktemp("redirects")
    (tmp / "tls").mkdir()
    spec = tmp / "spec.json"
    spec.write_text(json.dumps({"cases": [asdict(c) for c in CASES],
                                "cert": self_signed_certificate(tmp / "tls")}))
    hosts = tmp / "hosts"
    hosts.write_text("127.0.0.1 localhost\n169.254.169.254 sneaky.test plain.test\n")
    script = ('ip link set lo up && ip addr add 169.254.169.254/32 dev lo && mount --bind "$2" /etc/hosts && '
              'exec "$0" -m tests.http_doubles "$1"')
    proc = subprocess.run(["unshare", "-n", "-m", "sh", "-c", script, sys.executable, str(spec), str(hosts)],
                          capture_output=True, text=True, cwd=ROOT, env=clean_env(tmp), timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


needs_netns = pytest.mark.skipif(not _netns_available(), reason="needs unshare -n -m and ip (a loopback-only "
                                                                "network namespace with its own /etc/hosts)")


@needs_netns
def test_no_connection_reached_the_metadata_address(namespace_runs):
    """The listener on 169.254.169.254 got the control connection of the test's own, and no other."""
    connections = namespace_runs["connections"]
    assert len(connections) == 1 and connections[0].startswith("GET /control "), connections


@needs_netns
def test_the_connect_time_check_refuses_a_name_that_resolves_to_the_metadata_address(namespace_runs):
    assert namespace_runs["guard"]["said"] == "refused 169.254.169.254"


@needs_netns
@pytest.mark.parametrize("case", [c for c in CASES if c.name != "legacy-get-and-delete"], ids=lambda c: c.name)
def test_a_redirect_where_no_request_may_go_is_refused(namespace_runs, case):
    run = namespace_runs["runs"][case.name]
    assert TOKEN not in run["stdout"] + run["stderr"]
    assert "Traceback" not in run["stderr"]
    assert run["code"] == 3, run["stderr"]
    line = _error_line(run["stderr"])
    if "plain-http" in case.name:
        assert "which is plain HTTP to another machine; nothing was sent there" in line, line
    elif "name-resolving" in case.name:
        assert "which resolves to 169.254.169.254, a link-local or cloud-metadata address" in line, line
    else:
        assert "which is a link-local or cloud-metadata address; mrtr never sends requests there" in line, line
    assert f"redirects (HTTP {case.status}) to " in line, line
    assert run["seen"] == [["POST", "/mcp"]], run["seen"]  # one request, and no era fallback after it
    assert not [c for c in namespace_runs["connections"] if case.name in c], namespace_runs["connections"]


@needs_netns
def test_the_get_stream_and_the_delete_follow_the_same_rule(namespace_runs):
    run = namespace_runs["runs"]["legacy-get-and-delete"]
    assert TOKEN not in run["stdout"] + run["stderr"]
    assert run["code"] == 0, run["stderr"]
    assert "echo" in run["stdout"]
    assert run["got_get"] and ["DELETE", "/mcp"] in run["seen"], run["seen"]
    assert not [c for c in namespace_runs["connections"] if "legacy" in c], namespace_runs["connections"]


def test_a_hop_within_the_origin_gets_a_new_dpop_proof_for_its_target(servers):
    # A DPoP proof names one method and URL and is used once (RFC 9449 sections 4.2 and
    # 11.1): the proof sent to /mcp must not go again to /moved, which gets its own.
    import httpx2
    jwt = pytest.importorskip("jwt")
    from mrtr_cli.auth.dpop import ProofKey
    from mrtr_cli.transport.http.redirects import send_following

    def answer(seen: Seen):
        if seen.path == "/mcp":
            return 307, {"Location": "/moved?x=1"}, b""
        return 200, {"Content-Type": "application/json"}, b"{}"

    server = servers(answer)
    key = ProofKey.generate()
    made: list[tuple[str, str]] = []

    def reproof(method: str, url: str) -> dict[str, str]:
        made.append((method, url))
        return {"Authorization": "DPoP tok", "DPoP": key.proof(method, url, access_token="tok")}

    first = key.proof("POST", server.url(), access_token="tok")
    with httpx2.Client(follow_redirects=False) as client:
        request = client.build_request("POST", server.url(), content=b"{}",
                                       headers={"Authorization": "DPoP tok", "DPoP": first})
        send_following(client, request, private=(), reproof=reproof).close()
    assert [s.path for s in server.seen] == ["/mcp", "/moved?x=1"]
    assert made == [("POST", server.url("/moved?x=1"))]
    claims = [jwt.decode(s.headers["DPoP"], options={"verify_signature": False}) for s in server.seen]
    assert [c["htu"] for c in claims] == [server.url(), server.url("/moved")]
    assert claims[0]["jti"] != claims[1]["jti"]
    assert server.seen[1].headers["Authorization"] == "DPoP tok"
