"""Shared helpers for the tests: sample bots by path, random play, card ids in messages."""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from referee.core.game import Event, Game
from referee.games.registry import GAMES

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_BOTS = ROOT / "sample_bots"

#: (game id, player count) for every game and every count it allows.
CONFIGS = [(gid, n) for gid, cls in GAMES.items() for n in cls.spec.player_counts]


def load_bot_class(bot_dir: str, class_name: str) -> Any:
    """A bot class from a sample bot's bot.py (bot directories are not packages)."""
    path = SAMPLE_BOTS / bot_dir / "bot.py"
    spec = importlib.util.spec_from_file_location(f"sample_bot_{bot_dir}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, class_name)


def random_playout(game: Game[Any], rng: random.Random, max_steps: int = 200_000) -> Iterator[tuple[int, Any, list[Event]]]:
    """Play random legal actions to the end, yielding (seat, action, events) for each step."""
    for _ in range(max_steps):
        acting = game.to_act()
        if not acting:
            return
        seat = rng.choice(acting)
        action = game.random_action(seat, rng)
        yield seat, action, game.apply(seat, action)
    raise AssertionError(f"{game.spec.id} did not end within {max_steps} steps")


def card_ids_in(msg: Message) -> Iterator[int]:
    """Every card a message names: each arena.v1.Card, and every field called card_id(s) or ending so."""
    for fd, value in msg.ListFields():
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            assert fd.message_type is not None
            if fd.message_type.GetOptions().map_entry:
                value = list(value.values())
                if not value or not isinstance(value[0], Message):
                    continue
            items = value if fd.is_repeated else [value]
            if fd.message_type.full_name == "arena.v1.Card":
                yield from (int(c.id) for c in items)
            else:
                for item in items:
                    yield from card_ids_in(item)
        elif fd.name.endswith("card_id") or fd.name.endswith("card_ids"):
            yield from (int(v) for v in (value if fd.is_repeated else [value]))
