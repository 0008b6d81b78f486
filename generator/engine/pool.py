"""Per-story work on every core: a pool of forked processes (they inherit what this one holds), or this one."""

from __future__ import annotations

import functools
import gc
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

PR_SET_PDEATHSIG = 1  # Linux's prctl option: the signal a process gets when its parent ends
MIN_PER_JOB = 16  # fewer items a process are done sooner here than a pool starts


def default_jobs() -> int:
    """All the cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def run_all(func: Callable[[Any, Item], Result], context: Any, items: Sequence[Item], jobs: int,
            min_per_job: int = MIN_PER_JOB) -> Iterator[Result]:
    """func(context, item) for each item, in order: on a fresh pool of up to `jobs` processes forked from this
    one (so `context`, read-only, is theirs without being sent), or in this process when one is enough."""
    count = min(jobs, len(items) // min_per_job)
    if count <= 1 or not hasattr(os, "fork"):
        yield from (func(context, item) for item in items)
        return
    import multiprocessing  # here: a build that makes a few pages (an edit) starts no pool
    from concurrent.futures import ProcessPoolExecutor

    chunk = max(1, min(32, len(items) // (count * 16)))  # about 16 chunks a worker: they finish together
    _CONTEXT[0] = context
    pool = ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("fork"), initializer=_start_worker,
                               initargs=(os.getpid(),))
    try:
        yield from pool.map(functools.partial(_call, func), items, chunksize=chunk)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        _CONTEXT[0] = None


_CONTEXT: list[Any] = [None]  # what the workers of the running pool inherit


def _call(func: Callable[[Any, Item], Result], item: Item) -> Result:
    return func(_CONTEXT[0], item)


def _start_worker(parent: int) -> None:
    """A worker's own settings (the caller's process keeps its own): its collector leaves what it inherited
    alone, so that it stays shared with the parent rather than copied page by page; Ctrl-C is the parent's
    to handle (it shuts the pool down), so workers do not each print a traceback; and a worker ends with its
    parent: the pool's workers of a killed build would otherwise wait for work forever (each holds the pool's
    queues open), keeping all they inherited."""
    gc.freeze()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # (a preview's own handler is not the worker's)
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it died before that took effect
        os._exit(1)
