"""The OAuth settings of a run's target: the config entry's `oauth` member, then the
`MRTR_*` environment variables, then the command line (config/oauth.py); the commands
that sign in to it again, for messages; and the `Authorizer` the HTTP transport calls
(transport/http/authhook.py).

Cheap: `mrtr_cli.auth` is imported only inside the callables the application layer hands
to `make_authorizer`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from mrtr_cli.config.oauth import AuthSettings, apply_environment, check_settings
from mrtr_cli.credentials import public_url, url_in_command
from mrtr_cli.errors import UsageError, refused


def target_options(app: Any, target: Any) -> list[str]:
    """The command-line options that name this run's target and how mrtr signs in to it,
    for a printed command that must reach the same server with the same settings:
    `--config FILE`, `--expand-env`, `-s NAME` or `--url URL`, `--protocol`, and the global
    OAuth options given (`--client-id`, `--client-secret-env VAR`, `--client-secret-file
    PATH`; never a secret's value). Words as they are (render/invocation.py `command_line`
    quotes them)."""
    o = app.opts
    words: list[str] = []
    if target.server:
        words += [*o.config_words(), "-s", target.server]
    else:
        words += url_in_command(target.url)[0]  # none for a URL whose credentials are hidden: login_hint says
    for flag, value in [("--protocol", o.protocol), ("--client-id", o.client_id),
                        ("--client-secret-env", o.client_secret_env), ("--client-secret-file", o.client_secret_file)]:
        if value and not (flag == "--protocol" and value == "auto"):
            words += [flag, str(value)]
    return words


def login_hint(app: Any, target: Any, verb: str = "login") -> str:
    """The command that signs in to `target` (for messages), built from `target_options`:
    `mrtr [--config FILE] [--expand-env] -s NAME auth login` or `mrtr --url URL auth login`;
    `verb` "logout": the command that signs out (and removes a damaged token file)."""
    from mrtr_cli.render.invocation import command_line  # noqa: PLC0415 - lazy for start-up time

    lead = "" if target.server else url_in_command(target.url)[1]
    line = command_line(["auth", verb], target=target_options(app, target), at_command_line=True)
    return lead + (line or f"mrtr auth {verb} (with the same --url, -s or --config: one cannot be shown as typed)")


def option_settings(app: Any) -> dict[str, Any]:
    """The global OAuth options (`--client-id`, `--client-secret-env VAR`,
    `--client-secret-file PATH`) as `AuthSettings` attributes.

    Raises:
        UsageError: both secret options, an unset variable, an unreadable file (the rules
            of every user file: userfiles.read_named_text), a line break or control
            character in a value (config/oauth.py `check_setting`).
    """
    import os  # noqa: PLC0415 - lazy for start-up time

    from mrtr_cli.config.oauth import check_setting  # noqa: PLC0415 - lazy for start-up time

    o = app.opts
    secret = None
    if o.client_secret_env and o.client_secret_file:
        raise UsageError("give one of --client-secret-env and --client-secret-file")
    if o.client_secret_env:
        secret = os.environ.get(o.client_secret_env)
        if not secret:
            raise refused("--client-secret-env {0}: that environment variable is empty or unset",
                          o.client_secret_env, hint="it takes the name of a variable that holds the secret, "
                                                    "e.g. --client-secret-env CLIENT_SECRET")
        check_setting(secret, f"--client-secret-env {o.client_secret_env}")
    elif o.client_secret_file:
        secret = app.read_file(o.client_secret_file, "--client-secret-file").strip()
        if not secret:
            raise UsageError(f"--client-secret-file {o.client_secret_file}: the file is empty")
        check_setting(secret, f"--client-secret-file {o.client_secret_file}")
    if o.client_id:
        check_setting(o.client_id, "--client-id")
    return {"client_id": o.client_id, "client_secret": secret}


def target_settings(app: Any, target: Any, overrides: dict[str, Any] | None = None) -> AuthSettings:
    """The settings for `target`: config entry, then environment, then the global OAuth
    options, then `overrides` (attributes of `AuthSettings` given to `auth login`).

    Raises:
        UsageError: a bad value or combination (config/oauth.py `check_settings`).
    """
    s = copy.deepcopy(target.oauth) if target.oauth is not None else AuthSettings()
    apply_environment(s)
    for key, value in [*option_settings(app).items(), *(overrides or {}).items()]:
        if value is not None and value != [] and hasattr(s, key):
            setattr(s, key, value)
    s.login_hint = login_hint(app, target)
    s.logout_hint = login_hint(app, target, "logout")
    check_settings(s)
    for secret in (s.client_secret, s.private_key):
        if secret:
            app.env.add_secret(secret)
    return s


def make_authorizer(app: Any, target: Any, *, oauth_client: Callable[..., Any], proof_key: Callable[[Any], Any],
                    login: bool = False, overrides: dict[str, Any] | None = None) -> Any:
    """The `Authorizer` for an HTTP target, or None for stdio or when the user sends an
    `Authorization` header of their own (-H, --bearer-token-env, config headers).

    Args:
        app: the run (`runcontext.RunContext`: env, note, deadline, tracer, sign_in_allowed).
        target: the run's `config.target.Target`.
        oauth_client: builds the `auth.client.OAuthClient` (its arguments), called on the
            first 401 or a token to refresh; `proof_key`: the DPoP key of a DPoP-bound token
            from its stored form (`auth.dpop.ProofKey.from_stored`). The application layer
            hands both over, importing `mrtr_cli.auth` only when they are called: neither
            this package nor the transport imports it.
        login: the client signs in even with a valid token; `overrides`: `AuthSettings`
            attributes (as for `target_settings`).
    """
    if not target.url or any(name.lower() == "authorization" for name in target.headers):
        return None
    from mrtr_cli.transport.http.authhook import Authorizer  # noqa: PLC0415 - start-up time: HTTP targets only

    settings: list[AuthSettings] = []

    def make_client() -> Any:
        if not settings:
            settings.append(target_settings(app, target, overrides))
        return oauth_client(target.url, settings[0], app.env, label=target.server or public_url(target.url),
                            login=login, deadline=app.deadline(), interactive=app.sign_in_allowed, tracer=app.tracer)

    return Authorizer(target.url, app.env.add_secret, make_client, note=app.note,
                      logout_hint=login_hint(app, target, "logout"), proof_key=proof_key)
