"""Standings from match results: TrueSkill, wins/draws/losses, points and a head-to-head crosstable.

Outcomes of one game, for every number of players:

* a bot *wins* when it is ranked first alone, *draws* when it shares first
  place, and *loses* otherwise (so in a four-player game three bots lose);
* its *points* are the share of its opponents it finished ahead of, a tie
  counting half: ``(ahead + ties / 2) / (players - 1)``; for two players that is
  1, ½ or 0;
* the crosstable compares every two bots that sat at the same table: A beat B
  when A's rank is better, a tie is a draw. For two players it is the same as
  the win/draw/loss count.

TrueSkill rates each game as a free-for-all of one-bot teams ranked by the
game's ranks (equal ranks are a draw), in schedule order. Bots are sorted by
the conservative rating μ − 3σ.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from ladder.ratings import INITIAL, Skill, update


def game_points(ranks: Sequence[int]) -> list[float]:
    """Per seat: the share of the other seats it finished ahead of, a tie counting half."""
    n = len(ranks)
    if n < 2:
        return [0.0] * n
    return [
        (sum(1 for o in ranks if o > r) + 0.5 * (sum(1 for o in ranks if o == r) - 1)) / (n - 1) for r in ranks
    ]


def outcome(ranks: Sequence[int], seat: int) -> str:
    """``win`` (first alone), ``draw`` (first, tied) or ``loss``."""
    best = min(ranks)
    if ranks[seat] != best:
        return "loss"
    return "win" if list(ranks).count(best) == 1 else "draw"


@dataclass(frozen=True)
class GameResult:
    """What standings need from one match: the bot in each seat and each seat's rank."""

    seats: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeited: tuple[bool, ...] = ()


@dataclass
class HeadToHead:
    """One bot's record against one other bot, over the games they played together."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws


@dataclass
class Standing:
    bot: int
    mu: float = INITIAL.mu
    sigma: float = INITIAL.sigma
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    rank_sum: int = 0
    games: int = 0
    forfeits: int = 0

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def avg_rank(self) -> float | None:
        """None for a bot that played no game (a swiss bye of a one-round event): 0.0 read as better than first."""
        return self.rank_sum / self.games if self.games else None


@dataclass
class Standings:
    rows: list[Standing]  # best first
    crosstable: dict[tuple[int, int], HeadToHead] = field(default_factory=dict)  # (a, b): a's record against b

    def against(self, a: int, b: int) -> HeadToHead:
        return self.crosstable.get((a, b), HeadToHead())


def compute_standings(num_bots: int, results: Iterable[GameResult]) -> Standings:
    """Standings after ``results``, which must come in schedule order (TrueSkill depends on the order)."""
    tally = Tally(num_bots)
    for res in results:
        tally.add(res)
    return tally.standings()


class Tally:
    """Standings built one game at a time, in schedule order: each game is rated once, when it is added."""

    def __init__(self, num_bots: int) -> None:
        self.ratings: list[Skill] = [INITIAL] * num_bots
        self.rows = [Standing(b) for b in range(num_bots)]  # by bot
        self.cross: dict[tuple[int, int], HeadToHead] = {}

    def copy(self) -> Tally:
        other = Tally(0)
        other.ratings = list(self.ratings)
        other.rows = [replace(row) for row in self.rows]
        other.cross = {pair: replace(h2h) for pair, h2h in self.cross.items()}
        return other

    def add(self, res: GameResult) -> None:
        if len(set(res.seats)) != len(res.seats) or len(res.seats) != len(res.ranks):
            raise ValueError(f"a game needs distinct bots and one rank per seat: {res}")
        for bot, new in zip(res.seats, update([self.ratings[b] for b in res.seats], res.ranks)):
            self.ratings[bot] = new
        points = game_points(res.ranks)
        for seat, bot in enumerate(res.seats):
            row = self.rows[bot]
            kind = outcome(res.ranks, seat)
            row.wins += kind == "win"
            row.draws += kind == "draw"
            row.losses += kind == "loss"
            row.points += points[seat]
            row.rank_sum += res.ranks[seat]
            row.games += 1
            row.forfeits += bool(res.forfeited and res.forfeited[seat])
            for other_seat, other in enumerate(res.seats):
                if other == bot:
                    continue
                h2h = self.cross.setdefault((bot, other), HeadToHead())
                mine, theirs = res.ranks[seat], res.ranks[other_seat]
                h2h.wins += mine < theirs
                h2h.draws += mine == theirs
                h2h.losses += mine > theirs

    def standings(self) -> Standings:
        """The standings so far (best first), apart from this tally: adding to it later changes them not."""
        rows = [replace(row, mu=rating.mu, sigma=rating.sigma) for row, rating in zip(self.rows, self.ratings)]
        rows.sort(key=lambda r: (-r.conservative, -r.points, r.bot))
        return Standings(rows, {pair: replace(h2h) for pair, h2h in self.cross.items()})


class SoFar:
    """The standings of games that end in any order (``--concurrency`` above 1), rated in schedule order.

    The games up to the first one still playing are rated once, as they come; only those past it (about as many as
    run at once) are rated again at each look. Rating every game so far at each look, a 6-seat tournament reporting
    every few games spent seconds per report in the event loop the matches run on, charged to the bots' clocks.
    """

    def __init__(self, num_bots: int) -> None:
        self.tally = Tally(num_bots)
        self.next = 0  # the schedule index of the first game not yet rated in ``tally``
        self.waiting: dict[int, GameResult] = {}  # games past it, by index

    def add(self, index: int, result: GameResult) -> None:
        self.waiting[index] = result
        while self.next in self.waiting:
            self.tally.add(self.waiting.pop(self.next))
            self.next += 1

    def standings(self) -> Standings:
        if not self.waiting:
            return self.tally.standings()
        ahead = self.tally.copy()
        for index in sorted(self.waiting):
            ahead.add(self.waiting[index])
        return ahead.standings()
