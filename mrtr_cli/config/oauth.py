"""OAuth settings of a target: from `auth login` options, environment variables and a
server's config entry. Cheap to import: the `mrtr_cli.auth` package reads
these, but nothing here imports it.

Config entry shapes read (an HTTP server entry of an mcp.json-style file):

    "oauth": {"clientId": "...", "clientSecret": "env:VAR" | "file:PATH" | "${VAR}",
              "scopes": ["a", "b"] | "a b", "clientMetadataUrl": "https://...",
              "redirectPort": 33418, "grantType": "client_credentials",
              "tokenEndpointAuthMethod": "client_secret_basic", "privateKeyFile": "key.pem",
              "signingAlgorithm": "ES256", "issuer": "https://auth.example.com",
              "dpop": true, "assertionFile": "/var/run/secrets/tokens/mcp",
              "assertionCommand": "print-oidc-token", "idTokenFile": "id-token.jwt",
              "idTokenCommand": "...", "idpTokenEndpoint": "https://idp.example.com/token",
              "idpClientId": "..."}

(`oauth` as VS Code and Gemini CLI spell it; `auth` is read the same way.) A
secret given as `env:VAR`/`file:PATH`/`${VAR}` is read only where the config rules
allow indirection (user-level files, or `--expand-env`); a literal secret in a project
file is used as written.

Environment variables (each overrides the config entry; options override both):
`MRTR_CLIENT_ID`, `MRTR_CLIENT_SECRET`, `MRTR_CLIENT_SECRET_FILE`,
`MRTR_CLIENT_METADATA_URL`, `MRTR_OAUTH_SCOPE` (space separated), `MRTR_OAUTH_GRANT`
(`client_credentials` or `authorization_code`), `MRTR_OAUTH_AUTH_METHOD`,
`MRTR_PRIVATE_KEY_FILE`, `MRTR_SIGNING_ALG`, `MRTR_OAUTH_ISSUER`, `MRTR_REDIRECT_PORT`,
`MRTR_OAUTH_DPOP` (`1`/`0`), `MRTR_ASSERTION` / `MRTR_ASSERTION_FILE` /
`MRTR_ASSERTION_COMMAND` (a workload's JWT: the JWT bearer grant), `MRTR_ID_TOKEN` /
`MRTR_ID_TOKEN_FILE` / `MRTR_ID_TOKEN_COMMAND` (an enterprise identity provider's ID
token: the ID-JAG exchange), `MRTR_IDP_TOKEN_ENDPOINT`, `MRTR_IDP_CLIENT_ID`,
`MRTR_IDP_CLIENT_SECRET`. The commands and files of assertions are read when a token is
requested, never their values at startup.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.errors import UsageError
from mrtr_cli.oauth_variables import OAUTH_NAMES, OAuthVariables
from mrtr_cli.render.invocation import for_new_shell

AUTH_METHODS = ("client_secret_basic", "client_secret_post", "private_key_jwt", "none")
GRANTS = ("authorization_code", "client_credentials", "jwt_bearer", "id_jag")
#: Grants that need nobody present (no browser, no terminal).
UNATTENDED = ("client_credentials", "jwt_bearer", "id_jag")


@dataclass(frozen=True)
class AssertionSource:
    """Where a JWT issued by someone else comes from: `kind` "file" (a path, read again on
    each token request: platforms rotate it), "env" (the value itself, from an environment
    variable) or "command" (a command line, split like a shell, whose stdout is the JWT).
    Never the JWT itself on the command line. `where` names the setting for messages."""

    kind: str
    value: str
    where: str


@dataclass
class AuthSettings:
    """What the user configured for signing in to one target (all optional).

    Attributes:
        client_id: a pre-registered client id.
        client_secret: its secret (a secret: registered for redaction by whoever reads it).
        client_metadata_url: an HTTPS Client ID Metadata Document URL the user hosts.
        scopes: scopes to ask for (else the challenge's, else `scopes_supported`).
        redirect_port: the loopback port (0: any free port).
        grant: "authorization_code" (a person signs in) or "client_credentials" (CI).
        auth_method: token endpoint client authentication (`AUTH_METHODS`), or None to
            let the registration decide.
        private_key: PEM text of the `private_key_jwt` key (a secret), or None.
        signing_alg: the JWS algorithm for `private_key_jwt` (default: from the key type).
        issuer: the authorization server the credentials belong to, or None.
        no_browser: print the URL and read the redirected URL back (paste flow).
        login_hint: the command that signs in, for messages (`mrtr --url URL auth login`).
        logout_hint: the command that signs out (and removes a damaged token file), or
            None (then `mrtr --url URL auth logout`).
        dpop: DPoP-bound tokens (RFC 9449): True always, False never, None where the
            MCP server takes them (auth/endpoint/binding.py).
        assertion: the workload's JWT for the JWT bearer grant (RFC 7523), or None.
        id_token: the enterprise identity provider's ID token, exchanged there for an
            ID-JAG (enterprise-managed authorization), or None.
        idp_token_endpoint, idp_client_id, idp_client_secret: that provider's token
            endpoint and mrtr's client there (the secret is a secret).
    """

    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    scopes: list[str] = field(default_factory=list)
    redirect_port: int = 0
    grant: str = "authorization_code"
    auth_method: str | None = None
    private_key: str | None = None
    signing_alg: str | None = None
    issuer: str | None = None
    no_browser: bool = False
    login_hint: str = "mrtr auth login"
    logout_hint: str | None = None
    dpop: bool | None = None
    assertion: AssertionSource | None = None
    id_token: AssertionSource | None = None
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = None
    idp_client_secret: str | None = None

    @property
    def client_credentials(self) -> bool:
        return self.grant == "client_credentials"

    @property
    def unattended(self) -> bool:
        """The grant needs nobody present (client credentials, JWT bearer, ID-JAG)."""
        return self.grant in UNATTENDED


def check_setting(value: str, source: str, *, multiline: bool = False) -> str:
    """`value` if it holds no line break or other control character (`multiline`: line
    breaks and tabs are allowed, as in a PEM key), as header values are checked: client
    ids, secrets, URLs, scopes and names end up in HTTP requests.

    Raises:
        UsageError: naming `source` (the variable, option or config member) and the rule,
            never the value (it may be a secret).
    """
    import unicodedata  # noqa: PLC0415 - lazy for start-up time

    for char in value:
        if multiline and char in "\r\n\t":
            continue
        if char in "\r\n\u2028\u2029" or unicodedata.category(char) == "Cc":
            problem = "a line break" if char in "\r\n\u2028\u2029" else "a control character"
            raise UsageError(f"{source}: the value has {problem}, which mrtr refuses (the value is not shown)",
                             hint="remove it (a value read from a file or variable often ends in a newline)")
    return value


def read_secret_file(path: str, source: str, *, multiline: bool = False) -> str:
    """The secret in the file `path` named by `source` ("MRTR_CLIENT_SECRET_FILE",
    "--client-secret-file", a config `file:` value), white space around it dropped: read
    by `userfiles.read_named_text` (a regular file, the size limit) and checked by
    `check_setting` (`multiline`: a PEM key).

    Raises:
        UsageError: the file breaks a rule, or is empty (named by `source`, never shown).
    """
    from mrtr_cli.userfiles import read_named_text  # noqa: PLC0415 - lazy for start-up time

    check_setting(path, source)
    secret = read_named_text(path, source=source).strip()
    if not secret:
        raise UsageError(f"{source} {path}: the file is empty")
    return check_setting(secret, f"{source} {path}", multiline=multiline)


def _scopes(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(s, str) for s in value):
        return [p for s in value for p in s.split()]
    raise UsageError(f"{where}: scopes must be a list of strings or one space-separated string")


def from_config_entry(entry: dict[str, Any], *, where: str, allowed: bool,
                      expand: Callable[[str], str]) -> AuthSettings | None:
    """The `oauth` (or `auth`) member of an HTTP server entry, or None when it has none.

    Args:
        allowed: indirection (`env:`, `file:`) is allowed for this file.
        expand: expands `${VAR}` as the config rules say (config/servers.py).

    Raises:
        UsageError: a malformed member (named, never its secret value).
    """
    block = entry.get("oauth", entry.get("auth"))
    if block is None:
        return None
    if not isinstance(block, dict):
        raise UsageError(f"{where}: \"oauth\" must be an object")
    b = _OAuthBlock(block, where, allowed, expand)
    s = AuthSettings()
    s.client_id = b.text("clientId", "client_id")
    secret = b.client_secret()
    if secret is not None:
        s.client_secret = secret
    metadata_url = b.text("clientMetadataUrl", "client_metadata_url")
    if metadata_url is not None:
        s.client_metadata_url = check_metadata_url(metadata_url, f"{where}: oauth clientMetadataUrl")
    s.scopes = _scopes(block.get("scopes", block.get("scope")), f"{where}: oauth")
    port = b.redirect_port()
    if port is not None:
        s.redirect_port = port
    grant = b.text("grantType", "grant_type")
    if grant is not None:
        s.grant = check_grant(grant, f"{where}: oauth grantType")
    method = b.text("tokenEndpointAuthMethod", "token_endpoint_auth_method")
    if method is not None:
        s.auth_method = check_auth_method(method, f"{where}: oauth tokenEndpointAuthMethod")
    key_file = b.text("privateKeyFile", "private_key_file")
    if key_file is not None:
        b.refuse_indirection("privateKeyFile")
        s.private_key = read_secret_file(key_file, f"{where}: oauth privateKeyFile", multiline=True)
    s.signing_alg = b.text("signingAlgorithm", "signing_alg")
    s.issuer = b.text("issuer")
    dpop = b.dpop()
    if dpop is not None:
        s.dpop = dpop
    b.jwt_sources(s)
    s.idp_token_endpoint = b.text("idpTokenEndpoint")
    s.idp_client_id = b.text("idpClientId")
    if s.assertion is not None and grant is None:
        s.grant = "jwt_bearer"
    if s.id_token is not None and grant is None:
        s.grant = "id_jag"
    return s


@dataclass
class _OAuthBlock:
    """One config entry's `oauth` member, read key by key for `from_config_entry` (its
    `where`, `allowed` and `expand`)."""

    block: dict[str, Any]
    where: str
    allowed: bool
    expand: Callable[[str], str]

    def text(self, key: str, *aliases: str) -> str | None:
        """The first of `key`, `aliases` given: a string, `${VAR}` expanded and checked."""
        for k in (key, *aliases):
            if k in self.block and self.block[k] is not None:
                if not isinstance(self.block[k], str):
                    raise UsageError(f"{self.where}: oauth {k} must be a string")
                return check_setting(self.expand(self.block[k]), f"{self.where}: oauth {k}")
        return None

    def refuse_indirection(self, key: str) -> None:
        """Raises UsageError: `key` names a file or a command, which a project-directory
        config may not (`--expand-env` allows it)."""
        if not self.allowed:
            raise UsageError(f"{self.where}: oauth {key} is not read from a project-directory config",
                             hint="pass --expand-env to allow it")

    def client_secret(self) -> str | None:
        """`clientSecret`: as written, or from `env:VAR` or `file:PATH` where allowed."""
        secret = self.text("clientSecret", "client_secret")
        if secret is None:
            return None
        where = self.where
        if not self.allowed and secret.startswith(("env:", "file:")):
            raise UsageError(f"{where}: oauth clientSecret {secret.split(':', 1)[0]}:... is not read from a "
                             "project-directory config", hint="pass --expand-env to allow it")
        if self.allowed and secret.startswith("env:"):
            name = secret[4:]
            if not os.environ.get(name):
                raise UsageError(f"{where}: oauth clientSecret env:{name}: that environment variable is empty or unset")
            return check_setting(os.environ[name], f"{where}: oauth clientSecret env:{name}")
        if self.allowed and secret.startswith("file:"):
            return read_secret_file(secret[5:], f"{where}: oauth clientSecret file:")
        return secret

    def redirect_port(self) -> int | None:
        """`redirectPort`: a port number (0-65535), or None."""
        port = self.block.get("redirectPort", self.block.get("redirect_port"))
        if port is not None and (not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535):
            raise UsageError(f"{self.where}: oauth redirectPort must be a port number")
        return port

    def dpop(self) -> bool | None:
        """`dpop`: true or false, or None."""
        dpop = self.block.get("dpop")
        if dpop is not None and not isinstance(dpop, bool):
            raise UsageError(f"{self.where}: oauth dpop must be true or false")
        return dpop

    def jwt_sources(self, s: AuthSettings) -> None:
        """The workload's JWT and the ID token, from a file or a command where allowed."""
        for key, attr, kind in (("assertionFile", "assertion", "file"), ("assertionCommand", "assertion", "command"),
                                ("idTokenFile", "id_token", "file"), ("idTokenCommand", "id_token", "command")):
            value = self.text(key)
            if value is not None:
                self.refuse_indirection(key)
                setattr(s, attr, AssertionSource(kind, value, f"{self.where}: oauth {key}"))


def source_setting(s: AuthSettings, attr: str, kind: str, value: str | None, where: str) -> None:
    """Set `s.<attr>` ("assertion" or "id_token") to an `AssertionSource` when `value` is
    given, and the grant it implies ("jwt_bearer", "id_jag").

    Raises:
        UsageError: `value` is given but empty or blank (`--assertion-command ""`): it names
            no file and no command, and leaving it out would be a different run."""
    if value is not None and not value.strip():
        raise UsageError(f"{where}: an empty value names no {'file' if kind == 'file' else 'command'}")
    if value:
        setattr(s, attr, AssertionSource(kind, value, where))
        s.grant = "jwt_bearer" if attr == "assertion" else "id_jag"


def check_grant(value: str, where: str) -> str:
    """`value` if it names a grant mrtr runs. Raises UsageError otherwise."""
    value = value.replace("-", "_")
    if value not in GRANTS:
        raise UsageError(f"{where} {value!r}: expected one of {', '.join(GRANTS)}")
    return value


def check_auth_method(value: str, where: str) -> str:
    """`value` if it is a token endpoint auth method mrtr applies. Raises UsageError otherwise."""
    if value not in AUTH_METHODS:
        raise UsageError(f"{where} {value!r}: expected one of {', '.join(AUTH_METHODS)}")
    return value


def check_metadata_url(value: str, where: str) -> str:
    """`value` if it can be a Client ID Metadata Document URL: https, a host and a path
    (the authorization spec's client ID metadata documents).

    Raises:
        UsageError: it cannot, naming `where` (the option, variable or config entry it came from).
    """
    from urllib.parse import urlsplit  # noqa: PLC0415 - lazy for start-up time

    try:
        parts = urlsplit(value)
        host = parts.hostname
    except ValueError:
        host = None
    if not host or parts.scheme != "https" or parts.path in ("", "/"):
        raise UsageError(f"{where} {value}: a Client ID Metadata Document URL is an https:// URL with a path "
                         "(e.g. https://example.com/mrtr-client.json)")
    return value


#: The OAuth variables read as they are (each checked by `check_setting` before any is applied).
_TEXT_VARIABLES = ("client_id", "client_secret", "client_metadata_url", "scope", "grant", "auth_method",
                   "signing_alg", "issuer", "redirect_port")
#: Text variables applied as they are (an `OAuthVariables` field is the `AuthSettings` attribute).
_PLAIN = ("client_id", "client_secret")
#: The identity provider's variables (ID-JAG), each checked by `check_setting`.
_IDP = ("idp_token_endpoint", "idp_client_id", "idp_client_secret")


def apply_environment(s: AuthSettings, variables: OAuthVariables | None = None) -> AuthSettings:
    """Override `s` with the `MRTR_*` OAuth environment variables (module docstring), in
    the order of the table there. A `*_FILE` variable's file is read by `read_secret_file`
    (the rules of every user file).

    Args:
        variables: the variables (settings.py `Settings.oauth`); None: the process
            environment's.

    Raises:
        UsageError: a bad value (a line break or control character, named by its variable
            and never shown), an unreadable secret or key file.
    """
    if variables is None:
        from mrtr_cli.settings import current  # noqa: PLC0415 - lazy for start-up time

        variables = current().oauth()
    v = variables
    text = {name: check_setting(getattr(v, name), OAUTH_NAMES[name])
            for name in _TEXT_VARIABLES if getattr(v, name)}
    _apply_client(s, v, text)
    _apply_grant(s, text)
    _apply_signing(s, v, text)
    for attr, kind_fields in (("assertion", ("assertion", "assertion_file", "assertion_command")),
                              ("id_token", ("id_token", "id_token_file", "id_token_command"))):
        value_field, file_field, command_field = kind_fields
        source_setting(s, attr, "env", OAUTH_NAMES[value_field] if getattr(v, value_field) else None,
                       OAUTH_NAMES[value_field])
        source_setting(s, attr, "file", getattr(v, file_field), OAUTH_NAMES[file_field])
        source_setting(s, attr, "command", getattr(v, command_field), OAUTH_NAMES[command_field])
    for name in _IDP:
        if getattr(v, name):
            setattr(s, name, check_setting(getattr(v, name), OAUTH_NAMES[name]))
    if "redirect_port" in text:
        s.redirect_port = _port(text["redirect_port"])
    return s


def _apply_client(s: AuthSettings, v: OAuthVariables, text: dict[str, str]) -> None:
    """Who the client is: its id, its secret (or secret file), its metadata URL."""
    for name in _PLAIN:
        if name in text:
            setattr(s, name, text[name])
    if v.client_secret_file:
        s.client_secret = read_secret_file(v.client_secret_file, OAUTH_NAMES["client_secret_file"])
    if "client_metadata_url" in text:
        s.client_metadata_url = check_metadata_url(text["client_metadata_url"], OAUTH_NAMES["client_metadata_url"])


def _apply_grant(s: AuthSettings, text: dict[str, str]) -> None:
    """What the client asks for and how it authenticates: scopes, grant, endpoint auth method."""
    if "scope" in text:
        s.scopes = text["scope"].split()
    if "grant" in text:
        s.grant = check_grant(text["grant"], OAUTH_NAMES["grant"])
    if "auth_method" in text:
        s.auth_method = check_auth_method(text["auth_method"], OAUTH_NAMES["auth_method"])


def _apply_signing(s: AuthSettings, v: OAuthVariables, text: dict[str, str]) -> None:
    """Keys and where credentials may go: the private key and its algorithm, the issuer, DPoP."""
    if v.private_key_file:
        s.private_key = read_secret_file(v.private_key_file, OAUTH_NAMES["private_key_file"], multiline=True)
    if "signing_alg" in text:
        s.signing_alg = text["signing_alg"]
    if "issuer" in text:
        s.issuer = text["issuer"]
    if v.dpop:
        flag = check_setting(v.dpop, OAUTH_NAMES["dpop"]).strip().lower()
        if flag not in ("1", "0", "true", "false", "yes", "no"):
            raise UsageError("MRTR_OAUTH_DPOP: expected 1 or 0")
        s.dpop = flag in ("1", "true", "yes")


def _port(text: str) -> int:
    """`MRTR_REDIRECT_PORT`'s port. Raises UsageError: not a port number (0-65535)."""
    try:
        port = int(text)
    except ValueError:
        raise UsageError("MRTR_REDIRECT_PORT: expected a port number") from None
    if not 0 <= port <= 65535:
        raise UsageError(f"MRTR_REDIRECT_PORT={port}: expected a port number (0-65535)")
    return port


def check_settings(s: AuthSettings) -> None:
    """Combinations that cannot work, refused before anything is sent.

    Raises:
        UsageError: client credentials without a client id or a credential, a bad
            client metadata URL, a port out of range.
    """
    if not 0 <= s.redirect_port <= 65535:
        raise UsageError(f"--redirect-port {s.redirect_port}: expected a port number (0-65535)")
    if s.client_metadata_url is not None:
        check_metadata_url(s.client_metadata_url, "--client-metadata-url")
    if s.grant == "jwt_bearer" and s.assertion is None:
        raise UsageError("the JWT bearer grant needs the workload's JWT",
                         hint="give --assertion-file PATH or --assertion-command CMD (or MRTR_ASSERTION_FILE)")
    if s.grant == "id_jag":
        if s.id_token is None:
            raise UsageError("enterprise-managed authorization needs an ID token from the identity provider",
                             hint="give --id-token-file PATH or --id-token-command CMD (or MRTR_ID_TOKEN_FILE)")
        if not s.idp_token_endpoint:
            raise UsageError("enterprise-managed authorization needs the identity provider's token endpoint",
                             hint="give --idp-token-endpoint URL (or MRTR_IDP_TOKEN_ENDPOINT)")
    if s.client_credentials:
        if not s.client_id:
            raise UsageError("the client credentials grant needs a client id",
                             hint=for_new_shell("give --client-id ID (or MRTR_CLIENT_ID, or oauth.clientId in "
                                                "the server's config)"))
        method = s.auth_method or ("private_key_jwt" if s.private_key else "client_secret_basic")
        if method == "private_key_jwt" and not s.private_key:
            raise UsageError("private_key_jwt needs a key",
                             hint="give --private-key-file PEM (or MRTR_PRIVATE_KEY_FILE)")
        if method in ("client_secret_basic", "client_secret_post") and not s.client_secret:
            raise UsageError(f"{method} needs a client secret",
                             hint=for_new_shell("give --client-secret-env VAR or --client-secret-file PATH (or "
                                                "MRTR_CLIENT_SECRET)"))
