"""The Assassination Game: secret identities, marked decks, anonymous plays and a president's walk.

Numbered readings of the rules live in docs/games/assassination.md; the
comments below cite them as (AS-n). The board is in board.py, the decks in
deck.py, the action stage in actions.py and the scoring in scoring.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import Any, ClassVar, Final

from arena.v1 import assassination_pb2
from referee.core.cards import CARDS_PER_DECK, card_str
from referee.core.game import BoardLayout, Event, Game, GameSpec, OptionSpec, Result, broadcast, ranks_from_scores
from referee.games.assassination import board, deck
from referee.games.assassination.actions import Resolution, options, reveal_seat
from referee.games.assassination.questions import answer, seats_to_ask
from referee.games.assassination.scoring import score_round
from referee.games.assassination.state import Assignment, Ledger, PieceState, PresidentState, Question
from referee.games.assassination.types import (
    ACTION_TYPES,
    Action,
    ActionChoice,
    ActionOption,
    AllegianceChoice,
    CellChoice,
    ChooseAllegiance,
    Decision,
    DetainSniper,
    Direction,
    EventChoice,
    EventsRevealed,
    Identity,
    LeaveCell,
    MovementChoice,
    MovementRevealed,
    MovePresident,
    NextRoundChoice,
    Phase,
    Piece,
    PieceMove,
    PiecesMoved,
    PlayEvent,
    PlayMovement,
    President,
    PresidentMoveChoice,
    PresidentMoved,
    PresidentSafe,
    React,
    ReactionChoice,
    Revealed,
    RevealReason,
    Room,
    RoundEnded,
    RoundOutcome,
    RoundStarted,
    SniperDetentionChoice,
    SpeechGiven,
    StartRound,
    TakeAction,
    TurnStarted,
    View,
)

#: Turns in a round: each player has sixteen event cards and plays one a turn (AS-45).
TURN_LIMIT: Final = 16

#: Every card's play, made once: a movement hand is a whole marked deck (54 cards), listed at every turn.
_PLAY_MOVEMENT: Final = tuple(PlayMovement(c) for c in range(2 * deck.COLOURS * CARDS_PER_DECK))
_PLAY_EVENT: Final = tuple(PlayEvent(c) for c in range(2 * deck.COLOURS * CARDS_PER_DECK))

SPEC = GameSpec(
    id="assassination",
    name="The Assassination Game",
    player_counts=(4,),
    summary="Secret identities around a president's visit: anonymous moves with marked cards, a sniper, a bomber, the Secret Service and the police.",
    score="points, every round's summed",
    rules_file="assassination.txt",
    rules_version=7,  # 2: the sniper's and the cell's questions (AS-22, AS-31, AS-53), a killed reporter's cards (AS-54); 3: the bomber's company when it went off (AS-28); 4: no arrest for shooting first at the agent (AS-35); 5: the bad cop who kills the reporter loses 4 (AS-41); 6: a president left on his route by the agent walks on along it (AS-59); 7: walking by himself without an incident he never enters the helipad or the bunker (AS-61)
    options=(
        OptionSpec("target_score", 15, "The game ends after the round in which a player reaches this score.", minimum=1, maximum=1000),
        OptionSpec("max_rounds", 20, "The game ends after this many rounds whatever the scores.", minimum=1, maximum=200),
        OptionSpec("bad_cop", True, "A single player in last place who is dealt the police officer may choose to be the bad cop."),
    ),
    board=BoardLayout(
        grid=tuple(tuple(room.name if room is not None else None for room in row) for row in board.GRID),
        inside=((Room.HOLDING_CELL.name, Room.SECURITY_OFFICE.name),),
    ),
)


def single(scores: list[int], best: bool) -> int | None:
    """The only seat with the highest (or lowest) score, or None on a tie."""
    target = max(scores) if best else min(scores)
    seats = [s for s, v in enumerate(scores) if v == target]
    return seats[0] if len(seats) == 1 else None


class Assassination(Game[Action]):
    spec = SPEC
    action_types = ACTION_TYPES
    proto_module: ClassVar[ModuleType] = assassination_pb2

    def __init__(self, num_players: int, seed: int, options: dict[str, object] | None = None) -> None:
        super().__init__(num_players, seed, options)
        self.scores = [0] * num_players
        self.round = 0
        self.turn = 0
        self.phase = Phase.MOVEMENT
        self.ss_token: int | None = None
        self.bad_cop_token: int | None = None
        self.pending: dict[int, int] = {}
        self.action_options: dict[int, tuple[ActionOption, ...]] = {}
        self.chosen: dict[int, TakeAction] = {}
        self.questions: list[Question] = []  # left by the action stage, put one at a time
        self.question: Question | None = None
        self.asked: dict[int, bool] = {}  # the seats asked the question: whether each may answer what changes something
        self.reactions: dict[int, bool] = {}
        self.last_movement: tuple[int, ...] = ()
        self.last_events: tuple[int, ...] = ()
        self.movement_played: tuple[int, ...] = ()  # every pile turned over this round, in order (AS-56)
        self.events_played: tuple[int, ...] = ()
        self._opening = self._start_round()

    # --- setting up a round -------------------------------------------------------

    def _start_round(self) -> list[Event]:
        """Tokens, the deal of decks and identities, the board (AS-2 to AS-6, AS-9)."""
        n = self.num_players
        self.round += 1
        self.turn = 0
        self.ss_token = single(self.scores, best=True)
        last = single(self.scores, best=False)
        self.bad_cop_token = last if bool(self.options["bad_cop"]) else None
        colours = list(range(deck.COLOURS))
        self.rng.shuffle(colours)
        dealt = [Identity.POLICE_OFFICER, Identity.SNIPER, Identity.BOMBER]
        if self.ss_token is None:
            dealt.append(Identity.SECRET_SERVICE)
        self.rng.shuffle(dealt)
        identities = [Identity.SECRET_SERVICE if s == self.ss_token else dealt.pop() for s in range(n)]
        reporter_colour = colours[n]
        movement = deck.movement_deck(reporter_colour)
        self.rng.shuffle(movement)
        events = [c for c in deck.event_deck(reporter_colour) if not deck.is_action(c)]
        self.rng.shuffle(events)
        start_die = self.rng.randint(1, 6)
        route_die = self.rng.randint(1, 6)
        start = Room.HELIPAD if start_die % 2 == 0 else Room.BUNKER
        self.president = PresidentState(room=start, start=start, route_die=route_die, route=board.route(start, route_die))
        self.pieces = [PieceState(c) for c in range(deck.COLOURS)]
        self.incident = False
        self.incident_before_stage = False
        self.bomb_used = False
        self.revealed_seats: dict[int, None] = {}  # in reveal order
        self.revealed_before_stage: set[int] = set()
        self.reporter_revealed = False
        self.ledger = Ledger()
        self.last_movement = ()
        self.last_events = ()
        self.movement_played = ()
        self.events_played = ()
        self.install(Assignment(identities, colours[:n], reporter_colour), movement, events)
        opening = [
            broadcast(
                RoundStarted(self.round, start_die, start, route_die, self.president.route, self.ss_token, self.bad_cop_token)
            )
        ]
        if self.bad_cop_token is not None:
            self.phase = Phase.ALLEGIANCE
            return opening
        return opening + self._start_turn()

    def install(self, secret: Assignment, reporter_movement: list[int], reporter_events: list[int]) -> None:
        """Deal the round's secrets: each seat gets the whole marked deck of its colour (AS-4, AS-5)."""
        self.secret = secret
        n = self.num_players
        self.movement_hands = [deck.movement_deck(secret.colours[s]) for s in range(n)]
        self.event_hands = [deck.event_deck(secret.colours[s]) for s in range(n)]
        self.reporter_movement = list(reporter_movement)
        self.reporter_events = list(reporter_events)
        self.discarded = [c for c in deck.event_deck(secret.reporter_colour) if deck.is_action(c)]
        # Cards each seat has seen since the deal: its own, then every card turned over.
        self.seen = [set(self.movement_hands[s]) | set(self.event_hands[s]) for s in range(n)]
        self.forget()

    def _start_turn(self) -> list[Event]:
        self.turn += 1
        self.phase = Phase.MOVEMENT
        self.pending = {}
        return [broadcast(TurnStarted(self.turn))]

    # --- who acts -------------------------------------------------------------------

    def living(self) -> list[int]:
        """Seats whose piece is not dead; only they play cards (AS-16)."""
        return [s for s in range(self.num_players) if not self.pieces[self.secret.colours[s]].killed]

    def ss_moves_president(self) -> bool:
        """A revealed agent who is alive and not locked up moves the president (AS-13)."""
        ss = self.secret.seat_of(Identity.SECRET_SERVICE)
        piece = self.pieces[self.secret.colours[ss]]
        return ss in self.revealed_seats and not piece.killed and piece.room != Room.HOLDING_CELL

    def to_act(self) -> tuple[int, ...]:
        phase = self.phase
        if phase in (Phase.MOVEMENT, Phase.EVENT):
            return tuple(s for s in self.living() if s not in self.pending)
        if phase == Phase.ACTION:
            return tuple(s for s in sorted(self.action_options) if s not in self.chosen)
        if phase == Phase.REACTION:
            return tuple(s for s in sorted(self.asked) if s not in self.reactions)
        if phase == Phase.PRESIDENT:
            return (self.secret.seat_of(Identity.SECRET_SERVICE),)
        if phase == Phase.ALLEGIANCE:
            assert self.bad_cop_token is not None
            return (self.bad_cop_token,)
        if phase == Phase.ROUND_OVER:
            return ((self.round - 1) % self.num_players,)  # the dealer deals the next round
        return ()

    def _decide(self, seat: int) -> Decision:
        if seat not in self.to_act():
            raise ValueError(f"seat {seat} has no decision now")
        phase = self.phase
        if phase == Phase.MOVEMENT:
            return MovementChoice(tuple(self.movement_hands[seat]))
        if phase == Phase.EVENT:
            return EventChoice(tuple(self.event_hands[seat]))
        if phase == Phase.ACTION:
            return ActionChoice(self.action_options[seat])
        if phase == Phase.REACTION:
            q = self.question
            assert q is not None
            if q.kind == "sniper":
                return SniperDetentionChoice(q.colour, q.colours, self.asked[seat])
            if q.kind == "cell":
                return CellChoice(q.colour, self.asked[seat])
            return ReactionChoice(q.colour, self.asked[seat])
        if phase == Phase.PRESIDENT:
            return PresidentMoveChoice(self.president.room, board.escort_moves(self.president.room), self.incident)
        if phase == Phase.ALLEGIANCE:
            return AllegianceChoice(self.secret.identities[seat] == Identity.POLICE_OFFICER)
        return NextRoundChoice(self.round + 1)

    def legal_actions(self, seat: int) -> Iterator[Action]:
        d = self.decision(seat)
        if isinstance(d, MovementChoice):
            return (_PLAY_MOVEMENT[c] for c in d.playable)
        if isinstance(d, EventChoice):
            return (_PLAY_EVENT[c] for c in d.playable)
        if isinstance(d, ActionChoice):
            return (TakeAction(o.kind, o.target_colour, o.target_room) for o in d.options)
        if isinstance(d, ReactionChoice):
            return iter([React(False)] + ([React(True)] if d.can_detain else []))
        if isinstance(d, SniperDetentionChoice):
            return iter([DetainSniper(True)] + ([DetainSniper(False)] if d.can_ignore else []))
        if isinstance(d, CellChoice):
            return iter([LeaveCell(False)] + ([LeaveCell(True)] if d.can_leave else []))
        if isinstance(d, PresidentMoveChoice):
            return (MovePresident(r) for r in d.rooms)
        if isinstance(d, AllegianceChoice):
            return iter([ChooseAllegiance(False)] + ([ChooseAllegiance(True)] if d.police_officer else []))
        return iter([StartRound()])

    def check(self, seat: int, action: Action) -> str | None:
        d = self.decision(seat)
        if isinstance(d, MovementChoice):
            if not isinstance(action, PlayMovement):
                return "play a movement card now"
            return None if action.card_id in d.playable else f"card {action.card_id} is not a movement card in your hand"
        if isinstance(d, EventChoice):
            if not isinstance(action, PlayEvent):
                return "play an event card now"
            return None if action.card_id in d.playable else f"card {action.card_id} is not an event card in your hand"
        if isinstance(d, ActionChoice):
            if not isinstance(action, TakeAction):
                return "choose your action now"
            option = ActionOption(action.kind, action.target_colour, action.target_room)
            return None if option in d.options else "that action is not open to you now"
        if isinstance(d, ReactionChoice):
            if not isinstance(action, React):
                return "say whether you detain the bomber now"
            return "you cannot detain the bomber" if action.detain and not d.can_detain else None
        if isinstance(d, SniperDetentionChoice):
            if not isinstance(action, DetainSniper):
                return "say whether you detain the sniper now"
            return "only the bad cop may let the sniper go" if not action.detain and not d.can_ignore else None
        if isinstance(d, CellChoice):
            if not isinstance(action, LeaveCell):
                return "say whether you leave the holding cell now"
            return "only the police officer the agent detained may leave the cell" if action.leave and not d.can_leave else None
        if isinstance(d, PresidentMoveChoice):
            if not isinstance(action, MovePresident):
                return "move the president now"
            return None if action.room in d.rooms else "the president cannot be moved there"
        if isinstance(d, AllegianceChoice):
            if not isinstance(action, ChooseAllegiance):
                return "choose your side now"
            return "only the police officer can be the bad cop" if action.bad_cop and not d.police_officer else None
        return None if isinstance(action, StartRound) else "start the next round now"

    def default_action(self, seat: int) -> Action:
        """Stand still, do nothing, keep the president on his way, stay good and in the cell (AS-47)."""
        d = self.decision(seat)
        if isinstance(d, MovementChoice):
            stays = [c for c in d.playable if deck.direction_of(c) == Direction.STAY]
            return PlayMovement(min(stays or d.playable))
        if isinstance(d, EventChoice):
            idle = [c for c in d.playable if not deck.is_action(c)]
            return PlayEvent(min(idle or d.playable))
        if isinstance(d, ActionChoice):
            return TakeAction(d.options[0].kind, d.options[0].target_colour, d.options[0].target_room)
        if isinstance(d, ReactionChoice):
            return React(False)
        if isinstance(d, SniperDetentionChoice):
            return DetainSniper(True)
        if isinstance(d, CellChoice):
            return LeaveCell(False)
        if isinstance(d, PresidentMoveChoice):
            auto = self._auto_president_room()  # may be the podium two rooms away (AS-10): one step towards it
            return MovePresident(auto if auto in d.rooms else board.toward(d.from_room, (auto,)))
        if isinstance(d, AllegianceChoice):
            return ChooseAllegiance(False)
        return StartRound()

    # --- applying actions -----------------------------------------------------------

    def _apply(self, seat: int, action: Action) -> list[Event]:
        if isinstance(action, PlayMovement):
            self.movement_hands[seat].remove(action.card_id)
            self.pending[seat] = action.card_id
            return self._resolve_movement() if not self.to_act() else []
        if isinstance(action, PlayEvent):
            self.event_hands[seat].remove(action.card_id)
            self.pending[seat] = action.card_id
            return self._resolve_events() if not self.to_act() else []
        if isinstance(action, TakeAction):
            self.chosen[seat] = action
            return self._resolve_actions() if not self.to_act() else []
        if isinstance(action, (React, DetainSniper, LeaveCell)):
            self.reactions[seat] = action.leave if isinstance(action, LeaveCell) else action.detain
            return self._answered() if not self.to_act() else []
        if isinstance(action, MovePresident):
            return self._move_president(action.room, by_ss=True) + self._after_president()
        if isinstance(action, ChooseAllegiance):
            self.secret.bad_cop = action.bad_cop and self.secret.identities[seat] == Identity.POLICE_OFFICER
            return self._start_turn()
        return self._start_round()

    def _turn_over(self, pending: list[int], extra: int | None) -> tuple[int, ...]:
        """The face-down pile and the reporter's card, shuffled and turned over: seats are not told (AS-17)."""
        pile = sorted(pending + ([extra] if extra is not None else []))
        self.rng.shuffle(pile)
        for seen in self.seen:
            seen.update(pile)
        return tuple(pile)

    def _resolve_movement(self) -> list[Event]:
        """Every piece moves by the card of its colour (AS-7, AS-8)."""
        extra = self.reporter_movement.pop(0) if self.reporter_movement and self._reporter_alive() else None
        pile = self._turn_over(list(self.pending.values()), extra)
        self.pending = {}
        self.last_movement = pile
        self.movement_played += pile
        moves: list[PieceMove] = []
        for card in sorted(pile, key=deck.colour_of):
            piece = self.pieces[deck.colour_of(card)]
            if piece.killed or piece.room is None:
                continue
            direction = deck.direction_of(card)
            before = piece.room
            piece.enter(board.step(before, direction))
            moves.append(PieceMove(piece.colour, direction, before, piece.room))
        events = [broadcast(MovementRevealed(pile)), broadcast(PiecesMoved(tuple(moves)))]
        if self.ss_moves_president() and self.president.alive:
            self.phase = Phase.PRESIDENT
            return events
        return events + self._move_president(self._auto_president_room(), by_ss=False) + self._after_president()

    def _reporter_alive(self) -> bool:
        """A killed reporter, like a dead player, adds no more cards to the piles that round (AS-16, AS-54)."""
        return not self.pieces[self.secret.reporter_colour].killed

    def _auto_president_room(self) -> Room:
        """Where the president goes on his own this turn (AS-10 to AS-12, AS-14)."""
        pres = self.president
        room = pres.room
        if self.incident:
            return board.toward(room, board.REFUGES)
        if not pres.speech_given:
            if room == Room.PODIUM:
                return room
            if room == pres.start:
                return pres.route[0]
            if room in pres.route:  # on his route, wherever the agent left him: on along it (AS-59)
                return pres.route[pres.route.index(room) + 1]
            return board.toward(room, (Room.PODIUM,), board.WALK)  # through the rooms he walks through (AS-61)
        if room in board.PHOTO_OP[:-1]:
            return board.PHOTO_OP[board.PHOTO_OP.index(room) + 1]
        return board.toward(room, (Room.PUBLIC_EXIT,), board.WALK)

    def _move_president(self, to: Room, by_ss: bool) -> list[Event]:
        pres = self.president
        before = pres.room
        pres.room = to
        if to == before:
            return []
        return [broadcast(PresidentMoved(before, to, by_ss))]

    def _after_president(self) -> list[Event]:
        """A president who reaches the bunker after an incident is safe at once (AS-14); else the event stage."""
        if self.incident and self.president.alive and self.president.room == Room.BUNKER:
            return self._president_safe()
        self.phase = Phase.EVENT
        self.pending = {}
        return []

    def _president_safe(self) -> list[Event]:
        self.president.safe = True
        return [broadcast(PresidentSafe(self.president.room))] + self._end_round(RoundOutcome.REACHED_SAFETY)

    def _resolve_events(self) -> list[Event]:
        """Event cards turned over; each action card's owner reveals himself (AS-18, AS-19)."""
        extra = None
        if self._reporter_alive():
            if not self.reporter_events:
                # His twelve blanks are spent: they are shuffled into a new pile, or the pile would lack his colour (AS-51).
                self.reporter_events = [c for c in deck.event_deck(self.secret.reporter_colour) if not deck.is_action(c)]
                self.rng.shuffle(self.reporter_events)
            extra = self.reporter_events.pop(0)
        played = dict(self.pending)
        pile = self._turn_over(list(played.values()), extra)
        self.pending = {}
        self.last_events = pile
        self.events_played += pile
        action_colours = tuple(sorted(deck.colour_of(c) for c in pile if deck.is_action(c)))
        events = [broadcast(EventsRevealed(pile, action_colours))]
        self.revealed_before_stage = set(self.revealed_seats)
        self.incident_before_stage = self.incident
        self.president.hurt_this_stage = False
        actors = sorted(s for s, card in played.items() if deck.is_action(card))
        for colour in action_colours:
            owner = self.secret.owner(colour)
            assert owner is not None
            events += reveal_seat(self, owner, RevealReason.ACTION_CARD)
        self.action_options = {s: options(self, s) for s in actors}
        self.chosen = {}
        if actors:
            self.phase = Phase.ACTION
            return events
        return events + self._end_action_stage()

    def _resolve_actions(self) -> list[Event]:
        chosen, self.chosen = self.chosen, {}
        self.action_options = {}
        resolution = Resolution(self)
        events = resolution.run(chosen)
        if self.incident:
            # The agent must reveal himself when an incident occurs (AS-37).
            events += reveal_seat(self, self.secret.seat_of(Identity.SECRET_SERVICE), RevealReason.INCIDENT)
        self.questions = resolution.questions  # the sniper's detention, leaving the cell, the bomber's (questions.py)
        return events + self._next_question()

    def _next_question(self) -> list[Event]:
        """Put the next question that is not moot, or end the action stage."""
        while self.questions:
            q = self.questions.pop(0)
            asked = seats_to_ask(self, q)
            if asked:
                self.question = Question(q.kind, q.colour, tuple(c for c in q.colours if self.pieces[c].on_board))
                self.asked, self.reactions = asked, {}
                self.phase = Phase.REACTION
                return []
        self.question = None
        return self._end_action_stage()

    def _answered(self) -> list[Event]:
        q = self.question
        assert q is not None
        yes = [s for s in sorted(self.reactions) if self.reactions[s]]
        self.asked, self.reactions = {}, {}
        return answer(self, q, yes) + self._next_question()

    def _end_action_stage(self) -> list[Event]:
        """The president's fate this turn, the speech and the photo op, or the next turn (AS-12, AS-14, AS-15, AS-45)."""
        pres = self.president
        self.phase = Phase.EVENT  # until decided below
        if not pres.alive:
            return self._end_round(RoundOutcome.ASSASSINATED)
        if self.incident:
            if pres.room == Room.BUNKER or (pres.room == Room.HELIPAD and not pres.hurt_this_stage):
                return self._president_safe()
        events: list[Event] = []
        if not self.incident and pres.room == Room.PODIUM and not pres.speech_given:
            pres.speech_given = True
            events.append(broadcast(SpeechGiven()))
        elif not self.incident and pres.speech_given and pres.room == Room.PUBLIC_EXIT:
            return events + self._end_round(RoundOutcome.PHOTO_OP_TAKEN)
        if self.turn >= TURN_LIMIT or not self.living():
            return events + self._end_round(RoundOutcome.TIME_UP)
        return events + self._start_turn()

    def _end_round(self, outcome: RoundOutcome) -> list[Event]:
        """Everything is revealed and scored (AS-40 to AS-44); the game may end (AS-46)."""
        changes = score_round(self, outcome)
        for change in changes:
            self.scores[change.seat] += change.points
        over = max(self.scores) >= int(self.options["target_score"]) or self.round >= int(self.options["max_rounds"])
        a = self.secret
        self.phase = Phase.OVER if over else Phase.ROUND_OVER
        self.pending, self.action_options, self.chosen, self.asked, self.reactions = {}, {}, {}, {}, {}
        self.questions, self.question = [], None
        ended = RoundEnded(
            round=self.round,
            outcome=outcome,
            president_status=self.president.status,
            identities=tuple(a.identities),
            colours=tuple(a.colours),
            reporter_colour=a.reporter_colour,
            bad_cop=a.bad_cop,
            changes=tuple(changes),
            scores=tuple(self.scores),
            game_over=over,
        )
        return [broadcast(ended)]

    # --- what seats may know ----------------------------------------------------------

    def _piece(self, p: PieceState) -> Piece:
        return Piece(p.colour, p.room, p.injured, p.detained, p.killed, tuple(p.visited))

    def _side_shown(self, seat: int, ended: bool) -> bool | None:
        """The police officer's side, which only the round's end tells everyone (RoundEnded.bad_cop, AS-57)."""
        if ended and self.secret.identities[seat] == Identity.POLICE_OFFICER:
            return self.secret.bad_cop
        return None

    def view(self, seat: int) -> View:
        a = self.secret
        pres = self.president
        ended = self.phase in (Phase.ROUND_OVER, Phase.OVER)  # the round's end reveals everyone and the police officer's side (RoundEnded, AS-57)
        shown = [*self.revealed_seats, *(s for s in range(self.num_players) if s not in self.revealed_seats)] if ended else self.revealed_seats
        revealed = tuple(Revealed(s, a.identities[s], a.colours[s], self._side_shown(s, ended)) for s in shown)
        return View(
            seat=seat,
            num_players=self.num_players,
            round=self.round,
            turn=self.turn,
            turn_limit=TURN_LIMIT,
            phase=self.phase,
            scores=tuple(self.scores),
            target_score=int(self.options["target_score"]),
            identity=a.identities[seat],
            colour=a.colours[seat],
            bad_cop=a.bad_cop and a.identities[seat] == Identity.POLICE_OFFICER,
            movement_hand=tuple(self.movement_hands[seat]),
            event_hand=tuple(self.event_hands[seat]),
            played_card=self.pending.get(seat),
            pieces=tuple(self._piece(p) for p in self.pieces),
            president=President(
                pres.room,
                pres.status,
                pres.start,
                pres.route_die,
                pres.route,
                pres.speech_given,
                pres.safe,
                self.ss_moves_president(),
            ),
            incident=self.incident,
            bomb_used=self.bomb_used,
            secret_service_token=self.ss_token,
            bad_cop_token=self.bad_cop_token,
            revealed=revealed,
            reporter_colour=a.reporter_colour if self.reporter_revealed or ended else None,
            last_movement=self.last_movement,
            last_events=self.last_events,
            movement_played=self.movement_played,
            events_played=self.events_played,
        )

    def hidden_cards(self, seat: int) -> set[int]:
        hidden: set[int] = set(self.reporter_movement) | set(self.reporter_events) | set(self.discarded)
        for other in range(self.num_players):
            if other != seat:
                hidden.update(self.movement_hands[other])
                hidden.update(self.event_hands[other])
                if other in self.pending:
                    hidden.add(self.pending[other])
        return hidden - self.seen[seat]

    def result(self) -> Result:
        return Result(ranks_from_scores(self.scores), tuple(float(s) for s in self.scores))

    def full_state(self) -> dict[str, Any]:
        a = self.secret
        pres = self.president
        return {
            "round": self.round,
            "turn": self.turn,
            "turn_limit": TURN_LIMIT,  # as a seat's view gives them: when a round and the game end
            "phase": self.phase.name,
            "scores": list(self.scores),
            "target_score": int(self.options["target_score"]),
            "secret_service_token": self.ss_token,
            "bad_cop_token": self.bad_cop_token,
            "bad_cop": a.bad_cop,
            "reporter_colour": a.reporter_colour,
            "incident": self.incident,
            "bomb_used": self.bomb_used,
            "revealed": list(self.revealed_seats),
            "reporter_revealed": self.reporter_revealed,
            "president": {
                "room": pres.room.name,
                "status": pres.status.name,
                "start": pres.start.name,
                "route": [r.name for r in pres.route],
                "speech_given": pres.speech_given,
                "safe": pres.safe,
            },
            "seats": [
                {
                    "seat": s,
                    "identity": a.identities[s].name,
                    "colour": a.colours[s],
                    "movement_hand": [card_str(c) for c in self.movement_hands[s]],
                    "event_hand": [card_str(c) for c in self.event_hands[s]],
                    "pending": None if s not in self.pending else card_str(self.pending[s]),
                }
                for s in range(self.num_players)
            ],
            "pieces": [
                {
                    "colour": p.colour,
                    "room": p.room.name if p.room is not None else None,
                    "injured": p.injured,
                    "detained": p.detained,
                    "killed": p.killed,
                    "visited": [r.name for r in p.visited],
                }
                for p in self.pieces
            ],
            "reporter_movement": [card_str(c) for c in self.reporter_movement],
            "reporter_events": [card_str(c) for c in self.reporter_events],
        }
