"""A sequential probability ratio test: is bot A stronger than bot B?

Hypotheses are Elo differences of A over B on the logistic scale: a difference
``elo`` means A's expected score per game is ``s(elo) = 1 / (1 + 10^(-elo/400))``
(win 1, draw ½, loss 0). H0 says ``elo = elo0``, H1 says ``elo = elo1``.

The test is a generalized SPRT (GSPRT). Results are counted in categories
with a score each:

* trinomial: each game is a loss, a draw or a win (scores 0, ½, 1);
* pentanomial: each duplicate pair (one deal, seats swapped) is scored by A's
  mean over its two games, 0, ¼, ½, ¾ or 1. The two games of a deal are
  correlated (same cards), so this is the model that matches how games are
  played; it is the default.

The probabilities of the categories are unknown, so each hypothesis is given
its best case: the distribution ``p`` over the categories that maximises the
likelihood of the observed counts ``n`` among all distributions whose mean
score is ``s``. Maximising ``Σ nᵢ log pᵢ`` subject to ``Σ pᵢ = 1`` and
``Σ pᵢ aᵢ = s`` (``aᵢ`` the category scores) with Lagrange multipliers gives

    pᵢ = p̂ᵢ / (1 + λ (aᵢ − s)),   p̂ᵢ = nᵢ / N,

where λ solves ``g(λ) = Σ p̂ᵢ (aᵢ − s) / (1 + λ (aᵢ − s)) = 0``. g decreases in
λ and every probability must stay non-negative, which confines λ to
``[−1 / (a_max − s), 1 / (s − a_min)]``. When the lowest (or highest) score
has not been observed yet, g may keep its sign over that whole interval; the
maximum is then on the boundary: λ sits at the end where ``1 + λ (a − s)``
vanishes for that unobserved extreme category, which takes the rest of the
probability (the KKT conditions of the problem). For example, a bot that won
every game: the best distribution with mean s is "win with probability s,
lose otherwise", and the LLR is ``N log(s1 / s0)``.

The log-likelihood ratio is then ``LLR = Σ nᵢ (log p1ᵢ − log p0ᵢ)``, and
Wald's bounds stop the test: H1 is accepted when ``LLR ≥ log((1 − β) / α)``,
H0 when ``LLR ≤ log(β / (1 − α))``, with α and β the false-positive and
false-negative rates.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

TRINOMIAL = (0.0, 0.5, 1.0)  # loss, draw, win
PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)  # A's mean score over a duplicate pair
MODELS = ("pentanomial", "trinomial")
#: The largest Elo difference a hypothesis may name: its expected score must stay strictly between 0 and 1 in floats.
MAX_ELO = 4000.0


def elo_to_score(elo: float) -> float:
    """Expected score per game of a bot ``elo`` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def score_to_elo(score: float) -> float:
    """The Elo difference that gives this expected score; ±inf at 1 and 0."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds: accept H0 at or below the lower, H1 at or above the upper."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _multiplier(freqs: Sequence[float], values: Sequence[float], s: float) -> tuple[float, int | None]:
    """λ of the constrained maximum-likelihood distribution with mean ``s`` (see the module docstring).

    Also the index of the unobserved extreme category that takes the missing mass, for a boundary solution.
    """
    lo_v, hi_v = min(values), max(values)
    if not lo_v < s < hi_v:
        raise ValueError(f"the mean {s} must lie strictly between the lowest and highest score")
    lo, hi = -1.0 / (hi_v - s), 1.0 / (s - lo_v)
    observed = [(f, a - s) for f, a in zip(freqs, values) if f > 0]

    def g(lam: float) -> float:
        return sum(f * d / (1.0 + lam * d) for f, d in observed)

    seen = {a for f, a in zip(freqs, values) if f > 0}
    if lo_v not in seen and g(hi) >= 0:
        return hi, list(values).index(lo_v)  # the unobserved lowest score takes the missing mass
    if hi_v not in seen and g(lo) <= 0:
        return lo, list(values).index(hi_v)  # the unobserved highest score takes it
    a, b = lo, hi
    for _ in range(200):
        mid = (a + b) / 2
        if mid in (a, b):
            break
        if g(mid) > 0:
            a = mid
        else:
            b = mid
    return (a + b) / 2, None


def mle(counts: Sequence[float], values: Sequence[float], s: float) -> list[float]:
    """The distribution over the categories with mean ``s`` under which ``counts`` are most likely."""
    total = sum(counts)
    if total <= 0:
        raise ValueError("no observations")
    freqs = [c / total for c in counts]
    lam, extreme = _multiplier(freqs, values, s)
    probs = [f / (1.0 + lam * (a - s)) if f > 0 else 0.0 for f, a in zip(freqs, values)]
    if extreme is not None:  # a boundary solution: the unobserved extreme category gets the rest
        probs[extreme] = max(0.0, 1.0 - sum(probs))
    return probs


def llr(counts: Sequence[float], values: Sequence[float], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) over H0 (``elo0``) for these category counts."""
    if sum(counts) <= 0:
        return 0.0
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    p0, p1 = mle(counts, values, s0), mle(counts, values, s1)
    return sum(n * (math.log(q1) - math.log(q0)) for n, q0, q1 in zip(counts, p0, p1) if n > 0)


@dataclass
class Sprt:
    """The running test over duplicate pairs; scores are A's (1 win, ½ draw, 0 loss)."""

    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "pentanomial"
    trinomial: list[int] = field(default_factory=lambda: [0, 0, 0])  # losses, draws, wins of A
    pentanomial: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])  # pairs by A's total: 0, ½, 1, 1½, 2

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"unknown SPRT model {self.model!r} (models: {', '.join(MODELS)})")
        for name, elo in (("elo0", self.elo0), ("elo1", self.elo1)):
            if not -MAX_ELO <= elo <= MAX_ELO:  # also nan
                raise ValueError(f"{name} must be between {-MAX_ELO:g} and {MAX_ELO:g}, not {elo:g}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({self.elo0:g}) must be below elo1 ({self.elo1:g})")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            # which one, and what it was: `--alpha 5` (a percentage) read only that both must be between 0 and 1
            raise ValueError(f"alpha ({self.alpha:g}) and beta ({self.beta:g}) must each be above 0 and below 1, and their sum below 1")

    def add_pair(self, first: float, second: float) -> None:
        """A's scores in the two games of one duplicate deal."""
        for x in (first, second):
            self.trinomial[_index(x * 2)] += 1
        self.pentanomial[_index((first + second) * 2)] += 1

    @property
    def pairs(self) -> int:
        return sum(self.pentanomial)

    @property
    def games(self) -> int:
        return sum(self.trinomial)

    @property
    def score(self) -> float:
        """A's mean score per game so far."""
        losses, draws, wins = self.trinomial
        return (wins + 0.5 * draws) / self.games if self.games else 0.5

    @property
    def counted(self) -> tuple[list[int], tuple[float, ...]]:
        """The counts the test's model reads, with their categories' scores."""
        return (self.trinomial, TRINOMIAL) if self.model == "trinomial" else (self.pentanomial, PENTANOMIAL)

    @property
    def llr(self) -> float:
        return llr(*self.counted, self.elo0, self.elo1)

    @property
    def bounds(self) -> tuple[float, float]:
        return bounds(self.alpha, self.beta)

    def decision(self) -> str | None:
        """``H1`` (A is stronger: elo1 is the better explanation), ``H0``, or None to keep playing."""
        value = self.llr
        lower, upper = self.bounds
        if value >= upper:
            return "H1"
        if value <= lower:
            return "H0"
        return None


def _index(twice: float) -> int:
    i = round(twice)
    if abs(i - twice) > 1e-9:
        raise ValueError(f"a score must be 0, ½ or 1 per game, not {twice / 2}")
    return i
