"""A heuristic Glory bot.

Land in the Domain is where most Glory comes from, so it buys the most valuable
Land it can afford whenever it can, paying with the least money. It sends its
assassins at the weakest king, attacks only with a clear margin over the
defence it expects, repels attacks when its cards can, always thwarts, helps
the defender of an Attack a King when its cards make his defence hold (everyone
but the attacker draws back up to seven afterwards, so assistance costs little;
it never joins an attacker), and discards
its least useful cards, many at once when it holds an Ace.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from arena.v1 import glory_pb2
from arena_sdk import Bot, Request, run
from arena_sdk.games import glory as gl

#: DP a defender adds on average from his hand; a margin against the unknown.
EXPECTED_DEFENCE = 16
LOW_HP = 26


def best_lands(lands: list[Any], budget: int) -> list[Any]:
    """The most valuable set of Land worth at most ``budget``."""
    best: list[Any] = []
    cards = sorted(lands, key=gl.value, reverse=True)[:10]
    for size in range(1, len(cards) + 1):
        for combo in combinations(cards, size):
            worth = gl.total(combo)
            if worth <= budget and worth > gl.total(best):
                best = list(combo)
    return best


def smallest_reaching(cards: list[Any], need: int) -> list[Any] | None:
    """The cards of least total value whose sum reaches ``need``, fewest on ties (None if all of them fall short):
    a payment with the least overpayment, or the least that makes a defence hold."""
    if need <= 0:
        return []
    if gl.total(cards) < need:
        return None
    best: list[Any] | None = None
    pool = sorted(cards, key=gl.value, reverse=True)[:12]
    for size in range(1, len(pool) + 1):
        for combo in combinations(pool, size):
            worth = gl.total(combo)
            if worth >= need and (best is None or worth < gl.total(best)):
                best = list(combo)
    return best


class HeuristicBot(Bot):
    name = "glory-heuristic"
    version = "1.0.0"

    def act(self, request: Request) -> Any:
        kind, choice, view = request.kind, request.choice, request.view
        if kind == "turn_choice":
            return self.turn(choice, view)
        if kind == "offer_choice":
            return gl.offers()
        if kind == "assist_choice":
            return self.assist(choice)
        if kind == "defend_choice":
            return self.defend(choice, view)
        if kind == "thwart_choice":
            assassins = list(choice.assassins)
            return gl.thwart(assassins[: choice.required] if len(assassins) >= choice.required else [])
        if kind == "more_assassins_choice":
            return gl.more_assassins(choice.assassins)
        return gl.start_round()

    # --- the turn ---------------------------------------------------------------------

    def turn(self, choice: Any, view: Any) -> Any:
        me = view.players[view.seat]
        hand = list(choice.hand)
        if not hand:
            return gl.pass_turn()
        health = sorted(choice.health, key=gl.value, reverse=True)
        if health and me.hp <= LOW_HP:
            return gl.heal(health[0])
        treasury = list(choice.treasury)
        lands = best_lands(list(choice.lands), gl.total(treasury))
        if lands:
            payment = smallest_reaching(treasury, gl.total(lands))
            if payment is not None:
                return gl.buy_land(lands, payment)
        players = view.players
        if choice.assassins and choice.king_targets:
            target = min(choice.king_targets, key=lambda s: (players[s].hp, -players[s].land_value, -players[s].glory))
            return gl.assassinate(target, choice.assassins)
        attack = self.attack(choice, view)
        if attack is not None:
            return attack
        if health and me.hp <= 50 - gl.half_up(gl.value(health[0])):
            return gl.heal(health[0])
        return self.discard(choice, view)

    def attack(self, choice: Any, view: Any) -> Any:
        fighters = list(choice.generals) + list(choice.soldiers)
        if not choice.generals:
            return None
        power = gl.total(fighters)
        players = view.players
        best: tuple[float, Any] | None = None
        for s in choice.conquer_targets:
            p = players[s]
            lowest = min(gl.value(c) for c in p.domain)
            margin = power - (2 * len(p.domain) + EXPECTED_DEFENCE * min(1.0, p.hand_size / 7))
            if margin > 6 and lowest >= 3:
                score = 2 + 2 * lowest
                if best is None or score > best[0]:
                    best = (score, gl.conquer_land(s, fighters))
        for s in choice.king_targets:
            p = players[s]
            others = len(players) - 2
            margin = power - (2 * len(p.domain) + EXPECTED_DEFENCE * min(1.0, p.hand_size / 7) + 4 * others)
            if margin > 8:
                score = 5 + (p.land_value if p.hp <= power - 2 * len(p.domain) else 0)
                if best is None or score > best[0]:
                    best = (score, gl.attack_king(s, fighters))
        return None if best is None else best[1]

    def discard(self, choice: Any, view: Any) -> Any:
        me = view.players[view.seat]
        budget = gl.total(choice.treasury)

        def keep(card: Any) -> float:
            v = gl.value(card)
            if gl.is_assassin(card):
                return 100
            if gl.is_general(card):
                return 40 + v
            if gl.is_land(card):
                return 20 + v if v <= budget + 6 else v
            if gl.is_soldier(card):
                return 10 + v
            if gl.is_health(card):
                return 30 + v if me.hp < 30 else v / 2
            return v

        hand = sorted(choice.hand, key=keep)
        aces = list(choice.aces)
        if aces:
            ace = min(aces, key=keep)
            junk = [c for c in hand if c.id != ace.id and keep(c) < 15]
            return gl.discard([ace] + junk)
        return gl.discard([hand[0]])

    # --- other players' attacks ---------------------------------------------------------

    def assist(self, choice: Any) -> Any:
        playable = list(choice.playable)
        if not playable:
            return gl.decline_assist()
        # The defender's own cards come last: help him when our cards make the defence hold already.
        need = choice.attack_points - choice.defence_points + 4
        cards = smallest_reaching(playable, need)
        if cards is not None:
            return gl.assist(choice.defender, cards or [min(playable, key=gl.value)])
        return gl.decline_assist()

    def defend(self, choice: Any, view: Any) -> Any:
        playable = list(choice.playable)
        need = choice.attack_points - choice.defence_points  # DP equal to AP repels the attack
        cards = smallest_reaching(playable, need)
        if cards is not None:
            return gl.defend(cards)
        me = view.players[view.seat]
        if choice.kind == glory_pb2.ATTACK_KING and me.hp <= need:
            return gl.defend(playable)  # cut the damage to stay alive if we can
        return gl.defend()


if __name__ == "__main__":
    run(HeuristicBot())
