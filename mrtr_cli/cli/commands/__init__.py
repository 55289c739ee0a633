"""The commands, one module per command family, each registering its commands on the
`mrtr` group (cli/main.py) when imported: `main.COMMAND_MODULES` names the module of
each command, imported only when that command runs (start-up time). This `__init__`
imports none of them.
"""
