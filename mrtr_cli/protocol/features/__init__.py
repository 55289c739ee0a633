"""The protocol side of the commands beyond the MRTR requests, one server feature each:
round trips that check a server is there (`ping`), `completion/complete`
(`completions`), watching a server for changes (`listen`) and the skills extension
(`skills`).
"""
