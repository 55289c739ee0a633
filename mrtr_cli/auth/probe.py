"""`mrtr auth login`'s first request: the MCP server is asked something small without a
token, to read its challenge (`WWW-Authenticate`: `resource_metadata`, `scope`), as the
first request of any command would (2026-07-28 basic/authorization "Authorization Flow
Steps", step 1).
"""

from __future__ import annotations

import json
from typing import Any

from mrtr_cli.auth.challenge import Challenge, parse_challenge


def probe(http: Any, url: str, headers: dict[str, str], protocol: str = "auto") -> Challenge | None:
    """POST a `server/discover` (2026-07-28) or `ping` request to `url` without a token;
    the challenge of its 401/403, an empty 401 challenge when it could not be reached
    (discovery then tries the well-known URIs), or None when it answered without asking
    for a sign-in.

    Raises:
        ProxyRefused: the proxy in the way answered itself, or may have
            (transport/http/proxy.py): exit 3 naming the proxy, not the server's answer.
    """
    import httpx2  # noqa: PLC0415 - lazy for start-up time

    from mrtr_cli.transport.http.proxy import proxy_answer, tunnel_refused  # noqa: PLC0415 - lazy for start-up time

    modern = protocol in ("auto", "2026-07-28", "modern")
    method = "server/discover" if modern else "ping"
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {}}
    send = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
            **{k: v for k, v in headers.items() if k.lower() != "authorization"}}
    if modern:
        send["MCP-Protocol-Version"] = "2026-07-28"
        send["Mcp-Method"] = method
    elif protocol not in ("legacy",):
        send["MCP-Protocol-Version"] = protocol
    try:
        with http.stream("POST", url, content=json.dumps(body), headers=send) as resp:
            status = resp.status_code
            challenge = resp.headers.get("www-authenticate")
    except httpx2.ProxyError as exc:  # a CONNECT the proxy refused
        raise tunnel_refused(url, exc) from None
    except httpx2.HTTPError:
        return Challenge(401)
    refused = proxy_answer(url, status)
    if refused is not None:
        raise refused
    if status in (401, 403):
        return parse_challenge(status, challenge)
    return None
