"""Resident memory of one referee process per concurrent match.

A referee process of its own serves K two-player General's War matches on one
unix socket; this process connects both seats of every match (one gRPC channel
per match, as separate bots would) and never answers, so every match is live
at once, waiting on a decision. The referee reports its resident set size
(VmRSS) before the matches and once every seat is connected and asked.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parent.parent


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def _serve(matches: int, address: str) -> None:
    """In the referee process: serve ``matches`` matches, report RSS before and with all of them live."""
    from referee.games.generals_war import GeneralsWar
    from referee.server.service import RefereeService, make_server
    from referee.server.session import MatchSession, TimeControl

    service = RefereeService()
    # Every match here shares one socket (and gRPC's client may carry them all on one connection); a seat's
    # socket in a real match allows 16 connections of 16 streams, which would hold up all but the first few.
    server = make_server(service, max_connections=matches + 16, max_streams=2 * matches + 16)
    server.add_insecure_port(address)
    await server.start()
    before = rss_kib()
    tc = TimeControl(move_time_ms=600_000, time_bank_ms=600_000, connect_timeout_ms=600_000)
    sessions = [MatchSession(GeneralsWar(2, seed), ["a", "b"], tc) for seed in range(matches)]
    for s in sessions:
        service.add(s)
    tasks = [asyncio.create_task(s.run()) for s in sessions]
    print(json.dumps({"before": before, "matches": [[s.match_id, s.tokens()] for s in sessions]}), flush=True)
    while not all(seat.ever_connected for s in sessions for seat in s.seats):
        await asyncio.sleep(0.1)
    await asyncio.sleep(1.0)
    while not all(any(seat.pending is not None for seat in s.seats) for s in sessions):
        await asyncio.sleep(0.1)
    print(json.dumps({"live": rss_kib()}), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the benchmark is done
    for t in tasks:
        t.cancel()
    await server.stop(grace=0)


async def rss_with_matches(matches: int) -> tuple[int, int]:
    """(RSS in KiB of a referee before any match, RSS with ``matches`` live matches)."""
    from arena.v1 import referee_pb2 as pb
    from arena.v1 import referee_pb2_grpc

    with tempfile.TemporaryDirectory(prefix="arena-bmem-") as tmp:
        address = f"unix:{Path(tmp) / 'r.sock'}"
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c",
            f"import sys, asyncio; sys.path.insert(0, {str(ROOT)!r}); from benchmarks.memory import _serve; asyncio.run(_serve({matches}, {address!r}))",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=64 * 1024 * 1024,
        )
        assert proc.stdout is not None and proc.stdin is not None
        try:
            first = json.loads(await proc.stdout.readline())
            channels = []
            readers = []

            async def hold(call: grpc.aio.StreamStreamCall, hello: pb.BotMessage) -> None:
                await call.write(hello)
                try:
                    while await call.read() is not grpc.aio.EOF:
                        pass
                except (grpc.RpcError, asyncio.CancelledError):
                    pass

            for match_id, tokens in first["matches"]:
                channel = grpc.aio.insecure_channel(address)
                channels.append(channel)
                stub = referee_pb2_grpc.RefereeStub(channel)
                for token in tokens:
                    hello = pb.BotMessage(hello=pb.Hello(match_id=match_id, token=token, protocol_version=1, bot_name="idle"))
                    readers.append(asyncio.create_task(hold(stub.Play(wait_for_ready=True), hello)))
            live = json.loads(await proc.stdout.readline())["live"]
            proc.stdin.close()
            for r in readers:
                r.cancel()
            await asyncio.gather(*readers, return_exceptions=True)
            for c in channels:
                await c.close()
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    return first["before"], live


if __name__ == "__main__":
    for k in (10, 100, 500):
        before, live = asyncio.run(rss_with_matches(k))
        print(k, before, live, (live - before) / k, "KiB per match")
