"""The only module that writes the output folder; a failed build writes nothing there. write_site fills a
staging folder beside it and swaps it in. A build puts its outputs in a Pending folder beside the output
as they are rendered, only those whose bytes changed; commit() then renames them into place and deletes the
files no longer produced (Ctrl-C held off for that short step), or, on a first build, renames the whole
pending folder into place. The pending folder and its top-level folders are marked for ext4 to spread what
is made in them (spread())."""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import signal
import struct
import sys
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath


class UnsafePath(ValueError):
    """An output path that would leave the output folder."""


class DuplicateOutput(ValueError):
    """Two outputs claimed one path: a bug, since the build checks URLs before rendering."""


@dataclass
class WriteStats:
    files: int = 0
    skipped: int = 0
    deleted: int = 0


def safe_relative(path: str) -> PurePosixPath:
    """A relative path with no '..', no absolute part and no empty segment."""
    check_relative(path)
    return PurePosixPath(path)


def check_relative(path: str) -> None:
    """Refuse a path that is absolute, empty, or has a '..', '.' or empty segment, a backslash or a NUL."""
    if not path or path.startswith("/") or "\\" in path or "\x00" in path \
            or any(part in ("..", ".", "") for part in path.split("/")):
        raise UnsafePath(f"refusing to write outside the output folder: {path!r}")


def write_site(out: Path, files: Iterable[tuple[str, bytes]]) -> WriteStats:
    """Write every file into a fresh staging folder, then swap it for out; on any error out is untouched."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.staging-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        stats = _fill(staging, files)
        swap_in(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return stats


def _fill(staging: Path, files: Iterable[tuple[str, bytes]]) -> WriteStats:
    stats = WriteStats()
    made: set[PurePosixPath] = set()
    written: set[PurePosixPath] = set()
    for path, data in files:
        relative = safe_relative(path)
        if relative in written:
            raise DuplicateOutput(f"two outputs for {path}")
        written.add(relative)
        if relative.parent not in made:
            (staging / relative.parent).mkdir(parents=True, exist_ok=True)
            made.update(relative.parents)
        (staging / relative).write_bytes(data)
        stats.files += 1
    return stats


def swap_in(staging: Path, out: Path) -> None:
    """Rename the old folder aside, the new one in, then delete the old one (publish uses it too)."""
    if not out.exists():
        staging.rename(out)
        return
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    shutil.rmtree(old, ignore_errors=True)
    out.rename(old)
    try:
        staging.rename(out)
    except BaseException:
        old.rename(out)
        raise
    shutil.rmtree(old, ignore_errors=True)


class Pending:
    """The new and changed files of a build, written beside the output folder as they are rendered (by any
    process: it is inherited by forked workers), so that no build holds the whole site in memory. Nothing
    in the output folder changes until commit(); abort() throws the pending files away."""

    def __init__(self, out: Path, previous: Mapping[str, str] | None) -> None:
        self.out = out.resolve()
        self.folder = self.out.parent / f".{self.out.name}.pending-{os.getpid()}"
        self.previous = previous if self.out.is_dir() else {}
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        spread(self.folder)
        self._made: set[str] = {str(self.folder)}

    def put(self, path: str, data: bytes, digest: str) -> bool:
        """Keep one output; True if it had to be written (the output folder does not hold these bytes yet)."""
        check_relative(path)
        if self._same(path, data, digest):
            return False
        target = os.path.join(self.folder, path)
        folder = os.path.dirname(target)
        if folder not in self._made:  # each folder once: creating one costs as much as writing a file here
            self._make(folder, path)
        _write(target, data)
        return True

    def _make(self, folder: str, path: str) -> None:
        """The folder of the output at `path`; its top-level folder (stories/, manifests/, …) made first on
        its own and marked to spread, before any folder is made in it (by this process or another)."""
        top = os.path.join(self.folder, path.partition("/")[0])
        if top not in self._made:
            os.makedirs(top, exist_ok=True)
            spread(top)
            self._made.add(top)
        os.makedirs(folder, exist_ok=True)
        self._made.add(folder)

    def read(self, path: str, written: bool) -> bytes:
        return ((self.folder if written else self.out) / path).read_bytes()

    def _same(self, path: str, data: bytes, digest: str) -> bool:
        if self.previous is not None:
            return self.previous.get(path) == digest and os.path.isfile(os.path.join(self.out, path))
        target = self.out / path
        try:
            return target.stat().st_size == len(data) and target.read_bytes() == data
        except OSError:
            return False

    def commit(self, produced: Mapping[str, str], written: Iterable[str]) -> WriteStats:
        """Move the written files into place and delete the files no longer produced."""
        written = sorted(written)
        stats = WriteStats(files=len(written), skipped=len(produced) - len(written))
        if not self.out.exists():
            self.folder.rename(self.out)
            return stats
        stale = sorted(set(self.previous) - set(produced)) if self.previous is not None else _stale(self.out, produced)
        with _interrupts_held():
            made: set[Path] = set()
            for path in written:
                target = self.out / path
                if target.parent not in made:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    made.add(target.parent)
                os.replace(self.folder / path, target)
            for path in stale:
                (self.out / path).unlink(missing_ok=True)
                _prune(self.out, (self.out / path).parent)
        stats.deleted = len(stale)
        self.abort()
        return stats

    def abort(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


# FS_IOC_GETFLAGS and FS_IOC_SETFLAGS (linux/fs.h: _IOR and _IOW of 'f', 1 and 2, sized as a long), in the
# encoding of the machines named (others encode ioctls otherwise: there spread() does nothing)
_GENERIC_IOCTLS = {"x86_64", "amd64", "i386", "i686", "aarch64", "arm64", "armv7l", "armv8l", "riscv64"}
_LONG = struct.calcsize("l") << 16
_FS_IOC_GETFLAGS, _FS_IOC_SETFLAGS = (2 << 30) | _LONG | 0x6601, (1 << 30) | _LONG | 0x6602
_FS_TOPDIR_FL = 0x00020000  # chattr +T


def spread(folder: str | Path) -> bool:
    """Mark a folder as the top of unrelated trees (chattr +T), so that ext4 places each folder made in it
    where there is most room and fewest folders, as it does the folders made in /, not beside it. That
    matters on ext4 without a journal, as here: before it takes an inode for a new file or folder, ext4
    passes over every inode its block group freed in the last minutes, one by one, so after the last output
    was deleted every file made beside where it was costs a scan of it all (a cold build of 4,000 stories
    made next to its deleted output spent 8-21 s in the kernel; spread over the disk by a day's folder, a
    manifest's or an edition's, 3-4 s; benchmarks/README.md). True if the folder has the mark; elsewhere,
    and on file systems without it, nothing changes."""
    if not sys.platform.startswith("linux") or platform.machine().lower() not in _GENERIC_IOCTLS:
        return False
    try:
        import fcntl

        descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except (ImportError, OSError):
        return False
    try:
        flags = struct.unpack("i", fcntl.ioctl(descriptor, _FS_IOC_GETFLAGS, b"\0" * 4))[0]
        if not flags & _FS_TOPDIR_FL:
            fcntl.ioctl(descriptor, _FS_IOC_SETFLAGS, struct.pack("i", flags | _FS_TOPDIR_FL))
        return True
    except OSError:  # no such flags on this file system, or not ours to change
        return False
    finally:
        os.close(descriptor)


def _write(path: str, data: bytes) -> None:
    """A new file with these bytes, in three system calls (open() makes six: this machine writes thousands)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view):]
    finally:
        os.close(descriptor)


def _prune(out: Path, folder: Path) -> None:
    """Remove folders left empty by deleted files, up to (not including) the output folder."""
    while folder != out and out in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def _stale(out: Path, files: Mapping[str, object]) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*")
                  if (p.is_file() or p.is_symlink()) and p.relative_to(out).as_posix() not in files)


@contextlib.contextmanager
def _interrupts_held():
    """Ctrl-C during the commit is honoured when it ends, so no reader sees it half done by our doing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: caught.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt
