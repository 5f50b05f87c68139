"""The fourth audit of the Assassination Game: rule sentences and visibility tags the engine kept but no test pinned.

Each test is named after the ruling it pins (docs/games/assassination.md); a throwaway mutation of the engine line it
names survived every other rules test (or only the golden playthroughs' diff caught it).
"""

from __future__ import annotations

from referee.games.assassination import deck
from referee.games.assassination.types import (
    ActionKind,
    ActionTaken,
    DiceRolled,
    Direction,
    Phase,
    PlayEvent,
    PlayMovement,
    PresidentHit,
    PresidentSafe,
    ReporterRevealed,
    Room,
    RoundEnded,
    TakeAction,
)
from tests.games import test_assassination_support as t
from tests.games.test_assassination_support import PURE_RULES_ONLY, Loaded, every_seat_sees, of, opts

R = Room

pytestmark = PURE_RULES_ONLY  # the helpers patch a method of the rules (see test_assassination_support)


def test_as14_the_bunker_is_a_refuge_only_after_an_incident() -> None:
    # rules.py _after_president: "self.incident and ... room == Room.BUNKER". Without the incident, an agent who
    # revealed himself could park the president in the bunker and end the round unharmed (+5) at once.
    g = t.make(start=R.HELIPAD, route_die=1)  # his own way: hall, public exit, podium
    t.turn(g, acting=[0])  # the agent reveals himself, doing nothing; the president walks to the hall
    t.move(g)
    t.lead_president(g, R.PUBLIC_EXIT)
    t.play_events(g)
    t.move(g)
    events = t.lead_president(g, R.BUNKER)
    assert g.president.room == R.BUNKER and not g.incident
    assert not of(events, PresidentSafe) and not of(events, RoundEnded)
    assert g.phase == Phase.EVENT and not g.president.safe


def test_as35_before_an_incident_only_the_bad_cop_may_shoot_the_revealed_agent() -> None:
    # actions.py options: "elif a.bad_cop and seat_revealed(...)". A good police officer has no shot before an
    # incident (shoot-first comes after one, AS-33), even at an agent everyone knows.
    for bad_cop in (False, True):
        g = t.make()
        g.secret.bad_cop = bad_cop
        g.revealed_seats[0] = None
        t.to_event_stage(g)
        for c in (0, 1):
            t.place(g, c, R.HALL)
        t.play_events(g, [1])
        shots = [o.target_colour for o in opts(g, 1) if o.kind == ActionKind.SHOOT_PLAYER]
        assert shots == ([0] if bad_cop else []), bad_cop


def test_as9_as21_the_dice_and_the_reporters_reveal_are_public() -> None:
    # actions.py roll and reveal_colour: "broadcast(DiceRolled ...)" and "broadcast(ReporterRevealed ...)". A die
    # rolled in the action stage is rolled at the table, and a shot reporter is revealed to everyone (AS-23).
    g = t.make()
    g.rng = Loaded([1])  # the snipe misses
    t.to_event_stage(g)
    t.place(g, 2, R.TOWER)
    t.put_president(g, R.PODIUM)
    events = t.act(g, [2], {2: TakeAction(ActionKind.SNIPE)})
    every_seat_sees(events, DiceRolled)
    assert of(events, DiceRolled)[0].value == 1
    kinds = [type(e.payload) for e in events]
    assert kinds.index(ActionTaken) < kinds.index(DiceRolled) < kinds.index(PresidentHit), "the action is told, then its effects"
    h = t.make()
    events = t.sniper_shoots(h, 4)
    every_seat_sees(events, ReporterRevealed)
    assert of(events, ReporterRevealed)[0].colour == 4


def test_as47_with_no_card_that_does_nothing_left_the_default_is_the_lowest_card() -> None:
    # rules.py default_action: "min(stays or d.playable)" and "min(idle or d.playable)". A seat that has spent its
    # standing-still movement cards (four aces, two jokers) or its twelve do-nothing event cards plays its lowest card.
    g = t.make()
    moving = sorted(c for c in g.movement_hands[0] if deck.direction_of(c) != Direction.STAY)
    g.movement_hands[0][:] = [moving[-1], moving[0], moving[3]]
    g.forget()
    assert g.default_action(0) == PlayMovement(moving[0])
    h = t.make()
    t.move(h)
    aces = sorted(c for c in h.event_hands[0] if deck.is_action(c))
    h.event_hands[0][:] = [aces[-1], aces[0], aces[2]]
    h.forget()
    assert h.default_action(0) == PlayEvent(aces[0])


def test_as51_the_thirteenth_pile_repeats_a_blank_of_the_reporters_colour_only() -> None:
    # rules.py _resolve_events: the spent blanks are reshuffled into a new pile, so the thirteenth pile holds a card
    # already turned over, of his colour (what names him to a seat that counts, AS-51); no player's card comes twice.
    g = t.make()
    for _ in range(12):
        t.turn(g)
    before = set(g.events_played)
    t.turn(g)
    repeated = [c for c in g.last_events if c in before]
    assert [deck.colour_of(c) for c in repeated] == [g.secret.reporter_colour]
    assert all(g.view(s).reporter_colour is None for s in range(4)), "not revealed: the view does not name him"
