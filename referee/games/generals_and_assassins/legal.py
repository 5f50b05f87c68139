"""Legal actions, their check, a random one and the default one: all derived from a decision alone.

The decision dataclasses of types.py describe every constraint, so the
enumeration (``legal_actions``), the validation (``check``) and the samplers
(``random_action``, ``default_action``) cannot disagree.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import cache
from itertools import product
from typing import Final

from referee.core.game import card_subsets, choose_cards_reason
from referee.games.generals_and_assassins.roles import is_ace, is_general, total, value
from referee.games.generals_and_assassins.types import (
    Action,
    AssassinChoice,
    Assassinate,
    Assist,
    AssistChoice,
    Attack,
    BuyLand,
    Decision,
    Decline,
    DefenceChoice,
    Defend,
    Discard,
    Heal,
    NextRoundChoice,
    Offer,
    OfferChoice,
    OfferLands,
    PlayAssassin,
    Side,
    StartRound,
    TurnChoice,
)

# --- enumeration ---------------------------------------------------------------------

# Actions of one card, made once per card and shared after (they are frozen): a turn lists one per card in hand.
_heal: Final = cache(Heal)
_assassinate: Final = cache(Assassinate)
_assist: Final = cache(Assist)
_play_assassin: Final = cache(PlayAssassin)


@cache
def _discard_one(card: int) -> Discard:
    return Discard((card,))


def legal_actions(d: Decision) -> Iterator[Action]:
    if isinstance(d, TurnChoice):
        return _turn_actions(d)
    if isinstance(d, OfferChoice):
        return _offer_actions(d)
    if isinstance(d, AssistChoice):
        return _assist_actions(d)
    if isinstance(d, DefenceChoice):
        return (Defend(ids) for ids in card_subsets(d.cards, 0, len(d.cards)))
    if isinstance(d, NextRoundChoice):
        return iter((StartRound(),))
    return _assassin_actions(d)


def _attack_sets(d: TurnChoice) -> Iterator[tuple[int, ...]]:
    fighters = d.generals + d.soldiers
    generals = frozenset(d.generals)
    return (ids for ids in card_subsets(fighters, 1, len(fighters)) if not generals.isdisjoint(ids))


def _purchases(d: TurnChoice) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    if not d.land or not d.money:
        return
    payments = [(money, total(money)) for money in card_subsets(d.money, 1, len(d.money))]  # the same for every Land set
    for lands in card_subsets(d.land, 1, len(d.land)):
        need = total(lands)
        for money, worth in payments:
            if worth >= need:
                yield money, lands


def _discards(d: TurnChoice) -> Iterator[Discard]:
    yield from (_discard_one(c) for c in sorted(d.hand))
    if d.aces:
        aces = frozenset(d.aces)
        for ids in card_subsets(d.hand, 2, len(d.hand)):
            if not aces.isdisjoint(ids):
                yield Discard(ids)


def _turn_actions(d: TurnChoice) -> Iterator[Action]:
    if d.generals and d.targets:
        forces: list[tuple[int, ...]] = []  # the same for every target: worked out once, as the first one is listed
        for ids in _attack_sets(d):
            forces.append(ids)
            yield Attack(d.targets[0], ids)
        for target in d.targets[1:]:
            for ids in forces:
                yield Attack(target, ids)
    for target in d.targets:
        for card in d.assassins:
            yield _assassinate(target, card)
    for money, lands in _purchases(d):
        yield BuyLand(money, lands)
    for card in d.health:
        yield _heal(card)
    yield from _discards(d)


def _offer_actions(d: OfferChoice) -> Iterator[Action]:
    options: tuple[int | None, ...] = (None, *d.recipients)
    for assignment in product(options, repeat=len(d.lands)):
        yield _offers_from(d.lands, assignment)


def _offers_from(lands: tuple[int, ...], assignment: tuple[int | None, ...]) -> OfferLands:
    by_seat: dict[int, list[int]] = {}
    for land, seat in zip(lands, assignment):
        if seat is not None:
            by_seat.setdefault(seat, []).append(land)
    return OfferLands(tuple(Offer(seat, tuple(sorted(ids))) for seat, ids in sorted(by_seat.items())))


def _assist_actions(d: AssistChoice) -> Iterator[Action]:
    yield Decline()
    for side in (Side.ATTACKER, Side.DEFENDER):
        for card in d.cards:
            yield _assist(side, card)


def _assassin_actions(d: AssassinChoice) -> Iterator[Action]:
    yield Decline()
    for card in d.assassins:
        yield _play_assassin(card)


# --- validation ----------------------------------------------------------------------


def check(d: Decision, action: Action) -> str | None:
    if isinstance(d, TurnChoice):
        return _check_turn(d, action)
    if isinstance(d, OfferChoice):
        if not isinstance(action, OfferLands):
            return "offer lands (possibly none) now"
        return _check_offers(d, action)
    if isinstance(d, AssistChoice):
        if isinstance(action, Decline):
            return None
        if not isinstance(action, Assist):
            return "assist one side with one general or soldier, or decline, now"
        if action.side not in (Side.ATTACKER, Side.DEFENDER):
            return "assist the attacker or the defender"
        return None if action.card_id in d.cards else f"card {action.card_id} may not assist (a general or soldier in your hand)"
    if isinstance(d, DefenceChoice):
        if not isinstance(action, Defend):
            return "commit your defence (possibly no cards) now"
        return choose_cards_reason(action.card_ids, d.cards, 0, len(d.cards))
    if isinstance(d, NextRoundChoice):
        return None if isinstance(action, StartRound) else "start the next round now"
    if isinstance(action, Decline):
        return None
    if not isinstance(action, PlayAssassin):
        return "play an assassin or decline now"
    return None if action.card_id in d.assassins else f"card {action.card_id} is not an assassin in your hand"


def _check_turn(d: TurnChoice, action: Action) -> str | None:
    if isinstance(action, Attack):
        if action.target not in d.targets:
            return f"seat {action.target} may not be attacked"
        fighters = d.generals + d.soldiers
        reason = choose_cards_reason(action.card_ids, fighters, 1, len(fighters))
        if reason is not None:
            return f"attack with generals and soldiers from your hand: {reason}"
        if not any(is_general(c) for c in action.card_ids):
            return "an attack needs at least one general (J, Q, K)"
        return None
    if isinstance(action, Assassinate):
        if action.target not in d.targets:
            return f"seat {action.target} may not be attacked"
        return None if action.card_id in d.assassins else f"card {action.card_id} is not an assassin in your hand"
    if isinstance(action, BuyLand):
        reason = choose_cards_reason(action.land_ids, d.land, 1, len(d.land)) if d.land else "you have no land in hand"
        if reason is not None:
            return f"land: {reason}"
        reason = choose_cards_reason(action.money_ids, d.money, 1, len(d.money)) if d.money else "you have no money in hand"
        if reason is not None:
            return f"money: {reason}"
        if total(action.money_ids) < total(action.land_ids):
            return f"money worth {total(action.money_ids)} cannot buy land worth {total(action.land_ids)}"
        return None
    if isinstance(action, Heal):
        return None if action.card_id in d.health else f"card {action.card_id} is not a health card in your hand"
    if isinstance(action, Discard):
        reason = choose_cards_reason(action.card_ids, d.hand, 1, len(d.hand))
        if reason is not None:
            return reason
        if len(action.card_ids) > 1 and not any(is_ace(c) for c in action.card_ids):
            return "discard one card, or several only together with an ace"
        return None
    return "choose your turn's action: attack, assassinate, buy land, heal or discard"


def _check_offers(d: OfferChoice, action: OfferLands) -> str | None:
    seats: set[int] = set()
    offered: set[int] = set()
    for offer in action.offers:
        if not isinstance(offer, Offer):
            return f"{offer!r} is not an offer (a seat and its lands)"
        if offer.seat not in d.recipients:
            return f"seat {offer.seat} may not be offered land"
        if offer.seat in seats:
            return f"seat {offer.seat} is named in two offers"
        seats.add(offer.seat)
        if not offer.land_ids:
            return f"the offer to seat {offer.seat} names no land"
        for land in offer.land_ids:
            if land not in d.lands:
                return f"card {land} is not one of your lands in play"
            if land in offered:
                return f"land {land} is offered twice"
            offered.add(land)
    return None


# --- sampling ------------------------------------------------------------------------


def random_action(d: Decision, rng: random.Random) -> Action:
    """A random legal action without enumerating large sets: for a turn, a kind first, then one of that kind."""
    if isinstance(d, TurnChoice):
        return _random_turn(d, rng)
    if isinstance(d, OfferChoice):
        options: tuple[int | None, ...] = (None, *d.recipients)
        return _offers_from(d.lands, tuple(rng.choice(options) for _ in d.lands))
    if isinstance(d, DefenceChoice):
        return Defend(tuple(c for c in d.cards if rng.random() < 0.5))
    return rng.choice(list(legal_actions(d)))


def _random_turn(d: TurnChoice, rng: random.Random) -> Action:
    kinds = ["discard"]
    if d.generals:
        kinds.append("attack")
    if d.assassins:
        kinds.append("assassinate")
    if d.health:
        kinds.append("heal")
    purchases = list(_purchases(d))
    if purchases:
        kinds.append("buy")
    kind = rng.choice(kinds)
    if kind == "attack":
        fighters = d.generals + d.soldiers
        while True:  # uniform over sets holding at least one general (each try succeeds with p >= 1/2)
            ids = tuple(sorted(c for c in fighters if rng.random() < 0.5))
            if any(is_general(c) for c in ids):
                return Attack(rng.choice(d.targets), ids)
    if kind == "assassinate":
        return Assassinate(rng.choice(d.targets), rng.choice(d.assassins))
    if kind == "heal":
        return Heal(rng.choice(d.health))
    if kind == "buy":
        money, lands = rng.choice(purchases)
        return BuyLand(money, lands)
    return rng.choice(list(_discards(d)))


def default_action(d: Decision) -> Action:
    """Passive and always legal: discard the lowest card, offer nothing, decline, defend with nothing."""
    if isinstance(d, TurnChoice):
        return Discard((min(d.hand, key=lambda c: (value(c), c)),))
    if isinstance(d, OfferChoice):
        return OfferLands(())
    if isinstance(d, DefenceChoice):
        return Defend(())
    if isinstance(d, NextRoundChoice):
        return StartRound()
    return Decline()
