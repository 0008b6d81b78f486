"""What a tree of the output folder holds, looked at on disk: the files ledgerpress did not write (found through
the folders whose time moved since a build recorded it), the folders' times, and what of the user's stands where
the site puts a file or a folder of its own."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection, Iterable, Iterator, Mapping
from pathlib import Path

from .record import CARRIED, Entry


def foreign_files(top: Path, recorded: Mapping[str, Entry], folders: Mapping[str, int] | None) -> list[str]:
    """The files below top that ledgerpress did not write: those carried before (still there), and those in a
    folder whose time moved since the record (a new entry changes it); every file, without a record of folders."""
    if folders is None:
        return sorted(path for path in _files(top) if path not in recorded or recorded[path][0] == CARRIED)
    found = [path for path, entry in recorded.items() if entry[0] == CARRIED and os.path.lexists(os.path.join(top, path))]
    for folder, when in folders.items():
        place = os.path.join(top, folder)
        try:
            if os.stat(place, follow_symlinks=False).st_mtime_ns == when:
                continue
            entries = list(os.scandir(place))
        except OSError:
            continue
        for entry in entries:
            relative = f"{folder}/{entry.name}" if folder else entry.name
            if entry.is_dir(follow_symlinks=False):
                if relative not in folders:
                    found.extend(f"{relative}/{path}" for path in _files(Path(entry.path)))
            elif relative not in recorded:
                found.append(relative)
    return sorted(set(found))


def in_the_way(paths: Collection[str], outputs: Collection[str]) -> list[str]:
    """Those of `paths` (files, or links) that stand where `outputs` need a folder or a file: at a folder holding
    outputs, or inside a folder where an output is a file."""
    if not paths:
        return []
    folders = folders_of(outputs)
    return sorted(path for path in paths if path in folders or any(folder in outputs for folder in folders_of([path])))


def folders_of(paths: Iterable[str]) -> set[str]:
    """Every folder holding one of these files, by its path below the top ('' for the top)."""
    folders = {""}
    for path in paths:
        folder = path.rpartition("/")[0]
        while folder not in folders:  # its parents are there already if it is
            folders.add(folder)
            folder = folder.rpartition("/")[0]
    return folders


def folder_times(top: Path, files: Mapping[str, Entry], known: Mapping[str, int] | None = None,
                 moved: Collection[str] = ()) -> dict[str, int]:
    """The modification time of every folder holding a recorded file, by its path below top ('' for top): as
    `known` has it (recorded earlier) for a folder not in `moved`, else as it is now. A time recorded older
    than the folder's only makes the next build look through that folder again."""
    known = known or {}
    times = {}
    for folder in folders_of(files):
        if folder in known and folder not in moved:
            times[folder] = known[folder]
            continue
        with contextlib.suppress(OSError):
            times[folder] = os.stat(os.path.join(top, folder), follow_symlinks=False).st_mtime_ns
    return times


def _files(top: Path) -> Iterator[str]:
    """Every file (or link, to a folder too: it is not followed) below top, as a relative path with '/'."""
    for folder, dirs, names in os.walk(top):
        relative = os.path.relpath(folder, top)
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
        for name in [*names, *(name for name in dirs if os.path.islink(os.path.join(folder, name)))]:
            yield prefix + name
