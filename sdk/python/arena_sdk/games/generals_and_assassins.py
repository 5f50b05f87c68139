"""Generals & Assassins helpers: card values and roles, action builders, and a legal random action.

Card values: ace 1, two to ten face value, jack 10, queen 11, king 12, joker 25.
Roles: court cards (J, Q, K) of any suit are generals; other clubs are
soldiers, spades land, diamonds money, hearts health; jokers are assassins.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from arena.v1 import generals_and_assassins_pb2 as ga
from arena_sdk.bot import Request
from arena_sdk.games.common import ACE as ACE, CLUBS as CLUBS, DIAMONDS as DIAMONDS, HEARTS as HEARTS, JACK as JACK
from arena_sdk.games.common import JOKER as JOKER, KING as KING, QUEEN as QUEEN, SPADES as SPADES, card_id, ids, subsets, whole

C = TypeVar("C")

pb = ga
GAME = "generals-and-assassins"
View = ga.View
Decision = ga.Decision
Action = ga.Action
Event = ga.Event
BattleKind = ga.BattleKind
Phase = ga.Phase
RoundEndReason = ga.RoundEndReason
Side = ga.Side
#: The sides of an attack (the values of ``Side``).
ATTACKER, DEFENDER = 1, 2


# --- cards -----------------------------------------------------------------------


def value(card: Any) -> int:
    """The value of an ``arena.v1.Card``."""
    rank = int(card.rank)
    if rank == JOKER:
        return 25
    return rank - 1 if rank >= 11 else rank


def is_general(card: Any) -> bool:
    """True for a Jack, Queen or King: a General (an attack needs at least one)."""
    return 11 <= int(card.rank) <= 13


def is_soldier(card: Any) -> bool:
    """True for a club from ace to ten: a Soldier."""
    return int(card.suit) == CLUBS and int(card.rank) <= 10


def is_fighter(card: Any) -> bool:
    """True for a General or a Soldier: a card that may attack, defend or assist."""
    return is_general(card) or is_soldier(card)


def is_land(card: Any) -> bool:
    """True for a spade from ace to ten: Land."""
    return int(card.suit) == SPADES and int(card.rank) <= 10


def is_money(card: Any) -> bool:
    """True for a diamond from ace to ten: Money."""
    return int(card.suit) == DIAMONDS and int(card.rank) <= 10


def is_health(card: Any) -> bool:
    """True for a heart from ace to ten: Health."""
    return int(card.suit) == HEARTS and int(card.rank) <= 10


def is_assassin(card: Any) -> bool:
    """True for a joker: an Assassin."""
    return int(card.rank) == JOKER


def is_ace(card: Any) -> bool:
    """True for an ace: discarded, it takes any other cards with it."""
    return int(card.rank) == ACE


def total(cards: Iterable[Any]) -> int:
    """The summed ``value`` of these cards."""
    return sum(value(c) for c in cards)


# --- action builders -------------------------------------------------------------


def attack(target: int, cards: Iterable[Any]) -> ga.Action:
    """The answer to a TurnChoice: attack ``target`` (one of ``targets``) with these generals and soldiers (cards or ids)."""
    return ga.Action(attack=ga.Attack(target=whole(target, "target", "a seat"), card_ids=ids(cards)))


def assassinate(target: int, card: Any) -> ga.Action:
    """The answer to a TurnChoice: assassinate ``target`` (one of ``targets``) with this joker of ``assassins``, played alone."""
    return ga.Action(assassinate=ga.Assassinate(target=whole(target, "target", "a seat"), card_id=card_id(card)))


def buy_land(money: Iterable[Any], lands: Iterable[Any]) -> ga.Action:
    """The answer to a TurnChoice: pay with ``money`` for ``lands`` (cards or ids), as a pair from ``purchases`` or ``sample_purchase``."""
    return ga.Action(buy_land=ga.BuyLand(money_ids=ids(money), land_ids=ids(lands)))


def heal(card: Any) -> ga.Action:
    """The answer to a TurnChoice: discard this card of ``health`` to regain its value in HP (up to 50)."""
    return ga.Action(heal=ga.Heal(card_id=card_id(card)))


def discard(cards: Iterable[Any]) -> ga.Action:
    """The answer to a TurnChoice: discard one card of ``hand``, or several with an ace among them."""
    return ga.Action(discard=ga.Discard(card_ids=ids(cards)))


def offer_lands(offers: Mapping[int, Iterable[Any]] | None = None) -> ga.Action:
    """The answer to an OfferChoice: {seat: lands (cards or ids)}; None or {} offers nothing (seats with no lands are left out)."""
    made = [(s, ids(lands)) for s, lands in sorted((offers or {}).items())]
    return ga.Action(offer_lands=ga.OfferLands(offers=[ga.Offer(seat=s, land_ids=land_ids) for s, land_ids in made if land_ids]))


def assist(side: int, card: Any) -> ga.Action:
    """The answer to an AssistChoice: this card of ``cards`` joins ``side``, ``ATTACKER`` or ``DEFENDER``."""
    return ga.Action(assist=ga.Assist(side=side, card_id=card_id(card)))  # type: ignore[arg-type]


def decline() -> ga.Action:
    """The answer to an AssistChoice or an AssassinChoice: take no part."""
    return ga.Action(decline=ga.Decline())


def defend(cards: Iterable[Any] = ()) -> ga.Action:
    """The answer to a DefenceChoice: these generals and soldiers of ``cards`` defend (none: no cards)."""
    return ga.Action(defend=ga.Defend(card_ids=ids(cards)))


def play_assassin(card: Any) -> ga.Action:
    """The answer to an AssassinChoice: play this joker of ``assassins`` (to block, or to try again)."""
    return ga.Action(play_assassin=ga.PlayAssassin(card_id=card_id(card)))


def start_round() -> ga.Action:
    """The answer to a NextRoundChoice: start the next round (its only action)."""
    return ga.Action(start_round=ga.StartRound())


# --- a legal random action from the decision alone ------------------------------


def purchases(money: Sequence[C], land: Sequence[C]) -> list[tuple[list[C], list[C]]]:
    """Every (money, lands) pair that buys at least one land, as cards (``subsets``'s order, lands first).

    Exponential in the cards: for small hands. ``buy_land(*pair)`` makes the action.
    """
    coin_sets = list(subsets(money))
    out: list[tuple[list[C], list[C]]] = []
    for lands in subsets(land):
        need = total(lands)
        out.extend((coins, lands) for coins in coin_sets if total(coins) >= need)
    return out


def can_buy(money: Sequence[Any], land: Sequence[Any]) -> bool:
    """Whether any land can be bought: the cheapest land costs no more than all the money."""
    return bool(money) and bool(land) and min(value(c) for c in land) <= total(money)


def sample_purchase(money: Sequence[C], land: Sequence[C], rng: random.Random) -> tuple[list[C], list[C]]:
    """A random purchase (some lands the money covers, paid with coins until their value is reached); needs can_buy."""
    budget = total(money)
    lands: list[C] = []
    for card in rng.sample(list(land), len(land)):
        if total(lands) + value(card) <= budget and (not lands or rng.random() < 0.5):
            lands.append(card)
    coins: list[C] = []
    for coin in rng.sample(list(money), len(money)):
        if total(coins) >= total(lands):
            break
        coins.append(coin)
    return coins, lands


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
    kinds = ["discard"]
    if choice.generals:
        kinds.append("attack")
    if choice.assassins:
        kinds.append("assassinate")
    if choice.health:
        kinds.append("heal")
    if can_buy(choice.money, choice.land):
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
        return buy_land(*sample_purchase(choice.money, choice.land, rng))
    hand = list(choice.hand)
    first = rng.choice(hand)
    if is_ace(first):  # an ace may take any other cards with it
        return discard([first.id] + [c.id for c in hand if c.id != first.id and rng.random() < 0.5])
    return discard([first.id])
