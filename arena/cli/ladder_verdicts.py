"""The verdicts of a listed match (``arena ladder matches``, ``--follow``), said in words and each once per bot."""

from __future__ import annotations

from collections import Counter
from typing import Any

from referee.server.words import verdict_text


def said_verdicts(match: dict[str, Any]) -> str:
    """``bot: kind`` for each distinct verdict of each seat, with how many times it came: a bot that sent illegal
    actions until its SDK gave up was listed "b: illegal action, b: illegal action, ..." once for each."""
    counted = Counter((s["bot"], verdict_text(v["kind"])) for s in match["seats"] for v in s["verdicts"])
    return ", ".join(f"{bot}: {kind}" + (f" ({n} times)" if n > 1 else "") for (bot, kind), n in counted.items())
