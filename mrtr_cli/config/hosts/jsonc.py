"""JSON with comments, as VS Code, Zed, Gemini CLI and OpenCode write their settings:
`//` and `/* */` comments and a comma before a closing `}` or `]` are allowed.
`strip_jsonc` turns such a text into JSON for the standard reader, keeping every line and
column where it was (comments and trailing commas become spaces), so its error positions
still point into the file.
"""

from __future__ import annotations

import re

#: The characters that may start something to change: a string, a comment, a comma.
_SPECIAL = re.compile(r'["/,]')
#: The rest of a string after its opening quote, up to and including the closing one.
_STRING_REST = re.compile(r'(?:[^"\\\n]|\\.)*"')
#: White space and comments, then the next character.
_GAP = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)


def strip_jsonc(text: str) -> str:
    """`text` (JSON with comments and trailing commas) as JSON of the same length, with the
    same line breaks. Text that is not valid stays invalid (the JSON reader says where).

    Each character is looked at a bounded number of times: linear in the text's length.
    """
    out: list[str] = []
    pos = 0
    while True:
        m = _SPECIAL.search(text, pos)
        if m is None:
            out.append(text[pos:])
            return "".join(out)
        start = m.start()
        out.append(text[pos:start])
        char = text[start]
        if char == '"':
            rest = _STRING_REST.match(text, start + 1)
            end = rest.end() if rest else start + 1  # an unterminated string: the reader says so
            out.append(text[start:end])
            pos = end
        elif char == ",":
            gap = _GAP.match(text, start + 1)
            after = gap.end() if gap else start + 1
            out.append(" " if text[after:after + 1] in ("}", "]") else ",")
            pos = start + 1
        elif text.startswith("//", start):
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            out.append(" " * (end - start))
            pos = end
        elif text.startswith("/*", start):
            end = text.find("*/", start + 2)
            end = len(text) if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[start:end]))
            pos = end
        else:
            out.append(char)
            pos = start + 1
