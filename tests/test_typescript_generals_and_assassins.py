"""The TypeScript heuristic Generals & Assassins bot (sample_bots/typescript_generals_and_assassins).

It plays the game to the end at two and four seats against the Python sample bots without a verdict,
answering every kind of decision itself, and beats the random sample bot clearly enough that a
regression to random play fails. Like tests/test_typescript.py, these tests need Node.js and the
SDK's packages; without them they are skipped, except under CI, where they fail.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee.games.generals_and_assassins.types import (
    Assassinate,
    Assist,
    Attack,
    BuyLand,
    Decline,
    Defend,
    Discard,
    Heal,
    OfferLands,
    PlayAssassin,
    StartRound,
)
from referee.games.registry import GAMES
from tests.support import SAMPLE_BOTS
from tests.test_typescript import READY, bundled, own_actions, tournament

pytestmark = pytest.mark.skipif(
    not READY and not os.environ.get("CI"), reason="needs node and the SDK's packages (npm ci in sdk/typescript)"
)

GAME = "generals-and-assassins"
SAMPLE = SAMPLE_BOTS / "typescript_generals_and_assassins"
NAME = "ts-generals-and-assassins"


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bot bundled from the current sources, in a copy (parallel runs never share files)."""
    return bundled(SAMPLE, tmp_path_factory.mktemp("ts-ga") / NAME)


#: Tables at the game's smallest and largest size: None is the bot's seat, a name a Python sample bot's.
TABLES = {
    "2 seats": [None, "generals_and_assassins_heuristic"],
    "4 seats": [None, "generals_and_assassins_heuristic", "random", None],
}
#: Every kind of action it takes at match seed 2: each turn action, defences, blocks, the pause between rounds (at
#: two seats), and at four seats offers and assists too (two seats have none).
PLAYED = {Attack, Assassinate, BuyLand, Heal, Discard, Defend, PlayAssassin, Decline, StartRound}


def test_the_tables_are_the_games_smallest_and_largest() -> None:
    counts = GAMES[GAME].spec.player_counts
    assert sorted(len(t) for t in TABLES.values()) == [min(counts), max(counts)]


@pytest.mark.parametrize("table", list(TABLES.values()), ids=list(TABLES))
def test_the_bot_plays_generals_and_assassins_to_the_end(bot: Path, tmp_path: Path, table: list[str | None]) -> None:
    # It answered every decision itself: the referee played no default action for it.
    actions = own_actions(GAME, bot, table, tmp_path, seed=2)
    kinds = {type(a.action) for a in actions}
    if len(table) == 2:
        assert kinds == PLAYED, kinds
    else:  # the next round is started by its first player: at four seats, in seeds 1-14, never one of ts-ga's seats
        assert PLAYED - {StartRound} | {OfferLands, Assist} <= kinds <= PLAYED | {OfferLands, Assist}, kinds


def test_the_bot_beats_the_random_bot(bot: Path, tmp_path: Path) -> None:
    """6 duplicate pairs (12 games, tournament seed 2) against the random sample bot: at least 10 points of 12.

    Measured with 20 games at each tournament seed from 1 to 5: it won all 100, as the Python
    ga-heuristic did, where ts-random took 47 points (8 to 11 a seed). Here, at seed 2, it and
    ga-heuristic take 12 points and ts-random 4 (8 at seed 1, 3 to 6 at seeds 2-5). The seed fixes every
    deal and both bots' play, so the result is the same at each run.
    """
    args = ["tournament", GAME, str(bot), str(SAMPLE_BOTS / "random"), "--games", "12", "--seed", "2"]
    out = tournament(args, tmp_path)
    head_to_head = out["crosstable"][NAME]["random"]
    assert head_to_head["games"] == 12 and head_to_head["points"] >= 10, head_to_head
