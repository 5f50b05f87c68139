"""Which CPU a pinned process bot gets: of those this process may use, one with the fewest bots pinned to it now.

The count is this process's (a referee, a tournament, a ladder's worker): each
pinned bot holds its CPU until it ends. The bots of a match so land on distinct
CPUs when there are enough, and matches played at once spread over the rest;
ties are broken at random, so that referees of one machine counting apart (a
ladder's Dask workers, two `arena match` at once) do not all start at the first
CPU. With one CPU, every bot shares it.

A bot is pinned by its reaper (referee/server/reaper.py ``--cpu``), before it
starts: see ``launchers.reaped``.
"""

from __future__ import annotations

import logging
import os
import random
import threading
from collections import Counter
from collections.abc import Mapping

log = logging.getLogger(__name__)

#: Bots pinned to each CPU now, in this process (its matches may be played on several threads: the ladder's are).
_pinned: Counter[int] = Counter()
_lock = threading.Lock()
_warned = False
#: Its own generator: drawing from the random module's would shift what a caller seeded it for.
_draw = random.Random()

UNAVAILABLE = "pinning bots to CPUs needs os.sched_setaffinity (Linux); this platform has none"
#: The environment variable that turns the ladder's pinning off (``0``) or on (``1``, the default): ladder/jobs.py.
LADDER_SWITCH = "ARENA_PIN_CPUS"
_SAID = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}


def ladder_setting(environ: Mapping[str, str]) -> bool:
    """Whether the ladder pins its process bots, as ``ARENA_PIN_CPUS`` in ``environ`` says (unset or blank: it does);
    ValueError naming the variable for a value that is no yes or no. A variable, not an option of `arena ladder
    serve`: a Dask worker on another machine reads its own, as it does ARENA_COMPILED."""
    value = environ.get(LADDER_SWITCH, "").strip()
    if not value:
        return True
    if value.lower() not in _SAID:
        raise ValueError(f"{LADDER_SWITCH}={value!r}: 1 pins each process bot of the ladder to one CPU (the default), 0 does not")
    return _SAID[value.lower()]


def available() -> bool:
    """Whether this platform can pin a process to CPUs (Linux can; macOS cannot)."""
    return hasattr(os, "sched_setaffinity") and hasattr(os, "sched_getaffinity")


def warn_unavailable() -> None:
    """Say once per process that the bots run unpinned (the ladder pins by default, and plays on where it cannot)."""
    global _warned
    with _lock:
        if _warned:
            return
        _warned = True
    log.warning("%s: process bots run on any CPU", UNAVAILABLE)


class CpuClaim:
    """One bot's hold on a CPU, counted until ``release()`` (which may be called more than once)."""

    def __init__(self, cpu: int) -> None:
        self.cpu = cpu
        self._held = True

    def release(self) -> None:
        with _lock:
            if not self._held:
                return
            self._held = False
            _pinned[self.cpu] -= 1
            if _pinned[self.cpu] <= 0:
                del _pinned[self.cpu]


def claim() -> CpuClaim:
    """A CPU for one more bot: of those this process may use, one with the fewest bots pinned to it now."""
    with _lock:
        allowed = os.sched_getaffinity(0)
        fewest = min(_pinned[cpu] for cpu in allowed)
        cpu = _draw.choice(sorted(cpu for cpu in allowed if _pinned[cpu] == fewest))
        _pinned[cpu] += 1
    return CpuClaim(cpu)


def pinned_now() -> dict[int, int]:
    """Bots pinned to each CPU now (CPUs with none left out)."""
    with _lock:
        return dict(_pinned)
