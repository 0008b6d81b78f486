"""Per-story work on every core: a forked process pool (children inherit the loaded site), or inline."""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from typing import Protocol, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


class Progress(Protocol):
    def __call__(self, stage: str, done: int, total: int) -> None: ...


def default_jobs() -> int:
    """All the cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class Workers:
    """map() in order over a fresh pool of `jobs` processes; one job, few items or no fork: in this process."""

    MIN_PER_JOB = 16

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs

    def map(self, func: Callable[[Item], Result], items: Iterable[Item], count: int,
            min_per_job: int | None = None) -> Iterator[Result]:
        """func over items, in order; `min_per_job`: fewer items than this per process are not worth a pool."""
        jobs = min(self.jobs, count // (min_per_job or self.MIN_PER_JOB))
        if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
            yield from map(func, items)
            return
        chunk = max(1, min(32, count // (jobs * 16)))
        with multiprocessing.get_context("fork").Pool(jobs, initializer=_quiet) as pool:
            yield from pool.imap(func, items, chunksize=chunk)


def _quiet() -> None:
    """Ctrl-C is the parent's to handle: it stops the pool; workers must not each print a traceback. The
    site a worker inherits is set aside from the cyclic collector (gc.freeze), which then runs again, only
    over what the worker itself makes: rendering leaves cycles that would otherwise pile up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()
    gc.enable()


def workers(jobs: int | None) -> Workers:
    return Workers(jobs or default_jobs())


@contextlib.contextmanager
def no_cycle_collection():
    """A build makes millions of objects that live until it ends and few cycles: Python's cyclic collector
    would rescan them all again and again (a 20,000-story build spent a third of its time there)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
