"""What a bot flooding the referee with bad answers, and reading every error, costs the referee's process in CPU.

``python -m benchmarks.flood [--seconds 10]`` starts ``arena referee serve`` for General's War in a process of its
own, puts the random sample bot in seat 1 (a process) and, in seat 0, a client that sends stale answers as fast
as gRPC takes them (gRPC's own thread draws them) while it reads the replies. It prints the referee process's CPU (user +
system, from /proc) over the flood, as a share of one core, and how many messages the flooder got through. Not in
``benchmarks.run``: docs/faults.md quotes it.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import grpc

from arena.v1 import referee_pb2 as pb
from arena.v1 import referee_pb2_grpc

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def start_referee(tmp: Path) -> tuple[subprocess.Popen[str], str, str, list[str]]:
    cmd = [
        str(ROOT / ".venv" / "bin" / "arena"), "referee", "serve", "generals-war", "--players", "2", "--port", "0",
        "--move-time-ms", "600000", "--time-bank-ms", "0", "--connect-timeout-s", "20", "--replay", str(tmp / "r.json"),
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp)
    assert proc.stdout is not None
    lines = [proc.stdout.readline() for _ in range(4)]
    address = re.search(r"listening on (\S+)", lines[0])
    match_id = re.search(r"ARENA_MATCH_ID=(\S+)", lines[1])
    tokens = [re.search(r"ARENA_TOKEN=(\S+)", line) for line in lines[2:4]]
    if address is None or match_id is None or None in tokens:
        proc.kill()
        raise SystemExit(f"unexpected output from arena referee serve: {lines}")
    return proc, address.group(1), match_id.group(1), [t.group(1) for t in tokens if t is not None]


def flood(address: str, match_id: str, token: str, seconds: float) -> tuple[int, int]:
    """Sends stale answers for ``seconds`` while reading the replies; returns (sent, errors read)."""
    stop = time.monotonic() + seconds
    sent = 0

    def messages() -> Iterator[pb.BotMessage]:
        nonlocal sent
        yield pb.BotMessage(hello=pb.Hello(match_id=match_id, token=token, protocol_version=1, bot_name="flood"))
        stale = pb.BotMessage(action=pb.ActionResponse(request_id=999_999))
        while time.monotonic() < stop:
            sent += 1
            yield stale

    errors = 0
    with grpc.insecure_channel(address) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)
        try:
            for reply in stub.Play(messages()):
                if reply.WhichOneof("msg") == "error":
                    errors += 1
                if time.monotonic() >= stop:
                    break
        except grpc.RpcError:
            pass
    return sent, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-flood-") as tmp:
        proc, address, match_id, tokens = start_referee(Path(tmp))
        env = dict(os.environ, ARENA_ADDRESS=address, ARENA_MATCH_ID=match_id, ARENA_TOKEN=tokens[1])
        env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{ROOT / 'sdk' / 'python'}"
        bot = subprocess.Popen([sys.executable, "bot.py"], cwd=ROOT / "sample_bots" / "random", env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(1.0)  # both seats connected, the match under way
            before, rss_before = cpu_seconds(proc.pid), rss_mib(proc.pid)
            started = time.monotonic()
            sent, errors = flood(address, match_id, tokens[0], args.seconds)
            elapsed = time.monotonic() - started
            used, rss_after = cpu_seconds(proc.pid) - before, rss_mib(proc.pid)
        finally:
            bot.kill()
            proc.kill()
        print(f"flood for {elapsed:.1f} s: {sent} stale answers sent, {errors} errors read")
        print(f"referee process CPU: {used:.2f} s, {100 * used / elapsed:.0f}% of one core; resident memory {rss_before:.0f} -> {rss_after:.0f} MiB")


if __name__ == "__main__":
    main()
