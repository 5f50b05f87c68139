"""Glory's attacks: Conquer Land, Attack a King and Assassination, from declaration to draw-back.

Each function changes the table, sets the phase of the next decision and returns
the events. When a fight is resolved ``table.fight`` becomes None and
``table.last_battle`` tells the outcome. Comments cite docs/games/glory.md (G-n).
"""

from __future__ import annotations

from typing import Final

from referee.core.game import Event, broadcast
from referee.games.glory.table import Fight, Table
from referee.games.glory.types import (
    AssassinsPresented,
    AssistChosen,
    AssistRecord,
    AttackDeclared,
    AttackKind,
    BattleResolved,
    BattleResult,
    DefenceCommitted,
    GloryReason,
    Offer,
    OfferPaid,
    OffersMade,
    Phase,
    ThwartChosen,
)
from referee.games.glory.values import is_land

ASSASSIN_DAMAGE: Final = 25


def _take(cards: list[int], chosen: tuple[int, ...]) -> None:
    for c in chosen:
        cards.remove(c)


def declare(t: Table, kind: AttackKind, attacker: int, target: int, cards: tuple[int, ...], money: tuple[int, ...]) -> list[Event]:
    """The attacker puts his whole force on the table, Mercenaries included (G-12, G-20)."""
    _take(t.hands[attacker], cards)
    _take(t.treasuries[attacker], money)
    fight = Fight(kind, attacker, target, list(cards), list(money))
    t.fight = fight
    events = [broadcast(AttackDeclared(kind, attacker, target, cards, money, t.attack_points(fight)))]
    if kind == AttackKind.ASSASSINATION:
        fight.presented = list(cards)
        events.append(broadcast(AssassinsPresented(attacker, cards, 1)))
        t.phase = Phase.THWART
    elif kind == AttackKind.CONQUER_LAND:
        t.phase = Phase.DEFEND  # no offers, no assistance (G-13)
    else:
        fight.assistants = [s for s in t.others(attacker) if s != target]
        if fight.assistants:
            t.phase = Phase.OFFERS
        else:
            fight.offers_made = 2  # nobody to offer to or to be assisted by (G-15)
            t.phase = Phase.DEFEND
    return events


def offers_turn(fight: Fight) -> int:
    """The seat whose offers are awaited: the attacker first, then the defender (G-15)."""
    return fight.attacker if fight.offers_made == 0 else fight.defender


def make_offers(t: Table, seat: int, offers: tuple[Offer, ...]) -> list[Event]:
    fight = t.fight
    assert fight is not None
    if fight.offers_made == 0:
        fight.attacker_offers = list(offers)
    else:
        fight.defender_offers = list(offers)
    fight.offers_made += 1
    if fight.offers_made == 2:
        t.phase = Phase.ASSIST
    return [broadcast(OffersMade(seat, offers))]


def next_assistant(fight: Fight) -> int:
    return fight.assistants[len(fight.assists)]


def assist(t: Table, seat: int, assisted: int | None, cards: tuple[int, ...]) -> list[Event]:
    """A player joins a side with Generals and Soldiers, or stays out (G-18)."""
    fight = t.fight
    assert fight is not None
    _take(t.hands[seat], cards)
    fight.assists.append(AssistRecord(seat, assisted, cards))
    if len(fight.assists) == len(fight.assistants):
        t.phase = Phase.DEFEND
    return [broadcast(AssistChosen(seat, assisted, cards))]


def defend(t: Table, seat: int, cards: tuple[int, ...]) -> list[Event]:
    fight = t.fight
    assert fight is not None
    _take(t.hands[seat], cards)
    fight.defence_cards = list(cards)
    return [broadcast(DefenceCommitted(seat, cards))] + resolve(t, success=None)


def thwart(t: Table, seat: int, cards: tuple[int, ...]) -> list[Event]:
    """The defender matches the assassins of this mini-round, or lets the assassination through (G-20)."""
    fight = t.fight
    assert fight is not None
    _take(t.hands[seat], cards)
    fight.defence_cards += cards
    events = [broadcast(ThwartChosen(seat, cards))]
    if not cards:
        return events + resolve(t, success=True)
    t.phase = Phase.MORE_ASSASSINS
    return events


def more_assassins(t: Table, seat: int, cards: tuple[int, ...]) -> list[Event]:
    """After a thwarted mini-round the attacker presents more assassins or stops, and fails (G-20)."""
    fight = t.fight
    assert fight is not None
    if not cards:
        return resolve(t, success=False)
    _take(t.hands[seat], cards)
    fight.mini_round += 1
    fight.presented = list(cards)
    fight.attack_cards += cards
    t.phase = Phase.THWART
    return [broadcast(AssassinsPresented(seat, cards, fight.mini_round))]


def resolve(t: Table, success: bool | None) -> list[Event]:
    """Outcome, Glory, discards, payments for assistance, then draw-back (G-14, G-17, G-19, G-21, G-24, G-25, G-34)."""
    fight = t.fight
    assert fight is not None
    attacker, defender = fight.attacker, fight.defender
    ap, dp = t.attack_points(fight), t.defence_points(fight)
    if success is None:
        success = ap > dp
    damage = 0
    land_taken: int | None = None
    if success and fight.kind == AttackKind.CONQUER_LAND:
        land_taken = t.lowest_land(defender)
        t.domains[defender].remove(land_taken)
        t.domains[attacker].append(land_taken)
    elif success:
        blow = ASSASSIN_DAMAGE if fight.kind == AttackKind.ASSASSINATION else ap - dp
        damage = min(blow, t.hp[defender])  # what he lost, as the events say: HP stops at 0 (G-19, G-21)
        t.hp[defender] -= damage
    eliminated = damage > 0 and t.hp[defender] <= 0
    result = BattleResult(
        kind=fight.kind,
        attacker=attacker,
        defender=defender,
        attack_points=ap,
        defence_points=dp,
        success=success,
        damage=damage,
        land_taken=land_taken,
        eliminated=eliminated,
        attacker_assistants=fight.helpers(attacker),
        defender_assistants=fight.helpers(defender),
    )
    events = [broadcast(BattleResolved(result))]
    events += _glory(t, fight, result)
    t.discard += fight.table_cards()
    events += _pay_offers(t, fight)
    t.fight = None
    t.last_battle = result
    if eliminated:
        return events  # the round ends at once: nobody draws (G-26)
    if fight.kind == AttackKind.ATTACK_KING:
        drawers = [s for s in t.others(attacker) if s == defender or not t.waiting[s]]
    else:
        drawers = [defender]
    for seat in drawers:
        events += t.draw_to_seven(seat)
    if success:
        events += t.draw_to_seven(attacker)
    else:
        t.waiting[attacker] = True
    return events


def _glory(t: Table, fight: Fight, result: BattleResult) -> list[Event]:
    attacker, defender = fight.attacker, fight.defender
    if fight.kind == AttackKind.CONQUER_LAND:
        if result.success:
            return [t.award(attacker, 2, GloryReason.CONQUEST)]
        return [t.award(defender, 2, GloryReason.CONQUEST_REPELLED)]
    if fight.kind == AttackKind.ASSASSINATION:
        if not result.success:
            return [t.award(defender, 2, GloryReason.ASSASSINATION_THWARTED)]
        events = [t.award(attacker, 2, GloryReason.ASSASSINATION)]
        if result.eliminated:
            events.append(t.award(attacker, 2, GloryReason.ASSASSINATION_KILL))
        return events
    if result.success:
        times = 2 if result.eliminated else 1
        events = [t.award(attacker, 5 * times, GloryReason.KING_ATTACK)]
        events += [t.award(s, 2 * times, GloryReason.KING_ATTACK_ASSIST) for s in result.attacker_assistants]
        return events
    events = [t.award(defender, 5, GloryReason.KING_DEFENCE)]
    events += [t.award(s, 2, GloryReason.KING_DEFENCE_ASSIST) for s in result.defender_assistants]
    return events


def _pay_offers(t: Table, fight: Fight) -> list[Event]:
    """Offers are paid to those who assisted the offering side, whatever the outcome (G-17)."""
    events: list[Event] = []
    for offerer, offers in ((fight.attacker, fight.attacker_offers), (fight.defender, fight.defender_offers)):
        helpers = fight.helpers(offerer)
        for offer in offers:
            if offer.seat not in helpers or not offer.card_ids:
                continue
            for card in offer.card_ids:
                if is_land(card):
                    t.domains[offerer].remove(card)
                    t.domains[offer.seat].append(card)
                else:
                    t.treasuries[offerer].remove(card)
                    t.treasuries[offer.seat].append(card)
            events.append(broadcast(OfferPaid(offerer, offer.seat, offer.card_ids)))
    return events
