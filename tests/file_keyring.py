"""A keyring backend for tests: a JSON file named by `MRTR_TEST_KEYRING_FILE` (the tests run
no OS keychain). Selected with PYTHON_KEYRING_BACKEND=tests.file_keyring.FileKeyring."""

from __future__ import annotations

import json
import os

from keyring.backend import KeyringBackend


class FileKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def _load(self) -> dict[str, str]:
        try:
            with open(os.environ["MRTR_TEST_KEYRING_FILE"], encoding="utf-8") as fh:
                return json.load(fh)
        except FileNotFoundError:
            return {}

    def _save(self, items: dict[str, str]) -> None:
        with open(os.environ["MRTR_TEST_KEYRING_FILE"], "w", encoding="utf-8") as fh:
            json.dump(items, fh)

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}|{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        items = self._load()
        items[f"{service}|{username}"] = password
        self._save(items)

    def delete_password(self, service: str, username: str) -> None:
        items = self._load()
        items.pop(f"{service}|{username}", None)
        self._save(items)
