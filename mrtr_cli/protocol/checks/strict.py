"""`--strict`: a server author's lint. Every message from the server is checked against the
official JSON schema of the negotiated protocol version (package data in
mrtr_cli/schemas/, validated with `jsonschema`), plus the rules a schema cannot express
that a client can observe:

- `undeclared-capability`: an input request (2026-07-28 `inputRequests`, or an older
  server's own request) for a client capability the request did not declare
  (basic/patterns/mrtr, client/*: servers MUST NOT ask for what was not declared);
- `request-state`: `requestState` on a result that is not `input_required`;
- `result-type`: a `resultType` the request does not allow (`complete` for every
  request; `input_required` for tools/call, prompts/get, resources/read; `task` for a
  tools/call that declared the tasks extension);
- `repeated-cursor`: a `nextCursor` already seen in the same list walk
  (server/utilities/pagination).

Each violation is one line on stderr, `mrtr: strict: METHOD PATH: RULE: what`, with
a JSON path such as `$.result.tools[0].inputSchema`. The command's result is still
printed; a run that saw any violation exits 4 (cli/main.py). `violations` counts them;
`line_count()` counts those of the calling thread since `begin_line()` (`mrtr batch`).
"""

from __future__ import annotations

import json
import threading
from typing import Any

from mrtr_cli.env import Environment
from mrtr_cli.protocol.capabilities.declared import MRTR_METHODS, TASKS_EXTENSION, declares, needed_capability
from mrtr_cli.render.sanitize import sanitize

#: Schema files shipped in mrtr_cli/schemas/, by the protocol version they describe.
SCHEMA_VERSIONS = ("2026-07-28", "2025-11-25")


def run_checker(strict: bool, env: Environment) -> StrictChecker | None:
    """`--strict`: the run's `StrictChecker` (one per run, kept on `env.strict` for the exit
    code, cli/main.py), or None without the option. The checker's own imports (jsonschema)
    happen only here."""
    if not strict:
        return None
    if env.strict is None:
        env.strict = StrictChecker(env)
    checker: StrictChecker = env.strict
    return checker


def strict_exit(code: int, violations: int) -> int:
    """The exit code once violations were seen: 4 where it would have been 0, 1 (isError)
    or 6 (declined); any other code stands."""
    return 4 if violations and code in (0, 1, 6) else code


def load_schema(version: str) -> dict[str, Any] | None:
    """The official schema for `version` from the package data, or None when none is shipped."""
    if version not in SCHEMA_VERSIONS:
        return None
    from importlib.resources import files  # noqa: PLC0415 - lazy for start-up time

    schema: dict[str, Any] = json.loads((files("mrtr_cli") / "schemas" / f"{version}.json").read_text(encoding="utf-8"))
    return schema


def json_path(parts: Any) -> str:
    """A JSON path from path elements: `$.result.tools[0].name`; a member whose name is
    not a plain identifier (a server chooses input keys) is quoted as JSON,
    `$.result.inputRequests["k\\u001b"]` (`report` sanitizes it for a terminal)."""
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and part.isidentifier():
            out += f".{part}"
        else:
            out += "[" + json.dumps(part if isinstance(part, str) else str(part), ensure_ascii=False) + "]"
    return out


class StrictChecker:
    """Checks what one run receives. Thread-safe: `mrtr batch` lines share it.

    Args:
        env: where violation lines go (stderr).

    Attributes:
        violations: how many were seen in the whole run.
        version: the negotiated protocol version (set by the session that opens).
    """

    def __init__(self, env: Environment):
        self.env = env
        self.violations = 0
        self.version: str | None = None
        self._validators: dict[tuple[str, str], Any] = {}
        self._schemas: dict[str, dict[str, Any] | None] = {}
        self._names: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()
        self._local = threading.local()
        self._cursors: dict[tuple[int, str], set[str]] = {}
        self._noted: set[str] = set()

    # ------------------------------------------------------------------ per batch line
    def begin_line(self) -> None:
        """Start counting this thread's violations (one `mrtr batch` line)."""
        self._local.count = 0

    def line_count(self) -> int:
        """This thread's violations since `begin_line`."""
        return int(getattr(self._local, "count", 0))

    # ------------------------------------------------------------------ reporting
    def report(self, method: str, path: str, rule: str, what: str) -> None:
        """Print one violation line and count it."""
        with self._lock:
            self.violations += 1
        self._local.count = getattr(self._local, "count", 0) + 1
        self.env.err(f"mrtr: strict: {sanitize(method, single_line=True)} {sanitize(path, single_line=True)}: {rule}: "
                     f"{sanitize(what, single_line=True)}")

    # ------------------------------------------------------------------ schema
    def _schema(self) -> dict[str, Any] | None:
        version = self.version or ""
        if version not in self._schemas:
            self._schemas[version] = load_schema(version)
            if self._schemas[version] is None and version not in self._noted:
                self._noted.add(version)
                self.env.err(f"mrtr: strict: note: no schema shipped for MCP {version or '(unknown)'}; "
                             "only the protocol rules are checked")
        return self._schemas[version]

    def _def_names(self) -> dict[str, str]:
        """method -> request or notification definition name, from the schema's `method` consts."""
        version = self.version or ""
        if version not in self._names:
            names: dict[str, str] = {}
            for name, spec in ((self._schema() or {}).get("$defs") or {}).items():
                const = ((spec.get("properties") or {}).get("method") or {}).get("const")
                if isinstance(const, str) and (name.endswith("Request") or name.endswith("Notification")):
                    names.setdefault(const, name)
            self._names[version] = names
        return self._names[version]

    def _validate(self, definition: str, instance: Any, method: str, prefix: list[Any], *,
                  skip: str | None = None) -> None:
        schema = self._schema()
        if schema is None or definition not in (schema.get("$defs") or {}):
            return
        key = (self.version or "", definition)
        validator = self._validators.get(key)
        if validator is None:
            import jsonschema  # noqa: PLC0415 - only with --strict

            root = {**schema, "$ref": f"#/$defs/{definition}"}
            validator = jsonschema.validators.validator_for(schema)(root)
            self._validators[key] = validator
        from jsonschema.exceptions import best_match  # noqa: PLC0415 - lazy for start-up time

        for error in validator.iter_errors(instance):
            if skip is not None and list(error.absolute_path)[:1] == [skip]:
                continue
            detail = best_match(error.context) if error.context else error
            path = json_path([*prefix, *detail.absolute_path])
            self.report(method, path, f"schema {definition}", detail.message[:300])

    def result_definition(self, method: str, result: dict[str, Any]) -> str | None:
        """The schema definition a result of `method` must match (`ListToolsResult`,
        `InputRequiredResult`, ...), or None when the schema has none for it (a
        `resultType: "task"` result: the tasks extension is not part of the core schema)."""
        result_type = result.get("resultType", "complete")
        if result_type == "input_required":
            return "InputRequiredResult"
        if result_type != "complete":
            return None  # a task (the tasks extension's own schema is not shipped), or a type `result-type` reports
        request = self._def_names().get(method)
        if request is None or not request.endswith("Request"):
            return None
        defs = (self._schema() or {}).get("$defs") or {}
        if method == "tools/call" and isinstance(result.get("task"), dict) and "CreateTaskResult" in defs:
            return "CreateTaskResult"
        name = request[: -len("Request")] + "Result"
        return name if name in defs else "Result" if "Result" in defs else None

    # ------------------------------------------------------------------ what arrives
    def response(self, request: dict[str, Any], response: object, *, declared: dict[str, Any] | None = None) -> None:
        """Check the response to `request` (a request message as sent). `declared`: the
        capabilities an older session declared in `initialize` (a modern request carries
        its own in `_meta`)."""
        method = str(request.get("method"))
        if not isinstance(response, dict):
            self.report(method, "$", "schema JSONRPCMessage", "the response is not a JSON object")
            return
        if "error" in response:
            self._validate("JSONRPCErrorResponse", response, method, [])
            return
        result = response.get("result")
        definition = self.result_definition(method, result) if isinstance(result, dict) else None
        # The envelope; what is wrong inside a result with a definition of its own is said once, below.
        self._validate("JSONRPCResultResponse", response, method, [], skip="result" if definition else None)
        if not isinstance(result, dict):
            return
        if definition is not None:
            self._validate(definition, result, method, ["result"])
        params = raw_params if isinstance(raw_params := request.get("params"), dict) else {}
        meta = raw_meta if isinstance(raw_meta := params.get("_meta"), dict) else {}
        caps = meta.get("io.modelcontextprotocol/clientCapabilities", declared)
        if self.version in ("2026-07-28",) or "resultType" in result:
            self._result_rules(method, result, caps)
        self._cursor_rule(method, params, result)

    def _result_rules(self, method: str, result: dict[str, Any], caps: object) -> None:
        result_type = result.get("resultType", "complete")
        allowed = ["complete"]
        if method in MRTR_METHODS:
            allowed.append("input_required")
        if method == "tools/call" and isinstance(caps, dict) and TASKS_EXTENSION in (caps.get("extensions") or {}):
            allowed.append("task")
        if result_type not in allowed:
            self.report(method, "$.result.resultType", "result-type",
                        f"{json.dumps(result_type)} is not a result type {method} allows here "
                        f"(allowed: {', '.join(allowed)})")
        if "requestState" in result and result_type != "input_required":
            self.report(method, "$.result.requestState", "request-state",
                        f"requestState on a result whose resultType is {json.dumps(result_type)} (only an "
                        "input_required result carries one)")
        asks = result.get("inputRequests") if result_type == "input_required" else None
        for key, ask in (asks.items() if isinstance(asks, dict) else []):
            ask = ask if isinstance(ask, dict) else {}
            need = needed_capability(ask.get("method"), ask.get("params"))
            if need is not None and not declares(caps, need):
                self.report(method, json_path(["result", "inputRequests", key]), "undeclared-capability",
                            f"an input request for {need}, which the request did not declare")

    def _cursor_rule(self, method: str, params: dict[str, Any], result: dict[str, Any]) -> None:
        if not method.endswith("/list"):
            return
        walk = (threading.get_ident(), method)
        with self._lock:
            if "cursor" not in params:
                self._cursors[walk] = set()
            seen = self._cursors.setdefault(walk, set())
            if isinstance(params.get("cursor"), str):
                seen.add(params["cursor"])
            cursor = result.get("nextCursor")
            repeated = isinstance(cursor, str) and cursor in seen
        if repeated:
            self.report(method, "$.result.nextCursor", "repeated-cursor",
                        f"the cursor {json.dumps(cursor)} was already given in this list")

    def incoming(self, msg: object, *, declared: dict[str, Any] | None = None) -> None:
        """Check a notification or request the server sent on its own (`declared`: what an
        older session declared in `initialize`, against which its requests are checked)."""
        if not isinstance(msg, dict):
            return
        method = str(msg.get("method"))
        definition = self._def_names().get(method)
        if definition is not None:
            self._validate(definition, msg, method, [])
        if "id" in msg and declared is not None:
            need = needed_capability(msg.get("method"), msg.get("params"))
            if need is not None and not declares(declared, need):
                self.report(method, "$", "undeclared-capability",
                            f"a request for {need}, which this client did not declare in initialize")

    def discover(self, result: object, capabilities: dict[str, Any]) -> None:
        """Check a `server/discover` result that came with the era probe."""
        self.response({"method": "server/discover", "params": {"_meta": {
            "io.modelcontextprotocol/clientCapabilities": capabilities}}},
            {"jsonrpc": "2.0", "id": 0, "result": result})
