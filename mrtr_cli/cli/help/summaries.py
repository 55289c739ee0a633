"""The help text of every command, in the order `mrtr --help` lists them: (help,
short help). Written by scripts/sync-help from the commands themselves; do not edit."""

SUMMARIES: dict[str, tuple[str | None, str | None]] = {
    'call': (
        "Call TOOL on the server (tools/call) with ARG items, answer the server's questions\n"
        '    (forms, URL consent, sampling, roots) from -a flags, answer files or the terminal, and\n'
        '    print the result (--json: exactly as the server sent it).',
        "Call TOOL, answering the server's questions, and print the result.",
    ),
    'prompt': (
        'Get prompt NAME (prompts/get) with key=value arguments (prompt arguments are strings),\n'
        "    answering the server's questions as `call` does, and print its messages; arguments are\n"
        '    checked against prompts/list first (unknown names, missing required ones).',
        'Get prompt NAME with key=value arguments and print its messages.',
    ),
    'read': (
        "Read resource URI (resources/read), answering the server's questions as `call` does, and\n"
        '    print its contents (a single binary resource to a pipe or file: its bytes). A URI template\n'
        "    with NAME=VALUE items is filled first, e.g. mrtr read 'repo://{owner}/{name}' owner=alice "
        'name=wonderland.',
        'Read resource URI (or a filled URI template) and print it.',
    ),
    'resume': (
        'Finish a call that stopped for input (exit 5) from its PENDING document (`-`: stdin).\n'
        '\n'
        '    \x08\n'
        '    The retry goes straight to the round that stopped (earlier rounds are not redone):\n'
        "    same method and params, the answers, and the document's exact requestState.\n"
        '    The target is the saved one unless --url/--stdio is given; headers are never\n'
        '    saved, so give -H / --bearer-token-env again when the server needs them.\n'
        '    Secret arguments the document left out (its "withheld") are taken from\n'
        "    -a NAME=VALUE, an answer file's fields, or typed at the terminal.\n"
        '    ',
        'Finish a call that stopped for input (exit 5) from its pending document.',
    ),
    'discover': (
        'Show the protocol era and version, server info and capabilities (server/discover,\n'
        '    or the initialize result of an older server; --json prints that result as sent).\n'
        '\n'
        '    --root, --sampling-command, --sampling-tools and --answers declare what a call with\n'
        '    them declares (a server may offer more to a client that declares more).',
        'Show the protocol era and version, server info and capabilities.',
    ),
    'tools': (
        "List the server's tools (all pages), or describe tool NAME.\n"
        '\n'
        '    Required parameters are marked *. Over HTTP, tools with an invalid x-mcp-header\n'
        '    annotation are left out (with a warning).\n'
        '    ',
        None,
    ),
    'prompts': (
        "List the server's prompts (prompts/list, all pages).",
        "List the server's prompts.",
    ),
    'resources': (
        "List the server's resources (resources/list, all pages).",
        "List the server's resources.",
    ),
    'templates': (
        "List the server's templates (resources/templates/list, all pages).",
        "List the server's resource templates.",
    ),
    'servers': (
        'List the servers in the config files of mrtr and of the MCP hosts (Claude Code,\n'
        '    Claude Desktop, Codex, Gemini CLI, VS Code, Cursor, Windsurf, OpenCode, Zed, goose):\n'
        '    where each comes from, which one -s NAME picks, the -s HOST:NAME that picks a shadowed\n'
        '    one, and why an entry cannot be used. Env and header values are never shown.',
        'List the configured servers: where each comes from, which -s NAME picks.',
    ),
    'skills': (
        "List the server's skills (skills/list, all pages): name, path, description.\n"
        '\n'
        '    Reads no skill file. --json prints every entry exactly as sent.\n'
        '    ',
        "List the server's skills: name, path, description.",
    ),
    'skill': (
        'Load one skill: print its SKILL.md once its size, digest and frontmatter match the\n'
        "    server's entry for it (skills/list, or skills/get for a URI the listing lacks).\n"
        '\n'
        "    SKILL may be the skill's name, its path (acme/billing/refunds) or its SKILL.md URI.\n"
        '    With --files DIR, every listed file is read and verified too, then DIR is created\n'
        '    with all of them; on any mismatch (exit 4) nothing is written. --json prints the\n'
        '    entry and the resources/read result as sent (with --files: the files written).\n'
        '    ',
        "Load one skill, its files verified against the server's entry.",
    ),
    'listen': (
        'Print each change notification as it arrives: list changes (--tools, --prompts,\n'
        '    --resources) and updates of the resources named with --resource URI.\n'
        '\n'
        '    \x08\n'
        '    One line per notification (--json: the notification as sent, one JSON line each).\n'
        '    Ends on Ctrl-C (exit 130), --timeout (exit 7) or --count N (exit 0), closing the\n'
        '    subscription first; or when the server ends it (exit 0).\n'
        '    ',
        'Print change notifications (lists, resources) as they arrive.',
    ),
    'ping': (
        'Check the server answers and print each round-trip time.\n'
        '\n'
        '    Sends `ping` to a 2025-11-25 (or older) server, and `server/discover` to a 2026-07-28\n'
        '    one (that revision has no ping). A reply that does not come within --timeout\n'
        '    (default 10 s, counted once the session is open; opening it may take 60 s) exits 7;\n'
        '    a reply that is not an empty result (or discover result) exits 4.\n'
        '    ',
        None,
    ),
    'task': (
        'Follow tasks: get, wait, update, cancel, list (the local records).',
        None,
    ),
    'batch': (
        'Run many calls from FILE.jsonl (`-`: stdin), one JSON object per line:\n'
        '\n'
        '    \x08\n'
        '      {"id": "a1", "call": "TOOL", "arguments": {...}, "answers": {...}}\n'
        '      {"id": "a2", "prompt": "NAME", "arguments": {...}, "answersFile": "answers.json"}\n'
        '      {"id": "a3", "read": "URI"}\n'
        '\n'
        '    \x08\n'
        '    Each line gets one record on stdout (or -o FILE), in input order:\n'
        '      {"id", "line", "exitCode", "result" | "error" | "pending"}\n'
        '    Nobody is asked anything (--no-input is implied): input with no answer gives\n'
        '    a pending record (exit 5). Exit 0 when every line succeeded, else the exit\n'
        '    code of the first failing line in input order; counts go to stderr.\n'
        '    ',
        'Run many calls from a JSON Lines file, one record each.',
    ),
    'shell': (
        'Run many commands over one session: the server is started (or reached) once, and\n'
        '    each line is a command as on the command line, without naming the server.\n'
        '\n'
        '    \x08\n'
        '    At a terminal: line editing, history (kept without secrets), Tab completion of\n'
        '    commands, options, tools, arguments and answers from the live server; forms are\n'
        '    answered in place; Ctrl-C cancels the running command; exit or Ctrl-D leaves.\n'
        '    From a script (stdin not a terminal): one command per line (# comments and blank\n'
        '    lines skipped), in order; results on stdout; nothing is asked (exit 5 leaves a\n'
        '    pending document); exit code of the first failing line (--fail-fast stops there).\n'
        '\n'
        '    \x08\n'
        '    Options given here apply to every line (--json, --timeout, --root ...); those that\n'
        '    name the server or set up the session (--url, --stdio, -s, -H, --protocol, --trace\n'
        '    ...) are given here only. Inside: help, help COMMAND, resume (the last pending call).\n'
        '    ',
        'Run many commands over one session, typed or from a script.',
    ),
    'completion': (
        'Print the completion script for SHELL.\n'
        '\n'
        '    \x08\n'
        '    bash:  eval "$(mrtr completion bash)"            (in ~/.bashrc)\n'
        '    zsh:   eval "$(mrtr completion zsh)"             (in ~/.zshrc, after compinit)\n'
        '    fish:  mkdir -p ~/.config/fish/completions\n'
        '           mrtr completion fish > ~/.config/fish/completions/mrtr.fish\n'
        '    ',
        None,
    ),
    'complete': (
        'Ask the server for the values of a prompt argument or a resource template variable\n'
        '    (completion/complete). The first ARG=VALUE is the one completed (VALUE: what is typed\n'
        '    so far, empty for nothing); further NAME=VALUE items are the values already chosen\n'
        '    (context.arguments). Prints one value per line; --json the result as sent.\n'
        '\n'
        '    \x08\n'
        '    Examples:\n'
        '      mrtr -s work complete prompt review language=py\n'
        "      mrtr -s work complete resource 'repo://{owner}/{name}' name= owner=alice\n"
        '    ',
        'Ask the server to complete a prompt argument or template variable.',
    ),
    'help': (
        "Show a help topic, or a command's help (`mrtr help` alone: every command and topic).",
        None,
    ),
    'auth': (
        'Sign in to OAuth-protected servers: login, status, logout, token.',
        None,
    ),
}
