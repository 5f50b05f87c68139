"""The peers' engines, driven the same way as ours: random legal play, steps per second.

OpenSpiel (C++ engines behind pybind11): each step asks the state for the
current player's legal actions and its observation (or information state) string, the view, then
applies a random one; chance nodes are sampled and not counted as steps.
RLCard (pure Python): ``env.step`` builds the next player's state (its view
and legal actions) after every action, which is what we count.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable


def openspiel_steps_per_second(game_name: str, seconds: float = 3.0) -> tuple[float, int] | None:
    """Decisions per second in OpenSpiel's ``game_name``; None when open_spiel is not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(game_name)
    info = game.get_type()
    # the acting seat's view: its observation when the game has one, else its information state
    view = "observation_string" if info.provides_observation_string else "information_state_string"
    rng = random.Random(0)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choice(outcomes)[0])
                continue
            player = state.current_player()
            getattr(state, view)(player)
            state.apply_action(rng.choice(state.legal_actions(player)))
            steps += 1
        games += 1
    return steps / (time.perf_counter() - start), games


def rlcard_steps_per_second(env_id: str, seconds: float = 3.0) -> tuple[float, int] | None:
    """Decisions per second in RLCard's ``env_id``; None when rlcard is not installed."""
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make(env_id, config={"seed": 0})
    rng = random.Random(0)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state, _player = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"].keys())
            state, _player = env.step(rng.choice(legal))
            steps += 1
        games += 1
    return steps / (time.perf_counter() - start), games


PEERS: list[tuple[str, str, Callable[[float], tuple[float, int] | None]]] = [
    ("OpenSpiel", "hearts", lambda s: openspiel_steps_per_second("hearts", s)),
    ("OpenSpiel", "gin_rummy", lambda s: openspiel_steps_per_second("gin_rummy", s)),
    ("RLCard", "uno", lambda s: rlcard_steps_per_second("uno", s)),
    ("RLCard", "gin-rummy", lambda s: rlcard_steps_per_second("gin-rummy", s)),
]


if __name__ == "__main__":
    for library, name, fn in PEERS:
        print(library, name, fn(2.0))
