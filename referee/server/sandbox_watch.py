"""Removes a referee's bot containers once the referee is gone, however it ended: the Docker sandbox starts one per referee process.

Docker runs a container until someone stops it, and nothing stops a bot's
container when its referee is killed outright (SIGKILL, the kernel's OOM
killer, a hard crash): a bot that ignored its broken stream, or was busy
thinking, ran on for ever. The referee labels each container it starts
``arena.owner=TOKEN`` and starts this script with a pipe on its stdin whose
write end it keeps, never writing to it. The kernel closes that end when the
referee's process ends, whichever way; this script then reads the end of the
pipe and removes every container labelled with its token (none, if the
referee removed them itself).

Run as ``python -I sandbox_watch.py TOKEN``, in a session of its own. It ignores
SIGINT, SIGTERM and SIGHUP: stopping the referee (Ctrl-C, a stopped service
signalling all its processes) must leave it to see the referee go.
"""

from __future__ import annotations

import os
import signal
import sys
import time

#: A container whose creation the referee asked for just before it died may appear after the first sweep.
SECOND_SWEEP_AFTER_S = 2.0


def remove_owned(token: str) -> None:
    import docker  # only now: this process idles, small, for the referee's whole life

    client = docker.from_env()  # the engine the referee used: it has the same environment (sandbox.docker_client)
    for container in client.containers.list(all=True, filters={"label": f"arena.owner={token}"}):
        try:
            container.remove(force=True)
        except docker.errors.APIError:  # removed meanwhile, or being removed (by the referee, at its end)
            pass


def main(token: str) -> None:
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    while os.read(0, 4096):  # the referee never writes: this returns at the pipe's end, when the referee is gone
        pass
    try:
        remove_owned(token)
        time.sleep(SECOND_SWEEP_AFTER_S)
        remove_owned(token)
    except Exception as exc:  # noqa: BLE001 - no engine any more: say so where the referee's errors went
        print(f"[referee] could not remove the bot containers labelled arena.owner={token}: {exc}", file=sys.stderr, flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1])
