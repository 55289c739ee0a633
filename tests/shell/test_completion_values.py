"""What the shell's completer (shell/completion.py) makes of the values a server suggests
for a prompt argument or a template variable: at most `MAX_SUGGESTIONS`, none with a
control or escape character, none longer than `MAX_SUGGESTION_CHARS`, quoted for the
line; the other arguments typed as the context; schema-fixed values and names the
prompt or template does not have never reach the server. (At a terminal against a real
server: test_server_values.py.)"""

from __future__ import annotations

from mrtr_cli.shell.completion import MAX_SUGGESTION_CHARS, MAX_SUGGESTIONS, Completer


class _Live:
    pending: dict | None = None

    def __init__(self, values: list[str]) -> None:
        self.asked: dict = {}
        self.values = values
        self.questions: list[tuple] = []

    def names(self, method: str) -> list[dict]:
        return {"prompts/list": [{"name": "review", "arguments": [{"name": "language"}, {"name": "framework"}]}],
                "resources/templates/list": [{"uriTemplate": "repo://{owner}/{name}"}]}.get(method, [])

    def suggest(self, kind: str, ref: str, argument: str, value: str, context: dict[str, str]) -> list[str]:
        self.questions.append((kind, ref, argument, value, context))
        return self.values


def _complete(live: _Live, text: str) -> list[str]:
    from mrtr_cli.cli.commands.shell import commands

    return [c.text for c in Completer(commands, live).complete(text)]


def test_suggested_values_are_bounded_plain_and_quoted():
    hostile = ["py\x1b[2Jx", "py\rback", "py\x9b31m", "py\u202eevil", "p" * (MAX_SUGGESTION_CHARS + 1)]
    many = [f"py-{i:04d}" for i in range(3000)]
    live = _Live([*hostile, "python", "py thon", "python", *many])
    got = _complete(live, "prompt review framework=flask language=py")
    assert got[:2] == ["language=python ", "'language=py thon' "]  # repeated once, quoted when it must be
    assert len(got) == MAX_SUGGESTIONS
    assert all("\x1b" not in g and "\r" not in g and "\x9b" not in g and "\u202e" not in g for g in got)
    assert live.questions == [("prompt", "review", "language", "py", {"framework": "flask"})]


def test_template_variables_ask_with_the_template_and_the_other_variables():
    live = _Live(["alice"])
    assert _complete(live, "read 'repo://{owner}/{name}' name=x owner=al") == ["owner=alice "]
    assert live.questions == [("resource", "repo://{owner}/{name}", "owner", "al", {"name": "x"})]


def test_no_question_for_a_name_the_prompt_does_not_have_or_a_uri_that_is_no_template():
    live = _Live(["x"])
    assert _complete(live, "prompt review colour=r") == []
    assert _complete(live, "read file:///etc/hosts path=r") == []
    assert _complete(live, "prompt nosuch language=r") == []
    assert live.questions == []
