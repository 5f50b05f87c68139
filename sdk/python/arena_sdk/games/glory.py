"""Glory helpers: card roles and values, action builders, and a legal random action from a decision."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any

from arena.v1 import cards_pb2
from arena.v1 import glory_pb2 as gl
from arena_sdk.bot import Request
from arena_sdk.games.common import ACE as ACE, CLUBS as CLUBS, DIAMONDS as DIAMONDS, HEARTS as HEARTS, JACK as JACK
from arena_sdk.games.common import JOKER as JOKER, KING as KING, QUEEN as QUEEN, SPADES as SPADES, card_id
from arena_sdk.games.common import ids as ids, whole

pb = gl
GAME = "glory"
View = gl.View
Decision = gl.Decision
Action = gl.Action
Event = gl.Event
AttackKind = gl.AttackKind
GloryReason = gl.GloryReason
Phase = gl.Phase
RoundEndReason = gl.RoundEndReason


def value(card: cards_pb2.Card) -> int:
    """Ace 1, two to ten face value, jack 10, queen 11, king 12, joker 25."""
    return {JACK: 10, QUEEN: 11, KING: 12, JOKER: 25}.get(card.rank, card.rank)


def is_general(card: cards_pb2.Card) -> bool:
    """True for a Jack, Queen or King: a General (an attack needs at least one)."""
    return card.rank in (JACK, QUEEN, KING)


def is_assassin(card: cards_pb2.Card) -> bool:
    """True for a joker: an Assassin."""
    return card.rank == JOKER


def is_soldier(card: cards_pb2.Card) -> bool:
    """True for a club from ace to ten: a Soldier."""
    return card.suit == CLUBS and card.rank <= 10


def is_land(card: cards_pb2.Card) -> bool:
    """True for a spade from ace to ten: Land."""
    return card.suit == SPADES and card.rank <= 10


def is_money(card: cards_pb2.Card) -> bool:
    """True for a diamond from ace to ten: Money."""
    return card.suit == DIAMONDS and card.rank <= 10


def is_health(card: cards_pb2.Card) -> bool:
    """True for a heart from ace to ten: Health."""
    return card.suit == HEARTS and card.rank <= 10


def half_up(v: int) -> int:
    """Mercenaries and healing are worth half a card's value, rounded up."""
    return (v + 1) // 2


def total(cards: Iterable[cards_pb2.Card]) -> int:
    """The summed ``value`` of these cards."""
    return sum(value(c) for c in cards)


# --- action builders ----------------------------------------------------------------------


def buy_land(lands: Iterable[Any], money: Iterable[Any]) -> gl.Action:
    """The answer to a TurnChoice: play ``lands`` from hand into the Domain, paid with ``money`` from the Treasury worth at least as much."""
    return gl.Action(buy_land=gl.BuyLand(land_ids=ids(lands), money_ids=ids(money)))


def conquer_land(target: int, cards: Iterable[Any], money: Iterable[Any] = ()) -> gl.Action:
    """The answer to a TurnChoice: take the lowest Land of ``target`` (one of ``conquer_targets``) with Generals and Soldiers, and ``money`` as Mercenaries."""
    return gl.Action(conquer_land=gl.ConquerLand(target=whole(target, "target", "a seat"), card_ids=ids(cards), money_ids=ids(money)))


def attack_king(target: int, cards: Iterable[Any], money: Iterable[Any] = ()) -> gl.Action:
    """The answer to a TurnChoice: attack the King of ``target`` (one of ``king_targets``) with Generals and Soldiers, and ``money`` as Mercenaries."""
    return gl.Action(attack_king=gl.AttackKing(target=whole(target, "target", "a seat"), card_ids=ids(cards), money_ids=ids(money)))


def assassinate(target: int, cards: Iterable[Any]) -> gl.Action:
    """The answer to a TurnChoice: attempt an assassination of ``target`` (one of ``king_targets``) with one or more jokers."""
    return gl.Action(assassinate=gl.Assassinate(target=whole(target, "target", "a seat"), card_ids=ids(cards)))


def heal(card: Any) -> gl.Action:
    """The answer to a TurnChoice: discard this card of ``health`` to regain half its value, rounded up, in HP."""
    return gl.Action(heal=gl.Heal(card_id=card_id(card)))


def discard(cards: Iterable[Any]) -> gl.Action:
    """The answer to a TurnChoice: discard one card of ``hand``, or any number with an Ace among them."""
    return gl.Action(discard=gl.Discard(card_ids=ids(cards)))


def pass_turn() -> gl.Action:
    """The answer to a TurnChoice whose hand is empty (``can_pass``): do nothing."""
    return gl.Action(pass_turn=gl.PassTurn())


def offers(offers_by_seat: Mapping[int, Iterable[Any]] | None = None) -> gl.Action:
    """The answer to an OfferChoice: {seat: cards from your Domain and Treasury} (an empty list is a bare appeal; none offers nothing)."""
    made = [gl.Offer(seat=seat, card_ids=ids(cards)) for seat, cards in sorted((offers_by_seat or {}).items())]
    return gl.Action(make_offers=gl.MakeOffers(offers=made))


def assist(seat: int, cards: Iterable[Any]) -> gl.Action:
    """The answer to an AssistChoice: assist ``seat`` (the attacker or the defender) with Generals and Soldiers of ``playable``."""
    return gl.Action(assist=gl.Assist(seat=whole(seat, "seat", "a seat"), card_ids=ids(cards)))


def decline_assist() -> gl.Action:
    """The answer to an AssistChoice: assist neither side."""
    return gl.Action(decline_assist=gl.DeclineAssist())


def defend(cards: Iterable[Any] = ()) -> gl.Action:
    """The answer to a DefendChoice: these Generals and Soldiers of ``playable`` defend (none: no cards)."""
    return gl.Action(defend=gl.Defend(card_ids=ids(cards)))


def thwart(cards: Iterable[Any] = ()) -> gl.Action:
    """The answer to a ThwartChoice: exactly ``required`` jokers of ``assassins`` thwart the mini-round; none let it through."""
    return gl.Action(thwart=gl.Thwart(card_ids=ids(cards)))


def more_assassins(cards: Iterable[Any] = ()) -> gl.Action:
    """The answer to a MoreAssassinsChoice: one or more jokers for the next mini-round; none stop (the attempt fails)."""
    return gl.Action(more_assassins=gl.MoreAssassins(card_ids=ids(cards)))


def start_round() -> gl.Action:
    """The answer to a StartRoundChoice: start the next round (its only action)."""
    return gl.Action(start_round=gl.StartRound())


# --- a legal random action ------------------------------------------------------------------


def _some(rng: random.Random, cards: Iterable[Any], p: float = 0.5) -> list[Any]:
    return [c for c in cards if rng.random() < p]


def sample(request: Request, rng: random.Random) -> gl.Action:
    """A legal action chosen at random from the decision alone (each kind of move equally likely)."""
    kind, choice = request.kind, request.choice
    if kind == "turn_choice":
        return _sample_turn(choice, rng)
    if kind == "offer_choice":
        recipients = list(choice.recipients)
        if not recipients or rng.random() < 0.5:
            return offers()
        given: dict[int, list[Any]] = {}
        for card in choice.offerable:
            if rng.random() < 0.3:
                given.setdefault(rng.choice(recipients), []).append(card)
        for seat in recipients:  # a bare appeal: asking for help, offering nothing (as the referee's random action)
            if seat not in given and rng.random() < 0.3:
                given[seat] = []
        return offers(given)
    if kind == "assist_choice":
        playable = list(choice.playable)
        if not playable or rng.random() < 1 / 3:
            return decline_assist()
        return assist(rng.choice((choice.attacker, choice.defender)), _some(rng, playable) or [rng.choice(playable)])
    if kind == "defend_choice":
        return defend(_some(rng, choice.playable))
    if kind == "thwart_choice":
        assassins = list(choice.assassins)
        if len(assassins) >= choice.required and rng.random() < 0.5:
            return thwart(rng.sample(assassins, choice.required))
        return thwart()
    if kind == "more_assassins_choice":
        assassins = list(choice.assassins)
        if assassins and rng.random() < 0.5:
            return more_assassins(_some(rng, assassins) or [rng.choice(assassins)])
        return more_assassins()
    return start_round()


def _sample_turn(choice: Any, rng: random.Random) -> gl.Action:
    hand, lands, treasury = list(choice.hand), list(choice.lands), list(choice.treasury)
    generals, soldiers, assassins = list(choice.generals), list(choice.soldiers), list(choice.assassins)
    budget = total(treasury)
    kinds: list[str] = []
    if hand:
        kinds.append("discard")
    if choice.health:
        kinds.append("heal")
    if lands and treasury and min(value(c) for c in lands) <= budget:
        kinds.append("buy")
    if generals and choice.conquer_targets:
        kinds.append("conquer")
    if generals and choice.king_targets:
        kinds.append("king")
    if assassins and choice.king_targets:
        kinds.append("assassinate")
    if choice.can_pass:
        kinds.append("pass")
    kind = rng.choice(kinds)
    if kind == "discard":
        aces = list(choice.aces)
        if aces and rng.random() < 0.5:
            ace = rng.choice(aces)
            return discard([ace] + _some(rng, [c for c in hand if c.id != ace.id]))
        return discard([rng.choice(hand)])
    if kind == "heal":
        return heal(rng.choice(list(choice.health)))
    if kind == "buy":
        rng.shuffle(lands)
        want = rng.randint(1, len(lands))
        chosen: list[Any] = []
        for card in lands:
            if len(chosen) < want and total(chosen) + value(card) <= budget:
                chosen.append(card)
        rng.shuffle(treasury)
        paid: list[Any] = []
        for card in treasury:
            if total(paid) >= total(chosen):
                break
            paid.append(card)
        return buy_land(chosen, paid)
    if kind in ("conquer", "king"):
        general = rng.choice(generals)
        force = [general] + _some(rng, [c for c in generals + soldiers if c.id != general.id])
        money = _some(rng, treasury, 0.3)
        if kind == "conquer":
            return conquer_land(rng.choice(list(choice.conquer_targets)), force, money)
        return attack_king(rng.choice(list(choice.king_targets)), force, money)
    if kind == "assassinate":
        return assassinate(rng.choice(list(choice.king_targets)), _some(rng, assassins) or [rng.choice(assassins)])
    return pass_turn()
