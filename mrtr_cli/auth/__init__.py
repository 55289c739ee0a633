"""The MCP authorization profile as an OAuth 2.1 client (2026-07-28 basic/authorization):
discovery (`discovery`), client identity (`registration`), the authorization
code flow with PKCE through a loopback redirect (`flow`, `loopback`, `consent`), token
endpoint requests and the client credentials extension (`grants`), the token store
(`store`), and `manager.OAuthClient`, which the HTTP transport reaches through
`mrtr_cli.transport.http.authhook.Authorizer`.

Nothing here is imported on a call to a server that needs no token.
"""
