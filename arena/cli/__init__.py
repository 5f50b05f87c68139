"""The arena command."""
