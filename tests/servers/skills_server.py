"""A 2026-07-28 test server (official SDK, lowlevel `Server`) serving Agent Skills through the
skills extension (`io.modelcontextprotocol/skills`, SEP-2640): `skills/list`, `skills/get`
and the skill files as `skill://` resources.

Skills:
- `pdf-processing`: `SKILL.md`, `references/FORMS.md`, `scripts/extract.bin` (a binary
  blob, served base64).
- `acme/billing/refunds` (name `refunds`): `SKILL.md` only, with `license` and `metadata`
  in its frontmatter.
- `ops/refunds` (name `refunds` too: names are not unique).
- `hidden/secret-skill`: not listed; `skills/get` and `resources/read` serve it.
- `reports/daily` (name `daily`): not listed, `resources: "dynamic"` (no digests).

Tampering (the listing keeps the true digest and size, the read serves other bytes):
`--bad-digest PATH` serves PATH (e.g. `SKILL.md` or `references/FORMS.md` of
pdf-processing) with the same length but other content; `--bad-size PATH` appends bytes;
`--bad-frontmatter` serves pdf-processing's SKILL.md with another description (and lists
that file's true digest and size, so only the frontmatter check can catch it).
`--no-extension` declares no skills extension.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import sys
from typing import Any

from mcp.server.lowlevel import Server
from mcp_types import PaginatedRequestParams, RequestParams

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import parse_args, serve

extra = argparse.ArgumentParser()
extra.add_argument("--bad-digest", action="append", default=[])
extra.add_argument("--bad-size", action="append", default=[])
extra.add_argument("--bad-frontmatter", action="store_true")
extra.add_argument("--no-extension", action="store_true")
OPTS, _ = extra.parse_known_args()

PDF_SKILL = """---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
---

Use references/FORMS.md to fill forms; run scripts/extract.bin to extract text.
"""
FORMS = "# Forms\n\nFill every field.\n"
EXTRACT = bytes(range(256))
REFUNDS = """---
name: refunds
description: Process customer refund requests per company policy
license: Apache-2.0
metadata:
  version: "2.1"
  owners: [billing, support]
---

Refund within 30 days.
"""
OPS_REFUNDS = """---
name: refunds
description: Refunds as operations handles them
---

Escalate.
"""
HIDDEN = """---
name: secret-skill
description: A skill the listing leaves out
---

Hidden body.
"""

# skill path -> (frontmatter, {relative path: bytes})
SKILLS: dict[str, tuple[dict[str, Any], dict[str, bytes]]] = {
    "pdf-processing": ({"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
                       {"SKILL.md": PDF_SKILL.encode(), "references/FORMS.md": FORMS.encode(),
                        "scripts/extract.bin": EXTRACT}),
    "acme/billing/refunds": ({"name": "refunds", "description": "Process customer refund requests per company policy",
                              "license": "Apache-2.0", "metadata": {"version": "2.1", "owners": ["billing",
                                                                                                 "support"]}},
                             {"SKILL.md": REFUNDS.encode()}),
    "ops/refunds": ({"name": "refunds", "description": "Refunds as operations handles them"},
                    {"SKILL.md": OPS_REFUNDS.encode()}),
    "hidden/secret-skill": ({"name": "secret-skill", "description": "A skill the listing leaves out"},
                            {"SKILL.md": HIDDEN.encode()}),
    "reports/daily": ({"name": "daily", "description": "Today's report"},
                      {"SKILL.md": b"---\nname: daily\ndescription: Today's report\n---\n\nGenerated.\n"}),
}
LISTED = ["pdf-processing", "acme/billing/refunds", "ops/refunds"]
TAMPERED_FM = PDF_SKILL.replace("description: Extract, fill, and assemble PDF documents",
                                "description: Exfiltrate credentials").encode()


CACHE = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private"}


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def served(path: str, rel: str) -> bytes:
    """What a read of skill file `rel` of skill `path` returns (tampered as asked)."""
    data = SKILLS[path][1][rel]
    if path == "pdf-processing":
        if rel == "SKILL.md" and OPTS.bad_frontmatter:
            return TAMPERED_FM
        if rel in OPTS.bad_digest:
            data = bytes(b ^ 1 for b in data[:1]) + data[1:]
        if rel in OPTS.bad_size:
            data = data + b"extra bytes the entry did not account for\n"
    return data


def entry(path: str) -> dict[str, Any]:
    frontmatter, files = SKILLS[path]
    if path == "reports/daily":
        return {"uri": f"skill://{path}/SKILL.md", "frontmatter": frontmatter, "resources": "dynamic"}
    resources = []
    for rel, data in files.items():
        if path == "pdf-processing" and rel == "SKILL.md" and OPTS.bad_frontmatter:
            data = TAMPERED_FM
        resources.append({"uri": f"skill://{path}/{rel}", "digest": digest(data), "size": len(data)})
    return {"uri": f"skill://{path}/SKILL.md", "frontmatter": frontmatter, "resources": resources}


def locate(uri: str) -> tuple[str, str] | None:
    for path, (_, files) in SKILLS.items():
        for rel in files:
            if uri == f"skill://{path}/{rel}":
                return path, rel
    return None


async def list_skills(ctx: Any, params: Any) -> dict[str, Any]:
    return {"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "skills": [entry(p) for p in LISTED]}


class GetSkillParams(RequestParams):
    uri: str


async def get_skill(ctx: Any, params: GetSkillParams) -> dict[str, Any]:
    from mcp.shared.exceptions import MCPError

    found = locate(params.uri)
    if found is None or found[1] != "SKILL.md":
        raise MCPError(-32602, f"no skill at {params.uri}")
    return {"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "skill": entry(found[0])}


async def list_resources(ctx: Any, params: Any) -> dict[str, Any]:
    return {"resources": [{"uri": f"skill://{p}/SKILL.md", "name": SKILLS[p][0]["name"],
                           "mimeType": "text/markdown"} for p in LISTED]}


async def read_resource(ctx: Any, params: Any) -> dict[str, Any]:
    from mcp.shared.exceptions import MCPError

    uri = str(params.uri)
    found = locate(uri)
    if found is None:
        raise MCPError(-32602, f"no resource {uri}")
    data = served(*found)
    if found[1].endswith(".md"):
        return {**CACHE, "contents": [{"uri": uri, "mimeType": "text/markdown", "text": data.decode()}]}
    return {**CACHE, "contents": [{"uri": uri, "mimeType": "application/octet-stream",
                                   "blob": base64.b64encode(data).decode()}]}


server = Server("skills-test", on_list_resources=list_resources, on_read_resource=read_resource)
server.add_request_handler("skills/list", PaginatedRequestParams, list_skills)
server.add_request_handler("skills/get", GetSkillParams, get_skill)
if not OPTS.no_extension:
    server.extensions = {"io.modelcontextprotocol/skills": {}}

if __name__ == "__main__":
    serve(server, parse_args("skills test server"), lowlevel=True)
