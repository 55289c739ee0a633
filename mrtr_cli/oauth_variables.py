"""The OAuth variables (`MRTR_CLIENT_ID` and the rest, docs/configuration.md "Environment
variables"; the authorization spec's client registration and token requests): their record,
`OAuthVariables`, and each field's variable, `OAUTH_NAMES`. `settings.Settings.oauth` reads
them; config/oauth.py checks and applies them.

Apart from settings.py so that a run that does not sign in does not build the record's class
(a frozen dataclass of 21 fields: its generated methods are compiled when the class is made,
about 2 ms of a run's start-up, docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OAuthVariables:
    """The OAuth variables as set, each None when unset (an empty value stays "": an empty
    `MRTR_ASSERTION_FILE` names no file, which is refused), read together by
    `Settings.oauth`; config/oauth.py checks and applies them (`apply_environment`).
    `OAUTH_NAMES` maps each field to its variable, for messages."""

    client_id: str | None = None
    client_secret: str | None = None
    client_secret_file: str | None = None
    client_metadata_url: str | None = None
    scope: str | None = None
    grant: str | None = None
    auth_method: str | None = None
    private_key_file: str | None = None
    signing_alg: str | None = None
    issuer: str | None = None
    dpop: str | None = None
    redirect_port: str | None = None
    assertion: str | None = None
    assertion_file: str | None = None
    assertion_command: str | None = None
    id_token: str | None = None
    id_token_file: str | None = None
    id_token_command: str | None = None
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = None
    idp_client_secret: str | None = None


#: Each `OAuthVariables` field's variable.
OAUTH_NAMES: dict[str, str] = {
    "client_id": "MRTR_CLIENT_ID", "client_secret": "MRTR_CLIENT_SECRET",
    "client_secret_file": "MRTR_CLIENT_SECRET_FILE", "client_metadata_url": "MRTR_CLIENT_METADATA_URL",
    "scope": "MRTR_OAUTH_SCOPE", "grant": "MRTR_OAUTH_GRANT", "auth_method": "MRTR_OAUTH_AUTH_METHOD",
    "private_key_file": "MRTR_PRIVATE_KEY_FILE", "signing_alg": "MRTR_SIGNING_ALG", "issuer": "MRTR_OAUTH_ISSUER",
    "dpop": "MRTR_OAUTH_DPOP", "redirect_port": "MRTR_REDIRECT_PORT",
    "assertion": "MRTR_ASSERTION", "assertion_file": "MRTR_ASSERTION_FILE",
    "assertion_command": "MRTR_ASSERTION_COMMAND",
    "id_token": "MRTR_ID_TOKEN", "id_token_file": "MRTR_ID_TOKEN_FILE", "id_token_command": "MRTR_ID_TOKEN_COMMAND",
    "idp_token_endpoint": "MRTR_IDP_TOKEN_ENDPOINT", "idp_client_id": "MRTR_IDP_CLIENT_ID",
    "idp_client_secret": "MRTR_IDP_CLIENT_SECRET",
}
