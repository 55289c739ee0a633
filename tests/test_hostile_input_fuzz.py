"""Property-based fuzzing (hypothesis) of what the user types and what a person is shown:
the `key=value` argument parser, answer-file loading and the URL display. No
input may raise anything but a `UsageError` (exit 2) in-process, or end a run with exit 70
or a hang through the CLI."""

from __future__ import annotations

import io
import ipaddress
import json

import pytest

from tests.support import SAFETY

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from mrtr_cli.app import App, RunOptions  # noqa: E402
from mrtr_cli.env import Environment  # noqa: E402
from mrtr_cli.errors import UsageError  # noqa: E402
from mrtr_cli.responders.answers import AnswerStore, load_answer_file, parse_answer_document, parse_flag  # noqa: E402
from mrtr_cli.responders.chain import ResponderChain  # noqa: E402
from mrtr_cli.responders.urls import browser_host, openable, refusal, split_for_display, url_warnings  # noqa: E402
from mrtr_cli.schema.arguments import build_arguments, parse_item, validate_arguments  # noqa: E402
from tests.conftest import PY, ROOT, clean_env, stdio_cmd  # noqa: E402
from tests.servers.picky_server import TOOLS as PICKY_TOOLS  # noqa: E402
from tests.test_hostile_input import PICKY  # noqa: E402

FAST = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
SLOW = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

SCHEMA = {"type": "object", "properties": {
    "n": {"type": "integer"}, "x": {"type": "number"}, "b": {"type": "boolean"}, "s": {"type": "string"},
    "tags": {"type": "array", "items": {"type": "integer"}}, "o": {"type": "object", "properties": {
        "k": {"type": ["integer", "null"]}}}, "u": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}}}

json_values = st.recursive(st.none() | st.booleans() | st.integers()
                           | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
                           lambda inner: (st.lists(inner, max_size=4)
                                          | st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                           max_leaves=20)
keys = st.sampled_from(["n", "x", "b", "s", "tags", "o", "o.k", "u", "n.m", "s.t.u", "tags.0"]) | st.text(max_size=12)
seps = st.sampled_from(["=", ":=", "=@", ":=@", ""])
values = st.text(max_size=30) | json_values.map(json.dumps) | st.sampled_from(
    ["1", "-0", "1e400", "NaN", "true", "null", "[1,2]", "{\"k\": 1}", "0x10", "1.5", " 7 ", "@-", "@/dev/zero"])
items = st.builds(lambda k, sep, v: f"{k}{sep}{v}", keys, seps, values)


def _app(tmp_path) -> App:
    return App(RunOptions(), Environment(stdin=io.StringIO(""), stdout=io.StringIO(), stderr=io.StringIO()))


@FAST
@given(st.lists(items, max_size=6), st.none() | st.dictionaries(st.sampled_from(["n", "o", "s", "z"]), json_values,
                                                                   max_size=3), st.booleans())
@example(texts=["n=\n"], base=None, lenient=False)  # found by the fuzzer: a newline in the item
@example(texts=["k=@\n"], base=None, lenient=False)  # ... and in a file name
def test_argument_items_never_fail_but_as_usage_errors(tmp_path, texts, base, lenient):
    app = _app(tmp_path)
    try:
        parsed = [parse_item(text, app.read_file) for text in texts]
        for schema in (SCHEMA, None):
            args = build_arguments(parsed, base, schema, lenient=lenient)
            json.dumps(args, allow_nan=False)  # what is built can be sent
    except UsageError as exc:
        assert exc.message and "\n" not in exc.message.split(":")[0]


@FAST
@given(st.integers(min_value=1, max_value=3000), st.sampled_from(["=1", ":=1", ":=[]"]))
def test_dotted_keys_of_any_length_never_fail_but_as_usage_errors(tmp_path, parts, tail):
    app = _app(tmp_path)
    try:
        args = build_arguments([parse_item(".".join(["k"] * parts) + tail, app.read_file)], None, SCHEMA)
        json.dumps(args)
    except UsageError:
        assert parts > 999


FORM = {"method": "elicitation/create", "params": {"mode": "form", "message": "m", "requestedSchema": {
    "type": "object", "properties": {"n": {"type": "integer", "minimum": 0}, "b": {"type": "boolean"},
                                     "c": {"type": "string", "enum": ["r", "g"]}}, "required": ["n"]}}}
URL_ASK = {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://a.example/",
                                                      "elicitationId": "e"}}


@FAST
@given(json_values | st.dictionaries(st.sampled_from(["inputResponses", "fields", "roots", "f", "u"]), json_values,
                                     max_size=3), st.lists(st.builds(lambda k, v: f"{k}={v}", st.sampled_from(
                                         ["n", "b", "c", "f.n", "zz"]), values), max_size=3))
def test_answer_documents_never_fail_but_as_usage_errors(tmp_path, doc, flags):
    env = Environment(stdin=io.StringIO(""), stdout=io.StringIO(), stderr=io.StringIO(), no_input=True)
    try:
        store = AnswerStore([parse_answer_document(doc, "a.json")], [parse_flag(f) for f in flags])
        chain = ResponderChain(env, store)
        for _ in range(2):  # a second round: a one-off answer is not given again
            outcome = chain.answer_round({"f": FORM, "u": URL_ASK}, server_name="s", origin="tools/call t")
            json.dumps(outcome.responses, allow_nan=False)
            # every key is either answered or missing, never both, never dropped
            assert sorted([*outcome.responses, *outcome.missing]) == ["f", "u"]
            for response in outcome.responses.values():
                assert response["action"] in ("accept", "decline", "cancel")
    except UsageError as exc:
        # one line naming what was wrong: the file or the -a flag
        assert "\n" not in exc.message
        assert exc.message.startswith(("a.json", "-a ")), exc.message


@FAST
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode) | json_values.map(
    lambda v: json.dumps(v).encode()))
def test_answer_files_of_any_bytes_never_fail_but_as_usage_errors(tmp_path, data):
    path = tmp_path / "answers.json"
    path.write_bytes(data)
    try:
        load_answer_file(str(path))
    except UsageError as exc:
        assert str(path) in exc.message


hosts = st.sampled_from(["good.com", "evil.example", "GOOD.com", "xn--80ak6aa92e.com", "аррӏе.com", "127.0.0.1",
                         "[::1]", "0x7f.1", "a b", "", "good.com%2eevil", "ex\tample.com"])
url_parts = st.builds(lambda scheme, sep, user, host, rest: f"{scheme}{sep}{user}{host}{rest}",
                      st.sampled_from(["https", "http", "HTTPS", "javascript", "file", "data", " https", ""]),
                      st.sampled_from(["://", ":/\\", ":\\\\", ":", "://\t", ":////"]),
                      st.sampled_from(["", "user@", "u:p@", "evil.example\\@", "a%40b@"]),
                      hosts, st.text(max_size=20))
urls = url_parts | st.text(max_size=60)


rule_hosts = st.sampled_from(["good.com", "GOOD.com.", "127.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "0x7f.1",
                              "2130706433", "127.1", "0251.0376.0251.0376", "%65vil.example", "fa\u00df.de",
                              "xn--fa-hia.de", "evil.example\\@good.com", "good.com\\", "a%40b@good.com",
                              "u:p@good.com", "evil.example%5C@good.com"])
rule_urls = st.builds(lambda scheme, sep, host, port, rest: f"{scheme}{sep}{host}{port}{rest}",
                      st.sampled_from(["https", "http", "HTTP"]), st.sampled_from(["://", ":/\\", ":\\\\", ":////"]),
                      rule_hosts, st.sampled_from(["", ":8443", ":443", ":0x1"]),
                      st.sampled_from(["", "/", "/a\\b", "/x?q=\\y", "/@good.com", "#\\"]) | st.text(max_size=12))


@FAST
@given(rule_urls)
def test_a_url_the_rule_passes_goes_where_a_browser_goes(url):
    # The one rule on server-given URLs (transport/http/urlrule.py): whatever it passes, the
    # HTTP client connects to the host a browser visits, and that is the host it judged.
    import httpx2

    from mrtr_cli.render.weburl import browser_view
    from mrtr_cli.transport.http.urlrule import INVALID, is_valid_url, url_problem

    problem = url_problem(url)
    assert isinstance(problem, str) or problem is None
    if not is_valid_url(url):
        assert problem == INVALID or "a browser goes to host" in problem
        return
    view = browser_view(url)
    assert view.scheme in ("http", "https") and view.host and not view.credentials
    client = httpx2.URL(url)
    assert client.raw_host.decode("ascii").lower() == view.host.strip("[]") or (
        view.host.startswith("[") and ipaddress.ip_address(client.host) == ipaddress.ip_address(view.host[1:-1]))
    assert not client.userinfo


@FAST
@given(urls)
def test_the_url_display_never_fails_and_shows_what_a_browser_visits(url):
    import ada_url

    warnings = url_warnings(url)
    host = browser_host(url)
    parts = split_for_display(url)
    if openable(url):
        assert refusal(url) is None
        parsed = ada_url.URL(url)
        assert parsed.protocol in ("http:", "https:") and not parsed.username and not parsed.password
        assert host == parsed.hostname and host
        assert parts is not None
        assert parts.before_host + parts.userinfo + parts.host + parts.after_host == url
        assert parts.host.lower() == host  # the highlighted text is the browser's host
        assert all(ord(c) > 0x20 and c != "\\" for c in url)
    else:
        assert refusal(url) is not None and refusal(url) in warnings
        assert parts is None or not url.lower().startswith(("http:", "https:"))


@SLOW
@given(st.lists(items.filter(lambda t: "@" not in t and "\x00" not in t), min_size=1, max_size=4))  # no NUL in argv
def test_argument_items_through_the_cli_never_exit_70(tmp_path, texts):
    import subprocess

    proc = subprocess.run([PY, "-m", "mrtr_cli", "--stdio", stdio_cmd(PICKY), "--no-input", "--timeout", "30",
                           "call", "echo", "--", *texts], capture_output=True, text=True, env=clean_env(tmp_path),
                          cwd=ROOT, timeout=SAFETY)
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    # One outcome per input, as mrtr's own parser decides it in process: refused as bad input
    # (2), or sent and echoed back by the picky server (0).
    echoed = echo_arguments(texts)
    assert proc.returncode == (2 if echoed is None else 0), (texts, proc.stderr)
    if echoed is not None:
        assert json.loads(proc.stdout) == echoed, (texts, proc.stdout)


def echo_arguments(texts: list[str]) -> dict | None:
    """The arguments mrtr sends the picky server's `echo` for `texts`, or None when it
    refuses them (a UsageError): the in-process parse, typing and schema check."""
    schema = next(t["inputSchema"] for t in PICKY_TOOLS if t["name"] == "echo")
    try:
        arguments = build_arguments([parse_item(t, lambda name: pytest.fail(name)) for t in texts], None, schema)
        validate_arguments(arguments, schema, "echo")
    except UsageError:
        return None
    return arguments


# ---------------------------------------------------------------- answer files through the CLI
# The expected exit code of `mrtr call pick --answers FILE --no-input` against the picky
# server is derived from the file by the rules below, written from docs/design.md ("Exit
# codes", "Answer files") and docs/answers.md, never by running mrtr's own code. The
# picky server's `pick` asks the input key "code" (a form with one required string field
# "code"), accepts only "right", and asks the same key again after any other value.
RIGHT = "right"
wrong_texts = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=8).filter(lambda t: t != RIGHT)
field_values = st.just(RIGHT) | wrong_texts | st.integers() | st.booleans() | st.lists(st.integers(), max_size=2)
responses = (st.builds(lambda v: {"action": "accept", "content": {"code": v}}, field_values)
             | st.sampled_from([{"action": "decline"}, {"action": "cancel"}]))
#: members an answer file may carry that answer nothing here (ignored, or keyed for another request)
ignored = st.dictionaries(st.sampled_from(["_comment", "$schema", "_fields"]), json_values, max_size=2)


def _file(kind, value, extra):
    if kind == "fields":
        return {**extra, "fields": {"code": value}}
    if kind == "inputResponses":
        return {**extra, "inputResponses": {"code": value}}
    return {**extra, "code": value}  # a bare inputResponses object


answer_docs = (
    st.builds(_file, st.just("fields"), field_values, ignored)
    | st.builds(_file, st.sampled_from(["inputResponses", "bare"]), responses | st.lists(responses, min_size=1,
                                                                                          max_size=3), ignored)
    # answering nothing here: no member for "code" (other keys, other fields)
    | st.sampled_from([{}, {"_comment": "x"}, {"other": {"action": "accept", "content": {"code": RIGHT}}},
                       {"fields": {}}, {"fields": {"codes": RIGHT}}, {"inputResponses": {}}])
    # members of the wrong type
    | st.builds(lambda k, v: {k: v}, st.sampled_from(["inputResponses", "fields"]),
                st.sampled_from([[], "x", 1, True]))
    | st.builds(lambda v: {"inOrder": v}, st.sampled_from([{}, "x", 1]))
    | st.builds(lambda v: {"roots": v}, st.sampled_from([{}, "x", 1, True])))


def _json_object(data: bytes):
    """`data` as a JSON object by the standard library (no NaN or Infinity), else None."""
    def no_constants(name):
        raise ValueError(name)

    try:
        value = json.loads(data.decode("utf-8"), parse_constant=no_constants)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


not_objects = (st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode())).filter(
    lambda data: _json_object(data) is None)


def expected_exit(data: bytes) -> int:
    """The exit code docs/design.md gives for this answer file (0 picked, 2 a bad file or
    answer, 5 nobody answers, 6 declined or cancelled; of several, the first of 2, 5, 6:
    "Precedence")."""
    doc = _json_object(data)
    if doc is None:
        return 2  # an answer file is one JSON object
    known = ("inputResponses", "inOrder", "fields", "roots")
    if not any(k in doc for k in known):
        doc = {"inputResponses": {k: v for k, v in doc.items() if not k.startswith(("_", "$"))}}
    if not isinstance(doc.get("inputResponses", {}), dict) or not isinstance(doc.get("fields", {}), dict) \
            or not isinstance(doc.get("inOrder", []), list) or doc.get("roots") is not None \
            and not isinstance(doc.get("roots"), list):
        return 2  # a member of the wrong type
    keyed = doc.get("inputResponses", {}).get("code")
    if keyed is not None:
        # a list: one entry per round that asks the key; a single value: used once
        rounds = keyed if isinstance(keyed, list) else [keyed]
    elif "code" in doc.get("fields", {}):
        rounds = [{"action": "accept", "content": {"code": doc["fields"]["code"]}}]  # a form by field name, once
    else:
        rounds = []
    declined = False
    for response in rounds:  # the server asks again after anything but "right"
        if response["action"] != "accept":
            declined = True  # 6, unless something that outranks it comes
            continue
        value = response["content"]["code"]
        if not isinstance(value, str):
            return 2  # checked against the form's schema (a string) before it is sent
        if value == RIGHT:
            return 6 if declined else 0
    return 5  # asked again, and no answer is left: a pending document (5 outranks 6)


@SLOW
@given(answer_docs.map(lambda doc: json.dumps(doc).encode()) | not_objects)
@example(data=b'{"fields": {"code": "right"}}')  # 0
@example(data=b'{"fields": {"code": "x"}}')  # 5: rejected, and an answer is used once
@example(data=b'{"code": [{"action": "decline"}, {"action": "accept", "content": {"code": "right"}}]}')  # 6
@example(data=b'{"code": [{"action": "accept", "content": {"code": "x"}}, '
              b'{"action": "accept", "content": {"code": "right"}}]}')  # 0: the second round's answer
@example(data=b"[1, 2]")  # 2
@example(data=b"\xff")  # 2
def test_answer_files_through_the_cli_end_as_the_rules_say(tmp_path, data):
    import subprocess

    path = tmp_path / "a.json"
    path.write_bytes(data)
    proc = subprocess.run([PY, "-m", "mrtr_cli", "--stdio", stdio_cmd(PICKY), "--no-input", "--timeout", "30",
                           "call", "pick", "--answers", str(path)], capture_output=True, text=True,
                          env=clean_env(tmp_path), cwd=ROOT, timeout=SAFETY)
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert proc.returncode == expected_exit(data), (data, proc.stderr)


def test_the_answer_file_rules_of_the_oracle():
    """The oracle's own rules on the documented examples (docs/answers.md)."""
    assert expected_exit(b'{"fields": {"code": "right"}}') == 0
    assert expected_exit(b'{"inputResponses": {"code": {"action": "accept", "content": {"code": "right"}}}}') == 0
    assert expected_exit(b'{"code": {"action": "decline"}}') == 5  # asked again: 5 outranks 6
    assert expected_exit(b'{"code": [{"action": "cancel"}, {"action": "accept", "content": {"code": "right"}}]}') == 6
    assert expected_exit(b'{"fields": {"code": 5}}') == 2
    assert expected_exit(b'{"_comment": 1}') == 5
    assert expected_exit(b'{"fields": []}') == 2
    assert expected_exit(b'NaN') == 2
    assert expected_exit(b'{"code": {"action": "accept", "content": {"code": "no"}}}') == 5
