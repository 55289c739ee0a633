"""How a browser reads a server's URL (mrtr_cli/render/weburl.py, the WHATWG reading through
`ada-url`) and where that differs from how it is written: each way a link can disguise where
it goes, and the URLs a browser reads as written. In process, no network.
These are fast tests mutation testing runs (tests/README.md "Mutation testing").
"""

from __future__ import annotations

import pytest

from mrtr_cli.render.weburl import UNPARSED, BrowserView, browser_view, misread, written_host


@pytest.mark.parametrize("url", ["", "//a.example/x", "https://", "http://a.example:99999/", "not a url",
                                 "http://[fe80::1%25eth0]/"])
def test_a_url_a_browser_cannot_parse_has_no_reading(url):
    assert browser_view(url) == BrowserView(url, None, "", "", False, False)
    assert misread(url) == UNPARSED


@pytest.mark.parametrize(("url", "href", "scheme", "host", "credentials", "same"), [
    ("https://a.example/p?q#f", "https://a.example/p?q#f", "https", "a.example", False, True),
    # Only the case of the scheme and the host is the browser's own; the path keeps its case.
    ("HTTPS://A.Example/P", "https://a.example/P", "https", "a.example", False, True),
    ("HTTP://[::1]/", "http://[::1]/", "http", "[::1]", False, True),
    # A bare origin gets its `/`.
    ("https://A.EXAMPLE/", "https://a.example/", "https", "a.example", False, True),
    ("https://a.example", "https://a.example/", "https", "a.example", False, True),
    ("HTTPS://a.example", "https://a.example/", "https", "a.example", False, True),
    ("http://[::1]", "http://[::1]/", "http", "[::1]", False, True),
    # The port is part of the origin, not of the host visited.
    ("http://a.example:8080/x", "http://a.example:8080/x", "http", "a.example", False, True),
    ("http://A.EXAMPLE:8080/x", "http://a.example:8080/x", "http", "a.example", False, True),
    # Anything else the browser rewrites is another URL than written.
    ("https://a.example:443/", "https://a.example/", "https", "a.example", False, False),
    ("https://a.example/./x", "https://a.example/x", "https", "a.example", False, False),
    ("https://a.example/x/../y", "https://a.example/y", "https", "a.example", False, False),
    ("https://a.example/\u00e9", "https://a.example/%C3%A9", "https", "a.example", False, False),
    ("https://a.example/X", "https://a.example/X", "https", "a.example", False, True),
    ("https://a.example/Ab", "https://a.example/Ab", "https", "a.example", False, True),
    ("https:/a.example/x", "https://a.example/x", "https", "a.example", False, False),
    ("https://a.example\\x", "https://a.example/x", "https", "a.example", False, False),
    ("http://[0:0::1]/", "http://[::1]/", "http", "[::1]", False, False),
    ("http://0x7f.1/", "http://127.0.0.1/", "http", "127.0.0.1", False, False),
    ("https://%65vil.example/", "https://evil.example/", "https", "evil.example", False, False),
    ("https://fa\u00df.example/", "https://xn--fa-hia.example/", "https", "xn--fa-hia.example", False, False),
    # A user name, a password, or both: all credentials.
    ("https://user@a.example/", "https://user@a.example/", "https", "a.example", True, True),
    ("https://:pw@a.example/", "https://:pw@a.example/", "https", "a.example", True, True),
    ("https://u:pw@a.example/", "https://u:pw@a.example/", "https", "a.example", True, True),
    # Not every scheme has a host: the scheme's case is still the browser's, the rest's is not.
    ("mailto:x@a.example", "mailto:x@a.example", "mailto", "", False, True),
    ("MAILTO:x@a.example", "mailto:x@a.example", "mailto", "", False, True),
    ("mailto:X@a.example", "mailto:X@a.example", "mailto", "", False, True),
    ("javascript:alert(1)", "javascript:alert(1)", "javascript", "", False, True),
])
def test_browser_view_reads_as_a_browser(url, href, scheme, host, credentials, same):
    assert browser_view(url) == BrowserView(url, href, scheme, host, credentials, same)


def test_browser_view_reads_a_relative_url_against_its_base():
    # A redirect's `Location`: read against the URL that was asked for.
    view = browser_view("/next?x=1", "https://a.example/first")
    assert view == BrowserView("/next?x=1", "https://a.example/next?x=1", "https", "a.example", False, False)
    assert browser_view("//b.example/x", "https://a.example/").host == "b.example"
    assert browser_view("https://b.example/", "https://a.example/").same
    assert browser_view("/x", "not a url") == BrowserView("/x")


@pytest.mark.parametrize(("url", "host"), [
    ("https://User@A.Example:9/x", "a.example"),
    ("http://[::1]:8/", "::1"),
    ("https://evil.example\\@good.example/", "good.example"),
    ("file:///etc/passwd", ""),
    ("https:/a.example/x", ""),
    ("http://a]b/", None),
    ("http://[::1/", None),
])
def test_written_host_is_urllibs_reading(url, host):
    assert written_host(url) == host


@pytest.mark.parametrize("url", [
    "https://a.example/p?q=1#f", "HTTPS://A.EXAMPLE/", "http://127.0.0.1:8080/x", "https://a.example./",
    "http://[::1]:9/", "http://[0:0::1]/", "http://[::ffff:127.0.0.1]/", "https://xn--fa-hia.example/",
    "https://a.example:443/", "https://a.example/./x", "https://a.example/!",
    # A backslash in the query or the fragment is no `/` to a browser.
    "https://a.example/x?q=\\", "https://a.example/x#\\", "https://a.example/x?q#\\",
    "https://a.example/x?a\\?b", "https://a.example/x#a\\#b",
    # Code points from U+00A0 on are no control characters: a browser percent-encodes them in the path.
    "https://a.example/\u00a0", "https://a.example/\u00e9",
    "mailto:x@a.example", "urn:isbn:0451450523",
])
def test_a_url_a_browser_reads_as_written_has_no_misreading(url):
    assert misread(url) is None


@pytest.mark.parametrize("url", [
    " https://a.example/", "https://a.example/ ", "https://a.ex\tample/", "https://a.example/\n",
    "https://a.example/\x00", "https://a.example/\x1f", "https://a.example/\x7f", "https://a.example/\x80",
    "https://a.example/\x9f", "https://a.example/a b",
])
def test_a_url_with_spaces_or_control_characters_is_misread(url):
    assert misread(url) == ("which holds spaces, tabs, line breaks or control characters "
                            "(a browser drops or encodes them)")


@pytest.mark.parametrize(("url", "host"), [
    ("https://evil.example\\@good.example/x", "evil.example"),
    ("https://a.example\\x", "a.example"),
    ("https://a.example/x\\y?q", "a.example"),
    ("https://a.example/x\\y#f", "a.example"),
    ("https://a.example\\x?y", "a.example"),
    # A browser reads a backslash as a `/` in a file URL too, which has no host.
    ("file:///a\\b", "(none)"),
])
def test_a_backslash_before_the_query_is_misread(url, host):
    assert misread(url) == f"which holds a backslash, a '/' to a browser: a browser goes to host {host}"


@pytest.mark.parametrize("url", ["https://user@a.example/", "https://:pw@a.example/", "https://u:p@a.example/",
                                 "https://evil.example%5C@a.example/"])
def test_a_user_name_or_password_is_misread(url):
    assert misread(url) == ("which has a user name or password before its host (a way to disguise where it "
                            "goes): a browser goes to host a.example")


@pytest.mark.parametrize(("url", "how", "host"), [
    ("https://%65vil.example/", "percent-encoded", "evil.example"),
    ("https://fa\u00df.example/", "not ASCII; a browser visits its punycode", "xn--fa-hia.example"),
    ("http://\uff41.example/", "not ASCII; a browser visits its punycode", "a.example"),
    ("http://0x7f.1/", "an IPv4 address in another form than dotted decimal", "127.0.0.1"),
    ("http://2130706433/", "an IPv4 address in another form than dotted decimal", "127.0.0.1"),
    ("http://127.1/", "an IPv4 address in another form than dotted decimal", "127.0.0.1"),
    ("http://0xa9fea9fe/", "an IPv4 address in another form than dotted decimal", "169.254.169.254"),
    ("https://0251.0376.0251.0376/", "an IPv4 address in another form than dotted decimal", "169.254.169.254"),
    # No `//`: urllib reads no host at all, a browser a host all the same.
    ("https:/a.example/x", "written ''", "a.example"),
    ("https:a.example", "written ''", "a.example"),
    ("http:/[::1]/", "written ''", "[::1]"),
    ("http:[::1]", "written ''", "[::1]"),
])
def test_a_host_a_browser_reads_otherwise_is_misread(url, how, host):
    assert misread(url) == f"whose host reads otherwise than written ({how}): a browser goes to host {host}"


def test_a_relative_url_is_read_against_its_base():
    # A redirect's `Location`: its host is the base's, however the two are read.
    assert misread("/next", "https://a.example/first") is None
    assert misread("next?q=\\", "https://a.example/first") is None
    assert misread("//b.example/x", "https://a.example/") is None
    assert misread("//%62.example/x", "https://a.example/") == (
        "whose host reads otherwise than written (percent-encoded): a browser goes to host b.example")
    assert misread("\\\\evil.example/x", "https://a.example/") == (
        "which holds a backslash, a '/' to a browser: a browser goes to host evil.example")
    assert misread("/x", "//a.example/") == UNPARSED
