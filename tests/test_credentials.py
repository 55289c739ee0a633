"""Credentials in names and URLs, in process (mrtr_cli/credentials.py): which names mark a
secret, which parts of a URL are secrets, and how a URL and a line of text are shown
without them.
These are fast tests mutation testing runs (tests/README.md "Mutation testing").
"""

from __future__ import annotations

import pytest

from mrtr_cli.credentials import (
    REDACTED,
    is_secret_field,
    is_secret_name,
    public_url,
    redact_urls,
    secret_properties,
    url_in_command,
    url_secrets,
)


@pytest.mark.parametrize("name", [
    "Authorization", "X-Auth", "GITHUB_TOKEN", "client_secret", "password", "passwd", "pwd", "Cookie", "Set-Cookie",
    "session", "sessionid", "credential", "AWS_CREDENTIALS", "api_key", "api-key", "apikey", "X-API-KEY",
    "access_key", "access-key", "accesskey", "private_key", "private-key", "privatekey", "key", "KEY", "signature",
    "X-Signature", "sig", "SIG", "bearer", "jwt", "id_jwt", "code", "CODE"])
def test_names_that_mark_a_credential(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", [
    "q", "json", "format", "user", "page", "keyboard", "monkey", "signal", "sigma", "codec", "zipcode", "api",
    "access", "private", "name", "", "apixkey", "access.key", "private key"])
def test_names_that_do_not(name):
    assert not is_secret_name(name)


def test_a_password_in_the_url_is_a_secret_as_written_and_decoded():
    url = "https://user:p%40ss%2Bw@mcp.example/mcp"
    assert url_secrets(url) == ["p%40ss%2Bw", "p@ss+w"]
    assert public_url(url) == f"https://user:{REDACTED}@mcp.example/mcp"


def test_a_user_alone_is_a_secret_git_style():
    assert url_secrets("https://ghp_T0KEN@mcp.example/") == ["ghp_T0KEN"]
    assert public_url("https://ghp_T0KEN@mcp.example/") == "https://***@mcp.example/"


def test_a_password_holding_an_at_sign_is_cut_at_the_last_one():
    assert url_secrets("https://u:a@b@h.example/x") == ["a@b"]
    assert public_url("https://u:a@b@h.example/x") == "https://u:***@h.example/x"



def test_a_backslash_ends_the_authority_as_a_browser_reads_it():
    # `https://evil.example\@good.com/` is evil.example to a browser (`\` is `/`): no user
    # information to hide, so it is shown as sent. The HTTP client reads `evil.example\` as a
    # user name, so it is still a secret of a URL given to mrtr (registered, hidden where it
    # shows), and a command naming that URL is not printed with it.
    assert public_url("https://evil.example\\@good.com/x") == "https://evil.example\\@good.com/x"
    assert url_secrets("https://u:p\\w@h.example/") == ["p\\w"]
    assert url_in_command("https://u:p\\w@h.example/")[0] == []
    assert url_in_command("https://h.example/a\\b")[0] == ["--url", "https://h.example/a\\b"]


def test_an_at_sign_in_the_path_or_query_is_no_user_information():
    assert url_secrets("https://h.example/x@y?z=a@b") == []
    assert public_url("https://h.example/x@y?z=a@b") == "https://h.example/x@y?z=a@b"
    assert public_url("https://h.example#u:p@x") == "https://h.example#u:p@x"


def test_an_empty_password_is_no_secret_but_is_still_hidden():
    assert url_secrets("https://u:@h.example/") == []
    assert public_url("https://u:@h.example/") == "https://u:***@h.example/"


def test_secret_named_query_parameters_are_secrets_as_written_and_decoded():
    url = "https://h.example/mcp?api_key=a%2Bb+c&q=keep&token=t1#sig=s1&page=2"
    assert url_secrets(url) == ["a%2Bb+c", "a+b c", "a+b+c", "t1", "s1"]
    assert public_url(url) == "https://h.example/mcp?api_key=***&q=keep&token=***#sig=***&page=2"


def test_a_parameter_name_is_decoded_before_it_is_judged():
    assert url_secrets("https://h.example/?api%5Fkey=k1&acc%65ss-key=k2&c%6Fde=k3") == ["k1", "k2", "k3"]
    assert public_url("https://h.example/?api%5Fkey=k1") == "https://h.example/?api%5Fkey=***"


def test_secret_named_path_parameters_are_secrets():
    url = "https://h.example/a;token=t%2B1;v=2/b;x=y?q=1"
    assert url_secrets(url) == ["t%2B1", "t+1"]
    assert public_url(url) == "https://h.example/a;token=***;v=2/b;x=y?q=1"


def test_an_empty_secret_parameter_is_left_as_it_is():
    assert url_secrets("https://h.example/?token=&code=") == []
    assert public_url("https://h.example/?token=&code=") == "https://h.example/?token=&code="
    assert public_url("https://h.example/a;token=") == "https://h.example/a;token="


def test_a_url_without_secrets_is_shown_unchanged():
    for url in ("https://h.example/mcp", "http://127.0.0.1:8000/mcp?x=1&y=2", "https://h.example/a;b=c/d",
                "https://h.example/?flag", "https://h.example/?=v"):
        assert url_secrets(url) == []
        assert public_url(url) == url


def test_only_the_first_user_information_is_replaced():
    assert public_url("https://a:b@h.example/https://c:d@x") == "https://a:***@h.example/https://c:d@x"


def test_a_question_mark_after_a_hash_starts_nothing_new():
    # the query and fragment begin at whichever comes first
    assert _split("https://h.example/p#f?token=t") == ("https://h.example/p", "#f?token=t")
    assert _split("https://h.example/p?a=1#f") == ("https://h.example/p", "?a=1#f")
    assert _split("https://h.example/p") == ("https://h.example/p", "")
    assert public_url("https://h.example/p#x?token=t") == "https://h.example/p#x?token=***"
    assert public_url("https://h.example/p;token=a#b") == "https://h.example/p;token=***#b"


def _split(url):
    from mrtr_cli.credentials import _split_query

    return _split_query(url)


def test_every_secret_appears_once():
    assert url_secrets("https://h.example/?token=a&key=a") == ["a"]


def test_urls_in_a_line_of_text_are_shown_without_their_secrets():
    text = "cannot connect to https://u:pw@h.example/x?token=abc: refused; see (https://h.example/?api_key=k)."
    assert redact_urls(text) == ("cannot connect to https://u:***@h.example/x?token=***: refused; see "
                                 "(https://h.example/?api_key=***).")


def test_a_url_in_quotes_or_brackets_ends_there():
    assert redact_urls('"https://h.example/?token=a" <https://h.example/?token=b>') == \
        '"https://h.example/?token=***" <https://h.example/?token=***>'
    assert redact_urls("at https://h.example/?token=abc, then") == "at https://h.example/?token=***, then"
    assert redact_urls("[x https://h.example/?key=abc]") == "[x https://h.example/?key=***]"


def test_text_without_urls_is_returned_as_it_is():
    for text in ("token=abc", "no url here: a://", "", "://token=x", "https:// nothing"):
        assert redact_urls(text) == text


def test_any_scheme_is_a_url_in_text():
    assert redact_urls("see wss://u:p@h.example/") == "see wss://u:***@h.example/"
    assert redact_urls("see git+ssh://tok@h.example/r") == "see git+ssh://***@h.example/r"


# ---------------------------------------------------------------- each layer on its own
# A URL's credentials are kept out of what mrtr prints by two layers: the documents and
# listings are built with `public_url` (a pending document's `target`, `mrtr servers`),
# and every diagnostic line goes through `Environment.redact`. Each is checked alone here,
# so that neither hides a hole in the other.
SECRET_URL = "https://u:s3cretpw@h.example/mcp;token=p4th?api_key=k3yvalue&q=1"
SECRETS = ("s3cretpw", "p4th", "k3yvalue")


def test_a_pending_documents_target_holds_no_url_credential():
    from mrtr_cli.config.target import Target
    from mrtr_cli.engine.pending import build_pending

    target = Target(url=SECRET_URL, headers={"Authorization": "Bearer h3ader"})
    assert target.public() == {"url": "https://u:***@h.example/mcp;token=***?api_key=***&q=1"}
    assert target.label == "https://u:***@h.example/mcp;token=***?api_key=***&q=1"
    doc = build_pending(target=target.public(), protocol_version="2026-07-28", method="tools/call",
                        params={"name": "t", "arguments": {}}, input_requests={}, request_state="s", missing=[])
    import json

    text = json.dumps(doc)
    assert not any(s in text for s in (*SECRETS, "h3ader")), text


def test_the_servers_listing_holds_no_url_credential(tmp_path, monkeypatch):
    import json

    from mrtr_cli.cli.commands.info import _server_row
    from mrtr_cli.config.servers import find_servers

    monkeypatch.setenv("HOME", str(tmp_path))
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"remote": {"url": SECRET_URL,
                                                            "headers": {"Authorization": "Bearer h3ader"}}}}))
    [entry] = [s for s in find_servers(str(config)) if s.name == "remote"]
    public = entry.public()
    assert public["url"] == "https://u:***@h.example/mcp;token=***?api_key=***&q=1"
    assert public["headers"] == ["Authorization"]
    row = _server_row(entry)
    assert row[2] == "https://u:***@h.example/mcp;token=***?api_key=***&q=1"
    assert not any(s in json.dumps([public, row]) for s in (*SECRETS, "h3ader"))


def test_a_diagnostic_line_loses_url_credentials_with_no_secret_registered():
    import io

    from mrtr_cli.env import Environment

    env = Environment(stdin=io.StringIO(""), stdout=io.StringIO(), stderr=io.StringIO())
    assert not env.secrets
    assert env.redact(f"cannot reach {SECRET_URL}: refused") == \
        "cannot reach https://u:***@h.example/mcp;token=***?api_key=***&q=1: refused"
    env.err(f"mrtr: cannot reach {SECRET_URL}")
    assert not any(s in env.stderr.getvalue() for s in SECRETS)


def test_a_url_given_with_url_registers_its_credentials_as_secrets():
    import io

    from mrtr_cli.app import RunOptions
    from mrtr_cli.config.resolve import resolve_target
    from mrtr_cli.env import Environment

    env = Environment(stdin=io.StringIO(""), stdout=io.StringIO(), stderr=io.StringIO(), no_input=True)
    target = resolve_target(RunOptions(url=SECRET_URL), env, read_file=lambda name: "", warn=lambda text: None,
                            confirm=lambda text: False)
    assert target.url == SECRET_URL
    # found in any text now, not only in URLs
    assert env.redact("s3cretpw k3yvalue p4th") == "*** *** ***"


def test_the_query_begins_at_the_first_question_mark_or_hash():
    # a second `?` or `#` is part of the query or fragment, where a secret parameter ends
    assert public_url("https://h.example/p?token=abc?x") == "https://h.example/p?token=***"
    assert public_url("https://h.example/p#token=abc#x") == "https://h.example/p#token=***#x"
    assert url_secrets("https://h.example/p?token=abc?x") == ["abc?x"]


def test_a_query_alone_is_a_query():
    assert public_url("?token=abc") == "?token=***"
    assert public_url("#token=abc") == "#token=***"
    assert url_secrets("?token=abc") == ["abc"]


def test_the_user_is_what_comes_before_the_first_colon():
    assert public_url("https://u:p:q@h.example/") == "https://u:***@h.example/"
    assert url_secrets("https://u:p:q@h.example/") == ["p:q"]


@pytest.mark.parametrize(("name", "schema", "secret"), [
    ("pin", {"type": "string", "writeOnly": True}, True),
    ("pin", {"type": "string", "format": "password"}, True),
    ("password", {"type": "string"}, True),
    ("api_key", {"type": "string"}, True),
    ("code", {"type": "string"}, False),  # a URL's short credential names (key, sig, code) are not a field's
    ("key", {"type": "string"}, False),
    ("code", {"type": "string", "writeOnly": True}, True),
    ("city", {"type": "string", "writeOnly": False}, False),  # `pin` is a secret by its name alone
    ("city", {"type": "string", "format": "email"}, False),
    ("pin", {"type": "string", "writeOnly": False}, True),
    ("city", None, False),
])
def test_a_field_is_a_secret_by_its_schema_or_its_name(name, schema, secret):
    assert is_secret_field(name, schema) is secret
    assert secret_properties({"type": "object", "properties": {name: schema, "note": {"type": "string"}}}) == (
        [name] if secret else [])
    assert secret_properties(None) == [] and secret_properties({"properties": []}) == []


@pytest.mark.parametrize("name", [
    "pin", "PIN", "otp", "cvv", "cvc", "cvv2", "mfaCode", "mfa_code", "mfa-code", "totp", "passcode", "ssn",
    "password", "Password", "newPassword", "user_password", "passwd", "pwd", "passphrase", "api_key", "apiKey",
    "APIKey", "X-Api-Key", "private_key", "privateKey", "access_token", "accessToken", "refresh_token",
    "client_secret", "clientSecret", "secret", "token", "GITHUB_TOKEN", "Authorization", "X-Auth", "auth",
    "oauthToken", "Cookie", "session_id", "sessionId", "sessionToken", "SESSION_KEY", "credentials", "jwt",
    "signature", "bearer", "login.pin", "card.cvv", "pin1", "security_code"])
def test_a_field_named_by_a_credential_word_is_a_secret(name):
    assert is_secret_field(name, None)
    assert is_secret_name(name)


@pytest.mark.parametrize("name", [
    "author", "authors", "co_author", "session_title", "sessionTitle", "session", "passenger", "compass",
    "bypass", "spinner", "pinned", "opinion", "tokenizer", "keyboard", "monkey", "key", "code", "zipcode",
    "country_code", "promo_code", "shipping", "description", "signal", "secretary", "pink", "topt", "notpin"])
def test_a_field_whose_words_are_no_credential_is_not_a_secret_by_its_name(name):
    assert not is_secret_field(name, None)


@pytest.mark.parametrize("name", ["session", "Session", "key", "sig", "code"])
def test_short_names_mark_a_header_or_variable_but_not_a_field(name):
    assert is_secret_name(name) and not is_secret_field(name, None)



def test_a_secret_nested_in_an_argument_is_found_by_its_schema_or_its_name():
    from mrtr_cli.credentials import holds_secret_schema, secret_members, secret_properties, secret_within

    schema = {"type": "object", "properties": {
        "obj": {"type": "object", "properties": {"inner": {"type": "string", "writeOnly": True}}},
        "keys": {"type": "array", "items": {"type": "string", "format": "password"}},
        "plain": {"type": "object", "properties": {"title": {"type": "string"}}}}}
    values = {"obj": {"inner": "s1", "other": "o"}, "keys": ["k1", "k2"], "plain": {"title": "t", "apiToken": "s2"},
              "free": {"deep": [{"password": "s3"}]}, "open": {"x": 1}}
    assert sorted(secret_members(values, schema)) == ["free", "keys", "obj", "plain"]
    assert secret_properties(schema) == ["obj", "keys"]
    assert not holds_secret_schema("plain", schema["properties"]["plain"])
    # only the secret values themselves, never their plain neighbours
    assert list(secret_within("obj", schema["properties"]["obj"], values["obj"])) == ["s1"]
    assert list(secret_within("free", None, values["free"])) == ["s3"]
    # nesting past the bound is no error
    deep: object = "v"
    for _ in range(100):
        deep = {"a": deep}
    assert not list(secret_within("d", None, deep))
