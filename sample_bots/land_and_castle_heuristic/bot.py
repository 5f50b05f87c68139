"""A heuristic Land & Castle bot.

It places a castle whose bonus helps every battle (clubs, hearts or spades
before diamonds of the same rank or a little higher; never a face card) and a
high general that stacks with the castle. It attacks where its chance of
winning, counted over the cards it has not seen, is best (the cheaper army
when the chances are close), preferring lands the opponent owns, then
unclaimed ones; it defends with the cheapest army that wins and throws its
weakest card when none does. When it wins it always keeps its cards by taking
control (its draw pile grows, so it outlasts an opponent that discards),
unless a capture wins the game at once; with a spades castle it takes the
opponent's lands first.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from arena_sdk import Bot, Request, run
from arena_sdk.games import land_and_castle as lc


class C(NamedTuple):
    """A card as the SDK helpers read it."""

    id: int
    rank: int
    suit: int


ALL_CARDS = [C(s * 13 + r - 1, r, s + 1) for s in range(4) for r in range(1, 14)]
#: How much each castle suit is worth to this bot (clubs and hearts add 3, spades widen claims).
SUIT_WORTH = {lc.CLUBS: 3.0, lc.HEARTS: 3.0, lc.SPADES: 3.5, lc.DIAMONDS: 1.5}


def card(c: Any) -> C:
    return C(int(c.id), int(c.rank), int(c.suit))


def known_cards(view: Any) -> set[int]:
    """Cards that cannot be the opponent's answer or a face-down land: its hand, face-up lands, castles, generals,
    discards, the battle, and the cards it knows lie in a draw pile (``view.known``: its own swapped cards, the armies
    control put under a pile). Cards it knows are in the opponent's hand are still his to play: they stay unseen."""
    known = {c.id for c in view.hand}
    known.update(pile_card.card.id for seat in view.known for pile_card in seat.draw_pile)
    known.update(land.card.id for land in view.lands if land.HasField("card"))
    for p in view.players:
        known.update(c.id for c in p.discard)
        for field in ("castle", "general"):
            if p.HasField(field):
                known.add(getattr(p, field).id)
    if view.HasField("battle"):
        known.add(view.battle.attacker.army.id)
        if view.battle.HasField("defender"):
            known.add(view.battle.defender.army.id)
    return known


class HeuristicBot(Bot):
    name = "lc-heuristic"
    version = "1.0.0"

    def act(self, request: Request) -> Any:
        view = request.view
        choice = request.choice
        kind = request.kind
        if kind == "castle_choice":
            return lc.place_castle(self._castle([card(c) for c in choice.playable]).id)
        if kind == "general_choice":
            castle = view.players[view.seat].castle
            return lc.place_general(self._general([card(c) for c in choice.playable], card(castle)).id)
        if kind in ("attack_choice", "defend_choice") and choice.swappable:
            worst = min((card(c) for c in choice.swappable), key=lc.army_value)
            if lc.army_value(worst) <= 2:
                return lc.swap(worst.id)
        if kind == "attack_choice":
            return self._attack(view, choice)
        if kind == "defend_choice":
            return self._defend(view, choice)
        return self._claim(view, choice)

    # --- setup -------------------------------------------------------------------------------

    @staticmethod
    def _castle(hand: list[C]) -> C:
        def worth(c: C) -> float:
            if lc.is_face(c):
                return -1.0
            stackable = sum(1 for g in hand if g != c and lc.stacks(g, c))
            return SUIT_WORTH[c.suit] + 0.2 * c.rank + 0.5 * stackable

        return max(hand, key=worth)

    @staticmethod
    def _general(hand: list[C], castle: C) -> C:
        def worth(g: C) -> float:
            if lc.is_face(g):
                return -1.0
            # What it adds when it stacks (its suit or rank matches the army's), with the castle's rank when that stacks on it.
            return g.rank + (castle.rank if lc.stacks(castle, g) else 0)

        return max(hand, key=worth)

    # --- battle --------------------------------------------------------------------------------

    @staticmethod
    def _pool(view: Any) -> list[C]:
        known = known_cards(view)
        return [c for c in ALL_CARDS if c.id not in known]

    def _attack(self, view: Any, choice: Any) -> Any:
        me, foe = view.seat, 1 - view.seat
        mine, theirs = view.players[me], view.players[foe]
        general, castle = lc.card_of(mine, "general"), lc.card_of(mine, "castle")
        f_general, f_castle = lc.card_of(theirs, "general"), lc.card_of(theirs, "castle")
        pool = self._pool(view)
        hand = [card(c) for c in choice.playable]
        cache: dict[tuple[int, int | None], float] = {}

        def win_chance(army: C, land: C | None) -> float:
            key = (army.id, None if land is None else land.id)
            if key in cache:
                return cache[key]
            lands = [land] if land is not None else pool[::4]  # a face-down land: a spread of the unseen cards
            wins = count = 0
            for ground in lands:
                mine_total = lc.total(army, ground, general, castle, True)
                for d in pool:
                    if d.id == ground.id:
                        continue
                    count += 1
                    if not lc.defender_wins(army, mine_total, d, lc.total(d, ground, f_general, f_castle, False)):
                        wins += 1
            cache[key] = wins / max(1, count)
            return cache[key]

        best: tuple[float, int, int] | None = None
        for position in choice.lands:
            land = view.lands[position]
            ground = card(land.card) if land.HasField("card") else None
            owner = land.owner if land.HasField("owner") else None
            shift = 0.0 if owner == foe else -1.0 if owner is None else -2.0
            for army in hand:
                score = 2 * win_chance(army, ground) + shift - 0.01 * lc.army_value(army)
                if best is None or score > best[0]:
                    best = (score, army.id, position)
        assert best is not None
        return lc.attack(best[1], best[2])

    @staticmethod
    def _defend(view: Any, choice: Any) -> Any:
        me = view.seat
        mine = view.players[me]
        general, castle = lc.card_of(mine, "general"), lc.card_of(mine, "castle")
        land = view.lands[choice.land]
        ground = card(land.card)
        attacker = card(choice.attacking_army)
        hand = [card(c) for c in choice.playable]
        winning = [
            c for c in hand if lc.defender_wins(attacker, choice.attacker_total, c, lc.total(c, ground, general, castle, False))
        ]
        if winning:
            return lc.defend(min(winning, key=lambda c: (lc.army_value(c), c.id)).id)
        return lc.defend(min(hand, key=lambda c: (lc.army_value(c), c.id)).id)

    # --- claim ---------------------------------------------------------------------------------

    @staticmethod
    def _claim(view: Any, choice: Any) -> Any:
        foe = 1 - view.seat
        lands = list(view.lands)
        faces = [card(land.card) if land.HasField("card") else None for land in lands]
        owners = [land.owner if land.HasField("owner") else None for land in lands]
        # A capture that converts the whole row wins at once.
        for position in choice.lands:
            for c in choice.exchangeable:
                row = list(faces)
                row[position] = card(c)
                if all(x is not None for x in row) and all(lc.linked(a, b) for a, b in zip(row, row[1:])):
                    return lc.capture(position, c.id)
        # Otherwise control, taking the opponent's land first, then an unclaimed one, then the battle land.
        return lc.control(max(choice.lands, key=lambda p: (owners[p] == foe, owners[p] is None, p == choice.battle_land)))


if __name__ == "__main__":
    run(HeuristicBot())
