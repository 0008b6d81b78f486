"""The record of what ledgerpress wrote into an output folder, kept beside it in `.<name>.ledgerpress/`: for
each of its two trees (the live one and the one the next build brings up to date), every file ours with its
digest and stat. The standard library and orjson only: `ledgerpress build` reads it before importing the
rest of the generator, to see that an unchanged site's output is still as the last build left it."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from .whole_files import write_whole

FORMAT = "ledgerpress-output-2"
FORMATS = ("ledgerpress-output-1", FORMAT)  # 1: every tree written out whole
RECORD = "record.json"
CARRIED = "carried"  # in place of a digest: a file put there by hand, not ours, carried from tree to tree
UNKNOWN = "unknown"  # in place of a digest: a file of ours that was edited or deleted by hand

Entry = list  # [digest, size, mtime_ns, inode]


def own_folder(out: Path) -> Path:
    """Where the record, the lock and the next tree of an output folder live: beside it, on the same disk."""
    return out.parent / f".{out.name}.ledgerpress"


@dataclass
class Record:
    """`build`: the key of the build that made the live tree; `trees`: by the inode of the tree's folder (a
    switch exchanges the folders, so this stays right whichever moment a build is stopped at), its files."""

    build: str = ""
    trees: dict[str, dict[str, Entry]] = field(default_factory=dict)
    dirs: dict[str, dict[str, int]] = field(default_factory=dict)  # by tree: each folder's modification time
    stamp: tuple[int, int, int] | None = None  # of the file it was read from: size, time, inode

    def tree(self, folder: Path) -> dict[str, Entry] | None:
        """The files recorded for the tree now at `folder` (None: unknown)."""
        inode = _inode(folder)
        return self.trees.get(str(inode)) if inode is not None else None

    def folders(self, folder: Path) -> dict[str, int] | None:
        """The modification times recorded for the folders of the tree now at `folder`, if any."""
        inode = _inode(folder)
        return self.dirs.get(str(inode)) if inode is not None else None


def load_record(out: Path) -> Record:
    """The record beside `out`, or an empty one when there is none (or it is damaged)."""
    try:
        with open(own_folder(out) / RECORD, "rb") as file:
            raw = orjson.loads(file.read())
            info = os.fstat(file.fileno())
        if raw.get("format") not in FORMATS or not isinstance(raw.get("trees"), dict):
            return Record()
        dirs = raw.get("dirs")
        return Record(str(raw.get("build", "")), _trees(raw["trees"]), dirs if isinstance(dirs, dict) else {},
                      file_stamp(info))
    except (OSError, ValueError, AttributeError, TypeError, KeyError):
        return Record()


def _trees(saved: dict) -> dict[str, dict[str, Entry]]:
    """The trees as save_record() wrote them: the first whole (a dict), each other as how it differs from the
    first (a list: the first's inode, its files whose entries differ or that the first lacks, and the first's
    files it lacks)."""
    trees: dict[str, dict[str, Entry]] = {}
    for inode, files in saved.items():
        if isinstance(files, list):
            like, differ, gone = files
            files = {**trees[like], **differ}
            for path in gone:
                files.pop(path, None)
        if isinstance(files, dict):
            trees[inode] = files
    return trees


def file_stamp(info: os.stat_result) -> tuple[int, int, int]:
    """What tells a file read earlier from one put in its place or changed since: its size, time and inode."""
    return info.st_size, info.st_mtime_ns, info.st_ino


def save_record(out: Path, record: Record) -> None:
    """Written with every tree but the first as how it differs from the first: the two trees share all but
    the files of the last build (hard links), and a build reads this file before it starts."""
    base = next(iter(record.trees), "")
    first = record.trees.get(base, {})
    trees = {inode: files if inode == base else
             [base, {path: entry for path, entry in files.items() if first.get(path) != entry},
              [path for path in first if path not in files]]
             for inode, files in record.trees.items()}
    write_whole(own_folder(out) / RECORD, orjson.dumps({"format": FORMAT, "build": record.build, "trees": trees,
                                                        "dirs": record.dirs}))


def intact(out: Path, record: Record, build: str) -> bool:
    """True when the live tree at `out` is the one the build `build` made, every file of ours in it as that
    build left it (not edited, replaced or deleted since)."""
    files = record.tree(out)
    if files is None or record.build != build:
        return False
    top = f"{out}{os.sep}"
    return all(entry[0] == CARRIED or same(top + path, entry) for path, entry in files.items())


def same(path: str, entry: Entry) -> bool:
    """The file at `path` is as its entry records it (same size, time and inode): not edited, replaced or
    deleted since. Asked of every file of the output: it compares field by field, making no list."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    return info.st_size == entry[1] and info.st_mtime_ns == entry[2] and info.st_ino == entry[3]


def stat_entry(path: str, digest: str) -> Entry:
    info = os.stat(path, follow_symlinks=False)
    return [digest, info.st_size, info.st_mtime_ns, info.st_ino]


def _inode(folder: Path) -> int | None:
    try:
        return os.stat(folder, follow_symlinks=False).st_ino
    except OSError:
        return None
