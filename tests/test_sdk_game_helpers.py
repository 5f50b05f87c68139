"""Both SDKs' game helpers reckon as the referee does: card values and kinds, Land & Castle's battles, the palace's ways.

A bot that plans with the helpers (``total`` and ``defender_wins``, ``value``, ``distance``, as the heuristic
sample bots do) must reckon as the referee does, ties and face cards included. Every card and pair of cards
of the deck is checked, thousands of Land & Castle battles drawn at random with small totals (so that ties
come often), and every room and way of Assassination's board.
"""

from __future__ import annotations

import inspect
import json
import random
from collections import deque
import subprocess
from pathlib import Path
from typing import Any

import pytest

from arena.v1 import cards_pb2
from arena_sdk.games import assassination as asn
from arena_sdk.games import generals_and_assassins as ga
from arena_sdk.games import generals_war as gw
from arena_sdk.games import glory as gl
from arena_sdk.games import land_and_castle as lc
from referee.core.cards import full_deck, rank_of, suit_of
from referee.games.assassination import board, deck
from referee.games.assassination.types import Direction, Room
from referee.games.generals_and_assassins import roles
from referee.games.glory import values
from referee.games.land_and_castle import rules
from referee.games.land_and_castle.types import BattleSide
from tests.test_sdk_clients import LANGS
from tests.test_typescript import NODE, SDK, node

DECK = full_deck()
JOKERS = full_deck(jokers=True)
ROOMS = [int(r) for r in Room]
DIRECTIONS = [int(d) for d in Direction]

#: The TypeScript side of the Land & Castle test: reads the cases as JSON on stdin, writes its answers as JSON.
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


def typescript_answers(c: dict[str, list[Any]], tmp_path: Path, script: str = TS_CHECK) -> dict[str, list[Any]]:
    """What ``script``, bundled with the SDK, writes for the cases ``c``."""
    (tmp_path / "check.ts").write_text(script)
    built = node(SDK / "scripts" / "bundle.mjs", "--no-check", "--outdir", tmp_path / "dist", tmp_path / "check.ts")
    assert built.returncode == 0, built.stdout + built.stderr
    assert NODE is not None
    ran = subprocess.run([NODE, str(tmp_path / "dist" / "check.js")], input=json.dumps(c), capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    answers: dict[str, list[Any]] = json.loads(ran.stdout)
    return answers


def assert_agree(ids: dict[str, list[Any]], want: dict[str, list[Any]], got: dict[str, list[Any]]) -> None:
    for part, answers in want.items():
        wrong = [(case, answer, got[part][i]) for i, (case, answer) in enumerate(zip(ids[part], answers)) if got[part][i] != answer]
        assert len(got[part]) == len(answers) and not wrong, f"{part}: {len(wrong)} wrong, such as (case, referee, sdk) {wrong[:3]}"


@pytest.mark.parametrize("lang", LANGS)
def test_the_sdks_reckon_land_and_castle_as_the_referee_does(lang: str, tmp_path: Path) -> None:
    ids = cases()
    got = python_answers(with_cards(ids)) if lang == "python" else typescript_answers(with_cards(ids), tmp_path)
    assert_agree(ids, expected(ids), got)


# --- Glory, Generals & Assassins, Assassination -------------------------------------------------

TS_OTHERS = """
import { readFileSync } from "node:fs";
import { assassination as asn, generalsAndAssassins as ga, glory as gl } from "arena-sdk";
const cases = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify({
  glory: cases.glory.map((c: any) => [gl.value(c), gl.isGeneral(c), gl.isSoldier(c), gl.isLand(c), gl.isMoney(c), gl.isHealth(c), gl.isAssassin(c)]),
  half_up: cases.half_up.map((v: number) => gl.halfUp(v)),
  ga: cases.ga.map((c: any) => [ga.value(c), ga.isGeneral(c), ga.isFighter(c), ga.isAce(c)]),
  steps: cases.steps.map(([room, direction]: any) => asn.step(room, direction)),
  movement: cases.movement.map((c: any) => [asn.directionOf(c), asn.isMovement(c), asn.isAction(c)]),
  ways: cases.ways.map(([start, goal]: any) => [asn.distance(start, goal), asn.firstStep(start, goal)]),
  neighbours: cases.neighbours.map(([room, direction]: any) => asn.neighbour(room, direction)),
  adjacent: cases.adjacent.map((room: number) => asn.adjacent(room)),
  colours: cases.colours.map((c: any) => asn.colourOf(c)),
  card_for: cases.card_for.map(([hand, direction]: any) => asn.cardFor(hand, direction)),
}));
"""


def board_distances(start: int) -> dict[int, int]:
    """Movement cards from ``start`` to each room it can reach, by the referee's ``step``."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        room = queue.popleft()
        for d in DIRECTIONS:
            nxt = int(board.step(Room(room), Direction(d)))
            if nxt not in dist:
                dist[nxt] = dist[room] + 1
                queue.append(nxt)
    return dist


def other_cases() -> dict[str, list[Any]]:
    """Cards as ids; ``card_for``'s hands are drawn from the movement cards of every colour."""
    rng = random.Random(7)
    movement = sorted(c for c in deck.all_cards() if deck.is_movement(c))
    return {
        "glory": JOKERS,
        "half_up": list(range(40)),
        "ga": JOKERS,
        "steps": [[r, d] for r in ROOMS for d in DIRECTIONS],
        "movement": sorted(deck.all_cards()),
        "ways": [[a, b] for a in ROOMS for b in ROOMS],
        "neighbours": [[r, d] for r in ROOMS for d in DIRECTIONS],
        "adjacent": ROOMS,
        "colours": sorted(deck.all_cards()),
        "card_for": [[rng.sample(movement, rng.randint(0, 6)), d] for _ in range(300) for d in DIRECTIONS],
    }


def other_expected(c: dict[str, list[Any]]) -> dict[str, list[Any]]:
    kinds = [values.Kind.GENERAL, values.Kind.SOLDIER, values.Kind.LAND, values.Kind.MONEY, values.Kind.HEALTH, values.Kind.ASSASSIN]
    dist = {a: board_distances(a) for a in ROOMS}
    return {
        "glory": [[values.value(x), *(values.kind(x) == k for k in kinds)] for x in c["glory"]],
        "half_up": [values.half_up(v) for v in c["half_up"]],
        "ga": [[roles.value(x), roles.is_general(x), roles.is_fighter(x), roles.is_ace(x)] for x in c["ga"]],
        "steps": [int(board.step(Room(r), Direction(d))) for r, d in c["steps"]],
        "movement": [[int(deck.direction_of(x)), deck.is_movement(x), deck.is_action(x)] for x in c["movement"]],
        "ways": [dist[a].get(b, 99) for a, b in c["ways"]],
        "neighbours": [board.neighbour(Room(r), Direction(d)) for r, d in c["neighbours"]],
        "adjacent": [list(board.adjacent(Room(r))) for r in c["adjacent"]],
        "colours": [deck.colour_of(x) for x in c["colours"]],
        "card_for": [min((x for x in hand if deck.direction_of(x) == d), default=None) for hand, d in c["card_for"]],
    }


def other_python_answers(c: dict[str, list[Any]]) -> dict[str, list[Any]]:
    def pb(x: dict[str, int]) -> cards_pb2.Card:
        return cards_pb2.Card(**x)  # type: ignore[arg-type]

    return {
        "glory": [[gl.value(pb(x)), *(f(pb(x)) for f in (gl.is_general, gl.is_soldier, gl.is_land, gl.is_money, gl.is_health, gl.is_assassin))] for x in c["glory"]],
        "half_up": [gl.half_up(v) for v in c["half_up"]],
        "ga": [[ga.value(pb(x)), ga.is_general(pb(x)), ga.is_fighter(pb(x)), ga.is_ace(pb(x))] for x in c["ga"]],
        "steps": [asn.step(r, d) for r, d in c["steps"]],
        "movement": [[asn.direction_of(pb(x)), asn.is_movement(pb(x)), asn.is_action(pb(x))] for x in c["movement"]],
        "ways": [[asn.distance(a, b), asn.first_step(a, b)] for a, b in c["ways"]],
        "neighbours": [asn.neighbour(r, d) for r, d in c["neighbours"]],
        "adjacent": [asn.adjacent(r) for r in c["adjacent"]],
        "colours": [asn.colour_of(pb(x)) for x in c["colours"]],
        "card_for": [asn.card_for([pb(x) for x in hand], d) for hand, d in c["card_for"]],
    }


@pytest.mark.parametrize("lang", LANGS)
def test_the_sdks_value_cards_and_find_ways_as_the_referee_does(lang: str, tmp_path: Path) -> None:
    """Glory's and Generals & Assassins' card values and kinds; Assassination's cards (colour, way, a hand's card for a way),
    the palace's neighbours, moves and ways round it.

    A first step is right when the referee's step in its direction leaves one card fewer to go.
    """
    ids = other_cases()
    cards = {**ids, **{part: [card(x) for x in ids[part]] for part in ("glory", "ga", "movement", "colours")}}
    cards["card_for"] = [[[card(x) for x in hand], d] for hand, d in ids["card_for"]]
    got = other_python_answers(cards) if lang == "python" else typescript_answers(cards, tmp_path, TS_OTHERS)
    ways = got.pop("ways")
    dist = {a: board_distances(a) for a in ROOMS}
    firsts = [first for (_, first) in ways]
    for (a, b), first in zip(ids["ways"], firsts):
        if a == b or b not in dist[a]:
            assert first == Direction.STAY, (a, b, first)
        else:
            assert dist[int(board.step(Room(a), Direction(first)))].get(b) == dist[a][b] - 1, (a, b, first)
    assert_agree(ids, other_expected(ids), {**got, "ways": [d for d, _ in ways]})


def slip(value: object) -> Any:
    """A value of the wrong type, as a bot's slip past the types passes it."""
    return value


@pytest.mark.parametrize(("build", "said"), [
    (lambda: gw.target(slip("1")), "target: an int expected (a seat), got the str '1'"),
    (lambda: gw.squad([slip("3"), 4]), "a card or a card id (an int) expected, got the str '3'"),
    (lambda: ga.attack(slip("1"), [3]), "target: an int expected (a seat), got the str '1'"),
    (lambda: gl.assist(slip("1"), [3]), "seat: an int expected (a seat), got the str '1'"),
    (lambda: gl.conquer_land(slip(1.0), [3]), "target: an int expected (a seat), got the float 1.0"),
    (lambda: lc.control(slip("2")), "land: an int expected (a land's position), got the str '2'"),
    (lambda: lc.defend(slip(2.0)), "a card or a card id (an int) expected, got the float 2.0"),
    (lambda: asn.allegiance(slip("false")), "bad_cop: a bool expected, got the str 'false'"),
    (lambda: asn.react(slip("yes")), "detain: a bool expected, got the str 'yes'"),
    (lambda: asn.move_president(slip(2.0)), "room: an int expected (a Room, such as HALL), got the float 2.0"),
    (lambda: asn.move_president(slip(None)), "room: an int expected (a Room, such as HALL), got the NoneType None"),
    (lambda: asn.move_president(slip("hall")), "room: an int expected (a Room, such as HALL), got the str 'hall'"),
])  # fmt: skip
def test_a_builder_refuses_a_value_of_the_wrong_type_by_its_fields_name(build: Any, said: str) -> None:
    """The str a TypeScript bot slipped past its types was sent as 0; in Python protobuf refuses it, but in words that
    name no field ("'str' object cannot be interpreted as an integer"), and a str card "has no attribute 'id'"."""
    with pytest.raises(TypeError) as refused:
        build()
    assert str(refused.value) == said


@pytest.mark.parametrize("module", [gw, gl, ga, lc, asn], ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_every_helper_of_a_game_says_in_help_what_it_does(module: Any) -> None:
    """docs/bots.md sends an author to ``help(arena_sdk.games.<game>)`` (any game's) for the helpers it does not name,
    the builders with the decision each answers: Glory's and Generals & Assassins' builders and card tests
    (``gl.thwart``, ``ga.decline``, ``gl.is_soldier``), and ``gw.target``, said nothing there."""
    helpers = [n for n, f in inspect.getmembers(module, inspect.isfunction) if f.__module__ == module.__name__ and not n.startswith("_")]
    assert len(helpers) > 3
    assert [n for n in helpers if not (getattr(module, n).__doc__ or "").strip()] == []
    builders = [n for n in helpers if n != "sample" and str(inspect.signature(getattr(module, n)).return_annotation).endswith(".Action")]
    assert builders
    choices = {d.message_type.name for d in module.pb.Decision.DESCRIPTOR.fields}
    assert [n for n in builders if not any(c in getattr(module, n).__doc__ for c in choices)] == []
