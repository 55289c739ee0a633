"""`resume`: finish a call that stopped for input (exit 5) from its pending document. Spec:
Multi Round-Trip Requests (`requestState`)."""

from __future__ import annotations

import click

from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import answer_options, global_options, make_app, task_options
from mrtr_cli.errors import JsonRpcError, ProtocolError, UsageError, explained


@cli.command("resume", short_help="Finish a call that stopped for input (exit 5) from its pending document.")
@click.argument("pending")
@global_options
@answer_options
@task_options
@click.pass_context
def resume_cmd(ctx: click.Context, /, pending: str, **kw: object) -> int:
    """Finish a call that stopped for input (exit 5) from its PENDING document (`-`: stdin).

    \b
    The retry goes straight to the round that stopped (earlier rounds are not redone):
    same method and params, the answers, and the document's exact requestState.
    The target is the saved one unless --url/--stdio is given; headers are never
    saved, so give -H / --bearer-token-env again when the server needs them.
    Secret arguments the document left out (its "withheld") are taken from
    -a NAME=VALUE, an answer file's fields, or typed at the terminal.
    """
    from mrtr_cli.config.trust import apply_saved_target  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.credentials import secret_texts  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.engine.pending import forget_interrupted, start_again_command  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.engine.resume import Seed, is_rejected_state, load_pending  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.engine.secret_arguments import given_again, withheld_arguments  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.protocol.modern import MODERN_VERSIONS  # noqa: PLC0415 - lazy for start-up time

    app = make_app(ctx, kw, [("pending document", pending, "input")])
    doc = load_pending(pending, app.read_stdin() if pending == "-" else None, app.env.config_words)
    if isinstance(doc.get("taskId"), str):  # a task waiting for input: answer it and wait
        from mrtr_cli.cli.commands.tasks import resume_task  # noqa: PLC0415 - lazy for start-up time

        code = resume_task(app, doc)
        forget_interrupted(pending)  # finished: a document mrtr saved after Ctrl-C is spent
        return code
    store = app.answer_store()
    o = app.opts
    # The saved target (never with headers: -H on resume still applies).
    apply_saved_target(o, doc["target"],
                       source="the pending document" if pending == "-" else f"pending document {pending}")
    target = app.target()
    if o.protocol in (None, "", "auto") and doc.get("protocolVersion") in MODERN_VERSIONS:
        o.protocol = str(doc["protocolVersion"])  # requestState belongs to a modern server: no era probe
    seed = Seed.of_pending(doc, "the pending document" if pending == "-" else pending)
    app.prefill_forms(seed.typed)  # before the session builds the chain
    # The secret arguments the document left out: from -a, an answer file or the terminal.
    withheld = given_again(withheld_arguments(doc, pending), store,
                           (lambda name: app.ask_secret(f"{name} (secret argument of {doc['params'].get('name')})"))
                           if app.env.can_prompt() else None, doc)
    for item in withheld:  # a secret of the run before anything is sent or shown (a prompt's too)
        for text in secret_texts(item.value):
            app.env.add_secret(text)
    with app.session(target) as session:
        from mrtr_cli.engine.run import run_request  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.protocol.requests import request_params  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.schema.toolargs import tool_arguments  # noqa: PLC0415 - lazy for start-up time

        if doc.get("protocolVersion"):
            session.speak_version(str(doc["protocolVersion"]))
        # Checked as `call`, `prompt` and `read` check them: nothing invalid is sent.
        params = doc["params"]
        if doc["method"] == "resources/read":
            if not isinstance(params.get("uri"), str):
                raise UsageError(f"{pending}: params must give the resource's uri as text")
        elif not isinstance(params.get("name"), str) or not isinstance(params.get("arguments", {}), dict):
            raise UsageError(f"{pending}: params must give a name, and the arguments as an object")
        elif doc["method"] == "tools/call":
            arguments = tool_arguments(app.catalog(session), params["name"], withheld, params.get("arguments") or {},
                                       no_validate=o.no_validate, note=app.tracer.note, places=app.env.places,
                                       secret=app.env.add_secret)
            if withheld:
                params = {**params, "arguments": arguments}
        else:
            _, typed = request_params(app, session, "prompt", params["name"], withheld, params.get("arguments") or {})
            if withheld:
                params = {**params, "arguments": typed["arguments"]}
        try:
            code = run_request(app, str(doc["method"]), params, session=session, chain=app.chain(store),
                               target=target, seed=seed)
            forget_interrupted(pending)  # finished: a document mrtr saved after Ctrl-C is spent
            return code
        except JsonRpcError as err:
            if not is_rejected_state(err):
                raise
            raise explained(
                err, ProtocolError,
                "the server refused this pending call's requestState: it has expired, or the server was "
                "restarted without a shared key, so the call cannot be resumed and must be started again",
                hint="start it again: " + start_again_command(doc, app.env.config_words, hides=app.env.hides),
            ) from None
