"""Fixtures shared by the hostile-server tests: the corpus server over HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import PY, ROOT
from tests.listening import start_listening
from tests.prefork import stop_group


@pytest.fixture(scope="module")
def http_base() -> Iterator[str]:
    proc, port = start_listening([PY, "-m", "tests.hostile.server", "--http", "0"], cwd=ROOT)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_group(proc, grace=5)
