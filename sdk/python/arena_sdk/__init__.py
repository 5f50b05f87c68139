"""Arena bot SDK for Python: subclass ``Bot``, implement ``act``, call ``run``."""

from arena_sdk.bot import Bot, Request
from arena_sdk.client import run
from arena_sdk.games import random_action

__all__ = ["Bot", "Request", "random_action", "run"]
