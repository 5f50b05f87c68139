"""The state of one round: pieces, the president, reveals, the scoring ledger."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from referee.games.assassination.types import Identity, PresidentStatus, Room


@dataclass
class PieceState:
    """One of the five pieces, by colour."""

    colour: int
    room: Room | None = Room.COURTYARD
    injured: bool = False
    detained: bool = False
    detained_by_secret_service: bool = False
    killed: bool = False
    visited: list[Room] = field(default_factory=lambda: [Room.COURTYARD])

    def enter(self, room: Room) -> None:
        self.room = room
        if room not in self.visited:
            self.visited.append(room)

    @property
    def on_board(self) -> bool:
        """Alive and not locked in the holding cell."""
        return not self.killed and self.room is not None and self.room != Room.HOLDING_CELL


@dataclass
class PresidentState:
    room: Room
    start: Room
    route_die: int
    route: tuple[Room, ...]
    status: PresidentStatus = PresidentStatus.UNHARMED
    speech_given: bool = False
    safe: bool = False
    hurt_this_stage: bool = False

    @property
    def alive(self) -> bool:
        return self.status != PresidentStatus.KILLED


@dataclass
class Ledger:
    """What the round's scoring needs (AS-40): kills, detentions, failed detentions."""

    kills: list[tuple[int, int]] = field(default_factory=list)  # (killer seat, victim colour)
    detentions: list[tuple[int | None, int]] = field(default_factory=list)  # (arrester seat or None, colour)
    tried_secret_service: list[int] = field(default_factory=list)  # police officers moved to the office


@dataclass
class Assignment:
    """The round's secrets: who holds which colour and identity, and the police officer's side."""

    identities: list[Identity]
    colours: list[int]
    reporter_colour: int
    bad_cop: bool = False

    def owner(self, colour: int) -> int | None:
        """The seat whose piece has this colour; None for the reporter."""
        return self.colours.index(colour) if colour in self.colours else None

    def seat_of(self, identity: Identity) -> int:
        return self.identities.index(identity)

    def colour_of(self, identity: Identity) -> int:
        return self.colours[self.seat_of(identity)]

    def is_good(self, seat: int) -> bool:
        ident = self.identities[seat]
        return ident == Identity.SECRET_SERVICE or (ident == Identity.POLICE_OFFICER and not self.bad_cop)


@dataclass(frozen=True)
class Question:
    """A yes-or-no question the action stage leaves, put once it has resolved (AS-22, AS-28, AS-31).

    ``kind`` is "sniper" (the police officer detains the sniper or not), "cell"
    (the police officer the agent detained leaves the cell or not) or "bomber"
    (the bomber is detained after his blast or not); ``colour`` is the piece it
    is about; ``colours`` is what a yes to "sniper" sends to the cell, and for
    "bomber" the pieces in his room when his bomb went off.
    """

    kind: Literal["sniper", "cell", "bomber"]
    colour: int
    colours: tuple[int, ...] = ()
