"""The ladder's matchmaking (ladder/scheduler.py ``choose_table``), without a database."""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import replace
from statistics import NormalDist

import pytest

from ladder.ratings import Skill, misorder
from ladder.scheduler import PLACEMENT_GAMES, RANDOM_SHARE, Entrant, choose_table, set_orders


def pool(games: list[int]) -> list[Entrant]:
    """Entrants 0, 1, ... with mu falling by id (0 is ranked first) and the given games played."""
    return [Entrant(i, f"bot{i}", Skill(30.0 - i, 2.0), g) for i, g in enumerate(games)]


def placed(mus: list[float], sigma: float = 0.5, games: int = 9) -> list[Entrant]:
    """Entrants 0, 1, ... past their placement, with the given mu."""
    return [Entrant(i, f"bot{i}", Skill(mu, sigma), games) for i, mu in enumerate(mus)]


#: Entrants in steps of 3 mu, but 4 and 5 level: the one pair whose order the ratings cannot tell.
OPEN_PAIR = [30.0, 27.0, 24.0, 21.0, 18.0, 18.0, 15.0, 12.0]


@pytest.mark.parametrize("n", [2, 4])
def test_an_entrant_in_its_placement_sits_at_every_table_of_distinct_entrants(n: int) -> None:
    rng = random.Random(1)
    for _ in range(300):
        games = [rng.randrange(PLACEMENT_GAMES, 40) for _ in range(8)]
        needy = rng.randrange(8)
        games[needy] = rng.randrange(PLACEMENT_GAMES)
        table = choose_table(pool(games), n, rng)
        ids = [e.version_id for e in table]
        assert len(ids) == n == len(set(ids))
        assert needy in ids


def test_ties_for_fewest_games_are_broken_at_random() -> None:
    rng = random.Random(2)
    focus_seen: Counter[int] = Counter()
    for _ in range(200):
        table = choose_table(pool([3, 0, 7, 0, 9, 8]), 2, rng)
        focus_seen.update(e.version_id for e in table if e.version_id in (1, 3))
    assert focus_seen[1] > 40 and focus_seen[3] > 40


def test_once_placed_most_tables_seat_the_pair_likeliest_in_the_wrong_order() -> None:
    rng = random.Random(3)
    draws = 4000
    tables = Counter(frozenset(e.version_id for e in choose_table(placed(OPEN_PAIR), 2, rng)) for _ in range(draws))
    # The open pair at every table but the random ones, and at 1 in 28 of those (a random focus, a random opponent).
    expected = (1 - RANDOM_SHARE + RANDOM_SHARE / 28) * draws
    assert abs(tables[frozenset({4, 5})] - expected) < 0.03 * draws, (tables, expected)
    # The random tables seat anyone: every one of the 28 pairs turns up.
    assert len(tables) == 28


def test_a_settled_pair_is_seldom_drawn_however_close_in_mu() -> None:
    """Neighbours one mu apart with narrow ratings are settled; the same pair with wide ones is open, as the level
    pair below them always is."""
    rng = random.Random(5)
    mus = [30.0, 29.0, 20.0, 20.0]
    narrow = Counter(frozenset(e.version_id for e in choose_table(placed(mus, sigma=0.2), 2, rng)) for _ in range(2000))
    wide = [Entrant(e.version_id, e.bot, Skill(e.skill.mu, 3.0 if e.version_id < 2 else 0.2), e.games) for e in placed(mus)]
    open_ = Counter(frozenset(e.version_id for e in choose_table(wide, 2, rng)) for _ in range(2000))
    # Settled: only the random tables (a fifth, of which a sixth seat this pair) draw it.
    assert narrow[frozenset({0, 1})] < 0.05 * 2000 < 0.3 * 2000 < open_[frozenset({0, 1})]
    assert narrow[frozenset({2, 3})] > 0.75 * 2000


def test_at_a_larger_table_the_pair_sits_with_the_entrants_around_it() -> None:
    rng = random.Random(4)
    tables = Counter(frozenset(e.version_id for e in choose_table(placed(OPEN_PAIR), 4, rng)) for _ in range(2000))
    assert tables.most_common(1)[0] == (frozenset({3, 4, 5, 6}), tables[frozenset({3, 4, 5, 6})])
    assert tables[frozenset({3, 4, 5, 6})] > 0.75 * 2000
    # A pair at the top of the order sits with the next two down.
    top = Counter(frozenset(e.version_id for e in choose_table(placed([30.0, 30.0, 24.0, 21.0, 18.0, 15.0]), 4, rng)) for _ in range(500))
    assert top.most_common(1)[0][0] == frozenset({0, 1, 2, 3})


def test_misorder_is_a_coin_toss_for_equals_and_falls_with_the_gap() -> None:
    a, b = Skill(25.0, 2.0), Skill(25.0, 2.0)
    assert misorder(a, b) == pytest.approx(0.5)
    gaps = [misorder(Skill(25.0 + d, 2.0), b) for d in (0.5, 1.0, 2.0, 4.0)]
    assert gaps == sorted(gaps, reverse=True) and gaps[-1] < 0.1
    assert misorder(Skill(27.0, 1.0), b) + misorder(b, Skill(27.0, 1.0)) == pytest.approx(1.0)
    assert misorder(Skill(26.0, 0.0), Skill(25.0, 0.0)) == 0.0


def test_misorder_is_the_chance_that_the_difference_of_the_two_skills_is_below_zero() -> None:
    """Each skill is normal(mu, sigma): the chance that the one ahead by mu is the weaker, by the normal law itself."""
    for above, below in ((Skill(26.0, 0.5), Skill(25.0, 0.5)), (Skill(30.0, 3.0), Skill(24.0, 1.0))):
        expected = NormalDist(above.mu - below.mu, math.hypot(above.sigma, below.sigma)).cdf(0)
        assert misorder(above, below) == pytest.approx(expected)


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_a_duplicate_set_gives_every_bot_every_seat_once(n: int) -> None:
    bots = list(range(10, 10 + n))
    orders = set_orders(bots)
    assert len(orders) == n and orders[0] == bots
    for seat in range(n):
        assert sorted(order[seat] for order in orders) == bots
    if n == 2:
        assert orders[1] == bots[::-1]  # at two seats, the order and its reverse


def test_the_neighbours_are_those_in_the_order_by_mu_whatever_the_order_of_entry() -> None:
    """Entered (version ids) in another order than their mu: the open pair is still the two level in mu, not two
    entered one after the other."""
    mus = [18.0, 30.0, 12.0, 24.0, 18.0, 27.0, 15.0, 21.0]  # 0 and 4 level; each id's neighbours by id far apart in mu
    rng = random.Random(6)
    tables = Counter(frozenset(e.version_id for e in choose_table(placed(mus), 2, rng, random_share=0.0)) for _ in range(300))
    assert tables[frozenset({0, 4})] > 0.9 * 300, tables


def test_placement_ends_at_placement_games() -> None:
    """An entrant with PLACEMENT_GAMES games is placed: its tables are the neighbours', not opponents at random."""
    rng = random.Random(7)
    done = [Entrant(e.version_id, e.bot, e.skill, PLACEMENT_GAMES) for e in placed(OPEN_PAIR)]
    tables = Counter(frozenset(e.version_id for e in choose_table(done, 2, rng, random_share=0.0)) for _ in range(300))
    assert tables[frozenset({4, 5})] > 0.9 * 300, tables
    still = [replace(e, games=PLACEMENT_GAMES - 1) if e.version_id == 0 else e for e in done]
    assert all(0 in {e.version_id for e in choose_table(still, 2, rng, random_share=0.0)} for _ in range(100))
