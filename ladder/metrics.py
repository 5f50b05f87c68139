"""The ladder's Prometheus metrics, served at ``GET /metrics``: what an operator graphs and alerts on.

Two kinds. Counters of this ladder process (the matches that came back from the workers, by outcome, and how long
the recorded ones took), which Prometheus turns into rates and which start again at 0 when the ladder restarts. And
the database's state, read at each scrape (matches by status, leases past their time, bot versions by status,
submissions in progress), so that every ladder or replica reports the same queue. The scrape never fails for the
database: out of reach, it says so (``arena_database_up 0``) and leaves the database's figures out.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from ladder.db import database_time
from ladder.models import MATCH_STATUSES, VERSION_STATUSES, BotVersion, Match

log = logging.getLogger(__name__)

#: What became of a match handed to the workers (``Ladder._settle``), or held for them (``bot_files_cancelled``).
OUTCOMES = (
    "recorded",  # played and recorded
    "lost",  # its lease was gone: another worker plays or played it
    "failed",  # the match itself broke (its error is in matches.error)
    "unfit",  # the worker cannot play matches (no sandbox image, a full disk, no database URL): queued again
    "no_result",  # the job never reported (its workers kept dying, the task was lost): queued again
    "cancelled",  # Dask cancelled it (its scheduler was lost): queued again
    "database_unreachable",  # the worker could not reach the database: queued again
    "bot_files_gone",  # a bot version's folder is gone from the store: queued again, held until it is back
    "bot_files_cancelled",  # held so past --hold-missing-seconds, or its version withdrawn: status cancelled (never handed out)
    "disk_unwritable",  # the ladder's own disk (local pool) is full or read-only: queued again, nothing claimed until it is not
)
#: Seconds a match took, from its worker's start to its result: most take a few seconds, a slow bot's minutes.
DURATION_BUCKETS = (0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600)


class DatabaseCollector(Collector):
    """The database's figures, read when Prometheus scrapes."""

    def __init__(self, make: sessionmaker[Session]) -> None:
        self.make = make

    def collect(self) -> Iterable[Metric]:
        up = GaugeMetricFamily("arena_database_up", "1 when the ladder's database answered this scrape, else 0.")
        try:
            figures = list(self._figures())
        except SQLAlchemyError as exc:
            log.warning("metrics: the database did not answer (%s)", type(exc).__name__)
            up.add_metric([], 0)
            return [up]
        up.add_metric([], 1)
        return [up, *figures]

    def _figures(self) -> Iterable[Metric]:
        with self.make() as db:
            matches = GaugeMetricFamily("arena_matches", f"Matches by status ({', '.join(MATCH_STATUSES)}).", labels=["status"])
            counts: dict[str, int] = {status: n for status, n in db.execute(select(Match.status, func.count()).group_by(Match.status))}
            for status in sorted({*MATCH_STATUSES, *counts}):
                matches.add_metric([status], counts.get(status, 0))
            expired = GaugeMetricFamily(
                "arena_matches_expired_leases",
                "Running matches whose lease is past its time: reaped within seconds while a ladder runs; any that stay mean none does.",
            )
            now = database_time(db)
            expired.add_metric([], db.scalar(select(func.count()).where(Match.status == "running", Match.lease_expires < now)) or 0)
            versions = GaugeMetricFamily("arena_bot_versions", f"Bot versions by status ({', '.join(VERSION_STATUSES)}).", labels=["status"])
            by_status: dict[str, int] = {status: n for status, n in db.execute(select(BotVersion.status, func.count()).group_by(BotVersion.status))}
            for status in sorted({*VERSION_STATUSES, *by_status}):  # each from the start, at 0, as the matches'
                versions.add_metric([status], by_status.get(status, 0))
            return [matches, expired, versions]


class LadderMetrics:
    """The ladder's registry: its counters, and the database's figures read at each scrape."""

    def __init__(self, make: sessionmaker[Session]) -> None:
        self.registry = CollectorRegistry()
        self._watched: dict[str, Gauge] = {}
        self.outcomes = Counter(
            "arena_match_outcomes", "Matches that came back from the workers, by what became of them.", ["outcome"], registry=self.registry
        )
        for outcome in OUTCOMES:
            self.outcomes.labels(outcome)  # every series from the start, at 0: a rate needs its first sample
        self.match_seconds = Histogram(
            "arena_match_duration_seconds", "How long the recorded matches took, from their worker's start to their result.",
            buckets=DURATION_BUCKETS, registry=self.registry,
        )  # fmt: skip
        self.registry.register(DatabaseCollector(make))

    def count(self, outcome: str, seconds: float | None = None, times: int = 1) -> None:
        self.outcomes.labels(outcome).inc(times)
        if outcome == "recorded" and seconds is not None:
            self.match_seconds.observe(seconds)

    def watch(self, name: str, description: str, value: Callable[[], float]) -> None:
        """A gauge read from ``value`` at each scrape (submissions in progress, say); watched again, the new ``value``."""
        if name not in self._watched:
            self._watched[name] = Gauge(name, description, registry=self.registry)
        self._watched[name].set_function(value)
