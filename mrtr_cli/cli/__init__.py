"""Command-line interface (click): parse options, call the app, map errors to exit codes."""
