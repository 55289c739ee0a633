"""What a new user tripped on: a result said once, help for a shell that needs a folder
made first, examples that name their tools and servers."""

from __future__ import annotations

import re

from tests.conftest import ROOT, SERVERS, stdio_cmd

BATCH = ["--stdio", stdio_cmd(SERVERS / "batch_server.py")]
LEGACY = ["--stdio", stdio_cmd(SERVERS / "legacy_server.py")]


# ---------------------------------------------------------------------- a result printed once
def test_structured_content_that_repeats_the_text_is_not_printed_again(mrtr):
    r = mrtr(*BATCH, "call", "add", "a=1", "b=2")  # text "3", structuredContent {"sum": 3}
    assert r.code == 0, r.stderr
    assert r.stdout == "3\n"
    r = mrtr(*BATCH, "call", "add", "a=1", "b=2", "--json")  # --json unchanged: lossless
    assert r.json()["structuredContent"] == {"sum": 3} and r.json()["content"][0]["text"] == "3"


def test_structured_content_that_adds_to_the_text_is_printed(mrtr):
    r = mrtr(*LEGACY, "call", "structured")  # text "see structuredContent", {"count": 3, "ok": true}
    assert r.code == 0, r.stderr
    first, rest = r.stdout.split("\n", 1)
    assert first == "see structuredContent" and '"count": 3' in rest


def test_what_structured_content_adds_is_decided_from_its_values():
    from mrtr_cli.render.output import tool_result_text

    def shown(text: str, structured: object) -> str:
        return tool_result_text({"content": [{"type": "text", "text": text}], "structuredContent": structured})

    assert shown("hello Ann", {"result": "hello Ann"}) == "hello Ann"
    assert shown("Work item 4522 is now Resolved.", {"workItemId": 4522, "state": "resolved"}) == \
        "Work item 4522 is now Resolved."
    assert shown("deleted", {"deleted": True}) == "deleted"
    assert shown("done", {"etag": "a1b2"}) == 'done\n{\n  "etag": "a1b2"\n}'
    assert shown('{"a": 1}', {"a": 1}) == '{\n  "a": 1\n}'  # the text is that JSON: once, indented
    assert tool_result_text({"content": [], "structuredContent": {"a": 1}}) == '{\n  "a": 1\n}'


# ---------------------------------------------------------------------- docs a new user follows
def test_fish_completion_says_to_make_its_folder(mrtr_here):
    help_text = mrtr_here("completion", "--help").stdout
    assert "mkdir -p ~/.config/fish/completions" in help_text
    docs = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    assert docs.index("mkdir -p ~/.config/fish/completions") < docs.index("mrtr completion fish >")


def _sh_blocks(text: str) -> list[tuple[str, str]]:
    """(the text before it, the block) for every ```sh block of a Markdown page."""
    return [(text[:m.start()], m.group(1)) for m in re.finditer(r"```sh\n(.*?)```", text, re.S)]


def test_every_example_that_uses_jq_names_it():
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for before, block in _sh_blocks(text):
            if re.search(r"(^|[|;&]\s*|\s)jq\s", block):
                lead = before.rsplit("```", 1)[-1].rsplit("\n\n", 2)[-2:]  # the paragraph (and marker) before it
                assert "jq" in "".join(lead), f"{page.name}: an example uses jq without naming it:\n{block}"


def test_command_examples_use_servers_the_repository_ships():
    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    for _, block in _sh_blocks(text):
        assert "-s dev" not in block, block
        for path in re.findall(r"python ((?:examples|tests)/servers/\w+\.py)", block):
            assert (ROOT / path).is_file(), path


# ---------------------------------------------------------------------- exit 5 in a script
WORK = ["--stdio", stdio_cmd(ROOT / "examples" / "servers" / "work_items.py")]


def test_a_scripts_exit_5_is_one_line_and_the_pending_document(mrtr):
    r = mrtr(*WORK, "--no-input", "call", "update_work_item", "workItemId=4522", "state=Resolved")
    assert r.code == 5
    assert r.json()["missing"] == ["resolution"]
    assert r.stderr.splitlines() == ["mrtr: input required for resolution (--no-input was given); the pending "
                                     "document is on stdout (next steps: mrtr help answers; -v lists them here)"]
    verbose = mrtr(*WORK, "--no-input", "-v", "call", "update_work_item", "workItemId=4522", "state=Resolved")
    assert verbose.code == 5 and "mrtr: error: input required" in verbose.stderr
    assert "fill in the answersTemplate" in verbose.stderr


def test_a_decline_off_a_terminal_is_only_the_exit_code(mrtr, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text('{"inputResponses": {"confirm": {"action": "decline"}}}')
    r = mrtr(*WORK, "call", "delete_work_item", "workItemId=4301", "--answers", answers)
    assert r.code == 6, r.stderr
    assert r.stdout == "Work item 4301 was kept.\n" and "declined" not in r.stderr
