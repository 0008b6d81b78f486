"""The search index's plan: which pages Pagefind indexes, in which shards, and how their bundles are published.

Pagefind has no incremental mode and holds all it indexes in memory, so one index of the whole site would be
made again for every edit, in memory that grows with the site. The stories are therefore indexed in shards of
about the square root of their number (shard_size), in order of publication, cut before a story whose key
hashes to a boundary (an edit, an addition or a removal moves only the cuts near it); engine/indexing.py runs
Pagefind over each. The search page merges the shards' indexes (Pagefind's mergeIndex); the first shard, the
newest stories', is the primary and alone publishes Pagefind's scripts, which every bundle would repeat.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..checks import RULES
from ..content.findings import Finding
from ..content.layout import key_of

BUNDLE = "pagefind"
SHARDS = f"{BUNDLE}/shards.json"
PAGES_SHARD = "pages"
SCRIPTS = ("pagefind.js", "pagefind-worker.js", "wasm.")  # what the primary's bundle alone publishes
UNUSED = ("pagefind-ui.", "pagefind-modular-ui.", "pagefind-component-ui.", "pagefind-highlight.")
# Left out of the index wherever a template puts them: the evidence under each passage (it repeats the
# ledger's claims) and the citation markers ("[1]", in every paragraph); templates mark the rest.
EXCLUDE = ("details.evidence", "sup.cites")
NOTE_CODE = "LP901"
SMALLEST, LARGEST = 16, 128  # a shard's usual number of stories: a power of two between these


@dataclass(frozen=True)
class Searchable:
    """A page to index: its HTML output, the digest of what Pagefind reads of it (indexed_part), and, for a
    story, its place in the order of publication."""

    path: str
    digest: str
    published: str = ""
    key: str = ""


@dataclass(frozen=True)
class Shard:
    """Pages indexed together into pagefind/<name>/."""

    name: str
    pages: tuple[Searchable, ...]

    @property
    def made_from(self) -> str:
        """What its index is made from: what the indexer reads of each page, and where the page is published."""
        return key_of(*EXCLUDE, *(f"{page.path}\0{page.digest}" for page in self.pages))

    @property
    def folder(self) -> str:
        return f"{BUNDLE}/{self.name}/"


def shard_size(stories: int) -> int:
    """About the square root of the number of stories: each shard is indexed in a fraction of a second, and a
    reader's browser fetches a part of every shard's index, so neither grows as fast as the site."""
    size = SMALLEST
    while size < LARGEST and 2 * size * size < stories:
        size *= 2
    return size


def plan_shards(stories: Iterable[Searchable], pages: Iterable[Searchable]) -> list[Shard]:
    """The stories in order of publication, cut into shards of size/2 to 3*size/2, newest first (Pagefind's memory
    grows with a shard's pages: as many shards as the build has jobs are indexed at once, beside it); the plain pages in one more."""
    ordered = sorted(stories, key=lambda story: (story.published, story.key))
    size = shard_size(len(ordered))
    runs: list[list[Searchable]] = []
    for story in ordered:
        if not runs or len(runs[-1]) >= 3 * size // 2 or (len(runs[-1]) >= size // 2 and _boundary(story.key, size)):
            runs.append([])
        runs[-1].append(story)
    shards = [Shard(_name(run[0]), tuple(run)) for run in reversed(runs)]
    plain = tuple(sorted(pages, key=lambda page: page.path))
    return [*shards, Shard(PAGES_SHARD, plain)] if plain else shards


def _boundary(key: str, size: int) -> bool:
    return int.from_bytes(hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest(), "big") % size == 0


def _name(first: Searchable) -> str:
    return f"{first.published[:10]}-{hashlib.blake2b(first.key.encode('utf-8'), digest_size=4).hexdigest()}"


_NAME = re.compile(rb"<([a-zA-Z][a-zA-Z0-9-]*)")
BODY = b"data-pagefind-body"


def indexed_part(page: bytes) -> bytes:
    """What Pagefind reads of a page: its data-pagefind-body element if it has one (what that element tells
    Pagefind to ignore included, which only means its shard is indexed again more often than it must be), else
    the whole page. A story page changes with its related stories and its ledger; its index only with this."""
    if page.count(BODY) != 1:
        return page
    start = page.rfind(b"<", 0, page.find(BODY))
    name = _NAME.match(page, start)
    if name is None:
        return page
    depth = 0
    for tag in re.compile(rb"<(/?)" + re.escape(name[1]) + rb"[\s>/]", re.IGNORECASE).finditer(page, start):
        depth += -1 if tag[1] else 1
        if depth == 0:
            end = page.find(b">", tag.start())
            return page[start:end + 1] if end >= 0 else page
    return page


def published_files(shard: Shard, files: dict[str, bytes], primary: bool) -> dict[str, bytes]:
    """A shard's bundle as the site publishes it, by output path."""
    return {shard.folder + name: data for name, data in sorted(files.items())
            if not name.startswith(UNUSED) and (primary or not name.startswith(SCRIPTS))}


def shard_list(shards: list[Shard]) -> bytes:
    """pagefind/shards.json: the bundles the search page merges, the primary first."""
    return json.dumps({"bundles": [f"/{shard.folder}" for shard in shards]}, indent=1).encode("utf-8") + b"\n"


def unavailable(err: BaseException) -> Finding:
    """A warning, not an error: the site is whole without search, and the reader is told how to get it."""
    return Finding(f"{BUNDLE}/", 1, 1, NOTE_CODE, f"search index not built, the site has no search ({err})",
                   severity=RULES[NOTE_CODE].severity)
