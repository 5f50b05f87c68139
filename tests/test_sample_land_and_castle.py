"""The Land & Castle heuristic bots' count of the cards an opponent may answer with."""

from __future__ import annotations

from arena.v1 import cards_pb2
from arena.v1 import land_and_castle_pb2 as lc
from tests.support import load_bot_class


def test_cards_known_to_lie_in_a_draw_pile_are_not_counted_as_possible_answers() -> None:
    """A card control put under the opponent's pile, or the bot's own swapped card, cannot be his army now (LC-25's
    ``known``); a card known to be in his hand can. The bot's pool left the first two in, so it weighed answers the
    opponent cannot give. (The TypeScript twin, test_typescript_choices, must choose alike.)"""
    known_cards = load_bot_class("land_and_castle_heuristic", "known_cards")
    view = lc.View(
        hand=[cards_pb2.Card(id=1)],
        known=[
            lc.KnownCards(seat=0, draw_pile=[cards_pb2.PileCard(position=0, card=cards_pb2.Card(id=20))]),
            lc.KnownCards(
                seat=1,
                draw_pile=[cards_pb2.PileCard(position=3, card=cards_pb2.Card(id=40))],
                hand=[cards_pb2.Card(id=50)],
            ),
        ],
    )
    known = known_cards(view)
    assert {1, 20, 40} <= known
    assert 50 not in known
