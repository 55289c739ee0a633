"""OAuth secrets and settings, whichever way they are given (docs/oauth.md "Secrets in files
and variables"): a file named by an environment variable (`MRTR_CLIENT_SECRET_FILE`,
`MRTR_PRIVATE_KEY_FILE`), an option (`--client-secret-file`, `--private-key-file`) or a config
`file:` value is read by the one user-file reader (a regular file, the size limit: a FIFO or
`/dev/zero` is refused at once, exit 2, naming where it came from); a setting with a line break
or a control character is refused (exit 2) naming its variable, option or config member,
never its value. Nothing is sent: no server listens at URL."""

from __future__ import annotations

import json
import os

import pytest

from tests.auth_support import run_mrtr
from tests.support import SAFETY

URL = "http://127.0.0.1:9/mcp"
SECRET = "s3cr3t-value-never-shown"


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "fifo"
    os.mkfifo(path)  # nobody writes: a reader that opens it blocks forever
    return str(path)


def login(tmp_path, *args, env=None):
    # --timeout 30: a reader that blocks would end with exit 7 here, not with exit 2
    return run_mrtr(tmp_path, "--url", URL, "--timeout", "30", *args, "auth", "login", env=env, timeout=SAFETY)


def refused(run, *words):
    assert run.code == 2, run.stderr
    first = run.stderr.splitlines()[0]
    for word in words:
        assert word in first, run.stderr
    assert "Traceback" not in run.stderr
    assert SECRET not in run.stdout + run.stderr


@pytest.mark.parametrize("variable", ["MRTR_CLIENT_SECRET_FILE", "MRTR_PRIVATE_KEY_FILE"])
def test_a_device_named_by_a_variable_is_refused(tmp_path, variable):
    refused(login(tmp_path, env={variable: "/dev/zero"}), variable, "/dev/zero", "not a regular file")


@pytest.mark.parametrize("variable", ["MRTR_CLIENT_SECRET_FILE", "MRTR_PRIVATE_KEY_FILE"])
def test_a_fifo_named_by_a_variable_is_refused_at_once(tmp_path, fifo, variable):
    refused(login(tmp_path, env={variable: fifo}), variable, "FIFO", "not a regular file")


def test_a_file_over_the_size_limit_named_by_a_variable_is_refused(tmp_path):
    big = tmp_path / "big"
    with open(big, "wb") as fh:
        fh.truncate(64 * 1024 * 1024 + 1)  # sparse: costs no disk
    refused(login(tmp_path, env={"MRTR_CLIENT_SECRET_FILE": str(big)}), "MRTR_CLIENT_SECRET_FILE", "larger than")


def test_a_missing_file_named_by_a_variable_is_named(tmp_path):
    refused(login(tmp_path, env={"MRTR_PRIVATE_KEY_FILE": str(tmp_path / "none.pem")}),
            "MRTR_PRIVATE_KEY_FILE", "no such file")


def test_a_config_file_secret_follows_the_same_rules(tmp_path, fifo):
    for secret in ("file:/dev/zero", f"file:{fifo}"):
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"x": {"type": "http", "url": URL, "oauth": {
            "clientId": "c", "clientSecret": secret}}}}))
        run = run_mrtr(tmp_path, "--config", str(config), "--expand-env", "-s", "x", "--timeout", "30",
                       "auth", "login", timeout=SAFETY)
        refused(run, "oauth clientSecret file:", "not a regular file")


def test_an_option_names_itself(tmp_path, fifo):
    refused(login(tmp_path, "--client-id", "c", "--client-secret-file", "/dev/zero"), "--client-secret-file")
    run = run_mrtr(tmp_path, "--url", URL, "--timeout", "30", "auth", "login", "--private-key-file", fifo,
                   timeout=SAFETY)
    refused(run, "--private-key-file", "FIFO")


@pytest.mark.parametrize("variable", ["MRTR_CLIENT_ID", "MRTR_CLIENT_SECRET", "MRTR_OAUTH_ISSUER",
                                      "MRTR_OAUTH_SCOPE", "MRTR_SIGNING_ALG", "MRTR_CLIENT_METADATA_URL"])
@pytest.mark.parametrize("bad", ["\n", "\r", "\x01", "\x7f"], ids=["LF", "CR", "SOH", "DEL"])
def test_a_variable_with_a_line_break_or_control_character_is_refused_unshown(tmp_path, variable, bad):
    run = login(tmp_path, env={variable: SECRET + bad + "x"})
    refused(run, variable)
    assert ("line break" if bad in "\r\n" else "control character") in run.stderr, run.stderr


def test_a_secret_file_with_a_line_break_inside_is_refused_unshown(tmp_path):
    path = tmp_path / "secret"
    path.write_text(SECRET + "\nsecond line\n")
    refused(login(tmp_path, env={"MRTR_CLIENT_SECRET_FILE": str(path)}), "MRTR_CLIENT_SECRET_FILE", "line break")
    refused(login(tmp_path, "--client-id", "c", "--client-secret-file", str(path)), "--client-secret-file",
            "line break")


def test_an_option_or_config_value_with_a_control_character_is_refused_unshown(tmp_path):
    refused(login(tmp_path, "--client-id", SECRET + "\x1b[2J"), "--client-id", "control character")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"x": {"type": "http", "url": URL, "oauth": {
        "clientId": "c", "clientSecret": SECRET + "\n"}}}}))
    run = run_mrtr(tmp_path, "--config", str(config), "-s", "x", "auth", "login")
    refused(run, "oauth clientSecret", "line break")

