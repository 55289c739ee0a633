"""`mrtr auth login | status | logout | token`: signing in to OAuth-protected servers
(2026-07-28 basic/authorization). The commands' logic is in `mrtr_cli.auth`.
"""

from __future__ import annotations

import datetime
import os
from typing import Any

import click

from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import global_options, make_app
from mrtr_cli.errors import UsageError


@cli.group("auth")
def auth_group() -> None:
    """Sign in to OAuth-protected servers: login, status, logout, token."""


def _http_target(app: Any) -> Any:
    target = app.target()
    if not target.url:
        raise UsageError("signing in applies to HTTP servers (--url or an HTTP -s entry); "
                         "a stdio server gets its credentials from its environment")
    return target


def _given(app: Any) -> bool:
    o = app.opts
    return bool(o.url or o.stdio or o.server or app.env.settings.target_given)


def _client(app: Any, target: Any, *, login: bool = False, overrides: dict[str, Any] | None = None) -> Any:
    from mrtr_cli.auth.client import OAuthClient  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.config.oauth_target import target_settings  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.credentials import public_url  # noqa: PLC0415 - lazy for start-up time

    settings = target_settings(app, target, overrides)
    return OAuthClient(target.url, settings, app.env, label=target.server or public_url(target.url), login=login,
                       deadline=app.deadline(), tracer=app.tracer)


@auth_group.command("login")
@click.option("--scope", "scopes", multiple=True, metavar="SCOPE",
              help="A scope to ask for (repeatable; a quoted list of several works too).")
@click.option("--no-browser", is_flag=True,
              help="Print the sign-in URL instead of opening a browser; paste back the address the browser lands on.")
@click.option("--client-metadata-url", metavar="URL",
              help="Use the Client ID Metadata Document you host at URL as the client id.")
@click.option("--redirect-port", type=click.IntRange(0, 65535), metavar="N",
              help="Listen for the redirect on 127.0.0.1:N (for servers that only accept a registered port).")
@click.option("--client-credentials", is_flag=True,
              help="No person: the client credentials grant (with --client-id and a secret or --private-key-file).")
@click.option("--auth-method",
              type=click.Choice(["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]),
              help="How the client authenticates at the token endpoint.")
@click.option("--private-key-file", metavar="PEM", help="private_key_jwt: the client's private key (PEM).")
@click.option("--signing-alg", metavar="ALG",
              help="private_key_jwt: the JWS algorithm (default: from the key, e.g. RS256, ES256).")
@click.option("--dpop/--no-dpop", default=None,
              help="DPoP-bound tokens (RFC 9449): always / never (default: where the MCP server takes them).")
@click.option("--assertion-file", metavar="PATH",
              help="No person: the JWT bearer grant with the workload's JWT in PATH (read again for each token).")
@click.option("--assertion-env", metavar="VAR",
              help="The JWT bearer grant with the workload's JWT in environment variable VAR.")
@click.option("--assertion-command", metavar="CMD",
              help="The JWT bearer grant with the JWT that CMD prints (run for each token).")
@click.option("--id-token-file", metavar="PATH",
              help="Enterprise-managed: exchange the identity provider's ID token in PATH for an ID-JAG.")
@click.option("--id-token-env", metavar="VAR", help="Enterprise-managed: the ID token is in environment variable VAR.")
@click.option("--id-token-command", metavar="CMD", help="Enterprise-managed: the ID token is what CMD prints.")
@click.option("--idp-token-endpoint", metavar="URL", help="Enterprise-managed: the identity provider's token endpoint.")
@click.option("--idp-client-id", metavar="ID",
              help="Enterprise-managed: mrtr's client id at the identity provider (secret: MRTR_IDP_CLIENT_SECRET).")
@global_options
@click.pass_context
def login_cmd(ctx: click.Context, /, scopes: tuple[str, ...], no_browser: bool, client_metadata_url: str | None,
              redirect_port: int | None, client_credentials: bool, auth_method: str | None,
              private_key_file: str | None, signing_alg: str | None, dpop: bool | None,
              idp_token_endpoint: str | None, idp_client_id: str | None, **kw: Any) -> int:
    """Sign in to the server (--url URL or -s NAME) and store its tokens.

    \b
    Opens the browser at the server's authorization server (BROWSER is honoured) and
    waits for it to come back to 127.0.0.1. A pre-registered client: --client-id ID with
    --client-secret-env VAR or --client-secret-file PATH (global options).
    """
    sources = {name: kw.pop(name) for name in ("assertion_file", "assertion_env", "assertion_command",
                                               "id_token_file", "id_token_env", "id_token_command")}
    app = make_app(ctx, kw)
    identity = {"dpop": dpop, "idp_token_endpoint": idp_token_endpoint, "idp_client_id": idp_client_id,
                **_source_overrides(sources)}
    with _traced(app):
        return _login(app, scopes, no_browser, client_metadata_url, redirect_port, client_credentials, auth_method,
                      private_key_file, signing_alg, identity)


def _login(app: Any, scopes: tuple[str, ...], no_browser: bool, client_metadata_url: str | None,
           redirect_port: int | None, client_credentials: bool, auth_method: str | None,
           private_key_file: str | None, signing_alg: str | None, identity: dict[str, Any]) -> int:
    """The body of `auth login` (the docstring of `login_cmd`); `identity`: the DPoP and
    assertion settings (`dpop`, `idp_*`, `assertion`, `id_token`)."""
    target = _http_target(app)
    overrides: dict[str, Any] = {
        "scopes": [p for s in scopes for p in s.split()],
        "no_browser": no_browser or None,
        "client_metadata_url": client_metadata_url,
        "redirect_port": redirect_port,
        "grant": "client_credentials" if client_credentials else None,
        "auth_method": auth_method,
        "private_key": _private_key(app, private_key_file),
        "signing_alg": signing_alg,
        **identity,
    }
    client = _client(app, target, login=True, overrides=overrides)
    try:
        from mrtr_cli.auth.probe import probe  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - lazy for start-up time

        challenge = probe(client.http, target.url, target.headers, app.opts.protocol)
        client.authorize(challenge, scopes=overrides["scopes"] or None, challenged=challenge is not None)
        entry = client.store.entry() or {}
        got = (entry.get("tokens") or {}).get("scope")
        issuer = client.server.issuer if client.server else "?"
        app.env.err(f"mrtr: signed in to {client.label} at {sanitize(str(issuer), single_line=True)}"
                    + (f" (scopes: {sanitize(str(got), single_line=True)})" if got else ""))
    finally:
        client.close()
    return 0


def _source_overrides(sources: dict[str, str | None]) -> dict[str, Any]:
    """`--assertion-*` / `--id-token-*` as `AuthSettings` attributes (the source and the
    grant it implies); at most one of each kind."""
    from mrtr_cli.config.oauth import AuthSettings, source_setting  # noqa: PLC0415 - lazy for start-up time

    s = AuthSettings(grant="")
    for attr in ("assertion", "id_token"):
        given = [(kind, value) for kind in ("file", "env", "command")
                 if (value := sources.get(f"{attr}_{kind}")) is not None]
        if len(given) > 1:
            raise UsageError(f"give one of --{attr.replace('_', '-')}-file, -env and -command")
        for kind, value in given:
            source_setting(s, attr, kind, value, f"--{attr.replace('_', '-')}-{kind}")
    if s.assertion and s.id_token:
        raise UsageError("give either a workload's JWT (--assertion-*) or an ID token (--id-token-*), not both")
    out = {"assertion": s.assertion, "id_token": s.id_token, "grant": s.grant}
    return {k: v for k, v in out.items() if v}


def mechanism(entry: dict[str, Any]) -> str:
    """How a stored sign-in got its token, for `auth status`: the grant (authorization
    code, client credentials, JWT bearer, ID-JAG) and the binding (DPoP or bearer)."""
    source = (entry.get("client") or {}).get("source")
    grant = {"client-credentials": "client credentials", "jwt-bearer": "JWT bearer",
             "id-jag": "ID-JAG + JWT bearer"}.get(str(source), "authorization code")
    kind = (entry.get("tokens") or {}).get("token_type")
    return f"{grant}, {'DPoP' if str(kind).lower() == 'dpop' else 'bearer'}"


def _status_rows(env: Any, records: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """One row per stored sign-in, for `auth status` (text or `--json`): every text in it
    redacted (`env.redact`) with the stored secrets of the entry registered first, so that
    a value stored before it was checked (auth/store.py `screen`) never shows a token, nor
    the resource's URL its credentials."""
    from mrtr_cli.auth.store import SECRET_FIELDS  # noqa: PLC0415 - lazy for start-up time

    rows = []
    for path, doc in records:
        for issuer, entry in sorted((doc.get("issuers") or {}).items()):
            if not isinstance(entry, dict):
                continue
            tokens = entry.get("tokens") or {}
            client = entry.get("client") or {}
            for part, name in SECRET_FIELDS:
                if isinstance(secret := (entry.get(part) or {}).get(name), str):
                    env.add_secret(secret)
            at = tokens.get("expires_at")
            rows.append({
                "resource": doc.get("resource"), "issuer": issuer, "current": doc.get("issuer") == issuer,
                "clientId": client.get("client_id"), "client": client.get("source"),
                "scopes": (tokens.get("scope") or "").split(), "signedIn": bool(tokens.get("access_token")),
                "expiresAt": (datetime.datetime.fromtimestamp(at, datetime.timezone.utc).isoformat(timespec="seconds")
                              if isinstance(at, int | float) else None),
                "expired": isinstance(at, int | float) and at <= datetime.datetime.now().timestamp(),
                "refreshToken": bool(tokens.get("refresh_token")), "file": path, "mechanism": mechanism(entry),
            })
    from mrtr_cli.render.trace import redact_values  # noqa: PLC0415 - lazy for start-up time

    return [redact_values(row, env.redact) for row in rows]


@auth_group.command("status")
@global_options
@click.pass_context
def status_cmd(ctx: click.Context, /, **kw: object) -> int:
    """Show the stored sign-ins (of the target given, else all): resource, issuer, client,
    scopes, expiry and whether a refresh token exists. Never a token's value."""
    from mrtr_cli.auth.store import all_records  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.output import print_json  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.transport.http.tokenfile import DamagedTokenStore  # noqa: PLC0415 - lazy for start-up time

    app = make_app(ctx, kw)
    damaged: list[DamagedTokenStore] = []
    if _given(app):
        store = _store(app, _http_target(app))
        try:
            doc = store.load() if os.path.exists(store.path) else None
        except DamagedTokenStore as exc:
            doc, damaged = None, [exc]
        records = [(store.path, doc)] if doc else []
    else:
        records, damaged = all_records()
    rows = _status_rows(app.env, records)
    if app.opts.json_mode:
        print_json(app.env, rows)
    elif rows:
        _print_status(app, rows)
    elif not damaged:
        app.env.err("mrtr: no stored sign-ins" + (" for this server" if _given(app) else ""))
        return 0 if not _given(app) else 8
    for damage in damaged:  # named after what could be read; the run ends with exit 8
        app.env.err(f"mrtr: {damage.message}")
    return 8 if damaged else 0


def _print_status(app: Any, rows: list[dict[str, Any]]) -> None:
    """`auth status` on stdout as `gh auth status` shows it: one block per stored sign-in,
    its resource URL alone on the first line, then one `key: value` line each (issuer,
    client, mechanism, scopes, token, refresh), blocks separated by a blank line. A value
    is never wrapped or cut, so a URL, an id or a time stays one word to copy. Every stored
    value is sanitized: it came from a server."""
    from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - lazy for start-up time

    def expiry(row: dict[str, Any]) -> str:
        if not row["signedIn"]:
            return "signed out"
        if row["expiresAt"] is None:
            return "no expiry given"
        expires_at: str = row["expiresAt"]
        return ("expired " if row["expired"] else "valid until ") + expires_at

    def shown(value: object) -> str:  # every stored value came from a server: untrusted
        return sanitize(str(value), single_line=True)

    blocks = []
    for r in rows:
        fields = [("issuer", shown(r["issuer"]) + ("" if r["current"] else " (old)")),
                  ("client", _client_cell(r, shown)), ("mechanism", r["mechanism"]),
                  ("scopes", shown(" ".join(r["scopes"])) or "-"), ("token", expiry(r)),
                  ("refresh", "yes" if r["refreshToken"] else "no")]
        blocks.append("\n".join([shown(r["resource"]), *(f"  {key}: {value}" for key, value in fields)]))
    app.env.out("\n\n".join(blocks))


def _client_cell(row: dict[str, Any], shown: Any) -> str:
    """The CLIENT cell of `auth status`: the client id and its kind (registered,
    pre-registered, cimd, client-credentials, jwt-bearer, id-jag); a JWT bearer sign-in
    may have no client id (`-`); an entry without a client is one whose registration the
    server refused and mrtr dropped (the next sign-in registers again)."""
    if not row["clientId"] and not row["client"]:
        return "none (dropped; the next sign-in registers again)"
    cell = shown(row["clientId"] or "-")
    return f"{cell} ({shown(row['client'])})" if row["client"] else cell


@auth_group.command("logout")
@click.option("--all", "everything", is_flag=True, help="Forget every stored sign-in.")
@global_options
@click.pass_context
def logout_cmd(ctx: click.Context, /, everything: bool, **kw: object) -> int:
    """Revoke (where the server offers revocation, RFC 7009) and forget the stored
    sign-in of the target, or of every server with --all."""
    app = make_app(ctx, kw)
    o = app.opts
    # --all means every sign-in, whatever target MRTR_URL / MRTR_SERVER name (CI sets them);
    # only a target on the command line beside it is a contradiction.
    if everything and (o.url or o.stdio or o.server):
        raise UsageError("give either --all or one server (--url URL or -s NAME), not both")
    if not everything and not _given(app):
        raise UsageError("name one server (--url URL or -s NAME) or give --all")
    with _traced(app):
        return _logout(app, everything)


def _logout(app: Any, everything: bool) -> int:
    """The body of `auth logout` (the docstring of `logout_cmd`)."""
    from mrtr_cli.auth.store import TokenStore, all_records  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.transport.http.tokenfile import DamagedTokenStore  # noqa: PLC0415 - lazy for start-up time

    if everything:
        from mrtr_cli.auth.client import revoke_entry  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.config.oauth import AuthSettings  # noqa: PLC0415 - lazy for start-up time

        records, damaged = all_records()
        with _plain_http(app) as http:
            for path, doc in records:
                resource = sanitize(str(doc.get("resource")), single_line=True)
                store = TokenStore(str(doc.get("resource") or ""), path=path)
                with store.locked():
                    try:
                        entries = (store.load().get("issuers") or {}).items()
                    except DamagedTokenStore as exc:  # damaged since it was listed
                        damaged.append(exc)
                        continue
                    for issuer, entry in entries:
                        app.env.err(f"mrtr: {resource}: " + revoke_entry(http, issuer, entry, AuthSettings()))
                    store.remove()
        for damage in damaged:
            _remove_damaged(app, TokenStore("", path=damage.path), damage)
        app.env.err(f"mrtr: signed out of {len(records) + len({e.path for e in damaged})} server(s)")
        return 0
    target = _http_target(app)
    client = _client(app, target)
    try:
        if not os.path.exists(client.store.path):
            app.env.err(f"mrtr: not signed in to {client.label}")
            return 0
        try:
            client.store.load()
        except DamagedTokenStore as exc:
            _remove_damaged(app, client.store, exc)
            app.env.err(f"mrtr: signed out of {client.label}")
            return 0
        for line in client.logout():
            app.env.err(f"mrtr: {line}")
        app.env.err(f"mrtr: signed out of {client.label}")
    finally:
        client.close()
    return 0


def _traced(app: Any) -> Any:
    """`--trace FILE` open while the command's authorization requests are made."""
    from mrtr_cli.protocol.opening import run_trace  # noqa: PLC0415 - lazy for start-up time

    return run_trace(app)


def _private_key(app: Any, path: str | None) -> str | None:
    """The PEM text of `--private-key-file` (read as every user file is; line breaks are
    the PEM's, another control character is refused), or None."""
    if not path:
        return None
    from mrtr_cli.config.oauth import check_setting  # noqa: PLC0415 - lazy for start-up time

    return check_setting(app.read_file(path, "--private-key-file"), f"--private-key-file {path}", multiline=True)


def _store(app: Any, target: Any) -> Any:
    """The token store of `target`, whose damaged-file error names its `auth logout` command."""
    from mrtr_cli.auth.store import TokenStore  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.config.oauth_target import login_hint  # noqa: PLC0415 - lazy for start-up time

    return TokenStore(target.url, logout_hint=login_hint(app, target, "logout"))


def _remove_damaged(app: Any, store: Any, exc: Any) -> None:
    """Remove a damaged token file (and the keychain items it still names): nothing in it
    can be revoked."""
    with store.locked():
        store.remove()
    app.env.err(f"mrtr: removed the damaged token store file {exc.path} ({exc.why}); nothing in it could be revoked")


def _plain_http(app: Any) -> Any:
    """An `httpx2.Client` for revocation requests without a target (`auth logout --all`),
    traced as the sign-in's are (auth/httptrace.py)."""
    from mrtr_cli.auth.httptrace import trace_hooks  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.transport.http.env import new_client  # noqa: PLC0415 - lazy for start-up time

    return new_client(timeout=30.0, follow_redirects=False, event_hooks=trace_hooks(app.tracer))


@auth_group.command("token")
@global_options
@click.pass_context
def token_cmd(ctx: click.Context, /, **kw: Any) -> int:
    """Print a valid access token for the target on stdout (refreshed if needed), for
    scripts that call the server some other way. Exit 8 when not signed in."""
    app = make_app(ctx, kw)
    target = _http_target(app)
    with _traced(app):
        client = _client(app, target)
        try:
            token = client.token()
        finally:
            client.close()
    app.env.out(token)
    return 0
