"""``arena replay FILE --text``: a replay in the terminal, drawn from the viewer's frames, as one seat or everyone."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.cli.replay_text import BY_SEAT_KEYS, GAME_SEAT_KEYS, SEAT_KEYS, args, message_line, board_lines, replay_lines, step_lines, table_lines
from arena_sdk.driver import BotDriver
from referee.core.cards import card_str
from referee.games.registry import GAMES
from referee.server.frames import ALL, build_frames
from referee.server.replay import load_replay, write_replay
from referee.server.words import enum_words
from referee.server.session import TimeControl
from tests.test_notes import Noting
from tests.test_session import driver_answers, run_session
from tests.support import ROOT, SAMPLE_BOTS
from tests.web.test_frames import replay_data, steps

runner = CliRunner()


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A General's War match (one deck: a card's short name is that card's alone) where seat 0 notes its decisions."""
    record, _ = run_session([BotDriver(Noting(11)).handle, driver_answers(12)], TimeControl(move_time_ms=2000, time_bank_ms=0), seed=21)
    path = tmp_path_factory.mktemp("text") / "replay.json"
    write_replay(record, path, compact=True)
    return path


def words(lines: list[str]) -> set[str]:
    return set(re.findall(r"[\w]+", " ".join(lines)))


def test_everyone_sees_every_action_its_note_every_event_and_the_result(replay: Path) -> None:
    data = load_replay(replay)
    result = runner.invoke(app, ["replay", str(replay), "--text"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "General's War · seat 0 (b0), seat 1 (b1) · as everyone saw it (after the match)"
    acted = [line for line in lines if re.match(r"\d+\. seat \d", line)]
    assert len(acted) == len(data["actions"])
    assert [int(line.split(".")[0]) for line in acted] == list(range(1, len(data["actions"]) + 1))
    notes = [line.strip().removeprefix("note: ") for line in lines if line.strip().startswith("note: ")]
    assert notes == [a["note"] for a in data["actions"] if a.get("note")]
    # every event, a draw told to the others as a count listed once with its cards (frames.everything_events)
    folded = sum(line.endswith("; the others were told it without its cards]") for line in lines)
    assert folded and sum(line.startswith("   · ") for line in lines) + folded == len(data["events"])
    ranks = data["game_result"]["ranks"]
    winner = ranks.index(1)
    assert lines[-2].startswith(f"result: 1. seat {winner} (b{winner}): ")
    assert lines[-1] == f"  (score: {GAMES['generals-war'].spec.score})"  # the score is conquest points; the rank, who won


def test_a_seats_text_names_no_card_it_could_not_know_at_any_step(replay: Path) -> None:
    data = load_replay(replay)
    for seat in (0, 1):
        frames = build_frames(data, seat)
        for (game, _), frame in zip(steps(data), frames["frames"]):
            hidden = {card_str(c) for c in game.hidden_cards(seat)}
            shown = words(list(step_lines(frames, frame)) + list(table_lines(frames, frame["state"])))
            assert hidden, "the check would prove nothing: no card is hidden"
            assert not shown & hidden, (seat, frame["step"], shown & hidden)
        noted = any("NOTE-" in line for line in replay_lines(frames))
        assert noted == (seat == 0)  # seat 0's notes are its own: never in seat 1's text


def test_everyone_s_text_names_the_cards_a_seat_s_text_hides(replay: Path) -> None:
    """The check above can fail: the same step drawn for everyone names cards seat 1 may not know."""
    data = load_replay(replay)
    everyone = build_frames(data, ALL)
    game, _ = next(iter(steps(data)))
    hidden = {card_str(c) for c in game.hidden_cards(1)}
    frame = everyone["frames"][0]
    assert words(list(step_lines(everyone, frame)) + list(table_lines(everyone, frame["state"]))) & hidden


def test_step_stops_there_and_draws_the_table(replay: Path) -> None:
    result = runner.invoke(app, ["replay", str(replay), "--seat", "1", "--step", "3"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].endswith("as seat 1 (b1) saw it")
    assert not any(line.startswith("4. ") for line in lines)
    assert "the table after step 3:" in lines
    table = lines[lines.index("the table after step 3:") + 1 :]
    assert any(line.strip() == "seat 0 (b0):" for line in table) and any(line.strip() == "seat 1 (b1):" for line in table)
    assert not any("note:" in line for line in lines)  # seat 0's notes are not seat 1's to read


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seat", "7"], "seat 7 is not a seat of this match (0..1)"),
        (["--seat", "north"], "seat must be 'all' or a number, not 'north'"),
        (["--step", "100000"], "--step 100000: the match has steps 0 to"),
    ],
)
def test_bad_options_are_refused_with_a_clear_error(replay: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["replay", str(replay), "--text", *args])
    assert result.exit_code == 2 and message in " ".join(result.output.split())


def test_the_last_step_can_be_asked_for_and_the_one_after_is_refused(replay: Path) -> None:
    last = len(build_frames(load_replay(replay), ALL)["frames"]) - 1
    assert runner.invoke(app, ["replay", str(replay), "--step", str(last)]).exit_code == 0
    beyond = runner.invoke(app, ["replay", str(replay), "--step", str(last + 1)])
    assert beyond.exit_code == 2 and f"--step {last + 1}: the match has steps 0 to {last}" in " ".join(beyond.output.split())


def test_a_file_that_is_not_a_replay_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.json"
    junk.write_text("[1, 2]")
    result = runner.invoke(app, ["replay", str(junk), "--text"])
    assert result.exit_code == 2 and "not an arena replay" in result.output


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("num_players", None, "its num_players is not a whole number"),  # a TypeError traceback
        ("num_players", "2", "its num_players is not a whole number"),  # "invalid literal for int()", naming no file
        ("num_players", True, "its num_players is not a whole number"),
        ("game", ["glory"], "its game is not a name"),  # "unhashable type: 'list'"
    ],
)
def test_a_replay_whose_game_or_seat_count_is_not_one_is_refused_naming_the_file(replay: Path, tmp_path: Path, key: str, value: Any, message: str) -> None:
    data = json.loads(replay.read_text())
    data[key] = value
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    for how in (["--text"], ["--no-browser", "--port", "0"]):
        result = runner.invoke(app, ["replay", str(edited), *how])
        assert result.exit_code == 2, result.output
        assert f"{edited}: {message}" in " ".join(result.output.split()), result.output


class Escaping(Noting):
    """Notes a terminal escape sequence: clear the screen, retitle the window, ring the bell."""

    def act(self, request: Any) -> Any:
        action = super().act(request)
        request.note("\x1b[2J\x1b]0;owned\x07 cleared \u202eesrever\r\n")
        return action


def test_a_note_s_control_characters_are_written_out_not_sent_to_the_terminal(tmp_path: Path) -> None:
    record, _ = run_session([BotDriver(Escaping(3)).handle, driver_answers(4)], TimeControl(move_time_ms=2000, time_bank_ms=0))
    path = tmp_path / "replay.json"
    write_replay(record, path, compact=True)
    for seat in ("all", "0"):
        result = runner.invoke(app, ["replay", str(path), "--text", "--seat", seat])
        assert result.exit_code == 0, result.output
        assert "\\x1b[2J\\x1b]0;owned\\x07 cleared \\u202eesrever\\r\\n" in result.output
        assert not any(c in result.output for c in "\x1b\x07\r\u202e")


def test_a_seat_in_a_field_is_named_with_its_bot_as_the_browser_names_it(replay: Path) -> None:
    assert args({"declined": True, "winners": [0, 1], "seat": 1, "turn": 1}, ["a", "b"]) == (
        "declined yes, winners seat 0 (a), seat 1 (b), seat 1 (b), turn 1"  # a flag stays a flag; a turn is a count
    )
    assert args({"seat": 1, "winners": [0]}) == "seat 1, winners 0"  # no names known: the numbers as they are
    # a field named "... seat" says "seat" once: "by seat seat 0 (a)" read as a stutter
    assert args({"colour": 0, "by_seat": 0}, ["a", "b"]) == "colour 0, by seat 0 (a)"
    assert args({"from_seat": 1, "to_seat": 0}, ["a", "b"]) == "from seat 1 (b), to seat 0 (a)"
    lines = list(replay_lines(build_frames(load_replay(replay), ALL)))
    assert any(re.search(r"round started: round \d+, attacker seat \d \(b\d\)", line) for line in lines), lines[:20]


def test_a_field_named_for_a_seat_says_seat_once() -> None:
    """Generals & Assassins' land offers and transfers read "from seat seat 0 (you), to seat seat 1 (bob)": a field
    whose name ends in "seat" said its name, then the seat named as a seat."""
    names = ["you", "bob"]
    assert args({"from_seat": 0, "to_seat": 1, "lands": []}, names) == "from seat 0 (you), to seat 1 (bob)"
    assert args({"by_seat": 1}, names) == "by seat 1 (bob)"
    assert args({"from_seat": 0}) == "from seat 0"  # no names known: the number after the field's name, as before


VIEWER = ROOT / "ladder" / "web" / "static" / "viewer.js"


def viewer_set(name: str) -> set[str]:
    """The names in viewer.js's ``const NAME = new Set([...]);``."""
    block = re.search(rf"const {name} = new Set\(\[(.*?)\]\);", VIEWER.read_text(), re.S)
    assert block is not None, name
    return set(re.findall(r'"(\w+)"', block.group(1)))


def test_a_choice_of_nothing_says_none_where_the_choice_is_what_happened() -> None:
    """An empty list is left out of a line, but where the list is the choice, leaving it out told the opposite: Glory's
    defender with no joker was offered "1. thwart" and read "thwart chosen: seat 2" when he let the assassin through;
    a declined assist read "assist chosen: seat 0", a side that offered nothing "offers made: seat 1"; General's War's
    fighter with an ace was offered "1. reveal generals" beside "2. reveal generals: cards As", the first revealing
    nothing."""
    names = ["you", "bob", "cy"]
    glory = "glory"
    assert message_line({"thwart": {"card_ids": []}}, game=glory) == "thwart: cards none"
    assert message_line({"thwart_chosen": {"seat": 2, "cards": []}}, names, game=glory) == "thwart chosen: seat 2 (cy), cards none"
    assert message_line({"assist_chosen": {"seat": 0, "cards": []}}, names, game=glory) == "assist chosen: seat 0 (you), cards none"
    assert message_line({"offers_made": {"seat": 1, "offers": []}}, names, game=glory) == "offers made: seat 1 (bob), offers none"
    assert message_line({"offer_lands": {"offers": []}}, game="generals-and-assassins") == "offer lands: offers none"
    # a replay's action leaves its empty fields out ({"thwart": {}}): the field is still the choice
    assert message_line({"thwart": {}}, game=glory) == message_line({"defend": {"card_ids": []}}, game=glory).replace("defend", "thwart") == "thwart: cards none"
    assert message_line({"reveal_generals": {}}, game="generals-war") == "reveal generals: cards none"
    assert message_line({"reveal_choice": {}}, game="generals-war") == "reveal choice: revealable none"
    # a list that is empty because it is hidden, or beside the point, is still left out
    assert message_line({"cards_drawn": {"seat": 1, "count": 2, "cards": [], "money": []}}, names, game=glory) == "cards drawn: seat 1 (bob), count 2"
    assert message_line({"thwart_choice": {"attacker": 1, "assassins": [], "required": 1}}, names, game=glory) == "thwart choice: attacker seat 1 (bob), required 1"


def test_a_kind_that_another_game_names_alike_says_no_empty_choice_it_has_not() -> None:
    """Land & Castle's defence names one card, as ``card_id``; Glory's ``defend.card_ids`` was told "none" in every game,
    and each defence the keyboard listed read "defend: card Js, cards none"."""
    assert message_line({"defend": {"card_id": 50}}, game="land-and-castle") == "defend: card Qs"
    assert message_line({"defend": {}}, game="glory") == "defend: cards none"  # a Glory defence lists its cards


def test_the_terminal_and_the_browser_know_the_same_seat_fields() -> None:
    assert viewer_set("SEAT_KEYS") == SEAT_KEYS


def test_a_list_of_one_number_per_seat_names_each_seat_as_the_browser_names_it() -> None:
    """An Assassination Game's "scores 6 5 2 0" told no reader whose score was which."""
    names = ["a", "b", "c", "d"]
    assert args({"round": 2, "scores": [6, 5, 2, 0]}, names) == "round 2, scores: seat 0 (a) 6, seat 1 (b) 5, seat 2 (c) 2, seat 3 (d) 0"
    assert args({"identities": ["PRESIDENT", "ASSASSIN", "SNIPER", "POLICE"]}, names).startswith("identities: seat 0 (a) PRESIDENT, seat 1 (b) ASSASSIN")
    # the sniper's detention lists pieces, not seats: one colour or two, never one a seat
    assert args({"sniper_colour": 2, "colours": [2, 4]}, names) == "sniper colour 2, colours 2 4"
    assert args({"scores": [6, 5]}) == "scores 6 5"  # no names known: the numbers as they are
    assert next(table_lines({"game": "assassination", "names": names}, {"round": 1, "scores": [0, 1, 0, 3]})) == (
        "round 1 · scores: seat 0 (a) 0, seat 1 (b) 1, seat 2 (c) 0, seat 3 (d) 3"
    )


def test_a_round_s_scores_in_a_replay_name_their_seats() -> None:
    data = replay_data("generals-and-assassins", 3, 1)
    lines = list(replay_lines(build_frames(data, 1)))
    ended = [line for line in lines if line.startswith("   · round ended: ")]
    assert ended, lines[-20:]
    for line in ended:
        for key in ("land values", "awarded", "totals"):
            assert re.search(key + r": seat 0 \(bot0\) \d+, seat 1 \(bot1\) \d+, seat 2 \(bot2\) \d+", line), line


@pytest.mark.parametrize(("state", "fact"), [
    ({"round": 3, "rounds": 8, "phase": "TURN"}, "round 3 of 8 · turn phase"),
    ({"round": 9, "rounds": 8, "phase": "TURN"}, "extra round 1 (after 8) · turn phase"),  # it read "round 9 · rounds 8"
    ({"round": 6, "rounds": 4, "extra_round": True}, "extra round 2 (after 4)"),  # Glory's view says so itself too
    ({"round": 6}, "round 6"),  # a game of no set number of rounds
])  # fmt: skip
def test_a_round_is_told_of_the_rounds_and_an_extra_round_as_one(state: dict[str, Any], fact: str) -> None:
    assert next(table_lines({"game": "generals-and-assassins", "names": ["a", "b"]}, state)) == fact


def test_an_extra_round_of_generals_and_assassins_reads_so_in_a_replays_table(tmp_path: Path) -> None:
    """Generals & Assassins of one round tied after it (seed 8): its second round is the first extra one."""
    path = tmp_path / "extra.json"
    data = replay_data("generals-and-assassins", 2, 8, {"rounds": "1"})
    path.write_text(json.dumps(data))
    states = [frame["state"] for frame in build_frames(data, 0)["frames"]]
    step = next(i for i, state in enumerate(states) if state["round"] == 2)
    out = runner.invoke(app, ["replay", str(path), "--seat", "0", "--step", str(step)]).output.splitlines()
    facts = out[out.index(f"the table after step {step}:") + 1]
    assert facts.startswith("  seat 0 (bot0) · extra round 1 (after 1) · "), facts
    assert "rounds" not in facts


def test_glorys_everything_view_tells_the_round_of_the_rounds() -> None:
    """Glory's full state gave its round alone, "round 1", where a seat's view and Generals & Assassins' everything
    view read "round 1 of 4"."""
    data = replay_data("glory", 2, 3)
    for view in (ALL, 0):
        lines = list(replay_lines(build_frames(data, view), 0))
        facts = lines[lines.index("the table after the deal:") + 1]
        assert re.match(r"  (seat 0 \(bot0\) · )?round 1 of 4 · turn phase · ", facts), facts


@pytest.mark.parametrize(("game", "players", "seed", "seat"), [
    ("generals-and-assassins", 2, 8, 1),  # seat 1 starts the second round: it is asked to
    ("glory", 3, 40, 0),  # Glory's event flags the extra round itself: "round 2, extra round yes"
])  # fmt: skip
def test_the_events_and_the_decision_of_an_extra_round_read_so(game: str, players: int, seed: int, seat: int) -> None:
    """A tied game of one round (these seeds) plays an extra one: its start, its end and the choice to start it read
    "round 2", as if of a game of two rounds, where the table said "extra round 1 (after 1)"."""
    data = replay_data(game, players, seed, {"rounds": "1"})
    for view in (ALL, seat):
        lines = list(replay_lines(build_frames(data, view)))
        told = [line for line in lines if re.search(r"round started|round ended|round choice", line)]
        assert [line for line in told if "round 1 of 1" in line], told
        extra = [line for line in told if "extra round 1 (after 1)" in line]
        assert [line for line in extra if line.startswith("   · round started: extra round 1 (after 1), ")], told
        assert [line for line in extra if line.startswith("   · round ended: extra round 1 (after 1), ")], told
        if view == seat and game == "generals-and-assassins":
            assert [line for line in lines if line.startswith("   asked to decide: next round choice: extra round 1 (after 1), ")], lines
        assert not [line for line in told if re.search(r"round \d+,|round \d+$|extra round (yes|no)", line)], told


def test_the_terminal_and_the_browser_know_the_same_lists_by_seat() -> None:
    assert viewer_set("BY_SEAT_KEYS") == BY_SEAT_KEYS


def test_glorys_turn_is_a_seat_in_the_table_and_a_count_elsewhere() -> None:
    """Glory's "turn" is the seat whose turn it is: "turn 1", a bare number, as another game's count of turns reads."""
    state = {"round": 2, "turn": 1, "first_player": 0}
    assert next(table_lines({"game": "glory", "names": ["a", "b"]}, state)) == "round 2 · turn seat 1 (b) · first player seat 0 (a)"
    assert next(table_lines({"game": "land-and-castle", "names": ["a", "b"]}, state)) == "round 2 · turn 1 · first player seat 0 (a)"


def test_the_terminal_and_the_browser_know_the_same_seat_fields_of_one_game() -> None:
    script = VIEWER.read_text()
    block = re.search(r"const TOUCHES = \{(.*?)\n  \};", script, re.S)
    assert block is not None
    browser = {game: frozenset(re.findall(r'"(\w+)"', seats)) for game, seats in re.findall(r'"?([\w-]+)"?: \{[^\n]*seats: \[([^\]]*)\]', block.group(1))}
    assert browser == GAME_SEAT_KEYS


def test_a_board_is_drawn_as_rows_of_places_with_what_the_state_puts_there() -> None:
    from referee.games.assassination.rules import SPEC
    from referee.server.frames import board_json

    assert SPEC.board is not None
    state = {
        "pieces": [
            {"colour": 0, "room": "TOWER", "injured": True, "detained": False},
            {"colour": 1, "room": "HOLDING_CELL", "injured": False, "detained": True},
            {"colour": 2, "room": "TOWER"},
            {"colour": 3},  # killed: no room in a seat's view
            {"colour": 4, "room": None, "killed": True},
        ],
        "president": {"room": "HALL", "status": "INJURED"},
    }
    assert board_lines(board_json(SPEC.board), state) == [
        "tower: 0* 2 | security office: - [holding cell: 1!] | health services: - | ####",
        "podium: -   | courtyard: -                          | hall: P*           | helipad: -",
        "####        | ####                                  | public exit: -     | bunker: -",
        "off the board: 3 4",
    ]


def test_the_text_table_of_a_board_game_starts_with_its_board(tmp_path: Path) -> None:
    from tests.web.test_spectator import played_replay

    replay = played_replay(tmp_path, "assassination", [SAMPLE_BOTS / "random"] * 4, seed=5)
    frames = build_frames(load_replay(replay), 2)
    step = next(i for i, f in enumerate(frames["frames"]) if any(p.get("room") == "HOLDING_CELL" for p in f["state"]["pieces"]))
    out = runner.invoke(app, ["replay", str(replay), "--seat", "2", "--step", str(step)]).output.splitlines()
    table = out[out.index(f"the table after step {step}:") + 1 :]
    held = [str(p["colour"]) for p in frames["frames"][step]["state"]["pieces"] if p.get("room") == "HOLDING_CELL"]
    assert table[0].startswith("  tower: ") and re.search(r"\[holding cell: ([0-9*! ]+)\]", table[0]), table[:4]
    match = re.search(r"\[holding cell: ([0-9*! ]+)\]", table[0])
    assert match is not None and [t.rstrip("*!") for t in match.group(1).split()] == held


def test_an_event_only_some_seats_were_told_says_which() -> None:
    """Everyone's text shows every event after the match: one a seat was told in private is marked so, as the viewer marks it."""
    data = {"names": ["a", "b"]}
    frame = {"step": 3, "actor": 1, "action": {"pass_turn": {}}, "events": [{"event": {"cards_drawn": {"seat": 1}}, "visible_to": [1]}, {"event": {"round_started": {}}}]}
    assert list(step_lines(data, frame)) == ["3. seat 1 (b): pass turn", "   · cards drawn: seat 1 (b)  [seen by seat 1 (b)]", "   · round started"]


def test_a_happening_told_in_part_to_the_others_is_listed_once_saying_what_they_missed(tmp_path: Path) -> None:
    """The everything view lists a draw once, with its cards (frames.everything_events): the line says what the other
    seats were not told of it, where it listed the draw again as a count."""
    replay = tmp_path / "gw.json"
    replay.write_text(json.dumps(replay_data("generals-war", 2, seed=3)))
    out = runner.invoke(app, ["replay", str(replay), "--step", "0"]).output
    draws = [line for line in out.splitlines() if "cards drawn" in line]
    assert len(draws) == 2 and all(line.endswith("; the others were told it without its cards]") for line in draws), draws


def test_the_text_ends_with_the_verdicts_in_words_their_detail_only_where_the_viewer_gives_it(tmp_path: Path) -> None:
    """The text told no verdict at all, where the viewer's header gives them: a seat's own (and everyone's view) with
    its decision and detail, another seat's view the kind alone (the detail may name the cards the seat tried)."""
    detail = "card 37 may not be chosen now"
    data = replay_data("generals-war", 2, 5)
    # as arena match writes it: protobuf's JSON gives a 64-bit integer as a string
    data["seats"][0]["verdicts"] = [{"kind": "ILLEGAL_ACTION", "decision_index": "4", "detail": detail}]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    for view, told in (("all", True), ("0", True), ("1", False)):
        result = runner.invoke(app, ["replay", str(path), "--text", "--seat", view])
        assert result.exit_code == 0, result.output
        lines = result.stdout.splitlines()
        at = lines.index("verdicts:")
        assert lines[at - 2].startswith("result: ") or lines[at - 1].startswith("result: "), lines[at - 3:]
        shown = "  seat 0 (bot0): illegal action@4: " + detail if told else "  seat 0 (bot0): illegal action"
        assert lines[at + 1:] == [shown], (view, lines[at:])
        assert "ILLEGAL_ACTION" not in result.stdout and (detail in result.stdout) == told
    data["seats"][0]["verdicts"] = []
    path.write_text(json.dumps(data))
    assert "verdicts:" not in runner.invoke(app, ["replay", str(path), "--text"]).stdout.splitlines()


def test_glorys_battle_tells_a_mini_round_and_the_assassins_presented_in_an_assassination_alone() -> None:
    """Glory's battle gives every kind of attack's fields: the table read "mini round 1 · presented none" during a
    conquest or an attack on the king, which have no mini-rounds of assassins (G-20)."""
    data = replay_data("glory", 3, 5)
    for view, battle in ((ALL, "fight"), (0, "battle")):
        frames = build_frames(data, view)
        seen = set()
        for frame in frames["frames"]:
            fight = frame["state"].get(battle)
            if not fight:
                continue
            seen.add(fight["kind"])
            lines = list(table_lines(frames, frame["state"]))
            facts = lines[lines.index(f"{battle}:") + 1]
            assessed = ("mini round " in facts, "presented " in facts)
            assert assessed == ((True, True) if fight["kind"] == "ASSASSINATION" else (False, False)), facts
        assert seen == {"CONQUER_LAND", "ATTACK_KING", "ASSASSINATION"}, (view, seen)


def test_generals_and_assassins_second_assassin_reads_as_what_happened() -> None:
    """When the attacker played no second assassin the event read "assassin declined: seat 2, blocking no": whether the
    one declining was the defender (who did not block) or the attacker (who did not try again) is the flag's to tell."""
    names, game = ["a", "b", "c"], "generals-and-assassins"
    assert message_line({"assassin_declined": {"seat": 2, "blocking": False}}, names, game=game) == (
        "assassin declined: seat 2 (c), did not attempt the assassination again"
    )
    assert message_line({"assassin_declined": {"seat": 1, "blocking": True}}, names, game=game) == "assassin declined: seat 1 (b), did not block the assassin"
    played = {"assassin_played": {"seat": 1, "card": {"id": 53, "rank": "JOKER", "suit": "SUIT_UNSPECIFIED"}, "blocking": True}}
    assert message_line(played, names, game=game) == "assassin played: seat 1 (b), card Jk, to block the assassin"
    assert message_line({"assassin_choice": {"assassins": [], "blocking": False}}, names, game=game) == "assassin choice: to attempt the assassination again"


def test_records_that_carry_their_place_are_listed_one_a_line_and_others_are_numbered_from_0() -> None:
    """Land & Castle's lands read "lands 1:" above "position 0", a known card "draw pile 1:" above "position 16 · card
    2h", the Assassination Game's pieces "pieces 1:" above "colour 0": two numbers for one place. Records that carry
    their place are now listed under the list's name, one a line, as the viewer leaves them unnumbered; others count
    from 0, as the viewer's rows and the events do ("attacked: land 0" is the first land)."""
    lc = {"game": "land-and-castle", "names": ["a", "b"]}
    lands: list[dict[str, Any]] = [{"position": 0, "face_up": False, "dealt_by": 0}, {"position": 1, "card": {"id": 0, "rank": "RANK_ACE", "suit": "SUIT_CLUBS"}, "face_up": True, "dealt_by": 1}]
    known = [{"seat": 0, "draw_pile": [], "hand": []}, {"seat": 1, "draw_pile": [{"position": 16, "card": {"id": 14, "rank": "RANK_2", "suit": "SUIT_DIAMONDS"}}], "hand": []}]
    assert list(table_lines(lc, {"turn": 1, "lands": lands, "known": known})) == [
        "turn 1",
        "lands:",
        "  position 0 · face up no · dealt by seat 0 (a)",
        "  position 1 · card Ac · face up yes · dealt by seat 1 (b)",
        "known face-down cards, seat 0 (a):",
        "  draw pile none · hand none",
        "known face-down cards, seat 1 (b):",
        "  hand none",
        "  draw pile:",
        "    position 16 · card 2d",
    ]
    flat = [{"seat": s, "draw_pile": [], "hand": []} for s in range(2)]  # the seats count them, but they stand under their seat
    assert list(table_lines(lc, {"known": flat}))[:2] == ["known face-down cards, seat 0 (a):", "  draw pile none · hand none"]
    unplaced = [{k: v for k, v in land.items() if k != "position"} for land in [*lands, lands[0]]]  # dealt by 0, 1, 0
    assert list(table_lines(lc, {"lands": unplaced}))[:3] == ["lands 0:", "  face up no · dealt by seat 0 (a)", "lands 1:"]
    pieces = [{"colour": c, "room": "COURTYARD", "injured": False} for c in range(3)]
    assert list(table_lines({"game": "assassination", "names": list("abcd")}, {"pieces": pieces}))[:2] == ["pieces:", "  colour 0 · room: courtyard · injured no"]
    # Generals & Assassins' rounds played count themselves from 1, and read "rounds played 0:" above "round 1"
    played = [{"round": r, "reason": "KING_DEFEATED"} for r in (1, 2)]
    assert list(table_lines({"game": "generals-and-assassins", "names": ["a", "b"]}, {"rounds_played": played})) == [
        "rounds played:", "  round 1 · reason: king defeated", "  round 2 · reason: king defeated",
    ]  # fmt: skip


def test_a_general_s_war_round_end_says_whether_it_was_cut_short() -> None:
    """Every round's end read "interrupted no", a word a player who read the rules does not know: it tells whether a
    fighter's last general died and cut the round short (GW-4, GW-6, GW-21): "an elimination" said it of a two-player
    game too, where that is a lost game; and a squad choice "attacking no", where "as the defender" says it."""
    names = ["a", "b"]
    ended = {"round": 1, "conquest_counts": [1, 4], "conquest_point_to": 1}
    assert message_line({"round_ended": ended}, names, game="generals-war") == (
        "round ended: round 1, conquest counts: seat 0 (a) 1, seat 1 (b) 4, conquest point to seat 1 (b), played to the end"
    )
    assert message_line({"round_ended": {**ended, "interrupted": True}}, names, game="generals-war").endswith(", cut short: a last general died")
    # the squad choice told the defender "attacking no"
    choice = {"squad_choice": {"min_cards": 1, "max_cards": 3, "attacking": False, "opposing_squad_size": 2}}
    assert message_line(choice, game="generals-war") == "squad choice: min cards 1, max cards 3, as the defender, opposing squad size 2"


def test_an_assassination_answer_that_a_replay_writes_without_its_false_flag_says_what_was_answered() -> None:
    """A replay's JSON leaves a false flag out: each player who stayed out of the holding cell read "leave cell", as if he
    had left it (AS-31), and a bad cop who let the sniper go "detain sniper" (AS-22). Written, the flags read "leave no",
    "by secret service no"."""
    game = "assassination"
    assert message_line({"leave_cell": {}}, game=game) == "leave cell: stay"
    assert message_line({"leave_cell": {"leave": True}}, game=game) == "leave cell: leave the cell, revealed"
    assert message_line({"detain_sniper": {}}, game=game) == "detain sniper: let them go"
    assert message_line({"react": {"detain": True}}, game=game) == "react: detain the bomber"
    assert message_line({"choose_allegiance": {}}, game=game) == "choose allegiance: stay on the president's side"
    moved = {"president_moved": {"from_room": "HALL", "to_room": "HELIPAD", "by_secret_service": False}}
    assert message_line(moved, words=enum_words("assassination"), game=game) == "president moved: from room: hall, to room: helipad, on his own"
