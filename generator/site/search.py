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
import re
import shutil
import signal
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..content.findings import Finding

BUNDLE = "pagefind"
UNUSED = ("pagefind-ui.", "pagefind-modular-ui.", "pagefind-component-ui.", "pagefind-highlight.")
NOTE_CODE = "LP901"
EXCLUDE = ("details.evidence",)  # repeats the ledger's claims under every passage; templates mark the rest
SCRATCH_PREFIX = "ledgerpress-search-"  # then the process id: a folder left by a killed run is found and removed
TIMEOUT_S, PAGES_PER_S = 60.0, 100      # how long Pagefind may take: a minute, and a second per 100 pages
LEFTOVER_AGE_S = 3600                   # a scratch folder without a process id (an older ledgerpress) is removed after
# Pagefind names some of its files after each page's <html lang>: only a language tag may pass, never a path.
_LANG = re.compile(rb"<html\b[^>]*?\blang\s*=\s*([\"']?)([^\"'>]*)\1", re.IGNORECASE)
_TAG = re.compile(rb"[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*")


@dataclass
class SearchIndex:
    """The bundle's files ({output path: bytes}) and, if Pagefind could not run, a warning that says why."""

    files: dict[str, bytes] = field(default_factory=dict)
    notes: list[Finding] = field(default_factory=list)


def search_index(files: Mapping[str, bytes]) -> SearchIndex:
    """Index every HTML output; any failure of Pagefind leaves the site without search, not without a build."""
    pages = {path: data for path, data in files.items() if path.endswith(".html") and _inside(path)}
    refused = _unsafe_language(pages)
    if refused:
        return SearchIndex(notes=[unavailable(ValueError(refused))])
    clear_leftovers(tempfile.gettempdir())
    try:
        bundle = _run_async(_pagefind(pages))
    except (Exception, asyncio.CancelledError) as err:  # a missing package or binary, a crash or a hang: all
        return SearchIndex(notes=[unavailable(err)])    # mean "no search" (a cancelled wait is not an Exception)
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


def _inside(path: str) -> bool:
    """An output path that stays inside the folder it is written under (build outputs always do)."""
    return not path.startswith(("/", "\\")) and ".." not in path.replace("\\", "/").split("/")


def _unsafe_language(pages: Mapping[str, bytes]) -> str | None:
    """Why the pages may not be indexed: a page whose <html lang> is not a language tag (Pagefind would
    write files named after it, `../../x` included, outside its folder), else None."""
    for path, data in sorted(pages.items()):
        found = _LANG.search(data[:4096])
        if found and found[2] and not _TAG.fullmatch(found[2]):
            shown = found[2][:40].decode("utf-8", "replace")
            return f"{path} has <html lang=\"{shown}\">, which is not a language tag"
    return None


def clear_leftovers(folder: str) -> None:
    """Remove the scratch folders that runs which are gone left behind (killed before they could): ours, in
    `folder`, named after a process that no longer runs (or, without a process id, older than an hour)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(SCRATCH_PREFIX):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not entry.is_dir(follow_symlinks=False) or info.st_uid != os.getuid():
            continue
        owner = entry.name[len(SCRATCH_PREFIX):].split("-")[0]
        gone = not _running(int(owner)) if owner.isdigit() else time.time() - info.st_mtime > LEFTOVER_AGE_S
        if gone:
            shutil.rmtree(entry.path, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


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

    with tempfile.TemporaryDirectory(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-") as scratch:
        site, out = Path(scratch, "site"), Path(scratch, "bundle")
        for path, data in sorted(pages.items()):
            target = site / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        timeout = TIMEOUT_S + len(pages) / PAGES_PER_S
        async with PagefindService() as service:
            index = await service.create_index({"exclude_selectors": list(EXCLUDE)})
            try:
                await asyncio.wait_for(_index(index, site, out), timeout=timeout)
            except asyncio.TimeoutError:
                raise TimeoutError(f"Pagefind did not finish in {timeout:.0f} s") from None
        return {path.relative_to(out).as_posix(): path.read_bytes() for path in sorted(out.rglob("*"))
                if path.is_file()}


async def _index(index, site: Path, out: Path) -> None:
    indexed = await index.add_directory(str(site))
    if not indexed.get("page_count"):
        raise RuntimeError("Pagefind found no page to index")
    await index.write_files(output_path=str(out))
