"""Where each host keeps its config file on Linux, macOS and Windows, computed in one place
from the platform, the home folder and the environment (`Places`), so the paths of every
platform are pure functions that run anywhere (docs/configuration.md, "Named servers").

Each function takes a `Places` and returns the paths to look at, in order. A project's
files are relative to the current directory (`./.mcp.json`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath


@dataclass(frozen=True)
class Places:
    """The facts a config path depends on.

    Attributes:
        platform: `sys.platform`: "linux", "darwin", "win32" (any other is treated as Linux).
        home: the user's home folder (`Path.home()`).
        environ: the environment (`XDG_CONFIG_HOME`, `APPDATA`, the hosts' own variables).
    """

    platform: str
    home: str
    environ: Mapping[str, str]

    @classmethod
    def here(cls) -> Places:
        """The places of this machine and this run."""
        return cls(sys.platform, str(Path.home()), os.environ)

    @property
    def windows(self) -> bool:
        return self.platform == "win32"

    def join(self, base: str, *parts: str) -> str:
        """`base` and `parts` joined with this platform's separator."""
        pure = PureWindowsPath if self.windows else PurePosixPath
        return str(pure(base, *parts))

    def in_home(self, *parts: str) -> str:
        return self.join(self.home, *parts)

    def project(self, *parts: str) -> str:
        """A file of the project, relative to the current directory (`./.mcp.json`)."""
        return ("." + ("\\" if self.windows else "/")) + self.join(*parts)

    def setting(self, name: str) -> str | None:
        """An environment variable, or None when unset or empty."""
        return self.environ.get(name) or None

    def xdg_config(self) -> str:
        """`$XDG_CONFIG_HOME`, else `~/.config` (what XDG-minded tools use on every platform)."""
        return self.setting("XDG_CONFIG_HOME") or self.in_home(".config")

    def appdata(self) -> str:
        """Windows' roaming application data folder: `%APPDATA%`, else `~\\AppData\\Roaming`."""
        return self.setting("APPDATA") or self.in_home("AppData", "Roaming")

    def app_support(self) -> str:
        """macOS' `~/Library/Application Support`."""
        return self.in_home("Library", "Application Support")

    def native_config(self) -> str:
        """Where an application keeps its settings by the platform's own rule (Electron's
        `appData`): `%APPDATA%`, `~/Library/Application Support`, or the XDG folder."""
        if self.windows:
            return self.appdata()
        if self.platform == "darwin":
            return self.app_support()
        return self.xdg_config()


# ------------------------------------------------------------------ each host's files
def mrtr_servers(p: Places) -> list[str]:
    """mrtr's own: `$XDG_CONFIG_HOME/mrtr/servers.json` (`~/.config/mrtr/servers.json`); on
    macOS and Windows first the platform's own folder (`~/Library/Application Support/mrtr`,
    `%APPDATA%\\mrtr`, as `platformdirs` names them), then that one, which earlier versions
    read there too."""
    xdg = p.join(p.xdg_config(), "mrtr", "servers.json")
    if p.windows or p.platform == "darwin":
        return [p.join(p.native_config(), "mrtr", "servers.json"), xdg]
    return [xdg]


def claude_json(p: Places) -> list[str]:
    """Claude Code's `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json` when that is set)."""
    folder = p.setting("CLAUDE_CONFIG_DIR")
    return [p.join(folder, ".claude.json") if folder else p.in_home(".claude.json")]


def claude_desktop(p: Places) -> list[str]:
    """Claude Desktop's `claude_desktop_config.json` in the platform's application folder."""
    return [p.join(p.native_config(), "Claude", "claude_desktop_config.json")]


def codex(p: Places) -> list[str]:
    """Codex's `~/.codex/config.toml` (`$CODEX_HOME/config.toml` when that is set)."""
    folder = p.setting("CODEX_HOME")
    return [p.join(folder, "config.toml") if folder else p.in_home(".codex", "config.toml")]


def gemini(p: Places) -> list[str]:
    """Gemini CLI's `~/.gemini/settings.json` (`$GEMINI_CLI_HOME` stands for the home folder)."""
    return [p.join(p.setting("GEMINI_CLI_HOME") or p.home, ".gemini", "settings.json")]


def vscode(p: Places) -> list[str]:
    """VS Code's user profile `mcp.json`: `Code/User/mcp.json` in the platform's
    application folder."""
    return [p.join(p.native_config(), "Code", "User", "mcp.json")]


def cursor(p: Places) -> list[str]:
    """Cursor's `~/.cursor/mcp.json`."""
    return [p.in_home(".cursor", "mcp.json")]


def windsurf(p: Places) -> list[str]:
    """Windsurf's `~/.codeium/windsurf/mcp_config.json` (on Windows too, under the home folder)."""
    return [p.in_home(".codeium", "windsurf", "mcp_config.json")]


def opencode(p: Places) -> list[str]:
    """OpenCode's `$OPENCODE_CONFIG` file when set, then `opencode.jsonc` and `opencode.json`
    in `$XDG_CONFIG_HOME/opencode` (`~/.config/opencode`, on every platform)."""
    folder = p.join(p.xdg_config(), "opencode")
    custom = p.setting("OPENCODE_CONFIG")
    return [*([custom] if custom else []), p.join(folder, "opencode.jsonc"), p.join(folder, "opencode.json")]


def zed(p: Places) -> list[str]:
    """Zed's `settings.json`: `%APPDATA%\\Zed` on Windows, `~/.config/zed` on macOS, and
    `$FLATPAK_XDG_CONFIG_HOME` or `$XDG_CONFIG_HOME` (`~/.config`) `/zed` on Linux."""
    if p.windows:
        return [p.join(p.appdata(), "Zed", "settings.json")]
    if p.platform == "darwin":
        return [p.in_home(".config", "zed", "settings.json")]
    return [p.join(p.setting("FLATPAK_XDG_CONFIG_HOME") or p.xdg_config(), "zed", "settings.json")]


def goose(p: Places) -> list[str]:
    """goose's `config.yaml`: `%APPDATA%\\Block\\goose\\config` on Windows, else
    `$XDG_CONFIG_HOME/goose` (`~/.config/goose`)."""
    if p.windows:
        return [p.join(p.appdata(), "Block", "goose", "config", "config.yaml")]
    return [p.join(p.xdg_config(), "goose", "config.yaml")]


# ------------------------------------------------------------------ the project's files
def project_mcp_json(p: Places) -> list[str]:
    """Claude Code's project file `./.mcp.json`."""
    return [p.project(".mcp.json")]


def project_vscode(p: Places) -> list[str]:
    return [p.project(".vscode", "mcp.json")]


def project_cursor(p: Places) -> list[str]:
    return [p.project(".cursor", "mcp.json")]


def project_gemini(p: Places) -> list[str]:
    return [p.project(".gemini", "settings.json")]


def project_codex(p: Places) -> list[str]:
    return [p.project(".codex", "config.toml")]


def project_opencode(p: Places) -> list[str]:
    return [p.project("opencode.jsonc"), p.project("opencode.json")]


def project_zed(p: Places) -> list[str]:
    return [p.project(".zed", "settings.json")]
