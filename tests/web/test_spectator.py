"""What a spectator meets in Chromium, against a ladder that has played real matches: the viewer between two views, with
the keyboard and at a phone's width, its events naming each seat's bot, the rating chart and the leaderboard on a phone,
and the front page to a screen reader."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ladder.web.routes import replay_app
from referee.core.cards import card_str
from referee.games.registry import GAMES
from referee.server.replay import load_replay
from tests.support import ROOT, SAMPLE_BOTS
from tests.web.conftest import GAME, BackgroundServer, ServedLadder, settled_matches
from tests.web.test_frames import steps
from tests.web.test_pages import dom_cards, go_to_step

if TYPE_CHECKING:
    from playwright.sync_api import Page

# Holds back the frames of seat 0 until the test calls window.releaseSeatFrames(): the time a long replay takes the
# server to re-play, made as long as the test needs.
HOLD_SEAT_FRAMES = """
(() => {
  const fetch0 = window.fetch;
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  window.releaseSeatFrames = () => release();
  window.fetch = (url, options) => (String(url).includes("frames?seat=0") ? held.then(() => fetch0(url, options)) : fetch0(url, options));
})();
"""


def test_while_a_seats_frames_load_nothing_of_the_everything_view_is_drawn_as_that_seats(page: Page, served: ServedLadder) -> None:
    with served.ladder.make() as db:
        match = db.scalars(settled_matches()).first()
        assert match is not None and match.replay_path
    hidden_from_0 = [{card_str(c) for c in game.hidden_cards(0)} for game, _ in steps(load_replay(served.file(match.replay_path)))]
    page.add_init_script(HOLD_SEAT_FRAMES)
    page.goto(f"{served.url}/matches/{match.id}")
    page.wait_for_selector("body[data-step='0'][data-mode='all']")
    page.select_option("#speed", "8")
    page.click("#play")  # autoplay goes on ticking while the seat's frames load
    page.select_option("#mode", "0")
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(600)  # several autoplay ticks at 8x
    names, _ = dom_cards(page)
    shown = names & set().union(*hidden_from_0)
    assert not shown, f"as seat 0, before its frames came, the page showed {sorted(shown)}"
    page.evaluate("window.releaseSeatFrames()")
    page.wait_for_selector("body[data-mode='0']")
    assert "as seat 0" in page.inner_text("#table-title")


def test_the_rating_chart_keeps_readable_labels_and_its_legend_on_a_phone(page: Page, served: ServedLadder) -> None:
    """The chart is drawn as wide as its panel: a fixed 720-wide drawing scaled into a phone's panel had 5-pixel labels."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{served.url}/bots/gw-greedy")
    page.wait_for_selector("body[data-ready] svg.rating-chart")
    sizes = page.eval_on_selector_all("svg.rating-chart .axis text", "els => els.map(e => e.getBoundingClientRect().height)")
    assert sizes and min(sizes) >= 10, f"axis labels {min(sizes):.1f} pixels high"
    chart = page.locator("svg.rating-chart").bounding_box()
    legend = page.locator("svg.rating-chart .legend").bounding_box()
    assert chart is not None and legend is not None
    assert legend["x"] + legend["width"] <= chart["x"] + chart["width"], "the legend runs past the chart"


def played_replay(tmp: Path, game: str, bots: list[Path], seed: int) -> Path:
    """The replay of a match played by ``arena match`` (bot processes over gRPC)."""
    replay = tmp / f"{game}.json"
    command = [sys.executable, "-m", "arena.cli.main", "match", game, *map(str, bots)]
    command += ["--seed", str(seed), "--replay", str(replay), "--log-dir", str(tmp / "logs"), "--json"]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=300)
    return replay


@pytest.fixture(scope="module")
def assassination_replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A replay of The Assassination Game: its state has tables of records (the pieces, the rooms they visited)."""
    return played_replay(tmp_path_factory.mktemp("assassination"), "assassination", [SAMPLE_BOTS / "random"] * 4, seed=5)


@pytest.fixture(scope="module")
def glory_replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A replay of Glory between two bots: its first event, the draw for the first player, lists the seats that drew."""
    return played_replay(tmp_path_factory.mktemp("glory"), "glory", [SAMPLE_BOTS / "glory_heuristic", SAMPLE_BOTS / "random"], seed=5)


def event_texts(page: Page, kind: str) -> list[str]:
    """The text of every listed event of ``kind`` (its label, as the page writes it)."""
    found: list[str] = page.eval_on_selector_all("#events li.event", "(lis, kind) => lis.filter(li => li.querySelector('.kind').textContent === kind).map(li => li.innerText)", kind)
    return found


def test_an_events_seats_are_named_with_their_bots_and_as_text(page: Page, glory_replay: Path, tmp_path: Path) -> None:
    """The draw for the first player said "seats 0, 1", the game's end "winners 0", and a private event "seen by 1 random"."""
    names = [seat["name"] for seat in json.loads(glory_replay.read_text())["seats"]]
    assert names == ["glory-heuristic", "random"]
    with BackgroundServer(replay_app(glory_replay)) as server:
        page.goto(server.url)
        page.wait_for_selector("body[data-step='0'][data-mode='all']")
        (draw,) = event_texts(page, "first player draw")
        assert "seats seat 0 (glory-heuristic), seat 1 (random)" in draw, draw
        told = [text for text in event_texts(page, "cards drawn") if "seen by" in text]
        # each draw once, with its cards and what the others were told (a count): once listed again as that count
        assert told and all(re.search(r"seen by seat \d \((glory-heuristic|random)\); the others were told it without its cards$", text) for text in told), told
        assert len(told) == len(event_texts(page, "cards drawn")), "a draw listed again as the others were told it"
        go_to_step(page, int(page.get_attribute("#scrub", "max") or 0))
        (end,) = event_texts(page, "game ended")
        assert "winners seat 0 (glory-heuristic)" in end, end
        headings = [text.split(" rank ")[0].strip() for text in page.locator("section.player h3").all_inner_texts()]
        assert headings == ["Seat 0 (glory-heuristic)", "Seat 1 (random)"], headings  # the panels name seats alike
    # A replay file may come from anywhere, and a name in it with markup is shown as it is, never as HTML.
    hostile = ["<img src=x onerror=\"window.injected = 1\">", "<i>random</i>"]
    data = json.loads(glory_replay.read_text())
    for seat, name in zip(data["seats"], hostile, strict=True):
        seat["name"] = name
    renamed = tmp_path / "glory.json"
    renamed.write_text(json.dumps(data))
    with BackgroundServer(replay_app(renamed)) as server:
        page.goto(server.url)
        page.wait_for_selector("body[data-step='0'][data-mode='all']")
        (draw,) = event_texts(page, "first player draw")
        assert f"seats seat 0 ({hostile[0]}), seat 1 ({hostile[1]})" in draw, draw
        assert page.locator("#events img, #events i").count() == 0
        assert page.evaluate("window.injected") is None


def test_a_table_of_records_scrolls_in_its_panel_rather_than_widen_the_viewer_on_a_phone(page: Page, assassination_replay: Path) -> None:
    with BackgroundServer(replay_app(assassination_replay)) as server:
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(server.url)
        page.wait_for_selector("body[data-step='0'][data-mode='all']")
        last = int(page.get_attribute("#scrub", "max") or 0)
        for step in (0, last // 2, last):
            go_to_step(page, step)
            assert page.locator("table.records").count() > 0
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"step {step}: the page is {width} pixels wide on a 390-pixel screen"


def test_the_arrow_keys_step_and_space_plays_wherever_the_focus_was_left(page: Page, served: ServedLadder) -> None:
    """Just chosen, the view list keeps the focus: → stepped nothing and showed the next seat's view instead; on the
    slider, space did nothing."""
    with served.ladder.make() as db:
        match = db.scalars(settled_matches()).first()
        assert match is not None
    page.goto(f"{served.url}/matches/{match.id}")
    page.wait_for_selector("body[data-step='0'][data-mode='all']")
    page.select_option("#mode", "0")
    page.wait_for_selector("body[data-mode='0']")
    # (the focused control, the key, what the page shows then)
    for focused, key, then in (
        ("#mode", "ArrowRight", "body[data-step='1'][data-mode='0']"),
        ("#mode", "ArrowLeft", "body[data-step='0'][data-mode='0']"),
        ("#mode", "ArrowDown", "body[data-step='0'][data-mode='1']"),  # the list itself still chooses with ↑ and ↓
        ("#scrub", "ArrowRight", "body[data-step='1']"),  # the slider's own step
        ("#scrub", " ", "#play.playing"),
        ("#scrub", " ", "#play:not(.playing)"),
    ):
        page.focus(focused)
        page.keyboard.press(key)
        page.wait_for_selector(then)


def test_the_front_page_redraws_no_live_region_that_a_screen_reader_would_read_out_again(page: Page, served: ServedLadder) -> None:
    """The game cards are redrawn every 15 s, changed or not: marked aria-live, a screen reader read the whole grid out
    each time."""
    page.clock.install()
    page.goto(served.url)
    page.wait_for_selector("#games .game-card")
    page.evaluate("""() => {
      window.liveChanges = 0;
      const seen = new MutationObserver((records) => { window.liveChanges += records.length; });
      for (const region of document.querySelectorAll("[aria-live]")) seen.observe(region, { childList: true, subtree: true, characterData: true });
    }""")
    page.clock.run_for(31_000)  # two redraws of the games, six of the latest matches
    page.wait_for_timeout(500)
    assert page.evaluate("window.liveChanges") == 0


# A table's headers as drawn (display: none leaves them out), and how the table sits in its panel.
TABLE_LAYOUT = """(selector) => {
  const table = document.querySelector(selector);
  const panel = table.parentElement;
  const style = getComputedStyle(panel);
  const inside = panel.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const shown = (cell) => cell.getClientRects().length > 0 && cell.getBoundingClientRect().right <= table.getBoundingClientRect().left + inside + 0.5;
  return {
    headers: [...table.tHead.rows[0].cells].filter(shown).map((th) => th.textContent),
    cells: [...table.tBodies[0].rows].map((tr) => [...tr.cells].filter(shown).length),
    tableWidth: table.scrollWidth,
    panelInside: inside,
    pageWidth: document.documentElement.scrollWidth,
  };
}"""
EVERY_COLUMN = ["#", "Bot", "Owner", "Version", "μ", "σ", "Rating", "Games", "Last match"]


def test_the_leaderboard_fits_a_phone_with_rank_bot_rating_and_games_and_shows_every_column_on_a_desktop(page: Page, served: ServedLadder) -> None:
    """At 390 pixels the owner, version, μ, σ and last-match columns made the standings scroll sideways in their panel."""
    page.goto(f"{served.url}/games/{GAME}")
    page.wait_for_selector("#standings tbody tr")
    desktop = page.evaluate(TABLE_LAYOUT, "#standings")
    assert desktop["headers"] == EVERY_COLUMN and set(desktop["cells"]) == {len(EVERY_COLUMN)}
    page.set_viewport_size({"width": 390, "height": 844})
    phone = page.evaluate(TABLE_LAYOUT, "#standings")
    assert phone["tableWidth"] <= phone["panelInside"], f"the standings are {phone['tableWidth']} pixels wide in a {phone['panelInside']}-pixel panel"
    assert phone["pageWidth"] <= 390, f"the page is {phone['pageWidth']} pixels wide on a 390-pixel screen"
    assert {"#", "Bot", "Rating", "Games"} <= set(phone["headers"]), phone["headers"]
    assert set(phone["cells"]) == {len(phone["headers"])}, "every row shows a cell under each header shown"
    # μ and σ, out of sight, are still on the page: in the rating's title (and on the bot's own page, a tap away)
    for row in served.get(f"/api/games/{GAME}/standings").json():
        title = page.get_attribute(f"#standings tr[data-bot='{row['bot']}'] [data-field=conservative]", "title") or ""
        assert f"μ {row['mu']:.2f}" in title and f"σ {row['sigma']:.2f}" in title, title


def test_the_latest_matches_keep_each_result_in_sight_on_a_phone(page: Page, served: ServedLadder) -> None:
    """At 390 pixels the game, kind and finished columns pushed the results out of the panel (they scrolled sideways):
    on a phone those three fold into a line under each match's number."""
    page.goto(served.url)
    page.wait_for_selector("#recent tbody tr")
    desktop = page.evaluate(TABLE_LAYOUT, "#recent table")
    assert desktop["headers"] == ["Match", "Game", "Kind", "Finished", "Result (rank. bot score)"]
    assert page.eval_on_selector_all("#recent .folded", "spans => spans.filter(s => s.getClientRects().length).length") == 0
    # the game by its name, as the navigation bar and the cards above name it: "generals-and-assassins" was its id
    name = GAMES[GAME].spec.name
    assert set(page.eval_on_selector_all("#recent tbody td.secondary a", "links => links.map(a => a.textContent)")) == {name}
    page.set_viewport_size({"width": 390, "height": 844})
    phone = page.evaluate(TABLE_LAYOUT, "#recent table")
    assert phone["tableWidth"] <= phone["panelInside"], f"the matches are {phone['tableWidth']} pixels wide in a {phone['panelInside']}-pixel panel"
    assert phone["pageWidth"] <= 390 and phone["headers"] == ["Match", "Result (rank. bot score)"], phone
    assert set(phone["cells"]) == {2}, "every row shows its match and its result"
    shown = {int(row["id"]): row for row in served.get("/api/matches", limit=100).json()}
    for match_id, folded in page.eval_on_selector_all("#recent tbody tr", "rows => rows.map(r => [r.dataset.match, r.querySelector('.folded').textContent])"):
        assert folded.startswith(f"{name} · {shown[int(match_id)]['kind']} · "), folded


def board_seen(page: Page) -> dict[str, list[tuple[str, str]]]:
    """Each place of the drawn board and its tokens (data-colour or "president", and the title), its own, not those of a
    place drawn inside it."""
    found: dict[str, list[tuple[str, str]]] = page.eval_on_selector_all(
        "#table .board .place[data-place]",
        """places => Object.fromEntries(places.map(p => [p.dataset.place,
            [...p.querySelector(':scope > .tokens').children].map(t => [t.dataset.colour ?? 'president', t.title])]))""",
    )
    return found


def test_the_assassination_board_puts_every_piece_and_the_president_in_their_room_for_each_view(page: Page, assassination_replay: Path) -> None:
    """The pieces were a table of rooms; the board draws them where the state shown puts them, and names whose piece is
    whose only where that state does: everyone's in the full view, a seat's own in its view."""
    from referee.server.frames import ALL, build_frames

    data = load_replay(assassination_replay)
    with BackgroundServer(replay_app(assassination_replay)) as server:
        page.goto(server.url)
        page.wait_for_selector("body[data-step='0'][data-mode='all']")
        for mode, seat in (("all", ALL), ("2", 2)):
            if mode != "all":
                page.select_option("#mode", mode)
                page.wait_for_selector(f"body[data-mode='{mode}']")
            frames = build_frames(data, seat)
            assert frames["board"]["inside"] == {"HOLDING_CELL": "SECURITY_OFFICE"}
            states = [frame["state"] for frame in frames["frames"]]
            # The first step at which each room holds a piece or the president, one with a piece off the board, the last.
            firsts: dict[object, int] = {}
            for i, s in enumerate(states):
                for room in [p.get("room") for p in s["pieces"]] + [s["president"]["room"]]:
                    firsts.setdefault(room, i)
            assert "HOLDING_CELL" in firsts and None in firsts and len(firsts) >= 8, firsts
            for step in sorted({0, *firsts.values(), len(states) - 1}):
                go_to_step(page, step)
                state = states[step]
                drawn = board_seen(page)
                rows = frames["board"]["grid"]
                assert set(drawn) == {room for row in rows for room in row if room} | {"HOLDING_CELL"}
                expected = {room: sorted(str(p["colour"]) for p in state["pieces"] if p.get("room") == room) for room in drawn}
                expected[state["president"]["room"]].append("president")
                assert {room: sorted(t for t, _ in tokens) for room, tokens in drawn.items()} == {r: sorted(e) for r, e in expected.items()}, step
                titles = {t: title for tokens in drawn.values() for t, title in tokens if t != "president"}
                if seat == ALL:
                    owner = {s["colour"]: f"seat {i} (random)" for i, s in enumerate(state["seats"])} | {state["reporter_colour"]: "the reporter"}
                    assert all(owner[int(c)] in title for c, title in titles.items()), titles
                else:  # its own piece is marked; no title names the owner of another
                    assert all(("yours" in title) == (int(c) == state["colour"]) and "seat" not in title for c, title in titles.items()), titles
                gone = [p["colour"] for p in state["pieces"] if p.get("room") is None]
                shown = page.locator("#table .off-board")
                assert (shown.count() == 1 and all(f"piece {c}" in shown.inner_text() for c in gone)) if gone else shown.count() == 0
        # a piece's colour is no seat's (it is dealt in secret): the pieces are drawn alike, in no seat's colour
        fills = set(page.eval_on_selector_all("#table .token.piece", "ts => ts.map(t => getComputedStyle(t).backgroundColor)"))
        seat_colours = set(page.evaluate("""() => [...Array(8).keys()].map(i => {
            const e = document.body.appendChild(document.createElement("span"));
            e.style.color = `var(--s${i})`;
            const colour = getComputedStyle(e).color;
            e.remove();
            return colour;
        })"""))
        assert len(fills) == 1 and seat_colours and not fills & seat_colours, (fills, seat_colours)
        # at a phone's width each place's name stays inside its place: "COURTYARD" ran over the hall's border
        page.set_viewport_size({"width": 390, "height": 844})
        over = page.eval_on_selector_all("#table .place-name", "names => names.filter(n => n.scrollWidth > n.clientWidth).map(n => n.textContent)")
        assert over == [], over
