"""The skills extension (SEP-2640): `mrtr skills` and `mrtr skill`, against the SDK server
tests/servers/skills_server.py over stdio and HTTP.

Every file read is verified (size, digest, frontmatter) before anything is printed or
written; a server serving a wrong digest or size is refused with exit 4 and nothing is
kept; nothing is read before it is asked for.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.conftest import SERVERS, HttpServers, Target, read_records, stdio_cmd, url_args

SKILLS_SERVER = SERVERS / "skills_server.py"
PDF_SKILL = (SERVERS / "skills_server.py").read_text().split('PDF_SKILL = """', 1)[1].split('"""', 1)[0]


def skills_target(kind: str, http_servers: HttpServers, tmp_path: Path, *extra: str) -> Target:
    record = tmp_path / f"record-{kind}.jsonl"
    if kind == "stdio":
        return Target("stdio", ["--stdio", stdio_cmd(SKILLS_SERVER, "--record", str(record), *extra)], record)
    return Target("http", url_args(http_servers.start(SKILLS_SERVER, "--record", str(record), *extra)), record)


def reads(target: Target) -> list[str]:
    return [m["params"]["uri"] for m in read_records(target.record) if m.get("method") == "resources/read"]


def methods(target: Target) -> list[str]:
    return [m["method"] for m in read_records(target.record) if "id" in m and "method" in m]


@pytest.fixture(params=["stdio", "http"])
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


def test_skills_lists_name_path_description_and_reads_no_file(mrtr, kind, http_servers, tmp_path):
    target = skills_target(kind, http_servers, tmp_path)
    run = mrtr(*target.args, "skills")
    assert run.code == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].split() == ["pdf-processing", "pdf-processing", "Extract,", "fill,", "and", "assemble", "PDF",
                                "documents"]
    assert "acme/billing/refunds" in lines[1] and lines[1].startswith("refunds")
    assert "skills/list" in methods(target)
    assert reads(target) == []  # lazy retrieval: listing reads no skill file


def test_skills_json_is_every_entry_as_sent(mrtr, kind, http_servers, tmp_path):
    target = skills_target(kind, http_servers, tmp_path)
    run = mrtr(*target.args, "skills", "--json")
    assert run.code == 0, run.stderr
    entries = run.json()
    assert [e["uri"] for e in entries] == ["skill://pdf-processing/SKILL.md", "skill://acme/billing/refunds/SKILL.md",
                                          "skill://ops/refunds/SKILL.md"]
    assert entries[1]["frontmatter"]["metadata"] == {"version": "2.1", "owners": ["billing", "support"]}
    assert entries[0]["resources"][0]["digest"].startswith("sha256:")
    assert reads(target) == []


def test_skill_prints_verified_skill_md_and_reads_only_it(mrtr, kind, http_servers, tmp_path):
    target = skills_target(kind, http_servers, tmp_path)
    run = mrtr(*target.args, "skill", "pdf-processing")
    assert run.code == 0, run.stderr
    assert run.stdout == PDF_SKILL
    assert reads(target) == ["skill://pdf-processing/SKILL.md"]  # supporting files only when asked


def test_skill_files_writes_every_listed_file_verified(mrtr, kind, http_servers, tmp_path):
    target = skills_target(kind, http_servers, tmp_path)
    dest = tmp_path / "out" / "pdf"
    dest.parent.mkdir()
    run = mrtr(*target.args, "skill", "pdf-processing", "--files", str(dest), "--json")
    assert run.code == 0, run.stderr
    assert (dest / "SKILL.md").read_text() == PDF_SKILL
    assert (dest / "references" / "FORMS.md").read_text() == "# Forms\n\nFill every field.\n"
    assert (dest / "scripts" / "extract.bin").read_bytes() == bytes(range(256))  # a base64 blob, decoded
    doc = run.json()
    assert {f["path"] for f in doc["files"]} == {"SKILL.md", "references/FORMS.md", "scripts/extract.bin"}
    blob = next(f for f in doc["files"] if f["path"] == "scripts/extract.bin")
    assert blob["digest"] == "sha256:" + hashlib.sha256(bytes(range(256))).hexdigest() and blob["size"] == 256
    assert reads(target)[0] == "skill://pdf-processing/SKILL.md"
    assert sorted(p.name for p in dest.parent.iterdir()) == ["pdf"]  # no staging directory left


@pytest.mark.parametrize("tamper", [["--bad-digest", "references/FORMS.md"], ["--bad-size", "scripts/extract.bin"]])
def test_wrong_digest_or_size_of_a_supporting_file_keeps_nothing(mrtr, kind, http_servers, tmp_path, tamper):
    target = skills_target(kind, http_servers, tmp_path, *tamper)
    dest = tmp_path / "out" / "pdf"
    dest.parent.mkdir()
    run = mrtr(*target.args, "skill", "pdf-processing", "--files", str(dest))
    assert run.code == 4, run.stderr
    assert "verification failed" in run.stderr and tamper[1] in run.stderr
    assert run.stdout == ""
    assert list(dest.parent.iterdir()) == []  # neither DIR nor a staging directory


@pytest.mark.parametrize("tamper", [["--bad-digest", "SKILL.md"], ["--bad-size", "SKILL.md"], ["--bad-frontmatter"]])
def test_wrong_skill_md_is_refused_before_anything_else_is_read(mrtr, kind, http_servers, tmp_path, tamper):
    target = skills_target(kind, http_servers, tmp_path, *tamper)
    dest = tmp_path / "pdf"
    run = mrtr(*target.args, "skill", "pdf-processing", "--files", str(dest))
    assert run.code == 4, run.stderr
    assert run.stdout == "" and not dest.exists()
    assert reads(target) == ["skill://pdf-processing/SKILL.md"]  # refused: no supporting file read
    if tamper == ["--bad-frontmatter"]:
        assert "frontmatter" in run.stderr and "description" in run.stderr
    plain = mrtr(*target.args, "skill", "pdf-processing")
    assert plain.code == 4 and plain.stdout == ""  # not printed either


def test_shared_name_is_refused_and_a_path_or_uri_chooses(mrtr, http_servers, tmp_path):
    target = skills_target("stdio", http_servers, tmp_path)
    run = mrtr(*target.args, "skill", "refunds")
    assert run.code == 2
    assert "acme/billing/refunds" in run.stderr and "ops/refunds" in run.stderr
    by_path = mrtr(*target.args, "skill", "acme/billing/refunds")
    assert by_path.code == 0 and "Refund within 30 days." in by_path.stdout
    by_uri = mrtr(*target.args, "skill", "skill://ops/refunds/SKILL.md")
    assert by_uri.code == 0 and "Escalate." in by_uri.stdout


def test_unlisted_skill_is_loaded_by_uri_through_skills_get(mrtr, http_servers, tmp_path):
    target = skills_target("stdio", http_servers, tmp_path)
    run = mrtr(*target.args, "skill", "skill://hidden/secret-skill/SKILL.md", "--json")
    assert run.code == 0, run.stderr
    doc = run.json()
    assert doc["skill"]["frontmatter"]["name"] == "secret-skill"
    assert doc["read"]["contents"][0]["text"].endswith("Hidden body.\n")
    assert "skills/get" in methods(target)
    missing = mrtr(*target.args, "skill", "skill://nowhere/SKILL.md")
    assert missing.code == 4 and "nowhere" in missing.stderr  # -32602 from skills/get


def test_dynamic_skill_is_loaded_with_a_warning(mrtr, http_servers, tmp_path):
    target = skills_target("stdio", http_servers, tmp_path)
    dest = tmp_path / "daily"
    run = mrtr(*target.args, "skill", "skill://reports/daily/SKILL.md", "--files", str(dest))
    assert run.code == 0, run.stderr
    assert "\"dynamic\"" in run.stderr and "cannot be verified" in run.stderr
    assert (dest / "SKILL.md").read_text().endswith("Generated.\n")
    assert [p.name for p in dest.iterdir()] == ["SKILL.md"]


def test_unknown_name_says_did_you_mean(mrtr, http_servers, tmp_path):
    target = skills_target("stdio", http_servers, tmp_path)
    run = mrtr(*target.args, "skill", "pdf-processin")
    assert run.code == 2
    assert "unknown skill 'pdf-processin'" in run.stderr and "did you mean: pdf-processing" in run.stderr
    assert reads(target) == []


def test_a_server_without_the_extension_gets_no_skills_list(mrtr, http_servers, tmp_path):
    target = skills_target("stdio", http_servers, tmp_path, "--no-extension")
    run = mrtr(*target.args, "skills")
    assert run.code == 4
    assert "does not declare the skills extension" in run.stderr
    assert "skills/list" not in methods(target)


def test_files_into_a_non_empty_directory_is_refused_before_any_read(mrtr, http_servers, tmp_path):
    target = skills_target("stdio", http_servers, tmp_path)
    dest = tmp_path / "full"
    dest.mkdir()
    (dest / "keep.txt").write_text("mine")
    run = mrtr(*target.args, "skill", "pdf-processing", "--files", str(dest))
    assert run.code == 2 and "not an empty directory" in run.stderr
    assert (dest / "keep.txt").read_text() == "mine" and reads(target) == []
    empty = tmp_path / "empty"
    empty.mkdir()
    ok = mrtr(*target.args, "skill", "pdf-processing", "--files", str(empty))
    assert ok.code == 0, ok.stderr
    assert (empty / "SKILL.md").exists()
    assert ok.stdout.splitlines() == [str(empty / p) for p in ("SKILL.md", "references/FORMS.md",
                                                               "scripts/extract.bin")]


# ---------------------------------------------------------------------- the verification rules
def test_entry_rules_refuse_unlisted_manifest_foreign_files_and_bad_resources():
    from mrtr_cli.protocol.features.skills import SkillLoader, VerificationFailed

    base = {"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"}}
    good = {"uri": "skill://a/SKILL.md", "digest": "sha256:" + "0" * 64, "size": 1}
    for resources in (None, "static", [{"uri": "skill://a/x.md", "digest": good["digest"], "size": 1}],
                      [good, {"uri": "skill://b/x.md", "digest": good["digest"], "size": 1}], [good, good]):
        with pytest.raises(VerificationFailed):
            SkillLoader(None, {**base, "resources": resources})  # type: ignore[arg-type]
    with pytest.raises(VerificationFailed, match="limit"):
        SkillLoader(None, {**base, "resources": [{**good, "size": 17 * 1024 * 1024}]})  # type: ignore[arg-type]
    with pytest.raises(VerificationFailed, match="unsafe path"):
        SkillLoader(None, {**base, "resources": [good, {**good, "uri": "skill://a/../../etc/passwd"}]})  # type: ignore[arg-type]
    loader = SkillLoader(None, {**base, "resources": [good]})  # type: ignore[arg-type]
    for bad in ("skill://a/../../etc/passwd", "skill://a/x\nname.md", "skill://a/x\\..\\y", "skill://a//x"):
        with pytest.raises(VerificationFailed, match="unsafe path"):
            loader.relative(bad)
    assert loader.relative("skill://a/references/FORMS.md") == "references/FORMS.md"
    assert SkillLoader(None, {**base, "resources": "dynamic"}).dynamic  # type: ignore[arg-type]


def test_frontmatter_parsing_and_comparison():
    from mrtr_cli.protocol.features.skills import compare_frontmatter, parse_frontmatter

    text = "---\nname: x\ndescription: y\nmetadata:\n  released: 2026-01-02\n---\nbody\n"
    fm = parse_frontmatter(text)
    assert fm == {"name": "x", "description": "y", "metadata": {"released": "2026-01-02"}}
    assert compare_frontmatter(fm, json.loads(json.dumps(fm))) == []
    assert compare_frontmatter(fm, {"name": "x", "description": "z"}) == ["description", "metadata"]
    assert parse_frontmatter("no frontmatter\n") is None
    with pytest.raises(ValueError, match="not a mapping"):
        parse_frontmatter("---\n- a list\n---\n")
    with pytest.raises(ValueError, match="not valid YAML"):  # there, but broken: said as such
        parse_frontmatter("---\nname: [unclosed\n---\n")


@pytest.mark.parametrize("char", ["\u202e", "\x9b", "\u2028", "\u2029", "\u200b", "\x85", "\x7f", "\x1b", "\ud800"])
def test_a_file_name_with_a_control_format_or_separator_character_is_refused(char):
    from mrtr_cli.protocol.features.skills import SkillLoader, VerificationFailed

    good = {"uri": "skill://a/SKILL.md", "digest": "sha256:" + "0" * 64, "size": 1}
    bad = {**good, "uri": f"skill://a/ref/x{char}y.md"}
    with pytest.raises(VerificationFailed, match=f"unsafe path: it holds U\\+{ord(char):04X}"):
        SkillLoader(None, {"uri": good["uri"], "frontmatter": {"name": "a"},  # type: ignore[arg-type]
                           "resources": [good, bad]})


@pytest.mark.parametrize("listed", [["a", "a/b"], ["a/b/c", "a/b"], ["SKILL.md/x"]])
def test_a_file_listed_also_as_a_directory_is_the_servers_invalid_entry(listed):
    from mrtr_cli.protocol.features.skills import SkillLoader, VerificationFailed

    good = {"uri": "skill://a/SKILL.md", "digest": "sha256:" + "0" * 64, "size": 1}
    resources = [good, *({**good, "uri": f"skill://a/{rel}"} for rel in listed)]
    with pytest.raises(VerificationFailed, match="as a file and .* inside it as if it were a directory"):
        SkillLoader(None, {"uri": good["uri"], "frontmatter": {"name": "a"}, "resources": resources})  # type: ignore[arg-type]


def test_files_into_a_symlink_or_an_empty_path_is_refused_truly(mrtr, http_servers, tmp_path):
    target = skills_target("stdio", http_servers, tmp_path)
    (tmp_path / "empty").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "empty")
    run = mrtr(*target.args, "skill", "pdf-processing", "--files", str(tmp_path / "link"))
    assert run.code == 2 and "is a symbolic link" in run.stderr and "no longer empty" not in run.stderr
    assert list((tmp_path / "empty").iterdir()) == [] and reads(target) == []
    run = mrtr(*target.args, "skill", "pdf-processing", "--files", "")
    assert run.code == 2 and "--files: the path is empty" in run.stderr


def test_unknown_skill_lists_paths_each_once(mrtr, http_servers, tmp_path):
    target = skills_target("stdio", http_servers, tmp_path)
    run = mrtr(*target.args, "skill", "nosuch")
    assert run.code == 2
    assert "the server's skills: pdf-processing, acme/billing/refunds, ops/refunds" in run.stderr
    run = mrtr(*target.args, "skill", "refund")  # two skills share the name: both paths, not "refunds, refunds"
    assert "did you mean: acme/billing/refunds, ops/refunds?" in run.stderr


# ---------------------------------------------------------------------- discover
def test_discover_says_whether_skills_and_listen_are_supported(mrtr, http_servers, tmp_path):
    with_skills = mrtr("--stdio", stdio_cmd(SKILLS_SERVER), "discover")
    assert with_skills.code == 0, with_skills.stderr
    assert "Skills:        yes (io.modelcontextprotocol/skills): mrtr skills" in with_skills.stdout
    assert "Listen:        nothing (no listChanged, no subscribe)" in with_skills.stdout
    without = mrtr("--stdio", stdio_cmd(SKILLS_SERVER, "--no-extension"), "discover")
    assert "Skills:        no" in without.stdout
    for protocol in ("2026-07-28", "2025-11-25"):
        listen = mrtr("--protocol", protocol, "--stdio", stdio_cmd(SERVERS / "listen_server.py"), "discover")
        assert listen.code == 0, listen.stderr
        assert "Listen:        tools, resources, resource updates: mrtr listen" in listen.stdout
