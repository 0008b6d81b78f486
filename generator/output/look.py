"""Which files of ours in the live tree were changed by hand since the record, looked at early: comparing the
stat of each with the record (one for every output of the site) takes a forked process while the build loads
its engine and memo, rather than the build's own time after. A look taken before the build holds the output's
lock counts only if it read the very record the build reads under the lock, for the same live tree; else the
build looks again itself. The standard library and orjson only, as the record."""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from .whole_files import write_all
from .record import CARRIED, Record, load_record, same


class LiveLook:
    """A look at the live tree under way in a forked process (none where the system cannot fork)."""

    def __init__(self, out: Path) -> None:
        self.pid: int | None = None
        if not hasattr(os, "fork"):
            return
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the look: its answer through the pipe, then out, running nothing of the parent's
            try:
                os.close(read)
                write_all(write, _look(out))
            finally:
                os._exit(0)
        os.close(write)
        self.pid, self.pipe = pid, read

    def changed(self, record: Record, tree: int | None) -> set[str] | None:
        """The live files of ours whose stat is not as `record` has it, if the look read this very record (the
        same file, by its stamp) for the same tree (the folder's inode); else None."""
        found = self._answer()
        if found is None or record.stamp is None or found["record"] != list(record.stamp) or found["tree"] != tree:
            return None
        return set(found["changed"])

    def __enter__(self) -> LiveLook:
        return self

    def __exit__(self, *exc: object) -> None:
        self._answer()  # unasked (the build stopped before its output store): the process is waited for

    def _answer(self) -> dict | None:
        if self.pid is None:
            return None
        chunks = []
        while chunk := os.read(self.pipe, 1 << 16):
            chunks.append(chunk)
        os.close(self.pipe)
        os.waitpid(self.pid, 0)
        self.pid = None
        try:
            return orjson.loads(b"".join(chunks))
        except orjson.JSONDecodeError:  # the look failed (or was stopped): nothing is known
            return None


def _look(out: Path) -> bytes:
    record = load_record(out)
    tree = os.stat(out, follow_symlinks=False).st_ino
    top = f"{out}{os.sep}"
    changed = [path for path, entry in (record.trees.get(str(tree)) or {}).items()
               if entry[0] != CARRIED and not same(top + path, entry)]
    return orjson.dumps({"record": record.stamp, "tree": tree, "changed": changed})
