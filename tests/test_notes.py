"""A bot's notes on its decisions (ActionResponse.note): kept with its actions in the replay, shown to no other seat."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arena.v1 import generals_war_pb2 as gwpb
from arena.v1 import referee_pb2 as pb
from arena_sdk import Bot, Request, random_action
from arena_sdk.driver import BotDriver
from referee.server.frames import ALL, build_frames
from referee.server.replay import load_replay, write_replay
from referee.server.session import NOTE_MAX, TimeControl
from tests.test_session import driver_answers, run_session

SLOW = TimeControl(move_time_ms=2000, time_bank_ms=0)


class Noting(Bot):
    """Random legal play, with a note on each decision: its index, and once a note too long to keep whole."""

    name = "noting"

    def __init__(self, seed: int) -> None:
        import random

        self.rng = random.Random(seed)

    def act(self, request: Request) -> Any:
        request.note("first thought")
        request.note(f"NOTE-{request.decision_index}" + ("é" * 1000 if request.decision_index == 0 else ""))
        return random_action(request, self.rng)


def test_each_notes_decision_is_kept_with_its_action_and_a_long_note_is_cut() -> None:
    record, _ = run_session([BotDriver(Noting(1)).handle, driver_answers(2)], SLOW)
    mine = [a for a in record.actions if a.seat == 0]
    assert mine and all(a.note.startswith("NOTE-") for a in mine)  # the last call's note, not the first's
    first = mine[0].note
    assert len(first) == NOTE_MAX and first.startswith("NOTE-0é")
    assert all(a.note == "" for a in record.actions if a.seat == 1)  # the other bot wrote none


def test_a_note_sent_with_a_refused_action_is_dropped() -> None:
    inner = BotDriver(Noting(3)).handle
    tried = {"bad": 0}

    def sloppy(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        if msg.WhichOneof("msg") == "decision" and tried["bad"] == 0:
            tried["bad"] += 1
            inner(msg)
            bad = pb.Action(generals_war=gwpb.Action(reveal_generals=gwpb.RevealGenerals(card_ids=[9999])))
            return [pb.BotMessage(action=pb.ActionResponse(request_id=msg.decision.request_id, action=bad, note="REFUSED ONE"))]
        return inner(msg)

    record, links = run_session([sloppy, driver_answers(4)], SLOW)
    assert len(links[0].of("rejection")) == 1
    assert not any("REFUSED" in a.note for a in record.actions)
    assert [a for a in record.actions if a.seat == 0][0].note.startswith("NOTE-")  # the retry's own note


def test_notes_go_into_the_replay_and_each_seat_sees_only_its_own(tmp_path: Path) -> None:
    record, links = run_session([BotDriver(Noting(5)).handle, BotDriver(Noting(6)).handle], SLOW)
    # During the match no seat was sent any note: nothing the referee sent carries one.
    for link in links:
        assert not any("NOTE-" in str(m) for m in link.sent)
    path = tmp_path / "replay.json"
    write_replay(record, path, compact=True)
    data = load_replay(path)
    assert [step.get("note") for step in data["actions"]] == [a.note or None for a in record.actions]
    everyone = build_frames(data, ALL)["frames"]
    assert [f.get("note") for f in everyone[1:]] == [a.note for a in record.actions]
    for seat in (0, 1):
        frames = build_frames(data, seat)["frames"]
        shown = [f.get("note") for f in frames[1:]]
        assert shown == [a.note if a.seat == seat else None for a in record.actions]


def test_a_replay_without_notes_has_no_note_keys(tmp_path: Path) -> None:
    record, _ = run_session([driver_answers(1), driver_answers(2)], SLOW)
    path = tmp_path / "replay.json"
    write_replay(record, path)
    assert "note" not in json.dumps(json.loads(path.read_text())["actions"])


class Rambling(Bot):
    """Notes far more than is kept (a debug dump), or text with a lone surrogate (half of an emoji, cut)."""

    name = "rambling"

    def __init__(self, note: str) -> None:
        import random

        self.rng = random.Random(1)
        self.text = note

    def act(self, request: Request) -> Any:
        request.note(self.text)
        return random_action(request, self.rng)


def test_a_long_note_is_cut_by_the_sdk_so_the_answer_is_not_refused_as_too_large() -> None:
    from referee.server.service import MAX_BOT_MESSAGE

    sent: list[pb.BotMessage] = []
    inner = BotDriver(Rambling("why " * 50_000)).handle

    def spy(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        out = inner(msg)
        sent.extend(out)
        return out

    record, _ = run_session([spy, driver_answers(2)], SLOW)
    answers = [m for m in sent if m.WhichOneof("msg") == "action"]
    assert answers and all(m.ByteSize() <= MAX_BOT_MESSAGE for m in answers)  # over it, the referee refuses the action
    assert all(len(m.action.note) == NOTE_MAX for m in answers)


def test_a_note_with_a_lone_surrogate_is_sent_not_a_crash() -> None:
    record, _ = run_session([BotDriver(Rambling("half an emoji: \ud83d")).handle, driver_answers(2)], SLOW)
    mine = [a for a in record.actions if a.seat == 0]
    assert mine and all(a.note == "half an emoji: \ufffd" and not a.auto for a in mine)
    assert not any(s.forfeited for s in record.result.seats)
