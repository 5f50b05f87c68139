"""Golden playthroughs: every seat's view and decision at every step of a few seeded games.

The first FULL_STEPS steps keep the views and decisions in full, so a diff
reads easily; later steps keep their SHA-256 (long games would otherwise write
tens of megabytes). Actions and events are always kept in full.

``python -m tests.golden_playthrough`` regenerates tests/golden/; tests/test_golden.py
regenerates in memory and diffs against the files, so any change in behaviour shows.

The files also pin each game's rules version (``GameSpec.rules_version``, which replays carry):
``rules_versions.json`` names the version they were written under, and while it is the game's
version their recorded actions must re-play to their recorded events. A change of the rules that
makes them re-play otherwise must raise the version, or old replays would fail to re-play with no
word of why; the regeneration refuses to write over them until it is raised.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

from referee.games.registry import GAMES
from referee.protocol.messages import GameCodec

GOLDEN = Path(__file__).resolve().parent / "golden"
VERSIONS = GOLDEN / "rules_versions.json"
SEEDS = (1, 2)
FULL_STEPS = 40


def configs() -> Iterator[tuple[str, int, int]]:
    for game_id, cls in GAMES.items():
        for n in cls.spec.player_counts:
            for seed in SEEDS:
                yield game_id, n, seed


def path_for(game_id: str, n: int, seed: int) -> Path:
    return GOLDEN / game_id / f"{n}p-seed{seed}.jsonl"


def digest(obj: object) -> str:
    return "sha256:" + hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:32]


def playthrough(game_id: str, n: int, seed: int) -> list[str]:
    """One JSON line per step: who acts, every seat's view, the acting seats' decisions, the action and its events."""
    from google.protobuf import json_format

    cls = GAMES[game_id]
    game = cls(n, seed)
    codec = GameCodec(cls)
    rng = random.Random(seed)

    def js(msg: object) -> object:
        return json_format.MessageToDict(msg, preserving_proto_field_name=True)  # type: ignore[arg-type]

    lines = [json.dumps({"opening": [codec.event_to_json(e, i) for i, e in enumerate(game.opening_events())]}, sort_keys=True)]
    step = 0
    while not game.is_over():
        acting = game.to_act()
        seat = rng.choice(acting)
        action = game.random_action(seat, rng)
        views: list[object] = [codec.view_to_json(game.view(s)) for s in range(n)]
        decisions: dict[str, object] = {str(s): js(codec.decision(game.decision(s))) for s in acting}
        if step >= FULL_STEPS:
            views = [digest(v) for v in views]
            decisions = {s: digest(d) for s, d in decisions.items()}
        entry = {
            "step": step,
            "to_act": list(acting),
            "views": views,
            "decisions": decisions,
            "seat": seat,
            "action": codec.action_to_json(action),
        }
        entry["events"] = [codec.event_to_json(e, 0) for e in game.apply(seat, action)]
        lines.append(json.dumps(entry, sort_keys=True))
        step += 1
    result = game.result()
    lines.append(json.dumps({"ranks": list(result.ranks), "scores": list(result.scores)}, sort_keys=True))
    return lines


def written_under() -> dict[str, int]:
    """The rules version each game's golden files were written under."""
    return dict(json.loads(VERSIONS.read_text())) if VERSIONS.exists() else {}


def replays_otherwise(game_id: str, n: int, seed: int, lines: list[str]) -> str | None:
    """Where a golden file's recorded actions, re-played from its seed under today's rules, give other events
    (or are refused); None when they give the recorded ones."""
    from google.protobuf import json_format

    first = json.loads(lines[0])
    cls = GAMES[game_id]
    game = cls(n, seed)
    codec = GameCodec(cls)
    if [codec.event_to_json(e, i) for i, e in enumerate(game.opening_events())] != first["opening"]:
        return "the opening's events"
    for line in lines[1:-1]:
        entry = json.loads(line)
        try:
            events = [codec.event_to_json(e, 0) for e in game.apply(entry["seat"], codec.action_from_json(entry["action"]))]
        except (ValueError, json_format.ParseError) as exc:
            return f"step {entry['step']}: the action is refused ({exc})"
        if events != entry["events"]:
            return f"step {entry['step']}: the events"
    result = game.result()
    if json.loads(lines[-1]) != {"ranks": list(result.ranks), "scores": list(result.scores)}:
        return "the result"
    return None


def main() -> int:
    wanted = set(sys.argv[1:])
    versions = written_under()
    found = dict(versions)  # as read: once a game's first file is written under a raised version, its others are too
    refused = []
    for game_id, n, seed in configs():
        if wanted and game_id not in wanted:
            continue
        path = path_for(game_id, n, seed)
        current = GAMES[game_id].spec.rules_version
        if path.exists() and found.get(game_id) == current and (where := replays_otherwise(game_id, n, seed, path.read_text().splitlines())):
            refused.append(f"{path.relative_to(GOLDEN.parent.parent)}: its actions re-play otherwise ({where})")
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(playthrough(game_id, n, seed)) + "\n")
        versions[game_id] = current
        print(f"wrote {path.relative_to(GOLDEN.parent.parent)}")
    VERSIONS.write_text(json.dumps(dict(sorted(versions.items())), indent=2) + "\n")
    for line in refused:
        print(f"not written: {line}; the rules changed what a recorded match does, so raise the game's rules_version"
              " (its SPEC) and say why in docs/games/, then regenerate", file=sys.stderr)
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
