"""Fixtures shared by the hostile-server tests: the corpus server over HTTP."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from tests.conftest import PY, ROOT, free_port, wait_for_port
from tests.prefork import stop_group


@pytest.fixture(scope="module")
def http_base() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen([PY, "-m", "tests.hostile.server", "--http", str(port)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for_port(port, proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_group(proc, grace=5)
