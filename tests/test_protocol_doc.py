"""docs/protocol.md names what the .proto files and the referee define, so that a bot written from the guide works.

The table "Decision kinds per game" must list, for every game, exactly the kinds of its ``Decision`` oneof and the
answers of its ``Action`` oneof; the error codes and verdict kinds the guide names must be the protocol's; and the
status table of "The stream" must name gRPC status codes that exist. A kind renamed or added in a .proto and not in
the guide left a bot author looking for a message that is not there. Its examples for authors without an SDK run as
written: the JavaScript bot plays a match, and the Go generation command (when protoc's Go plugins are here) makes
one package per file.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
from pathlib import Path

import grpc
import pytest

from arena.v1 import referee_pb2 as pb
from referee.games.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "protocol.md").read_text()


def kinds_table(doc: str) -> dict[str, tuple[set[str], set[str]]]:
    """Per game id, the decision kinds (left of each arrow) and the actions (right of it) of the table's row."""
    rows: dict[str, tuple[set[str], set[str]]] = {}
    for game, cells in re.findall(r"^\| ([a-z-]+) \| (`.*) \|$", doc, re.M):
        decisions: set[str] = set()
        actions: set[str] = set()
        for part in cells.split(";"):
            asked, _, answered = part.partition("→")
            decisions |= set(re.findall(r"`(\w+)`", asked))
            actions |= set(re.findall(r"`(\w+)`", answered))
        rows[game] = (decisions, actions)
    return rows


def oneof(module: str, message: str) -> set[str]:
    descriptor = getattr(importlib.import_module(f"arena.v1.{module}_pb2"), message).DESCRIPTOR
    return {field.name for field in descriptor.oneofs_by_name["kind"].fields}


def test_the_table_has_a_row_per_game() -> None:
    assert set(kinds_table(DOC)) == set(GAMES)


@pytest.mark.parametrize("game", list(GAMES))
def test_a_games_row_lists_its_decision_kinds_and_actions(game: str) -> None:
    decisions, actions = kinds_table(DOC)[game]
    module = game.replace("-", "_")
    assert decisions == oneof(module, "Decision")
    assert actions == oneof(module, "Action")


def test_a_row_that_leaves_out_a_kind_is_told() -> None:
    doc = "| glory | `turn_choice` → `buy_land`, `heal`; `offer_choice` → `make_offers` |\n"
    decisions, actions = kinds_table(doc)["glory"]
    assert decisions == {"turn_choice", "offer_choice"} and actions == {"buy_land", "heal", "make_offers"}
    assert decisions != oneof("glory", "Decision")


def test_the_error_codes_and_verdict_kinds_named_are_the_protocols() -> None:
    errors = set(pb.ErrorCode.keys()) - {"ERROR_CODE_UNSPECIFIED"}
    verdicts = set(pb.VerdictKind.keys()) - {"VERDICT_KIND_UNSPECIFIED"}
    for name in errors | verdicts:
        assert f"`{name}`" in DOC, f"docs/protocol.md never names {name}"
    named = set(re.findall(r"`([A-Z][A-Z_]{3,})`", DOC))
    statuses = {code.name for code in grpc.StatusCode}
    # The variables a bot is started with are set by the referee's launchers.
    launchers = "".join(p.read_text() for p in (ROOT / "referee" / "server").glob("*.py"))
    variables = {name for name in named if f'"{name}"' in launchers}
    unknown = named - errors - verdicts - statuses - variables - {"GOAWAY"}  # GOAWAY: HTTP/2's frame, not the protocol's
    assert unknown == set(), f"docs/protocol.md names what the protocol does not define: {sorted(unknown)}"


def test_request_ids_count_from_1_in_a_match_as_the_guide_says_so_a_javascript_number_holds_them() -> None:
    """The guide said to load request_id in JavaScript as a string or a BigInt, "not a Number", where the TypeScript
    SDK loads it as a number: it now says why a number will do, which holds as long as the ids are counted so."""
    from tests.test_session import driver_answers, run_session

    assert "The referee counts a match's requests from 1" in " ".join(DOC.split())
    _, links = run_session([driver_answers(1), driver_answers(2)])
    ids = sorted(int(d.request_id) for link in links for d in link.of("decision"))
    assert ids[0] == 1 and ids[-1] == len(set(ids)) < 2**53, "every id from 1, none skipped (a re-sent request repeats one)"


def test_the_go_command_of_the_guide_generates_one_package_per_file(tmp_path: Path) -> None:
    """protoc-gen-go refused the .proto files ("unable to determine Go import path": they set no go_package) and the
    guide was silent; its command must map every file, each to a package of its own (one for all clashes on the
    games' View and Action, and referee.proto with cards.proto makes an import cycle through the games)."""
    assert not re.search(r"^option go_package", "".join(p.read_text() for p in (ROOT / "proto").rglob("*.proto")), re.M), (
        "a .proto sets go_package now: the guide's Go paragraph is out of date"
    )
    if not all(shutil.which(tool) for tool in ("protoc", "protoc-gen-go", "protoc-gen-go-grpc")):
        pytest.skip("protoc, protoc-gen-go and protoc-gen-go-grpc (Debian: protobuf-compiler, protoc-gen-go, protoc-gen-go-grpc)")
    block = re.search(r"For Go, .*?```sh\n(.*?)```", DOC, re.S)
    assert block, "the guide's Go command"
    shutil.copytree(ROOT / "proto", tmp_path / "proto")
    subprocess.run(["bash", "-euc", block.group(1)], cwd=tmp_path, check=True, capture_output=True, text=True)
    made = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "arena").rglob("*.go"))
    names = sorted(p.stem for p in (ROOT / "proto" / "arena" / "v1").glob("*.proto"))
    assert made == sorted([f"arena/{n}/{n}.pb.go" for n in names] + ["arena/referee/referee_grpc.pb.go"])


SDK_MODULES = ROOT / "sdk" / "typescript" / "node_modules"


@pytest.mark.skipif(
    (shutil.which("node") is None or not (SDK_MODULES / "@grpc" / "proto-loader").is_dir()) and not os.environ.get("CI"),
    reason="needs Node.js and the TypeScript SDK's packages (npm ci)",
)
def test_the_javascript_example_of_the_guide_plays_a_match(tmp_path: Path) -> None:
    """The guide's bot "In JavaScript" is what a newcomer copies first: it must connect, answer and hang up as
    written. Land & Castle lists every decision's actions (at most 28), so its first legal action always does."""
    import asyncio

    from referee.server.runner import MatchSetup, run_local_match
    from referee.server.session import TimeControl
    from tests.support import SAMPLE_BOTS

    example = re.search(r"## In JavaScript\n.*?```js\n(.*?)```", DOC, re.S)
    assert example, "the guide's JavaScript example"
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.js").write_text(example.group(1))
    shutil.copytree(ROOT / "proto", bot / "proto")
    (bot / "node_modules").symlink_to(SDK_MODULES)  # @grpc/grpc-js and @grpc/proto-loader, as `npm install` puts them
    (bot / "bot.toml").write_text('name = "js-example"\nversion = "1"\nlanguage = "javascript"\ngames = ["land-and-castle"]\ncommand = ["node", "bot.js"]\n')
    tc = TimeControl(move_time_ms=2000, time_bank_ms=10_000, strike_limit=3)
    played = asyncio.run(run_local_match(MatchSetup("land-and-castle", [bot, SAMPLE_BOTS / "random"], 5, {}, tc, tmp_path / "logs", "process")))
    log = played.logs[0].read_text(errors="replace")
    assert played.record.game.is_over()
    assert not played.record.result.seats[0].verdicts, log[-3000:]
    assert not any(a.auto for a in played.record.actions if a.seat == 0), "the referee played for the example"


def test_the_manifest_of_the_guide_is_one_the_referee_reads(tmp_path: Path) -> None:
    """A bot author without an SDK found the manifest's keys only in docs/bots.md, the Python SDK's guide: the
    protocol's guide now shows one, which must stay a manifest the referee takes, with a command it can find."""
    from referee.server.manifest import load_manifest

    example = re.search(r"## Starting\n.*?```toml\n(.*?)```", DOC, re.S)
    assert example, "the guide's Starting section shows a bot.toml"
    (tmp_path / "bot.toml").write_text(example.group(1))
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "bot").write_text("#!/bin/sh\n")
    (tmp_path / "build" / "bot").chmod(0o755)
    manifest = load_manifest(tmp_path)
    assert manifest.language == "other" and set(manifest.games) <= set(GAMES)


def test_the_default_actions_the_guide_cites_are_each_games_ruling_on_it() -> None:
    """The guide said "the game's default action is played" with no word of what it is: it now cites each game's
    ruling, which must exist and be the one on the default action, one per game."""
    timing = " ".join(DOC.split("## Timing", 1)[1].split("## ", 1)[0].split())
    cited = re.search(r"each game's rulings tell which: ([A-Z]+-\d+(?:, [A-Z]+-\d+)*) in `docs/games/`", timing)
    assert cited, "the Timing section cites the rulings on the default action"
    rulings = {}
    for page in (ROOT / "docs" / "games").glob("*.md"):
        for number, text in re.findall(r"^([A-Z]+-\d+)\. (.*)$", page.read_text(), re.M):
            rulings[number] = (page.stem, text)
    games = set()
    for number in cited.group(1).split(", "):
        assert number in rulings, f"{number} is no ruling in docs/games/"
        game, text = rulings[number]
        assert "default action" in text, f"{number} ({game}) is not the ruling on the default action"
        games.add(game)
    assert games == set(GAMES), "one ruling per game"
