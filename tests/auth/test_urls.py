"""Where a URL a server hands mrtr may take a request, in process (mrtr_cli/auth/urls.py
and the one rule it applies, mrtr_cli/transport/http/urlrule.py): valid URLs, HTTPS or plain
HTTP to this machine (or to the user's own origin), never a link-local or cloud-metadata
address, also by a name that resolves to one.
These are fast tests mutation testing runs (tests/README.md "Mutation testing").
"""

from __future__ import annotations

import socket

import pytest

from mrtr_cli.auth.urls import allowed_url, check_resolved, checked_url, resolved_to, shown
from mrtr_cli.errors import AuthError
from mrtr_cli.transport.http import urlrule
from mrtr_cli.transport.http.urlrule import (
    FORBIDDEN,
    PLAIN_HTTP,
    forbidden_address,
    is_loopback,
    is_valid_url,
    origin,
    refusal,
    resolved_refusal,
)

MEMBER = "the authorization server's token_endpoint"


@pytest.mark.parametrize("url", [
    "https://as.example/token", "http://127.0.0.1:8080/x", "https://[::1]:443/", "HTTPS://AS.EXAMPLE/",
    "https://as.example:8443/a?b=c#d", "http://localhost/", "https://xn--fa-hia.de/", "https://XN--MNCHEN-3YA.de/",
    "https://xn--ls8h.la/"])
def test_valid_urls(url):
    assert is_valid_url("https://as.example/a!b") and is_valid_url("https://as.example/~x")
    assert is_valid_url(url)
    assert checked_url(url, MEMBER) == url


@pytest.mark.parametrize("url", [
    None, 5, "", "as.example/token", "ftp://as.example/", "https://", "https:///path", "https://as.example:99999/",
    "https://as.example:x/", "https://as .example/", "https://as.example/a b", "https://as.example/\x00",
    "https://as.example/\x7f", "https://as.example/\x1b[31m", "https://as.example/\u200b", "https://as.example/\u2028",
    " https://as.example/", "https://as.example/\t", "https://[::1/", "javascript:alert(1)", "https://as.example\x85/",
    "https://as.example.0/",  # a last label that is a number: an IPv4 address a browser cannot parse
    # labels `xn--` that are no valid punycode (a browser's IDNA step refuses them; Node: Invalid URL)
    "https://xn--a.com/", "https://xn--.com/", "https://a.xn--zz/", "https://xn--abc-.com/", "https://XN--A.com/",
    "https://xn--mnchen-3ya.de@xn--a.com/"])
def test_invalid_urls(url):
    assert not is_valid_url(url)
    with pytest.raises(AuthError) as caught:
        checked_url(url, MEMBER)
    assert caught.value.message.startswith(f"{MEMBER} is not a valid http(s) URL: ")
    assert caught.value.message.endswith("; nothing was sent there")


def test_an_invalid_url_is_quoted_on_one_line():
    with pytest.raises(AuthError) as caught:
        checked_url("https://x/\n\x1b[2J" + "a" * 300, MEMBER)
    assert "\n" not in caught.value.message and "\x1b" not in caught.value.message
    with pytest.raises(AuthError) as caught:
        checked_url("ftp://as.example/x", MEMBER)
    assert caught.value.message == f"{MEMBER} is not a valid http(s) URL: 'ftp://as.example/x'; nothing was sent there"


def test_a_refused_url_is_shown_escaped_once_as_every_message_shows_server_text():
    # Never `repr`: a backslash the server sent is one backslash, ESC is shown as `\x1b` once.
    with pytest.raises(AuthError) as caught:
        allowed_url("http://127.0.0.1:8751\\@evil.example/authorize", MEMBER)
    assert caught.value.message.startswith(
        f"{MEMBER} 'http://127.0.0.1:8751\\@evil.example/authorize', which holds a backslash"), caught.value.message
    with pytest.raises(AuthError) as caught:
        checked_url("https://as.example/\x1b[2J", MEMBER)
    assert caught.value.message == (f"{MEMBER} is not a valid http(s) URL: 'https://as.example/\\x1b[2J'; "
                                    "nothing was sent there")


def test_a_value_is_shown_up_to_200_characters():
    assert shown("a" * 200) == "a" * 200
    assert len(shown("a" * 300)) == 200 and shown("a" * 300).startswith("a" * 150)
    assert "\n" not in shown("a\nb")


@pytest.mark.parametrize("host", [
    "localhost", "LOCALHOST", "localhost.", "app.localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"])
def test_this_machine(host):
    assert is_loopback(host)


@pytest.mark.parametrize("host", [
    "example.com", "localhost.example", "mylocalhost", "128.0.0.1", "10.0.0.1", "::2", "0.0.0.0", "", "fe80::1"])
def test_not_this_machine(host):
    assert not is_loopback(host)


@pytest.mark.parametrize("host", [
    "169.254.169.254", "169.254.0.1", "fe80::1", "FE80::1", "[fe80::1%eth0]", "::ffff:169.254.169.254",
    "fd00:ec2::254", "100.100.100.200", "0.0.0.0", "::", "metadata.google.internal", "METADATA.GOOGLE.INTERNAL",
    "metadata.google.internal.", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal",
    "metadata.azure.com"])
def test_forbidden_hosts(host):
    assert forbidden_address(host)


@pytest.mark.parametrize("host", [
    "127.0.0.1", "10.0.0.1", "100.100.100.201", "fd00:ec2::253", "example.com", "metadata.example", "::1",
    "::ffff:127.0.0.1", "169.253.255.255", "169.255.0.1", ""])
def test_hosts_that_are_not_forbidden(host):
    assert not forbidden_address(host)


@pytest.mark.parametrize(("url", "why"), [
    ("https://as.example/", None), ("http://127.0.0.1:9/", None), ("http://localhost:9/", None),
    ("http://[::1]:9/", None), ("http://as.example/", PLAIN_HTTP), ("HTTP://as.example/", PLAIN_HTTP),
    ("https://169.254.169.254/", FORBIDDEN), ("http://169.254.169.254/", FORBIDDEN),
    ("https://metadata.google.internal/", FORBIDDEN), ("http://[fe80::1]/", FORBIDDEN)])
def test_the_rule(url, why):
    assert refusal(url) == why


def test_plain_http_to_the_users_own_origin_is_allowed():
    assert refusal("http://mcp.example/.well-known/x", same_origin_as="http://mcp.example/mcp") is None
    assert refusal("http://mcp.example:80/x", same_origin_as="http://MCP.example/mcp") is None
    assert refusal("http://mcp.example:8080/x", same_origin_as="http://mcp.example/mcp") == PLAIN_HTTP
    assert refusal("http://other.example/x", same_origin_as="http://mcp.example/mcp") == PLAIN_HTTP
    assert refusal("http://mcp.example/x", same_origin_as="https://mcp.example/mcp") == PLAIN_HTTP
    assert refusal("http://169.254.169.254/x", same_origin_as="http://169.254.169.254/mcp") == FORBIDDEN


def test_origins():
    assert origin("https://A.example/x") == ("https", "a.example", 443)
    assert origin("http://a.example/x") == ("http", "a.example", 80)
    assert origin("HTTP://a.example:8080") == ("http", "a.example", 8080)
    assert origin("wss://a.example") == ("wss", "a.example", None)
    assert origin("https:///x") == ("https", "", 443)


def test_allowed_url_passes_what_the_rule_allows():
    assert allowed_url("https://as.example/t", MEMBER) == "https://as.example/t"
    assert allowed_url("http://127.0.0.1:5/t", MEMBER) == "http://127.0.0.1:5/t"
    assert allowed_url("http://mcp.example/t", MEMBER, same_origin_as="http://mcp.example/mcp") == \
        "http://mcp.example/t"


def test_allowed_url_refuses_plain_http_elsewhere():
    with pytest.raises(AuthError) as caught:
        allowed_url("http://as.example/t", MEMBER)
    assert caught.value.message == (
        f"{MEMBER} http://as.example/t is {PLAIN_HTTP}; mrtr sends authorization requests only over HTTPS "
        "(or plain HTTP to this machine: 127.0.0.1, localhost, ::1)")
    with pytest.raises(AuthError):
        allowed_url("http://as.example/t", MEMBER, same_origin_as="http://mcp.example/mcp")


def test_allowed_url_refuses_metadata_addresses():
    with pytest.raises(AuthError) as caught:
        allowed_url("https://169.254.169.254/latest", MEMBER)
    assert caught.value.message == (f"{MEMBER} https://169.254.169.254/latest is {FORBIDDEN}; mrtr never sends "
                                    "requests there on a server's word")


@pytest.mark.parametrize(("url", "why", "host"), [
    ("https://evil.example\\@as.example/x", "backslash", "evil.example"),
    ("https://as.example\\token", "backslash", "as.example"),
    ("https://user:pw@as.example/", "user name or password", "as.example"),
    ("https://evil.example%5C@as.example/", "user name or password", "as.example"),
    ("https://%65vil.example/", "percent-encoded", "evil.example"),
    ("https://fa\u00df.example/", "not ASCII", "xn--fa-hia.example"),
    ("http://0x7f.1/", "IPv4", "127.0.0.1"),
    ("http://2130706433/", "IPv4", "127.0.0.1"),
    ("http://127.1:8080/", "IPv4", "127.0.0.1"),
    ("https://0xa9.0xfe.0xa9.0xfe/", "IPv4", "169.254.169.254"),
    ("https://0251.0376.0251.0376/", "IPv4", "169.254.169.254"),
])
def test_a_url_a_browser_reads_otherwise_is_refused_naming_the_browsers_host(url, why, host):
    # A browser reads by the WHATWG URL standard; urllib and the HTTP client do not. Where the
    # two disagree on the host, no request goes there and nothing is shown as its host.
    assert not is_valid_url(url)
    for check in (checked_url, allowed_url):
        with pytest.raises(AuthError) as caught:
            check(url, MEMBER)
        message = caught.value.message
        assert message.startswith(f"{MEMBER} '{shown(url)}', "), message
        assert why in message and message.endswith(f"a browser goes to host {host}; nothing was sent there"), message


def test_a_url_a_browser_reads_as_written_passes():
    for url in ("https://as.example/a?q=\\x", "https://xn--fa-hia.example/", "http://[::1]:9/",
                "http://[::ffff:127.0.0.1]:9/", "https://AS.example./t"):
        assert is_valid_url(url), url


def test_allowed_url_refuses_invalid_urls_first():
    with pytest.raises(AuthError, match="is not a valid http"):
        allowed_url("gopher://x/", MEMBER)


# ---------------------------------------------------------------- names that resolve
looked_up: list[str] = []


@pytest.fixture
def resolving(monkeypatch):
    """Host names resolved by the test's own table (a name pointed at an address)."""
    table: dict[str, list[str]] = {}
    looked_up.clear()
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        looked_up.append(host)
        real("127.0.0.1", *args, **kwargs)  # the arguments as the real lookup takes them
        if host in table:
            return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, 0))
                    for a in table[host]]
        if host == "unresolvable.test":
            raise socket.gaierror("no such name")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return table


def test_a_name_that_resolves_to_a_metadata_address_is_refused(resolving):
    resolving["sneaky.test"] = ["10.0.0.5", "169.254.169.254"]
    resolving["sneaky6.test"] = ["fe80::1%eth0"]
    resolving["fine.test"] = ["10.0.0.5", "2001:db8::1"]
    assert resolved_refusal("https://sneaky.test/x") == "169.254.169.254"
    assert resolved_refusal("https://sneaky6.test/x") == "fe80::1"
    assert resolved_refusal("https://fine.test/x") is None
    assert resolved_refusal("https://unresolvable.test/x") is None
    with pytest.raises(AuthError) as caught:
        check_resolved("https://sneaky.test/x", MEMBER)
    assert caught.value.message == (f"{MEMBER} https://sneaky.test/x resolves to 169.254.169.254, {FORBIDDEN}; "
                                    "mrtr never sends requests there on a server's word")
    check_resolved("https://fine.test/x", MEMBER)


def test_addresses_and_loopback_names_are_not_looked_up(resolving):
    resolving["localhost"] = ["169.254.169.254"]
    resolving["app.localhost"] = ["169.254.169.254"]
    assert resolved_refusal("http://localhost/") is None
    assert resolved_refusal("http://app.localhost/") is None
    assert resolved_refusal("http://10.1.1.1/") is None
    assert resolved_refusal("http://[fe80::1]/") is None  # `refusal` judges addresses
    assert resolved_refusal("http:///x") is None
    assert looked_up == []


def test_a_name_that_cannot_be_encoded_passes(resolving):
    def bad(host, *args, **kwargs):
        raise UnicodeError("label too long")

    socket.getaddrinfo = bad  # undone by the fixture's monkeypatch
    assert resolved_refusal("https://" + "a" * 70 + ".test/") is None


def test_resolved_to_says_where():
    assert resolved_to("the m", "https://x.test/", "169.254.1.1") == \
        f"the m https://x.test/ resolves to 169.254.1.1, {FORBIDDEN}; mrtr never sends requests there " \
        "on a server's word"


def test_the_address_parser_reads_brackets_and_zones():
    assert str(urlrule._address("[::1]")) == "::1"
    assert str(urlrule._address("fe80::1%eth0")) == "fe80::1"
    assert urlrule._address("example.com") is None
