"""Scoring a round (AS-40 to AS-44)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from referee.games.assassination.types import Identity, PresidentStatus, Room, RoundOutcome, ScoreChange, ScoreReason

if TYPE_CHECKING:
    from referee.games.assassination.rules import Assassination

PHOTO_OP_POINTS: Final = 7
UNHARMED_POINTS: Final = 5
WOUNDED_POINTS: Final = 1
KILLED_POINTS: Final = 3
REPORTER_PENALTY: Final = -4
POLICE_PENALTY: Final = -2
ESCAPE_POINTS: Final = 2


def score_round(g: Assassination, outcome: RoundOutcome) -> list[ScoreChange]:
    """The score changes of the round just ended, in a fixed order."""
    a = g.secret
    n = g.num_players
    good = [s for s in range(n) if a.is_good(s)]
    bad = [s for s in range(n) if not a.is_good(s)]
    changes: list[ScoreChange] = []
    reporter = a.reporter_colour
    reporter_detained = any(colour == reporter for _, colour in g.ledger.detentions)
    status = g.president.status
    # The president's fate: exactly one of these applies (AS-40).
    if outcome == RoundOutcome.PHOTO_OP_TAKEN:
        if not reporter_detained:
            changes += [ScoreChange(s, PHOTO_OP_POINTS, ScoreReason.PHOTO_OP) for s in good]
    elif status == PresidentStatus.UNHARMED:
        changes += [ScoreChange(s, UNHARMED_POINTS, ScoreReason.PRESIDENT_UNHARMED) for s in good]
    elif status == PresidentStatus.INJURED:
        changes += [ScoreChange(s, WOUNDED_POINTS, ScoreReason.PRESIDENT_WOUNDED) for s in bad]
    else:
        changes += [ScoreChange(s, KILLED_POINTS, ScoreReason.PRESIDENT_KILLED) for s in bad]
    # Kills (AS-41).
    for killer, colour in g.ledger.kills:
        victim = a.owner(colour)
        if victim is None:
            # "If you shoot the reporter you will lose points" is on the police officer's shoot-first, the bad cop's too.
            if a.is_good(killer) or a.identities[killer] == Identity.POLICE_OFFICER:
                changes.append(ScoreChange(killer, REPORTER_PENALTY, ScoreReason.KILLED_REPORTER))
        elif a.is_good(victim):
            if not a.is_good(killer):
                changes.append(ScoreChange(killer, 1, ScoreReason.KILLED_GOOD_GUY))
        elif a.is_good(killer):
            changes.append(ScoreChange(killer, 1, ScoreReason.KILLED_BAD_GUY))
        else:
            changes.append(ScoreChange(killer, -1, ScoreReason.KILLED_OWN_SIDE))
    # Detentions (AS-42).
    detained_bad: set[int] = set()
    for _, colour in g.ledger.detentions:
        owner = a.owner(colour)
        if owner is not None and not a.is_good(owner):
            detained_bad.add(colour)
    for po in g.ledger.tried_secret_service:  # "you will be detained" (AS-52): a bad cop is a bad guy detained
        if not a.is_good(po):
            detained_bad.add(a.colours[po])
    for _ in sorted(detained_bad):
        changes += [ScoreChange(s, 1, ScoreReason.BAD_GUY_DETAINED) for s in good]
    for arrester in sorted({by for by, c in g.ledger.detentions if c == reporter and by is not None}):
        changes.append(ScoreChange(arrester, REPORTER_PENALTY, ScoreReason.DETAINED_REPORTER))
    for by, colour in g.ledger.detentions:
        owner = a.owner(colour)
        if by is not None and owner is not None and a.identities[by] == Identity.SECRET_SERVICE:
            if a.identities[owner] == Identity.POLICE_OFFICER:
                changes.append(ScoreChange(by, POLICE_PENALTY, ScoreReason.DETAINED_POLICE_OFFICER))
    for po in g.ledger.tried_secret_service:
        changes.append(ScoreChange(po, POLICE_PENALTY, ScoreReason.TRIED_TO_DETAIN_SECRET_SERVICE))
    # Escapes (AS-43).
    if g.incident:
        for s in bad:
            p = g.pieces[a.colours[s]]
            if not p.killed and p.room == Room.PUBLIC_EXIT:
                changes.append(ScoreChange(s, ESCAPE_POINTS, ScoreReason.ESCAPED))
    return changes
