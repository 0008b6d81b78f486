"""The process pool: results in order, what the workers inherit shared, and the collector as the caller left it."""

from __future__ import annotations

import gc

from generator.engine.pool import run_all


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
