"""The skills extension (SEP-2640): `skills` lists a server's skills, `skill NAME` loads one.

`skill` reads the skill's `SKILL.md` and verifies it (size, sha256 digest, frontmatter
against the listed entry) before printing anything; `--files DIR` also reads every
supporting file the entry lists, verifies each, and only then moves them all into DIR.
Nothing is read before it is asked for: listing reads no file. A failed verification
is exit 4 and leaves nothing behind.
"""

from __future__ import annotations

from typing import Any

import click

from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import global_options, make_app
from mrtr_cli.errors import ProtocolError, UsageError


def _require_extension(session: Any, app: Any) -> None:
    """Raise ProtocolError unless the server declares the skills extension (clients send
    `skills/list` only after seeing the declaration)."""
    from mrtr_cli.protocol.features.skills import EXTENSION, declares_skills  # noqa: PLC0415 - lazy for start-up time

    result = session.describe(app.deadline())["result"] or {}
    if not declares_skills(result.get("capabilities")):
        raise ProtocolError(f"the server does not declare the skills extension ({EXTENSION})",
                            hint="`mrtr discover` shows what it declares")


@cli.command("skills", short_help="List the server's skills: name, path, description.")
@global_options
@click.pass_context
def skills_cmd(ctx: click.Context, /, **kw: object) -> int:
    """List the server's skills (skills/list, all pages): name, path, description.

    Reads no skill file. --json prints every entry exactly as sent.
    """
    from mrtr_cli.protocol.features.skills import list_skills, skill_name, skill_path  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.listing import one_line, print_table  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.output import print_json  # noqa: PLC0415 - lazy for start-up time

    app = make_app(ctx, kw)
    with app.session() as session:
        _require_extension(session, app)
        entries, _ = list_skills(session, app.deadline())
    if app.opts.json_mode:
        print_json(app.env, entries)
        return 0
    if not entries:
        app.env.err("mrtr: the server lists no skills (a skill it does not list can still be loaded by URI)")
        return 0
    rows = []
    for entry in entries:
        entry = entry if isinstance(entry, dict) else {}
        fm = raw_fm if isinstance(raw_fm := entry.get("frontmatter"), dict) else {}
        rows.append([one_line(skill_name(entry)), one_line(skill_path(entry.get("uri")) or entry.get("uri")),
                     one_line(fm.get("description"))])
    print_table(app.env, ["NAME", "PATH", "DESCRIPTION"], rows)
    return 0


@cli.command("skill", short_help="Load one skill, its files verified against the server's entry.")
@click.argument("skill")
@click.option("--files", "files_dir", metavar="DIR",
              help="Also fetch every file the skill lists, verified, into the new directory DIR.")
@global_options
@click.pass_context
def skill_cmd(ctx: click.Context, /, skill: str, files_dir: str | None, **kw: object) -> int:
    """Load one skill: print its SKILL.md once its size, digest and frontmatter match the
    server's entry for it (skills/list, or skills/get for a URI the listing lacks).

    SKILL may be the skill's name, its path (acme/billing/refunds) or its SKILL.md URI.
    With --files DIR, every listed file is read and verified too, then DIR is created
    with all of them; on any mismatch (exit 4) nothing is written. --json prints the
    entry and the resources/read result as sent (with --files: the files written).
    """
    from mrtr_cli.protocol.features.skills import SkillLoader, find_skill, get_skill, list_skills  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.output import print_json  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - lazy for start-up time

    app = make_app(ctx, kw)
    destination = None
    if files_dir is not None:
        from mrtr_cli.render.skill_files import check_destination  # noqa: PLC0415 - lazy for start-up time

        destination = check_destination(files_dir)
    with app.session() as session:
        _require_extension(session, app)
        entries, _ = list_skills(session, app.deadline())
        entry = find_skill(entries, skill)
        if entry is None:
            if "://" not in skill:
                raise _unknown(skill, entries)
            entry = get_skill(session, skill, app.deadline())
        loader = SkillLoader(session, entry, app.deadline())
        if loader.dynamic:
            app.env.err("mrtr: warning: this skill's resources are \"dynamic\": the server publishes no "
                        "digests, so its content cannot be verified")
        manifest = loader.read_manifest()
        files = [manifest]
        if destination is not None:
            files.extend(loader.read_file(listed) for listed in loader.files)
    if destination is None:
        if app.opts.json_mode:
            print_json(app.env, {"skill": entry, "read": manifest.result})
        else:
            text = manifest.data.decode("utf-8", "replace")
            app.env.out(sanitize(text) if app.env.stdout_isatty else text)
        return 0
    from mrtr_cli.render.skill_files import StagedSkill  # noqa: PLC0415 - lazy for start-up time

    with StagedSkill(destination) as staged:
        for f in files:
            staged.add(f.path, f.data)
        written = staged.commit()
    if app.opts.json_mode:
        print_json(app.env, {"skill": entry, "directory": str(destination),
                             "files": [{"uri": f.uri, "path": f.path, "size": len(f.data),
                                        "digest": (f.entry or {}).get("digest")} for f in files]})
    else:
        for path in written:
            app.env.out(sanitize(path, single_line=True))
    return 0


def _unknown(wanted: str, entries: list[Any]) -> Exception:
    from mrtr_cli.protocol.features.skills import skill_name, skill_path  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.suggest import close_matches  # noqa: PLC0415 - lazy for start-up time

    listed = [e for e in entries if isinstance(e, dict)]
    paths = list(dict.fromkeys(skill_path(e.get("uri")) or str(e.get("uri")) for e in listed))
    by_name: dict[str, list[str]] = {}
    for e in listed:  # names are not unique: a close name stands for the paths that carry it
        by_name.setdefault(skill_name(e), []).append(skill_path(e.get("uri")) or str(e.get("uri")))
    close = list(dict.fromkeys(p for match in close_matches(wanted, [*by_name, *paths], n=3)
                               for p in by_name.get(match, [match])))
    hint = (f"did you mean: {', '.join(close)}?" if close
            else f"the server's skills: {', '.join(paths[:20])}" if paths
            else "the server lists no skills; a skill it does not list can be loaded by its SKILL.md URI")
    return UsageError(f"unknown skill {sanitize(wanted, single_line=True)!r}", hint=sanitize(hint, single_line=True))
