"""Replay frames (referee/server/frames.py): a seat's frames are exactly the views and events the referee sends that seat."""

from __future__ import annotations

import copy
import json
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format

from arena.v1 import referee_pb2 as pb
from referee.core.cards import card_str
from referee.core.game import Game
from referee.games.registry import GAMES
from referee.protocol.messages import GameCodec
from referee.server.frames import ALL, FrameCache, build_frames, message_json, parse_seat, replay_summary, told_in_part
from referee.server.replay import FORMAT, VERSION, ReplayError
from referee.server.words import CARD_ID_KEY, EMPTY_TOLD, enum_words
from tests.support import random_playout

#: Every game, with its smallest and largest player counts.
CASES = sorted({(gid, n) for gid, cls in GAMES.items() for n in (min(cls.spec.player_counts), max(cls.spec.player_counts))})


def new_game(game_id: str, players: int, seed: int, options: dict[str, Any] | None = None) -> Game[Any]:
    return GAMES[game_id](players, seed, options or {})


def replay_data(game_id: str, players: int, seed: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """A replay file's contents, from a random playout (what write_replay stores, less the referee's own bookkeeping)."""
    game = new_game(game_id, players, seed, options)
    codec = GameCodec(type(game))
    events = list(game.opening_events())
    actions = []
    for seat, action, produced in random_playout(game, random.Random(seed)):
        actions.append({"seat": seat, "auto": False, "action": codec.action_to_json(action)})
        events += produced
    result = game.result()
    return {
        "format": FORMAT,
        "version": VERSION,
        "match_id": f"test-{seed}",
        "game": game_id,
        "num_players": players,
        "seed": seed,
        "options": game.options,
        "seats": [{"seat": s, "name": f"bot{s}", "rank": result.ranks[s], "score": result.scores[s], "forfeited": False, "verdicts": []} for s in range(players)],
        "actions": actions,
        "events": [codec.event_to_json(e, seq) for seq, e in enumerate(events)],
        "game_result": {"ranks": list(result.ranks), "scores": list(result.scores)},
        "final_state": game.full_state(),
    }


def steps(data: dict[str, Any]) -> Iterator[tuple[Game[Any], list[Any]]]:
    """The game after the deal and after each action, with the events of that step."""
    game = new_game(data["game"], data["num_players"], data["seed"], data["options"])
    codec = GameCodec(type(game))
    yield game, list(game.opening_events())
    for taken in data["actions"]:
        yield game, game.apply(taken["seat"], codec.action_from_json(taken["action"]))


def as_shown(data: dict[str, Any], step: int) -> dict[str, Any]:
    """The action taken at ``step`` as a frame shows it: the recorded one, with its zero values written out."""
    codec = GameCodec(GAMES[data["game"]])
    action = codec.action_from_json(data["actions"][step - 1]["action"])
    shown: dict[str, Any] = message_json(getattr(codec.action(action), codec.field))
    return shown


def test_an_action_of_card_or_land_0_shows_that_field() -> None:
    """A replay leaves zero values out: Land & Castle's "control" of land 0 and "defend" with card 0 (the A♣) were
    shown as a bare "control" and "defend", of nothing, in the viewer and `arena replay --text`."""
    zeros = 0
    for seed in range(40):
        data = replay_data("land-and-castle", 2, seed)
        frames = build_frames(data, ALL)["frames"]
        for step, taken in enumerate(data["actions"], start=1):
            shown = frames[step]["action"]
            assert json_format.ParseDict(shown, GAMES["land-and-castle"].proto_module.Action()) == json_format.ParseDict(
                taken["action"], GAMES["land-and-castle"].proto_module.Action()
            ), "the same action"
            (kind, fields), = shown.items()
            recorded = taken["action"][kind]
            for name, value in fields.items():
                if name not in recorded:
                    assert value in (0, [], False, "") and isinstance(fields, dict)
                    zeros += 1
    assert zeros, "no action of these deals had a zero field: the check above checked nothing"


def named_cards(value: Any, key: str = "") -> Iterator[int]:
    """Every card id in a frame's JSON: Card messages, and numbers in fields of card ids (``card_ids``, ``land_ids``:
    ``CARD_ID_KEY``)."""
    if isinstance(value, dict):
        if set(value) == {"id", "rank", "suit"}:
            yield int(value["id"])
            return
        for k, v in value.items():
            yield from named_cards(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from named_cards(v, key)
    elif isinstance(value, int) and not isinstance(value, bool) and CARD_ID_KEY.search(key):
        yield value


@pytest.fixture(scope="module", params=CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def case(request: pytest.FixtureRequest) -> dict[str, Any]:
    game_id, players = request.param
    return replay_data(game_id, players, seed=20 + players)


def test_a_seat_frame_is_what_the_referee_sent_that_seat_and_names_no_card_hidden_from_it(case: dict[str, Any]) -> None:
    """Each frame of seat k: the view the referee sent k, the events k was told, k's own action only, no hidden card."""
    for seat in range(case["num_players"]):
        built = build_frames(case, seat)
        assert built["seat"] == seat and built["names"] == [f"bot{s}" for s in range(case["num_players"])]
        assert len(built["frames"]) == len(case["actions"]) + 1
        seq = 0
        for frame, (game, produced) in zip(built["frames"], steps(case)):
            codec = GameCodec(type(game))
            sent = getattr(codec.view(game.view(seat)), codec.field)  # what the session puts in a DecisionRequest
            assert frame["state"] == message_json(sent)
            if frame["step"] % 25 == 0:  # message_json writes what json_format writes (checked on a sample: json_format is slow)
                assert frame["state"] == json_format.MessageToDict(sent, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
                assert json_format.ParseDict(frame["state"], type(sent)()) == sent
            told = [(s, e) for s, e in enumerate(produced, start=seq) if e.visible(seat)]
            assert [e["seq"] for e in frame["events"]] == [s for s, _ in told]
            for got, (s, e) in zip(frame["events"], told):
                message = getattr(codec.event(e.payload, s), codec.field)
                assert got["event"] == message_json(message) and "visible_to" not in got
            seq += len(produced)
            assert frame["to_act"] == list(game.to_act())
            if frame["actor"] is not None and frame["actor"] != seat:
                assert "action" not in frame, "another seat's action is not for this seat to know"
            elif frame["actor"] == seat:
                assert frame["action"] == as_shown(case, frame["step"]), "its own action, as taken"
            assert ("decision" in frame) == (seat in game.to_act())
            leaked = set(named_cards(frame)) & game.hidden_cards(seat)
            assert not leaked, f"step {frame['step']}: seat {seat} is shown cards it may not know: {sorted(leaked)}"


def test_the_frames_carry_the_games_enum_words_for_the_viewer(case: dict[str, Any]) -> None:
    """The browser has no protobuf descriptors: the words of the game's enums come with its frames, as the terminal's."""
    for seat in (ALL, 0):
        assert build_frames(case, seat)["words"] == dict(enum_words(case["game"]))


def test_the_frames_carry_which_empty_lists_say_none_for_the_viewer(case: dict[str, Any]) -> None:
    """The viewer kept its own copy of which empty lists say "none" (Glory's "thwart: cards none"), which a test had to
    keep the same as the terminal's: the one table (words.py EMPTY_TOLD) now comes with the frames, its game's alone."""
    for seat in (ALL, 0):
        assert build_frames(case, seat)["empty_told"] == sorted(EMPTY_TOLD.get(case["game"], ()))


def test_the_all_frames_hold_the_full_state_and_every_event(case: dict[str, Any]) -> None:
    built = build_frames(case, ALL)
    assert built["seat"] == ALL
    events = [told for frame in built["frames"] for e in frame["events"] for told in (e, e.get("others_told")) if told is not None]
    assert [e["seq"] for e in events] == list(range(len(case["events"])))
    assert [e["visible_to"] for e in events] == [e["visible_to"] for e in case["events"]]
    for frame, (game, _) in zip(built["frames"], steps(case)):
        assert frame["state"] == json.loads(json.dumps(game.full_state()))
        if frame["actor"] is not None:
            assert frame["action"] == as_shown(case, frame["step"])
        assert "decision" not in frame
    assert built["frames"][-1]["state"] == case["final_state"]
    assert built["frames"][-1]["result"] == case["game_result"] | {"scores": [float(s) for s in case["game_result"]["scores"]]}
    assert built["frames"][-1]["over"] and not any(f["over"] for f in built["frames"][:-1])


def test_the_all_frames_list_a_happening_told_in_full_to_one_seat_and_in_part_to_the_others_once(case: dict[str, Any]) -> None:
    """A draw is told with its cards to the drawer and as a count to the rest (core.game.split): the everything view
    listed both, each private draw twice. It lists the full one, with what the others were told as its ``others_told``."""
    everyone = set(range(case["num_players"]))
    folded = 0
    for frame in build_frames(case, ALL)["frames"]:
        listed = frame["events"]
        for e in listed:
            if "others_told" in e:
                folded += 1
                part = e["others_told"]
                assert len(e["visible_to"]) == 1 and set(part["visible_to"]) == everyone - set(e["visible_to"])
                assert part["seq"] == e["seq"] + 1 and part["event"].keys() == e["event"].keys()
                ((kind, body),) = e["event"].items()
                told = part["event"][kind]
                assert all(body[k] == v or v == [] for k, v in told.items()) and body.keys() == told.keys(), "the others were told less, nothing else"
                assert e["others_miss"] == [k for k in body if body[k] != told[k]]
        for first, second in zip(listed, listed[1:]):
            assert not told_in_part(first, second, case["num_players"]), "a happening told in part, listed apart"
    if case["game"] != "assassination":  # its private events are told to one seat alone, with nothing to the others
        assert folded, "every other game deals its cards unseen by the other seats"


def test_a_replay_that_does_not_re_play_is_refused() -> None:
    data = replay_data("generals-war", 2, seed=5)
    other_events = copy.deepcopy(data)
    other_events["events"][3]["visible_to"] = None
    with pytest.raises(ReplayError, match="events differ"):
        build_frames(other_events, 0)
    other_actions = copy.deepcopy(data)
    other_actions["actions"][0]["seat"] = 1 - other_actions["actions"][0]["seat"]
    with pytest.raises(ReplayError, match="refused"):
        build_frames(other_actions, ALL)
    with pytest.raises(ReplayError, match="seat"):
        build_frames(data, 7)
    with pytest.raises(ReplayError):
        build_frames(data | {"game": "chess"}, ALL)


def test_a_replay_of_older_rules_that_no_longer_re_plays_says_so() -> None:
    """A change of the rules can leave recorded actions that the game now refuses (the Assassination Game's version 2
    asks questions version 1 did not): the error names the two versions instead of reading as a damaged file."""
    from referee.server.replay import parse_replay, replay_game

    data = replay_data("assassination", 4, seed=2)
    current = GAMES["assassination"].spec.rules_version
    assert current >= 2
    broken = copy.deepcopy(data)
    broken["actions"].pop(len(broken["actions"]) // 2)  # what older rules would not have asked for
    for recorded, told in ((None, True), (1, True), (current, False)):
        case = copy.deepcopy(broken)
        if recorded is not None:
            case["rules_version"] = recorded
        for read in (lambda d: build_frames(d, ALL), replay_game, lambda d: parse_replay(json.dumps(d | {"compact": True}).encode(), "r.json")):
            with pytest.raises(ReplayError) as refused:
                read(copy.deepcopy(case))
            said = str(refused.value)
            assert (f"recorded under version {recorded or 1} of the rules of assassination" in said) == told, said
            assert (f"this referee plays version {current}" in said) == told, said
    # A replay of older rules that still re-plays is read as ever.
    assert build_frames(data | {"rules_version": 1}, ALL)["num_players"] == 4


def test_replays_carry_the_rules_version_of_their_game() -> None:
    from referee.server.replay import ReplayHead

    for game_id, cls in GAMES.items():
        head = ReplayHead("m", game_id, min(cls.spec.player_counts), 1, {}, 0.0, 0.0, [], pb.MatchResult(), [], [], [])
        assert head.to_dict()["rules_version"] == cls.spec.rules_version


def test_seats_are_parsed_and_the_summary_comes_from_the_file(tmp_path: Path) -> None:
    assert parse_seat("all", 2) == ALL and parse_seat("1", 2) == 1 and parse_seat(0, 2) == 0
    for bad in ("2", "-1", "x", "", "\uff11", " 1", "+1", "0_1", "1.0", "--1"):
        with pytest.raises(ValueError):
            parse_seat(bad, 2)
    data = replay_data("generals-war", 2, seed=9)
    data["seats"][1]["verdicts"] = [{"kind": "TIMEOUT", "decision_index": 4, "detail": "no answer in 1000 ms"}]
    summary = replay_summary(data, "x.json")
    assert summary["id"] == "x.json" and summary["game"] == "generals-war" and summary["status"] == "done"
    assert [s["bot"] for s in summary["seats"]] == ["bot0", "bot1"]
    assert summary["seats"][1]["verdicts"] == [{"kind": "TIMEOUT", "decision": 4, "detail": "no answer in 1000 ms"}]
    assert [(s["rank"], s["score"]) for s in summary["seats"]] == [(s["rank"], s["score"]) for s in data["seats"]]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    cache = FrameCache(size=1)
    first = cache.frames(path, 0)
    assert cache.frames(path, 0) is first
    cache.frames(path, ALL)
    assert cache.frames(path, 0) is not first and cache.frames(path, 0) == first


def test_the_frame_cache_reads_a_rewritten_file_again(tmp_path: Path) -> None:
    """A replay file written over (another match under the same name) shows the new match, not the frames kept of the old."""
    path = tmp_path / "r.json"
    path.write_text(json.dumps(replay_data("generals-war", 2, seed=4)))
    cache = FrameCache()
    first = cache.frames(path, 0)
    other = replay_data("generals-war", 2, seed=5)
    path.write_text(json.dumps(other))
    later = path.stat().st_mtime + 10
    os.utime(path, (later, later))  # a rewrite within the file system's clock tick would keep the mtime
    again = cache.frames(path, 0)
    assert again == build_frames(other, 0) and again != first


def test_the_frame_cache_keeps_each_seat_s_frames_of_a_stored_replay_apart() -> None:
    """The ladder's replays kept in its database are cached by name: seat 0 asking after everyone must not get everyone's frames."""
    data = replay_data("generals-war", 2, seed=6)
    cache = FrameCache()
    everyone = cache.frames_for("match/1", ALL, lambda: data)
    assert everyone == build_frames(data, ALL)
    assert cache.frames_for("match/1", 0, lambda: data) == build_frames(data, 0) != everyone
    other = replay_data("generals-war", 2, seed=7)
    assert cache.frames_for("match/2", 0, lambda: other) == build_frames(other, 0)


def test_arena_replay_tells_a_file_changed_or_gone_since_it_opened_it(tmp_path: Path) -> None:
    """The viewer's API answered a bare 500 when the file it had opened was rewritten or removed."""
    from fastapi.testclient import TestClient

    from ladder.web.routes import replay_app

    path = tmp_path / "r.json"
    path.write_text(json.dumps(replay_data("generals-war", 2, seed=4)))
    client = TestClient(replay_app(path))
    page = client.get("/").text
    assert 'data-summary="/api/replay"' in page and 'data-frames="/api/replay/frames"' in page and 'data-local="1"' in page
    assert client.get("/api/replay").status_code == 200 and client.get("/api/replay/frames", params={"seat": "0"}).status_code == 200
    assert client.get("/api/replay/frames", params={"seat": "5"}).status_code == 422
    path.write_text("{ half a file")
    for url in ("/api/replay", "/api/replay/frames"):
        answer = client.get(url)
        assert answer.status_code == 409 and "has changed or is gone" in answer.json()["detail"], answer.text
    path.unlink()
    assert client.get("/api/replay/frames", params={"seat": "1"}).status_code == 409


def test_message_json_writes_what_json_format_writes() -> None:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    from arena.v1 import referee_pb2 as pb

    proto = descriptor_pb2.FileDescriptorProto(name="web_test.proto", package="webtest", syntax="proto3", dependency=["google/protobuf/timestamp.proto"])
    kind = descriptor_pb2.FieldDescriptorProto
    entry = proto.message_type.add(name="Rare")
    for number, (name, type_, label) in enumerate(
        [("f", kind.TYPE_FLOAT, kind.LABEL_OPTIONAL), ("fs", kind.TYPE_FLOAT, kind.LABEL_REPEATED), ("b", kind.TYPE_BYTES, kind.LABEL_OPTIONAL),
         ("d", kind.TYPE_DOUBLE, kind.LABEL_REPEATED), ("big", kind.TYPE_SINT64, kind.LABEL_OPTIONAL)],
        start=1,
    ):
        entry.field.add(name=name, number=number, type=type_, label=label)
    entry.field.add(name="when", number=6, type=kind.TYPE_MESSAGE, label=kind.LABEL_OPTIONAL, type_name=".google.protobuf.Timestamp")
    pool = descriptor_pool.DescriptorPool()
    from google.protobuf import timestamp_pb2

    pool.AddSerializedFile(timestamp_pb2.DESCRIPTOR.serialized_pb)
    pool.Add(proto)
    rare: Any = message_factory.GetMessageClass(pool.FindMessageTypeByName("webtest.Rare"))
    samples = [
        rare(), rare(f=0.1, fs=[0.1, 2.5], b=b"ab", d=[float("nan"), float("inf"), 1.5], big=-(2**40)),
        pb.OptionValue(int_value=2**40), pb.SeatResult(seat=1, score=float("nan")), pb.SeatResult(score=0.5, verdicts=[pb.Verdict(detail="x")]),
    ]
    rare_with_time = rare()
    rare_with_time.when.seconds = 5
    for msg in [*samples, rare_with_time]:
        assert message_json(msg) == json_format.MessageToDict(msg, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


#: The facts of the game a seat's view gives that are no secret of the seat's: its limits and whose turn it is.
PUBLIC_FACTS = {
    "generals-war": ["round", "attacker", "defender", "conquest_target", "defeat_limit"],
    "generals-and-assassins": ["round", "rounds", "turn_player", "first_player"],
    "glory": ["round", "rounds", "extra_round", "turn", "first_player"],
    "land-and-castle": ["turn", "attacker", "defender", "hand_limit", "max_turns"],
    "assassination": ["round", "turn", "turn_limit", "target_score", "scores"],
}


#: The same of each player: what it scores, its counts that decide the game.
PUBLIC_PLAYER_FACTS = {
    "generals-war": ["conquest_points", "defeat_points", "eliminated", "generals_alive"],
    "generals-and-assassins": ["hp", "vp", "land_value"],
    "glory": ["hp", "glory", "land_value", "treasury_value"],
    "land-and-castle": ["lands_owned", "swap_used"],
    "assassination": [],
}


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_everything_view_gives_the_public_facts_a_seats_view_gives(game_id: str) -> None:
    """A spectator read less than a player: General's War's everything view gave no conquest target or defeat limit,
    Land & Castle's no defender, hand limit, most turns or lands owned (the score), the Assassination Game's no turn
    limit or target score, Glory's no number of rounds, and Generals & Assassins' and Glory's no land value (the
    round's score to come)."""
    data = replay_data(game_id, min(GAMES[game_id].spec.player_counts), 3)
    everything, seat = (build_frames(data, view)["frames"] for view in (ALL, 0))
    for step in (0, len(everything) // 2, len(everything) - 1):
        told = {key: seat[step]["state"][key] for key in PUBLIC_FACTS[game_id]}
        assert {key: everything[step]["state"].get(key) for key in told} == told, step
        if not PUBLIC_PLAYER_FACTS[game_id]:
            continue
        for mine, full in zip(seat[step]["state"]["players"], everything[step]["state"]["players"], strict=True):
            told = {key: mine[key] for key in PUBLIC_PLAYER_FACTS[game_id]}
            assert {key: full.get(key) for key in told} == told, (step, mine["seat"])


def plain(value: Any) -> Any:
    """A seat frame's JSON with each card (a Card message) named as the full state names it."""
    if isinstance(value, dict):
        return card_str(value["id"]) if set(value) == {"id", "rank", "suit"} else {k: plain(v) for k, v in value.items()}
    return [plain(v) for v in value] if isinstance(value, list) else value


@pytest.mark.parametrize("game_id", ["generals-war", "generals-and-assassins", "glory"])
def test_the_everything_view_gives_the_last_battle_a_seats_view_gives(game_id: str) -> None:
    """A seat's view tells the battle resolved last (its sides, points and winner), which every seat was told; the
    everything view told it only in the events: its table showed no battle once one was resolved."""

    data = replay_data(game_id, min(GAMES[game_id].spec.player_counts), 3)
    everything, seat = (build_frames(data, view)["frames"] for view in (ALL, 0))
    shown = 0
    for step, (full, mine) in enumerate(zip(everything, seat, strict=True)):
        told, battle = mine["state"].get("last_battle"), full["state"].get("last_battle", "missing")
        assert (battle is None) == (told is None), step
        if told is not None:
            shared = set(battle) & set(told)
            assert len(shared) >= 4 and {k: battle[k] for k in shared} == {k: plain(told[k]) for k in shared}, step
            shown += 1
    assert shown


@pytest.mark.parametrize(("game_id", "facts"), [
    ("generals-and-assassins", ["attacker", "defender", "attack_points", "defence_points"]),
    ("glory", ["attacker", "defender", "attack_points", "defence_points", "mini_round"]),
])  # fmt: skip
def test_the_everything_view_gives_the_running_points_of_the_battle_under_way(game_id: str, facts: list[str]) -> None:
    """A seat's view gives the battle under way with its attack and defence points so far; the everything view's
    ``fight`` gave its cards alone, the points left to the reader's sums."""
    data = replay_data(game_id, min(GAMES[game_id].spec.player_counts), 3)
    everything, seat = (build_frames(data, view)["frames"] for view in (ALL, 0))
    shown = 0
    for step, (full, mine) in enumerate(zip(everything, seat, strict=True)):
        told, fight = mine["state"].get("battle"), full["state"]["fight"]
        assert (fight is None) == (told is None), step
        if told is not None:
            assert {k: fight.get(k) for k in facts} == {k: told[k] for k in facts}, step
            shown += 1
    assert shown


@pytest.mark.parametrize("key", ["battle", "last_battle"])
def test_the_land_and_castle_everything_view_gives_a_battles_values_as_a_seats_view_does(key: str) -> None:
    """A seat's view gives each side of a battle with its army's value, land, general and castle bonuses and total,
    and whether it was an undercut; the everything view's ``battle`` gave the cards alone, and no battle resolved."""
    data = replay_data("land-and-castle", 2, 3)
    everything, seat = (build_frames(data, view)["frames"] for view in (ALL, 0))
    shown = 0
    for step, (full, mine) in enumerate(zip(everything, seat, strict=True)):
        told, battle = mine["state"].get(key), full["state"].get(key, "missing")
        assert (battle is None) == (told is None), step
        if told is not None:
            # what a seat's view leaves out (no defender yet, no winner) the full state gives as None
            assert battle == {k: plain(told.get(k)) for k in battle}, step
            assert set(told) <= set(battle) and {"army_value", "land_bonus", "total"} <= set(battle["attacker"]), step
            shown += 1
    assert shown
