"""The only module that writes the output folder: build into a staging folder beside it, then swap."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
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
