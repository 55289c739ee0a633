"""Rendering: results (text or lossless JSON), errors, sanitising, traces and progress."""
