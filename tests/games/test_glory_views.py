"""Glory's G-30 (docs/games/glory.md): what every seat is told, in the views and the events.

Every card put into play is public ("Players must place Land cards face up", the whole force presented
"on declaration", the discard pile face up); the hands and the deck are not ("At no point during the game,
may players reveal the cards in their hand").
"""

from __future__ import annotations

from typing import Any

from referee.games.glory import Glory
from referee.games.glory.types import (
    AssassinsPresented,
    Assassinate,
    Assist,
    AssistChoice,
    AssistChosen,
    AssistRecord,
    AttackDeclared,
    AttackKind,
    AttackKing,
    BattleResolved,
    BattleResult,
    BattleState,
    BuyLand,
    CardTurnedOver,
    CardsDrawn,
    ConquerLand,
    DeclineAssist,
    Defend,
    DefenceCommitted,
    Discard,
    Discarded,
    FirstPlayerDraw,
    GameEnded,
    GloryAwarded,
    Heal,
    Healed,
    LandBought,
    MakeOffers,
    MoreAssassins,
    Offer,
    OfferPaid,
    PassTurn,
    Phase,
    RoundEnded,
    RoundStarted,
    StartRound,
    Thwart,
    ThwartChosen,
    TurnPassed,
    TurnStarted,
)
from tests.games.glory_table import c, cs, finish_round, play, table


def told(events: list[Any], kind: type) -> list[Any]:
    """The payloads of ``kind``, each checked to be told to every seat."""
    found = [e for e in events if isinstance(e.payload, kind)]
    assert all(e.visible_to is None for e in found), found
    return [e.payload for e in found]


def test_g30_land_bought_health_used_and_a_pass_are_told_to_every_seat() -> None:
    g = table(2, ["7s 9h", "2c"], treasuries=["8d"])
    events = g.apply(0, BuyLand((c("7s"),), (c("8d"),)))
    assert told(events, LandBought) == [LandBought(0, (c("7s"),), (c("8d"),))]
    assert told(events, TurnStarted) == [TurnStarted(1)]
    g.t.hands[1] = []
    g.forget()
    assert told(g.apply(1, PassTurn()), TurnPassed) == [TurnPassed(1)]
    g.t.hp[0] = 40
    assert told(g.apply(0, Heal(c("9h"))), Healed) == [Healed(0, c("9h"), 45)]


def test_g30_assistance_defence_and_assassins_are_told_to_every_seat() -> None:
    g = table(4, ["Kc", "5c", "6c", "7c"])
    events = play(
        g,
        (0, AttackKing(2, (c("Kc"),))),
        (0, MakeOffers(())),
        (2, MakeOffers(())),
        (1, Assist(2, (c("5c"),))),
        (3, DeclineAssist()),
        (2, Defend((c("6c"),))),
    )
    assert told(events, AssistChosen) == [AssistChosen(1, 2, (c("5c"),)), AssistChosen(3, None, ())]
    assert told(events, DefenceCommitted) == [DefenceCommitted(2, (c("6c"),))]
    g = table(2, ["X X@1 X2@1 2h", "X2 2c"])
    events = play(g, (0, Assassinate(1, (c("X"),))), (1, Thwart((c("X2"),))), (0, MoreAssassins(tuple(cs("X@1 X2@1")))), (1, Thwart(())))
    assert told(events, AssassinsPresented) == [AssassinsPresented(0, (c("X"),), 1), AssassinsPresented(0, tuple(cs("X@1 X2@1")), 2)]
    assert told(events, ThwartChosen) == [ThwartChosen(1, (c("X2"),)), ThwartChosen(1, ())]


def test_g30_every_seat_sees_each_players_public_record_but_no_hand() -> None:
    g = table(3, ["Kc 2h 3h", "5c", "6c 7c"], treasuries=["4d 9d"], domains=["3s As", "", "8s"], deck="2h@1 3h@1 4h@1 5h@1", turn=2)
    g.t.hp[1], g.t.glory[2], g.t.waiting[2] = 31, 9, True
    g.forget()
    view = g.view(1)
    assert view.hand == (c("5c"),) and view.deck_size == 4 and view.turn == 2 and view.first_player == 2
    p0, p1, p2 = view.players
    assert (p0.hand_size, p0.domain, p0.land_value, p0.treasury, p0.treasury_value) == (3, tuple(cs("3s As")), 4, tuple(cs("4d 9d")), 13)
    assert (p1.hp, p1.hand_size, p2.glory, p2.waiting, p2.land_value) == (31, 1, 9, True, 8)
    assert not p0.waiting and p0.hp == 50


def test_g30_the_attack_under_way_is_shown_to_every_seat_and_then_its_outcome() -> None:
    g = table(4, ["Kc 9c", "5c", "6c", "7c 8c"], treasuries=["7d 4d"], domains=["", "", "3s"])
    play(
        g,
        (0, AttackKing(2, tuple(cs("Kc 9c")), (c("7d"),))),
        (0, MakeOffers((Offer(1, ()), Offer(3, (c("4d"),))))),
        (2, MakeOffers((Offer(3, (c("3s"),)),))),
        (1, Assist(0, (c("5c"),))),
    )
    expected = BattleState(
        kind=AttackKind.ATTACK_KING,
        attacker=0,
        defender=2,
        attack_cards=tuple(cs("Kc 9c")),
        mercenaries=(c("7d"),),
        attack_points=12 + 9 + 4 + 5,
        defence_points=2,
        attacker_offers=(Offer(1, ()), Offer(3, (c("4d"),))),
        defender_offers=(Offer(3, (c("3s"),)),),
        assists=(AssistRecord(1, 0, (c("5c"),)),),
        defence_cards=(),
        mini_round=1,
        presented=(),
    )
    assert all(g.view(s).battle == expected for s in range(4))
    assert g.decision(3) == AssistChoice(0, 2, tuple(cs("7c 8c")), 30, 2)  # the AP and DP so far
    g.apply(3, Assist(2, tuple(cs("7c 8c"))))
    battle = g.view(1).battle
    assert battle is not None and battle.defence_points == 2 + 15 and len(battle.assists) == 2
    g.apply(2, Defend((c("6c"),)))  # 30 vs 23
    assert g.view(3).battle is None
    assert g.view(3).last_battle == BattleResult(
        kind=AttackKind.ATTACK_KING,
        attacker=0,
        defender=2,
        attack_points=30,
        defence_points=23,
        success=True,
        damage=7,
        land_taken=None,
        eliminated=False,
        attacker_assistants=(1,),
        defender_assistants=(3,),
    )


def test_g30_an_assassination_under_way_shows_the_assassins_presented_and_counts_them() -> None:
    g = table(2, ["X X@1 X2@1 2h", "X2 X@2 2c"])
    play(g, (0, Assassinate(1, (c("X"),))), (1, Thwart((c("X2"),))))
    battle = g.view(1).battle
    assert battle is not None and battle.kind == AttackKind.ASSASSINATION
    assert (battle.presented, battle.mini_round, battle.attack_points, battle.defence_points) == ((c("X"),), 1, 1, 1)
    g.apply(0, MoreAssassins(tuple(cs("X@1 X2@1"))))
    battle = g.view(1).battle
    assert battle is not None and battle.attack_cards == tuple(cs("X X@1 X2@1"))
    assert (battle.presented, battle.mini_round, battle.attack_points, battle.defence_points) == (tuple(cs("X@1 X2@1")), 2, 3, 1)
    assert battle.defence_cards == (c("X2"),)


def test_g30_the_finished_round_stays_on_show_and_the_reshuffle_forgets_the_last_attack() -> None:
    g = table(2, ["Kc 2h", "3h 4h"], domains=["8s", "5s 9s"])
    play(g, (0, ConquerLand(1, (c("Kc"),))), (1, Defend(())))
    finish_round(g, 1)
    assert g.t.phase == Phase.ROUND_OVER and g.t.glory == [2 + 8 + 5, 9]
    view = g.view(0)
    assert view.next_first_player == g.to_act()[0] == 1 and view.last_battle is not None
    assert view.last_battle.land_taken == c("5s")
    g.apply(1, StartRound())
    view = g.view(0)
    # The Land taken is back in the deck (or a hand): the last attack is not shown any more.
    assert view.last_battle is None and view.battle is None and view.next_first_player is None
    assert view.first_player == 1 and view.round == 2


def test_g30_the_opening_an_attack_its_outcome_and_the_end_are_told_to_every_seat() -> None:
    """Public: the draws for first player, the declaration, the outcome, Glory won, payments, discards and the
    round's and game's ends; a draw into the hand is told in full to the drawer only, as a count to the others."""
    opening = Glory(3, 4).opening_events()
    assert told(opening, FirstPlayerDraw) and told(opening, RoundStarted)
    draws = [e for e in opening if isinstance(e.payload, CardsDrawn)]
    for e in draws:
        seat = e.payload.seat
        assert e.visible_to == (frozenset({seat}) if e.payload.cards else frozenset({0, 1, 2} - {seat}))
    assert len(draws) == 6
    g = table(3, ["Kc 2h", "5c", "6c"], treasuries=["7d 4d"], options={"rounds": 2})
    g.round = 1
    events = play(
        g,
        (0, AttackKing(2, (c("Kc"),), (c("7d"),))),
        (0, MakeOffers((Offer(1, (c("4d"),)),))),
        (2, MakeOffers(())),
        (1, Assist(0, (c("5c"),))),
        (2, Defend(())),
    )
    assert told(events, AttackDeclared) == [AttackDeclared(AttackKind.ATTACK_KING, 0, 2, (c("Kc"),), (c("7d"),), 16)]
    assert [p.result.damage for p in told(events, BattleResolved)] == [21]
    assert [(p.seat, p.points) for p in told(events, GloryAwarded)] == [(0, 5), (1, 2)]
    assert told(events, OfferPaid) == [OfferPaid(0, 1, (c("4d"),))]
    events = finish_round(g, 1)
    assert len(told(events, Discarded)) == 1 and len(told(events, RoundEnded)) == 1
    events = g.apply(g.to_act()[0], StartRound())
    assert len(told(events, RoundStarted)) == 1 and len(told(events, CardTurnedOver)) == 1
    g.t.glory = [9, 0, 0]
    seat = g.to_act()[0]
    g.t.deck = g.t.deck[-1:]
    g.forget()
    assert told(g.apply(seat, Discard((g.t.hands[seat][0],))), GameEnded) == [GameEnded((9, 0, 0), (0,), False)]
