"""What each seat of Land & Castle is sent, against what lies face up and face down at a real table (LC-22).

Random games are played to the end; at every step each seat's view is encoded as the referee sends it and compared
with the table: its own hand, the face-up lands, both castles, generals and discard piles, and the armies of this
turn's and the last turn's battles, no more and no fewer, besides the pile and hand cards it remembers (LC-25), each
where the view says it is; the events of another seat's draws and swaps name no card. Besides the cards, each view names
its seat, the step, the agreed limits and, at the end, who won and how.
"""

from __future__ import annotations

import random

from referee.games.land_and_castle import LandAndCastle
from referee.games.land_and_castle.types import Attack, Battle, CardsDrawn, CardSwapped, Control, Defend, Phase, WinReason
from referee.protocol.messages import GameCodec
from tests.games.test_land_and_castle_rules import C, D, c, plain
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


def test_lc20_and_lc22_each_view_names_its_seat_the_phase_the_agreed_limits_and_the_end() -> None:
    """What the table knows besides the cards: whose view, which step, the hand and turn limits, who won and how."""
    game = LandAndCastle(2, 3, {"hand_size": 5, "max_turns": 7})
    assert [(v.seat, v.phase, v.hand_limit, v.max_turns) for v in (game.view(0), game.view(1))] == [
        (0, Phase.PHASE_CASTLE, 5, 7), (1, Phase.PHASE_CASTLE, 5, 7),
    ]
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]], owner=[None, 0, 0, 0, 0, 0])
    game.apply(0, Attack(c(10, C), 0))
    assert game.view(0).phase == game.view(1).phase == Phase.PHASE_DEFEND
    game.apply(1, Defend(c(2, D)))
    assert game.view(1).phase == Phase.PHASE_CLAIM and game.view(1).winner is None
    game.apply(0, Control(0))
    for seat in (0, 1):
        view = game.view(seat)
        assert (view.phase, view.winner, view.win_reason) == (Phase.PHASE_OVER, 0, WinReason.DOMINANCE)
