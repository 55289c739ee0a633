"""The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): listing skills and
loading one with every file verified.

Spec: SEP-2640 / the extension's stable page ("Skill Entries", "Listing Skills",
"Getting a Skill", "Integrity and Verification", "Limits").

- `skills/list` (paginated) returns `Skill` entries: `{uri, frontmatter, resources}` where
  `uri` is the skill's `SKILL.md`, `frontmatter` its YAML frontmatter as JSON, and
  `resources` either every file as `{uri, digest: "sha256:<hex>", size}` or `"dynamic"`.
- Files are read with `resources/read`, lazily: `SKILL.md` when the skill is loaded,
  supporting files only when asked for (never on listing).
- Each file read is checked against its entry's `size` (bytes) and `digest` before it
  is used; the `SKILL.md` frontmatter is compared field by field with the entry's. Any
  mismatch is a `VerificationFailed` (exit 4) and the content is not used.
"""

from __future__ import annotations

import base64
import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.errors import ProtocolError, UsageError
from mrtr_cli.jsonfile import a_json_type
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.session import Session
from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, one_line, quote_text, quote_value, sanitize

EXTENSION = "io.modelcontextprotocol/skills"
MANIFEST = "SKILL.md"
DYNAMIC = "dynamic"
MAX_RESOURCES = 512  # "Limits": entries per skill, SKILL.md included
MAX_TOTAL_SIZE = 16 * 1024 * 1024  # bytes, summed over a skill's resources
#: Unicode categories refused in a skill file's path: controls (C0, DEL, C1 such as
#: U+009B), format characters (bidi overrides such as U+202E, zero-width ones), line and
#: paragraph separators, and lone surrogates (no UTF-8 form: no file can be named so).
#: A server chooses these names; a file name holding them lies.
UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


class VerificationFailed(ProtocolError):
    """A skill file or entry failed verification (size, digest, frontmatter, an unlisted
    or out-of-skill file, limits): its content was not used (exit 4)."""


def declares_skills(capabilities: object) -> bool:
    """Whether server `capabilities` declare the skills extension (`extensions` member)."""
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    return isinstance(extensions, dict) and EXTENSION in extensions


def skill_path(uri: object) -> str:
    """The `<skill-path>` of a `SKILL.md` URI (`skill://acme/refunds/SKILL.md` -> `acme/refunds`);
    for other schemes the part after `://`. Empty for a URI that does not end in `/SKILL.md`."""
    if not isinstance(uri, str) or not uri.endswith("/" + MANIFEST):
        return ""
    rest = uri[: -len(MANIFEST) - 1]
    return rest.split("://", 1)[1] if "://" in rest else rest


def skill_root(uri: str) -> str:
    """The skill's root directory URI: its `SKILL.md` URI without `/SKILL.md`."""
    return uri[: -len(MANIFEST) - 1] if uri.endswith("/" + MANIFEST) else uri.rsplit("/", 1)[0]


def skill_name(entry: dict[str, Any]) -> str:
    """The skill's name: `frontmatter.name`, else the final segment of its path."""
    fm = raw_fm if isinstance(raw_fm := entry.get("frontmatter"), dict) else {}
    name = fm.get("name")
    return name if isinstance(name, str) and name else skill_path(entry.get("uri")).rsplit("/", 1)[-1]


def list_skills(session: Session, deadline: Deadline | None = None) -> tuple[list[Any], list[dict[str, Any]]]:
    """Every `skills/list` page: (entries, pages as sent).

    Raises: as `protocol.lists.listing.list_all` (ProtocolError for a page without `skills`).
    """
    from mrtr_cli.protocol.lists.listing import list_all  # noqa: PLC0415 - lazy for start-up time

    return list_all(session, "skills/list", deadline=deadline)


def find_skill(entries: list[Any], wanted: str) -> dict[str, Any] | None:
    """The entry `wanted` names: its `SKILL.md` URI, its skill path, or its name.

    Raises:
        UsageError: the name is shared by several skills (names are labels, not ids);
            the message lists their paths to choose from.
    """
    valid = [e for e in entries if isinstance(e, dict) and isinstance(e.get("uri"), str)]
    for by in (lambda e: e["uri"], lambda e: skill_path(e["uri"])):
        hit = next((e for e in valid if by(e) == wanted), None)
        if hit is not None:
            return hit
    named = [e for e in valid if skill_name(e) == wanted]
    if len(named) > 1:
        paths = ", ".join(one_line(skill_path(e["uri"]) or e["uri"], SERVER_TEXT_CHARS) for e in named[:5])
        paths += f" and {len(named) - 5} more" if len(named) > 5 else ""
        raise UsageError(f"several skills are named {quote_text(wanted)}: {paths}",
                         hint="name the one you mean by its path or its SKILL.md URI")
    return named[0] if named else None


def get_skill(session: Session, uri: str, deadline: Deadline | None = None) -> dict[str, Any]:
    """`skills/get {uri}` (a skill not in the listing): the `skill` entry as sent.

    Raises:
        JsonRpcError: the server does not serve it (`-32602`), or another error.
        ProtocolError: the result has no `skill` object.
    """
    result = session.request("skills/get", {"uri": uri}, deadline=deadline)
    skill = result.get("skill")
    if not isinstance(skill, dict):
        raise ProtocolError("the server's skills/get result has no 'skill' object")
    return skill


@dataclass
class SkillFile:
    """One verified file: its URI, its path relative to the skill root, its bytes, and the
    `resources/read` result it came in (as sent)."""

    uri: str
    path: str
    data: bytes
    result: dict[str, Any]
    entry: dict[str, Any] | None = None


@dataclass
class SkillLoader:
    """Loads one skill from its entry, verifying everything it reads.

    Args:
        session: the open session.
        entry: the `Skill` entry (from `skills/list` or `skills/get`), as sent.
        deadline: bound for each read.

    Attributes:
        dynamic: the entry's `resources` is `"dynamic"`: nothing can be verified by digest.
        files: the listed supporting files (every resource but `SKILL.md`), in listed order.
    """

    session: Session
    entry: dict[str, Any]
    deadline: Deadline | None = None
    dynamic: bool = False
    files: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        uri = self.entry.get("uri")
        if not isinstance(uri, str) or not uri.endswith("/" + MANIFEST):
            raise VerificationFailed(f"the skill entry's uri {quote_value(uri)} "
                                     f"is not the URI of a {MANIFEST}")
        self.uri: str = uri
        if not isinstance(self.entry.get("frontmatter"), dict):
            raise VerificationFailed(f"the skill entry for {self._shown(self.uri)} has no frontmatter object")
        resources = self.entry.get("resources")
        if resources == DYNAMIC:
            self.dynamic = True
            return
        if not isinstance(resources, list) or not all(isinstance(r, dict) for r in resources):
            raise VerificationFailed(f"the skill entry for {self._shown(self.uri)} has no valid resources "
                                     "(neither a list of files nor \"dynamic\"), so it must not be loaded")
        self._check_limits(resources)
        root = skill_root(self.uri) + "/"
        seen: set[str] = set()
        for res in resources:
            uri = res.get("uri")
            if not isinstance(uri, str) or (uri != self.uri and not uri.startswith(root)):
                raise VerificationFailed(f"the skill entry for {self._shown(self.uri)} lists "
                                         f"{self._shown(uri)}, which is not a file of the skill")
            if uri in seen:
                raise VerificationFailed(f"the skill entry for {self._shown(self.uri)} lists {self._shown(uri)} twice")
            seen.add(uri)
            if uri != self.uri:
                self.relative(uri)  # an unsafe path refuses the entry before anything is read
                self.files.append(res)
        if self.uri not in seen:
            raise VerificationFailed(f"the skill entry for {self._shown(self.uri)} does not list its own {MANIFEST}")
        self._check_tree()

    def _check_tree(self) -> None:
        """Refuse an entry whose files cannot all exist: one listed path that is also a
        directory of another (`a` and `a/b`), checked before anything is read or written."""
        paths = {MANIFEST: self.uri, **{self.relative(r["uri"]): r["uri"] for r in self.files}}
        for rel in paths:
            parts = rel.split("/")
            for i in range(1, len(parts)):
                prefix = "/".join(parts[:i])
                if prefix in paths:
                    raise VerificationFailed(
                        f"the skill entry for {self._shown(self.uri)} lists {self._shown(paths[prefix])} as a file "
                        f"and {self._shown(paths[rel])} inside it as if it were a directory; the skill is not loaded")

    @staticmethod
    def _shown(uri: object) -> str:
        return one_line(uri, SERVER_TEXT_CHARS)

    def _check_limits(self, resources: list[dict[str, Any]]) -> None:
        if len(resources) > MAX_RESOURCES:
            raise VerificationFailed(f"the skill {self._shown(self.uri)} lists {len(resources)} files, more than "
                                     f"the extension's limit of {MAX_RESOURCES}; it is not loaded")
        total = sum(size for r in resources if isinstance(size := r.get("size"), int))
        if total > MAX_TOTAL_SIZE:
            raise VerificationFailed(f"the skill {self._shown(self.uri)} totals {total} bytes, more than the "
                                     f"extension's limit of {MAX_TOTAL_SIZE}; it is not loaded")

    def relative(self, uri: str) -> str:
        """`uri`'s path below the skill root (`references/FORMS.md`).

        Raises:
            VerificationFailed: a path that could leave a directory (`..`, empty or absolute
                parts, a backslash) or holds a character of `UNSAFE_CATEGORIES` (controls
                C0 and C1, bidi and other format characters, line/paragraph separators).
        """
        rel = uri[len(skill_root(self.uri)) + 1:]
        parts = rel.split("/")
        if not rel or any(p in ("", ".", "..") or "\\" in p for p in parts):
            raise VerificationFailed(f"the skill file {self._shown(uri)} has an unsafe path")
        bad = next((c for c in rel if unicodedata.category(c) in UNSAFE_CATEGORIES), None)
        if bad is not None:
            raise VerificationFailed(f"the skill file {self._shown(uri)} has an unsafe path: it holds "
                                     f"U+{ord(bad):04X} ({unicodedata.category(bad)}: a control, format, "
                                     "separator or lone surrogate character), which a file name must not")
        return rel

    def read_manifest(self) -> SkillFile:
        """Read `SKILL.md`, verify its size and digest (unless dynamic) and its frontmatter
        against the entry's.

        Raises:
            VerificationFailed: any mismatch (nothing of it is returned).
            JsonRpcError / ProtocolError / TransportError: from the read.
        """
        listed = None if self.dynamic else next(r for r in self.entry["resources"] if r.get("uri") == self.uri)
        manifest = self._read(self.uri, listed)
        try:
            frontmatter = parse_frontmatter(manifest.data.decode("utf-8", "replace"))
        except ValueError as exc:
            raise VerificationFailed(f"{self._shown(self.uri)}: {exc}; the skill is not loaded") from None
        if frontmatter is None:
            raise VerificationFailed(f"{self._shown(self.uri)} does not begin with YAML frontmatter; "
                                     "the skill is not loaded")
        differences = compare_frontmatter(frontmatter, self.entry["frontmatter"])
        if differences:
            raise VerificationFailed(f"the frontmatter of {self._shown(self.uri)} differs from its skill entry "
                                     f"({', '.join(differences)}); the skill is not loaded")
        return manifest

    def read_file(self, listed: dict[str, Any]) -> SkillFile:
        """Read one listed supporting file and verify its size and digest.

        Raises: as `read_manifest`.
        """
        return self._read(str(listed["uri"]), listed)

    def _read(self, uri: str, listed: dict[str, Any] | None) -> SkillFile:
        path = MANIFEST if uri == self.uri else self.relative(uri)
        result = self.session.request("resources/read", {"uri": uri}, deadline=self.deadline)
        data = content_bytes(result, uri)
        if listed is not None:
            verify(uri, data, listed)
        return SkillFile(uri=uri, path=path, data=data, result=result, entry=listed)


def content_bytes(result: dict[str, Any], uri: str) -> bytes:
    """The raw bytes of a `resources/read` result for `uri`: its `text` as UTF-8, or its
    `blob` base64-decoded.

    Raises:
        VerificationFailed: no content for `uri`, or a blob that is not base64.
    """
    contents = result.get("contents")
    items = [c for c in contents if isinstance(c, dict)] if isinstance(contents, list) else []
    item = next((c for c in items if c.get("uri") == uri), items[0] if len(items) == 1 else None)
    shown = one_line(uri, SERVER_TEXT_CHARS)
    if item is None:
        raise VerificationFailed(f"the server's resources/read result has no content for {shown}")
    if isinstance(text := item.get("text"), str):
        return text.encode("utf-8")
    if isinstance(item.get("blob"), str):
        try:
            return base64.b64decode(item["blob"], validate=True)
        except ValueError:
            raise VerificationFailed(f"the content of {shown} is a blob that is not base64") from None
    raise VerificationFailed(f"the content of {shown} has neither text nor blob")


def verify(uri: str, data: bytes, listed: dict[str, Any]) -> None:
    """Check `data` against its `SkillResource` (`size` in bytes first, then `digest`).

    Raises:
        VerificationFailed: a size or digest mismatch, or an entry without a valid size/digest.
    """
    shown = one_line(uri, SERVER_TEXT_CHARS)
    size, digest = listed.get("size"), listed.get("digest")
    if not isinstance(size, int) or isinstance(size, bool) or not isinstance(digest, str) or not _DIGEST.match(digest):
        raise VerificationFailed(f"the skill entry for {shown} has no valid size and sha256 digest")
    if len(data) != size:
        raise VerificationFailed(f"{shown} is {len(data)} bytes but its skill entry says {size}: "
                                 "verification failed, the content is not used")
    actual = "sha256:" + hashlib.sha256(data).hexdigest()
    if actual != digest:
        raise VerificationFailed(f"{shown} does not match the digest in its skill entry "
                                 f"({sanitize(digest, single_line=True)}, got {actual}): "
                                 "verification failed, the content is not used")


def parse_frontmatter(text: str) -> dict[str, Any] | None:
    """The YAML frontmatter at the start of a `SKILL.md` (between `---` lines) as JSON
    values, or None when the file does not begin with one.

    Raises:
        ValueError: the frontmatter is there but is not valid YAML, not a mapping, or
            over a bound of `mrtr_cli.yamlbounds` (size, nodes with aliases expanded,
            nesting): the message says which, and the bound.
    """
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return None
    from mrtr_cli.yamlbounds import load_bounded_yaml  # noqa: PLC0415 - lazy for start-up time

    try:
        value = load_bounded_yaml("\n".join(lines[1:end]))
    except ValueError as exc:
        raise ValueError(f"its frontmatter {exc}") from None
    if not isinstance(value, dict):
        raise ValueError(f"its frontmatter is YAML but not a mapping of fields ({a_json_type(value)})")
    return value


def compare_frontmatter(file: dict[str, Any], entry: dict[str, Any]) -> list[str]:
    """The field names whose values differ between a file's frontmatter and its entry's."""
    return [one_line(k) for k in sorted(set(file) | set(entry), key=str)
            if file.get(k) != entry.get(k)]
