"""General's War helpers: action builders and a legal random action from a decision."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from arena.v1 import generals_war_pb2 as gw
from arena_sdk.bot import Request
from arena_sdk.games.common import ACE as ACE, CLUBS as CLUBS, DIAMONDS as DIAMONDS, HEARTS as HEARTS, JACK as JACK
from arena_sdk.games.common import JOKER as JOKER, KING as KING, QUEEN as QUEEN, SPADES as SPADES, ids, whole

pb = gw
GAME = "generals-war"
View = gw.View
Decision = gw.Decision
Action = gw.Action
Event = gw.Event
EliminationReason = gw.EliminationReason
Phase = gw.Phase


def reveal(cards: Iterable[Any] = ()) -> gw.Action:
    """The answer to a RevealChoice: reveal these generals of ``revealable`` (cards or ids); none reveals nothing."""
    return gw.Action(reveal_generals=gw.RevealGenerals(card_ids=ids(cards)))


def target(seat: int) -> gw.Action:
    """The answer to a TargetChoice: attack ``seat``, one of its ``targets``."""
    return gw.Action(choose_target=gw.ChooseTarget(target=whole(seat, "target", "a seat")))


def squad(cards: Iterable[Any]) -> gw.Action:
    """The answer to a SquadChoice: play this squad of ``playable`` (cards or ids)."""
    return gw.Action(play_squad=gw.PlaySquad(card_ids=ids(cards)))


def power(card: Any) -> int:
    """A card's power is its rank number (ace 1 ... king 13).

    Takes a card, as the TypeScript SDK's ``power`` does; a bare int is read as a rank (this function's
    former signature), not as a card id.
    """
    return card if isinstance(card, int) else int(card.rank)


def sample(request: Request, rng: random.Random) -> gw.Action:
    """A legal action chosen at random from the decision alone."""
    choice = request.choice
    if request.kind == "reveal_choice":
        return reveal(c for c in choice.revealable if rng.random() < 0.5)
    if request.kind == "target_choice":
        return target(rng.choice(list(choice.targets)))
    size = rng.randint(choice.min_cards, choice.max_cards)
    return squad(rng.sample(list(choice.playable), size))
