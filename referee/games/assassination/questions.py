"""The questions an action stage leaves once it has resolved, put one at a time in the REACTION phase.

- "sniper": the sniper shot at the president in front of the police officer,
  the reporter not there; the police officer detains him (and the bomber in
  the room), or, as the bad cop, may let them go (AS-22, AS-36).
- "cell": the agent put a piece in the holding cell; the police officer, if
  it was his, may reveal himself and leave for the security office (AS-31).
- "bomber": after a blast, the agent or the police officer who was in the
  bomber's room when it went off may detain him (AS-28).

Who is asked depends only on public facts (the shot and everyone in the room
are revealed; the agent's detention, the blast and where every piece stood
are announced), never on a secret; the secret is only in whether a seat may answer yes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.core.game import Event, broadcast
from referee.games.assassination.actions import reveal_seat
from referee.games.assassination.state import Question
from referee.games.assassination.types import (
    Identity,
    PieceDetained,
    PieceSent,
    RevealReason,
    Room,
)

if TYPE_CHECKING:
    from referee.games.assassination.rules import Assassination


def seats_to_ask(g: Assassination, q: Question) -> dict[int, bool]:
    """The seats asked ``q`` now, each with whether it may give the answer that changes something; empty if moot."""
    a = g.secret
    if q.kind == "sniper":
        po = a.seat_of(Identity.POLICE_OFFICER)
        officer = g.pieces[a.colours[po]]
        free = [c for c in q.colours if g.pieces[c].on_board]
        if officer.killed or officer.room == Room.HOLDING_CELL or not free:
            return {}
        return {po: a.bad_cop}  # the bad cop may let them go
    if q.kind == "cell":
        piece = g.pieces[q.colour]
        if piece.killed or piece.room != Room.HOLDING_CELL:
            return {}
        agent = a.seat_of(Identity.SECRET_SERVICE)
        return {s: a.colours[s] == q.colour and a.identities[s] == Identity.POLICE_OFFICER for s in g.living() if s != agent}
    # Those with the bomber when his bomb went off (q.colours) who are still alive and free (AS-28).
    company = {c for c in q.colours if g.pieces[c].on_board}
    if not g.pieces[q.colour].on_board or not company:
        return {}
    law = (Identity.SECRET_SERVICE, Identity.POLICE_OFFICER)
    return {s: a.identities[s] in law and a.colours[s] in company for s in g.living() if a.colours[s] != q.colour}


def answer(g: Assassination, q: Question, yes: list[int]) -> list[Event]:
    """What the seats that answered yes (in seat order) do."""
    if not yes:
        return []
    events: list[Event] = []
    if q.kind == "cell":
        seat = yes[0]  # only the police officer may say yes
        piece = g.pieces[q.colour]
        events += reveal_seat(g, seat, RevealReason.LEFT_CELL)
        piece.detained = False
        piece.detained_by_secret_service = False
        piece.enter(Room.SECURITY_OFFICE)
        return events + [broadcast(PieceSent(q.colour, Room.SECURITY_OFFICE))]
    if q.kind == "bomber":
        for s in yes:
            events += reveal_seat(g, s, RevealReason.DETAINED_BOMBER)
    targets = q.colours if q.kind == "sniper" else (q.colour,)
    for colour in targets:
        piece = g.pieces[colour]
        if not piece.on_board:
            continue
        piece.detained = True
        piece.enter(Room.HOLDING_CELL)
        for s in yes:
            g.ledger.detentions.append((s, colour))
        events += [broadcast(PieceDetained(colour, yes[0])), broadcast(PieceSent(colour, Room.HOLDING_CELL))]
    return events
