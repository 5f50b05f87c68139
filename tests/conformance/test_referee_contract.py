"""Every game through the real referee session: hidden information on the bytes sent, and replays."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import random
from typing import Any

import pytest

from arena.v1 import referee_pb2 as pb
from referee.games.registry import GAMES
from referee.server.inprocess import play, play_async
from referee.server.replay import ReplayError, parse_replay, replay_dict, replay_game
from tests.support import CONFIGS, card_ids_in, load_bot_class

RandomBot = load_bot_class("random", "RandomBot")
#: Matches per (game, player count) for the hidden-information check: every General's War configuration gets
#: 300 (about 40 decisions each), the longer games 30 (hundreds of decisions each); ARENA_LEAK_SCALE multiplies
#: them for a longer soak. Over all configurations that is over a thousand games in CI.
LEAK_SCALE = float(os.environ.get("ARENA_LEAK_SCALE", "1"))


def leak_matches(game_id: str) -> int:
    return max(1, int((300 if game_id == "generals-war" else 30) * LEAK_SCALE))


def hidden_when_told(game: Any) -> list[list[set[int]]]:
    """Per event (by seq), the cards hidden from each seat just after it happened; kept up to date as the game is played.

    Events reach a seat with its next decision request, by which time a card they name
    openly may have been shuffled out of sight again: an event is checked against what
    was hidden when it happened, the rest of a message against what is hidden when it is sent.
    """
    n = game.num_players
    hidden = [[game.hidden_cards(s) for s in range(n)]] * len(game.opening_events())
    apply = game.apply

    def watched(seat: int, action: Any) -> Any:
        events = apply(seat, action)
        hidden.extend([[game.hidden_cards(s) for s in range(n)]] * len(events))
        return events

    game.apply = watched
    return hidden


@pytest.mark.parametrize("game_id,n", CONFIGS)
def test_no_seat_is_ever_sent_a_card_it_may_not_know(game_id: str, n: int) -> None:
    """Each message is parsed from the bytes sent and checked against the cards hidden from that seat."""
    cls = GAMES[game_id]
    seen_cards = 0

    async def run_all() -> None:
        nonlocal seen_cards
        for seed in range(leak_matches(game_id)):
            game = cls(n, seed)
            hidden_at = hidden_when_told(game)

            def check(seat: int, data: bytes, game: Any = game, hidden_at: list[list[set[int]]] = hidden_at) -> None:
                nonlocal seen_cards
                msg = pb.RefereeMessage.FromString(data)
                which = msg.WhichOneof("msg")
                batch = msg.events if which == "events" else msg.decision.events if which == "decision" else None
                for event in batch.events if batch is not None else ():
                    named = set(card_ids_in(event))
                    seen_cards += len(named)
                    leaked = named & hidden_at[event.seq][seat]
                    assert not leaked, f"{game_id} seed {seed}: seat {seat} was told of hidden cards {sorted(leaked)} in {event}"
                if batch is not None:
                    batch.Clear()
                named = set(card_ids_in(msg))
                seen_cards += len(named)
                leaked = named & game.hidden_cards(seat)
                assert not leaked, f"{game_id} seed {seed}: seat {seat} was sent hidden cards {sorted(leaked)} in {msg}"

            rng = random.Random(seed)
            await play_async(game, [RandomBot(rng.randrange(1 << 30)) for _ in range(n)], on_send=check)

    asyncio.run(run_all())
    assert seen_cards > 0


def test_the_check_catches_a_leak() -> None:
    """A view that shows another seat's hand must fail the same check."""
    cls = GAMES["generals-war"]
    game = cls(2, 5)
    original = cls.view

    def leaky_view(self: Any, seat: int) -> Any:
        view = original(self, seat)
        return dataclasses.replace(view, hand=tuple(self.hands[1 - seat]) or view.hand)

    cls.view = leaky_view  # type: ignore[method-assign]
    try:
        leaks: list[int] = []

        def check(seat: int, data: bytes) -> None:
            leaks.extend(set(card_ids_in(pb.RefereeMessage.FromString(data))) & game.hidden_cards(seat))

        play(game, [RandomBot(1), RandomBot(2)], on_send=check)
    finally:
        cls.view = original  # type: ignore[method-assign]
    assert leaks


@pytest.mark.parametrize("game_id,n", CONFIGS)
def test_replays_round_trip(game_id: str, n: int) -> None:
    for seed in range(5):
        record = play(GAMES[game_id](n, seed), [RandomBot(seed * 10 + i) for i in range(n)])
        data = replay_dict(record)
        game, events = replay_game(data)
        assert events == data["events"]
        assert list(game.result().ranks) == data["game_result"]["ranks"]
        assert [s["rank"] for s in data["seats"]] == [s.rank for s in record.result.seats]


@pytest.mark.parametrize("game_id,n", CONFIGS)
def test_a_compact_replay_reads_back_as_the_whole_one(game_id: str, n: int) -> None:
    """The ladder keeps replays without events or final state; reading one re-plays it to put them back."""
    for seed in range(3):
        record = play(GAMES[game_id](n, seed), [RandomBot(seed * 10 + i) for i in range(n)])
        whole = json.loads(json.dumps(replay_dict(record)))
        compact = json.dumps(replay_dict(record, compact=True)).encode()
        assert b'"events"' not in compact and b'"final_state"' not in compact
        assert parse_replay(compact, "compact") == whole
        shallow = parse_replay(compact, "compact", complete=False)
        assert "events" not in shallow and shallow["actions"] == whole["actions"]


def test_a_broken_compact_replay_is_refused() -> None:
    record = play(GAMES["generals-war"](2, 3), [RandomBot(1), RandomBot(2)])
    data = replay_dict(record, compact=True)
    with pytest.raises(ReplayError, match="action 0 of seat"):
        parse_replay(json.dumps({**data, "actions": [{"seat": 5, "action": {}}]}).encode(), "x")
    with pytest.raises(ReplayError, match="result differs"):
        parse_replay(json.dumps({**data, "actions": data["actions"][:-1]}).encode(), "x")
    with pytest.raises(ReplayError, match="cannot set the game up"):
        parse_replay(json.dumps({**data, "game": "chess"}).encode(), "x")
    whole = replay_dict(record)
    del whole["events"]
    with pytest.raises(ReplayError, match="no events"):
        parse_replay(json.dumps(whole).encode(), "x")
    with pytest.raises(ReplayError, match="version 3"):
        parse_replay(json.dumps({**data, "version": 3}).encode(), "x")
    with pytest.raises(ReplayError, match="no actions"):
        parse_replay(json.dumps({k: v for k, v in data.items() if k != "actions"}).encode(), "x")
    with pytest.raises(ReplayError, match="not a list"):
        parse_replay(json.dumps({**data, "actions": {"seat": 0}}).encode(), "x")
    with pytest.raises(ReplayError, match="not a JSON replay"):
        parse_replay(b"\xb5garbage", "x")
    assert parse_replay(json.dumps({**replay_dict(record), "version": 1}).encode(), "x")["events"]  # the first version still reads


def test_a_tampered_replay_is_detected() -> None:
    record = play(GAMES["generals-war"](2, 3), [RandomBot(1), RandomBot(2)])
    data = replay_dict(record)
    data["events"][-1]["seq"] += 1
    with pytest.raises(ReplayError):
        replay_game(data)
    data = replay_dict(record)
    data["actions"] = data["actions"][:-1]
    with pytest.raises(ReplayError):
        replay_game(data)
