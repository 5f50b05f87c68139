"""arena tournament: schedules, standings, SPRT arithmetic, and real tournaments of sample bots."""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.cli.tournament import elo_text, result_json
from referee.tournament.schedule import (
    SwissState,
    derive_seed,
    fixed_schedule,
    gauntlet_tables,
    round_robin_tables,
    swiss_tables,
)
from referee.tournament.elo import Z95, estimate, first_over_second
from referee.tournament.sprt import PENTANOMIAL, TRINOMIAL, Sprt, bounds, elo_to_score, llr, mle, score_to_elo
from referee.tournament.standings import GameResult, compute_standings, game_points, outcome
from tests.boxed_tables import boxed_tables, column
from tests.support import ROOT, SAMPLE_BOTS
from tests.test_faults import faulty_bot, runners

runner = CliRunner()
GREEDY = str(SAMPLE_BOTS / "generals_war_greedy")
RANDOM = str(SAMPLE_BOTS / "random")
HEURISTIC = str(SAMPLE_BOTS / "generals_and_assassins_heuristic")
CRASH = str(ROOT / "tests" / "bots" / "crash_at_start")
ELO_075 = 400 * math.log10(3)  # the Elo difference whose expected score is exactly 3/4


def tournament_json(tmp_path: Path, *args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["tournament", *args, "--json", "--log-dir", str(tmp_path / "logs")])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return data


# --- schedules ------------------------------------------------------------------------


def test_round_robin_plays_every_pair_n_times_with_balanced_seats() -> None:
    games = fixed_schedule("round-robin", 4, 2, 4, seed=11)
    assert [g.index for g in games] == list(range(len(games)))
    per_pair = Counter(frozenset(g.seats) for g in games)
    assert set(per_pair) == {frozenset(p) for p in itertools.combinations(range(4), 2)}
    assert set(per_pair.values()) == {4}
    seat0 = Counter((frozenset(g.seats), g.seats[0]) for g in games)
    assert set(seat0.values()) == {2}  # each bot of each pair in seat 0 twice out of 4
    # an odd count is rounded up to whole duplicate deals
    assert Counter(frozenset(g.seats) for g in fixed_schedule("round-robin", 3, 2, 3, 0)).most_common(1)[0][1] == 4


def test_multi_player_round_robin_seats_every_combination_with_each_bot_in_each_seat() -> None:
    games = fixed_schedule("round-robin", 5, 3, 3, seed=1)
    tables = Counter(g.table for g in games)
    assert set(tables) == set(itertools.combinations(range(5), 3)) and set(tables.values()) == {3}
    for table in tables:
        seated = [g.seats for g in games if g.table == table]
        for seat in range(3):
            assert sorted(s[seat] for s in seated) == list(table)
    assert round_robin_tables(4, 4) == [(0, 1, 2, 3)]


def test_gauntlet_pits_the_first_bot_against_each_other() -> None:
    games = fixed_schedule("gauntlet", 4, 2, 2, seed=5)
    assert Counter(g.table for g in games) == {(0, 1): 2, (0, 2): 2, (0, 3): 2}
    assert all(0 in g.seats for g in games)
    assert Counter(g.seats.index(0) for g in games) == {0: 3, 1: 3}
    assert gauntlet_tables(4, 3) == [(0, 1, 2), (0, 1, 3), (0, 2, 3)]


def test_duplicate_deals_share_a_seed_with_the_seats_permuted() -> None:
    games = fixed_schedule("round-robin", 3, 2, 6, seed=2)
    deals: dict[int, list[Any]] = {}
    for g in games:
        deals.setdefault(g.deal, []).append(g)
    assert len(deals) == 3 * 3  # 3 pairs × 3 deals
    for deal in deals.values():
        assert len({g.seed for g in deal}) == 1
        assert sorted(g.seats for g in deal) == sorted([deal[0].table, deal[0].table[::-1]])
    seeds_by_round = {g.round: g.seed for g in games}
    assert len(set(seeds_by_round.values())) == 3  # each round a new deal, shared by every pair of that round
    assert all(g.seed == seeds_by_round[g.round] for g in games)
    # four players: one seed, four rotations, each bot once in each seat
    four = fixed_schedule("round-robin", 4, 4, 4, seed=2)
    assert [g.seats for g in four] == [(0, 1, 2, 3), (1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2)]
    assert len({g.seed for g in four}) == 1


@pytest.mark.parametrize("players", [3, 4])
def test_at_three_seats_or_more_no_bot_always_sits_just_after_the_same_neighbour(players: int) -> None:
    """Rotations of one order put each bot in each seat, but always just after the same bot; every other deal seats
    the table in the reverse order, so over two deals each bot follows each other bot as often as it is followed."""
    games = fixed_schedule("round-robin", players + 1, players, 2 * players, seed=4)
    after: Counter[tuple[int, int]] = Counter()
    seats: Counter[tuple[int, int]] = Counter()
    for g in games:
        for i, bot in enumerate(g.seats):
            after[(g.seats[i - 1], bot)] += 1
            seats[(bot, i)] += 1
    assert all(after[(a, b)] == after[(b, a)] > 0 for a, b in after), after
    assert len(set(seats.values())) == 1  # and still every bot as often in every seat


def test_the_schedule_depends_only_on_the_seed() -> None:
    """The same in another process with another hash seed: no per-process randomness (such as ``hash``) gets in."""
    import subprocess
    import sys

    here = [(g.seats, g.seed) for g in fixed_schedule("round-robin", 4, 2, 4, 9)]
    script = (
        "from referee.tournament.schedule import derive_seed, fixed_schedule;"
        "print(repr(([(g.seats, g.seed) for g in fixed_schedule('round-robin', 4, 2, 4, 9)], derive_seed(9, 'round', 0))))"
    )
    for hash_seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True, env={**os.environ, "PYTHONHASHSEED": hash_seed}
        ).stdout
        assert out.strip() == repr((here, derive_seed(9, "round", 0)))
    assert [g.seed for g in fixed_schedule("gauntlet", 3, 2, 2, 9)] != [g.seed for g in fixed_schedule("gauntlet", 3, 2, 2, 10)]
    assert 0 <= derive_seed(9, "round", 0) < 2**53


def test_match_seeds_reach_the_project_s_bound_and_the_old_derivation_is_kept_as_it_was() -> None:
    """Below 2**31 a bot could try every seed against its first hand (referee/server/seeds.py); a tournament saved
    before the seeds widened derived them so (version 1), and goes on with exactly those."""
    wide = [derive_seed(9, "round", r) for r in range(8)]
    assert all(0 <= s < 2**53 for s in wide) and max(wide) >= 2**31
    assert [derive_seed(9, "round", r, seeds=1) for r in range(2)] == [2143384512, 183521060]  # what earlier Arenas played
    assert [g.seed for g in fixed_schedule("round-robin", 2, 2, 4, 9, seeds=1)] == [2143384512] * 2 + [183521060] * 2
    assert [g.seed for g in fixed_schedule("round-robin", 2, 2, 4, 9)] == [wide[0]] * 2 + [wide[1]] * 2


def test_swiss_pairs_neighbours_and_avoids_a_repeat() -> None:
    # Round 1 was 0-1 and 2-3, round 2 was 0-2 and 1-3; now 0 leads and 1 is second: they met, so 0 meets 3.
    met = Counter({frozenset(p): 1 for p in [(0, 1), (2, 3), (0, 2), (1, 3)]})
    assert swiss_tables([0, 1, 2, 3], 2, met, {}) == ([(0, 3), (1, 2)], [])
    # Without history the leaders meet and so do the last two.
    assert swiss_tables([3, 1, 0, 2], 2, Counter(), {}) == ([(1, 3), (0, 2)], [])


def test_swiss_never_repeats_when_it_can_be_avoided() -> None:
    for seed in range(20):
        rng = random.Random(seed)
        # four bots, three rounds: every pair meets exactly once whatever the results
        state = SwissState(4, 2)
        for _ in range(3):
            tables, bye = state.pair()
            assert bye == []
            state.record_round(tables, bye)
            for t in tables:
                state.record_game(t, rng.choice([(1, 2), (2, 1), (1, 1)]))
        assert set(state.met.values()) == {1} and len(state.met) == 6
        # six bots, five rounds: each round repeats as few meetings as any seating could
        state = SwissState(6, 2)
        for _ in range(5):
            tables, bye = state.pair()
            best = min(
                sum(state.met[frozenset(p)] for p in matching) for matching in _perfect_matchings(list(range(6)))
            )
            assert sum(state.met[frozenset(t)] for t in tables) == best
            state.record_round(tables, bye)
            for t in tables:
                state.record_game(t, rng.choice([(1, 2), (2, 1)]))


def _perfect_matchings(bots: list[int]) -> list[list[tuple[int, int]]]:
    if not bots:
        return [[]]
    first, rest = bots[0], bots[1:]
    return [[(first, b), *m] for b in rest for m in _perfect_matchings([x for x in rest if x != b])]


def test_swiss_byes_go_to_the_bottom_and_rotate() -> None:
    state = SwissState(5, 2)
    byes: list[list[int]] = []
    for _ in range(5):
        tables, bye = state.pair()
        byes.append(bye)
        state.record_round(tables, bye)
        for t in tables:
            state.record_game(t, (1, 2))  # the lower index wins
    assert byes[0] == [4]  # all level: the last one sits out
    assert sorted(b for bye in byes for b in bye) == [0, 1, 2, 3, 4]  # nobody sits out twice
    assert state.points[4] >= 2  # a bye is worth a won deal


# --- standings ------------------------------------------------------------------------


def test_outcomes_and_points_for_two_and_more_players() -> None:
    assert [outcome((1, 2), s) for s in (0, 1)] == ["win", "loss"]
    assert [outcome((1, 1), s) for s in (0, 1)] == ["draw", "draw"]
    assert [outcome((1, 2, 2, 4), s) for s in range(4)] == ["win", "loss", "loss", "loss"]
    assert [outcome((1, 1, 3, 4), s) for s in range(4)] == ["draw", "draw", "loss", "loss"]
    assert game_points((1, 2)) == [1.0, 0.0] and game_points((1, 1)) == [0.5, 0.5]
    assert game_points((1, 2, 2, 4)) == [1.0, 0.5, 0.5, 0.0]  # (ahead + ties/2) / 3


def test_standings_and_crosstable_from_synthetic_results() -> None:
    results = [
        GameResult((0, 1), (1, 2)),  # A beats B
        GameResult((1, 0), (2, 1)),  # A beats B again (seats swapped)
        GameResult((0, 2), (1, 1)),  # A draws C
        GameResult((2, 1), (1, 2), (False, True)),  # C beats B, B forfeited
    ]
    st = compute_standings(3, results)
    by_bot = {r.bot: r for r in st.rows}
    a, b, c = by_bot[0], by_bot[1], by_bot[2]
    assert (a.wins, a.draws, a.losses, a.games, a.points) == (2, 1, 0, 3, 2.5)
    assert (b.wins, b.draws, b.losses, b.games, b.points, b.forfeits) == (0, 0, 3, 3, 0.0, 1)
    assert (c.wins, c.draws, c.losses, c.games, c.points) == (1, 1, 0, 2, 1.5)
    assert a.avg_rank == 1.0 and b.avg_rank == 2.0 and c.avg_rank == 1.0
    assert [r.bot for r in st.rows] == [0, 2, 1]
    assert [r.conservative for r in st.rows] == sorted((r.conservative for r in st.rows), reverse=True)
    assert (st.against(0, 1).wins, st.against(1, 0).losses) == (2, 2)
    assert (st.against(0, 2).draws, st.against(2, 0).draws, st.against(2, 1).wins) == (1, 1, 1)
    assert st.against(0, 1).points == 2.0 and st.against(1, 2).games == 1


def test_trueskill_matches_the_published_one_on_one_values() -> None:
    # trueskill's documentation: a win between two new players gives 29.396 / 20.604, σ 7.171; a draw 25.000, σ 6.458.
    won = compute_standings(2, [GameResult((0, 1), (1, 2))])
    winner, loser = won.rows
    assert (round(winner.mu, 3), round(loser.mu, 3), round(winner.sigma, 3)) == (29.396, 20.604, 7.171)
    assert winner.conservative == winner.mu - 3 * winner.sigma == pytest.approx(7.881, abs=1e-3)
    drawn = compute_standings(2, [GameResult((0, 1), (1, 1))])
    assert [(round(r.mu, 3), round(r.sigma, 3)) for r in drawn.rows] == [(25.0, 6.458), (25.0, 6.458)]


def test_multi_player_standings_rate_by_rank() -> None:
    st = compute_standings(4, [GameResult((2, 0, 3, 1), (1, 2, 2, 4))])
    by_bot = {r.bot: r for r in st.rows}
    assert [r.bot for r in st.rows][0] == 2 and [r.bot for r in st.rows][-1] == 1
    assert by_bot[0].mu == pytest.approx(by_bot[3].mu, abs=0.05)  # tied second (TrueSkill iterates to a tolerance)
    assert by_bot[2].mu > by_bot[0].mu > by_bot[1].mu
    assert (by_bot[2].wins, by_bot[0].losses, by_bot[3].losses) == (1, 1, 1)
    assert st.against(0, 3).draws == 1 and st.against(0, 1).wins == 1 and st.against(0, 2).losses == 1
    assert by_bot[0].points == 0.5 and by_bot[0].avg_rank == 2.0


# --- SPRT -----------------------------------------------------------------------------


def test_elo_scale_and_wald_bounds() -> None:
    assert elo_to_score(0) == 0.5
    assert elo_to_score(ELO_075) == pytest.approx(0.75)
    assert score_to_elo(0.75) == pytest.approx(190.848, abs=1e-3)
    assert score_to_elo(1.0) == math.inf
    lower, upper = bounds(0.05, 0.05)
    assert (lower, upper) == pytest.approx((-math.log(19), math.log(19)))  # log(0.05/0.95), log(0.95/0.05)
    assert bounds(0.05, 0.1)[0] == pytest.approx(math.log(0.1 / 0.95))


def test_llr_against_hand_computed_values() -> None:
    # Trinomial, 6 wins, 3 draws, 1 loss, s0 = 1/2, s1 = 3/4.
    # Under s1 the sample mean is already 3/4, so p1 = (0.1, 0.3, 0.6).
    # Under s0, g(λ) = 0.1(−½)/(1 − λ/2) + 0.6(½)/(1 + λ/2) = 0 gives λ = 10/7 and p0 = (0.35, 0.3, 0.35).
    # LLR = 1·log(0.1/0.35) + 3·log(0.3/0.3) + 6·log(0.6/0.35) = log(2/7) + 6 log(12/7) ≈ 1.98122.
    assert mle([1, 3, 6], TRINOMIAL, 0.5) == pytest.approx([0.35, 0.3, 0.35])
    assert llr([1, 3, 6], TRINOMIAL, 0, ELO_075) == pytest.approx(1.98122, abs=1e-5)
    # No draws: the best distribution with mean s is (1 − s, 0, s), a binomial:
    # 30 log(0.75/0.5) + 10 log(0.25/0.5) ≈ 12.16395 − 6.93147 = 5.23248.
    assert llr([10, 0, 30], TRINOMIAL, 0, ELO_075) == pytest.approx(5.23248, abs=1e-5)
    # Pentanomial, one pair drawn 1-1 and one won 2-0 (mean 3/4). Under s0 = 1/2 the lowest score (0) is unobserved
    # and g(2) > 0, so the maximum is on the boundary: p0 = (¼, 0, ½, 0, ¼). LLR = log(½/½) + log(½/¼) = log 2.
    assert mle([0, 0, 1, 0, 1], PENTANOMIAL, 0.5) == pytest.approx([0.25, 0, 0.5, 0, 0.25])
    assert llr([0, 0, 1, 0, 1], PENTANOMIAL, 0, ELO_075) == pytest.approx(math.log(2))
    # Every pair won: N log(s1/s0); every pair lost: N log((1 − s1)/(1 − s0)).
    assert llr([0, 0, 0, 0, 5], PENTANOMIAL, 0, ELO_075) == pytest.approx(5 * math.log(1.5))
    assert llr([5, 0, 0, 0, 0], PENTANOMIAL, 0, ELO_075) == pytest.approx(5 * math.log(0.5))
    assert llr([0, 0, 0], TRINOMIAL, 0, 50) == 0.0


def test_sprt_counts_pairs_and_decides() -> None:
    test = Sprt(elo0=0, elo1=ELO_075, model="pentanomial")
    test.add_pair(1.0, 0.5)
    test.add_pair(0.0, 0.5)
    assert test.trinomial == [1, 2, 1] and test.pentanomial == [0, 1, 0, 1, 0] and (test.games, test.pairs) == (4, 2)
    assert test.score == 0.5 and test.decision() is None
    wins = Sprt(elo0=0, elo1=ELO_075)
    for _ in range(7):  # 7 log 1.5 ≈ 2.838 < log 19 ≈ 2.944 < 8 log 1.5 ≈ 3.244
        wins.add_pair(1.0, 1.0)
    assert wins.decision() is None
    wins.add_pair(1.0, 1.0)
    assert wins.decision() == "H1" and wins.llr == pytest.approx(8 * math.log(1.5))
    games = Sprt(elo0=0, elo1=ELO_075, model="trinomial")
    for _ in range(4):
        games.add_pair(1.0, 1.0)
    assert games.llr == pytest.approx(8 * math.log(1.5)) and games.decision() == "H1"
    losses = Sprt(elo0=0, elo1=ELO_075)
    for _ in range(5):
        losses.add_pair(0.0, 0.0)
    assert losses.decision() == "H0"  # 5 log ½ ≈ −3.47
    with pytest.raises(ValueError, match="a score must be 0, ½ or 1 per game, not 0.25"):
        Sprt().add_pair(0.25, 1.0)  # no game scores ¼: rounded, it was counted as some other result
    with pytest.raises(ValueError):
        Sprt(elo0=50, elo1=0)
    with pytest.raises(ValueError):
        Sprt(alpha=0.6, beta=0.5)


# --- real tournaments -------------------------------------------------------------------


def test_results_do_not_depend_on_concurrency_and_the_json_has_standings_and_a_crosstable(tmp_path: Path) -> None:
    args = ["generals-war", GREEDY, RANDOM, RANDOM, "--games", "2", "--seed", "5"]
    one = tournament_json(tmp_path, *args, "--concurrency", "1", "--replay-dir", str(tmp_path / "replays"))
    two = tournament_json(tmp_path, *args, "--concurrency", "2")
    assert one["standings"] == two["standings"] and one["crosstable"] == two["crosstable"]
    differ = ("match_id", "replay", "logs")  # a run's own: the logs are named by match id
    strip = [{k: v for k, v in r.items() if k not in differ} for r in one["results"]]
    assert strip == [{k: v for k, v in r.items() if k not in differ} for r in two["results"]]

    assert (one["game"], one["format"], one["players"], one["seed"], one["matches"]) == ("generals-war", "round-robin", 2, 5, 6)
    assert [b["name"] for b in one["bots"]] == ["gw-greedy", "random", "random#2"]
    rows = one["standings"]
    assert [r["place"] for r in rows] == [1, 2, 3] and {r["bot"] for r in rows} == {"gw-greedy", "random", "random#2"}
    for r in rows:
        assert set(r) >= {"bot", "mu", "sigma", "conservative", "wins", "draws", "losses", "avg_rank", "games", "points"}
        assert r["conservative"] == pytest.approx(r["mu"] - 3 * r["sigma"])
        assert r["games"] == 4 and r["wins"] + r["draws"] + r["losses"] == 4
    assert [r["conservative"] for r in rows] == sorted((r["conservative"] for r in rows), reverse=True)
    cross = one["crosstable"]
    assert set(cross["gw-greedy"]) == {"random", "random#2"}
    for a, row in cross.items():
        for b, h in row.items():
            assert h["games"] == 2 and (h["wins"], h["losses"]) == (cross[b][a]["losses"], cross[b][a]["wins"])
    # the two games of each deal share a seed with the seats swapped, and each has a replay
    for first, second in zip(one["results"][::2], one["results"][1::2]):
        assert first["seed"] == second["seed"] and first["seats"] == second["seats"][::-1]
    assert len(list((tmp_path / "replays").glob("*.json"))) == 6


def test_sprt_stops_early_on_a_clearly_stronger_bot(tmp_path: Path) -> None:
    out = tournament_json(
        tmp_path, "generals-war", GREEDY, RANDOM, "--sprt", "--elo1", "300", "--games", "40", "--seed", "1", "-j", "2"
    )
    s = out["sprt"]
    assert out["format"] == "sprt" and s["verdict"] == "H1" and "gw-greedy is stronger than random" in s["summary"]
    assert s["llr"] >= s["upper"] == pytest.approx(math.log(19))
    assert s["games"] < 40 and s["games"] == 2 * s["pairs"] == out["matches"] == len(out["results"])
    assert (s["wins"], s["draws"], s["losses"]) == (out["standings"][0]["wins"], out["standings"][0]["draws"], out["standings"][0]["losses"])
    assert sum(s["pentanomial"]) == s["pairs"] and s["elo0"] == 0 and s["alpha"] == 0.05
    # Replaying the pairs in schedule order, the test decides at the last pair and not before,
    # although with -j 2 matches ran ahead of the decision.
    again = Sprt(elo0=0, elo1=300)
    results = out["results"]
    for k, (first, second) in enumerate(zip(results[::2], results[1::2])):
        assert first["seed"] == second["seed"] and first["seats"] == ["gw-greedy", "random"] == second["seats"][::-1]
        assert again.decision() is None
        again.add_pair(_score(first, "gw-greedy"), _score(second, "gw-greedy"))
    assert again.decision() == "H1" and again.llr == pytest.approx(s["llr"])
    by_pairs = estimate(again.pentanomial, PENTANOMIAL)
    assert by_pairs is not None and (s["elo_margin"], s["los"]) == (pytest.approx(by_pairs.margin), pytest.approx(by_pairs.los))


def test_an_sprt_deletes_the_replays_of_the_games_played_ahead_of_its_decision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Games played ahead of the decision are no part of the result, nor are their replays: the first of them was kept."""
    import asyncio

    from referee.tournament.run import PlayedGame, TournamentConfig, _Player, run_sprt
    from referee.tournament.schedule import ScheduledGame

    replays = tmp_path / "replays"
    replays.mkdir()

    async def umpire(_: _Player, game: ScheduledGame) -> PlayedGame:  # bot 0 always wins, at once: every game is played ahead
        replay = replays / f"{game.index}.json"
        replay.write_text("{}")
        ranks = (1, 2) if game.seats[0] == 0 else (2, 1)
        return PlayedGame(game, ranks, (1.0, 0.0) if ranks == (1, 2) else (0.0, 1.0), (False, False), f"m{game.index}", replay)

    monkeypatch.setattr(_Player, "_play", umpire)
    config = TournamentConfig("generals-war", [Path(GREEDY), Path(RANDOM)], games=40, seed=1, log_dir=tmp_path / "logs", concurrency=4)
    result = asyncio.run(run_sprt(config, Sprt(elo0=0, elo1=300)))
    assert result.sprt is not None and result.sprt.decision() == "H1" and len(result.games) < 40
    assert sorted(replays.iterdir()) == sorted(g.replay for g in result.games if g.replay is not None)
    assert [row.games for row in result.standings.rows] == [len(result.games)] * 2, "the standings count the counted games only"


def test_an_sprt_scores_the_first_bot_s_win_draw_and_loss_from_either_seat() -> None:
    from referee.tournament.run import PlayedGame, score_of
    from referee.tournament.schedule import ScheduledGame

    for seats in ((0, 1), (1, 0)):
        mine = seats.index(0)
        for my_rank, their_rank, score in ((1, 2, 1.0), (1, 1, 0.5), (2, 1, 0.0)):
            ranks = (my_rank, their_rank) if mine == 0 else (their_rank, my_rank)
            game = PlayedGame(ScheduledGame(0, 0, 0, (0, 1), 1, seats), ranks, (0.0, 0.0), (False, False), "m")
            assert score_of(game, 0) == score and score_of(game, 1) == 1.0 - score


def test_a_match_that_fails_stops_the_tournament_with_its_own_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not wrapped in an ExceptionGroup: the command's handlers and its one-line errors know the error itself."""
    import asyncio

    from referee.tournament.run import PlayedGame, TournamentConfig, TournamentError, _Player, run_tournament
    from referee.tournament.schedule import ScheduledGame

    async def broken(_: _Player, game: ScheduledGame) -> PlayedGame:
        raise TournamentError(f"game {game.index} failed")

    monkeypatch.setattr(_Player, "_play", broken)
    config = TournamentConfig("generals-war", [Path(GREEDY), Path(RANDOM)], log_dir=tmp_path / "logs")
    with pytest.raises(TournamentError, match="failed"):
        asyncio.run(run_tournament(config))


def _score(result: dict[str, Any], bot: str) -> float:
    mine = result["ranks"][result["seats"].index(bot)]
    theirs = result["ranks"][1 - result["seats"].index(bot)]
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def test_an_sprt_that_reaches_the_game_limit_is_inconclusive(tmp_path: Path) -> None:
    out = tournament_json(tmp_path, "generals-war", RANDOM, RANDOM, "--sprt", "--games", "2", "--seed", "3")
    s = out["sprt"]
    assert s["verdict"] is None and s["summary"].startswith("inconclusive") and s["games"] == 2
    assert s["lower"] < s["llr"] < s["upper"] and [b["name"] for b in out["bots"]] == ["random", "random#2"]


def test_an_sprt_without_a_game_limit_plays_on_to_its_verdict(tmp_path: Path) -> None:
    """--games left out is 1000 games for an SPRT, as its help says: a test cut short at the round-robin's 2 decided nothing."""
    s = tournament_json(tmp_path, "generals-war", GREEDY, RANDOM, "--sprt", "--elo1", "300", "--seed", "1", "-j", "2")["sprt"]
    assert s["verdict"] == "H1" and s["games"] > 2


def test_games_that_are_not_whole_duplicate_deals_are_said_to_be_rounded_up(tmp_path: Path) -> None:
    args = ["tournament", "glory", RANDOM, RANDOM, "--seed", "1", "--json", "--log-dir", str(tmp_path / "logs")]
    odd = runner.invoke(app, [*args, "--games", "1"])
    assert odd.exit_code == 0 and "note: --games 1 rounded up to 2: whole duplicate deals of 2 games" in odd.stderr, odd.output
    assert json.loads(odd.stdout.strip().splitlines()[-1])["matches"] == 2
    even = runner.invoke(app, [*args, "--games", "2"])
    assert even.exit_code == 0 and "rounded" not in even.stderr, even.output


def test_swiss_and_four_player_tournaments(tmp_path: Path) -> None:
    swiss = tournament_json(tmp_path, "generals-war", GREEDY, RANDOM, RANDOM, "--format", "swiss", "--games", "2", "--seed", "4", "-j", "2")
    assert swiss["format"] == "swiss" and swiss["matches"] == 4  # 3 bots: one deal a round, one bot sits out
    assert [b["round"] for b in swiss["byes"]] == [0, 1] and swiss["byes"][0]["bots"] != swiss["byes"][1]["bots"]
    pairs = [frozenset(r["seats"]) for r in swiss["results"]]
    assert pairs[0] == pairs[1] and pairs[2] == pairs[3] and pairs[0] != pairs[2]

    result = runner.invoke(
        app,
        ["tournament", "generals-war", GREEDY, RANDOM, RANDOM, GREEDY, "--players", "4", "--games", "4", "--seed", "2",
         "-j", "2", "--log-dir", str(tmp_path / "logs")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "4 players" in text and "crosstable" in text and "gw-greedy#2" in text and "μ−3σ" in text


def test_a_swiss_tournament_plans_the_games_it_plays(tmp_path: Path) -> None:
    """The progress bar's total and --report-every's "after k of N" read the plan: with a bye each round it counted the bot sitting out."""
    import asyncio

    from referee.tournament.run import TournamentConfig, run_tournament

    told: list[tuple[int, int]] = []
    config = TournamentConfig("generals-war", [Path(GREEDY), Path(RANDOM), Path(RANDOM)], "swiss", 2, seed=4, log_dir=tmp_path / "logs")
    result = asyncio.run(run_tournament(config, lambda done, planned, _: told.append((done, planned))))
    assert len(result.games) == 4 and told == [(k, 4) for k in range(1, 5)]


def test_a_swiss_round_pairs_the_bots_by_the_points_of_the_rounds_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bots 0 and 3 win their round-1 tables (0-1 and 2-3): round 2 seats the two winners together, and the two losers."""
    import asyncio

    from referee.tournament.run import PlayedGame, TournamentConfig, _Player, run_tournament
    from referee.tournament.schedule import ScheduledGame

    strength = {0: 3, 3: 2, 1: 1, 2: 0}

    async def umpire(_: _Player, game: ScheduledGame) -> PlayedGame:  # the stronger bot always wins: no processes
        ranks = tuple(1 + sorted(game.seats, key=lambda b: -strength[b]).index(b) for b in game.seats)
        return PlayedGame(game, ranks, tuple(0.0 for _ in ranks), tuple(False for _ in ranks), f"m{game.index}")

    monkeypatch.setattr(_Player, "_play", umpire)
    config = TournamentConfig("generals-war", [Path(GREEDY)] * 4, "swiss", 2, seed=1, log_dir=tmp_path / "logs")
    result = asyncio.run(run_tournament(config))
    tables = [{frozenset(g.scheduled.table) for g in result.games if g.scheduled.round == r} for r in (0, 1)]
    assert tables == [{frozenset({0, 1}), frozenset({2, 3})}, {frozenset({0, 3}), frozenset({1, 2})}]
    assert result_json(result)["byes"] == [], "four bots at two-seat tables: no bot sat out"


def test_the_standings_so_far_are_those_of_the_schedule_order_whatever_order_the_games_ended_in() -> None:
    """With -j above 1 games end out of order; TrueSkill depends on the order it reads them in, so --report-every reads the schedule's."""
    from arena.cli.tournament import interim_line
    from tests.support import so_far
    from referee.tournament.run import PlayedGame
    from referee.tournament.schedule import ScheduledGame

    first_seat_won = [True, True, False, True, False, False, True, True]
    played = []
    for index, won in enumerate(first_seat_won):
        seats = (index % 3, (index + 1) % 3)  # three bots, each pair in turn
        ranks = (1, 2) if won else (2, 1)
        played.append(PlayedGame(ScheduledGame(index, index, index, seats, index, seats), ranks, (0.0, 0.0), (False, False), f"m{index}"))
    line = interim_line(so_far(3, played), ["a", "b", "c"], len(played), 10)
    assert interim_line(so_far(3, reversed(played)), ["a", "b", "c"], len(played), 10) == line


def test_a_crashing_bot_forfeits_and_the_tournament_goes_on(tmp_path: Path) -> None:
    out = tournament_json(tmp_path, "generals-war", RANDOM, CRASH, "--games", "2", "--seed", "1")
    rows = {r["bot"]: r for r in out["standings"]}
    assert rows["crash-at-start"]["forfeits"] == 2 and rows["crash-at-start"]["losses"] == 2
    assert out["standings"][0]["bot"] == "random"


def test_the_forfeits_line_names_the_folder_of_the_logs(tmp_path: Path) -> None:
    """'see the bot logs' alone left the user to guess where --log-dir had put them."""
    logs = tmp_path / "my-logs"
    result = runner.invoke(app, ["tournament", "generals-war", RANDOM, CRASH, "--games", "2", "--seed", "1", "--log-dir", str(logs)])
    assert result.exit_code == 0, result.output
    assert f"forfeited games: crash-at-start (2) — see the bot logs in {logs}/" in result.stdout
    assert any("crashing on purpose" in log.read_text() for log in logs.glob("*crash-at-start.log"))


def test_the_forfeits_line_says_why_a_bot_forfeited_and_which_log_is_its_own(tmp_path: Path) -> None:
    """A tournament of a crashing bot said only 'forfeited games: crash-at-start (2) — see the bot logs in
    replays/logs/', a folder of a log per seat of every match, named by match id: nothing said why, nor which log.
    As `arena match` does, the first forfeit's verdict, the bot's last words and the log's path are said."""
    logs = tmp_path / "my-logs"
    result = runner.invoke(app, ["tournament", "generals-war", RANDOM, CRASH, "--games", "2", "--seed", "1", "--log-dir", str(logs)])
    assert result.exit_code == 0, result.output
    said = result.stdout.splitlines()
    first = next(i for i, line in enumerate(said) if line.startswith("  crash-at-start, first at game "))
    assert "crash at decision 0: the bot's process exited with code" in said[first], said[first:]
    assert said[first + 1] == "    its last words: crashing on purpose", said[first:]
    log = Path(said[first + 2].removeprefix("    log: "))
    assert log.parent == logs and log.name.endswith("-crash-at-start.log")
    assert "crashing on purpose" in log.read_text()
    data = tournament_json(tmp_path, "generals-war", RANDOM, CRASH, "--games", "2", "--seed", "1")
    lost = [r for r in data["results"] if any(r["forfeited"])]
    assert lost and all(r["why"][r["forfeited"].index(True)].startswith("crash at decision 0") for r in lost)
    assert all(Path(r["logs"][s]).is_file() for r in data["results"] for s in range(2))


@pytest.mark.parametrize(
    "args,message",
    [
        (["no-such-game", RANDOM, RANDOM], "unknown game"),
        (["generals-war", RANDOM, RANDOM, "--players", "3"], "2 or 4 players, not 3"),
        (["generals-war", RANDOM, RANDOM, RANDOM, "--players", "4"], "need at least 4 bots, got 3 (a bot may be entered more than once: give its folder again)"),
        (["generals-war", RANDOM], "need at least 2 bots"),
        (["generals-war", RANDOM, HEURISTIC], "does not play generals-war"),
        (["generals-war", RANDOM, "/nonexistent"], "not a directory"),
        (["generals-war", RANDOM, RANDOM, RANDOM, "--sprt"], "exactly two bots"),
        (["generals-war", RANDOM, RANDOM, "--format", "knockout"], "unknown format 'knockout'"),
        (["generals-war", RANDOM, RANDOM, "--sprt", "--format", "knockout"], "unknown format 'knockout'"),
        (["generals-war", RANDOM, RANDOM, "--sprt", "--format", "swiss"], "--format swiss does not apply with --sprt"),
        (["generals-war", RANDOM, RANDOM, "--sprt", "--elo0", "10", "--elo1", "5"], "elo0 (10) must be below elo1"),
        (["generals-war", RANDOM, RANDOM, "--sprt-model", "binomial"], "unknown --sprt-model"),
        (["generals-war", RANDOM, RANDOM, "--sprt", "--elo1", "inf"], "elo1 must be between -4000 and 4000, not inf"),
        (["generals-war", RANDOM, RANDOM, "--sprt", "--elo0", "-100000"], "elo0 must be between -4000 and 4000, not -100000"),
        (["generals-war", RANDOM, RANDOM, "--sprt", "--elo0", "nan"], "elo0 must be between -4000 and 4000, not nan"),
        (["generals-war", RANDOM, RANDOM, "--sprt", "--alpha", "5"], "alpha (5) and beta (0.05) must each be above 0 and below 1"),
        (["generals-war", RANDOM, RANDOM, "--sprt", "--beta", "0"], "alpha (0.05) and beta (0) must each be above 0 and below 1"),
        (["generals-war", RANDOM, RANDOM, "--sprt", "--alpha", "0.5", "--beta", "0.5"], "alpha (0.5) and beta (0.5) must each be above 0 and below 1, and their sum below 1"),
        (["generals-war", RANDOM, RANDOM, "--games", "0"], "--games must be at least 1"),
        (["generals-war", RANDOM, RANDOM, "--concurrency", "0"], "--concurrency must be at least 1"),
        (["generals-war", RANDOM, RANDOM, "-j", "100000"], "--concurrency must be at least 1 and at most 256"),
        (["generals-war", RANDOM, RANDOM, "-o", "conquest_points=0"], "at least 1"),
        (["generals-war", RANDOM, RANDOM, "--time-bank-ms", "5000000000"], "Invalid value for '--time-bank-ms'"),
    ],
)
def test_bad_input_gets_a_clear_error(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["tournament", *args])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())


def test_the_printed_table_rounds_points_and_names_the_pair_scores(tmp_path: Path) -> None:
    """Four seats score in thirds (3.16667 was printed); an SPRT's pairs are counted by their score, 0 to 1 in quarters."""
    bots = [RANDOM, str(SAMPLE_BOTS / "assassination_heuristic"), RANDOM, RANDOM]
    args = ["tournament", "assassination", *bots, "--players", "4", "--games", "4", "--seed", "2", "--log-dir", str(tmp_path / "logs")]
    data = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    exact = [r["points"] for r in data["standings"]]
    assert any(round(p, 2) != p for p in exact), "the seed no longer gives thirds: pick another"
    table = runner.invoke(app, args)
    assert table.exit_code == 0, table.output
    standings = boxed_tables(table.stdout)[0]  # in standings order
    assert column(standings, "points") == [f"{round(p, 2):g}" for p in exact]
    sprt = runner.invoke(app, ["tournament", "generals-war", RANDOM, RANDOM, "--sprt", "--games", "2", "--seed", "3", "--log-dir", str(tmp_path / "logs")])
    assert sprt.exit_code == 0, sprt.output
    assert "pairs scoring 0, ¼, ½, ¾, 1: [" in " ".join(sprt.stdout.split())  # unwrapped


def test_at_80_columns_the_tables_show_long_bot_names_and_the_figures_whole(tmp_path: Path) -> None:
    """At 80 columns rich cut both to "…": a bot called 'glory-heuristic' read 'glory-h…' and μ read '3…'."""
    long_name = "generals-war-random-with-a-long-name"
    bot = tmp_path / "long"
    shutil.copytree(RANDOM, bot)
    manifest = bot / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "random"', f'name = "{long_name}"'))
    args = ["tournament", "generals-war", str(bot), GREEDY, "--games", "2", "--seed", "3", "--log-dir", str(tmp_path / "logs")]
    result = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    tables = [line for line in result.stdout.splitlines() if line[:1] in "┏┃┡│└"]  # the lines under them are whole, into a file
    assert "…" not in result.stdout and max(len(line) for line in tables) <= 80
    standings, cross = boxed_tables(result.stdout)
    assert sorted(column(standings, "bot")) == sorted([long_name, "gw-greedy"])  # two rows: no name folded onto a third
    assert all(all(row.values()) for row in standings)  # a figure in every column of both rows
    # too wide with the names over its columns, the crosstable numbers them by place: its rows say "1. gw-greedy"
    assert sorted(row.partition(". ")[2] for row in column(cross, "")) == sorted([long_name, "gw-greedy"])


def test_an_elo_estimate_has_the_score_s_elo_a_95_percent_margin_and_the_likelihood_of_superiority() -> None:
    """A two-bot match gave W-D-L and, with --sprt, an Elo with no error bars: +70 from 10 games or from 10,000 read alike."""
    three_to_one = estimate([10, 0, 30], TRINOMIAL)  # 30 wins, 10 losses: score 3/4
    assert three_to_one is not None and three_to_one.samples == 40 and three_to_one.score == 0.75
    assert three_to_one.elo == pytest.approx(ELO_075)
    error = math.sqrt(0.75 * 0.25 / 40)  # wins and losses only: the spread of a 0/1 score is s(1 - s)
    low, high = score_to_elo(0.75 - Z95 * error), score_to_elo(0.75 + Z95 * error)
    assert three_to_one.margin is not None and three_to_one.margin == pytest.approx((high - low) / 2) and 120 < three_to_one.margin < 150
    assert three_to_one.los == pytest.approx(0.5 * (1 + math.erf(0.25 / error / math.sqrt(2))))
    more = estimate([100, 0, 300], TRINOMIAL)
    assert more is not None and more.elo == pytest.approx(ELO_075) and more.margin is not None and more.los is not None
    assert three_to_one.los is not None and more.margin < three_to_one.margin / 3 and more.los > three_to_one.los  # ten times the games: about √10 narrower

    even = estimate([5, 10, 5], TRINOMIAL)
    assert even is not None and even.elo == pytest.approx(0) and even.los == pytest.approx(0.5)
    assert estimate([0, 0, 0], TRINOMIAL) is None
    swept = estimate([0, 0, 12], TRINOMIAL)  # every game won: no finite difference, and no spread to measure
    assert swept is not None and (swept.elo, swept.margin, swept.los) == (None, None, None)
    paired = estimate([0, 0, 2, 6, 2], PENTANOMIAL)  # 10 pairs of ½, ¾ and 1: 15 of 20 games won, as 15-0-5 by game
    by_game = estimate([5, 0, 15], TRINOMIAL)
    assert paired is not None and by_game is not None and paired.score == by_game.score == pytest.approx(0.75)
    assert paired.margin is not None and by_game.margin is not None and paired.margin < by_game.margin  # the deals' luck cancels


def test_head_to_head_counts_by_pair_when_every_deal_was_played_twice_and_by_game_otherwise() -> None:
    pairs = [("d1", (0, 1), (1, 2)), ("d1", (1, 0), (1, 2)), ("d2", (0, 1), (1, 1)), ("d2", (1, 0), (2, 1))]
    # d1: won as seat 0 and lost as seat 1 (the deal's luck), ½; d2: a draw and a win, ¾
    assert first_over_second(pairs) == ([0, 0, 1, 1, 0], PENTANOMIAL)
    assert first_over_second(pairs[:3]) == ([1, 1, 1], TRINOMIAL)  # d2 played once: games, not pairs


def test_a_two_bot_tournament_says_by_how_much_the_first_is_stronger(tmp_path: Path) -> None:
    # Seed 7: greedy does not sweep all four pairs (seed 2 did, and seed 4 since match seeds widened: results all alike
    # have no LOS).
    out = tournament_json(tmp_path, "generals-war", GREEDY, RANDOM, "--games", "8", "--seed", "7")
    h, row = out["head_to_head"], out["crosstable"]["gw-greedy"]["random"]
    assert (h["bot"], h["opponent"], h["counted_by"], h["samples"]) == ("gw-greedy", "random", "pair", 4)
    assert h["score"] == pytest.approx(row["points"] / row["games"])
    assert h["elo"] is None or h["elo"] == pytest.approx(score_to_elo(h["score"]))
    by_deal: dict[int, float] = {}  # greedy's mean score per deal, read from the results
    for r in out["results"]:
        mine, theirs = r["ranks"][r["seats"].index("gw-greedy")], r["ranks"][r["seats"].index("random")]
        by_deal[r["deal"]] = by_deal.get(r["deal"], 0.0) + (1.0 if mine < theirs else 0.5 if mine == theirs else 0.0) / 2
    pairs = list(by_deal.values())
    mean = sum(pairs) / len(pairs)
    error = math.sqrt(sum((x - mean) ** 2 for x in pairs) / len(pairs) / len(pairs))
    assert len(pairs) == 4 and mean == pytest.approx(h["score"]) and error > 0
    assert h["los"] == pytest.approx(0.5 * (1 + math.erf((mean - 0.5) / error / math.sqrt(2))))
    printed = runner.invoke(app, ["tournament", "generals-war", GREEDY, RANDOM, "--games", "8", "--seed", "7", "--log-dir", str(tmp_path / "l")])
    said = " ".join(printed.stdout.split())  # the line wraps at the terminal's width
    assert f"gw-greedy vs random: score {h['score']:.1%} over 4 duplicate pairs, " in said
    assert f"LOS {h['los']:.1%}" in said
    three = tournament_json(tmp_path, "generals-war", GREEDY, RANDOM, RANDOM, "--games", "2", "--seed", "2")
    assert "head_to_head" not in three  # three bots: the crosstable says it


def test_one_pair_or_one_game_gives_no_margin_and_no_likelihood_of_superiority() -> None:
    """`--games 2` is one duplicate pair: its spread is 0 by construction, and it read "Elo +191 ± 0 (95%), LOS 100.0%"."""
    for counts, values in (([0, 0, 0, 1, 0], PENTANOMIAL), ([0, 1, 0], TRINOMIAL), ([0, 0, 1], TRINOMIAL)):
        one = estimate(counts, values)
        assert one is not None and one.samples == 1 and (one.margin, one.los) == (None, None), (counts, one)
    assert elo_text(191.0, None, None) == "Elo +191 (± unknown: no two results differ)"
    two = estimate([0, 0, 1, 1, 0], PENTANOMIAL)
    assert two is not None and two.margin is not None and two.los is not None and 0.5 < two.los < 1


def test_results_all_alike_give_no_margin_and_no_likelihood_of_superiority() -> None:
    """Two pairs that both scored ¾ (`--games 4`) read "Elo +191 ± 0 (95%), LOS 100.0%", as one pair did: results all
    in one category have a sample spread of 0, so the normal interval and the LOS have nothing to stand on."""
    for counts, values in (
        ([0, 0, 0, 2, 0], PENTANOMIAL), ([0, 0, 10, 0, 0], PENTANOMIAL), ([0, 0, 0, 0, 3], PENTANOMIAL),
        ([0, 4, 0], TRINOMIAL), ([5, 0, 0], TRINOMIAL),
    ):  # fmt: skip
        alike = estimate(counts, values)
        score = sum(c * v for c, v in zip(counts, values)) / sum(counts)
        assert alike is not None and alike.score == pytest.approx(score) and (alike.margin, alike.los) == (None, None), (counts, alike)
        assert alike.elo == (None if score in (0.0, 1.0) else pytest.approx(score_to_elo(score)))
    # One result apart is enough for a spread: 3 pairs of ¾ and one of ½ have a mean of 11/16 and a variance of 3/256.
    apart = estimate([0, 0, 1, 3, 0], PENTANOMIAL)
    error = math.sqrt(3 / 256 / 4)
    assert apart is not None and apart.los == pytest.approx(0.5 * (1 + math.erf((11 / 16 - 0.5) / error / math.sqrt(2))))
    assert apart.margin == pytest.approx((score_to_elo(11 / 16 + Z95 * error) - score_to_elo(11 / 16 - Z95 * error)) / 2)


@pytest.mark.parametrize("sandbox", runners("docker"))
def test_a_tournament_in_the_docker_sandbox_plays_every_bot_in_a_container(tmp_path: Path, sandbox: str) -> None:
    bot = faulty_bot(tmp_path, "breakout")  # plays legally, and logs what its attempts to get out came to
    out = tournament_json(tmp_path, "generals-war", str(bot), RANDOM, "-n", "2", "--seed", "1", "-j", "2", "--sandbox", sandbox)
    assert out["matches"] == 2 and not any(any(g["forfeited"]) for g in out["results"])
    logs = [p.read_text(errors="replace") for p in (tmp_path / "logs").glob("*faulty-breakout*.log")]
    assert len(logs) == 2 and all("network blocked" in log and "write to /usr/planted refused" in log for log in logs)


def test_an_unknown_sandbox_is_refused_before_any_match(tmp_path: Path) -> None:
    result = runner.invoke(app, ["tournament", "generals-war", GREEDY, RANDOM, "--sandbox", "vm", "--log-dir", str(tmp_path / "logs")])
    assert result.exit_code == 2 and "unknown sandbox 'vm' (process or docker)" in result.output
    assert not (tmp_path / "logs").exists()


def test_an_even_match_reads_elo_plus_0_never_minus_0() -> None:
    """Two copies of one bot scored 50%: its Elo, a float just under 0, read "Elo -0"."""
    assert elo_text(-0.0, None, None) == "Elo +0 (± unknown: no two results differ)"
    assert elo_text(-0.4, 12.0, 0.49) == "Elo +0 ± 12 (95%), LOS 49.0%"
    assert elo_text(-0.6, None, 0.49) == "Elo -1 (± too wide to tell), LOS 49.0%"


def test_report_every_prints_the_standings_so_far_between_games(tmp_path: Path) -> None:
    args = ["tournament", "generals-war", GREEDY, RANDOM, "-n", "6", "--seed", "4", "--log-dir", str(tmp_path / "logs")]
    whole = json.loads(runner.invoke(app, [*args, "--json"]).stdout.strip().splitlines()[-1])
    result = runner.invoke(app, [*args, "--report-every", "2"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("after ")]
    assert [line.split(":")[0] for line in lines] == ["after 2 of 6 games", "after 4 of 6 games"]  # not after the last: the tables follow
    first_four = whole["results"][:4]
    wins = sum(g["ranks"][g["seats"].index("gw-greedy")] < g["ranks"][g["seats"].index("random")] for g in first_four)
    losses = sum(g["ranks"][g["seats"].index("gw-greedy")] > g["ranks"][g["seats"].index("random")] for g in first_four)
    assert f"gw-greedy {wins}-{4 - wins - losses}-{losses} (" in lines[1]
    assert not [line for line in runner.invoke(app, [*args, "--json", "--report-every", "2"]).output.splitlines() if line.startswith("after ")]


def test_the_printed_table_counts_each_bots_forfeits_not_its_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot that forfeited one game of four is listed with (1): a crashing bot forfeits every game, where the two agree."""
    from rich.console import Console

    import arena.cli.tournament as printed

    recorded = Console(record=True, width=160)
    monkeypatch.setattr(printed, "console", recorded)

    def row(place: int, bot: str, forfeits: int) -> dict[str, Any]:
        return {"place": place, "bot": bot, "mu": 25.0, "sigma": 3.0, "conservative": 16.0, "wins": 2, "draws": 0, "losses": 2,
                "points": 2.0, "avg_rank": 1.5, "games": 4, "forfeits": forfeits}

    head = {"wins": 2, "draws": 0, "losses": 2}
    data = {"game": "generals-war", "format": "round-robin", "players": 2, "seed": 1, "matches": 4,
            "standings": [row(1, "steady", 0), row(2, "flaky", 1)], "crosstable": {"steady": {"flaky": head}, "flaky": {"steady": head}}}
    printed.print_result(data, Path("the-logs"))
    said = " ".join(recorded.export_text().split())
    assert "forfeited games: flaky (1) — see the bot logs in the-logs/" in said and "steady (" not in said


def test_a_bot_that_won_every_result_is_told_why_it_has_no_elo() -> None:
    """A head-to-head or SPRT of wins only has no finite Elo: it read "Elo n/a", which looked like a missing figure."""
    for counts, score in (([0, 0, 0, 0, 3], 1.0), ([3, 0, 0, 0, 0], 0.0)):
        found = estimate(counts, PENTANOMIAL)
        assert found is not None and found.elo is None and found.score == score
        said = elo_text(found.elo, found.margin, found.los, found.score)
        assert said.startswith("Elo n/a (every result a " + ("win" if score else "loss") + ": no finite estimate)"), said
    assert elo_text(None, None, None) == "Elo n/a"  # no score given: nothing to say why
