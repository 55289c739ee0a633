"""Startup cost of sign-in support: a call to a server that needs no token imports
nothing of `mrtr_cli.auth`; the check is shown to see such imports where they happen."""

from __future__ import annotations

import re
import subprocess

from tests.auth_support import PY, ROOT, mrtr_env, young_objects_around
from tests.conftest import SERVERS, url_args
from tests.probe_bound import check_probe_bound
from tests.support import SAFETY

AUTH_MODULE = re.compile(r"\|\s*(mrtr_cli\.auth(?:\.\w+)*)\s*$", re.M)


def imported_auth_modules(tmp_path, *args: str, browser=None) -> tuple[int, list[str], str]:
    check_probe_bound(args)
    proc = subprocess.run([PY, "-X", "importtime", "-m", "mrtr_cli", *args], capture_output=True, text=True,
                          env=mrtr_env(tmp_path, browser), cwd=ROOT, timeout=SAFETY, stdin=subprocess.DEVNULL)
    return proc.returncode, AUTH_MODULE.findall(proc.stderr), proc.stderr


def test_a_call_to_an_open_server_imports_nothing_of_auth(tmp_path, http_servers):
    url = http_servers.start(SERVERS / "core_server.py")
    code, modules, stderr = imported_auth_modules(tmp_path, *url_args(url), "call", "no_state", "--no-input")
    assert code == 5, stderr[-2000:]  # the tool asks a question: nobody to answer
    assert "mrtr_cli.cli" in stderr  # the import trace is there
    assert modules == []


def test_a_stdio_call_imports_nothing_of_auth(tmp_path):
    from tests.conftest import stdio_cmd

    code, modules, stderr = imported_auth_modules(tmp_path, "--stdio", stdio_cmd(SERVERS / "core_server.py"),
                                                  "call", "shed")
    assert code == 0, stderr[-2000:]
    assert modules == []


def test_signing_in_does_import_auth(tmp_path, oauth_server, browser):
    """The check above can fail: a sign-in shows up in the import trace."""
    server = oauth_server()
    code, modules, stderr = imported_auth_modules(tmp_path, "--url", server.mcp_url, "auth", "login",
                                                  browser=browser)
    assert code == 0, stderr[-2000:]
    assert modules, "no mrtr_cli.auth module seen while signing in"



def test_loading_the_sign_in_package_leaves_the_youngest_generation_empty():
    # The sign-in package, loaded on a call's path for a token to refresh or a 401, is moved
    # out of the garbage collector's sight with all loaded before it (gc.freeze in app.oauth_client).
    code = ("import mrtr_cli.app as app\nbefore = gc.get_count()[0]\n"
            "try:\n    app.oauth_client()\nexcept TypeError:\n    pass\n"
            "print(before, gc.get_count()[0], int('mrtr_cli.auth.client' in sys.modules))")
    before, after, loaded = young_objects_around(code)
    assert loaded == 1
    assert after < before and after < 1000, (before, after)
