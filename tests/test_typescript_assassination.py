"""The TypeScript heuristic Assassination Game bot (sample_bots/typescript_assassination, ts-assassination).

It plays whole games at four seats against the Python sample bots without a verdict, answering
every decision itself in more than one secret role, and beats three random bots clearly in a
tournament. Like tests/test_typescript.py, these tests need Node.js and the SDK's packages and are
skipped without them, except under CI.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee.games.assassination.enums import Identity
from referee.games.assassination.types import PlayEvent, PlayMovement, RoundEnded, TakeAction
from referee.server.runner import LocalMatch
from tests.support import SAMPLE_BOTS
from tests.test_typescript import OPPONENTS, READY, assert_clean, bundled, play_match, tournament

pytestmark = pytest.mark.skipif(
    not READY and not os.environ.get("CI"), reason="needs node and the SDK's packages (npm ci in sdk/typescript)"
)

BOT = SAMPLE_BOTS / "typescript_assassination"
#: (match seed, ts-assassination's seat): the Python opponents of OPPONENTS fill the other seats in order.
#: Between them the bot holds all four identities (the points leader is always the agent, so one match may not).
MATCHES = [(4, 3), (3, 2)]


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ts-assassination bundled from the current sources, in a copy (parallel runs never share files)."""
    return bundled(BOT, tmp_path_factory.mktemp("ts-bots") / "ts-assassination")


@pytest.fixture(scope="module")
def played(bot: Path, tmp_path_factory: pytest.TempPathFactory) -> list[tuple[int, LocalMatch]]:
    """The matches of MATCHES, each with the bot's seat."""
    out = []
    for seed, seat in MATCHES:
        seats = [SAMPLE_BOTS / name for name in OPPONENTS["assassination"]]
        seats.insert(seat, bot)
        out.append((seat, play_match("assassination", seats, tmp_path_factory.mktemp(f"match-{seed}"), seed=seed)))
    return out


def test_the_assassination_bot_plays_to_the_end(played: list[tuple[int, LocalMatch]]) -> None:
    for seat, match in played:
        assert_clean(match, [seat])  # no illegal action, malformed message, crash or timeout
        # It answered every decision itself, the referee playing none for it, and revealed itself to act.
        actions = [a for a in match.record.actions if a.seat == seat]
        assert not any(a.auto for a in actions)
        assert {PlayMovement, PlayEvent, TakeAction} <= {type(a.action) for a in actions}


def test_the_assassination_bot_plays_more_than_one_role(played: list[tuple[int, LocalMatch]]) -> None:
    """Identities are dealt afresh each round: over these matches the bot plays every one of them."""
    roles = {
        e.payload.identities[seat]
        for seat, match in played
        for e in match.record.events
        if isinstance(e.payload, RoundEnded)
    }
    assert roles == {Identity.SECRET_SERVICE, Identity.POLICE_OFFICER, Identity.SNIPER, Identity.BOMBER}, roles


def test_the_assassination_bot_beats_random_bots(bot: Path, tmp_path: Path) -> None:
    """Against three random sample bots, 12 games (3 duplicate deals, tournament seed 1): at least 8 points of 12.

    A game's points are the share of the other three seats the bot finished ahead of (a tie counting
    half): 0.5 a game for a bot no better than its table. Measured with 12 games at each tournament
    seed from 1 to 10: ts-assassination took 9.2 to 12 points (106.5 of 120 in all, 89%; 10.7 at
    seed 1), the Python heuristic bot the same (it chooses alike), and a random bot (ts-random)
    3.7 to 7.7 (59.2 of 120, 49%; 6.7 at seed 1), so a regression to random play fails. The seed
    fixes every deal and every bot's play, so the result is the same at each run.
    """
    random = str(SAMPLE_BOTS / "random")
    args = ["tournament", "assassination", str(bot), random, random, random, "--players", "4", "--games", "12", "--seed", "1"]
    out = tournament(args, tmp_path, jobs=2)
    (mine,) = [row for row in out["standings"] if row["bot"] == "ts-assassination"]
    assert mine["games"] == 12 and mine["points"] >= 8, mine
