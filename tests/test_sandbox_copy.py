"""The Docker sandbox's copy of a bot folder (referee/server/sandbox.py ``copy_bot``): an untrusted folder."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from referee.server.launchers import LaunchError
from referee.server.sandbox import copy_bot


def test_links_are_copied_as_links_never_followed(tmp_path: Path) -> None:
    source = tmp_path / "bot"
    (source / "lib").mkdir(parents=True)
    (source / "bot.py").write_text("print('hi')\n")
    host_file = tmp_path / "host-secret"
    host_file.write_text("not for bots")
    host_file.chmod(0o600)
    (source / "secret").symlink_to(host_file)
    (source / "zeros").symlink_to("/dev/zero")  # followed, this one alone would fill the disk
    (source / "up").symlink_to(tmp_path)  # a link to a folder outside the bot
    (source / "lib" / "same.py").symlink_to("../bot.py")
    copy_bot(source, tmp_path / "copy")
    copy = tmp_path / "copy"
    assert {p.name for p in copy.iterdir()} == {"lib", "bot.py", "secret", "zeros", "up"}
    for name, target in (("secret", str(host_file)), ("zeros", "/dev/zero"), ("up", str(tmp_path)), ("lib/same.py", "../bot.py")):
        assert os.readlink(copy / name) == target
    assert (copy / "bot.py").read_text() == "print('hi')\n"
    # Readable by the container's user, who does not own the copy; the links' targets are left as they were.
    assert stat.S_IMODE((copy / "bot.py").stat().st_mode) == 0o644 and stat.S_IMODE((copy / "lib").stat().st_mode) == 0o755
    assert stat.S_IMODE(host_file.stat().st_mode) == 0o600


def test_what_its_owner_could_run_stays_runnable(tmp_path: Path) -> None:
    """A compiled bot or a script named by the manifest's command must run in the container (it ran without Docker)."""
    source = tmp_path / "bot"
    source.mkdir()
    (source / "run.sh").write_text("#!/bin/sh\n")
    (source / "run.sh").chmod(0o700)
    (source / "notes.txt").write_text("x")
    (source / "notes.txt").chmod(0o600)
    copy_bot(source, tmp_path / "copy")
    assert stat.S_IMODE((tmp_path / "copy" / "run.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((tmp_path / "copy" / "notes.txt").stat().st_mode) == 0o644


def test_special_files_are_refused(tmp_path: Path) -> None:
    source = tmp_path / "bot"
    source.mkdir()
    os.mkfifo(source / "pipe")  # reading it would block the copy's thread for ever
    with pytest.raises(LaunchError, match="not a regular file"):
        copy_bot(source, tmp_path / "copy")


def test_a_folder_over_the_limit_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "bot"
    source.mkdir()
    for i in range(3):
        (source / f"blob{i}").write_bytes(b"x" * 400)
    copy_bot(source, tmp_path / "fits", limit=1200)
    with pytest.raises(LaunchError, match="more than"):
        copy_bot(source, tmp_path / "too-big", limit=1000)
