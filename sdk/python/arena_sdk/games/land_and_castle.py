"""Land & Castle helpers: card values, battle totals, action builders, and a legal random action from a decision.

The battle arithmetic mirrors the referee's (docs/games/land-and-castle.md):
an army's total is its value, plus the land's value if the two stack, plus the
general's value (with the castle's stacked on it) if the general stacks with
the army, plus 3 for a clubs castle in attack or a hearts castle in defence.
Two cards stack when neither is a face card (J, Q, K) and they share rank or suit.
"""

from __future__ import annotations

import random
from typing import Any

from arena.v1 import land_and_castle_pb2 as lc
from arena_sdk.bot import Request
from arena_sdk.games.common import ACE as ACE, CLUBS as CLUBS, DIAMONDS as DIAMONDS, HEARTS as HEARTS, JACK as JACK
from arena_sdk.games.common import JOKER as JOKER, KING as KING, QUEEN as QUEEN, SPADES as SPADES, card_id, whole

pb = lc
GAME = "land-and-castle"
View = lc.View
Decision = lc.Decision
Action = lc.Action
Event = lc.Event
Phase = lc.Phase
WinReason = lc.WinReason
CASTLE_BONUS = 3


def is_face(card: Any) -> bool:
    """True for a jack, queen or king: it stacks with nothing and breaks stacks (LC-7)."""
    return bool(card.rank >= JACK)


def army_value(card: Any) -> int:
    """Ace 1, two to ten face value, jack 0, queen and king 11."""
    if card.rank == JACK:
        return 0
    return 11 if card.rank > JACK else int(card.rank)


def land_value(card: Any) -> int:
    """Ace 1, two to ten face value, jack, queen and king 0."""
    return 0 if card.rank >= JACK else int(card.rank)


def stacks(a: Any, b: Any) -> bool:
    """True when neither card is a face card and they share the rank or the suit."""
    if is_face(a) or is_face(b):
        return False
    return bool(a.rank == b.rank or a.suit == b.suit)


def castle_suit(castle: Any | None) -> int | None:
    """The suit of a castle's bonus; None for no castle or a face-card castle."""
    if castle is None or is_face(castle):
        return None
    return int(castle.suit)


def total(army: Any, land: Any | None, general: Any | None, castle: Any | None, attacking: bool) -> int:
    """A side's battle total; ``land`` None (face down) counts as no land bonus."""
    value = army_value(army)
    if land is not None and stacks(army, land):
        value += land_value(land)
    if general is not None and stacks(general, army):
        value += int(general.rank)
        if castle is not None and stacks(castle, general):
            value += int(castle.rank)
    if castle_suit(castle) == (CLUBS if attacking else HEARTS):
        value += CASTLE_BONUS
    return value


def defender_wins(attacker_army: Any, attacker_total: int, defender_army: Any, defender_total: int) -> bool:
    """Same suit: the lower total wins; otherwise the higher; ties go to the attacker."""
    if attacker_army.suit == defender_army.suit:
        return defender_total < attacker_total
    return defender_total > attacker_total


def linked(a: Any, b: Any) -> bool:
    """Neighbouring lands agree when they share a suit or their land values differ by at most one."""
    return bool(a.suit == b.suit or abs(land_value(a) - land_value(b)) <= 1)


def card_of(holder: Any, field: str) -> Any | None:
    """An optional Card field of a message, or None when unset."""
    return getattr(holder, field) if holder.HasField(field) else None


# --- action builders (each takes a card or its id) -------------------------------------


def place_castle(card: Any) -> lc.Action:
    """The answer to a CastleChoice: this card of ``playable`` (a card or its id) becomes the castle."""
    return lc.Action(place_castle=lc.PlaceCastle(card_id=card_id(card)))


def place_general(card: Any) -> lc.Action:
    """The answer to a GeneralChoice: this card of ``playable`` (a card or its id) becomes the general."""
    return lc.Action(place_general=lc.PlaceGeneral(card_id=card_id(card)))


def swap(card: Any) -> lc.Action:
    """The answer to an AttackChoice or a DefendChoice with a diamonds castle: put this card of ``swappable`` under the draw pile and draw; the same decision comes again."""
    return lc.Action(swap_card=lc.SwapCard(card_id=card_id(card)))


def attack(card: Any, land: int) -> lc.Action:
    """The answer to an AttackChoice: play this card of ``playable`` as the army onto the land at position ``land``."""
    return lc.Action(attack=lc.Attack(card_id=card_id(card), land=whole(land, "land", "a land's position")))


def defend(card: Any) -> lc.Action:
    """The answer to a DefendChoice: play this card of ``playable`` as the army."""
    return lc.Action(defend=lc.Defend(card_id=card_id(card)))


def control(land: int) -> lc.Action:
    """The answer to a ClaimChoice: take the land at position ``land`` (one of ``lands``); both armies go under your pile."""
    return lc.Action(control=lc.Control(land=whole(land, "land", "a land's position")))


def capture(land: int, card: Any) -> lc.Action:
    """The answer to a ClaimChoice: this card of ``exchangeable`` takes the place of the land at position ``land``."""
    return lc.Action(capture=lc.Capture(land=whole(land, "land", "a land's position"), card_id=card_id(card)))


def sample(request: Request, rng: random.Random) -> lc.Action:
    """A legal action chosen at random from the decision alone."""
    choice = request.choice
    kind = request.kind
    if kind == "castle_choice":
        return place_castle(rng.choice(list(choice.playable)).id)
    if kind == "general_choice":
        return place_general(rng.choice(list(choice.playable)).id)
    if kind in ("attack_choice", "defend_choice"):
        options = len(choice.playable) * (len(choice.lands) if kind == "attack_choice" else 1)
        if choice.swappable and rng.randrange(options + len(choice.swappable)) >= options:
            return swap(rng.choice(list(choice.swappable)).id)
        card = rng.choice(list(choice.playable)).id
        if kind == "attack_choice":
            return attack(card, rng.choice(list(choice.lands)))
        return defend(card)
    land = rng.choice(list(choice.lands))
    pick = rng.randrange(len(choice.exchangeable) + 1)
    if pick == len(choice.exchangeable):
        return control(land)
    return capture(land, choice.exchangeable[pick].id)
