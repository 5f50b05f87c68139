"""Who plays whom, in which seat, with which seed.

A *table* is a set of bots that play together (two for a two-player game,
``players`` in general), named by bot index in canonical order. A table plays
*duplicate deals*: one seed, played once per cyclic rotation of the seats, so
every bot of the table sits in every seat exactly once with the same cards
dealt (for two players: the seed is played again with the seats swapped). Card
luck cancels within a deal.

Every seed is derived from the tournament seed by hashing, so a schedule
depends only on (format, bots, players, games, seed) — never on the order in
which matches finish. All tables of one round play the same seed.

Match seeds are below ``SEED_BOUND`` (2**53), as every match seed the project draws: below 2**31 a bot could try
every seed against its first hand and read the rest of the deal. Tournaments saved before (``--save`` files that
name no ``seeds``) derived them below 2**31 (``SEED_BOUNDS[1]``), and go on with those.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from referee.server.seeds import SEED_BOUND
from referee.tournament.standings import game_points

FORMATS = ("round-robin", "gauntlet", "swiss")

#: Match seeds are below ``SEED_BOUNDS[v]`` in version ``v`` of their derivation; a tournament saved by an earlier
#: Arena (its file names no version) is version 1, and goes on with its own seeds.
SEED_BOUNDS = {1: 2**31, 2: SEED_BOUND}
#: The version new tournaments derive their seeds with.
SEEDS = 2

#: Points a swiss bye is worth, per game of the deal the bot sits out (the chess convention: a bye scores as a win).
BYE_POINTS_PER_GAME = 1.0
#: Tables the swiss pairing search may try per repeat budget before it gives up (each is a few dictionary look-ups).
SEARCH_LIMIT = 20_000
#: Swaps tried by the swiss pairing's local search (simulated annealing), for the rounds where its searches give up.
ANNEALING_STEPS = 30_000
#: The local search's first temperature, in repeated meetings (it cools to 0): a swap that repeats one more meeting is
#: taken at first with probability e⁻⁴.
ANNEALING_HEAT = 0.25


@dataclass(frozen=True)
class ScheduledGame:
    """One match of the schedule; results are ordered by ``index``, never by completion."""

    index: int
    round: int  # the deal round: every table of a round plays the same seed
    deal: int  # the duplicate deal this game belongs to (unique per table and round)
    table: tuple[int, ...]  # the bots of the table, canonical order
    seed: int
    seats: tuple[int, ...]  # the bot in each seat


def derive_seed(seed: int, *parts: object, seeds: int = SEEDS) -> int:
    """A match seed in [0, SEED_BOUNDS[seeds]) from the tournament seed and a label; stable across runs and platforms."""
    text = ":".join(map(str, (seed, *parts)))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") % SEED_BOUNDS[seeds]


def rotations(table: Sequence[int]) -> list[tuple[int, ...]]:
    """The seat orders of one duplicate deal: every cyclic rotation, so each bot plays each seat once."""
    t = tuple(table)
    return [t[r:] + t[:r] for r in range(len(t))]


def deals_for(games: int, players: int) -> int:
    """Duplicate deals needed for at least ``games`` games per table (a deal is ``players`` games)."""
    return max(1, -(-games // players))


def games_played(fmt: str, games: int, players: int) -> int:
    """The games per table ``--games`` plays in format ``fmt`` ("sprt" for an SPRT, whose tables are pairs): whole
    duplicate deals, rounded up, but in a swiss tournament, whose ``games`` are rounds."""
    if fmt == "swiss":
        return games
    per = 2 if fmt == "sprt" else players
    return deals_for(games, per) * per


def round_robin_tables(num_bots: int, players: int) -> list[tuple[int, ...]]:
    """Every combination of ``players`` bots (every pair, for two players)."""
    return list(combinations(range(num_bots), players))


def gauntlet_tables(num_bots: int, players: int) -> list[tuple[int, ...]]:
    """Bot 0 with every combination of ``players - 1`` of the others."""
    return [(0, *rest) for rest in combinations(range(1, num_bots), players - 1)]


def deal_games(
    tables: Sequence[tuple[int, ...]], round_no: int, seed: int, first_index: int, first_deal: int, seeds: int = SEEDS
) -> list[ScheduledGame]:
    """One round: every table plays one duplicate deal of the round's seed.

    At three seats or more, every other round seats its tables in the reverse order: the rotations of one order put
    every bot in every seat, but always just after the same neighbour (who acts, attacks or passes before it), as
    the ladder's shuffled tables do not.
    """
    deal_seed = derive_seed(seed, "round", round_no, seeds=seeds)
    out: list[ScheduledGame] = []
    for t, table in enumerate(tables):
        around = table[::-1] if len(table) > 2 and round_no % 2 else table
        for seats in rotations(around):
            out.append(ScheduledGame(first_index + len(out), round_no, first_deal + t, table, deal_seed, seats))
    return out


def fixed_schedule(fmt: str, num_bots: int, players: int, games: int, seed: int, seeds: int = SEEDS) -> list[ScheduledGame]:
    """The whole schedule of a round-robin or a gauntlet: ``games`` games per table, rounded up to whole deals."""
    if fmt == "round-robin":
        tables = round_robin_tables(num_bots, players)
    elif fmt == "gauntlet":
        tables = gauntlet_tables(num_bots, players)
    else:
        raise ValueError(f"{fmt} has no fixed schedule")
    out: list[ScheduledGame] = []
    for r in range(deals_for(games, players)):
        out.extend(deal_games(tables, r, seed, len(out), r * len(tables), seeds))
    return out


@dataclass
class SwissState:
    """Points, meetings and byes so far; ``pair`` makes the next round's tables."""

    num_bots: int
    players: int
    points: list[float] = field(default_factory=list)
    met: Counter[frozenset[int]] = field(default_factory=Counter)
    byes: Counter[int] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        if not self.points:
            self.points = [0.0] * self.num_bots

    def order(self) -> list[int]:
        """Standings order for pairing: most points first, then the order the bots were given in."""
        return sorted(range(self.num_bots), key=lambda b: (-self.points[b], b))

    def pair(self) -> tuple[list[tuple[int, ...]], list[int]]:
        """The next round's tables (each in canonical order) and the bots sitting it out."""
        return swiss_tables(self.order(), self.players, self.met, self.byes)

    def record_round(self, tables: Iterable[tuple[int, ...]], bye: Iterable[int]) -> None:
        for table in tables:
            for a, b in combinations(table, 2):
                self.met[frozenset((a, b))] += 1
        for b in bye:
            self.byes[b] += 1
            self.points[b] += BYE_POINTS_PER_GAME * self.players

    def record_game(self, seats: Sequence[int], ranks: Sequence[int]) -> None:
        for bot, pts in zip(seats, game_points(ranks)):
            self.points[bot] += pts


def swiss_tables(
    order: Sequence[int], players: int, met: Mapping[frozenset[int], int], byes: Mapping[int, int]
) -> tuple[list[tuple[int, ...]], list[int]]:
    """Tables for one swiss round from the standings ``order`` (best first).

    Bots left over when the field does not divide into tables sit out (a bye):
    those with the fewest byes so far, lowest in the standings first. The rest
    are seated top down: the best unseated bot with the nearest bots below it
    (Monrad-style), searching for the seating that repeats the fewest earlier
    meetings — none when that is possible. When the top-down search gives up
    (late rounds of a large field), the most constrained bots are seated first;
    when that gives up too, the nearest-neighbour seating is improved by swaps
    of bots between tables (a seeded simulated annealing), unless a search
    finds a seating with as few repeats.
    """
    position = {b: i for i, b in enumerate(order)}
    sit_out = len(order) % players
    bye = sorted(order, key=lambda b: (byes.get(b, 0), -position[b]))[:sit_out]
    seated = [b for b in order if b not in bye]

    def cost(table: Sequence[int]) -> int:
        return sum(met.get(frozenset(p), 0) for p in combinations(table, 2))

    def unmet(bot: int, among: list[int]) -> int:
        return sum(1 for o in among if o != bot and not met.get(frozenset((bot, o)), 0))

    def search(rest: list[int], budget: int, tries: list[int], tight: bool = False) -> list[tuple[int, ...]] | None:
        """Seatings of ``rest`` repeating at most ``budget`` meetings, the first found; None past ``tries`` tables tried.

        ``tight``: seat first the bot with the fewest others it has not met (the nearest of them first), and give up on
        a branch that leaves a bot too few of them when no repeat is left to spend.
        """
        if not rest:
            return []
        if tight:
            first = min(rest, key=lambda b: (unmet(b, rest), position[b]))
            others = sorted((b for b in rest if b != first), key=lambda b: (abs(position[b] - position[first]), position[b]))
        else:
            first, others = rest[0], rest[1:]
        for picked in combinations(range(len(others)), players - 1):
            tries[0] -= 1  # every table tried counts, also one over the budget: their number grows fast with the table
            if tries[0] < 0:
                return None
            table = (first, *(others[i] for i in picked))
            c = cost(table)
            if c > budget:
                continue
            remaining = [b for i, b in enumerate(others) if i not in picked]
            if tight and budget == c and any(unmet(b, remaining) < players - 1 for b in remaining):
                continue
            found = search(remaining, budget - c, tries, tight)
            if found is not None:
                return [table, *found]
        return None

    def spread(table: Sequence[int]) -> int:
        return max(position[b] for b in table) - min(position[b] for b in table)

    def swapped(tables: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
        """``tables`` after swapping bots between them while that repeats fewer meetings (or as many, the tables'
        standings nearer): swaps for worse seatings are taken too, less and less often (simulated annealing from a
        fixed seed, so the seating depends on the standings only), and the best seating met is kept."""
        rng = random.Random(0)
        seating = [list(t) for t in tables]
        keys = [(cost(t), spread(t)) for t in seating]
        repeats, spreads = sum(k[0] for k in keys), sum(k[1] for k in keys)
        best, best_key = [t[:] for t in seating], (repeats, spreads)
        for step in range(ANNEALING_STEPS if len(seating) > 1 else 0):
            i, j = rng.sample(range(len(seating)), 2)
            a, b = rng.randrange(players), rng.randrange(players)
            ti, tj = seating[i][:], seating[j][:]
            ti[a], tj[b] = tj[b], ti[a]
            ki, kj = (cost(ti), spread(ti)), (cost(tj), spread(tj))
            # a repeat weighs as much as the widest spread of standings a table can have
            delta = (ki[0] + kj[0] - keys[i][0] - keys[j][0]) * len(order) + ki[1] + kj[1] - keys[i][1] - keys[j][1]
            heat = ANNEALING_HEAT * len(order) * (1 - step / ANNEALING_STEPS)
            if delta <= 0 or (heat > 0 and rng.random() < math.exp(-delta / heat)):
                repeats += ki[0] + kj[0] - keys[i][0] - keys[j][0]
                spreads += ki[1] + kj[1] - keys[i][1] - keys[j][1]
                seating[i], seating[j], keys[i], keys[j] = ti, tj, ki, kj
                if (repeats, spreads) < best_key:
                    best, best_key = [t[:] for t in seating], (repeats, spreads)
        return [tuple(t) for t in best]

    fallback: list[tuple[int, ...]] | None = None
    fallback_repeats = 0
    budget = 0
    while True:
        tries = [SEARCH_LIMIT]
        found = search(seated, budget, tries)
        if found is None and tries[0] < 0:  # gave up rather than found none: top-down misses seatings a late round has
            found = search(seated, budget, [SEARCH_LIMIT], tight=True)
            if found is None and fallback is None:
                fallback = swapped([tuple(seated[i : i + players]) for i in range(0, len(seated), players)])
                fallback_repeats = sum(cost(t) for t in fallback)
        if found is not None:
            tables = found
            break
        if fallback is not None and budget >= fallback_repeats:
            tables = fallback  # the searches found nothing with fewer repeats
            break
        budget += 1  # none with this few repeats exists, or the searches gave up below the local search's repeats
    return [tuple(sorted(t)) for t in tables], sorted(bye)
