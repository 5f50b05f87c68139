"""The greedy General's War, Glory and Generals & Assassins sample bots make the choices their docstrings describe.

Each test asks the bot at real decisions met in seeded random games and checks its answer against the documented
plan (the strength tests alone let a bot that attacked with its weakest card or bought the wrong land pass).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from arena.v1 import glory_pb2
from arena_sdk.games import generals_and_assassins as ga
from arena_sdk.games import glory as gl
from referee.games.generals_and_assassins import GeneralsAndAssassins
from referee.games.generals_and_assassins import types as gat
from referee.games.generals_war import GeneralsWar
from referee.games.generals_war import types as gwt
from referee.games.glory import Glory
from referee.games.glory import types as glt
from tests.games.sample_bot_states import answer, decisions
from tests.support import load_bot_class

GreedyBot = load_bot_class("generals_war_greedy", "GreedyBot")
GloryBot = load_bot_class("glory_heuristic", "HeuristicBot")
GLORY_EXPECTED_DEFENCE = load_bot_class("glory_heuristic", "EXPECTED_DEFENCE")
GABot = load_bot_class("generals_and_assassins_heuristic", "HeuristicBot")


def subsets(cards: list[Any], most: int | None = None) -> list[tuple[Any, ...]]:
    return [c for size in range(1, (most or len(cards)) + 1) for c in combinations(cards, size)]


# --- General's War ----------------------------------------------------------------------------


def test_greedy_targets_the_opponent_closest_to_elimination() -> None:
    seen = 0
    for game, seat, request in decisions(GeneralsWar, 4, range(3), "target_choice"):
        players = request.view.players
        action = answer(GreedyBot(), game, seat, request)
        assert isinstance(action, gwt.ChooseTarget)
        key = {s: (players[s].defeat_points, -players[s].deck_size) for s in request.choice.targets}
        assert key[action.target] == max(key.values()), (key, action)
        seen += len(set(key.values())) > 1
    assert seen >= 5  # decisions where the target matters


def test_greedy_attacks_with_its_strongest_card_but_never_an_ace_it_can_keep() -> None:
    for game, seat, request in decisions(GeneralsWar, 2, range(3), "squad_choice"):
        if not request.choice.attacking:
            continue
        ranks = {c.id: c.rank for c in request.choice.playable}
        soldiers = [r for r in ranks.values() if r != 1] or list(ranks.values())
        action = answer(GreedyBot(), game, seat, request)
        assert len(action.card_ids) == 1 and ranks[action.card_ids[0]] == max(soldiers), (ranks, action)


def test_greedy_defends_with_the_cheapest_squad_that_beats_the_expected_attack() -> None:
    wins = losses = 0
    for game, seat, request in decisions(GeneralsWar, 2, range(4), "squad_choice"):
        choice = request.choice
        if choice.attacking:
            continue
        expected = GreedyBot._expected_attack(request, choice.opposing_squad_size)
        attacker = request.view.players[request.view.attacker]
        if not attacker.dead and not attacker.conquest:
            assert expected == 7 * choice.opposing_squad_size  # the mean rank of a full suit
        ranks = {c.id: c.rank for c in choice.playable}
        soldiers = [i for i in ranks if ranks[i] != 1] or list(ranks)
        beating = [(len(s), sum(ranks[i] for i in s)) for s in subsets(soldiers, choice.max_cards) if sum(ranks[i] for i in s) > expected]
        action = answer(GreedyBot(), game, seat, request)
        assert set(action.card_ids) <= set(soldiers), (ranks, action)  # aces stay out while a soldier can go
        if beating:
            wins += 1
            assert (len(action.card_ids), sum(ranks[i] for i in action.card_ids)) == min(beating), (ranks, expected, action)
        else:
            losses += 1
            assert len(action.card_ids) == 1 and ranks[action.card_ids[0]] == min(ranks[i] for i in soldiers)
    assert wins and losses


# --- Glory ------------------------------------------------------------------------------------


def test_glory_always_thwarts_when_it_holds_enough_assassins() -> None:
    seen = 0
    for game, seat, request in decisions(Glory, 4, range(12), "thwart_choice"):
        choice = request.choice
        action = answer(GloryBot(), game, seat, request)
        enough = len(choice.assassins) >= choice.required
        assert len(action.card_ids) == (choice.required if enough else 0), (choice, action)
        seen += enough
    assert seen


def cheapest_total(cards: list[Any], need: int) -> int | None:
    totals = [gl.total(s) for s in subsets(cards) if gl.total(s) >= need]
    return min(totals, default=None)


def test_glory_defends_with_the_least_that_repels_and_with_everything_when_its_life_is_at_stake() -> None:
    repelled = desperate = 0
    for game, seat, request in decisions(Glory, 4, range(10), "defend_choice"):
        choice = request.choice
        playable = {c.id: c for c in choice.playable}
        need = choice.attack_points - choice.defence_points
        action = answer(GloryBot(), game, seat, request)
        used = gl.total(playable[i] for i in action.card_ids)
        least = cheapest_total(list(playable.values()), need) if need > 0 else 0
        if least is not None:
            repelled += need > 0
            assert used == least, (need, list(playable.values()), action)
        elif choice.kind == glory_pb2.ATTACK_KING and request.view.players[seat].hp <= need:
            desperate += 1
            assert set(action.card_ids) == set(playable), (need, action)
        else:
            assert action.card_ids == ()
    assert repelled and desperate


def test_glory_assists_a_defender_its_cards_save_and_never_an_attacker() -> None:
    helped = 0
    for game, seat, request in decisions(Glory, 4, range(10), "assist_choice"):
        choice = request.choice
        playable = {c.id: c for c in choice.playable}
        need = choice.attack_points - choice.defence_points + 4
        action = answer(GloryBot(), game, seat, request)
        least = cheapest_total(list(playable.values()), need)
        if playable and need <= 0:
            assert isinstance(action, glt.Assist) and len(action.card_ids) == 1
            assert gl.value(playable[action.card_ids[0]]) == min(gl.value(c) for c in playable.values())
        elif playable and least is not None:
            assert isinstance(action, glt.Assist), (need, action)
            assert gl.total(playable[i] for i in action.card_ids) == least
        else:
            assert isinstance(action, glt.DeclineAssist), (need, action)
        if isinstance(action, glt.Assist):
            helped += 1
            assert action.seat == choice.defender
    assert helped


def test_glory_turns_heal_when_low_buy_the_most_land_and_strike_the_weakest_king() -> None:
    healed = bought = assassinated = 0
    for game, seat, request in decisions(Glory, 4, range(8), "turn_choice"):
        choice, view = request.choice, request.view
        me = view.players[seat]
        action = answer(GloryBot(), game, seat, request)
        if not choice.hand:
            assert isinstance(action, glt.PassTurn)
            continue
        if choice.health and me.hp <= 26:
            healed += 1
            assert isinstance(action, glt.Heal) and gl.value(next(c for c in choice.health if c.id == action.card_id)) == max(gl.value(c) for c in choice.health)
            continue
        budget = gl.total(choice.treasury)
        most_land = max((gl.total(s) for s in subsets(list(choice.lands)) if gl.total(s) <= budget), default=0)
        if most_land:
            bought += 1
            assert isinstance(action, glt.BuyLand), (choice, action)
            lands = [c for c in choice.lands if c.id in action.land_ids]
            money = [c for c in choice.treasury if c.id in action.money_ids]
            assert gl.total(lands) == most_land
            assert gl.total(money) == min(gl.total(s) for s in subsets(list(choice.treasury)) if gl.total(s) >= most_land)
            continue
        if choice.assassins and choice.king_targets:
            assassinated += 1
            assert isinstance(action, glt.Assassinate)
            key = {s: (view.players[s].hp, -view.players[s].land_value, -view.players[s].glory) for s in choice.king_targets}
            assert key[action.target] == min(key.values())
    assert healed and bought and assassinated


def test_glory_attacks_only_with_a_clear_margin() -> None:
    attacks = 0
    for game, seat, request in decisions(Glory, 4, range(12), "turn_choice"):
        view = request.view
        action = answer(GloryBot(), game, seat, request)
        if not isinstance(action, (glt.ConquerLand, glt.AttackKing)):
            continue
        attacks += 1
        power = gl.total(c for c in request.choice.hand if c.id in action.card_ids)
        p = view.players[action.target]
        expected = 2 * len(p.domain) + GLORY_EXPECTED_DEFENCE * min(1.0, p.hand_size / 7)
        if isinstance(action, glt.ConquerLand):
            assert power - expected > 6 and min(gl.value(c) for c in p.domain) >= 3
        else:
            assert power - expected - 4 * (len(view.players) - 2) > 8
    assert attacks


def test_glory_discards_its_least_useful_cards() -> None:
    singles = aces = 0
    for game, seat, request in decisions(Glory, 4, range(8), "turn_choice"):
        choice = request.choice
        action = answer(GloryBot(), game, seat, request)
        if not isinstance(action, glt.Discard):
            continue
        gone = [c for c in choice.hand if c.id in action.card_ids]
        if not choice.aces:
            singles += 1
            assert len(gone) == 1
            if any(not gl.is_assassin(c) for c in choice.hand):
                assert not gl.is_assassin(gone[0])
            if any(gl.is_soldier(c) or gl.is_money(c) for c in choice.hand):
                assert not gl.is_general(gone[0])
        else:
            aces += 1
            cheap_soldiers = [c.id for c in choice.hand if gl.is_soldier(c) and gl.value(c) < 5]
            assert set(cheap_soldiers) <= set(action.card_ids), (choice.hand, action)
    assert singles and aces


# --- Generals & Assassins -------------------------------------------------------------------------


def test_ga_always_blocks_an_assassin_when_it_holds_one() -> None:
    blocked = 0
    for game, seat, request in decisions(GeneralsAndAssassins, 4, range(6), "assassin_choice"):
        action = answer(GABot(), game, seat, request)
        if request.choice.assassins:
            blocked += 1
            assert isinstance(action, gat.PlayAssassin)
    assert blocked


def test_ga_defends_with_the_cheapest_cards_that_stop_the_attack_or_with_all() -> None:
    stopped = softened = 0
    for game, seat, request in decisions(GeneralsAndAssassins, 4, range(6), "defence_choice"):
        choice = request.choice
        cards = {c.id: c for c in choice.cards}
        need = choice.attack_points - choice.defence_points
        action = answer(GABot(), game, seat, request)
        if need <= 0 or not cards:
            assert action.card_ids == ()
            continue
        reaching = [(ga.total(s), len(s)) for s in subsets(list(cards.values())) if ga.total(s) >= need]
        if reaching:
            stopped += 1
            assert (ga.total(cards[i] for i in action.card_ids), len(action.card_ids)) == min(reaching)
        else:
            softened += 1
            assert set(action.card_ids) == set(cards)
    assert stopped and softened


def test_ga_assists_the_side_that_offers_it_land_or_a_falling_defender_with_land() -> None:
    for_land = 0
    for game, seat, request in decisions(GeneralsAndAssassins, 4, range(12), "assist_choice"):
        choice = request.choice
        action = answer(GABot(), game, seat, request)
        offered = {ga.ATTACKER: 0, ga.DEFENDER: 0}
        for offer in request.view.battle.offers:
            if offer.to_seat == seat:
                offered[ga.ATTACKER if offer.from_seat == choice.attacker else ga.DEFENDER] += ga.total(offer.lands)
        if choice.cards and max(offered.values()) > 0:
            for_land += 1
            assert isinstance(action, gat.Assist) and offered[action.side] == max(offered.values()), (offered, action)
        elif isinstance(action, gat.Assist):
            assert action.side == ga.DEFENDER and request.view.players[choice.defender].land_value > 0
    assert for_land


def test_ga_turns_buy_the_most_land_for_least_money_heal_when_hurt_and_strike_only_clearly() -> None:
    bought = healed = struck = discarded = 0
    for game, seat, request in decisions(GeneralsAndAssassins, 4, range(6), "turn_choice"):
        choice = request.choice
        players = request.view.players
        action = answer(GABot(), game, seat, request)
        buys = ga.purchases(list(choice.money), list(choice.land))
        if isinstance(action, gat.BuyLand):
            bought += 1
            best = max((ga.total(ln), -ga.total(m)) for m, ln in buys)
            spent = ga.total(c for c in choice.money if c.id in action.money_ids)
            got = ga.total(c for c in choice.land if c.id in action.land_ids)
            assert (got, -spent) == best
        elif isinstance(action, gat.Heal):
            healed += 1
            assert ga.value(next(c for c in choice.health if c.id == action.card_id)) == max(ga.value(c) for c in choice.health)
        elif isinstance(action, gat.Attack):
            struck += 1
            force = ga.total(c for c in choice.hand if c.id in action.card_ids)
            margin = force - GABot._likely_defence(players[action.target])
            assert margin >= 12 or margin >= players[action.target].hp, (margin, action)
        elif isinstance(action, gat.Assassinate):
            if len(choice.assassins) < 2:  # the last assassin is spent only on a likely kill
                assert players[action.target].hp <= 25
        else:
            assert not buys, (buys, action)
            if choice.health and choice.hp <= 25:
                raise AssertionError(f"hurt at {choice.hp} HP but did not heal: {action}")
            if isinstance(action, gat.Discard) and not choice.aces:
                discarded += 1
                worth = {c.id: GABot._usefulness(c, choice.hp) for c in choice.hand}
                assert worth[action.card_ids[0]] == min(worth.values())
    assert bought and healed and struck and discarded
