"""`mrtr batch`: many calls from a JSON-lines file over one session.

- `lines.py`: the input format (one call, prompt or read per line, with its own
  arguments and answers), checked line by line;
- `records.py`: the output records, their order, `--resume` and the summary;
- `manylines.py`: the `App` of many lines over one session (the shell's too);
- `runner.py`: runs the lines with `-j N` workers over one session (one HTTP
  connection pool or one stdio server process), each line through the same path
  as `mrtr call`/`prompt`/`read` (`protocol.requests.request_params`, `engine.run.drive`).
"""
