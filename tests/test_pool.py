"""The process pool: results in order, what the workers inherit shared, and the collector as the caller left it."""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from generator.engine.pool import run_all
from generator.output.lock import OutputLock

REPO = Path(__file__).resolve().parent.parent


def _scaled(context: int, item: int) -> int:
    return context * item


def test_results_come_in_order_from_forked_workers():
    assert list(run_all(_scaled, 3, list(range(40)), jobs=2, min_per_job=1)) == [3 * n for n in range(40)]


def test_a_pool_leaves_frozen_what_its_caller_froze_and_nothing_else():
    gc.unfreeze()
    list(run_all(_scaled, 1, list(range(8)), jobs=2, min_per_job=1))
    assert gc.get_freeze_count() == 0
    kept = [object() for _ in range(100)]  # a build's memo, frozen for the life of the process
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        list(run_all(_scaled, 1, list(range(8)), jobs=2, min_per_job=1))
        assert gc.get_freeze_count() >= before > 0
    finally:
        gc.unfreeze()
    assert kept


def _sleep(seconds: int, item: int) -> int:
    time.sleep(seconds)
    return item


def _children(pid: int) -> list[int]:
    """The live processes whose parent is pid (zombies count as ended)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text()
                state, parent = stat.rsplit(")", 1)[1].split()[:2]
                if int(parent) == pid and state != "Z":
                    found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    with contextlib.suppress(OSError):
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the workers end with their parent on Linux")
def test_the_workers_of_a_killed_build_end_with_it():
    """Killed (SIGKILL, the out-of-memory killer), a build cannot shut its pool down: its workers must not be
    left waiting for work forever, holding all they inherited."""
    script = ("from generator.engine.pool import run_all\nfrom tests.test_pool import _sleep\n"
              "list(run_all(_sleep, 60, list(range(4)), 2, min_per_job=1))\n")
    caller = subprocess.Popen([sys.executable, "-c", script], cwd=REPO)
    try:
        deadline = time.monotonic() + 20
        while len(workers := _children(caller.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(workers) == 2
    finally:
        caller.kill()
        caller.wait()
    deadline = time.monotonic() + 10
    while any(map(_alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in workers if _alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left


def test_a_process_forked_while_the_output_lock_is_held_does_not_keep_it(tmp_path: Path):
    """The lock is its taker's alone: a child forked meanwhile (a pool's worker) that outlives it does not keep
    the next build out."""
    script = ("import os, sys, time\nfrom pathlib import Path\nfrom generator.output.lock import OutputLock\n"
              "lock = OutputLock(Path(sys.argv[1]))\nlock.take(exclusive=True, wait=False, what='held')\n"
              "child = os.fork()\nif child == 0:\n    os.close(1)\n    os.close(2)\n    time.sleep(60)\n    os._exit(0)\n"
              "print(child, flush=True)\nos._exit(0)\n")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "lock")], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    child = int(done.stdout)
    try:
        assert _alive(child)
        lock = OutputLock(tmp_path / "lock")
        lock.take(exclusive=True, wait=False, what="held by the child")
        lock.release()
    finally:
        os.kill(child, signal.SIGKILL)
