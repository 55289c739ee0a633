"""What one run of `mrtr` was told (`RunOptions`), and the interface of the run that the
packages below the application layer are handed (`RunContext`).

The application layer (mrtr_cli/app.py) builds one `App` per command; the packages that do
the work (config, protocol, engine, tasks, responders, schema) receive it typed as
`RunContext`, so that none of them imports the application layer, and a lower layer gets
what a higher one builds (the task hook, the server-request responder, a yes/no question
at the terminal) through it: docs/architecture.md "Layers".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from mrtr_cli.env import Environment

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.render.trace import Tracer

#: Cap on `input_required` rounds (`--max-rounds`): the engine's default too (engine/mrtr.py).
DEFAULT_MAX_ROUNDS = 10


@dataclass(eq=False, repr=False)
class RunOptions:
    """Everything the command line (or environment) said about this run."""

    url: str | None = None
    stdio: str | None = None
    server: str | None = None
    config: str | None = None
    headers: list[str] = field(default_factory=list)
    public_headers: list[str] = field(default_factory=list)  # -H names whose values may be shown
    bearer_token_env: str | None = None
    # OAuth: a pre-registered client.
    client_id: str | None = None
    client_secret_env: str | None = None
    client_secret_file: str | None = None
    json_mode: bool = False
    verbosity: int = 0
    quiet: bool = False
    trace: str | None = None
    no_input: bool = False
    timeout: float | None = None
    max_timeout: float | None = None
    #: Seconds opening the session may take, apart from `timeout` (None: the run's deadline bounds it).
    open_timeout: float | None = None
    protocol: str = "auto"
    log_level: str | None = None
    answers: list[str] = field(default_factory=list)
    answer_flags: list[str] = field(default_factory=list)
    save_answers: str | None = None
    no_validate: bool = False
    saved_target_source: str | None = None  # the target came from this pending document (config/trust.py)
    max_rounds: int = DEFAULT_MAX_ROUNDS
    open_urls: bool = False
    # Sampling and roots sources.
    roots: list[str] = field(default_factory=list)
    sampling_command: str | None = None
    sampling_tools: bool = False
    sampling_timeout: float | None = None
    expand_env: bool = False
    # Tasks: print the task and exit once one exists; Ctrl-C cancels it.
    detach: bool = False
    cancel_on_interrupt: bool = False
    # Protocol era.
    probe_timeout: float | None = None
    # The limit on one message from a server (transport/limits.py), as given.
    max_message_size: str | None = None
    # 2025-11-25 tasks: run an `optional` tool as a task; the `task.ttl` to ask for.
    task: bool = False
    task_ttl: float | None = None
    # --strict: check every server message against the schema and the protocol rules.
    strict: bool = False

    def input_files(self) -> list[tuple[str, str | None]]:
        """The files these options name for the run to read, (option, path): `--config`,
        `--client-secret-file`, each `--answers` (userfiles.RunFiles: none may be an output)."""
        return [("--config", self.config), ("--client-secret-file", self.client_secret_file),
                *(("--answers", path) for path in self.answers)]

    def config_words(self) -> list[str]:
        """The options that find a named server's config again (`--config FILE`,
        `--expand-env`), for printed commands that must reach the same server."""
        return (["--config", self.config] if self.config else []) + (["--expand-env"] if self.expand_env else [])


class RunContext(Protocol):
    """One run, as the packages see it (implemented by `mrtr_cli.app.App`).

    Attributes:
        opts: the parsed options.
        env: the run's environment (streams, terminal facts, secrets).
        tracer: the tracer for `-v` and `--trace`.
        batch: True for `mrtr batch` (a task is reported in the line's record).
        live_tasks: task id -> the `mrtr task wait` command, for tasks that batch lines wait on.
        end_server_at_once: stop a stdio server without grace periods (shell completion).
        sign_in_allowed: whether a person may be asked to sign in (None: when `env.can_prompt()`).

    What the run builds once and hands to a session or to the engine is typed by the layer
    that uses it, whose types sit above this module: `protocol.run.ProtocolRun` (deadline,
    catalog, list cache, checker, OAuth hook, task field) and `engine.run.EngineRun` (the
    responder chain, the recorder, the task hook) extend this interface.
    """

    opts: RunOptions
    env: Environment
    tracer: Tracer
    batch: bool
    live_tasks: dict[str, str]
    end_server_at_once: bool
    sign_in_allowed: bool | None

    def read_file(self, path: str, what: str = "file") -> str:
        """The text of a file the user named (`-` is stdin; `what` names it in messages);
        raises UsageError."""

    def note(self, text: str) -> None:
        """A note on stderr (not with `-q`)."""
