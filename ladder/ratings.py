"""TrueSkill ratings per bot version and game, updated from match ranks (ties allowed)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import trueskill

ENV = trueskill.TrueSkill(mu=25.0, sigma=25.0 / 3, beta=25.0 / 6, tau=25.0 / 300, draw_probability=0.1)


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """The rating leaderboards sort by: mu - 3 sigma."""
        return self.mu - 3 * self.sigma


INITIAL = Skill(ENV.mu, ENV.sigma)


def update(skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    """New skills after one match; ``ranks`` are 1-based competition ranks, equal ranks tie."""
    groups = [(ENV.create_rating(s.mu, s.sigma),) for s in skills]
    rated = ENV.rate(groups, ranks=[r - 1 for r in ranks])
    return [Skill(g[0].mu, g[0].sigma) for g in rated]


def misorder(above: Skill, below: Skill) -> float:
    """The chance that ``above``, ahead of ``below`` by mu, is in truth the weaker: their skills' difference below zero."""
    spread = math.sqrt(2 * (above.sigma**2 + below.sigma**2))
    if spread == 0:
        return 0.5 if above.mu == below.mu else float(above.mu < below.mu)
    return 0.5 * math.erfc((above.mu - below.mu) / spread)


def quality(skills: Iterable[Skill]) -> float:
    """TrueSkill's match quality: the draw probability of these players, 1 for a perfect match."""
    return float(ENV.quality([(ENV.create_rating(s.mu, s.sigma),) for s in skills]))


def set_ranks(results: Iterable[Iterable[tuple[int, int]]], order: Sequence[int]) -> list[int]:
    """Ranks of the bots of a duplicate set (``order``: their ids) from each of its matches' (id, rank) pairs.

    By the sum of each bot's ranks over the set, lower first; equal sums tie. A deal that decided
    the winner whatever the seats (one win each) is then one draw, not two results that cancel
    while shrinking both sigmas twice.
    """
    total = dict.fromkeys(order, 0)
    for match in results:
        for bot, rank in match:
            total[bot] += rank
    return [1 + sum(1 for other in order if total[other] < total[bot]) for bot in order]
