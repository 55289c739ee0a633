"""The MRTR engine: the input_required round-trip loop and pending documents."""

#: Cap on `input_required` rounds (`--max-rounds`).
DEFAULT_MAX_ROUNDS = 10
