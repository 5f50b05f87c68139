"""arena tournament: the figures a bot author reads — Elo and its error bars worked by hand, the standings' order."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from arena.cli.tournament import elo_text
from referee.tournament.elo import estimate
from referee.tournament.sprt import PENTANOMIAL, TRINOMIAL
from referee.tournament.standings import GameResult, compute_standings
from tests.boxed_tables import boxed_tables
from tests.support import SAMPLE_BOTS

GREEDY = SAMPLE_BOTS / "generals_war_greedy"
RANDOM = SAMPLE_BOTS / "random"

# --- Elo, its 95% margin and the LOS, worked by hand ------------------------------------


@pytest.mark.parametrize(
    "counts,values,samples,score,elo,margin,los,said",
    [
        ([6, 4, 10], TRINOMIAL, 20, 0.6, 70.44, 147.61, 0.8475, "Elo +70 ± 148 (95%), LOS 84.8%"),
        ([1, 0, 2, 4, 1], PENTANOMIAL, 8, 0.625, 88.74, 154.95, 0.8970, "Elo +89 ± 155 (95%), LOS 89.7%"),
    ],
    ids=["games", "duplicate-pairs"],
)
def test_elo_margin_and_los_match_a_hand_computation(
    counts: list[int], values: tuple[float, ...], samples: int, score: float, elo: float, margin: float, los: float, said: str
) -> None:
    """Games: 10 wins, 4 draws, 6 losses. Score 12/20 = 0.6; per-game variance (6·0.6² + 4·0.1² + 10·0.4²)/20 = 0.19;
    standard error √(0.19/20) = 0.097468. Elo 400·log10(0.6/0.4) = 70.44. The interval 0.6 ± 1.95996·0.097468 =
    [0.40897, 0.79103] is [−63.97, +231.25] in Elo: half its width 147.61. LOS Φ(0.1/0.097468) = Φ(1.02598) = 84.75%.

    Duplicate pairs: 8 pairs scoring 0, ½, ½, ¾, ¾, ¾, ¾, 1 (the first bot's mean over each pair's two games). Score
    5/8 = 0.625; variance of a pair's score (0.625² + 2·0.125² + 4·0.125² + 0.375²)/8 = 0.078125; standard error
    √(0.078125/8) = 0.098821. Elo 400·log10(0.625/0.375) = 88.74. The interval 0.625 ± 0.193686 = [0.43131, 0.81869]
    is [−48.03, +261.87] in Elo: half its width 154.95. LOS Φ(0.125/0.098821) = Φ(1.26491) = 89.70%."""
    found = estimate(counts, values)
    assert found is not None and found.samples == samples and found.score == pytest.approx(score)
    assert found.elo == pytest.approx(elo, abs=0.01)
    assert found.margin == pytest.approx(margin, abs=0.01)
    assert found.los == pytest.approx(los, abs=1e-4)
    assert elo_text(found.elo, found.margin, found.los) == said


def test_an_interval_that_reaches_a_score_of_1_gives_no_margin() -> None:
    """3 wins and a loss: 0.75 ± 1.96·√(0.1875/4) = 0.75 ± 0.424 reaches past 1 (1.174), an infinite Elo: no "± inf" is printed.
    The LOS stands: Φ(0.25/0.2165) = Φ(1.1547) = 87.6%."""
    found = estimate([1, 0, 3], TRINOMIAL)
    assert found is not None and found.elo == pytest.approx(190.85, abs=0.01) and found.margin is None
    assert found.los == pytest.approx(0.8759, abs=1e-4)
    assert elo_text(found.elo, found.margin, found.los) == "Elo +191 (± too wide to tell), LOS 87.6%"
    low = estimate([3, 0, 1], TRINOMIAL)  # the mirror: the interval reaches below 0
    assert low is not None and low.elo == pytest.approx(-190.85, abs=0.01) and low.margin is None


# --- the standings' order ----------------------------------------------------------------


def test_standings_rank_by_the_conservative_rating_not_by_mu() -> None:
    """One lucky win (μ 29.40, σ 7.17: μ−3σ 7.88) does not outrank ten games that proved a bot average (μ 25.00, σ 2.19:
    μ−3σ 18.44), as TrueSkill leaderboards rank."""
    one_win = [GameResult((0, 1), (1, 2))]
    ten_draws = [GameResult((2, 3), (1, 1))] * 10
    st = compute_standings(4, one_win + ten_draws)
    by_bot = {r.bot: r for r in st.rows}
    assert by_bot[0].mu > by_bot[2].mu and by_bot[0].conservative < by_bot[2].conservative
    assert [r.bot for r in st.rows] == [2, 3, 0, 1]


def test_bots_level_on_rating_keep_the_order_they_were_given_in() -> None:
    assert [r.bot for r in compute_standings(3, []).rows] == [0, 1, 2]
    drawn = compute_standings(2, [GameResult((1, 0), (1, 1)), GameResult((0, 1), (1, 1))])
    assert drawn.rows[0].conservative == drawn.rows[1].conservative and [r.bot for r in drawn.rows] == [0, 1]


def test_head_to_head_points_count_a_draw_half_and_forfeits_are_the_forfeiting_bot_s_own() -> None:
    st = compute_standings(3, [GameResult((0, 1), (1, 1)), GameResult((1, 0), (1, 2)), GameResult((2, 1), (1, 2), (False, True))])
    assert (st.against(0, 1).points, st.against(1, 0).points) == (0.5, 1.5)
    assert {r.bot: r.forfeits for r in st.rows} == {0: 0, 1: 1, 2: 0}


@pytest.mark.parametrize(
    "game",
    [GameResult((0, 0), (1, 2)), GameResult((0, 1), (1,)), GameResult((0, 1, 2), (1, 2))],
    ids=["a-bot-in-two-seats", "a-rank-missing", "a-seat-without-a-rank"],
)
def test_a_game_of_one_bot_in_two_seats_or_without_a_rank_for_each_seat_is_refused(game: GameResult) -> None:
    with pytest.raises(ValueError, match="distinct bots and one rank per seat"):
        compute_standings(3, [game])


# --- what the command prints and its JSON, from a tournament of decided results ----------


def umpired(monkeypatch: pytest.MonkeyPatch, outcomes: dict[frozenset[int], list[dict[int, int]]]) -> None:
    """Matches decided without processes: the n-th game of a table gives each bot the rank ``outcomes[table][n]`` names."""
    from referee.tournament.run import PlayedGame, _Player
    from referee.tournament.schedule import ScheduledGame

    played: Counter[frozenset[int]] = Counter()

    async def umpire(_: _Player, game: ScheduledGame) -> PlayedGame:
        table = frozenset(game.seats)
        ranks = tuple(outcomes[table][played[table] % len(outcomes[table])][b] for b in game.seats)
        played[table] += 1
        return PlayedGame(game, ranks, tuple(0.0 for _ in ranks), tuple(False for _ in ranks), f"m{game.index}")

    monkeypatch.setattr(_Player, "_play", umpire)


def printed(monkeypatch: pytest.MonkeyPatch, data: dict[str, Any]) -> tuple[str, str]:
    """The standings table and the crosstable (and what follows it) as the command prints them."""
    from rich.console import Console

    import arena.cli.tournament as command

    recorded = Console(record=True, width=200)
    monkeypatch.setattr(command, "console", recorded)
    command.print_result(data, Path("logs"))
    standings, cross = recorded.export_text().split("crosstable")
    return standings, cross


def cells(table: str) -> dict[str, dict[str, str]]:
    """Each row of the one rich table in ``table`` by its bot name (the standings' "bot" column, the crosstable's
    first): its cells by their column's header."""
    (rows,) = boxed_tables(table)
    return {row["bot"] if "bot" in row else row[""]: row for row in rows}


def test_the_printed_tables_and_the_json_agree_with_the_games_played(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """gw-greedy beats random twice and draws twice with random#2; random#2 beats random once and draws once.
    Each figure is in its own column, each crosstable cell is the row's record against the column."""
    import asyncio

    from arena.cli.tournament import result_json
    from referee.tournament.run import TournamentConfig, run_tournament

    umpired(monkeypatch, {
        frozenset({0, 1}): [{0: 1, 1: 2}],
        frozenset({0, 2}): [{0: 1, 2: 1}],
        frozenset({1, 2}): [{1: 2, 2: 1}, {1: 1, 2: 1}],
    })  # fmt: skip
    config = TournamentConfig("generals-war", [GREEDY, RANDOM, RANDOM], games=2, seed=1, log_dir=tmp_path / "logs")
    data = result_json(asyncio.run(run_tournament(config)))
    rows = {r["bot"]: r for r in data["standings"]}
    assert [r["bot"] for r in data["standings"]] == ["gw-greedy", "random#2", "random"] and data["matches"] == 6
    wdl = {bot: (r["wins"], r["draws"], r["losses"], r["points"], r["games"]) for bot, r in rows.items()}
    assert wdl == {"gw-greedy": (2, 2, 0, 3.0, 4), "random#2": (1, 3, 0, 2.5, 4), "random": (0, 1, 3, 0.5, 4)}
    # random: ranks 2 and 2 against gw-greedy, 2 and 1 against random#2
    assert (rows["gw-greedy"]["avg_rank"], rows["random"]["avg_rank"]) == (1.0, 1.75)
    cross = data["crosstable"]
    assert cross["gw-greedy"]["random"] == {"wins": 2, "draws": 0, "losses": 0, "points": 2.0, "games": 2}
    assert cross["random"]["random#2"] == {"wins": 0, "draws": 1, "losses": 1, "points": 0.5, "games": 2}

    standings, crosstable = printed(monkeypatch, data)
    table = cells(standings)
    for bot, r in rows.items():
        place, mu, sigma, conservative, w, d, l, points, avg_rank, games = (
            table[bot][c] for c in ("#", "μ", "σ", "μ−3σ", "W", "D", "L", "points", "avg rank", "games")
        )
        assert (mu, sigma, conservative) == (f"{r['mu']:.2f}", f"{r['sigma']:.2f}", f"{r['conservative']:.2f}"), bot
        assert (place, w, d, l, points, avg_rank, games) == (
            str(r["place"]), str(r["wins"]), str(r["draws"]), str(r["losses"]), f"{r['points']:g}", f"{r['avg_rank']:.2f}", "4"
        ), bot
    order = ["gw-greedy", "random#2", "random"]
    assert list(boxed_tables(crosstable)[0][0])[1:] == order  # its columns, in standings order
    grid = cells(crosstable)
    assert [grid["gw-greedy"][b] for b in order] == ["·", "0-2-0", "2-0-0"]
    assert [grid["random#2"][b] for b in order] == ["0-2-0", "·", "1-1-0"]
    assert [grid["random"][b] for b in order] == ["0-0-2", "0-1-1", "·"]


def test_a_two_seat_gauntlet_s_crosstable_is_the_first_bot_s_column(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The others never meet: each of their columns held one record (the first bot's, the mirror of its own column)
    over blanks, and eight bots with long names took two tables of blanks at 80 columns."""
    import asyncio

    from arena.cli.tournament import result_json
    from referee.tournament.run import TournamentConfig, run_tournament

    umpired(monkeypatch, {frozenset({0, 1}): [{0: 1, 1: 2}], frozenset({0, 2}): [{0: 2, 2: 1}]})
    config = TournamentConfig("generals-war", [GREEDY, RANDOM, RANDOM], "gauntlet", 2, seed=1, log_dir=tmp_path / "logs")
    data = result_json(asyncio.run(run_tournament(config)))
    assert data["matches"] == 4 and set(data["crosstable"]["random"]) == {"gw-greedy"} and set(data["crosstable"]["random#2"]) == {"gw-greedy"}
    grid = cells(printed(monkeypatch, data)[1])
    assert grid == {"gw-greedy": {"": "gw-greedy", "gw-greedy": "·"}, "random": {"": "random", "gw-greedy": "0-0-2"},
                    "random#2": {"": "random#2", "gw-greedy": "2-0-0"}}  # fmt: skip


def test_a_swiss_tournament_prints_each_round_s_bye_counted_from_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from arena.cli.tournament import result_json
    from referee.tournament.run import TournamentConfig, run_tournament

    umpired(monkeypatch, {frozenset(p): [{min(p): 1, max(p): 2}] for p in ((0, 1), (0, 2), (1, 2))})  # the first given wins
    config = TournamentConfig("generals-war", [GREEDY, RANDOM, RANDOM], "swiss", 2, seed=1, log_dir=tmp_path / "logs")
    data = result_json(asyncio.run(run_tournament(config)))
    assert data["byes"] == [{"round": 0, "bots": ["random#2"]}, {"round": 1, "bots": ["random"]}]
    said = printed(monkeypatch, data)[1]
    assert "round 1: bye for random#2" in said and "round 2: bye for random" in said


def test_a_bot_that_played_no_game_shows_no_average_rank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A swiss round of three: the bot with the bye played nothing, and its average rank read 0.00, better than first."""
    import asyncio

    from arena.cli.tournament import result_json
    from referee.tournament.run import TournamentConfig, run_tournament

    umpired(monkeypatch, {frozenset(p): [{min(p): 1, max(p): 2}] for p in ((0, 1), (0, 2), (1, 2))})
    config = TournamentConfig("generals-war", [GREEDY, RANDOM, RANDOM], "swiss", 1, seed=1, log_dir=tmp_path / "logs")
    data = result_json(asyncio.run(run_tournament(config)))
    rows = {r["bot"]: r for r in data["standings"]}
    assert data["byes"] == [{"round": 0, "bots": ["random#2"]}] and rows["random#2"]["games"] == 0
    assert rows["random#2"]["avg_rank"] is None and rows["gw-greedy"]["avg_rank"] == 1.0
    assert cells(printed(monkeypatch, data)[0])["random#2"]["avg rank"] == "–"


def test_each_deal_of_a_swiss_tournament_has_a_number_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A deal number names one table's games of one round: round 2's first table had round 1's second table's number."""
    import asyncio

    from arena.cli.tournament import result_json
    from referee.tournament.run import TournamentConfig, run_tournament

    umpired(monkeypatch, {frozenset(p): [{min(p): 1, max(p): 2}] for p in itertools.combinations(range(4), 2)})
    config = TournamentConfig("generals-war", [GREEDY, RANDOM, RANDOM, GREEDY], "swiss", 3, seed=1, log_dir=tmp_path / "logs")
    results = result_json(asyncio.run(run_tournament(config)))["results"]
    deals: dict[int, list[dict[str, Any]]] = {}
    for g in results:
        deals.setdefault(g["deal"], []).append(g)
    assert len(results) == 12 and len(deals) == 6
    for games in deals.values():
        assert len(games) == 2 and len({(g["round"], g["seed"], frozenset(g["seats"])) for g in games}) == 1


def test_an_sprt_plans_the_games_its_schedule_holds() -> None:
    """The progress bar's total before the first pair: `--games 3` is two whole pairs, four games, as the note says."""
    from referee.tournament.run import TournamentConfig, planned_games, sprt_schedule

    for games in (1, 2, 3, 41):
        config = TournamentConfig("generals-war", [GREEDY, RANDOM], games=games, seed=5)
        assert planned_games(config, sprt=True) == len(sprt_schedule(5, games)) == 2 * ((games + 1) // 2)


def test_an_sprt_reports_the_first_bot_s_elo_with_its_sign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pairs won 2-0 and 1-1 by the first bot: score ¾, Elo +190.85; by pair the interval 0.75 ± 1.96·0.1768 reaches past
    1 (no margin) and the LOS is Φ(0.25/0.1768) = Φ(1.4142) = 92.1%."""
    import asyncio

    from arena.cli.tournament import result_json
    from referee.tournament.run import TournamentConfig, run_sprt
    from referee.tournament.sprt import Sprt

    umpired(monkeypatch, {frozenset({0, 1}): [{0: 1, 1: 2}, {0: 1, 1: 2}, {0: 1, 1: 2}, {0: 2, 1: 1}]})
    config = TournamentConfig("generals-war", [GREEDY, RANDOM], games=4, seed=1, log_dir=tmp_path / "logs")
    data = result_json(asyncio.run(run_sprt(config, Sprt(elo0=0, elo1=300))))
    s = data["sprt"]
    assert s["verdict"] is None and (s["wins"], s["draws"], s["losses"], s["pentanomial"]) == (3, 0, 1, [0, 0, 1, 0, 1])
    assert s["score"] == 0.75 and s["elo"] == pytest.approx(190.85, abs=0.01)
    assert s["elo_margin"] is None and s["los"] == pytest.approx(0.9214, abs=1e-4)
    said = " ".join(printed(monkeypatch, data)[1].split())
    assert "score 0.750, Elo +191 (± too wide to tell), LOS 92.1%" in said


def test_the_standings_so_far_give_each_bot_s_share_of_the_points_a_draw_counting_half() -> None:
    from arena.cli.tournament import interim_line
    from tests.support import so_far
    from referee.tournament.run import PlayedGame
    from referee.tournament.schedule import ScheduledGame

    drawn = PlayedGame(ScheduledGame(0, 0, 0, (0, 1), 1, (0, 1)), (1, 1), (0.0, 0.0), (False, False), "m0")
    won = PlayedGame(ScheduledGame(1, 0, 0, (0, 1), 1, (1, 0)), (2, 1), (0.0, 1.0), (False, False), "m1")
    line = interim_line(so_far(2, [drawn, won]), ["mine", "theirs"], 2, 4)
    assert line.startswith("after 2 of 4 games: 1. mine 1-1-0 (75%, μ−3σ ") and " · 2. theirs 0-1-1 (25%, μ−3σ " in line


def test_the_standings_so_far_number_only_the_bots_that_have_played() -> None:
    """A bot yet to play rates μ−3σ 0, above a bot that lost: the line skipped its place ("1. ... · 3. ...")."""
    from arena.cli.tournament import interim_line
    from tests.support import so_far
    from referee.tournament.run import PlayedGame
    from referee.tournament.schedule import ScheduledGame

    lost = [PlayedGame(ScheduledGame(i, i, 0, (0, 1), 1, (0, 1)), (1, 2), (1.0, 0.0), (False, False), f"m{i}") for i in range(2)]
    line = interim_line(so_far(3, lost), ["mine", "theirs", "later"], 2, 6)
    assert line.startswith("after 2 of 6 games: 1. mine 2-0-0 ") and " · 2. theirs 0-0-2 " in line, line
    assert line.endswith(" (1 yet to play)") and "later" not in line


def test_the_standings_so_far_on_a_narrow_terminal_give_a_bot_a_line() -> None:
    """On one line, eight bots' standings ran over six lines of an 80-column terminal, a name cut across two;
    into a file (no width) they stay on one line for a script."""
    from arena.cli.tournament import interim_line
    from tests.support import so_far
    from referee.tournament.run import PlayedGame
    from referee.tournament.schedule import ScheduledGame

    labels = ["monte-carlo-tree-search-bot-v2", "monte-carlo-tree-search-bot-v3", "later"]
    lost = [PlayedGame(ScheduledGame(i, i, 0, (0, 1), 1, (0, 1)), (1, 2), (1.0, 0.0), (False, False), f"m{i}") for i in range(2)]
    line = interim_line(so_far(3, lost), labels, 2, 6)
    assert interim_line(so_far(3, lost), labels, 2, 6, width=len(line)) == line  # it fits: as into a file
    lines = interim_line(so_far(3, lost), labels, 2, 6, width=60).split("\n")
    assert lines[0] == "after 2 of 6 games:" and lines[3] == "  (1 yet to play)", lines
    assert lines[1].startswith(f"  1. {labels[0]} 2-0-0 (100%, μ−3σ ") and lines[2].startswith(f"  2. {labels[1]} 0-0-2 (0%, μ−3σ ")
    assert max(len(x) for x in lines) <= 60 and line.replace(" · ", " ").split() == " ".join(lines).split()


def test_reporting_the_standings_so_far_rates_each_game_once_not_every_game_at_every_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--report-every rated every game so far again at each report, in the event loop the matches run on: at 6 seats
    (2.5 ms a rating) a long tournament reporting every few games spent seconds per report, charged to the bots'
    clocks. Each game is now rated once as it comes (and once more for the final standings)."""
    from typer.testing import CliRunner

    import ladder.ratings as ratings
    import referee.tournament.standings as standings
    from arena.cli.main import app

    umpired(monkeypatch, {frozenset({0, 1}): [{0: 1, 1: 2}, {0: 2, 1: 1}, {0: 1, 1: 1}], frozenset({0, 2}): [{0: 1, 2: 2}],
                          frozenset({1, 2}): [{1: 2, 2: 1}]})  # fmt: skip
    rated = [0]

    def counted(skills: Any, ranks: Any) -> Any:
        rated[0] += 1
        return ratings.update(skills, ranks)

    monkeypatch.setattr(standings, "update", counted)
    bots = [str(GREEDY), str(RANDOM), str(RANDOM)]
    args = ["tournament", "generals-war", *bots, "-n", "20", "--seed", "1", "--report-every", "1", "--log-dir", str(tmp_path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    reports = [line for line in result.output.splitlines() if line.startswith("after ")]
    assert len(reports) == 59 and reports[-1].startswith("after 59 of 60 games: 1. gw-greedy 27-6-7 "), reports[-1]
    assert rated[0] <= 2 * 60, f"{rated[0]} ratings for 60 games"


def test_a_crosstable_too_wide_for_80_columns_is_numbered_and_cut_never_a_record(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nine bots at 80 columns: names folded into five-letter pieces and records cut, "9-1-200" read "9-1-2" over
    "00". The columns are now numbered by place and the crosstable cut into tables that fit, each record whole."""
    from rich.console import Console

    import arena.cli.tournament as command

    names = ["glory-heuristic-a", "glory-heuristic-b", "ts-glory-a", "ts-glory-b", "ts-random-b", "ts-random-a", "random-a", "random-b", "cpp-random"]
    record = {(a, b): (100 + 7 * i + j, j % 3, 200 - i - j) for i, a in enumerate(names) for j, b in enumerate(names)}
    cross = {a: {b: dict(zip(("wins", "draws", "losses"), record[a, b])) for b in names if b != a} for a in names}
    recorded = Console(record=True, width=80)
    monkeypatch.setattr(command, "console", recorded)
    row = {"mu": 25.0, "sigma": 1.0, "conservative": 22.0, "wins": 1, "draws": 0, "losses": 1, "points": 1.0, "avg_rank": 1.5, "games": 2, "forfeits": 0}
    standings = [{"place": i + 1, "bot": n, **row} for i, n in enumerate(names)]
    command.print_result({"game": "glory", "format": "round-robin", "players": 6, "seed": 3, "matches": 504, "standings": standings,
                          "crosstable": cross}, Path("logs"))  # fmt: skip
    text = recorded.export_text()
    text = text[text.index("crosstable: ") :]
    assert text.startswith("crosstable: row against column (the bot of that place), wins-draws-losses\n")
    assert max(len(line) for line in text.splitlines()) <= 80, text
    found: dict[tuple[str, str], str] = {}
    widths: list[int] = []
    for rows in boxed_tables(text):
        widths.append(len(rows[0]) - 1)
        for entry in rows:
            place, _, bot = entry[""].partition(". ")
            assert names[int(place) - 1] == bot
            found |= {(bot, names[int(c) - 1]): cell for c, cell in entry.items() if c}  # columns headed by places
    assert found == {(a, b): "·" if a == b else "{}-{}-{}".format(*record[a, b]) for a in names for b in names}
    assert max(widths) - min(widths) <= 1, f"columns per table: {widths}"  # 4, 4 and 1 left a table of one column


def test_the_standings_say_what_they_are_sorted_by_and_how_many_duplicate_deals_were_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table showed μ, σ, μ−3σ and points unexplained, and nothing of the duplicate deals the games came in."""
    import asyncio

    from arena.cli.tournament import result_json
    from referee.tournament.run import TournamentConfig, run_tournament

    umpired(monkeypatch, {frozenset({0, 1}): [{0: 1, 1: 2}], frozenset({0, 2}): [{0: 1, 2: 1}], frozenset({1, 2}): [{1: 2, 2: 1}]})
    config = TournamentConfig("generals-war", [GREEDY, RANDOM, RANDOM], games=4, seed=1, log_dir=tmp_path / "logs")
    standings, _ = printed(monkeypatch, result_json(asyncio.run(run_tournament(config))))
    said = " ".join(standings.split())
    assert "sorted by μ−3σ (TrueSkill μ and σ) · points: per game, the share of opponents beaten (a tie ½), summed" in said
    assert "· 6 duplicate deals, each played once per seat order" in said  # three pairs of bots, two deals each


def test_an_sprt_prints_its_verdict_llr_bounds_and_counts_as_worked_by_hand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Five pairs of the first bot: a draw and a loss, won 2-0 twice, a win and a draw twice (the loss first: without
    one, 6-2-0 already crossed the upper bound): by game 6-3-1, by pair [0, 1, 0, 2, 2]. Trinomial, H0 0 and H1 the Elo of ¾: under s1 = ¾ (the sample's mean) p1 = (0.1, 0.3, 0.6),
    under s0 = ½ λ = 10/7 and p0 = (0.35, 0.3, 0.35), so LLR = log(2/7) + 6·log(12/7) = 1.98122, inside Wald's bounds
    ±log 19 = ±2.94444 (α = β = 0.05): inconclusive at the limit of 10 games. Score 0.75, Elo +190.85; per-game
    variance (9·0.25² + 0.75²)/10 = 0.1125, error √(0.1125/10) = 0.106066, the interval 0.75 ± 0.207887 = [0.54211,
    0.95789] is [+29.33, +542.75] in Elo: ± 256.71; LOS Φ(0.25/0.106066) = Φ(2.35702) = 99.08%."""
    import asyncio
    import math

    from arena.cli.tournament import result_json
    from referee.tournament.run import TournamentConfig, run_sprt
    from referee.tournament.sprt import Sprt

    first, second = {0: 1, 1: 2}, {0: 2, 1: 1}
    draw = {0: 1, 1: 1}
    games = [draw, second, first, first, first, first, first, draw, first, draw]  # in schedule order, two a pair
    umpired(monkeypatch, {frozenset({0, 1}): games})
    config = TournamentConfig("generals-war", [GREEDY, RANDOM], games=10, seed=1, log_dir=tmp_path / "logs")
    data = result_json(asyncio.run(run_sprt(config, Sprt(elo0=0, elo1=400 * math.log10(3), model="trinomial"))))
    s = data["sprt"]
    assert s["verdict"] is None and (s["games"], s["pairs"]) == (10, 5)
    assert (s["wins"], s["draws"], s["losses"], s["pentanomial"]) == (6, 3, 1, [0, 1, 0, 2, 2])
    assert s["llr"] == pytest.approx(1.98122, abs=1e-5) and (s["lower"], s["upper"]) == pytest.approx((-2.94444, 2.94444), abs=1e-5)
    assert s["elo"] == pytest.approx(190.85, abs=0.01) and s["elo_margin"] == pytest.approx(256.71, abs=0.01)
    assert s["los"] == pytest.approx(0.9908, abs=1e-4)
    said = " ".join(printed(monkeypatch, data)[1].split())
    assert "gw-greedy vs random" not in said  # an SPRT says it once, in its own lines
    for line in (
        "SPRT (trinomial, elo0=0, elo1=190.849, α=0.05, β=0.05): inconclusive: the game limit came first",
        "LLR +1.981, bounds [-2.944, +2.944]",
        "games 10 (5 pairs), W-D-L 6-3-1",
        "pairs scoring 0, ¼, ½, ¾, 1: [0, 1, 0, 2, 2]",
        "score 0.750, Elo +191 ± 257 (95%), LOS 99.1%",
    ):
        assert line in said, line
