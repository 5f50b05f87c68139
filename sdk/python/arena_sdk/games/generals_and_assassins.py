"""Generals & Assassins helpers: card values and roles, action builders, and a legal random action.

Card values: ace 1, two to ten face value, jack 10, queen 11, king 12, joker 25.
Roles: court cards (J, Q, K) of any suit are generals; other clubs are
soldiers, spades land, diamonds money, hearts health; jokers are assassins.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from arena.v1 import generals_and_assassins_pb2 as ga
from arena_sdk.bot import Request

JOKER = 14
#: The sides of an attack (the values of ``Side``).
ATTACKER, DEFENDER = 1, 2
ACE = 1
CLUBS, DIAMONDS, HEARTS, SPADES = 1, 2, 3, 4


# --- cards -----------------------------------------------------------------------


def value(card: Any) -> int:
    """The value of an ``arena.v1.Card``."""
    rank = int(card.rank)
    if rank == JOKER:
        return 25
    return rank - 1 if rank >= 11 else rank


def is_general(card: Any) -> bool:
    return 11 <= int(card.rank) <= 13


def is_soldier(card: Any) -> bool:
    return int(card.suit) == CLUBS and int(card.rank) <= 10


def is_fighter(card: Any) -> bool:
    return is_general(card) or is_soldier(card)


def is_land(card: Any) -> bool:
    return int(card.suit) == SPADES and int(card.rank) <= 10


def is_money(card: Any) -> bool:
    return int(card.suit) == DIAMONDS and int(card.rank) <= 10


def is_health(card: Any) -> bool:
    return int(card.suit) == HEARTS and int(card.rank) <= 10


def is_assassin(card: Any) -> bool:
    return int(card.rank) == JOKER


def is_ace(card: Any) -> bool:
    return int(card.rank) == ACE


def total(cards: Iterable[Any]) -> int:
    return sum(value(c) for c in cards)


# --- action builders -------------------------------------------------------------


def attack(target: int, card_ids: Iterable[int]) -> ga.Action:
    return ga.Action(attack=ga.Attack(target=target, card_ids=list(card_ids)))


def assassinate(target: int, card_id: int) -> ga.Action:
    return ga.Action(assassinate=ga.Assassinate(target=target, card_id=card_id))


def buy_land(money_ids: Iterable[int], land_ids: Iterable[int]) -> ga.Action:
    return ga.Action(buy_land=ga.BuyLand(money_ids=list(money_ids), land_ids=list(land_ids)))


def heal(card_id: int) -> ga.Action:
    return ga.Action(heal=ga.Heal(card_id=card_id))


def discard(card_ids: Iterable[int]) -> ga.Action:
    return ga.Action(discard=ga.Discard(card_ids=list(card_ids)))


def offer_lands(offers: Mapping[int, Iterable[int]] | None = None) -> ga.Action:
    """Offers as {seat: land ids}; None or {} offers nothing."""
    items = sorted((offers or {}).items())
    return ga.Action(offer_lands=ga.OfferLands(offers=[ga.Offer(seat=s, land_ids=list(ids)) for s, ids in items if list(ids)]))


def assist(side: int, card_id: int) -> ga.Action:
    """``side`` is ``ATTACKER`` or ``DEFENDER``."""
    return ga.Action(assist=ga.Assist(side=side, card_id=card_id))  # type: ignore[arg-type]


def decline() -> ga.Action:
    return ga.Action(decline=ga.Decline())


def defend(card_ids: Iterable[int] = ()) -> ga.Action:
    return ga.Action(defend=ga.Defend(card_ids=list(card_ids)))


def play_assassin(card_id: int) -> ga.Action:
    return ga.Action(play_assassin=ga.PlayAssassin(card_id=card_id))


def start_round() -> ga.Action:
    return ga.Action(start_round=ga.StartRound())


# --- a legal random action from the decision alone ------------------------------


def purchases(money: Sequence[Any], land: Sequence[Any]) -> list[tuple[list[int], list[int]]]:
    """Every (money ids, land ids) pair that buys at least one land."""
    out: list[tuple[list[int], list[int]]] = []
    for ln in range(1, len(land) + 1):
        for lands in combinations(land, ln):
            need = total(lands)
            for mn in range(1, len(money) + 1):
                for coins in combinations(money, mn):
                    if total(coins) >= need:
                        out.append(([c.id for c in coins], [c.id for c in lands]))
    return out


def sample(request: Request, rng: random.Random) -> ga.Action:
    """A legal action: for a turn, a kind of action at random, then one of that kind."""
    choice = request.choice
    kind = request.kind
    if kind == "turn_choice":
        return _sample_turn(choice, rng)
    if kind == "offer_choice":
        options: list[int | None] = [None, *choice.recipients]
        offers: dict[int, list[int]] = {}
        for land in choice.lands:
            seat = rng.choice(options)
            if seat is not None:
                offers.setdefault(seat, []).append(land.id)
        return offer_lands(offers)
    if kind == "assist_choice":
        options_a: list[ga.Action] = [decline()]
        options_a += [assist(side, c.id) for side in (ATTACKER, DEFENDER) for c in choice.cards]
        return rng.choice(options_a)
    if kind == "defence_choice":
        return defend(c.id for c in choice.cards if rng.random() < 0.5)
    if kind == "next_round_choice":
        return start_round()
    return rng.choice([decline()] + [play_assassin(c.id) for c in choice.assassins])


def _sample_turn(choice: Any, rng: random.Random) -> ga.Action:
    targets = list(choice.targets)
    buys = purchases(list(choice.money), list(choice.land))
    kinds = ["discard"]
    if choice.generals:
        kinds.append("attack")
    if choice.assassins:
        kinds.append("assassinate")
    if choice.health:
        kinds.append("heal")
    if buys:
        kinds.append("buy")
    kind = rng.choice(kinds)
    if kind == "attack":
        fighters = list(choice.generals) + list(choice.soldiers)
        while True:
            picked = [c for c in fighters if rng.random() < 0.5]
            if any(is_general(c) for c in picked):
                return attack(rng.choice(targets), (c.id for c in picked))
    if kind == "assassinate":
        return assassinate(rng.choice(targets), rng.choice(list(choice.assassins)).id)
    if kind == "heal":
        return heal(rng.choice(list(choice.health)).id)
    if kind == "buy":
        money_ids, land_ids = rng.choice(buys)
        return buy_land(money_ids, land_ids)
    hand = list(choice.hand)
    first = rng.choice(hand)
    if is_ace(first):  # an ace may take any other cards with it
        return discard([first.id] + [c.id for c in hand if c.id != first.id and rng.random() < 0.5])
    return discard([first.id])
