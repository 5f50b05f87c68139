"""Both SDKs' Land & Castle arithmetic is the referee's: card values, stacking, links, battle totals, who wins a battle.

A bot that plans with ``total`` and ``defender_wins`` (as the heuristic sample bots do) must reckon as the
referee does, ties and face cards included. Every card and pair of cards of the deck is checked, and
thousands of battles drawn at random with small totals, so that ties come often.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from arena.v1 import cards_pb2
from arena_sdk.games import land_and_castle as lc
from referee.core.cards import full_deck, rank_of, suit_of
from referee.games.land_and_castle import rules
from referee.games.land_and_castle.types import BattleSide
from tests.test_sdk_clients import LANGS
from tests.test_typescript import NODE, SDK, node

DECK = full_deck()

#: The TypeScript side: reads the cases as JSON on stdin, writes its answers as JSON.
TS_CHECK = """
import { readFileSync } from "node:fs";
import { landAndCastle as lc } from "arena-sdk";
const cases = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify({
  singles: cases.singles.map((c: any) => [lc.isFace(c), lc.armyValue(c), lc.landValue(c), lc.castleSuit(c)]),
  pairs: cases.pairs.map(([a, b]: any) => [lc.stacks(a, b), lc.linked(a, b)]),
  totals: cases.totals.map(([army, land, general, castle, attacking]: any) => lc.total(army, land, general, castle, attacking)),
  battles: cases.battles.map(([army, total, defender, defence]: any) => lc.defenderWins(army, total, defender, defence)),
}));
"""


def cases() -> dict[str, list[Any]]:
    """Cards as ids: every card, every pair, and battles drawn at random (a face-down land, no general, no castle among them)."""
    rng = random.Random(7)

    def maybe() -> int | None:
        return rng.choice([None, *DECK])

    return {
        "singles": DECK,
        "pairs": [[a, b] for a in DECK for b in DECK],
        "totals": [[rng.choice(DECK), maybe(), maybe(), maybe(), rng.random() < 0.5] for _ in range(3000)],
        "battles": [[rng.choice(DECK), rng.randint(0, 4), rng.choice(DECK), rng.randint(0, 4)] for _ in range(3000)],
    }


def expected(c: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """What the referee's rules say of each case."""

    def total(army: int, land: int | None, general: int | None, castle: int | None, attacking: bool) -> int:
        side = rules.battle_side(0, army, army if land is None else land, general, castle, attacking)
        return side.total - (side.land_bonus if land is None else 0)  # a face-down land adds nothing

    def defender_wins(army: int, total: int, defender: int, defence: int) -> bool:
        attacker_side = BattleSide(0, army, total, 0, 0, 0, total)
        return rules.battle_winner(attacker_side, BattleSide(1, defender, defence, 0, 0, 0, defence))[0] == 1

    return {
        "singles": [[rules.is_face(c), rules.army_value(c), rules.land_value(c), rules.castle_suit(c)] for c in c["singles"]],
        "pairs": [[rules.stacks(a, b), rules.linked(a, b)] for a, b in c["pairs"]],
        "totals": [total(*t) for t in c["totals"]],
        "battles": [defender_wins(*b) for b in c["battles"]],
    }


def card(c: int | None) -> dict[str, int] | None:
    return None if c is None else {"id": c, "rank": int(rank_of(c)), "suit": int(suit_of(c))}


def with_cards(c: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """The cases with each card id (in the places that hold cards) as a card: id, rank and suit."""
    return {
        "singles": [card(x) for x in c["singles"]],
        "pairs": [[card(a), card(b)] for a, b in c["pairs"]],
        "totals": [[card(a), card(land), card(g), card(castle), attacking] for a, land, g, castle, attacking in c["totals"]],
        "battles": [[card(a), total, card(d), defence] for a, total, d, defence in c["battles"]],
    }


def python_answers(c: dict[str, list[Any]]) -> dict[str, list[Any]]:
    def pb(x: dict[str, int] | None) -> cards_pb2.Card | None:
        return None if x is None else cards_pb2.Card(**x)  # type: ignore[arg-type]

    return {
        "singles": [[lc.is_face(pb(x)), lc.army_value(pb(x)), lc.land_value(pb(x)), lc.castle_suit(pb(x))] for x in c["singles"]],
        "pairs": [[lc.stacks(pb(a), pb(b)), lc.linked(pb(a), pb(b))] for a, b in c["pairs"]],
        "totals": [lc.total(pb(a), pb(land), pb(g), pb(castle), attacking) for a, land, g, castle, attacking in c["totals"]],
        "battles": [lc.defender_wins(pb(a), total, pb(d), defence) for a, total, d, defence in c["battles"]],
    }


def typescript_answers(c: dict[str, list[Any]], tmp_path: Path) -> dict[str, list[Any]]:
    (tmp_path / "check.ts").write_text(TS_CHECK)
    built = node(SDK / "scripts" / "bundle.mjs", "--no-check", "--outdir", tmp_path / "dist", tmp_path / "check.ts")
    assert built.returncode == 0, built.stdout + built.stderr
    assert NODE is not None
    ran = subprocess.run([NODE, str(tmp_path / "dist" / "check.js")], input=json.dumps(c), capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    answers: dict[str, list[Any]] = json.loads(ran.stdout)
    return answers


@pytest.mark.parametrize("lang", LANGS)
def test_the_sdks_reckon_land_and_castle_as_the_referee_does(lang: str, tmp_path: Path) -> None:
    ids = cases()
    want = expected(ids)
    got = python_answers(with_cards(ids)) if lang == "python" else typescript_answers(with_cards(ids), tmp_path)
    for part, answers in want.items():
        wrong = [(case, answer, got[part][i]) for i, (case, answer) in enumerate(zip(ids[part], answers)) if got[part][i] != answer]
        assert len(got[part]) == len(answers) and not wrong, f"{part}: {len(wrong)} wrong, such as (case, referee, sdk) {wrong[:3]}"
