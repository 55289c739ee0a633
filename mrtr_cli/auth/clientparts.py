"""What the parts of `auth.client.OAuthClient` share, declared for the type checker: the
token requests (auth/endpoint/requests.py), the authorization code flow
(auth/flows/code.py), the unattended grants (auth/flows/unattended.py) and the refresh
(auth/flows/refresh.py) are its base classes and use the client's attributes and methods.

`ClientParts` holds declarations only (no values, no methods at run time): what each
part reaches on `self` is set by `OAuthClient.__init__` or defined by `OAuthClient` or
another part.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.auth.dpop import ProofKey
    from mrtr_cli.auth.store import TokenStore
    from mrtr_cli.config.oauth import AuthSettings
    from mrtr_cli.env import Environment


class ClientParts:
    """The attributes and methods of `OAuthClient` that its parts use (see the module)."""

    url: str
    settings: AuthSettings
    env: Environment
    label: str
    login: bool
    deadline: Any  # the run's `protocol.deadline.Deadline` (auth sits beside protocol), or None
    store: TokenStore
    _issued: set[str]
    _unbound: set[str]
    _as_nonces: dict[str, str]

    if TYPE_CHECKING:  # pragma: no cover - defined by `OAuthClient` and its parts
        @property
        def http(self) -> Any: ...
        def _note(self, text: str) -> None: ...
        def _remember(self, tokens: dict[str, Any]) -> str: ...
        def _send(self, client: dict[str, Any], endpoint: str, data: dict[str, str], *, issuer: str,
                  guessed: bool = False, **kw: Any) -> dict[str, Any]: ...
        def _new_proof_key(self) -> ProofKey: ...
        def _federated_form(self, issuer: str, resource: str, scopes: list[str]) -> dict[str, str]: ...
        def _forget_registration(self, issuer: str, client: dict[str, Any], reason: str, *,
                                 again: bool) -> None: ...
