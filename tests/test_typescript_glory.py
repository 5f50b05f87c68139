"""The TypeScript heuristic Glory bot (sample_bots/typescript_glory, ts-glory), end to end.

It plays Glory at the smallest and the largest table against the Python sample bots without a
verdict, answering every decision itself, and beats the random sample bot. Like tests/test_typescript.py,
these tests need Node.js and the SDK's packages, and are skipped without them except under CI.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee.games.glory.types import (
    Assassinate,
    Assist,
    AttackKing,
    BuyLand,
    ConquerLand,
    DeclineAssist,
    Defend,
    Discard,
    Heal,
    MakeOffers,
    MoreAssassins,
    StartRound,
    Thwart,
)
from tests.support import SAMPLE_BOTS
from tests.test_typescript import READY, bundled, own_actions, tournament

pytestmark = pytest.mark.skipif(
    not READY and not os.environ.get("CI"), reason="needs node and the SDK's packages (npm ci in sdk/typescript)"
)

GLORY = SAMPLE_BOTS / "typescript_glory"

#: Glory tables for ts-glory, two and six seats (the game's smallest and largest): None is its seat,
#: a name is a Python sample bot's.
TABLES = {
    "2 seats": ["glory_heuristic", None],
    "6 seats": [None, "random", "glory_heuristic", None, "random", "glory_heuristic"],
}


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ts-glory bundled from the current sources, in a copy (so parallel runs never share files)."""
    return bundled(GLORY, tmp_path_factory.mktemp("ts-bots") / "ts-glory")


@pytest.mark.parametrize("table", list(TABLES.values()), ids=list(TABLES))
def test_the_glory_bot_plays_to_the_end(bot: Path, tmp_path: Path, table: list[str | None]) -> None:
    # It answered every decision itself, the referee playing none for it (a timeout or a rejected
    # action would be played for it as the passive default).
    # Seed 3 at two seats and 4 at six bring up every kind of decision between the two tables: at two seats no offers
    # or assistance (G-15), at six no new round started by ts-glory. (Six seats played seed 3 until the random bot's
    # sampler made bare appeals too, then 5 until the bots' seeds stopped being the match seed × 1000 + the seat.)
    actions = own_actions("glory", bot, table, tmp_path, seed=3 if len(table) == 2 else 4)
    kinds = {type(a.action) for a in actions}
    expected = {BuyLand, ConquerLand, AttackKing, Assassinate, Heal, Defend, Thwart}
    expected |= {StartRound} if len(table) == 2 else {Discard, MakeOffers, Assist, DeclineAssist, MoreAssassins}
    assert expected <= kinds, kinds


def test_the_glory_bot_beats_the_random_bot(bot: Path, tmp_path: Path) -> None:
    """10 duplicate pairs (20 games, tournament seed 1) against the random sample bot: at least 17 points of 20.

    Measured with 20 games at each tournament seed from 1 to 10: ts-glory took all 20 points every
    time (as the Python glory-heuristic does), ts-random 8 to 13 (106 of 200, 53%; 11 at seed 1). With
    40 games at seeds 1 to 10, ts-glory and glory-heuristic took 400 of 400 points and 89% of the
    Glory Points, ts-random 202 of 400 and 50%. The seed fixes every deal and both bots' play, so
    the result is the same at each run.
    """
    args = ["tournament", "glory", str(bot), str(SAMPLE_BOTS / "random"), "--games", "20", "--seed", "1"]
    out = tournament(args, tmp_path)
    head_to_head = out["crosstable"]["ts-glory"]["random"]
    assert head_to_head["games"] == 20 and head_to_head["points"] >= 17, head_to_head
