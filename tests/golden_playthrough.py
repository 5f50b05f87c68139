"""Golden playthroughs: every seat's view and decision at every step of a few seeded games.

The first FULL_STEPS steps keep the views and decisions in full, so a diff
reads easily; later steps keep their SHA-256 (long games would otherwise write
tens of megabytes). Actions and events are always kept in full.

``python -m tests.golden_playthrough`` regenerates tests/golden/; tests/test_golden.py
regenerates in memory and diffs against the files, so any change in behaviour shows.
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


def main() -> int:
    wanted = set(sys.argv[1:])
    for game_id, n, seed in configs():
        if wanted and game_id not in wanted:
            continue
        path = path_for(game_id, n, seed)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(playthrough(game_id, n, seed)) + "\n")
        print(f"wrote {path.relative_to(GOLDEN.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
