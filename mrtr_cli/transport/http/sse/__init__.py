"""Server-Sent Events in Streamable HTTP (2025-11-25 and 2026-07-28 `basic/transports`):
the event parser (`events`) and the streams read with it (`streams`: a POST's response
stream up to its final response, resuming a closed one with `Last-Event-ID`, the optional
GET stream).
"""
