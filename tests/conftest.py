"""Tiny site trees written to tmp_path from a dict: {relative path: text}."""

from __future__ import annotations

import datetime as dt
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from generator.engine import Memory, Options, Report, build

SITE_TOML = """\
title = "Test Desk"
base_url = "https://test.example.org"
description = "A tiny site for tests."
language = "en"
manifest_max_age_days = 30
duplicate_window_days = 7
duplicate_threshold = 0.6
page_size = 2

[newsrooms]
city = "City"
science = "Science"

[beats]
policy = "Policy"
research = "Research"

[trust]
reported = "Reported"
confirmed = "Confirmed"

[reuse]
version = "v1"
text = "Free to quote with credit."
credit = "Test Desk"
terms_path = "/terms/reuse/"
"""

MANIFEST_A = """\
{
  "id": "1000000000000000001",
  "title": "Council minutes, November session",
  "source": {"name": "council-minutes", "url": "https://council.example.org/minutes/11"},
  "published": "2026-11-20T09:00:00Z",
  "brief": "The council's November session.",
  "claims": [
    {"id": "2000000000000000011", "text": "The council approved a busway budget of 12,500,000 dollars."},
    {"id": "2000000000000000012", "text": "The vote was 9 to 2."}
  ]
}
"""

MANIFEST_B = """\
{
  "id": "1000000000000000002",
  "title": "Transit ridership report",
  "source": {"name": "transit-stats", "url": "https://transit.example.org/ridership"},
  "published": "2026-11-19T12:00:00Z",
  "claims": [
    {"id": "2000000000000000021", "text": "Ridership on Quay Street buses rose 14% in a year."}
  ]
}
"""

STORY = """\
---
title: "Council funds the Quay Street busway"
description: "The council approved the busway budget after a year of rising ridership."
published: 2026-11-21T10:30:00Z
newsroom: city
beat: policy
trust: confirmed
ledger:
  - manifest: "1000000000000000001"
    claims: ["2000000000000000011", "2000000000000000012"]
  - manifest: "1000000000000000002"
    claims: ["2000000000000000021"]
key_facts:
  - text: "The council approved the busway budget, 9 to 2."
    labels: ["council record"]
    cites: ["1000000000000000001"]
unresolved:
  - "When construction starts."
decision_card:
  useful_for: ["Commuters on Quay Street"]
  not_for: ["Drivers looking for parking rules"]
  compare_against: ["Last year's transit plan"]
---

## The vote

The council approved a busway budget of 12,500,000 dollars on a 9 to 2 vote. [cites: 1000000000000000001]

## Why now

Ridership on the street's buses rose 14% in a year, the transit agency says. [cites: 1000000000000000002]

- Supporters pointed to the ridership figures. [cites: 1000000000000000002]
- Two members voted against. [cites: 1000000000000000001, 1000000000000000002]
"""

PAGE = """\
---
title: "Reuse terms"
description: "How you may reuse our stories."
---

Quote us freely, with credit and a link.
"""

STORY_PATH = "content/stories/2026-11-21/council-funds-the-quay-street-busway.md"


def base_files() -> dict[str, str]:
    """A valid one-story site: the fixture every test edits."""
    return {
        "content/site.toml": SITE_TOML,
        "content/manifests/1000000000000000001.json": MANIFEST_A,
        "content/manifests/1000000000000000002.json": MANIFEST_B,
        STORY_PATH: STORY,
        "content/pages/terms/reuse.md": PAGE,
    }


def write_tree(root: Path, files: dict[str, str | bytes | None]) -> Path:
    """Write files under root; a None value deletes the file."""
    for relative, text in files.items():
        path = root / relative
        if text is None:
            path.unlink(missing_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text) if text.startswith("\n") else text, encoding="utf-8")
    return root


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A valid one-story site in tmp_path."""
    return write_tree(tmp_path / "site", base_files())


@pytest.fixture
def stories_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The story files the engine reads (parses and checks) in this process from now on, by path as shown."""
    from generator.engine import site_check as check

    read: list[str] = []
    original = check.read_story

    def counted(reading, shown: str):
        read.append(shown)
        return original(reading, shown)

    monkeypatch.setattr(check, "read_story", counted)
    return read


def demo_copy(folder: Path) -> Path:
    """A copy of the demo site's content/ in folder."""
    import shutil

    shutil.copytree(Path(__file__).resolve().parent.parent / "content", folder / "content")
    return folder


def add_uncited_line(root: Path, number: int) -> Path:
    """The number-th story file (by path) given a closing line that cites nothing: an error (LP030)."""
    story = sorted((root / "content/stories").glob("*/*.md"))[number]
    story.write_text(story.read_text().rstrip("\n") + "\n\nA closing line that cites nothing.\n")
    return story


@pytest.fixture(autouse=True, scope="session")
def _own_cache_home(tmp_path_factory: pytest.TempPathFactory):
    """Builds sign their memos with a key under $XDG_CACHE_HOME: the tests keep theirs out of the user's home."""
    import os
    home = tmp_path_factory.mktemp("cache-home")
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(home)
    yield
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before


@dataclass
class Built:
    """A build into memory, as `serve` makes one: its report and, if it succeeded, every file."""

    report: Report
    files: dict[str, bytes]
    searchable: tuple | None = None  # what its search index is made from

    @property
    def ok(self) -> bool:
        return self.report.ok

    @property
    def findings(self) -> list:
        return self.report.findings


def build_in_memory(root: Path, drafts: bool = False, base_url: str | None = None, jobs: int | None = None,
                    search: bool = True, now: dt.datetime | None = None) -> Built:
    memory = Memory()
    report = build(root, memory, Options(drafts, base_url, jobs, search, now))
    return Built(report, memory.files, memory.searchable)


_COLD: dict[str, dict[str, bytes]] = {}  # a cold build's files, by the digest of the content built


def built_cold(root: Path, scratch: Path | None = None) -> dict[str, bytes]:
    """The files a build from scratch (no memo, no search index) makes of the site at root as it is now: built
    once for each content (its content/ and templates/, by digest) and shared by every test that asks."""
    import hashlib

    hasher = hashlib.blake2b(digest_size=16)
    for path in sorted(p for top in ("content", "templates") for p in (root / top).rglob("*") if p.is_file()):
        hasher.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    digest = hasher.hexdigest()
    if digest not in _COLD:
        memory = Memory()
        report = build(root, memory, Options(search=False))
        assert report.ok, report.findings
        _COLD[digest] = dict(memory.files)
    return _COLD[digest]
