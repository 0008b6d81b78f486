"""The Pagefind index: built in memory with the site, over stories and pages only; without Pagefind the site
still builds, with a warning that says why (the browser test is in test_quality.py)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from generator.cli import cli
from generator.site.search import NOTE_CODE, search_index
from tests.conftest import build_in_memory


def test_the_build_carries_a_pagefind_bundle(site: Path):
    result = build_in_memory(site)
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
    result = build_in_memory(site)
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
