"""What each seat of Land & Castle is sent, against what lies face up and face down at a real table (LC-22).

Random games are played to the end; at every step each seat's view is encoded as the referee sends it and compared
with the table: its own hand, the face-up lands, both castles, generals and discard piles, and the armies of this
turn's and the last turn's battles, no more and no fewer, besides the pile and hand cards it remembers (LC-25), each
where the view says it is; the events of another seat's draws and swaps name no card.
"""

from __future__ import annotations

import random

from referee.games.land_and_castle import LandAndCastle
from referee.games.land_and_castle.types import Battle, CardsDrawn, CardSwapped
from referee.protocol.messages import GameCodec
from tests.support import card_ids_in

CODEC = GameCodec(LandAndCastle)


def battle_cards(battle: Battle | None) -> set[int]:
    if battle is None:
        return set()
    armies = {battle.land_card, battle.attacker.army}
    return armies | ({battle.defender.army} if battle.defender is not None else set())


def on_the_table(game: LandAndCastle, seat: int) -> set[int]:
    """The cards ``seat`` sees at a real table: its hand and every face-up card (the battles' cards were face up)."""
    seen = set(game.hands[seat])
    seen |= {card for card, up in zip(game.lands, game.face_up) if up}
    for s in (0, 1):
        seen |= {c for c in (game.castles[s], game.generals[s]) if c is not None} | set(game.discards[s])
    return seen | battle_cards(game.battle) | battle_cards(game.last_battle)


def check_view(game: LandAndCastle, seat: int) -> None:
    msg = CODEC.view(game.view(seat)).land_and_castle
    remembered: set[int] = set()
    for known in msg.known:
        pile = game.piles[known.seat]
        assert all(pile[p.position] == p.card.id for p in known.draw_pile)
        assert {c.id for c in known.hand} <= set(game.hands[known.seat])
        remembered |= {p.card.id for p in known.draw_pile} | {c.id for c in known.hand}
    assert set(card_ids_in(msg)) == on_the_table(game, seat) | remembered
    for land in msg.lands:
        p = land.position
        assert land.face_up == game.face_up[p] and land.HasField("card") == game.face_up[p]
        assert not land.HasField("card") or land.card.id == game.lands[p]
    for player in msg.players:
        s = player.seat
        assert (player.hand_size, player.draw_pile_size) == (len(game.hands[s]), len(game.piles[s]))


def test_lc22_every_view_shows_the_face_up_table_and_the_own_hand_and_nothing_else() -> None:
    for seed in range(25):
        game = LandAndCastle(2, seed)
        rng = random.Random(seed)
        events = list(game.opening_events())
        while True:
            for seat in (0, 1):
                check_view(game, seat)
                for event in events:
                    if isinstance(event.payload, (CardsDrawn, CardSwapped)) and event.payload.seat != seat and event.visible(seat):
                        assert not set(card_ids_in(CODEC.event(event.payload, 0).land_and_castle)), event.payload
            if game.is_over():
                break
            seat = game.to_act()[0]
            events = game.apply(seat, game.random_action(seat, rng))
