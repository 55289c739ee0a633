"""The kinds of input request a server can make, as protocol facts, and the one route to them.

Spec: 2026-07-28 basic/patterns/mrtr (`inputRequests`: `{method, params}`), client/elicitation
(form and URL mode), client/sampling (`sampling.tools`), client/roots; 2025-11-25 the same
requests sent by the server itself. Each kind (`InputKind`) says what the protocol layer needs
of it: its method and elicitation mode, the client capability that declares it, the
handshake version that first has that capability, the schema definition of its request, and
what to tell a user who wants it declared. `input_kind` decides the kind of a request, for
every caller: the protocol layer (declaring, checking shapes, the 2025-11-25 handshake) and
the responders (responders/kinds/, where each kind's behaviour lives: answers, templates,
questions). A new kind is one `InputKind` here, in `INPUT_KINDS`, and its behaviour there.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class InputKind:
    """What the protocol says about one kind of input request.

    Attributes:
        method: the request method (`elicitation/create`).
        capability: the dotted client capability that declares it (`elicitation.form`,
            `sampling`); its first part is the `ClientCapabilities` member.
        hint: what to tell a user to get the capability declared.
        request_schema: the schema definition of the request (`ElicitRequest`).
        mode: the elicitation mode it answers (`params.mode`, absent means form), or None
            when the method has no modes.
        since: the first handshake version that has the capability ("" for all of them).
        tools_capability: the capability a request offering tools (`tools` or `toolChoice`
            in its params) needs instead, with its hint; None when tools do not apply.
        option: the command-line option that declares the capability, named in listing notes
            (a server may offer tools only to clients that declare it), or None.
    """

    method: str
    capability: str
    hint: str
    request_schema: str
    mode: str | None = None
    since: str = ""
    tools_capability: tuple[str, str] | None = None
    option: str | None = None

    @property
    def member(self) -> str:
        """The `ClientCapabilities` member that declares this kind (`elicitation`)."""
        return self.capability.partition(".")[0]

    def needed(self, params: dict[str, object]) -> str:
        """The dotted capability a request of this kind with `params` needs."""
        if self.tools_capability is not None and ("tools" in params or "toolChoice" in params):
            return self.tools_capability[0]
        return self.capability


FORM_HINT = "answer forms with --answers FILE, -a FIELD=VALUE, or run in a terminal"

ELICITATION_FORM = InputKind("elicitation/create", "elicitation.form", FORM_HINT, "ElicitRequest",
                             mode="form", since="2025-06-18")
ELICITATION_URL = InputKind(
    "elicitation/create", "elicitation.url",
    "URL elicitation needs a person to consent: run in a terminal (or --open-urls)", "ElicitRequest",
    mode="url", since="2025-06-18")
SAMPLING = InputKind(
    "sampling/createMessage", "sampling",
    "give a sampling source: --sampling-command CMD, sampling answers in --answers, or run in a terminal",
    "CreateMessageRequest",
    tools_capability=("sampling.tools", "pass --sampling-tools with a --sampling-command that supports tool use"),
    option="--sampling-command CMD")
ROOTS = InputKind("roots/list", "roots", "give roots with --root PATH (repeatable), or a roots list in --answers",
                  "ListRootsRequest", option="--root PATH")

#: Every kind, in the order they are declared (`ClientCapabilities` members in this order).
INPUT_KINDS = (ELICITATION_FORM, ELICITATION_URL, SAMPLING, ROOTS)
#: The methods of input requests, each once.
INPUT_METHODS = tuple(dict.fromkeys(kind.method for kind in INPUT_KINDS))


def request_mode(params: dict[str, object]) -> object:
    """The mode a request asks in (client/elicitation: absent or empty means `form`)."""
    return params.get("mode") or "form"


def input_kind(method: object, params: object) -> InputKind | None:
    """The kind of the request `{method, params}`: the one route every caller takes. None for
    a method that is no input request, or an elicitation mode no kind answers."""
    params = params if isinstance(params, dict) else {}
    for kind in INPUT_KINDS:
        if kind.method == method and (kind.mode is None or kind.mode == request_mode(params)):
            return kind
    return None


def method_member(method: object) -> str | None:
    """The `ClientCapabilities` member of an input request's `method` (`elicitation`), or None."""
    return next((kind.member for kind in INPUT_KINDS if kind.method == method), None)
