"""Per-story work on a process pool gives exactly the output of the same work in one process."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import threading
from pathlib import Path

import pytest

from generator import workers as workers_module
from generator.build import build_site, check_site
from generator.prepare import Spill
from generator.workers import Aside, WorkerDied, Workers, default_jobs

REPO = Path(__file__).resolve().parent.parent


def test_pool_and_inline_builds_are_byte_identical(monkeypatch):
    monkeypatch.setattr(Workers, "MIN_PER_JOB", 1)
    pooled = build_site(REPO, jobs=2, search=False)
    inline = build_site(REPO, jobs=1, search=False)
    assert pooled.ok and pooled.files == inline.files


def test_pool_and_inline_checks_agree(monkeypatch, site: Path):
    story = site / "content/stories/2026-11-21/council-funds-the-quay-street-busway.md"
    story.write_text(story.read_text().replace("[cites: 1000000000000000002]\n\n-", "\n\n-"))
    monkeypatch.setattr(Workers, "MIN_PER_JOB", 1)
    pooled = check_site(site, jobs=2)
    inline = check_site(site, jobs=1)
    assert pooled.findings == inline.findings and [f.code for f in pooled.findings] == ["LP030"]
    assert pooled.report.passed == inline.report.passed


def test_map_keeps_order_and_default_jobs_counts_cores(monkeypatch):
    monkeypatch.setattr(Workers, "MIN_PER_JOB", 1)
    assert list(Workers(2).map(abs, range(-50, 0), 50)) == list(range(50, 0, -1))
    assert default_jobs() >= 1 and workers_module.workers(None).jobs == default_jobs()


def _fails_at(number: int):
    if number == 37:
        raise ValueError(f"no {number}")
    return number


class _Unpicklable(Exception):
    def __init__(self, lock: object) -> None:
        super().__init__("held a lock")
        self.lock = lock


def test_a_workers_exception_reaches_the_parent_and_no_worker_is_left(monkeypatch):
    """A worker's exception is raised in the parent as itself, noting the worker's traceback; one that cannot
    cross between processes arrives as a RuntimeError with its text; either way every worker is gone."""
    monkeypatch.setattr(Workers, "MIN_PER_JOB", 1)
    with pytest.raises(ValueError, match="no 37") as raised:
        list(Workers(2).map(_fails_at, range(100), 100))
    assert "raised in a build worker" in "".join(raised.value.__notes__) and "_fails_at" in "".join(raised.value.__notes__)
    assert multiprocessing.active_children() == []

    def locked(number: int) -> int:
        raise _Unpicklable(threading.Lock())

    with pytest.raises(RuntimeError, match="_Unpicklable: held a lock"):
        list(Workers(2).map(locked, range(10), 10))
    assert multiprocessing.active_children() == []


def test_a_worker_that_dies_is_an_error_not_a_hang(monkeypatch):
    monkeypatch.setattr(Workers, "MIN_PER_JOB", 1)

    def dies(number: int) -> int:
        if number == 5:
            os._exit(3)
        return number

    with pytest.raises(WorkerDied, match="exit code 3"):
        list(Workers(2).map(dies, range(50), 50))
    assert multiprocessing.active_children() == []


def test_results_no_longer_wanted_stop_the_workers(monkeypatch):
    monkeypatch.setattr(Workers, "MIN_PER_JOB", 1)
    results = Workers(2).map(abs, range(-10_000, 0), 10_000)
    assert next(results) == 10_000 and len(multiprocessing.active_children()) == 2
    results.close()
    assert multiprocessing.active_children() == []


def test_steps_go_in_order_on_a_pool(monkeypatch):
    monkeypatch.setattr(Workers, "MIN_PER_JOB", 1)

    def twice(number: int):
        yield
        return 2 * number

    assert list(Workers(2).steps(twice, range(1000), 1000)) == [2 * n for n in range(1000)]
    assert multiprocessing.active_children() == []


def test_bodies_wait_in_scratch_files_that_every_build_removes(monkeypatch, tmp_path: Path):
    """Rendered bodies wait for their pages in scratch files (one per worker) under .ledgerpress-cache/, not
    in memory; the files go when the build ends, whether it built or refused."""
    monkeypatch.setattr(Workers, "MIN_PER_JOB", 1)
    site = tmp_path / "site"
    shutil.copytree(REPO / "content", site / "content")
    seen, close = [], Spill.close
    monkeypatch.setattr(Spill, "close", lambda self: seen.append(sorted(os.listdir(self.folder))) or close(self))
    cache = site / ".ledgerpress-cache"
    assert build_site(site, jobs=2, search=False).ok
    assert len(seen[-1]) == 2 and list(cache.iterdir()) == []  # a file from each of the two workers, then none
    story = next((site / "content/stories").glob("*/*.md"))
    story.write_text(story.read_text().replace("\nnewsroom: ", "\nnewsroom: nowhere-", 1))
    assert not build_site(site, jobs=2, search=False).ok
    assert list(cache.iterdir()) == []


def _parent_and_child(value: int) -> tuple[int, int]:
    return value, os.getpid()


def _fails() -> None:
    raise RuntimeError("in the child")


def test_a_call_made_aside_returns_its_result_from_another_process():
    aside = Aside(_parent_and_child, 7)
    value, pid = aside.result()
    assert value == 7 and pid != os.getpid()
    assert aside.result() is None  # waited for once: nothing more to take


def test_a_call_aside_that_fails_gives_none_and_leaves_no_process():
    aside = Aside(_fails)
    child = aside.child
    assert aside.result() is None
    with pytest.raises(ChildProcessError):
        os.waitpid(child, os.WNOHANG)  # reaped
