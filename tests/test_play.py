"""``arena play``: a person at the keyboard takes a seat against bot processes, on a real referee."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli.keyboard import HELP, KeyboardPlayer, Resigned, Stopped, parse_choice, read_line
from arena.v1 import generals_and_assassins_pb2, glory_pb2, referee_pb2 as pb
from arena_sdk import Request, random_action
from tests.support import SAMPLE_BOTS

RANDOM = str(SAMPLE_BOTS / "random")


def arena_play(tmp_path: Path, typed: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``arena play`` with ``typed`` as what the player types (stdin), the replay at tmp_path/r.json."""
    return subprocess.run(
        [sys.executable, "-m", "arena.cli.main", "play", *args, "--log-dir", str(tmp_path / "logs"), "--replay", str(tmp_path / "r.json")],
        input=typed, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_a_person_plays_a_match_to_the_end_seeing_only_their_seat(tmp_path: Path) -> None:
    done = arena_play(tmp_path, "r\n" * 200, "generals-war", RANDOM, "--seed", "3")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "generals-war: you are seat 0 of 2: seat 0 (you), seat 1 (random)" in out and "the match is over" in out
    assert "asked: squad choice" in out and "1. play squad: cards " in out  # the decision and its listed actions
    mine = [line for line in out.splitlines() if "cards drawn: seat 0 (you)" in line]
    theirs = [line for line in out.splitlines() if "cards drawn: seat 1 (random)" in line]
    assert mine and all(", cards " in line for line in mine)
    assert theirs and not any("cards " in line.split("count")[1] for line in theirs), theirs  # how many, never which
    replay = json.loads((tmp_path / "r.json").read_text())
    assert [seat["name"] for seat in replay["seats"]] == ["you", "random"]
    assert "│ you" in out and "replay: " in out


def test_the_same_seed_and_the_same_typing_replay_the_same_match(tmp_path: Path) -> None:
    """r draws from a generator seeded from the match seed: a match played with r's is reproducible."""
    actions = []
    for run in ("a", "b"):
        folder = tmp_path / run
        done = arena_play(folder, "2\n" + "r\n" * 200, "generals-war", RANDOM, "--seed", "11", "--seat", "1")
        assert done.returncode == 0, done.stderr
        actions.append(json.loads((folder / "r.json").read_text())["actions"])
    assert actions[0] == actions[1] and len(actions[0]) > 10


def test_a_match_played_without_a_seed_replays_from_the_seed_it_shows(tmp_path: Path) -> None:
    """With no --seed the match's seed is drawn once and r's draws follow it: the seed shown replays the match."""
    first = arena_play(tmp_path / "a", "r\n" * 200, "generals-war", RANDOM)
    assert first.returncode == 0, first.stderr
    replay = json.loads((tmp_path / "a" / "r.json").read_text())
    assert f"seed {replay['seed']}" in first.stdout
    again = arena_play(tmp_path / "b", "r\n" * 200, "generals-war", RANDOM, "--seed", str(replay["seed"]))
    assert again.returncode == 0, again.stderr
    assert json.loads((tmp_path / "b" / "r.json").read_text())["actions"] == replay["actions"]


def test_what_is_not_an_action_is_explained_and_asked_again(tmp_path: Path) -> None:
    typed = "garbage {\n999\n?\nv\nq\n"
    done = arena_play(tmp_path, typed, "glory", RANDOM, RANDOM, "--seat", "1", "--seed", "5")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert 'not an action (1:1 : Message type "arena.v1.glory.Action" has no field named "garbage".)' in out
    assert "no action numbered 999: pick 1 to" in out
    assert "r        play a legal action chosen at random" in out  # ? shows the help
    assert out.count("--- decision") == 2  # v showed the view again; nothing was played meanwhile
    assert "you resigned: the seat forfeits" in out
    assert "seat 1 (you) forfeited" in out  # the referee treats the seat as a bot that left
    verdicts = json.loads((tmp_path / "r.json").read_text())["seats"][1]["verdicts"]
    assert [(v["kind"], v["detail"]) for v in verdicts][:1] == [("RESIGNED", "the player at the keyboard resigned (you resigned)")]


def test_a_refused_action_is_asked_again_not_a_strike(tmp_path: Path) -> None:
    """docs/bots.md and --strike-limit's help: a refusal is a rejection, as for a bot; only the twentieth is a strike."""
    typed = "buy_land { land_ids: 200 money_ids: 201 }\n" * 3 + "q\n"
    done = arena_play(tmp_path, typed, "glory", RANDOM, "--seed", "5", "--strike-limit", "0")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("refused: card 200 may not be chosen now") == 3, done.stdout  # no forfeit at the first
    assert "action rejected" not in done.stderr, "told once, not again by the SDK's log"
    assert "you resigned: the seat forfeits" in done.stdout


def test_the_input_ending_resigns_the_seat(tmp_path: Path) -> None:
    done = arena_play(tmp_path, "", "generals-war", RANDOM, "--seed", "1")
    assert done.returncode == 0, done.stderr
    assert "the input ended: the seat forfeits" in done.stdout and "seat 0 (you) forfeited" in done.stdout


def test_a_board_game_shows_its_board_with_the_view(tmp_path: Path) -> None:
    done = arena_play(tmp_path, "q\n", "assassination", RANDOM, RANDOM, RANDOM, "--seed", "2")
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stdout.splitlines()]
    at = next(i for i, line in enumerate(lines) if line.startswith("--- decision"))
    board = lines[at + 1 : at + 4]
    assert board[0].startswith("tower:") and "[holding cell:" in board[0], board
    assert board[1].startswith("podium:") and board[2].startswith("####"), board
    assert sorted(re.findall(r"\b\d\b", " ".join(board))) == ["0", "1", "2", "3", "4"], board  # every piece, once


@pytest.mark.parametrize(
    "args,message",
    [
        (["generals-war", RANDOM, "--seat", "2"], "--seat 2: with 1 bot the seats are 0 to 1"),
        (["generals-war", RANDOM, "--name", "-x"], "--name '-x' must start with a letter or digit"),
        (["no-such-game", RANDOM], "no game called 'no-such-game'"),
        (["generals-war", RANDOM, RANDOM], "generals-war is played by"),
    ],
)
def test_bad_options_are_refused_before_anything_starts(tmp_path: Path, args: list[str], message: str) -> None:
    done = arena_play(tmp_path, "", *args)
    assert done.returncode == 2 and message in " ".join(done.stderr.split()), done.stderr


def glory_request(listed: bool) -> Request:
    """A Glory turn decision as the referee sends it, with or without its list of actions."""
    raw = pb.DecisionRequest(legal_actions_listed=listed)
    raw.decision.glory.turn_choice.can_pass = True
    if listed:
        raw.legal_actions.add().glory.pass_turn.SetInParent()
    return Request(raw, pb.GameStart(game="glory", seat=0, num_seats=2))


def test_a_typed_action_is_read_as_the_games_own_message() -> None:
    rng = random.Random(1)
    request = glory_request(listed=False)
    chosen = parse_choice("pass_turn {}", request, rng)
    assert isinstance(chosen, glory_pb2.Action) and chosen.WhichOneof("kind") == "pass_turn"
    assert parse_choice("1", request, rng) == "nothing is listed for this decision: type the action (see the example), or r"
    assert str(parse_choice("", request, rng)).startswith("say which action, as in: ")
    listed = glory_request(listed=True)
    assert parse_choice("1", listed, rng) == listed.legal_actions[0]  # type: ignore[index]
    assert parse_choice("0", listed, rng) == "no action numbered 0: pick 1 to 1"


def test_the_terminal_is_read_a_line_at_a_time_until_the_seat_is_stopped() -> None:
    """The runner stops the seat when the match ends or the command is interrupted: a player still being asked then
    kept the seat's stream open until the referee's grace ran out."""
    import os
    import threading

    read, write = os.pipe()
    stop = threading.Event()
    try:
        os.write(write, b"12\nr\n")
        assert read_line("", stop, read) == "12" and read_line("", stop, read) == "r"
        outcome: list[object] = []
        waiting = threading.Thread(target=lambda: outcome.append(pytest.raises(Stopped, read_line, "", stop, read)))
        waiting.start()
        stop.set()
        waiting.join(timeout=30)
        assert not waiting.is_alive() and outcome, "read_line went on waiting after the seat was stopped"
        os.close(write)
        assert pytest.raises(EOFError, read_line, "", None, read)  # the input ended: the player resigns
    finally:
        os.close(read)


def glory_turn(listed: int) -> Request:
    """A Glory turn with a hand of eight cards, the discard of each of the first ``listed`` listed (0: none listed)."""
    raw = pb.DecisionRequest(legal_actions_listed=bool(listed))
    choice = raw.decision.glory.turn_choice
    choice.can_pass = True
    for card in range(8):
        choice.hand.add(id=card)
    for card in range(listed):
        raw.legal_actions.add().glory.discard.card_ids.append(card)
    return Request(raw, pb.GameStart(game="glory", seat=0, num_seats=2, seat_names=["you", "bot"]))


def scripted(typed: list[str], seed: int = 1) -> tuple[KeyboardPlayer, list[str]]:
    """A keyboard player who types ``typed``, one line a prompt, and what it is shown."""
    lines = iter(typed)
    said: list[str] = []
    return KeyboardPlayer(ask=lambda prompt: next(lines), say=said.append, seed=seed), said


def test_the_number_typed_plays_the_action_shown_with_that_number() -> None:
    """The list is numbered from 1 and typing a number plays the action shown beside it, not a neighbour."""
    request = glory_turn(listed=3)
    player, said = scripted(["2"])
    chosen = player.act(request)
    assert chosen == request.legal_actions[1]  # type: ignore[index]
    numbered = [line.strip() for line in said if re.match(r"\s+\d+\. ", line)]
    assert numbered == ["1. discard: cards Ac", "2. discard: cards 2c", "3. discard: cards 3c"], said


def test_the_player_reads_enums_and_card_ids_in_words() -> None:
    """The view read "phase TURN", an event "kind ATTACK_KING" and an action "buy land: land ids 40, money ids 16"."""
    request = glory_turn(listed=0)
    request.raw.view.glory.phase = glory_pb2.TURN
    request.raw.legal_actions.add().glory.buy_land.land_ids.append(40)
    request.raw.legal_actions[0].glory.buy_land.money_ids.append(16)
    request.raw.legal_actions_listed = True
    player, said = scripted(["1"])
    player.on_start(request.start)
    declared = pb.Event(seq=3)
    declared.glory.attack_declared.kind = glory_pb2.ATTACK_KING
    declared.glory.attack_declared.attacker = 1
    player.on_events([declared.glory])
    player.act(request)
    assert "  · attack declared: attack on the king, attacker seat 1 (bot), defender seat 0 (you), attack points 0" in said, said
    assert any(" · turn phase · " in line for line in said), said
    assert "  1. buy land: lands 2s, money 4d" in said, said


def test_showing_the_view_and_its_example_again_changes_no_later_random_action() -> None:
    """r draws from a generator of its own: how often the player looked at the view (each look draws an example of
    an unlisted action) does not change the match their seed and their choices replay."""
    request = glory_turn(listed=0)
    first, _ = scripted(["r"], seed=7)
    looked, said = scripted(["v", "v", "r"], seed=7)
    chosen = first.act(request)
    assert looked.act(request) == chosen == random_action(request, random.Random(7))
    assert sum("for example" in line for line in said) == 3


def test_an_empty_line_shows_the_help_line_by_line_and_q_resigns() -> None:
    """The help was shown on one line, its line breaks written out as "\\n" as if they were a bot's escape sequences."""
    player, said = scripted(["", "q"])
    with pytest.raises(Resigned, match="you resigned"):
        player.act(glory_turn(listed=0))
    assert "\n".join(said).count(HELP) == 1 and not any("\\n" in line for line in said), said
    assert not any(line.startswith("say which action") for line in said)


def test_a_bot_name_with_escape_sequences_reaches_the_player_written_out() -> None:
    """A bot's name is its author's text: printed as it is, an escape sequence would clear or retitle the terminal."""
    player, said = scripted([])
    player.on_start(pb.GameStart(game="glory", seat=0, num_seats=2, seat_names=["you", "evil\x1b[2J"]))
    assert "seat 1 (evil\\x1b[2J)" in said[0] and "\x1b" not in said[0]


def test_a_last_line_without_a_line_break_is_read_before_the_input_ends() -> None:
    """Input piped from a file whose last line has no line break: that line is the player's last choice, not lost."""
    import os
    import threading

    read, write = os.pipe()
    try:
        os.write(write, b"3")
        os.close(write)
        assert read_line("", threading.Event(), read) == "3"
        assert pytest.raises(EOFError, read_line, "", None, read)
    finally:
        os.close(read)


@pytest.mark.parametrize("typed", ["²", "1" * 5000])
def test_a_number_that_numbers_nothing_is_explained_not_a_forfeit(typed: str) -> None:
    """"²" (a key of its own on French and German keyboards) counts as a digit but int() refuses it, as it refuses a
    number past 4,300 digits: the ValueError ended the player's act, and the seat forfeited the match."""
    request = glory_turn(listed=3)
    player, said = scripted([typed, "2"])
    assert player.act(request) == request.legal_actions[1]  # type: ignore[index]
    assert any(line.startswith("no action numbered ") and line.endswith(": pick 1 to 3") for line in said), said


@pytest.mark.parametrize("took,late", [(1.0, False), (1.6, True)])
def test_an_answer_after_the_decision_s_time_ran_out_is_said_to_be_too_late(took: float, late: bool) -> None:
    """The referee plays the default action for a seat whose time runs out (a strike) and drops the answer that comes
    after. The player was told nothing: they saw the events of the default action as if their answer had been played,
    and strikes went on towards a forfeit without a word."""
    now = [0.0]
    said: list[str] = []

    def ask(prompt: str) -> str:
        now[0] += took
        return "2"

    player = KeyboardPlayer(ask=ask, say=said.append, seed=1, clock=lambda: now[0])
    request = glory_turn(listed=3)
    request.raw.time_left_ms = 1500
    assert player.act(request) == request.legal_actions[1]  # type: ignore[index]
    too_late = [line for line in said if line.startswith("too late")]
    assert bool(too_late) == late, said
    if late:
        assert "1.5 s" in too_late[0] and "default action" in too_late[0] and "strike" in too_late[0]


def test_the_help_at_a_decision_that_lists_its_actions_shows_an_example_of_one_typed() -> None:
    """The help's last line said "as the example shows", but a decision that lists its actions shows no example: the
    help gives one itself, of this decision's actions, in the text format a player would type."""
    player, said = scripted(["?", "q"])
    with pytest.raises(Resigned):
        player.act(glory_turn(listed=3))
    assert not any("too many actions to list" in line for line in said)
    typed = [line for line in said if "protobuf text format" in line]
    assert len(typed) == 1 and "for example: " in typed[0] and "discard" in typed[0], said


def test_the_view_at_the_keyboard_names_glorys_turn_as_a_seat() -> None:
    """``arena play glory`` read "turn 1", where the viewer and ``arena replay --text`` say "turn seat 1 (bot)": Glory's
    turn is the seat whose turn it is, and the keyboard's table did not say which game it was drawing."""
    request = glory_turn(listed=1)
    request.raw.view.glory.turn = 1
    player, said = scripted(["1"])
    player.names = ["you", "bot"]
    player.act(request)
    facts = [line.strip() for line in said if line.strip().startswith("turn ") or " · turn " in line]
    assert facts and "turn seat 1 (bot)" in facts[0], said


def test_the_view_at_the_keyboard_tells_an_extra_round_as_one() -> None:
    """``arena play generals-and-assassins`` read "round 9 · rounds 8" in the first extra round of a tied game of eight."""
    raw = pb.DecisionRequest(legal_actions_listed=True)
    raw.view.generals_and_assassins.round = 9
    raw.view.generals_and_assassins.rounds = 8
    raw.decision.generals_and_assassins.next_round_choice.round = 10
    raw.legal_actions.add().generals_and_assassins.start_round.SetInParent()
    player, said = scripted(["1"])
    player.names = ["you", "bot"]
    player.act(Request(raw, pb.GameStart(game="generals-and-assassins", seat=0, num_seats=2, seat_names=player.names)))
    facts = said[1]
    assert " · extra round 1 (after 8) · " in facts and "rounds" not in facts, said


def test_the_events_and_decision_at_the_keyboard_tell_an_extra_round_as_one() -> None:
    """``arena play generals-and-assassins`` told "round started: round 9" and asked "next round choice: round 10" in a
    game of eight, where its table said "extra round 1 (after 8)": the events come before any view, so the game's
    rounds are the option the start gives."""
    start = pb.GameStart(game="generals-and-assassins", seat=0, num_seats=2, seat_names=["you", "bot"])
    start.options["rounds"].int_value = 8
    player, said = scripted(["1"])
    player.on_start(start)
    event = generals_and_assassins_pb2.Event()
    event.round_started.round = 9
    event.round_started.first_player = 1
    player.on_events([event])
    assert said[-1] == "  · round started: extra round 1 (after 8), first player seat 1 (bot)", said
    raw = pb.DecisionRequest(legal_actions_listed=True)
    raw.view.generals_and_assassins.round = 9
    raw.view.generals_and_assassins.rounds = 8
    raw.decision.generals_and_assassins.next_round_choice.round = 10
    raw.legal_actions.add().generals_and_assassins.start_round.SetInParent()
    player.act(Request(raw, start))
    assert [line for line in said if line.startswith("asked: next round choice: extra round 2 (after 8), ")], said


def test_a_decision_whose_actions_are_not_listed_tells_the_ids_of_its_cards() -> None:
    """A Glory turn lists no actions (too many): the player must type them with card ids, but was shown the cards by
    name alone ("hand 4h 3s Ac ..."), and with a deck per player two "Ac" in one hand are two ids. The decision's cards
    are told with the id to type, each once."""
    request = glory_turn(listed=0)
    choice = request.raw.decision.glory.turn_choice
    del choice.hand[:]
    for card in (137, 0, 54):  # 4h of deck 2, Ac of deck 0, Ac of deck 1
        choice.hand.add(id=card)
    choice.aces.add(id=0)
    choice.aces.add(id=54)
    player, said = scripted(["q"])
    with pytest.raises(Resigned):
        player.act(request)
    assert "  card ids: 4h 137 · Ac 0 · Ac 54" in said, said
    listed, said = scripted(["1"])
    listed.act(glory_turn(listed=3))
    assert not any("card ids" in line for line in said), said  # a listed action is typed by its number


def test_a_decision_whose_actions_are_not_listed_shows_an_example_of_each_kind_of_action() -> None:
    """A Glory turn showed one example, of one kind drawn at random (often a discard): a player who meant to attack a
    king had to find in the .proto files that it is typed ``attack_king { target: ... card_ids: ... money_ids: ... }``.
    Each kind the decision allows now has an example, each kind once."""
    request = glory_turn(listed=0)
    choice = request.raw.decision.glory.turn_choice
    choice.can_pass = False
    del choice.hand[:]
    for card in (12, 29, 50):  # Kc, 4h, Qs
        choice.hand.add(id=card)
    choice.generals.add(id=12)
    choice.health.add(id=29)
    choice.lands.add(id=50)
    choice.treasury.add(id=24)  # Qd
    choice.king_targets.append(1)
    player, said = scripted(["q"])
    with pytest.raises(Resigned):
        player.act(request)
    shown = [line.strip() for line in said if line.startswith("    ")]
    kinds = [line.split(" ", 1)[0] for line in shown]
    assert sorted(kinds) == ["attack_king", "buy_land", "discard", "heal"], said
    assert all(isinstance(parse_choice(line, request, random.Random(1)), glory_pb2.Action) for line in shown)


def test_listed_actions_that_read_alike_are_told_apart_by_their_card_ids() -> None:
    """With a deck per player a Glory hand may hold two 9c and two Jc: the defence's options read "defend: cards 9c"
    twice, and the pairs (Jc of deck 0, 9c of deck 1) and (9c of deck 0, Jc of deck 1) read "cards Jc 9c" and
    "cards 9c Jc", one pair in both orders to the eye. The engine lists each set of cards once; the text now tells
    the options that read alike apart by their cards' ids, and leaves the others as they were."""
    from referee.games.glory import choices
    from referee.games.glory.types import AttackKind, Defend, DefendChoice

    raw = pb.DecisionRequest(legal_actions_listed=True)
    decision = raw.decision.glory.defend_choice
    playable = (8, 10, 62, 64)  # 9c, Jc of deck 0; 9c, Jc of deck 1
    for card in playable:
        decision.playable.add(id=card)
    for action in choices.legal_actions(DefendChoice(AttackKind.ATTACK_KING, 1, playable, 30, 0)):
        assert isinstance(action, Defend)
        raw.legal_actions.add().glory.defend.card_ids.extend(action.card_ids)
    player, said = scripted(["1"])
    player.act(Request(raw, pb.GameStart(game="glory", seat=0, num_seats=2, seat_names=["you", "bot"])))
    numbered = [line.strip().split(". ", 1)[1] for line in said if re.match(r"\s+\d+\. ", line)]
    assert len(numbered) == 16 and len(set(numbered)) == 16, numbered
    assert "defend: cards 9c (card ids: 9c 8)" in numbered and "defend: cards 9c (card ids: 9c 62)" in numbered, numbered
    assert "defend: cards Jc 9c (card ids: Jc 10 · 9c 62)" in numbered, numbered
    assert "defend: cards 9c Jc (card ids: 9c 8 · Jc 64)" in numbered, numbered
    assert numbered[0] == "defend: cards none" and "defend: cards 9c 9c" in numbered, numbered  # nothing reads like them


def test_the_example_of_a_squad_shows_how_several_cards_are_typed() -> None:
    """General's War's defender with ten cards in hand is not listed his 175 squads: the example read
    ``play_squad { card_ids: 6 }``, one card, and said not how to place three. The example is now the fullest drawn."""
    from arena.v1 import generals_war_pb2

    raw = pb.DecisionRequest(legal_actions_listed=False)
    choice = raw.decision.generals_war.squad_choice
    choice.min_cards, choice.max_cards = 1, 3
    for card in range(10):
        choice.playable.add(id=card)
    request = Request(raw, pb.GameStart(game="generals-war", seat=0, num_seats=2, seat_names=["you", "bot"]))
    for seed in range(5):
        player, said = scripted(["q"], seed)
        with pytest.raises(Resigned):
            player.act(request)
        shown = [line.strip() for line in said if line.startswith("    ")]
        assert len(shown) == 1 and shown[0].count("card_ids:") == 3, said
        action = parse_choice(shown[0], request, random.Random(1))
        assert isinstance(action, generals_war_pb2.Action) and len(action.play_squad.card_ids) == 3


def test_r_does_not_draw_from_the_rules_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    """r's generator was seeded with the match seed, as the rules' is: the same draws that shuffled the decks chose
    among the listed actions, so the item r picked told the player where cards lay. It is seeded as the seat's bot
    would be (ARENA_BOT_SEED, one way from the match seed), and the same seed still replays the same match."""
    import arena.cli.main as cli
    from referee.server.seeds import bot_seed

    seated: list[KeyboardPlayer] = []
    monkeypatch.setattr(cli, "run_match", lambda *args, keyboard, **kwargs: seated.append(keyboard[1]))
    for _ in range(2):
        cli.play("glory", [Path(RANDOM)], seat=1, seed=5)
    rules = random.Random(5)
    first, again = seated
    draws = [first.rng.getrandbits(32) for _ in range(8)]
    assert draws != [rules.getrandbits(32) for _ in range(8)]
    assert draws == [again.rng.getrandbits(32) for _ in range(8)]
    assert draws[:1] == [random.Random(int(bot_seed(5, 1))).getrandbits(32)]
