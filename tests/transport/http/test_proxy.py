"""A proxy that refuses is named as the proxy (docs/configuration.md, "Proxies and TLS"):
HTTP 407 is always the proxy's, a refused CONNECT is the proxy's, and a 502/503/504 through
a proxy that forwards plain HTTP may be either, so both are named. Each is exit 3 naming the
proxy and its variable (its password hidden) with what to change, never evidence about the
server (no fall back to the legacy era, no `--protocol` hint), for the MCP requests and the
sign-in's alike. The proxies are small servers of this file's own on 127.0.0.1."""

from __future__ import annotations

import base64
import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.conftest import EXAMPLE_SERVER, url_args

PASSWORD = "pr0xy-pa55-" + "7" * 12
TOKEN = "bearer-t0ken-" + "5" * 12
CLIENT_SECRET = "client-s3cret-" + "3" * 12
#: No CA or proxy setting of the machine running the tests leaks into a case (an empty
#: variable is not set, for httpx2, and an empty lower-case one unsets its upper-case twin).
QUIET = {name: "" for name in ("SSL_CERT_FILE", "SSL_CERT_DIR", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
                               "http_proxy", "https_proxy", "all_proxy", "no_proxy")}


def proxied(variable: str, value: str, **more: str) -> dict[str, str]:
    """The environment of a case: `variable` (either case) set to `value`, no other proxy or CA."""
    env = {k: v for k, v in QUIET.items() if k.lower() != variable.lower()}
    return {**env, variable: value, **more}
#: Hop-by-hop headers a proxy does not pass on (RFC 9110 section 7.6.1), and those it sets itself.
_NOT_PASSED_ON = {"connection", "keep-alive", "proxy-authorization", "proxy-connection", "transfer-encoding",
                  "content-length", "te", "trailer", "upgrade"}


class Proxy:
    """A forward proxy on 127.0.0.1. A plain-HTTP request (absolute URI) with the right
    `Proxy-Authorization` (user `bob`, `password`) is passed on to the server when `status`
    is None; else the proxy answers `status` itself (407 with a `Proxy-Authenticate`
    challenge, or a gateway status with an HTML page), to the targets that hold `only`
    when it is given (the others are passed on). A CONNECT is answered `connect`. `seen`
    lists each request as (method, target, Mcp-Method header)."""

    def __init__(self, *, status: int | None = None, connect: int = 403, password: str = PASSWORD,
                 only: str | None = None):
        self.seen: list[tuple[str, str, str | None]] = []
        expected = "Basic " + base64.b64encode(f"bob:{password}".encode()).decode()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                outer.seen.append((self.command, self.path, self.headers.get("Mcp-Method")))
                answer = status if only is None or only in self.path else None
                if answer is None and self.headers.get("Proxy-Authorization") == expected:
                    self._pass_on(body)
                    return
                code = 407 if answer is None else answer
                page = f"<html><body>proxy: {code}</body></html>".encode()
                self.send_response(code)
                if code == 407:
                    self.send_header("Proxy-Authenticate", 'Basic realm="corp"')
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def _pass_on(self, body: bytes) -> None:
                target = urlsplit(self.path)
                upstream = http.client.HTTPConnection(target.hostname, target.port, timeout=120)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _NOT_PASSED_ON}
                upstream.request(self.command, target.path + (f"?{target.query}" if target.query else ""),
                                 body=body or None, headers=headers)
                reply = upstream.getresponse()
                data = reply.read()  # the server's response stream ends with its final response
                self.send_response(reply.status)
                for name, value in reply.getheaders():
                    if name.lower() not in _NOT_PASSED_ON:
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                upstream.close()

            do_GET = do_POST = do_DELETE = _answer  # noqa: N815 - the names http.server calls

            def do_CONNECT(self) -> None:
                outer.seen.append(("CONNECT", self.path, None))
                self.send_response(connect)
                if connect == 407:
                    self.send_header("Proxy-Authenticate", 'Basic realm="corp"')
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def url(self, *, password: str | None = PASSWORD) -> str:
        """The proxy's URL for a proxy variable, with user `bob` and `password` (None: none)."""
        auth = "" if password is None else f"bob:{password}@"
        return f"http://{auth}127.0.0.1:{self.server.server_address[1]}"

    def shown(self) -> str:
        """The proxy's URL as mrtr shows it: the password hidden."""
        return f"http://bob:***@127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def proxies(started):
    return lambda **options: started(Proxy, **options)


@pytest.fixture(scope="module")
def url(http_servers):
    return http_servers.start(EXAMPLE_SERVER)


def _checked(run: Any, code: int = 3) -> tuple[str, str]:
    """(the error line, its hint lines) of a run that failed with `code`, with no secret in
    any output and nothing that blames the server's protocol."""
    text = run.stdout + run.stderr
    for secret in (PASSWORD, TOKEN, CLIENT_SECRET):
        assert secret not in text, text
    assert run.code == code, run.stderr
    assert "Traceback" not in run.stderr and "--protocol" not in run.stderr, run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("mrtr: error: ")]
    assert len(errors) == 1, run.stderr
    after = run.stderr.split(errors[0], 1)[1]
    return errors[0], after


def test_a_proxy_with_the_right_password_passes_requests_on(mrtr, url, proxies):
    """The control: this proxy does pass requests on, so the 407s below are its refusals."""
    proxy = proxies()
    r = mrtr(*url_args(url), "-vv", "tools", env=proxied("HTTP_PROXY", proxy.url(), TOK=TOKEN),
             timeout=300)
    assert r.code == 0, r.stderr
    assert "update_work_item" in r.stdout
    assert PASSWORD not in r.stdout + r.stderr
    assert proxy.seen and all(target.startswith(url) for _, target, _ in proxy.seen)


@pytest.mark.parametrize("password", [PASSWORD[::-1], None], ids=["wrong-password", "no-password"])
def test_a_407_names_the_proxy_and_its_variable_not_the_server(mrtr, url, proxies, password):
    proxy = proxies()
    r = mrtr(*url_args(url), "-vv", "--bearer-token-env", "TOK", "tools",
             env=proxied("http_proxy", proxy.url(password=password), TOK=TOKEN))
    line, hint = _checked(r)
    named = proxy.shown() if password else proxy.url(password=None)
    said = ("refused the user and password in http_proxy" if password
            else "asks for credentials, and http_proxy gives none")
    assert line == (f"mrtr: error: the proxy {named} (http_proxy) {said} (HTTP 407 Proxy Authentication Required; "
                    f"requested: {url})"), r.stderr
    assert "put the proxy's user and password in http_proxy" in hint and "NO_PROXY" in hint, hint
    # The era probe takes the 407 for no evidence of an older server: nothing is sent after it.
    assert [mcp_method for _, _, mcp_method in proxy.seen] == ["server/discover"], proxy.seen


def test_a_407_without_a_proxy_set_says_a_proxy_on_the_way_wants_credentials(mrtr, proxies):
    """A 407 from where no proxy is set (an intercepting proxy answers for the server)."""
    in_the_way = proxies(status=407)
    target = f"http://127.0.0.1:{in_the_way.server.server_address[1]}/mcp"
    r = mrtr(*url_args(target), "tools", env=QUIET)
    line, hint = _checked(r)
    assert line.startswith(f"mrtr: error: HTTP 407 (Proxy Authentication Required) for {target}: a proxy between "
                           "mrtr and the server wants credentials, and no proxy is set for this URL"), line
    assert "HTTPS_PROXY or HTTP_PROXY" in hint, hint


@pytest.mark.parametrize("status", [502, 503, 504])
def test_a_gateway_status_through_a_forwarding_proxy_names_both_and_no_protocol_hint(mrtr, url, proxies, status):
    proxy = proxies(status=status)
    r = mrtr(*url_args(url), "-vv", "tools", env=proxied("HTTP_PROXY", proxy.url()))
    line, hint = _checked(r)
    assert line.startswith(f"mrtr: error: HTTP {status} from the proxy {proxy.shown()} (HTTP_PROXY), or from {url} "
                           "behind it"), line
    assert f"response body: <html><body>proxy: {status}</body></html>" in hint
    assert "add its host to NO_PROXY or unset HTTP_PROXY" in hint, hint


@pytest.mark.parametrize("connect", [403, 407])
def test_a_refused_connect_names_the_proxy(mrtr, proxies, connect):
    proxy = proxies(connect=connect)
    target = "https://127.0.0.1:9/mcp"  # never reached: the proxy refuses the tunnel
    r = mrtr(*url_args(target), "-vv", "--bearer-token-env", "TOK", "tools",
             env=proxied("HTTPS_PROXY", proxy.url(), TOK=TOKEN))
    line, hint = _checked(r)
    if connect == 403:
        assert line == (f"mrtr: error: the proxy {proxy.shown()} (HTTPS_PROXY) refused to open a connection (CONNECT) "
                        f"to 127.0.0.1:9 for {target}: 403 Forbidden"), line
        assert "add its host to NO_PROXY or unset HTTPS_PROXY" in hint, hint
    else:
        assert line.startswith(f"mrtr: error: the proxy {proxy.shown()} (HTTPS_PROXY) refused the user and password "
                               "in HTTPS_PROXY (HTTP 407"), line
    # Not taken for a broken stream of an older server: the tunnel was asked for once.
    assert [method for method, _, _ in proxy.seen] == ["CONNECT"], proxy.seen


@pytest.mark.parametrize(("variable", "scheme", "proxy_options", "says"), [
    ("HTTP_PROXY", "http", {"password": PASSWORD[::-1]}, "refused the user and password in HTTP_PROXY (HTTP 407"),
    ("HTTP_PROXY", "http", {"status": 502}, "or from http://127.0.0.1:9/mcp behind it"),
    ("HTTPS_PROXY", "https", {"connect": 403}, "refused to open a connection (CONNECT) to 127.0.0.1:9"),
    ("HTTPS_PROXY", "https", {"connect": 407}, "refused the user and password in HTTPS_PROXY (HTTP 407"),
], ids=["407", "502", "connect-403", "connect-407"])
def test_auth_login_names_the_proxy_that_refuses_its_first_request(mrtr, proxies, variable, scheme, proxy_options,
                                                                    says):
    """`auth login` asks the MCP server for its challenge first: a proxy's answer is no
    "this server asks for no sign-in"."""
    proxy = proxies(**proxy_options)
    r = mrtr("--url", f"{scheme}://127.0.0.1:9/mcp", "-vv", "auth", "login", "--client-credentials",
             "--client-id", "ci", "--client-secret-env", "CI_SECRET",
             env=proxied(variable, proxy.url(), CI_SECRET=CLIENT_SECRET))
    line, hint = _checked(r)
    assert line.startswith((f"mrtr: error: the proxy {proxy.shown()} ({variable}) ",
                            f"mrtr: error: HTTP 502 from the proxy {proxy.shown()} ({variable})")), line
    assert says in line, line
    assert "NO_PROXY" in hint, hint
    assert len(proxy.seen) == 1, proxy.seen


@pytest.mark.parametrize("status", [407, 502])
def test_a_sign_in_request_the_proxy_refuses_names_the_proxy(mrtr, proxies, scripted, status):
    """The MCP server's 401 comes through; the proxy refuses the metadata request after it."""
    mcp = scripted()
    mcp.docs["/mcp"] = (401, {"error": "unauthorized"}, {"WWW-Authenticate": "Bearer"})
    proxy = proxies(status=status, only="/.well-known/")
    metadata = mcp.url("/.well-known/oauth-protected-resource/mcp")
    r = mrtr(*url_args(mcp.url("/mcp")), "-vv", "auth", "login", "--client-credentials", "--client-id", "ci",
             "--client-secret-env", "CI_SECRET", env=proxied("HTTP_PROXY", proxy.url(), CI_SECRET=CLIENT_SECRET))
    line, hint = _checked(r)
    if status == 407:
        assert line == (f"mrtr: error: the proxy {proxy.shown()} (HTTP_PROXY) refused the user and password in "
                        f"HTTP_PROXY (HTTP 407 Proxy Authentication Required; requested: {metadata})"), line
    else:
        assert line.startswith(f"mrtr: error: HTTP 502 from the proxy {proxy.shown()} (HTTP_PROXY), or from "
                               f"{metadata} behind it"), line
    assert "NO_PROXY" in hint, hint
    assert [target for _, target, _ in proxy.seen] == [mcp.url("/mcp"), metadata], proxy.seen
    assert mcp.fetched == ["/mcp"]  # the metadata request never got past the proxy
