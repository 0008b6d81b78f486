"""Files put in place whole: written new where nothing is, else written or linked under a temporary name beside
them, then renamed, so that a reader (another build, a publish, a preview) finds the old file or the new one and
never half of one; and the folders that deleting them leaves empty, removed. The standard library only: a build
with nothing to do loads it (through the build state and the output record) before it knows whether the engine is
needed."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from pathlib import Path


def replace_file(target: str, make) -> None:
    """Make a file at `target` through a temporary name beside it, then rename it into place; one that fails (a
    full disk) leaves the old file and no temporary one."""
    folder = os.path.dirname(target)
    temporary = os.path.join(folder, f".{os.path.basename(target)}.{os.getpid()}.tmp")
    try:
        try:
            make(temporary)
        except FileNotFoundError:
            os.makedirs(folder, exist_ok=True)
            make(temporary)
        os.replace(temporary, target)
    finally:
        with contextlib.suppress(FileNotFoundError):  # a rename between two links to one file leaves both names
            os.unlink(temporary)


def write_whole(path: str | Path, data: bytes) -> None:
    """Write `data` to `path` whole (the record, the build state, the memo)."""
    replace_file(os.fspath(path), lambda temporary: write_file(temporary, data))


def write_file(path: str, data: bytes) -> None:
    """Write these bytes at `path`, created or emptied first (by the descriptor: a build writes thousands, and
    open() costs more)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        write_all(descriptor, data)
    finally:
        os.close(descriptor)


def write_new(path: str, data: bytes) -> os.stat_result | None:
    """Write these bytes into a new file at `path`, and return its stat as written; None, and nothing written,
    when a file is there already. A tree a build is still changing is not yet anyone's to read, and a build
    stopped halfway leaves it marked (output/folder.py): a file new to it needs no temporary name and no rename."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    except FileExistsError:
        return None
    try:
        write_all(descriptor, data)
        return os.fstat(descriptor)
    finally:
        os.close(descriptor)


def write_all(descriptor: int, data: bytes) -> None:
    """All of these bytes to an open file or pipe (one write may take only part of them)."""
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view):]


def link_or_copy(source: str | Path, path: str | Path) -> None:
    """A hard link to `source` at `path`, in place of any file there (a copy where the file system cannot link
    them). Linked first and removed only if a file is there: most paths are new (a first build links every
    file it writes)."""
    try:
        os.link(source, path)
    except FileExistsError:
        os.unlink(path)
        link_or_copy(source, path)
    except OSError as err:
        if err.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP):
            raise
        shutil.copy2(source, path, follow_symlinks=False)  # a file system without hard links: a copy (a link as a link)


def prune(top: str | Path, folder: Path) -> None:
    """Remove folders left empty by deleted files, up to (not including) the tree's top."""
    top = Path(top)
    while folder != top and top in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
