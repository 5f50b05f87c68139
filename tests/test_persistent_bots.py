"""Bot processes that play several matches in a row (manifest ``matches_per_process``)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest

from referee.server.launchers import BotHandle, LaunchSpec, ProcessHandle, ProcessLauncher
from referee.server.manifest import ManifestError, load_manifest
from referee.server.runner import BotPool, LocalMatch, MatchSetup, deal_of, run_local_match
from referee.server.session import MatchSession, TimeControl
from referee.tournament.run import TournamentConfig, run_tournament
from tests.support import SAMPLE_BOTS

TC = TimeControl(move_time_ms=5000, time_bank_ms=10000)


def pooled_bot(tmp_path: Path, name: str = "pooled", per_process: int = 3) -> Path:
    """A copy of the random sample bot whose manifest lets one process play ``per_process`` matches."""
    bot = tmp_path / name
    bot.mkdir()
    shutil.copy(SAMPLE_BOTS / "random" / "bot.py", bot / "bot.py")
    (bot / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1"\nlanguage = "python"\ngames = ["generals-war"]\n'
        f'command = ["python", "bot.py"]\nmatches_per_process = {per_process}\n'
    )
    return bot


def test_the_manifest_field_is_checked(tmp_path: Path) -> None:
    assert load_manifest(SAMPLE_BOTS / "generals_war_greedy").matches_per_process == 1
    assert load_manifest(pooled_bot(tmp_path)).matches_per_process == 3
    bad = pooled_bot(tmp_path, "bad")
    (bad / "bot.toml").write_text((bad / "bot.toml").read_text().replace("matches_per_process = 3", "matches_per_process = 0"))
    with pytest.raises(ManifestError, match="matches_per_process"):
        load_manifest(bad)


def test_a_pooled_process_plays_several_matches_but_never_the_same_deal_twice(tmp_path: Path) -> None:
    bot = pooled_bot(tmp_path)

    async def main() -> tuple[list[int], list[int], int]:
        pool = BotPool(tmp_path / "logs")
        started = []
        clean = []
        try:
            for seed in (1, 2, 2, 3):  # the second seed 2 is the same deal: it needs processes that have not seen it
                setup = MatchSetup("generals-war", [bot, bot], seed, {}, TC, tmp_path / "logs")
                match = await run_local_match(setup, pool=pool)
                started.append(pool.started)
                clean.append(sum(1 for s in match.record.result.seats if not s.forfeited and not s.verdicts))
            for r in pool.residents:
                assert r.played <= 3
            deals_per_process = [len(r.deals) == r.played for r in pool.residents]
            return started, clean, all(deals_per_process)
        finally:
            await pool.close()

    started, clean, distinct = asyncio.run(main())
    assert clean == [2, 2, 2, 2]
    assert started == [2, 2, 4, 4]  # match 3 repeats match 2's deal: two fresh processes
    assert distinct


def test_a_pooled_process_is_told_only_to_read_its_orders(tmp_path: Path) -> None:
    """No ARENA_ADDRESS, ARENA_MATCH_ID or ARENA_TOKEN in its environment: every match's come on its control pipe.
    Its name is handed on as a fresh process's is (its log lines carry it)."""
    bot = pooled_bot(tmp_path, "pooled-one")
    seen = tmp_path / "env.json"
    note = f"import json, os\nopen({str(seen)!r}, 'w').write(json.dumps({{k: v for k, v in os.environ.items() if k.startswith('ARENA_')}}))\n"
    future = "from __future__ import annotations\n"
    (bot / "bot.py").write_text((bot / "bot.py").read_text().replace(future, future + note, 1))

    async def main() -> int:
        pool = BotPool(tmp_path / "logs")
        try:
            match = await run_local_match(MatchSetup("generals-war", [bot, SAMPLE_BOTS / "random"], 1, {}, TC, tmp_path / "logs"), pool=pool)
            return sum(1 for s in match.record.result.seats if not s.forfeited and not s.verdicts)
        finally:
            await pool.close()

    assert asyncio.run(main()) == 2
    assert json.loads(seen.read_text()) == {"ARENA_CONTROL": "stdin", "ARENA_BOT_NAME": "pooled-one"}


def test_a_process_retires_after_its_matches(tmp_path: Path) -> None:
    bot = pooled_bot(tmp_path, per_process=2)

    async def main() -> int:
        pool = BotPool(tmp_path / "logs")
        try:
            for seed in (1, 2, 3):
                await run_local_match(MatchSetup("generals-war", [bot, bot], seed, {}, TC, tmp_path / "logs"), pool=pool)
            return pool.started
        finally:
            await pool.close()

    assert asyncio.run(main()) == 4


class Recording(ProcessLauncher):
    """Starts each bot as a process, and records its seat."""

    def __init__(self) -> None:
        self.launched: list[int] = []

    async def launch(self, spec: LaunchSpec) -> BotHandle:
        self.launched.append(spec.seat)
        return await super().launch(spec)


class Sandboxed:
    """Stands in for the Docker launcher (not a ProcessLauncher): it starts each bot through a recording one."""

    name = "docker"

    def __init__(self) -> None:
        self.inner = Recording()
        self.launched = self.inner.launched

    async def launch(self, spec: LaunchSpec) -> BotHandle:
        return await self.inner.launch(spec)


@pytest.mark.parametrize("sandbox,launcher", [("docker", Recording), ("process", Sandboxed)], ids=["docker-setup", "sandbox-launcher"])
def test_a_sandboxed_match_never_hands_a_bot_to_the_pool(tmp_path: Path, sandbox: str, launcher: type[Recording | Sandboxed]) -> None:
    """The pool runs plain processes: a tournament or a ladder with --sandbox docker passes its pool to every match, and
    a bot allowed several matches per process must still be started by the sandbox's launcher, in a container."""
    bot = pooled_bot(tmp_path)
    starter = launcher()

    async def main() -> int:
        pool = BotPool(tmp_path / "logs")
        try:
            setup = MatchSetup("generals-war", [bot, bot], 1, {}, TC, tmp_path / "logs", sandbox=sandbox)
            await run_local_match(setup, starter, pool=pool)
            return pool.started
        finally:
            await pool.close()

    assert asyncio.run(main()) == 0
    assert sorted(starter.launched) == [0, 1]


def test_a_pool_keeps_a_few_idle_processes_and_stops_the_oldest(tmp_path: Path) -> None:
    """Without a cap a ladder kept an idle process of every pooled bot it had met, for as long as it ran."""
    bots = [pooled_bot(tmp_path, name) for name in ("first", "second", "third")]

    async def main() -> tuple[list[str], list[bool], int, int]:
        pool = BotPool(tmp_path / "logs", max_idle=2)
        try:
            for seed, bot in enumerate(bots, 1):  # each leaves one idle process of its own
                await run_local_match(MatchSetup("generals-war", [bot, SAMPLE_BOTS / "random"], seed, {}, TC, tmp_path / "logs"), pool=pool)
            stopped = [r for r in pool.residents if r.manifest.name == "first"]
            await asyncio.gather(*pool._retiring)
            idle = [r.manifest.name for r in pool.idle]
            first_alive = [r.alive for r in stopped]
            before = pool.started
            await run_local_match(MatchSetup("generals-war", [bots[0], SAMPLE_BOTS / "random"], 9, {}, TC, tmp_path / "logs"), pool=pool)
            await asyncio.gather(*pool._retiring)  # "second" now idle longest, over the cap
            return idle, first_alive, pool.started - before, len(pool.residents)
        finally:
            await pool.close()

    idle, first_alive, started_again, residents = asyncio.run(main())
    assert idle == ["second", "third"]
    assert first_alive == [False], "the process idle longest was stopped"
    assert started_again == 1, "its bot plays again in a new process"
    assert residents == 2, "a stopped process is forgotten"


def test_a_tournament_uses_the_pool_and_gets_the_same_standings(tmp_path: Path) -> None:
    """Pooled random bots re-seed from each match's seed: every game ends as it does with a process per match."""
    played = {}
    for per_process in (10, 1):
        folder = tmp_path / str(per_process)
        folder.mkdir()
        a, b = pooled_bot(folder, "a", per_process), pooled_bot(folder, "b", per_process)
        config = TournamentConfig("generals-war", [a, b], games=4, seed=5, time_control=TC, log_dir=folder / "logs")
        result = asyncio.run(run_tournament(config))
        assert len(result.games) == 4 and not any(any(g.forfeited) for g in result.games)
        played[per_process] = [(g.scheduled.seats, g.ranks, g.scores) for g in result.games]
        processes = len(list((folder / "logs").glob("pool-*.log")))
        # Each deal is played twice, seats swapped, and no process sees a deal twice: 4 processes for 8 seats.
        assert processes == (0 if per_process == 1 else 4)
    assert played[10] == played[1]


def test_a_pooled_process_keeps_one_socket_that_serves_only_its_current_seat(tmp_path: Path) -> None:
    """Each pooled process is handed every match on the same address; between matches that socket serves no match."""
    import grpc

    from arena.v1 import referee_pb2 as pb
    from arena.v1 import referee_pb2_grpc
    from referee.server.service import NO_SEAT

    bot = pooled_bot(tmp_path)
    orders: dict[int, list[str]] = {}
    original = ProcessHandle.send_control

    def send_control(self: ProcessHandle, line: str) -> None:
        orders.setdefault(id(self), []).append(json.loads(line)["address"])
        original(self, line)

    async def refused_after(address: str, match_id: str, token: str) -> grpc.StatusCode:
        async with grpc.aio.insecure_channel(address) as channel:
            call = referee_pb2_grpc.RefereeStub(channel).Play()
            await call.write(pb.BotMessage(hello=pb.Hello(match_id=match_id, token=token, protocol_version=1)))
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await call.read()
            return refused.value.code()

    async def main() -> tuple[list[tuple[int, str]], grpc.StatusCode]:
        pool = BotPool(tmp_path / "logs")
        try:
            for seed in (1, 2):
                match = await run_local_match(MatchSetup("generals-war", [bot, bot], seed, {}, TC, tmp_path / "logs"), pool=pool)
                assert not any(s.forfeited or s.verdicts for s in match.record.result.seats)
            for r in pool.residents:
                assert r.service is not None and not r.service.sessions and r.service.only_seat == NO_SEAT
            # The last match's seat 0 token, on its process's socket, once the match is over: no such match here.
            last = pool.residents[0]
            code = await refused_after(last.address, match.record.match_id, "any token")
            return [(r.number, r.address) for r in pool.residents], code
        finally:
            await pool.close()

    ProcessHandle.send_control = send_control  # type: ignore[method-assign]
    try:
        residents, code = asyncio.run(main())
    finally:
        ProcessHandle.send_control = original  # type: ignore[method-assign]
    assert len(residents) == 2 and residents[0][1] != residents[1][1]
    assert sorted(map(tuple, orders.values())) == sorted((address, address) for _, address in residents)
    assert code == grpc.StatusCode.NOT_FOUND


def test_a_pooled_process_reads_its_orders_from_a_file_too(tmp_path: Path) -> None:
    """The SDK's control loop takes its orders from any stdin, not only a pipe: here a file naming two matches not served."""
    import sys

    from referee.server.service import RefereeService, make_server
    from tests.support import SAMPLE_BOTS as bots

    address = f"unix:{tmp_path / 'r.sock'}"
    orders = tmp_path / "orders.jsonl"
    orders.write_text("".join(json.dumps({"address": address, "match_id": m, "token": "t", "seed": 3}) + "\n\n" for m in ("m1", "m2")))
    env = {"ARENA_CONTROL": "stdin", "PATH": os.environ["PATH"], "PYTHONPATH": os.pathsep.join(sys.path)}

    async def main() -> tuple[int | None, str]:
        server = make_server(RefereeService())
        server.add_insecure_port(address)
        await server.start()
        try:
            with orders.open() as stdin:
                proc = await asyncio.create_subprocess_exec(
                    sys.executable, "bot.py", cwd=bots / "random", stdin=stdin, env=env, stderr=asyncio.subprocess.PIPE
                )
                _, err = await asyncio.wait_for(proc.communicate(), 60)
            return proc.returncode, err.decode()
        finally:
            await server.stop(None)

    code, err = asyncio.run(main())
    assert code == 0, err
    assert err.count("refused by the referee: NOT_FOUND") == 2, err


def test_a_match_of_pooled_seats_only_makes_no_scratch_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sockets and homes are made for seats that start a process for the match, and for no other."""
    import tempfile

    made: list[str] = []
    real = tempfile.TemporaryDirectory

    def counted(*args: object, **kwargs: object) -> tempfile.TemporaryDirectory[str]:
        folder = real(*args, **kwargs)  # type: ignore[call-overload]
        made.append(folder.name)
        return folder

    monkeypatch.setattr(tempfile, "TemporaryDirectory", counted)
    bot = pooled_bot(tmp_path)
    single = SAMPLE_BOTS / "random"

    async def main() -> list[int]:
        pool = BotPool(tmp_path / "logs")
        clean = []
        try:
            for seats in ([bot, bot], [bot, single]):
                match = await run_local_match(MatchSetup("generals-war", seats, 1, {}, TC, tmp_path / "logs"), pool=pool)
                clean.append(sum(1 for s in match.record.result.seats if not s.forfeited and not s.verdicts))
                clean.append(len(made))
            return clean
        finally:
            await pool.close()

    assert asyncio.run(main()) == [2, 0, 2, 1]


def bot_with(tmp_path: Path, name: str, method: str) -> Path:
    """A pooled random bot with ``method`` (source indented as a method) added to its class."""
    bot = pooled_bot(tmp_path, name)
    source = (bot / "bot.py").read_text()
    anchor = "    def act(self, request: Request) -> Any:\n"
    assert anchor in source
    (bot / "bot.py").write_text(source.replace(anchor, method + anchor, 1))
    return bot


def mayfly(tmp_path: Path) -> tuple[Path, Path]:
    """A pooled bot whose process dies between matches, and the file it waits for after its match: the test makes it
    once the pool has the process waiting for the next match (a time after the match may come before that)."""
    go = tmp_path / "go"
    exits = (
        "        import threading, time\n\n"
        "        def die() -> None:\n"
        f"            while not os.path.exists({str(go)!r}):\n"
        "                time.sleep(0.01)\n"
        "            os._exit(0)\n\n"
        "        threading.Thread(target=die, daemon=True).start()\n\n"
    )
    return bot_with(tmp_path, "mayfly", "    def on_result(self, result: Any) -> None:\n" + exits), go


def test_a_pooled_processs_socket_refuses_any_seat_but_the_one_it_plays_now(tmp_path: Path) -> None:
    """During a match its socket answers only its own seat's token: another seat's gets PERMISSION_DENIED, as on a seat's socket."""
    import grpc

    from arena.v1 import referee_pb2 as pb
    from arena.v1 import referee_pb2_grpc
    from referee.games.generals_war import GeneralsWar
    from referee.server.session import MatchSession

    manifest = load_manifest(pooled_bot(tmp_path))

    async def first_answer(address: str, match_id: str, token: str) -> str:
        async with grpc.aio.insecure_channel(address) as channel:
            call = referee_pb2_grpc.RefereeStub(channel).Play()
            await call.write(pb.BotMessage(hello=pb.Hello(match_id=match_id, token=token, protocol_version=1)))
            try:
                msg = await call.read()
            except grpc.aio.AioRpcError as exc:
                return exc.code().name
            call.cancel()
            return str(msg.WhichOneof("msg"))

    async def main() -> list[str]:
        pool = BotPool(tmp_path / "logs")
        try:
            session = MatchSession(GeneralsWar(2, 1), ["a", "b"], TC)
            r = await pool.acquire(manifest, ("generals-war", 1, ()), session, 1)  # no order sent: the bot waits
            return [await first_answer(r.address, session.match_id, token) for token in session.tokens()]
        finally:
            await pool.close()

    assert asyncio.run(main()) == ["PERMISSION_DENIED", "start"]


def against_random(tmp_path: Path, bot: Path, seeds: tuple[int, ...], go: Path | None = None) -> tuple[list[LocalMatch], int]:
    """``bot`` plays the random sample bot once per seed with one pool: the matches, and how many processes it started.

    ``go``: a mayfly's file; after each match, make it and wait until the pool's processes have ended (and their
    watchers have seen it), then take it away."""

    async def main() -> tuple[list[LocalMatch], int]:
        pool = BotPool(tmp_path / "logs")
        try:
            records = []
            for seed in seeds:
                setup = MatchSetup("generals-war", [bot, SAMPLE_BOTS / "random"], seed, {}, TC, tmp_path / "logs")
                records.append(await run_local_match(setup, pool=pool))
                if go is None:
                    continue
                go.touch()
                for r in list(pool.residents):  # a copy: its watcher takes it off the list
                    await r.handle.wait()
                    assert r.watcher is not None
                    await r.watcher  # the pool has seen it end
                go.unlink()
            return records, pool.started
        finally:
            await pool.close()

    return asyncio.run(main())


def test_a_process_that_draws_a_verdict_is_replaced(tmp_path: Path) -> None:
    """docs/protocol.md: a pooled process whose match drew a verdict (here one illegal move, then legal ones) is not kept."""
    from arena.v1 import referee_pb2 as pb

    bot = bot_with(
        tmp_path,
        "clumsy",
        "    illegal_sent = False\n\n"
        "    def act_once_illegally(self, request: Request) -> Any:\n"
        "        from arena.v1 import generals_war_pb2 as gw\n\n"
        "        RandomBot.illegal_sent = True\n"
        "        return gw.Action(play_squad=gw.PlaySquad(card_ids=[9999]))\n\n",
    )
    source = (bot / "bot.py").read_text()
    legal = "        return random_action(request, self.rng)\n"
    (bot / "bot.py").write_text(source.replace(legal, "        if not RandomBot.illegal_sent:\n            return self.act_once_illegally(request)\n" + legal, 1))
    matches, started = against_random(tmp_path, bot, (1, 2))
    assert [[v.kind for v in m.record.result.seats[0].verdicts] for m in matches] == [[pb.ILLEGAL_ACTION]] * 2, "each new process makes its one illegal move"
    assert started == 2


def test_a_process_that_dies_between_matches_is_replaced(tmp_path: Path) -> None:
    """The next match gets a new process, not the dead one (which would leave its seat to forfeit as a crash)."""
    bot, go = mayfly(tmp_path)
    matches, started = against_random(tmp_path, bot, (1, 2), go)
    assert [sum(1 for s in m.record.result.seats if not s.forfeited and not s.verdicts) for m in matches] == [2, 2]
    assert started == 2


def test_a_stopped_process_leaves_nothing_in_the_pools_folder(tmp_path: Path) -> None:
    """Its copy of the bot, its home and its socket's folder stayed until the pool closed: a ladder's pool lives as long
    as the ladder, and kept a copy of the bot (and all it wrote) for every process it had ever started."""
    bot = pooled_bot(tmp_path, per_process=2)
    dies, go = mayfly(tmp_path)

    async def main() -> tuple[list[str], list[int], list[str]]:
        pool = BotPool(tmp_path / "logs")
        try:
            for seed in (1, 2, 3):  # processes 1 and 2 play two matches each and are stopped; 3 and 4 wait for more
                await run_local_match(MatchSetup("generals-war", [bot, bot], seed, {}, TC, tmp_path / "logs"), pool=pool)
            left = sorted(p.name for p in pool.tmp.iterdir())
            numbers = sorted(r.number for r in pool.residents)
            await run_local_match(MatchSetup("generals-war", [dies, SAMPLE_BOTS / "random"], 4, {}, TC, tmp_path / "logs"), pool=pool)
            go.touch()
            [dead] = [r for r in pool.residents if r.manifest.name == "mayfly"]
            await dead.handle.wait()
            assert dead.watcher is not None
            await dead.watcher  # it died between matches: the pool has seen it
            after = sorted(p.name for p in pool.tmp.iterdir())
            return left, numbers, after
        finally:
            await pool.close()

    left, numbers, after = asyncio.run(main())
    assert numbers == [3, 4] and left == sorted(f"{name}{n}" for name in ("bot", "home", "socket") for n in (3, 4))
    assert after == left, "a process that died between matches leaves nothing either"


@pytest.mark.parametrize("kept", [False, True], ids=["the ladder's pool", "a tournament's"])
def test_a_stopped_processs_log_goes_with_it_unless_the_pool_keeps_logs(tmp_path: Path, kept: bool) -> None:
    """A ladder's pool (no log folder given) kept every process's whole log under logs/processes for as long as the
    ladder ran, though each match's part is that seat's log already; a tournament's stay in the folder it names."""
    bot = pooled_bot(tmp_path, per_process=2)

    async def main() -> tuple[list[str], list[str], list[str]]:
        pool = BotPool(tmp_path / "logs" if kept else None)
        try:
            for seed in (1, 2, 3):  # processes 1 and 2 play two matches each and are stopped; 3 and 4 wait for more
                played = await run_local_match(MatchSetup("generals-war", [bot, bot], seed, {}, TC, tmp_path / "matches"), pool=pool)
            return sorted(p.name for p in pool.log_dir.iterdir()), [m.name for m in played.logs], [p.read_text() for p in played.logs]
        finally:
            await pool.close()

    left, match_logs, texts = asyncio.run(main())
    numbers = (1, 2, 3, 4) if kept else (3, 4)
    assert left == [f"pool-pooled-{n}.log" for n in numbers]
    assert len(match_logs) == 2 and all(texts), "each seat's part of its process's log is its match log"


def test_a_process_that_dies_during_its_match_crashes_at_once(tmp_path: Path) -> None:
    """The pool tells the match: the seat is a CRASH, not a bot thinking until its strikes run out."""
    from arena.v1 import referee_pb2 as pb

    bot = bot_with(tmp_path, "fragile", "    def on_start(self, start: Any) -> None:\n        os._exit(3)\n\n")
    matches, _ = against_random(tmp_path, bot, (1,))
    verdicts = matches[0].record.result.seats[0].verdicts
    assert [v.kind for v in verdicts] == [pb.CRASH, pb.FORFEIT] and "exited with code 3" in verdicts[0].detail


def test_each_matchs_log_of_a_pooled_seat_holds_that_match_alone(tmp_path: Path) -> None:
    """docs/bots.md: each match's part of a process's log is that seat's log (not what it printed in earlier matches)."""
    bot = bot_with(tmp_path, "talker", "    def on_start(self, start: Any) -> None:\n        print('playing', start.match_id, flush=True)\n\n")
    matches, started = against_random(tmp_path, bot, (1, 2))
    assert started == 1
    said = [[line for line in m.logs[0].read_text().splitlines() if line.startswith("playing")] for m in matches]
    assert said == [[f"playing {m.record.match_id}"] for m in matches]


def test_what_a_pooled_bot_prints_as_its_match_ends_is_in_that_matchs_log(tmp_path: Path) -> None:
    """A seat's part of its process's log is copied once its stream has ended; the SDK said "match over" after hanging
    up, and that line went to the next match's log in about one seat's log of six. on_result's print is the bot's own."""
    bot = bot_with(tmp_path, "talker", "    def on_result(self, result: Any) -> None:\n        print('bye', flush=True)\n\n")
    bot.joinpath("bot.toml").write_text(bot.joinpath("bot.toml").read_text().replace("matches_per_process = 3", "matches_per_process = 100"))

    async def main() -> tuple[list[str], int]:
        pool = BotPool()
        try:
            played = [await run_local_match(MatchSetup("generals-war", [bot, bot], seed, {}, TC, tmp_path / "logs"), pool=pool) for seed in range(1, 13)]
            return [log.read_text() for match in played for log in match.logs], pool.started
        finally:
            await pool.close()

    texts, started = asyncio.run(main())
    assert started == 2, "a process a seat, playing every match"
    assert [(t.count("bye"), t.count("match over")) for t in texts] == [(1, 1)] * 24, texts


def test_a_process_busy_with_a_match_is_not_handed_another(tmp_path: Path) -> None:
    """Two matches at once (a tournament's or the ladder's) get two processes, even of one bot."""
    from referee.games.generals_war import GeneralsWar

    manifest = load_manifest(pooled_bot(tmp_path))

    async def main() -> tuple[bool, int]:
        pool = BotPool(tmp_path / "logs")
        try:
            sessions = [MatchSession(GeneralsWar(2, seed), ["a", "b"], TC) for seed in (1, 2, 3)]
            first = await pool.acquire(manifest, 1, sessions[0], 0)
            await pool.release(first, clean=True)  # now idle
            busy = await pool.acquire(manifest, 2, sessions[1], 0)
            other = await pool.acquire(manifest, 3, sessions[2], 0)
            return busy is first and other is not busy, pool.started
        finally:
            await pool.close()

    assert asyncio.run(main()) == (True, 2)


def test_a_deal_is_its_game_seed_and_options_whatever_their_order() -> None:
    def setup(seed: int, options: dict[str, str]) -> MatchSetup:
        return MatchSetup("glory", [], seed, options, TC, Path("logs"))

    assert deal_of(setup(1, {"a": "1", "b": "2"})) == deal_of(setup(1, {"b": "2", "a": "1"}))
    assert deal_of(setup(1, {"a": "1"})) != deal_of(setup(1, {"a": "2"}))
    assert deal_of(setup(1, {})) != deal_of(setup(2, {}))


def test_a_pooled_bot_that_cannot_be_started_crashes_its_seat_and_the_match_is_played(tmp_path: Path) -> None:
    """A pooled bot whose folder cannot be copied for its process (here it holds a named pipe, which a bot may use and
    no copy can hold) is a CRASH of its seat, saying why, as a bot the process launcher cannot start is: it raised out
    of run_local_match, and ended a whole tournament with a traceback; its half-made copy stayed in the pool's folder."""
    from arena.v1 import referee_pb2 as pb

    bot = pooled_bot(tmp_path)
    os.mkfifo(bot / "pipe")

    async def main() -> tuple[LocalMatch, list[str]]:
        pool = BotPool(tmp_path / "logs")
        try:
            match = await run_local_match(MatchSetup("generals-war", [bot, SAMPLE_BOTS / "random"], 1, {}, TC, tmp_path / "logs"), pool=pool)
            return match, sorted(p.name for p in pool.tmp.iterdir() if p.name != "logs")
        finally:
            await pool.close()

    match, left = asyncio.run(main())
    seats = match.record.result.seats
    assert [v.kind for v in seats[0].verdicts] == [pb.CRASH, pb.FORFEIT] and "pipe" in seats[0].verdicts[0].detail
    assert [s.rank for s in seats] == [2, 1] and not seats[1].verdicts
    assert "pipe" in match.logs[0].read_text()
    assert left == [], "nothing of the process that never started is left in the pool's folder"


def test_a_dangling_link_in_a_pooled_bots_folder_is_left_out_of_its_copy(tmp_path: Path) -> None:
    """A bot played by a fresh process runs in its folder, a dangling link (a stale build's, a moved venv's) and all;
    pooled, the copy of its folder failed on the link and the bot never played."""
    bot = pooled_bot(tmp_path)
    (bot / "stale").symlink_to(tmp_path / "gone")
    matches, started = against_random(tmp_path, bot, (1,))
    assert started == 1 and not matches[0].record.result.seats[0].verdicts


def test_a_pool_remembers_only_its_latest_hand_outs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ladder's pool lives for months and kept a record of every match it ever handed a process (a few hundred bytes
    each, two a match), so the worker's memory grew for as long as the ladder ran; now it keeps the latest ones."""
    from referee.games.generals_war import GeneralsWar
    from referee.server import runner

    monkeypatch.setattr(runner, "MAX_ASSIGNMENTS", 3)
    manifest = load_manifest(pooled_bot(tmp_path, per_process=100))

    async def main() -> list[object]:
        pool = BotPool(tmp_path / "logs")
        try:
            for seed in range(5):
                r = await pool.acquire(manifest, seed, MatchSession(GeneralsWar(2, seed), ["a", "b"], TC), 0)
                await pool.release(r, clean=True)
            return [deal for _, _, deal in pool.assignments]
        finally:
            await pool.close()

    assert asyncio.run(main()) == [2, 3, 4]
