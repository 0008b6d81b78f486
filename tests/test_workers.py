"""Per-story work on a process pool gives exactly the output of the same work in one process."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from generator import workers as workers_module
from generator.build import build_site, check_site
from generator.prepare import Spill
from generator.workers import Workers, default_jobs

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
