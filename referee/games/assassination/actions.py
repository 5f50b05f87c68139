"""What a revealed player may do in the action stage, and how the actions resolve (AS-20 to AS-36)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.core.game import Event, broadcast
from referee.games.assassination import board
from referee.games.assassination.state import Question
from referee.games.assassination.types import (
    ActionKind,
    ActionOption,
    ActionTaken,
    DiceReason,
    DiceRolled,
    Identity,
    IncidentOccurred,
    PieceDetained,
    PieceInjured,
    PieceKilled,
    PieceSent,
    PlayerRevealed,
    PresidentHit,
    PresidentStatus,
    ReporterRevealed,
    RevealReason,
    Room,
    TakeAction,
)

if TYPE_CHECKING:
    from referee.games.assassination.rules import Assassination

SS, PO, SNIPER, BOMBER = Identity.SECRET_SERVICE, Identity.POLICE_OFFICER, Identity.SNIPER, Identity.BOMBER


def others_in_room(g: Assassination, colour: int) -> list[int]:
    """Colours of the other pieces in the same room (never counting the holding cell as a room to share)."""
    me = g.pieces[colour]
    if not me.on_board:
        return []
    return [p.colour for p in g.pieces if p.colour != colour and p.on_board and p.room == me.room]


def options(g: Assassination, seat: int) -> tuple[ActionOption, ...]:
    """Every action open to ``seat``, who has just turned over an action card; doing nothing is always open."""
    a = g.secret
    me = a.identities[seat]
    colour = a.colours[seat]
    piece = g.pieces[colour]
    out = [ActionOption(ActionKind.NOTHING)]
    pres = g.president
    here = others_in_room(g, colour)
    president_here = piece.on_board and pres.alive and pres.room == piece.room
    if me == SNIPER and piece.on_board:
        if piece.room == Room.TOWER and not here and pres.alive and pres.room == Room.PODIUM:
            out.append(ActionOption(ActionKind.SNIPE))  # AS-21
        if president_here:
            out.append(ActionOption(ActionKind.SHOOT_PRESIDENT))  # AS-22
        already = seat in g.revealed_before_stage
        if already or (not president_here and len(here) == 1):
            out += [ActionOption(ActionKind.SHOOT_PLAYER, c) for c in here]  # AS-23
    elif me == BOMBER and not g.bomb_used and piece.room is not None and not piece.killed:
        for room in board.adjacent(piece.room):  # the holding cell sees the office's neighbours (AS-26)
            if room != Room.SECURITY_OFFICE and room in piece.visited:
                out.append(ActionOption(ActionKind.DETONATE, None, room))
    elif me == SS and piece.on_board:
        out += [ActionOption(ActionKind.DETAIN, c) for c in here]  # AS-30
    elif me == PO:
        if piece.room == Room.HOLDING_CELL:
            if piece.detained_by_secret_service:
                out.append(ActionOption(ActionKind.LEAVE_CELL))  # AS-31
        elif piece.on_board:
            out += [ActionOption(ActionKind.DETAIN, c) for c in here]  # AS-32
            shoot: list[int] = []
            if g.incident:
                shoot = list(here)  # shoot first (AS-33)
            elif a.bad_cop and seat_revealed(g, a.seat_of(SS)):
                ss_colour = a.colour_of(SS)
                shoot = [ss_colour] if ss_colour in here else []  # AS-35
            out += [ActionOption(ActionKind.SHOOT_PLAYER, c) for c in shoot]
            if a.bad_cop and president_here:
                out.append(ActionOption(ActionKind.SHOOT_PRESIDENT))  # AS-34
    return tuple(out)


def seat_revealed(g: Assassination, seat: int) -> bool:
    return seat in g.revealed_seats


def reveal_seat(g: Assassination, seat: int, reason: RevealReason) -> list[Event]:
    if seat in g.revealed_seats:
        return []
    g.revealed_seats[seat] = None
    a = g.secret
    return [broadcast(PlayerRevealed(seat, a.identities[seat], a.colours[seat], reason))]


def reveal_colour(g: Assassination, colour: int, reason: RevealReason) -> list[Event]:
    owner = g.secret.owner(colour)
    if owner is not None:
        return reveal_seat(g, owner, reason)
    if g.reporter_revealed:
        return []
    g.reporter_revealed = True
    return [broadcast(ReporterRevealed(colour, reason))]


def identity_of_colour(g: Assassination, colour: int) -> Identity:
    owner = g.secret.owner(colour)
    return Identity.REPORTER if owner is None else g.secret.identities[owner]


class Resolution:
    """One action stage's resolution: effects now, the moves to health services and the cell at the end (AS-20)."""

    def __init__(self, g: Assassination) -> None:
        self.g = g
        self.events: list[Event] = []
        self.to_cell: list[int] = []
        self.to_health: list[int] = []
        self.to_office: list[int] = []
        self.questions: list[Question] = []  # put once the stage has resolved (questions.py)
        self.bomber_question: Question | None = None  # put last (AS-53)

    # --- effects ---

    def incident(self) -> None:
        if not self.g.incident:
            self.g.incident = True
            self.events.append(broadcast(IncidentOccurred()))

    def roll(self, reason: DiceReason) -> int:
        value = self.g.rng.randint(1, 6)
        self.events.append(broadcast(DiceRolled(reason, value)))
        return value

    def hurt_president(self, by: int, kill: bool) -> None:
        pres = self.g.president
        if kill or pres.status == PresidentStatus.INJURED:  # a second wound kills (AS-24)
            pres.status = PresidentStatus.KILLED
        else:
            pres.status = PresidentStatus.INJURED
        pres.hurt_this_stage = True
        self.events.append(broadcast(PresidentHit(by, pres.status)))

    def president_missed(self, by: int) -> None:
        self.events.append(broadcast(PresidentHit(by, self.g.president.status)))

    def kill(self, colour: int, by: int) -> None:
        piece = self.g.pieces[colour]
        if piece.killed:
            return
        piece.killed = True
        piece.room = None
        self.g.ledger.kills.append((by, colour))
        self.events.append(broadcast(PieceKilled(colour, by)))

    def injure(self, colour: int, by: int) -> None:
        piece = self.g.pieces[colour]
        if piece.killed:
            return
        if piece.injured:  # a second wound kills (AS-24)
            self.kill(colour, by)
            return
        piece.injured = True
        self.to_health.append(colour)
        self.events.append(broadcast(PieceInjured(colour, by)))

    def detain(self, colour: int, by: int | None) -> None:
        """Into custody at the end of the stage; a piece already held (earlier this stage, or in the cell) is not detained again (AS-58)."""
        piece = self.g.pieces[colour]
        if piece.killed or colour in self.to_cell or piece.room == Room.HOLDING_CELL:
            return
        self.to_cell.append(colour)
        if by is not None and self.g.secret.identities[by] == SS:
            if identity_of_colour(self.g, colour) == PO:
                piece.detained_by_secret_service = True
            self.questions.append(Question("cell", colour))  # whoever it is: asking tells nothing (AS-31)
        self.g.ledger.detentions.append((by, colour))
        self.events.append(broadcast(PieceDetained(colour, by)))

    def reveal_room(self, room: Room, reason: RevealReason) -> None:
        for p in self.g.pieces:
            if p.on_board and p.room == room:
                self.events += reveal_colour(self.g, p.colour, reason)

    # --- the actions ---

    def run(self, chosen: dict[int, TakeAction]) -> list[Event]:
        """Resolve every chosen action in the order of AS-20, then move the injured and the detained."""
        a = self.g.secret
        order: list[tuple[int, int, TakeAction]] = []
        for seat, act in chosen.items():
            ident = a.identities[seat]
            if act.kind == ActionKind.DETONATE:
                rank = 0
            elif ident == PO and act.kind == ActionKind.SHOOT_PLAYER and self.g.incident_before_stage:
                rank = 1
            elif act.kind in (ActionKind.SNIPE, ActionKind.SHOOT_PRESIDENT, ActionKind.SHOOT_PLAYER):
                rank = 2 if ident == SNIPER else 3
            elif act.kind == ActionKind.DETAIN:
                rank = 4
            else:
                rank = 5
            order.append((rank, seat, act))
        for _, seat, act in sorted(order, key=lambda x: (x[0], x[1])):
            if self.g.pieces[a.colours[seat]].killed:
                continue  # shot down before his turn came
            self.events.append(broadcast(ActionTaken(seat, act.kind, act.target_colour, act.target_room)))
            self.act(seat, act)
        self.finish()
        if self.bomber_question is not None:
            self.questions.append(self.bomber_question)
        return self.events

    def act(self, seat: int, act: TakeAction) -> None:
        kind = act.kind
        ident = self.g.secret.identities[seat]
        if kind == ActionKind.DETONATE and act.target_room is not None:
            self.detonate(seat, act.target_room)
        elif kind == ActionKind.SNIPE:
            self.snipe(seat)
        elif kind == ActionKind.SHOOT_PRESIDENT:
            self.pistol_at_president(seat)
        elif kind == ActionKind.SHOOT_PLAYER and act.target_colour is not None:
            if ident == SNIPER:
                self.sniper_shoots(seat, act.target_colour)
            else:
                self.police_shoots(seat, act.target_colour)
        elif kind == ActionKind.DETAIN and act.target_colour is not None:
            self.detain_action(seat, act.target_colour)
        elif kind == ActionKind.LEAVE_CELL:
            self.to_office.append(self.g.secret.colours[seat])

    def same_room(self, seat: int, colour: int) -> bool:
        me = self.g.pieces[self.g.secret.colours[seat]]
        other = self.g.pieces[colour]
        return me.on_board and other.on_board and me.room == other.room

    def detonate(self, seat: int, room: Room) -> None:
        """AS-27 to AS-29."""
        g = self.g
        g.bomb_used = True
        # Who may detain him is who was with him when it went off, not who is there once the stage has moved pieces (AS-28).
        bomber = g.secret.colours[seat]
        self.bomber_question = Question("bomber", bomber, tuple(others_in_room(g, bomber)))
        self.incident()
        self.reveal_room(room, RevealReason.BLAST)
        pres = g.president
        if pres.alive and pres.room == room:
            if pres.status == PresidentStatus.INJURED:
                self.hurt_president(seat, kill=True)
            else:
                die = self.roll(DiceReason.BOMB_BLAST)
                if room in board.OPEN_AIR:
                    if die >= 3:
                        self.hurt_president(seat, kill=False)
                    else:
                        self.president_missed(seat)
                else:
                    self.hurt_president(seat, kill=die >= 3)
        for p in list(g.pieces):
            if not (p.on_board and p.room == room):
                continue
            ident = identity_of_colour(g, p.colour)
            if ident == SS:
                self.injure(p.colour, seat)
            elif ident != BOMBER:
                self.kill(p.colour, seat)

    def snipe(self, seat: int) -> None:
        """AS-21: only if still alone in the tower with the president alive on the podium."""
        g = self.g
        colour = g.secret.colours[seat]
        piece = g.pieces[colour]
        self.incident()
        if not (piece.on_board and piece.room == Room.TOWER and not others_in_room(g, colour)):
            return
        if not (g.president.alive and g.president.room == Room.PODIUM):
            return
        die = self.roll(DiceReason.SNIPER_SHOT)
        if die >= 3:
            self.hurt_president(seat, kill=True)
        elif die == 2:
            self.hurt_president(seat, kill=False)
        else:
            self.president_missed(seat)

    def pistol_at_president(self, seat: int) -> None:
        """AS-22 (the sniper) and AS-34 (the bad cop)."""
        g = self.g
        a = g.secret
        colour = a.colours[seat]
        piece = g.pieces[colour]
        self.incident()
        if not (piece.on_board and g.president.alive and g.president.room == piece.room):
            return
        room = piece.room
        assert room is not None
        self.reveal_room(room, RevealReason.WITNESS)
        present = {identity_of_colour(g, c): c for c in others_in_room(g, colour)}
        if SS in present:
            self.kill(present[SS], seat)  # the agent takes the bullet
        else:
            self.hurt_president(seat, kill=True)
        reporter_here = Identity.REPORTER in present
        bad_guys = [present[i] for i in (SNIPER, BOMBER) if i in present]
        if a.identities[seat] == SNIPER:
            if PO in present and reporter_here:
                for c in [colour] + bad_guys:
                    self.detain(c, a.seat_of(PO))
            elif PO in present:  # the bad cop "can ignore detaining sniper": he is asked, whatever his side
                self.questions.append(Question("sniper", colour, (colour, *bad_guys)))
        elif reporter_here:
            self.witness_arrest(colour, bad_guys)

    def witness_arrest(self, bad_cop_colour: int, bad_guys: list[int]) -> None:
        """The reporter saw the bad cop shoot: the bad cop and any sniper or bomber with him are detained (AS-34, AS-35)."""
        for c in [bad_cop_colour] + bad_guys:
            self.detain(c, None)

    def sniper_shoots(self, seat: int, target: int) -> None:
        """AS-23: the police officer and the agent are wounded, the reporter and the bomber killed."""
        self.incident()
        if not self.same_room(seat, target):
            return
        self.events.extend(reveal_colour(self.g, target, RevealReason.SHOT))
        if identity_of_colour(self.g, target) in (SS, PO):
            self.injure(target, seat)
        else:
            self.kill(target, seat)

    def police_shoots(self, seat: int, target: int) -> None:
        """AS-33 (shoot first) and AS-35 (the bad cop shoots the agent)."""
        g = self.g
        a = g.secret
        self.incident()
        if not self.same_room(seat, target):
            return
        self.events.extend(reveal_colour(g, target, RevealReason.SHOT))
        target_ident = identity_of_colour(g, target)
        if target_ident == SS:
            self.injure(target, seat)
        else:
            self.kill(target, seat)
        # The reporter arrests the bad cop for his own shot at the agent (AS-35); after an incident any police
        # officer may shoot first (AS-33), and the same shot must not tell a bad cop from a good one.
        if a.bad_cop and target_ident == SS and not g.incident_before_stage:
            colour = a.colours[seat]
            room = g.pieces[colour].room
            present = {identity_of_colour(g, c): c for c in others_in_room(g, colour)}
            if Identity.REPORTER in present and room is not None:
                self.events.extend(reveal_colour(g, present[Identity.REPORTER], RevealReason.WITNESS))
                self.witness_arrest(colour, [present[i] for i in (SNIPER, BOMBER) if i in present])

    def detain_action(self, seat: int, target: int) -> None:
        """AS-30 to AS-32."""
        g = self.g
        if not self.same_room(seat, target):
            return
        if g.secret.identities[seat] == PO and identity_of_colour(g, target) == SS:
            self.events.extend(reveal_colour(g, target, RevealReason.DETAIN_ATTEMPT))
            self.to_office.append(g.secret.colours[seat])
            g.ledger.tried_secret_service.append(seat)
            return
        self.detain(target, seat)

    # --- the end of the stage ---

    def finish(self) -> None:
        """Detained pieces go to the holding cell, the injured to health services, and so on (AS-20, AS-50)."""
        g = self.g
        for colour in self.to_cell:
            p = g.pieces[colour]
            if p.killed:
                continue
            p.detained = True
            p.enter(Room.HOLDING_CELL)
            self.events.append(broadcast(PieceSent(colour, Room.HOLDING_CELL)))
        for colour in self.to_health:
            p = g.pieces[colour]
            # Custody comes before care: the cell, or the office for a police officer who tried the agent (AS-50).
            if p.killed or p.detained or colour in self.to_cell or colour in self.to_office:
                continue
            if p.room != Room.HEALTH_SERVICES:
                p.enter(Room.HEALTH_SERVICES)
                self.events.append(broadcast(PieceSent(colour, Room.HEALTH_SERVICES)))
        for colour in self.to_office:
            p = g.pieces[colour]
            if p.killed or colour in self.to_cell:
                continue
            p.detained = False
            p.detained_by_secret_service = False
            if p.room != Room.SECURITY_OFFICE:
                p.enter(Room.SECURITY_OFFICE)
                self.events.append(broadcast(PieceSent(colour, Room.SECURITY_OFFICE)))
