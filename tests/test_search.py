"""The Pagefind index: built in memory with the site, over stories and pages only; without Pagefind the site
still builds, with a warning that says why (the browser test is in test_quality.py)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from generator.build import build_site
from generator.cli import cli
from generator.site.search import NOTE_CODE, search_index


def test_the_build_carries_a_pagefind_bundle(site: Path):
    result = build_site(site)
    assert result.ok and not [f for f in result.findings if f.code == NOTE_CODE]
    bundle = sorted(path for path in result.files if path.startswith("pagefind/"))
    assert {"pagefind/pagefind.js", "pagefind/pagefind-entry.json", "pagefind/wasm.en.pagefind"} <= set(bundle)
    assert any(path.startswith("pagefind/index/") for path in bundle)
    assert not any("-ui." in path or "highlight" in path for path in bundle)
    entry = json.loads(result.files["pagefind/pagefind-entry.json"])
    # one story and one page carry data-pagefind-body; list pages, search and 404 are not search results
    assert entry["languages"]["en"]["page_count"] == 2


def test_without_pagefind_the_site_builds_and_says_why(site: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(tmp_path / "no-such-pagefind"))
    result = build_site(site)
    assert result.ok
    assert not any(path.startswith("pagefind/") for path in result.files)
    assert "search/index.html" in result.files and "index.html" in result.files
    [note] = [f for f in result.findings if f.code == NOTE_CODE]
    assert note.severity == "warning" and "search index not built" in note.message
    assert "pip install 'pagefind[extended]'" in note.message

    run = CliRunner().invoke(cli, ["build", "--root", str(site), "--out", str(tmp_path / "out")])
    assert run.exit_code == 0, run.output
    assert f"{NOTE_CODE} search index not built" in run.output and "(warning)" in run.output
    assert "Traceback" not in run.output
    assert (tmp_path / "out" / "search" / "index.html").is_file()


def test_no_pages_means_no_index_and_a_note():
    index = search_index({"style.css": b"body{}"})
    assert index.files == {} and [f.code for f in index.notes] == [NOTE_CODE]


def test_a_lang_that_is_not_a_language_tag_never_reaches_pagefind(tmp_path: Path, monkeypatch):
    """Pagefind names files after <html lang>: `../../x` wrote them outside its scratch folder."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    page = b'<!DOCTYPE html><html lang="../../../../escaped"><body data-pagefind-body><p>Words here.</p></body></html>'
    index = search_index({"index.html": page})
    assert index.files == {} and [f.code for f in index.notes] == [NOTE_CODE]
    assert "not a language tag" in index.notes[0].message
    assert not [path for path in tmp_path.rglob("*escaped*")]


def test_a_hung_or_cancelled_pagefind_is_a_warning(tmp_path: Path, monkeypatch):
    import asyncio

    from generator.site import search

    async def hang(index, site, out):
        await asyncio.sleep(30)

    monkeypatch.setattr(search, "TIMEOUT_S", 0.5)
    monkeypatch.setattr(search, "_index", hang)
    page = b'<!DOCTYPE html><html lang="en"><body data-pagefind-body><p>Words.</p></body></html>'
    index = search_index({"index.html": page})
    assert [f.severity for f in index.notes] == ["warning"] and "did not finish in 1 s" in index.notes[0].message

    async def cancelled(index, site, out):
        raise asyncio.CancelledError

    monkeypatch.setattr(search, "_index", cancelled)
    assert [f.code for f in search_index({"index.html": page}).notes] == [NOTE_CODE]


def test_scratch_folders_of_runs_that_are_gone_are_removed(tmp_path: Path, monkeypatch):
    import os
    import subprocess
    import sys
    import tempfile

    from generator.site.search import SCRATCH_PREFIX, clear_leftovers

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = tmp_path / f"{SCRATCH_PREFIX}{gone.stdout.strip()}-abc"
    mine = tmp_path / f"{SCRATCH_PREFIX}{os.getpid()}-def"
    legacy_old, legacy_new = tmp_path / f"{SCRATCH_PREFIX}k3j4h5g6", tmp_path / f"{SCRATCH_PREFIX}a1b2c3d4"
    other = tmp_path / "unrelated-folder"
    for folder in (dead, mine, legacy_old, legacy_new, other):
        (folder / "site").mkdir(parents=True)
    os.utime(legacy_old, (0, 0))
    clear_leftovers(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([mine.name, legacy_new.name, other.name])

    (dead / "site").mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    search_index({"style.css": b""})  # every run clears what killed runs left
    assert not dead.exists() and mine.exists()
