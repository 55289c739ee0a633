"""`mrtr shell`: one session for many commands, typed at a terminal or read from a script.

Each line is a command of the command line, run by the same command definitions
(`cli/`, handed in as a `run_line` callable: this package never imports click) over
the shell's one session: the server started once, the era decided once, the lists
fetched once and refreshed when the server says they changed. One module per job:

- `words.py`: a line split into words, and the words the shell answers itself;
- `host.py`: the shell's session (opened, restarted after a death), the run of each line
  (`lineapp.py`), its list cache (`listings.py`) and change watching (`watch.py`);
- `loop.py`: reading lines in order and running them, the exit code;
- `script.py` and `terminal.py`: where lines come from (a script, or a person at a
  terminal: line editing, history, completion; the only module here importing
  prompt_toolkit); `completion.py`, `history.py`, `prompt.py`: what those show and keep.

docs/shell.md describes it.
"""
