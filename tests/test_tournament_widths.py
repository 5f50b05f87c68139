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


def printed(monkeypatch: pytest.MonkeyPatch, data: dict[str, Any], width: int) -> str:
    import arena.cli.tournament as command

    recorded = Console(record=True, width=width)
    monkeypatch.setattr(command, "console", recorded)
    command.print_result(data, Path("logs"))
    return recorded.export_text()


@pytest.mark.parametrize("width", [60, 80, 120])
@pytest.mark.parametrize("scale", [1000, 10000], ids=["4 digits", "5 digits"])
def test_the_standings_fit_with_long_names_and_big_counts_and_every_name_is_somewhere_in_full(
    monkeypatch: pytest.MonkeyPatch, width: int, scale: int
) -> None:
    """At 80 columns, counts of four digits left a name six characters a line ("lc-heuris" over "tic"); at 60 the
    names vanished and every figure read "3…". Now each bot has one line, every figure the table keeps is whole,
    a name cut to fit is cut in its middle and given in full under the table, and no line is wider than the terminal."""
    data = event(NAMES, scale)
    text = printed(monkeypatch, data, width)
    whole = {f"  {i}. {name}" for i, name in enumerate(NAMES, 1)}  # a name given in full is never broken, as wide as it is
    assert max(cell_len(line) for line in text.splitlines() if line not in whole) <= width, text
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
    text = printed(monkeypatch, data, width)
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
