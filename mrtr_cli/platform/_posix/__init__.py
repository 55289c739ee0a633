"""The Linux and macOS implementations of the platform facades (mrtr_cli/platform/), one
module per concern with the facade's name; each facade imports its module here or in
`_windows` once, at import. Nothing outside mrtr_cli/platform/ imports these.
"""
