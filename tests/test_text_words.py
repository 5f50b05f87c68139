"""Enum values and card-id fields in words, for the text a person reads (``arena replay --text``, ``arena play``)."""

from __future__ import annotations

import re

import pytest

from arena.cli.replay_text import args, message_line, replay_lines, step_lines, table_lines
from referee.core.cards import Suit, card_id
from referee.games.registry import GAMES
from referee.server.frames import ALL, build_frames
from referee.server.words import CARD_ID_KEY, enum_words, id_label
from tests.test_replay_text import VIEWER
from tests.web.test_frames import replay_data, steps

#: A run of capitals with an underscore or of four letters or more: an enum's name as the protocol spells it ("TURN",
#: "ATTACK_KING"), never a card ("Qh"), a seat or a word of the text.
RAW_ENUM = re.compile(r"\b[A-Z][A-Z0-9]*(_[A-Z0-9]+)+\b|\b[A-Z]{4,}\b")
#: One seeded match of each game, and its seats.
MATCHES = [("generals-war", 2, 3), ("glory", 3, 3), ("generals-and-assassins", 2, 3), ("land-and-castle", 2, 3), ("assassination", 4, 3)]


def test_an_enum_value_reads_without_the_prefix_its_values_share() -> None:
    glory = enum_words("glory")
    assert glory["GLORY_KING_DEFENCE_ASSIST"] == "king defence assist"  # GloryReason's values all start GLORY_
    assert glory["KING_ELIMINATED"] == "king eliminated"  # RoundEndReason's share no prefix
    assert glory["TURN"] == "turn"
    assert glory["ATTACK_KING"] == "attack on the king"  # an override: "attack king" reads as an order
    assert enum_words("land-and-castle")["PHASE_CLAIM"] == "claim"
    assert enum_words("assassination")["HEALTH_SERVICES"] == "health services"
    assert enum_words("generals-war")["HEARTS"] == "hearts"  # the cards' enums too, which every game imports


@pytest.mark.parametrize("game", list(GAMES))
def test_every_enum_value_of_every_game_has_words_of_its_own(game: str) -> None:
    """Every value is in words (lower case, no underscore), and no name of two enums reads two ways in one game."""
    words = enum_words(game)
    module = GAMES[game].proto_module
    names = [v.name for e in module.DESCRIPTOR.enum_types_by_name.values() for v in e.values]
    assert names and set(names) <= set(words)
    for name, said in words.items():
        assert said and "_" not in said and said == said.lower(), (name, said)


def test_a_field_of_card_ids_reads_as_the_cards_it_names() -> None:
    assert [k for k in ("card_ids", "card_id", "land_ids", "money_ids", "cards", "ids", "id") if CARD_ID_KEY.search(k)] == ["card_ids", "card_id", "land_ids", "money_ids"]
    assert [id_label(k) for k in ("card_ids", "card_id", "land_ids", "money_ids")] == ["cards", "card", "lands", "money"]
    two_of_spades, four_of_diamonds = card_id(2, Suit.SPADES, deck=0), card_id(4, Suit.DIAMONDS)
    buy = {"buy_land": {"land_ids": [two_of_spades], "money_ids": [four_of_diamonds]}}
    assert message_line(buy, ["a", "b"], words=enum_words("glory")) == "buy land: lands 2s, money 4d"
    assert message_line({"heal": {"card_id": four_of_diamonds}}) == "heal: card 4d"


def test_an_enum_field_reads_as_words_phrased_for_its_field() -> None:
    words = enum_words("glory")
    attack = {"attack_declared": {"kind": "ATTACK_KING", "attacker": 1, "defender": 0, "card_ids": [], "attack_points": 18}}
    assert message_line(attack, ["a", "b"], words=words) == "attack declared: attack on the king, attacker seat 1 (b), defender seat 0 (a), attack points 18"
    assert args({"seat": 0, "points": 2, "reason": "GLORY_KING_DEFENCE_ASSIST"}, ["a"], words=words) == "seat 0 (a), points 2, reason: king defence assist"
    assert next(table_lines({"game": "glory", "names": ["a", "b"]}, {"phase": "TURN", "turn": 1})) == "turn phase · turn seat 1 (b)"
    assert next(table_lines({"game": "glory", "names": ["a", "b"]}, {"phase": "GAME_OVER"})) == "game over"
    route = args({"route": ["HALL", "HEALTH_SERVICES", "PODIUM"]}, words=enum_words("assassination"))
    assert route == "route: hall, health services, podium"  # a list of values, each one read apart


def test_glorys_assassination_counts_assassins_and_says_so() -> None:
    """An assassination's outcome read "attack points 1, defence points 0, damage 25", where the points count the
    assassins each side presented (glory.proto); an attack's points are still points."""
    words, names = enum_words("glory"), ["a", "b"]
    result = {"kind": "ASSASSINATION", "attacker": 1, "defender": 0, "attack_points": 1, "defence_points": 0, "success": True, "damage": 25}
    line = message_line({"battle_resolved": {"result": result}}, names, words=words, game="glory")
    assert "assassination, attacker seat 1 (b), defender seat 0 (a), assassins presented 1, assassins matched 0, success yes, damage 25" in line, line
    declared = {"attack_declared": {"kind": "ASSASSINATION", "attacker": 1, "defender": 0, "cards": [], "attack_points": 2}}
    assert message_line(declared, names, words=words, game="glory").endswith(", assassins presented 2")
    battle = list(table_lines({"game": "glory", "names": names}, {"battle": {**result, "mini_round": 2}}))[1]
    assert "assassins presented 1 · assassins matched 0" in battle and "points" not in battle, battle
    attack = {**result, "kind": "ATTACK_KING", "attack_points": 30, "defence_points": 12}
    assert "attack points 30, defence points 12" in message_line({"battle_resolved": {"result": attack}}, names, words=words, game="glory")


@pytest.mark.parametrize(("game", "players", "seed"), MATCHES)
def test_no_view_of_a_replay_shows_an_enum_as_the_protocol_spells_it(game: str, players: int, seed: int) -> None:
    data = replay_data(game, players, seed)
    for view in [ALL, *range(players)]:
        frames = build_frames(data, view)
        lines = list(replay_lines(frames)) + list(replay_lines(frames, len(frames["frames"]) // 2))
        raw = [line for line in lines[1:] if RAW_ENUM.search(line)]  # the first line is the game's name
        assert not raw, (view, raw[:5])
        assert not [line for line in lines if re.search(r"\bids?\b", line)], view  # cards are named, never by id
        # a field the protocol abbreviates is spelled out: "hp 43 · vp 0" left a spectator guessing
        assert not [line for line in lines if re.search(r"\b[hv]p\b", line)], view
        if game in ("glory", "generals-and-assassins"):
            assert any("hit points" in line for line in lines), view


def unique_card(card: int) -> str:
    """A card named so that no two cards share the name (two decks each have an 8h), for the check below (monkeypatch
    refuses to set a name the text module does not have: the renaming cannot miss)."""
    return f"card#{card}"


@pytest.mark.parametrize(("game", "players", "seed"), MATCHES)
def test_a_seats_text_names_no_card_it_could_not_know_at_any_step_in_any_game(game: str, players: int, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cards of a seat's text (its actions' card ids among them) are only those it knew: each card named by its
    id alone, so that a hidden card of a second deck is not hidden behind its twin's name."""
    monkeypatch.setattr("arena.cli.replay_text.card_str", unique_card)
    data = replay_data(game, players, seed)
    hidden_somewhere, named_somewhere = False, False
    for seat in range(players):
        frames = build_frames(data, seat)
        for (state, _), frame in zip(steps(data), frames["frames"]):
            hidden = {unique_card(c) for c in state.hidden_cards(seat)}
            named = set(re.findall(r"card#\d+", " ".join([*step_lines(frames, frame), *table_lines(frames, frame["state"])])))
            hidden_somewhere, named_somewhere = hidden_somewhere or bool(hidden), named_somewhere or bool(named)
            assert not named & hidden, (seat, frame["step"], named & hidden)
    assert hidden_somewhere and named_somewhere  # else the check would prove nothing


def test_everyones_text_names_cards_by_the_same_renaming(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: everyone's text, renamed the same way, names a card some seat does not know."""
    monkeypatch.setattr("arena.cli.replay_text.card_str", unique_card)
    data = replay_data("glory", 3, 3)
    state, _ = next(iter(steps(data)))
    everyone = build_frames(data, ALL)
    text = " ".join([*step_lines(everyone, everyone["frames"][0]), *table_lines(everyone, everyone["frames"][0]["state"])])
    assert set(re.findall(r"card#\d+", text)) & {unique_card(c) for c in state.hidden_cards(1)}



def test_the_terminal_and_the_browser_know_the_same_fields_of_card_ids() -> None:
    found = re.search(r"function isCardIdKey\(key\) \{\s*return /(.*?)/\.test\(key\);", VIEWER.read_text())
    assert found is not None and found.group(1) == CARD_ID_KEY.pattern


def test_a_verdict_kind_reads_in_words_by_the_same_rule() -> None:
    """The verdicts' kinds read raw ("ILLEGAL_ACTION@4") where a person reads them; every kind has words of its own."""
    from arena.v1 import referee_pb2 as pb
    from referee.server.words import verdict_text, verdict_words

    words = verdict_words()
    assert words["ILLEGAL_ACTION"] == "illegal action" and words["TIMEOUT"] == "timeout" and words["FORFEIT"] == "forfeit"
    assert words["MALFORMED"] == "malformed message" and words["NO_SHOW"] == "no-show"  # overrides: an adjective, a noun
    assert set(words) == set(pb.VerdictKind.keys())
    assert len(set(words.values())) == len(words) and all("_" not in said for said in words.values())
    assert verdict_text("CRASH") == "crash" and verdict_text("SOMETHING_NEW") == "SOMETHING_NEW"  # a kind of a newer referee: as sent


def test_a_turns_pass_and_an_attacks_refusals_say_what_they_mean() -> None:
    """Glory's turn choice read "can pass no" whenever the hand held a card; Generals & Assassins' attack read
    "declined seat 0" without saying to what (those seats chose not to assist)."""
    names = ["a", "b", "c"]
    turn = message_line({"turn_choice": {"can_pass": False, "king_targets": [1]}}, names, words=enum_words("glory"), game="glory")
    assert "no passing with cards in hand" in turn and "can pass" not in turn, turn
    empty = message_line({"turn_choice": {"can_pass": True}}, names, words=enum_words("glory"), game="glory")
    assert "pass is the only action" in empty, empty
    battle = {"kind": "ATTACK", "attacker": 1, "defender": 0, "declined": [2], "attack_points": 7}
    table = list(table_lines({"game": "generals-and-assassins", "names": names}, {"battle": battle}))
    assert any("declined to assist seat 2 (c)" in line for line in table), table
    assert "declined to assist" not in " ".join(table_lines({"game": "generals-and-assassins", "names": names}, {"battle": {**battle, "kind": "ASSASSINATION"}}))
