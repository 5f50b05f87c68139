"""Arena bot SDK for Python: subclass ``Bot``, implement ``act``, call ``run``."""

from arena_sdk.bot import Bot, Request
from arena_sdk.client import run
from arena_sdk.games import SAMPLERS, random_action
from arena_sdk.games.common import ids, subsets

__all__ = ["SAMPLERS", "Bot", "Request", "ids", "random_action", "run", "subsets"]
