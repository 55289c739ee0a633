"""`mrtr tools NAME`'s example never prints a URL's credentials: for a URL with a password
(`alice:***@`) or a credential-named query parameter (`token=***`), given as `--url` or
`MRTR_URL`, the example names no `--url` and says first to set `MRTR_URL` to the URL (shown
without its credentials, as every other output shows it); the command printed then works.
Against the SDK catalog server over HTTP on 127.0.0.1."""

from __future__ import annotations

import shlex

import pytest

from tests.conftest import CATALOG_SERVER, SAFETY, url_args

PASSWORD, TOKEN = "s3cr3tpw", "tok999xyz"


@pytest.mark.parametrize("given", ["--url", "MRTR_URL"])
def test_the_example_of_a_tool_hides_the_urls_credentials(mrtr, http_servers, given):
    plain = http_servers.start(CATALOG_SERVER)
    url = plain.replace("http://", f"http://alice:{PASSWORD}@", 1) + f"?token={TOKEN}"
    # (with the era probe's bound at SAFETY, which this is not about: tests/probe_bound.py)
    bound = ["--probe-timeout", f"{SAFETY:g}"]
    args, env = (url_args(url), None) if given == "--url" else (bound, {"MRTR_URL": url})
    run = mrtr(*args, "tools", "whoami", env=env)
    assert run.code == 0, run.stderr
    assert PASSWORD not in run.stdout and TOKEN not in run.stdout, run.stdout
    lines = run.stdout.splitlines()
    at = lines.index("Example:")
    public = plain.replace("http://", "http://alice:***@", 1) + "?token=***"
    assert lines[at + 1].strip() == (f"set MRTR_URL to the server's URL with its credentials (shown here as "
                                      f"{public}), then:")
    example = shlex.split(lines[at + 2])
    assert example[:3] == ["mrtr", "call", "whoami"], example
    again = mrtr(*bound, *example[1:], env={"MRTR_URL": url})  # as it says: with MRTR_URL set, the command works
    assert again.code == 0, again.stderr


def test_the_example_keeps_a_url_without_credentials(mrtr, http_servers):
    url = http_servers.start(CATALOG_SERVER)
    run = mrtr(*url_args(url), "tools", "whoami")
    assert run.code == 0, run.stderr
    assert f"  mrtr --url {url} call whoami" in run.stdout, run.stdout


def test_inside_the_shell_the_example_names_no_url_and_nothing_to_set(mrtr, http_servers):
    plain = http_servers.start(CATALOG_SERVER)
    url = plain.replace("http://", f"http://alice:{PASSWORD}@", 1) + f"?token={TOKEN}"
    run = mrtr(*url_args(url), "shell", input="tools whoami\n")
    assert run.code == 0, run.stderr
    assert PASSWORD not in run.stdout and TOKEN not in run.stdout, run.stdout
    lines = run.stdout.splitlines()
    example = lines[lines.index("Example:") + 1:]
    assert len(example) == 1 and example[0].endswith("call whoami"), run.stdout
    assert "MRTR_URL" not in run.stdout and "--url" not in run.stdout, run.stdout
