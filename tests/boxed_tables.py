"""Reading the tables `arena tournament` prints (rich's boxes) by their column headers, not by position: a column
left out or merged at a narrow terminal then fails a test by its name rather than reading its neighbour's figures."""

from __future__ import annotations


def boxed_tables(text: str) -> list[list[dict[str, str]]]:
    """Every boxed table in ``text``, in order: each a list of its rows, each row ``{header: cell}``.

    A header of two lines ("avg" over "rank") is read as one ("avg rank"). Each line of a table's body is a row of
    its own: a cell folded onto a second line shows as a row more (with blank cells), which a test counting rows sees.
    """
    tables: list[list[dict[str, str]]] = []
    headers: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("┏"):  # a table's top: its header lines follow
            headers = []
            tables.append([])
        elif line.startswith("┃") and tables:
            parts = [part.strip() for part in line.split("┃")[1:-1]]
            headers = [" ".join(filter(None, pair)) for pair in zip(headers, parts)] if headers else parts
        elif line.startswith("│") and tables:
            parts = [part.strip() for part in line.split("│")[1:-1]]
            assert len(parts) == len(headers), f"a row of {len(parts)} cells under {len(headers)} headers: {line}"
            tables[-1].append(dict(zip(headers, parts)))
    return tables


def column(rows: list[dict[str, str]], header: str) -> list[str]:
    """The cells under ``header``, top to bottom (a KeyError names a column the table lacks)."""
    return [row[header] for row in rows]
