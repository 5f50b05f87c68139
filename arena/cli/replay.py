"""``arena replay FILE``: watch a replay file in the browser, in the ladder's viewer, served from localhost."""

from __future__ import annotations

import socket
import threading
import webbrowser
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

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
        err.print(f"[bold red]error:[/] cannot listen on {escape(host)}:{port}: {escape(str(exc.strerror or exc))}", soft_wrap=True)
        raise typer.Exit(2) from None


def replay(
    file: Annotated[Path, typer.Argument(help="A replay file written by `arena match`, `arena tournament` or the ladder.")],
    port: Annotated[int, typer.Option(help="Port to serve the viewer on (0: a free one).", min=0, max=65535)] = 0,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    browser: Annotated[bool, typer.Option("--browser/--no-browser", help="Open a browser (--no-browser just prints the address).")] = True,
    text: Annotated[bool, typer.Option("--text", help="Print the match in the terminal, step by step, instead of serving the viewer.")] = False,
    seat: Annotated[str | None, typer.Option(help="With --text: as this seat saw it (a number), or 'all' (default).")] = None,
    step: Annotated[int | None, typer.Option(help="With --text: stop after this step and print the table there (0: the deal).", min=0)] = None,
) -> None:
    """Watch a replay in the browser (or, with --text, in the terminal): step through it, as everyone or as one seat saw it."""
    import uvicorn

    from ladder.web import replay_app
    from referee.server.frames import ALL, build_frames
    from referee.server.replay import ReplayError, load_replay

    if text or seat is not None or step is not None:
        print_text(file, seat or ALL, step)
        return
    try:
        build_frames(load_replay(file), ALL)  # a file that does not re-play is reported here, not in the page
        app = replay_app(file)
    except ReplayError as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}", soft_wrap=True)  # one line: a path cut in two cannot be pasted
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


def print_text(file: Path, seat: str, step: int | None) -> None:
    """``--text``: the replay's frames for ``seat``, drawn as lines (arena/cli/replay_text.py)."""
    from rich.console import Console

    from arena.cli.replay_text import replay_lines
    from referee.server.frames import build_frames, parse_seat, replay_summary
    from referee.server.replay import ReplayError, load_replay

    try:
        data = load_replay(file)
        frames = build_frames(data, parse_seat(seat, int(data["num_players"])))
    except (ReplayError, ValueError) as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)  # a replay's "[/x]" is text
        raise typer.Exit(2) from None
    if step is not None and step >= len(frames["frames"]):
        err.print(f"[bold red]error:[/] --step {step}: the match has steps 0 to {len(frames['frames']) - 1}", soft_wrap=True)
        raise typer.Exit(2)
    out = Console(highlight=False, soft_wrap=True)
    for line in replay_lines(frames, step, replay_summary(data)["seats"]):
        out.print(line, markup=False)
