"""The Python and TypeScript SDKs' game helpers describe the same things the same way.

Each game's helper module exports the same names in both SDKs (snake_case in Python, camelCase in
TypeScript), read from the TypeScript sources so that no Node.js is needed; the builders take cards or
ids alike, and the helpers return the same shapes (cards, not ids, from ``purchases``).
"""

from __future__ import annotations

import importlib
import random
import re
import types
from pathlib import Path
from typing import Any, TypeVar

import pytest

from arena.v1 import cards_pb2
from arena_sdk.games import SAMPLERS
from arena_sdk.games import generals_and_assassins as ga
from arena_sdk.games import generals_war as gw
from arena_sdk.games import glory as gl
from arena_sdk.games import land_and_castle as lc
from arena_sdk.games import assassination as asn
from referee.games.registry import GAMES
from tests.support import ROOT

TS_GAMES = ROOT / "sdk" / "typescript" / "src" / "games"
MODULES = {
    "assassination": "assassination",
    "generals_and_assassins": "generalsAndAssassins",
    "generals_war": "generalsWar",
    "glory": "glory",
    "land_and_castle": "landAndCastle",
}
#: Names only one SDK has, and why.
TS_ONLY = {"Kind"}  # the union of a decision's kind names, a type; Python's Request.kind is a str
PY_ONLY = {("glory", "ids")}  # kept for bots written before ids moved to arena_sdk (TypeScript has it there only)


def snake(name: str) -> str:
    return name if name.isupper() or name[0].isupper() else re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def ts_exports(path: Path) -> set[str]:
    text = path.read_text()
    names = set(re.findall(r"^export (?:async )?function\*? (\w+)", text, re.M))
    names |= set(re.findall(r"^export (?:const|type|let) (\w+)", text, re.M))
    names |= set(re.findall(r"^export \* as (\w+)", text, re.M))
    for group in re.findall(r"^export (?:const |type )?\{([^}]*)\}", text, re.M):
        names |= {part.strip().split(" as ")[-1] for part in group.split(",") if part.strip()}
    return {snake(n) for n in names} - TS_ONLY


def py_exports(module: Any) -> set[str]:
    """What a helper module defines or re-exports on purpose: its own functions and constants, the protocol's types."""
    names = set()
    for name, obj in vars(module).items():
        if name.startswith("_") or name == "annotations" or isinstance(obj, TypeVar) or (isinstance(obj, types.ModuleType) and name != "pb"):
            continue
        home = getattr(obj, "__module__", None) if callable(obj) or isinstance(obj, type) else None
        if name == "pb" or home is None or home == module.__name__ or home.startswith("arena.v1."):
            names.add(name)
    return names - {n for m, n in PY_ONLY if module.__name__.endswith(m)}


@pytest.mark.parametrize("py,ts", sorted(MODULES.items()))
def test_each_games_helpers_have_the_same_names_in_both_sdks(py: str, ts: str) -> None:
    python = py_exports(importlib.import_module(f"arena_sdk.games.{py}"))
    typescript = ts_exports(TS_GAMES / f"{ts}.ts")
    assert python == typescript, f"only in Python: {sorted(python - typescript)}; only in TypeScript: {sorted(typescript - python)}"


def test_the_samplers_cover_every_game() -> None:
    assert set(SAMPLERS) == set(GAMES)
    assert all(sample is importlib.import_module(f"arena_sdk.games.{g.replace('-', '_')}").sample for g, sample in SAMPLERS.items())


def card(id_: int, rank: int, suit: int) -> cards_pb2.Card:
    return cards_pb2.Card(id=id_, rank=rank, suit=suit)  # type: ignore[arg-type]


def test_every_builder_takes_cards_or_ids_alike() -> None:
    a, b = card(7, 5, 1), card(9, 12, 2)
    pairs = [
        (gw.reveal([a, b]), gw.reveal([7, 9])),
        (gw.squad([a]), gw.squad([7])),
        (ga.attack(1, [a, b]), ga.attack(1, [7, 9])),
        (ga.assassinate(1, a), ga.assassinate(1, 7)),
        (ga.buy_land([a], [b]), ga.buy_land([7], [9])),
        (ga.heal(a), ga.heal(7)),
        (ga.discard([a]), ga.discard([7])),
        (ga.offer_lands({2: [a], 1: []}), ga.offer_lands({2: [7]})),
        (ga.assist(ga.ATTACKER, a), ga.assist(ga.ATTACKER, 7)),
        (ga.defend([a, b]), ga.defend([7, 9])),
        (ga.play_assassin(a), ga.play_assassin(7)),
        (gl.heal(a), gl.heal(7)),
        (gl.conquer_land(1, [a], [b]), gl.conquer_land(1, [7], [9])),
        (lc.place_castle(a), lc.place_castle(7)),
        (lc.place_general(a), lc.place_general(7)),
        (lc.swap(a), lc.swap(7)),
        (lc.attack(a, 3), lc.attack(7, 3)),
        (lc.defend(a), lc.defend(7)),
        (lc.capture(3, a), lc.capture(3, 7)),
        (asn.movement(a), asn.movement(7)),
        (asn.event(a), asn.event(7)),
    ]
    for with_cards, with_ids in pairs:
        assert with_cards == with_ids


def test_purchases_are_cards_in_the_order_of_the_typescript_sdk() -> None:
    """The same pairs as sdk/typescript/test/sdk.test.ts expects of ga.purchases, as cards."""
    coins = [card(1, 2, 2), card(2, 3, 2)]
    lands = [card(3, 2, 4), card(4, 3, 4)]
    bought = ga.purchases(coins, lands)
    assert all(isinstance(c, cards_pb2.Card) for pair in bought for side in pair for c in side)
    assert [([c.id for c in m], [c.id for c in ln]) for m, ln in bought] == [
        ([1], [3]), ([2], [3]), ([1, 2], [3]), ([2], [4]), ([1, 2], [4]), ([1, 2], [3, 4])
    ]
    assert ga.can_buy(coins, lands) and not ga.can_buy(coins[:1], lands[1:]) and not ga.can_buy([], lands)
    assert ga.can_buy(coins[:1], lands[:1]), "money worth exactly the land buys it"
    rng = random.Random(1)
    for _ in range(50):
        paid, got = ga.sample_purchase(coins, lands, rng)
        assert got and ga.total(paid) >= ga.total(got)


def test_power_takes_a_card_as_in_typescript_and_still_a_rank() -> None:
    assert gw.power(card(3, 13, 4)) == 13
    assert gw.power(13) == 13
