"""One build at a time per output folder, and no publish while a build switches it: an advisory lock on a file
beside it, which the system lets go of when the process ends, however it ends."""

from __future__ import annotations

import os
import weakref
from pathlib import Path


LOCK = "lock"  # its name in the output's own folder: a build and publish must take the same file


class Locked(Exception):
    """Another process holds the lock: printed as is."""


class OutputLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.descriptor: int | None = None

    def take(self, exclusive: bool, wait: bool, what: str, read: str | None = None) -> None:
        """Take the lock (exclusive for a build, shared for readers); without `wait`, Locked if it is held,
        saying `what`, or `read` when only readers hold it (a publish, to a build)."""
        try:
            import fcntl
        except ImportError:  # no advisory locks here: one build at a time is the user's to keep
            return
        self.descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        mode = (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | (0 if wait else fcntl.LOCK_NB)
        try:
            fcntl.flock(self.descriptor, mode)
        except BlockingIOError:
            self.release()
            if exclusive and read is not None and self._only_read():
                raise Locked(f"{read}; wait for it to end") from None
            raise Locked(f"{what}; wait for it to end, or stop it") from None
        _HELD.add(self)

    def _only_read(self) -> bool:
        """Whether a shared hold would be granted now: only readers hold the lock."""
        probe = OutputLock(self.path)
        try:
            probe.take(exclusive=False, wait=False, what="")
        except Locked:
            return False
        probe.release()
        return True

    def release(self) -> None:
        if self.descriptor is not None:
            os.close(self.descriptor)  # closing lets go of the lock
            self.descriptor = None
            _HELD.discard(self)


_HELD: weakref.WeakSet[OutputLock] = weakref.WeakSet()


def _not_in_a_child() -> None:
    """A process forked while a lock is held (a pool's worker) lets go of its copy: the lock stays the parent's
    alone, so that a worker outliving its killed build cannot keep every later build out of the folder."""
    for lock in list(_HELD):
        if lock.descriptor is not None:
            os.close(lock.descriptor)
            lock.descriptor = None
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_not_in_a_child)
