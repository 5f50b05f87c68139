"""arena tournament's tables at 60, 80 and 120 columns: long bot names and counts of four and five digits, and no
cell folded onto a second line or cut to "…"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.console import Console

from arena.cli.standings import NAME_MIN, cut_names
from tests.boxed_tables import boxed_tables, column

#: Sample bots' names, 30-character ones, one of the 64 a manifest allows, names in wide characters, and a repeat.
NAMES = [
    "glory-heuristic",
    "lc-heuristic",
    "ts-generals-and-assassins",
    "monte-carlo-tree-search-bot-v2",
    "monte-carlo-tree-search-bot-v3",
    "a" * 60 + "-end",
    "慎重な戦略家ボット",
    "慎重な戦略家ボット-改良版",
    "ts-generals-and-assassins#2",
]


def event(names: list[str], scale: int) -> dict[str, Any]:
    """A finished tournament's JSON (as `result_json` makes it) whose counts run to ``scale`` and more."""
    n = len(names)
    standings = []
    for i, name in enumerate(names):
        wins, draws = scale * (n - i) + 7 * i, i % 3
        losses = scale * (i + 1) + 3
        standings.append({
            "place": i + 1, "bot": name, "mu": 30.0 - i, "sigma": 0.85, "conservative": 27.45 - i, "wins": wins, "draws": draws,
            "losses": losses, "points": wins + draws / 2, "avg_rank": 1.25 + i / 10, "games": wins + draws + losses, "forfeits": 0,
        })  # fmt: skip
    cross = {a: {b: {"wins": scale + 11 * i, "draws": j, "losses": scale // 2 + j} for j, b in enumerate(names) if b != a} for i, a in enumerate(names)}
    return {"game": "glory", "format": "round-robin", "players": 3, "seed": 7, "matches": 9 * scale, "standings": standings, "crosstable": cross}


def printed(monkeypatch: pytest.MonkeyPatch, data: dict[str, Any], width: int, terminal: bool = False) -> str:
    """What ``print_result`` prints at ``width`` columns, to a terminal or (as under pytest) into a file."""
    import arena.cli.tournament as command

    recorded = Console(record=True, width=width, force_terminal=terminal)
    monkeypatch.setattr(command, "console", recorded)
    command.print_result(data, Path("logs"))
    return recorded.export_text()


def widest(text: str) -> int:
    """The widest line in terminal cells but the list of names in full ("  6. aaaa…"): a name is never broken."""
    return max(cell_len(line) for line in text.splitlines() if not (line.startswith("  ") and line.partition(". ")[2] in NAMES))


@pytest.mark.parametrize("width", [60, 80, 120])
@pytest.mark.parametrize("scale", [1000, 10000], ids=["4 digits", "5 digits"])
def test_the_standings_fit_with_long_names_and_big_counts_and_every_name_is_somewhere_in_full(
    monkeypatch: pytest.MonkeyPatch, width: int, scale: int
) -> None:
    """At 80 columns, counts of four digits left a name six characters a line ("lc-heuris" over "tic"); at 60 the
    names vanished and every figure read "3…". Now each bot has one line, every figure the table keeps is whole,
    a name cut to fit is cut in its middle and given in full under the table, and no line is wider than the terminal."""
    data = event(NAMES, scale)
    text = printed(monkeypatch, data, width, terminal=True)
    assert widest(text) <= width, text
    standings = boxed_tables(text)[0]
    assert len(standings) == len(NAMES), "a row folded onto a second line"
    assert column(standings, "#") == [str(i) for i in range(1, len(NAMES) + 1)]
    shown = column(standings, "bot")
    assert len(set(shown)) == len(NAMES), shown
    cut = [name for name, said in zip(NAMES, shown) if said != name]
    for name, said in zip(NAMES, shown):
        if said != name:  # cut in the middle: its start, "…", its end
            head, _, tail = said.partition("…")
            assert name.startswith(head) and name.endswith(tail) and head and tail, (name, said)
    legend = text.partition("the names cut above, in full:\n")[2].partition("crosstable")[0]
    assert [line.strip() for line in legend.splitlines()] == [f"{NAMES.index(n) + 1}. {n}" for n in cut]
    rows = data["standings"]
    assert column(standings, "μ−3σ") == [f"{r['conservative']:.2f}" for r in rows]  # what they are sorted by, always
    assert column(standings, "points") == [f"{round(r['points'], 2):g}" for r in rows]
    record = [f"{r['wins']}-{r['draws']}-{r['losses']}" for r in rows]
    if "W-D-L" in standings[0]:
        assert column(standings, "W-D-L") == record
    else:
        assert ["-".join(row[c] for c in "WDL") for row in standings] == record
    left = [c for c in ("μ", "σ", "avg rank", "games") if c not in standings[0]]
    said = " ".join(text.split())
    assert (f"left out at this width: {', '.join(left)} (--json has every figure)" in said) == bool(left)


def test_at_120_columns_the_standings_keep_every_column_and_name_when_those_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing is left out nor cut where the table fits whole."""
    names = NAMES[:4]
    text = printed(monkeypatch, event(names, 1000), 120)
    standings = boxed_tables(text)[0]
    assert list(standings[0]) == ["#", "bot", "μ", "σ", "μ−3σ", "W", "D", "L", "points", "avg rank", "games"]
    assert column(standings, "bot") == names and "cut above" not in text and "left out" not in text


@pytest.mark.parametrize("width", [60, 80, 120])
def test_the_crosstable_cuts_long_row_names_rather_than_print_a_table_per_column(monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    """A 64-character name took most of 80 columns for the rows' names and left room for one or two records a
    table: nine tables of one column at 60. Its rows' names are cut (no shorter than NAME_MIN) where that saves
    a table; every record stays whole and every row on one line."""
    data = event(NAMES, 1000)
    text = printed(monkeypatch, data, width, terminal=True)
    cross = text[text.index("crosstable: ") :]
    assert max(cell_len(line) for line in cross.splitlines()) <= width, cross
    tables = boxed_tables(cross)
    assert len(tables) <= {60: 5, 80: 3, 120: 2}[width], f"{len(tables)} tables"
    for rows in tables:
        assert len(rows) == len(NAMES), "a row folded onto a second line"
        for i, row in enumerate(rows):
            place, _, name = row[""].partition(". ")
            assert place == str(i + 1) and (name == NAMES[i] or cell_len(name) >= min(NAME_MIN, cell_len(NAMES[i]))), name
            for c, cell in row.items():
                if c and c != place:
                    h = data["crosstable"][NAMES[i]][NAMES[int(c) - 1]]
                    assert cell == f"{h['wins']}-{h['draws']}-{h['losses']}"


def test_cut_names_stay_apart_and_fit_in_terminal_cells() -> None:
    """Cut from the end alone, "monte-carlo-tree-search-bot-v2" and "-v3" both read "monte-carlo-tre…"; a wide
    character takes two cells of the terminal."""
    names = ["monte-carlo-tree-search-bot-v2", "monte-carlo-tree-search-bot-v3", "short", "慎重な戦略家ボット-改良版", "ts-generals-and-assassins#2", "ts-generals-and-assassins"]
    cut = cut_names(names, 12)
    assert len(set(cut)) == len(names) and cut[2] == "short"
    assert all(cell_len(c) <= 12 for c in cut), cut
    assert cut[0].endswith("v2") and cut[1].endswith("v3") and cut[4].endswith("#2"), cut
    assert cut_names(["abcdefghij-1", "abcdefghij-2"], 12) == ["abcdefghij-1", "abcdefghij-2"]  # fits: untouched
    # names alike but in their middle: a split that keeps them apart is found when one exists
    assert len(set(cut_names(["abc-xxxxxxxx-1-yyy", "abc-xxxxxxxx-2-yyy"], 10))) == 2


def two_bots(sprt: bool) -> dict[str, Any]:
    """A match of two long-named bots with its head-to-head line, or its SPRT, and a swiss round's bye."""
    data = event([NAMES[3], NAMES[5]], 1000)
    data["byes"] = [{"round": 0, "bots": [NAMES[3], NAMES[5]]}]
    if sprt:
        data["sprt"] = {"verdict": "H1", "summary": f"H1 accepted: {NAMES[3]} is stronger than {NAMES[5]}", "llr": 2.9512, "lower": -2.944,
                        "upper": 2.944, "elo0": 0.0, "elo1": 50.0, "alpha": 0.05, "beta": 0.05, "model": "pentanomial", "games": 2000,
                        "pairs": 1000, "wins": 1100, "draws": 30, "losses": 870, "pentanomial": [100, 200, 300, 250, 150], "score": 0.5575,
                        "elo": 40.2, "elo_margin": 12.3, "los": 0.999}  # fmt: skip
    else:
        data["head_to_head"] = {"bot": NAMES[3], "opponent": NAMES[5], "counted_by": "pair", "samples": 1000, "score": 0.5575,
                                "elo": 40.2, "elo_margin": 12.3, "los": 0.999}  # fmt: skip
    return data


@pytest.mark.parametrize("sprt", [False, True], ids=["head-to-head", "sprt"])
def test_into_a_file_each_line_under_the_tables_is_whole(monkeypatch: pytest.MonkeyPatch, sprt: bool) -> None:
    """Piped, rich still wrapped every line at 80 columns (or COLUMNS): an SPRT's LLR, bounds, games and score ran
    over three lines cut anywhere, a head-to-head with long names over two; a script reading the file found halves."""
    text = printed(monkeypatch, two_bots(sprt), 60)
    lines = text.splitlines()
    assert f"round 1: bye for {NAMES[3]}, {NAMES[5]}" in lines
    assert "crosstable: row against column (the bot of that place), wins-draws-losses" in lines
    if sprt:
        at = lines.index("SPRT (pentanomial, elo0=0, elo1=50, α=0.05, β=0.05): " f"H1 accepted: {NAMES[3]} is stronger than {NAMES[5]}")
        assert lines[at + 1 : at + 5] == [
            "LLR +2.951, bounds [-2.944, +2.944]",
            "games 2000 (1000 pairs), W-D-L 1100-30-870",
            "pairs scoring 0, ¼, ½, ¾, 1: [100, 200, 300, 250, 150]",
            "score 0.557, Elo +40 ± 12 (95%), LOS 99.9%",
        ]  # fmt: skip
    else:
        assert f"{NAMES[3]} vs {NAMES[5]}: score 55.8% over 1000 duplicate pairs, Elo +40 ± 12 (95%), LOS 99.9%" in lines


@pytest.mark.parametrize("sprt", [False, True], ids=["head-to-head", "sprt"])
def test_on_a_terminal_the_lines_under_the_tables_wrap_at_words_to_its_width(monkeypatch: pytest.MonkeyPatch, sprt: bool) -> None:
    """On a terminal rich wraps them between words, which reads better than the terminal's own cut."""
    text = printed(monkeypatch, two_bots(sprt), 60, terminal=True)
    assert widest(text) <= 60, text
    said = "".join(text.split())  # a name wider than the terminal is folded
    assert ("LLR+2.951,bounds[-2.944,+2.944]" in said) == sprt and (f"{NAMES[3]}vs{NAMES[5]}:score55.8%" in said) != sprt


@pytest.mark.parametrize("width", [60, 80, 120])
def test_the_progress_bar_never_cuts_its_counts_nor_its_times(width: int) -> None:
    """Rich cut every column alike when the line was too long: at 80 columns an SPRT of 100,000 games read
    "12345/1000…", at 60 "12…" and "0:0…". The bar gives way first, then the game's name; the LLR stays."""
    from arena.cli.tournament import fitted, progress_bar

    recorded = Console(record=True, width=width, force_terminal=True)
    progress, bar = progress_bar(recorded, disable=False)
    task = progress.add_task(fitted(bar, "sprt · Generals & Assassins", "  LLR +1.23", 100000, width), total=100000)
    progress.update(task, completed=12345)
    recorded.print(progress.get_renderable())
    (line,) = recorded.export_text().splitlines()
    assert cell_len(line) <= width and "…" not in line.partition("LLR")[2], line
    assert line.endswith("  LLR +1.23 " + line.partition("LLR +1.23 ")[2]) and " 12345/100000 0:00:00 -:--:--" in line, line
    assert ("sprt · Generals & Assassins  LLR" in line) == (width >= 80)
