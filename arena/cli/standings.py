"""The standings and the crosstable of ``arena tournament`` as tables that fit the terminal.

No cell is ever folded onto a second line: at 80 columns, with counts of four digits, eleven bordered columns
left a bot's name six characters a line ("lc-heuris" over "tic"), and at 60 the names vanished and every figure
was cut to "3…". When the table is too wide, the columns a reader can do without go first (games is W + D + L, σ
follows from μ and μ−3σ), W, D and L share a column, and only then are names cut, in their middle, with the cut
ones listed in full under the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

#: A name is cut no shorter than this (in terminal cells) while a column can still be left out instead.
NAME_MIN = 16
#: Cut shorter than this, a name says too little to be worth a column: the table is let run past the terminal.
NAME_FLOOR = 5
#: The standings' figure columns, most complete first: the first whose table fits is printed.
LAYOUTS: tuple[tuple[str, ...], ...] = (
    ("μ", "σ", "μ−3σ", "W", "D", "L", "points", "avg\nrank", "games"),
    ("μ", "σ", "μ−3σ", "W", "D", "L", "points", "avg\nrank"),  # games: W + D + L
    ("μ", "μ−3σ", "W", "D", "L", "points", "avg\nrank"),  # σ: (μ − (μ−3σ)) / 3
    ("μ", "μ−3σ", "W-D-L", "points", "avg\nrank"),
    ("μ−3σ", "W-D-L", "points", "avg\nrank"),
    ("μ−3σ", "W-D-L", "points"),  # what the standings are sorted by, and the record
)


def _head(text: str, cells: int) -> str:
    """The longest start of ``text`` no wider than ``cells`` terminal cells (a wide character takes two)."""
    out = ""
    for ch in text:
        if cell_len(out + ch) > cells:
            break
        out += ch
    return out


def _tail(text: str, cells: int) -> str:
    return _head(text[::-1], cells)[::-1]


def cut_names(names: Sequence[str], width: int) -> list[str]:
    """Each name no wider than ``width`` cells: a longer one keeps its start and its end around "…" ("glory-h…sive-v2"),
    as a version or a "#2" is often at the end. Where names would then read alike, more of their ends is kept (then
    more of their starts) until they read apart, if any split does."""
    width = max(width, 2)
    long = [cell_len(name) > width for name in names]

    def cut(tail: int) -> list[str]:
        return [f"{_head(n, width - 1 - tail)}…{_tail(n, tail)}" if cut else n for n, cut in zip(names, long)]

    even = (width - 1) // 2
    for tail in [even, *range(even + 1, width - 1), *range(even - 1, -1, -1)]:
        made = cut(tail)
        if len(set(made)) == len(set(names)):
            return made
    return cut(even)


def _measured(console: Console, made: Table) -> int:
    return Measurement.get(console, console.options.update_width(10_000), made).maximum


# --- the standings --------------------------------------------------------------------------------


def _figures(r: dict[str, Any]) -> dict[str, str]:
    return {
        "μ": f"{r['mu']:.2f}",
        "σ": f"{r['sigma']:.2f}",
        "μ−3σ": f"{r['conservative']:.2f}",
        "W": str(r["wins"]),
        "D": str(r["draws"]),
        "L": str(r["losses"]),
        "W-D-L": f"{r['wins']}-{r['draws']}-{r['losses']}",
        "points": f"{round(r['points'], 2):g}",
        "avg\nrank": "–" if r["avg_rank"] is None else f"{r['avg_rank']:.2f}",
        "games": str(r["games"]),
    }


def _standings(data: dict[str, Any], layout: Sequence[str], names: Sequence[str], caption: str) -> Table:
    made = Table(title=_title(data), caption=caption)
    made.add_column("#", justify="right", no_wrap=True)
    made.add_column("bot", no_wrap=True)
    for header in layout:
        made.add_column(header, justify="right", no_wrap=True)
    for r, name in zip(data["standings"], names):
        figures = _figures(r)
        made.add_row(str(r["place"]), name, *(figures[h] for h in layout))
    return made


def _title(data: dict[str, Any]) -> str:
    return f"{data['game']} · {data['format']} · {data['players']} players · seed {data['seed']} · {data['matches']} matches"


def _caption(data: dict[str, Any], layout: Sequence[str]) -> str:
    deals = len({r["deal"] for r in data.get("results", ())})
    dealt = f" · {deals} duplicate deal{'' if deals == 1 else 's'}, each played once per seat order" if deals else ""
    caption = f"sorted by μ−3σ (TrueSkill μ and σ) · points: per game, the share of opponents beaten (a tie ½), summed{dealt}"
    shown = set(layout) | ({"W", "D", "L"} if "W-D-L" in layout else set())
    left = [h.replace("\n", " ") for h in LAYOUTS[0] if h not in shown]
    return caption + (f" · left out at this width: {', '.join(left)} (--json has every figure)" if left else "")


def standings_table(data: dict[str, Any], console: Console, width: int) -> tuple[Table, list[str]]:
    """The standings no wider than ``width`` where they can be, and the lines that give the names cut in it in full.

    The first layout (most columns first) in which every name fits whole is taken; else the first in which names
    cut to ``NAME_MIN`` cells fit, with names cut only as much as that layout needs.
    """
    rows = data["standings"]
    names = [r["bot"] for r in rows]
    longest = max((cell_len(n) for n in names), default=0)
    room: dict[tuple[str, ...], int] = {}
    for layout in LAYOUTS:  # the width the names have: the table's with every name blank, less the blank bot column
        room[layout] = width - (_measured(console, _standings(data, layout, [""] * len(rows), _caption(data, layout))) - len("bot"))
    layout = next(
        (lay for lay in LAYOUTS if room[lay] >= longest),
        next((lay for lay in LAYOUTS if room[lay] >= NAME_MIN), LAYOUTS[-1]),
    )
    shown = names if room[layout] >= longest else cut_names(names, max(room[layout], NAME_FLOOR))
    legend = [f"  {r['place']}. {name}" for r, name, cut in zip(rows, names, shown) if cut != name]
    return _standings(data, layout, shown, _caption(data, layout)), legend


def print_standings(data: dict[str, Any], console: Console) -> None:
    made, legend = standings_table(data, console, console.width)
    console.print(made)
    if legend:
        console.print("the names cut above, in full:", highlight=False)
        for line in legend:
            console.print(line, highlight=False, markup=False, soft_wrap=True)


# --- the crosstable -------------------------------------------------------------------------------


def crosstables(data: dict[str, Any], console: Console, width: int) -> tuple[list[Table], bool]:
    """The crosstable, row against column, as tables no wider than ``width`` where they can be, and whether its
    columns are numbered.

    Headed by the bots' names when that fits whole; else, as a chess crosstable, by their places in the standings
    (the rows say which bot each is), cut into as few tables of columns as it takes, as even as they can be, with
    the rows' names cut (to no fewer than ``NAME_MIN`` cells) where that saves a table: a long name took half of 80
    columns and left room for one record a table. A record is never cut: at 80 columns nine bots' names folded into
    five-letter pieces and "9-1-200" read "9-1-2" over "00".
    """
    order = [r["bot"] for r in data["standings"]]
    n = len(order)
    cells = {
        (a, b): "·" if a == b else f"{h['wins']}-{h['draws']}-{h['losses']}" if (h := data["crosstable"][a].get(b)) else ""
        for a in order
        for b in order
    }  # fmt: skip

    def table(columns: list[int], rows: Sequence[str] | None) -> Table:
        """Headed by names when ``rows`` is None, else by places, its rows named ``rows``."""
        made = Table()
        made.add_column("", no_wrap=True)
        for c in columns:
            made.add_column(order[c] if rows is None else str(c + 1), justify="center", no_wrap=True)
        for i, a in enumerate(order):
            made.add_row(a if rows is None else f"{i + 1}. {rows[i]}", *(cells[a, order[c]] for c in columns))
        return made

    everyone = list(range(n))
    met = {frozenset((a, b)) for a in order for b in order if a != b and cells[a, b]}
    hubs = [c for c in everyone if met and all(order[c] in pair for pair in met)]
    if n > 2 and hubs:  # a two-seat gauntlet: only the first bot met the others, its row the mirror of its column
        everyone = hubs[:1]  # the other columns held one record each, under a table of blanks
    if _measured(console, table(everyone, None)) <= width:
        return [table(everyone, None)], False
    longest = max((cell_len(a) for a in order), default=0)
    best: tuple[list[list[int]], int] | None = None
    for count in range(1, len(everyone) + 1):  # as few tables as fit, each of as many columns
        per = -(-len(everyone) // count)
        parts = [everyone[i : i + per] for i in range(0, len(everyone), per)]
        room = width - max(_measured(console, table(part, [""] * n)) for part in parts)  # the names' room in the rows
        if best is None or room > best[1] or room >= min(longest, NAME_MIN):
            best = (parts, room)
        if room >= min(longest, NAME_MIN):
            break
    assert best is not None
    parts, room = best
    rows = order if room >= longest else cut_names(order, max(room, NAME_FLOOR))
    return [table(part, rows) for part in parts], True


def print_crosstable(data: dict[str, Any], console: Console) -> None:
    tables, numbered = crosstables(data, console, console.width)
    column = "column (the bot of that place)" if numbered else "column"
    console.print(f"crosstable: row against {column}, wins-draws-losses", highlight=False, soft_wrap=not console.is_terminal)
    for made in tables:
        console.print(made)
