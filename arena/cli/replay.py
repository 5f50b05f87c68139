"""``arena replay FILE``: watch a replay file in the browser, in the ladder's viewer, served from localhost."""

from __future__ import annotations

import socket
import threading
import webbrowser
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

err = Console(stderr=True)


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one), handed to uvicorn so the printed port is the real one."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def listen_or_exit(host: str, port: int) -> socket.socket:
    """``listen(host, port)``, or a one-line error and exit 2: gRPC's and uvicorn's own binds tell only that they failed."""
    try:
        return listen(host, port)
    except OSError as exc:
        err.print(f"[bold red]error:[/] cannot listen on {host}:{port}: {exc.strerror or exc}")
        raise typer.Exit(2) from None


def replay(
    file: Annotated[Path, typer.Argument(help="A replay file written by `arena match`, `arena tournament` or the ladder.")],
    port: Annotated[int, typer.Option(help="Port to serve the viewer on (0: a free one).", min=0, max=65535)] = 0,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    browser: Annotated[bool, typer.Option("--browser/--no-browser", help="Open a browser (--no-browser just prints the address).")] = True,
) -> None:
    """Watch a replay in the browser: step through it, as everyone or as one seat saw it."""
    import uvicorn

    from ladder.web import replay_app
    from referee.server.frames import ALL, build_frames
    from referee.server.replay import ReplayError, load_replay

    try:
        build_frames(load_replay(file), ALL)  # a file that does not re-play is reported here, not in the page
        app = replay_app(file)
    except ReplayError as exc:
        err.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(2) from None
    sock = listen_or_exit(host, port)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{sock.getsockname()[1]}/"
    print(f"replay viewer for {file}: {url}  (Ctrl-C to stop)", flush=True)  # one unwrapped line: scripts read the address
    if browser:
        threading.Timer(0.5, lambda: webbrowser.open(url)).start()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
