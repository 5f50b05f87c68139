"""A greedy General's War bot.

It always reveals its generals (more cards to fight with and to count at the
end of the round), attacks the opponent closest to elimination (four players),
keeps its aces out of battle while it has other cards, attacks with its single
strongest card, and defends with the cheapest squad that beats the attack's
likely power, throwing its single weakest card when it cannot win.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from arena_sdk import Bot, Request, run
from arena_sdk.games import generals_war as gw


class GreedyBot(Bot):
    name = "gw-greedy"
    version = "1.0.0"

    def act(self, request: Request) -> Any:
        choice = request.choice
        if request.kind == "reveal_choice":
            return gw.reveal(c.id for c in choice.revealable)
        if request.kind == "target_choice":
            players = request.view.players
            # Fight the opponent closest to elimination.
            best = max(choice.targets, key=lambda s: (players[s].defeat_points, -players[s].deck_size))
            return gw.target(best)
        cards = list(choice.playable)
        soldiers = [c for c in cards if c.rank != gw.ACE] or cards
        soldiers.sort(key=lambda c: c.rank)
        if choice.attacking:
            # Attack with the single strongest card, saving the rest: each battle costs the loser its squad.
            return gw.squad([soldiers[-1].id])
        expected = self._expected_attack(request, choice.opposing_squad_size)
        cheapest: tuple[Any, ...] | None = None
        for size in range(1, min(choice.max_cards, len(soldiers)) + 1):
            for combo in combinations(soldiers, size):
                total = sum(c.rank for c in combo)
                if total > expected and (cheapest is None or (len(combo), total) < (len(cheapest), sum(c.rank for c in cheapest))):
                    cheapest = combo
        if cheapest is None:
            return gw.squad([soldiers[0].id])
        return gw.squad(c.id for c in cheapest)

    @staticmethod
    def _expected_attack(request: Request, size: int) -> float:
        """The attacker's squad power if each face-down card is an average unseen card."""
        view = request.view
        attacker = view.players[view.attacker]
        seen = {c.id for c in attacker.dead} | {c.id for c in attacker.conquest}
        total_cards = 13 * len(attacker.suits)
        known_sum = sum(c.rank for c in attacker.dead) + sum(c.rank for c in attacker.conquest)
        unseen = max(1, total_cards - len(seen))
        mean = (7 * total_cards - known_sum) / unseen
        return float(mean * size)


if __name__ == "__main__":
    run(GreedyBot())
