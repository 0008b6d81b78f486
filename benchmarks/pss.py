"""The memory a command really holds: the peak of the Pss summed over a process tree (a build's workers and the
Pagefind processes have peaks of their own, which the largest process's RSS does not show), read from /proc."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

SAMPLE_S = 0.05


def tree(root: int) -> list[int]:
    """The processes below root, from every thread's list of children (the build starts Pagefind from threads)."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:  # the process ended meanwhile
            continue
        for task in tasks:
            try:
                children = [int(child) for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
            except OSError:  # the process or thread ended meanwhile
                continue
            found += children
            todo += children
    return found


def pss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except OSError:
            continue
        found = re.search(r"^Pss:\s+(\d+) kB", rollup, re.MULTILINE)
        total += int(found[1]) if found else 0
    return total / 1024


class PeakPss:
    """While in use, the largest Pss summed over this process's descendants (the timed command's tree; the
    /usr/bin/time wrapper, under a megabyte, included), sampled every SAMPLE_S on a thread."""

    def __enter__(self) -> PeakPss:
        self.peak, self._done = 0.0, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._done.wait(SAMPLE_S):
            self.peak = max(self.peak, pss_mb(tree(os.getpid())))

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._thread.join()
