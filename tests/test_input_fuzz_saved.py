"""A tournament's saved games (``--save``) fuzzed: a header edited or damaged is refused with a SavedGamesError and
the file left as it was; a game line edited is played again, never taken half and never a traceback; going on
keeps every line the file held."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from arena.cli.main import app
from referee.tournament.saved import FORMAT, VERSION, SavedGames, SavedGamesError
from referee.tournament.schedule import ScheduledGame
from tests.fuzzing import FUZZ, one_value_changed
from tests.support import SAMPLE_BOTS

runner = CliRunner()
RANDOM = str(SAMPLE_BOTS / "random")
TOURNAMENT: dict[str, Any] = {
    "game": "glory", "format": "round-robin", "games": 2, "players": 2, "seed": 3, "options": {},
    "move_time_ms": 1000, "time_bank_ms": 10000, "strike_limit": 3,
    "bots": [{"name": "a", "version": "1", "files": "d1"}, {"name": "b", "version": "1", "files": "d2"}],
}  # fmt: skip
SCHEDULE = [ScheduledGame(i, i // 2, i // 2, (0, 1), 100 + i // 2, (0, 1) if i % 2 == 0 else (1, 0)) for i in range(4)]
JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=4),
    st.sampled_from([[], {}, [0], [{}], {"name": "a"}, [[]], "[/x]"]),
)  # fmt: skip


def game_line(g: ScheduledGame) -> dict[str, Any]:
    return {
        "index": g.index, "seed": g.seed, "seats": list(g.seats), "ranks": [1, 2], "scores": [1.0, 0.0],
        "forfeited": [False, False], "match_id": f"m{g.index}", "replay": None,
    }  # fmt: skip


def whole(game: dict[str, Any]) -> bool:
    """Whether ``game`` holds a result a two-seat game can have: ranks 1 or 2, finite scores, a forfeit flag each."""
    ranks, scores, forfeited = game["ranks"], game["scores"], game["forfeited"]
    return (
        [type(r) for r in ranks] == [int, int] and all(r in (1, 2) for r in ranks)
        and len(scores) == 2 and all(type(s) in (int, float) and abs(s) < float("inf") for s in scores)
        and [type(f) for f in forfeited] == [bool, bool] and type(game["match_id"]) is str and (game.get("replay") is None or type(game["replay"]) is str)
    )  # fmt: skip


def opened(path: Path) -> SavedGames | SavedGamesError:
    try:
        return SavedGames(path, TOURNAMENT)
    except SavedGamesError as exc:
        assert str(exc).startswith(str(path)) and "\n" not in str(exc), str(exc)
        return exc


@FUZZ
@given(st.data())
def test_an_edited_header_is_this_tournament_or_refused_and_the_file_left_as_it_was(data: st.DataObject) -> None:
    _, header = data.draw(one_value_changed({"format": FORMAT, "version": VERSION, "tournament": TOURNAMENT}, JUNK))
    content = (json.dumps(header) + "\n" + json.dumps(game_line(SCHEDULE[0])) + "\n").encode()
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "games.jsonl"
        path.write_bytes(content)
        got = opened(path)
        assert path.read_bytes() == content
    if not isinstance(got, SavedGamesError):  # a value changed to one equal to it (1.0 for 1), or games to 1
        # Games 1 of two players is played as one whole deal, this tournament's 2 (and a file of fewer games is one a
        # longer run goes on from): nothing else edited is this tournament.
        rest = {k: v for k, v in header["tournament"].items() if k != "games"}
        assert rest == {k: v for k, v in TOURNAMENT.items() if k != "games"} and header["version"] == VERSION
        assert header["tournament"]["games"] in (1, 2) and type(header["tournament"]["games"]) is not bool
        assert got.get(SCHEDULE[0]) == game_line(SCHEDULE[0])


@pytest.mark.parametrize("games,taken", [(1, True), (2, True), (0, False), (-2, False), (True, False), (3, False), ("2", False)])
def test_a_header_of_fewer_games_is_gone_on_from_and_one_of_junk_or_more_games_refused(games: Any, taken: bool) -> None:
    """This run is of 2 games: a file of 1 (played as one whole deal: 2) is its own, one of more games than it plays
    is refused, and so is a count no command gives (none, below none, a flag, a text)."""
    header = {"format": FORMAT, "version": VERSION, "tournament": {**TOURNAMENT, "games": games}}
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "games.jsonl"
        path.write_text(json.dumps(header) + "\n")
        assert isinstance(opened(path), SavedGames) == taken


@FUZZ
@given(st.binary(max_size=8), st.integers(0, 400), st.sampled_from(["cut", "put"]))
def test_a_damaged_header_is_refused_and_the_file_left_as_it_was(junk: bytes, at: int, how: str) -> None:
    whole = (json.dumps({"format": FORMAT, "version": VERSION, "tournament": TOURNAMENT}) + "\n").encode()
    content = whole[:at] + junk if how == "cut" else whole[:at] + junk + whole[at:]
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "games.jsonl"
        path.write_bytes(content)
        got = opened(path)
        assert path.read_bytes() == content
    assert isinstance(got, SavedGamesError) or content.strip() == b"" or content.startswith(whole)


@FUZZ
@given(st.data())
def test_an_edited_game_line_is_played_again_and_going_on_keeps_every_line(data: st.DataObject) -> None:
    lines = [game_line(g) for g in SCHEDULE[:3]]
    changed = data.draw(st.integers(0, 2))
    _, lines[changed] = data.draw(one_value_changed(lines[changed], JUNK))
    content = "".join(json.dumps(line) + "\n" for line in [{"format": FORMAT, "version": VERSION, "tournament": TOURNAMENT}, *lines])
    if data.draw(st.booleans()):
        content = content[: -data.draw(st.integers(1, 30))]  # the last line cut short
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "games.jsonl"
        path.write_text(content)
        saved = SavedGames(path, TOURNAMENT)
        for g, line in zip(SCHEDULE, lines):
            kept = saved.get(g)
            assert kept is None or (kept == line and whole(kept)), kept  # taken whole as written, or played again
        assert saved.get(SCHEDULE[3]) is None
        for i in (0, 1):
            if i != changed and len(content) == len(content.rstrip("\n")) + 1:
                assert saved.get(SCHEDULE[i]) == game_line(SCHEDULE[i])
        saved.add(game_line(SCHEDULE[3]))
        saved.close()
        after = path.read_text()
        assert after.startswith(content)
        assert SavedGames(path, TOURNAMENT).get(SCHEDULE[3]) == game_line(SCHEDULE[3])


@pytest.mark.parametrize(
    "index", [float("inf"), float("nan"), 1.5, "1", True, None, [0]], ids=["infinity", "nan", "float", "text", "true", "null", "list"]
)
def test_a_game_line_whose_index_is_no_whole_number_is_skipped(tmp_path: Path, index: Any) -> None:
    """An index of Infinity (json reads it) raised OverflowError from int(): a traceback, going on."""
    path = tmp_path / "games.jsonl"
    line = {**game_line(SCHEDULE[1]), "index": index}
    path.write_text("".join(json.dumps(x) + "\n" for x in [{"format": FORMAT, "version": VERSION, "tournament": TOURNAMENT}, line]))
    assert SavedGames(path, TOURNAMENT).games == {}


@pytest.mark.parametrize("seats", [5, None, 1.5, True, {"0": 1}], ids=["int", "null", "float", "true", "object"])
def test_a_game_line_whose_seats_are_no_list_is_played_again(tmp_path: Path, seats: Any) -> None:
    """Seats of 5 raised TypeError from tuple(): a traceback, going on."""
    path = tmp_path / "games.jsonl"
    line = {**game_line(SCHEDULE[0]), "seats": seats}
    path.write_text("".join(json.dumps(x) + "\n" for x in [{"format": FORMAT, "version": VERSION, "tournament": TOURNAMENT}, line]))
    assert SavedGames(path, TOURNAMENT).get(SCHEDULE[0]) is None


def this_tournament(tmp_path: Path, seed: int) -> dict[str, Any]:
    """The header's tournament of ``arena tournament glory RANDOM RANDOM -n 2 --seed SEED``, its bots' files and all."""
    from referee.games.registry import game_class
    from referee.server.manifest import load_manifest
    from referee.tournament.saved import describe

    fields = {
        "game": "glory", "format": "round-robin", "games": 2, "players": 2, "seed": seed, "options": {},
        "move_time_ms": 1000, "time_bank_ms": 10000, "strike_limit": 3, "rules_version": game_class("glory").spec.rules_version,
        "sandbox": "process",
    }  # fmt: skip
    return describe(fields, [load_manifest(RANDOM)] * 2, [tmp_path])


@pytest.mark.parametrize(
    "edit,given_seed",
    [
        ({"bots": 5}, ["--seed", "3"]),  # a TypeError from len(), a traceback
        ({"bots": ["a", "b"]}, ["--seed", "3"]),  # an AttributeError
        ({"bots": 5}, []),
        ({"seed": True}, []),  # played as seed 1
        ({"seed": 10**30}, []),  # past a seed's 64 bits
        ({"seed": "[/x]"}, []),
    ],
    ids=["bots-a-number", "bots-names", "bots-a-number-no-seed", "seed-true", "seed-huge", "seed-text"],
)
def test_tournament_refuses_a_save_whose_header_was_edited_in_one_line_and_keeps_it(tmp_path: Path, edit: dict[str, Any], given_seed: list[str]) -> None:
    save = tmp_path / "games.jsonl"
    tournament = {**this_tournament(tmp_path, 3), **edit}
    content = json.dumps({"format": FORMAT, "version": VERSION, "tournament": tournament}) + "\n" + json.dumps(game_line(SCHEDULE[0])) + "\n"
    save.write_text(content)
    args = ["tournament", "glory", RANDOM, RANDOM, "-n", "2", *given_seed, "--save", str(save), "--log-dir", str(tmp_path / "logs")]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {save}"), result.output
    if "seed" in edit:
        assert f"holds the seed {edit['seed']!r}, which is no seed" in lines[0]
    assert save.read_text() == content


def test_the_header_made_here_is_the_one_a_tournament_goes_on_from(tmp_path: Path) -> None:
    """What the test above edits is this tournament's header: unedited, the command goes on from it, with its seed."""
    save = tmp_path / "games.jsonl"
    content = json.dumps({"format": FORMAT, "version": VERSION, "tournament": this_tournament(tmp_path, 3)}) + "\n"
    save.write_text(content)
    assert SavedGames(save, this_tournament(tmp_path, 3)).games == {}
    result = runner.invoke(app, ["tournament", "glory", RANDOM, RANDOM, "-n", "2", "--save", str(save), "--log-dir", str(tmp_path / "logs"), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.strip().splitlines()[-1])["seed"] == 3 and save.read_text().startswith(content)
