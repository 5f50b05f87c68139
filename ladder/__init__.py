"""The ladder (see issue 6)."""
