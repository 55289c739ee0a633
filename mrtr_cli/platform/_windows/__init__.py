"""The Windows implementations of the platform facades (mrtr_cli/platform/), one module
per concern with the facade's name. Each imports on any system (msvcrt and ctypes'
Windows parts load inside its functions), so that tests/test_platform.py imports them
everywhere. Nothing outside mrtr_cli/platform/ imports these.
"""
