"""Resource templates (2026-07-28 server/resources, "Resource Templates"; RFC 6570 URI templates).

`mrtr read TEMPLATE NAME=VALUE...` fills a template's variables; shell completion and
`mrtr complete resource` ask the server for a variable's values. Expansion is the
`std-uritemplate` library's (RFC 6570 level 4), imported only when a template is filled.
"""

from __future__ import annotations

import re

from mrtr_cli.errors import UsageError

_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_OPERATORS = "+#./;?&"


def is_template(uri: str) -> bool:
    """True when `uri` has at least one `{...}` expression."""
    return bool(_EXPRESSION.search(uri))


def template_variables(template: str) -> list[str]:
    """The variable names of an RFC 6570 template in order, without repeats
    (`repo://{owner}/{name}{?ref,depth}` gives owner, name, ref, depth)."""
    names: list[str] = []
    for expression in _EXPRESSION.findall(template):
        body = expression[1:] if expression[:1] in _OPERATORS else expression
        for spec in body.split(","):
            name = spec.split(":", 1)[0].rstrip("*").strip()
            if name and name not in names:
                names.append(name)
    return names


def expand(template: str, values: dict[str, str]) -> str:
    """The URI `template` gives with `values` (RFC 6570; unset variables expand to nothing).

    Raises:
        UsageError: a name that is not one of the template's variables, or a template
            the library cannot expand.
    """
    known = template_variables(template)
    unknown = [name for name in values if name not in known]
    if unknown:
        from mrtr_cli.render.suggest import close_matches  # noqa: PLC0415 - only on an error path

        close = [c for name in unknown for c in close_matches(name, known, n=1)]
        hint = (f"did you mean {', '.join(close)}?" if close
                else f"its variables: {', '.join(known)}" if known else "it has no variables")
        raise UsageError(f"the template {template} has no variable {', '.join(unknown)}", hint=hint)
    from stduritemplate import StdUriTemplate  # noqa: PLC0415 - only when a template is filled

    try:
        return str(StdUriTemplate.expand(template, dict(values)))
    except Exception as exc:  # noqa: BLE001 - the library raises plain ValueError/RuntimeError
        raise UsageError(f"cannot expand the URI template {template}: {exc}") from None

