"""Checking and unpacking an uploaded bot archive, without writing outside the bot store."""

from __future__ import annotations

import io
import lzma
import os
import shutil
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from referee.server.manifest import MANIFEST


class UploadError(ValueError):
    """An archive the ladder refuses; the message says why."""


@dataclass(frozen=True)
class Limits:
    archive_bytes: int = 8 * 1024 * 1024
    unpacked_bytes: int = 32 * 1024 * 1024
    files: int = 1000
    ratio: int = 100  # largest compression ratio of one member; beyond is treated as a bomb


#: The compression methods zipfile reads (store, deflate, bzip2, LZMA); deflate64 or PPMd raised NotImplementedError, a 500.
READABLE = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)
#: Names of the others an archive may use (PKWARE's APPNOTE, 4.4.5), for the refusal to say which it was.
UNREADABLE_METHODS = {1: "shrink", 6: "implode", 9: "deflate64", 10: "implode", 18: "terse", 19: "lz77", 93: "zstandard", 95: "xz", 98: "ppmd"}
#: A member's flags zipfile refuses to read: encrypted (bits 0 and 6), compressed patched data (bit 5).
UNREADABLE_FLAGS = 0x1 | 0x20 | 0x40

#: Folders `zip_directory` leaves out: caches, version control and installed packages (the ladder installs nothing).
SKIPPED = frozenset({"__pycache__", ".git", "node_modules", ".venv", ".mypy_cache", ".pytest_cache"})
#: Of those, the ones a bot may run from where it was made: what it needs from them must be bundled into its own files.
INSTALLED = ("node_modules", ".venv")

#: The longest file or folder name most file systems take, and a bound on a whole path inside the bot.
NAME_BYTES, PATH_BYTES = 255, 1024


def bot_archive(path: Path) -> bytes:
    """What `arena ladder submit PATH` sends: a bot directory zipped, or a .zip file as it is (UploadError if neither).

    A folder past the ladder's limits (files, bytes unpacked) is refused while it is read, not once all of it is zipped
    in memory: a folder of gigabytes took minutes to be refused."""
    if path.is_dir():
        check_holds_a_bot(path)
        return zip_directory(path, Limits())
    if path.is_file():
        size, limit = path.stat().st_size, Limits().archive_bytes
        if size > limit:  # refused before it is read: a mistaken multi-gigabyte file was read whole first
            raise UploadError(f"the archive is {size} bytes; the limit is {limit}")
        if not zipfile.is_zipfile(path):  # bot.py or bot.toml given for its folder: sent, the ladder said "not a zip archive"
            raise UploadError(f"{path} is neither a bot directory nor a .zip of one: give the bot's folder, the one with its {MANIFEST}")
        return path.read_bytes()
    raise UploadError(f"{path}: no such directory or file")


def check_holds_a_bot(path: Path) -> None:
    """Refuse a folder whose zip the ladder would refuse for its manifest (UploadError), naming the bots in it: the
    folder of the sample bots (or any folder of bots) was zipped whole and sent, and the answer, "no bot.toml at the
    top of the archive", spoke of an archive the operator never made. The bot at the top, or in the folder's single
    folder, is what the ladder takes (check_archive)."""
    if (path / MANIFEST).is_file():
        return
    inside = sorted(child for child in path.iterdir() if child.name not in SKIPPED)
    if len(inside) == 1 and (inside[0] / MANIFEST).is_file():
        return
    bots = [child.name for child in inside if (child / MANIFEST).is_file()]
    shown = ", ".join(bots[:5]) + (f" and {len(bots) - 5} more" if len(bots) > 5 else "")
    held = f" (the bots in it: {shown})" if bots else ""
    raise UploadError(f"{path} has no {MANIFEST}: give the bot's folder, the one with its {MANIFEST}{held}")


def zip_directory(path: Path, limits: Limits | None = None) -> bytes:
    """A bot directory as a zip (what `arena ladder submit DIR` sends); skips caches and VCS folders. With ``limits``,
    a folder of more files or bytes than they allow is refused (UploadError) before it is all read."""
    buffer = io.BytesIO()
    entries = size = 0
    # strict_timestamps=False: a file dated before 1980 (from a Nix store, a tar of mtime 0) is stored as of 1980, not a ValueError.
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, strict_timestamps=False) as zf:
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
            for name in dirs + sorted(files):  # a link to a folder is in dirs, where os.walk would skip it unsaid
                full = Path(root) / name
                if full.is_symlink():
                    raise UploadError(f"{full}: links cannot be submitted")
                if name in files:
                    entries, size = entries + 1, size + full.lstat().st_size
                    if limits is not None and entries > limits.files:
                        raise UploadError(f"{path} has more than {limits.files} files; the ladder takes at most {limits.files}")
                    if limits is not None and size > limits.unpacked_bytes:
                        raise UploadError(f"{path} holds more than {limits.unpacked_bytes} bytes; the ladder takes at most {limits.unpacked_bytes}")
                    _add_file(zf, full, full.relative_to(path).as_posix())
    return buffer.getvalue()


def left_out(path: Path) -> list[str]:
    """The folders of installed packages (INSTALLED) in bot folder ``path`` that its archive goes without, relative to
    it and sorted: a bot that ran from them plays with `arena match` but crashes on the ladder."""
    found = []
    for root, dirs, _ in os.walk(path):
        found += [(Path(root) / d).relative_to(path).as_posix() for d in dirs if d in INSTALLED]
        dirs[:] = [d for d in dirs if d not in SKIPPED]
    return sorted(found)


def _add_file(zf: zipfile.ZipFile, full: Path, name: str) -> None:
    """One plain file into the archive: reading a named pipe would wait forever, a socket raise ENXIO."""
    try:
        if not stat.S_ISREG(full.lstat().st_mode):
            raise UploadError(f"{full}: only plain files and folders can be submitted (a named pipe, socket or device is not)")
        zf.write(full, name)
    except OSError as exc:
        raise UploadError(f"{full}: cannot be read ({exc.strerror or exc})") from None


def _member_path(info: zipfile.ZipInfo) -> PurePosixPath:
    name = info.filename
    if not name:  # zipfile's own is_dir() below fails on it (an IndexError, answered 500)
        raise UploadError("an entry has no name: zip the bot's files by their paths")
    if "\\" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise UploadError(f"{name!r}: absolute or Windows-style paths are not allowed")
    path = PurePosixPath(name)
    # "./" names the bot's folder itself, as bsdtar (Windows' own tar) writes it first; a file so named is refused
    if ".." in path.parts or not (path.parts or info.is_dir()):
        raise UploadError(f"{name!r}: paths may not leave the bot's folder")
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise UploadError(f"{name!r}: links are not allowed")
    kind = stat.S_IFMT(mode)
    if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
        raise UploadError(f"{name!r}: only plain files and folders are allowed")
    if info.flag_bits & UNREADABLE_FLAGS:
        raise UploadError(f"{name!r}: encrypted (or patched) members cannot be unpacked: zip the bot without a password")
    if info.compress_type not in READABLE:
        method = UNREADABLE_METHODS.get(info.compress_type, f"method {info.compress_type}")
        raise UploadError(f"{name!r}: compressed with {method}, which the ladder cannot unpack: use deflate (zip's default)")
    return path


#: The folder macOS Finder's "Compress" adds to a zip beside what was compressed; left out when unpacking.
FINDER_FORKS = "__MACOSX"


def check_archive(data: bytes, limits: Limits = Limits()) -> list[tuple[zipfile.ZipInfo, PurePosixPath]]:
    """Validate an archive's members before anything is unpacked; returns them with their paths inside the bot."""
    if len(data) > limits.archive_bytes:
        raise UploadError(f"the archive is {len(data)} bytes; the limit is {limits.archive_bytes}")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, ValueError, NotImplementedError) as exc:  # NotImplementedError: a version zipfile does not read
        raise UploadError(f"not a zip archive: {exc}") from None
    # Finder's forks (below) can double a zip's entries; past twice the limit nothing is read further.
    if len(infos) > 2 * limits.files:
        raise UploadError(f"the archive has {len(infos)} entries; the limit is {limits.files}")
    members = [(info, _member_path(info)) for info in infos]
    # macOS Finder's "Compress" adds __MACOSX/, the files' resource forks ("._bot.py"): no part of any bot, and
    # beside the bot's folder it hid the manifest ("no bot.toml at the top"). Never unpacked, so they count toward
    # no limit: a bot of 600 files zipped by Finder was refused for its 1,200 entries.
    members = [(info, p) for info, p in members if p.parts[:1] != (FINDER_FORKS,)]
    if len(members) > limits.files:
        forks = len(infos) - len(members)
        besides = f" besides {forks} in {FINDER_FORKS}/" if forks else ""
        raise UploadError(f"the archive has {len(members)} entries{besides}; the limit is {limits.files}")
    total = sum(info.file_size for info, _ in members)
    if total > limits.unpacked_bytes:
        raise UploadError(f"the archive unpacks to {total} bytes; the limit is {limits.unpacked_bytes}")
    for info, path in members:
        if info.compress_size and info.file_size / info.compress_size > limits.ratio:
            raise UploadError(f"{path}: compressed {info.file_size // info.compress_size}:1, which looks like an archive bomb")
    files = [p for info, p in members if not info.is_dir()]
    if PurePosixPath(MANIFEST) in files:
        return _unique(members)
    tops = {p.parts[0] for p in files}
    top = next(iter(tops)) if len(tops) == 1 else ""
    if top and PurePosixPath(top, MANIFEST) in files:
        # A single top folder holding the bot: strip it. Folder entries beside it are no part of the bot.
        return _unique([(info, PurePosixPath(*p.parts[1:])) for info, p in members if len(p.parts) > 1 and p.parts[0] == top])
    raise UploadError(f"no {MANIFEST} at the top of the archive")


def _unique(members: list[tuple[zipfile.ZipInfo, PurePosixPath]]) -> list[tuple[zipfile.ZipInfo, PurePosixPath]]:
    """Refuse what could not be unpacked as it stands: a file twice, a file where a folder must be, over-long names."""
    files: set[PurePosixPath] = set()
    folders: set[PurePosixPath] = set()
    for info, path in members:
        if len(str(path).encode()) > PATH_BYTES:
            raise UploadError(f"{str(path)[:80]!r}...: paths may be at most {PATH_BYTES} bytes long")
        for part in path.parts:
            if len(part.encode()) > NAME_BYTES:
                raise UploadError(f"{part[:80]!r}...: file and folder names may be at most {NAME_BYTES} bytes long")
        folders.update(path.parents)
        if info.is_dir():
            folders.add(path)
        elif path in files:
            raise UploadError(f"{path}: the archive holds this file twice")
        else:
            files.add(path)
    clash = sorted(files & folders)
    if clash:
        raise UploadError(f"{clash[0]}: the archive holds both a file and a folder of this name")
    return members


def unpack(data: bytes, target: Path, limits: Limits = Limits()) -> None:
    """Unpack a checked archive into ``target`` (which must not exist), never following or creating links.

    Any failure raises UploadError and leaves no ``target`` behind: a damaged member (a size or checksum
    that lies, a broken stream) is found only while unpacking, after some files are written.
    """
    members = check_archive(data, limits)
    target.mkdir(parents=True)
    try:
        _extract(data, members, target.resolve(), limits)
    except UploadError:
        remove_tree(target)
        raise
    # A member offset before the archive's start is a ValueError of seek; a broken LZMA stream, an LZMAError.
    except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, ValueError, NotImplementedError) as exc:
        remove_tree(target)
        raise UploadError(f"the archive is damaged: {exc}") from None
    except BaseException:  # whatever else (an interrupt): nothing is left half unpacked
        remove_tree(target)
        raise


def _extract(data: bytes, members: list[tuple[zipfile.ZipInfo, PurePosixPath]], root: Path, limits: Limits) -> None:
    zf = zipfile.ZipFile(io.BytesIO(data))
    written = 0
    for info, path in members:
        dest = (root / path).resolve()
        if root not in dest.parents and dest != root:
            raise UploadError(f"{path}: leaves the bot's folder")
        try:
            written += _write(zf, info, dest, limits.unpacked_bytes - written)
        except OSError as exc:  # checked names all, but a file system may still refuse one (too long for it, say)
            raise UploadError(f"{path}: cannot be unpacked: {exc.strerror or type(exc).__name__}") from None


def _write(zf: zipfile.ZipFile, info: zipfile.ZipInfo, dest: Path, room: int) -> int:
    """One member at ``dest``: a folder, or a new file of at most ``room`` bytes; returns the bytes written."""
    if info.is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        return 0
    dest.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with zf.open(info) as src, open(dest, "xb") as out:
        while chunk := src.read(65536):
            written += len(chunk)
            # Sizes in the archive's directory can lie. zipfile itself stops at the declared size (and the
            # checksum then fails); this holds the limit whatever a member's stream does.
            if written > room:
                raise UploadError("the archive unpacks to more than it declares")
            out.write(chunk)
    mode = (info.external_attr >> 16) & 0o777
    os.chmod(dest, 0o755 if mode & 0o111 else 0o644)
    return written


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
