"""Both SDKs' samplers against the referee's rules: what they draw from a decision alone is legal, and reaches it all.

A bot asked for a decision whose actions the referee did not list builds one from the decision alone, as
``sample`` (Python) and ``sample`` (TypeScript) do for each game. Here games of every game and player count
are played at random with the referee's rules, in process, and at each decision each SDK's sampler is asked
again and again, from the protobuf decision as a bot receives it. Every action drawn must pass the
referee's check; and where the decision allows LIMIT actions or fewer, the draws must reach every one of
them, but for purchases that pay with a card more than needed (the samplers pay until the lands are
covered, as Glory's referee's own random action does). Generals & Assassins' ``purchases``, the list of a
turn's purchases, must be the referee's. Assassination's rarest questions are set up and asked apart.
"""

from __future__ import annotations

import base64
import dataclasses
import random
from collections.abc import Callable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

import pytest

from arena.v1 import referee_pb2 as pb
from arena_sdk.bot import Request
from arena_sdk.games import SAMPLERS
from arena_sdk.games import generals_and_assassins as ga_sdk
from arena_sdk.games.common import ids
from referee.core.game import Game
from referee.games.assassination.types import AllegianceChoice, CellChoice, SniperDetentionChoice
from referee.games.generals_and_assassins import roles
from referee.games.generals_and_assassins import types as ga
from referee.games.glory import types as gl
from referee.games.glory import values
from referee.games.registry import GAMES
from referee.protocol.messages import GameCodec
from tests.games import glory_table
from tests.games.test_assassination_support import PURE_RULES_ONLY, allegiance_question, cell_question, sniper_detention_question
from tests.support import CONFIGS
from tests.test_sdk_clients import LANGS
from tests.test_sdk_game_helpers import typescript_answers

#: A decision with this many legal actions or fewer must have each of them drawn.
LIMIT = 24
#: Draws from such a decision, at most, to reach them all.
CAP = 3000
#: Draws from every decision at least; from one with more legal actions than LIMIT, all (each checked, none required).
DRAWS = 12
#: The seeds of the games played at each player count.
SEEDS = (1, 2)

#: The TypeScript side: for each decision (a RefereeMessage as received), the actions drawn, as BotMessages, one
#: for each distinct action (cards in any order), drawing ``least`` times, then on until ``want`` of them or
#: ``draws`` draws; and for a turn of Generals & Assassins, ``purchases`` as ids.
TS_SAMPLE = """
import { readFileSync } from "node:fs";
import { decodeBotMessage, decodeRefereeMessage, encodeBotMessage, generalsAndAssassins as ga, ids, Request, Rng, SAMPLERS } from "arena-sdk";
const canon = (x: any): any =>
  Array.isArray(x) ? x.map((e) => JSON.stringify(canon(e))).sort()
  : x && typeof x === "object" ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, canon(x[k])])) : x;
const { cases } = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify({ answers: cases.map((c: any, i: number) => {
  const msg = decodeRefereeMessage(Buffer.from(c.msg, "base64"));
  const request = new Request<any>(msg.decision!, { matchId: "", game: c.game, seat: c.seat, numSeats: c.seats } as any);
  const rng = new Rng(`${c.game}-${i}`);
  const drawn = new Map<string, string>();
  for (let k = 0; k < c.draws && (k < c.least || drawn.size < c.want); k++) {
    const bytes = encodeBotMessage({ action: { action: { [request.field]: (SAMPLERS as any)[c.game](request, rng) } as any } });
    drawn.set(JSON.stringify(canon(decodeBotMessage(bytes))), bytes.toString("base64"));
  }
  const turn = c.game === "generals-and-assassins" ? request.choiceFor("turnChoice") : undefined;
  const purchases = turn ? ga.purchases(turn.money, turn.land).map(([m, l]: any) => [ids(m), ids(l)]) : null;
  return { drawn: [...drawn.values()], purchases };
}) }));
"""


def decisions(game_id: str, n: int, seed: int) -> Iterator[tuple[Game[Any], int]]:
    """(game, seat) at each decision of a game played at random by the referee's rules: the same at each call."""
    game = GAMES[game_id](n, seed)
    rng = random.Random(seed)
    while game.to_act():
        seat = rng.choice(game.to_act())
        yield game, seat
        game.apply(seat, game.random_action(seat, rng))


def canonical(action: Any) -> Any:
    """The action with each set of cards (or offers) in one order: the samplers name cards in any order."""
    if dataclasses.is_dataclass(action) and not isinstance(action, type):
        return type(action)(**{f.name: canonical(getattr(action, f.name)) for f in dataclasses.fields(action)})
    if isinstance(action, tuple):
        return tuple(sorted((canonical(x) for x in action), key=repr))
    return action


def overpays(action: Any) -> bool:
    """A purchase whose money covers the lands without its dearest card: the samplers stop paying once covered."""
    if isinstance(action, ga.BuyLand):
        paid, need, value = action.money_ids, roles.total(action.land_ids), roles.value
    elif isinstance(action, gl.BuyLand):
        paid, need, value = action.money_ids, values.total(action.land_ids), values.value
    else:
        return False
    return sum(value(c) for c in paid) - max(value(c) for c in paid) >= need


def wanted(game: Game[Any], seat: int) -> set[Any] | None:
    """The actions the samplers must reach at this decision; None when there are more than LIMIT legal ones."""
    legal = list(islice(game.legal_actions(seat), LIMIT + 1))
    if len(legal) > LIMIT:
        return None
    return {canonical(a) for a in legal if not overpays(a)}


def case_for(game: Game[Any], seat: int, want: set[Any] | None) -> dict[str, Any]:
    """What a sampler is asked at this decision: the request as a bot receives it, and how long to draw."""
    codec = GameCodec(type(game))
    raw = pb.DecisionRequest(view=codec.view(game.view(seat)), decision=codec.decision(game.decision(seat)))
    message = base64.b64encode(pb.RefereeMessage(decision=raw).SerializeToString()).decode()
    case = {"game": game.spec.id, "seat": seat, "seats": game.num_players, "msg": message, "least": DRAWS, "want": DRAWS, "draws": DRAWS}
    if want is not None:
        case.update(want=len(want), draws=CAP)
    return case


def python_answers(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the Python SDK draws for each case, in the TypeScript side's form."""
    answers = []
    for index, case in enumerate(cases):
        game_id = case["game"]
        codec = GameCodec(GAMES[game_id])
        raw = pb.RefereeMessage.FromString(base64.b64decode(case["msg"])).decision
        request = Request(raw, pb.GameStart(game=game_id, seat=case["seat"], num_seats=case["seats"]))
        rng = random.Random(f"{game_id}-{index}")
        drawn: dict[Any, str] = {}
        for k in range(case["draws"]):
            if k >= case["least"] and len(drawn) >= case["want"]:
                break
            envelope = pb.Action()
            getattr(envelope, codec.field).CopyFrom(SAMPLERS[game_id](request, rng))
            data = pb.BotMessage(action=pb.ActionResponse(action=envelope)).SerializeToString()
            drawn[canonical(codec.decode_action(envelope))] = base64.b64encode(data).decode()
        purchases = None
        if game_id == ga_sdk.GAME and request.kind == "turn_choice":
            bought = ga_sdk.purchases(list(request.choice.money), list(request.choice.land))
            purchases = [[ids(money), ids(lands)] for money, lands in bought]
        answers.append({"drawn": list(drawn.values()), "purchases": purchases})
    return answers


def answers_of(lang: str, cases: list[dict[str, Any]], tmp_path: Path) -> list[dict[str, Any]]:
    answers = python_answers(cases) if lang == "python" else typescript_answers({"cases": cases}, tmp_path, TS_SAMPLE)["answers"]
    assert len(answers) == len(cases)
    return answers


def assert_answer(game: Game[Any], seat: int, want: set[Any] | None, answer: dict[str, Any], where: str) -> None:
    """Every action drawn is legal, and reaches ``want``; the purchases listed are the referee's."""
    codec = GameCodec(type(game))
    where = f"{where}, seat {seat}: {game.decision(seat)}"
    drawn = set()
    for data in answer["drawn"]:
        action = codec.decode_action(pb.BotMessage.FromString(base64.b64decode(data)).action.action)
        assert game.check(seat, action) is None, f"{where}: drew {action}, refused: {game.check(seat, action)}"
        drawn.add(canonical(action))
    if want is not None:
        missed = sorted(want - drawn, key=repr)
        assert not missed, f"{where}: never drew {len(missed)} legal actions, such as {missed[:3]}"
    if answer["purchases"] is not None:
        got = {(tuple(sorted(m)), tuple(sorted(ln))) for m, ln in answer["purchases"]}
        assert len(got) == len(answer["purchases"]), f"{where}: a purchase listed twice"
        assert got == {(a.money_ids, a.land_ids) for a in game.legal_actions(seat) if isinstance(a, ga.BuyLand)}, where


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("game_id", "n"), CONFIGS)
def test_each_sdks_sampler_draws_legal_actions_and_reaches_them_all(lang: str, game_id: str, n: int, tmp_path: Path) -> None:
    for seed in SEEDS:
        # The game is played twice, alike: to ask the sampler at each decision, then to check its answers there.
        wants: list[set[Any] | None] = []
        cases: list[dict[str, Any]] = []
        for game, seat in decisions(game_id, n, seed):
            wants.append(want := wanted(game, seat))
            cases.append(case_for(game, seat, want))
        answers = answers_of(lang, cases, tmp_path)
        for step, ((game, seat), want, answer) in enumerate(zip(decisions(game_id, n, seed), wants, answers, strict=True)):
            assert_answer(game, seat, want, answer, f"seed {seed}, step {step}")


def assassination_questions() -> list[Game[Any]]:
    """The police officer's allegiance, the sniper's detention (asked of a good or a bad cop), leaving the holding cell."""
    return [allegiance_question(), sniper_detention_question(False), sniper_detention_question(True), cell_question()]


def glory_questions() -> list[Game[Any]]:
    """A turn with two aces in a small hand; thwarting an assassin with one of three; sending more assassins."""
    thwart = glory_table.table(2, ["X X@1 X2@1 2h", "X@2 X2@2 X2 2c"])
    thwart.apply(0, gl.Assassinate(1, (glory_table.c("X"),)))
    more = glory_table.table(2, ["X X@1 X2@1 2h", "X2 2c"])
    glory_table.play(more, (0, gl.Assassinate(1, (glory_table.c("X"),))), (1, gl.Thwart((glory_table.c("X2"),))))
    return [glory_table.table(2, ["Ac As 7c", "2c"]), thwart, more]


#: Decisions random play seldom reaches (or seldom with few legal actions), set up by hand, and their kinds.
RARE = {
    "assassination": pytest.param(assassination_questions, {AllegianceChoice, SniperDetentionChoice, CellChoice}, marks=PURE_RULES_ONLY),
    "glory": pytest.param(glory_questions, {gl.TurnChoice, gl.ThwartChoice, gl.MoreAssassinsChoice}),
}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("setup", "kinds"), list(RARE.values()), ids=list(RARE))
def test_each_sdks_sampler_answers_questions_random_play_seldom_asks(
    lang: str, setup: Callable[[], list[Game[Any]]], kinds: set[type], tmp_path: Path
) -> None:
    asked = [(game, seat, wanted(game, seat)) for game in setup() for seat in game.to_act()]
    assert {type(game.decision(seat)) for game, seat, _ in asked} == kinds
    assert all(want is not None for _, _, want in asked)
    answers = answers_of(lang, [case_for(game, seat, want) for game, seat, want in asked], tmp_path)
    for (game, seat, want), answer in zip(asked, answers, strict=True):
        assert_answer(game, seat, want, answer, "set up")
