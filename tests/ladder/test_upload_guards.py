"""Upload safety past the names' checks: what unpacking itself holds to, and archives as other tools write them."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path, PurePosixPath

import pytest

import ladder.upload as upload
from ladder.upload import Limits, UploadError, check_archive, unpack
from tests.ladder.test_upload import MANIFEST, archive


def rglob(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_an_archive_of_each_method_zipfile_reads_unpacks_whole(tmp_path: Path, method: int) -> None:
    """Each is taken, not only refused with a reason (the damaged-archive test passes if all are refused)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as zf:
        zf.writestr("bot.toml", MANIFEST)
        zf.writestr("lib/x.py", b"print(1)\n" * 20)
    unpack(buffer.getvalue(), tmp_path / "bot")
    assert (tmp_path / "bot" / "bot.toml").read_bytes() == MANIFEST
    assert (tmp_path / "bot" / "lib" / "x.py").read_bytes() == b"print(1)\n" * 20


def test_a_name_that_is_not_the_utf8_it_claims_is_refused_not_raised(tmp_path: Path) -> None:
    """Flag bit 11 says UTF-8; bytes that are not made zipfile raise UnicodeDecodeError: the API's 500."""
    data = archive([("bot.toml", MANIFEST), ("caf\u00e9.py", b"1")])  # a non-ASCII name: written as UTF-8, flag set
    assert b"caf\xc3\xa9.py" in data
    with pytest.raises(UploadError, match="^not a zip archive"):
        unpack(data.replace(b"caf\xc3\xa9.py", b"caf\xff\xfe.py"), tmp_path / "bot")
    assert not (tmp_path / "bot").exists()


def test_nothing_is_unpacked_into_or_removed_from_a_folder_already_there(tmp_path: Path) -> None:
    """``target`` must be new: unpacking into an existing bot's folder would mix two bots, and its clean-up after a
    refusal would remove what was there before."""
    there = tmp_path / "bot"
    there.mkdir()
    (there / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError):
        unpack(archive([("bot.toml", MANIFEST)]), there)
    assert rglob(there) == ["keep.txt"]


def test_a_relative_target_is_unpacked_into(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store given as a relative path (``--data data``): every member was found to leave the bot's folder."""
    monkeypatch.chdir(tmp_path)
    unpack(archive([("bot.toml", MANIFEST), ("lib/x.py", b"1")]), Path("store") / "bot")
    assert rglob(tmp_path / "store" / "bot") == ["bot.toml", "lib", "lib/x.py"]


def test_unpacking_writes_nothing_outside_even_for_a_path_the_checks_let_by(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The last guard, kept should a check of names ever miss one: a member resolving outside the folder is refused."""
    data = archive([("bot.toml", MANIFEST), ("evil", b"x")])
    real = upload.check_archive

    def let_by(data: bytes, limits: Limits = Limits()) -> list[tuple[zipfile.ZipInfo, PurePosixPath]]:
        return [(info, PurePosixPath("../escape.txt") if path.name == "evil" else path) for info, path in real(data, limits)]

    monkeypatch.setattr(upload, "check_archive", let_by)
    with pytest.raises(UploadError, match="leaves the bot's folder"):
        unpack(data, tmp_path / "store" / "bot")
    assert rglob(tmp_path) == ["store"]


def test_a_stream_longer_than_its_declared_size_is_stopped_at_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """zipfile stops at a member's declared size today; the limit holds over all members whatever a stream gives."""
    data = archive([("bot.toml", MANIFEST), ("a.bin", b"a"), ("b.bin", b"b")])
    real_open = zipfile.ZipFile.open

    def longer(self: zipfile.ZipFile, name: zipfile.ZipInfo, *args: object, **kwargs: object) -> io.BytesIO:
        if name.filename.endswith(".bin"):
            return io.BytesIO(b"x" * 600)  # each one alone is within the limit, the two together are not
        return real_open(self, name)  # type: ignore[return-value]

    monkeypatch.setattr(zipfile.ZipFile, "open", longer)
    with pytest.raises(UploadError, match="unpacks to more than it declares"):
        unpack(data, tmp_path / "bot", Limits(unpacked_bytes=len(MANIFEST) + 1000))
    assert not (tmp_path / "bot").exists()


def test_a_folders_entry_after_its_files_is_taken(tmp_path: Path) -> None:
    """Not every tool lists a folder before what it holds: its entry then names a folder already made."""
    unpack(archive([("bot.toml", MANIFEST), ("lib/x.py", b"1"), ("lib/", b"")]), tmp_path / "bot")
    assert rglob(tmp_path / "bot") == ["bot.toml", "lib", "lib/x.py"]


def test_an_archive_as_bsdtar_writes_it_is_taken(tmp_path: Path) -> None:
    """Windows' own `tar -a -cf bot.zip .` (bsdtar) names the folder itself "./" and the rest "./bot.toml": refused,
    as a path that leaves the bot's folder. A file named "." still is."""
    data = archive([("./", b""), ("./bot.toml", MANIFEST), ("./lib/", b""), ("./lib/x.py", b"1")])
    unpack(data, tmp_path / "bot")
    assert rglob(tmp_path / "bot") == ["bot.toml", "lib", "lib/x.py"]
    with pytest.raises(UploadError, match="may not leave"):
        check_archive(archive([("bot.toml", MANIFEST), ("./.", b"x")]))


def test_only_the_single_top_folder_is_unpacked_as_the_bot(tmp_path: Path) -> None:
    """A folder entry beside the bot's top folder ("other/sub/") was unpacked into the bot as "sub", its first part
    stripped as if it were the top folder's."""
    data = archive([("mybot/bot.toml", MANIFEST), ("mybot/lib/", b""), ("other/sub/", b""), ("other/", b"")])
    unpack(data, tmp_path / "bot")
    assert rglob(tmp_path / "bot") == ["bot.toml", "lib"]
    # nor does a folder beside it clash with the bot's own files
    unpack(archive([("mybot/bot.toml", MANIFEST), ("other/bot.toml/", b"")]), tmp_path / "b2")
    assert rglob(tmp_path / "b2") == ["bot.toml"]


@pytest.mark.parametrize("top", ["", "mybot/"])
def test_a_zip_made_by_macos_finder_is_taken_without_its_resource_forks(tmp_path: Path, top: str) -> None:
    """Finder's "Compress" writes __MACOSX/ beside what it compressed: a Mac user's bot folder was refused with
    "no bot.toml at the top of the archive", and a bot zipped from inside its folder carried the forks along."""
    forks = [("__MACOSX/", b""), (f"__MACOSX/{top}._bot.toml", b"\x00\x05\x16\x07"), (f"__MACOSX/{top}._bot.py", b"\x00\x05\x16\x07")]
    data = archive([(f"{top}bot.toml", MANIFEST), (f"{top}bot.py", b"print(1)\n"), *forks])
    unpack(data, tmp_path / "bot")
    assert rglob(tmp_path / "bot") == ["bot.py", "bot.toml"]
    # Only that folder, at the top: a bot's own folder of that name elsewhere is the bot's.
    unpack(archive([("bot.toml", MANIFEST), ("lib/__MACOSX/x.py", b"1")]), tmp_path / "other")
    assert rglob(tmp_path / "other") == ["bot.toml", "lib", "lib/__MACOSX", "lib/__MACOSX/x.py"]


def test_finder_forks_count_toward_no_limit_but_their_own_bound(tmp_path: Path) -> None:
    """A bot of N files zipped by Finder holds 2N entries and the forks' bytes: it was refused at half the limit."""
    def finder_zip(files: int, fork_bytes: bytes = b"\x00\x05\x16\x07", forks: int = 10) -> bytes:
        own = [("bot.toml", MANIFEST)] + [(f"f{i}.py", b"x") for i in range(files - 1)]
        return archive(own + [(f"__MACOSX/._{name}", fork_bytes) for name, _ in own[:forks]])

    limits = Limits(files=10, unpacked_bytes=len(MANIFEST) + 9)
    unpack(finder_zip(10, bytes(200)), tmp_path / "bot", limits)  # forks' 2,000 bytes are not unpacked
    assert len(rglob(tmp_path / "bot")) == 10
    with pytest.raises(UploadError, match=r"has 11 entries besides 9 in __MACOSX/; the limit is 10"):
        check_archive(finder_zip(11, forks=9), limits)
    # More than twice the limit in all is refused before any name is looked at, forks or not.
    too_many = archive([("bot.toml", MANIFEST)] + [(f"__MACOSX/._{i}", b"") for i in range(20)])
    with pytest.raises(UploadError, match=r"has 21 entries; the limit is 10"):
        check_archive(too_many, limits)
