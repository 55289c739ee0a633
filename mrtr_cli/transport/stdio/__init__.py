"""The stdio transport and the child processes it rests on: `StdioTransport`
(`transport`), launching a server (`launch`) and launching it before the session opens
(`early`), reading its pipes into bounded lines (`pipes`), what it says on stderr
(`stderr`), ending its process tree by stages (`procgroup`), and running a command whose
output mrtr reads within bounds (`boundedrun`).
"""
