"""The API's response models, for its OpenAPI document (/openapi.json, /docs): what a match, a seat and a bot
version answer holds, and which values its closed sets take, from where the ladder defines them (ladder/models.py,
the referee's VerdictKind). They check an answer and change nothing in it: every field the queries make is here, and
any other would be kept (``extra="allow"``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from arena.v1 import referee_pb2 as pb
from ladder.models import MatchKind, MatchStatus, Retired, VersionStatus

#: The kinds of verdict a seat may get (a Verdict message's kind; never its UNSPECIFIED).
VERDICT_KINDS = [name for name in pb.VerdictKind.keys() if name != "VERDICT_KIND_UNSPECIFIED"]


#: How the API gives a time: every time it answers is so.
EPOCH = "{}: seconds since the Unix epoch, UTC, with a fraction."


class Answer(BaseModel):
    model_config = ConfigDict(extra="allow")


class Verdict(Answer):
    # Listed, not checked: a referee newer than this ladder's may add a kind, and its matches are still listed.
    kind: Annotated[str, Field(description="What the seat did wrong.", json_schema_extra={"enum": VERDICT_KINDS})]
    decision: int | None = Field(None, description="The decision it came at.")
    detail: str = ""


class Seat(Answer):
    seat: int
    bot: str
    version: str
    version_id: int
    rank: int | None = Field(description="1 is best; None until every match of its deal is over.")
    score: float | None
    verdicts: list[Verdict] = Field(description="None until every match of its deal is over.")


class MatchSummary(Answer):
    id: int
    game: str
    kind: MatchKind
    status: MatchStatus = Field(description="queued and running: still to play; done: played; failed: it broke; cancelled: never played.")
    settled: bool = Field(description="Whether it and every match of its deal are over: its seed, deal, ranks and verdicts are shown then.")
    seed: int | None
    deal: str | None
    attempts: int
    created_at: float = Field(description=EPOCH.format("When it was made"))
    finished_at: float | None = Field(description=EPOCH.format("When it ended, by the clock of the process that recorded it (null while queued or running)"))
    error: str = Field(description="Why a failed or cancelled match was not played.")
    logs_pruned_days: int | None
    replay_pruned_days: int | None
    seats: list[Seat]


class Rating(Answer):
    mu: float
    sigma: float
    conservative: float
    games: int


class BotVersion(Answer):
    seq: int
    version: str
    status: VersionStatus
    games: list[str]
    reason: str
    created_at: float = Field(description=EPOCH.format("When it was submitted"))
    ratings: dict[str, Rating] = Field(description="By game.")


class BotDetail(Answer):
    name: str
    owner: str
    versions: list[BotVersion]


class Health(Answer):
    status: Literal["ok"] = Field(description="The ladder and its database answer (the answer is 503, HealthDown, when the database does not).")
    matches_at_once: int | None = Field(None, description="How many matches its workers can play at once now (a Dask cluster's: its workers' `matches`); null: no ladder plays here.")
    warning: str | None = Field(None, description="Why the ladder plays no match now though it answers (no Dask worker, its scheduler out of reach, the data folder gone or full, its workers failing); null when it plays.")


class Playing(Answer):
    status: Literal["playing"]
    matches_at_once: int = Field(description="How many matches its workers can play at once now.")


class NotPlaying(Answer):
    status: Literal["not_playing", "database_down"] = Field(description="It plays no match now, or its database is out of reach.")
    detail: str


class HealthDown(Answer):
    status: Literal["database_down"] = Field(description="The ladder answers, but its database does not.")
    detail: str


class Withdrawal(Answer):
    bot: str
    seq: int = Field(description="The version withdrawn.")
    status: Retired = Field(description="What that version is now.")


class Game(Answer):
    id: str = Field(description="The id the other endpoints take (`/api/games/{game}/standings`, `?game=`).")
    name: str
    players: list[int] = Field(description="The player counts it is played by.")
    players_text: str = Field(description='Them as said: "2 or 4".')
    summary: str
    score: str = Field(description="What a result's score counts in this game.")


class Standing(Answer):
    rank: int | None = Field(description="1 is the leader; null for a version with no rated game yet (listed after the ranked).")
    bot: str
    owner: str
    version: str
    seq: int = Field(description="The version's number among the bot's versions (1, 2, ...).")
    version_id: int
    mu: float
    sigma: float
    conservative: float = Field(description="mu - 3 sigma: the order of the table.")
    games: int = Field(description="Its rated matches in this game.")
    last_match: float | None = Field(description=EPOCH.format("When its rating was last updated (null with no rated game)"))


class RatingPoint(Answer):
    update: int = Field(description="Its place among the bot's rating updates in this game, from 1 (one per duplicate set).")
    match: int = Field(description="The id of the match whose duplicate set made it.")
    mu: float
    sigma: float
    conservative: float
    at: float = Field(description=EPOCH.format("When it was made"))
    seq: int = Field(description="The version it rates.")


class HeadToHead(Answer):
    game: str
    opponent: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float = Field(description="(wins + draws / 2) / games.")
    last_match: int = Field(description="The id of the last match they played (a match id, not a time).")


class Me(Answer):
    name: str = Field(description="The owner whose token the Authorization header holds.")


class SeatLog(Answer):
    log: str = Field(description="What the bot printed in that match.")


class Submission(Answer):
    bot: str
    seq: int = Field(description="The new version's number: its ratings are `versions[seq].ratings` of `/api/bots/{name}`.")
    version: str
    accepted: bool = Field(description="True (201) once validated and on the ladder; false (422) rejected, `reason` and `log` say why.")
    reason: str
    log: str = Field(description="The validation matches' log.")


class Challenge(Answer):
    matches: list[int] = Field(description="The ids of the two matches made (a duplicate pair).")
