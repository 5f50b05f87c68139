"""The arena command and the generated protocol stubs (arena.v1)."""
