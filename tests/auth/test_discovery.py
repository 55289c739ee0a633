"""Where to sign in, in process (mrtr_cli/auth/discovery.py): the metadata URLs in the
spec's orders, the checks of `resource` and `issuer`, which replies count as "absent",
and discovery itself against metadata documents a server of the test's own serves on
127.0.0.1 (`JsonDocuments`).
These are fast tests mutation testing runs (tests/README.md "Mutation testing").
"""

from __future__ import annotations

import threading

import pytest

from mrtr_cli.auth.discovery import (
    PRM_SUFFIX,
    AuthServer,
    _Got,
    as_metadata_urls,
    check_https,
    current_resource_metadata,
    discover,
    issuers_match,
    origin_of,
    prm_urls,
    resource_allowed,
)
from mrtr_cli.errors import AuthError, TimeoutExpired
from tests.auth_support import JsonDocuments

PRM = "/.well-known/oauth-protected-resource"
ASM = "/.well-known/oauth-authorization-server"
OIDC = "/.well-known/openid-configuration"


# ---------------------------------------------------------------- URLs and checks
def test_protected_resource_metadata_urls_in_the_spec_order():
    assert PRM_SUFFIX == PRM
    assert prm_urls("https://mcp.example/a/mcp/", None) == [
        "https://mcp.example" + PRM + "/a/mcp", "https://mcp.example" + PRM]
    assert prm_urls("https://mcp.example/", None) == ["https://mcp.example" + PRM]
    assert prm_urls("https://mcp.example", None) == ["https://mcp.example" + PRM]
    assert prm_urls("https://mcp.example:8443/mcp?x=1", "https://mcp.example/meta") == [
        "https://mcp.example/meta", "https://mcp.example:8443" + PRM + "/mcp", "https://mcp.example:8443" + PRM]
    # the same URL twice is tried once
    assert prm_urls("https://mcp.example/mcp", "https://mcp.example" + PRM + "/mcp") == [
        "https://mcp.example" + PRM + "/mcp", "https://mcp.example" + PRM]


def test_a_challenges_metadata_url_must_be_a_url():
    with pytest.raises(AuthError, match="the WWW-Authenticate challenge's resource_metadata is not a valid"):
        prm_urls("https://mcp.example/mcp", "not a url")


def test_authorization_server_metadata_urls_in_the_spec_order():
    assert as_metadata_urls("https://as.example") == ["https://as.example" + ASM, "https://as.example" + OIDC]
    assert as_metadata_urls("https://as.example/") == ["https://as.example" + ASM, "https://as.example" + OIDC]
    assert as_metadata_urls("https://as.example:8443/tenant/1/") == [
        "https://as.example:8443" + ASM + "/tenant/1", "https://as.example:8443" + OIDC + "/tenant/1",
        "https://as.example:8443/tenant/1" + OIDC]


def test_origins():
    assert origin_of("https://as.example:8443/x?y") == "https://as.example:8443"


@pytest.mark.parametrize(("resource", "ok"), [
    ("https://mcp.example/mcp", True), ("https://mcp.example/mcp/", True), ("https://mcp.example/", True),
    ("https://mcp.example", True), ("https://MCP.example/mcp", True), ("https://mcp.example/m", False),
    ("https://mcp.example/mcp/sub", False), ("http://mcp.example/mcp", False), ("https://mcp.example:444/mcp", False),
    ("https://evil.example/mcp", False)])
def test_the_resource_identifies_this_server(resource, ok):
    assert resource_allowed("https://mcp.example/mcp", resource) is ok


@pytest.mark.parametrize(("found", "expected", "same"), [
    ("https://as.example", "https://as.example", True),
    ("https://as.example/", "https://as.example", True),
    ("https://as.example", "https://as.example/", True),
    ("https://as.example/t", "https://as.example/t", True),
    ("https://as.example/t/", "https://as.example/t", False),
    ("https://as.example/t", "https://as.example/t/", False),
    ("https://as.example//", "https://as.example/", False),
    ("https://as.example/x", "https://as.example", False),
    ("https://as.example:443", "https://as.example", False),
    ("https://other.example/", "https://as.example", False)])
def test_an_issuer_is_the_one_its_url_was_built_from(found, expected, same):
    assert issuers_match(found, expected) is same


@pytest.mark.parametrize(("status", "absent"), [
    (400, True), (401, True), (404, True), (410, True), (499, True), (429, False), (500, False), (503, False),
    (399, False), (302, False), (200, False), (0, False), (500 - 1 + 1, False)])
def test_which_replies_mean_the_url_serves_no_document(status, absent):
    assert _Got("https://x/", status).absent is absent


@pytest.mark.parametrize(("got", "problem"), [
    (_Got("u", 0, reason="ConnectError"), "cannot be reached (ConnectError)"),
    (_Got("u", 302, location="https://else.example/"), "redirects (HTTP 302 to https://else.example/); mrtr follows "
                                                        "no redirect for metadata"),
    (_Got("u", 301), "redirects (HTTP 301); mrtr follows no redirect for metadata"),
    (_Got("u", 300), "redirects (HTTP 300); mrtr follows no redirect for metadata"),
    (_Got("u", 399), "redirects (HTTP 399); mrtr follows no redirect for metadata"),
    (_Got("u", 400), "answered HTTP 400"),
    (_Got("u", 201, {}), "answered HTTP 201"),
    (_Got("u", 200, None), "is not JSON (an HTML page?)"),
    (_Got("u", 200, [1]), "holds JSON that is not an object"),
    (_Got("u", 200, {}), None)])
def test_why_a_reply_is_unusable(got, problem):
    assert got.problem() == problem


# ---------------------------------------------------------------- AuthServer
def test_endpoints_come_from_the_metadata():
    s = AuthServer("https://as.example", {"token_endpoint": "https://as.example/t", "registration_endpoint": ""},
                   "https://mcp.example/mcp")
    assert s.endpoint("token_endpoint") == "https://as.example/t"
    assert s.endpoint("registration_endpoint") is None
    assert s.endpoint("authorization_endpoint") is None
    assert not s.guessed


def test_a_legacy_server_without_metadata_has_the_default_endpoints():
    s = AuthServer("https://mcp.example", {}, "https://mcp.example/mcp", legacy=True, origin="https://mcp.example")
    assert s.guessed
    assert s.endpoint("authorization_endpoint") == "https://mcp.example/authorize"
    assert s.endpoint("token_endpoint") == "https://mcp.example/token"
    assert s.endpoint("registration_endpoint") == "https://mcp.example/register"
    assert s.endpoint("revocation_endpoint") is None
    s.check_pkce()  # nothing to check without metadata
    with_metadata = AuthServer("https://mcp.example", {"issuer": "x"}, "r", legacy=True, origin="https://mcp.example")
    assert not with_metadata.guessed and with_metadata.endpoint("token_endpoint") is None
    not_legacy = AuthServer("https://mcp.example", {}, "r", origin="https://mcp.example")
    assert not not_legacy.guessed and not_legacy.endpoint("token_endpoint") is None


def test_scopes_supported():
    s = AuthServer("i", {"scopes_supported": ["a", 5, "b"]}, "r", resource_metadata={"scopes_supported": ["x", None]})
    assert s.scopes_supported == ["x"] and s.as_scopes_supported == ["a", "b"]
    bare = AuthServer("i", {"scopes_supported": "a b"}, "r", resource_metadata={"scopes_supported": "x"})
    assert bare.scopes_supported is None and bare.as_scopes_supported == []
    assert AuthServer("i", {}, "r").scopes_supported is None


@pytest.mark.parametrize("methods", [None, "S256", ["plain"], []])
def test_pkce_with_s256_must_be_advertised(methods):
    s = AuthServer("https://as.example", {"code_challenge_methods_supported": methods}, "r")
    with pytest.raises(AuthError) as caught:
        s.check_pkce()
    assert caught.value.message == ("the authorization server https://as.example does not advertise PKCE with S256 "
                                    "(code_challenge_methods_supported); mrtr does not sign in without it")
    AuthServer("i", {"code_challenge_methods_supported": ["plain", "S256"]}, "r").check_pkce()
    with pytest.raises(AuthError):
        AuthServer("i", {"issuer": "i"}, "r", legacy=True).check_pkce()


@pytest.mark.parametrize("name", ["issuer", "authorization_endpoint", "token_endpoint", "registration_endpoint",
                                  "revocation_endpoint"])
def test_every_endpoint_follows_the_rule(name):
    good = {n: f"https://as.example/{n}" for n in ("authorization_endpoint", "token_endpoint",
                                                   "registration_endpoint", "revocation_endpoint")}
    check_https(AuthServer("https://as.example", good, "r"))
    issuer, bad = "https://as.example", dict(good)
    if name == "issuer":
        issuer = "http://as.example"
    else:
        bad[name] = "http://as.example/x"
    with pytest.raises(AuthError) as caught:
        check_https(AuthServer(issuer, bad, "r"))
    assert caught.value.message.startswith(f"the authorization server's {name} http://as.example")


# ---------------------------------------------------------------- discovery against a server
@pytest.fixture
def docs(started):
    return started(JsonDocuments)


def refused(http, docs: JsonDocuments, challenge_url: str | None = None) -> AuthError:
    """The error `discover` raises for the MCP server at `docs.url("/mcp")` (with the
    challenge's resource_metadata `challenge_url`); the test fails if it raises none."""
    with pytest.raises(AuthError) as caught:
        discover(http, docs.url("/mcp"), challenge_url)
    return caught.value


@pytest.fixture
def http():
    import httpx2

    client = httpx2.Client(timeout=httpx2.Timeout(60), follow_redirects=False)
    yield client
    client.close()


def as_doc(issuer: str) -> dict:
    return {"issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
            "code_challenge_methods_supported": ["S256"]}


def serve(docs, path="/as", *, resource=None):
    """Protected resource metadata naming the authorization server at `path`, and its metadata."""
    issuer = docs.url(path)
    prm = {"authorization_servers": [issuer]}
    if resource is not None:
        prm["resource"] = resource
    docs.docs[PRM + "/mcp"] = prm
    docs.docs[ASM + path] = as_doc(issuer)
    return issuer


def test_discovery_finds_the_authorization_server(docs, http):
    issuer = serve(docs, resource=docs.url("/mcp"))
    server = discover(http, docs.url("/mcp"), None)
    assert server.issuer == issuer and server.resource == docs.url("/mcp")
    assert server.metadata == as_doc(issuer) and not server.legacy
    assert server.resource_metadata == {"authorization_servers": [issuer], "resource": docs.url("/mcp")}
    assert server.origin == docs.url("")
    assert docs.fetched == [PRM + "/mcp", ASM + "/as"]


def test_without_a_resource_the_servers_own_uri_is_used(docs, http):
    serve(docs)
    assert discover(http, docs.url("/mcp"), None).resource == docs.url("/mcp")


def test_a_resource_of_another_server_is_refused(docs, http):
    serve(docs, resource=docs.url("/other"))
    error = refused(http, docs)
    assert error.message == (f"the protected resource metadata at {docs.url(PRM + '/mcp')} names another "
                             f"resource ({docs.url('/other')}), not {docs.url('/mcp')}; nothing was sent to "
                             "an authorization server")


def test_a_resource_that_is_no_url_is_refused(docs, http):
    serve(docs, resource="no url")
    with pytest.raises(AuthError, match="the protected resource metadata's resource is not a valid"):
        discover(http, docs.url("/mcp"), None)


def test_the_preferred_issuer_is_chosen_when_listed(docs, http):
    first, second = docs.url("/one"), docs.url("/two")
    docs.docs[PRM + "/mcp"] = {"authorization_servers": [5, first, second]}
    docs.docs[ASM + "/one"] = as_doc(first)
    docs.docs[ASM + "/two"] = as_doc(second)
    assert discover(http, docs.url("/mcp"), None).issuer == first
    assert discover(http, docs.url("/mcp"), None, prefer_issuer=second).issuer == second
    assert discover(http, docs.url("/mcp"), None, prefer_issuer=second + "/").issuer == first  # a path: no slash rule
    assert discover(http, docs.url("/mcp"), None, prefer_issuer=docs.url("/three")).issuer == first


def test_an_issuer_with_a_path_and_a_trailing_slash_is_refused(docs, http):
    issuer = serve(docs, "/tenant")
    docs.docs[ASM + "/tenant"] = as_doc(issuer + "/")
    error = refused(http, docs)
    assert error.message == (f"the authorization server metadata at {docs.url(ASM + '/tenant')} names the "
                             f"issuer '{issuer}/', not '{issuer}': refused (RFC 8414 section 3.3)")


def test_a_root_issuer_may_carry_its_trailing_slash(docs, http):
    issuer = docs.url("")
    docs.docs[PRM + "/mcp"] = {"authorization_servers": [issuer]}
    docs.docs[ASM] = as_doc(issuer + "/")
    assert discover(http, docs.url("/mcp"), None).issuer == issuer + "/"


@pytest.mark.parametrize("found", [None, 5, "https://evil.example"])
def test_a_foreign_issuer_is_refused(docs, http, found):
    serve(docs)
    docs.docs[ASM + "/as"] = {**as_doc(docs.url("/as")), "issuer": found}
    with pytest.raises(AuthError, match="RFC 8414 section 3.3"):
        discover(http, docs.url("/mcp"), None)


def test_the_metadata_urls_are_tried_in_order(docs, http):
    issuer = docs.url("/as")
    docs.docs[PRM + "/mcp"] = {"authorization_servers": [issuer]}
    docs.docs["/as" + OIDC] = as_doc(issuer)
    assert discover(http, docs.url("/mcp"), None).issuer == issuer
    assert docs.fetched == [PRM + "/mcp", ASM + "/as", OIDC + "/as", "/as" + OIDC]


def test_no_metadata_for_the_issuer_is_named_with_the_urls_tried(docs, http):
    issuer = docs.url("/as")
    docs.docs[PRM + "/mcp"] = {"authorization_servers": [issuer]}
    error = refused(http, docs)
    assert error.message == f"no authorization server metadata found for {issuer}"
    assert error.hint == "tried: " + ", ".join(as_metadata_urls(issuer))


@pytest.mark.parametrize(("answer", "problem"), [
    ((429, {"error": "slow down"}), "answered HTTP 429"), ((503, {}), "answered HTTP 503"),
    ((200, b"<html>"), "is not JSON (an HTML page?)"), ((200, [1]), "holds JSON that is not an object")])
def test_unusable_authorization_server_metadata_is_an_error_never_absent(docs, http, answer, problem):
    issuer = serve(docs)
    docs.docs[ASM + "/as"] = answer
    error = refused(http, docs)
    assert error.message == f"the authorization server metadata at {docs.url(ASM + '/as')} {problem}"
    del issuer


def test_a_later_url_serves_what_an_earlier_one_could_not(docs, http):
    issuer = serve(docs)
    docs.docs[ASM + "/as"] = (429, {})
    docs.docs[OIDC + "/as"] = as_doc(issuer)
    assert discover(http, docs.url("/mcp"), None).issuer == issuer


def test_the_first_unusable_metadata_is_named(docs, http):
    issuer = serve(docs)
    docs.docs[ASM + "/as"] = (500, {})
    docs.docs[OIDC + "/as"] = (502, {})
    error = refused(http, docs)
    assert error.message == f"the authorization server metadata at {docs.url(ASM + '/as')} answered HTTP 500"
    del issuer


def test_429_from_the_resource_metadata_is_an_error_not_a_legacy_server(docs, http):
    docs.docs[PRM + "/mcp"] = (429, {})
    docs.docs[ASM] = as_doc(docs.url(""))
    error = refused(http, docs)
    assert error.message == (f"the protected resource metadata at {docs.url(PRM + '/mcp')} answered HTTP 429; "
                             "nothing was sent to an authorization server")


def test_a_path_url_that_is_absent_falls_back_to_the_root_one(docs, http):
    issuer = docs.url("/as")
    docs.docs[PRM] = {"authorization_servers": [issuer]}
    docs.docs[ASM + "/as"] = as_doc(issuer)
    assert discover(http, docs.url("/mcp"), None).issuer == issuer
    assert docs.fetched[:2] == [PRM + "/mcp", PRM]


@pytest.mark.parametrize(("doc", "problem"), [
    ({"authorization_servers": []}, "names no authorization_servers"),
    ({"authorization_servers": [5]}, "names no authorization_servers"),
    ({"authorization_servers": "https://as.example"}, "names no authorization_servers"),
    ({}, "names no authorization_servers"),
    ((200, b"nope"), "is not JSON (an HTML page?)")])
def test_unusable_resource_metadata_is_named(docs, http, doc, problem):
    docs.docs[PRM + "/mcp"] = doc
    error = refused(http, docs)
    assert error.message == (f"the protected resource metadata at {docs.url(PRM + '/mcp')} {problem}; nothing "
                             "was sent to an authorization server")


def test_the_challenges_metadata_url_comes_first(docs, http):
    issuer = docs.url("/as")
    docs.docs["/meta"] = {"authorization_servers": [issuer]}
    docs.docs[ASM + "/as"] = as_doc(issuer)
    assert discover(http, docs.url("/mcp"), docs.url("/meta")).issuer == issuer
    assert docs.fetched[0] == "/meta"


def test_an_absent_challenge_url_falls_back_to_the_well_known_ones(docs, http):
    issuer = serve(docs)
    assert discover(http, docs.url("/mcp"), docs.url("/meta")).issuer == issuer
    assert docs.fetched[:2] == ["/meta", PRM + "/mcp"]


def test_a_challenge_url_that_serves_nothing_anywhere_is_an_error_not_a_legacy_server(docs, http):
    docs.docs[ASM] = as_doc(docs.url(""))
    error = refused(http, docs, docs.url("/meta"))
    assert error.message == (f"the protected resource metadata at {docs.url('/meta')} answered HTTP 404; "
                             "nothing was sent to an authorization server")


@pytest.mark.parametrize("answer", [(429, {}), (500, {}), (302, {})])
def test_an_unusable_challenge_url_is_an_error_at_once(docs, http, answer):
    serve(docs)
    docs.docs["/meta"] = answer
    error = refused(http, docs, docs.url("/meta"))
    assert error.message.startswith(f"the protected resource metadata at {docs.url('/meta')} (named by the "
                                    "server's challenge) ")
    assert docs.fetched == ["/meta"]


def test_a_challenge_url_follows_the_rule(docs, http):
    error = refused(http, docs, "http://evil.example/meta")
    assert "plain HTTP to another machine" in error.message
    assert docs.fetched == []


def test_an_authorization_server_over_plain_http_elsewhere_is_refused(docs, http):
    docs.docs[PRM + "/mcp"] = {"authorization_servers": ["http://as.example/"]}
    error = refused(http, docs)
    assert error.message.startswith("the protected resource metadata's authorization_servers http://as.example/")
    assert docs.fetched == [PRM + "/mcp"]


def test_an_endpoint_over_plain_http_elsewhere_is_refused(docs, http):
    issuer = serve(docs)
    docs.docs[ASM + "/as"] = {**as_doc(issuer), "token_endpoint": "http://as.example/token"}
    with pytest.raises(AuthError, match="the authorization server's token_endpoint http://as.example/token"):
        discover(http, docs.url("/mcp"), None)


def test_a_server_without_resource_metadata_is_a_2025_03_26_server(docs, http):
    docs.docs[ASM] = as_doc(docs.url(""))
    server = discover(http, docs.url("/mcp"), None)
    assert server.legacy and not server.guessed and server.resource_metadata is None
    assert server.issuer == docs.url("") and server.resource == docs.url("/mcp")
    assert server.origin == docs.url("")


def test_a_2025_03_26_server_without_any_metadata_gets_the_default_endpoints(docs, http):
    server = discover(http, docs.url("/mcp"), None)
    assert server.legacy and server.guessed and server.metadata == {}
    assert server.issuer == docs.url("")
    assert server.endpoint("token_endpoint") == docs.url("/token")


def test_an_unreachable_server_is_named(http, refused_port):
    port = refused_port  # a port nobody listens on, held for the test
    with pytest.raises(AuthError) as caught:
        discover(http, f"http://127.0.0.1:{port}/mcp", None)
    assert caught.value.message == (f"the protected resource metadata at http://127.0.0.1:{port}{PRM}/mcp cannot be "
                                    "reached (ConnectError); nothing was sent to an authorization server")


def test_a_metadata_url_that_does_not_answer_is_a_timeout(docs):
    import httpx2

    held = threading.Event()
    docs.docs[PRM + "/mcp"] = lambda server: held.wait(300) or (404, {})
    try:
        with httpx2.Client(timeout=httpx2.Timeout(0.5)) as http, pytest.raises(TimeoutExpired) as caught:
            discover(http, docs.url("/mcp"), None)
    finally:
        held.set()
    assert caught.value.message == f"the protected resource metadata at {docs.url(PRM + '/mcp')} did not answer in time"


# ---------------------------------------------------------------- the metadata as it is now
def test_the_current_resource_metadata(docs, http):
    issuer = serve(docs)
    assert current_resource_metadata(http, docs.url("/mcp"), None) == {"authorization_servers": [issuer]}
    docs.docs["/meta"] = {"authorization_servers": ["https://other.example"]}
    assert current_resource_metadata(http, docs.url("/mcp"), docs.url("/meta")) == {
        "authorization_servers": ["https://other.example"]}
    docs.docs["/meta"] = (404, {})
    assert current_resource_metadata(http, docs.url("/mcp"), docs.url("/meta")) == {"authorization_servers": [issuer]}


def test_no_current_resource_metadata(docs, http):
    assert current_resource_metadata(http, docs.url("/mcp"), None) is None
    docs.docs[PRM + "/mcp"] = {"authorization_servers": []}
    assert current_resource_metadata(http, docs.url("/mcp"), None) is None
    assert current_resource_metadata(http, docs.url("/mcp"), "http://evil.example/meta") is None
    assert docs.fetched == [PRM + "/mcp", PRM, PRM + "/mcp", PRM]


def test_an_issuer_path_keeps_every_character():
    assert as_metadata_urls("https://as.example/tenantX") == [
        "https://as.example" + ASM + "/tenantX", "https://as.example" + OIDC + "/tenantX",
        "https://as.example/tenantX" + OIDC]


def test_a_resource_path_keeps_every_character():
    assert not resource_allowed("https://mcp.example/mcpX", "https://mcp.example/mcp")
    assert not resource_allowed("https://mcp.example/mcp/a", "https://mcp.example/mcpX")
    assert resource_allowed("https://mcp.example/mcpX/a", "https://mcp.example/mcpX")


def test_a_2025_03_26_servers_issuer_is_as_its_metadata_writes_it(docs, http):
    docs.docs[ASM] = as_doc(docs.url("/"))
    assert discover(http, docs.url("/mcp"), None).issuer == docs.url("/")


def test_authorization_server_metadata_that_does_not_answer_is_a_timeout(docs):
    import httpx2

    issuer = serve(docs)
    held = threading.Event()
    docs.docs[ASM + "/as"] = lambda server: held.wait(300) or (404, {})
    try:
        with httpx2.Client(timeout=httpx2.Timeout(0.5)) as http, pytest.raises(TimeoutExpired) as caught:
            discover(http, docs.url("/mcp"), None)
    finally:
        held.set()
    assert caught.value.message == (f"the authorization server metadata at {docs.url(ASM + '/as')} "
                                    "did not answer in time")
    del issuer


@pytest.fixture
def names(monkeypatch):
    """Host names of the test's own: `names[host] = address` answers the lookup of a name
    with no port (the check before a request, urls.check_resolved); a connection's lookup
    (with its port) gets 127.0.0.1, so no request leaves this machine."""
    import socket

    table: dict[str, str] = {}
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host in table:
            address = table[host] if port is None else "127.0.0.1"
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port or 0))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return table


def test_an_issuer_whose_name_resolves_to_a_metadata_address_is_never_asked(docs, http, names):
    names["as.test"] = "169.254.169.254"
    docs.docs[PRM + "/mcp"] = {"authorization_servers": ["https://as.test/"]}
    error = refused(http, docs)
    assert error.message == (f"the authorization server metadata URL https://as.test{ASM} resolves to "
                             "169.254.169.254, a link-local or cloud-metadata address; mrtr never sends "
                             "requests there on a server's word")


def test_a_challenge_url_on_the_servers_own_plain_http_origin_is_used(docs, http, names):
    # plain HTTP to another machine is allowed where the user chose it: the server's own origin
    names["mcp.test"] = "127.0.0.1"
    port = docs.server.server_address[1]
    docs.docs["/meta"] = {"authorization_servers": ["https://as.example"]}
    server_url = f"http://mcp.test:{port}/mcp"
    assert current_resource_metadata(http, server_url, f"http://mcp.test:{port}/meta") == {
        "authorization_servers": ["https://as.example"]}
    assert docs.fetched == ["/meta"]


def test_a_server_path_keeps_every_character():
    assert prm_urls("https://mcp.example/mcpX", None) == ["https://mcp.example" + PRM + "/mcpX",
                                                          "https://mcp.example" + PRM]


def test_metadata_is_asked_for_as_json(docs, http):
    serve(docs)
    discover(http, docs.url("/mcp"), None)
    assert {k.lower(): v for k, v in docs.last_headers.items()}["accept"] == "application/json"


def test_the_body_of_an_absent_document_is_not_read(docs, http):
    # a 404 page is HTML (or anything): only a 200's body is read as JSON
    issuer = docs.url("/as")
    docs.docs[PRM + "/mcp"] = (404, b"<html>" + b"x" * 100 + b"</html>")
    docs.docs[PRM] = {"authorization_servers": [issuer]}
    docs.docs[ASM + "/as"] = as_doc(issuer)
    assert discover(http, docs.url("/mcp"), None).issuer == issuer


def test_a_document_nested_too_deep_is_named(docs, http):
    docs.docs[PRM + "/mcp"] = (200, b"[" * 200 + b"]" * 200)
    error = refused(http, docs)
    assert error.message.startswith(f"the protected resource metadata at {docs.url(PRM + '/mcp')} sent JSON "
                                    "nested more than")


def test_a_redirect_is_named_with_where_it_goes(docs, http):
    docs.docs[PRM + "/mcp"] = (302, {}, {"Location": "https://else.example/m"})
    error = refused(http, docs)
    assert error.message == (f"the protected resource metadata at {docs.url(PRM + '/mcp')} redirects (HTTP 302 "
                             "to https://else.example/m); mrtr follows no redirect for metadata; nothing was "
                             "sent to an authorization server")


def test_the_resource_the_metadata_names_is_the_one_sent(docs, http):
    issuer = serve(docs, resource=docs.url("/"))  # a parent path of the server's
    server = discover(http, docs.url("/mcp"), None)
    assert server.resource == docs.url("/") and server.issuer == issuer


def test_a_challenge_url_naming_another_resource_is_refused(docs, http):
    docs.docs["/meta"] = {"authorization_servers": [docs.url("/as")], "resource": docs.url("/other")}
    with pytest.raises(AuthError, match="names another resource"):
        discover(http, docs.url("/mcp"), docs.url("/meta"))


def test_a_challenge_url_that_does_not_answer_is_a_timeout(docs):
    import httpx2

    held = threading.Event()
    docs.docs["/meta"] = lambda server: held.wait(300) or (404, {})
    try:
        with httpx2.Client(timeout=httpx2.Timeout(0.5)) as http, pytest.raises(TimeoutExpired) as caught:
            discover(http, docs.url("/mcp"), docs.url("/meta"))
    finally:
        held.set()
    assert caught.value.message == f"the protected resource metadata at {docs.url('/meta')} did not answer in time"


def test_a_challenge_url_on_plain_http_elsewhere_is_named(docs, http):
    error = refused(http, docs, "http://evil.example/meta")
    assert error.message.startswith("the WWW-Authenticate challenge's resource_metadata "
                                    "http://evil.example/meta "
                                    "is plain HTTP to another machine")


def test_a_challenge_url_whose_name_resolves_to_a_metadata_address_is_never_asked(docs, http, names):
    names["meta.test"] = "169.254.169.254"
    error = refused(http, docs, "https://meta.test/m")
    assert error.message == ("the WWW-Authenticate challenge's resource_metadata https://meta.test/m resolves "
                             "to "
                             "169.254.169.254, a link-local or cloud-metadata address; mrtr never sends "
                             "requests there on a server's word")
    assert docs.fetched == []


def test_the_users_own_server_name_is_the_users_choice(docs, http, names):
    # the URLs mrtr builds from the URL the user gave are not checked against the rule
    names["mcp.test"] = "169.254.169.254"
    port = docs.server.server_address[1]
    issuer = serve(docs)
    assert discover(http, f"http://mcp.test:{port}/mcp", None).issuer == issuer


def test_discovery_uses_a_challenge_url_on_the_servers_own_plain_http_origin(docs, http, names):
    names["mcp.test"] = "127.0.0.1"
    port = docs.server.server_address[1]
    issuer = docs.url("/as")
    docs.docs["/meta"] = {"authorization_servers": [issuer], "resource": f"http://mcp.test:{port}/mcp"}
    docs.docs[ASM + "/as"] = as_doc(issuer)
    server = discover(http, f"http://mcp.test:{port}/mcp", f"http://mcp.test:{port}/meta")
    assert server.issuer == issuer and docs.fetched[0] == "/meta"


def test_an_unreachable_proxy_is_named(monkeypatch, refused_port):
    import httpx2

    port = refused_port  # a port nobody listens on, held for the test
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    with httpx2.Client(timeout=httpx2.Timeout(60)) as http, pytest.raises(AuthError) as caught:
        discover(http, f"http://127.0.0.1:{port}/mcp", None)
    assert caught.value.message == (f"the protected resource metadata at http://127.0.0.1:{port}{PRM}/mcp cannot be "
                                    f"reached (ConnectError through the proxy http://127.0.0.1:{port} (HTTP_PROXY)); "
                                    "nothing was sent to an authorization server")
