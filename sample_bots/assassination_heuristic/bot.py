"""A heuristic Assassination Game bot.

It never reveals itself without a reason, so it never detains the reporter or
the police officer by mistake. By identity:

- Sniper: climbs to the tower before the president reaches the podium and
  snipes if alone there; shoots the president point-blank only when nobody
  else is in the room; after an incident heads for the public exit.
- Bomber: walks onto the podium (planting the bomb), waits next door in the
  courtyard and blows the podium up under the president; otherwise blows up
  any enclosed room it planted when the president is in it; then escapes.
- Secret Service agent: sits in the tower before the speech (a sniper must be
  alone there to shoot), then shadows the president; after an incident takes
  him to the nearest refuge (the bunker when it is as near as the helipad).
- Police officer: the same watch on the tower; after an incident shoots a
  revealed assassin in his room, otherwise detains one.
Revealed assassins sharing a room with a good bot are detained. With no card
for its first step it takes another as short, else stands still rather than
step away. Offered the bad cop's side it stays a good police officer: its
police play above guards the president, which as the bad cop would score for
the other side.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from arena.v1 import assassination_pb2 as asn
from arena_sdk import Bot, Request, run
from arena_sdk.games import assassination as ag

BAD = (asn.SNIPER, asn.BOMBER)
ENCLOSED_BLAST_ROOMS = (asn.PODIUM, asn.HALL, asn.PUBLIC_EXIT, asn.HEALTH_SERVICES, asn.TOWER, asn.BUNKER)
ESCORT = {r for r in ag.POSITION if r not in (asn.TOWER, asn.SECURITY_OFFICE, asn.HOLDING_CELL)}
PHOTO_OP = (asn.PODIUM, asn.COURTYARD, asn.HALL, asn.PUBLIC_EXIT)


def president_distance(start: int, goal: int) -> int:
    """Rooms the president must cross from ``start`` to ``goal`` when escorted."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        room = queue.popleft()
        if room == goal:
            return dist[room]
        for nxt in ag.adjacent(room):
            if nxt in ESCORT and nxt not in dist:
                dist[nxt] = dist[room] + 1
                queue.append(nxt)
    return 99


class HeuristicBot(Bot):
    name = "as-heuristic"
    version = "1.1.0"

    def act(self, request: Request) -> Any:
        view = request.view
        choice = request.choice
        kind = request.kind
        if kind == "movement_choice":
            return ag.movement(self.movement_card(view, list(choice.playable)))
        if kind == "event_choice":
            cards = list(choice.playable)
            idle = sorted(c.id for c in cards if not ag.is_action(c))
            action = sorted(c.id for c in cards if ag.is_action(c))
            if action and (self.wants_to_act(view) or not idle):
                return ag.event(action[0])
            return ag.event(idle[0] if idle else cards[0].id)
        if kind == "action_choice":
            return ag.take(self.pick_action(view, list(choice.options)))
        if kind == "president_move_choice":
            return ag.move_president(self.president_room(view, choice))
        if kind == "reaction_choice":
            return ag.react(bool(choice.can_detain))
        if kind == "sniper_detention_choice":
            return ag.detain_sniper(not choice.can_ignore)  # the bad cop lets his side go
        if kind == "cell_choice":
            return ag.leave_cell(bool(choice.can_leave))  # out of the cell, free to act again
        if kind == "allegiance_choice":
            return ag.allegiance(False)
        return ag.start_round()

    # --- what the table looks like ---------------------------------------------------------

    @staticmethod
    def room_of(view: Any, colour: int) -> int | None:
        piece = view.pieces[colour]
        return int(piece.room) if piece.HasField("room") else None

    @staticmethod
    def known(view: Any) -> dict[int, int]:
        """Identity by colour, for the pieces revealed this round."""
        out = {int(r.colour): int(r.identity) for r in view.revealed}
        if view.HasField("reporter_colour"):
            out[int(view.reporter_colour)] = asn.REPORTER
        return out

    def company(self, view: Any, colour: int) -> list[int]:
        room = self.room_of(view, colour)
        if room is None or room == asn.HOLDING_CELL:
            return []
        return [p.colour for p in view.pieces if p.colour != colour and not p.killed and p.HasField("room") and p.room == room]

    def revealed_assassins_here(self, view: Any) -> list[int]:
        known = self.known(view)
        return [c for c in self.company(view, view.colour) if known.get(c) in BAD and not view.pieces[c].detained]

    # --- moving --------------------------------------------------------------------------------

    def target_room(self, view: Any) -> int:
        me = int(view.identity)
        pres = view.president
        if me == asn.SNIPER:
            if view.incident:
                return asn.PUBLIC_EXIT
            if not pres.speech_given:
                return asn.TOWER
            return self.next_president_room(view)
        if me == asn.BOMBER:
            if view.bomb_used or view.incident:
                return asn.PUBLIC_EXIT
            if pres.secret_service_moves:
                return int(pres.room)
            visited = set(view.pieces[view.colour].visited)
            if not pres.speech_given:
                return asn.COURTYARD if asn.PODIUM in visited else asn.PODIUM
            return asn.HEALTH_SERVICES if asn.HALL in visited else asn.HALL
        if me == asn.POLICE_OFFICER and view.incident:
            known = self.known(view)
            for colour, ident in known.items():
                room = self.room_of(view, colour)
                if ident in BAD and room is not None and room != asn.HOLDING_CELL:
                    return room
        if not view.incident and not pres.speech_given and not pres.secret_service_moves:
            return asn.TOWER
        return int(pres.room)

    @staticmethod
    def next_president_room(view: Any) -> int:
        room = int(view.president.room)
        if room in PHOTO_OP[:-1]:
            return int(PHOTO_OP[PHOTO_OP.index(room) + 1])
        return room

    def movement_card(self, view: Any, hand: list[Any]) -> int:
        here = self.room_of(view, view.colour)
        if here is None or here == asn.HOLDING_CELL:
            return int(min(c.id for c in hand))
        goal = self.target_room(view)
        wanted = ag.first_step(here, goal)
        card = ag.card_for(hand, wanted)
        if card is not None:
            return card
        # No card that way: another step as short, else any card that does not take us further, standing still first.
        now = ag.distance(here, goal)
        for d, allowed in [*((d, now - 1) for d in ag.MOVES), *((d, now) for d in (ag.STAY, *ag.MOVES))]:
            card = ag.card_for(hand, d)
            if card is not None and ag.distance(ag.step(here, d), goal) <= allowed:
                return card
        return int(min(c.id for c in hand))

    # --- acting ----------------------------------------------------------------------------------

    def wants_to_act(self, view: Any) -> bool:
        return self.best_kind(view) is not None

    def best_kind(self, view: Any) -> tuple[int, int | None, int | None] | None:
        """The action worth revealing for now: (kind, target colour, target room), or None."""
        me = int(view.identity)
        pres = view.president
        here = self.room_of(view, view.colour)
        if here is None:
            return None
        alive = pres.status != asn.KILLED
        others = self.company(view, view.colour)
        if me == asn.SNIPER:
            if here == asn.HOLDING_CELL or not alive:
                return None  # nothing a sniper can do (detaining is not his): acting would only reveal him
            if here == asn.TOWER and not others and pres.room == asn.PODIUM:
                return (asn.SNIPE, None, None)
            if pres.room == here and not others:
                return (asn.SHOOT_PRESIDENT, None, None)
            return None
        if me == asn.BOMBER:
            if view.bomb_used or not alive:
                return None
            target = int(pres.room)
            visited = set(view.pieces[view.colour].visited)
            if target not in ag.adjacent(here) or target not in visited or target == asn.SECURITY_OFFICE:
                return None
            last_chance = view.incident and target == asn.HELIPAD
            if target in ENCLOSED_BLAST_ROOMS or pres.status == asn.INJURED or last_chance:
                return (asn.DETONATE, None, target)
            return None
        assassins = self.revealed_assassins_here(view)
        if me == asn.POLICE_OFFICER:
            if here == asn.HOLDING_CELL:
                return (asn.LEAVE_CELL, None, None)
            if assassins and view.incident:
                return (asn.SHOOT_PLAYER, assassins[0], None)
        if assassins:
            return (asn.DETAIN, assassins[0], None)
        return None

    def pick_action(self, view: Any, options: list[Any]) -> Any:
        wanted = self.best_kind(view)
        if wanted is not None:
            kind, colour, room = wanted
            for option in options:
                if option.kind != kind:
                    continue
                if colour is not None and (not option.HasField("target_colour") or option.target_colour != colour):
                    continue
                if room is not None and (not option.HasField("target_room") or option.target_room != room):
                    continue
                return option
        return options[0]  # doing nothing

    # --- the president -----------------------------------------------------------------------

    def president_room(self, view: Any, choice: Any) -> int:
        rooms = [int(r) for r in choice.rooms]
        pres = view.president
        if choice.escaping:
            def key(room: int) -> tuple[int, int]:
                bunker = president_distance(room, asn.BUNKER)
                helipad = president_distance(room, asn.HELIPAD)
                return (min(bunker, helipad), 0 if bunker <= helipad else 1)

            return min(rooms, key=key)
        goal = asn.PUBLIC_EXIT if pres.speech_given else asn.PODIUM
        if pres.speech_given and int(pres.room) in PHOTO_OP[:-1]:
            nxt = PHOTO_OP[PHOTO_OP.index(int(pres.room)) + 1]
            if nxt in rooms:
                return nxt
        return min(rooms, key=lambda r: president_distance(r, goal))


if __name__ == "__main__":
    run(HeuristicBot())
