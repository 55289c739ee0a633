"""An example MCP server that requires OAuth sign-in, with its own authorization server, for
the README's "Signing in".

    python examples/servers/protected.py --http 8003 --auth-port 8004              # in the foreground
    python examples/servers/protected.py --http 8003 --auth-port 8004 --background # in the background
    python examples/servers/protected.py --auth-port 8004 --expire-tokens          # every token so far expires
    python examples/servers/protected.py --http 8011 --dpop --background           # DPoP-bound tokens, with nonces
    python examples/servers/protected.py --http 8013 --platform-jwt my-job         # print a workload's JWT

It is the protected server the sign-in tests use (tests/servers/oauth_server.py, built from the
official SDK's server auth components), run on fixed ports: the MCP server at
http://127.0.0.1:PORT/mcp (default 8003), its authorization server at http://127.0.0.1:AUTH_PORT
(default PORT+1), a second origin. The sign-in page approves at once (there is no login form),
so a real browser or the test suite's stand-in browser (tests/oauth_browser.py, set as
`BROWSER`) finishes it. Tokens live in memory for an hour; `--expire-tokens` makes the server
refuse every access token issued so far, as if it had expired (its `POST /_test/expire`).

For CI examples it also has a pre-registered client allowed the client credentials grant:
its id is `example-ci` and its secret is written (mode 0600) to `$TMPDIR/protected-PORT.secret`
(default TMPDIR: /tmp), never printed.

For agent identity examples: `--dpop` makes the authorization server issue DPoP-bound
tokens (RFC 9449), the MCP server take them and say so (in its protected resource metadata
and its challenges), and both servers ask for a DPoP nonce. The server trusts a "platform"
key of its own (made at start, the private half 0600 in `$TMPDIR/protected-PORT.platform.pem`):
`--platform-jwt SUBJECT` prints a JWT signed with it for the running server on `--http
PORT` (audience its authorization server, 5 minutes), as a CI provider or Kubernetes
issues one. Its authorization server takes such a JWT in the JWT bearer grant (workload
identity federation), and its identity provider at `http://127.0.0.1:AUTH_PORT/idp/token`
takes one as an enterprise ID token and exchanges it for an ID-JAG (enterprise-managed
authorization) for the client `example-ci`.

Tools: `echo {text}`, `whoami`, `ask` (asks a question first), `admin_tool` (needs the
`mcp:admin` scope: a step-up).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS_SERVERS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "servers")
CI_CLIENT_ID = "example-ci"


def secret_path(port: int) -> str:
    """Where the CI client's secret is written for the server on `port`."""
    return os.path.join(tempfile.gettempdir(), f"protected-{port}.secret")


def write_secret(path: str) -> str:
    """A new random client secret, written to `path` with mode 0600 (replacing any old one)."""
    secret = secrets.token_urlsafe(24)
    if os.path.exists(path):
        os.unlink(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(secret + "\n")
    return secret


def platform_key_path(port: int) -> str:
    """Where the private half of the platform key of the server on `port` is written."""
    return os.path.join(tempfile.gettempdir(), f"protected-{port}.platform.pem")


def write_platform_key(port: int) -> str:
    """A new ES256 platform key: the private half 0600 at `platform_key_path`, the public
    half beside it; returns the public half's path (the server trusts it)."""
    # cryptography, jwt and httpx2 load only in the mode that uses them.
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415 - only this mode needs it
    from cryptography.hazmat.primitives.asymmetric import ec  # noqa: PLC0415 - only this mode needs it

    key = ec.generate_private_key(ec.SECP256R1())
    path = platform_key_path(port)
    if os.path.exists(path):
        os.unlink(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                   serialization.NoEncryption()))
    public = path[:-len(".pem")] + ".pub.pem"
    with open(public, "wb") as fh:
        fh.write(key.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo))
    return public


def platform_jwt(port: int, auth_port: int, subject: str) -> str:
    """A JWT for `subject` signed with the platform key of the server on `port`: `aud` its
    authorization server, a 5-minute lifetime (as a workload's platform issues one)."""
    import jwt  # noqa: PLC0415 - only --platform-jwt needs it

    try:
        with open(platform_key_path(port), "rb") as fh:
            key = fh.read()
    except OSError:
        sys.exit(f"protected: no server on port {port} made a platform key ({platform_key_path(port)})")
    now = int(time.time())
    return jwt.encode({"iss": "https://platform.example", "sub": subject, "aud": f"http://127.0.0.1:{auth_port}",
                       "iat": now, "exp": now + 300, "jti": str(uuid.uuid4())}, key, algorithm="ES256")


def expire_tokens(auth_port: int) -> None:
    """Ask the authorization server on `auth_port` to refuse every access token issued so far."""
    import httpx2  # noqa: PLC0415 - only --expire-tokens needs it

    try:
        httpx2.post(f"http://127.0.0.1:{auth_port}/_test/expire", timeout=30).raise_for_status()
    except httpx2.HTTPError as exc:
        sys.exit(f"protected: no authorization server answered on port {auth_port}: {exc}")
    print("protected: every access token issued so far is now refused (as if expired)")


def serve(port: int, auth_port: int, dpop: bool = False) -> None:
    """Serve in the foreground until interrupted."""
    sys.path.insert(0, TESTS_SERVERS)
    import oauth_server  # noqa: PLC0415 - tests/servers/oauth_server.py, importable once on sys.path

    args = oauth_server.parse_args(["--port", str(port), "--auth-port", str(auth_port), "--keep-running",
                                    "--client-id", CI_CLIENT_ID, "--client-credentials",
                                    "--trust-key", write_platform_key(port),
                                    *(["--dpop", "--dpop-nonce"] if dpop else [])])
    args.client_secret = write_secret(secret_path(port))  # not on a command line, where ps would show it
    print(f"protected: serving http://127.0.0.1:{port}/mcp, its authorization server http://127.0.0.1:{auth_port}",
          flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(oauth_server.main(args))


def main() -> None:
    parser = argparse.ArgumentParser(description="an example MCP server that requires OAuth sign-in")
    parser.add_argument("--http", type=int, metavar="PORT", default=8003, help="the MCP server's port (default 8003)")
    parser.add_argument("--auth-port", type=int, metavar="PORT",
                        help="the authorization server's port (default: the MCP server's port + 1)")
    parser.add_argument("--background", action="store_true",
                        help="serve in the background (output to a log file), print how to stop it")
    parser.add_argument("--expire-tokens", action="store_true",
                        help="make the running server refuse every access token issued so far, then exit")
    parser.add_argument("--dpop", action="store_true",
                        help="issue DPoP-bound tokens (RFC 9449); both servers ask for a DPoP nonce")
    parser.add_argument("--platform-jwt", metavar="SUBJECT",
                        help="print a workload's JWT for SUBJECT signed with the running server's platform key, "
                             "then exit")
    args = parser.parse_args()
    auth_port = args.auth_port or args.http + 1
    if args.expire_tokens:
        expire_tokens(auth_port)
    elif args.platform_jwt:
        print(platform_jwt(args.http, auth_port, args.platform_jwt))
    elif args.background:
        from background import serve_in_background  # noqa: PLC0415 - only --background needs it (examples/servers/background.py)

        serve_in_background(__file__, args.http, extra_args=("--auth-port", str(auth_port),
                                                             *(["--dpop"] if args.dpop else [])), notes=(
            f"its authorization server: http://127.0.0.1:{auth_port}",
            f"CI client (client credentials): id {CI_CLIENT_ID}, secret in {secret_path(args.http)}"))
    else:
        serve(args.http, auth_port, args.dpop)


if __name__ == "__main__":
    main()
