"""The games, one package each, and the registry that finds them by id."""
