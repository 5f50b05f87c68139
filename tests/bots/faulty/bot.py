"""A bot with a fault, named by its first argument; the fault matrix (tests/test_faults.py) runs each one.

Faults that try to break out exit with code 3 if they succeed, so a breach
shows up as a CRASH verdict instead of passing quietly.
"""

from __future__ import annotations

import glob
import os
import random
import signal
import socket
import subprocess
import sys
import time
from typing import Any

import grpc

from arena.v1 import referee_pb2 as pb
from arena_sdk import Bot, Request, random_action, run
from arena_sdk.games import generals_war as gw

BREACH = 3
FAULT = sys.argv[1] if len(sys.argv) > 1 else "none"


def breach(what: str) -> None:
    print(f"BREACH: {what}", flush=True)
    os._exit(BREACH)


def raw_stream(messages: list[bytes]) -> None:
    """Speak to the referee with raw bytes."""
    channel = grpc.insecure_channel(os.environ["ARENA_ADDRESS"], options=[("grpc.max_send_message_length", 64 * 1024 * 1024)])
    call = channel.stream_stream("/arena.v1.Referee/Play", request_serializer=lambda b: b, response_deserializer=lambda b: b)
    try:
        for _ in call(iter(messages), timeout=5):
            pass
    except grpc.RpcError as exc:
        print(f"stream ended: {exc.code()}", flush=True)


def hello(token: str | None = None) -> bytes:
    msg = pb.BotMessage(hello=pb.Hello(match_id=os.environ["ARENA_MATCH_ID"], token=token or os.environ["ARENA_TOKEN"], protocol_version=1))
    return msg.SerializeToString()


def probe_breakouts() -> None:
    """What a contained bot must not be able to do; exits with BREACH if one works."""
    try:
        socket.create_connection(("1.1.1.1", 53), timeout=2).close()
        breach("opened a network connection")
    except OSError as exc:
        print(f"network blocked: {exc}", flush=True)
    for path in ("/bot/planted", "/usr/planted", "/etc/planted", "/planted", "/arena/planted", "/arena/../planted"):
        try:
            with open(path, "w") as f:
                f.write("x")
            breach(f"wrote {path}")
        except OSError as exc:
            print(f"write to {path} refused: {exc.strerror}", flush=True)
    try:
        os.rename("/arena/referee.sock", "/arena/moved.sock")
        breach("moved the referee's socket")
    except OSError as exc:
        print(f"moving the socket refused: {exc.strerror}", flush=True)
    if os.path.lexists("/bot/leak.txt"):  # the test links it to a file of the host's
        try:
            print(f"leak.txt reads {open('/bot/leak.txt').read()!r}", flush=True)
        except OSError as exc:
            print(f"leak.txt unreadable: {exc.strerror}", flush=True)
    mine = os.environ["ARENA_TOKEN"]
    for environ in glob.glob("/proc/[0-9]*/environ"):
        try:
            data = open(environ, "rb").read()
        except OSError:
            continue
        for item in data.split(b"\0"):
            if item.startswith(b"ARENA_TOKEN=") and item.decode(errors="replace").split("=", 1)[1] != mine:
                breach(f"read another seat's token from {environ}")



def probe_other_seats() -> None:
    """Another seat's socket must refuse this bot; exits with BREACH if it serves it."""
    address = os.environ["ARENA_ADDRESS"].removeprefix("unix:")
    here = os.path.dirname(address)
    for other in glob.glob(os.path.join(os.path.dirname(here), "seat*", "referee.sock")):
        if os.path.dirname(other) == here:
            continue
        channel = grpc.insecure_channel(f"unix:{other}")
        call = channel.stream_stream("/arena.v1.Referee/Play", request_serializer=lambda b: b, response_deserializer=lambda b: b)
        try:
            for _ in call(iter([hello()]), timeout=3):
                breach(f"was served on another seat's socket {other}")
        except grpc.RpcError as exc:
            print(f"other seat's socket {other} refused: {exc.code()}", flush=True)


def fill_disk() -> None:
    """Write to TMPDIR until the disk is full (in Docker, the 64 MiB tmpfs), then to /dev/shm (Docker's, 64 MiB too), then play on."""
    for folder, what in ((os.environ["TMPDIR"], "disk"), ("/dev/shm", "shm")):
        written = 0
        try:
            with open(os.path.join(folder, "filler"), "wb") as f:
                while written < 256 * 1024 * 1024:
                    f.write(b"\0" * 1024 * 1024)
                    f.flush()
                    written += 1024 * 1024
            breach(f"wrote {written >> 20} MiB to {folder}")
        except OSError as exc:
            print(f"{what} full after {written >> 20} MiB: {exc.strerror}", flush=True)


def escape() -> None:
    """Leave processes that are no longer in the bot's process group: a new session, and a daemon's double fork."""
    child = subprocess.Popen(["sleep", "600"], start_new_session=True)
    print(f"escaped pid {child.pid}", flush=True)
    read, write = os.pipe()
    if os.fork() == 0:
        os.setsid()
        daemon = os.fork()
        if daemon == 0:
            os.execvp("sleep", ["sleep", "601"])
        os.write(write, f"{daemon}\n".encode())
        os._exit(0)
    print(f"escaped pid {os.read(read, 64).decode().strip()}", flush=True)


def kill_reaper_and_crash() -> None:
    """Leave a process in a session of its own, holding the bot's output, kill the reaper (the process runner's; the
    bot's parent) and crash: only the reaper's end tells the referee, the output's pipe staying open."""
    child = subprocess.Popen(["sleep", "600"], start_new_session=True)
    print(f"escaped pid {child.pid}", flush=True)
    os.kill(os.getppid(), signal.SIGKILL)
    os._exit(1)


def flood_output_forever() -> None:
    """Write to stdout and stderr without end, from a thread of its own, while the bot plays."""
    import threading

    line = b"y" * 1023 + b"\n"

    def flood(fd: int) -> None:
        while True:
            try:
                os.write(fd, line * 64)
            except OSError:
                return

    for fd in (1, 2):
        threading.Thread(target=flood, args=(fd,), daemon=True).start()


def leave_orphans(count: int = 100) -> None:
    """Leave ``count`` orphans that end at once, one after the other: zombies, unless something reaps them. Plays on
    once they have all ended: each holds the writing end of a pipe, which reads as ended once the last has."""
    read_end, write_end = os.pipe()
    for made in range(count):
        try:
            child = os.fork()
        except OSError as exc:
            print(f"fork refused after {made} orphans: {exc.strerror}", flush=True)
            os.close(write_end)
            return
        if child == 0:
            parent = os.getpid()
            if os.fork() == 0:
                while os.getppid() == parent:  # ends once its parent has: an orphan
                    time.sleep(0.001)
            os._exit(0)
        os.waitpid(child, 0)
    os.close(write_end)
    os.read(read_end, 1)  # b"" once every orphan has ended
    os.close(read_end)
    print(f"{count} orphans left", flush=True)


def signal_first_process() -> None:
    """Signal the container's first process (the bot's parent, pid 1), each signal a container's user may send it."""
    if os.getppid() != 1:
        breach("not the child of a container's first process")  # never signal a host's init
    for sig in (signal.SIGSTOP, signal.SIGKILL, signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGUSR1):
        try:
            os.kill(1, sig)
            print(f"sent {sig.name} to pid 1", flush=True)
        except OSError as exc:
            print(f"{sig.name} to pid 1 refused: {exc.strerror}", flush=True)
        time.sleep(0.2)  # on purpose: time for pid 1 to end, if the signal could end it (it must not)
    print("pid 1 signalled", flush=True)


def hold_inotify_instances() -> None:
    """Take every inotify instance this user may have (a limit per user of the host, not per container), and keep them."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    limit = int(open("/proc/sys/fs/inotify/max_user_instances").read())
    held = 0
    while held < limit and libc.inotify_init() >= 0:
        held += 1
    print(f"inotify instances: {held} of {limit}", flush=True)


def read_first(*paths: str) -> str | None:
    """The first of ``paths`` that can be read, stripped; None if none can."""
    for path in paths:
        try:
            with open(path) as f:
                return f.read().strip()
        except OSError:
            continue
    return None


def report_confinement() -> None:
    """Say what confines this process (user, capabilities, cgroup limits, mounts) for the test to check; cgroup v1 or v2."""
    print(f"uid {os.getuid()} gid {os.getgid()}", flush=True)
    import pwd

    print(f"user {pwd.getpwuid(os.getuid()).pw_name}", flush=True)
    for name in ("HOME", "TMPDIR"):  # where a bot keeps its files: writable (the tmpfs), all else read-only
        try:
            with open(os.path.join(os.environ[name], "probe"), "w") as f:
                f.write("x")
            print(f"{name} writable", flush=True)
        except OSError as exc:
            print(f"{name} not writable: {exc.strerror}", flush=True)
    import resource

    print("rlimit core %d %d" % resource.getrlimit(resource.RLIMIT_CORE), flush=True)  # -1: unlimited
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("CapBnd:", "CapEff:", "CapPrm:", "NoNewPrivs:")):
                key, value = line.split(":", 1)
                print(f"status {key} {value.strip()}", flush=True)
    cg = "/sys/fs/cgroup"
    limits: dict[str, str | None] = {
        "memory": read_first(f"{cg}/memory.max", f"{cg}/memory/memory.limit_in_bytes"),
        "swap": read_first(f"{cg}/memory.swap.max"),  # cgroup v2: the swap alone
        "memsw": read_first(f"{cg}/memory/memory.memsw.limit_in_bytes"),  # cgroup v1: memory and swap together
        "pids": read_first(f"{cg}/pids.max", f"{cg}/pids/pids.max"),
        "cpu": read_first(f"{cg}/cpu.max") or f"{read_first(f'{cg}/cpu/cpu.cfs_quota_us')} {read_first(f'{cg}/cpu/cpu.cfs_period_us')}",
    }
    for name, limit in limits.items():
        print(f"cgroup {name} {limit}", flush=True)  # None: not there (a host that does not account swap)
    with open("/proc/self/mounts") as f:
        for line in f:
            _, point, kind, options, *_ = line.split()
            print(f"mount {point} {kind} {options.split(',')[0]}", flush=True)
            if "noexec" in options.split(","):
                print(f"noexec {point}", flush=True)


class Faulty(Bot):
    name = "faulty"
    max_retries = 1_000_000 if FAULT == "illegal_forever" else 3

    def __init__(self) -> None:
        self.rng = random.Random(1)
        self.decisions = 0

    def act(self, request: Request) -> Any:
        self.decisions += 1
        if FAULT == "crash_mid_game" and self.decisions == 3:
            os._exit(1)
        if FAULT == "kill_reaper" and self.decisions == 3:
            kill_reaper_and_crash()
        if FAULT == "hang":
            time.sleep(3600)
        if FAULT == "too_slow":
            time.sleep(request.time_left_ms / 1000 + 0.3)
        if FAULT in ("illegal_forever", "illegal_then_give_up"):
            return gw.squad([9999])  # well formed, never legal (the second gives up after the SDK's 3 retries)
        if FAULT == "memory_hog" and self.decisions == 2:
            hog = []
            while True:
                hog.append(bytearray(50 * 1024 * 1024))
        return random_action(request, self.rng)


#: Faults that do one thing, each its own function, then play the game.
THEN_PLAY = {
    "signal_pid_1": signal_first_process,
    "inotify_hog": hold_inotify_instances,
    "orphans": leave_orphans,
    "fill_disk": fill_disk,
    "escape": escape,
    "breakout": probe_breakouts,
    "other_seat": probe_other_seats,
    "confinement": report_confinement,
}


def main() -> None:
    if FAULT == "log_flood":  # a line to find, then three times the log's cap
        print("FIRST LINE OF THE LOG", flush=True)
        for _ in range(3 * 1024):
            sys.stdout.write("x" * 1023 + "\n")
        sys.stdout.flush()
    if FAULT == "output_forever":
        print("FIRST LINE OF THE LOG", flush=True)
        flood_output_forever()
    if FAULT == "ignore_sigterm":  # the bot and a child in a session of its own ignore SIGTERM, and outlive the game
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"], start_new_session=True)
        print(f"escaped pid {child.pid}", flush=True)
        run(Faulty())
        print("game over, sleeping on", flush=True)
        time.sleep(600)
    if FAULT == "slow_start":
        time.sleep(float(os.environ.get("FAULTY_DELAY", "5")))
    if FAULT == "never_connect":
        time.sleep(3600)
    if FAULT == "crash_at_start":
        sys.exit("crashing at start")
    if FAULT == "garbage":
        raw_stream([hello(), b"\xff\x00garbage\x07" * 10])
        time.sleep(3600)  # here and below: says nothing more, for the referee to end the match without it
    if FAULT == "oversized":
        big = pb.BotMessage(hello=pb.Hello(bot_name="x" * 200_000)).SerializeToString()
        raw_stream([hello(), big])
        time.sleep(3600)
    if FAULT == "huge":  # far over what gRPC takes (1 MiB)
        big = pb.BotMessage(hello=pb.Hello(bot_name="x" * 20_000_000)).SerializeToString()
        raw_stream([hello(), big])
        time.sleep(3600)
    if FAULT == "wrong_token":
        raw_stream([hello("not-my-token")])
        sys.exit("refused")
    if FAULT == "fork_bomb":
        children = 0
        for _ in range(100_000):
            try:
                if os.fork() == 0:
                    time.sleep(30)  # holds its process slot a while
                    os._exit(0)
                children += 1
            except OSError as exc:
                print(f"fork refused after {children} children: {exc.strerror}", flush=True)
                break
        if children >= 100_000:
            breach("forked without limit")
    if FAULT in THEN_PLAY:
        THEN_PLAY[FAULT]()
    run(Faulty())


if __name__ == "__main__":
    main()
