"""Legal actions of Glory, derived from the decision alone: checking, listing and sampling.

Every function here reads only the decision dataclass, so the list, the check
and the random sample can never disagree.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Iterator
from itertools import combinations, product
from math import comb

from referee.core.game import card_subsets, choose_cards_reason
from referee.games.glory.types import (
    Action,
    Assassinate,
    Assist,
    AssistChoice,
    AttackKing,
    BuyLand,
    ConquerLand,
    Decision,
    DeclineAssist,
    Defend,
    DefendChoice,
    Discard,
    Heal,
    MakeOffers,
    MoreAssassins,
    MoreAssassinsChoice,
    Offer,
    OfferChoice,
    PassTurn,
    StartRound,
    StartRoundChoice,
    Thwart,
    ThwartChoice,
    TurnChoice,
)
from referee.games.glory.values import is_ace, total, value

# --- checking --------------------------------------------------------------------------


def check(d: Decision, action: Action) -> str | None:
    """Why ``action`` does not answer decision ``d``, or None when it is legal."""
    if isinstance(d, TurnChoice):
        return _check_turn(d, action)
    if isinstance(d, OfferChoice):
        if not isinstance(action, MakeOffers):
            return "make offers for assistance (possibly none) now"
        return _check_offers(d, action)
    if isinstance(d, AssistChoice):
        if isinstance(action, DeclineAssist):
            return None
        if not isinstance(action, Assist):
            return "assist the attacker or the defender, or decline, now"
        if action.seat not in (d.attacker, d.defender):
            return f"seat {action.seat} is neither the attacker nor the defender"
        return choose_cards_reason(action.card_ids, d.playable, 1, len(d.playable))
    if isinstance(d, DefendChoice):
        if not isinstance(action, Defend):
            return "commit a defence (possibly no cards) now"
        return choose_cards_reason(action.card_ids, d.playable, 0, len(d.playable))
    if isinstance(d, ThwartChoice):
        if not isinstance(action, Thwart):
            return "thwart the assassination or not now"
        if not action.card_ids:
            return None
        return choose_cards_reason(action.card_ids, d.assassins, d.required, d.required)
    if isinstance(d, MoreAssassinsChoice):
        if not isinstance(action, MoreAssassins):
            return "present more assassins or stop now"
        return choose_cards_reason(action.card_ids, d.assassins, 0, len(d.assassins))
    if not isinstance(action, StartRound):
        return "start the next round now"
    return None


def _check_turn(d: TurnChoice, action: Action) -> str | None:
    if isinstance(action, Discard):
        reason = choose_cards_reason(action.card_ids, d.hand, 1, len(d.hand))
        if reason is None and len(action.card_ids) > 1 and not any(c in d.aces for c in action.card_ids):
            return "discard one card, or several along with an Ace"
        return reason
    if isinstance(action, Heal):
        return None if action.card_id in d.health else f"card {action.card_id} is not a Health card in hand"
    if isinstance(action, BuyLand):
        reason = choose_cards_reason(action.land_ids, d.lands, 1, len(d.lands))
        if reason is None:
            reason = choose_cards_reason(action.money_ids, d.treasury, 1, len(d.treasury))
        if reason is None and total(action.money_ids) < total(action.land_ids):
            return f"money worth {total(action.money_ids)} does not pay for land worth {total(action.land_ids)}"
        return reason
    if isinstance(action, (ConquerLand, AttackKing)):
        targets = d.conquer_targets if isinstance(action, ConquerLand) else d.king_targets
        if action.target not in targets:
            return f"seat {action.target} may not be attacked that way"
        fighters = d.generals + d.soldiers
        reason = choose_cards_reason(action.card_ids, fighters, 1, len(fighters))
        if reason is None and not any(c in d.generals for c in action.card_ids):
            return "an attack needs at least one General"
        if reason is None:
            reason = choose_cards_reason(action.money_ids, d.treasury, 0, len(d.treasury))
        return reason
    if isinstance(action, Assassinate):
        if action.target not in d.king_targets:
            return f"seat {action.target} may not be assassinated"
        return choose_cards_reason(action.card_ids, d.assassins, 1, len(d.assassins))
    if isinstance(action, PassTurn):
        return None if d.can_pass else "passing is allowed only with an empty hand"
    return "choose your action for this turn"


def _check_offers(d: OfferChoice, action: MakeOffers) -> str | None:
    if not all(isinstance(o, Offer) for o in action.offers):
        return "offers must be Offer messages"
    seats = [o.seat for o in action.offers]
    if len(set(seats)) != len(seats):
        return "one offer per player"
    for seat in seats:
        if seat not in d.recipients:
            return f"seat {seat} may not be offered anything"
    cards = [c for o in action.offers for c in o.card_ids]
    return choose_cards_reason(cards, d.offerable, 0, len(d.offerable))


# --- listing ---------------------------------------------------------------------------


def legal_actions(d: Decision) -> Iterator[Action]:
    """Every legal action, lazily, simplest first."""
    if isinstance(d, TurnChoice):
        return _turn_actions(d)
    if isinstance(d, OfferChoice):
        return _offer_actions(d)
    if isinstance(d, AssistChoice):
        return _assist_actions(d)
    if isinstance(d, DefendChoice):
        return (Defend(ids) for ids in card_subsets(d.playable, 0, len(d.playable)))
    if isinstance(d, ThwartChoice):
        return _thwart_actions(d)
    if isinstance(d, MoreAssassinsChoice):
        return (MoreAssassins(ids) for ids in card_subsets(d.assassins, 0, len(d.assassins)))
    return iter([StartRound()])


def least_count(d: Decision) -> int:
    """How many legal actions there are at least, counted without listing them.

    Exact, except for a turn with more than ten Money cards in the treasury
    (its Land purchases are not counted): the referee only needs to know
    whether the list would be too long to send.
    """
    if isinstance(d, TurnChoice):
        force, money = len(d.generals) + len(d.soldiers), len(d.treasury)
        attacks = ((1 << force) - (1 << len(d.soldiers))) * (1 << money)
        many = (1 << len(d.assassins)) - 1 - len(d.assassins)  # sets of two or more
        count = len(d.hand) + len(d.health) + len(d.king_targets) * (len(d.assassins) + many)
        if d.lands and d.treasury and money <= 10:
            count += _purchases(d.lands, d.treasury)
        count += (len(d.conquer_targets) + len(d.king_targets)) * attacks
        for ace in d.aces:
            others = sum(1 for c in d.hand if c != ace and not (is_ace(c) and c < ace))
            count += (1 << others) - 1
        return count + d.can_pass
    if isinstance(d, OfferChoice):
        # Each card goes to nobody or one recipient, and a recipient given none may still be appealed to:
        # summing over the sets T of recipients left without cards, (1 + r - |T|) ** cards ways each.
        r, k = len(d.recipients), len(d.offerable)
        return sum(comb(r, j) * (1 + r - j) ** k for j in range(r + 1))
    if isinstance(d, AssistChoice):
        return 1 + 2 * ((1 << len(d.playable)) - 1)
    if isinstance(d, DefendChoice):
        return 1 << len(d.playable)
    if isinstance(d, ThwartChoice):
        return 1 + (comb(len(d.assassins), d.required) if len(d.assassins) >= d.required else 0)
    if isinstance(d, MoreAssassinsChoice):
        return 1 << len(d.assassins)
    return 1


def _subset_sums(cards: tuple[int, ...]) -> list[int]:
    sums = [0]
    for card in cards:
        worth = value(card)
        sums += [x + worth for x in sums]
    return sums


def _purchases(lands: tuple[int, ...], treasury: tuple[int, ...]) -> int:
    """How many (Land set, Money paying for it) pairs a turn offers."""
    paid = sorted(_subset_sums(treasury))
    count = 0
    for price in _subset_sums(lands)[1:]:
        count += len(paid) - bisect_left(paid, price)
    return count


def _assist_actions(d: AssistChoice) -> Iterator[Action]:
    yield DeclineAssist()
    for ids in card_subsets(d.playable, 1, len(d.playable)):
        yield Assist(d.attacker, ids)
        yield Assist(d.defender, ids)


def _thwart_actions(d: ThwartChoice) -> Iterator[Action]:
    yield Thwart(())
    if len(d.assassins) >= d.required:
        for ids in combinations(sorted(d.assassins), d.required):
            yield Thwart(ids)


def _dearest_first(card: int) -> tuple[int, int]:
    return (-value(card), card)


def _paying_sets(money: list[int], need: int) -> Iterator[tuple[int, ...]]:
    """Every subset of ``money`` worth at least ``need`` (pruned: no dead ends are explored)."""
    money = sorted(money, key=_dearest_first)
    suffix = [0] * (len(money) + 1)
    for i in range(len(money) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + value(money[i])

    def walk(i: int, chosen: tuple[int, ...], worth: int) -> Iterator[tuple[int, ...]]:
        if worth + suffix[i] < need:
            return
        if i == len(money):
            yield chosen
            return
        yield from walk(i + 1, chosen + (money[i],), worth + value(money[i]))
        yield from walk(i + 1, chosen, worth)

    return walk(0, (), 0)


def _turn_actions(d: TurnChoice) -> Iterator[Action]:
    for card in d.hand:
        yield Discard((card,))
    for card in d.health:
        yield Heal(card)
    budget = total(d.treasury)
    for target in d.king_targets:
        for card in d.assassins:
            yield Assassinate(target, (card,))
    for lands in card_subsets(d.lands, 1, len(d.lands)):
        price = total(lands)
        if price <= budget:
            for money in _paying_sets(list(d.treasury), price):
                yield BuyLand(lands, money)
    attacked = [(ConquerLand, t) for t in d.conquer_targets] + [(AttackKing, t) for t in d.king_targets]
    if d.generals and attacked:
        # The same forces and payments for every target: worked out once, as the first target is listed.
        attacks: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        first_kind, first_target = attacked[0]
        generals = frozenset(d.generals)
        for force in card_subsets(d.generals + d.soldiers, 1, len(d.generals) + len(d.soldiers)):
            if not generals.isdisjoint(force):
                for money in card_subsets(d.treasury, 0, len(d.treasury)):
                    attacks.append((force, money))
                    yield first_kind(first_target, force, money)
        for kind, target in attacked[1:]:
            for force, money in attacks:
                yield kind(target, force, money)
    for target in d.king_targets:
        for ids in card_subsets(d.assassins, 2, len(d.assassins)):
            yield Assassinate(target, ids)
    for ace in sorted(d.aces):
        others = [c for c in d.hand if c != ace and not (is_ace(c) and c < ace)]
        for rest in card_subsets(others, 1, len(others)):
            yield Discard(tuple(sorted((ace,) + rest)))
    if d.can_pass:
        yield PassTurn()


def _offer_actions(d: OfferChoice) -> Iterator[Action]:
    """Each card to nobody or one recipient; then each recipient left without cards appealed to or not."""
    recipients = d.recipients
    appeals_only = [Offer(seat, ()) for seat in recipients]
    for assignment in product(range(len(recipients) + 1), repeat=len(d.offerable)):  # 0: nobody, k: recipients[k - 1]
        given: list[list[int]] = [[] for _ in recipients]
        for card, k in zip(d.offerable, assignment):
            if k:
                given[k - 1].append(card)
        fixed = [Offer(seat, tuple(cards)) if cards else None for seat, cards in zip(recipients, given)]
        bare = [i for i, offer in enumerate(fixed) if offer is None]
        for appeals in product((False, True), repeat=len(bare)):
            chosen = list(fixed)
            for i, yes in zip(bare, appeals):
                if yes:
                    chosen[i] = appeals_only[i]
            yield MakeOffers(tuple(offer for offer in chosen if offer is not None))


# --- sampling --------------------------------------------------------------------------


def _some(rng: random.Random, cards: tuple[int, ...] | list[int], p: float = 0.5) -> list[int]:
    return [c for c in cards if rng.random() < p]


def random_action(d: Decision, rng: random.Random) -> Action:
    """A legal action drawn at random without listing them all (each kind of move is equally likely)."""
    if isinstance(d, TurnChoice):
        return _random_turn(d, rng)
    if isinstance(d, OfferChoice):
        if not d.recipients or rng.random() < 0.5:
            return MakeOffers(())
        given: dict[int, list[int]] = {}
        for card in d.offerable:
            if rng.random() < 0.3:
                given.setdefault(rng.choice(d.recipients), []).append(card)
        for seat in d.recipients:
            if seat not in given and rng.random() < 0.3:
                given[seat] = []
        return MakeOffers(tuple(Offer(seat, tuple(cards)) for seat, cards in sorted(given.items())))
    if isinstance(d, AssistChoice):
        if not d.playable or rng.random() < 1 / 3:
            return DeclineAssist()
        cards = _some(rng, d.playable) or [rng.choice(d.playable)]
        return Assist(rng.choice((d.attacker, d.defender)), tuple(cards))
    if isinstance(d, DefendChoice):
        return Defend(tuple(_some(rng, d.playable)))
    if isinstance(d, ThwartChoice):
        if len(d.assassins) >= d.required and rng.random() < 0.5:
            return Thwart(tuple(rng.sample(list(d.assassins), d.required)))
        return Thwart(())
    if isinstance(d, MoreAssassinsChoice):
        if d.assassins and rng.random() < 0.5:
            return MoreAssassins(tuple(_some(rng, d.assassins) or [rng.choice(d.assassins)]))
        return MoreAssassins(())
    assert isinstance(d, StartRoundChoice)
    return StartRound()


def _random_turn(d: TurnChoice, rng: random.Random) -> Action:
    kinds: list[str] = []
    if d.hand:
        kinds.append("discard")
    if d.health:
        kinds.append("heal")
    budget = total(d.treasury)
    if d.lands and d.treasury and min(value(c) for c in d.lands) <= budget:
        kinds.append("buy")
    if d.generals and d.conquer_targets:
        kinds.append("conquer")
    if d.generals and d.king_targets:
        kinds.append("king")
    if d.assassins and d.king_targets:
        kinds.append("assassinate")
    if d.can_pass:
        kinds.append("pass")
    kind = rng.choice(kinds)
    if kind == "discard":
        if d.aces and rng.random() < 0.5:
            ace = rng.choice(d.aces)
            return Discard(tuple(sorted([ace] + _some(rng, [c for c in d.hand if c != ace]))))
        return Discard((rng.choice(d.hand),))
    if kind == "heal":
        return Heal(rng.choice(d.health))
    if kind == "buy":
        lands = list(d.lands)
        rng.shuffle(lands)
        want = rng.randint(1, len(lands))
        chosen: list[int] = []
        for card in lands:
            if len(chosen) < want and total(chosen) + value(card) <= budget:
                chosen.append(card)
        money = list(d.treasury)
        rng.shuffle(money)
        paid: list[int] = []
        for card in money:
            if total(paid) >= total(chosen):
                break
            paid.append(card)
        return BuyLand(tuple(chosen), tuple(paid))
    if kind in ("conquer", "king"):
        targets = d.conquer_targets if kind == "conquer" else d.king_targets
        general = rng.choice(d.generals)
        force = [general] + _some(rng, [c for c in d.generals + d.soldiers if c != general])
        money = _some(rng, d.treasury, 0.3)
        cls = ConquerLand if kind == "conquer" else AttackKing
        return cls(rng.choice(targets), tuple(force), tuple(money))
    if kind == "assassinate":
        return Assassinate(rng.choice(d.king_targets), tuple(_some(rng, d.assassins) or [rng.choice(d.assassins)]))
    return PassTurn()
