"""Upload limits at their edges: what is exactly at a limit is taken, what is one past it is refused."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from ladder.upload import NAME_BYTES, PATH_BYTES, Limits, UploadError, check_archive, unpack, zip_directory
from tests.ladder.test_upload import MANIFEST, archive


def test_an_empty_file_stored_uncompressed_is_taken(tmp_path: Path) -> None:
    """`zip` stores an empty file (an ``__init__.py``) with no compressed bytes at all: its ratio is no division by zero."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("bot.toml", MANIFEST)
        zf.writestr("pkg/__init__.py", b"")
    assert zipfile.ZipFile(io.BytesIO(buffer.getvalue())).getinfo("pkg/__init__.py").compress_size == 0
    unpack(buffer.getvalue(), tmp_path / "bot")
    assert (tmp_path / "bot" / "pkg" / "__init__.py").read_bytes() == b""


def zeros_compressed(ratio: float, above: bool) -> bytes:
    """A run of zeros that deflate compresses exactly ``ratio``:1 (``above``: just more than that), found by search,
    not assumed of this machine's zlib."""
    for size in range(200, 100_000):
        info = zipfile.ZipFile(io.BytesIO(archive([("z", b"\0" * size)]))).getinfo("z")
        if (info.file_size > ratio * info.compress_size) if above else (info.file_size == ratio * info.compress_size):
            return b"\0" * size
    raise AssertionError(f"no run of zeros compresses {ratio}:1")


def test_a_member_compressed_at_the_ratio_limit_is_taken_and_past_it_is_a_bomb(tmp_path: Path) -> None:
    """The ratio is the most a member may be compressed by, and the ladder's own limit is what is checked."""
    ratio = Limits().ratio
    at_limit = archive([("bot.toml", MANIFEST), ("z.bin", zeros_compressed(ratio, above=False))])
    unpack(at_limit, tmp_path / "bot")
    assert (tmp_path / "bot" / "z.bin").is_file()
    past = archive([("bot.toml", MANIFEST), ("z.bin", zeros_compressed(ratio, above=True))])
    with pytest.raises(UploadError, match="which looks like an archive bomb"):
        check_archive(past)


def test_a_name_and_a_path_of_exactly_the_longest_length_are_taken(tmp_path: Path) -> None:
    """Linux takes names of 255 bytes: a limit of the same number refused them one byte early."""
    name = "n" * NAME_BYTES
    parts = ["d" * 200] * 4
    path = "/".join(parts)
    path += "/" + "f" * (PATH_BYTES - len(path) - 1)
    assert len(path.encode()) == PATH_BYTES
    unpack(archive([("bot.toml", MANIFEST), (name, b"1"), (path, b"2")]), tmp_path / "bot")
    assert (tmp_path / "bot" / name).read_bytes() == b"1" and (tmp_path / "bot" / path).read_bytes() == b"2"
    for longer in (name + "n", path + "f"):
        with pytest.raises(UploadError, match="at most"):
            check_archive(archive([("bot.toml", MANIFEST), (longer, b"x")]))


def test_a_folder_holding_exactly_the_byte_limit_is_zipped(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").write_bytes(MANIFEST)
    (bot / "data.bin").write_bytes(b"x" * 1000)
    limit = len(MANIFEST) + 1000
    data = zip_directory(bot, Limits(unpacked_bytes=limit))
    assert sorted(zipfile.ZipFile(io.BytesIO(data)).namelist()) == ["bot.toml", "data.bin"]
    with pytest.raises(UploadError, match=f"holds more than {limit - 1} bytes"):
        zip_directory(bot, Limits(unpacked_bytes=limit - 1))
