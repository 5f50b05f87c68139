"""Upload safety: nothing unpacks outside the bot's folder, and bad archives say why."""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

import pytest

from ladder.upload import Limits, UploadError, check_archive, unpack, zip_directory
from tests.support import SAMPLE_BOTS

MANIFEST = b'name = "x"\nversion = "1"\ngames = ["generals-war"]\ncommand = ["python", "bot.py"]\n'


def archive(entries: list[tuple[str, bytes]], link: str | None = None, mode: int | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            zf.writestr(name, data)
        if link:
            info = zipfile.ZipInfo(link)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
        if mode is not None:
            info = zipfile.ZipInfo("device")
            info.external_attr = mode << 16
            zf.writestr(info, "")
    return buffer.getvalue()


@pytest.mark.parametrize(
    "data,message",
    [
        (archive([("bot.toml", MANIFEST), ("../escape.txt", b"x")]), "may not leave"),
        (archive([("bot.toml", MANIFEST), ("/etc/cron.d/x", b"x")]), "absolute"),
        (archive([("bot.toml", MANIFEST), ("a\\..\\b", b"x")]), "Windows-style"),
        (archive([("bot.toml", MANIFEST), ("C:/autoexec.bat", b"x")]), "Windows-style"),
        (archive([("bot.toml", MANIFEST), (".", b"x")]), "may not leave"),
        (archive([("bot.toml", MANIFEST)], link="evil"), "links are not allowed"),
        (archive([("bot.toml", MANIFEST)], mode=stat.S_IFCHR | 0o600), "only plain files"),
        (archive([("bot.py", b"print(1)")]), "no bot.toml"),
        (archive([("a/bot.toml", MANIFEST), ("b/bot.toml", MANIFEST)]), "no bot.toml"),  # two bots: which is it?
        (archive([("bot.toml/", b""), ("bot.toml/x", b"1")]), "no bot.toml"),  # a folder of the name
        (b"this is not a zip", "not a zip"),
        (archive([("bot.toml", MANIFEST), ("zeros.bin", b"\0" * 5_000_000)]), "archive bomb"),
        (archive([("bot.toml", MANIFEST), ("bot.py", b"1"), ("bot.py", b"2")]), "holds this file twice"),
        (archive([("top/bot.toml", MANIFEST), ("top/a/./b", b"1"), ("top/a/b", b"2")]), "holds this file twice"),
        (archive([("bot.toml", MANIFEST), ("a", b"x"), ("a/b", b"y")]), "both a file and a folder"),
        (archive([("bot.toml", MANIFEST), ("a/b", b"y"), ("a", b"x")]), "both a file and a folder"),
        (archive([("bot.toml", MANIFEST), ("a/", b""), ("a", b"x")]), "both a file and a folder"),
        (archive([("bot.toml", MANIFEST), ("n" * 256, b"x")]), "at most 255 bytes"),
        (archive([("bot.toml", MANIFEST), ("é" * 128 + "/x", b"x")]), "at most 255 bytes"),
        (archive([("bot.toml", MANIFEST), ("/".join(["d" * 200] * 6), b"x")]), "at most 1024 bytes"),
    ],
)
def test_unsafe_archives_are_refused(tmp_path: Path, data: bytes, message: str) -> None:
    with pytest.raises(UploadError, match=message):
        unpack(data, tmp_path / "bot")
    assert not (tmp_path / "bot").exists() or not any((tmp_path / "bot").iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) in ([], ["bot"])
    assert not (tmp_path / "escape.txt").exists()


def test_an_entry_with_no_name_is_refused(tmp_path: Path) -> None:
    """Hypothesis found it (tests/ladder/test_api_fuzz.py): zipfile's own is_dir() raised IndexError on it, a 500."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("bot.toml", MANIFEST)
        zf.writestr(zipfile.ZipInfo(""), b"x")  # a str name of "" is refused by writestr itself; a ZipInfo is not
    with pytest.raises(UploadError, match="has no name"):
        unpack(buffer.getvalue(), tmp_path / "bot")
    assert not (tmp_path / "bot").exists() or not any((tmp_path / "bot").iterdir())


def test_any_failure_while_unpacking_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only some errors removed the half-unpacked folder: an OSError left it in the bot store's staging area."""
    import ladder.upload

    def refuse(*args: object, **kwargs: object) -> int:
        raise OSError(36, "File name too long")

    monkeypatch.setattr(ladder.upload, "_write", refuse)
    with pytest.raises(UploadError, match="^bot.toml: cannot be unpacked: File name too long"):  # not called damaged
        unpack(archive([("bot.toml", MANIFEST)]), tmp_path / "bot")
    assert not (tmp_path / "bot").exists()

    def interrupted(*args: object, **kwargs: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(ladder.upload, "_write", interrupted)
    with pytest.raises(KeyboardInterrupt):
        unpack(archive([("bot.toml", MANIFEST)]), tmp_path / "bot")
    assert not (tmp_path / "bot").exists()


def test_limits_on_size_and_count(tmp_path: Path) -> None:
    many = archive([("bot.toml", MANIFEST)] + [(f"f{i}", b"x") for i in range(20)])
    with pytest.raises(UploadError, match="entries"):
        check_archive(many, Limits(files=10))
    big = archive([("bot.toml", MANIFEST), ("r.bin", bytes(range(256)) * 400)])
    with pytest.raises(UploadError, match="unpacks to"):
        check_archive(big, Limits(unpacked_bytes=50_000))
    with pytest.raises(UploadError, match="limit is"):
        check_archive(big, Limits(archive_bytes=100))


def test_a_folder_past_the_limits_is_refused_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`submit` and `bot check` zipped a whole folder in memory before the archive's limits were checked: a folder of
    gigabytes took minutes to be refused. Now the walk stops at the first file past them, having read none after it."""
    import ladder.upload as upload

    added: list[str] = []
    real_add = upload._add_file

    def add(zf: zipfile.ZipFile, full: Path, name: str) -> None:
        added.append(name)
        real_add(zf, full, name)

    monkeypatch.setattr(upload, "_add_file", add)
    big = tmp_path / "big"
    big.mkdir()
    (big / "bot.toml").write_bytes(MANIFEST)
    with open(big / "data.bin", "wb") as f:
        f.truncate(Limits().unpacked_bytes * 32)  # sparse: a gigabyte of zeros on no disk
    (big / "later.txt").write_text("x")
    with pytest.raises(UploadError, match=f"holds more than {Limits().unpacked_bytes} bytes"):
        upload.bot_archive(big)
    assert added == ["bot.toml"]
    many = tmp_path / "many"
    many.mkdir()
    (many / "bot.toml").write_bytes(MANIFEST)
    for i in range(Limits().files + 4):
        (many / f"f{i:05}").write_text("x")
    added.clear()
    with pytest.raises(UploadError, match=f"more than {Limits().files} files"):
        upload.bot_archive(many)
    assert len(added) == Limits().files
    added.clear()
    assert zip_directory(many) and len(added) == Limits().files + 5  # the store's own folders are zipped without limits


def test_a_zip_file_past_the_limit_is_refused_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`arena ladder submit big.zip` read a mistaken multi-gigabyte file whole before the limit refused it."""
    import ladder.upload as upload

    read: list[Path] = []
    real_read = Path.read_bytes

    def reading(self: Path) -> bytes:
        read.append(self)
        return real_read(self)

    monkeypatch.setattr(Path, "read_bytes", reading)
    big = tmp_path / "big.zip"
    with open(big, "wb") as f:
        f.truncate(Limits().archive_bytes + 1)  # sparse
    with pytest.raises(UploadError, match=f"the archive is {Limits().archive_bytes + 1} bytes; the limit is {Limits().archive_bytes}"):
        upload.bot_archive(big)
    assert read == []
    fits = tmp_path / "fits.zip"
    fits.write_bytes(archive([("bot.toml", MANIFEST)]))
    assert upload.bot_archive(fits) == fits.read_bytes() and fits in read


def test_a_lying_size_is_caught_while_unpacking(tmp_path: Path) -> None:
    data = bytearray(archive([("bot.toml", MANIFEST), ("data.bin", bytes(range(256)) * 40)]))
    # Shrink the declared size of data.bin in the central directory; the real bytes stay.
    zf = zipfile.ZipFile(io.BytesIO(bytes(data)))
    info = zf.getinfo("data.bin")
    assert info.file_size == 10240
    forged = bytes(data).replace((10240).to_bytes(4, "little"), (10).to_bytes(4, "little"))
    assert zipfile.ZipFile(io.BytesIO(forged)).getinfo("data.bin").file_size == 10
    check_archive(forged, Limits(unpacked_bytes=5000))  # the directory's sizes pass: only unpacking finds the lie
    with pytest.raises(UploadError, match="damaged"):
        unpack(forged, tmp_path / "bot", Limits(unpacked_bytes=5000))
    assert not (tmp_path / "bot").exists(), "nothing half-unpacked is left behind"


def test_a_sample_bot_round_trips_and_a_single_top_folder_is_stripped(tmp_path: Path) -> None:
    data = zip_directory(SAMPLE_BOTS / "random")
    unpack(data, tmp_path / "a")
    assert (tmp_path / "a" / "bot.toml").read_bytes() == (SAMPLE_BOTS / "random" / "bot.toml").read_bytes()
    nested = archive([("mybot/bot.toml", MANIFEST), ("mybot/bot.py", b"pass")])
    unpack(nested, tmp_path / "b")
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["bot.py", "bot.toml"]


def test_a_file_dated_before_1980_is_zipped(tmp_path: Path) -> None:
    """ZIP dates start in 1980: a file of an older date (mtime 0 from a Nix store or a tar) made submit and bot check end in a ValueError."""
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").write_bytes(MANIFEST)
    os.utime(bot / "bot.toml", (0, 0))
    unpack(zip_directory(bot), tmp_path / "out")
    assert (tmp_path / "out" / "bot.toml").read_bytes() == MANIFEST


def test_links_in_a_directory_are_refused(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").write_bytes(MANIFEST)
    (bot / "secret").symlink_to("/etc/hostname")
    with pytest.raises(UploadError, match="links"):
        zip_directory(bot)


def test_a_link_to_a_folder_is_refused_not_left_out(tmp_path: Path) -> None:
    """os.walk lists a linked folder among the folders and does not go in: the upload went without it, unsaid."""
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").write_bytes(MANIFEST)
    (bot / "lib").symlink_to(tmp_path)
    with pytest.raises(UploadError, match="links"):
        zip_directory(bot)


def test_a_named_pipe_or_socket_in_a_directory_is_refused(tmp_path: Path) -> None:
    """A named pipe left in the bot's folder made `arena ladder submit` wait forever; a socket gave an OSError traceback."""
    import socket
    import threading

    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").write_bytes(MANIFEST)
    os.mkfifo(bot / "pipe")
    outcome: list[BaseException] = []

    def zip_it() -> None:
        try:
            zip_directory(bot)
        except BaseException as exc:  # noqa: BLE001 - told below, in the test's thread
            outcome.append(exc)

    reader = threading.Thread(target=zip_it, daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():
        with open(bot / "pipe", "wb"):  # let the stuck reader go
            pass
        pytest.fail("zip_directory waited on the named pipe")
    assert isinstance(outcome[0], UploadError) and "named pipe" in str(outcome[0])
    (bot / "pipe").unlink()
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(bot / "sock"))
        with pytest.raises(UploadError, match="plain files"):
            zip_directory(bot)


def headers_set(data: bytes, central: int, local: int, value: int, bits: bool = False) -> bytes:
    """``data`` with one byte of every member's headers set: at ``central`` in the central directory's, ``local`` in the
    local ones (or with ``value``'s bits added, with ``bits``)."""
    out = bytearray(data)
    for signature, at in ((b"PK\x01\x02", central), (b"PK\x03\x04", local)):
        start = out.find(signature)
        while start >= 0:
            out[start + at] = out[start + at] | value if bits else value
            start = out.find(signature, start + 4)
    return bytes(out)


GOOD = archive([("bot.toml", MANIFEST), ("bot.py", b"print(1)\n" * 50)])


@pytest.mark.parametrize(
    "data,message",
    [
        (headers_set(GOOD, 8, 6, 0x01, bits=True), "encrypted"),  # the flag of a password
        (headers_set(GOOD, 8, 6, 0x40, bits=True), "encrypted"),  # strong encryption
        (headers_set(GOOD, 8, 6, 0x20, bits=True), "encrypted \\(or patched\\) members"),  # compressed patched data
        (headers_set(GOOD, 10, 8, 9), "compressed with deflate64"),  # what Windows may write for a large file
        (headers_set(GOOD, 10, 8, 98), "compressed with ppmd"),
        (headers_set(GOOD, 10, 8, 99), "compressed with method 99"),  # a method without a name: said so, not "damaged"
        (headers_set(GOOD, 6, 4, 99), "not a zip archive: zip file version"),  # "version needed to extract" 9.9
    ],
)
def test_an_archive_zipfile_cannot_read_is_refused_not_raised(tmp_path: Path, data: bytes, message: str) -> None:
    """Each was a RuntimeError or NotImplementedError out of unpack: the API's 500, for the uploader's archive."""
    with pytest.raises(UploadError, match=message):
        unpack(data, tmp_path / "bot")
    assert not (tmp_path / "bot").exists()


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_a_damaged_archive_is_an_upload_error_whatever_its_damage(tmp_path: Path, method: int) -> None:
    """Bytes changed anywhere (a fixed draw of them): a broken LZMA stream raised LZMAError, an offset before the
    archive's start a ValueError of seek, both 500s. Each copy is refused with a reason, or unpacks whole."""
    import random
    import shutil

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as zf:
        zf.writestr("bot.toml", MANIFEST)
        zf.writestr("bot.py", bytes(random.Random(1).randrange(256) for _ in range(2000)) + b"print(1)\n" * 200)
    good = buffer.getvalue()
    draw = random.Random(method)
    for i in range(300):
        damaged = bytearray(good)
        for _ in range(draw.randrange(1, 4)):
            damaged[draw.randrange(len(damaged))] = draw.randrange(256)
        target = tmp_path / str(i)
        try:
            unpack(bytes(damaged[: draw.randrange(len(damaged))] if draw.random() < 0.2 else damaged), target)
        except UploadError:
            assert not target.exists(), "nothing half-unpacked is left"
        shutil.rmtree(target, ignore_errors=True)


def test_an_archive_at_each_limit_is_taken(tmp_path: Path) -> None:
    """A limit is the most an archive may have, not the first it may not: at every one of them at once, it unpacks."""
    data = archive([("bot.toml", MANIFEST), ("a.bin", bytes(range(256)) * 4)])
    unpack(data, tmp_path / "bot", Limits(archive_bytes=len(data), unpacked_bytes=len(MANIFEST) + 1024, files=2))
    assert (tmp_path / "bot" / "a.bin").read_bytes() == bytes(range(256)) * 4


def test_folder_entries_are_unpacked_as_folders(tmp_path: Path) -> None:
    """`zip -r` writes an entry for each folder ("lib/"), an empty one too: each is a folder of the bot."""
    data = archive([("mybot/", b""), ("mybot/bot.toml", MANIFEST), ("mybot/lib/", b""), ("mybot/lib/x.py", b"1"), ("mybot/empty/", b"")])
    unpack(data, tmp_path / "bot")
    assert sorted(p.relative_to(tmp_path / "bot").as_posix() for p in (tmp_path / "bot").rglob("*")) == ["bot.toml", "empty", "lib", "lib/x.py"]
    assert (tmp_path / "bot" / "empty").is_dir() and (tmp_path / "bot" / "lib" / "x.py").read_bytes() == b"1"


def test_a_files_execute_bit_is_kept_and_no_other_mode_bit(tmp_path: Path) -> None:
    """A compiled bot's binary must stay executable; setuid, setgid, sticky and others' write bits are never set."""
    modes = {"run": 0o755, "mine": 0o700, "data": 0o600, "odd": 0o7777, "shared": 0o666, "none": 0o000, "group": 0o654}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("bot.toml", MANIFEST)
        for name, mode in modes.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | mode) << 16
            zf.writestr(info, b"x")
    unpack(buffer.getvalue(), tmp_path / "bot")
    unpacked = {name: stat.S_IMODE((tmp_path / "bot" / name).stat().st_mode) for name in modes}
    assert unpacked == {"run": 0o755, "mine": 0o755, "data": 0o644, "odd": 0o755, "shared": 0o644, "none": 0o644, "group": 0o755}


def test_caches_and_version_control_are_left_out_of_a_zipped_folder(tmp_path: Path) -> None:
    """A bot folder's .venv or node_modules (hundreds of megabytes) went into the upload, and past the ladder's limits."""
    bot = tmp_path / "bot"
    for folder in (".git", "node_modules", ".venv", "__pycache__", ".mypy_cache", ".pytest_cache", "src", "src/__pycache__"):
        (bot / folder).mkdir(parents=True)
        (bot / folder / "f").write_text("x")
    (bot / "bot.toml").write_bytes(MANIFEST)
    assert sorted(zipfile.ZipFile(io.BytesIO(zip_directory(bot))).namelist()) == ["bot.toml", "src/f"]


def test_a_folder_without_a_bot_is_refused_before_it_is_zipped_naming_the_bots_in_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`arena ladder submit sample_bots` (a folder of bots, not one) zipped all of it and sent it, and the ladder's
    answer spoke of "the top of the archive" the operator never made. It is refused before any file is zipped, with
    the bots it holds; a bot in the folder's single folder is still taken, as the ladder takes it."""
    import ladder.upload as upload

    zipped: list[str] = []
    monkeypatch.setattr(upload, "_add_file", lambda zf, full, name: zipped.append(name))
    with pytest.raises(UploadError) as refused:
        upload.bot_archive(SAMPLE_BOTS)
    assert str(refused.value).startswith(
        f"{SAMPLE_BOTS} has no bot.toml: give the bot's folder, the one with its bot.toml (the bots in it: assassination_heuristic, "
    ) and str(refused.value).endswith(" more)")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UploadError, match=r"^.*/empty has no bot.toml: give the bot's folder, the one with its bot.toml$"):
        upload.bot_archive(empty)
    assert zipped == []
    one = tmp_path / "one"
    (one / "bot").mkdir(parents=True)
    (one / "bot" / "bot.toml").write_bytes(MANIFEST)
    upload.bot_archive(one)
    assert zipped == ["bot/bot.toml"]
