"""The MRTR engine: the input_required round-trip loop and pending documents."""
