"""A heuristic Generals & Assassins bot.

Its plan, in order, each turn: take a kill that looks safe (a fallen king's
land VP go to whoever defeated him), buy the most land it can, heal when hurt,
strike a weak or rich opponent when its force clearly beats their likely
defence, and otherwise discard the least useful card (with an ace, every
card it does not want). It defends with the cheapest cards that stop an
attack (all of them when none do), always blocks assassins, helps whichever
side offers it land, and otherwise helps a defender about to fall so that
nobody else takes his land.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from arena_sdk import Bot, Request, run
from arena_sdk.games import generals_and_assassins as ga

MAX_HP = 50
EXPECTED_DEFENCE_PER_CARD = 2.5  # what an unseen card in an opponent's hand adds to his defence, roughly


class HeuristicBot(Bot):
    name = "ga-heuristic"
    version = "1.0.0"

    def act(self, request: Request) -> Any:
        kind = request.kind
        choice = request.choice
        if kind == "turn_choice":
            return self._turn(request, choice)
        if kind == "offer_choice":
            return ga.offer_lands()
        if kind == "assist_choice":
            return self._assist(request, choice)
        if kind == "defence_choice":
            return self._defend(request, choice)
        if kind == "next_round_choice":
            return ga.start_round()
        if choice.assassins:  # always block, always try again
            return ga.play_assassin(choice.assassins[0].id)
        return ga.decline()

    # --- the turn ----------------------------------------------------------------

    def _turn(self, request: Request, choice: Any) -> Any:
        view = request.view
        me = request.seat
        players = view.players
        fighters = list(choice.generals) + list(choice.soldiers)
        force = ga.total(fighters)

        # 1. A kill: the fallen king's land VP become ours.
        if choice.assassins:
            for t in sorted(choice.targets, key=lambda s: -players[s].land_value):
                if players[t].hp <= 25 and (self._jokers_out(players[t]) == 2 or len(choice.assassins) == 2 or players[t].land_value >= 4):
                    return ga.assassinate(t, choice.assassins[0].id)
        if choice.generals:
            for t in sorted(choice.targets, key=lambda s: -players[s].land_value):
                if force - self._likely_defence(players[t]) >= players[t].hp:
                    return ga.attack(t, (c.id for c in fighters))

        # 2. Land is victory points.
        best = self._best_purchase(list(choice.money), list(choice.land))
        if best is not None:
            return ga.buy_land(*best)

        # 3. Heal when hurt.
        if choice.health:
            heart = max(choice.health, key=ga.value)
            if choice.hp <= 25 or choice.hp + ga.value(heart) <= MAX_HP:
                return ga.heal(heart.id)

        # 4. Assassins come in pairs: spend one when the second is kept for defence.
        if len(choice.assassins) == 2:
            t = max(choice.targets, key=lambda s: (players[s].land_value, -players[s].hp))
            return ga.assassinate(t, choice.assassins[0].id)

        # 5. Strike when the force clearly beats the likely defence.
        if choice.generals:
            t = max(choice.targets, key=lambda s: (force - self._likely_defence(players[s]), players[s].land_value))
            if force - self._likely_defence(players[t]) >= 12:
                return ga.attack(t, (c.id for c in fighters))

        # 6. Discard what is least useful; with an ace, everything unwanted.
        return self._discard(list(choice.hand), choice.hp, me)

    @staticmethod
    def _jokers_out(player: Any) -> int:
        """Jokers of this player's deck already in his discard pile (he cannot block with those)."""
        return sum(1 for c in player.discard if ga.is_assassin(c))

    @staticmethod
    def _likely_defence(player: Any) -> float:
        return 2.0 * len(player.lands) + EXPECTED_DEFENCE_PER_CARD * int(player.hand_size)

    @staticmethod
    def _best_purchase(money: list[Any], land: list[Any]) -> tuple[list[Any], list[Any]] | None:
        """The most land value for the least money."""
        return max(ga.purchases(money, land), key=lambda buy: (ga.total(buy[1]), -ga.total(buy[0])), default=None)

    @staticmethod
    def _usefulness(card: Any, hp: int) -> float:
        v = ga.value(card)
        if ga.is_assassin(card):
            return 100
        if ga.is_money(card) or ga.is_land(card):
            return 50 + v
        if ga.is_general(card):
            return 30 + v
        if ga.is_health(card):
            return 40 + v if hp + v <= MAX_HP else 5 + v / 10
        return 10 + v  # a soldier

    def _discard(self, hand: list[Any], hp: int, me: int) -> Any:
        aces = [c for c in hand if ga.is_ace(c)]
        if aces:
            key = min(aces, key=lambda c: self._usefulness(c, hp))
            junk = [c.id for c in hand if c.id != key.id and self._usefulness(c, hp) < 30]
            return ga.discard([key.id] + junk)
        worst = min(hand, key=lambda c: (self._usefulness(c, hp), c.id))
        return ga.discard([worst.id])

    # --- the other steps -----------------------------------------------------------

    def _assist(self, request: Request, choice: Any) -> Any:
        if not choice.cards:
            return ga.decline()
        view = request.view
        me = request.seat
        battle = view.battle
        offered = {ga.ATTACKER: 0, ga.DEFENDER: 0}
        for offer in battle.offers:
            if offer.to_seat == me:
                side = ga.ATTACKER if offer.from_seat == choice.attacker else ga.DEFENDER
                offered[side] += ga.total(offer.lands)
        cheapest = min(choice.cards, key=ga.value)
        side = max(offered, key=lambda s: offered[s])
        if offered[side] > 0:
            return ga.assist(side, cheapest.id)
        defender = view.players[choice.defender]
        threat = battle.attack_points - battle.defence_points - EXPECTED_DEFENCE_PER_CARD * defender.hand_size
        if threat >= defender.hp - 10 and defender.land_value > 0:
            strongest = max(choice.cards, key=ga.value)
            return ga.assist(ga.DEFENDER, strongest.id)
        return ga.decline()

    @staticmethod
    def _defend(request: Request, choice: Any) -> Any:
        need = choice.attack_points - choice.defence_points
        cards = list(choice.cards)
        if need <= 0 or not cards:
            return ga.defend()
        best: tuple[int, int] | None = None
        best_ids: list[int] = []
        for size in range(1, len(cards) + 1):
            for combo in combinations(cards, size):
                s = ga.total(combo)
                if s >= need and (best is None or (s, size) < best):
                    best = (s, size)
                    best_ids = [c.id for c in combo]
        if best is not None:
            return ga.defend(best_ids)
        return ga.defend(c.id for c in cards)  # too weak to stop it: soften it as much as possible


if __name__ == "__main__":
    run(HeuristicBot())
