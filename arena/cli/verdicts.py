"""Why a seat drew verdicts, said as ``arena match`` and ``arena tournament`` say it: the first verdict in words, the
last line a crashed bot wrote and the path of its log."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from arena.cli.replay_text import printable
from referee.server.words import verdict_text


def verdict_line(verdict: dict[str, Any]) -> str:
    """``crash at decision 11: the bot's process exited with code 1``, of a verdict's JSON (``kind``, ``decision``, ``detail``).

    A MALFORMED verdict quotes the bot's note (ActionResponse.note): its control characters are written out."""
    return f"{verdict_text(verdict['kind'])} at decision {verdict['decision']}: {printable(str(verdict['detail']))}"


def verdicts_line(verdicts: list[dict[str, Any]]) -> str:
    """``illegal action at decision 2: card 99 may not be chosen now (and 14 more verdicts)``: the first of a seat's
    verdicts (their JSON) in words and how many followed, as `arena match` and a kit's test say them (a bot refused
    again and again drew the same verdict each time: listed, the one reason filled the line)."""
    more = len(verdicts) - 1
    return verdict_line(verdicts[0]) + (f" (and {more} more verdict{'s' * (more > 1)})" if more else "")


def verdict_cell(verdicts: list[dict[str, Any]]) -> str:
    """``illegal action@4 ×20, timeout@6, forfeit@6``: a seat's verdicts (their JSON) for a table's cell, a run of one
    kind at one decision counted once, so that a bot refused 20 times a decision is not a column of 80 lines."""
    runs: list[tuple[str, int]] = []
    for v in verdicts:
        said = f"{verdict_text(v['kind'])}@{v['decision']}"
        if runs and runs[-1][0] == said:
            runs[-1] = (said, runs[-1][1] + 1)
        else:
            runs.append((said, 1))
    return ", ".join(said if count == 1 else f"{said} ×{count}" for said, count in runs) or "-"


def last_words(log: Path) -> str | None:
    """The last line a crashed bot wrote (a Python traceback's ends with the exception; a Node stack's frames,
    "at ...", follow the error, so they are passed over): its exit code alone names no cause. Its control characters
    are written out: printed as they were, a bot's escape sequences retitled or cleared the terminal of whoever ran it."""
    try:
        with log.open("rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 4096))
            tail = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    lines = [line.strip() for line in tail.splitlines()]
    said = [line for line in lines if line and not line.startswith(("[referee]", "[log truncated", "at "))]
    return printable(said[-1][:300]) if said else None
