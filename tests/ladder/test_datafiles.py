"""The replays and logs the database names: relative to the data folder, and found again when it moved."""

from __future__ import annotations

from pathlib import Path

from ladder.datafiles import located, stored_name


def test_a_file_in_the_data_folder_is_named_relative_to_it_and_found_in_a_folder_moved_elsewhere(tmp_path: Path) -> None:
    data = tmp_path / "data"
    log = data / "logs" / "12" / "ab-seat0-random.log"
    log.parent.mkdir(parents=True)
    log.write_text("hello")
    assert stored_name(log, data) == "logs/12/ab-seat0-random.log"
    moved = tmp_path / "bigger-disk" / "data"
    moved.parent.mkdir()
    data.rename(moved)
    assert located("logs/12/ab-seat0-random.log", moved).read_text() == "hello"


def test_a_file_outside_the_data_folder_keeps_its_absolute_name(tmp_path: Path) -> None:
    elsewhere = tmp_path / "scratch" / "x.log"
    assert stored_name(elsewhere, tmp_path / "data") == str(elsewhere)
    assert located(str(elsewhere), tmp_path / "data") == elsewhere


def test_an_absolute_name_written_before_is_used_while_it_exists_and_else_found_by_the_layout(tmp_path: Path) -> None:
    """Rows written before named files by absolute path: a data folder moved kept its bots and lost its replays."""
    old = tmp_path / "old" / "replays" / "7-abc.json"
    old.parent.mkdir(parents=True)
    old.write_text("{}")
    new_root = tmp_path / "new"
    assert located(str(old), new_root) == old  # still there: used as it is
    old.unlink()
    assert located(str(old), new_root) == new_root / "replays" / "7-abc.json"
    # The innermost replays/ or logs/ is the data folder's, whatever folders above it are called.
    deep = "/srv/logs/replays/arena/logs/3/f-seat1-x.log"
    assert located(deep, new_root) == new_root / "logs" / "3" / "f-seat1-x.log"
    assert located("/nowhere/at/all.json", new_root) == Path("/nowhere/at/all.json")


def test_a_file_in_a_folder_linked_from_another_disk_is_named_relative_to_the_data_folder(tmp_path: Path) -> None:
    """replays/ linked to a bigger disk: resolved, the file was outside the data folder and kept its absolute name,
    which a restored backup then read from the original ladder's folder."""
    data, disk = tmp_path / "data", tmp_path / "big-disk" / "replays"
    data.mkdir()
    disk.mkdir(parents=True)
    (data / "replays").symlink_to(disk)
    replay = data / "replays" / "7-abc.json"
    replay.write_text("{}")
    assert stored_name(replay, data) == "replays/7-abc.json"
    assert located("replays/7-abc.json", data).read_text() == "{}"
    assert stored_name(data / "replays" / ".." / ".." / "x.log", data) == str(tmp_path / "x.log")  # outside: absolute
