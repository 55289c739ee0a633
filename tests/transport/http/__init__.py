"""Tests of mrtr_cli/transport/http/ (tests/README.md "Layout")."""
