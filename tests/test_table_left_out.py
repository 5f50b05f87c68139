"""What a replay's table leaves out where the rules make it meaningless, and says where an absence tells something
(referee/server/words.py ``LEFT_OUT``), in the terminal's text: General's War's defeat points at a table of two and its
conquest points at a table of four, a seat's own known hand, Land & Castle's turn during the setup and its undercut
before the defender answers, and a tied battle as a tie."""

from __future__ import annotations

import re
from typing import Any

from arena.cli.replay_text import message_line, replay_lines, table_lines
from referee.server.frames import ALL, build_frames
from referee.server.words import read_for_view
from tests.web.test_frames import replay_data


def table_at(data: dict[str, Any], seat: int | str, step: int) -> list[str]:
    """The text's table after ``step``, as ``seat`` saw it."""
    lines = list(replay_lines(build_frames(data, seat), step))
    return lines[lines.index(next(line for line in lines if line.startswith("the table after"))) + 1 :]


def test_general_s_war_tells_defeat_points_at_a_table_of_four_and_conquest_points_at_a_table_of_two() -> None:
    """A two-seat table read "defeat limit 3 · … defeat points 0 · eliminated no", which the rules count in a
    four-player game alone; a four-seat one "conquest target 7 · conquest points 0", which win a two-player game."""
    for seat in (ALL, 0):
        two = " ".join(table_at(replay_data("generals-war", 2, 3), seat, 6))
        assert "conquest target 7" in two and "conquest points 0" in two, two
        assert not [w for w in ("defeat limit", "defeat points", "eliminated") if w in two], two
        four = " ".join(table_at(replay_data("generals-war", 4, 3), seat, 6))
        assert "defeat limit 3" in four and "defeat points 0" in four and "eliminated no" in four, four
        assert "conquest target" not in four and "conquest points" not in four, four


def test_a_seats_own_known_cards_do_not_say_its_hand_is_none() -> None:
    """A seat's own "known face-down cards" read "hand none", as if its hand were empty; its hand is never there (GW-17,
    LC-25). Another seat's entry still says which of that seat's cards in hand it knows."""
    for game in ("generals-war", "land-and-castle"):
        table = table_at(replay_data(game, 2, 3), 0, 1)
        own = table.index(next(line for line in table if line.strip() == "known face-down cards, seat 0 (bot0):"))
        other = table.index(next(line for line in table if line.strip() == "known face-down cards, seat 1 (bot1):"))
        assert not any("hand" in line for line in table[own + 1 : other]), (game, table)
        assert any("hand" in line for line in table[other + 1 :]), (game, table)


def test_land_and_castle_s_setup_has_no_turn_or_sides_and_its_battle_no_undercut_before_the_defence() -> None:
    """The setup (castle, general) read "turn 0 · attacker seat 0 · defender seat 1" before any turn; the battle
    "undercut no" while the defender had not answered (an undercut is the defender's). Both are told once they are."""
    data = replay_data("land-and-castle", 2, 3)
    frames = build_frames(data, 0)["frames"]
    for seat in (0, ALL):  # a seat's view, and the full state
        facts = table_at(data, seat, 0)[0].strip()
        said = facts.split(" · ")
        assert "castle phase" in said and not [f for f in said if f.startswith(("turn ", "attacker ", "defender "))], facts
    turn = next(i for i, f in enumerate(frames) if f["state"]["phase"] == "PHASE_ATTACK")
    assert "turn 1" in table_at(data, 0, turn)[0] and "attacker" in table_at(data, 0, turn)[0]
    attacked = next(i for i, f in enumerate(frames) if f["state"].get("battle") and "defender" not in f["state"]["battle"])
    assert "undercut" not in " ".join(table_at(data, 0, attacked))
    answered = next(i for i, f in enumerate(frames) if (f["state"].get("battle") or {}).get("defender"))
    assert "undercut" in " ".join(table_at(data, 0, answered))


def test_land_and_castle_s_full_state_leaves_out_what_is_not_there_yet() -> None:
    """The everything view's setup read "battle none · last battle none · winner none · win reason none", a battle under
    way "defender none · winner none" before the defence: a seat's view leaves out what is not there yet, and so does
    the full state now. Each is told once it is."""
    data = replay_data("land-and-castle", 2, 3)
    frames = build_frames(data, ALL)["frames"]
    setup = table_at(data, ALL, 0)[0].strip().split(" · ")
    assert "castle phase" in setup and not [f for f in setup if f.startswith(("battle", "last battle", "winner", "win reason"))], setup
    attacked = next(i for i, f in enumerate(frames) if f["state"]["battle"] and not f["state"]["battle"]["defender"])
    table = table_at(data, ALL, attacked)
    battle = table[table.index("  battle:") + 1].strip()
    assert battle.startswith("land ") and "defender" not in battle and "winner" not in battle, battle
    assert not [f for f in table[0].split(" · ") if f.startswith(("winner", "win reason"))], table[0]
    assert "last battle" not in " ".join(table)  # the first battle, not yet resolved
    answered = next(i for i, f in enumerate(frames) if (f["state"]["last_battle"] or {}).get("winner") is not None)
    assert "  last battle:" in table_at(data, ALL, answered)
    over = " ".join(table_at(data, ALL, len(frames) - 1))
    assert "winner seat" in over and "win reason: " in over, over


def test_a_land_and_castle_game_drawn_at_the_turn_limit_says_it_was_a_draw() -> None:
    """A game that reached its last turn with as many lands each (LC-19) has no winner: the game over event read "reason:
    turn limit, lands owned 1, 1" and the table "winner none", as if the winner went untold."""
    for seed in range(1, 60):
        data = replay_data("land-and-castle", 2, seed, {"max_turns": 2})
        if data["game_result"]["ranks"] == [1, 1]:
            break
    else:
        raise AssertionError("no draw in 60 seeds")
    for seat in (ALL, 0, 1):
        text = list(replay_lines(build_frames(data, seat)))
        over = next(line for line in text if "game over:" in line)
        assert "reason: turn limit" in over and "winner none: a draw, as many lands each" in over, over
        assert "winner none: a draw, as many lands each" in table_at(data, seat, len(data["actions"]))[0]
    won = replay_data("land-and-castle", 2, 3)
    assert "winner none" not in " ".join(replay_lines(build_frames(won, ALL)))


def test_a_tied_general_s_war_battle_says_it_was_a_tie() -> None:
    """A battle of equal powers has no winner (both squads die) and read as one whose winner went untold."""
    for seed in range(1, 40):
        data = replay_data("generals-war", 2, seed)
        built = build_frames(data, ALL)
        tied = [e for f in built["frames"] for e in f["events"] if "battle_resolved" in e["event"] and "winner" not in e["event"]["battle_resolved"]["battle"]]
        if tied:
            break
    else:
        raise AssertionError("no tied battle in 40 seeds")
    text = [line for line in replay_lines(built) if "battle resolved" in line]
    ties = [line for line in text if "attacker power" in line and "winner none: a tie, both squads die" in line]
    assert len(ties) == len(tied) and all(re.search(r"attacker power (\d+), defender power \1,", line) for line in ties), ties
    won = [line for line in text if line not in ties]
    assert won and all("winner seat" in line for line in won), won


def test_a_rule_holds_in_its_own_game_alone() -> None:
    """Another game's state with fields of the same names keeps them: Glory's table has no rule of General's War's."""
    state = {"phase": "PHASE_CASTLE", "turn": 0, "defeat_points": 1, "known": [{"seat": 0, "hand": []}]}
    assert read_for_view(state, "glory", 2, 0) == state
    assert read_for_view(state, "generals-war", 2, 0) == {"phase": "PHASE_CASTLE", "turn": 0, "known": [{"seat": 0}]}


def test_arena_play_s_table_and_events_read_as_a_replay_s() -> None:
    """``arena play`` draws a seat's view with ``table_lines`` and each event with ``message_line``, given the game and
    the seats' names alone (no seat, no count of seats): its table read "defeat limit 3" and "hand none" as the replay's
    did, and a tie as no winner."""
    data = replay_data("generals-war", 2, 4)
    frames = build_frames(data, 0)["frames"]
    at = next(i for i, f in enumerate(frames) if f["state"]["known"][0]["deck"])
    table = list(table_lines({"game": "generals-war", "names": ["bot0", "bot1"]}, frames[at]["state"]))
    assert "defeat" not in " ".join(table) and "conquest target 7" in table[0], table
    own = table.index("known face-down cards, seat 0 (bot0):")
    other = table.index("known face-down cards, seat 1 (bot1):")
    assert not any("hand" in line for line in table[own + 1 : other]) and any("hand" in line for line in table[other + 1 :]), table
    tied = next(e["event"] for f in frames for e in f["events"] if "battle_resolved" in e["event"] and "winner" not in e["event"]["battle_resolved"]["battle"])
    assert message_line(tied, ["bot0", "bot1"], game="generals-war").endswith("winner none: a tie, both squads die)")


def facts_of(lines: list[str]) -> list[str]:
    """The first line of a table (its plain facts), one fact each."""
    return lines[0].strip().split(" · ")


def test_glory_s_full_state_leaves_out_what_is_not_there_and_a_battle_what_its_kind_has_not() -> None:
    """The everything view read "next first player – · winners none" in every round, "fight –" between attacks; a last
    battle "land taken –" after an attack on the king (which takes no land), "damage 0 · eliminated no" after a
    conquest (which deals none); the game's end "tie unbroken no". Each is told where it means something."""
    data = replay_data("glory", 3, 1)
    frames = build_frames(data, ALL)["frames"]
    mid = next(i for i, f in enumerate(frames) if f["state"]["phase"] == "TURN" and f["state"]["last_battle"] and f["state"]["round"] > 1)
    facts = facts_of(table_at(data, ALL, mid))
    assert not [f for f in facts if f.startswith(("next first player", "winners", "fight"))], facts
    between = next(i for i, f in enumerate(frames) if f["state"]["phase"] == "ROUND_OVER")
    assert any(f.startswith("next first player seat") for f in facts_of(table_at(data, ALL, between)))
    assert any(f.startswith("winners seat") for f in facts_of(table_at(data, ALL, len(frames) - 1)))
    for i, frame in enumerate(frames):
        last = frame["state"]["last_battle"]
        if last and (i == 0 or frames[i - 1]["state"]["last_battle"] != last):
            table = table_at(data, ALL, i)
            said = table[table.index("  last battle:") + 1]
            assert ("land taken" in said) == (last["kind"] == "CONQUER_LAND"), said
            assert ("damage" in said) == (last["kind"] != "CONQUER_LAND"), said
    ended = next(line for line in replay_lines(build_frames(data, 0)) if "game ended:" in line)
    assert ended.endswith(", no tie") and "tie unbroken" not in ended, ended


def test_generals_and_assassins_tables_leave_out_what_is_not_there_and_what_an_assassination_has_not() -> None:
    """The everything view read "final turns left none · fight none · last battle none"; a seat's battle under way
    "resolved no · damage 0", the last one "resolved yes"; an assassination "offers none · declined none · attack
    points 0 · defence points 0", which no one may assist and which counts no points; every round's end "game over no"."""
    data = replay_data("generals-and-assassins", 3, 1)
    start = facts_of(table_at(data, ALL, 1))
    assert not [f for f in start if f.startswith(("final turns left", "fight", "last battle"))], start
    seat = build_frames(data, 0)["frames"]
    fought = next(i for i, f in enumerate(seat) if f["state"].get("battle"))
    table = table_at(data, 0, fought)
    battle = table[table.index("  battle:") + 1]
    assert "resolved" not in battle and "damage" not in battle and "attack points" in battle, battle
    killed = next(i for i, f in enumerate(seat) if (f["state"].get("last_battle") or {}).get("kind") == "ASSASSINATION")
    table = table_at(data, 0, killed)
    last = table[table.index("  last battle:") + 1]
    assert last.strip().startswith("assassination") and "damage" in last, last
    assert not [w for w in ("resolved", "offers", "declined", "attack points", "defence points") if w in last], last
    ends = [line for line in replay_lines(build_frames(data, ALL)) if "round ended:" in line]
    assert ends[-1].endswith(", the game is over") and all(e.endswith(", another round follows") for e in ends[:-1]), ends
