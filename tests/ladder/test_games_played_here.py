"""A submission to a ladder that schedules only some games (`arena ladder serve --game`)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from ladder.api import LadderState, create_app
from tests.ladder.conftest import LadderFixture
from tests.ladder.test_submissions import BOT_PY, archive, manifest


def submitted(ladder: LadderFixture, games: list[str] | None, name: str, bot_games: str) -> dict[str, object]:
    app = create_app(LadderState(ladder.make, ladder.ladder.store, ladder.ladder.config.data_dir, validate=False, games=games))
    with TestClient(app) as client:
        reply = client.post("/api/bots", content=archive(("bot.toml", manifest(name, games=bot_games)), ("bot.py", BOT_PY)), headers=ladder.user(f"o-{name}"))
    assert reply.status_code == 201, reply.text
    answer: dict[str, object] = reply.json()
    return answer


def test_a_bot_of_a_game_this_ladder_does_not_schedule_is_told_it_will_not_play(ladder: LadderFixture) -> None:
    """A ladder serving only glory accepted a Generals & Assassins bot with 'is on the ladder', and its author then
    waited for matches that were never scheduled."""
    reply = submitted(ladder, ["glory"], "elsewhere", '["generals-and-assassins"]')
    assert reply["accepted"]
    assert reply["reason"] == (
        "is on the ladder, but this ladder schedules only glory: its generals-and-assassins matches are not played here"
    )
    both = submitted(ladder, ["glory"], "half", '["glory", "generals-war"]')
    assert both["reason"] == "is on the ladder, but this ladder schedules only glory: its generals-war matches are not played here"


def test_a_bot_of_the_games_the_ladder_schedules_is_told_nothing_more(ladder: LadderFixture) -> None:
    assert submitted(ladder, ["glory"], "here", '["glory"]')["reason"] == ""
    assert submitted(ladder, None, "anywhere", '["generals-and-assassins"]')["reason"] == ""
