"""How much stronger one bot is than another: an Elo difference, its 95% margin and the likelihood of superiority.

From counts of results in categories with a score each (sprt.TRINOMIAL per game, sprt.PENTANOMIAL per duplicate
pair): the mean score, its standard error from the spread of the categories, and both carried to the logistic Elo
scale. Counted by pairs, the luck of a deal that both seats played cancels out of the spread, and the margin is the
honest one; counted by games, the two games of a pair are taken as independent.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from referee.tournament.sprt import PENTANOMIAL, TRINOMIAL, score_to_elo

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


@dataclass(frozen=True)
class EloEstimate:
    samples: int  # games or pairs counted
    score: float  # the mean score per game, 0 to 1
    elo: float | None  # None when every result was a win (or a loss): the difference has no finite estimate
    margin: float | None  # half the width of the 95% interval in Elo; None when the interval reaches 0 or 1, or results all alike
    los: float | None  # likelihood of superiority: the probability that the first bot is the stronger, 0 to 1; None from results all alike


def estimate(counts: Sequence[int], values: Sequence[float]) -> EloEstimate | None:
    """The estimate from ``counts[i]`` results of score ``values[i]``; None when nothing was counted."""
    n = sum(counts)
    if n == 0:
        return None
    score = sum(c * v for c, v in zip(counts, values)) / n
    spread = sum(c * (v - score) ** 2 for c, v in zip(counts, values)) / n
    error = math.sqrt(spread / n)
    raw = score_to_elo(score)
    elo = raw if math.isfinite(raw) else None
    if sum(1 for c in counts if c) == 1:
        # Results all alike (one game or pair, or every one the same) have no spread to measure: the error would be 0,
        # "± 0" and a LOS of 0, 50 or 100% — two pairs that both scored ¾ read "Elo +191 ± 0 (95%), LOS 100.0%".
        return EloEstimate(n, score, elo, None, None)
    low, high = score_to_elo(score - Z95 * error), score_to_elo(score + Z95 * error)
    margin = (high - low) / 2 if math.isfinite(low) and math.isfinite(high) else None
    los = 0.5 * (1 + math.erf((score - 0.5) / (error * math.sqrt(2))))
    return EloEstimate(n, score, elo, margin, los)


def first_over_second(games: Iterable[tuple[Hashable, Sequence[int], Sequence[int]]]) -> tuple[list[int], Sequence[float]]:
    """Counts of bot 0's results against bot 1 in two-player games given as (deal, bot in each seat, ranks):
    by duplicate pair (PENTANOMIAL) when every deal was played twice, else by game (TRINOMIAL)."""
    by_deal: dict[Hashable, list[float]] = defaultdict(list)
    for deal, seats, ranks in games:
        mine, theirs = ranks[seats.index(0)], ranks[seats.index(1)]
        by_deal[deal].append(1.0 if mine < theirs else 0.5 if mine == theirs else 0.0)
    if by_deal and all(len(scores) == 2 for scores in by_deal.values()):
        pairs = [0] * len(PENTANOMIAL)
        for scores in by_deal.values():
            pairs[round(sum(scores) * 2)] += 1
        return pairs, PENTANOMIAL
    single = [0] * len(TRINOMIAL)
    for scores in by_deal.values():
        for s in scores:
            single[round(s * 2)] += 1
    return single, TRINOMIAL
