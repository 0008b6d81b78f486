"""The only module that writes the output folder. A first build fills a staging folder beside it and
renames it into place; a later build, once everything is rendered, writes only the files whose bytes
changed (each through a temporary file and a rename) and deletes the files no longer produced, with
Ctrl-C held off until that short commit is done. Either way a failed build writes nothing."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
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
    bytes: int = 0
    skipped: int = 0
    deleted: int = 0


def safe_relative(path: str) -> PurePosixPath:
    """A relative path with no '..', no absolute part and no empty segment."""
    relative = PurePosixPath(path)
    if relative.is_absolute() or not relative.parts or any(p in ("..", ".", "") for p in relative.parts) \
            or "\\" in path or "\x00" in path or "//" in path:
        raise UnsafePath(f"refusing to write outside the output folder: {path!r}")
    return relative


def write_site(out: Path, files: Iterable[tuple[str, bytes]]) -> WriteStats:
    """Write every file into a fresh staging folder, then swap it for out; on any error out is untouched."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.staging-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        stats = _fill(staging, files)
        _swap(staging, out)
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
        stats.bytes += len(data)
    return stats


def _swap(staging: Path, out: Path) -> None:
    """Rename the old folder aside, the new one in, then delete the old one."""
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


def update_site(out: Path, files: Mapping[str, bytes], digests: Mapping[str, str],
                previous: Mapping[str, str] | None) -> WriteStats:
    """Make out hold exactly `files`, writing only what changed. `digests`: each file's digest;
    `previous`: the digests the last build recorded for out (None: unknown, so compare with the disk)."""
    out = out.resolve()
    for path in files:
        safe_relative(path)
    if not out.is_dir():
        return write_site(out, sorted(files.items()))
    stats = WriteStats()
    changed = [path for path in sorted(files) if not _same(out, path, files[path], digests[path], previous)]
    stale = sorted(set(previous) - set(files)) if previous is not None else _stale(out, files)
    with _interrupts_held():
        made: set[Path] = set()
        for path in changed:
            _replace(out / path, files[path], made)
            stats.files += 1
            stats.bytes += len(files[path])
        for path in stale:
            (out / path).unlink(missing_ok=True)
            stats.deleted += 1
    stats.skipped = len(files) - len(changed)
    return stats


def _same(out: Path, path: str, data: bytes, digest: str, previous: Mapping[str, str] | None) -> bool:
    """Whether out/path already holds these bytes: by the recorded digest, else by reading it."""
    target = out / path
    if previous is not None:
        return previous.get(path) == digest and target.is_file()
    try:
        return target.stat().st_size == len(data) and target.read_bytes() == data
    except OSError:
        return False


def _stale(out: Path, files: Mapping[str, bytes]) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*")
                  if (p.is_file() or p.is_symlink()) and p.relative_to(out).as_posix() not in files)


def _replace(target: Path, data: bytes, made: set[Path]) -> None:
    if target.parent not in made:
        target.parent.mkdir(parents=True, exist_ok=True)
        made.add(target.parent)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, target)


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
