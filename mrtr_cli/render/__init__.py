"""Rendering: results (text or lossless JSON), errors, sanitising, traces and progress; URLs as a
browser reads them (weburl)."""
