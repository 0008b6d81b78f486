"""The search index: Pagefind run over the rendered pages, its bundle handed back as output files.

Pagefind's Python API indexes a folder in one request, while it answers one request per 0.1 s, so adding a
site page by page costs 0.1 s a page. The pages are therefore copied into a private scratch folder, indexed
and written there with PagefindIndex, and read back into memory: public/ is still written by write.py alone.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import os
import signal
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..content.findings import Finding

BUNDLE = "pagefind"
UNUSED = ("pagefind-ui.", "pagefind-modular-ui.", "pagefind-component-ui.", "pagefind-highlight.")
NOTE_CODE = "LP901"
EXCLUDE = ("details.evidence",)  # repeats the ledger's claims under every passage; templates mark the rest


@dataclass
class SearchIndex:
    """The bundle's files ({output path: bytes}) and, if Pagefind could not run, a warning that says why."""

    files: dict[str, bytes] = field(default_factory=dict)
    notes: list[Finding] = field(default_factory=list)


def search_index(files: Mapping[str, bytes]) -> SearchIndex:
    """Index every HTML output; any failure of Pagefind leaves the site without search, not without a build."""
    pages = {path: data for path, data in files.items() if path.endswith(".html")}
    try:
        bundle = _run_async(_pagefind(pages))
    except Exception as err:  # a missing package or binary, a crash or a hang: all mean "no search"
        return SearchIndex(notes=[unavailable(err)])
    return SearchIndex({f"{BUNDLE}/{path}": data for path, data in sorted(bundle.items())
                        if not path.startswith(UNUSED)})


def search_index_apart(files: Mapping[str, bytes]) -> SearchIndex:
    """search_index in a forked process at the lowest CPU priority, for a caller whose other threads must keep
    working meanwhile (the preview server, whose next rebuild must not wait): feeding Pagefind thousands of
    pages holds the interpreter, and Pagefind the cores, for seconds."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return search_index(files)
    _APART["files"] = files  # the child inherits it; only the bundle travels back
    try:
        with multiprocessing.get_context("fork").Pool(1, initializer=_apart_start) as pool:
            return pool.apply(_index_apart)
    except Exception as err:  # the pool itself failed: no search this time, as if Pagefind had
        return SearchIndex(notes=[unavailable(err)])
    finally:
        _APART.clear()


_APART: dict[str, Mapping[str, bytes]] = {}


def _apart_start() -> None:
    """The indexer yields the cores to everything else (Pagefind, started from it, inherits that), and
    leaves Ctrl-C to the server, which stops it (it must not print a traceback of its own)."""
    os.nice(19)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _index_apart() -> SearchIndex:
    return search_index(_APART["files"])


def unavailable(err: BaseException) -> Finding:
    """A warning, not an error: the site is whole without search, and the reader is told how to get it."""
    reason = f"{type(err).__name__}: {err}".rstrip(": ")
    missing = isinstance(err, (ImportError, OSError)) and not isinstance(err, TimeoutError)
    hint = "; install it with: pip install 'pagefind[extended]'" if missing else ""
    return Finding(f"{BUNDLE}/", 1, 1, NOTE_CODE, f"search index not built, the site has no search ({reason}){hint}",
                   severity="warning")


def _run_async(coroutine) -> dict[str, bytes]:
    """asyncio.run, or in a worker thread when the caller already runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def _pagefind(pages: Mapping[str, bytes]) -> dict[str, bytes]:
    from pagefind.service import (
        PagefindService,  # optional: without it the build goes on without search
    )

    with tempfile.TemporaryDirectory(prefix="ledgerpress-search-") as scratch:
        site, out = Path(scratch, "site"), Path(scratch, "bundle")
        for path, data in sorted(pages.items()):
            target = site / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        async with PagefindService() as service:
            index = await service.create_index({"exclude_selectors": list(EXCLUDE)})
            await asyncio.wait_for(_index(index, site, out), timeout=60 + len(pages) / 100)
        return {path.relative_to(out).as_posix(): path.read_bytes() for path in sorted(out.rglob("*"))
                if path.is_file()}


async def _index(index, site: Path, out: Path) -> None:
    indexed = await index.add_directory(str(site))
    if not indexed.get("page_count"):
        raise RuntimeError("Pagefind found no page to index")
    await index.write_files(output_path=str(out))
