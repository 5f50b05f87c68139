"""Choosing the matches that teach the ladder the most.

Most tables seat two neighbours in the order by mu whose order is likeliest
wrong; the others seat the bot with the fewest games against opponents drawn
at random, as do all tables while a new version plays its placement games.
Every deal is played once from every seat (a duplicate set: the seat order's
rotations, as in ``arena tournament``) so that card and seat luck cancel, and
the set is rated as one comparison (ladder/worker.py ``rate_set``).
Owners can ask for challenges. The bots of one owner are kept apart wherever the pool allows it (``keep_apart``),
but the house's sample bots, which the operator seeds and trusts, share tables freely.
"""

from __future__ import annotations

import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, replace
from typing import cast

from sqlalchemy import Connection, Table, bindparam, case, func, insert, select, update
from sqlalchemy.orm import Session

from ladder.accounts import HOUSE
from ladder.models import PENDING, Bot, BotVersion, Match, MatchSeat, Rating, User, name_is
from ladder.ratings import Skill, misorder
from referee.games.registry import GAMES
from referee.tournament.schedule import rotations
from referee.server.seeds import SEED_BOUND

PLACEMENT_GAMES = 4
#: The share of tables, once every entrant has played its placement games, that seat the entrant with the fewest games
#: against opponents drawn at random rather than the neighbours whose order is likeliest wrong.
RANDOM_SHARE = 0.2
CHALLENGE = "challenge"
#: A kind's place in the queue, highest first; but a challenge comes after the others when the match that finished
#: last was a challenge too (ladder/worker.py, the claim's order), so that challenges take about half the ladder's play
#: at most.
PRIORITY = {"exhibition": 0, "rated": 0, "placement": 1, CHALLENGE: 2}
#: Kinds of matches that are played but never rated: a challenge's opponent is chosen by its owner (a weak one, again
#: and again, would shrink sigma and raise mu - 3 sigma), and it is played ahead of the ladder's own matches; an exhibition seats a
#: bot more than once (``exhibition``), which no rating can score.
UNRATED = frozenset({CHALLENGE, "exhibition"})
#: How many challenge sets an owner may have queued or playing at once: they jump the queue, so more would
#: hold up other owners' challenges (the ladder's own matches keep half the play: ladder/worker.py ``_URGENCY``).
OPEN_CHALLENGES = 3

_MATCHES, _SEATS = cast(Table, Match.__table__), cast(Table, MatchSeat.__table__)
_NEW_MATCH = (
    insert(_MATCHES)
    .values(
        game=bindparam("game"), seed=bindparam("seed"), num_players=bindparam("n"), options={}, kind=bindparam("kind"), status="queued",
        priority=bindparam("priority"), deal=bindparam("deal"), created_at=bindparam("at"), challenger_id=bindparam("challenger"),
    )
    .returning(_MATCHES.c.id)
)
_VERSIONS, _BOTS, _RATINGS = cast(Table, BotVersion.__table__), cast(Table, Bot.__table__), cast(Table, Rating.__table__)
_USERS = cast(Table, User.__table__)
#: The ladder's own matches waiting, by game: not challenges, which filled the places of the queue (a few owners with
#: their challenges open, and the scheduler queued none of its own).
_WAITING_BY_GAME = (
    select(_MATCHES.c.game, func.count()).where(_MATCHES.c.status == "queued", _MATCHES.c.kind != CHALLENGE).group_by(_MATCHES.c.game)
)
_HELD_SEATS = _SEATS.alias("held_seats")  # its own name: correlated to the matches alone, in a query of seats too (``_ENTERED``)
#: A match seating one of the versions in ``held`` (their folders gone from the store: ladder/grounds.py, MissingVersions).
SEATS_HELD = (
    select(_HELD_SEATS.c.match_id)
    .where(_HELD_SEATS.c.match_id == _MATCHES.c.id, _HELD_SEATS.c.bot_version_id.in_(bindparam("held", expanding=True)))
    .exists()
)
#: The matches waiting that can be played now: held ones wait for their version's folder, and filled no place of the queue.
_PLAYABLE_BY_GAME = _WAITING_BY_GAME.where(~SEATS_HELD)
_ENTRANTS = (
    select(
        _VERSIONS.c.id, _BOTS.c.name, _RATINGS.c.mu, _RATINGS.c.sigma, _RATINGS.c.games,
        case((_USERS.c.name == HOUSE, None), else_=_BOTS.c.owner_id),  # the house's bots: no owner to keep apart
    )
    .join(_BOTS, _BOTS.c.id == _VERSIONS.c.bot_id)
    .join(_USERS, _USERS.c.id == _BOTS.c.owner_id)
    .join(_RATINGS, (_RATINGS.c.bot_version_id == _VERSIONS.c.id) & (_RATINGS.c.game == bindparam("game")))
    .where(_VERSIONS.c.status == "active")
    .order_by(_VERSIONS.c.id)
)
_SIBLINGS = _MATCHES.alias("siblings")
#: Seats in matches that will count as games once rated: those queued or playing, and those played whose duplicate set
#: still has a match queued or playing (rated with it once it is done; counted nowhere, a bot with sets half played
#: looked as if it needed more games). Not a played half whose set can no longer finish: its set is swept as failed.
#: Not challenges (UNRATED), which made a new bot with challenges waiting skip its placement and look as if it needed
#: fewer games.
_ENTERED = (
    select(_SEATS.c.bot_version_id)
    .join(_MATCHES, _MATCHES.c.id == _SEATS.c.match_id)
    .where(
        _MATCHES.c.game == bindparam("game"),
        _MATCHES.c.kind.not_in(sorted(UNRATED)),
        _MATCHES.c.status.in_(PENDING)
        | (
            (_MATCHES.c.status == "done")
            & _MATCHES.c.rated_with.is_(None)
            & select(_SIBLINGS.c.id).where(_SIBLINGS.c.deal == _MATCHES.c.deal, _SIBLINGS.c.status.in_(PENDING)).exists()
        ),
    )
)
#: ``_ENTERED`` but the matches waiting for a version ``held``: counted, its opponents looked as if they had played more
#: than they had, and were passed over for the games they needed. Their played halves still count (rated all the same).
_ENTERED_UNHELD = _ENTERED.where(~(_MATCHES.c.status.in_(PENDING) & SEATS_HELD))


class ScheduleError(ValueError):
    """A challenge that cannot be scheduled."""


class TooManyChallenges(ScheduleError):
    """An owner who already has OPEN_CHALLENGES challenges queued or playing."""


@dataclass(frozen=True)
class Entrant:
    version_id: int
    bot: str
    skill: Skill
    games: int
    #: The owner's user id, whose other bots the scheduler keeps away (``keep_apart``); None for the house's sample
    #: bots (ladder/accounts.py ``HOUSE``), which the operator seeds and trusts: they share tables freely, or a game for
    #: four with its samples and one owner's bot could not seat a table without that owner twice.
    owner: int | None = None


def entrants(db: Session, game: str, held: frozenset[int] = frozenset()) -> list[Entrant]:
    """The active versions that play ``game``, but those ``held`` (their folders gone from the store), with their ratings
    and games played or coming (``_ENTERED``; challenges are no games, nor matches waiting for a version ``held``).

    In Core statements built once, on the session's connection: the scheduler's tick reads them for every
    two matches played, in the process that referees the ladder's matches.
    """
    conn = db.connection()
    rows = conn.execute(_ENTRANTS, {"game": game}).all()
    entered = conn.execute(_ENTERED_UNHELD, {"game": game, "held": sorted(held)}) if held else conn.execute(_ENTERED, {"game": game})
    coming = Counter(entered.scalars())
    return [Entrant(vid, name, Skill(mu, sigma), games + coming[vid], owner) for vid, name, mu, sigma, games, owner in rows if vid not in held]


def set_orders(version_ids: list[int]) -> list[list[int]]:
    """The seat orders of a duplicate set: every rotation of ``version_ids``, so that each bot plays each seat's cards once.

    At two seats this is the order and its reverse. At four, the reverse alone swaps cards only between
    mirrored seats (0 and 3, 1 and 2): the pairs it leaves unswapped keep their luck. In the ratings
    benchmark's family at four seats only, the ladder needed 108 games per bot with the reverse and 79 with
    the rotations (48 seeds; benchmarks/CHANGES.md, thirteenth round).
    """
    return [list(order) for order in rotations(version_ids)]


def add_duplicate_set(db: Session, game: str, version_ids: list[int], seed: int, kind: str, challenger: int | None = None) -> list[Match]:
    """The same deal from every seat (``queue_duplicate_set``), as ORM objects."""
    return [db.get_one(Match, match_id) for match_id in queue_duplicate_set(db.connection(), game, version_ids, seed, kind, challenger)]


def queue_duplicate_set(conn: Connection, game: str, version_ids: list[int], seed: int, kind: str, challenger: int | None = None) -> list[int]:
    """The same deal from every seat, one match per order of ``set_orders``; returns the match ids.

    In Core statements: the scheduler queues a set for every two matches played, and the ORM's unit of
    work (an insert and a flush per match, then its seats) took most of its tick's CPU.
    """
    deal = uuid.uuid4().hex
    made = []
    for order in set_orders(version_ids):
        match_id = conn.execute(
            _NEW_MATCH,
            {"game": game, "seed": seed, "n": len(order), "kind": kind, "priority": PRIORITY[kind], "deal": deal, "at": time.time(), "challenger": challenger},
        ).scalar_one()
        conn.execute(insert(_SEATS), [{"match_id": match_id, "seat": seat, "bot_version_id": vid, "verdicts": []} for seat, vid in enumerate(order)])
        made.append(int(match_id))
    return made


def plan_one(db: Session, game: str, rng: random.Random, pool: list[Entrant] | None = None) -> list[int]:
    """One duplicate set for ``game`` around the entrant that most needs games (its match ids); none if too few bots.
    Its size is drawn from the game's that keep owners apart best (``table_sizes``).

    ``pool`` (the game's entrants, read once for several plans) gets the new matches counted in.
    """
    if pool is None:
        pool = entrants(db, game)
    counts = [n for n in GAMES[game].spec.player_counts if n <= len(pool)]
    if not counts:
        return exhibition(db, game, rng, pool)
    table = choose_table(pool, rng.choice(table_sizes(pool, counts)), rng)
    focus = min(table, key=lambda e: e.games)
    kind = "placement" if focus.games < PLACEMENT_GAMES else "rated"
    made = queue_duplicate_set(db.connection(), game, [e.version_id for e in table], rng.randrange(SEED_BOUND), kind)
    seated = {e.version_id for e in table}
    pool[:] = [replace(e, games=e.games + len(made)) if e.version_id in seated else e for e in pool]
    return made


def exhibition(db: Session, game: str, rng: random.Random, pool: list[Entrant]) -> list[int]:
    """A set at the game's smallest table with fewer bots than seats, each bot seated as often as the others or once
    more; unrated. Without it a game for four with two bots entered (the sample bots of the Assassination Game) was
    never played at all. None with fewer than two bots: a bot alone against itself shows nothing."""
    if len(pool) < 2:
        return []
    n = min(GAMES[game].spec.player_counts)
    order = rng.sample(pool, len(pool))
    table = [order[i % len(order)].version_id for i in range(n)]
    rng.shuffle(table)
    return queue_duplicate_set(db.connection(), game, table, rng.randrange(SEED_BOUND), "exhibition")


def choose_table(pool: list[Entrant], n: int, rng: random.Random, random_share: float = RANDOM_SHARE) -> list[Entrant]:
    """``n`` distinct entrants, seated at random: the tables that teach the ladder the order fastest.

    While the entrant with the fewest games (ties at random) is still in its placement, and at ``random_share``
    of the other tables, that entrant plays opponents drawn at random from every entrant: a new or misplaced bot
    lands wherever it belongs, and no bot waits long for a game. At the rest, two neighbours in the order by mu
    are drawn with weights their chance of being in the wrong order (``misorder``), with the entrants just
    around them at a larger table. A pair the ratings have settled is seldom drawn, however close in mu; a pair
    of near equals stays open and keeps being drawn. Against seating the focus with its own neighbours at half the
    tables, this ordered the ratings benchmark's family in a median of 83 games per bot rather than 89 over 120
    seeds of real matches, and left 2 runs of the 120 short of the order within 250 games per bot rather than 8
    (benchmarks/CHANGES.md, nineteenth round).

    Owners are kept apart as far as the pool allows (``keep_apart``; the house's bots are no owner's): the random
    opponents are drawn again among those that seat the fewest pairs of one owner, and two neighbours of one owner are
    never drawn as the pair, so their order is found through the bots of others; the entrants around the pair are
    then the nearest it in the order that keep owners apart. When the draw seats no more such pairs than needed, it
    stands, drawn as before: a pool of no owners (the ratings benchmark's entrants, made without one) or of one owner
    alone is seated as ever it was, draw for draw.
    """
    focus = min(pool, key=lambda e: (e.games, rng.random()))
    if focus.games < PLACEMENT_GAMES or rng.random() < random_share:
        others = [e for e in pool if e is not focus]
        table = [focus, *rng.sample(others, n - 1)]
        if shared_pairs(table) > shared_pairs(keep_apart([focus], others, n)):
            table = keep_apart([focus], rng.sample(others, len(others)), n)
    else:
        ranked = sorted(pool, key=lambda e: (-e.skill.mu, e.version_id))
        weights = [misorder(above.skill, below.skill) for above, below in zip(ranked, ranked[1:])]
        # Not a pair of one owner's bots, unless every pair is (nothing else to draw): their order comes through others.
        pairs = [i for i in range(len(weights)) if ranked[i].owner is None or ranked[i].owner != ranked[i + 1].owner] or list(range(len(weights)))
        drawn = [weights[i] for i in pairs]
        at = rng.choices(pairs, weights=drawn)[0] if sum(drawn) > 0 else pairs[rng.randrange(len(pairs))]
        start = max(0, min(at - (n - 2) // 2, len(ranked) - n))  # the pair at ``at`` with those around it
        table = ranked[start:start + n]
        apart = keep_apart(ranked[at:at + 2], nearest(ranked, at), n)
        if shared_pairs(table) > shared_pairs(apart):
            table = apart
    rng.shuffle(table)
    return table


def shared_pairs(table: list[Entrant]) -> int:
    """How many pairs at ``table`` have one owner (the house's bots have none: ``Entrant.owner``)."""
    return sum(k * (k - 1) // 2 for k in Counter(e.owner for e in table if e.owner is not None).values())


def keep_apart(seated: list[Entrant], candidates: list[Entrant], n: int) -> list[Entrant]:
    """``seated``, then ``candidates`` in their order until ``n`` sit, each time the first whose owner has the fewest
    bots seated already (a house bot: none).

    A table with the fewest pairs of one owner that ``seated`` allows: a bot adds as many such pairs as its owner has
    bots seated, and taking each time one that adds the fewest reaches the fewest in all (so ``shared_pairs`` of it is
    that fewest, whatever the order of ``candidates``). No such pair if owners enough are among ``candidates``.
    """
    table, rest = list(seated), list(candidates)
    while len(table) < n:
        at = Counter(e.owner for e in table if e.owner is not None)
        pick, fewest = 0, n
        for i, e in enumerate(rest):
            adds = at[e.owner] if e.owner is not None else 0
            if adds < fewest:
                pick, fewest = i, adds
                if not adds:  # none fewer: the first that adds no pair (most often the first), without reading the rest
                    break
        table.append(rest.pop(pick))
    return table


def nearest(ranked: list[Entrant], at: int) -> list[Entrant]:
    """The entrants of ``ranked`` but the pair at ``at``, nearest that pair in the order first; of two as near, the one
    below, as the window of ``choose_table`` takes them."""
    around = [i for i in range(len(ranked)) if i not in (at, at + 1)]
    return [ranked[i] for i in sorted(around, key=lambda i: (at - i, 1) if i < at else (i - at - 1, 0))]


def table_sizes(pool: list[Entrant], counts: list[int]) -> list[int]:
    """The sizes of ``counts`` (the game's, that ``pool`` can fill) whose tables can seat the fewest pairs of one owner.

    Those that seat owners all apart, if any: a game for 2 to 4 with two owners of two bots each is played by two
    until a third owner comes (at four, both owners twice: each could feed the other's points or gang up on a third).
    Else the smallest, which seat the fewest such pairs (one more seat never seats fewer); the game goes on being
    played. Every size when the pool is one owner's alone: its bots rank among themselves, nobody else's rating is at
    stake, and smaller tables would only stop the larger ones being played (a private ladder, or the tests' bots).
    The house's sample bots count as owners apart: with them a user's bot fills every table.
    """
    owners = {e.owner for e in pool}
    if len(owners) == 1 and None not in owners:
        return counts
    fewest = {n: shared_pairs(keep_apart([], pool, n)) for n in counts}
    return [n for n in counts if fewest[n] == min(fewest.values())]


def fill_queue(db: Session, rng: random.Random, target: int, games: list[str] | None = None, held: frozenset[int] = frozenset()) -> int:
    """Queue duplicate sets until ``target`` of the ladder's own matches wait (challenges count for nothing here), each to
    the game with the fewest waiting; returns how many matches were added. Versions ``held`` (their folders gone from the store) are drawn for none, and the matches
    waiting for them do not count: they are not played until the folder is back.

    Games share the matches, not the sets: taken in turn by sets, a game for four (a set of four matches, as every
    exhibition of the Assassination Game's two sample bots) had twice the matches of a game for two. Ties go in a
    random order, fixed for the tick. A game with too few entrants for a table leaves for this tick (its pool does not
    change meanwhile).
    """
    waiting_now = db.connection().execute(_PLAYABLE_BY_GAME, {"held": sorted(held)}) if held else db.connection().execute(_WAITING_BY_GAME)
    per_game: Counter[str] = Counter({row[0]: row[1] for row in waiting_now})
    waiting = per_game.total()
    added = 0
    playable = list(games or GAMES)
    rng.shuffle(playable)
    pools: dict[str, list[Entrant]] = {}
    while waiting + added < target and playable:
        game = min(playable, key=lambda g: per_game[g])  # the first of the fewest, in the tick's shuffled order
        if game not in pools:
            pools[game] = entrants(db, game, held)
        made = plan_one(db, game, rng, pools[game])
        if not made:
            playable.remove(game)
            continue
        added += len(made)
        per_game[game] += len(made)
    db.commit()
    return added


def why_not_active(db: Session, name: str) -> str:
    """Why a bot of that name has no active version, for a refused challenge: "no active bot named 'mine'" read as if
    the name were mistyped to an owner whose bot the operator had retired, or the ladder suspended, and said not how
    it comes back."""
    latest = db.execute(
        select(BotVersion.seq, BotVersion.status).join(Bot, Bot.id == BotVersion.bot_id).where(name_is(Bot.name, name))
        .order_by(BotVersion.seq.desc()).limit(1)
    ).first()
    if latest is None:
        return ""
    back = {
        "suspended": " for forfeiting (a new version, or the operator's `arena ladder reinstate`, brings it back)",
        "retired": " (a new version brings it back)",
    }.get(latest.status, "")
    return f": its latest version, #{latest.seq}, is {latest.status}{back}"


def challenge(db: Session, owner_id: int, bot: str, opponent: str, game: str, seed: int) -> list[Match]:
    """A duplicate set between the owner's bot and an opponent, ahead of the ladder's own matches (not twice running: ladder/worker.py) and unrated (``UNRATED``)."""
    if bot == opponent:
        raise ScheduleError("a bot cannot challenge itself")
    versions = {}
    for name in (bot, opponent):
        row = db.execute(
            select(BotVersion.id, Bot.owner_id, BotVersion.games)
            .join(Bot, Bot.id == BotVersion.bot_id)
            .where(name_is(Bot.name, name), BotVersion.status == "active")
        ).first()
        if row is None:
            raise ScheduleError(f"no active bot named {name!r}{why_not_active(db, name)}")
        if game not in row.games:
            raise ScheduleError(f"{name} does not play {game}")
        versions[name] = row
    if versions[bot].owner_id != owner_id:
        raise ScheduleError(f"you do not own {bot}")
    if 2 not in GAMES[game].spec.player_counts:
        raise ScheduleError(f"{game} is not played by two; challenges are head to head")
    # A write on the owner's row first: it holds the owner's other challenges back until this one is committed
    # (PostgreSQL's row lock; SQLite's one writer), so two at once cannot both find a place under the cap.
    db.execute(update(User).where(User.id == owner_id).values(id=User.id))
    open_sets = db.scalar(
        select(func.count(func.distinct(Match.deal))).where(Match.challenger_id == owner_id, Match.status.in_(PENDING))
    )
    if open_sets and open_sets >= OPEN_CHALLENGES:
        raise TooManyChallenges(f"you have {open_sets} challenges waiting or playing (at most {OPEN_CHALLENGES}): ask again when one is over")
    made = add_duplicate_set(db, game, [versions[bot].id, versions[opponent].id], seed, CHALLENGE, challenger=owner_id)
    db.commit()
    return made
