"""The replay viewer in Chromium, game by game, as a spectator reads it: every seat a state or an event holds named as
a seat, cards drawn as cards, enums in plain words, the events' numbers apart from their names, and the end of the
current step's events in sight. The replays are random playouts at each game's largest player count."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ladder.web.routes import replay_app
from referee.games.registry import GAMES
from referee.server.frames import ALL, build_frames
from referee.server import words
from referee.server.words import OVERRIDES, enum_words
from tests.web.conftest import BackgroundServer
from tests.web.test_frames import replay_data
from tests.web.test_pages import go_to_step

if TYPE_CHECKING:
    from playwright.sync_api import Page

SEED = 1


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A replay file of every game, at its largest player count."""
    folder = tmp_path_factory.mktemp("viewer-games")
    found = {}
    for game, cls in GAMES.items():
        path = folder / f"{game}.json"
        path.write_text(json.dumps(replay_data(game, max(cls.spec.player_counts), SEED)))
        found[game] = path
    return found


@contextmanager
def viewing(page: Page, replay: Path) -> Iterator[list[dict[str, Any]]]:
    """The viewer open on ``replay``, in the everything view; yields the states of its frames."""
    with BackgroundServer(replay_app(replay)) as server:
        page.goto(server.url)
        page.wait_for_selector("body[data-step='0'][data-mode='all']")
        yield [frame["state"] for frame in build_frames(json.loads(replay.read_text()), ALL)["frames"]]


def first_step(states: list[dict[str, Any]], holds: Any) -> int:
    return next(i for i, state in enumerate(states) if holds(state))


def test_the_assassination_games_hidden_piles_and_played_cards_are_cards_and_its_revealed_seats_are_named(page: Page, replays: dict[str, Path]) -> None:
    """The full state listed the reporter's decks and each seat's face-down card as card ids ("443, 437, 438…"), and the
    seats revealed as bare numbers."""
    with viewing(page, replays["assassination"]) as states:
        step = first_step(states, lambda s: s["revealed"] and any(seat["pending"] is not None for seat in s["seats"]) and s["reporter_events"])
        go_to_step(page, step)
        state = states[step]
        for pile in ("reporter_movement", "reporter_events"):
            shown = page.eval_on_selector_all(f"#table [data-field={pile}] .card", "cards => cards.map(c => c.dataset.card)")
            assert shown == state[pile], pile
        for seat in state["seats"]:
            pending = page.locator(f"#table section.player[data-seat='{seat['seat']}'] [data-field=pending]")
            if seat["pending"] is None:
                assert pending.inner_text() == "–"
            else:
                assert pending.locator(".card").get_attribute("data-card") == seat["pending"]
        named = page.locator("#table .fact[data-field=revealed] .seat-ref").all_inner_texts()
        assert named == [f"seat {s} (bot{s})" for s in state["revealed"]]


@pytest.mark.parametrize(("game", "holds", "fields"), [
    ("glory", lambda s: s["fight"] and s["fight"]["attacker_offers"] and s["fight"]["assists"], ("attacker_offers", "assists")),
    ("generals-and-assassins", lambda s: s["fight"] and s["fight"]["offers"], ("offers",)),
])  # fmt: skip
def test_the_offers_and_assists_of_a_fight_name_their_seats(page: Page, replays: dict[str, Path], game: str, holds: Any, fields: tuple[str, ...]) -> None:
    """Glory's offers and assists were rows of bare numbers ("0 | none", "4 | | none"), and Generals & Assassins' offers
    said "from 1 to 2": now each row names its seats, with their bots."""
    with viewing(page, replays[game]) as states:
        step = first_step(states, holds)
        go_to_step(page, step)
        fight = states[step]["fight"]
        for field in fields:
            rows = fight[field]
            seats = [row[key] for row in rows for key in ("seat", "assisted", "from_seat", "to_seat") if row.get(key) is not None]
            assert seats, (field, rows)
            named = page.locator(f"#table [data-field=fight] table.records[data-field={field}] .seat-ref").all_inner_texts()
            assert named == [f"seat {s} (bot{s})" for s in seats], field
        # a field the protocol abbreviates is spelled out on a player's panel: "hp 43", "vp 0" left a spectator guessing
        labels = page.eval_on_selector_all("#table section.player dt", "dts => dts.map(dt => dt.textContent)")
        assert "hit points" in labels and not {"hp", "vp"} & set(labels), labels


def test_an_enum_does_not_repeat_the_name_of_its_field(page: Page, replays: dict[str, Path]) -> None:
    """Land & Castle's phase read "phase PHASE CLAIM"; now "phase claim" ("phase game over" at the end: the game's words,
    words.py's OVERRIDES), its name kept in the title."""
    with viewing(page, replays["land-and-castle"]) as states:
        for step in (0, len(states) // 2, len(states) - 1):
            go_to_step(page, step)
            phase = states[step]["phase"]
            assert phase.startswith("PHASE_")
            shown = page.locator("#table .fact[data-field=phase] .enum")
            assert shown.inner_text() == enum_words("land-and-castle")[phase] == OVERRIDES.get(said := phase.removeprefix("PHASE_").lower(), said)
            assert shown.get_attribute("title") == phase


def test_an_enum_reads_in_the_games_words_and_an_actions_card_ids_as_cards(page: Page, replays: dict[str, Path]) -> None:
    """Glory's glory read "reason glory king defence" (the prefix its values share, GLORY_, kept), an attack "kind attack
    king", and a purchase "land ids 40 money ids 16" beside the event's cards."""
    data = json.loads(replays["glory"].read_text())
    with viewing(page, replays["glory"]):
        bought = 1 + next(i for i, taken in enumerate(data["actions"]) if "buy_land" in taken["action"])
        go_to_step(page, bought)
        action = data["actions"][bought - 1]["action"]["buy_land"]
        for field, called in (("land_ids", "lands"), ("money_ids", "money")):
            arg = page.locator(f"#step-info .action-line .arg[data-field={field}]")
            assert arg.locator(".arg-key").inner_text() == called
            assert arg.locator(".card").evaluate_all("cards => cards.map(c => Number(c.dataset.cardId))") == action[field]
        awarded = 1 + next(i for i, frame in enumerate(build_frames(data, ALL)["frames"][1:]) if any("glory_awarded" in e["event"] for e in frame["events"]))
        go_to_step(page, awarded)
        reasons = page.locator("#events li.event.now .arg[data-field=reason] .enum").all_inner_texts()
        assert reasons and not [r for r in reasons if r.startswith("glory ") or "_" in r], reasons
        kinds = page.locator("#events li.event .arg[data-field=kind] .enum").all_inner_texts()
        assert "attack on the king" in kinds or "conquest of a land" in kinds, kinds


def test_an_events_number_stays_apart_from_its_name_past_a_thousand_events(page: Page, replays: dict[str, Path]) -> None:
    """With four-digit numbers, "1645cards drawn": the number ran into the event's name."""
    with viewing(page, replays["generals-and-assassins"]) as states:
        go_to_step(page, len(states) - 1)
        gaps = page.eval_on_selector_all(
            "#events li.event",
            "lis => lis.map(li => [li.dataset.seq, li.querySelector('.kind').getBoundingClientRect().left - li.querySelector('.seq').getBoundingClientRect().right])",
        )
        assert any(int(seq) >= 1000 for seq, _ in gaps)
        close = [(seq, gap) for seq, gap in gaps if gap < 3]
        assert not close, f"events whose number touches their name: {close[:5]}"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_last_of_the_steps_events_is_in_sight(page: Page, replays: dict[str, Path], game: str) -> None:
    """The list was scrolled to centre the step's first event: a step of many (the last battle, the round's and the
    game's end) left how the game ended below the fold of the list."""
    with viewing(page, replays[game]) as states:
        for step in (0, len(states) // 2, len(states) - 1):
            go_to_step(page, step)
            seen = page.evaluate("""() => {
              const list = document.getElementById("events"), box = list.getBoundingClientRect();
              const now = [...list.querySelectorAll("li.now")].map((li) => li.getBoundingClientRect());
              return { top: box.top, bottom: box.bottom, first: now.length ? now[0].top : null, last: now.length ? now[now.length - 1].bottom : null };
            }""")
            if seen["last"] is None:
                continue  # no event this step
            assert seen["top"] - 1 <= seen["last"] <= seen["bottom"] + 1, (step, seen)
            if seen["last"] - seen["first"] <= seen["bottom"] - seen["top"]:
                assert seen["first"] >= seen["top"] - 1, (step, seen)  # the step's events fit the list: all of them show


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_result_heads_its_columns_and_says_what_the_score_counts(page: Page, replays: dict[str, Path], game: str) -> None:
    """The result's score was an unlabelled number, and in General's War for two it is not what ranks the seats."""
    with viewing(page, replays[game]) as states:
        go_to_step(page, len(states) - 1)
        assert page.eval_on_selector_all("#step-info .result th", "ths => ths.map(th => th.textContent)") == ["rank", "seat", "score"]
        assert page.get_attribute("#step-info .result th.num", "title") == GAMES[game].spec.score
        assert page.text_content("#step-info .score-meaning") == f"score: {GAMES[game].spec.score}"


def test_on_a_phone_the_step_and_its_events_come_before_the_table(page: Page, replays: dict[str, Path]) -> None:
    """In one column "This step" sat under the whole table, 2,700 pixels down in a four-seat General's War seat view."""
    page.set_viewport_size({"width": 390, "height": 844})
    with viewing(page, replays["generals-war"]) as states:
        go_to_step(page, len(states) // 2)
        tops = page.evaluate("""() => Object.fromEntries(["step-info", "events", "table"].map(
            (id) => [id, document.getElementById(id).getBoundingClientRect().top + window.scrollY]))""")
        assert tops["step-info"] < tops["events"] < tops["table"], tops
        assert tops["step-info"] < 844, tops  # on the first screen, under the controls
    page.set_viewport_size({"width": 1280, "height": 860})
    with viewing(page, replays["generals-war"]):
        boxes = page.evaluate("""() => Object.fromEntries(["step-info", "table"].map((id) => [id, document.getElementById(id).getBoundingClientRect().left]))""")
        assert boxes["table"] < boxes["step-info"], boxes  # on a desktop the table is on the left, the step beside it


def test_records_that_carry_their_position_are_not_numbered_again(page: Page, replays: dict[str, Path]) -> None:
    """A known card's table put a row number beside its "position" column ("0 3 8♦"); other records keep their number."""
    with viewing(page, replays["generals-war"]) as states:
        page.select_option("#mode", "0")  # a seat's view: what it knows of the face-down piles
        page.wait_for_selector("body[data-mode='0']")
        go_to_step(page, len(states) // 2)
        tables = page.eval_on_selector_all(
            "#table table.records", "ts => ts.map(t => [...t.tHead.rows[0].cells].map(th => th.textContent))"
        )
        positioned = [heads for heads in tables if "position" in heads]
        assert positioned, tables  # the known cards of a four-seat General's War, halfway
        assert all(heads[0] != "" for heads in positioned), positioned
        others = [heads for heads in tables if "position" not in heads]
        assert all(heads[0] == "row" for heads in others), others  # the row numbers' header, to a screen reader


def test_the_seat_whose_turn_it_is_in_glory_is_named_and_marked(page: Page, replays: dict[str, Path]) -> None:
    """Glory's "turn" is the seat whose turn it is (glory.proto), but read "turn 3", a bare number, and no panel said whose
    turn it was while another seat answered a fight. In the other games "turn" counts turns and stays a number."""
    with viewing(page, replays["glory"]) as states:
        step = first_step(states, lambda s: s["fight"] and s["turn"] > 0)
        go_to_step(page, step)
        turn = states[step]["turn"]
        for view in ("all", str((turn + 1) % 6)):
            if view != "all":
                page.select_option("#mode", view)
                page.wait_for_selector(f"body[data-mode='{view}'][data-step='{step}']")
            assert page.locator("#table .fact[data-field=turn] .seat-ref").inner_text() == f"seat {turn} (bot{turn})", view
            badges = page.locator(f"#table section.player[data-seat='{turn}'] h3 .badge.role").all_inner_texts()
            assert "turn" in badges, (view, badges)
    with viewing(page, replays["land-and-castle"]) as states:
        go_to_step(page, len(states) // 2)
        assert page.locator("#table .fact[data-field=turn] .seat-ref").count() == 0
        assert page.locator("#table .fact[data-field=turn] .n").inner_text() == str(states[len(states) // 2]["turn"])


def test_a_choice_of_nothing_says_none_in_the_events(page: Page, replays: dict[str, Path]) -> None:
    """Glory's "thwart chosen" or "assist chosen" with no cards (the assassin let through, the assist declined) showed the
    seat alone, as if he had thwarted or assisted: the empty list is the choice, and reads "cards none"."""
    data = json.loads(replays["glory"].read_text())
    frames = build_frames(data, ALL)["frames"]
    kinds = ("thwart_chosen", "assist_chosen", "defence_committed")
    step = next(i for i, f in enumerate(frames) if any(k in e["event"] and not e["event"][k]["cards"] for e in f["events"] for k in kinds))
    with viewing(page, replays["glory"]):
        go_to_step(page, step)
        empty = page.locator("#events li.event.now .arg[data-field=cards]").filter(has_text="none")
        assert empty.count() >= 1
        assert empty.first.locator(".arg-key").inner_text() == "cards"


def test_an_action_that_chose_nothing_says_none(page: Page, replays: dict[str, Path]) -> None:
    """A replay writes an action without its empty fields ({"defend": {}}): the step read "defend" alone, where the
    terminal at the keyboard read "defend: cards none"."""
    data = json.loads(replays["glory"].read_text())
    step = 1 + next(i for i, taken in enumerate(data["actions"]) if taken["action"] in ({"defend": {}}, {"thwart": {}}))
    with viewing(page, replays["glory"]):
        go_to_step(page, step)
        arg = page.locator("#step-info .action-line .arg[data-field=card_ids]")
        assert arg.locator(".arg-key").inner_text() == "cards" and "none" in arg.inner_text()


def test_the_viewer_says_none_for_the_empty_lists_its_frames_name(page: Page, replays: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Which empty lists say "none" comes with the frames (words.py EMPTY_TOLD, as "empty_told"), where the viewer kept a
    copy of its own: the viewer follows the frames, so that a list the table stops naming is left out in the browser too."""
    data = json.loads(replays["glory"].read_text())
    step = 1 + next(i for i, taken in enumerate(data["actions"]) if taken["action"] in ({"defend": {}}, {"thwart": {}}))
    monkeypatch.setattr(words, "EMPTY_TOLD", {})
    with viewing(page, replays["glory"]):
        go_to_step(page, step)
        assert page.locator("#step-info .action-line .arg[data-field=card_ids]").count() == 0


def test_records_that_count_themselves_are_not_numbered_again(page: Page, replays: dict[str, Path]) -> None:
    """The Assassination Game's pieces read "0 0 health services", "1 1 tower": a row number beside the piece's colour,
    which counts them 0, 1, 2… itself (and Generals & Assassins' rounds played "0 1", "1 2"). Land & Castle's lands, which
    nothing else numbers, keep theirs (an attack names "land 3")."""
    heads = "t => [...t.tHead.rows[0].cells].map(th => th.textContent)"
    with viewing(page, replays["assassination"]) as states:
        assert [p["colour"] for p in states[0]["pieces"]] == list(range(len(states[0]["pieces"])))
        assert page.eval_on_selector("#table table.records[data-field=pieces]", heads)[0] == "colour"
    with viewing(page, replays["land-and-castle"]):
        assert page.eval_on_selector("#table table.records[data-field=lands]", heads)[0] == "row"  # to a screen reader
    # Generals & Assassins' rounds played read "0 1", "1 2": a row number beside the round, which counts from 1
    with viewing(page, replays["generals-and-assassins"]) as states:
        go_to_step(page, first_step(states, lambda s: len(s["rounds_played"]) > 1))
        assert page.eval_on_selector("#table table.records[data-field=rounds_played]", heads)[0] == "round"


@pytest.mark.parametrize("game", ["generals-war", "assassination"])
def test_a_field_that_names_a_seat_says_seat_once(page: Page, replays: dict[str, Path], game: str) -> None:
    """An event's "seat" read "cards drawn seat seat 0 (bot0)", and the Assassination Game's "by_seat" "by seat seat 2
    (bot2)": the seat's name says "seat" already (the terminal's text never doubled it)."""
    with viewing(page, replays[game]) as states:
        go_to_step(page, len(states) - 1)
        events = page.inner_text("#events")
        assert "seat 0 (bot0)" in events and "seat seat" not in events


def test_glorys_fight_shows_a_mini_round_in_an_assassination_alone(page: Page, replays: dict[str, Path]) -> None:
    """Glory's fight gives every kind of attack's fields: a conquest and an attack on the king showed "mini round 1" and
    "presented none", which only an assassination has (referee/server/words.py KIND_FIELDS); and an assassination's
    "attack points", which count its assassins, say so."""
    fields = ("mini_round", "presented this mini round", "attack_points", "assassins presented", "attack_cards")
    with viewing(page, replays["glory"]) as states:
        for kind, expected in (("ATTACK_KING", (0, 0, 1, 0, 1)), ("ASSASSINATION", (1, 1, 0, 1, 1))):  # this playout conquers no land
            step = first_step(states, lambda s: s["fight"] is not None and s["fight"]["kind"] == kind)
            go_to_step(page, step)
            fight = page.locator("#table section[data-field=fight]")
            shown = tuple(fight.locator(f"dd[data-field='{f}']").count() for f in fields)
            assert shown == expected, (kind, dict(zip(fields, shown)))


def test_generals_and_assassins_second_assassin_reads_as_what_happened(page: Page, replays: dict[str, Path]) -> None:
    """The attacker who played no second assassin read "assassin declined seat 3 blocking no": the flag says whether
    the defender did not block or the attacker did not try again, and now says it in words (words.py FLAG_WORDS)."""
    frames = build_frames(json.loads(replays["generals-and-assassins"].read_text()), ALL)["frames"]
    step = next(i for i, f in enumerate(frames) if any(e["event"].get("assassin_declined", {}).get("blocking") is False for e in f["events"]))
    with viewing(page, replays["generals-and-assassins"]):
        go_to_step(page, step)
        declined = page.locator("#events li.event.now").filter(has_text="assassin declined")
        assert declined.locator(".arg[data-field=blocking]").inner_text() == "did not attempt the assassination again"
        assert "blocking" not in declined.inner_text()


def test_a_kind_named_alike_in_another_game_says_no_empty_choice(page: Page, replays: dict[str, Path]) -> None:
    """Glory's "defend" lists its cards, and says "cards none" when it lists none; Land & Castle's defence names one card,
    and read "defend card J♠ cards none" too. General's War's reveal of no ace read "reveal generals" alone, as a reveal."""
    data = json.loads(replays["land-and-castle"].read_text())
    step = 1 + next(i for i, taken in enumerate(data["actions"]) if "defend" in taken["action"])
    with viewing(page, replays["land-and-castle"]):
        go_to_step(page, step)
        line = page.locator("#step-info .action-line")
        assert line.locator(".arg[data-field=card_id]").count() == 1
        assert line.locator(".arg[data-field=card_ids]").count() == 0
    data = json.loads(replays["generals-war"].read_text())
    step = 1 + next(i for i, taken in enumerate(data["actions"]) if taken["action"] == {"reveal_generals": {}})
    with viewing(page, replays["generals-war"]):
        go_to_step(page, step)
        arg = page.locator("#step-info .action-line .arg[data-field=card_ids]")
        assert arg.locator(".arg-key").inner_text() == "cards" and "none" in arg.inner_text()


def test_the_events_list_does_not_stretch_the_page_below_the_viewer(page: Page, replays: dict[str, Path]) -> None:
    """A records table in an event (Glory's offers) heads its row numbers with a hidden "row", placed absolutely: placed by
    the page rather than its cell, those of events scrolled far down the events list stretched a five-player Glory page
    to 14,000 pixels, most of it blank below the viewer."""
    with viewing(page, replays["glory"]) as states:
        go_to_step(page, len(states) - 1)
        assert page.locator("#events table.records").count() > 0
        below = page.evaluate("() => document.documentElement.scrollHeight - (document.querySelector('#viewer').getBoundingClientRect().bottom + scrollY)")
        assert below < 200, f"{below} pixels of page below the viewer"
