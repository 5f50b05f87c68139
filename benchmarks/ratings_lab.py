"""Pairing and rating schemes tried in seconds: benchmarks/ratings.py's race replayed from matches played beforehand.

Section 4 plays every match of its 48 runs for real (24 seeds a scheme, medians that swing by a fifth).
Here the family's matches are played once, as duplicate sets of every table the race can seat (each pair at two
seats, each four bots at four, the rotations of a shuffled order on one deal), and a run draws its sets from that
store, each table's in a shuffled cycle of its own. The race is ``converge``'s: the same TrueSkill, ``set_ranks``,
``choose_table`` and figure (games per bot until Kendall's tau >= 0.9 holds for HOLD more), over hundreds of seeds.

    python -m benchmarks.ratings_lab play lab.json --pairs 400 --fours 100   # about 15 minutes on two cores
    python -m benchmarks.ratings_lab luck lab.json                           # how much of a result the deal decides
    python -m benchmarks.ratings_lab race lab.json --seeds 96:288 --schemes ladder,trueskill-random,focus-neighbours
    python -m benchmarks.ratings_lab race lab.json --seeds 96:288 --schemes ladder --rating match   # each match rated alone

The store is a sample: a scheme that plays one table far more often than the race's share of it sees that
table's own few hundred sets again and again, so compare schemes on one store and check a choice with section 4.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import multiprocessing
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from benchmarks.ratings import NOISES, Family, kendall_tau, quartiles, reached
from ladder.ratings import INITIAL, set_ranks, update
from ladder.scheduler import Entrant, choose_table
from referee.tournament.schedule import rotations

N = len(NOISES)
#: Games per bot a race may run to, as section 4's.
CAP = 250
#: A duplicate set: each match's seat order (bot indices) and ranks.
DupSet = list[tuple[list[int], list[int]]]
Chooser = Callable[[list[Entrant], int, random.Random], list[Entrant]]


def _play_table(job: tuple[tuple[int, ...], int, int]) -> tuple[tuple[int, ...], list[DupSet]]:
    bots, sets, seed = job
    family, rng = Family(seed), random.Random(seed)
    out = []
    for _ in range(sets):
        base = list(bots)
        rng.shuffle(base)
        deal = rng.randrange(2**31)
        out.append([(list(order), family.play(list(order), deal)) for order in rotations(base)])
    return bots, out


def play(path: Path, pairs: int, fours: int, workers: int = 2) -> None:
    """Play ``pairs`` sets of every pair at two seats and ``fours`` of every four bots at four; write them to ``path``."""
    jobs: list[tuple[tuple[int, ...], int, int]] = [(bots, pairs, 7000 + i) for i, bots in enumerate(itertools.combinations(range(N), 2))]
    jobs += [(bots, fours, 8000 + i) for i, bots in enumerate(itertools.combinations(range(N), 4))]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        store = {",".join(map(str, bots)): sets for bots, sets in pool.map(_play_table, jobs)}
    path.write_text(json.dumps(store))


def load(path: Path) -> dict[tuple[int, ...], list[DupSet]]:
    raw = json.loads(path.read_text())
    return {tuple(int(b) for b in key.split(",")): [[(list(o), list(r)) for o, r in s] for s in sets] for key, sets in raw.items()}


def luck(store: dict[tuple[int, ...], list[DupSet]]) -> None:
    """How much of a result the deal decides, which is all a duplicate set can cancel.

    Two seats: the correlation of a pair's two results in a set (-1: the cards decide, 0: the deal tells nothing),
    and the information a set's two matches carry over two independent ones, 1 / (1 + rho). Four seats: the
    variance of a bot's mean rank over a set's four rotations against a quarter of its rank's variance (1: the
    deal tells nothing).
    """
    for (a, b), sets in sorted((k, v) for k, v in store.items() if len(k) == 2):
        first, second = ([1.0 if r[o.index(a)] < r[o.index(b)] else 0.5 if r[o.index(a)] == r[o.index(b)] else 0.0 for o, r in s] for s in zip(*sets))
        rho = statistics.correlation(first, second)
        if b == a + 1:
            print(f"two seats, {a} against {b}: {a} wins {statistics.mean(first + second):.3f}, rho {rho:+.3f}, a set worth {1 / (1 + rho):.2f} independent pairs")
    ratios = []
    for bots, sets in store.items():
        if len(bots) != 4:
            continue
        for bot in bots:
            per_set = [[r[o.index(bot)] for o, r in s] for s in sets]
            ratios.append(statistics.pvariance([statistics.mean(p) for p in per_set]) / (statistics.pvariance(sum(per_set, [])) / 4))
    print(f"four seats: variance of a bot's mean rank over a set / a quarter of its rank's variance: {statistics.mean(ratios):.3f}")


def focus_neighbours(pool: list[Entrant], n: int, rng: random.Random) -> list[Entrant]:
    """The ladder's matchmaking until the nineteenth round: the entrant with the fewest games, at half the tables
    with its neighbours in the order by mu, at the others with opponents drawn at random."""
    focus = min(pool, key=lambda e: (e.games, rng.random()))
    if rng.random() < 0.5:
        table = [focus, *rng.sample([e for e in pool if e is not focus], n - 1)]
    else:
        ranked = sorted(pool, key=lambda e: (-e.skill.mu, e.version_id))
        at = ranked.index(focus)
        start = max(0, min(at - n // 2, len(ranked) - n))
        table = ranked[start:start + n]
    rng.shuffle(table)
    return table


def oracle(pool: list[Entrant], n: int, rng: random.Random) -> list[Entrant]:
    """Knows the true order (index 0 strongest): seats true neighbours, the close pairs at the weak end three times as often."""
    ranked = sorted(pool, key=lambda e: e.version_id)
    at = rng.choices(range(len(ranked) - 1), weights=[1.0 if i >= 3 else 0.3 for i in range(len(ranked) - 1)])[0]
    start = max(0, min(at - (n - 2) // 2, len(ranked) - n))
    table = ranked[start:start + n]
    rng.shuffle(table)
    return table


SCHEMES: dict[str, Chooser | None] = {
    "trueskill-random": None,  # random tables, one match of a fresh deal, rated alone
    "ladder": choose_table,
    "ladder-10": functools.partial(choose_table, random_share=0.1),
    "ladder-30": functools.partial(choose_table, random_share=0.3),
    "focus-neighbours": focus_neighbours,
    "oracle": oracle,
}
#: How a duplicate set is rated: as one comparison, each bot's ranks summed (the ladder), or each match on its own, in turn.
RATINGS = ("set", "match")


def race(
    store: dict[tuple[int, ...], list[DupSet]],
    scheme: str,
    seed: int,
    cap: int = CAP,
    by_mu: bool = False,
    rating: str = "set",
    replace: bool = False,
) -> float | None:
    """``converge`` from the store: games per bot from which tau stays >= TAU for HOLD more; None if not within ``cap``.

    ``rating``: a duplicate set rated as one comparison ("set", as the ladder does) or each match on its own ("match").
    Tau is taken after every rating update: a set's matches rated one by one move the order after each, which a
    spectator sees, and a dip between them counts.

    Each table's sets are drawn in a shuffled cycle, or with ``replace`` at random with replacement. A cycle
    could favour a scheme that seats a few tables often (its draws of them average out to the store's own rate
    faster than fresh matches would); on seeds 96-479 both ways gave the same figures within the noise
    (benchmarks/CHANGES.md, nineteenth round)."""
    chooser = SCHEMES[scheme]
    rng, draws = random.Random(seed), random.Random(seed + 99991)
    cycles: dict[tuple[int, ...], list[int]] = {}
    skills, games = [INITIAL] * N, [0] * N
    history: list[tuple[float, float]] = []

    def next_set(bots: Sequence[int]) -> DupSet:
        key = tuple(sorted(bots))
        if replace:
            return store[key][draws.randrange(len(store[key]))]
        if not cycles.get(key):
            cycles[key] = draws.sample(range(len(store[key])), len(store[key]))
        return store[key][cycles[key].pop()]

    def rate(order: list[int], ranks: list[int], played: int) -> None:
        for b, skill in zip(order, update([skills[b] for b in order], ranks)):
            skills[b], games[b] = skill, games[b] + played
        key: Callable[[int], float] = (lambda b: -skills[b].mu) if by_mu else (lambda b: -skills[b].conservative)
        history.append((sum(games) / N, kendall_tau(sorted(range(N), key=key))))

    while sum(games) / N < cap:
        size = rng.choice((2, 4))
        if chooser is None:
            rate(*rng.choice(next_set(rng.sample(range(N), size))), 1)
            continue
        table = chooser([Entrant(b, str(b), skills[b], games[b]) for b in range(N)], size, rng)
        dup = next_set([e.version_id for e in table])
        if rating == "match":
            for order, ranks in dup:
                rate(order, ranks, 1)
        else:
            order = dup[-1][0]
            rate(order, set_ranks([list(zip(o, r)) for o, r in dup], order), len(dup))
    return reached(history)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ratings_lab", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    p = sub.add_parser("play", help="play the store")
    p.add_argument("store", type=Path)
    p.add_argument("--pairs", type=int, default=400, help="sets of each pair at two seats")
    p.add_argument("--fours", type=int, default=100, help="sets of each four bots at four seats")
    p.add_argument("--workers", type=int, default=2)
    p = sub.add_parser("luck", help="how much of a result the deal decides")
    p.add_argument("store", type=Path)
    p = sub.add_parser("race", help="games per bot each scheme needs, over many seeds")
    p.add_argument("store", type=Path)
    p.add_argument("--seeds", default="0:96", help="FIRST:END")
    p.add_argument("--schemes", default="trueskill-random,ladder", help=f"any of {', '.join(SCHEMES)}")
    p.add_argument("--by-mu", action="store_true", help="order by mu rather than mu - 3 sigma")
    p.add_argument("--rating", choices=RATINGS, default="set", help="a duplicate set rated as one comparison (the ladder) or match by match")
    p.add_argument("--replace", action="store_true", help="draw each table's sets with replacement rather than in a shuffled cycle")
    args = parser.parse_args(argv)
    if args.verb == "play":
        play(args.store, args.pairs, args.fours, args.workers)
        return
    store = load(args.store)
    if args.verb == "luck":
        luck(store)
        return
    first, end = (int(x) for x in args.seeds.split(":"))
    schemes = args.schemes.split(",")
    for scheme in schemes:
        if scheme not in SCHEMES:
            parser.error(f"unknown scheme {scheme!r}: one of {', '.join(SCHEMES)}")
    for scheme in schemes:
        figures = [race(store, scheme, seed, by_mu=args.by_mu, rating=args.rating, replace=args.replace) for seed in range(first, end)]
        q1, median, q3 = (f"{q:.0f}" if q <= CAP else "beyond the cap" for q in quartiles(figures, CAP))
        print(f"{scheme}: median {median} games per bot (quartiles {q1}-{q3}), {sum(f is not None for f in figures)} of {len(figures)} runs got there")

if __name__ == "__main__":
    main(sys.argv[1:])
