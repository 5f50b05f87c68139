"""``arena replay FILE --text``: a replay in the terminal, step by step, from the viewer's own frames.

The frames are those the browser's viewer draws (``referee.server.frames.build_frames``), so the terminal shows
what the viewer shows, no more: as one seat, only what that seat was told. The drawing is generic, as the viewer's
is: actions and events are their JSON, keys as words, card messages and card ids as short names ("Qh", "Tc"), enum
values in words (referee/server/words.py: "reason: king defence", "turn phase").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from referee.core.cards import card_str
from referee.server.words import (
    CARD_ID_KEY,
    NO_WORDS,
    empty_told,
    enum_text,
    enum_words,
    field_label,
    flag_words,
    id_label,
    kind_fields,
    read_for_view,
    said_for_kind,
    verdict_text,
)

CARD_KEYS = {"id", "rank", "suit"}
#: Fields whose number (or list of numbers) names a seat, in any game's state, decisions and events: as the browser's
#: viewer reads them (ladder/web/static/viewer.js ``SEAT_KEYS``; a test keeps the two lists the same). ``turn`` is
#: not one: it is a seat in some games (``GAME_SEAT_KEYS``) and a count in others.
SEAT_KEYS = frozenset({
    "seat", "attacker", "defender", "acting", "turn_player", "first_player", "next_first_player", "target", "winner", "player", "from_seat",
    "to_seat", "loser", "dealer", "leader", "owner", "dealt_by", "seats", "winners", "by", "by_seat", "eliminated", "conquest_point_to",
    "defeat_point_to", "offerer", "recipient", "assisted", "attacker_assistants", "defender_assistants", "declined", "declined_to_assist", "targets",
    "king_targets", "conquer_targets", "recipients", "secret_service_token", "bad_cop_token", "revealed",
})  # fmt: skip
#: Fields that name a seat in one game alone (the viewer's ``TOUCHES`` ``seats``, kept the same by a test): Glory's
#: ``turn`` is the seat whose turn it is.
GAME_SEAT_KEYS = {"glory": frozenset({"turn"})}
#: Fields that are a list of one value per seat, in seat order (the .proto files say "in seat order"), in any game: each
#: value is named with its seat, "scores: seat 0 (alice) 6, seat 1 (bob) 5", as the browser's viewer names them
#: (viewer.js ``BY_SEAT_KEYS``, kept the same by a test). Only a list of as many values as seats is: the Assassination
#: Game's sniper detention lists ``colours`` too, one or two pieces, where its round's end lists each seat's colour.
BY_SEAT_KEYS = frozenset({
    "scores", "identities", "colours", "land_values", "awarded", "totals", "conquest_counts", "land_points", "glory", "lands_owned",
})  # fmt: skip
#: Characters that reorder the text after them on the screen, so that a note reads as other words than it holds.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def label(key: str) -> str:
    return field_label(key)


def is_card(value: Any) -> bool:
    """A Card message as the frames write it (``frames.message_json``): its id, rank and suit."""
    return isinstance(value, dict) and set(value) == CARD_KEYS and isinstance(value["id"], int)


def shown(key: str, value: Any, names: Sequence[str] = (), words: Mapping[str, str] = NO_WORDS) -> str:
    """One value of an action, an event or a state, on one line; a seat with its bot's name when ``names`` has it, an
    enum value in ``words`` (the game's ``enum_words``)."""
    if is_card(value):
        return card_str(value["id"])
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) and CARD_ID_KEY.search(key):
        return card_str(value)
    if isinstance(value, str) and value in words:
        return words[value]
    if key in SEAT_KEYS and _named_seat(value, names):
        return seat_name(names, value)
    if _by_seat(key, value, names):
        return ", ".join(f"{seat_name(names, seat)} {shown(key, v, names, words)}" for seat, v in enumerate(value))
    if isinstance(value, list):
        apart = (key in SEAT_KEYS and names) or _enum(value, words)  # "hall, health services", not "hall health services"
        return (", " if apart else " ").join(shown(key, v, names, words) for v in value) if value else "none"
    if isinstance(value, dict):
        return "(" + args(value, names, words=words) + ")"
    return str(value)


def _enum(value: Any, words: Mapping[str, str]) -> bool:
    """An enum value, or a list of them, that ``words`` says in words."""
    values = value if isinstance(value, list) and value else [value]
    return all(isinstance(v, str) and v in words for v in values)


def args(
    body: dict[str, Any], names: Sequence[str] = (), rounds: object = None, words: Mapping[str, str] = NO_WORDS, kind: str = "", game: str = "",
) -> str:  # fmt: skip
    """A message's fields as ``key value, key value``; empty lists are left out, as the viewer leaves them out, but for
    the fields of ``kind`` that say "none" in ``game`` (words.py ``EMPTY_TOLD``). With the game's ``rounds`` (its
    state's), a ``round`` reads as the table's does: "round started: extra round 1 (after 8)"; with its ``game``, a flag
    of ``FLAG_WORDS`` as what it means."""
    of_rounds = round_of_rounds({"round": body.get("round"), "rounds": rounds})
    told_empty = empty_told(game)
    body = {**body, **{told: [] for told in _of_kind(told_empty, kind) if told not in body}}  # a replay's action leaves them out
    flags = flag_words(game)
    body = {**body, **{k: False for k in _of_kind(flags, kind) if k not in body}}  # a replay's JSON leaves a false flag out

    def said(k: str, v: Any) -> str:
        if k == "round" and of_rounds:
            return of_rounds
        if isinstance(v, bool) and f"{kind}.{k}" in flags:
            return flags[f"{kind}.{k}"][0 if v else 1]
        return field_text(k, v, names, words)

    return ", ".join(
        said(k, v)
        for k, v in body.items()
        if not (isinstance(v, list) and not v and f"{kind}.{k}" not in told_empty) and not (of_rounds and k in ROUND_TOLD)
    )


def _of_kind(fields: Iterable[str], kind: str) -> list[str]:
    """The fields of ``kind`` among ``fields`` (``kind.field``)."""
    return [told.split(".", 1)[1] for told in sorted(fields) if told.startswith(f"{kind}.")]


def field_text(key: str, value: Any, names: Sequence[str] = (), words: Mapping[str, str] = NO_WORDS) -> str:
    """``key value``, or for a ``seat`` named with its bot the seat alone: "seat 1 (alice)", not "seat seat 1 (alice)",
    and for a ``by_seat``, ``from_seat``, ``to_seat`` "seat" once: "by seat 1 (alice)"; a list by seat after a colon,
    "scores: seat 0 (alice) 6, seat 1 (bob) 5"; card ids as the cards, "lands 2s"; an enum value phrased for its field
    (``enum_text``)."""
    if key == "seat" and _named_seat(value, names):
        return shown(key, value, names)
    if key.endswith("_seat") and key in SEAT_KEYS and _named_seat(value, names):
        return f"{label(key.removesuffix('_seat'))} {shown(key, value, names)}"
    said = shown(key, value, names, words)
    if _enum(value, words) and not _by_seat(key, value, names):
        return enum_text(key, said, label(key))
    if CARD_ID_KEY.search(key) and all(isinstance(v, int) for v in (value if isinstance(value, list) else [value])):
        return f"{id_label(key)} {said}"
    return f"{label(key)}{':' if _by_seat(key, value, names) else ''} {said}"


def _by_seat(key: str, value: Any, names: Sequence[str]) -> bool:
    """A list of one plain value per seat, in seat order (``BY_SEAT_KEYS``), whose seats ``names`` can name."""
    return key in BY_SEAT_KEYS and isinstance(value, list) and bool(names) and len(value) == len(names) and not any(isinstance(v, dict | list) for v in value)


def _named_seat(value: Any, names: Sequence[str]) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names)


def kind_of(wrapper: Any) -> tuple[str, dict[str, Any]]:
    """The member set in a oneof wrapper (``{"play_squad": {...}}``), as the viewer's ``kindOf`` reads it."""
    if isinstance(wrapper, dict) and wrapper:
        kind, body = next(iter(wrapper.items()))
        return str(kind), body if isinstance(body, dict) else {"value": body}
    return "nothing", {}


def message_line(
    wrapper: Any, names: Sequence[str] = (), rounds: object = None, words: Mapping[str, str] = NO_WORDS, game: str = "", seat: object = None,
) -> str:  # fmt: skip
    """An action, an event or a decision on one line; ``rounds`` and ``words`` as ``args`` takes them; with its ``game``,
    a message of a kind read for its kind (``said_for_kind``), and as ``seat`` reads it (``read_for_view``: a tied
    battle's winner in words; a rule of some numbers of seats holds where ``names`` names them all)."""
    wrapper = read_for_view(wrapper, game, len(names), seat)
    kind, body = kind_of(said_for_kind(wrapper, kind_fields(game)))
    text = args(body, names, rounds, words, kind, game)
    return f"{label(kind)}: {text}" if text else label(kind)


def seat_name(names: Sequence[str], seat: int) -> str:
    """A seat in words, as the browser's viewer names it: "seat 1 (alice)"."""
    return f"seat {seat} ({names[seat]})" if 0 <= seat < len(names) else f"seat {seat}"


def seat_ref(data: dict[str, Any], seat: int) -> str:
    return seat_name(data.get("names") or [], seat)


def step_lines(data: dict[str, Any], frame: dict[str, Any]) -> Iterator[str]:
    """What happened in one frame: the action (or the deal), the bot's note, and the events this view was told."""
    names = data.get("names") or []
    rounds = (frame.get("state") or {}).get("rounds")  # the round an event or a decision names, of these
    game = str(data.get("game"))
    words = enum_words(game)
    if frame.get("actor") is None:
        yield "deal"
    else:
        who = seat_ref(data, frame["actor"])
        action = message_line(frame["action"], names, rounds, words, game) if "action" in frame else "acted (what it chose is not for this seat to know)"
        yield f"{frame['step']}. {who}: {action}" + (" [played by the referee]" if frame.get("auto") else "")
        if frame.get("note"):
            yield f"     note: {frame['note']}"
    for event in frame.get("events", []):
        seen = event.get("visible_to")
        private = f"  [seen by {', '.join(seat_ref(data, s) for s in seen)}{others_miss(event)}]" if isinstance(seen, list) else ""
        yield f"   · {message_line(event.get('event'), names, rounds, words, game, data.get('seat'))}{private}"
    if "decision" in frame:
        yield f"   asked to decide: {message_line(frame['decision'], names, rounds, words, game)}"


def others_miss(event: dict[str, Any]) -> str:
    """What the other seats were not told of an event the everything view lists once (``frames.everything_events``)."""
    missed = event.get("others_miss")
    return f"; the others were told it without its {', '.join(label(k) for k in missed)}" if missed else ""


def table_lines(data: dict[str, Any], state: dict[str, Any]) -> Iterator[str]:
    """A frame's table: its plain facts on one line, then each player (or other record) as an indented block."""
    names = data.get("names") or []
    game = str(data.get("game"))
    seats = GAME_SEAT_KEYS.get(game, frozenset())
    words = enum_words(game)
    # as its seat sees it (a replay's frames name the seat; a seat's view, as ``arena play`` draws it, names it itself)
    state = said_for_kind(read_for_view(state, game, int(data.get("num_players") or len(names)), data.get("seat", state.get("seat"))), kind_fields(game))
    of_rounds = round_of_rounds(state)

    def fact(key: str, value: Any) -> str:
        if key == "round" and of_rounds:
            return of_rounds
        if key in seats and _named_seat(value, names):  # a field that is a seat in this game alone
            return f"{label(key)} {seat_name(names, value)}"
        return field_text(key, value, names, words)

    facts = [fact(k, v) for k, v in state.items() if not _nested(v) and k != "num_players" and not (of_rounds and k in ROUND_TOLD)]
    if facts:
        yield " · ".join(facts)
    for key, value in state.items():
        if isinstance(value, dict) and not is_card(value):
            yield f"{label(key)}:"
            yield from ("  " + line for line in table_lines(data, value))
        elif _records(value):
            players = key in ("players", "seats")
            if not players and _placed(value):  # one line each under the list's name, each saying its own place
                yield f"{label(key)}:"
                yield from ("  " + line for item in value for line in table_lines(data, item))
                continue
            for i, item in enumerate(value):
                seat = item.get("seat", i if players else None)
                if isinstance(seat, int):
                    yield (seat_ref(data, seat) if players else f"{label(key)}, {seat_ref(data, seat)}") + ":"
                else:
                    yield f"{label(key)} {i}:"
                yield from ("  " + line for line in table_lines(data, {k: v for k, v in item.items() if k != "seat" or not isinstance(seat, int)}))


def _placed(value: list[dict[str, Any]]) -> bool:
    """Flat records that carry their own place, as the viewer's ``records`` leaves them unnumbered: a ``position`` (Land &
    Castle's lands in a seat's view, a known card's place in a pile), or a field that counts them 0, 1, 2 (the
    Assassination Game's pieces by colour) or 1, 2, 3 (Generals & Assassins' rounds played). Numbered beside it, they
    read "lands 1: position 0", "draw pile 1: position 16 · card 2h", "pieces 1: colour 0", "rounds played 0: round 1"."""
    if any(isinstance(item.get("seat"), int) for item in value):  # a seat's record stands under its seat
        return False
    flat = not any(_nested(v) for item in value for v in item.values())
    fields = {k for item in value for k in item}
    counted = len(value) > 1 and any(all(item.get(k) == i + start for i, item in enumerate(value)) for k in fields for start in (0, 1))
    return flat and ("position" in fields or counted)


def round_of_rounds(state: dict[str, Any]) -> str | None:
    """The round among the game's ``rounds`` (those before any extra round to break a tie), as the viewer says it:
    "round 3 of 8", or past them "extra round 1 (after 8)", where "round 9 · rounds 8" read as round 9 of 8. None for a
    state that gives no number of rounds."""
    at, rounds = state.get("round"), state.get("rounds")
    if type(at) is not int or type(rounds) is not int or rounds < 1:  # a flag is no count
        return None
    return f"round {at} of {rounds}" if at <= rounds else f"extra round {at - rounds} (after {rounds})"


#: The facts that ``round_of_rounds`` tells with the round, left out of the table (or the message) beside it: Glory's
#: view and its round's start flag an extra round themselves, ``extra_round``.
ROUND_TOLD = frozenset({"rounds", "extra_round"})


def board_lines(board: dict[str, Any], state: dict[str, Any]) -> list[str]:
    """The board (the frames' ``board``) as rows of text, each place with what the state puts there, as the browser
    draws it: pieces by number (``*`` wounded, ``!`` detained), the president ``P`` (``P*`` wounded, ``Px`` killed);
    a place drawn inside another follows it in brackets; ``####`` where there is no place."""
    here: dict[str, list[str]] = {}
    off = []
    for piece in state.get("pieces") or []:
        if not isinstance(piece, dict) or not isinstance(piece.get("colour"), int):
            continue
        room = piece.get("room")
        token = f"{piece['colour']}{'*' if piece.get('injured') else ''}{'!' if piece.get('detained') else ''}"
        if isinstance(room, str):
            here.setdefault(room, []).append(token)
        else:
            off.append(token)
    president = state.get("president")
    if isinstance(president, dict) and isinstance(president.get("room"), str):
        here.setdefault(president["room"], []).append("P" + {"INJURED": "*", "KILLED": "x"}.get(str(president.get("status")), ""))
    inside = board.get("inside") or {}

    def place(name: str) -> str:
        text = f"{label(name.lower())}: {' '.join(here.get(name, [])) or '-'}"
        return text + "".join(f" [{place(inner)}]" for inner, outer in inside.items() if outer == name)

    rows = [[place(name) if isinstance(name, str) else "####" for name in row] for row in board.get("grid") or []]
    widths = [max(len(row[c]) for row in rows if c < len(row)) for c in range(max(map(len, rows), default=0))]
    lines = [" | ".join(text.ljust(widths[c]) for c, text in enumerate(row)).rstrip() for row in rows]
    return lines + ([f"off the board: {' '.join(off)}"] if off else [])


def _records(value: Any) -> bool:
    """A list of records (players, pieces), each drawn as a block of its own."""
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) and not is_card(v) for v in value)


def _nested(value: Any) -> bool:
    return (isinstance(value, dict) and not is_card(value)) or _records(value)


def printable(line: str) -> str:
    """``line`` with its control characters written out (``\\x1b``): a note or a name is the bot author's text, and an
    escape sequence printed as it is would move the cursor, clear the screen or retitle the reader's terminal."""
    return "".join(repr(c)[1:-1] if unicodedata.category(c) == "Cc" or c in BIDI_CONTROLS else c for c in line)


def printable_log(text: str) -> str:
    """A bot's log for the terminal: each line ``printable``, its line breaks and tabs kept."""
    return "\n".join("\t".join(map(printable, line.split("\t"))) for line in text.split("\n"))


def replay_lines(data: dict[str, Any], up_to: int | None = None, seats: Sequence[Mapping[str, Any]] = ()) -> Iterator[str]:
    """The whole replay (``build_frames``'s answer), or its steps up to ``up_to`` followed by the table there, each
    line ready for a terminal (``printable``); after the result, the verdicts of ``seats`` (``replay_summary``'s)."""
    return (printable(line) for line in _replay_lines(data, up_to, seats))


def verdict_lines(data: dict[str, Any], seats: Sequence[Mapping[str, Any]]) -> Iterator[str]:
    """The seats' verdicts, their kinds in words, as the viewer's header gives them: with the decision and the detail
    in everyone's view and in the seat's own, the kind alone in another seat's (the detail may name the cards the
    seat tried)."""
    view = data.get("seat")
    said = []
    for s in seats:
        seat = s.get("seat")
        who = seat_ref(data, seat) if isinstance(seat, int) else f"seat {seat}"
        for v in s.get("verdicts") or []:
            kind = verdict_text(str(v.get("kind")))
            if isinstance(view, int) and view != seat:
                said.append(f"  {who}: {kind}")
                continue
            at = f"@{v['decision']}" if isinstance(v.get("decision"), int) else ""
            said.append(f"  {who}: {kind}{at}" + (f": {v['detail']}" if v.get("detail") else ""))
    if said:
        yield "verdicts:"
        yield from said


def _replay_lines(data: dict[str, Any], up_to: int | None, seats: Sequence[Mapping[str, Any]]) -> Iterator[str]:
    seat = data.get("seat")
    whose = f"as {seat_ref(data, seat)} saw it" if isinstance(seat, int) else "as everyone saw it (after the match)"
    names = ", ".join(seat_ref(data, s) for s in range(int(data.get("num_players", 0))))
    yield f"{data.get('game_name', data.get('game'))} · {names} · {whose}"
    frames = data["frames"]
    last = len(frames) - 1 if up_to is None else min(up_to, len(frames) - 1)
    for frame in frames[: last + 1]:
        yield from step_lines(data, frame)
    final = frames[last]
    if up_to is not None:
        yield ""
        yield f"the table after step {last}:" if last else "the table after the deal:"
        if data.get("board"):
            yield from ("  " + line for line in board_lines(data["board"], final.get("state") or {}))
        yield from ("  " + line for line in table_lines(data, final.get("state") or {}))
    result = final.get("result")
    if result:
        order = sorted(range(len(result["ranks"])), key=lambda s: (result["ranks"][s], s))
        yield "result: " + ", ".join(f"{result['ranks'][s]}. {seat_ref(data, s)}: {result['scores'][s]:g}" for s in order)
        if data.get("score"):
            yield f"  (score: {data['score']})"
        yield from verdict_lines(data, seats)
