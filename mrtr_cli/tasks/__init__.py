"""Task drivers (tasks extension, SEP-2322 variant, 2025-11-25 tasks) and local task records."""
