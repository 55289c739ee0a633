"""The Streamable HTTP transport (2026-07-28 basic/transports/streamable-http):
`HttpTransport` (`transport`); a reply read within bounds and its errors (`reply`), 429
retries (`retry`), SSE streams (`sse/`: `streams`, parsed by `events`), redirects (`redirects`) under
the one rule on where a URL may go (`urlrule`) and the address check at connect time
(`guard`), the one place a client is made (`env`; CA certificates: `tls`; proxies:
`proxy`), values echoed back to the server (`echoed`), and the door to OAuth (`authhook`,
which reads the token store's files with `tokenfile`).
"""
