"""The help topics (`mrtr help TOPIC`): their names, summaries and pages
(package data under `mrtr_cli/help/`). Below the help layout (cli/help/format.py, which
lists them under `mrtr --help`) and the `help` command (cli/commands/help.py)."""

from __future__ import annotations

#: Topic -> (one-line summary, page file under mrtr_cli/help/).
TOPICS: dict[str, tuple[str, str]] = {
    "exit-codes": ("what each exit code means, and which one wins", "exit-codes.md"),
    "arguments": ("tool and prompt arguments: k=v, k:=json, k=@file, dotted and repeated keys", "arguments.md"),
    "answers": ("answering the server's questions: -a, answer files, the terminal", "answers.md"),
    "environment": ("environment variables mrtr reads", "environment.md"),
    "configuration": ("named servers: config files and -s NAME", "configuration.md"),
}


def topic_text(name: str) -> str:
    """The text of help topic `name` (Markdown, printed as it is).

    Raises:
        KeyError: no such topic.
    """
    from importlib.resources import files  # noqa: PLC0415 - lazy for start-up time

    return (files("mrtr_cli") / "help" / TOPICS[name][1]).read_text(encoding="utf-8")
