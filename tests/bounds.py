"""The time bounds of the test suite (imported by conftest, support and auth_support alike:
this module imports nothing of the tests, so any of them may be imported first)."""

#: Seconds a wait on an event may take before the test fails: a safety net, never the
#: thing under test (a loaded two-core machine must never reach it: at a load of 40 on two
#: cores a process gets a twentieth of a core, and one step of a test, a start-up and a
#: round trip, has taken half a minute). Every test is also bounded as a whole
#: (pytest-timeout, `timeout` in pyproject.toml).
SAFETY = 300.0
