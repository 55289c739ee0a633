"""The run's sources of answers, built from its options, in the order they are tried
(docs/design.md, "Answer files"): the answer store (`-a` flags, `--answers` files), the
roots (`--root`, an answer file's or the server config's `roots`), a `--sampling-command`,
and the responder chain that tries them in order before the terminal. One chain per run
answers MRTR input requests, task input requests and an older server's own requests alike
(docs/design.md, "Input-required rounds").
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mrtr_cli.env import Environment
from mrtr_cli.errors import UsageError
from mrtr_cli.responders.answers import AnswerStore, load_answer_file, parse_flag
from mrtr_cli.runcontext import RunOptions

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.config.target import ConfigRoots
    from mrtr_cli.protocol.deadline import Deadline
    from mrtr_cli.responders.chain import ResponderChain
    from mrtr_cli.responders.sampling import CommandSampler

#: What `input_sources` finds: the roots (or None), their source label, and the
#: `--sampling-command` runner (not yet bound to a deadline: `build_chain` binds it) or None.
InputSources = tuple["list[dict[str, Any]] | None", str, "CommandSampler | None"]



def load_answer_store(opts: RunOptions, read_stdin: Callable[[], str]) -> AnswerStore:
    """The `--answers` files (`-` is stdin, read by `read_stdin`) and `-a` flags of the run.

    Raises:
        UsageError: an unreadable or malformed answer file or flag (exit 2).
    """
    files = [load_answer_file(path, read_stdin() if path == "-" else None) for path in opts.answers]
    return AnswerStore(files, [parse_flag(text) for text in opts.answer_flags])


def run_roots(opts: RunOptions, store: AnswerStore,
              config_roots: ConfigRoots | None) -> tuple[list[dict[str, Any]] | None, str]:
    """The roots this run exposes (client/roots) and where they came from: `--root` flags,
    else the last answer file with a `roots` member, else the server config. Every path is
    resolved to an absolute `file://` URI and must exist; (None, "") when there are none.

    Raises:
        UsageError: a root that does not exist or a malformed roots entry.
    """
    if not (opts.roots or store.roots() is not None or config_roots is not None):
        return None, ""
    from mrtr_cli.responders.roots import parse_root_flags, resolve_root_entries  # noqa: PLC0415 - lazy for start-up time

    if opts.roots:
        return parse_root_flags(opts.roots), "--root"
    from_file = store.roots()
    if from_file is not None:
        entries, label = from_file
        path = label.rsplit(": roots", 1)[0]
        base = os.path.dirname(os.path.abspath(path)) if path != "-" else None
        return resolve_root_entries(entries, label, base), label
    assert config_roots is not None
    entries, label, base = config_roots
    return resolve_root_entries(entries, label, base), label


def input_sources(opts: RunOptions, env: Environment, store: AnswerStore,
                  config_roots: ConfigRoots | None,
                  ) -> InputSources:
    """(roots, their source label, the `--sampling-command` runner or None) for `store`.

    Raises:
        UsageError: a root that does not exist, a bad --sampling-command, or
            --sampling-tools / --sampling-timeout without a sampling source.
    """
    roots, roots_source = run_roots(opts, store, config_roots)
    sampler = None
    if opts.sampling_command:
        from mrtr_cli.responders.sampling import DEFAULT_SAMPLING_TIMEOUT, CommandSampler  # noqa: PLC0415 - lazy for start-up time

        sampler = CommandSampler(opts.sampling_command, env, timeout=opts.sampling_timeout or DEFAULT_SAMPLING_TIMEOUT)
    elif opts.sampling_timeout is not None:
        raise UsageError("--sampling-timeout applies to --sampling-command, which was not given")
    from mrtr_cli.responders.shapes import looks_like_sampling_result  # noqa: PLC0415 - lazy for start-up time

    if opts.sampling_tools and sampler is None and not store.has_exact_of_shape(looks_like_sampling_result):
        raise UsageError("--sampling-tools needs a sampling source that can use tools",
                         hint="give --sampling-command CMD, or sampling answers in --answers")
    return roots, roots_source, sampler


def build_chain(opts: RunOptions, env: Environment, store: AnswerStore,
                sources: InputSources, deadline: Deadline, *,
                person: bool = True, typed_before: dict[str, dict[str, Any]] | None = None) -> ResponderChain:
    """The responder chain over `store` and `sources` (from `input_sources`): prepared
    answers, roots, a sampling command, then (when `person`) the terminal, imported only
    when someone is asked. `deadline` bounds the sampling command and is paused while a
    person answers. Without `person` (a batch line) URL elicitation is not declared, since
    nobody can consent. `typed_before`: form fields a person typed on an earlier run (by
    input key), shown pre-filled."""
    from mrtr_cli.responders.chain import ResponderChain  # noqa: PLC0415 - lazy for start-up time

    roots, roots_source, sampler = sources
    if sampler is not None:
        sampler = sampler.within(deadline)
    if not person:
        return ResponderChain(env, store, roots=roots, roots_source=roots_source, sampler=sampler,
                              sampling_tools=bool(opts.sampling_tools), url_consent=False)

    def terminal() -> Any:
        from mrtr_cli.responders.terminal import TerminalResponder  # noqa: PLC0415 - lazy

        return TerminalResponder(env, open_urls=opts.open_urls)

    return ResponderChain(env, store, terminal_factory=terminal, roots=roots, roots_source=roots_source,
                          sampler=sampler, sampling_tools=bool(opts.sampling_tools), typed_before=typed_before,
                          deadline=deadline)  # paused while a person answers
