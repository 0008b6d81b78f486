"""The search index in a build: the shards of the site's pages (site/search.py), those the memo and the store
hold as they would be made now kept, the others indexed again, each by a Pagefind process of its own over a
scratch folder of its pages."""

from __future__ import annotations

import concurrent.futures
import functools
import gzip
import importlib.metadata
import json
import os
import re
import subprocess
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..content.findings import Finding
from ..content.layout import key_of
from ..content.models import Page
from ..output.store import OutputStore
from ..site.pages import page_output
from ..site.search import (
    EXCLUDE,
    SCRIPTS,
    SHARDS,
    Searchable,
    Shard,
    plan_shards,
    published_files,
    shard_list,
    unavailable,
)
from .records import PageRecord, SearchRecord, ShardRecord, StoryRecord
from .scratch import clear_leftovers


class SearchUnavailable(Exception):
    """Pagefind is missing, failed or ran out of time: the site is built without search."""


@dataclass
class Search:
    """The index made (None if Pagefind could not run, and `notes` say why)."""

    record: SearchRecord | None
    notes: list[Finding] = field(default_factory=list)


def search_plan(records: Iterable[StoryRecord], pages: Iterable[Page], made: Mapping[str, PageRecord]) -> list[Shard]:
    """The shards of the site's story pages (known by what the index reads of them) and plain pages: those made
    from their file (`made`: the site outputs' records), not one whose address a generated output takes, which
    is left out when LP011 is not an error."""
    stories = [Searchable(f"stories/{record.brief.key}/index.html", record.rendered.indexed,
                          record.brief.published.isoformat(), record.brief.key) for record in records]
    plain = [Searchable(path, made[path].digest) for page in pages
             if (path := page_output(page)) in made and made[path].source == page.path]
    return plan_shards(stories, plain)


def make_search(plan: list[Shard], last: SearchRecord | None, store: OutputStore, read: Callable[[str], bytes],
                jobs: int, nice: bool = False) -> Search:
    """The search outputs, put in `store`: each shard's bundle as the last index had it, if the store holds
    it, else indexed again from the pages `read` gives (in the store's scratch folder)."""
    primary = plan[0].name if plan else ""
    shards, todo = {}, []
    for shard in plan:
        record = _kept(shard, last.shards.get(shard.name) if last else None, shard.name == primary)
        if record is not None and holds_all(store, record.files):
            shards[shard.name] = record
        else:
            todo.append(shard)
    try:  # each bundle into the store as it comes: the process holds a few at a time, not the whole index
        for shard, bundle in index_shards(todo, read, jobs, nice, store.scratch()):
            files = {}
            for path, data in published_files(shard, bundle, shard.name == primary).items():
                receipt = store.put(path, data)
                store.receive(receipt)
                files[path] = receipt.digest
            shards[shard.name] = ShardRecord(shard_fingerprint(shard), shard.name == primary, files)
    except SearchUnavailable as err:  # what was put is not among the outputs: the commit leaves it out
        return Search(None, [unavailable(err)])
    listing = store.put(SHARDS, shard_list(plan))
    store.receive(listing)
    outputs = {path: code for name in sorted(shards) for path, code in shards[name].files.items()}
    return Search(SearchRecord(shards, {**outputs, SHARDS: listing.digest}))


def made_from(plan: list[Shard], index: SearchRecord) -> bool:
    """Whether an index was made from exactly the pages of this plan, shard by shard (the same text of the same
    pages, and the same primary)."""
    primary = plan[0].name if plan else ""
    return index.shards.keys() == {shard.name for shard in plan} and all(
        _kept(shard, index.shards[shard.name], shard.name == primary) is index.shards[shard.name] for shard in plan)


def holds_all(store: OutputStore, outputs: Mapping[str, str]) -> bool:
    """The store holds every one of these outputs (path: digest) as it was made."""
    return all(store.holds(path, code) for path, code in outputs.items())


def _kept(shard: Shard, record: ShardRecord | None, primary: bool) -> ShardRecord | None:
    """The record still good for this shard: made from the same pages, and with the scripts if it is now the
    primary (a former primary's bundle has them, and only drops them)."""
    if record is None or record.made_from != shard_fingerprint(shard) or (primary and not record.primary):
        return None
    if primary == record.primary:
        return record
    files = {path: code for path, code in record.files.items() if not path[len(shard.folder):].startswith(SCRIPTS)}
    return ShardRecord(record.made_from, False, files)


def shard_fingerprint(shard: Shard) -> str:
    """What a shard's bundle is made from: its pages as the indexer reads them, and the indexer."""
    return key_of(_indexer(), shard.made_from)


SCRATCH_PREFIX = "ledgerpress-search-"  # then the process id: a folder left by a killed run is found and removed
TIMEOUT_S, PAGES_PER_S = 60.0, 10       # how long Pagefind may take on a shard: a minute, and a second per 10 pages
# Pagefind names some of its files after each page's <html lang>: only a language tag may pass, never a path.
_LANG = re.compile(rb"""<html\b[^>]*?\blang\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)
_TAG = re.compile(rb"[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*")


def index_shards(shards: list[Shard], read: Callable[[str], bytes], jobs: int, nice: bool = False,
                 scratch: str | None = None) -> Iterator[tuple[Shard, dict[str, bytes]]]:
    """Each shard with its bundle ({file name: bytes}), in order, as Pagefind makes them, `jobs` processes at a
    time (`nice`: at the lowest CPU priority, for a caller that must stay responsive), each over a copy of its
    pages in a folder of `scratch` (else of the system's temporary folder). When one fails, the shards not
    started by then are not indexed."""
    if not shards:
        return
    binary = _binary()
    scratch = scratch or tempfile.gettempdir()
    clear_leftovers(scratch, SCRATCH_PREFIX)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        yield from zip(shards, pool.map(lambda shard: _index(shard, read, binary, nice, scratch), shards))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _index(shard: Shard, read: Callable[[str], bytes], binary: str, nice: bool, top: str) -> dict[str, bytes]:
    with tempfile.TemporaryDirectory(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir=top) as scratch:
        site, out = Path(scratch, "site"), Path(scratch, "bundle")
        for page in shard.pages:
            data = read(page.path)
            _language(page.path, data)
            target = site / page.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        command = [binary, "--site", str(site), "--output-path", str(out), "--silent",
                   *(arg for selector in EXCLUDE for arg in ("--exclude-selectors", selector))]
        _run(command, timeout=TIMEOUT_S + len(shard.pages) / PAGES_PER_S, nice=nice)
        bundle = {path.relative_to(out).as_posix(): path.read_bytes() for path in sorted(out.rglob("*"))
                  if path.is_file()}
        return _whole(bundle)


_SIGNATURE = b"pagefind_dcd"  # what each of Pagefind's index files starts with, once unzipped


def _whole(bundle: dict[str, bytes]) -> dict[str, bytes]:
    """The bundle, if it is whole: Pagefind exits 0 when a full disk cut its files short (a 0-byte
    pagefind-entry.json), and a build that kept it would publish a search that never loads."""
    try:
        entry = json.loads(bundle.get("pagefind-entry.json", b""))
        languages = entry["languages"].values()
        pages = sum(int(language["page_count"]) for language in languages)
        metas = [f"pagefind.{language['hash']}.pf_meta" for language in languages]
    except (ValueError, TypeError, KeyError, AttributeError) as err:
        raise SearchUnavailable(f"Pagefind's pagefind-entry.json is not whole ({type(err).__name__})") from None
    fragments = sum(name.startswith("fragment/") for name in bundle)  # a page each (alike pages share one)
    missing = [name for name in (*metas, "pagefind.js") if name not in bundle]
    if not fragments and pages:
        missing.append("fragment/")
    if missing or fragments > pages:
        raise SearchUnavailable(f"Pagefind's output is not whole ({', '.join(missing) or 'more pages than it lists'})")
    for name, data in bundle.items():
        if not data or name.endswith((".pf_meta", ".pf_index", ".pf_fragment", ".pf_filter")) and not _unzips(data):
            raise SearchUnavailable(f"Pagefind's {name} is {'empty' if not data else 'damaged'}")
    return bundle


def _unzips(data: bytes) -> bool:
    try:
        return gzip.decompress(data).startswith(_SIGNATURE)
    except (OSError, EOFError, zlib.error):
        return False


def _language(path: str, page: bytes) -> None:
    """Refuse a page whose <html lang> is not a language tag: Pagefind would write files named after it
    (`../../x` included) outside its folder."""
    found = _LANG.search(page[:4096])
    lang = next((value for value in found.groups() if value is not None), b"") if found else b""
    if lang and not _TAG.fullmatch(lang):
        shown = lang[:40].decode("utf-8", "replace")
        raise SearchUnavailable(f'{path} has <html lang="{shown}">, which is not a language tag')


def _run(command: list[str], timeout: float, nice: bool) -> None:
    try:
        with subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              start_new_session=True) as process:
            if nice:
                os.setpriority(os.PRIO_PROCESS, process.pid, 19)
            try:
                output, _ = process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                raise SearchUnavailable(f"Pagefind took more than {timeout:.1f} s") from None
    except OSError as err:
        raise SearchUnavailable(f"Pagefind could not start: {err}") from None
    if process.returncode:
        message = output.decode("utf-8", "replace").strip().splitlines()
        raise SearchUnavailable(f"Pagefind failed: {message[-1] if message else f'exit {process.returncode}'}")


def _binary() -> str:
    try:  # optional: without it the build goes on without search
        from pagefind.service import get_executable
    except ImportError as err:
        raise SearchUnavailable(f"{err}; install it with: pip install 'pagefind[extended]'") from None
    found = get_executable()
    if found is None:
        raise SearchUnavailable("the Pagefind binary is missing; install it with: pip install 'pagefind[extended]'")
    return str(found)


@functools.cache
def _indexer() -> str:
    """Which Pagefind makes the indexes (its binary and version): another one makes every shard again."""
    try:
        return f"{_binary()}\0{importlib.metadata.version('pagefind')}"
    except (SearchUnavailable, importlib.metadata.PackageNotFoundError):
        return ""
