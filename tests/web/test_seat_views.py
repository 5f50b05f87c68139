"""What the viewer tells, in Chromium, beyond its frames' bare numbers: the header's verdicts in words (a seat's own
in full, another seat's only by kind in a seat's view), the lists of one number per seat, each named with its seat, and an
extra round told as one."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ladder.web.routes import replay_app
from tests.web.conftest import BackgroundServer
from referee.server.frames import ALL, build_frames
from tests.web.test_frames import replay_data
from tests.web.test_pages import go_to_step

if TYPE_CHECKING:
    from playwright.sync_api import Page

DETAIL = "card 37 may not be chosen now"


@contextmanager
def viewing(page: Page, data: dict[str, Any], folder: Path) -> Iterator[str]:
    """The viewer open on the replay ``data``, in the everything view; yields its address."""
    path = folder / "replay.json"
    path.write_text(json.dumps(data))
    with BackgroundServer(replay_app(path)) as server:
        page.goto(server.url)
        page.wait_for_selector("body[data-step='0'][data-mode='all']")
        yield server.url


def choose_view(page: Page, view: str) -> None:
    page.select_option("#mode", view)
    page.wait_for_selector(f"body[data-mode='{view}']")


def test_a_verdicts_detail_is_shown_to_everyone_and_its_own_seat_and_only_its_kind_to_the_others(page: Page, tmp_path: Path) -> None:
    """The header drew every seat's verdicts with their detail ("card 37 may not be chosen now") in every seat's view:
    seat 1 read what seat 0 had tried to play. The kind reads in words ("illegal action"), not as the protocol's name."""
    data = replay_data("generals-war", 2, 5)
    data["seats"][0]["verdicts"] = [{"kind": "ILLEGAL_ACTION", "decision_index": 4, "detail": DETAIL}]
    with viewing(page, data, tmp_path) as url:
        badge = page.locator("#match-seats .seat-card").nth(0).locator(".badge.verdict")
        for view, told in (("all", True), ("0", True), ("1", False), ("all", True)):
            choose_view(page, view)
            assert badge.inner_text().startswith("illegal action"), view
            assert (DETAIL in page.content()) == told, view
            assert (badge.get_attribute("title") == DETAIL) == told, view
        page.goto("about:blank")
        page.goto(f"{url}#view=1&step=2")  # opened at seat 1's view by its address
        page.wait_for_selector("body[data-mode='1']")
        assert DETAIL not in page.content() and badge.inner_text() == "illegal action"
        assert "ILLEGAL_ACTION" not in page.inner_text("#match-seats")


def test_a_list_of_one_number_per_seat_names_each_seat(page: Page, tmp_path: Path) -> None:
    """A round's end read "land values 3, 0, 5 awarded 3, 0, 5 totals 3, 0, 5": whose were they?"""
    data = replay_data("generals-and-assassins", 3, 1)
    with viewing(page, data, tmp_path):
        choose_view(page, "1")
        page.keyboard.press("End")
        ended = page.locator("#events li.event", has_text="round ended").last
        for key in ("land_values", "awarded", "totals"):
            arg = ended.locator(".arg", has=page.locator(".arg-key", has_text=key.replace("_", " ")))
            named = arg.locator(".seat-ref").all_inner_texts()
            assert named == ["seat 0 (bot0)", "seat 1 (bot1)", "seat 2 (bot2)"], (key, arg.inner_text())
            words = key.replace("_", " ")
            assert re.fullmatch(words + r" seat 0 \(bot0\) \d+, seat 1 \(bot1\) \d+, seat 2 \(bot2\) \d+", arg.inner_text()), arg.inner_text()


#: Games of one round that tie after it (these seeds), so that they play an extra round.
TIED_AFTER_ONE_ROUND = [("generals-and-assassins", 2, 8), ("glory", 3, 40)]


@pytest.mark.parametrize(("game", "players", "seed"), TIED_AFTER_ONE_ROUND)
def test_an_extra_round_reads_so_not_round_9_of_8(page: Page, tmp_path: Path, game: str, players: int, seed: int) -> None:
    """A game of one round, tied after it, plays an extra round: Generals & Assassins' table read "round 2 rounds 1", and
    Glory's everything view, whose state gave no rounds, "round 2" in a game of one."""
    data = replay_data(game, players, seed, {"rounds": "1"})
    extra = next(i for i, frame in enumerate(build_frames(data, ALL)["frames"]) if frame["state"]["round"] == 2)
    with viewing(page, data, tmp_path):
        for view in ("all", "0"):
            choose_view(page, view)
            go_to_step(page, 0)
            assert page.inner_text("#table .fact[data-field=round]") == "round 1 of 1"
            go_to_step(page, extra)
            assert page.inner_text("#table .fact[data-field=round]") == "extra round 1 (after 1)"
            assert page.locator("#table .fact[data-field=rounds], #table .fact[data-field=extra_round]").count() == 0


@pytest.mark.parametrize(("game", "players", "seed"), TIED_AFTER_ONE_ROUND)
def test_the_events_and_the_decision_of_an_extra_round_read_so(page: Page, tmp_path: Path, game: str, players: int, seed: int) -> None:
    """The table read "extra round 1 (after 1)" while the events beside it said "round started round 2" (Glory's
    "round 2 extra round yes") and the seat to start it was asked "next round choice round 2"."""
    data = replay_data(game, players, seed, {"rounds": "1"})
    extra = next(i for i, frame in enumerate(build_frames(data, ALL)["frames"]) if frame["state"]["round"] == 2)
    starter = data["actions"][extra - 1]["seat"]
    with viewing(page, data, tmp_path):
        for view in ["all", *map(str, range(players))]:
            choose_view(page, view)
            go_to_step(page, extra)
            started = page.locator("#events li.event.now", has_text="round started")
            assert started.locator(".arg[data-field=round]").inner_text() == "extra round 1 (after 1)", view
            assert started.locator(".arg[data-field=extra_round]").count() == 0, view
            if view == str(starter):  # asked, the step before, to start it
                go_to_step(page, extra - 1)
                assert page.inner_text("#step-info .decision .arg[data-field=round]") == "extra round 1 (after 1)"
            page.keyboard.press("End")
            page.wait_for_selector(f"body[data-step='{len(data['actions'])}']")
            ended = page.locator("#events li.event", has_text="round ended")
            assert ended.first.locator(".arg[data-field=round]").inner_text() == "round 1 of 1", view
            assert ended.last.locator(".arg[data-field=round]").inner_text() == "extra round 1 (after 1)", view


@pytest.mark.parametrize("game", ["generals-war", "land-and-castle"])
def test_what_a_seat_remembers_is_listed_under_each_seat_named_once(page: Page, tmp_path: Path, game: str) -> None:
    """The seat view's "known" (GW-17, LC-25: one entry per seat) drew each entry under its list number, "0", with a
    row reading "seat  seat 0 (bot0)": the entry now stands under its seat, named once, as the terminal names it."""
    data = replay_data(game, 2, 5)
    states = [frame["state"] for frame in build_frames(data, 1)["frames"]]
    step = next(i for i, state in enumerate(states) if any(entry[pile] for entry in state["known"] for pile in ("deck", "draw_pile") if pile in entry))
    with viewing(page, data, tmp_path):
        choose_view(page, "1")
        go_to_step(page, step)
        known = page.locator("#table [data-field=known]")
        assert known.locator("h3").inner_text() == "known face-down cards"  # "known" said not what was known
        entries = known.locator(".sub-list > .sub")
        assert entries.count() == 2
        assert [entries.nth(s).locator(".sub-index").inner_text() for s in range(2)] == ["seat 0 (bot0)", "seat 1 (bot1)"]
        assert known.locator("dd[data-field=seat]").count() == 0
        assert "seat seat" not in re.sub(r"\s+", " ", known.inner_text())


def test_a_land_and_castle_battle_side_names_its_seat_once(page: Page, tmp_path: Path) -> None:
    """Each side of Land & Castle's battle (attacker, defender) drew a row reading "seat  seat 1 (bot1)": the side now
    stands under its seat, named once."""
    data = replay_data("land-and-castle", 2, 5)
    states = [frame["state"] for frame in build_frames(data, 1)["frames"]]
    step = next(i for i, state in enumerate(states) if state.get("last_battle") and state["last_battle"].get("defender"))
    with viewing(page, data, tmp_path):
        choose_view(page, "1")
        go_to_step(page, step)
        battle = page.locator("#table [data-field=last_battle]")
        assert battle.locator("dd[data-field=seat]").count() == 0
        sides = [states[step]["last_battle"][side]["seat"] for side in ("attacker", "defender")]
        assert battle.locator(".seat-head").all_inner_texts() == [f"seat {s} (bot{s})" for s in sides]
        assert "seat seat" not in re.sub(r"\s+", " ", battle.inner_text())


def shown(page: Page, selector: str, *fields: str) -> list[int]:
    """How many of ``selector`` (``{}`` for the field) the page shows, field by field."""
    return [page.locator(selector.format(field)).count() for field in fields]


def test_the_table_leaves_out_what_the_rules_make_meaningless_and_says_a_tie(page: Page, tmp_path: Path) -> None:
    """As the terminal reads it (tests/test_table_left_out.py): General's War at a table of two read "defeat limit 3",
    and each seat "defeat points 0 · eliminated no", which count with four players alone; a seat's own known face-down
    cards "hand none", as if its hand were empty (its hand is never there, GW-17); a tied battle told no winner and no
    tie. Land & Castle's setup read "turn 0" with an attacker and a defender (and in the full state "battle none · last
    battle none · winner none"), and its battle "undercut no" before the defender answered."""
    data = replay_data("generals-war", 2, 4)
    frames = build_frames(data, ALL)["frames"]
    tie = next((i for i, f in enumerate(frames) for e in f["events"] if "battle_resolved" in e["event"] and "winner" not in e["event"]["battle_resolved"]["battle"]), None)
    assert tie is not None, "seed 4 plays a tied battle"
    with viewing(page, data, tmp_path):
        choose_view(page, "0")
        go_to_step(page, 1)
        assert shown(page, "#table [data-field={}]", "conquest_target", "conquest_points", "defeat_limit", "defeat_points", "eliminated") == [1, 2, 0, 0, 0]
        own = build_frames(data, 0)["frames"]
        go_to_step(page, next(i for i, f in enumerate(own) if f["state"]["known"][0]["deck"]))  # the entries drawn one by one
        known = page.locator("#table .sub-panel[data-field=known]")
        assert known.locator(".sub[data-seat='0'] dd[data-field=hand]").count() == 0
        assert known.locator(".sub[data-seat='1'] dd[data-field=hand]").count() == 1
        go_to_step(page, tie)
        battle = page.locator("#events li.event.now", has_text="battle resolved").last
        assert battle.locator("dd[data-field=winner]").inner_text() == "none: a tie, both squads die"
    data = replay_data("land-and-castle", 2, 3)
    frames = build_frames(data, 0)["frames"]
    attacked = next(i for i, f in enumerate(frames) if f["state"].get("battle") and "defender" not in f["state"]["battle"])
    with viewing(page, data, tmp_path):
        choose_view(page, "0")
        go_to_step(page, 0)
        assert shown(page, "#table .fact[data-field={}]", "phase", "turn", "attacker", "defender") == [1, 0, 0, 0]
        choose_view(page, "all")  # the full state read "battle none · last battle none · winner none" in the setup
        assert shown(page, "#table [data-field={}]", "phase", "battle", "last_battle", "winner", "win_reason") == [1, 0, 0, 0, 0]
        choose_view(page, "0")
        go_to_step(page, attacked)
        assert page.locator("#table .sub-panel[data-field=battle]").count() == 1
        assert page.locator("#table .sub-panel[data-field=battle] [data-field=undercut]").count() == 0


def test_a_full_state_leaves_out_the_null_fields_a_seats_view_leaves_out(page: Page, tmp_path: Path) -> None:
    """As the terminal reads it (tests/test_table_left_out.py): Generals & Assassins' everything view read "final turns
    left – · fight – · last battle –" from the first turn, where a seat's view says nothing of what is not there yet."""
    data = replay_data("generals-and-assassins", 3, 1)
    with viewing(page, data, tmp_path):
        go_to_step(page, 1)
        assert shown(page, "#table [data-field={}]", "round", "final_turns_left", "fight", "last_battle") == [1, 0, 0, 0]


def test_the_seed_is_shown_in_the_everything_view_only(page: Page, tmp_path: Path) -> None:
    """The header's line read "seed N" in every view: every card of the deal follows from the seed (`arena match … --seed
    N` deals them again), so a seat's view told what the seat never saw. It is in the everything view alone."""
    seed = 918273645
    with viewing(page, replay_data("glory", 3, seed), tmp_path) as url:
        meta = page.locator("#match-meta")
        for view, told in (("all", True), ("1", False), ("all", True), ("0", False)):
            choose_view(page, view)
            page.wait_for_function("document.getElementById('match-meta').textContent.includes('local')")
            assert ("seed" in meta.inner_text()) == told and (str(seed) in page.content()) == told, view
        assert meta.inner_text().startswith("Glory · local")  # the game and the match's kind, as in every view
        page.goto("about:blank")
        page.goto(f"{url}#view=2&step=3")  # opened at a seat's view by its address
        page.wait_for_selector("body[data-mode='2'][data-step='3']")
        page.wait_for_function("document.getElementById('match-meta').textContent !== ''")
        assert str(seed) not in page.content()
