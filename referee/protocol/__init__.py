"""Turning a game's Python objects into protocol messages and back."""
