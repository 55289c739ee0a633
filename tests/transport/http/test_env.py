"""The environment httpx2 reads (docs/configuration.md, "Proxies and TLS"): a CA or proxy
variable it cannot use is exit 2 naming the variable (never a crash), and a connection
that fails through a proxy names the proxy, not the server. The CA variables name files
read under the rules of every user file (docs/limits.md): a FIFO, a device or a socket
is refused at once, never opened for reading, whatever the URL's scheme."""

from __future__ import annotations

import http.server
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time

import pytest

from tests.auth_support import self_signed_certificate
from tests.conftest import EXAMPLE_SERVER, SAFETY, url_args

#: No CA or proxy setting of the machine running the tests leaks into a case (an empty
#: variable is not set, for httpx2; an empty lower-case one would also unset its upper-case twin).
QUIET = {name: "" for name in ("SSL_CERT_FILE", "SSL_CERT_DIR", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")}


@pytest.fixture(scope="module")
def url(http_servers):
    return http_servers.start(EXAMPLE_SERVER)


@pytest.fixture(scope="module")
def garbage_pem(tmp_path_factory):
    path = tmp_path_factory.mktemp("ca") / "garbage.pem"
    path.write_text("not a certificate\n")
    return str(path)


@pytest.mark.parametrize(("name", "value", "says"), [
    ("SSL_CERT_FILE", "/nonexistent", "SSL_CERT_FILE=/nonexistent: no such file (a CA bundle for HTTPS)"),
    ("SSL_CERT_FILE", "/", "SSL_CERT_FILE=/: a directory, not a regular file (a CA bundle for HTTPS)"),
    ("SSL_CERT_FILE", "GARBAGE", "SSL_CERT_FILE=GARBAGE: holds no PEM certificate (a CA bundle for HTTPS)"),
    ("SSL_CERT_DIR", "/nonexistent", "SSL_CERT_DIR=/nonexistent: no such directory"),
    ("ALL_PROXY", "socks5://127.0.0.1:1", "ALL_PROXY=socks5://127.0.0.1:1: SOCKS proxies are not supported"),
    ("https_proxy", "socks5h://127.0.0.1:1", "https_proxy=socks5h://127.0.0.1:1: SOCKS proxies are not supported"),
    ("HTTP_PROXY", "ftp://127.0.0.1:21", "HTTP_PROXY=ftp://127.0.0.1:21: not an HTTP proxy"),
    ("HTTP_PROXY", "http://[::1", "HTTP_PROXY=http://[::1: not a valid proxy URL"),
    ("http_proxy", "http://user:secret@[::1", "http_proxy=http://user:***@[::1: not a valid proxy URL"),
])
def test_a_variable_httpx2_cannot_use_is_exit_2_naming_it(mrtr, url, garbage_pem, name, value, says):
    value = value.replace("GARBAGE", garbage_pem)
    r = mrtr(*url_args(url), "tools", env={**QUIET, name: value})
    assert r.code == 2, r.stderr
    assert r.stderr.startswith("mrtr: error: " + says.replace("GARBAGE", garbage_pem)), r.stderr
    assert "Traceback" not in r.stderr and "secret" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 2  # the error and its hint


def test_ssl_cert_dir_is_not_read_when_ssl_cert_file_is_set(mrtr, url):
    r = mrtr(*url_args(url), "tools", env={**QUIET, "SSL_CERT_FILE": "/nonexistent", "SSL_CERT_DIR": "/nonexistent"})
    assert r.code == 2, r.stderr
    assert "SSL_CERT_FILE=/nonexistent" in r.stderr and "SSL_CERT_DIR" not in r.stderr


def test_a_dead_proxy_is_named_not_the_server(mrtr, url):
    r = mrtr(*url_args(url), "tools", env={**QUIET, "HTTP_PROXY": "http://127.0.0.1:1"})
    assert r.code == 3, r.stderr
    assert f"cannot connect to {url} through the proxy http://127.0.0.1:1 (HTTP_PROXY)" in r.stderr
    assert "NO_PROXY" in r.stderr and "is the server running" not in r.stderr


def test_no_proxy_localhost_does_not_cover_127_0_0_1_but_a_block_or_star_does(mrtr, url):
    dead = {**QUIET, "HTTP_PROXY": "http://127.0.0.1:1"}
    r = mrtr(*url_args(url), "tools", env={**dead, "NO_PROXY": "localhost"})
    assert r.code == 3, r.stderr
    assert "through the proxy http://127.0.0.1:1 (HTTP_PROXY)" in r.stderr
    for no_proxy in ("localhost,127.0.0.0/8", "*"):
        r = mrtr(*url_args(url), "tools", env={**dead, "NO_PROXY": no_proxy})
        assert r.code == 0, (no_proxy, r.stderr)


@pytest.mark.parametrize("command", [["--url", "URL", "auth", "login"], ["auth", "logout", "--all"]])
def test_auth_with_a_bad_ca_file_is_exit_2(mrtr, url, command):
    r = mrtr(*[url if word == "URL" else word for word in command], env={**QUIET, "SSL_CERT_FILE": "/nonexistent"})
    assert r.code == 2, r.stderr
    assert r.stderr.startswith("mrtr: error: SSL_CERT_FILE=/nonexistent: no such file"), r.stderr


def test_oauth_discovery_through_a_dead_proxy_names_it(mrtr, url):
    r = mrtr(*url_args(url), "auth", "login", env={**QUIET, "HTTP_PROXY": "http://127.0.0.1:1"})
    assert r.code == 8, r.stderr
    assert "cannot be reached (ConnectError through the proxy http://127.0.0.1:1 (HTTP_PROXY))" in r.stderr


def _self_signed(directory, name):
    """A self-signed certificate for 127.0.0.1 and its key, as (cert path, key path)."""
    folder = directory / name
    folder.mkdir()
    return self_signed_certificate(folder)


@pytest.fixture(scope="module")
def tls_url(tmp_path_factory):
    """An HTTPS listener on 127.0.0.1 whose certificate no CA signed (the handshake is
    all that is tested), and another self-signed certificate to trust instead."""
    directory = tmp_path_factory.mktemp("tls")
    cert, key = _self_signed(directory, "server")
    other, _ = _self_signed(directory, "other")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.handle_error = lambda request, address: None  # the client's refused handshakes
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{server.server_address[1]}/mcp", other
    server.shutdown()
    server.server_close()


def test_an_unverified_certificate_names_the_ca_setting_not_the_server(mrtr, tls_url):
    url, other = tls_url
    r = mrtr(*url_args(url), "tools", env={**QUIET, "SSL_CERT_FILE": other})
    assert r.code == 3, r.stderr
    assert "CERTIFICATE_VERIFY_FAILED" in r.stderr and "is the server running" not in r.stderr
    assert f"the server's certificate is not signed by a CA in SSL_CERT_FILE={other}" in r.stderr
    r = mrtr(*url_args(url), "tools", env=QUIET)
    assert r.code == 3, r.stderr
    assert "set SSL_CERT_FILE to a CA bundle" in r.stderr and "is the server running" not in r.stderr


# ---------------------------------------------------------------------- CA files are user files
#: A secret each run below carries (a header the example server ignores): never in any output.
SECRET = "b3arer-s3cret-0f9e"
WITH_SECRET = ("-H", f"Authorization: Bearer {SECRET}")


def no_secret(r) -> None:
    assert SECRET not in r.stdout and SECRET not in r.stderr and "Traceback" not in r.stderr


def _not_a_file(tmp_path, kind: str) -> str:
    """A path of `kind`: a FIFO nobody writes to, a device, a socket nobody accepts on."""
    if kind == "fifo":
        os.mkfifo(tmp_path / "ca.fifo")
        return str(tmp_path / "ca.fifo")
    if kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(tmp_path / "ca.sock"))  # kept bound for the run; closed with the test's tmp_path
        _not_a_file.sockets.append(sock)  # type: ignore[attr-defined]
        return str(tmp_path / "ca.sock")
    return "/dev/zero"


_not_a_file.sockets = []  # type: ignore[attr-defined]


@pytest.mark.parametrize(("kind", "says"), [("fifo", "a FIFO (named pipe), not a regular file"),
                                            ("device", "a character device, not a regular file"),
                                            ("socket", "a socket, not a regular file")])
def test_ssl_cert_file_naming_what_is_no_file_is_exit_2_at_once_even_for_http(mrtr, url, tmp_path, kind, says):
    path = _not_a_file(tmp_path, kind)
    r = mrtr(*WITH_SECRET, *url_args(url), "tools", env={**QUIET, "SSL_CERT_FILE": path}, timeout=SAFETY)
    assert r.code == 2, r.stderr
    assert r.stderr.startswith(f"mrtr: error: SSL_CERT_FILE={path}: {says} (a CA bundle for HTTPS)"), r.stderr
    no_secret(r)


def test_ssl_cert_dir_holding_a_fifo_under_a_hashed_name_is_exit_2_at_once(mrtr, url, tmp_path):
    folder = tmp_path / "certs"
    folder.mkdir()
    (folder / "README").write_text("not read by OpenSSL\n")
    os.mkfifo(folder / "unrelated.fifo")  # a name OpenSSL never looks up: no harm
    r = mrtr(*WITH_SECRET, *url_args(url), "tools", env={**QUIET, "SSL_CERT_DIR": str(folder)}, timeout=SAFETY)
    assert r.code == 0, r.stderr
    no_secret(r)
    os.mkfifo(folder / "0a1b2c3d.0")
    r = mrtr(*WITH_SECRET, *url_args(url), "tools", env={**QUIET, "SSL_CERT_DIR": str(folder)}, timeout=SAFETY)
    assert r.code == 2, r.stderr
    assert r.stderr.startswith(f"mrtr: error: SSL_CERT_DIR={folder}: 0a1b2c3d.0 in it: a FIFO (named pipe), "
                               "not a regular file"), r.stderr
    no_secret(r)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command for a subject hash")
def test_ssl_cert_dir_with_a_fifo_where_the_handshake_looks_is_refused_not_a_hang(mrtr, tls_url, tmp_path):
    """OpenSSL reads an `SSL_CERT_DIR` entry during the handshake, by the hash of the
    issuer's name: a FIFO there blocked the handshake for ever."""
    url, other = tls_url
    subject_hash = subprocess.run(["openssl", "x509", "-subject_hash", "-noout", "-in", other], capture_output=True,
                                  text=True, check=True, timeout=60).stdout.strip()
    folder = tmp_path / "certs"
    folder.mkdir()
    os.mkfifo(folder / f"{subject_hash}.0")
    r = mrtr(*WITH_SECRET, *url_args(url), "tools", env={**QUIET, "SSL_CERT_DIR": str(folder)}, timeout=SAFETY)
    assert r.code == 2, r.stderr
    assert f"SSL_CERT_DIR={folder}: {subject_hash}.0 in it: a FIFO (named pipe)" in r.stderr
    no_secret(r)


def test_sslkeylogfile_a_fifo_nobody_reads_is_exit_2_naming_it(mrtr, url, tls_url, tmp_path):
    """`ssl.create_default_context` opens `SSLKEYLOGFILE` to append TLS keys when a CA
    variable is set: a FIFO with no reader blocked that open for ever."""
    _url, other = tls_url
    fifo = tmp_path / "keys.fifo"
    os.mkfifo(fifo)
    r = mrtr(*WITH_SECRET, *url_args(url), "tools", env={**QUIET, "SSL_CERT_FILE": other, "SSLKEYLOGFILE": str(fifo)},
             timeout=60)
    assert r.code == 2, r.stderr
    assert r.stderr.startswith(f"mrtr: error: SSLKEYLOGFILE={fifo}: a FIFO no process reads"), r.stderr
    no_secret(r)
    keys = tmp_path / "keys.log"  # a file is written as Python would write it
    r = mrtr(*WITH_SECRET, *url_args(url), "tools", env={**QUIET, "SSL_CERT_FILE": other, "SSLKEYLOGFILE": str(keys)},
             timeout=60)
    assert r.code == 0, r.stderr
    no_secret(r)


def test_a_run_without_https_loads_no_ca_certificates(url, tls_url, monkeypatch):
    """With no CA variable, the system's certificates are loaded at the first TLS
    handshake: making a client and a plain http:// exchange load none."""
    import httpcore2
    import httpx2

    from mrtr_cli.transport.http.env import new_client

    for name in QUIET:
        monkeypatch.delenv(name, raising=False)
    loads: list[float] = []
    real = httpcore2.default_ssl_context

    def counted(*args, **kwargs):
        loads.append(time.monotonic())
        return real(*args, **kwargs)

    monkeypatch.setattr(httpcore2, "default_ssl_context", counted)
    with new_client(timeout=30) as client:
        assert client.post(url, json={}).status_code  # an answer, whatever it is
        assert loads == []
        with pytest.raises(httpx2.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            client.get(tls_url[0])  # verified against the system's CAs, which do not know it
        assert len(loads) == 1
        with pytest.raises(httpx2.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            client.get(tls_url[0])
        assert len(loads) == 1  # once per client
