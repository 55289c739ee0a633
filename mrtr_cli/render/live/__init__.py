"""What is shown on stderr while a request runs, never on stdout: `notifications/progress`
(`progress`), the one-line live status of anything that waits (`status`), the server's
`notifications/message` logs (`logs`), and diagnostics that can repeat without end, kept
within bounds (`repeats`).
"""
